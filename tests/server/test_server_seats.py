"""What becomes of a seat's player, told to every member with `seat_event`: a drop, the bot
that takes the seat over after the grace period, the return, leaving and being kicked; each
shown on the seat in the `room` message that follows."""

from __future__ import annotations

from typing import Any

from grailwar.server.seating import GRACE
from server_kit import Server, Wire, kinds, one


def seat_row(msgs: list[dict[str, Any]], seat: int) -> dict[str, Any]:
    """The seat as the last `room` message among `msgs` shows it."""
    room = [m for m in msgs if m["t"] == "room"][-1]["room"]
    return room["seat_list"][seat]


def table(server: Server, start: bool = True) -> tuple[Wire, Wire, Wire, str, int]:
    """An owner, a second player (seat 1, with its token) and a spectator in a 3-seat room."""
    owner = server.wire("10.0.0.1", name="Rin")
    room = one(owner.ask("create_room", name="Fuyuki", seats=3, declare_s=600), "joined")["room"]
    player = server.wire("10.0.0.2", name="Shirou")
    token = one(player.ask("join_room", room=room), "joined")["token"]
    watcher = server.wire("10.0.0.3", name="Taiga")
    watcher.ask("join_room", room=room, spectator=True)
    if start:
        owner.send("start")
    for w in (owner, player, watcher):
        w.take()
    return owner, player, watcher, token, room


def test_a_drop_the_takeover_and_the_return_reach_every_member() -> None:
    """The player drops: every member hears `dropped` (with the grace seconds) and the seat
    shows disconnected; after GRACE a bot plays it (`bot_took_over`, bot_playing); its resume
    is `returned` to the others, and the seat is the player's again."""
    server = Server()
    owner, player, watcher, token, room = table(server)
    player.lose()
    for w in (owner, watcher):
        got = w.take()
        assert kinds(got) == ["seat_event", "room"], kinds(got)
        assert got[0] == {"t": "seat_event", "seat": 1, "what": "dropped", "name": "Shirou",
                          "seconds": round(GRACE)}
        row = seat_row(got, 1)
        assert (row["connected"], row["bot_playing"]) == (False, False)
    server.advance(GRACE - 1)
    assert "seat_event" not in kinds(owner.take())
    server.advance(1)
    for w in (owner, watcher):
        got = w.take()
        event = one(got, "seat_event")
        assert (event["seat"], event["what"], event["name"]) == (1, "bot_took_over", "Shirou")
        assert seat_row(got, 1)["bot_playing"] is True
    back = server.wire("10.0.0.2", name="Shirou")
    answer = back.ask("resume", room=room, token=token)
    assert kinds(answer)[0] == "joined" and "seat_event" not in kinds(answer)
    for w in (owner, watcher):
        got = w.take()
        event = one(got, "seat_event")
        assert (event["seat"], event["what"], event["name"]) == (1, "returned", "Shirou")
        row = seat_row(got, 1)
        assert (row["connected"], row["bot_playing"]) == (True, False)


def test_a_resume_in_the_grace_period_is_a_return_without_a_takeover() -> None:
    """Back before GRACE ends: `dropped` then `returned`, never `bot_took_over`."""
    server = Server()
    owner, player, _watcher, token, room = table(server)
    player.lose()
    server.advance(GRACE / 2)
    server.wire("10.0.0.2", name="Shirou").ask("resume", room=room, token=token)
    server.advance(GRACE)
    said = [m["what"] for m in owner.take() if m["t"] == "seat_event"]
    assert said == ["dropped", "returned"]


def test_taking_a_seat_over_from_another_window_is_no_event() -> None:
    """A resume while the seat is still connected moves it to the new connection: the seat
    never went away, so nobody is told it returned."""
    server = Server()
    owner, _player, _watcher, token, room = table(server)
    server.wire("10.0.0.4", name="Shirou").ask("resume", room=room, token=token)
    assert "seat_event" not in kinds(owner.take())


def test_leaving_and_being_kicked_are_told_before_and_after_the_start() -> None:
    """leave_room and a kick are `left` and `kicked` to the members who stay; a drop before
    the start frees the seat, so it is `left` too."""
    for start in (False, True):
        server = Server()
        owner, player, watcher, _token, room = table(server, start=start)
        player.send("leave_room")
        assert [(m["seat"], m["what"]) for m in owner.take() if m["t"] == "seat_event"] == \
            [(1, "left")]
        watcher.send("leave_room")  # a spectator holds no seat: nothing to tell
        assert "seat_event" not in kinds(owner.take())
        if start:
            continue
        again = server.wire("10.0.0.5", name="Sakura")
        again.ask("join_room", room=room)
        owner.send("kick", seat=1)
        assert [m["what"] for m in owner.take() if m["t"] == "seat_event"] == ["kicked"]
        assert "seat_event" not in kinds(again.take())  # the kicked is told `left` instead
        third = server.wire("10.0.0.6", name="Illya")
        third.ask("join_room", room=room)
        owner.take()
        third.lose()
        assert [(m["what"], m["name"]) for m in owner.take() if m["t"] == "seat_event"] == \
            [("left", "Illya")]
