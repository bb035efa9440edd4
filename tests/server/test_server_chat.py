"""The table's chat over the wire: dice commands rolled by the server, secret rolls and their
reveal, whispers, and the history a member joining late (or coming back) is sent."""

from __future__ import annotations

from typing import Any

import pytest
from grailwar.server import chat as chat_module
from grailwar.shared.protocol import MAX_FRAME, encode
from server_kit import FakeMember, Server, Wire, error_of, kinds, one, restarted
from test_server_lobby import create, join, room_of

FAST = {"declare_s": 30, "main_s": 10, "reaction_s": 5, "prompt_s": 5}


@pytest.fixture
def server() -> Server:
    return Server()


def table(server: Server) -> tuple[Wire, Wire, Wire]:
    """A three-seat room: the owner (seat 0), a player b (seat 1), a spectator; all drained."""
    owner = create(server, seats=3, **FAST)
    b = join(server, room_of(owner), "b")
    s = join(server, room_of(owner), "s", host="10.0.0.3", spectator=True)
    for w in (owner, b, s):
        w.take()
    return owner, b, s


def said(w: Wire, text: str, **fields: Any) -> dict[str, Any]:
    return one(w.ask("chat", text=text, **fields), "chat_message")


def test_a_dice_command_is_rolled_by_the_server(server: Server) -> None:
    """`2D6+3 攻撃` comes back to every reader with the roll: the faces, the modifier and a
    total that adds them up; a target gives success or failure."""
    owner, b, s = table(server)
    line = said(owner, "2D6+3 攻撃")
    roll = line["roll"]
    dice = roll["terms"][0]["dice"]
    assert roll["expr"] == "2D6+3" and len(dice) == 2 and all(1 <= d <= 6 for d in dice)
    assert roll["total"] == sum(dice) + 3 and line["text"] == "2D6+3 攻撃"
    assert one(b.take(), "chat_message") == line == one(s.take(), "chat_message")
    target = said(b, "１ｄ１００＜＝６０")["roll"]
    assert target["comparison"] == "<=" and target["target"] == 60
    assert target["success"] == (target["total"] <= 60)


def test_chat_dice_never_touch_the_games_dice(server: Server) -> None:
    """Rolls in the chat leave the game's dice stream and its action log as they were."""
    owner, _b, _s = table(server)
    owner.send("start")
    room = room_of(owner)
    rng, actions = room.state.rng, list(room.actions)
    for _ in range(5):
        said(owner, "10D100")
    assert room.state.rng == rng and room.actions == actions


def test_a_bad_dice_command_is_an_error_naming_its_ref(server: Server) -> None:
    owner, b, _s = table(server)
    err = error_of(owner.ask("chat", text="1000D6", ref=5))
    assert (err["code"], err["field"], err["ref"]) == ("bad_dice", "text", 5)
    assert b.take() == []


def test_a_secret_roll_is_seen_by_its_roller_only_until_revealed(server: Server) -> None:
    """The roller gets the roll; the others a secret roll with no text and no faces; /reveal
    shows it to everyone; a second /reveal has nothing left to show."""
    owner, b, s = table(server)
    mine = said(b, "S1D100<=50 こっそり")
    assert mine["roll"]["secret"] and "total" in mine["roll"]
    for w in (owner, s):
        other = one(w.take(), "chat_message")
        assert other["roll"] == {"secret": True} and other["text"] == ""
        assert other["id"] == mine["id"]
    shown = said(b, "/reveal")
    assert shown["roll"] == {**mine["roll"], "revealed": True} and shown["id"] > mine["id"]
    for w in (owner, s):
        assert one(w.take(), "chat_message") == shown
    assert error_of(b.ask("chat", text="/reveal"))["code"] == "no_secret_roll"
    assert error_of(s.ask("chat", text="S2D6"))["code"] == "spectator"


def test_a_whisper_reaches_its_two_ends_only(server: Server) -> None:
    owner = create(server, seats=4)
    room = room_of(owner)
    b = join(server, room, "b")
    c = join(server, room, "c", host="10.0.0.3")
    s = join(server, room, "s", host="10.0.0.4", spectator=True)
    for w in (owner, b, c, s):
        w.take()
    line = said(owner, "組まない？", channel="whisper", to=1)
    assert (line["channel"], line["to"]) == ("whisper", 1)
    assert one(b.take(), "chat_message") == line
    assert c.take() == [] and s.take() == []
    assert error_of(s.ask("chat", text="hi", channel="whisper", to=0))["code"] == "no_whisper"
    assert error_of(owner.ask("chat", text="me", channel="whisper", to=0))["code"] == \
        "no_whisper"
    owner.send("add_bot", cls="rider")
    bot_seat = next(seat.index for seat in room.seats if seat.kind == "bot")
    assert error_of(owner.ask("chat", text="bot?", channel="whisper",
                              to=bot_seat))["code"] == "no_whisper"


