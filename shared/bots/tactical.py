"""What the tactics module's public state (seed 003) means to a bot that decides from its view:
the squares under active hostile zones of control, whether a line of fire is clear, and the
odds of a concentration roll.

Everything read here is public: the module's view (`view["modules"]["tactics"]["state"]`,
the same for every seat), positions, ranks, and the module's data, which ships with every
client like the rest of the ruleset (weapon classes, blocking squares, concentration numbers).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..engine.data import RANKS, Ruleset
from ..engine.modules import instances
from ..modules.tactics import Tactics
from ..modules.tactics.lines import crossed

# Weapon classes whose Servant wants to shoot from a distance rather than stand in melee.
SHOOTERS = ("ranged", "magic")
# Squares of walking that ending a Move inside a hostile zone is worth avoiding: the zone ends
# the Move (T1.6), and the next one covers a single square (T1.7).
ZONE_COST = 3


def rank_value(rank: str) -> int:
    """A rank as its parameter value (B = 40, A+ = 55)."""
    return RANKS[rank.rstrip("+")] + 5 * rank.count("+")


def odds_at_least(bonus: int, target: int) -> float:
    """P(2D6 + bonus >= target)."""
    return sum(1 for a in range(1, 7) for b in range(1, 7) if a + b + bonus >= target) / 36


@dataclass(frozen=True)
class Field:
    """One battle seen through the tactics module, from one seat."""

    me: int
    width: int
    blocking: frozenset[int]
    zones: dict[int, frozenset[int]]  # owner seat -> squares, active hostile zones only
    positions: dict[int, int]  # combatant seat -> square
    free_uses: int  # concentration rolls the seat has not spent nor set aside this round
    module: Tactics

    def distance(self, a: int, b: int) -> int:
        w = self.width
        return abs(a % w - b % w) + abs(a // w - b // w)

    def zones_on(self, square: int, allowed: int | None = None) -> int:
        """How many active hostile zones control `square`, not counting `allowed`'s."""
        return sum(1 for owner, squares in self.zones.items()
                   if owner != allowed and square in squares)

    def line_clear(self, start: int, target: int) -> bool:
        """Whether a shot from `start` at combatant `target` has a clear line (T2.3, T2.5),
        the shooter standing on `start`."""
        end = self.positions[target]
        if self.distance(start, end) <= 1:
            return True
        bodies = {q for x, q in self.positions.items() if x not in (self.me, target)}
        return not any(q in self.blocking or q in bodies
                       for q in crossed(self.width, start, end))

    def can_shoot(self, start: int, target: int, reach: int) -> bool:
        """A ranged Attack from `start` at `target` would be legal: in range, line clear."""
        return 1 <= self.distance(start, self.positions[target]) <= reach and self.line_clear(
            start, target)

    def shooter(self, camp: dict[str, Any]) -> bool:
        """Whether the seat's own Servant fights with a ranged or magic weapon (T1.1)."""
        data = self.module.data
        return data.weapon(camp.get("servant", ""), camp["cls"]) in SHOOTERS

    def concentration_odds(self, camp: dict[str, Any]) -> float:
        """The chance of a concentration roll (2D6 + MAG // 10 >= target), buffs aside."""
        return odds_at_least(rank_value(camp["ranks"]["mag"]) // 10,
                             self.module.data.concentration_target)


def read(view: dict[str, Any], rules: Ruleset) -> Field | None:
    """The battle as the tactics module shows it to this seat; None when the module is off or
    the seat is not fighting."""
    mod = view["modules"].get("tactics")
    battle = view["battle"]
    me = view["you"]
    if mod is None or battle is None or me not in battle["seats"]:
        return None
    module = instances(rules, ("tactics",), {"tactics": mod["options"]})[0]
    assert isinstance(module, Tactics)
    state = mod["state"]
    zones = {z["seat"]: frozenset(z["squares"]) for z in state["zoc"]
             if z["active"] and z["seat"] != me}
    positions = {x: view["camps"][x]["pos"] for x in battle["seats"]}
    free = (state["uses"][me] - (me in state.get("seize", ()))
            - (me in state.get("endure", ())))
    return Field(me, rules.maps[view["map"]].width, frozenset(state["blocking"]), zones,
                 positions, free, module)
