"""The wire side of the server: framing → validation → `msg_<name>` handlers → lobby and rooms.

A handler never lets an exception out: protocol faults become `error` replies (fatal ones close
the connection), anything else is logged and answered with a generic error, and the rooms of
other connections are never touched by it.
"""

from __future__ import annotations

from typing import Any

from twisted.internet.interfaces import IReactorTime
from twisted.internet.protocol import Factory, Protocol
from twisted.logger import Logger

from ..shared.protocol import (
    MESSAGES,
    PROTOCOL_VERSION,
    FrameBuffer,
    ProtocolError,
    decode,
    encode,
    message,
    validate,
)
from .audit import audit
from .lobby import Lobby
from .room import Room

log = Logger()
SERVER_NAME = "grailwar"


# A table talks in bursts: a player may say 8 lines at once, then one a second.
CHAT_BURST = 8


class RateLimit:
    """A token bucket: `rate` messages per `per` seconds, with bursts up to `burst` (by
    default `rate`)."""

    def __init__(self, clock: IReactorTime, rate: float, per: float,
                 burst: float | None = None) -> None:
        self.clock = clock
        self.rate = rate
        self.per = per
        self.burst = rate if burst is None else burst
        self.tokens = self.burst
        self.stamp = clock.seconds()

    def allow(self) -> bool:
        now = self.clock.seconds()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate / self.per)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class GrailProtocol(Protocol):
    """One client connection."""

    def __init__(self, lobby: Lobby, clock: IReactorTime) -> None:
        self.lobby = lobby
        self.clock = clock
        self.frames = FrameBuffer()
        self.name = ""
        self.greeted = False
        self.room: Room | None = None
        self.address = ""
        self.counted = False
        self.closing = False  # a fatal error was sent: nothing more is read
        self.chat_limit = RateLimit(clock, 1, 1.0, burst=CHAT_BURST)
        self.message_limit = RateLimit(clock, 20, 1.0)
        # Messages that hash a secret (scrypt, ~20 ms) are limited further.
        self.join_limit = RateLimit(clock, 5, 10.0)

    # --- connection ---------------------------------------------------------------------------
    def connectionMade(self) -> None:
        peer = self.transport.getPeer()
        self.address = getattr(peer, "host", str(peer))
        try:
            self.lobby.connect(self.address)
            self.counted = True
            audit("connect", addr=self.address)
        except ProtocolError as err:
            audit("refused", addr=self.address, why=err.code)
            self.fail(err)

    def connectionLost(self, reason: Any = None) -> None:
        if self.counted:
            self.counted = False
            if self.room is not None:
                self._audit_seat("drop", self.room)
            self.lobby.disconnect(self.address, self, self.room)
            audit("disconnect", addr=self.address, name=self.name)
        self.room = None

    def send(self, msg: dict[str, Any]) -> None:
        if self.transport is not None and not self.closing:
            self.transport.write(encode(msg))

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
        self.send(message("error", **fields))
        if err.fatal:
            self.closing = True
            self.transport.loseConnection()

    # --- framing and dispatch -----------------------------------------------------------------
    def dataReceived(self, data: bytes) -> None:
        if self.closing:  # bytes that arrived behind a fatal error are never read
            return
        try:
            bodies = self.frames.feed(data)
        except ProtocolError as err:
            self.fail(err)
            return
        for body in bodies:
            if self.closing or not self.connected:
                return
            self.handle(body)

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
        self.greeted = True
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
        if not self.join_limit.allow():
            raise ProtocolError("rate_limited", "at most 5 room joins per 10 seconds")

    def msg_create_room(self, msg: dict[str, Any]) -> None:
        self._not_in_room()
        self._limit_joins()
        options = {k: v for k, v in msg.items() if k not in ("t", "name", "password", "cls")}
        room = self.lobby.create(msg["name"], options, msg.get("password"), self.address)
        self._join(room, msg.get("cls"))

    def msg_join_room(self, msg: dict[str, Any]) -> None:
        self._not_in_room()
        self._limit_joins()
        room = self.lobby.room(msg["room"])
        room.check_password(msg.get("password"))
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
        self.lobby.leave(self, room)
        self.send(message("left", reason="left"))

    def msg_choose_class(self, msg: dict[str, Any]) -> None:
        self._in_room().choose_class(self, msg["cls"])

    def msg_choose_servant(self, msg: dict[str, Any]) -> None:
        self._in_room().choose_servant(self, msg["servant"])

    def _owned_room(self) -> Room:
        room = self._in_room()
        room.require_owner(self)
        return room

    def msg_add_bot(self, msg: dict[str, Any]) -> None:
        self._owned_room().add_bot(msg["cls"], msg.get("level", "normal"))

    def msg_remove_bot(self, msg: dict[str, Any]) -> None:
        self._owned_room().remove_bot(msg["seat"])

    def msg_kick(self, msg: dict[str, Any]) -> None:
        self._owned_room().kick(msg["seat"])

    def msg_ready(self, msg: dict[str, Any]) -> None:
        self._in_room().set_ready(self, msg["ready"])

    def msg_start(self, msg: dict[str, Any]) -> None:
        self._owned_room().start()

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
                 lambda state_id: self.send(message("ack", ref=ref, state_id=state_id)))


assert {m.name for m in MESSAGES.values() if m.direction == "c2s"} == {
    name[4:] for name in dir(GrailProtocol) if name.startswith("msg_")
}, "every client message has exactly one handler"


class GrailFactory(Factory):
    def __init__(self, lobby: Lobby, clock: IReactorTime) -> None:
        self.lobby = lobby
        self.clock = clock

    def buildProtocol(self, addr: Any) -> GrailProtocol | None:
        """A connection from a banned address is refused (closed before a byte is read)."""
        host = getattr(addr, "host", None)
        if host is not None and self.lobby.bans.refuses(host):
            audit("refused", addr=host, why="banned")
            return None
        proto = GrailProtocol(self.lobby, self.clock)
        proto.factory = self
        return proto
