"""The server's rooms send their views in slices of the reactor's turns.

Why. An action is acknowledged as soon as it is durable, and its room's views wait for the next
reactor turn (`Room._after_change`), so that the acknowledgement never waits behind them. But
a turn that read many actions (200 busy rooms) then made all their views at once: seed-002
rooms at 200 (`bench/server_load.py`) had turns of 60-90 ms doing nothing else, and every
action that arrived meanwhile waited for its acknowledgement behind all of them.

What instead. A room whose views wait joins one queue for the whole server, once, in the order
the rooms changed; each turn sends the waiting rooms' views until `BUDGET` seconds are spent
(one room at least), and leaves the rest for the next turn, after the reactor has read what
arrived meanwhile. A room that changes again while it waits stays in its place: its views then
carry both changes (its events in order, the latest view), as they did before.

Measured (200 seed-002 rooms, 60 s, two pairs): the acting player's p99 60 and 96 ms → 11.6 and
9.1 ms. The views themselves wait as long as before: this orders the work, it does not shrink
it (the broadcast p99 stayed at 100-150 ms on a server 75% busy). The base game, 40% busy,
hardly fills a slice: unchanged.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from twisted.internet.interfaces import IDelayedCall, IReactorTime

BUDGET = 0.004  # seconds of views per reactor turn


class Viewed(Protocol):
    def send_views(self) -> None: ...


class Broadcasts:
    """The rooms whose views wait, first come first sent, `budget` seconds of them a turn."""

    def __init__(self, clock: IReactorTime, budget: float = BUDGET,
                 timer: Callable[[], float] = time.perf_counter) -> None:
        self.clock, self.budget, self.timer = clock, budget, timer
        self._waiting: dict[Viewed, None] = {}  # an ordered set
        self._call: IDelayedCall | None = None

    def add(self, room: Viewed) -> None:
        """`room`'s views wait (it keeps its place if they waited already)."""
        self._waiting[room] = None
        if self._call is None:
            self._call = self.clock.callLater(0, self._send)

    def waiting(self, room: Viewed) -> bool:
        return room in self._waiting

    def discard(self, room: Viewed) -> None:
        """`room` sent its views itself (or stopped): it waits no more."""
        self._waiting.pop(room, None)
        if not self._waiting and self._call is not None:
            if self._call.active():
                self._call.cancel()
            self._call = None

    def _send(self) -> None:
        self._call = None
        began = self.timer()
        while self._waiting:
            room = next(iter(self._waiting))
            del self._waiting[room]
            room.send_views()
            if self.timer() - began >= self.budget:
                break
        if self._waiting and self._call is None:
            self._call = self.clock.callLater(0, self._send)
