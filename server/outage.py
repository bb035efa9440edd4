"""A cluster server's view of its database's outages, said in two log lines: one when the
database goes away, one when it is back with the outage's length.

While PostgreSQL is unreachable, the lease renewals and the look for rooms to adopt fail at
every round (every second or so); each used to log a critical traceback, so an outage of a
minute drowned the log in hundreds of them. The rounds go on (they are how the server finds
the database back); only the first failure and the first success after it are told.
"""

from __future__ import annotations

from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger

log = Logger()


class DatabaseWatch:
    def __init__(self, clock: IReactorTime) -> None:
        self.clock = clock
        self.since: float | None = None  # when the outage began (None: the database answers)

    def failed(self, doing: str, why: str) -> None:
        """A round that needed the database failed (`doing`: what it was)."""
        if self.since is None:
            self.since = self.clock.seconds()
            log.warn("the database is unreachable ({doing}: {why}); the rooms wait, and the "
                     "server keeps trying", doing=doing, why=why)

    def answered(self) -> None:
        """A round that needed the database succeeded."""
        if self.since is not None:
            log.warn("the database is back after {s:.1f} s", s=self.clock.seconds() - self.since)
            self.since = None
