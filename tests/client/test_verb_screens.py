"""The action bar's hover texts, the sleep warning and the confirmations, rendered headless."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from grailwar.shared.engine import apply, legal_actions, new_game
from grailwar.shared.engine.actions import DeclareRest
from grailwar.shared.engine.data import CLASSES
from test_model import play_game, state_msg
from test_screens import ActRecorder, game_with_recorder, join, render

SHOTS = os.environ.get("GRAILWAR_SHOTS")  # a folder to keep the screenshots in, to look at


def shot(app: Any, image: Any, name: str, tmp_path: Path) -> None:
    image.save(Path(SHOTS or tmp_path) / f"{name}-{app.model.tr.lang}.png")


def show_game(app: Any, lang: str, asleep: bool = False) -> Any:
    """Seat 0's map screen of a fresh seven-camp game (its Master asleep if `asleep`)."""
    state = new_game(seed=3, classes=list(CLASSES))
    state.edit(0).asleep = asleep
    app.set_lang(lang)
    join(app)
    app.model.handle(state_msg(state, 0, {"0": 300}))
    render(app, "game")
    return state


def hover(app: Any, rid: str) -> Any:
    """Hover a region of the shown screen and draw again, tooltip included."""
    region = app.current.region_by_id(rid)
    assert region is not None, rid
    app.current.point_at(region)
    assert app.current.hover is region
    return region


@pytest.mark.parametrize("lang", ["ja", "ko", "en"])
def test_a_greyed_verb_says_why_on_hover(app: Any, lang: str, tmp_path: Path) -> None:
    """With the Master asleep only Wait and Rest are live; Encounter's tooltip says why."""
    show_game(app, lang, asleep=True)
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
    show_game(app, lang, asleep=True)
    region = hover(app, "asleep")
    assert region.help == app.model.tr("panel.asleep_help")
    shot(app, render(app, "game"), "asleep-mark", tmp_path)


def np_with_one_target(state: Any) -> int | None:
    """The seat that may declare its Noble Phantasm at one target only, if any."""
    if state.battle is None or state.prompt.kind != "round_start":
        return None
    for seat in sorted(state.prompt.seats):
        targets = [a for a in legal_actions(state, seat) if type(a).__name__ ==
                   "DeclareNoblePhantasm"]
        if len(targets) == 1:
            return seat
    return None


@pytest.mark.parametrize("lang", ["ja", "ko", "en"])
def test_a_noble_phantasm_with_one_target_still_asks(app: Any, lang: str,
                                                     tmp_path: Path) -> None:
    """Declaring the Noble Phantasm opens a confirmation naming it and its target; Cancel sends
    nothing, Confirm sends the action."""
    state, events = play_game(seed=4, stop=lambda s: np_with_one_target(s) is not None)
    seat = np_with_one_target(state)
    assert seat is not None
    app.set_lang(lang)
    join(app, seat)
    app.model.handle({"t": "events", "events": events, "log": []})
    app.model.handle(state_msg(state, seat, {str(seat): 60}))
    app.session = recorder = ActRecorder(app.model)
    render(app, "battle")
    view = app.current
    assert view.click("verb:DeclareNoblePhantasm")
    assert recorder.acts == [], "not sent before Confirm"
    render(app, "battle")
    tr, camp = app.model.tr, app.model.my_camp
    labels = [label for label, _x, _y in view.overlay.labels]
    assert tr("confirm.DeclareNoblePhantasm") in labels
    target = next(a["target"] for a in app.model.legal if a["type"] == "DeclareNoblePhantasm")
    assert any(tr.np_name(camp["noble_phantasm"]) in t and app.model.who(target) in t
               for t in labels)
    np = tr.np_by_id(camp["noble_phantasm"])  # what firing it will spend (issue 32)
    cost = tr("confirm.np_cost", cards=f"{tr.card(np.card)}×{np.cards}", mp=np.mp)
    assert cost in labels
    assert view.region_by_id("verb:Ready") is None, "only the dialog is live"
    shot(app, render(app, "battle"), "confirm-np", tmp_path)
    assert view.click("confirm_cancel")
    view.rebuild()
    assert recorder.acts == [] and view.region_by_id("confirm_ok") is None
    assert view.click("verb:DeclareNoblePhantasm") and view.click("confirm_ok")
    assert recorder.acts == [{"type": "DeclareNoblePhantasm", "seat": seat, "target": target}]


