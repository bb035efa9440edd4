"""Operator commands over a local UNIX socket: one JSON object per line in, one per line out.

`{"cmd": "status"}` is answered `{"ok": true, "uptime": …}`; a refused command
`{"ok": false, "error": "…"}`. The socket (mode 0600) is the only door: whoever may open it is
the operator. `grailwar admin` is its command-line client (cli/admin.py). By default a SQLite
server's is beside its database, `<db>.admin.sock` (one server per file); a cluster server's
(PostgreSQL) is its process's own, named by its port in the runtime directory
(`grailwar-7707.admin.sock`), since several of them may run in one directory.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from twisted.internet.interfaces import IReactorTime
from twisted.internet.protocol import Factory
from twisted.protocols.basic import LineReceiver

from ..shared.protocol import CLOSED_BY_OPERATOR, MOTD, ProtocolError
from .addresses import normal
from .audit import audit
from .lobby import Lobby
from .protocol import GrailProtocol

ADMIN_SUFFIX = ".admin.sock"
PORT_MARK = "{port}"  # in a socket's path: the port the server listens on, once it does
RUN_DIR = "/run/grailwar"  # systemd's RuntimeDirectory=grailwar


def runtime_dir() -> str:
    """Where a cluster server's socket goes, the same for the server and for `grailwar admin`
    in an operator's shell: systemd's $RUNTIME_DIRECTORY, else /run/grailwar if it exists
    (`RuntimeDirectory=grailwar` made it), else the system's temporary directory."""
    given = os.environ.get("RUNTIME_DIRECTORY")
    if given:
        return given.split(":")[0]
    return RUN_DIR if os.path.isdir(RUN_DIR) else tempfile.gettempdir()


def port_socket(port: int | str) -> str:
    """The socket of the cluster server listening on `port`."""
    return os.path.join(runtime_dir(), f"grailwar-{port}{ADMIN_SUFFIX}")


def default_socket(db: str, store: str | None = None) -> str | None:
    """Beside a SQLite database (none for an in-memory one); a cluster server's (`store`) in
    the runtime directory, named by its port."""
    if store:
        return port_socket(PORT_MARK)
    return None if db == ":memory:" else db + ADMIN_SUFFIX


class AdminError(Exception):
    """A command the operator must correct; the message says how."""


@dataclass(frozen=True)
class Param:
    kinds: tuple[type, ...]
    required: bool = True


ROOM, SEAT, ADDR = Param((int,)), Param((int,)), Param((str,))
COMMANDS: dict[str, dict[str, Param]] = {
    "status": {},
    "rooms": {},
    "kick": {"room": ROOM, "seat": SEAT},
    "ban": {"addr": ADDR, "minutes": Param((int, float), required=False),
            "reason": Param((str,), required=False)},
    "unban": {"addr": ADDR},
    "close": {"room": ROOM},
    "pause": {"room": ROOM},
    "resume": {"room": ROOM},
    "motd": {"text": Param((str,))},
}


def check_arguments(request: Any) -> tuple[str, dict[str, Any]]:
    """The command's name and arguments, each of its declared type (bool is no number)."""
    if not isinstance(request, dict) or request.get("cmd") not in COMMANDS:
        raise AdminError(f"a request is {{\"cmd\": …}} with a cmd among {', '.join(COMMANDS)}")
    name = request["cmd"]
    params = COMMANDS[name]
    args = {k: v for k, v in request.items() if k != "cmd"}
    for key, value in args.items():
        param = params.get(key)
        if param is None:
            raise AdminError(f"{name} takes no {key!r}")
        if isinstance(value, bool) or not isinstance(value, param.kinds):
            kinds = " or ".join(k.__name__ for k in param.kinds)
            raise AdminError(f"{name}: {key} must be {kinds}")
    missing = [k for k, p in params.items() if p.required and k not in args]
    if missing:
        raise AdminError(f"{name} needs {', '.join(missing)}")
    return name, args


