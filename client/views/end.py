"""End: the winner, and the export of the game's log and replay."""

from __future__ import annotations

import math

from .. import theme as th
from ..gfx import Scene
from .common import InGameView, token


class EndView(InGameView):
    name = "end"
    tab = "end"

    def layout(self, s: Scene) -> None:
        tr, m = self.tr, self.model
        s.gradient(0, 0, th.WIDTH, th.HEIGHT, (40, 30, 24), (16, 16, 30))
        self.header(s)
        result = m.result()
        cx = th.WIDTH / 2
        self.grail(s, cx, 505)
        s.text(tr("end.title"), cx, 700, 30, th.GOLD, font="serif", anchor_x="center")
        if result is None:
            return
        if result["all_won"]:  # a cooperative room's win: every camp left wins
            headline = tr("end.raid_won")
        elif result["winner"] >= 0:
            cls = result["cls"]
            headline = tr("end.winner_you") if result["you"] else tr("end.winner",
                                                                     cls=tr.cls(cls))
            token(s, cx, 287, 26, cls, tr.short(cls), mine=result["you"], size=19)
            name = m.player_name(result["winner"])
            s.text(name, cx, 232, 15, th.TEXT, anchor_x="center", max_width=400)
        else:
            headline = tr("end.no_winner")
        s.text(headline, cx, 334, 26, th.WHITE, font="serif", anchor_x="center",
               max_width=1100)
        reason = result.get("reason")
        info = [tr(f"end.reason_{reason}") if reason and tr.has(f"end.reason_{reason}") else "",
                tr("end.days", n=result["day"])]
        s.text("  ·  ".join(t for t in info if t), cx, 196, 15, th.MUTED, anchor_x="center")
        survivors = result["survivors"]
        if (survivors and len(survivors) > 1) or result["winner"] < 0 or result["all_won"]:
            s.text(tr("end.survivors"), cx, 172, 12, th.MUTED, anchor_x="center")
            x = cx - (len(survivors) - 1) * 22
            for seat in survivors:
                cls = m.camp(seat)["cls"]
                token(s, x, 148, 14, cls, tr.short(cls), mine=seat == m.me, size=11)
                x += 44
        bw, gap = 250, 20
        x = cx - (3 * bw + 2 * gap) / 2
        self.button(s, "export_log", x, 70, bw, 50, tr("end.export_log"),
                    lambda: self.app.export("log"), size=16)
        self.button(s, "export_replay", x + bw + gap, 70, bw, 50, tr("end.export_replay"),
                    lambda: self.app.export("replay"), size=16)
        self.button(s, "back", x + 2 * (bw + gap), 70, bw, 50, tr("end.back"),
                    self.app.go_title, style="primary", size=16)
        if self.app.last_export:
            s.text(self.app.last_export, cx, 40, 11, th.MUTED, anchor_x="center",
                   max_width=1000)

    def grail(self, s: Scene, cx: float, cy: float) -> None:
        """The Holy Grail: a golden chalice in a halo of light."""
        for k in range(16):
            a = 2 * math.pi * (k + 0.5) / 16
            s.triangle((cx, cy + 20), (cx + 160 * math.cos(a - 0.06), cy + 20 + 160 * math.sin(
                a - 0.06)), (cx + 160 * math.cos(a + 0.06), cy + 20 + 160 * math.sin(a + 0.06)),
                (*th.GOLD, 34))
        s.circle(cx, cy + 20, 112, (*th.GOLD, 26), 48)
        s.circle(cx, cy + 20, 84, (*th.GOLD, 30), 48)
        gold, dark, light = th.GOLD, th.GOLD_DARK, th.shade(th.GOLD, 1.35)
        # the bowl: the lower half of an ellipse, with a rim and a light on its side
        rx, ry, top = 62, 58, cy + 48
        steps = 24
        prev = (cx - rx, top)
        for i in range(1, steps + 1):
            a = math.pi + math.pi * i / steps
            cur = (cx + rx * math.cos(a), top + ry * math.sin(a))
            s.triangle((cx, top), prev, cur, gold)
            prev = cur
        s.rect(cx - rx - 4, top - 2, 2 * rx + 8, 8, light)
        s.rect(cx - rx + 10, top - 30, 8, 24, (*th.WHITE, 70))
        s.diamond(cx, top - ry - 4, 10, dark)          # the knot
        s.rect(cx - 6, top - ry - 46, 12, 44, dark)      # the stem
        s.diamond(cx, top - ry - 26, 8, gold)
        s.triangle((cx - 44, top - ry - 58), (cx + 44, top - ry - 58), (cx, top - ry - 40), dark)
        s.rect(cx - 46, top - ry - 64, 92, 8, gold)     # the base
        s.circle(cx, top + 26, 14, (255, 248, 220), 24)  # the light above the cup
        s.circle(cx, top + 26, 22, (255, 240, 200, 70), 24)
