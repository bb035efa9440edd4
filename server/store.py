"""Durable room logs in SQLite (WAL): an action is written here before it is acknowledged.

One database holds every room: its options and seed, its seats (with hashed tokens), the
ordered list of accepted actions, the deadlines of the running timers, and its last chat lines
(with who may read each); and the
banned addresses. A restarted server rebuilds each room by replaying its actions from
the seed.

Each statement commits on its own (autocommit). In WAL mode with synchronous=NORMAL a commit
survives the server process being killed at any moment (SIGKILL, a crash): the WAL is in the
operating system's cache. A power cut may lose the last commits; `synchronous="FULL"` syncs the
WAL at every commit and survives that too, at the price of one fsync per action.

Checkpoints (copying the WAL into the database file, with an fsync) run on a thread of their
own every second, so the reactor's thread only ever appends to the WAL.

The running server stamps `alive` every second; a restart moves every deadline by the time the
server was down (`resume_clock`), so a timer keeps the time it had left when the server stopped.

Damage is loud: opening a file that is not a database, or one that fails `PRAGMA quick_check`,
raises `DamagedDatabase`; a room whose stored log cannot be read raises it from `load_room`, for
that room alone. Closed rooms are purged (`purge`) except finished games within their retention.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
from twisted.internet import defer

SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, options TEXT NOT NULL,
    password TEXT, seed INTEGER NOT NULL, started INTEGER NOT NULL DEFAULT 0,
    owner INTEGER NOT NULL DEFAULT 0, masters TEXT NOT NULL DEFAULT '[]',
    closed INTEGER NOT NULL DEFAULT 0, finished REAL, paused TEXT
);
CREATE TABLE IF NOT EXISTS seats (
    room INTEGER NOT NULL, seat INTEGER NOT NULL, cls TEXT, kind TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '', token TEXT, level TEXT NOT NULL DEFAULT 'normal',
    servant TEXT,
    PRIMARY KEY (room, seat)
);
CREATE TABLE IF NOT EXISTS actions (
    room INTEGER NOT NULL, seq INTEGER NOT NULL, action BLOB NOT NULL, source TEXT NOT NULL,
    PRIMARY KEY (room, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS deadlines (
    room INTEGER NOT NULL, seat INTEGER NOT NULL, kind TEXT NOT NULL, due REAL NOT NULL,
    PRIMARY KEY (room, seat)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value);
CREATE TABLE IF NOT EXISTS chat (
    room INTEGER NOT NULL, id INTEGER NOT NULL, entry TEXT NOT NULL,
    PRIMARY KEY (room, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS bans (address TEXT PRIMARY KEY, until REAL, reason TEXT NOT NULL);
"""


@dataclass
class SeatRow:
    seat: int
    cls: str | None
    kind: str
    name: str
    token: str | None
    level: str
    servant: str | None = None  # chosen before the start (`choose`), summoned at the start


@dataclass
class RoomRow:
    id: int
    name: str
    options: dict[str, Any]
    password: str | None
    seed: int
    started: bool
    owner: int
    masters: list[str]
    seats: list[SeatRow]
    actions: list[tuple[dict[str, Any], str]]
    deadlines: dict[int, tuple[str, float]]
    chat: list[dict[str, Any]] = field(default_factory=list)  # the kept lines, oldest first
    # a paused game: each prompted seat's timer kind and the seconds it had left (None: runs)
    paused: dict[int, tuple[str, float]] | None = None


def pause_text(left: dict[int, tuple[str, float]] | None) -> str | None:
    """The `rooms.paused` column of both stores: JSON {seat: [kind, seconds left]}, or NULL."""
    return None if left is None else json.dumps({str(s): [k, t] for s, (k, t) in left.items()})


def pause_of(text: str | None) -> dict[int, tuple[str, float]] | None:
    if text is None:
        return None
    return {int(s): (str(k), float(t)) for s, (k, t) in json.loads(text).items()}


class DamagedDatabase(Exception):
    """The database file, or one room's log in it, cannot be read as written."""


