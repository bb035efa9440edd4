"""The local game kept between runs (issue 13: a long game spans evenings).

`grailwar play`'s embedded server writes its room log to `local.db` in the user's data folder
(the server's own SQLite store: the game comes back exactly, replayed from its seed and
actions, paused or not), and `local.json` (mode 0600) names the room and holds the seat's
token to take it back. A new game starts both afresh; a finished or abandoned game forgets
the seat.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .config import read_map, write_private


def data_dir() -> Path:
    """$GRAILWAR_DATA, else $XDG_DATA_HOME/grailwar, else ~/.local/share/grailwar."""
    override = os.environ.get("GRAILWAR_DATA")
    if override:
        return Path(override)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "grailwar"


@dataclass(frozen=True)
class SavedSeat:
    room: int
    token: str
    modules: tuple[str, ...] = ()  # the kept game's rules modules, for the title to name


class LocalSave:
    """The two files of the local game in `folder`."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or data_dir()

    @property
    def db(self) -> Path:
        return self.folder / "local.db"

    @property
    def seat_file(self) -> Path:
        return self.folder / "local.json"

    def held(self) -> SavedSeat | None:
        """The seat of the local game to continue, if there is one (and its room log)."""
        data = read_map(self.seat_file)
        room, token = data.get("room"), data.get("token")
        if type(room) is not int or not isinstance(token, str) or not token:
            return None
        modules = data.get("modules", [])
        modules = tuple(m for m in modules if isinstance(m, str)) if isinstance(
            modules, list) else ()
        return SavedSeat(room, token, modules) if self.db.is_file() else None

    def keep(self, room: int, token: str) -> None:
        write_private(self.seat_file, {"room": room, "token": token})

    def keep_modules(self, modules: list[str]) -> None:
        """The kept game's modules (its room's), beside its seat."""
        data = read_map(self.seat_file)
        if data and data.get("modules") != modules:
            write_private(self.seat_file, {**data, "modules": modules})

    def forget_seat(self) -> None:
        """The game is over, or was given up: nothing to continue (the log stays, closed)."""
        self.seat_file.unlink(missing_ok=True)

    def in_use(self) -> bool:
        """Another `grailwar play` runs on this log (its server holds the file's lock)."""
        try:
            import fcntl
        except ImportError:  # Windows: the server's own check is all there is
            return False
        try:
            fd = os.open(self.db, os.O_RDONLY)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        finally:
            os.close(fd)  # closing releases a lock taken here
        return False

    def start_afresh(self) -> str:
        """A new game: the old log and seat go; returns the database path for the server.
        OSError if another `grailwar play` is playing on it (it is left alone)."""
        if self.in_use():
            raise OSError(f"another grailwar play is using {self.db}")
        self.forget_seat()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.db}{suffix}").unlink(missing_ok=True)
        self.folder.mkdir(parents=True, exist_ok=True)
        return str(self.db)
