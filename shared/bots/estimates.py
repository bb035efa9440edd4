"""What a bot estimates from its own view, for the normal bot and the bot parts of the rules
modules alike: a rank's value, a camp's share of its HP, the mean damage of its best attack and
the odds of a 2D6 roll."""

from __future__ import annotations

from typing import Any

from ..engine.actions import Action
from ..engine.data import RANKS, Dice, Ruleset

CARD_STAT = {"B": "str", "A": "end", "Q": "agi"}  # the parameter each card kind strikes with


def rank_value(rank: str) -> int:
    """A rank as its parameter value (B = 40, A+ = 55)."""
    return RANKS[rank.rstrip("+")] + 5 * rank.count("+")


def odds_at_least(bonus: int, target: int) -> float:
    """P(2D6 + bonus >= target)."""
    return sum(1 for a in range(1, 7) for b in range(1, 7) if a + b + bonus >= target) / 36


def ratio(camp: dict[str, Any]) -> float:
    """A camp's HP as a share of its maximum, from its view."""
    return camp["hp"] / max(1, camp["max_hp"])


def of_type(legal: list[Action], kind: type) -> list[Action]:
    """The legal actions of exactly one type."""
    return [a for a in legal if type(a) is kind]


def mean(dice: Dice) -> float:
    return dice.count * (dice.sides + 1) / 2 + dice.bonus


def expected_damage(rules: Ruleset, me: dict[str, Any], np_round: int, battle_round: int,
                    target: int) -> float:
    """The mean damage of the camp's best attack on `target` this round, from its own view
    (buffs, range and the defense aside): its Noble Phantasm if it is declared at that target,
    charged and paid for, else its best card in hand."""
    n = rules.numbers
    np = rules.by_id[me["servant"]].np
    best = 0.0
    charged = me["war_roar"] or (me["np_target"] == target and battle_round >= np_round
                                 + np.charge)
    if (np.kind == "attack" and charged and me["mp"] >= np.mp
            and me["hand"].count(np.card) >= np.cards):
        best = (mean(n.np_damage_dice) + np.power + rank_value(me["ranks"]["np"])
                // n.np_damage_divisor + (n.np_buster_power if np.card == "B" else 0))
    for card in set(me["hand"]) & set(CARD_STAT):
        best = max(best, mean(n.damage_dice) + n.card_power[card]
                   + rank_value(me["ranks"][CARD_STAT[card]]) // n.damage_stat_divisor)
    return best + me["buster"]
