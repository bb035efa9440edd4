"""The client side of the wire: frames in and out, and a callback per server message.

Used by the desktop client and by headless network bots; it knows no screen and no rules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from twisted.internet.protocol import Protocol

from ..shared.protocol import (
    PROTOCOL_VERSION,
    FrameBuffer,
    ProtocolError,
    decode,
    encode,
    message,
    validate,
)


class ServerConnection(Protocol):
    """Sends hello on connect; hands every decoded server message to `on_message`."""

    def __init__(self, name: str, on_message: Callable[[dict[str, Any]], None],
                 on_lost: Callable[[Any], None] | None = None) -> None:
        self.name = name
        self.on_message = on_message
        self.on_lost = on_lost
        self.frames = FrameBuffer()
        self.fault: ProtocolError | None = None  # why this side closed the connection

    def connectionMade(self) -> None:
        self.send("hello", version=PROTOCOL_VERSION, name=self.name)

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
                self.on_message(msg)
        except ProtocolError as err:
            self.fault = err
            self.transport.loseConnection()

    def connectionLost(self, reason: Any = None) -> None:
        if self.on_lost is not None:
            self.on_lost(reason)
