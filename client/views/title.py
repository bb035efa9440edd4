"""Title: language (remembered), player name, play locally or connect to a server."""

from __future__ import annotations

import math

from ...shared.engine.data import CLASSES
from ...shared.protocol import DEFAULT_PORT
from .. import theme as th
from ..gfx import Region, Scene, TextField
from ..model import parse_host
from .base import BaseView

LANGS = (("ja", "日本語"), ("ko", "한국어"), ("en", "English"))


def two_lines(fingerprint: str) -> str:
    """A SHA-256 fingerprint (95 characters) as two lines of 16 bytes."""
    return f"{fingerprint[:47]}\n{fingerprint[48:]}"


class TitleView(BaseView):
    name = "title"

    def __init__(self, app) -> None:
        super().__init__(app)
        self.fields = {
            "name": TextField(app.settings.get("name", ""), max_len=32),
            "host": TextField(app.settings.get("host", "localhost"), max_len=120),
        }
        self.field_order = ["name", "host"]
        self.focus = None if app.settings.get("name") else "name"

    def on_field_changed(self, field: str) -> None:
        self.app.settings[field] = self.fields[field].value

    def on_enter(self, field: str) -> None:
        if field == "name":
            self.play_local()
        else:
            self.connect()

    def play_local(self) -> None:
        self.app.settings["name"] = self.fields["name"].value.strip()
        self.app.open_local_lobby()

    def continue_local(self) -> None:
        self.app.settings["name"] = self.fields["name"].value.strip()
        if self.app.continue_local():
            self.model.notify(self.tr("net.starting_local"), "info")

    def connect(self) -> None:
        self.app.settings["name"] = self.fields["name"].value.strip()
        if not self.app.check_player_name():
            return
        address = parse_host(self.fields["host"].value, DEFAULT_PORT)
        if address is None:
            self.model.notify(self.tr("error.bad_host"))
            return
        self.app.settings["host"] = self.fields["host"].value.strip()
        if self.app.connect(*address):
            self.model.notify(self.tr("net.connecting", host=self.model.host), "info")

    def toggle_tls(self) -> None:
        """Connect over TLS or not (remembered; `grailwar connect --tls` turns it on)."""
        self.app.tls = self.app.settings["tls"] = not self.app.tls
        self.invalidate()

    def modal(self, o: Scene) -> list[Region] | None:
        """A server's certificate not accepted: an untrusted one's fingerprint, and whether to
        pin it (first use); a changed one's old and new fingerprints, refused."""
        if self.app.refused is None:
            return None
        host, port, refusal = self.app.refused
        tr, server = self.tr, f"{host}:{port}"
        if refusal.kind == "untrusted":
            text = tr("tls.ask_text", server=server, fingerprint=two_lines(refusal.seen))
            return self.dialog(o, "refusal", tr("tls.ask_title"), text, self.answer_refused,
                               tr("tls.trust"), tr("tls.dont_trust"), height=320)
        text = tr("tls.changed_text", server=server, pinned=two_lines(refusal.pinned),
                  seen=two_lines(refusal.seen))
        return self.dialog(o, "refusal", tr("tls.changed_title"), text, self.answer_refused,
                           tr("tls.close"), None, height=420)

    def answer_refused(self, trust: bool) -> None:
        self.app.answer_refused(trust)
        self.invalidate()

    def layout(self, s: Scene) -> None:
        tr = self.tr
        s.gradient(0, 0, th.WIDTH, th.HEIGHT, (16, 18, 40), (34, 22, 40))
        # the panel, right of the circle
        left, bottom, width, height = 690, 90, 530, 620
        self.magic_circle(s, 325, 405, 245, left - 10)
        s.shadow(left, bottom, width, height, 5, 6, (0, 0, 0, 120))
        s.box(left, bottom, width, height, (30, 33, 52, 240), th.GOLD_DARK, 1)
        s.rect(left, bottom + height - 6, width, 6, th.VERMILION)
        s.text(tr("app.title"), left + width / 2, bottom + height - 74, 38, th.GOLD,
               font="serif", anchor_x="center", max_width=width - 40)
        s.text(tr("app.subtitle"), left + width / 2, bottom + height - 110, 15, th.MUTED,
               anchor_x="center", max_width=width - 40)
        y = bottom + height - 170
        s.text(tr("title.language"), left + 36, y + 17, 13, th.MUTED, anchor_y="center")
        x = left + 150
        for code, label in LANGS:
            self.button(s, f"lang:{code}", x, y, 110, 34, label,
                        lambda code=code: self.app.set_lang(code),
                        style="selected" if tr.lang == code else "ghost", size=14)
            x += 120
        y -= 70
        s.text(tr("title.name"), left + 36, y + 46, 13, th.MUTED)
        self.fields["name"].placeholder = tr("title.name_hint")
        self.field(s, "name", left + 36, y, width - 72, 40)
        y -= 74
        if self.app.saved_local_game() is not None:  # Continue / New game (a kept game)
            half = (width - 72 - 12) / 2
            self.button(s, "continue_local", left + 36, y, half, 52, tr("title.continue"),
                        self.continue_local, style="primary", size=18,
                        help=tr("title.continue_help"))
            self.button(s, "play_local", left + 36 + half + 12, y, half, 52,
                        tr("title.new_game"), self.play_local, size=18,
                        help=tr("title.new_game_help"))
        else:
            self.button(s, "play_local", left + 36, y, width - 72, 52, tr("title.play_local"),
                        self.play_local, style="primary", size=18,
                        help=tr("title.play_local_help"))
        kept = self.app.saved_local_game()
        about = tr("title.play_local_help") if kept is None else tr("title.continue_help") + (
            tr("title.kept_modules", list=" · ".join(map(tr.module, kept.modules)))
            if kept.modules else "")
        s.text(about, left + 36, y - 22, 12, th.MUTED, max_width=width - 72)
        y -= 64
        s.rect(left + 36, y + 20, width - 72, 1, th.LINE)
        y -= 46
        s.text(tr("title.host"), left + 36, y + 46, 13, th.MUTED)
        self.fields["host"].placeholder = tr("title.host_hint")
        self.field(s, "host", left + 36, y, width - 72 - 150, 40)
        self.button(s, "connect", left + width - 36 - 140, y, 140, 40, tr("title.connect"),
                    self.connect, help=tr("title.connect_help"), size=15)
        s.text(tr("title.connect_help"), left + 36, y - 22, 12, th.MUTED, max_width=width - 72)
        tls = self.app.tls
        self.button(s, "tls", left + 36, y - 86, 230, 34,
                    tr("tls.toggle_on" if tls else "tls.toggle_off"), self.toggle_tls,
                    help=tr("tls.toggle_help"), style="selected" if tls else "ghost", size=13)
        self.button(s, "help", left + width / 2 - 100, bottom + 56, 200, 38, tr("help.open"),
                    self.toggle_help, help=tr("help.open_help"), style="ghost", size=14)
        s.text(tr("title.footer"), left + width / 2, bottom + 26, 12, th.FAINT,
               anchor_x="center", max_width=width - 30)

    def magic_circle(self, s: Scene, cx: float, cy: float, r: float, right: float) -> None:
        """A summoning circle: rings, a heptagram, the seven classes at its points, their
        names between the window's left edge and `right`."""
        s.circle(cx, cy, r + 18, (40, 30, 60, 120), 64)
        s.ring(cx, cy, r, 3, (*th.GOLD, 200), 96)
        s.ring(cx, cy, r - 14, 1.5, (*th.GOLD, 140), 96)
        s.ring(cx, cy, r * 0.42, 2, (*th.VERMILION, 180), 64)
        s.ring(cx, cy, r * 0.30, 1.5, (*th.GOLD, 120), 64)
        points = []
        for i in range(7):
            a = math.pi / 2 + 2 * math.pi * i / 7
            points.append((cx + (r - 14) * math.cos(a), cy + (r - 14) * math.sin(a)))
        for i in range(7):  # {7/3} heptagram
            p, q = points[i], points[(i + 3) % 7]
            s.line(p[0], p[1], q[0], q[1], 1.6, (*th.GOLD, 150))
        for i in range(7):
            p, q = points[i], points[(i + 1) % 7]
            s.line(p[0], p[1], q[0], q[1], 1.0, (*th.GOLD, 90))
        for i, cls in enumerate(CLASSES):
            px, py = points[i]
            colour = th.class_colour(cls)
            s.circle(px, py, 26, (0, 0, 0, 120))
            s.circle(px, py, 23, th.shade(colour, 1.2))
            s.circle(px, py, 20, colour)
            s.text(self.tr.short(cls), px, py, 15 if self.tr.lang == "ja" else 12, th.WHITE,
                   bold=True, anchor_x="center", anchor_y="center")
            a = math.pi / 2 + 2 * math.pi * i / 7
            lx, ly = cx + (r + 30) * math.cos(a), cy + (r + 30) * math.sin(a)
            side = "center" if abs(math.cos(a)) < 0.3 else "left" if math.cos(a) > 0 else "right"
            if side == "center":
                ly += 8 if math.sin(a) > 0 else -8
            room = lx - 6 if side == "right" else right - lx if side == "left" else 160
            s.text(self.tr.cls(cls), lx, ly, 13, th.MUTED, anchor_x=side, anchor_y="center",
                   max_width=room)
        # the Command Spell at the centre
        for k in range(3):
            a = math.pi / 2 + 2 * math.pi * k / 3
            x, y = cx + r * 0.16 * math.cos(a), cy + r * 0.16 * math.sin(a)
            s.diamond(x, y, 16, (*th.VERMILION, 230))
        s.circle(cx, cy, 8, th.GOLD)
