"""A progress bar on stderr for the long commands (`simulate`, `tournament`): games done and
the time left, estimated from the games so far. Drawn only on a terminal, so that a redirected
or `--json` run stays clean."""

from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 30


def clock(seconds: float) -> str:
    """1:05, or 1:02:05 past an hour."""
    minutes, secs = divmod(int(seconds + 0.5), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Progress:
    """`tick(done)` after each game; the bar is drawn at once (0 done) so that a run whose
    first game takes minutes says it has started."""

    def __init__(self, total: int, shown: bool, out: TextIO | None = None,
                 now: float | None = None) -> None:
        self.total, self.shown = total, shown
        self.out = out or sys.stderr
        self.start = time.monotonic() if now is None else now
        self.tick(0, self.start)

    def line(self, done: int, now: float) -> str:
        bar = "#" * (done * WIDTH // self.total)
        elapsed = now - self.start
        left = (f"{clock(elapsed / done * (self.total - done))} left" if done
                else "estimating the time left")
        return f"\r[{bar:.<{WIDTH}}] {done}/{self.total} games · {left}"

    def tick(self, done: int, now: float | None = None) -> None:
        if self.shown:
            self.out.write(self.line(done, time.monotonic() if now is None else now))
            self.out.flush()

    def close(self) -> None:
        if self.shown:
            self.out.write("\n")
