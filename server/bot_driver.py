"""When and how a room's bot seats answer: after a pause people can follow, through the room's
own commit, and never in a way that stops the room (a bot's failure is its seat's timeout).

One `BotDriver` per room. Its methods take the room, so that the driver holds it only while a
bot's call or thought is pending (a closed room is freed by reference counting).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from twisted.internet.defer import Deferred, maybeDeferred
from twisted.internet.interfaces import IDelayedCall
from twisted.logger import Logger
from twisted.python.failure import Failure

from ..shared.engine import Action, GameState, from_dict, legal_actions, view_for
from ..shared.protocol import BOT_DELAY
from .feeds import wire_form
from .thinking import decide, room_bot, searches

if TYPE_CHECKING:
    from .room import Room

log = Logger()


class BotDriver:
    def __init__(self) -> None:
        self.calls: dict[int, IDelayedCall] = {}  # seat -> its bot's pending answer
        self.bots: dict[tuple[int, str], Any] = {}  # (seat, level) -> its in-process bot
        self.thinking: set[int] = set()
        self.think: Callable[..., Deferred] = maybeDeferred  # the server: worker processes
        # How its bots wait (the lobby's `pace_bots`: a local game's tests and tour go fast):
        # `delay`, and in a battle only bots fight in, `pace` or else the room's `bot_pace_ms`.
        self.delay: float = BOT_DELAY
        self.pace: float | None = None

    def schedule(self, room: Room) -> None:
        """Each prompted bot seat answers after `wait` (unless it is on its way already)."""
        state = room.state
        if state is None or state.over or room.paused is not None:
            return
        delay = self.wait(room, state)
        for seat in state.prompt.seats:
            if room.seats[seat].bot_plays and seat not in self.calls:
                self.calls[seat] = room.clock.callLater(delay, self._move, room, seat)

    def wait(self, room: Room, state: GameState) -> float:
        """`delay`; in a battle no human fights in, the room's `bot_pace_ms` instead, so that
        the people watching it can follow each step (0: as fast as the bots go)."""
        b = state.battle
        if b is None or not all(room.seats[x].bot_plays for x in b.seats):
            return self.delay
        return self.pace if self.pace is not None else room.options["bot_pace_ms"] / 1000

    def cancel(self) -> None:
        """No bot answers until scheduled again (a pause, the room stopping)."""
        for call in self.calls.values():
            if call.active():
                call.cancel()
        self.calls.clear()

    def _move(self, room: Room, seat: int) -> None:
        """A bot answers its seat's prompt. A searching bot thinks through `think` (worker
        processes in the real server, server/thinking.py), one search of this room at a time,
        so the reactor keeps serving every room meanwhile; in a room no person is in, it plays
        at the normal level instead, at once (nobody is there to be challenged)."""
        self.calls.pop(seat, None)
        state = room.state
        if state is None or state.over or seat not in state.prompt.seats:
            return
        if not room.seats[seat].bot_plays or seat in self.thinking:
            return
        level = room.seats[seat].level
        seed = room.seed * 7 + seat
        if searches(level) and not room.empty:
            if self.thinking:  # this room's search in flight: its answer schedules this one
                return
            view, legal = view_for(state, seat), legal_actions(state, seat)
            self.thinking.add(seat)
            decided = self.think(decide, level, seed * 100_003 + state.version,
                                 room.options["bot_ms"], view, [wire_form(a) for a in legal])
            decided.addCallback(from_dict)
        else:
            key = (seat, "normal" if searches(level) else level)
            bot = self.bots.get(key)
            if bot is None:
                bot = self.bots[key] = room_bot(key[1], seed, room.options["bot_ms"])
            view = view_for(state, seat) if bot.needs_view else None
            self.thinking.add(seat)
            decided = maybeDeferred(bot.choose, view, legal_actions(state, seat))
        decided.addCallbacks(self._chose, self._failed, (room, seat, state), None,
                             (room, seat, state), None)

    def _chose(self, action: Action, room: Room, seat: int, state: GameState) -> None:
        self.thinking.discard(seat)
        if room.paused is not None:  # paused while it thought: the resume asks again
            return
        if room.state is not state:  # the game moved on while it thought: think again
            self.schedule(room)
            return
        try:
            room.commit(action, "bot")
        except Exception:
            self._failed(Failure(), room, seat, state)

    def _failed(self, failure: Failure, room: Room, seat: int, state: GameState) -> None:
        """A bot bug must not stop the room: log it, and the seat's default action instead."""
        self.thinking.discard(seat)
        log.failure("bot of room {room} seat {seat}", failure, room=room.id, seat=seat)
        if room.state is state:
            room.timers.expire(seat)
