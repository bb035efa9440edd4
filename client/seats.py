"""The seats this client holds on remote servers, kept on disk beside client.json.

A seat token is the only way back into a seat, so a client that crashed or was closed would
lose its seat with its memory. `SeatBook` keeps `seats.json` (mode 0600: the tokens are
secrets) keyed by `host:port`, then room id: {token, seat, room, cls, when}. `SeatKeeper`
watches one session and writes the book as the server speaks: a seat is kept on `joined`,
renamed from `room`, and forgotten when the player leaves on purpose, is kicked, the game is
over or the server no longer knows the room or the token. Local play never uses a keeper: its
embedded server is new on every start, so its tokens would mean nothing.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..shared.protocol import CLOSED_BY_OPERATOR
from . import config

GONE = ("bad_token", "room_not_found")  # the server's word that a stored seat is no more
# `left` reasons that void the token (not `resumed elsewhere`)
GIVEN_UP = ("left", "kicked", CLOSED_BY_OPERATOR)


@dataclass(frozen=True)
class HeldSeat:
    """One seat of a room on a server, as the book keeps it."""

    room: int
    token: str
    seat: int
    name: str = ""  # the room's name, as the lobby shows it
    cls: str = ""  # the seat's class, once a `room` message said it
    when: float = 0.0  # when the seat was taken (time.time())


def seats_path() -> Path:
    """Beside client.json, so the GRAILWAR_CONFIG override moves both."""
    return config.config_path().with_name("seats.json")


class SeatBook:
    """The tokens file: read on every question, written whole on every change."""

    def __init__(self, path: Path | None = None, clock: Callable[[], float] = time.time) -> None:
        self.path = path or seats_path()
        self.clock = clock

    def held(self, server: str) -> list[HeldSeat]:
        """The seats kept for `server`, the newest first."""
        rooms = self._load().get(server, {})
        seats = [seat for key, entry in rooms.items() if (seat := _entry(key, entry))]
        return sorted(seats, key=lambda s: s.when, reverse=True)

    def seat_in(self, server: str, room: int) -> HeldSeat | None:
        return next((s for s in self.held(server) if s.room == room), None)

    def keep(self, server: str, room: int, token: str, seat: int, name: str = "") -> None:
        self._put(server, HeldSeat(room, token, seat, name, "", self.clock()))

    def describe(self, server: str, room: int, name: str, cls: str) -> None:
        """The room's name and the seat's class, once the room says them."""
        held = self.seat_in(server, room)
        if held is not None and (held.name, held.cls) != (name, cls):
            self._put(server, HeldSeat(held.room, held.token, held.seat, name, cls, held.when))

    def forget(self, server: str, rooms: list[int]) -> None:
        data = self._load()
        kept = data.get(server, {})
        if not any(str(room) in kept for room in rooms):
            return
        for room in rooms:
            kept.pop(str(room), None)
        if not kept:
            data.pop(server, None)
        self._save(data)

    def _put(self, server: str, seat: HeldSeat) -> None:
        data = self._load()
        entry = asdict(seat)
        del entry["room"]
        data.setdefault(server, {})[str(seat.room)] = entry
        self._save(data)

    def _load(self) -> dict[str, dict[str, Any]]:
        return {k: v for k, v in config.read_map(self.path).items() if isinstance(v, dict)}

    def _save(self, data: dict[str, Any]) -> None:
        """Best effort, like client.json (a read-only home must not stop the game)."""
        with contextlib.suppress(OSError):
            config.write_private(self.path, data)


def _entry(key: str, entry: Any) -> HeldSeat | None:
    """One stored seat, or None if the file holds something else there."""
    if not key.isdigit() or not isinstance(entry, dict):
        return None
    token, seat = entry.get("token"), entry.get("seat")
    if not isinstance(token, str) or not token or type(seat) is not int:
        return None
    name, cls, when = entry.get("name", ""), entry.get("cls", ""), entry.get("when", 0.0)
    return HeldSeat(int(key), token, seat, name if isinstance(name, str) else "",
                    cls if isinstance(cls, str) else "",
                    float(when) if isinstance(when, (int, float)) else 0.0)


class SeatKeeper:
    """Keeps the book in step with one session's server, and takes a kept seat back."""

    def __init__(self, book: SeatBook, session: Any) -> None:
        self.book = book
        self.session = session
        self.current: int | None = None  # the room this session sits in, or is resuming
        self.on_gone: list[Callable[[], None]] = []  # a resumed seat turned out to be gone

    @property
    def server(self) -> str:
        return f"{self.session.host}:{self.session.port}"

    def held(self) -> list[HeldSeat]:
        return self.book.held(self.server)

    def rejoin(self, seat: HeldSeat) -> bool:
        """Ask the server for the kept seat back (`resume` with its token)."""
        self.current = seat.room
        return self.session.resume(seat.room, seat.token)

    def take(self, msg: dict[str, Any]) -> None:
        """A session listener: runs before the screens route the message."""
        kind = msg.get("t")
        if kind == "joined":
            self._joined(msg)
        elif kind == "room" and self.current is not None:
            self._described(msg["room"])
        elif kind == "state" and self.current is not None and msg["view"].get("over"):
            self._forget_current()  # the game is over: nothing to come back to
        elif kind == "left":
            if msg.get("reason") in GIVEN_UP:
                self._forget_current()
            self.current = None
        elif kind == "error" and msg.get("code") in GONE and self.current is not None:
            self._forget_current()
            for callback in self.on_gone:
                callback()
        elif kind == "rooms" and msg["total"] == len(msg["rooms"]):
            self._prune({room["id"] for room in msg["rooms"]})

    def _joined(self, msg: dict[str, Any]) -> None:
        if msg["spectator"] or not msg["token"]:
            self.current = None
            return
        self.current = msg["room"]
        held = self.book.seat_in(self.server, msg["room"])
        if held is None or held.token != msg["token"]:
            listed = next((r["name"] for r in self.session.model.rooms
                           if r.get("id") == msg["room"]), "")
            self.book.keep(self.server, msg["room"], msg["token"], msg["seat"], listed)

    def _described(self, room: dict[str, Any]) -> None:
        if room.get("id") != self.current:
            return
        held = self.book.seat_in(self.server, self.current)
        if held is None:
            return
        cls = next((s.get("cls") or "" for s in room.get("seat_list", [])
                    if s.get("seat") == held.seat), "")
        self.book.describe(self.server, self.current, room.get("name", ""), cls)

    def _forget_current(self) -> None:
        if self.current is not None:
            self.book.forget(self.server, [self.current])
        self.current = None

    def _prune(self, listed: set[int]) -> None:
        """The whole room list came: a kept room missing from it is closed."""
        gone = [s.room for s in self.held() if s.room not in listed and s.room != self.current]
        if gone:
            self.book.forget(self.server, gone)
