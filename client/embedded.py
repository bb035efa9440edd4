"""A local server inside the client's process: `GrailService` on a free loopback port, with an
in-memory database. `grailwar play` starts one; the client then talks to it over TCP exactly as
to a remote server (so the same code paths are played and tested)."""

from __future__ import annotations

import json
from typing import Any

from ..server.app import GrailService


class LocalServer:
    def __init__(self, reactor: Any, db: str = ":memory:", bot_delay: float | None = None) -> None:
        self.reactor = reactor
        # One player makes every room here, from 127.0.0.1: no per-address limits; and the
        # client's process keeps Python's own garbage collector settings.
        # `bot_delay`: its bots wait that long, in every battle too (tests and the tour go fast)
        pace = {} if bot_delay is None else {"bot_delay": bot_delay, "bot_pace": bot_delay}
        self.service = GrailService(reactor, db, host="127.0.0.1", port=0, max_per_address=256,
                                    rooms_per_address=10_000, tune_gc=False, **pace)
        self.port = 0

    def start(self) -> int:
        """Listen on a free loopback port; returns it."""
        self.service.startService()
        self.port = self.service.listening.getHost().port
        return self.port

    def stop(self) -> None:
        if self.service.running:
            self.service.stopService()

    @property
    def lobby(self) -> Any:
        return self.service.lobby

    def replay(self, room_id: int) -> dict[str, Any] | None:
        """The room's replay (the server's own log), even before the game is over."""
        room = self.lobby.rooms.get(room_id) if self.lobby else None
        return None if room is None else room.replay()


def dump_replay(replay: dict[str, Any]) -> str:
    return json.dumps(replay, ensure_ascii=False, indent=1)
