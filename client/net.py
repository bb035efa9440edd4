"""The client side of the wire: frames in and out, and a callback per server message.

Used by the desktop client and by headless network bots; it knows no screen and no rules.
Given a clock, it pings every KEEPALIVE seconds, so a client that only waits (in the lobby, or
for others to play) is not taken for a dead one by the server's idle timeout.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from twisted.internet.interfaces import IReactorTime
from twisted.internet.protocol import Protocol
from twisted.internet.task import LoopingCall

from ..shared.protocol import (
    FEATURES,
    PROTOCOL_VERSION,
    FrameBuffer,
    ProtocolError,
    decode,
    encode,
    message,
    no_delay,
    validate,
)
from ..shared.updates import apply_update

KEEPALIVE = 30.0  # seconds between pings; the server closes a connection silent for 120 s


class ServerConnection(Protocol):
    """Sends hello on connect; hands every decoded server message to `on_message`."""

    def __init__(self, name: str, on_message: Callable[[dict[str, Any]], None],
                 on_lost: Callable[[Any], None] | None = None,
                 clock: IReactorTime | None = None, features: tuple[str, ...] = FEATURES) -> None:
        self.name = name
        self.features = features
        self.on_message = on_message
        self.on_lost = on_lost
        self.clock = clock
        self.keepalive: LoopingCall | None = None
        self.frames = FrameBuffer()
        self.fault: ProtocolError | None = None  # why this side closed the connection
        self.last_state: dict[str, Any] | None = None  # what the next `update` applies to

    def connectionMade(self) -> None:
        no_delay(self.transport)
        self.send("hello", version=PROTOCOL_VERSION, name=self.name,
                  features=list(self.features))
        if self.clock is not None:
            self.keepalive = LoopingCall(self.send, "ping")
            self.keepalive.clock = self.clock
            self.keepalive.start(KEEPALIVE, now=False)

    def send(self, msg_name: str, /, **fields: Any) -> None:
        self.transport.write(encode(message(msg_name, **fields)))

    def dataReceived(self, data: bytes) -> None:
        """Each server message is checked against its declaration before it is handed on; a
        server that sends something undeclared is dropped (`fault` says why)."""
        if self.fault is not None:
            return
        try:
            for body in self.frames.feed(data):
                msg = decode(body)
                validate(msg, "s2c")
                if msg["t"] == "update":
                    msg = apply_update(self.last_state, msg)
                if msg["t"] == "state":
                    self.last_state = msg
                self.on_message(msg)
        except ProtocolError as err:
            self.fault = err
            self.transport.loseConnection()

    def connectionLost(self, reason: Any = None) -> None:
        if self.keepalive is not None and self.keepalive.running:
            self.keepalive.stop()
        if self.on_lost is not None:
            self.on_lost(reason)
