"""The operator's tools for a server's database, usable while the server runs: `check` reads
the file (never writes it) and replays every open room; `backup` copies it consistently."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from twisted.internet.task import Clock

from .lobby import RoomDamaged, replay_room
from .roomstore import is_postgresql
from .store import Store, StoreReader, require_sound


def check(path: str | Path) -> tuple[int, list[tuple[int, str]]]:
    """SQLite's quick_check (DamagedDatabase if it fails), then a replay of every open room:
    how many were replayed, and the rooms a server would quarantine, each with why. The
    replays write their timers to a scratch store in memory, so the checked file is only read.
    A PostgreSQL URL: the replays alone (the database checks its own pages)."""
    reader: Any
    if is_postgresql(str(path)):
        from .pgstore import PgStore

        reader = PgStore(str(path))
    else:
        reader = StoreReader.open_read_only(path)
    scratch = Store(":memory:")
    damaged = []
    try:
        rooms = reader.open_room_ids()
        for room_id in rooms:
            try:
                replay_room(reader, room_id, Clock(), scratch).stop()
            except RoomDamaged as err:
                damaged.append((room_id, str(err)))
    finally:
        reader.close()
        scratch.close()
    return len(rooms), damaged


def backup(path: str | Path, out: str | Path) -> int:
    """An online backup (SQLite's backup API, in one step: one read transaction, which in WAL
    mode does not hold up the server's writes) into the new file `out`, then checked; returns
    its size in pages. Refuses to overwrite a file."""
    if Path(out).exists():
        raise FileExistsError(f"{out} exists; a backup is written to a new file")
    source = StoreReader.open_read_only(path)
    target = sqlite3.connect(out)
    try:
        source.db.backup(target)
        require_sound(target, out)
        return int(target.execute("PRAGMA page_count").fetchone()[0])
    finally:
        target.close()
        source.close()


# Each table as the SQLite store has it, in an order that PostgreSQL can take row by row.
MOVED = {
    "rooms": "id, name, options, password, seed, started, owner, masters, closed, finished",
    "seats": "room, seat, cls, kind, name, token, level, servant",
    "actions": "room, seq, action, source",
    "deadlines": "room, seat, kind, due",
    "chat": "room, id, entry",
    "bans": "address, until, reason",
}


def migrate(path: str | Path, url: str, now: float) -> int:
    """Copy a SQLite server's database (every room, open or kept, with its seats, actions,
    deadlines and chat; the bans and the message of the day) into the PostgreSQL database at
    `url`, in one transaction; returns how many rooms moved. Refuses (ValueError) when a room
    id is in both. The timers are moved by the time the SQLite server has been down (as its
    own restart would), and the new rooms' ids continue after the moved ones'."""
    from .pgstore import PgStore

    reader = StoreReader.open_read_only(path)
    target = PgStore(url)
    try:
        clash = target.db.execute("SELECT id FROM rooms WHERE id = ANY(%s) ORDER BY id LIMIT 5",
                                  ([rid for (rid,) in reader.db.execute(
                                      "SELECT id FROM rooms")],)).fetchall()
        if clash:
            raise ValueError(f"room(s) {', '.join(str(r) for (r,) in clash)} are in the "
                             "PostgreSQL database already")
        alive = reader.db.execute("SELECT value FROM meta WHERE key = 'alive'").fetchone()
        downtime = max(0.0, now - float(alive[0])) if alive else 0.0
        meta = dict(reader.db.execute("SELECT key, value FROM meta WHERE key IN "
                                      "('motd', 'last_room')").fetchall())
        with target.db.transaction(), target.db.cursor() as cur:
            for table, columns in MOVED.items():
                rows = reader.db.execute(f"SELECT {columns} FROM {table}").fetchall()
                if table == "deadlines":
                    rows = [(room, seat, kind, due + downtime) for room, seat, kind, due in rows]
                marks = ", ".join(["%s"] * len(columns.split(",")))
                cur.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", rows)
            if "motd" in meta:
                cur.execute("INSERT INTO meta (key, value) VALUES ('motd', %s) ON CONFLICT "
                            "(key) DO UPDATE SET value = EXCLUDED.value", (str(meta["motd"]),))
            top = max(int(meta.get("last_room") or 0), reader.next_room_id() - 1)
            if top:
                cur.execute("SELECT setval('room_ids', GREATEST(%s, (SELECT last_value FROM "
                            "room_ids)))", (top,))
        return int(reader.db.execute("SELECT COUNT(*) FROM rooms").fetchone()[0])
    finally:
        reader.close()
        target.close()
