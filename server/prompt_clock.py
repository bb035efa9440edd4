"""A room's prompt clock: one timer per prompted seat, its warnings, and the pause.

The length of a seat's timer is the room setting its prompt kind names (`PromptKind.timer`),
or `priority_s` while the seat may still declare in a declaration window's priority phase. A
new prompt (another kind, turn, round or activation) arms a new timer; a seat no longer
prompted loses its own. When a timer runs out the clock tells its room (`on_expire`), which
issues the seat's default action. Knows no members and no game rules beyond the prompt.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from weakref import WeakMethod

from twisted.internet.interfaces import IDelayedCall, IReactorTime

from ..shared.engine import GameState
from ..shared.engine.prompts import PROMPTS
from ..shared.engine.turns import priority_seats
from .roomstore import RoomStore

WARNINGS = (60, 10)  # seconds before a deadline when every member is warned
PRIORITY = "priority"  # the timer of a seat in a declaration window's priority phase


@dataclass
class Deadline:
    """A prompted seat's timer; `kind` names it (a prompt kind, or `priority` for the turn's
    priority phase); `since` is the state id at which that prompt began."""

    kind: str
    epoch: tuple
    due: float
    since: int
    calls: list[IDelayedCall] = field(default_factory=list)  # its expiry first, then warnings

    def running(self) -> bool:
        """Its expiry is still to come (an expired one is kept only until the timers are armed
        again, so that a window's clock goes on from its phase)."""
        return bool(self.calls) and self.calls[0].active()


class PromptClock:
    """The timers of one room. `on_expire(seat)` is told of a timer run out, `on_warn(seat,
    seconds)` of one about to: its room's methods, held weakly (a closed room is freed by
    reference counting, without waiting for a collection). Every change is written to the
    room's store, so a restarted server arms the same deadlines again (`arm(state,
    restored=...)`)."""

    def __init__(self, clock: IReactorTime, options: dict[str, Any], store: RoomStore,
                 room_id: int, on_expire: Callable[[int], None],
                 on_warn: Callable[[int, int], None]) -> None:
        self.clock, self.options, self.store, self.room_id = clock, options, store, room_id
        self._on_expire, self._on_warn = WeakMethod(on_expire), WeakMethod(on_warn)
        self.deadlines: dict[int, Deadline] = {}
        # While the game is paused: each prompted seat's timer kind and the seconds it had
        # left (None: the game runs). Stored (`save_pause`): a restart keeps the room paused.
        self.paused: dict[int, tuple[str, float]] | None = None

    def timeout(self, timer: str) -> float:
        option = "priority_s" if timer == PRIORITY else PROMPTS[timer].timer
        return float(self.options[option])

    def arm(self, state: GameState, restored: dict[int, tuple[str, float]] | None = None) -> None:
        """Each prompted seat has a deadline; `restored`: seat -> (timer, due) of a deadline
        kept through a restart or a pause, armed as it was if its seat still has that timer."""
        prompt = state.prompt
        now = self.clock.seconds()
        b = state.battle
        epoch = (state.day, state.turn, b.round if b else -1, b.cursor if b else -1)
        for seat in list(self.deadlines):
            if seat not in prompt.seats:
                self.cancel(seat)
        # the priority phase is a declaration window's: day 0's prompts come before the first
        # window and run on their own timers
        phase = priority_seats(state) if prompt.kind == "declare" else frozenset()
        for seat in prompt.seats:
            timer = PRIORITY if seat in phase else prompt.kind
            current = self.deadlines.get(seat)
            if current is not None and current.kind == timer and current.epoch == epoch \
                    and current.running():  # (one that expired gets a new one, never 0:00)
                continue
            since, opened = state.version, now
            if current is not None:
                if current.kind == PRIORITY != timer and current.epoch == epoch:
                    # its phase ended: the window's clock runs from the window's opening
                    since, opened = current.since, current.due - self.timeout(current.kind)
                self.cancel(seat)
            if restored and seat in restored and restored[seat][0] == timer:
                due = restored[seat][1]
            else:
                due = opened + self.timeout(timer)
            self.deadlines[seat] = self._deadline(seat, Deadline(timer, epoch, due, since), now)
        self.store.save_deadlines(self.room_id,
                                  {s: (d.kind, d.due) for s, d in self.deadlines.items()})

    def _deadline(self, seat: int, deadline: Deadline, now: float) -> Deadline:
        due = deadline.due
        deadline.calls.append(self.clock.callLater(max(0.0, due - now), self.expire, seat))
        for before in WARNINGS:
            if due - before > now:
                deadline.calls.append(self.clock.callLater(due - before - now, self._warn,
                                                           seat, before))
        return deadline

    def _warn(self, seat: int, seconds: int) -> None:
        warn = self._on_warn()
        if warn is not None:
            warn(seat, seconds)

    def cancel(self, seat: int, forget: bool = True) -> None:
        """Stop the seat's timer; `forget=False` keeps its record (an expiry: the window's
        clock goes on from it)."""
        deadline = self.deadlines.pop(seat) if forget else self.deadlines.get(seat)
        for call in deadline.calls if deadline is not None else ():
            if call.active():
                call.cancel()

    def forget(self, seat: int) -> None:
        """An expired seat's record, dropped: nothing was issued for it (no prompt, no game)."""
        self.deadlines.pop(seat, None)

    def expire(self, seat: int) -> None:
        """The seat's time is up (or its bot failed): its room issues its default action. The
        deadline stays on record until the timers are armed again."""
        self.cancel(seat, forget=False)
        expire = self._on_expire()
        if expire is not None:
            expire(seat)

    def same_prompt(self, seat: int, state_id: int, version: int) -> bool:
        """The seat has been asked the same question since state `state_id` (`version` is the
        room's state now)."""
        deadline = self.deadlines.get(seat)
        return deadline is not None and deadline.since <= state_id <= version

    def time_left(self) -> dict[int, float]:
        """Seconds left on each prompted seat's timer (frozen while the game is paused)."""
        if self.paused is not None:
            return {seat: left for seat, (_kind, left) in self.paused.items()}
        now = self.clock.seconds()
        return {seat: d.due - now for seat, d in self.deadlines.items()}

    def shown(self) -> dict[str, int]:
        """The `deadlines` of a state message: whole seconds left by seat."""
        return {str(s): max(0, round(left)) for s, left in self.time_left().items()}

    def freeze(self) -> None:
        """Every timer stopped, its time left kept (in memory and in the store)."""
        now = self.clock.seconds()
        self.paused = {s: (d.kind, max(0.0, d.due - now)) for s, d in self.deadlines.items()}
        self.stop()
        self.store.save_deadlines(self.room_id, {})
        self.store.save_pause(self.room_id, self.paused)

    def thaw(self, state: GameState) -> None:
        """Every prompted seat's timer armed again with the time it had left."""
        left, self.paused = self.paused or {}, None
        now = self.clock.seconds()
        self.arm(state, restored={s: (kind, now + secs) for s, (kind, secs) in left.items()})

    def stop(self) -> None:
        for seat in list(self.deadlines):
            self.cancel(seat)
