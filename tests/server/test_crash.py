"""A real server process killed with SIGKILL, then restarted on the same database.

The server runs as `python -m grailwar.cli.main serve --port 0` (the port it got is read from
its log); two players drive a two-seat room over plain blocking sockets (length-prefixed
msgpack) and keep every action the server acknowledged. After the kill, the SQLite file holds
every one of them; after the restart, each player takes its seat back with its token
(`resume`), sees a state at least as new as its last acknowledgement, plays on, and the timer
that was running fires with the time it had left when the server died (downtime is not charged).
A last test stops the server with SIGTERM: exit code 0, the database closed, a log line.

Every wait is bounded; every process and socket is closed by a fixture or a `finally`.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import sqlite3
import struct
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
from grailwar.shared.engine.data import default_ruleset
from grailwar.shared.engine.geometry import distance

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL and SIGTERM")

TIMEOUT = 10.0  # the longest any single wait may take
DECLARE_S, MAIN_S, REACTION_S, PROMPT_S = 30, 10, 5, 5  # the shortest the protocol allows
PRIORITY_S = 20  # the default priority phase: its clock survives a kill too
LISTENING = re.compile(r"grailwar server on 127\.0\.0\.1:(\d+)")


# --- the server process ---------------------------------------------------------------------
class ServerProcess:
    """`grailwar serve` on loopback, its log in a file; `start` returns once it listens."""

    def __init__(self, db: Path, log: Path) -> None:
        self.db = db
        self.log = log
        self.proc: subprocess.Popen | None = None
        self.port = 0

    def start(self) -> float:
        """Start and wait for the listening line; returns the moment it was seen."""
        offset = self.log.stat().st_size if self.log.exists() else 0
        with self.log.open("ab") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "grailwar.cli.main", "serve", "--host", "127.0.0.1",
                 "--port", "0", "--db", str(self.db)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        end = time.monotonic() + TIMEOUT
        while time.monotonic() < end:
            found = LISTENING.search(self.log.read_bytes()[offset:].decode(errors="replace"))
            if found:
                self.port = int(found.group(1))
                return time.monotonic()
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        raise AssertionError(f"the server did not start:\n{self.log_text()}")

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def signal(self, sig: int) -> int:
        """Send `sig`, wait (bounded) for the process to end; returns its exit code."""
        assert self.proc is not None
        self.proc.send_signal(sig)
        return self.proc.wait(timeout=TIMEOUT)

    def kill(self) -> float:
        self.signal(signal.SIGKILL)
        return time.monotonic()

    def cleanup(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=TIMEOUT)


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[Callable[[], ServerProcess]]:
    """Makes server processes (all on one database); kills whatever is left at the end."""
    made: list[ServerProcess] = []

    def make() -> ServerProcess:
        made.append(ServerProcess(tmp_path / "rooms.db", tmp_path / "server.log"))
        return made[-1]

    try:
        yield make
    finally:
        for server in made:
            server.cleanup()


# --- a blocking client ----------------------------------------------------------------------
class Client:
    """One player over a blocking socket: keeps its latest state and every acknowledged action."""

    def __init__(self, port: int, name: str, acked: list[tuple[int, dict[str, Any]]]) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        self.buffer = b""
        self.name = name
        self.acked = acked  # (state_id, action), shared by the players of a room
        self.seat = -1
        self.token = ""
        self.room = 0
        self.state: dict[str, Any] | None = None
        self.state_at = 0.0  # when the latest state arrived (time.monotonic)
        self.refs = iter(range(1, 2**31))
        self.last_send = 0.0
        self.send("hello", version=2, name=name)
        self.expect("welcome")

    def close(self) -> None:
        self.sock.close()

    def send(self, kind: str, /, **fields: Any) -> None:
        # the server allows 20 messages per second per connection: stay well under it
        pause = self.last_send + 0.06 - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        body = msgpack.packb({"t": kind, **fields}, use_bin_type=True)
        self.sock.sendall(struct.pack(">I", len(body)) + body)
        self.last_send = time.monotonic()

    def recv(self, timeout: float) -> dict[str, Any] | None:
        """The next message, or None when none came within `timeout`."""
        end = time.monotonic() + timeout
        while True:
            if len(self.buffer) >= 4:
                (size,) = struct.unpack(">I", self.buffer[:4])
                if len(self.buffer) >= 4 + size:
                    body, self.buffer = self.buffer[4:4 + size], self.buffer[4 + size:]
                    msg = msgpack.unpackb(body, raw=False)
                    self._note(msg)
                    return msg
            left = end - time.monotonic()
            if left <= 0:
                return None
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(65536)
            except TimeoutError:
                return None
            if not data:
                raise ConnectionError(f"{self.name}: the server closed the connection")
            self.buffer += data

    def _note(self, msg: dict[str, Any]) -> None:
        if msg["t"] == "state":
            self.state, self.state_at = msg, time.monotonic()
        elif msg["t"] == "joined":
            self.seat, self.room = msg["seat"], msg["room"]
            self.token = msg["token"] or self.token

    def expect(self, kind: str, pred: Callable[[dict[str, Any]], bool] = lambda m: True,
               timeout: float = TIMEOUT) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while (left := end - time.monotonic()) > 0:
            msg = self.recv(left)
            if msg is None:
                break
            if msg["t"] == "error" and kind != "error":
                raise AssertionError(f"{self.name}: unexpected error {msg}")
            if msg["t"] == kind and pred(msg):
                return msg
        raise AssertionError(f"{self.name}: no {kind} within {timeout} s")

    def drain(self, seconds: float = 0.0) -> None:
        """Read whatever has arrived (waiting up to `seconds` for more)."""
        end = time.monotonic() + seconds
        while self.recv(max(0.0, end - time.monotonic())) is not None:
            pass

    def sync(self, state_id: int) -> dict[str, Any]:
        """Wait for the state `state_id` (or a newer one)."""
        if self.state is None or self.state["state_id"] < state_id:
            self.expect("state", lambda m: m["state_id"] >= state_id)
        assert self.state is not None
        return self.state

    def act(self, action: dict[str, Any]) -> int:
        """Send an action chosen on the latest state; returns the acknowledged state id."""
        assert self.state is not None
        ref = next(self.refs)
        self.send("act", action=action, state_id=self.state["state_id"], ref=ref)
        ack = self.expect("ack", lambda m: m["ref"] == ref)
        self.acked.append((ack["state_id"], action))
        return ack["state_id"]

    @property
    def prompted(self) -> bool:
        return bool(self.state and self.state["legal"]
                    and self.seat in self.state["view"]["prompt"]["seats"])


class Table:
    """Two players in a two-seat room on one server: seat 0 hunts seat 1."""

    def __init__(self, port: int) -> None:
        self.acked: list[tuple[int, dict[str, Any]]] = []
        self.players: list[Client] = []
        try:
            owner = self.add(Client(port, "Rin", self.acked))
            owner.send("create_room", name="crash", seats=2, declare_s=DECLARE_S,
                       priority_s=PRIORITY_S, main_s=MAIN_S, reaction_s=REACTION_S,
                       prompt_s=PROMPT_S)
            owner.expect("joined")
            guest = self.add(Client(port, "Sakura", self.acked))
            guest.send("join_room", room=owner.room)
            guest.expect("joined")
            owner.send("start")
            for p in self.players:
                p.sync(0)
        except BaseException:
            self.close()
            raise
        self.grid = default_ruleset().maps[owner.state["view"]["map"]]

    def add(self, client: Client) -> Client:
        self.players.append(client)
        return client

    def close(self) -> None:
        for p in self.players:
            p.close()
        self.players = []

    @property
    def last_acked(self) -> int:
        return max(s for s, _ in self.acked)

    def view(self) -> dict[str, Any]:
        return self.players[0].state["view"]

    def step(self, choose: Callable[[Client], dict[str, Any] | None]) -> bool:
        """One prompted player acts (both then see its result); False when nobody may act."""
        for p in self.players:
            if p.prompted:
                action = choose(p)
                if action is None:
                    continue
                state_id = p.act(action)
                for q in self.players:
                    q.sync(state_id)
                return True
        return False

    def play_until(self, done: Callable[[], bool],
                   choose: Callable[[Client], dict[str, Any] | None], limit: int = 60) -> None:
        for _ in range(limit):
            if done():
                return
            assert self.step(choose), f"nobody may act: {self.view()['prompt']}"
        raise AssertionError(f"not done after {limit} actions: {self.view()['prompt']}")

    # --- the players' policy ------------------------------------------------------------------
    def hunt(self, p: Client) -> dict[str, Any]:
        """Seat 0 walks to seat 1 and declares a battle on it; in battle both only say Ready and
        Wait (the battle lasts); seat 1 waits."""
        legal = p.state["legal"]
        kinds = {a["type"]: a for a in legal}
        if p.state["view"]["prompt"]["kind"] == "declare" and p.seat == 0:
            battle = [a for a in legal if a["type"] == "DeclareEncounter"
                      and a["target"] == 1 and a["intent"] == "battle"]
            if battle:
                return battle[0]
            moves = [a for a in legal if a["type"] == "Move"]
            if moves:
                there = p.state["view"]["camps"][1]["pos"]
                return min(moves, key=lambda m: distance(self.grid, m["to"], there))
        for kind in ("DeclareWait", "Ready", "Wait", "AnswerAmbush"):
            if kind in kinds:
                return kinds[kind]
        return next(a for a in legal if a["type"] != "UseCommandSpell")

    def wander(self, p: Client) -> dict[str, Any]:
        """Both move once (as far from each other as they can), then wait."""
        legal = p.state["legal"]
        if p.state["view"]["moved"][p.seat] < 0:
            moves = [a for a in legal if a["type"] == "Move"]
            if moves:
                there = p.state["view"]["camps"][1 - p.seat]["pos"]
                return max(moves, key=lambda m: distance(self.grid, m["to"], there))
        return next(a for a in legal if a["type"] == "DeclareWait")


@pytest.fixture
def tables() -> Iterator[Callable[[int], Table]]:
    made: list[Table] = []

    def make(port: int) -> Table:
        made.append(Table(port))
        return made[-1]

    try:
        yield make
    finally:
        for table in made:
            table.close()


# --- checks -----------------------------------------------------------------------------------
def logged_actions(db: Path, room: int) -> dict[int, tuple[dict[str, Any], str]]:
    """The room's log read straight from the SQLite file (read-only)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=TIMEOUT)
    try:
        rows = con.execute("SELECT seq, action, source FROM actions WHERE room = ?", (room,))
        return {seq: (msgpack.unpackb(action, raw=False), source) for seq, action, source in rows}
    finally:
        con.close()


