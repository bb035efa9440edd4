"""Play whole games with bots in every seat: used by `simulate`, the tests and the benches."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..engine import legal_actions, play, view_for
from ..engine.events import Event
from ..engine.state import GameState
from .base import Bot

MAX_STEPS = 200_000


@dataclass
class MatchResult:
    winner: int
    winner_class: str | None
    days: int
    steps: int
    battle_rounds: list[int] = field(default_factory=list)


def run_match(
    state: GameState,
    bots: Sequence[Bot],
    on_step: Callable[[GameState, list[Event]], None] | None = None,
    arrival_seed: int = 0,
) -> MatchResult:
    """Play `state` to its end in place; each prompted seat's bot picks from its legal actions.

    When several seats are prompted at once (the declaration window), which answer reaches the
    server first is drawn from `arrival_seed`, so no seat is always first to declare.
    """
    arrival = random.Random(arrival_seed)
    rounds: list[int] = []
    steps = 0
    while not state.over:
        seats = state.prompt.seats
        seat = next(iter(seats)) if len(seats) == 1 else arrival.choice(sorted(seats))
        bot = bots[seat]
        legal = legal_actions(state, seat)
        view = view_for(state, seat) if bot.needs_view else None
        events = play(state, bot.choose(view, legal))
        rounds.extend(e.data["rounds"] for e in events if e.type == "BattleEnded")
        if on_step is not None:
            on_step(state, events)
        steps += 1
        if steps > MAX_STEPS:
            raise RuntimeError(f"game did not end within {MAX_STEPS} steps")
    winner = state.winner
    return MatchResult(winner, state.camps[winner].cls if winner >= 0 else None,
                       min(state.day, state.settings.day_limit), steps, rounds)
