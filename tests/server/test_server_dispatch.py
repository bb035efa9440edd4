"""`GrailProtocol` over a `StringTransport`: handshake, bad input, rate limits and the cap on
connections per address. Time only moves when the test's `task.Clock` is advanced."""

from __future__ import annotations

import struct

import msgpack
import pytest
from grailwar.shared.protocol import MAX_FRAME, PROTOCOL_VERSION, encode, message
from server_kit import Server, error_of, kinds, one


@pytest.fixture
def server() -> Server:
    return Server()


def test_handshake(server: Server) -> None:
    """hello with the right version is answered by welcome naming version and server."""
    w = server.wire()
    got = w.ask("hello", version=PROTOCOL_VERSION, name="Rin")
    assert got == [message("welcome", version=PROTOCOL_VERSION, server="grailwar")]
    assert w.proto.name == "Rin" and not w.closed


def test_version_mismatch_closes(server: Server) -> None:
    """Another protocol version is refused with version_mismatch and the connection closed."""
    w = server.wire()
    err = error_of(w.ask("hello", version=PROTOCOL_VERSION + 1, name="Rin"))
    assert err["code"] == "version_mismatch" and w.closed


def test_hello_first(server: Server) -> None:
    """Before hello, every other message is refused (hello_first); the connection stays and
    hello still works."""
    w = server.wire()
    for name, fields in (("ping", {}), ("list_rooms", {}), ("create_room", {"name": "x"})):
        assert error_of(w.ask(name, **fields))["code"] == "hello_first"
    assert not w.closed
    assert kinds(w.ask("hello", version=2, name="x")) == ["welcome"]
    assert kinds(w.ask("ping")) == ["pong"]


@pytest.mark.parametrize("body", [b"\xc1", b"\x81\x01\x02", b"\xa3abc", b"\x93\x01\x02\x03",
                                  msgpack.packb({"t": "ping"}) + b"\x00"])
def test_bad_frame_closes_with_error(server: Server, body: bytes) -> None:
    """Bytes that are not one msgpack map get an error frame (bad_frame), then the close."""
    w = server.wire(name="x")
    w.raw(struct.pack(">I", len(body)) + body)
    assert error_of(w.take())["code"] == "bad_frame"
    assert w.closed


@pytest.mark.parametrize("msg", [{"t": "nope"}, {"t": "welcome", "version": 2, "server": "s"},
                                 {"t": 5}, {"type": "ping"}])
def test_unknown_message_closes(server: Server, msg: dict) -> None:
    """A map that names no client message is unknown_message, and the connection closes."""
    w = server.wire(name="x")
    w.send_dict(msg)
    assert error_of(w.take())["code"] == "unknown_message"
    assert w.closed


def test_wrong_field_keeps_the_connection(server: Server) -> None:
    """A known message with a bad field is answered with bad_field naming it (and the `ref`
    of an act); the connection stays usable."""
    w = server.wire(name="x")
    w.send_dict({"t": "create_room", "name": "r", "seats": 99})
    err = error_of(w.take())
    assert (err["code"], err["field"]) == ("bad_field", "seats")
    w.send_dict({"t": "act", "action": "DeclareWait", "state_id": 0, "ref": 41})
    err = error_of(w.take())
    assert (err["code"], err["field"], err["ref"]) == ("bad_field", "action", 41)
    w.send_dict({"t": "ping", "extra": True})
    assert error_of(w.take())["field"] == "extra"
    assert not w.closed
    assert kinds(w.ask("ping")) == ["pong"]


def test_bool_ref_is_not_echoed(server: Server) -> None:
    """Only an integer `ref` is echoed in the error (a bool would make the reply invalid)."""
    w = server.wire(name="x")
    w.send_dict({"t": "act", "action": {}, "state_id": 0, "ref": True})
    assert "ref" not in error_of(w.take())


def test_oversized_frame_refused_at_the_header(server: Server) -> None:
    """A length over 64 KiB is refused as soon as the 4 header bytes arrive: error
    frame_too_large, connection closed, and nothing sent after it is read."""
    w = server.wire(name="x")
    w.raw(struct.pack(">I", MAX_FRAME + 1))
    assert error_of(w.take())["code"] == "frame_too_large" and w.closed
    w.raw(b"x" * 1000 + encode(message("ping")))
    assert w.take() == []