def read_room(execute: Callable[..., Any], room_id: int, mark: str, where: str) -> RoomRow:
    """One room as stored, through a DB-API connection's `execute` whose parameter marker is
    `mark` ("?" for sqlite3, "%s" for psycopg): both stores hold the same tables. A room
    missing from `where`, or a stored field that no longer decodes, is DamagedDatabase."""
    try:
        found = execute("SELECT name, options, password, seed, started, owner, masters, paused "
                        f"FROM rooms WHERE id = {mark}", (room_id,)).fetchone()
        if found is None:
            raise DamagedDatabase(f"no room {room_id} in {where}")
        name, options, password, seed, started, owner, masters, paused = found
        seats = [SeatRow(*r) for r in execute(
            "SELECT seat, cls, kind, name, token, level, servant FROM seats "
            f"WHERE room = {mark} ORDER BY seat", (room_id,))]
        actions = [(msgpack.unpackb(a), src) for a, src in execute(
            f"SELECT action, source FROM actions WHERE room = {mark} ORDER BY seq", (room_id,))]
        deadlines = {seat: (kind, due) for seat, kind, due in execute(
            f"SELECT seat, kind, due FROM deadlines WHERE room = {mark}", (room_id,))}
        chat = [json.loads(e) for (e,) in execute(
            f"SELECT entry FROM chat WHERE room = {mark} ORDER BY id", (room_id,))]
        return RoomRow(room_id, name, json.loads(options), password, seed, bool(started),
                       owner, json.loads(masters), seats, actions, deadlines, chat,
                       pause_of(paused))
    except (ValueError, TypeError, msgpack.UnpackException) as err:
        # json.JSONDecodeError and msgpack's ExtraData are ValueErrors
        raise DamagedDatabase(f"room {room_id}: a stored field does not decode: "
                              f"{err}") from err


def require_sound(db: sqlite3.Connection, path: str | Path) -> None:
    """SQLite's own check of the file's structure (`PRAGMA quick_check`, which reads every
    page): DamagedDatabase naming the file and the first problems found."""
    try:
        problems = [row[0] for row in db.execute("PRAGMA quick_check")]
    except sqlite3.DatabaseError as err:  # "file is not a database", "disk image is malformed"
        raise DamagedDatabase(f"{path} cannot be read as a database: {err}") from None
    if problems != ["ok"]:
        raise DamagedDatabase(f"{path} fails SQLite's quick_check: {'; '.join(problems[:5])}")


