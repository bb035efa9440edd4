"""Test doubles for the server: fake members, connections over `StringTransport`, in-memory
client/server pairs over `IOPump`, and a clock that jumps to the next scheduled call.

Everything here is reactor-free: time is a `task.Clock`, bytes go through fake transports, and
every message a fake client receives is decoded and checked against its declaration.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from grailwar.client.botclient import BotPlayer
from grailwar.client.net import ServerConnection
from grailwar.server.lobby import Lobby
from grailwar.server.protocol import GrailFactory, GrailProtocol
from grailwar.server.store import Store
from grailwar.shared.engine import from_dict
from grailwar.shared.protocol import FEATURES, FrameBuffer, decode, encode, message, validate
from grailwar.shared.updates import apply_update
from twisted.internet.address import IPv4Address
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport
from twisted.test.iosim import FakeTransport, IOPump

_ports = iter(range(20000, 60000))


def tick(clock: Clock, seconds: float) -> None:
    """Move `clock` forward, stopping at each scheduled call on the way, so that a call
    scheduled by another runs at its own time (one `Clock.advance` would run it late)."""
    end = clock.seconds() + seconds
    while True:
        due = min((c.getTime() for c in clock.getDelayedCalls()), default=None)
        if due is None or due > end + 1e-6:  # a float's last bit must not skip a call
            clock.advance(max(0.0, end - clock.seconds()))
            return
        clock.advance(max(0.0, due - clock.seconds()))


def restarted(store: Store, now: float = 0.0) -> tuple[Clock, Lobby]:
    """A new server's lobby restored from `store`, its clock at `now` (the old one's time)."""
    clock = Clock()
    clock.advance(now)
    lobby = Lobby(clock, store)
    lobby.restore()
    return clock, lobby


def peer(host: str = "10.0.0.1") -> IPv4Address:
    return IPv4Address("TCP", host, next(_ports))


class FakeMember:
    """A room member that records every message (each one checked against its declaration)."""

    def __init__(self, name: str = "m", features: tuple[str, ...] = ()) -> None:
        self.name = name
        self.features = frozenset(features)
        self.got: list[dict[str, Any]] = []  # an `update` is kept as the `state` it makes
        self.updates: list[dict[str, Any]] = []  # the `update`s as sent
        self.reasons: list[str] = []

    def send(self, msg: dict[str, Any]) -> None:
        validate(decode(encode(msg)[4:]), "s2c")
        if msg["t"] == "update":
            self.updates.append(msg)
            msg = apply_update(self.last("state"), msg)
        self.got.append(msg)

    def cork(self) -> None:
        """Nothing to hold: every message is recorded as it is sent."""

    def uncork(self) -> None:
        """Nothing held."""

    def left(self, reason: str) -> None:
        self.reasons.append(reason)
        self.send(message("left", reason=reason))

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.got if m["t"] == kind]

    def last(self, kind: str) -> dict[str, Any]:
        found = self.of(kind)
        assert found, f"{self.name} received no {kind!r}; got {[m['t'] for m in self.got]}"
        return found[-1]

    def clear(self) -> None:
        self.got.clear()


class Server:
    """A lobby on a fake clock with an in-memory store (or the rooms of `store`, restored),
    and a factory for its connections."""

    def __init__(self, store: Store | None = None, **lobby_options: Any) -> None:
        self.clock = Clock()
        self.store = store or Store()
        self.lobby = Lobby(self.clock, self.store, **lobby_options)
        if store is not None:
            self.lobby.restore()
        self.factory = GrailFactory(self.lobby, self.clock)

    def wire(self, host: str = "10.0.0.1", name: str | None = None) -> Wire:
        """A connection over a StringTransport; greeted with hello when `name` is given."""
        w = Wire(self, host)
        if name is not None:
            w.send("hello", version=2, name=name)
            assert w.take()[0]["t"] == "welcome"
        return w

    def advance(self, seconds: float) -> None:
        tick(self.clock, seconds)

    def next_call(self) -> float | None:
        """Seconds until the next scheduled call, or None when nothing is scheduled."""
        calls = self.clock.getDelayedCalls()
        if not calls:
            return None
        return max(0.0, min(c.getTime() for c in calls) - self.clock.seconds())


class BufferedTransport(StringTransport):
    """A StringTransport that handles a streaming producer as a TCP transport does: paused
    once more than `buffer_size` bytes wait to be read, resumed when the reader took them all
    (`clear`). A test that never calls `take` is a client that never reads. (Whether the
    transport reads, `producerState`, is the Wire's to honour.)"""

    def __init__(self, peerAddress: IPv4Address, buffer_size: int = 65536) -> None:
        self.buffer_size = buffer_size
        self.paused = False
        super().__init__(peerAddress=peerAddress)

    def write(self, data: bytes) -> None:
        super().write(data)
        if self.producer is not None and not self.paused and \
                len(self.value()) > self.buffer_size:
            self.paused = True
            self.producer.pauseProducing()

    def pauseProducing(self) -> None:
        if not self.disconnecting:  # as TCP: reading stays stopped once closing
            super().pauseProducing()

    def resumeProducing(self) -> None:
        if not self.disconnecting:
            super().resumeProducing()

    def clear(self) -> None:
        super().clear()
        if self.paused:
            self.paused = False
            if self.producer is not None:
                self.producer.resumeProducing()


class Wire:
    """One client connection whose bytes are written straight into the server protocol."""

    def __init__(self, server: Server, host: str) -> None:
        self.server = server
        self.transport = BufferedTransport(peer(host))
        self.proto: GrailProtocol = server.factory.buildProtocol(self.transport.getPeer())
        self.proto.makeConnection(self.transport)
        self.frames = FrameBuffer()
        self.log: list[dict[str, Any]] = []  # every message ever received
        self.unread = b""  # sent while the server does not read this connection

    def raw(self, data: bytes) -> None:
        """Bytes to the server; they wait, as in a socket, while it has paused reading."""
        self.unread += data
        self._deliver()

    def _deliver(self) -> None:
        if self.transport.producerState != "paused" and self.unread:
            data, self.unread = self.unread, b""
            self.proto.dataReceived(data)

    def send(self, name: str, /, **fields: Any) -> None:
        self.raw(encode(message(name, **fields)))

    def send_dict(self, msg: dict[str, Any]) -> None:
        """Any map (even an invalid message), framed."""
        import msgpack

        body = msgpack.packb(msg, use_bin_type=True)
        self.raw(len(body).to_bytes(4, "big") + body)

    def take(self) -> list[dict[str, Any]]:
        """The messages received since the last take, each validated as a server message."""
        data = self.transport.value()
        self.transport.clear()
        self._deliver()  # reading again: what waited is read now
        out = []
        for body in self.frames.feed(data):
            msg = decode(body)
            validate(msg, "s2c")
            out.append(msg)
        self.log.extend(out)
        return out

    def ask(self, name: str, /, **fields: Any) -> list[dict[str, Any]]:
        """Send, and return what came back."""
        self.take()
        self.send(name, **fields)
        return self.take()

    @property
    def closed(self) -> bool:
        return bool(self.transport.disconnecting)

    def lose(self) -> None:
        """The client went away."""
        self.transport.loseConnection()
        self.proto.connectionLost(None)


def kinds(msgs: Iterable[dict[str, Any]]) -> list[str]:
    return [m["t"] for m in msgs]


def one(msgs: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    found = [m for m in msgs if m["t"] == kind]
    assert len(found) == 1, f"expected one {kind!r} in {kinds(msgs)}"
    return found[0]


def error_of(msgs: list[dict[str, Any]]) -> dict[str, Any]:
    return one(msgs, "error")


# --- in-memory client/server pairs -------------------------------------------------------------
class Pair:
    """A `ServerConnection` talking to a `GrailProtocol` through an IOPump."""

    def __init__(self, server: Server, client: ServerConnection, host: str = "10.0.0.9") -> None:
        self.server_proto = server.factory.buildProtocol(None)
        self.client = client
        client.clock = server.clock  # it keeps itself alive as a real client does
        self.server_io = FakeTransport(self.server_proto, isServer=True, peerAddress=peer(host))
        self.client_io = FakeTransport(client, isServer=False)
        self.pump = IOPump(client, self.server_proto, self.client_io, self.server_io, False,
                           clock=None)
        self.server_proto.makeConnection(self.server_io)
        client.makeConnection(self.client_io)
        self.pump.flush()

    def close(self) -> None:
        self.client_io.loseConnection()
        self.pump.flush()


class Recorder:
    """A plain client: records every (validated) server message; with `bot`, it also answers
    every prompt of its seat with that engine bot's choice."""

    def __init__(self, name: str, bot: Any = None, features: tuple[str, ...] = FEATURES) -> None:
        self.got: list[dict[str, Any]] = []
        self.bot = bot
        self.conn = ServerConnection(name, self._message, features=features)

    def _message(self, msg: dict[str, Any]) -> None:
        self.got.append(msg)
        if self.bot is not None and msg["t"] == "state" and msg["legal"]:
            legal = [from_dict(a) for a in msg["legal"]]
            action = self.bot.choose(msg["view"] if self.bot.needs_view else None, legal)
            self.send("act", action=action.to_dict(), state_id=msg["state_id"],
                      ref=msg["state_id"])

    def send(self, name: str, /, **fields: Any) -> None:
        self.conn.send(name, **fields)

    def last(self, kind: str) -> dict[str, Any]:
        found = [m for m in self.got if m["t"] == kind]
        assert found, f"no {kind!r} in {kinds(self.got)}"
        return found[-1]

    def errors(self) -> list[dict[str, Any]]:
        return [m for m in self.got if m["t"] == "error"]


def recording_bot(player: BotPlayer, name: str) -> tuple[ServerConnection, list[dict[str, Any]]]:
    """A BotPlayer's connection whose every received message is also recorded."""
    conn = player.connection(name)
    got: list[dict[str, Any]] = []
    handler = conn.on_message

    def on_message(msg: dict[str, Any]) -> None:
        got.append(msg)
        handler(msg)

    conn.on_message = on_message
    return conn, got


def run(server: Server, pairs: list[Pair], until: Callable[[], bool],
        max_seconds: float = 100_000.0, max_steps: int = 200_000) -> None:
    """Pump every pair until quiet, then jump the clock to its next call; stop when `until()`."""
    start = server.clock.seconds()
    for _ in range(max_steps):
        for p in pairs:
            p.pump.flush()
        if until():
            return
        wait = server.next_call()
        assert wait is not None, "nothing scheduled and the condition never came true"
        assert server.clock.seconds() - start <= max_seconds, "out of (fake) time"
        server.advance(wait)
    raise AssertionError("out of steps")