def test_frames_in_pieces_and_together(server: Server) -> None:
    """Frames split across reads, and several frames in one read, are each answered in order."""
    w = server.wire(name="x")
    data = encode(message("ping")) + encode(message("list_rooms")) + encode(message("ping"))
    for i in range(len(data)):
        w.raw(data[i:i + 1])
    assert kinds(w.take()) == ["pong", "rooms", "pong"]
    w.raw(data)
    assert kinds(w.take()) == ["pong", "rooms", "pong"]


def test_nothing_is_read_after_a_fatal_error(server: Server) -> None:
    """Frames that follow a fatal one in the same read are not handled: a client cannot slip
    messages in behind its own bad frame."""
    w = server.wire(name="x")
    w.raw(encode(message("ping")) + struct.pack(">I", 1) + b"\xc1"
          + encode(message("create_room", name="sneaky")))
    assert kinds(w.take()) == ["pong", "error"]
    assert server.lobby.rooms == {}


def test_message_rate_limit(server: Server) -> None:
    """More than 20 messages in one second are refused with rate_limited (the connection
    stays); the bucket refills with time."""
    w = server.wire(name="x")
    w.take()
    for _ in range(19):  # hello took one token
        w.send("ping")
    assert kinds(w.take()) == ["pong"] * 19
    assert error_of(w.ask("ping"))["code"] == "rate_limited"
    server.advance(0.1)
    assert kinds(w.ask("ping")) == ["pong"]
    assert not w.closed


def test_chat_rate_limit(server: Server) -> None:
    """Chat allows a burst of 8 lines, then one a second; a refused line's error names the
    `ref` it was sent with, so the client can give its text back."""
    w = server.wire(name="x")
    w.send("create_room", name="r")
    w.take()
    for i in range(8):
        assert kinds(w.ask("chat", text=f"m{i}", ref=i)) == ["chat_message"]
    refused = error_of(w.ask("chat", text="too much", ref=99))
    assert (refused["code"], refused["ref"]) == ("rate_limited", 99)
    server.advance(1.0)
    assert kinds(w.ask("chat", text="again")) == ["chat_message"]
    assert error_of(w.ask("chat", text="and again"))["code"] == "rate_limited"


def test_join_rate_limit(server: Server) -> None:
    """Room joins (which hash passwords) are limited to 5 per 10 seconds per connection."""
    owner = server.wire(name="o", host="10.0.0.2")
    owner.send("create_room", name="r", password="pw")
    rid = next(iter(server.lobby.rooms))
    w = server.wire(name="x")
    codes = [error_of(w.ask("join_room", room=rid, password="no"))["code"] for _ in range(6)]
    assert codes == ["wrong_password"] * 5 + ["rate_limited"]
    server.advance(10)
    assert error_of(w.ask("join_room", room=rid, password="no"))["code"] == "wrong_password"
    server.advance(4)  # six wrong passwords: this address waits 4 s (test_server_limits.py)
    assert kinds(w.ask("join_room", room=rid, password="pw"))[0] == "joined"


def test_connection_cap_per_address() -> None:
    """An address may hold at most max_per_address connections; the next one gets
    too_many_connections and is closed; a closed connection frees its place; other addresses
    are not affected."""
    server = Server(max_per_address=3)
    wires = [server.wire("10.1.1.1", name=f"c{i}") for i in range(3)]
    extra = server.wire("10.1.1.1")
    assert error_of(extra.take())["code"] == "too_many_connections" and extra.closed
    extra.lose()
    assert server.wire("10.1.1.2", name="other").proto.greeted
    wires[0].lose()
    again = server.wire("10.1.1.1", name="again")
    assert not again.closed
    assert server.lobby.addresses["10.1.1.1"] == 3


def test_refused_connection_reads_nothing() -> None:
    """A connection refused by the cap handles nothing it sent before the close."""
    server = Server(max_per_address=1)
    server.wire("10.1.1.1", name="first")
    extra = server.wire("10.1.1.1")
    extra.take()
    extra.send("hello", version=2, name="x")
    extra.send("create_room", name="r")
    assert extra.take() == [] and server.lobby.rooms == {}