class Operator:
    """The commands themselves, on the lobby; `connections` lists the live client connections."""

    def __init__(self, lobby: Lobby, connections: Callable[[], Iterable[GrailProtocol]],
                 clock: IReactorTime) -> None:
        self.lobby = lobby
        self.connections = connections
        self.clock = clock
        self.started = clock.seconds()

    def run(self, request: Any) -> dict[str, Any]:
        """One request answered; nothing it holds can raise out of here but a server bug."""
        try:
            name, args = check_arguments(request)
            return {"ok": True, **getattr(self, "cmd_" + name)(**args)}
        except AdminError as err:
            return {"ok": False, "error": str(err)}
        except ProtocolError as err:
            return {"ok": False, "error": err.message}

    def cmd_status(self) -> dict[str, Any]:
        summaries = [room.summary() for room in self.lobby.rooms.values()]
        return {"uptime": self.clock.seconds() - self.started, "rooms": len(summaries),
                "connections": len(list(self.connections())),
                **{key: sum(s[key] for s in summaries)
                   for key in ("players", "spectators", "bots")},
                "quarantined": len(self.lobby.quarantined), "bans": len(self.lobby.bans.active()),
                "motd": self.lobby.motd}

    def cmd_rooms(self) -> dict[str, Any]:
        rooms = []
        for room in self.lobby.rooms.values():
            summary, owner = room.summary(), room.seats[room.owner]
            rooms.append({key: summary[key] for key in (
                "id", "name", "started", "over", "paused", "players", "bots", "spectators")}
                | {"owner": owner.name if owner.kind == "human" else ""})
        return {"rooms": rooms}

    def cmd_kick(self, room: int, seat: int) -> dict[str, Any]:
        self.lobby.kick(room, seat)
        return {}

    def cmd_ban(self, addr: str, minutes: float | None = None,
                reason: str = "") -> dict[str, Any]:
        if minutes is not None and minutes <= 0:
            raise AdminError("ban: minutes must be more than 0 (leave it out: until unbanned)")
        addr = normal(addr)
        until = self.lobby.bans.add(addr, minutes, reason)
        audit("ban", addr=addr, until=until, reason=reason)
        dropped = [p for p in self.connections() if p.address == addr]
        for proto in dropped:
            proto.transport.loseConnection()
        return {"until": until, "dropped": len(dropped)}

    def cmd_unban(self, addr: str) -> dict[str, Any]:
        addr = normal(addr)
        if not self.lobby.bans.remove(addr):
            raise AdminError(f"{addr} is not banned")
        audit("unban", addr=addr)
        return {}

    def cmd_close(self, room: int) -> dict[str, Any]:
        self.lobby.close(room, CLOSED_BY_OPERATOR)
        return {}

    def cmd_pause(self, room: int) -> dict[str, Any]:
        self.lobby.pause(room)
        return {}

    def cmd_resume(self, room: int) -> dict[str, Any]:
        self.lobby.resume(room)
        return {}

    def cmd_motd(self, text: str) -> dict[str, Any]:
        """Set (or with "" clear) the line every `welcome` carries from now on."""
        text = text.strip()
        if text:
            MOTD.check("motd", text)  # what a client accepts: a line of at most 300 characters
        self.lobby.motd = text
        self.lobby.store.save_motd(text)
        audit("motd", text=self.lobby.motd)
        return {"motd": self.lobby.motd}


class AdminProtocol(LineReceiver):
    """JSON lines: each request line gets one answer line."""

    delimiter = b"\n"
    operator: Operator

    def lineReceived(self, line: bytes) -> None:
        try:
            request = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            answer = {"ok": False, "error": "a request is one JSON object on one line"}
        else:
            answer = self.operator.run(request)
        self.sendLine(json.dumps(answer, ensure_ascii=False).encode("utf-8"))

    def lineLengthExceeded(self, line: bytes) -> None:
        self.sendLine(b'{"ok": false, "error": "request line too long"}')
        self.transport.loseConnection()


class AdminFactory(Factory):
    noisy = False  # the audit log says what the operator did

    def __init__(self, operator: Operator) -> None:
        self.operator = operator

    def buildProtocol(self, addr: Any) -> AdminProtocol:
        proto = AdminProtocol()
        proto.operator = self.operator
        proto.factory = self
        return proto
