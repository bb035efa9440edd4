"""The room log as one interface, two implementations: SQLite (`store.Store`, the default, one
file, nothing to set up) and PostgreSQL (`pgstore.PgStore`, for a server or a cluster of
servers sharing one database). Rooms, the lobby, the bans and the operator's tools only ever
talk to a `RoomStore`.

Every write keeps the order it was made in. `append_action` returns a Deferred that fires once
the action is durable: the acknowledgement waits for it (SQLite's fires at once, so its path is
as fast as before); it fails with `AppendRefused` when the store will not take the action (the
database is unreachable, the room's lease moved to another process), and the action was then
never written. The other writes are ordered before any later append of the same store.
"""

from __future__ import annotations

from typing import Any, Protocol

from twisted.internet.defer import Deferred

from .store import RoomRow, SeatRow

LEASE_S = 10.0  # seconds a server owns a room without renewing (a dead one's rooms wait this)


class AppendRefused(Exception):
    """The action was not written (and so must never be acknowledged); the message says why."""


class RoomStore(Protocol):
    """What the server needs of a durable room log."""

    # --- reading (start-up, adoption, the operator's tools) -------------------------------
    def open_room_ids(self) -> list[int]: ...

    def is_open(self, room_id: int) -> bool: ...

    def load_room(self, room_id: int) -> RoomRow: ...

    def motd(self) -> str: ...

    def load_bans(self) -> list[tuple[str, float | None, str]]: ...

    def next_room_id(self) -> int: ...

    # --- writing ------------------------------------------------------------------------------
    def create_room(self, room_id: int, name: str, options: dict[str, Any],
                    password: str | None, seed: int) -> None: ...

    def save_room(self, room_id: int, started: bool, owner: int, masters: list[str]) -> None: ...

    def save_seat(self, room_id: int, row: SeatRow) -> None: ...

    def append_action(self, room_id: int, seq: int, action: dict[str, Any],
                      source: str) -> Deferred: ...

    def save_chat(self, room_id: int, line_id: int, entry: dict[str, Any],
                  keep: int | None = None) -> None: ...

    def save_deadlines(self, room_id: int, deadlines: dict[int, tuple[str, float]]) -> None: ...

    def save_pause(self, room_id: int, left: dict[int, tuple[str, float]] | None) -> None:
        """The game paused, with each prompted seat's timer kind and seconds left; None: it
        runs again. A restart keeps a paused room paused, its timers as they were."""

    def close_room(self, room_id: int, finished: float | None = None) -> None: ...

    def purge(self, now: float, keep: float, limit: int = 100) -> int: ...

    def save_motd(self, text: str) -> None: ...

    def save_ban(self, address: str, until: float | None, reason: str) -> None: ...

    def delete_ban(self, address: str) -> None: ...

    # --- ownership: the room's lease (PostgreSQL), or always this server's (SQLite) -----------
    def claim(self, room_id: int) -> float | None:
        """Make the room this server's: the seconds it went without an owner (its timers move
        by them), or None if another server holds it."""

    def release(self, room_id: int) -> None: ...

    # --- the server's clock across restarts ---------------------------------------------------
    def mark_alive(self, now: float) -> None: ...

    def resume_clock(self, now: float) -> float: ...

    def close(self) -> None: ...


def is_postgresql(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))
