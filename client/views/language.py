"""First start with no language to go by (the system's is neither Japanese nor Korean): ask
for one, in all three languages at once, before the title."""

from __future__ import annotations

from .. import theme as th
from ..gfx import Scene
from ..i18n import Tr
from .base import BaseView
from .title import LANGS


class LanguageView(BaseView):
    name = "language"

    def choose(self, lang: str) -> None:
        self.app.set_lang(lang)  # saved: the next start goes straight to the title
        self.app.show("title")
        then, self.app.after_language = self.app.after_language, None
        if then is not None:  # what the command line asked for (`connect --name`)
            then()

    def layout(self, s: Scene) -> None:
        s.gradient(0, 0, th.WIDTH, th.HEIGHT, (16, 18, 40), (34, 22, 40))
        left, bottom, width, height = 290, 200, 700, 400
        s.shadow(left, bottom, width, height, 5, 6, (0, 0, 0, 120))
        s.box(left, bottom, width, height, (30, 33, 52, 240), th.GOLD_DARK, 1)
        s.rect(left, bottom + height - 6, width, 6, th.VERMILION)
        cx = left + width / 2
        y = bottom + height - 70
        for lang, _label in LANGS:  # the question in each language, each in its own
            s.text(Tr(lang)("language.choose"), cx, y, 22, th.GOLD, anchor_x="center",
                   max_width=width - 60)
            y -= 40
        x = left + 50
        bw = (width - 100 - 2 * 30) / 3
        for lang, label in LANGS:
            self.button(s, f"lang:{lang}", x, bottom + 120, bw, 64, label,
                        lambda lang=lang: self.choose(lang), style="primary", size=22)
            x += bw + 30
        for i, (lang, _label) in enumerate(LANGS):
            s.text(Tr(lang)("language.later"), cx, bottom + 80 - 22 * i, 12, th.MUTED,
                   anchor_x="center", max_width=width - 60)
