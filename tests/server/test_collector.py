"""The server's garbage collector policy (`server/collector.py`): a survivor of one young
collection is frozen out of every later scan, the older generations are never collected on
their own, a cycle that became garbage while frozen is freed by the hourly full collection,
and stopping gives the process its collector back."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from grailwar.server.app import HEARTBEAT, GrailService
from grailwar.server.collector import FULL_EVERY, NEVER, YOUNG, Collector
from twisted.internet.task import Clock
from twisted.internet.testing import MemoryReactorClock
from twisted.logger import formatEvent, globalLogPublisher


class Node:
    """A container object that can hold a cycle."""

    other: Any = None


@pytest.fixture
def collector() -> Iterator[tuple[Collector, Clock]]:
    clock = Clock()
    collector = Collector(clock)
    collector.start()
    try:
        yield collector, clock
    finally:
        collector.stop()


def scanned(obj: object) -> bool:
    """Whether a collection can still see `obj` (it is in one of the three generations)."""
    return any(o is obj for o in gc.get_objects())


def test_a_survivor_of_one_young_collection_is_never_scanned_again(collector: Any) -> None:
    assert gc.get_threshold() == (YOUNG, NEVER, NEVER)
    made = Node()
    assert scanned(made)
    gc.collect(0)
    assert not scanned(made)  # frozen: the middle and old generations never hold it


def test_a_young_collection_still_frees_a_young_cycle(collector: Any) -> None:
    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    del a, b
    gc.collect(0)
    assert gone() is None
    assert collector[0].totals[2] >= 2  # the objects it found are counted


def test_a_cycle_that_became_garbage_while_frozen_waits_for_the_hourly_collection(
        collector: Any) -> None:
    policy, clock = collector
    a = Node()
    a.other = a
    gone = weakref.ref(a)
    gc.collect(0)  # frozen while alive
    del a
    gc.collect(0)
    assert gone() is not None  # no young collection sees it
    clock.advance(FULL_EVERY - 1)
    assert gone() is not None and policy.full_collections == 0
    clock.advance(1)
    assert gone() is None and policy.full_collections == 1
    later = Node()
    gc.collect(0)
    assert not scanned(later)  # the full collection left the policy in place


def test_the_longest_pause_is_read_once(collector: Any) -> None:
    policy, _ = collector
    runs = policy.totals[0]
    gc.collect(0)
    assert policy.totals[0] == runs + 1
    assert policy.take_pause() > 0
    assert policy.take_pause() == 0


def test_stop_gives_the_process_its_collector_back() -> None:
    before = gc.get_threshold()
    policy = Collector(Clock())
    policy.start()
    policy.stop()
    assert gc.get_threshold() == before
    assert policy._watch not in gc.callbacks
    assert gc.get_freeze_count() == 0
    made = Node()
    gc.collect(0)
    assert scanned(made)


def test_the_service_runs_the_policy_and_logs_a_long_collection(tmp_path: Path) -> None:
    lines: list[str] = []

    def observe(event: dict[str, Any]) -> None:
        lines.append(formatEvent(event))

    before = gc.get_threshold()
    reactor = MemoryReactorClock()
    service = GrailService(reactor, str(tmp_path / "rooms.db"), port=0)
    globalLogPublisher.addObserver(observe)
    try:
        service.startService()
        assert service.collector is not None and gc.get_threshold()[0] == YOUNG
        service.collector.pause = 0.25  # as a collection of 250 ms would leave it
        reactor.advance(HEARTBEAT)
        assert any("a garbage collection paused the server 250 ms" in line for line in lines)
        service.stopService()
    finally:
        globalLogPublisher.removeObserver(observe)
    assert gc.get_threshold() == before and service.collector is None
    assert any("garbage collector:" in line and "0 full" in line for line in lines)
