"""The operator's tools for a server's database, usable while the server runs: `check` reads
the file (never writes it) and replays every open room; `backup` copies it consistently."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from twisted.internet.task import Clock

from .lobby import RoomDamaged, replay_room
from .store import Store, StoreReader, require_sound


def check(path: str | Path) -> list[tuple[int, str]]:
    """SQLite's quick_check (DamagedDatabase if it fails), then a replay of every open room:
    the rooms a server would quarantine, each with why. The replays write their timers to a
    scratch store in memory, so the checked file is only read."""
    reader = StoreReader.open_read_only(path)
    scratch = Store(":memory:")
    damaged = []
    try:
        for room_id in reader.open_room_ids():
            try:
                replay_room(reader, room_id, Clock(), scratch).stop()
            except RoomDamaged as err:
                damaged.append((room_id, str(err)))
    finally:
        reader.close()
        scratch.close()
    return damaged


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
