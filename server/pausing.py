"""A room's pause: a game spans evenings. The owner stops it (every timer keeps the time it
had left, bots and grace periods stop, actions are refused, chat goes on) and resumes it. A part
of `Room`; written to the store, so a restart keeps the room paused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from twisted.internet.interfaces import IReactorTime

from ..shared.protocol import ProtocolError, message
from .audit import audit
from .seating import GRACE, Member, Seat

if TYPE_CHECKING:
    from ..shared.engine import GameState
    from .bot_driver import BotDriver
    from .prompt_clock import PromptClock
    from .roomstore import RoomStore


class Pausing:
    """Pause and resume (mixed into `Room`, which holds the attributes annotated here)."""

    id: int
    store: RoomStore
    clock: IReactorTime
    seats: list[Seat]
    owner: int
    state: GameState | None
    timers: PromptClock
    bot_driver: BotDriver

    @property
    def paused(self) -> dict[int, tuple[str, float]] | None:
        """While the game is paused: each prompted seat's timer kind and the seconds it had
        left (`PromptClock.paused`); None while it runs."""
        return self.timers.paused

    def time_left(self) -> dict[int, float]:
        return self.timers.time_left()

    def may_resume(self, member: Member) -> bool:
        """The owner resumes; while the owner is away, any seated player may (a table does
        not wait for a player who may never come back)."""
        seat = self.seat_of(member)
        owner = self.seats[self.owner]
        return seat is not None and (seat == self.owner or owner.member is None)

    def pause(self, by: str) -> None:
        """Stop the game: every timer keeps the time it had left, bots and grace periods
        stop, actions are refused (chat goes on). Written to the store, so a restart keeps the
        room paused. Pausing is no action of the game: the log and the replay do not change."""
        if self.state is None:
            raise ProtocolError("game_not_started", "only a started game can be paused")
        if self.state.over:
            raise ProtocolError("game_over", "the game is over")
        if self.paused is not None:
            raise ProtocolError("room_paused", "the game is paused already")
        self.timers.freeze()
        self.bot_driver.cancel()
        for seat in self.seats:  # a dropped player's grace starts over at the resume
            if seat.away is not None and seat.away.active():
                seat.away.cancel()
            seat.away = None
        audit("pause", room=self.id, by=by)
        self._notice(message("room_paused", by=by))

    def resume_game(self, by: str) -> None:
        """Go on where the pause stopped: each timer with the time it had left; a player
        not back has its grace period from now."""
        if self.paused is None:
            raise ProtocolError("not_paused", "the game is not paused")
        self.timers.thaw(self.state)
        self.store.save_pause(self.id, None)
        for seat in self.seats:
            if seat.kind == "human" and seat.member is None and not seat.takeover:
                seat.away = self.clock.callLater(GRACE, self._grace_over, seat.index)
        audit("resume_game", room=self.id, by=by)
        self._notice(message("room_resumed", by=by))
        self.bot_driver.schedule(self)
