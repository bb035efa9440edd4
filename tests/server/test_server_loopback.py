"""Real sockets on loopback: `grailwar serve --port 0` runs as a subprocess and plain blocking
sockets talk to it, every wait bounded by a timeout. Checks the handshake, a game's first
action acknowledged only once it is in the SQLite file, the fatal errors closing the socket,
and a killed server resuming its room from the database."""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from grailwar.shared.protocol import (
    MAX_FRAME,
    PROTOCOL_VERSION,
    FrameBuffer,
    decode,
    encode,
    message,
    validate,
)

TIMEOUT = 10.0


class ServerProcess:
    def __init__(self, db: Path, *options: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-u", "-m", "grailwar.cli.main", "serve", "--host", "127.0.0.1",
             "--port", "0", "--db", str(db), *options],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.port = self._wait_for_port()

    def _wait_for_port(self) -> int:
        assert self.proc.stderr is not None
        deadline = time.monotonic() + TIMEOUT
        seen = b""
        fd = self.proc.stderr.fileno()  # raw reads: a buffered readline would hide lines
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                chunk = os.read(fd, 65536)
                seen += chunk
                found = re.search(rb"grailwar server on \S*:(\d+)", seen)
                if found:
                    self.banner = seen.decode(errors="replace")  # what it said as it started
                    return int(found.group(1))
                if not chunk:
                    break
        self.kill()
        raise AssertionError(f"the server did not start: {seen.decode(errors='replace')}")

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(TIMEOUT)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(TIMEOUT)
        if self.proc.stderr is not None:
            self.proc.stderr.close()


class Client:
    """A blocking socket speaking the protocol; every reply is validated."""

    def __init__(self, port: int, name: str = "sock",
                 wrap: Callable[[socket.socket], socket.socket] | None = None,
                 source: str | None = None) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT,
                                             source_address=None if source is None
                                             else (source, 0))
        if wrap is not None:  # TLS
            self.sock = wrap(self.sock)
        self.frames = FrameBuffer()
        self.pending: list[dict[str, Any]] = []
        self.closed = False
        if name:
            self.send("hello", version=PROTOCOL_VERSION, name=name)
            assert self.expect("welcome")["version"] == PROTOCOL_VERSION

    def send(self, name: str, /, **fields: Any) -> None:
        self.sock.sendall(encode(message(name, **fields)))

    def _read(self) -> None:
        data = self.sock.recv(65536)
        if not data:
            self.closed = True
            return
        for body in self.frames.feed(data):
            msg = decode(body)
            validate(msg, "s2c")
            self.pending.append(msg)

    def expect(self, kind: str) -> dict[str, Any]:
        """Read until a message of `kind` arrives (others are skipped); fail on a timeout."""
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            while self.pending:
                msg = self.pending.pop(0)
                if msg["t"] == kind:
                    return msg
            if self.closed:
                raise AssertionError(f"connection closed while waiting for {kind!r}")
            self._read()
        raise AssertionError(f"no {kind!r} within {TIMEOUT} s")

    def wait_closed(self) -> None:
        deadline = time.monotonic() + TIMEOUT
        while not self.closed and time.monotonic() < deadline:
            self._read()
        assert self.closed

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "rooms.db"


@pytest.fixture
def server(db: Path) -> Iterator[ServerProcess]:
    proc = ServerProcess(db)
    try:
        yield proc
    finally:
        proc.kill()


def test_a_game_over_real_sockets(server: ServerProcess, db: Path) -> None:
    """Two sockets: one creates a room, the other joins; chat crosses; the owner starts, and
    its action is acknowledged only after it is in the database file; then a clean stop."""
    owner = Client(server.port, "owner")
    owner.send("create_room", name="loop", seats=3, declare_s=600)
    joined = owner.expect("joined")
    other = Client(server.port, "other")
    other.send("list_rooms")
    rooms = other.expect("rooms")
    assert [r["name"] for r in rooms["rooms"]] == ["loop"]
    other.send("join_room", room=joined["room"])
    assert other.expect("joined")["seat"] == 1
    other.send("chat", text="よろしく")
    assert owner.expect("chat_message")["text"] == "よろしく"
    owner.send("start")
    state = owner.expect("state")
    assert state["view"]["you"] == 0 and state["legal"]
    owner.send("act", action={"type": "DeclareRest", "seat": 0}, state_id=state["state_id"],
               ref=5)
    ack = owner.expect("ack")
    assert ack["ref"] == 5
    with contextlib.closing(sqlite3.connect(db)) as conn:
        rows = conn.execute("SELECT seq, source FROM actions").fetchall()
    assert (ack["state_id"], "seat") in rows
    owner.close()
    other.close()
    assert server.stop() == 0


def test_bad_input_closes_the_socket(server: ServerProcess) -> None:
    """A frame that is not msgpack, and a frame over 64 KiB, each get an error frame and then
    the server closes the socket; a wrong field does not."""
    c = Client(server.port)
    c.send("create_room", name="x", seats=9)
    err = c.expect("error")
    assert (err["code"], err["field"]) == ("bad_field", "seats")
    c.send("ping")
    c.expect("pong")
    c.sock.sendall(b"\x00\x00\x00\x01\xc1")
    assert c.expect("error")["code"] == "bad_frame"
    c.wait_closed()

    big = Client(server.port)
    big.sock.sendall((MAX_FRAME + 1).to_bytes(4, "big") + b"\x00" * 1024)
    assert big.expect("error")["code"] == "frame_too_large"
    big.wait_closed()

    late = Client(server.port, name="")
    late.send("hello", version=PROTOCOL_VERSION + 1, name="future")
    assert late.expect("error")["code"] == "version_mismatch"
    late.wait_closed()