def test_internal_error_is_contained(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in a handler costs that message an internal_error reply; the connection, its
    room and the other rooms go on."""
    a = server.wire(name="a")
    a.send("create_room", name="A")
    b = server.wire(name="b", host="10.0.0.2")
    b.send("create_room", name="B")
    a.take(), b.take()
    room_a = a.proto.room
    monkeypatch.setattr(type(room_a), "chat", lambda *args: 1 / 0)
    err = error_of(a.ask("chat", text="boom"))
    assert err["code"] == "internal_error" and not a.closed
    monkeypatch.undo()
    assert kinds(a.ask("chat", text="fine")) == ["chat_message"]
    assert b.take() == []


def test_lost_connection_is_forgotten(server: Server) -> None:
    """A closed connection leaves its address count and its room (an unstarted room with
    nobody left is closed)."""
    w = server.wire(name="x")
    w.send("create_room", name="r")
    assert len(server.lobby.rooms) == 1
    w.lose()
    assert server.lobby.addresses == {}
    assert server.lobby.rooms == {}


def test_list_rooms_is_paged(server: Server) -> None:
    """The rooms reply holds at most 100 rooms and the total; an offset reads the rest, and a
    reply with long names stays far below the frame limit."""
    watcher = server.wire(name="w")
    for i in range(130):  # each room has a watcher, so none is swept away as abandoned
        room = server.lobby.create("名" * 32 + str(i), {}, None, address=f"10.0.0.{i}")
        room.spectators.append(watcher.proto)
    w = server.wire(name="x")
    first = one(w.ask("list_rooms"), "rooms")
    assert (len(first["rooms"]), first["total"]) == (100, 130)
    assert len(encode(first)) < MAX_FRAME // 2
    rest = one(w.ask("list_rooms", offset=100), "rooms")
    assert len(rest["rooms"]) == 30
    assert {r["id"] for r in first["rooms"] + rest["rooms"]} == set(server.lobby.rooms)


@pytest.mark.parametrize(("name", "fields", "field"), [
    ("list_rooms", {"offset": 2**63 - 100}, "offset"),
    ("list_rooms", {"offset": 2**64 - 1}, "offset"),
    ("join_room", {"room": 2**63}, "room"),
    ("resume", {"room": -(2**63), "token": "x" * 8}, "room"),
    ("hello", {"version": 2**64 - 1, "name": "x"}, "version"),
])
def test_an_integer_out_of_its_range_is_bad_field_not_a_crash(server: Server, name: str,
                                                                fields: dict, field: str) -> None:
    """Issue 38 item 1: `list_rooms` with an offset of 2**63 - 100 answered internal_error
    (islice's ValueError). Every integer a client sends has its range (shared.protocol
    INT_MAX); outside it, bad_field naming the field, and the connection goes on."""
    w = server.wire(name="x") if name != "hello" else server.wire()
    w.send_dict({"t": name, **fields})
    err = error_of(w.take())
    assert (err["code"], err["field"]) == ("bad_field", field)
    after = ("ping", {}, "pong") if name != "hello" else ("hello", {"version": 2, "name": "x"},
                                                          "welcome")
    assert not w.closed and one(w.ask(after[0], **after[1]), after[2])


def test_refused_messages_count_against_the_rate(server: Server) -> None:
    """Messages refused for their fields count against the rate limit too, so a flood of bad
    messages is cut like any other."""
    w = server.wire(name="x")
    for _ in range(19):
        w.send_dict({"t": "ping", "junk": 1})
    assert {m["code"] for m in w.take()} == {"bad_field"}
    assert error_of(w.ask("ping"))["code"] == "rate_limited"


def test_fatal_frames_close_even_when_rate_limited(server: Server) -> None:
    """An unknown message closes the connection even when the rate limit is spent."""
    w = server.wire(name="x")
    for _ in range(25):
        w.send("ping")
    w.take()
    w.send_dict({"t": "nope"})
    assert error_of(w.take())["code"] == "unknown_message" and w.closed


def test_hello_again_renames(server: Server) -> None:
    """A second hello is answered again and changes the name used for later joins."""
    w = server.wire(name="first")
    assert kinds(w.ask("hello", version=PROTOCOL_VERSION, name="second")) == ["welcome"]
    w.send("create_room", name="r")
    assert w.proto.room.seats[0].name == "second"
