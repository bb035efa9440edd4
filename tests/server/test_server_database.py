"""The database a community leaves running: one server per file however it is named, damage
that is loud (a damaged file refuses to start, a damaged room is quarantined, `grailwar db
check` finds both), online backups, and closed rooms purged so the file stops growing."""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from grailwar.cli.main import main
from grailwar.server.app import DAY, PURGE_EVERY, DatabaseInUse, DatabaseLock, GrailService
from grailwar.server.dbtools import backup, check
from grailwar.server.lobby import Lobby
from grailwar.server.room import Room
from grailwar.server.store import DamagedDatabase, Store
from grailwar.shared.engine import default_action
from server_kit import FakeMember, Server, error_of, one, tick
from twisted.internet.task import Clock
from twisted.internet.testing import MemoryReactorClock
from twisted.logger import formatEvent, globalLogPublisher

OPTIONS = {"seats": 2, "priority_s": 0}


@pytest.fixture
def logged() -> Iterator[list[str]]:
    """The text of every log event while the test runs."""
    lines: list[str] = []

    def observe(event: dict[str, Any]) -> None:
        lines.append(f"{event.get('log_level').name}: {formatEvent(event)}")

    globalLogPublisher.addObserver(observe)
    yield lines
    globalLogPublisher.removeObserver(observe)


def playing_room(store: Store, room_id: int = 1) -> tuple[Room, str]:
    """A started room (one human in seat 0 who has acted once, one bot) and the human's
    token; the log holds at least that action."""
    room = Room.create(room_id, "rin's room", OPTIONS, Clock(), store, None, seed=11)
    _, token = room.join_player(FakeMember("Rin"), "saber")
    room.add_bot("lancer", "heuristic")
    room.start()
    room.act(room.members[0][0], default_action(room.state, 0).to_dict(), room.state.version,
             lambda _v: None)
    room.stop()
    return room, token


def flip_first_action(path: Path) -> bytes:
    """Flip the first byte of room 1's first stored action into one msgpack never uses (as a
    bad disk sector or a stray write would); returns the original, for the repair."""
    with contextlib.closing(sqlite3.connect(path)) as db, db:  # closed: the WAL checkpointed
        (blob,) = db.execute("SELECT action FROM actions WHERE room = 1 AND seq = "
                             "(SELECT MIN(seq) FROM actions WHERE room = 1)").fetchone()
        db.execute("UPDATE actions SET action = ? WHERE room = 1 AND action = ?",
                   (b"\xc1" + blob[1:], blob))
    return blob


def repair_first_action(path: Path, blob: bytes) -> None:
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE actions SET action = ? WHERE room = 1 AND action = ?",
                   (blob, b"\xc1" + blob[1:]))


def closed_flag(path: Path, room_id: int) -> int:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return db.execute("SELECT closed FROM rooms WHERE id = ?", (room_id,)).fetchone()[0]


# --- item 5: one server per database ------------------------------------------------------
def test_the_lock_follows_the_file_through_a_symlink_and_a_hard_link(tmp_path: Path) -> None:
    """While another process holds a database, locking it through a symlink or a hard link
    (other names for the same file) is refused with the database named, and the process that
    holds it with the name it opened it by; once that process is gone the lock is free."""
    db = tmp_path / "rooms.db"
    Store(db).close()
    (tmp_path / "symlink.db").symlink_to(db)
    os.link(db, tmp_path / "hardlink.db")
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from grailwar.server.app import DatabaseLock; "
         "DatabaseLock(sys.argv[1]).acquire(); print('held', flush=True); sys.stdin.read()",
         str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        for name in ("symlink.db", "hardlink.db", "rooms.db"):
            # (issue 38 item 6: a hard link was named twice; the file its holder opened is
            # named, with the holder)
            with pytest.raises(DatabaseInUse, match=rf"database .*{name}: process {holder.pid} "
                               rf"holds the lock on {tmp_path / 'rooms.db'}$"):
                DatabaseLock(str(tmp_path / name)).acquire()
    finally:
        holder.communicate("", timeout=10)
    lock = DatabaseLock(str(tmp_path / "hardlink.db"))
    lock.acquire()
    lock.release()


def test_one_process_never_locks_a_database_twice(tmp_path: Path) -> None:
    """In one process a second lock on the same file (under another name) is refused without
    the file being opened again (closing that descriptor would drop SQLite's own locks)."""
    db = tmp_path / "rooms.db"
    (tmp_path / "other-name.db").symlink_to(db)
    first = DatabaseLock(str(db))
    first.acquire()
    with pytest.raises(DatabaseInUse, match=r"other-name\.db"):
        DatabaseLock(str(tmp_path / "other-name.db")).acquire()
    first.release()
    again = DatabaseLock(str(tmp_path / "other-name.db"))
    again.acquire()
    again.release()


