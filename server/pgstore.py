"""Room logs in PostgreSQL (psycopg 3), for a server or a cluster of servers sharing one database.

The same tables as the SQLite store, plus `leases`: each room is owned by one process at a
time, for `lease_s` seconds renewed every third of that, with an epoch that grows at every
change of owner (a lease given up lapses at once; its row, and so its epoch, stays). Every
append carries its server's epoch, checked in the same statement against the database's own
clock: an action whose room's lease lapsed or moved is refused (`AppendRefused`), so a process
cut off from the others can never write behind the back of the one that adopted its room
(fencing). Once an append of a room failed, the ones queued behind it fail too: the log never
has a hole.

Writes never run on the reactor's thread: one writer thread takes them in the order they were
made and commits whatever has queued up meanwhile in one transaction (a group commit: under
load one round trip and one WAL flush carry many actions). Each append's Deferred fires, on
the reactor's thread (`deliver`), once its transaction committed. Reads (start-up, adoption,
the operator's tools, a new room's id) are short and run on a connection of their own.
"""

from __future__ import annotations

import collections
import functools
import json
import os
import queue
import socket
import threading
from collections.abc import Callable
from typing import Any

import msgpack
import psycopg
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from .roomstore import LEASE_S, AppendRefused
from .store import DamagedDatabase, RoomRow, SeatRow, pause_text, read_room

SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    id BIGINT PRIMARY KEY, name TEXT NOT NULL, options TEXT NOT NULL,
    password TEXT, seed BIGINT NOT NULL, started INTEGER NOT NULL DEFAULT 0,
    owner INTEGER NOT NULL DEFAULT 0, masters TEXT NOT NULL DEFAULT '[]',
    closed INTEGER NOT NULL DEFAULT 0, finished DOUBLE PRECISION
);
CREATE TABLE IF NOT EXISTS seats (
    room BIGINT NOT NULL, seat INTEGER NOT NULL, cls TEXT, kind TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '', token TEXT, level TEXT NOT NULL DEFAULT 'normal',
    servant TEXT, PRIMARY KEY (room, seat)
);
CREATE TABLE IF NOT EXISTS actions (
    room BIGINT NOT NULL, seq INTEGER NOT NULL, action BYTEA NOT NULL, source TEXT NOT NULL,
    PRIMARY KEY (room, seq)
);
CREATE TABLE IF NOT EXISTS deadlines (
    room BIGINT NOT NULL, seat INTEGER NOT NULL, kind TEXT NOT NULL,
    due DOUBLE PRECISION NOT NULL, PRIMARY KEY (room, seat)
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS chat (
    room BIGINT NOT NULL, id INTEGER NOT NULL, entry TEXT NOT NULL, PRIMARY KEY (room, id)
);
CREATE TABLE IF NOT EXISTS bans (address TEXT PRIMARY KEY, until DOUBLE PRECISION,
                                 reason TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS leases (
    room BIGINT PRIMARY KEY, owner TEXT NOT NULL, epoch BIGINT NOT NULL,
    expires TIMESTAMPTZ NOT NULL,
    renewed TIMESTAMPTZ NOT NULL  -- when its owner was last known alive
);
CREATE SEQUENCE IF NOT EXISTS room_ids;
ALTER TABLE rooms ADD COLUMN IF NOT EXISTS paused TEXT;  -- a paused game (issue 13)
"""
ROOM_TABLES = ("seats", "actions", "deadlines", "chat", "leases")
BATCH = 256  # writes committed together at most


def process_name() -> str:
    """Who holds a lease: unique per process, readable in the table by an operator."""
    return f"{socket.gethostname()}:{os.getpid()}:{os.urandom(3).hex()}"


class _Job:
    """One unit of writing: `run(cursor)` inside the writer's transaction; its result (or
    failure) goes to `done` on the reactor's thread, when there is one."""

    __slots__ = ("deferred", "room", "run")

    def __init__(self, run: Callable[[psycopg.Cursor], Any], deferred: Deferred | None,
                 room: int | None = None) -> None:
        self.run = run
        self.deferred = deferred
        self.room = room  # an append's room: once one fails, the room's later ones do too


def reconnecting(read: Callable[..., Any]) -> Callable[..., Any]:
    """A read that meets a connection the database closed (a restart, a failover, an idle
    timeout: psycopg learns it only then) runs once more on a new one."""

    @functools.wraps(read)
    def again(store: PgStore, *args: Any, **kwargs: Any) -> Any:
        try:
            return read(store, *args, **kwargs)
        except psycopg.OperationalError:
            store._db.close()
            store._db = psycopg.connect(store.url, autocommit=True)
            return read(store, *args, **kwargs)

    return again


class PgStore:
    """The PostgreSQL room log; `deliver` is `reactor.callFromThread` in a server (None: the
    results wait for `settle`, as in the tests)."""

    def __init__(self, url: str, deliver: Callable[..., Any] | None = None,
                 lease_s: float = LEASE_S, owner: str | None = None) -> None:
        self.url = url
        self.path = url  # what the logs name
        self.deliver = deliver
        self.lease_s = lease_s
        self.owner = owner or process_name()
        try:
            self._db = psycopg.connect(url, autocommit=True)
        except psycopg.Error as err:
            raise DamagedDatabase(f"cannot reach the PostgreSQL database {redact(url)}: "
                                  f"{err}".strip()) from None
        with self.db.transaction():
            self.db.execute("SELECT pg_advisory_xact_lock(7707)")  # one schema creation at once
            self.db.execute(SCHEMA)
        self.epochs: dict[int, int] = {}  # the rooms this process holds, and their lease epoch
        # rooms an append of which failed: the later ones are refused (the log has no hole)
        # until the room is claimed again, from its log
        self._broken: set[int] = set()
        self._deadlines: dict[int, dict[int, tuple[str, float]]] = {}
        self._jobs: queue.Queue[_Job | None] = queue.Queue()
        self._finished: collections.deque[tuple[Deferred, Any]] = collections.deque()
        self._writer_db = psycopg.connect(url)
        self._writer = threading.Thread(target=self._write_loop, name="grailwar-pg-writer",
                                        daemon=True)
        self._writer.start()

    # --- the writer thread --------------------------------------------------------------------
    def _queue(self, run: Callable[[psycopg.Cursor], Any], wait: bool = False,
               room: int | None = None) -> Deferred | None:
        deferred = Deferred() if wait else None
        self._jobs.put(_Job(run, deferred, room))
        return deferred

    def _write(self, sql: str, args: tuple | dict = ()) -> None:
        self._queue(lambda cur: cur.execute(sql, args))

    def _write_loop(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                self._jobs.task_done()
                return
            batch = [job]
            while len(batch) < BATCH:
                try:
                    more = self._jobs.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._jobs.put(None)  # the stop comes after this batch
                    self._jobs.task_done()
                    break
                batch.append(more)
            results = self._commit(batch)
            for done in zip(batch, results, strict=True):
                if done[0].deferred is not None:
                    self._finished.append((done[0].deferred, done[1]))
            if self.deliver is not None:
                self.deliver(self._fire)
            for _ in batch:
                self._jobs.task_done()

    def _commit(self, batch: list[_Job]) -> list[Any]:
        """Every job of the batch in one transaction; if the database fails it, each job in
        a transaction of its own, so that a fault costs only the job that caused it."""
        try:
            return self._transaction(batch)
        except psycopg.Error:
            return [self._alone(job) for job in batch]

    def _transaction(self, batch: list[_Job]) -> list[Any]:
        results: list[Any] = []
        with self._writer_db.transaction(), self._writer_db.cursor() as cur:
            for job in batch:
                try:
                    results.append(job.run(cur))
                except AppendRefused:
                    results.append(self._broke(job, Failure()))
        return results

    def _broke(self, job: _Job, failure: Failure) -> Failure:
        if job.room is not None:
            self._broken.add(job.room)
        return failure

    def _alone(self, job: _Job) -> Any:
        try:
            if self._writer_db.closed or self._writer_db.broken:
                self._writer_db = psycopg.connect(self.url)
            return self._transaction([job])[0]
        except psycopg.Error as err:
            return self._broke(job, Failure(AppendRefused(
                f"the database did not take it: {err}".strip())))

    def _fire(self) -> None:
        """On the reactor's thread: fire the Deferreds of what was committed, in order."""
        while self._finished:
            deferred, result = self._finished.popleft()
            if isinstance(result, Failure):
                deferred.errback(result)
            else:
                deferred.callback(result)

    def settle(self) -> None:
        """Wait until every write queued so far is committed, and fire their Deferreds here
        (tests, tools and shutdown)."""
        self._jobs.join()
        self._fire()

    def close(self) -> None:
        """Finish the queued writes, give up this process's leases (another process adopts the
        rooms at once), close both connections."""
        if self._writer.is_alive():
            owner = self.owner
            self._write("UPDATE leases SET expires = now(), renewed = now() WHERE owner = %s",
                        (owner,))
            self._jobs.put(None)
            self._writer.join(timeout=30)
        self._fire()
        self._writer_db.close()
        self._db.close()

    # --- reading ------------------------------------------------------------------------------
    @property
    def db(self) -> psycopg.Connection:
        """The reading connection (autocommit); see `reconnecting`."""
        if self._db.closed or self._db.broken:
            self._db = psycopg.connect(self.url, autocommit=True)
        return self._db

    @reconnecting
    def open_room_ids(self) -> list[int]:
        return [rid for (rid,) in self.db.execute(
            "SELECT id FROM rooms WHERE closed = 0 ORDER BY id")]

    @reconnecting
    def is_open(self, room_id: int) -> bool:
        return self.db.execute("SELECT 1 FROM rooms WHERE id = %s AND closed = 0",
                               (room_id,)).fetchone() is not None

    @reconnecting
    def load_room(self, room_id: int) -> RoomRow:
        """One open room as stored; DamagedDatabase if a stored field no longer decodes."""
        row = read_room(self.db.execute, room_id, "%s", redact(self.url))
        self._deadlines[room_id] = dict(row.deadlines)
        return row

    def load_rooms(self) -> list[RoomRow]:
        return [self.load_room(rid) for rid in self.open_room_ids()]

    def _meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = %s", (key,)).fetchone()
        return None if row is None else row[0]

    @reconnecting
    def motd(self) -> str:
        return self._meta("motd") or ""

    @reconnecting
    def load_bans(self) -> list[tuple[str, float | None, str]]:
        return [tuple(r) for r in self.db.execute("SELECT address, until, reason FROM bans")]

    @reconnecting
    def next_room_id(self) -> int:
        """From a sequence: unique across every process of the cluster, never reused."""
        return int(self.db.execute("SELECT nextval('room_ids')").fetchone()[0])

    # --- writing ------------------------------------------------------------------------------
    def create_room(self, room_id: int, name: str, options: dict[str, Any],
                    password: str | None, seed: int) -> None:
        self._write("INSERT INTO rooms (id, name, options, password, seed) VALUES "
                    "(%s, %s, %s, %s, %s)", (room_id, name, json.dumps(options), password, seed))

    def save_room(self, room_id: int, started: bool, owner: int, masters: list[str]) -> None:
        self._write("UPDATE rooms SET started = %s, owner = %s, masters = %s WHERE id = %s",
                    (int(started), owner, json.dumps(masters), room_id))

    def save_seat(self, room_id: int, row: SeatRow) -> None:
        self._write(
            "INSERT INTO seats (room, seat, cls, kind, name, token, level, servant) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (room, seat) DO UPDATE SET "
            "cls = EXCLUDED.cls, kind = EXCLUDED.kind, name = EXCLUDED.name, "
            "token = EXCLUDED.token, level = EXCLUDED.level, servant = EXCLUDED.servant",
            (room_id, row.seat, row.cls, row.kind, row.name, row.token, row.level, row.servant))

    def append_action(self, room_id: int, seq: int, action: dict[str, Any],
                      source: str) -> Deferred:
        """Queued now, committed by the writer; the Deferred fires once it is durable, or
        fails with AppendRefused: the lease of the room lapsed or moved (its epoch), or an
        earlier action of the room was not written (an action never follows a lost one)."""
        epoch = self.epochs.get(room_id)
        args = {"room": room_id, "seq": seq, "action": msgpack.packb(action),
                "source": source, "epoch": epoch, "owner": self.owner}

        def run(cur: psycopg.Cursor) -> None:
            if room_id in self._broken:
                raise AppendRefused(f"an earlier action of room {room_id} was not written")
            cur.execute(
                "INSERT INTO actions (room, seq, action, source) "
                "SELECT %(room)s, %(seq)s, %(action)s, %(source)s "
                "WHERE %(epoch)s::bigint IS NULL OR EXISTS (SELECT 1 FROM leases WHERE "
                "      room = %(room)s AND owner = %(owner)s AND epoch = %(epoch)s "
                "      AND expires > now())", args)
            if cur.rowcount != 1:
                raise AppendRefused(self._why_refused(cur, args))

        deferred = self._queue(run, wait=True, room=room_id)
        assert deferred is not None
        return deferred

    @staticmethod
    def _why_refused(cur: psycopg.Cursor, args: dict[str, Any]) -> str:
        lease = cur.execute("SELECT owner, epoch FROM leases WHERE room = %(room)s",
                            args).fetchone()
        if lease is None or (lease[1], lease[0]) != (args["epoch"], args["owner"]):
            return (f"room {args['room']} is owned by another server now (lease epoch "
                    f"{lease[1] if lease else 'none'}, this server held {args['epoch']})")
        return f"this server's lease on room {args['room']} lapsed"

    def save_chat(self, room_id: int, line_id: int, entry: dict[str, Any],
                  keep: int | None = None) -> None:
        text = json.dumps(entry, ensure_ascii=False)

        def run(cur: psycopg.Cursor) -> None:
            cur.execute("INSERT INTO chat (room, id, entry) VALUES (%s, %s, %s) ON CONFLICT "
                        "(room, id) DO UPDATE SET entry = EXCLUDED.entry",
                        (room_id, line_id, text))
            if keep is not None:
                cur.execute("DELETE FROM chat WHERE room = %s AND id <= %s",
                            (room_id, line_id - keep))

        self._queue(run)

    def save_deadlines(self, room_id: int, deadlines: dict[int, tuple[str, float]]) -> None:
        """Replace the room's deadlines (skipped when they are the ones already written)."""
        if self._deadlines.get(room_id) == deadlines:
            return
        rows = [(room_id, seat, kind, due) for seat, (kind, due) in deadlines.items()]

        def run(cur: psycopg.Cursor) -> None:
            cur.execute("DELETE FROM deadlines WHERE room = %s", (room_id,))
            if rows:
                cur.executemany("INSERT INTO deadlines (room, seat, kind, due) VALUES "
                                "(%s, %s, %s, %s)", rows)

        self._queue(run)
        self._deadlines[room_id] = dict(deadlines)

    def save_pause(self, room_id: int, left: dict[int, tuple[str, float]] | None) -> None:
        """The game paused (each prompted seat's timer and seconds left) or running (None)."""
        self._write("UPDATE rooms SET paused = %s WHERE id = %s", (pause_text(left), room_id))

    def close_room(self, room_id: int, finished: float | None = None) -> None:
        """Closed, and its lease given up."""
        self._write("UPDATE rooms SET closed = 1, finished = %s WHERE id = %s",
                    (finished, room_id))
        self._write("UPDATE leases SET expires = now(), renewed = now() WHERE room = %s AND "
                    "owner = %s",
                    (room_id, self.owner))
        for kept in (self._deadlines, self.epochs):
            kept.pop(room_id, None)

    @reconnecting
    def purge(self, now: float, keep: float, limit: int = 100) -> int:
        """As the SQLite store's: up to `limit` closed rooms, every one that closed without a
        finished game and finished games older than `keep` seconds (0: kept forever)."""
        expired = "finished IS NULL" if keep <= 0 else "(finished IS NULL OR finished < %s)"
        args: tuple = () if keep <= 0 else (now - keep,)
        with self.db.transaction():
            ids = [rid for (rid,) in self.db.execute(
                f"SELECT id FROM rooms WHERE closed = 1 AND {expired} LIMIT %s "
                "FOR UPDATE SKIP LOCKED", (*args, limit))]
            for table in ROOM_TABLES:
                self.db.execute(f"DELETE FROM {table} WHERE room = ANY(%s)", (ids,))
            self.db.execute("DELETE FROM rooms WHERE id = ANY(%s)", (ids,))
        return len(ids)

    def save_motd(self, text: str) -> None:
        self._set_meta("motd", text)

    def _set_meta(self, key: str, value: str) -> None:
        self._write("INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE "
                    "SET value = EXCLUDED.value", (key, value))

    def save_ban(self, address: str, until: float | None, reason: str) -> None:
        self._write("INSERT INTO bans (address, until, reason) VALUES (%s, %s, %s) ON CONFLICT "
                    "(address) DO UPDATE SET until = EXCLUDED.until, reason = EXCLUDED.reason",
                    (address, until, reason))

    def delete_ban(self, address: str) -> None:
        self._write("DELETE FROM bans WHERE address = %s", (address,))

    # --- the clock, and the leases ----------------------------------------------------------
    def mark_alive(self, now: float) -> None:
        """Nothing: a room's lease, renewed, is its owner's sign of life (`renew`)."""

    def resume_clock(self, now: float) -> float:
        """0: each room's downtime is measured from its own lease when it is claimed."""
        return 0.0

    @reconnecting
    def claim(self, room_id: int) -> float | None:
        """Take the room's lease if nobody holds it (a new room, one whose owner closed or
        died) or this process does (a new epoch: what it queued under the old one is refused):
        returns how long the room went without an owner (its timers are moved by that),
        or None if another process holds it."""
        row = self.db.execute(
            "WITH old AS (SELECT expires, renewed FROM leases WHERE room = %(room)s) "
            "INSERT INTO leases (room, owner, epoch, expires, renewed) VALUES (%(room)s, "
            "  %(owner)s, 1, now() + make_interval(secs => %(lease)s), now()) "
            "ON CONFLICT (room) DO UPDATE SET owner = EXCLUDED.owner, "
            "  epoch = leases.epoch + 1, expires = EXCLUDED.expires, renewed = now() "
            "  WHERE leases.expires <= now() OR leases.owner = EXCLUDED.owner "
            "RETURNING epoch, (SELECT CASE WHEN expires > now() THEN 0 ELSE EXTRACT(EPOCH "
            "  FROM now() - renewed) END FROM old)",
            {"room": room_id, "owner": self.owner, "lease": self.lease_s}).fetchone()
        if row is None:
            return None
        self.epochs[room_id] = int(row[0])
        self._broken.discard(room_id)  # what was queued under the old epoch is fenced off
        return max(0.0, float(row[1])) if row[1] is not None else 0.0

    @reconnecting
    def ownerless_rooms(self) -> list[int]:
        """Open rooms whose lease lapsed (or that never had one): theirs to adopt."""
        return [rid for (rid,) in self.db.execute(
            "SELECT id FROM rooms r WHERE closed = 0 AND NOT EXISTS (SELECT 1 FROM leases l "
            "WHERE l.room = r.id AND l.expires > now()) ORDER BY id")]

    def renew(self) -> Deferred:
        """Renew every lease this process holds, at its epoch; fires with the rooms whose
        lease another process took meanwhile (they are no longer this process's)."""
        held = dict(self.epochs)

        def run(cur: psycopg.Cursor) -> set[int]:
            cur.execute(
                "UPDATE leases l SET expires = now() + make_interval(secs => %s), "
                "renewed = now() "
                "FROM unnest(%s::bigint[], %s::bigint[]) AS h(room, epoch) "
                "WHERE l.room = h.room AND l.epoch = h.epoch AND l.owner = %s RETURNING l.room",
                (self.lease_s, list(held), list(held.values()), self.owner))
            return set(held) - {rid for (rid,) in cur.fetchall()}

        deferred = self._queue(run, wait=True)
        assert deferred is not None
        return deferred

    def release(self, room_id: int) -> None:
        """Give the room up (this process stops serving it; another may adopt it at once)."""
        epoch = self.epochs.pop(room_id, None)
        self._deadlines.pop(room_id, None)
        if epoch is not None:
            self._write("UPDATE leases SET expires = now(), renewed = now() WHERE room = %s "
                        "AND owner = %s AND epoch = %s", (room_id, self.owner, epoch))


def redact(url: str) -> str:
    """A database URL without its password, for the logs."""
    return psycopg.conninfo.make_conninfo(url, password="***") if "@" in url else url
