"""The bot interface: a bot sees what its seat may see and picks one of the legal actions."""

from __future__ import annotations

from typing import Any, Protocol

from ..engine.actions import Action


class Bot(Protocol):
    name: str
    needs_view: bool

    def choose(self, view: dict[str, Any] | None, legal: list[Action]) -> Action: ...


def make_bot(name: str, seed: int) -> Bot:
    """A bot by level name: random (random legal actions) or heuristic."""
    from .heuristic import HeuristicBot
    from .random_bot import RandomBot

    bots = {"random": RandomBot, "heuristic": HeuristicBot}
    if name not in bots:
        raise ValueError(f"unknown bot {name!r}; choose from {', '.join(bots)}")
    return bots[name](seed)
