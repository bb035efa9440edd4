"""Pausing a game (issue 13, "a campaign spans evenings"): only the owner pauses; every timer
stops with the time it had left and bots stop; actions are refused, chat goes on; the room is
listed as paused and kept when everyone leaves; the owner (or, while it is away, a seated
player, or the operator) resumes with the time each timer had left; a restart keeps the room
paused, on SQLite and on PostgreSQL; the room log and the replay do not change."""

from __future__ import annotations

from typing import Any

import pytest
from grailwar.server.room import Room
from grailwar.server.seating import GRACE
from grailwar.shared.engine import legal_actions
from grailwar.shared.protocol import BOT_DELAY, LEFT_PAUSED, ProtocolError
from server_kit import FakeMember, Server, error_of, kinds, one, restarted, tick
from test_server_admin import Admin
from test_server_game import Table
from test_server_seats import table
from test_store_backends import settle
from twisted.internet.defer import Deferred
from twisted.internet.task import Clock


def paused_table(**options: Any) -> Table:
    """Two human seats (p0 owns the room), 200 s to declare, paused 50 s in."""
    t = Table(("saber", "lancer"), humans=2, declare_s=200, **options).start()
    t.tick(50)
    t.room.pause("p0")
    return t


# --- who may pause and resume ---------------------------------------------------------------
def test_only_the_owner_pauses_and_every_member_is_told() -> None:
    server = Server()
    owner, player, watcher, _token, room = table(server)
    assert error_of(player.ask("pause_room"))["code"] == "not_owner"
    assert error_of(watcher.ask("pause_room"))["code"] == "not_owner"
    assert not server.lobby.room(room).paused
    owner.send("pause_room")
    for wire in (owner, player, watcher):
        got = wire.take()
        assert one(got, "room_paused")["by"] == "Rin"
        assert one(got, "room")["room"]["paused"] is True
        assert one(got, "state")["legal"] == []  # nothing to play until the resume
    assert error_of(owner.ask("pause_room"))["code"] == "room_paused"


def test_a_game_not_started_or_not_paused_is_refused_precisely() -> None:
    server = Server()
    owner, _player, _watcher, _token, _room = table(server, start=False)
    assert error_of(owner.ask("pause_room"))["code"] == "game_not_started"
    owner.ask("start")
    assert error_of(owner.ask("resume_room"))["code"] == "not_paused"


def test_a_finished_game_cannot_be_paused() -> None:
    t = Table(("saber", "lancer"), humans=0, declare_s=30).start()
    while not t.state.over:
        t.tick(30)
    with pytest.raises(ProtocolError) as err:
        t.room.pause("p0")
    assert err.value.code == "game_over"


def test_the_owner_resumes_and_while_it_is_away_a_seated_player_may() -> None:
    server = Server()
    owner, player, watcher, _token, room = table(server)
    owner.ask("pause_room")
    assert error_of(player.ask("resume_room"))["code"] == "not_owner"
    assert error_of(watcher.ask("resume_room"))["code"] == "not_owner"
    assert one(owner.ask("leave_room"), "left")["reason"] == LEFT_PAUSED
    got = player.ask("resume_room")
    assert one(got, "room_resumed")["by"] == "Shirou"
    assert one(got, "room")["room"]["paused"] is False
    assert one(got, "state")["legal"]  # its prompt is back
    assert server.lobby.room(room).seats[0].kind == "human"  # the owner's seat was kept


# --- timers and bots --------------------------------------------------------------------------
def test_every_timer_stops_and_keeps_the_time_it_had_left() -> None:
    """Paused 50 s into a 200 s window for an hour: nothing plays, the views show 150 s left;
    resumed, the timers run out 150 s later, not before."""
    t = paused_table()
    seen = len(t.log)
    t.tick(3600)
    assert len(t.log) == seen
    assert t.members[0].last("state")["deadlines"] == {"0": 150, "1": 150}
    t.room.resume_game("p0")
    assert t.members[1].last("state")["deadlines"] == {"0": 150, "1": 150}
    t.tick(149)
    assert len(t.log) == seen
    t.tick(1)
    assert sorted((a["seat"], src) for _, a, src in t.log[seen:]) == [(0, "timer"), (1, "timer")]


