"""`grailwar admin`: talk to a running server over its operator socket (`server/admin.py`).

A plain blocking socket: one JSON request line out, one answer line back, printed for a person
(or raw with `--json`). Exit code 1 when the server refused the command or could not be reached.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import time
from pathlib import Path
from typing import Any

TIMEOUT = 10.0  # seconds to wait for the server's answer


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("admin", help="operator commands to a running server")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--socket", metavar="PATH", help="the server's admin socket")
    where.add_argument("--db", default="grailwar.db",
                       help="the server's database: its socket is <db>.admin.sock")
    where.add_argument("--port", type=int, help="the cluster server (--store) listening on this "
                       "port: its socket is grailwar-PORT.admin.sock in the runtime directory")
    p.add_argument("--json", action="store_true", help="print the raw JSON answer")
    cmds = p.add_subparsers(dest="cmd", required=True)
    cmds.add_parser("status", help="uptime, rooms, connections, players, spectators, bots")
    cmds.add_parser("rooms", help="one line per room")
    kick = cmds.add_parser("kick", help="kick a seat's player (a bot plays the seat)")
    kick.add_argument("room", type=int)
    kick.add_argument("seat", type=int)
    ban = cmds.add_parser("ban", help="refuse an address (its connections are dropped)")
    ban.add_argument("addr")
    ban.add_argument("--minutes", type=float, help="the ban ends after this (default: never)")
    ban.add_argument("--reason", default="", help="kept with the ban, for the operators")
    cmds.add_parser("unban", help="lift an address's ban").add_argument("addr")
    cmds.add_parser("close", help="end a room (its members are told)").add_argument(
        "room", type=int)
    cmds.add_parser("pause", help="pause a room's game (its timers stop; kept until resumed)"
                    ).add_argument("room", type=int)
    cmds.add_parser("resume", help="resume a paused game").add_argument("room", type=int)
    cmds.add_parser("motd", help="the message of the day new connections get ('' clears it)"
                    ).add_argument("text")
    p.set_defaults(run=run)


def request_of(args: argparse.Namespace) -> dict[str, Any]:
    """The command's JSON request: its name and the arguments given."""
    fields = {k: getattr(args, k) for k in ("room", "seat", "addr", "minutes", "reason", "text")
              if getattr(args, k, None) is not None}
    return {"cmd": args.cmd, **fields}


def ask(path: str, request: dict[str, Any], timeout: float = TIMEOUT) -> dict[str, Any]:
    """Send one request line to the socket at `path` and read its answer line."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(timeout)
        conn.connect(path)
        conn.sendall(json.dumps(request).encode() + b"\n")
        answer = b""
        while not answer.endswith(b"\n"):
            chunk = conn.recv(65536)
            if not chunk:
                break
            answer += chunk
    return json.loads(answer)


def describe(cmd: str, answer: dict[str, Any]) -> str:
    """The answer for a person to read."""
    if not answer.get("ok"):
        return f"refused: {answer.get('error')}"
    if cmd == "status":
        motd = f"\nmotd: {answer['motd']}" if answer.get("motd") else ""
        return (f"up {duration(answer['uptime'])}, {answer['rooms']} room(s) "
                f"({answer['quarantined']} quarantined), {answer['connections']} connection(s), "
                f"{answer['players']} player(s), {answer['spectators']} spectator(s), "
                f"{answer['bots']} bot(s), {answer['bans']} ban(s){motd}")
    if cmd == "rooms":
        return "\n".join(_room_line(room) for room in answer["rooms"]) or "no room"
    if cmd == "ban":
        until = answer["until"]
        ends = "until unbanned" if until is None else "until " + time.strftime(
            "%Y-%m-%d %H:%M:%S UTC", time.gmtime(until))
        return f"banned {ends}; {answer['dropped']} connection(s) dropped"
    if cmd == "motd":
        return f"motd: {answer['motd']}" if answer["motd"] else "no motd"
    return "done"


def duration(seconds: float) -> str:
    """`2 d 3 h 5 min`, leaving out the larger units that are 0 (`5 min`, `0 min`)."""
    minutes = int(seconds // 60)
    parts = [(minutes // 1440, "d"), (minutes // 60 % 24, "h"), (minutes % 60, "min")]
    while len(parts) > 1 and parts[0][0] == 0:
        parts.pop(0)
    return " ".join(f"{n} {unit}" for n, unit in parts)


def _room_line(room: dict[str, Any]) -> str:
    stage = "over" if room["over"] else "paused" if room.get("paused") else \
        "started" if room["started"] else "waiting"
    return (f"{room['id']:>6}  {room['name']}  [{stage}]  {room['players']} player(s), "
            f"{room['bots']} bot(s), {room['spectators']} spectator(s), owner "
            f"{room['owner'] or '-'}")


def run(args: argparse.Namespace) -> int:
    from ..server.admin import ADMIN_SUFFIX, port_socket

    path = args.socket or (port_socket(args.port) if args.port else args.db + ADMIN_SUFFIX)
    try:
        answer = ask(path, request_of(args))
    except (OSError, ValueError) as err:
        print(f"no answer from the server's admin socket {path}: {err}{hint(args)}",
              file=sys.stderr)
        return 1
    print(json.dumps(answer, ensure_ascii=False) if args.json else describe(args.cmd, answer))
    return 0 if answer.get("ok") else 1


def hint(args: argparse.Namespace) -> str:
    """Where else a server may be answering, when none was named."""
    from ..server.admin import ADMIN_SUFFIX, runtime_dir

    if args.socket or args.port or args.db != "grailwar.db":
        return ""
    found = sorted(Path(runtime_dir()).glob(f"grailwar-*{ADMIN_SUFFIX}"))
    ports = [p.name[len("grailwar-"):-len(ADMIN_SUFFIX)] for p in found]
    cluster = f"; cluster servers answer: {', '.join('--port ' + n for n in ports)}" if ports \
        else ""
    return (" (a server started with --db FILE answers on FILE.admin.sock: give the same --db, "
            f"or --socket PATH{cluster})")
