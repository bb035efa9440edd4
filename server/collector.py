"""The server's cyclic garbage collector: one generation, each object scanned once and then
frozen; everything collected in full once an hour.

Why. CPython's collector counts its young generation net of frees. When a room's new views,
offers and records replace the old ones at every action, that count hardly grows while the
young objects pile up: with 200 campaign rooms (`bench/server_load.py`) and a threshold of
50,000, a young collection scanned ~120,000 objects (~100 ms), a middle one 330 ms, and the full
ones, which run whenever a quarter of the old generation is new (always, under that churn),
380-580 ms: 11-15 pauses of 100 ms or more a minute. They found nothing (0 objects in a
minute of 200 rooms): reference counting frees everything the server drops.

What instead. Everything alive at start-up is frozen (`gc.freeze`). Only the young generation
is collected, every `YOUNG` net allocations, and whatever survives it is frozen at once: no
later collection scans it again, so each object is scanned at most once. A frozen object is
still freed by reference counting; only a cycle that became garbage after it was frozen stays,
so every object is collected in full (unfrozen, collected, frozen again) every `FULL_EVERY`
seconds, which logs what it found and how long it took.

Measured (200 rooms, 40 s, the same host, alternated): campaign rooms 28 collections, 2.1 s of
CPU, the longest 143 ms (against 27, 2.6 s and 354 ms), the acting player's p99 133 ms against
299; the base game unchanged (5 young collections, 0.22 s). Smaller young thresholds shortened
the pauses further (1,000: 34 ms at the most) but cost 10-17% more of the server's CPU per
action in both games; the young pauses of campaign rooms are what is left of the tail.
"""

from __future__ import annotations

import gc
import time
from typing import Any

from twisted.internet import task
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger

log = Logger()
YOUNG = 50_000  # net allocations between two young collections
NEVER = 1 << 30  # the older generations' thresholds: they are never collected on their own
FULL_EVERY = 3_600.0  # seconds between two full collections


class Collector:
    """Installed by `start`, removed by `stop` (the process's collector as it was found);
    `pause` is the longest collection since `take_pause` last read it, `totals` what every
    collection cost and found."""

    def __init__(self, clock: IReactorTime) -> None:
        self._saved = gc.get_threshold()
        self.pause = 0.0
        self.totals = [0, 0.0, 0]  # collections, their CPU seconds, objects they found
        self.full_collections = 0
        self._began = self._cpu = 0.0
        self._full = task.LoopingCall(self.collect_all)
        self._full.clock = clock

    def start(self) -> None:
        gc.collect()
        gc.freeze()  # modules, rules data and the restored rooms
        gc.set_threshold(YOUNG, NEVER, NEVER)
        gc.callbacks.append(self._watch)
        self._full.start(FULL_EVERY, now=False)

    def stop(self) -> None:
        if self._full.running:
            self._full.stop()
        if self._watch in gc.callbacks:
            gc.callbacks.remove(self._watch)
        gc.unfreeze()
        gc.set_threshold(*self._saved)

    def take_pause(self) -> float:
        pause, self.pause = self.pause, 0.0
        return pause

    def collect_all(self) -> None:
        """Every object, frozen or not: the cycles that became garbage since the last time."""
        began = time.perf_counter()
        frozen = gc.get_freeze_count()
        gc.unfreeze()
        found = gc.collect()  # its callback freezes what survived
        self.full_collections += 1
        log.info("full garbage collection: {frozen} frozen objects, {found} found, {ms:.0f} ms",
                 frozen=frozen, found=found, ms=(time.perf_counter() - began) * 1e3)

    def _watch(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._began, self._cpu = time.perf_counter(), time.thread_time()
            return
        self.pause = max(self.pause, time.perf_counter() - self._began)
        self.totals[0] += 1
        self.totals[1] += time.thread_time() - self._cpu
        self.totals[2] += info["collected"]
        gc.freeze()  # what survived: never scanned again
