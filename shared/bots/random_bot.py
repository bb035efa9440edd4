"""The random-legal bot: a baseline that never cheats because it looks at nothing."""

from __future__ import annotations

import random
from typing import Any

from ..engine.actions import Action


class RandomBot:
    """Picks an action type uniformly, then an action of that type uniformly, so a prompt
    with 40 teleport squares does not make it teleport nine times out of ten."""

    name = "random"
    needs_view = False

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: dict[str, Any] | None, legal: list[Action]) -> Action:
        # The types in the order they first appear, then only the chosen type's actions: the
        # same draws as grouping every action by its type, with one Python loop, not two (a
        # module's declaration may offer 150 actions).
        kinds = list(dict.fromkeys(map(type, legal)))
        kind = self.rng.choice(kinds)
        return self.rng.choice([a for a in legal if type(a) is kind])