# --- item 6: damage is loud ------------------------------------------------------------------
def service(db: Path, **options: Any) -> tuple[GrailService, MemoryReactorClock]:
    reactor = MemoryReactorClock()
    return GrailService(reactor, str(db), port=0, tune_gc=False, **options), reactor


def test_a_file_that_is_not_a_database_refuses_to_start(tmp_path: Path) -> None:
    """A file SQLite cannot read (here: text) stops the server's start with a message naming
    the file and what to do; the file is left as it was, and the lock is released."""
    db = tmp_path / "rooms.db"
    db.write_text("these are not the rooms you are looking for\n" * 100)
    before = db.read_bytes()
    server, reactor = service(db)
    with pytest.raises(DamagedDatabase, match=rf"{re.escape(str(db))}.*grailwar db check"):
        server.startService()
    assert db.read_bytes() == before and not reactor.tcpServers
    lock = DatabaseLock(str(db))
    lock.acquire()
    lock.release()


def test_grailwar_serve_on_a_damaged_file_exits_1_with_the_reason(tmp_path: Path) -> None:
    """The operator's view: `grailwar serve` on a damaged file logs one critical line with the
    reason and the advice (no traceback) and exits 1."""
    db = tmp_path / "rooms.db"
    db.write_bytes(b"\x00garbage" * 512)
    done = subprocess.run(
        [sys.executable, "-m", "grailwar.cli.main", "serve", "--host", "127.0.0.1", "--port",
         "0", "--db", str(db)], capture_output=True, text=True, timeout=20,
        stdin=subprocess.DEVNULL)
    assert done.returncode == 1
    assert f"the server could not start: {db} cannot be read as a database" in done.stderr
    assert "grailwar db check" in done.stderr and "Traceback" not in done.stderr


