"""How the normal bot plays the campaign's day 0 and tags (seed 002 §12, §14; docs/rules.md
"Summoning and day 0"), from its own view and legal actions: it drafts the relic of the class
its seat was given when one is free (one of them by its own dice; the relic catalogue is
shipped data, as the sheets are), else the first free relic; at the setup prompt it buys and
wears as on any day (`campaign.campaign_action`, asked first), then deals each stance whose lead
set misses a kind of its pool into a B-A-Q round robin (so every kind may lead, C5.6), then is
ready; it pours Tohsaka jewels into a Servant low on MP.
"""

from __future__ import annotations

import random
from functools import cached_property
from typing import Any

from ..engine.actions import Action
from ..engine.data import Ruleset
from ..modules.campaign.stances import ArrangeStance
from ..modules.campaign.summoning import ChooseRelic, SetupReady, load_relics
from ..modules.campaign.tags import UseJewels

JEWELS_MP = 0.4  # below this share of its MP the Servant gets the jewels


class Day0Play:
    """The day-0 prompts of the normal bot (mixed into `HeuristicBot`, whose rules it reads)."""

    rules: Ruleset
    rng: random.Random

    @cached_property
    def relic_classes(self) -> dict[str, str]:
        return {r.id: self.rules.by_id[r.servant].cls for r in load_relics(self.rules)}

    def _relic(self, view: dict[str, Any], me: dict[str, Any], legal: list[Action]) -> Action:
        drafts = [a for a in legal if isinstance(a, ChooseRelic)]
        own = [a for a in drafts if self.relic_classes.get(a.relic) == me["cls"]]
        return self.rng.choice(own) if own else drafts[0]

    def _setup(self, view: dict[str, Any], me: dict[str, Any], legal: list[Action]) -> Action:
        stances = view["modules"]["campaign"]["state"].get("stances") or {}
        for a in legal:
            if isinstance(a, ArrangeStance) and a.stance in stances:
                now = stances[a.stance]
                if set(now["lead"]) != set(now["order"]):
                    return ArrangeStance(a.seat, a.stance, round_robin(now["order"]))
        return SetupReady(me["seat"])

    def jewels(self, me: dict[str, Any], legal: list[Action]) -> Action | None:
        """The most the jewels may pour, when the Servant's MP is low."""
        pours = [a for a in legal if isinstance(a, UseJewels)]
        if not pours or me["mp"] >= me["max_mp"] * JEWELS_MP:
            return None
        return max(pours, key=lambda a: a.amount)


def round_robin(cards: str) -> str:
    """The same cards dealt B, A, Q, B, A, Q, ... while each kind lasts."""
    left = {k: cards.count(k) for k in "BAQ"}
    out = []
    while len(out) < len(cards):
        for k in "BAQ":
            if left[k]:
                left[k] -= 1
                out.append(k)
    return "".join(out)
