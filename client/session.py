"""The client's connection to a server: connect, greet, send, and come back after a loss.

No screen here. Every server message goes to the `ClientModel` and then to the listeners (the
app routes screens from them). A lost connection while seated in a room shows as
"reconnecting" and is retried with growing delays; once the server greets again the seat is
resumed with its token. All of it runs on the reactor, so the frame loop never waits on the
network.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable
from typing import Any

from twisted.internet.defer import Deferred
from twisted.internet.endpoints import (
    HostnameEndpoint,
    TCP4ClientEndpoint,
    TCP6ClientEndpoint,
    connectProtocol,
    wrapClientTLS,
)
from twisted.logger import Logger

from ..shared.protocol import PROTOCOL_VERSION
from .model import ClientModel
from .net import ServerConnection
from .tls import PinStore, Refusal, ServerTrust

log = Logger()
RETRY_DELAYS = (0.3, 0.7, 1.5, 3.0, 5.0)
CONNECT_TIMEOUT = 5


class Session:
    def __init__(self, reactor: Any, model: ClientModel, name: str) -> None:
        self.reactor = reactor
        self.model = model
        self.name = name
        self.proto: ServerConnection | None = None
        self.host = ""
        self.port = 0
        self.closing = False
        self.reconnecting = False
        self.resuming = False
        self.retry_call: Any = None
        self.ref = 0
        self.listeners: list[Callable[[dict[str, Any]], None]] = []
        self.on_welcome: list[Callable[[], None]] = []  # one-shot, run after the next welcome
        self.on_failed: list[Callable[[str], None]] = []
        self.on_refused: list[Callable[[Refusal], None]] = []  # a TLS certificate not accepted
        self.tls = False  # TLS, the certificate checked by `ServerTrust` (pins from `pins`)
        self.pins: PinStore | None = None
        self.trust_root: Any = None  # None: the system's CAs (tests give their own)
        self.trust: ServerTrust | None = None  # the last connection's
        self.sent: list[dict[str, Any]] = []  # every message sent (tests, the tour)
        # A cluster (docs/protocol.md, `redirect`): the address the player gave, to come back
        # to when the server a redirect led to is lost; `following`: a redirect is on its way.
        self.entry: tuple[str, int] | None = None
        self.following = False
        self.entry_tries = 0  # `room_not_found` answers asked again at the entry (`_back_to_entry`)

    # --- connecting -----------------------------------------------------------------------------
    @property
    def connected(self) -> bool:
        return self.proto is not None and self.proto.transport is not None and \
            self.model.connection == "connected"

    @property
    def server(self) -> str:
        return f"{self.host}:{self.port}"

    def endpoint(self, host: str, port: int) -> Any:
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            tcp: Any = HostnameEndpoint(self.reactor, host, port, timeout=CONNECT_TIMEOUT)
        else:
            cls = TCP6ClientEndpoint if address.version == 6 else TCP4ClientEndpoint
            tcp = cls(self.reactor, host, port, timeout=CONNECT_TIMEOUT)
        if not self.tls:
            self.trust = None
            return tcp
        pinned = self.pins.get(f"{host}:{port}") if self.pins is not None else None
        self.trust = ServerTrust(host, pinned, self.trust_root)
        return wrapClientTLS(self.trust, tcp)

    def connect(self, host: str, port: int) -> Deferred:
        if not self.following and not self.reconnecting:
            self.entry = (host, port)
        self.host, self.port = host, port
        self.closing = False
        self.model.host = f"{host}:{port}"
        if not self.reconnecting:
            self.model.connection = "connecting"
        self.model.revision += 1
        proto = ServerConnection(self.name, self._message, self._lost, self.reactor)
        d = connectProtocol(self.endpoint(host, port), proto)
        d.addCallbacks(self._connected, self._failed)
        return d

    def _connected(self, proto: ServerConnection) -> ServerConnection:
        self.proto = proto
        return proto

    def _failed(self, failure: Any) -> None:
        self.proto = None
        if self.following and self.entry is not None:  # the owner died since the directory
            # said where it was: back to the entry, which asks again once greeted
            self.retry_call = self.reactor.callLater(RETRY_DELAYS[1], self.connect, *self.entry)
            return
        if self.reconnecting and not self.closing:
            self._schedule_retry()
            return
        self.model.connection = "offline"
        text = self.model.tr("error.unreachable", host=self.model.host)
        self.model.notify(text)
        for callback in self.on_failed:
            callback(text)
        self.on_welcome.clear()

    def _lost(self, reason: Any = None) -> None:
        self.proto = None
        refusal = self.trust.refusal if self.trust is not None else None
        if refusal is not None and not self.closing:
            self._refused(refusal)
            return
        if self.closing:
            self.model.connection = "offline"
            self.model.revision += 1
            return
        if self.model.token and self.model.room_id is not None:
            self.reconnecting = True
            self.model.connection = "reconnecting"
            self.model.revision += 1
            self._schedule_retry()
            return
        if self.model.connection != "offline":
            self.model.connection = "offline"
            self.model.notify(self.model.tr("error.lost"))
            for callback in self.on_failed:
                callback(self.model.tr("error.lost"))

    def _refused(self, refusal: Refusal) -> None:
        """A certificate not accepted ends the session (a retry would meet the same one); the
        player is told; a listener may offer to pin an untrusted one."""
        self.closing, self.reconnecting = True, False
        self.model.connection = "offline"
        if refusal.kind == "changed":
            text = self.model.tr("tls.changed", server=self.server, pinned=refusal.pinned,
                                 seen=refusal.seen)
        else:
            text = self.model.tr("tls.untrusted", server=self.server, seen=refusal.seen)
        log.error("TLS: {text}", text=text)
        self.model.notify(text)
        for callback in self.on_refused:
            callback(refusal)
        for callback in self.on_failed:
            callback(text)
        self.on_welcome.clear()

    def _schedule_retry(self) -> None:
        self.model.attempt += 1
        self.model.revision += 1
        delay = RETRY_DELAYS[min(self.model.attempt - 1, len(RETRY_DELAYS) - 1)]
        self.retry_call = self.reactor.callLater(delay, self._retry)

    def _retry(self) -> None:
        """Back to the address the player gave: in a cluster, the server that owned the room
        may be the one that is gone, and the entry leads to the room's next owner."""
        self.retry_call = None
        if not self.closing:
            self.connect(*(self.entry or (self.host, self.port)))

    def close(self) -> None:
        """Leave the server on purpose (no reconnecting)."""
        self.closing = True
        self.reconnecting = False
        if self.retry_call is not None and self.retry_call.active():
            self.retry_call.cancel()
        self.retry_call = None
        if self.proto is not None and self.proto.transport is not None:
            self.proto.transport.loseConnection()
        self.model.connection = "offline"

    def drop(self) -> None:
        """Lose the connection as a network failure would (tests, the tour)."""
        if self.proto is not None and self.proto.transport is not None:
            self.proto.transport.abortConnection()

    # --- messages -------------------------------------------------------------------------------
    def _message(self, msg: dict[str, Any]) -> None:
        kind = msg.get("t")
        if kind == "welcome" and msg.get("version") != PROTOCOL_VERSION:
            key = "error.server_old" if msg.get("version", 0) < PROTOCOL_VERSION else \
                "error.server_new"
            self.model.notify(self.model.tr(key, server=msg.get("version"),
                                            client=PROTOCOL_VERSION))
            self.close()
            return
        try:
            self._take(msg, kind)
        except Exception:  # a client bug must not cost the connection (it would drop it)
            log.failure("handling the server message {kind}", kind=kind)

    def _take(self, msg: dict[str, Any], kind: Any) -> None:
        if kind == "redirect":
            self._follow(msg)
            return
        if kind == "left" and msg.get("reason") == "room_moved":  # the seat stands: take it
            room, token = self.model.room_id, self.model.token  # back where the room is now
            self.reactor.callLater(RETRY_DELAYS[0], self.resume, room, token)
            return
        if kind == "error" and msg.get("code") == "room_moving" and self.resuming:
            self.reactor.callLater(RETRY_DELAYS[-2], self.resume, self.model.room_id,
                                   self.model.token)
            return
        if kind == "error" and msg.get("code") == "room_not_found" and self.resuming and \
                self._back_to_entry():
            return
        self.model.handle(msg, time.monotonic())
        if kind == "welcome":
            if self.reconnecting:
                self.reconnecting = False
                self.resume(self.model.room_id, self.model.token)
            callbacks, self.on_welcome = self.on_welcome, []
            for callback in callbacks:
                callback()
        elif kind == "joined" and self.resuming:
            self.resuming = False
            self.entry_tries = 0
            self.model.notify(self.model.tr("net.resumed"), "info")
        elif kind == "error" and self.resuming and msg.get("code") in ("bad_token",
                                                                       "room_not_found"):
            self.resuming = False  # the seat is gone: back to the lobby
            self.model.reset_room()
        for listener in list(self.listeners):
            listener(msg)

    def _back_to_entry(self) -> bool:
        """A server a redirect led to may have given the room up since the directory listed it
        there (it was cut off from the directory, or lost its lease): the seat is asked for
        again at the entry, which knows the room's next owner, a few times before it is given
        up. False: this is the entry, or those tries are spent."""
        if self.entry is None or (self.host, self.port) == self.entry or \
                self.entry_tries >= len(RETRY_DELAYS):
            return False
        delay = RETRY_DELAYS[self.entry_tries]
        self.entry_tries += 1
        host, port = self.entry
        self.retry_call = self.reactor.callLater(delay, self._follow, {"host": host,
                                                                       "port": port})
        return True

    def _follow(self, msg: dict[str, Any]) -> None:
        """The room lives on another server of the cluster: connect there and ask again, with
        nothing shown to the player but the address."""
        request = next((m for m in reversed(self.sent)
                        if m["t"] in ("create_room", "join_room", "resume")), None)
        if request is None:
            return
        self.following = True
        if self.proto is not None and self.proto.transport is not None:
            self.proto.on_lost = None  # the connection a redirect left is no loss
            self.proto.transport.loseConnection()

        def again() -> None:
            self.following = False
            fields = {k: v for k, v in request.items() if k != "t"}
            if request["t"] == "resume":
                self.resume(fields["room"], fields["token"])
            else:
                self.send(request["t"], **fields)

        self.on_welcome.append(again)
        self.connect(msg["host"], msg["port"])

    def resume(self, room: int, token: str) -> bool:
        """Take a seat back with its token (after a lost connection, or a kept seat on start);
        `joined` says it worked, `bad_token`/`room_not_found` that the seat is gone."""
        self.resuming = self.send("resume", room=room, token=token)
        return self.resuming

    def send(self, msg_name: str, /, **fields: Any) -> bool:
        """Send if connected; False (nothing sent) otherwise."""
        if self.proto is None or self.proto.transport is None:
            return False
        self.proto.send(msg_name, **fields)
        self.sent.append({"t": msg_name, **fields})
        del self.sent[:-200]
        return True

    def act(self, action: dict[str, Any]) -> bool:
        """A click's action, on the state it was chosen on; buttons wait for the answer."""
        state_id = self.model.state_id
        if state_id < 0:
            return False
        self.ref += 1
        if self.send("act", action=action, state_id=state_id, ref=self.ref):
            self.model.sent_state_id = state_id
            self.model.revision += 1
            return True
        return False
