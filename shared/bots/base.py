"""The bot interface and the levels: a bot sees what its seat may see and picks a legal action.

Levels, weakest first: `random` (uniform over action kinds, looks at nothing), `easy` (the
normal bot with more mistakes), `normal` (heuristic rules), `hard` (Monte Carlo search over
determinized hidden information, within a time budget per decision). `heuristic` is the old
name of `normal`.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..engine.actions import Action

LEVELS = ("random", "easy", "normal", "hard")
ALIASES = {"heuristic": "normal"}


class Bot(Protocol):
    name: str
    needs_view: bool

    def choose(self, view: dict[str, Any] | None, legal: list[Action]) -> Action: ...


def make_bot(level: str, seed: int = 0, budget_s: float | None = None,
             iterations: int | None = None) -> Bot:
    """A bot of one level. `budget_s` is the hard bot's time per decision (a room setting,
    default 1 s); `iterations` fixes its search size instead (deterministic, for tests).
    The other levels decide at once and ignore both."""
    from .hard import HardBot
    from .heuristic import EasyBot, HeuristicBot
    from .random_bot import RandomBot

    name = ALIASES.get(level, level)
    if name == "hard":
        return HardBot(seed, budget_s=budget_s, iterations=iterations)
    bots = {"random": RandomBot, "easy": EasyBot, "normal": HeuristicBot}
    if name not in bots:
        raise ValueError(f"unknown bot level {level!r}; choose from {', '.join(LEVELS)}")
    return bots[name](seed)
