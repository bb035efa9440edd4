"""Rules modules in rooms: `create_room` switches them on with their options, the room list and
the room show them, the game runs with them, a restart rebuilds the same game from the store,
the replay carries them, and bad modules or options are refused before any room exists."""

from __future__ import annotations

import json
from typing import Any

import pytest
from grailwar.shared.engine import from_replay, to_text
from server_kit import FakeMember, Server, error_of, kinds, one, restarted, tick
from test_server_game import Table

TACTICS = {"modules": ["tactics"], "options": {"tactics": {"concentration": False}}}


def test_create_room_with_modules_shows_them_everywhere() -> None:
    """create_room with modules and options: the room, the room list and the store's row show
    the resolved modules and options; the game started from it runs with them."""
    server = Server()
    owner = server.wire(name="Rin")
    got = owner.ask("create_room", name="Fuyuki", seats=2, **TACTICS)
    assert kinds(got) == ["joined", "history", "room"]
    room = got[2]["room"]
    assert room["modules"] == ["tactics"]
    assert room["module_options"] == {"tactics": {"concentration": False}}
    (rooms,) = server.wire("10.0.0.2", name="x").ask("list_rooms")
    assert rooms["rooms"][0]["modules"] == ["tactics"]
    (stored,) = server.store.db.execute("SELECT options FROM rooms").fetchone()
    assert {k: json.loads(stored)[k] for k in TACTICS} == TACTICS
    owner.send("add_bot", cls="lancer")
    owner.send("start")
    state = owner.proto.room.state
    assert (state.settings.modules, state.settings.options) == (
        ("tactics",), {"tactics": {"concentration": False}})
    view = [m for m in owner.take() if m["t"] == "state"][-1]["view"]
    assert view["modules"]["tactics"]["options"] == {"concentration": False}


def test_a_room_without_modules_plays_the_base_game() -> None:
    """No modules asked for: none in the room, and the game has none."""
    t = Table().start()
    assert t.room.public()["modules"] == [] and t.room.public()["module_options"] == {}
    assert t.state.settings.modules == () and t.state.modules == ()


@pytest.mark.parametrize(("fields", "field", "says"), [
    ({"modules": ["nonesuch"]}, "modules", "nonesuch"),
    ({"modules": ["tactics"], "options": {"tactics": {"nope": True}}}, "options", "nope"),
    ({"modules": ["tactics"], "options": {"tactics": {"concentration": 1}}}, "options",
     "concentration"),
    ({"options": {"tactics": {"concentration": True}}}, "options", "not switched on"),
])
def test_bad_modules_or_options_create_no_room(fields: dict[str, Any], field: str,
                                               says: str) -> None:
    """An unknown module (refused by the declaration), an unknown option, a value of the wrong
    type, or options of a module not switched on (refused by the engine's `normalize`): a
    bad_field error naming the field and the culprit, and no room in the list or the store."""
    server = Server()
    w = server.wire(name="x")
    error = error_of(w.ask("create_room", name="r", **fields))
    assert (error["code"], error["field"]) == ("bad_field", field)
    assert says in error["message"]
    assert w.proto.room is None and server.lobby.rooms == {}
    assert server.store.load_rooms() == []
    (rooms,) = w.ask("list_rooms")
    assert rooms["total"] == 0
    assert kinds(w.ask("create_room", name="r", **TACTICS)) == ["joined", "history", "room"]


def test_tactics_room_restarts_into_the_same_game_and_replays_it() -> None:
    """Bots play a tactics room into a battle (the module's zone state in the canonical text);
    a restart from the store rebuilds the same state with the module on; played to its end, the
    replay's modules and options rebuild the final state through new_game and play."""
    t = Table(("saber", "lancer"), humans=0, **TACTICS).start()
    for _ in range(400):
        if t.state.battle is not None:
            break
        t.tick(1)
    assert t.state.battle is not None, "the bots never fought"
    assert any(line.startswith("tactics zoc ") for line in to_text(t.state).splitlines())
    before = to_text(t.state)
    t.room.stop()

    clock, lobby = restarted(t.store, t.clock.seconds())
    room = lobby.rooms[1]
    assert to_text(room.state) == before
    assert room.state.settings.options == {"tactics": {"concentration": False}}
    assert room.public()["modules"] == ["tactics"]

    watcher = FakeMember("w")
    room.join_spectator(watcher)
    for _ in range(2000):
        if room.state.over:
            break
        tick(clock, 5)
    assert room.state.over
    replay = watcher.last("replay")["replay"]
    assert (replay["format"], replay["modules"], replay["options"]) == (
        "grailwar-replay-4", ["tactics"], {"tactics": {"concentration": False}})
    assert to_text(from_replay(replay)) == to_text(room.state)
    lobby.stop()


RAID_ROOM = {"modules": ["colossus"], "options": {"colossus": {"scenario": "colossus_raid"}}}


def test_a_colossus_raid_room_plays_to_its_end_and_replays() -> None:
    """A room created with the colossus module and its `scenario` option: the resolved modules
    (tactics turned on) in the room, bots raid the colossus through the room's prompts and
    timers until the game ends, and the replay rebuilds the same final state."""
    t = Table(("saber", "lancer"), humans=0, **RAID_ROOM).start()
    assert t.room.public()["modules"] == ["tactics", "colossus"]
    assert t.state.settings.options["colossus"] == {"scenario": "colossus_raid",
                                                    "colossus_day": 3}
    raided = False
    for _ in range(3000):
        if t.state.over:
            break
        raided = raided or t.state.mods["colossus"].raid is not None
        t.tick(5)
    assert t.state.over and raided
    watcher = FakeMember("w")
    t.room.join_spectator(watcher)
    replay = watcher.last("replay")["replay"]
    assert replay["modules"] == ["tactics", "colossus"]
    assert to_text(from_replay(replay)) == to_text(t.state)
    t.room.stop()


def test_one_camp_may_raid_alone_but_a_grail_war_needs_two() -> None:
    """The raid room is 1-7 camps (spec 003 §5.7): a player creates one with a single seat and
    plays it; one seat in any other room is refused, naming the field."""
    server = Server()
    human = server.wire(name="Rin")
    refused = error_of(human.ask("create_room", name="alone", seats=1, cls="saber"))
    assert (refused["code"], refused["field"]) == ("bad_field", "seats")
    assert "at least 2" in refused["message"]
    joined = one(human.ask("create_room", name="raid", seats=1, cls="saber", **RAID_ROOM),
                 "joined")
    room = server.lobby.rooms[joined["room"]]
    human.ask("start")
    assert [c.cls for c in room.state.camps] == ["saber"]
    assert room.state.mods["colossus"].awake and not room.state.over
