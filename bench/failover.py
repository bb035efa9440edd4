"""Failover time of a cluster: three `grailwar serve` processes over one PostgreSQL database and
one Redis on loopback; a player in a room (one human, one bot) acts, the process owning the
room is killed with SIGKILL, and the clock runs until the player, through a surviving process
(followed to the adopter by `redirect`), has resumed its seat and had an action acknowledged
there. Repeated `--kills` times (the killed process started again each time, so three run).

Prints `failover_p50_s`, `failover_max_s` (aim: under the lease time plus 2 s) and each time.

    python bench/failover.py --kills 20 --json           # the default 10 s lease
    python bench/failover.py --kills 5 --lease-s 2       # a quick look
"""

from __future__ import annotations

import argparse
import socket
import statistics
import struct
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import msgpack
import server_load as load
from grailwar.shared.protocol import PROTOCOL_VERSION

HEADER = struct.Struct(">I")


class Player:
    """One blocking connection that follows the cluster's answers."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buffer = b""
        self.port = port
        self.state: dict[str, Any] | None = None
        self.send("hello", version=PROTOCOL_VERSION, name="bench")
        self.until("welcome")

    def send(self, kind: str, /, **fields: Any) -> None:
        body = msgpack.packb({"t": kind, **fields}, use_bin_type=True)
        self.sock.sendall(HEADER.pack(len(body)) + body)

    def recv(self) -> dict[str, Any]:
        while True:
            if len(self.buffer) >= 4:
                (size,) = HEADER.unpack(self.buffer[:4])
                if len(self.buffer) >= 4 + size:
                    body, self.buffer = self.buffer[4:4 + size], self.buffer[4 + size:]
                    msg = msgpack.unpackb(body, raw=False)
                    if msg["t"] == "state":
                        self.state = msg
                    return msg
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("closed")
            self.buffer += data

    def until(self, *kinds: str) -> dict[str, Any]:
        while (msg := self.recv())["t"] not in kinds:
            pass
        return msg

    def ask(self, kind: str, entry: int, **fields: Any) -> tuple[Player, dict[str, Any]]:
        """Send until `joined`: a redirect is followed, a room being adopted asked again."""
        me, msg = self, {}
        end = time.monotonic() + 120
        while time.monotonic() < end:
            me.send(kind, **fields)
            msg = me.until("joined", "redirect", "error")
            if msg["t"] == "joined":
                return me, msg
            me.sock.close()
            time.sleep(0 if msg["t"] == "redirect" else 0.05)
            try:
                me = Player(msg["port"] if msg["t"] == "redirect" else me.port)
            except OSError:  # the directory still named the dead process
                time.sleep(0.05)
                me = Player(entry)
        raise RuntimeError(f"{kind}: never joined (last: {msg})")

    def act_once(self) -> None:
        """Wait until prompted, act, wait for the ack."""
        while not (self.state and self.state["legal"]
                   and 0 in self.state["view"]["prompt"]["seats"]):
            self.recv()
        legal = self.state["legal"]
        action = next((a for a in legal if a["type"] in ("DeclareWait", "Ready", "Wait")),
                      legal[0])
        self.send("act", action=action, state_id=self.state["state_id"], ref=1)
        self.until("ack")


def node(args: argparse.Namespace, url: str, name: str, log: Path) -> load.Child:
    return load.serve(url, 50, log, "--presence", args.redis, "--cluster-name", name,
                      "--lease-s", str(args.lease_s), "--no-admin", "--bot-workers", "0")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--lease-s", type=float, default=10.0)
    parser.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    name = f"failover{uuid.uuid4().hex[:6]}"
    times: list[float] = []
    with tempfile.TemporaryDirectory(prefix="grailwar-failover-") as tmp, \
            load.bench_database(args.pg) as url:
        nodes = [node(args, url, name, Path(tmp) / f"n{i}.log") for i in range(3)]
        ports = [int(n.wait_for(load.LISTENING, 60).group(1)) for n in nodes]
        time.sleep(args.lease_s / 2)  # every process has beaten once
        try:
            for kill in range(args.kills):
                player, joined = Player(ports[kill % 3]).ask(
                    "create_room", ports[kill % 3], name=f"kill {kill}", seats=2,
                    priority_s=0)
                player.send("add_bot", cls="lancer", level="normal")
                player.send("start")
                player.act_once()
                victim = ports.index(player.port)
                nodes[victim].proc.kill()
                nodes[victim].proc.wait(timeout=10)
                killed = time.monotonic()
                entry = ports[(victim + 1) % 3]
                player.sock.close()
                player, _ = Player(entry).ask("resume", entry, room=joined["room"],
                                              token=joined["token"])
                player.act_once()
                times.append(time.monotonic() - killed)
                player.send("leave_room")
                player.sock.close()
                log = Path(tmp) / f"n{victim}.{kill}.log"
                nodes[victim] = node(args, url, name, log)
                ports[victim] = int(nodes[victim].wait_for(load.LISTENING, 60).group(1))
                time.sleep(args.lease_s / 2)
        finally:
            for n in nodes:
                n.stop()
    out = {"kills": len(times), "lease_s": args.lease_s,
           "failover_p50_s": round(statistics.median(times), 2),
           "failover_max_s": round(max(times), 2), "times_s": [round(t, 2) for t in times]}
    load.report(out, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