def test_a_command_spell_asks_before_it_is_sent(app: Any, tmp_path: Path) -> None:
    """The teleport Command Spell to a square: the dialog names the spell, its cost and the
    square; only Confirm sends it."""
    msg, recorder = game_with_recorder(app)
    view = app.current
    teleport = next(a for a in msg["legal"] if a["type"] == "UseCommandSpell"
                    and a["spell"] == "teleport")
    assert view.click("verb:UseCommandSpell")
    assert view.click(next(f"opt:{i}" for i, o in enumerate(view.current_options())
                           if o.group == "teleport"))
    index = next(i for i, o in enumerate(view.current_options()) if o.action == teleport)
    assert view.click(f"opt:{index}")  # first page: the teleport squares start there
    assert recorder.acts == []
    render(app, "game")
    labels = [label for label, _x, _y in view.overlay.labels]
    assert app.model.tr("confirm.UseCommandSpell") in labels
    assert app.model.option(teleport).label in labels
    shot(app, render(app, "game"), "confirm-spell", tmp_path)
    assert view.click("confirm_ok")
    assert recorder.acts == [teleport]


@pytest.mark.parametrize("lang", ["ja", "ko", "en"])
def test_the_priority_phase_is_named_on_the_map_screen(app: Any, lang: str,
                                                       tmp_path: Path) -> None:
    """docs/rules.md §3.3: in the phase the bar says so and offers the pass, whose hover
    explains it; a bot's held Rest closes no priority verb."""
    state = new_game(seed=3, classes=list(CLASSES), priority_phase=True)
    state, _ = apply(state, DeclareRest(3))
    app.set_lang(lang)
    join(app)
    app.model.handle(state_msg(state, 0, {"0": 20}))
    image = render(app, "game")
    labels = [label for label, _x, _y in app.current.base.labels]
    tr = app.model.tr
    assert any(tr("prompt.declare_priority") in label for label in labels)
    region = hover(app, "verb:PassPriority")
    assert region.enabled and tr("verb_help.PassPriority") in region.help
    assert app.current.region_by_id("verb:DeclareSoulEating").enabled
    shot(app, image, "priority-phase", tmp_path)


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_suicide_is_marked_and_asks_in_its_own_words(app: Any, lang: str,
                                                      tmp_path: Path) -> None:
    """Suicide is no ordinary button: its option is drawn in the danger colour, and choosing it
    opens a dialog of its own (its title, the loss spelled out, an OK that says what it does),
    not the ordinary Command Spell question; Cancel sends nothing, its OK sends it."""
    app.set_lang(lang)
    msg, recorder = game_with_recorder(app)
    view, tr = app.current, app.model.tr
    suicide = next(a for a in msg["legal"] if a["type"] == "UseCommandSpell"
                   and a["spell"] == "suicide")
    assert view.click("verb:UseCommandSpell")
    options = view.current_options()
    assert [o.danger for o in options].count(True) == 1
    index = next(i for i, o in enumerate(options) if o.action == suicide)
    assert options[index].danger
    assert view.click(f"opt:{index}") and recorder.acts == []
    image = render(app, "game")
    labels = [label for label, _x, _y in view.overlay.labels]
    assert tr("suicide.title") in labels and tr("suicide.warning") in labels
    assert tr("confirm.UseCommandSpell") not in labels
    assert tr("suicide.ok") in labels and tr("confirm.ok") not in labels
    shot(app, image, "confirm-suicide", tmp_path)
    assert view.click("confirm_cancel") and recorder.acts == []
    view.rebuild()  # the menu stays open after Cancel
    assert view.click(f"opt:{index}") and view.click("confirm_ok")
    assert recorder.acts == [suicide]
