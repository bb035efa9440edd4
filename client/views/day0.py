"""Day 0 of a campaign (seed 002 §14; spec C14.2, C14.3): the relic draft (every relic with its
name, hint and who took it, and a Choose button for each free one while this seat may draft),
then the setup: who is still getting ready, the tag dealt, the way to the stance and gear pages
(the whole catalogue is for sale today), and the Ready button."""

from __future__ import annotations

from functools import partial
from typing import Any

from .. import campaign as cp
from .. import theme as th
from ..campaign_text import relic_hint, relic_name
from ..gfx import Scene
from .common import HEADER_H, InGameView, token

TOP = th.HEIGHT - HEADER_H - 12
DRAFT = (16, 12, 820, TOP - 60)
SETUP = (848, 12, 416, TOP - 60)


class Day0View(InGameView):
    name = "day0"
    background = (26, 22, 32)
    split = True
    cached = True
    tab = "game"

    def layout(self, s: Scene) -> None:
        tr, m = self.tr, self.model
        self.header(s)
        phase = cp.day0_phase(m.view) or "done"
        s.text(tr("campaign.day0.title"), 20, TOP - 30, 20, th.GOLD, font="serif",
               max_width=400)
        s.text(self.prompt_line(), 440, TOP - 30, 15, th.GOLD if m.my_turn else th.MUTED,
               max_width=th.WIDTH - 460)
        self.draft(s, phase, *DRAFT)
        self.setup(s, phase, *SETUP)

    def draft(self, s: Scene, phase: str, left: float, bottom: float, width: float,
              height: float) -> None:
        tr, m = self.tr, self.model
        self.panel(s, left, bottom, width, height, tr("campaign.day0.relics"), paper=True)
        rows = cp.relics(m)
        if not rows:
            s.text(tr("campaign.day0.no_draft"), left + 14, bottom + height - 70, 13,
                   th.INK_SOFT, width=int(width - 28))
            return
        row_h = min(78.0, (height - 50) / len(rows))
        y = bottom + height - 42
        for row in rows:
            y -= row_h
            self.relic_row(s, row, phase, left + 8, y, width - 16, row_h)

    def relic_row(self, s: Scene, row: dict[str, Any], phase: str, left: float, y: float,
                  width: float, h: float) -> None:
        tr, m = self.tr, self.model
        relic, seat = row["relic"], row["seat"]
        s.rect(left, y, width, 1, th.PAPER_DARK)
        s.text(relic_name(tr, relic), left + 10, y + h - 22, 15, th.INK, font="serif",
               max_width=width - 220)
        s.text(relic_hint(tr, relic), left + 10, y + h - 32, 11, th.INK_SOFT, anchor_y="top",
               width=int(width - 230), max_lines=2)
        self.add_region(f"relic:{relic}", left, y, width - 200, h,
                        help=f"{relic_name(tr, relic)}\n{relic_hint(tr, relic)}")
        right = left + width - 10
        if seat >= 0:
            cls = m.camp(seat)["cls"] if phase == "setup" or seat == m.me else ""
            label = tr("campaign.day0.yours") if seat == m.me else \
                tr("campaign.day0.taken_by", who=m.player_name(seat) or tr("campaign.day0.rival"))
            if cls:
                token(s, right - 170, y + h / 2, 13, cls, tr.short(cls), mine=seat == m.me)
            s.text(label, right, y + h / 2, 12, th.JADE if seat == m.me else th.INK_SOFT,
                   bold=seat == m.me, anchor_x="right", anchor_y="center", max_width=150)
        elif row["choose"] is not None:
            self.button(s, f"choose:{relic}", right - 150, y + h / 2 - 17, 150, 34,
                        tr("campaign.day0.choose"), partial(self.send, row["choose"]),
                        style="primary", size=13, help=relic_hint(tr, relic))
        else:
            s.text(tr("campaign.day0.free"), right, y + h / 2, 12, th.INK_SOFT, anchor_x="right",
                   anchor_y="center")

    def setup(self, s: Scene, phase: str, left: float, bottom: float, width: float,
              height: float) -> None:
        tr, m = self.tr, self.model
        self.panel(s, left, bottom, width, height, tr("campaign.day0.setup"))
        top = bottom + height - 50
        t = s.text(tr(f"campaign.day0.phase.{phase}"), left + 14, top, 13, th.TEXT,
                   anchor_y="top", width=int(width - 28), max_lines=5)
        y = top - t.content_height - 30
        rec = cp.own_record(m)
        if rec is not None and rec["tag"]:
            s.text(tr("campaign.tag_line", tag=tr(f"campaign.tag.{rec['tag']}")), left + 14, y,
                   13, th.GOLD, max_width=width - 28)
            self.add_region("tag", left + 14, y - 6, width - 28, 22,
                            help=tr(f"campaign.tag_help.{rec['tag']}"))
            y -= 30
        if phase == "setup" and rec is not None:
            for page in ("stances", "gear"):
                self.button(s, f"open:{page}", left + 14, y - 36, width - 28, 36,
                            tr(f"campaign.day0.open_{page}"), partial(self.open_page, page),
                            size=13, help=tr(f"campaign.page_help.{page}"))
                y -= 44
        y -= 16
        waiting = [x for x in m.prompted_seats if x != m.me]
        if waiting:
            s.text(tr("campaign.day0.waiting", n=len(waiting)), left + 14, y, 12, th.MUTED,
                   max_width=width - 28)
        ready = cp.actions(m, "SetupReady")
        if ready:
            self.button(s, "ready", left + 14, bottom + 14, width - 28, 44,
                        tr("verb.SetupReady"), partial(self.send, ready[0]), style="primary",
                        size=16, help=tr("verb_help.SetupReady"))
        elif phase == "setup" and m.me is not None and m.me not in m.prompted_seats:
            s.text(tr("campaign.day0.ready_sent"), left + width / 2, bottom + 36, 14, th.JADE,
                   anchor_x="center")

    def open_page(self, page: str) -> None:
        """The campaign screen's stance or gear page (the day-0 actions live there)."""
        view = self.app.view("camp")
        view.page = page
        self.app.show("camp")