def test_a_database_that_fails_its_quick_check_refuses_to_start(tmp_path: Path) -> None:
    """Garbage written over the pages of a database (its header intact) fails SQLite's
    quick_check: the Store refuses to open it, and `grailwar db check` says DAMAGED."""
    db = tmp_path / "rooms.db"
    store = Store(db)
    for room_id in range(1, 40):
        playing_room(store, room_id)
    store.close()
    data = bytearray(db.read_bytes())
    page = 4096
    assert len(data) > 6 * page
    data[2 * page:5 * page] = bytes(range(256)) * (3 * page // 256)
    db.write_bytes(bytes(data))
    with pytest.raises(DamagedDatabase, match=r"rooms\.db"):
        Store(db)
    assert main(["db", "check", str(db)]) == 1


def test_an_empty_database_file_starts_with_a_loud_warning(tmp_path: Path,
                                                          logged: list[str]) -> None:
    """A 0-byte file (a truncated copy, a full disk) holds no room: the server starts, new and
    empty, and says so in a warning; a database that never existed gets no such warning."""
    empty = tmp_path / "rooms.db"
    empty.write_bytes(b"")
    server, _ = service(empty)
    server.startService()
    warnings = [line for line in logged if line.startswith("warn") and "EMPTY" in line]
    assert len(warnings) == 1 and str(empty) in warnings[0]
    server.stopService()
    logged.clear()
    server, _ = service(tmp_path / "new.db")
    server.startService()
    assert not [line for line in logged if "EMPTY" in line]
    server.stopService()


def test_a_room_whose_log_is_damaged_is_quarantined_and_a_repair_brings_it_back(
        tmp_path: Path, logged: list[str]) -> None:
    """A flipped byte in one stored action: at the next start the room is not closed (a
    repair must be able to bring it back), the log names it, and its player's `resume` (or
    anyone's `join_room`) gets `room_quarantined`, not `room_not_found`. Once the byte is
    repaired the next start restores the room and the player takes the seat back."""
    db = tmp_path / "rooms.db"
    store = Store(db)
    _, token = playing_room(store)
    store.close()
    blob = flip_first_action(db)

    server = Server(store=Store(db))
    assert 1 not in server.lobby.rooms
    assert "room 1: a stored field does not decode" in server.lobby.quarantined[1]
    assert any(line.startswith("error") and "room 1 is quarantined" in line for line in logged)
    w = server.wire(name="Rin")
    assert error_of(w.ask("resume", room=1, token=token))["code"] == "room_quarantined"
    assert error_of(w.ask("join_room", room=1, spectator=True))["code"] == "room_quarantined"
    assert error_of(w.ask("join_room", room=2))["code"] == "room_not_found"
    assert server.lobby.list()[1] == 0
    server.lobby.stop()
    server.store.close()
    assert closed_flag(db, 1) == 0

    repair_first_action(db, blob)
    server = Server(store=Store(db))
    assert server.lobby.quarantined == {} and 1 in server.lobby.rooms
    assert one(server.wire(name="Rin").ask("resume", room=1, token=token), "joined")["seat"] == 0
    server.lobby.stop()
    server.store.close()


def test_db_check_lists_each_damaged_room_and_why(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture) -> None:
    """`grailwar db check DB` replays every open room without starting a server: it prints
    each damaged room with the reason and exits 1; on a sound database it exits 0. It never
    writes to the file."""
    db = tmp_path / "rooms.db"
    store = Store(db)
    playing_room(store, 1)
    playing_room(store, 2)
    store.close()
    assert main(["db", "check", str(db)]) == 0
    assert "quick_check ok, 2 open room(s) replayed, 0 damaged room(s)" in capsys.readouterr().out
    flip_first_action(db)
    before = db.read_bytes()
    assert [room_id for room_id, _ in check(db)[1]] == [1]
    assert main(["db", "check", str(db)]) == 1
    out = capsys.readouterr().out
    assert "room 1: its log does not replay (DamagedDatabase: room 1:" in out
    assert "room 2" not in out and "1 damaged room(s)" in out
    assert db.read_bytes() == before
    assert main(["db", "check", str(tmp_path / "missing.db")]) == 1
    assert "no database file" in capsys.readouterr().err
    (tmp_path / "empty.db").write_bytes(b"")
    assert main(["db", "check", str(tmp_path / "empty.db")]) == 1
    assert "empty.db holds no grailwar rooms" in capsys.readouterr().err


def test_db_backup_copies_a_database_while_a_store_writes(tmp_path: Path) -> None:
    """`grailwar db backup` while the server's Store appends actions: the copy passes
    quick_check, holds every room, and its actions are a gapless prefix of the log; the
    writer was not held up. An existing output file is refused."""
    db = tmp_path / "rooms.db"
    store = Store(db)
    playing_room(store)
    first = max(a for (a,) in store.db.execute("SELECT seq FROM actions WHERE room = 1"))
    writing, done = threading.Event(), threading.Event()
    written: list[int] = []

    def write() -> None:
        seq = first
        while not done.is_set() or len(written) < 50:
            seq += 1
            store.append_action(1, seq, {"type": "DeclareWait", "seat": 0}, "seat")
            written.append(seq)
            writing.set()

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert writing.wait(10)
        assert main(["db", "backup", str(db), str(tmp_path / "copy.db")]) == 0
    finally:
        done.set()
        writer.join(10)
    copy = sqlite3.connect(tmp_path / "copy.db")
    assert copy.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    seqs = [s for (s,) in copy.execute("SELECT seq FROM actions WHERE room = 1 ORDER BY seq")]
    assert seqs == list(range(1, len(seqs) + 1)) and seqs[-1] >= first
    assert copy.execute("SELECT name FROM rooms").fetchall() == [("rin's room",)]
    copy.close()
    assert written[-1] > seqs[-1]  # the writer went on during and after the copy
    store.close()
    with pytest.raises(FileExistsError):
        backup(db, tmp_path / "copy.db")
    assert main(["db", "backup", str(db), str(tmp_path / "copy.db")]) == 1


# --- item 4: the database stops growing -------------------------------------------------------
def churn(lobby: Lobby, rooms: int) -> None:
    """Rooms that start, play an action, and are given up by their only human (closed)."""
    for _ in range(rooms):
        room = lobby.create("churn", dict(OPTIONS), None, "10.0.0.1")
        member = FakeMember()
        room.join_player(member, "saber")
        room.add_bot("lancer", "heuristic")
        room.start()
        room.act(member, default_action(room.state, 0).to_dict(), room.state.version,
                 lambda _v: None)
        lobby.leave(member, room)


def finish(lobby: Lobby) -> int:
    """A game played to its end by its human (default actions), then left: a finished room."""
    room = lobby.create("finished", dict(OPTIONS), None, "10.0.0.2")
    member = FakeMember()
    room.join_player(member, "saber")
    room.add_bot("lancer", "heuristic")
    room.start()
    for _ in range(400):
        if room.state.over:
            break
        if 0 in room.state.prompt.seats:
            room.act(member, default_action(room.state, 0).to_dict(), room.state.version,
                     lambda _v: None)
        tick(lobby.clock, 5)
    assert room.state.over
    lobby.leave(member, room)
    return room.id


def counts(db: sqlite3.Connection) -> dict[str, int]:
    return {table: db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
            for table in ("rooms", "seats", "actions", "deadlines")}


def test_closed_rooms_are_purged_and_the_file_stops_growing(tmp_path: Path) -> None:
    """Under churn (rooms created, played, given up) the server's periodic purge keeps the
    row counts bounded and the file's pages are reused: rounds of churn after the first
    do not grow it (a few pages of slack for the B-trees' shapes). Ids are never reused,
    and a live room is never touched."""
    db = tmp_path / "rooms.db"
    server, reactor = service(db)
    server.startService()
    lobby, store = server.lobby, server.store
    live = lobby.create("live", dict(OPTIONS), None, "10.0.0.3")
    live.join_player(FakeMember(), "saber")
    sizes = []
    for _ in range(8):
        churn(lobby, 40)
        reactor.advance(PURGE_EVERY)
        sizes.append(store.db.execute("PRAGMA page_count").fetchone()[0])
        assert counts(store.db)["rooms"] == 1  # the live room alone
    assert max(sizes) <= sizes[0] * 1.25  # without the purge: 4 times as many pages
    assert store.next_room_id() == 8 * 40 + 2
    assert live.id in lobby.rooms and store.load_room(live.id).name == "live"
    server.stopService()


def test_finished_games_are_kept_for_their_retention_then_purged(tmp_path: Path) -> None:
    """A finished game closes with its time; it outlives a purge until `keep_days` have
    passed, then goes with its actions and seats. A restart purges at once what is due.
    `keep_days=0` keeps finished games forever."""
    db = tmp_path / "rooms.db"
    server, reactor = service(db, keep_days=2)
    server.startService()
    finished = finish(server.lobby)
    churn(server.lobby, 1)
    with contextlib.closing(sqlite3.connect(db)) as raw:
        assert raw.execute("SELECT finished FROM rooms WHERE id = ?",
                           (finished,)).fetchone()[0] == pytest.approx(reactor.seconds())
    reactor.advance(PURGE_EVERY)
    rows = counts(server.store.db)
    assert rows["rooms"] == 1 and rows["actions"] > 0
    reactor.advance(DAY)
    assert counts(server.store.db)["rooms"] == 1
    server.stopService()

    server, reactor = service(db, keep_days=0)
    reactor.advance(10 * DAY)
    server.startService()
    assert counts(server.store.db)["rooms"] == 1  # kept forever
    server.stopService()

    server, reactor = service(db, keep_days=2)
    reactor.advance(10 * DAY)
    server.startService()  # purged at start, before any period has passed
    assert counts(server.store.db) == {"rooms": 0, "seats": 0, "actions": 0, "deadlines": 0}
    server.stopService()


def test_a_purge_takes_at_most_its_batch_and_only_closed_rooms_past_retention() -> None:
    """Store.purge: closed unfinished rooms go (from every table with a `room` column),
    finished ones once older than `keep`, open ones never; at most `limit` per call (the
    server's periodic purge stays short); the next id stays above every purged one."""
    store = Store()
    store.db.execute("CREATE TABLE IF NOT EXISTS chat (room INTEGER NOT NULL, id INTEGER "
                     "NOT NULL, entry TEXT NOT NULL, PRIMARY KEY (room, id)) WITHOUT ROWID")
    for room_id in range(1, 8):
        playing_room(store, room_id)
        store.db.execute("INSERT INTO chat VALUES (?, 1, '{}')", (room_id,))
    for room_id in (1, 2, 3):
        store.close_room(room_id)  # given up
    store.close_room(4, finished=100.0)
    store.close_room(5, finished=900.0)
    assert store.purge(now=1000.0, keep=500.0, limit=2) == 2
    assert store.purge(now=1000.0, keep=500.0, limit=2) == 2
    assert store.purge(now=1000.0, keep=500.0, limit=2) == 0
    for table in ("seats", "actions", "chat"):  # chat: any table with a `room` column
        left = {rid for (rid,) in store.db.execute(f"SELECT DISTINCT room FROM {table}")}
        assert left == {5, 6, 7}, table
    assert store.open_room_ids() == [6, 7]
    assert store.purge(now=2000.0, keep=0, limit=10) == 0  # 0: finished games kept forever
    store.close_room(7)
    assert store.purge(now=2000.0, keep=500.0) == 2  # room 5 aged out, room 7 given up
    assert store.next_room_id() == 8
    store.close()