def live_record(w: Wire) -> tuple[list[dict], list[str], list[dict]]:
    """What a member present all along received: events, log lines, chat lines."""
    events = [e for m in w.log if m["t"] == "events" for e in m["events"]]
    log = [line for m in w.log if m["t"] == "events" for line in m["log"]]
    chat = [{k: v for k, v in m.items() if k != "t"} for m in w.log if m["t"] == "chat_message"]
    return events, log, chat


def history_of(got: list[dict[str, Any]]) -> tuple[list[dict], list[str], list[dict]]:
    parts = [m for m in got if m["t"] == "history"]
    assert parts and parts[0]["first"] and not any(p["first"] for p in parts[1:])
    chat = [c for p in parts for c in p["chat"]]
    return ([e for p in parts for e in p["events"]], [x for p in parts for x in p["log"]],
            [{k: v for k, v in c.items() if k != "after"} for c in chat])


def played(server: Server) -> tuple[Wire, Wire, Wire]:
    """A game some days in, with chat of every kind on the way."""
    owner, b, s = table(server)
    said(owner, "よろしく")
    owner.send("start")
    said(owner, "組まない？", channel="whisper", to=1)
    said(b, "S2D6")
    said(s, "2D6 観戦")
    for _ in range(30):
        server.advance(20)
        for w in (owner, b, s):  # as clients do: read what came, ping while they wait
            w.take()
            w.send("ping")
    said(owner, "3D6-1>=10")
    for w in (owner, b, s):
        w.take()
    return owner, b, s


def test_a_late_spectator_and_a_resumed_seat_get_what_was_seen_live(server: Server) -> None:
    """History on join: a spectator joining late gets exactly the events, log lines and chat
    of the spectator present from the start (no whisper, no one's secret roll); a seat coming
    back with its token gets exactly what it had been sent, its own whisper and roll too."""
    owner, b, s = played(server)
    room = room_of(owner)
    assert len(room.history) > 50
    late = server.wire("10.0.0.5", name="late")
    got = late.ask("join_room", room=room.id, spectator=True)
    assert kinds(got)[:2] == ["joined", "history"]
    assert history_of(got) == live_record(s)
    spectator_chat = history_of(got)[2]
    assert all(c["channel"] == "room" for c in spectator_chat)
    assert {"secret": True} in [c.get("roll") for c in spectator_chat]
    token = one(b.log, "joined")["token"]
    b.lose()
    back = server.wire("10.0.0.6", name="b")
    got = back.ask("resume", room=room.id, token=token)
    assert history_of(got) == live_record(b)
    assert any(c["channel"] == "whisper" for c in history_of(got)[2])


def test_the_chat_lines_keep_their_place_among_the_events(server: Server) -> None:
    """Each history chat line says how many of the member's events came before it."""
    owner, _b, s = played(server)
    late = server.wire("10.0.0.5", name="late")
    parts = [m for m in late.ask("join_room", room=room_of(owner).id, spectator=True)
             if m["t"] == "history"]
    after = [c["after"] for p in parts for c in p["chat"]]
    live = [sum(len(m["events"]) for m in s.log[:i] if m["t"] == "events")
            for i, m in enumerate(s.log) if m["t"] == "chat_message"]
    assert after == live and after[0] == 0 and after[-1] > 0


def test_the_chat_history_survives_a_restart(server: Server) -> None:
    """The chat is in the store and the events are regenerated from the actions: a server
    restarted from the store gives a late spectator the same history."""
    owner, _b, s = played(server)
    room_id = room_of(owner).id
    _clock, lobby = restarted(server.store, server.clock.seconds())
    member = FakeMember("after")
    lobby.rooms[room_id].join_spectator(member)
    assert history_of(member.got) == live_record(s)


def test_a_long_history_comes_in_messages_below_the_frame_limit(server: Server) -> None:
    owner, _b, _s = table(server)
    for i in range(300):
        server.advance(1)
        said(owner, f"{i:03} " + "あ" * 290)
    late = server.wire("10.0.0.5", name="late")
    got = late.ask("join_room", room=room_of(owner).id, spectator=True)
    parts = [m for m in got if m["t"] == "history"]
    assert len(parts) > 1 and all(len(encode(p)) <= MAX_FRAME for p in parts)
    assert [c["text"][:3] for c in history_of(got)[2]] == [f"{i:03}" for i in range(300)]


def test_a_room_keeps_its_last_lines_only(server: Server, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    """The kept chat is bounded, in memory and in the store; a restarted room numbers its
    next line after the last one kept."""
    monkeypatch.setattr(chat_module, "MAX_LINES", 5)
    owner, _b, _s = table(server)
    for i in range(8):
        said(owner, f"line {i}")
    room_id = room_of(owner).id
    rows = server.store.db.execute("SELECT COUNT(*) FROM chat WHERE room = ?",
                                   (room_id,)).fetchone()[0]
    assert rows == 5
    _clock, lobby = restarted(server.store, server.clock.seconds())
    member = FakeMember("after")
    room = lobby.rooms[room_id]
    room.join_spectator(member)
    assert [c["text"] for c in history_of(member.got)[2]] == [f"line {i}" for i in range(3, 8)]
    room.chat(member, "again", "room")
    assert member.last("chat_message")["id"] == 9