def assert_all_acked_logged(table: Table, db: Path) -> dict[int, tuple[dict[str, Any], str]]:
    logged = logged_actions(db, table.players[0].room)
    missing = [(s, a) for s, a in table.acked if logged.get(s, (None,))[0] != a]
    assert not missing, f"acknowledged but not in the log: {missing}"
    return logged


def resume_all(table: Table, port: int) -> list[Client]:
    """Each player reconnects and takes its seat back with its token."""
    players = []
    for old in table.players:
        p = Client(port, old.name, table.acked)
        players.append(p)
        p.send("resume", room=old.room, token=old.token)
        p.expect("joined")
        assert p.seat == old.seat
        p.sync(0)
    table.close()
    table.players = players
    return players


# --- the tests --------------------------------------------------------------------------------
def test_killed_in_a_declaration_window(servers, tables) -> None:
    """SIGKILL while a declaration window is open (one camp declared, the other moved, an
    action in flight): every acknowledged action is in the file; after the restart both
    players resume at a state no older than their last ack, the window's timer has the time it
    had left, the missing declaration is accepted and the game goes on to the next turn."""
    server = servers()
    server.start()
    table = tables(server.port)
    rin, sakura = table.players
    # a whole turn first: each moves, then waits
    turn0 = table.view()["turn"]
    table.play_until(lambda: table.view()["turn"] != turn0, table.wander)
    opened = rin.state_at  # the new window opened when this state arrived
    assert table.view()["prompt"] == {"kind": "declare", "seats": [0, 1]}
    table.step(table.wander)  # Rin moves
    table.step(table.wander)  # Rin waits: her declaration is in
    assert table.view()["prompt"]["seats"] == [1]
    sakura.drain()
    move = table.wander(sakura)
    sakura.send("act", action=move, state_id=sakura.state["state_id"], ref=999)
    killed = server.kill()  # at once: that Move may or may not have been acknowledged
    logged = assert_all_acked_logged(table, server.db)
    assert max(logged) >= table.last_acked
    phase = table.view()["priority"]  # Rin's Wait is held while Sakura may still encounter
    left = (PRIORITY_S if phase["open"] and 1 not in phase["passed"] else DECLARE_S) - (
        killed - opened)

    server = servers()
    server.start()
    rin, sakura = resume_all(table, server.port)
    for p in (rin, sakura):
        view = p.state["view"]
        assert view["version"] == p.state["state_id"] >= table.last_acked
        assert view["prompt"] == {"kind": "declare", "seats": [1]}
    # the running timer keeps the time it had (rounded to whole seconds on the wire)
    assert left - 1.5 <= sakura.state["deadlines"]["1"] <= left + 1.5, (
        left, sakura.state["deadlines"])
    day, turn = table.view()["day"], table.view()["turn"]
    table.play_until(lambda: (table.view()["day"], table.view()["turn"]) != (day, turn),
                     table.wander)
    assert table.view()["prompt"]["kind"] == "declare"
    table.step(table.wander)  # and the next window takes actions too
    assert_all_acked_logged(table, server.db)
    assert server.signal(signal.SIGTERM) == 0


