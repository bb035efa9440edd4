"""What keeps one client from costing the server without bound: the cap on bytes queued for a
client that does not read, the handshake and idle timeouts (and the client's keepalive), and the
join, create and password limits counted per address, which a reconnect does not reset."""

from __future__ import annotations

from grailwar.client.net import KEEPALIVE, ServerConnection
from grailwar.server.lobby import (
    CONNECTS_PER,
    CONNECTS_PER_ADDRESS,
    CREATES_PER,
    CREATES_PER_ADDRESS,
    JOINS_PER,
    JOINS_PER_ADDRESS,
)
from grailwar.server.protocol import CLOSE_GRACE
from grailwar.server.room import Room
from grailwar.shared.protocol import encode, message
from server_kit import Pair, Server, Wire, error_of, kinds, one, peer
from test_server_seats import table

CAP = 8 * 1024  # a small cap keeps the floods short; the rule is the same at 1 MiB


def with_rooms(server: Server, count: int = 4) -> Server:
    """Rooms to list, so that each `rooms` answer is some 500 bytes."""
    for i in range(count):
        owner = server.wire(f"10.9.0.{i}", name="owner")
        owner.ask("create_room", name=f"room {i}", password="x")
    return server


def flood(server: Server, w: Wire, reads: bool, count: int = 2000) -> None:
    """`count` list_rooms at 20 a second (inside the message limit), read after each one or
    never."""
    for _ in range(count):
        w.send("list_rooms")
        server.advance(0.05)
        if reads:
            w.take()


def room_traffic(room: Room, w: Wire, readers: tuple[Wire, ...] = (), count: int = 2000) -> int:
    """The room tells its members about itself `count` times (as it does on every change), or
    until `w` is closed; `readers` read each time. Returns how many times it did."""
    for sent in range(count):
        if w.closed:
            return sent
        room.broadcast_room()
        for reader in readers:
            reader.take()
    return count


def test_a_client_that_never_reads_is_not_read_either() -> None:
    """Once the socket's buffer is full the server stops reading a client that does not read:
    its requests wait in its own socket (no answer is built or queued), and with no message
    read it is closed by the idle timeout. One that reads, under the same load, is served."""
    server = with_rooms(Server(max_queued=CAP))
    slow = server.wire("10.0.0.1", name="slow")
    honest = server.wire("10.0.0.2", name="honest")
    flood(server, slow, reads=False)
    assert slow.transport.paused and slow.transport.producerState == "paused"
    assert len(slow.unread) > 1000 * len(encode(message("list_rooms")))  # never read
    queued = len(slow.transport.value())
    assert queued < slow.transport.buffer_size + 1000  # the buffer and one answer over it
    flood(server, honest, reads=True)
    assert not honest.closed and kinds(honest.log).count("rooms") == 2000
    server.advance(server.lobby.idle_timeout)
    assert slow.closed and len(slow.transport.value()) - queued < 200  # only the error
    assert error_of(slow.take()[-1:])["code"] == "timeout"


def test_reading_again_resumes_the_reading_of_the_client() -> None:
    """A client that falls behind and catches up is read again, its waiting requests answered
    in order."""
    server = with_rooms(Server(max_queued=CAP))
    w = server.wire(name="bursty")
    flood(server, w, reads=False, count=300)
    assert w.unread
    for _ in range(20):
        w.take()
    answers = [m for m in w.log if m["t"] in ("rooms", "error")]
    assert len(answers) == 300 and not w.unread and not w.closed
    assert {m.get("code") for m in answers if m["t"] == "error"} <= {"rate_limited"}


def test_a_member_that_does_not_read_is_cut_at_the_cap_and_told_why() -> None:
    """What a room sends to a member that does not read piles up to the cap, no further: the
    member gets `too_slow` (past the cap, so that it can learn why) and the connection closes;
    one that still reads nothing within CLOSE_GRACE is cut. Members that read are served."""
    server = Server(max_queued=CAP)
    owner, player, watcher, _token, room_id = table(server)
    room = server.lobby.room(room_id)
    size = len(encode(message("room", room=room.public())))
    assert room_traffic(room, player, (owner, watcher)) < 2000
    queued = len(player.transport.value())  # the socket's buffer, one message over, the cap
    assert queued <= player.transport.buffer_size + size + CAP + 200
    room.broadcast_room()  # nothing more is queued
    assert len(player.transport.value()) == queued
    assert player.transport.producer is None  # a registered producer holds a TCP socket open
    assert player.transport.disconnecting and not player.transport.disconnected
    assert error_of(player.take()[-1:])["code"] == "too_slow"
    server.advance(CLOSE_GRACE)
    assert player.transport.disconnected  # aborted: its buffer is dropped
    assert not owner.closed and not watcher.closed


