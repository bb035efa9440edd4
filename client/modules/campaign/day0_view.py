"""Day 0 of a campaign (seed 002 §14; spec C14.2, C14.3): the relic draft as the summoning
section's view shows it (every relic with its name and hint, this seat's own, the class of a
drafted one but never who took it, and a Choose button for each relic the engine offers), then
the setup: who is still getting ready, the tag dealt, the way to the camp pages (stances and
gear always: the whole catalogue is for sale today), every other action the engine offers at
the setup prompt as a button of its own, and the Ready button."""

from __future__ import annotations

from functools import partial
from typing import Any

from ... import theme as th
from ...gfx import Scene
from ...views.common import HEADER_H, InGameView, token
from . import view_data as cp

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
        """The relics in two columns, in file order."""
        tr, m = self.tr, self.model
        self.panel(s, left, bottom, width, height, tr("campaign.day0.relics"), paper=True)
        rows = cp.relics(m)
        if not rows:
            s.text(tr("campaign.day0.no_draft"), left + 14, bottom + height - 70, 13,
                   th.INK_SOFT, width=int(width - 28))
            return
        per_col = (len(rows) + 1) // 2
        row_h = min(78.0, (height - 50) / per_col)
        col_w = (width - 24) / 2
        for i, row in enumerate(rows):
            x = left + 8 + (i // per_col) * (col_w + 8)
            y = bottom + height - 42 - (i % per_col + 1) * row_h
            self.relic_row(s, row, x, y, col_w, row_h)

    def relic_row(self, s: Scene, row: dict[str, Any], left: float, y: float, width: float,
                  h: float) -> None:
        """A relic: its name and hint; this seat's own, or the class it calls once that class
        is drafted (by whom is hidden), or a Choose button while it is free and offered."""
        tr, m = self.tr, self.model
        relic = row["id"]
        name, hint = row["name"][tr.lang], row["hint"][tr.lang]
        s.rect(left, y, width, 1, th.PAPER_DARK)
        right = left + width - 6
        status_w = 124
        top = y + h - 1  # the name and the status on the first line, the hint under both
        s.text(name, left + 8, top - 9, 13, th.INK, font="serif", bold=row["seat"] >= 0,
               anchor_y="center", max_width=width - status_w - 20)
        s.text(hint, left + 8, top - 19, 10, th.INK_SOFT, anchor_y="top", width=int(width - 16),
               max_lines=2)
        self.add_region(f"relic:{relic}", left, y, width - status_w, h, help=f"{name}\n{hint}")
        mid = top - 9
        if row["seat"] >= 0:
            cls = m.camp(row["seat"])["cls"]
            token(s, right - status_w + 10, mid, 9, cls, tr.short(cls), mine=True, size=9)
            s.text(tr("campaign.day0.yours"), right, mid, 12, th.JADE, bold=True,
                   anchor_x="right", anchor_y="center", max_width=status_w - 26)
        elif row["cls"]:
            token(s, right - status_w + 10, mid, 9, row["cls"], tr.short(row["cls"]), size=9)
            s.text(tr("campaign.day0.drafted"), right, mid, 11, th.INK_SOFT, anchor_x="right",
                   anchor_y="center", max_width=status_w - 26)
        elif row["choose"] is not None:
            self.button(s, f"choose:{relic}", right - status_w, mid - 11, status_w, 22,
                        tr("campaign.day0.choose"), partial(self.send, row["choose"]),
                        style="primary", size=11, help=f"{name}\n{hint}")
        else:
            s.text(tr("campaign.day0.free"), right, mid, 12, th.INK_SOFT, anchor_x="right",
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
            s.text(tr("campaign.tag_line", tag=cp.tag_name(tr, rec["tag"])), left + 14, y, 13,
                   th.GOLD, max_width=width - 28)
            self.add_region("tag", left + 14, y - 6, width - 28, 22,
                            help=cp.tag_text(tr, rec["tag"]))
            y -= 30
        if phase == "setup" and rec is not None:
            y = self.setup_actions(s, left + 14, y, width - 28, bottom + 90)
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

    def setup_actions(self, s: Scene, left: float, top: float, width: float,
                      floor: float) -> float:
        """What the engine offers on day 0 besides Ready: the camp pages whose actions are
        offered (stances and gear always: there the day's choices are made), then every
        other offered action as a button of its own. Returns the y under them."""
        tr, m = self.tr, self.model
        y = top
        for page in cp.PAGES:
            offered = any(cp.actions(m, v) for v in cp.PAGE_VERBS[page])
            if not offered and page not in ("stances", "gear"):
                continue
            key = f"campaign.day0.open_{page}"
            self.button(s, f"open:{page}", left, y - 36, width, 36,
                        tr(key) if tr.has(key) else tr(f"campaign.page.{page}"),
                        partial(self.open_page, page), size=13,
                        help=tr(f"campaign.page_help.{page}"))
            if cp.page_news(m, page):
                s.circle(left + width - 10, y - 8, 5, th.VERMILION)
            y -= 44
        paged = {v for verbs in cp.PAGE_VERBS.values() for v in verbs}
        for a in m.legal:
            if a["type"] in paged or a["type"] == "SetupReady" or y - 34 < floor:
                continue
            opt = m.option(a)
            self.button(s, f"act:{a['type']}:{m.legal.index(a)}", left, y - 32, width, 32,
                        opt.label, partial(self.send, a), help=opt.help, size=12)
            y -= 38
        return y

    def open_page(self, page: str) -> None:
        """The campaign screen's stance or gear page (the day-0 actions live there)."""
        view = self.app.view("camp")
        view.page = page
        self.app.show("camp")