class StoreReader:
    """Reads rooms from a database; `Store` writes too, `open_read_only` is for the operator's
    tools (`grailwar db check`), which must never write to a running server's file."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    @classmethod
    def open_read_only(cls, path: str | Path) -> StoreReader:
        if not Path(path).is_file():
            raise DamagedDatabase(f"no database file {path}")
        db = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
        try:
            require_sound(db, path)
            if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'rooms'").fetchone() is None:
                raise DamagedDatabase(f"{path} holds no grailwar rooms (empty, or another "
                                      "program's database)")
        except DamagedDatabase:
            db.close()
            raise
        return cls(db)

    def close(self) -> None:
        self.db.close()

    def open_room_ids(self) -> list[int]:
        return [rid for (rid,) in self.db.execute(
            "SELECT id FROM rooms WHERE closed = 0 ORDER BY id")]

    def is_open(self, room_id: int) -> bool:
        return self.db.execute("SELECT 1 FROM rooms WHERE id = ? AND closed = 0",
                               (room_id,)).fetchone() is not None

    def load_room(self, room_id: int) -> RoomRow:
        """One open room as stored; DamagedDatabase if a stored field no longer decodes."""
        return read_room(self.db.execute, room_id, "?", "the database")

    def load_rooms(self) -> list[RoomRow]:
        return [self.load_room(rid) for rid in self.open_room_ids()]

    def next_room_id(self) -> int:
        """Never an id used before, not even one whose room was purged (a player's stored seat
        in a purged room must get `room_not_found`, not another room)."""
        row = self.db.execute(
            "SELECT MAX(COALESCE((SELECT MAX(id) FROM rooms), 0), "
            "COALESCE((SELECT value FROM meta WHERE key = 'last_room'), 0)) + 1").fetchone()
        return int(row[0])


class Checkpointer(threading.Thread):
    """Copies the WAL into the database file every `every` seconds, on its own connection.

    SQLite's automatic checkpoint runs inside the commit that crosses 1,000 WAL pages, on the
    reactor's thread, and fsyncs: a pause of 10-20 ms every few hundred actions under load. A
    PASSIVE checkpoint from this thread does not block the writer (sqlite3 releases the GIL
    while it works). Under steady writes it never catches up with the end of the WAL, and the
    WAL only starts over once a checkpoint has copied all of it: so when the WAL passes
    `restart_frames`, a last PASSIVE checkpoint runs holding the store's write lock (it copies
    only what was committed since the previous one: a pause of a few ms every several
    seconds), and the next commit starts the WAL over."""

    def __init__(self, path: str, lock: threading.Lock, every: float,
                 restart_frames: int = 4096) -> None:
        super().__init__(name="grailwar-checkpoint", daemon=True)
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.lock = lock
        self.every = every
        self.restart_frames = restart_frames
        self.halt = threading.Event()
        self.start()

    def run(self) -> None:
        try:
            while not self.halt.wait(self.every):
                self.checkpoint()
        finally:
            self.db.close()

    def _passive(self) -> tuple[int, int]:
        _busy, frames, copied = self.db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()[0]
        return frames, copied

    def checkpoint(self) -> None:
        try:
            frames, _copied = self._passive()  # up to the end of the WAL as it began
            if frames > self.restart_frames:
                self._passive()  # what was committed meanwhile: less to do under the lock
                with self.lock:  # no commit meanwhile: this one reaches the real end
                    self._passive()
        except sqlite3.Error:  # busy, or a full disk: the next round tries again
            pass

    def stop(self) -> None:
        self.halt.set()
        self.join(timeout=10)


class Store(StoreReader):
    """The one place the server writes to disk."""

    def __init__(self, path: str | Path = ":memory:", synchronous: str = "NORMAL",
                 checkpoint_every: float | None = 1.0) -> None:
        if synchronous.upper() not in ("NORMAL", "FULL"):
            raise ValueError(f"synchronous: NORMAL or FULL, not {synchronous!r}")
        self.path = str(path)
        super().__init__(sqlite3.connect(self.path, isolation_level=None,
                                         check_same_thread=False))
        try:
            require_sound(self.db, self.path)  # before anything is written to it
        except DamagedDatabase:
            self.db.close()
            raise
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(f"PRAGMA synchronous={synchronous.upper()}")
        self.db.executescript(SCHEMA)
        self._migrate()
        self._deadlines: dict[int, dict[int, tuple[str, float]]] = {}  # as last written
        self.lock = threading.Lock()  # held by every write, and by a checkpoint's last step
        self._checkpointer: Checkpointer | None = None
        if checkpoint_every and self.path != ":memory:" and not self.path.startswith("file:"):
            # Checkpoints (which fsync) move to a thread; the server's commits only append.
            self.db.execute("PRAGMA wal_autocheckpoint=0")
            self.db.execute(f"PRAGMA journal_size_limit={64 * 1024 * 1024}")
            self._checkpointer = Checkpointer(self.path, self.lock, checkpoint_every)

    def close(self) -> None:
        """Stop the checkpoints, fold the WAL back into the database file, then close it."""
        try:
            if self._checkpointer is not None:
                self._checkpointer.stop()
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self.db.close()

    # --- the server's clock across restarts ------------------------------------------------
    def _migrate(self) -> None:
        """Columns added since a store was first written (a server upgraded in place keeps
        its rooms): seats.servant (the roster, issue 9), rooms.finished (the retention),
        rooms.paused (a paused game, issue 13)."""
        for table, column, kind in (("seats", "servant", "TEXT"), ("rooms", "finished", "REAL"),
                                    ("rooms", "paused", "TEXT")):
            columns = {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}
            if column not in columns:
                self.db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")

    def _write(self, sql: str, args: tuple = ()) -> None:
        with self.lock:
            self.db.execute(sql, args)

    def save_motd(self, text: str) -> None:
        """The operator's message of the day, kept across restarts ("": none)."""
        self._write("INSERT OR REPLACE INTO meta (key, value) VALUES ('motd', ?)", (text,))

    def motd(self) -> str:
        row = self.db.execute("SELECT value FROM meta WHERE key = 'motd'").fetchone()
        return str(row[0]) if row is not None else ""

    def mark_alive(self, now: float) -> None:
        self._write("INSERT OR REPLACE INTO meta (key, value) VALUES ('alive', ?)", (now,))

    def resume_clock(self, now: float) -> float:
        """Move every saved deadline by the time since the server was last alive; returns that
        downtime (0 for a new database)."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'alive'").fetchone()
        downtime = max(0.0, now - float(row[0])) if row is not None else 0.0
        with self.lock, self.db:
            self.db.execute("BEGIN")
            if downtime:
                self.db.execute("UPDATE deadlines SET due = due + ?", (downtime,))
            self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('alive', ?)",
                            (now,))
        return downtime

    def create_room(self, room_id: int, name: str, options: dict[str, Any],
                    password: str | None, seed: int) -> None:
        self._write("INSERT INTO rooms (id, name, options, password, seed) VALUES "
                    "(?, ?, ?, ?, ?)", (room_id, name, json.dumps(options), password, seed))

    def save_room(self, room_id: int, started: bool, owner: int, masters: list[str]) -> None:
        self._write("UPDATE rooms SET started = ?, owner = ?, masters = ? WHERE id = ?",
                    (int(started), owner, json.dumps(masters), room_id))

    def save_pause(self, room_id: int, left: dict[int, tuple[str, float]] | None) -> None:
        """The game paused (each prompted seat's timer and seconds left) or running (None)."""
        self._write("UPDATE rooms SET paused = ? WHERE id = ?", (pause_text(left), room_id))

    def close_room(self, room_id: int, finished: float | None = None) -> None:
        """`finished`: when a room whose game is over closed; its retention counts from then."""
        self._write("UPDATE rooms SET closed = 1, finished = ? WHERE id = ?",
                    (finished, room_id))
        self._deadlines.pop(room_id, None)

    def purge(self, now: float, keep: float, limit: int = 100) -> int:
        """Delete up to `limit` closed rooms (rows, seats, actions, deadlines): every room that
        closed without a finished game, and finished games older than `keep` seconds (0: kept
        forever). Open rooms (live or quarantined) are never touched. Returns how many went;
        their pages are reused by the rooms written next, so the file stops growing."""
        expired = "finished IS NULL" if keep <= 0 else "finished IS NULL OR finished < ?"
        args = () if keep <= 0 else (now - keep,)
        ids = [(rid,) for (rid,) in self.db.execute(
            f"SELECT id FROM rooms WHERE closed = 1 AND ({expired}) LIMIT ?", (*args, limit))]
        if not ids:
            return 0
        with self.lock, self.db:
            self.db.execute("BEGIN")
            self.db.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('last_room', "
                "MAX(COALESCE((SELECT value FROM meta WHERE key = 'last_room'), 0), "
                "(SELECT MAX(id) FROM rooms)))")
            for table in self._room_tables():
                self.db.executemany(f"DELETE FROM {table} WHERE room = ?", ids)
            self.db.executemany("DELETE FROM rooms WHERE id = ?", ids)
        return len(ids)

    def _room_tables(self) -> list[str]:
        """Every table with a `room` column holds rows of one room (seats, actions, deadlines,
        and any table added later): a purged room's rows go from all of them."""
        tables = [name for (name,) in self.db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")]
        return [t for t in tables
                if "room" in {row[1] for row in self.db.execute(f"PRAGMA table_info({t})")}]

    def save_seat(self, room_id: int, row: SeatRow) -> None:
        self._write(
            "INSERT OR REPLACE INTO seats (room, seat, cls, kind, name, token, level, servant) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (room_id, row.seat, row.cls, row.kind, row.name, row.token, row.level, row.servant))

    def append_action(self, room_id: int, seq: int, action: dict[str, Any],
                      source: str) -> defer.Deferred:
        """Committed here, on the caller's thread (a WAL append takes microseconds): the
        Deferred has fired already, so the acknowledgement goes out in the same call."""
        self._write("INSERT INTO actions (room, seq, action, source) VALUES (?, ?, ?, ?)",
                    (room_id, seq, msgpack.packb(action), source))
        return defer.succeed(None)

    def save_chat(self, room_id: int, line_id: int, entry: dict[str, Any],
                  keep: int | None = None) -> None:
        """Write a chat line (or its new form: a secret roll revealed); with `keep`, the
        room keeps only its last `keep` lines."""
        with self.lock, self.db:
            self.db.execute("BEGIN")
            self.db.execute("INSERT OR REPLACE INTO chat (room, id, entry) VALUES (?, ?, ?)",
                            (room_id, line_id, json.dumps(entry, ensure_ascii=False)))
            if keep is not None:
                self.db.execute("DELETE FROM chat WHERE room = ? AND id <= ?",
                                (room_id, line_id - keep))

    def save_deadlines(self, room_id: int, deadlines: dict[int, tuple[str, float]]) -> None:
        """Replace the room's deadlines (skipped when they are the ones already written)."""
        if self._deadlines.get(room_id) == deadlines:
            return
        with self.lock, self.db:
            self.db.execute("BEGIN")
            self.db.execute("DELETE FROM deadlines WHERE room = ?", (room_id,))
            self.db.executemany(
                "INSERT INTO deadlines (room, seat, kind, due) VALUES (?, ?, ?, ?)",
                [(room_id, seat, kind, due) for seat, (kind, due) in deadlines.items()])
        self._deadlines[room_id] = dict(deadlines)

    # --- banned addresses (server/bans.py) ---------------------------------------------------
    def save_ban(self, address: str, until: float | None, reason: str) -> None:
        self._write("INSERT OR REPLACE INTO bans (address, until, reason) VALUES (?, ?, ?)",
                    (address, until, reason))

    def delete_ban(self, address: str) -> None:
        self._write("DELETE FROM bans WHERE address = ?", (address,))

    def load_bans(self) -> list[tuple[str, float | None, str]]:
        return list(self.db.execute("SELECT address, until, reason FROM bans"))

    # --- ownership: one server per file (its flock), so every room is always its own -------
    def claim(self, room_id: int) -> float | None:
        """Always this server's (0 s without an owner: `resume_clock` moved every timer)."""
        return 0.0

    def release(self, room_id: int) -> None:
        """Nothing to give up: no other server shares the file."""

