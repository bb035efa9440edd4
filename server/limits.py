"""Rate limits: a token bucket, buckets per address that outlive a connection, and the growing
lockout of repeated wrong room passwords.

Counting per address (not per connection) is what makes a reconnect loop pointless. Every table
here forgets an entry once it holds nothing a fresh entry would not, so the tables stay as
small as the set of addresses that were active in the last minute or so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from twisted.internet.interfaces import IReactorTime

from ..shared.protocol import ProtocolError

Key = TypeVar("Key")

PASSWORD_FREE_FAILURES = 5  # wrong passwords per room and address before the lockout starts
PASSWORD_WINDOW = 60.0  # seconds: failures further apart than this (after a lockout) start over
PASSWORD_MAX_LOCKOUT = 1024.0  # seconds: the longest wait (2^10)


class RateLimit:
    """A token bucket: `rate` messages per `per` seconds, with bursts up to `burst` (by
    default `rate`)."""

    def __init__(self, clock: IReactorTime, rate: float, per: float,
                 burst: float | None = None) -> None:
        self.clock = clock
        self.rate = rate
        self.per = per
        self.burst = rate if burst is None else burst
        self.tokens = self.burst
        self.stamp = clock.seconds()

    def _refilled(self) -> float:
        return min(self.burst,
                   self.tokens + (self.clock.seconds() - self.stamp) * self.rate / self.per)

    def allow(self) -> bool:
        self.tokens = self._refilled()
        self.stamp = self.clock.seconds()
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    @property
    def full(self) -> bool:
        """Refilled to the brim: forgetting this bucket changes nothing."""
        return self._refilled() >= self.burst


class _Expiring(Generic[Key]):
    """A table whose stale entries are swept at most once per `every` seconds."""

    def __init__(self, clock: IReactorTime, every: float) -> None:
        self.clock = clock
        self.every = every
        self.swept = clock.seconds()

    def _sweep(self, table: dict[Key, Any], stale: Callable[[Any], bool]) -> None:
        now = self.clock.seconds()
        if now - self.swept < self.every:
            return
        self.swept = now
        for key in [k for k, v in table.items() if stale(v)]:
            del table[key]


class AddressLimit(_Expiring[str]):
    """`rate` per `per` seconds for each address, whatever its connections."""

    def __init__(self, clock: IReactorTime, rate: float, per: float, what: str) -> None:
        super().__init__(clock, per)
        self.rate = rate
        self.per = per
        self.what = what
        self.buckets: dict[str, RateLimit] = {}

    def allow(self, address: str) -> bool:
        self._sweep(self.buckets, lambda b: b.full)
        bucket = self.buckets.get(address)
        if bucket is None:
            bucket = self.buckets[address] = RateLimit(self.clock, self.rate, self.per)
        return bucket.allow()

    def check(self, address: str) -> None:
        if not self.allow(address):
            raise ProtocolError("rate_limited", f"at most {self.rate:g} {self.what} per "
                                f"{self.per:g} seconds from one address")


@dataclass
class _Failures:
    count: int
    last: float

    @property
    def lockout(self) -> float:
        """Seconds after the last failure during which every attempt is refused."""
        beyond = self.count - PASSWORD_FREE_FAILURES
        return 0.0 if beyond < 0 else min(2.0 ** (beyond + 1), PASSWORD_MAX_LOCKOUT)


class PasswordGuard(_Expiring[tuple[int, str]]):
    """Wrong passwords per (room, address): after PASSWORD_FREE_FAILURES of them, each further
    attempt waits twice as long as the one before (2, 4, 8 … seconds after the last failure)."""

    def __init__(self, clock: IReactorTime) -> None:
        super().__init__(clock, PASSWORD_WINDOW)
        self.failures: dict[tuple[int, str], _Failures] = {}

    def _stale(self, entry: _Failures) -> bool:
        return self.clock.seconds() - entry.last >= entry.lockout + PASSWORD_WINDOW

    def check(self, room: int, address: str) -> None:
        """Refuse the attempt while (room, address) is locked out."""
        self._sweep(self.failures, self._stale)
        entry = self.failures.get((room, address))
        if entry is None:
            return
        if self._stale(entry):
            del self.failures[(room, address)]
            return
        wait = entry.last + entry.lockout - self.clock.seconds()
        if wait > 0:
            raise ProtocolError("rate_limited", f"too many wrong passwords for this room: "
                                f"try again in {wait:.0f} s")

    def failed(self, room: int, address: str) -> None:
        entry = self.failures.setdefault((room, address), _Failures(0, 0.0))
        entry.count += 1
        entry.last = self.clock.seconds()

    def passed(self, room: int, address: str) -> None:
        self.failures.pop((room, address), None)
