"""Summoning in rooms (issue 9): `create_room`'s `summoning` (random by the room's seed, or
choose), `choose_servant` before the start, only the chooser told which Servant it chose, the
Servants kept in the room log (a restart plays the same ones) and in the replay."""

from __future__ import annotations

import sqlite3

from grailwar.server.store import Store
from grailwar.shared.engine import new_game, to_text
from grailwar.shared.engine.data import default_ruleset
from server_kit import FakeMember, Server, error_of, restarted
from test_server_lobby import create, join, room_of

RULES = default_ruleset()


def last_room(got: list[dict]) -> dict:
    return [m for m in got if m["t"] == "room"][-1]["room"]


def test_a_random_room_summons_by_its_seed_and_refuses_a_choice() -> None:
    """The default is random: the room says so, the game's Servants are the seed's draw, and
    choose_servant is a bad_field error naming the rule."""
    server = Server()
    owner = create(server, cls="saber", seats=2)
    room = room_of(owner)
    assert room.public()["options"]["summoning"] == "random"
    error = error_of(owner.ask("choose_servant", servant="gyebaek"))
    assert (error["code"], error["field"]) == ("bad_field", "servant")
    assert "at random" in error["message"]
    owner.send("start")
    drawn = new_game(seed=room.seed, classes=[s.cls for s in room.seats])
    assert [c.servant.id for c in room.state.camps] == [c.servant.id for c in drawn.camps]


def test_in_a_choose_room_only_the_chooser_learns_its_servant() -> None:
    """The owner chooses Gyebaek: its room message says `your_servant`, the other player's and
    the spectator's room messages never name it; the game starts with it, the other seat
    (which chose nothing) drawn by the seed."""
    server = Server()
    owner = create(server, cls="saber", seats=2, summoning="choose")
    room = room_of(owner)
    other = join(server, room, "Shirou", cls="lancer")
    watcher = FakeMember("watcher")
    room.join_spectator(watcher)
    other.take()
    got = owner.ask("choose_servant", servant="gyebaek")
    assert last_room(got)["your_servant"] == "gyebaek"
    seen_by_other = other.take()
    assert seen_by_other and all("gyebaek" not in repr(m) for m in seen_by_other)
    assert all("gyebaek" not in repr(m) for m in watcher.got)
    assert room.seats[0].ready is False
    (listed,) = server.wire("10.0.0.9", name="x").ask("list_rooms")
    assert listed["rooms"][0]["summoning"] == "choose"
    owner.send("start")
    assert room.state.camps[0].servant.id == "gyebaek"
    drawn = new_game(seed=room.seed, classes=["saber", "lancer"])
    assert room.state.camps[1].servant is drawn.camps[1].servant
    assert "your_servant" not in room.public(0)  # told no more once the game runs


def test_a_choice_must_be_of_the_seats_class_and_before_the_start() -> None:
    """A Servant of another class is refused with the class's roster in the message; a new
    class forgets the old choice; after the start, game_started; a spectator, spectator."""
    server = Server()
    owner = create(server, cls="saber", seats=2, summoning="choose")
    room = room_of(owner)
    error = error_of(owner.ask("choose_servant", servant="benkei"))
    assert error["code"] == "bad_field"
    assert "'benkei' is not a saber; choose from el_cid, gyebaek, hua_mulan" in error["message"]
    owner.send("choose_servant", servant="hua_mulan")
    assert room.seats[0].servant == "hua_mulan"
    owner.send("choose_class", cls="lancer")
    assert room.seats[0].servant is None
    owner.send("choose_servant", servant="benkei")
    watcher = join(server, room, "w", spectator=True)
    assert error_of(watcher.ask("choose_servant", servant="benkei"))["code"] == "spectator"
    owner.send("start")
    assert room.state.camps[0].servant.id == "benkei"
    assert error_of(owner.ask("choose_servant", servant="zhang_fei"))["code"] == "game_started"


def test_the_room_log_keeps_the_servants_across_a_restart_and_in_the_replay() -> None:
    """A choice survives a restart before the start; after the start every seat's Servant is
    in the store, so a restarted server plays the same game; the replay names them."""
    server = Server()
    owner = create(server, cls="saber", seats=2, summoning="choose")
    owner.send("choose_servant", servant="hua_mulan")
    room = room_of(owner)
    _clock, lobby = restarted(server.store)
    assert lobby.rooms[room.id].seats[0].servant == "hua_mulan"
    owner.send("add_bot", cls="berserker")
    owner.send("start")
    before = to_text(room.state)
    room.stop()
    _clock, lobby = restarted(server.store)
    again = lobby.rooms[room.id]
    assert to_text(again.state) == before
    assert [c.servant.id for c in again.state.camps] == [s.servant for s in room.seats]
    assert again.replay()["servants"] == [c.servant.id for c in room.state.camps]


def test_a_store_written_before_the_roster_opens_with_the_new_column(tmp_path) -> None:
    """A server upgraded in place: its old seats table gains the servant column, and its
    rooms load (their seats with no Servant: drawn by the seed at the start)."""
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE seats (room INTEGER NOT NULL, seat INTEGER NOT NULL, cls TEXT, "
        "kind TEXT NOT NULL, name TEXT NOT NULL DEFAULT '', token TEXT, "
        "level TEXT NOT NULL DEFAULT 'normal', PRIMARY KEY (room, seat));"
        "INSERT INTO seats VALUES (1, 0, 'saber', 'bot', 'b', NULL, 'normal');")
    db.commit()
    db.close()
    store = Store(path, checkpoint_every=None)
    (row,) = store.db.execute("SELECT cls, servant FROM seats").fetchall()
    assert row == ("saber", None)
    store.close()
