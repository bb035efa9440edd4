"""The server's cyclic garbage collector: no collection on the allocation count, a full one
every `FULL_EVERY` seconds.

Why. Reference counting frees what a server drops while it plays: a collection found nothing in
a minute of 200 busy rooms (`bench/server_load.py`), and a closed room is freed without one
(`tests/server/test_collector.py`). What a collection costs is its scan, of whatever was
allocated since the last one and is still alive. The rooms' views, offers and records are
replaced at every action, so that young generation never stops filling: CPython's collector
started one every 50,000 net allocations, and with 200 seed-002 rooms each scanned 100,000
objects or more. An earlier policy froze every survivor of a young collection so that it was
scanned once only; the young collections still took 60-190 ms each, 30 a minute, 6-11 of them
over 100 ms, and those pauses made the seed-002 rooms' p99 (69-148 ms). Collecting young on a
timer instead (every 0.1-0.5 s) shortened the pauses but doubled the collector's CPU (the views
that outlive a short interval get scanned), and left 30 ms pauses twice a second. A full
collection whenever the process had grown by 64 MB (or a quarter) ran twice while 200 seed-002
rooms warmed up, 700-770 ms each.

What instead. The count never starts a collection. A full collection (every object) frees the
cycles every `FULL_EVERY` seconds, and logs what it found and how long it took: about a
second at 200 seed-002 rooms (~245 MB), once an hour, as the earlier policy's was.
"""

from __future__ import annotations

import gc
import time
from typing import Any

from twisted.internet import task
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger

log = Logger()
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
        gc.set_threshold(0)  # no collection on the allocation count
        gc.callbacks.append(self._watch)
        self._full.start(FULL_EVERY, now=False)

    def stop(self) -> None:
        if self._full.running:
            self._full.stop()
        if self._watch in gc.callbacks:
            gc.callbacks.remove(self._watch)
        gc.set_threshold(*self._saved)

    def take_pause(self) -> float:
        pause, self.pause = self.pause, 0.0
        return pause

    def collect_all(self) -> None:
        """Every object: the cycles that became garbage since the last time."""
        began = time.perf_counter()
        found = gc.collect()
        self.full_collections += 1
        log.info("full garbage collection: {found} objects found, {ms:.0f} ms", found=found,
                 ms=(time.perf_counter() - began) * 1e3)

    def _watch(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._began, self._cpu = time.perf_counter(), time.thread_time()
            return
        self.pause = max(self.pause, time.perf_counter() - self._began)
        self.totals[0] += 1
        self.totals[1] += time.thread_time() - self._cpu
        self.totals[2] += info["collected"]
