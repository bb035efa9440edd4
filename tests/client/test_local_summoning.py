"""`grailwar play --summoning`: the local game's room summons at random by default, or lets
the player choose its Servant in the room, end to end against the embedded server."""

from __future__ import annotations

from typing import Any

from test_local_game import open_local_room
from test_screens import render


def created(app: Any) -> dict:
    return next(msg for msg in app.session.sent if msg["t"] == "create_room")


def test_the_local_room_summons_at_random_by_default(app: Any) -> None:
    open_local_room(app)
    assert created(app)["summoning"] == "random"
    assert app.model.room["options"]["summoning"] == "random"
    render(app, "room")
    assert not any(r.id.startswith("servant:") for r in app.current.regions)


def test_a_local_choose_room_plays_the_servant_chosen(app: Any) -> None:
    """A choose room: the Servant clicked in the room is told back to this seat alone
    (`your_servant`), and once started the own camp's view and the map screen name it."""
    app.local_summoning = "choose"
    m = app.model
    open_local_room(app)
    assert created(app)["summoning"] == "choose"
    app.current.click("servant:gyebaek")
    assert app.pump(until=lambda: m.room.get("your_servant") == "gyebaek", timeout=5)
    app.current.click("start")
    assert app.pump(until=lambda: m.state is not None, timeout=10)
    assert m.my_camp["servant"] == "gyebaek"
    render(app, "game")
    assert app.tr.true_name("gyebaek") in [label for label, _x, _y in app.current.base.labels]
