"""Shared test helpers: small games set up exactly, with forced dice."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from grailwar.shared.engine import apply, legal_actions
from grailwar.shared.engine.actions import Action, DeclareEncounter, Ready
from grailwar.shared.engine.events import Event
from grailwar.shared.engine.game import new_game
from grailwar.shared.engine.state import GameState


def game(classes: Sequence[str] = ("saber", "lancer"), seed: int = 0, **kw) -> GameState:
    return new_game(seed=seed, classes=classes, **kw)


def place(s: GameState, seat: int, pos: int) -> None:
    """Put a camp on a square (setup only, before the first action)."""
    s.edit(seat).pos = pos


def act(s: GameState, action: Action, dice: Iterable[int] = ()) -> tuple[GameState, list[Event]]:
    """Force the next dice, then apply; returns the new state and its events."""
    s.forced = (*s.forced, *dice)
    return apply(s, action)


def types(events: list[Event]) -> list[str]:
    return [e.type for e in events]


def find(events: list[Event], event_type: str) -> list[Event]:
    return [e for e in events if e.type == event_type]


def duel(classes: Sequence[str] = ("saber", "lancer"), square: int = 10, seed: int = 0,
         **kw) -> GameState:
    """Two camps on one square; seat 0 has encountered seat 1 for battle; round 1 starts."""
    s = game(classes, seed, **kw)
    for seat in range(len(classes)):
        place(s, seat, square)
    s, _ = apply(s, DeclareEncounter(0, 1, "battle"))
    assert s.prompt.kind == "round_start", s.prompt
    return s


def ready_all(s: GameState, dice: Iterable[int] = ()) -> GameState:
    """Every seat at the round-start prompt says Ready (initiative dice may be forced)."""
    s.forced = (*s.forced, *dice)
    while s.prompt.kind == "round_start":
        s, _ = apply(s, Ready(min(s.prompt.seats)))
    return s


def only(s: GameState, seat: int, kind: type) -> list[Action]:
    return [a for a in legal_actions(s, seat) if type(a) is kind]