def test_the_count_starts_again_each_time_the_member_has_read_everything() -> None:
    """The cap is on what waits now, not on all that was ever sent: a member that falls
    behind and catches up again (the transport resumes the protocol) is never cut."""
    server = Server(max_queued=CAP)
    owner, player, watcher, _token, room_id = table(server)
    room = server.lobby.room(room_id)
    size = len(encode(message("room", room=room.public())))
    behind = player.transport.buffer_size // size + CAP // size // 2  # half the cap queued
    for _ in range(5):
        room_traffic(room, player, (owner, watcher), behind)
        assert player.transport.paused and not player.closed
        player.take()
        assert not player.transport.paused
    assert room_traffic(room, player, (owner, watcher), behind * 2) < behind * 2


def test_a_player_who_stops_reading_keeps_the_seat_and_a_spectator_just_goes() -> None:
    """A seated player cut for `too_slow` is dropped as any lost connection (its seat waits
    for a resume); a spectator cut for it is simply gone from the room."""
    server = Server(max_queued=CAP)
    owner, player, watcher, token, room_id = table(server)
    room = server.lobby.room(room_id)
    for slow in (player, watcher):
        room_traffic(room, slow, (owner,))
        assert slow.closed and error_of(slow.take()[-1:])["code"] == "too_slow"
        slow.lose()  # what the aborted transport reports
    assert room.seats[1].kind == "human" and room.seats[1].member is None
    assert room.spectators == []
    owner.take()
    events = [m for m in owner.log if m["t"] == "seat_event"]
    assert [(e["seat"], e["what"]) for e in events] == [(1, "dropped")]
    back = server.wire("10.0.0.2", name="Shirou")
    assert kinds(back.ask("resume", room=room_id, token=token))[0] == "joined"


# --- timeouts ------------------------------------------------------------------------------------
def test_a_connection_without_hello_is_closed_after_the_handshake_timeout() -> None:
    """No complete hello within handshake_timeout: `timeout`, closed. Other messages before
    hello (refused with hello_first) do not extend it."""
    server = Server()
    silent = server.wire()
    talker = server.wire("10.0.0.2")
    for _ in range(9):
        talker.send("ping")
        server.advance(1)
    assert not silent.closed and not talker.closed
    server.advance(1)
    for w in (silent, talker):
        assert w.closed and error_of(w.take()[-1:])["code"] == "timeout"
        assert w.transport.producer is None


def test_a_connection_silent_after_hello_or_in_a_half_header_is_closed_when_idle() -> None:
    """A greeted connection that sends no complete frame for idle_timeout is closed: just
    hello, or hello and the first bytes of a frame header."""
    server = Server()
    greeted = server.wire(name="a")
    half = server.wire("10.0.0.2", name="b")
    half.raw(b"\x00\x00")
    server.advance(server.lobby.idle_timeout - 1)
    assert not greeted.closed and not half.closed
    server.advance(1)
    for w in (greeted, half):
        assert w.closed and error_of(w.take())["code"] == "timeout"


def test_a_connection_that_pings_stays_open() -> None:
    """Any complete frame (here a ping every KEEPALIVE seconds) keeps a connection open."""
    server = Server()
    w = server.wire(name="a")
    for _ in range(20):
        server.advance(KEEPALIVE)
        assert kinds(w.ask("ping")) == ["pong"]
    assert not w.closed


def test_the_client_keeps_its_connection_alive_while_it_waits() -> None:
    """A ServerConnection given a clock pings every KEEPALIVE seconds, so waiting ten minutes
    in the lobby does not trip the server's idle timeout; it stops pinging once lost."""
    server = Server()
    got: list[dict] = []
    conn = ServerConnection("waiter", got.append, clock=server.clock)
    pair = Pair(server, conn)
    for _ in range(20):
        server.advance(KEEPALIVE)
        pair.pump.flush()
    assert kinds(got) == ["welcome"] + ["pong"] * 20
    assert not pair.server_proto.closing
    pair.close()
    assert conn.keepalive is not None and not conn.keepalive.running


# --- limits per address --------------------------------------------------------------------------
def test_a_reconnect_loop_guessing_a_password_is_locked_out_per_room_and_address() -> None:
    """Five wrong passwords per room and address, whatever the connections; then each attempt
    waits 2, 4 … seconds after the last failure (refused unchecked meanwhile). Another address
    is unaffected, and the right password after the wait gets in and clears the count."""
    server = Server()
    owner = server.wire(name="owner")
    room_id = one(owner.ask("create_room", name="r", password="hunter2"), "joined")["room"]

    def attempt(password: str, host: str = "10.0.0.7") -> str:
        w = server.wire(host, name="guess")
        got = w.ask("join_room", room=room_id, password=password)
        w.lose()
        return got[0]["code"] if got[0]["t"] == "error" else got[0]["t"]

    assert [attempt(f"guess{i}") for i in range(5)] == ["wrong_password"] * 5
    assert attempt("hunter2") == "rate_limited"  # not even checked
    assert attempt("x", "10.0.0.8") == "wrong_password"
    server.advance(2)
    assert attempt("guess5") == "wrong_password"
    server.advance(3)
    assert attempt("guess6") == "rate_limited"  # the sixth failure asks for 4 seconds
    server.advance(1)
    assert attempt("hunter2") == "joined"
    assert (room_id, "10.0.0.7") not in server.lobby.passwords.failures