def test_killed_in_a_battle(servers, tables) -> None:
    """SIGKILL one second into a battle prompt, two seconds down, then a restart: the battle is
    there as acknowledged, and the prompt's timer fires with the time it had left at the kill
    (not less: the downtime is not charged), then the battle takes actions again."""
    server = servers()
    server.start()
    table = tables(server.port)
    table.play_until(lambda: table.view()["battle"] is not None, table.hunt)
    table.play_until(lambda: sum(1 for s, _ in table.acked if s > 0) >= 8
                     and table.view()["prompt"]["kind"] == "round_start", table.hunt)
    for p in table.players:
        p.drain()
    assert table.view()["battle"] is not None
    prompt = table.view()["prompt"]
    armed = max(p.state_at for p in table.players)
    time.sleep(1.0)
    killed = server.kill()
    assert_all_acked_logged(table, server.db)
    left = PROMPT_S - (killed - armed)
    time.sleep(2.0)  # the server stays down a while

    server = servers()
    ready = server.start()  # the rooms were restored (their timers armed) just before this
    rin, sakura = resume_all(table, server.port)
    before = rin.state["state_id"]
    assert before >= table.last_acked
    for p in (rin, sakura):
        assert p.state["view"]["battle"] is not None
        assert p.state["view"]["prompt"] == prompt
        for seat in prompt["seats"]:
            assert left - 1.5 <= p.state["deadlines"][str(seat)] <= left + 1.5
    # nobody acts: the timer answers for the prompted seat
    rin.expect("state", lambda m: m["state_id"] > before, timeout=left + 3)
    fired = time.monotonic() - ready
    # the deadline kept what it had at the last "alive" stamp (at most 1 s before the kill)
    assert left - 0.5 <= fired <= left + 1.5, (left, fired)
    logged = assert_all_acked_logged(table, server.db)
    assert logged[before + 1][1] == "timer"
    sakura.sync(rin.state["state_id"])
    for p in (rin, sakura):
        p.drain(0.1)
    acked = len(table.acked)
    table.play_until(lambda: len(table.acked) >= acked + 3, table.hunt)
    assert_all_acked_logged(table, server.db)
    assert server.signal(signal.SIGTERM) == 0