def test_bots_stop_while_paused_and_play_again_after_the_resume() -> None:
    t = Table(("saber", "lancer"), humans=1, declare_s=200).start()
    t.room.pause("p0")  # before the bot's BOT_DELAY
    t.tick(100)
    assert t.log == [] and not t.room.bot_driver.calls
    t.room.resume_game("p0")
    t.tick(BOT_DELAY)
    assert [(a["seat"], src) for _, a, src in t.log] == [(1, "bot")]


def test_a_bot_answer_arriving_during_the_pause_is_dropped_then_asked_again() -> None:
    """A bot that was thinking when the game paused: its answer is not played; after the
    resume the bot is asked again and plays."""
    t = Table(("saber", "lancer"), humans=1, declare_s=200).start()
    answer: Deferred = Deferred()
    t.room.bot_driver.bots[(1, "heuristic")] = type("Late", (), {
        "needs_view": False, "choose": lambda self, view, legal: answer})()
    t.tick(BOT_DELAY)
    assert t.room.bot_driver.thinking == {1}
    t.room.pause("p0")
    answer.callback(legal_actions(t.state, 1)[0])
    assert t.log == [] and not t.room.bot_driver.thinking
    del t.room.bot_driver.bots[(1, "heuristic")]  # the room makes itself a new one
    t.room.resume_game("p0")
    t.tick(BOT_DELAY)
    assert [(a["seat"], src) for _, a, src in t.log] == [(1, "bot")]


def test_an_action_still_being_written_at_the_pause_leaves_its_next_prompt_frozen() -> None:
    """Seat 0's action is durable only after the pause began (PostgreSQL's writer): it is
    acknowledged, seat 0's timer goes, seat 1's stays frozen, and nothing is armed."""
    t = Table(("saber", "lancer"), humans=2, declare_s=200).start()
    t.tick(50)
    durable: Deferred = Deferred()
    append = t.store.append_action
    t.store.append_action = lambda *a: (append(*a), durable)[1]  # type: ignore[method-assign]
    acks: list[int] = []
    t.room.act(t.members[0], {"type": "DeclareWait", "seat": 0}, t.state.version, acks.append)
    t.room.pause("p0")
    durable.callback(None)
    assert acks == [t.state.version]
    assert t.room.paused == {1: ("declare", 150.0)}
    assert t.clock.getDelayedCalls() == []


def test_a_dropped_player_keeps_its_seat_and_its_grace_starts_at_the_resume() -> None:
    t = paused_table()
    t.room.disconnect(t.members[1])
    t.tick(GRACE * 10)
    assert not t.room.seats[1].takeover and t.room.seats[1].kind == "human"
    t.room.resume_game("p0")
    t.tick(GRACE - 1)
    assert not t.room.seats[1].takeover
    t.tick(1)
    assert t.room.seats[1].takeover


def test_members_taking_updates_get_the_paused_and_resumed_state_as_updates() -> None:
    """A player and a spectator taking `update`s: the pause brings each an update of the same
    state with no legal actions and the frozen clocks, the resume one with them back."""
    t = Table(("saber", "lancer"), humans=2, declare_s=200).start()
    player, watcher = FakeMember("p1", ("updates",)), FakeMember("w", ("updates",))
    t.room.resume(player, t.tokens[1])
    t.room.join_spectator(watcher)
    t.tick(50)
    t.room.pause("p0")
    for member in (player, watcher):
        assert member.updates[-1]["base"] == member.updates[-1]["state_id"] == t.state.version
        assert member.last("state")["legal"] == [] and member.last("state")["deadlines"] == {
            "0": 150, "1": 150}
    t.room.resume_game("p0")
    assert player.last("state")["legal"] == [a.to_dict() for a in legal_actions(t.state, 1)]
    assert watcher.last("state")["deadlines"] == {"0": 150, "1": 150}


# --- actions and chat -------------------------------------------------------------------------
def test_actions_are_refused_with_room_paused_and_chat_goes_on() -> None:
    t = paused_table()
    with pytest.raises(ProtocolError) as err:
        t.wait(0)
    assert err.value.code == "room_paused"
    t.room.chat(t.members[0], "また明日", "room")
    assert t.members[1].last("chat_message")["text"] == "また明日"