def test_the_wrong_password_lockout_doubles_and_is_forgotten() -> None:
    """Each further failure doubles the wait; after the wait and a quiet minute the entry is
    gone (the table does not keep every address that ever failed)."""
    server = Server()
    owner = server.wire(name="owner")
    room_id = one(owner.ask("create_room", name="r", password="hunter2"), "joined")["room"]
    w = server.wire("10.0.0.7", name="guess")
    waited = []
    for i in range(9):
        start = server.clock.seconds()
        while error_of(w.ask("join_room", room=room_id, password=f"guess{i}"))["code"] == \
                "rate_limited":
            server.advance(1)
        waited.append(round(server.clock.seconds() - start))
    assert waited == [0, 0, 0, 0, 0, 2, 4, 8, 16]
    guard = server.lobby.passwords
    assert guard.failures[(room_id, "10.0.0.7")].lockout == 32
    server.advance(32 + 60)
    other = server.wire("10.0.0.8", name="x")
    other.ask("join_room", room=room_id, password="nope")
    assert list(guard.failures) == [(room_id, "10.0.0.8")]


def test_a_reconnect_loop_of_joins_hits_the_address_limit() -> None:
    """Joins from new connections of one address count together; another address joins."""
    server = Server()
    owner = server.wire(name="owner")
    room_id = one(owner.ask("create_room", name="r"), "joined")["room"]
    rate, per = JOINS_PER_ADDRESS, JOINS_PER
    codes = []
    for _ in range(rate + 5):
        w = server.wire("10.0.0.7", name="loop")
        got = w.ask("join_room", room=room_id, spectator=True)
        codes.append(got[0].get("code", got[0]["t"]))
        w.lose()
    assert codes == ["joined"] * rate + ["rate_limited"] * 5
    other = server.wire("10.0.0.8", name="x")
    assert kinds(other.ask("join_room", room=room_id, spectator=True))[0] == "joined"
    server.advance(per)
    w = server.wire("10.0.0.7", name="loop")
    assert kinds(w.ask("join_room", room=room_id, spectator=True))[0] == "joined"


def test_a_reconnect_loop_of_new_rooms_hits_the_address_limit() -> None:
    """Rooms created and left at once (so the open-room count never stops it) from new
    connections of one address: at most CREATES_PER_ADDRESS; another address creates."""
    server = Server()
    rate, per = CREATES_PER_ADDRESS, CREATES_PER
    codes = []
    for i in range(rate + 3):
        w = server.wire("10.0.0.7", name="loop")
        got = w.ask("create_room", name=f"r{i}")
        codes.append(got[0].get("code", got[0]["t"]))
        w.send("leave_room")
        w.lose()
    assert codes == ["joined"] * rate + ["rate_limited"] * 3
    assert server.lobby.rooms == {}
    other = server.wire("10.0.0.8", name="x")
    assert kinds(other.ask("create_room", name="mine"))[0] == "joined"
    server.advance(per)
    again = server.wire("10.0.0.7", name="loop")
    assert kinds(again.ask("create_room", name="later"))[0] == "joined"


def test_the_address_tables_forget_quiet_addresses() -> None:
    """A hundred addresses that joined once leave no trace once their buckets would be full."""
    server = Server()
    owner = server.wire(name="owner")
    room_id = one(owner.ask("create_room", name="r"), "joined")["room"]
    for i in range(100):
        w = server.wire(f"10.1.0.{i}", name="x")
        w.ask("join_room", room=room_id, spectator=True)
        w.lose()
    assert len(server.lobby.join_limit.buckets) == 101
    server.advance(JOINS_PER)
    w = server.wire("10.2.0.1", name="y")
    w.ask("join_room", room=room_id, spectator=True)
    assert list(server.lobby.join_limit.buckets) == ["10.2.0.1"]


def test_an_address_opening_connections_in_a_flood_is_refused_before_a_byte_is_read() -> None:
    """Issue 38 item 8: one address opened 3,000-6,000 connections a second and cost half a
    core. New connections per address are a bucket of CONNECTS_PER_ADDRESS refilled over
    CONNECTS_PER seconds: past it the factory builds no protocol (closed before a byte is
    read), another address is untouched, and the bucket refills with time."""
    server = Server()
    built = [server.factory.buildProtocol(peer("10.0.0.5")) for _ in range(CONNECTS_PER_ADDRESS)]
    assert all(p is not None for p in built)
    assert server.factory.buildProtocol(peer("10.0.0.5")) is None
    assert server.factory.buildProtocol(peer("10.0.0.6")) is not None
    server.advance(CONNECTS_PER / CONNECTS_PER_ADDRESS * 2)  # two more have come back
    assert [server.factory.buildProtocol(peer("10.0.0.5")) is not None
            for _ in range(3)] == [True, True, False]
