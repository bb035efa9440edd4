"""Issue 38 item 12: while PostgreSQL was unreachable, a cluster server logged a critical
traceback at every round (looking for rooms to adopt, every second, and every lease renewal).
An outage is now two warning lines: the database gone, and back with the outage's length."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from grailwar.server.app import GrailService
from twisted.internet import defer
from twisted.internet.task import Clock
from twisted.logger import LogLevel, globalLogPublisher


@pytest.fixture
def logged() -> Iterator[list[dict[str, Any]]]:
    events: list[dict[str, Any]] = []
    globalLogPublisher.addObserver(events.append)
    yield events
    globalLogPublisher.removeObserver(events.append)


class AwayStore:
    """A store whose database is away until `back` is set."""

    def __init__(self) -> None:
        self.back = False

    def ownerless_rooms(self) -> list[int]:
        if not self.back:
            raise OSError("connection refused")
        return []

    def renew(self) -> defer.Deferred:
        if not self.back:
            return defer.fail(OSError("connection refused"))
        return defer.succeed(set())


def said(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    from twisted.logger import formatEvent

    return [(e["log_level"].name, formatEvent(e)) for e in events
            if e.get("log_namespace", "").startswith("grailwar.server")
            and e["log_level"] >= LogLevel.warn]


def test_an_outage_is_one_line_when_it_begins_and_one_when_it_ends(logged) -> None:
    clock = Clock()
    service = GrailService(clock, ":memory:", "127.0.0.1", 0)
    service.store = store = AwayStore()
    service.lobby = SimpleNamespace(may_adopt=True, rooms={}, quarantined={})
    for _ in range(12):  # rounds of a 12 s outage: adopting every second, renewing every 3
        service._adopt_ownerless()
        if clock.seconds() % 3 == 0:
            service._renew_leases()
        clock.advance(1)
    store.back = True
    service._renew_leases()
    service._adopt_ownerless()
    lines = said(logged)
    assert [level for level, _ in lines] == ["warn", "warn"], lines
    assert lines[0][1] == ("the database is unreachable (looking for rooms to adopt: connection "
                           "refused); the rooms wait, and the server keeps trying")
    assert lines[1][1] == "the database is back after 12.0 s"