def test_killed_server_resumes_the_room(db: Path) -> None:
    """A server killed (SIGKILL) after acknowledging an action comes back from its database
    with the room: the seat token still works and the resync includes that action."""
    first = ServerProcess(db)
    try:
        c = Client(first.port, "survivor")
        c.send("create_room", name="durable", seats=2, declare_s=600)
        joined = c.expect("joined")
        c.send("start")
        state = c.expect("state")
        c.send("act", action={"type": "DeclareRest", "seat": 0}, state_id=state["state_id"],
               ref=1)
        acked = c.expect("ack")["state_id"]
        c.close()
    finally:
        first.kill()

    second = ServerProcess(db)
    try:
        c = Client(second.port, "survivor")
        c.send("resume", room=joined["room"], token=joined["token"])
        assert c.expect("joined")["seat"] == 0
        state = c.expect("state")
        assert state["state_id"] >= acked
        mine = [d for d in state["view"]["declarations"] if d.get("seat") == 0]
        assert state["state_id"] > acked or mine, state["view"]["declarations"]
        c.close()
    finally:
        second.kill()


def dual_stack() -> bool:
    """An IPv6 socket that takes IPv4 too can be opened here."""
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            s.bind(("::", 0))
        return True
    except OSError:
        return False


@pytest.mark.skipif(not dual_stack(), reason="no dual-stack IPv6 socket on this machine")
def test_an_ipv4_ban_holds_on_an_ipv6_listener(db: Path, capsys: pytest.CaptureFixture) -> None:
    """Issue 38 item 2: with `--host ::` an IPv4 player arrived as ::ffff:127.0.0.77, and a
    ban on 127.0.0.77 let it in. Addresses are normalized where they enter: the admin status
    and the ban see 127.0.0.77, its connection is dropped, a new one is refused, and
    127.0.0.78 still gets its welcome."""
    from grailwar.cli.main import main

    proc = ServerProcess(db, "--host", "::")
    try:
        player = Client(proc.port, "banned", source="127.0.0.77")
        assert main(["admin", "--db", str(db), "--json", "ban", "127.0.0.77"]) == 0
        assert json.loads(capsys.readouterr().out)["dropped"] == 1
        player.wait_closed()
        again = socket.create_connection(("127.0.0.1", proc.port), timeout=TIMEOUT,
                                         source_address=("127.0.0.77", 0))
        with contextlib.closing(again):
            assert again.recv(100) == b""  # refused before a byte is read
        Client(proc.port, "other", source="127.0.0.78").close()
    finally:
        proc.kill()


def test_a_port_in_use_is_one_line_and_exit_status_3(db: Path) -> None:
    """Issue 38 item 5: a port already in use gave exit status 1 (documented as a locked or
    damaged database) after a 20-line traceback. It is one critical line naming the address
    and the reason, and status 3 (docs/deploy.md), and the database is left unlocked."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        second = subprocess.run(
            [sys.executable, "-m", "grailwar.cli.main", "serve", "--host", "127.0.0.1",
             "--port", str(port), "--db", str(db)], capture_output=True, text=True,
            timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert second.returncode == 3
    critical = [line for line in second.stderr.splitlines() if "#critical]" in line]
    assert len(critical) == 1 and "Traceback" not in second.stderr
    assert critical[0].endswith(f"the server could not start: cannot listen on 127.0.0.1:{port}: "
                                "Address already in use (is another server, or another "
                                "program, on that port?)")
    proc = ServerProcess(db)  # the lock went with the refused process
    proc.kill()


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_twenty_players_through_one_relay_are_twenty_addresses(
        db: Path, version: str, capsys: pytest.CaptureFixture) -> None:
    """Issue 38 item 3: behind a TCP relay every player had the relay's address, and 4 of 20
    were refused too_many_connections. A relay process sending PROXY headers (as HAProxy's
    send-proxy and send-proxy-v2), trusted by the server: all 20 are welcomed, and a ban on
    one player's address drops that player alone."""
    from grailwar.cli.main import main

    proc = ServerProcess(db, "--trusted-proxies", "127.0.0.1")
    relay = subprocess.Popen([sys.executable, str(Path(__file__).parent / "proxy_relay.py"),
                              str(proc.port), version], stdout=subprocess.PIPE, text=True)
    try:
        assert relay.stdout is not None
        port = int(relay.stdout.readline())
        players = [Client(port, f"p{i}", source=f"127.0.0.{21 + i}") for i in range(20)]
        assert main(["admin", "--db", str(db), "--json", "ban", "127.0.0.25"]) == 0
        assert json.loads(capsys.readouterr().out)["dropped"] == 1
        players[4].wait_closed()
        players[5].send("ping")
        assert players[5].expect("pong") == {"t": "pong"}
        for p in players:
            p.close()
    finally:
        relay.kill()
        relay.wait(timeout=TIMEOUT)
        proc.kill()
