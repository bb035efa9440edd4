"""The action bar's hover texts and the sleep warning, rendered headless."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from grailwar.shared.engine import new_game
from grailwar.shared.engine.data import CLASSES
from test_model import state_msg
from test_screens import join, render

SHOTS = os.environ.get("GRAILWAR_SHOTS")  # a folder to keep the screenshots in, to look at


def shot(app: Any, image: Any, name: str, tmp_path: Path) -> None:
    image.save(Path(SHOTS or tmp_path) / f"{name}-{app.model.tr.lang}.png")


def hover(app: Any, rid: str) -> Any:
    """Hover a region of the shown screen and draw again, tooltip included."""
    region = app.current.region_by_id(rid)
    assert region is not None, rid
    app.current.on_mouse_motion(int(region.center[0]), int(region.center[1]), 0, 0)
    assert app.current.hover is region
    return region


@pytest.mark.parametrize("lang", ["ja", "ko", "en"])
def test_a_greyed_verb_says_why_on_hover(app: Any, lang: str, tmp_path: Path) -> None:
    """With the Master asleep only Wait and Rest are live; Encounter's tooltip says why."""
    state = new_game(seed=3, classes=list(CLASSES))
    state.edit(0).asleep = True
    app.set_lang(lang)
    join(app)
    app.model.handle(state_msg(state, 0, {"0": 300}))
    render(app, "game")
    region = hover(app, "verb:DeclareEncounter")
    assert not region.enabled
    assert app.model.tr("verb_why.asleep") in region.help
    assert app.model.tr("verb_help.disabled") not in region.help
    shot(app, render(app, "game"), "verb-why", tmp_path)


@pytest.mark.parametrize("lang", ["ja", "ko", "en"])
def test_the_night_declaration_warns_of_the_masters_sleep(app: Any, lang: str,
                                                          tmp_path: Path) -> None:
    """At night, not rested: the bar warns and explains on hover; after a rest it does not."""
    state = new_game(seed=3, classes=list(CLASSES))
    state.turn = 2
    app.set_lang(lang)
    join(app)
    app.model.handle(state_msg(state, 0, {"0": 300}))
    shot(app, render(app, "game"), "sleep-warning", tmp_path)
    region = hover(app, "sleep_warning")
    assert region.help == app.model.tr("prompt.sleep_warning_help")
    shot(app, render(app, "game"), "sleep-warning-hover", tmp_path)
    state.edit(0).rested = True
    app.model.handle(state_msg(state, 0, {"0": 300}))
    render(app, "game")
    assert app.current.region_by_id("sleep_warning") is None


@pytest.mark.parametrize("lang", ["ja", "ko", "en"])
def test_the_sleeping_master_mark_explains_itself(app: Any, lang: str, tmp_path: Path) -> None:
    state = new_game(seed=3, classes=list(CLASSES))
    state.edit(0).asleep = True
    app.set_lang(lang)
    join(app)
    app.model.handle(state_msg(state, 0, {"0": 300}))
    render(app, "game")
    region = hover(app, "asleep")
    assert region.help == app.model.tr("panel.asleep_help")
    shot(app, render(app, "game"), "asleep-mark", tmp_path)
