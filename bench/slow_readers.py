"""Clients that never read, beside rooms that play: does the server's memory stay bounded and
do the honest rooms stay fast?

`grailwar serve` in its own process; `--slow` clients (50) in another, each on its own socket
(a small receive buffer), sending `hello` and then `list_rooms` at `--rate` per second (the
message limit is 20) and never reading a byte. Once a socket's buffer is full the server
stops reading it (its requests cost nothing more) and closes it at the idle timeout (120 s);
what its rooms send it is capped at `max_queued` (1 MiB, `too_slow`). A closed client connects
again at once, as a hostile one would. Meanwhile `--rooms` rooms of seven network players
play, exactly as in `server_load.py` (its workers, options and figures).

Prints (one JSON object with --json) the load's figures, among them `server_rss_mb` (the
server's highest VmRSS) and `p99_ms` (the honest players' acks), and `slow_clients`,
`slow_cuts` (how often the server closed a slow client) and `slow_sent_mb` (what they sent).

Targets: with 50 slow clients and 200 rooms, `server_rss_mb` < 400 and `p99_ms` < 50.

    python bench/slow_readers.py --json                  # 200 rooms, 50 slow clients, 120 s
    python bench/slow_readers.py --rooms 20 --seconds 30 # a quick look
"""

from __future__ import annotations

import argparse
import json
import signal
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import server_load as load
from grailwar.shared.protocol import PROTOCOL_VERSION, encode, message

HELLO = encode(message("hello", version=PROTOCOL_VERSION, name="slow"))
ASK = encode(message("list_rooms"))


def slow_socket(port: int) -> socket.socket | None:
    """A greeted socket with a small receive buffer, or None if the server refused it."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        sock.connect(("127.0.0.1", port))
        sock.sendall(HELLO)
    except OSError:
        sock.close()
        return None
    sock.setblocking(False)
    return sock


def slow_clients(port: int, count: int, rate: float, seconds: float) -> dict[str, Any]:
    """`count` sockets that send `rate` list_rooms a second each and never read; a socket the
    server cut is replaced by a new one."""
    stopped: list[int] = []
    signal.signal(signal.SIGTERM, lambda *_: stopped.append(1))  # the parent's stop: report
    socks = [slow_socket(port) for _ in range(count)]
    cuts, sent = 0, 0
    end = time.monotonic() + seconds
    tick = 1.0 / rate
    while time.monotonic() < end and not stopped:
        began = time.monotonic()
        for i, sock in enumerate(socks):
            if sock is None:
                socks[i] = slow_socket(port)
                continue
            try:
                sent += sock.send(ASK)
            except BlockingIOError:
                pass  # the server is not reading us either: try again next round
            except OSError:  # cut (too_slow): come back at once
                cuts += 1
                sock.close()
                socks[i] = slow_socket(port)
        time.sleep(max(0.0, tick - (time.monotonic() - began)))
    for sock in socks:
        if sock is not None:
            sock.close()
    return {"slow_clients": count, "slow_cuts": cuts, "slow_sent_mb": round(sent / 2**20, 2)}


def main() -> int:
    parser = load.make_parser(__doc__)
    parser.add_argument("--slow", type=int, default=50, help="clients that never read")
    parser.add_argument("--rate", type=float, default=20.0,
                        help="list_rooms per second per slow client")
    parser.add_argument("--slow-worker", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    load.raise_fd_limit()
    if args.slow_worker:
        seconds = args.seconds + args.setup_timeout
        print(json.dumps(slow_clients(args.slow_worker, args.slow, args.rate, seconds)),
              flush=True)
        return 0
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="grailwar-slow-") as tmp:
        server = load.serve(str(Path(tmp) / "slow.db"), args.rooms, Path(tmp) / "server.log")
        slow = None
        try:
            port = int(server.wait_for(load.LISTENING).group(1))
            slow = load.Child([sys.executable, __file__, "--slow-worker", str(port),
                               "--slow", str(args.slow), "--rate", str(args.rate),
                               "--seconds", str(args.seconds),
                               "--setup-timeout", str(args.setup_timeout)],
                              Path(tmp) / "slow.log")
            load.run_workers(args, [port], [server], out)
        finally:
            if slow is not None:
                slow.stop()
                lines = (Path(tmp) / "slow.log").read_text().splitlines()
                if lines and lines[-1].startswith("{"):
                    out.update(json.loads(lines[-1]))
            load.stop_server(server, Path(tmp) / "server.log", out)
    load.report(out, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
