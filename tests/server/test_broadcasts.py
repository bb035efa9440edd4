"""The rooms' views in slices of the reactor's turns (`server/broadcasts.py`): first come first
sent, each room once however often it changed meanwhile, `budget` seconds a turn and one room
at least, and nothing left scheduled once no room waits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from grailwar.server.broadcasts import Broadcasts


class Call:
    def __init__(self, f: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.f, self.args, self.cancelled, self.called = f, args, False, False

    def active(self) -> bool:
        return not (self.cancelled or self.called)

    def cancel(self) -> None:
        self.cancelled = True


class Reactor:
    """Turns as the reactor runs them: a call made in a turn waits for the next one (a
    `task.Clock` would run it in the same `advance`)."""

    def __init__(self) -> None:
        self.calls: list[Call] = []

    def callLater(self, _delay: float, f: Callable[..., Any], *args: Any) -> Call:
        self.calls.append(Call(f, args))
        return self.calls[-1]

    def turn(self) -> None:
        due, self.calls = self.calls, []
        for call in due:
            if call.active():
                call.called = True
                call.f(*call.args)

    def pending(self) -> list[Call]:
        return [c for c in self.calls if c.active()]


class Timer:
    """Seconds that pass only when a room sends its views (1 ms each)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Room:
    def __init__(self, name: str, sent: list[str], timer: Timer) -> None:
        self.name, self.sent, self.timer = name, sent, timer

    def send_views(self) -> None:
        self.sent.append(self.name)
        self.timer.now += 0.001


def setup(budget: float) -> tuple[Reactor, Broadcasts, list[str], list[Room]]:
    reactor, timer, sent = Reactor(), Timer(), []
    broadcasts = Broadcasts(reactor, budget, timer)  # type: ignore[arg-type]
    return reactor, broadcasts, sent, [Room(n, sent, timer) for n in "abcde"]


def test_views_go_first_come_first_sent_a_budget_a_turn() -> None:
    reactor, broadcasts, sent, rooms = setup(budget=0.0025)
    for room in rooms:
        broadcasts.add(room)
    assert sent == []  # not in the turn that read the actions
    reactor.turn()
    assert sent == ["a", "b", "c"]  # 3 ms spent: the budget is over
    assert broadcasts.waiting(rooms[3]) and not broadcasts.waiting(rooms[0])
    reactor.turn()  # the next turn (the reactor reads in between)
    assert sent == ["a", "b", "c", "d", "e"]
    assert not reactor.pending()


def test_a_room_that_changes_again_while_it_waits_keeps_its_place_and_goes_once() -> None:
    reactor, broadcasts, sent, (a, b, *_) = setup(budget=1.0)
    broadcasts.add(a)
    broadcasts.add(b)
    broadcasts.add(a)
    reactor.turn()
    assert sent == ["a", "b"]


def test_one_room_a_turn_however_small_the_budget() -> None:
    reactor, broadcasts, sent, (a, b, *_) = setup(budget=0.0)
    broadcasts.add(a)
    broadcasts.add(b)
    reactor.turn()
    assert sent == ["a"]
    reactor.turn()
    assert sent == ["a", "b"]


def test_a_room_that_sent_its_views_itself_waits_no_more() -> None:
    reactor, broadcasts, sent, (a, b, *_) = setup(budget=1.0)
    broadcasts.add(a)
    broadcasts.add(b)
    broadcasts.discard(a)  # (a member joined: the room flushed its views)
    reactor.turn()
    assert sent == ["b"]
    broadcasts.add(a)
    broadcasts.discard(a)
    assert not reactor.pending()  # nothing waits: no call left behind
