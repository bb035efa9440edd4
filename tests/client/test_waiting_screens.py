"""Who is not asked sees who is, and for how long: a spectator or a camp outside a battle gets
no greyed copy of the fighters' verbs, a waiting player the countdown of the seat it waits
for; the ambushed camp is told who attacks it."""

from __future__ import annotations

from typing import Any

import pytest
from test_model import play_game, state_msg
from test_screens import join, render

NOW = 1000.0


@pytest.fixture(autouse=True)
def still_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The countdown is read when the state arrives and again when the screen is drawn; on a
    loaded machine seconds pass between the two, so the screens here see one still moment."""
    monkeypatch.setattr("grailwar.client.views.base.BaseView.now", lambda _self: NOW)


def battle_main() -> tuple[Any, list[dict]]:
    return play_game(seed=4, stop=lambda s: s.battle is not None and s.prompt.kind == "main")


def shown(app: Any, state: Any, events: list[dict], seat: int | None, screen: str) -> Any:
    """`screen` as `seat` sees it (None: a spectator), the prompted seats with 60 s left."""
    if seat is None:
        app.model.handle({"t": "joined", "room": 1, "seat": -1, "token": "", "spectator": True})
    else:
        join(app, seat)
    app.model.handle({"t": "events", "events": events, "log": []})
    app.model.handle(state_msg(state, seat, {str(x): 60 for x in state.prompt.seats}),
                     now=NOW)
    render(app, screen)
    return app.current


def verbs_drawn(view: Any) -> list[str]:
    return [r.id for r in view.regions if r.id.startswith("verb:")]


def live_labels(view: Any) -> list[str]:
    return [label for label, _x, _y in view.live.labels]


def test_a_spectator_sees_the_actors_countdown_not_its_verbs(app: Any) -> None:
    state, events = battle_main()
    actor = state.battle.actor
    view = shown(app, state, events, None, "battle")
    assert verbs_drawn(view) == []
    assert f"{app.model.who(actor)}：残り60秒" in live_labels(view)


def test_a_camp_outside_the_battle_gets_no_copy_of_the_fighters_verbs(app: Any) -> None:
    state, events = battle_main()
    outsider = next(c.seat for c in state.camps if c.alive and c.seat not in state.battle.seats)
    for screen in ("game", "battle"):
        view = shown(app, state, events, outsider, screen)
        assert not any(v in verbs_drawn(view) for v in ("verb:Attack", "verb:Wait")), screen
        assert f"{app.model.who(state.battle.actor)}：残り60秒" in live_labels(view)


def test_the_waiting_fighter_sees_the_opponents_countdown(app: Any) -> None:
    state, events = battle_main()
    actor = state.battle.actor
    waiting = next(x for x in state.battle.seats if x != actor)
    view = shown(app, state, events, waiting, "battle")
    assert verbs_drawn(view) == []
    assert f"{app.model.who(actor)}：残り60秒" in live_labels(view)
    view = shown(app, state, events, actor, "battle")  # the actor: its verbs, its own timer
    assert "verb:Wait" in verbs_drawn(view)


def test_the_ambush_prompt_names_the_attacker(app: Any) -> None:
    state, events = play_game(seed=4, stop=lambda s: s.prompt.kind == "ambush")
    target = min(state.prompt.seats)
    app.set_lang("ko")
    view = shown(app, state, events, target, "game")
    attacker = app.model.who(state.parley.opener)
    labels = [label for label, _x, _y in view.base.labels]
    assert f"{attacker}의 기습을 받았다: 도주인가, 응전인가" in labels