def test_pausing_is_no_action_the_log_and_the_replay_are_unchanged() -> None:
    t = Table(("saber", "lancer", "archer"), humans=2, declare_s=200).start()
    t.wait(0)
    before, logged = t.room.replay(), len(t.log)
    t.room.pause("p0")
    t.room.resume_game("p0")
    assert t.room.replay() == before and len(t.log) == logged
    assert [a for a, _src in t.store.load_room(1).actions] == before["actions"]


# --- the lobby and the operator ---------------------------------------------------------------
def test_a_paused_room_is_listed_as_paused_and_kept_when_everyone_leaves() -> None:
    server = Server()
    owner, player, watcher, token, room = table(server)
    owner.ask("pause_room")
    for wire in (owner, player, watcher):
        wire.ask("leave_room")
    server.lobby.sweep()
    (rooms,) = server.wire("10.0.0.7", name="x").ask("list_rooms")
    assert [(r["id"], r["paused"]) for r in rooms["rooms"]] == [(room, True)]
    back = server.wire("10.0.0.2", name="Shirou")
    assert one(back.ask("resume", room=room, token=token), "joined")["seat"] == 1


def test_the_operator_pauses_and_resumes_a_room() -> None:
    server = Server()
    owner, _player, _watcher, _token, room = table(server)
    admin = Admin(server, [])
    assert admin.ask("pause", room=room) == {"ok": True}
    assert one(owner.take(), "room_paused")["by"] == "operator"
    assert [r["paused"] for r in admin.ask("rooms")["rooms"]] == [True]
    assert admin.ask("pause", room=room) == {"ok": False, "error": "the game is paused already"}
    assert admin.ask("resume", room=room) == {"ok": True}
    assert kinds(owner.take())[:2] == ["room_resumed", "room"]
    assert admin.ask("resume", room=room) == {"ok": False, "error": "the game is not paused"}


# --- durability: SQLite and PostgreSQL ---------------------------------------------------------
def test_a_paused_room_survives_a_restart_with_the_time_it_had_left(any_store: Any) -> None:
    """Paused 30 s into a 200 s window; the server restarts an hour later: the room is paused,
    nothing is armed; resumed, its timer runs out 170 s later."""
    any_store.claim(1)
    room = Room.create(1, "campaign", {"seats": 2, "priority_s": 0, "declare_s": 200},
                       Clock(), any_store, None, seed=11)
    member = FakeMember("Rin")
    token = room.join_player(member, "saber")[1]
    room.add_bot("lancer", "heuristic")
    room.start()
    for _ in range(30):  # the bot declares meanwhile (PostgreSQL: once its writes landed)
        tick(room.clock, 1)
        settle(any_store)
    room.pause("Rin")
    settle(any_store)
    assert any_store.load_room(1).paused == {0: ("declare", 170.0)}
    room.stop()

    clock, lobby = restarted(any_store, room.clock.seconds() + 3600)
    again = lobby.rooms[1]
    assert again.paused == {0: ("declare", 170.0)} and again.summary()["paused"]
    assert clock.getDelayedCalls() == []  # no timer, no bot, no grace while paused
    back = FakeMember("Rin")
    again.resume(back, token)
    assert back.last("state")["deadlines"] == {"0": 170}
    again.resume_game("Rin")
    settle(any_store)
    assert any_store.load_room(1).paused is None
    versions = again.state.version
    tick(clock, 169)
    assert again.state.version == versions
    tick(clock, 1)
    assert again.state.version > versions  # the timer played seat 0's default action
    again.stop()


def test_grailwar_admin_pause_and_resume_name_the_room_and_rooms_says_paused() -> None:
    from grailwar.cli.admin import describe, request_of
    from grailwar.cli.main import build_parser

    for cmd in ("pause", "resume"):
        args = build_parser().parse_args(["admin", cmd, "12"])
        assert request_of(args) == {"cmd": cmd, "room": 12}
    server = Server()
    _owner, _player, _watcher, _token, room = table(server)
    admin = Admin(server, [])
    admin.ask("pause", room=room)
    assert f"{room:>6}  Fuyuki  [paused]" in describe("rooms", admin.ask("rooms"))
