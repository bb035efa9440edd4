"""The module door, proved by a toy module (`tests/toy_module.py`) registered only through it:
whole games with bots, the view a client rebuilds from what the server sends, the hidden-
information audit, and the client's screens headless, with no file outside tests/ knowing it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import toy_module
from grailwar.server.feeds import ViewFeed
from grailwar.shared.bots import make_bot
from grailwar.shared.bots.match import run_match
from grailwar.shared.engine import apply, events_for, legal_actions, new_game, view_for
from grailwar.shared.engine.sharing import Shared
from grailwar.shared.engine.state import GameState
from grailwar.shared.updates import apply_update
from helpers import random_states
from test_colossus_screens import box, count
from test_model import state_msg
from test_screens import join, render

ROOT = Path(__file__).parents[2]
CLASSES = ("saber", "lancer", "archer", "caster")


@pytest.fixture(scope="module")
def toy() -> Iterator[None]:
    undo = toy_module.install()
    yield
    undo()


def test_no_file_outside_tests_names_the_toy_module() -> None:
    """The door is the only way in: nothing of the product knows the toy by name."""
    named = [p for folder in ("client", "server", "shared", "cli") for p in
             (ROOT / folder).rglob("*.py") if "LightLantern" in p.read_text(encoding="utf-8")
             or "toy_module" in p.read_text(encoding="utf-8")]
    assert named == []


@pytest.mark.parametrize("bot", ["heuristic", "random", "hard"])
def test_bots_play_whole_games_with_the_toy_on(toy: None, bot: str) -> None:
    state = new_game(seed=4, modules=["toy"], options={"toy": {"glow": 10}}, day_limit=3,
                     classes=CLASSES)
    lit: list[dict[str, Any]] = []

    def step(s: GameState, events: list[Any]) -> None:
        lit.extend(e.data for e in events if e.type == "LanternLit")
        for camp in s.camps:  # the modifier: every lantern lit adds 10 to the max HP
            base = view_for(new_game(seed=4, day_limit=3, classes=CLASSES),
                            camp.seat)["camps"][camp.seat]
            shown = view_for(s, camp.seat)["camps"][camp.seat]["max_hp"]
            assert shown == base["max_hp"] + 10 * s.mods["toy"].lit[camp.seat]

    bots = [make_bot(bot, 40 + i, iterations=2) for i in range(len(state.camps))]
    result = run_match(state, bots, on_step=step if bot == "heuristic" else None)
    assert state.over and result is not None
    if bot == "heuristic":  # its bot part lights a lantern whenever it may: once a day each
        assert len(lit) >= len(state.camps) and max(e["lit"] for e in lit) <= 3


def test_every_view_rebuilt_from_what_the_server_sends_is_the_engines(toy: None) -> None:
    """The view invariant (tests/server/test_updates.py) with the toy on: its max-HP modifier
    changes camp views from its own slot, and no camp view goes stale."""
    states = random_states(7, ("toy",), True, steps=400)
    assert any(s.mods["toy"].lit != states[0].mods["toy"].lit for s in states)
    for seat in (*range(len(states[0].camps)), None):
        feed, last, shared = ViewFeed(seat), None, None
        for state in states:
            legal = legal_actions(state, seat) if seat is not None else []
            shared = Shared(state, shared)
            sent = feed.message(state, shared, legal, {})
            rebuilt = sent if last is None else apply_update(last, sent)
            assert rebuilt["view"] == view_for(state, seat), (seat, state.version)
            last = rebuilt


def test_a_camps_wish_reaches_no_other_seat(toy: None) -> None:
    """The toy's secret, in every view and event of a whole game of bots; the base game's own
    audit (tests/test_hidden_info.py) holds with the toy on."""
    from test_hidden_info import Audit

    audit = Audit()
    audit.play("heuristic", 5, ("toy",))
    assert not any(audit.found.values()), audit.found
    state = new_game(seed=5, modules=["toy"])
    wishes = state.mods["toy"].wish
    seen: dict[int | None, set[str]] = {}

    def step(s: GameState, events: list[Any]) -> None:
        for viewer in (*range(len(s.camps)), None):
            view = view_for(s, viewer)["modules"]["toy"]["state"]
            seen.setdefault(viewer, set()).add(view["wish"])
            assert all("wish" not in e for e in events_for(events, viewer))

    run_match(state, [make_bot("random", i) for i in range(len(state.camps))], on_step=step)
    assert seen[None] == {""}
    for seat, wish in enumerate(wishes):
        assert seen[seat] == {wish}


def test_the_screen_shows_the_verb_the_event_line_and_the_map_mark(
        toy: None, app: Any) -> None:
    state = new_game(seed=3, modules=["toy"], options={"toy": {"glow": 5}})
    state, events = apply(state, next(a for a in legal_actions(state, 0)
                                      if type(a).__name__ == "LightLantern"))
    app.set_lang("ja")  # its catalog made again, now with the toy's strings
    join(app)
    app.model.handle({"t": "events", "events": events_for(events, 0), "log": []})
    app.model.handle(state_msg(state, 0, {"0": 300}))
    verbs = {v.key: v for v in app.model.verbs()}
    assert verbs["LightLantern"].label == "灯をともす" and not verbs["LightLantern"].enabled
    line = app.model.event_text({"type": "LanternLit", "seat": 0, "lit": 1})
    assert line.endswith("lantern 1")
    image = render(app, "game")
    shown = [key[0] for key in app.current.base.pool.used]
    assert "灯をともす" in shown  # its verb in the action bar, greyed (lit today)
    here = app.current.region_by_id(f"cell:{state.camps[0].pos}")
    assert count(image, box(here), toy_module.LANTERN) > 100  # its decoration on the map
    render(app, "log")
    assert app.current.click("logkind:events")  # the log's events (not its dice)
    render(app, "log")
    assert any(text.endswith("lantern 1") for text, _x, _y in app.current.base.labels)