def test_sigterm_stops_cleanly(servers, tables) -> None:
    """SIGTERM: the clients' connections are closed, the database is closed (the WAL folded
    back into the file), a log line says so, the exit code is 0; a restart resumes the room."""
    server = servers()
    server.start()
    table = tables(server.port)
    table.step(table.wander)
    assert server.signal(signal.SIGTERM) == 0
    log = server.log_text()
    assert re.search(r"grailwar server stopped: 2 connection\(s\) closed, database .* closed",
                     log), log
    assert "Traceback" not in log and "Unhandled" not in log, log
    wal = Path(f"{server.db}-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    for p in table.players:
        with pytest.raises(ConnectionError):
            p.drain(TIMEOUT)
    assert_all_acked_logged(table, server.db)
    server = servers()
    server.start()
    rin, _ = resume_all(table, server.port)
    assert rin.state["state_id"] >= table.last_acked
    assert server.signal(signal.SIGTERM) == 0
    assert os.path.getsize(server.db) > 0


def test_one_server_per_database(servers, tmp_path: Path) -> None:
    """A second server on the same database refuses to start (two servers would interleave
    two logs in one file), under the same name, through a symlink or through a hard link;
    the first one goes on serving."""
    first = servers()
    first.start()
    (tmp_path / "symlink.db").symlink_to(first.db)
    os.link(first.db, tmp_path / "hardlink.db")
    for db in (str(first.db), str(tmp_path / "symlink.db"), str(tmp_path / "hardlink.db")):
        second = subprocess.run(
            [sys.executable, "-m", "grailwar.cli.main", "serve", "--host", "127.0.0.1",
             "--port", "0", "--db", db], capture_output=True, text=True, timeout=TIMEOUT,
            stdin=subprocess.DEVNULL)
        assert second.returncode == 1
        assert f"another server is using the database {db}" in second.stderr
        assert "Traceback" not in second.stderr
    Client(first.port, "Rin", []).close()  # still answering
    assert first.signal(signal.SIGTERM) == 0
