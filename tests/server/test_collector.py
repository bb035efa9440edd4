"""The server's garbage collector policy (`server/collector.py`): the allocation count never
starts a collection, a cycle that became garbage is freed by the hourly full collection, what
the server drops is freed without one (a closed room), and stopping gives the process its
collector back."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from grailwar.server.app import HEARTBEAT, GrailService
from grailwar.server.collector import FULL_EVERY, Collector
from server_kit import Server, one
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


def cycle() -> weakref.ref:
    """A cycle nothing else holds: only a collection frees it."""
    a = Node()
    a.other = a
    return weakref.ref(a)


def test_allocations_never_start_a_collection(collector: Any) -> None:
    policy, _ = collector
    assert gc.get_threshold()[0] == 0
    gone = cycle()
    kept = [[Node()] for _ in range(200_000)]  # four times CPython's largest default count
    assert gone() is not None and policy.totals[0] == 0
    del kept


def test_a_cycle_waits_for_the_hourly_collection(collector: Any) -> None:
    policy, clock = collector
    gone = cycle()
    clock.advance(FULL_EVERY - 1)
    assert gone() is not None and policy.full_collections == 0
    clock.advance(1)
    assert gone() is None and policy.full_collections == 1
    assert policy.totals[0] == 1 and policy.totals[2] >= 1  # what it found is counted


def test_a_closed_room_is_freed_without_a_collection(collector: Any) -> None:
    """Rooms come and go all day: what a closed one held must not wait for the hour."""
    server = Server()
    rin = server.wire(name="Rin")
    room_id = one(rin.ask("create_room", name="r", seats=2, cls="saber", declare_s=30),
                  "joined")["room"]
    rin.ask("add_bot", cls="lancer", level="normal")
    rin.ask("start")
    server.advance(5)  # a game under way: views, feeds, timers, a bot's calls
    gone = weakref.ref(server.lobby.rooms[room_id])
    server.lobby.close(room_id, "the operator closed it")
    server.advance(0)
    assert gone() is None
    assert collector[0].totals[0] == 0  # no collection ran


def test_the_longest_pause_is_read_once(collector: Any) -> None:
    policy, _ = collector
    policy.collect_all()
    assert policy.totals[0] == 1
    assert policy.take_pause() > 0
    assert policy.take_pause() == 0


def test_stop_gives_the_process_its_collector_back() -> None:
    before = gc.get_threshold()
    policy = Collector(Clock())
    policy.start()
    policy.stop()
    assert gc.get_threshold() == before
    assert policy._watch not in gc.callbacks


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
        assert service.collector is not None and gc.get_threshold()[0] == 0
        service.collector.pause = 0.25  # as a collection of 250 ms would leave it
        reactor.advance(HEARTBEAT)
        assert any("a garbage collection paused the server 250 ms" in line for line in lines)
        service.stopService()
    finally:
        globalLogPublisher.removeObserver(observe)
    assert gc.get_threshold() == before and service.collector is None
    assert any("garbage collector:" in line and "0 full" in line for line in lines)
