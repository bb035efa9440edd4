"""Banned addresses: refused when they connect, kept in the store across restarts.

An address is a connection's host in its normal spelling (`addresses.normal`: `203.0.113.7`,
`::1`; an IPv4-mapped `::ffff:203.0.113.7` is `203.0.113.7`), and so is every address given to
a ban; a ban lasts until its `until` (the server clock's seconds) or, without one, until it is
lifted.
"""

from __future__ import annotations

from twisted.internet.interfaces import IReactorTime

from .addresses import normal
from .roomstore import RoomStore


class Bans:
    def __init__(self, store: RoomStore, clock: IReactorTime) -> None:
        self.store = store
        self.clock = clock
        self.until: dict[str, float | None] = {
            address: until for address, until, _reason in store.load_bans()}

    def add(self, address: str, minutes: float | None = None, reason: str = "") -> float | None:
        """Ban `address` (for `minutes`, or until lifted); returns when it ends (None: never)."""
        until = None if minutes is None else self.clock.seconds() + minutes * 60
        address = normal(address)
        self.until[address] = until
        self.store.save_ban(address, until, reason)
        return until

    def remove(self, address: str) -> bool:
        """Lift the ban on `address`; False if it had none."""
        address = normal(address)
        if self.until.pop(address, "none") == "none":
            return False
        self.store.delete_ban(address)
        return True

    def active(self) -> list[str]:
        """The addresses banned now (expired bans are forgotten on the way)."""
        return [address for address in list(self.until) if self.refuses(address)]

    def refuses(self, address: str) -> bool:
        address = normal(address)
        if address not in self.until:
            return False
        until = self.until[address]
        if until is not None and until <= self.clock.seconds():  # expired: forgotten
            self.remove(address)
            return False
        return True
