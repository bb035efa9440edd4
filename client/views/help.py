"""Help, in the player's language: the rules in brief, what each screen shows, and the keys.
F5 (or a "?" button) opens it over any screen and closes it again, back to that screen."""

from __future__ import annotations

from arcade import key as keys

from .. import theme as th
from ..gfx import Scene
from .base import BaseView

PAGES = ("basics", "declare", "actions", "battle", "phantasm", "screens", "keys")
BODY_SIZE = 16
PARAGRAPH_GAP = 14


class HelpView(BaseView):
    name = "help"

    def __init__(self, app) -> None:
        super().__init__(app)
        self.page = 0
        self.back_to = "title"

    def open_from(self, view: BaseView) -> None:
        self.back_to = view.name
        self.app.show(self.name)

    def toggle_help(self) -> None:
        self.close()

    def close(self) -> None:
        fight = self.back_to in ("battle", "raid")
        battle_over = fight and not self.model.in_battle
        self.app.show("game" if battle_over else self.model.battle_screen if fight
                      else self.back_to)

    def turn(self, step: int) -> None:
        self.page = (self.page + step) % len(PAGES)
        self.invalidate()

    def on_key(self, symbol: int, modifiers: int) -> None:
        if symbol == keys.ESCAPE:
            self.close()
        elif symbol in (keys.RIGHT, keys.PAGEDOWN):
            self.turn(1)
        elif symbol in (keys.LEFT, keys.PAGEUP):
            self.turn(-1)

    def layout(self, s: Scene) -> None:
        tr = self.tr
        top = th.HEIGHT - 60
        s.rect(0, top, th.WIDTH, 60, th.BG2)
        s.rect(0, top - 2, th.WIDTH, 2, th.VERMILION)
        s.text(tr("help.title"), 24, top + 18, 24, th.GOLD, font="serif")
        self.button(s, "help:back", th.WIDTH - 150, top + 12, 126, 36, tr("help.back"),
                    self.close)
        y = top - 70
        for i, page in enumerate(PAGES):  # the table of contents
            self.button(s, f"help:page:{page}", 24, y, 236, 44, tr(f"help.page.{page}"),
                        lambda i=i: self.turn(i - self.page),
                        style="selected" if i == self.page else "ghost", size=14)
            y -= 52
        left, bottom, width, height = 284, 56, th.WIDTH - 284 - 24, top - 20 - 56
        page = PAGES[self.page]
        self.panel(s, left, bottom, width, height, tr(f"help.page.{page}"))
        inner = width - 48
        self.add_region("help:panel", left + 24, bottom + 12, inner, height - 60)
        column = int(inner - BODY_SIZE * 1.5)  # room for a 、 or 。 hung at a line's end
        y = bottom + height - 56
        for i, paragraph in enumerate(tr(f"help.body.{page}").split("\n\n")):
            t = s.text(paragraph, left + 24, y, BODY_SIZE, th.TEXT, anchor_y="top",
                       width=column)
            self.add_region(f"help:text:{i}", left + 24, y - t.content_height,
                            t.content_width, t.content_height)
            y -= t.content_height + PARAGRAPH_GAP
        s.text(tr("help.nav"), left, 22, 12, th.MUTED, max_width=width - 120)
        s.text(tr("help.page_of", n=self.page + 1, total=len(PAGES)), left + width, 22, 13,
               th.MUTED, anchor_x="right")
