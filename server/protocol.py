"""The wire side of the server: framing → validation → `msg_<name>` handlers → lobby and rooms.

A handler never lets an exception out: protocol faults become `error` replies (fatal ones close
the connection), anything else is logged and answered with a generic error, and the rooms of
other connections are never touched by it.
"""

from __future__ import annotations

import socket
from typing import Any

from twisted.internet.interfaces import IDelayedCall, IPushProducer, IReactorTime
from twisted.internet.protocol import Factory, Protocol
from twisted.logger import Logger
from zope.interface import implementer

from ..shared.protocol import (
    MESSAGES,
    PROTOCOL_VERSION,
    FrameBuffer,
    ProtocolError,
    decode,
    encode,
    message,
    no_delay,
    validate,
)
from .addresses import normal, peer_address, within
from .audit import audit
from .limits import RateLimit
from .lobby import Elsewhere, Lobby
from .proxyheader import BadProxyHeader, parse, starts_like_one
from .room import Room
from .writes import plain_socket, write

log = Logger()
SERVER_NAME = "grailwar"
CLOSE_GRACE = 5.0  # seconds a closing connection gets to take its last bytes before it is cut


# A table talks in bursts: a player may say 8 lines at once, then one a second.
CHAT_BURST = 8


@implementer(IPushProducer)
class GrailProtocol(Protocol):
    """One client connection.

    It is the push producer of its own transport, so Twisted says when the socket's buffer is
    full (`pauseProducing`) and when it has drained (`resumeProducing`). Meanwhile the client is
    not read either (its requests wait in its own socket and cost the server nothing), and what
    its rooms write is counted: a client that lets more than the lobby's `max_queued` bytes pile
    up is cut (`too_slow`), as any dropped member. The server's memory and CPU do not depend on
    how fast its clients read.
    """

    def __init__(self, lobby: Lobby, clock: IReactorTime) -> None:
        self.lobby = lobby
        self.clock = clock
        self.frames = FrameBuffer()
        self.sock: socket.socket | None = None  # a plain socket's, while written to at once
        self.name = ""
        self.features: frozenset[str] = frozenset()
        self.greeted = False
        self.room: Room | None = None
        self.address = ""
        self.proxied: bytes | None = None  # from a trusted proxy: its header's bytes so far
        self.counted = False
        self.closing = False  # a fatal error was sent: nothing more is read
        self.producing = False  # registered as the transport's producer
        self.paused = False  # the transport's buffer is full
        self.queued = 0  # bytes written since it was
        self.corked: list[bytes] | None = None  # frames held for one write (`cork`)
        self.last_frame = clock.seconds()
        self.timers: dict[str, IDelayedCall] = {}
        self.chat_limit = RateLimit(clock, 1, 1.0, burst=CHAT_BURST)
        self.message_limit = RateLimit(clock, 20, 1.0)
        # Messages that hash a secret (scrypt, ~20 ms) are limited further.
        self.join_limit = RateLimit(clock, 5, 10.0)

    # --- connection ---------------------------------------------------------------------------
    def connectionMade(self) -> None:
        self.sock = plain_socket(self.transport)  # written to at once (`writes.write`)
        self.address = peer_address(self.transport.getPeer())
        no_delay(self.transport)
        self.producing = hasattr(self.transport, "registerProducer")
        if self.producing:
            self.transport.registerProducer(self, True)
        if within(self.address, self.lobby.trusted_proxies):  # its header names the client
            self.proxied = b""
            self._arm("handshake", self.lobby.handshake_timeout, self._handshake_over)
            return
        self._admit()

    def _admit(self) -> None:
        """The connection counts for its address from now on (refused past its limit)."""
        try:
            self.lobby.connect(self.address)
            self.counted = True
            audit("connect", addr=self.address)
        except ProtocolError as err:
            audit("refused", addr=self.address, why=err.code)
            self.fail(err)
            return
        self.last_frame = self.clock.seconds()
        if "handshake" not in self.timers:  # (a proxied one's runs from connecting)
            self._arm("handshake", self.lobby.handshake_timeout, self._handshake_over)
        self._arm("idle", self.lobby.idle_timeout, self._idle_check)

    def connectionLost(self, reason: Any = None) -> None:
        for call in self.timers.values():
            if call.active():
                call.cancel()
        self.timers.clear()
        if self.counted:
            self.counted = False
            if self.room is not None:
                self._audit_seat("drop", self.room)
            self.lobby.disconnect(self.address, self, self.room)
            audit("disconnect", addr=self.address, name=self.name)
        self.room = None

    def send(self, msg: dict[str, Any]) -> None:
        """Written to the socket at once (`writes.write`), or held while corked."""
        if self.transport is None or self.closing:
            return
        data = encode(msg)
        if self.paused:
            self.queued += len(data)
            if self.queued > self.lobby.max_queued:
                self.fail(ProtocolError("too_slow", f"more than {self.lobby.max_queued} bytes "
                                        "waited for this client to read them"))
                return
        if self.corked is None:
            self.sock = write(self.transport, self.sock, data)
        else:
            self.corked.append(data)

    def cork(self) -> None:
        """Hold what is sent until `uncork`: a broadcast's messages to this member (its events,
        its view) leave in one write, one system call."""
        if self.corked is None:
            self.corked = []

    def uncork(self) -> None:
        held, self.corked = self.corked, None
        if held and self.transport is not None and not self.closing:
            self.sock = write(self.transport, self.sock, b"".join(held))

    # --- flow control (IPushProducer) -------------------------------------------------------
    def pauseProducing(self) -> None:
        self.paused = True
        self.transport.pauseProducing()  # stop reading a client that does not read

    def resumeProducing(self) -> None:
        self.paused = False
        self.queued = 0
        if not self.closing:
            self.transport.resumeProducing()

    def stopProducing(self) -> None:
        self.closing = True

    # --- timeouts -----------------------------------------------------------------------------
    def _arm(self, name: str, delay: float, then: Any) -> None:
        self.timers[name] = self.clock.callLater(delay, then)

    def _handshake_over(self) -> None:
        if not self.greeted:
            self.fail(ProtocolError("timeout", f"no hello within "
                                    f"{self.lobby.handshake_timeout:g} seconds"))

    def _idle_check(self) -> None:
        """One timer per connection, moved on only when it fires (not on every frame)."""
        left = self.last_frame + self.lobby.idle_timeout - self.clock.seconds()
        if left > 0:
            self._arm("idle", left, self._idle_check)
        else:
            self.fail(ProtocolError("timeout", f"no message for "
                                    f"{self.lobby.idle_timeout:g} seconds"))

    def _cut(self) -> None:
        if self.transport is not None and self.connected:
            self.transport.abortConnection()

    def left(self, reason: str) -> None:
        """The room let this connection go (kicked, its seat resumed elsewhere, closed)."""
        self.room = None
        self.send(message("left", reason=reason))

    def fail(self, err: ProtocolError, ref: int | None = None) -> None:
        fields: dict[str, Any] = {"code": err.code, "message": err.message}
        if err.field is not None:
            fields["field"] = err.field
        if ref is not None:
            fields["ref"] = ref
        if not err.fatal:
            self.send(message("error", **fields))
            return
        if self.closing:
            return
        self.closing = True  # the error goes out past the cap: the client is told why
        self.sock = write(self.transport, self.sock, encode(message("error", **fields)))
        if self.producing:  # a registered producer would hold the connection open
            self.producing = False
            self.transport.unregisterProducer()
        self.transport.loseConnection()
        self._arm("close", CLOSE_GRACE, self._cut)  # a client that never reads it is cut

    # --- framing and dispatch -----------------------------------------------------------------
    def dataReceived(self, data: bytes) -> None:
        if self.closing:  # bytes that arrived behind a fatal error are never read
            return
        if self.proxied is not None:
            data = self._proxy_header(data)
            if not data:
                return
        elif not self.greeted and not self.frames.buffer and starts_like_one(data):
            self.fail(ProtocolError("bad_frame", "a PROXY header from an address that is "
                                    "not a trusted proxy (the server's --trusted-proxies)"))
            return
        try:
            bodies = self.frames.feed(data)
        except ProtocolError as err:
            self.fail(err)
            return
        if bodies:
            self.last_frame = self.clock.seconds()
        for body in bodies:
            if self.closing or not self.connected:
                return
            self.handle(body)

    def _proxy_header(self, data: bytes) -> bytes:
        """A trusted proxy's connection: its header first, then the client's own bytes. The
        client's address replaces the proxy's, and the connection is admitted (or refused:
        a ban, its address's limits) as a direct one would be; a proxy speaking for itself
        (v2 LOCAL, v1 UNKNOWN: a health check) keeps its own address."""
        assert self.proxied is not None
        buffered = self.proxied + data
        try:
            found = parse(buffered)
        except BadProxyHeader as err:
            self.fail(ProtocolError("bad_frame", f"from a trusted proxy: {err}"))
            return b""
        if found is None:
            self.proxied = buffered
            return b""
        client, length = found
        self.proxied = None
        if client is not None:
            self.address = normal(client)
            if self.lobby.turns_away(self.address, via="proxy"):
                self.closing = True
                self.transport.loseConnection()
                return b""
        self._admit()
        return b"" if self.closing else buffered[length:]

    def handle(self, body: bytes) -> None:
        ref = None
        try:
            msg = decode(body)
            if isinstance(msg, dict) and type(msg.get("ref")) is int:
                ref = msg["ref"]
            try:
                spec, fault = validate(msg), None
            except ProtocolError as err:
                if err.fatal:  # not a message at all: the connection closes whatever the rate
                    raise
                spec, fault = None, err
            if not self.message_limit.allow():  # refused messages count too
                raise ProtocolError("rate_limited", "too many messages per second")
            if fault is not None:
                raise fault
            assert spec is not None
            if not self.greeted and spec.name != "hello":
                raise ProtocolError("hello_first", "the first message must be hello")
            getattr(self, "msg_" + spec.name)(msg)
        except ProtocolError as err:
            self.fail(err, ref)
        except Elsewhere as moved:  # a room of another server of the cluster: go there
            host, _, port = moved.address.rpartition(":")
            self.send(message("redirect", host=host, port=int(port), room=moved.room))
        except Exception:  # a server bug must cost this message only, never the room
            log.failure("handling a message")
            self.send(message("error", code="internal_error", message="the server could not "
                              "handle that message", **({"ref": ref} if ref is not None else {})))

    # --- handlers ---------------------------------------------------------------------------------
    def msg_hello(self, msg: dict[str, Any]) -> None:
        if msg["version"] != PROTOCOL_VERSION:
            raise ProtocolError("version_mismatch", f"this server speaks protocol version "
                                f"{PROTOCOL_VERSION}, the client {msg['version']}")
        self.name = msg["name"]
        self.features = frozenset(msg.get("features", ()))
        self.greeted = True
        handshake = self.timers.pop("handshake", None)
        if handshake is not None and handshake.active():
            handshake.cancel()
        audit("hello", addr=self.address, name=self.name)
        motd = {"motd": self.lobby.motd} if self.lobby.motd else {}
        self.send(message("welcome", version=PROTOCOL_VERSION, server=SERVER_NAME, **motd))

    def msg_ping(self, msg: dict[str, Any]) -> None:
        self.send(message("pong"))

    def msg_list_rooms(self, msg: dict[str, Any]) -> None:
        rooms, total = self.lobby.list(msg.get("offset", 0))
        self.send(message("rooms", rooms=rooms, total=total))

    def _not_in_room(self) -> None:
        if self.room is not None:
            raise ProtocolError("already_in_room", "leave your room first")

    def _in_room(self) -> Room:
        if self.room is None:
            raise ProtocolError("not_in_room", "you are in no room")
        return self.room

    def _limit_joins(self) -> None:
        """Per connection, then per address (which a reconnect does not reset)."""
        if not self.join_limit.allow():
            raise ProtocolError("rate_limited", "at most 5 room joins per 10 seconds")
        self.lobby.join_limit.check(self.address)

    def msg_create_room(self, msg: dict[str, Any]) -> None:
        self._not_in_room()
        self._limit_joins()
        self.lobby.create_limit.check(self.address)
        options = {k: v for k, v in msg.items() if k not in ("t", "name", "password", "cls")}
        room = self.lobby.create(msg["name"], options, msg.get("password"), self.address)
        self._join(room, msg.get("cls"))

    def msg_join_room(self, msg: dict[str, Any]) -> None:
        self._not_in_room()
        self._limit_joins()
        room = self.lobby.room(msg["room"])
        self.lobby.check_password(room, msg.get("password"), self.address)
        if msg.get("spectator"):
            self.room = room
            room.join_spectator(self)
            self._audit_seat("join", room)
        else:
            self._join(room, msg.get("cls"))

    def _join(self, room: Room, cls: str | None) -> None:
        """The room answers `joined` itself, before anything else it sends to this member."""
        room.join_player(self, cls)
        self.room = room
        self._audit_seat("join", room)

    def msg_resume(self, msg: dict[str, Any]) -> None:
        self._not_in_room()
        self._limit_joins()
        room = self.lobby.room(msg["room"])
        room.resume(self, msg["token"])
        self.room = room
        self._audit_seat("resume", room)

    def _audit_seat(self, event: str, room: Room) -> None:
        """This connection's seat in `room` (-1: a spectator) at a join, resume, leave, drop."""
        seat = room.seat_of(self)
        audit(event, room=room.id, seat=-1 if seat is None else seat, addr=self.address,
              name=self.name)

    def msg_leave_room(self, msg: dict[str, Any]) -> None:
        room = self._in_room()
        self._audit_seat("leave", room)
        self.room = None
        self.send(message("left", reason=self.lobby.leave(self, room)))

    def msg_choose_class(self, msg: dict[str, Any]) -> None:
        self._in_room().choose_class(self, msg["cls"])

    def msg_choose_servant(self, msg: dict[str, Any]) -> None:
        self._in_room().choose_servant(self, msg["servant"])

    def _owned_room(self) -> Room:
        room = self._in_room()
        room.require_owner(self)
        return room

    def msg_add_bot(self, msg: dict[str, Any]) -> None:
        self._owned_room().add_bot(msg["cls"], msg.get("level"))

    def msg_bot_level(self, msg: dict[str, Any]) -> None:
        self._owned_room().set_bot_level(msg["level"])

    def msg_remove_bot(self, msg: dict[str, Any]) -> None:
        self._owned_room().remove_bot(msg["seat"])

    def msg_kick(self, msg: dict[str, Any]) -> None:
        self._owned_room().kick(msg["seat"])

    def msg_ready(self, msg: dict[str, Any]) -> None:
        self._in_room().set_ready(self, msg["ready"])

    def msg_start(self, msg: dict[str, Any]) -> None:
        self._owned_room().start()

    def msg_pause_room(self, msg: dict[str, Any]) -> None:
        self._owned_room().pause(self.name)

    def msg_resume_room(self, msg: dict[str, Any]) -> None:
        room = self._in_room()
        if not room.may_resume(self):
            raise ProtocolError("not_owner", "only the room's owner (or, while the owner is "
                                "away, a seated player) may resume the game")
        room.resume_game(self.name)

    def msg_chat(self, msg: dict[str, Any]) -> None:
        room = self._in_room()
        if not self.chat_limit.allow():
            raise ProtocolError("rate_limited", f"at most {CHAT_BURST} chat lines at once, "
                                "then one a second")
        room.chat(self, msg["text"], msg.get("channel", "room"), msg.get("to"))

    def msg_act(self, msg: dict[str, Any]) -> None:
        room = self._in_room()
        ref = msg.get("ref", 0)
        room.act(self, msg["action"], msg["state_id"],
                 lambda state_id: self.send(message("ack", ref=ref, state_id=state_id)),
                 lambda err: self.fail(err, ref))


assert {m.name for m in MESSAGES.values() if m.direction == "c2s"} == {
    name[4:] for name in dir(GrailProtocol) if name.startswith("msg_")
}, "every client message has exactly one handler"


class GrailFactory(Factory):
    def __init__(self, lobby: Lobby, clock: IReactorTime) -> None:
        self.lobby = lobby
        self.clock = clock

    def buildProtocol(self, addr: Any) -> GrailProtocol | None:
        """A connection from a banned address, or one past its address's rate of new
        connections, is refused (closed before a byte is read)."""
        host = peer_address(addr)  # (a trusted proxy's are checked once its header names them)
        if not within(host, self.lobby.trusted_proxies) and self.lobby.turns_away(host):
            return None
        proto = GrailProtocol(self.lobby, self.clock)
        proto.factory = self
        return proto
