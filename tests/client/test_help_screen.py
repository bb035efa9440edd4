"""The help: every page renders in ja, ko and en with all its text inside the page, F5 opens
it from the title and from a game and closes it again, and the arrows turn its pages."""

from __future__ import annotations

from typing import Any

import pytest
from arcade import key as keys
from grailwar.client.views.help import PAGES
from grailwar.shared.engine import new_game
from grailwar.shared.engine.data import CLASSES
from test_model import state_msg
from test_screens import join, render


def press(app: Any, symbol: int) -> None:
    app.current.on_key_press(symbol, 0)


@pytest.mark.parametrize("lang", ["ja", "ko", "en"])
def test_every_page_renders_and_its_text_fits(app: Any, lang: str) -> None:
    app.set_lang(lang)
    render(app, "title")
    press(app, keys.F5)
    view = app.current
    assert view.name == "help"
    for i, page in enumerate(PAGES):
        assert view.page == i
        render(app, "help")
        panel = view.region_by_id("help:panel")
        paragraphs = [r for r in view.regions if r.id.startswith("help:text:")]
        body = app.tr(f"help.body.{page}")
        assert len(paragraphs) == body.count("\n\n") + 1 > 1, page
        for r in paragraphs:  # inside the page: nothing runs off its side or its bottom
            assert panel.left <= r.left and r.left + r.width <= panel.left + panel.width, page
            assert panel.bottom <= r.bottom and r.bottom + r.height <= panel.bottom + panel.height
        labels = [label for label, _x, _y in view.base.labels]
        assert app.tr(f"help.page.{page}") in labels
        assert not any(label.endswith("…") for label in labels), "a line was cut off"
        press(app, keys.RIGHT)
    assert view.page == 0, "the last page turns to the first"
    press(app, keys.LEFT)
    assert view.page == len(PAGES) - 1


def test_f5_opens_the_help_from_the_title_and_closes_it_again(app: Any) -> None:
    render(app, "title")
    app.current.focus = "name"  # even while typing a name
    press(app, keys.F5)
    assert app.current.name == "help"
    press(app, keys.F5)
    assert app.current.name == "title"
    assert app.current.click("help")
    assert app.current.name == "help"
    assert app.current.click("help:page:keys") and app.current.page == PAGES.index("keys")
    press(app, keys.ESCAPE)
    assert app.current.name == "title"


def test_the_help_opens_in_a_game_and_comes_back_to_the_same_screen(app: Any) -> None:
    join(app)
    app.model.handle(state_msg(new_game(seed=3, classes=list(CLASSES)), 0))
    render(app, "game")
    assert app.current.click("help")  # the header's "?"
    assert app.current.name == "help"
    assert app.current.click("help:back")
    assert app.current.name == "game"
    press(app, keys.F3)
    assert app.current.name == "dossier"
    press(app, keys.F5)
    assert app.current.name == "help"
    press(app, keys.F1)  # the game's tab keys do nothing here
    assert app.current.name == "help"
    press(app, keys.F5)
    assert app.current.name == "dossier"


def test_the_shortcuts_the_help_names_are_the_screens_own(app: Any) -> None:
    """The keys page tells the truth: F1-F4 switch the game's tabs, F5 is the help."""
    join(app)
    app.model.handle(state_msg(new_game(seed=3, classes=list(CLASSES)), 0))
    render(app, "game")
    for symbol, screen in ((keys.F3, "dossier"), (keys.F4, "log"), (keys.F1, "game")):
        press(app, symbol)
        assert app.current.name == screen
    for lang in ("ja", "ko", "en"):
        app.set_lang(lang)
        text = app.tr("help.body.keys")
        assert all(key in text for key in ("F1", "F2", "F3", "F4", "F5", "Esc", "Enter", "Tab"))
