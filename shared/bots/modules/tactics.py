"""The tactics module's bot part (seed 003): zones of control, lines of fire, concentration.

What the module's public state means to a bot that decides from its view (`read`, a `Field`):
the squares under active hostile zones of control, whether a line of fire is clear, and the
odds of a concentration roll. Everything read here is public: the module's view
(`view["modules"]["tactics"]["state"]`, the same for every seat), positions, ranks, and the
module's data, which ships with every client like the rest of the ruleset (weapon classes,
blocking squares, concentration numbers).

The normal bot keeps out of hostile zones it does not mean to fight in, a ranged Servant steps
out of melee to shoot, it walks to a square with a clear line, and it spends concentration
rolls on dodging big hits, seizing the initiative for a kill and enduring a hostile
spellcaster's magic. The rollout policy dodges a hit it may not survive, keeps a ranged
Servant out of melee and walks around the zones of foes it is not heading for.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from ...engine.actions import Action, Attack, Move, React, UseSkill, Wait
from ...engine.data import Ruleset
from ...engine.deduction import candidates
from ...engine.modules import instances
from ...engine.state import Camp, GameState
from ...modules.tactics import Concentrate, ConcentrateCast, Tactics
from ...modules.tactics.lines import crossed
from ..estimates import (
    CARD_STAT,
    expected_damage,
    odds_at_least,
    of_type,
    rank_value,
    ratio,
)
from . import BotPart, Ground, NormalBot, register

# Weapon classes whose Servant wants to shoot from a distance rather than stand in melee.
SHOOTERS = ("ranged", "magic")
# Squares of walking that ending a Move inside a hostile zone is worth avoiding: the zone ends
# the Move (T1.6), and the next one covers a single square (T1.7).
ZONE_COST = 3
NO_SHOT = 6  # the same, for a square a shooter cannot shoot its target from
LOW_HP = 0.35  # below this share of its HP a hit is big enough to dodge (T4.3)
FOCUS_CAST_CHECK = 60  # a hostile spell this hard to land is cast with concentration (T4.2)
SPELL_SHARE = 0.25  # endure (T4.4) once one hostile spell could take this share of the HP left


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


def tactics(s: GameState) -> Tactics | None:
    """The game's tactics module, if it is on."""
    return next((m for m in s.modules if isinstance(m, Tactics)), None)


@register
class TacticsPart(BotPart):
    name = "tactics"

    # --- the normal bot -------------------------------------------------------------------------
    def main(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
             legal: list[Action]) -> Action | None:
        """The Main Action with zones and lines in mind. A ranged Servant standing in melee
        inside a hostile zone steps out one square to a square it can shoot from; a shooter
        otherwise shoots from where it stands, or walks to a square with a clear line. A melee
        Servant steps onto a foe's square to fight. Every other Move keeps out of the zones of
        foes it does not mean to fight there."""
        field = read(view, bot.rules)
        if field is None:
            return None
        attacks = of_type(legal, Attack)
        moves = of_type(legal, Move)
        battle = view["battle"]
        seat = me["seat"]
        foes = [x for x in battle["seats"] if x != seat]
        here = me["pos"]
        if moves and me["disengaging"] == battle["round"]:  # run clear of zones, far from foes
            return min(moves, key=lambda a: (field.zones_on(a.to), -min(
                field.distance(a.to, field.positions[x]) for x in foes), a.to))
        reach = bot.rules.numbers.ranged_max
        shooter = field.shooter(me)
        in_melee = any(field.positions[x] == here for x in foes)
        if moves and shooter and in_melee and field.zones_on(here):
            spots = [a for a in moves if any(field.can_shoot(a.to, x, reach) for x in foes)]
            if spots:
                return min(spots, key=lambda a: (field.zones_on(a.to), min(
                    field.distance(a.to, field.positions[x]) for x in foes), a.to))
        target = min(foes, key=lambda x: (view["camps"][x]["hp"], x)) if foes else -1
        if shooter and moves and not in_melee and not any(a.target == target for a in attacks):
            spots = [a for a in moves if field.can_shoot(a.to, target, reach)]
            if spots:  # the weakest foe is out of reach or behind cover: find a clear line
                return min(spots, key=lambda a: (field.zones_on(a.to),
                                                 field.distance(a.to, field.positions[target]),
                                                 a.to))
        if attacks:
            if not shooter and moves and not in_melee:
                closing = [a for a in moves if a.to in set(field.positions.values()) - {here}]
                if closing:  # step in: melee has no range penalty
                    return bot.rng.choice(closing)
            return max(attacks, key=lambda a: bot.attack_score(view, me, a))
        if not moves or not foes:
            return of_type(legal, Wait)[0] if of_type(legal, Wait) else legal[0]
        goal = field.positions[target]

        def cost(square: int) -> float:
            d = field.distance(square, goal)
            if shooter:
                return (ZONE_COST * field.zones_on(square) + 2 * d
                        + (0 if field.can_shoot(square, target, reach) else NO_SHOT))
            return ZONE_COST * field.zones_on(square, allowed=target) + d

        best = min(moves, key=lambda a: (cost(a.to), a.to))
        if cost(best.to) > cost(here) and Wait(seat) in legal:
            return Wait(seat)  # every step makes things worse: hold the square
        return best

    def focus(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
              legal: list[Action]) -> Action | None:
        """Round-start concentration (T4.1, T4.4): seize the initiative when a foe that would
        act first can be killed now; endure when a foe's Servant casts spells that hurt at this
        HP and a roll stays free for a dodge (a dodged Noble Phantasm is worth far more than a
        halved spell, so endure waits until the spell matters)."""
        field = read(view, bot.rules)
        if field is None:
            return None
        offered = {a.use: a for a in of_type(legal, Concentrate)}
        if "initiative" in offered and self._kills_first(bot, view, me, field):
            return offered["initiative"]
        if ("endure" in offered and field.free_uses >= 2
                and self._spell_threat(bot, view, me) >= SPELL_SHARE * me["hp"]):
            return offered["endure"]
        return None

    def _kills_first(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
                     field: Field) -> bool:
        """A foe this camp can reach this round, no slower than it, whose public HP its best
        attack (its charged Noble Phantasm, else its best card) would likely take."""
        camps = view["camps"]
        battle = view["battle"]
        np_round = next(c["np_round"] for c in battle["combatants"] if c["seat"] == me["seat"])
        agi = rank_value(me["ranks"]["agi"])
        steps = 1 if field.zones_on(me["pos"]) else me["movement"]
        for x, square in field.positions.items():
            foe = camps[x]
            if x == me["seat"] or rank_value(foe["ranks"]["agi"]) < agi:
                continue
            if field.distance(me["pos"], square) > steps:
                continue
            guard = rank_value(foe["ranks"]["end"]) // bot.rules.numbers.guard_divisor
            if expected_damage(bot.rules, me, np_round, battle["round"], x) - guard >= foe["hp"]:
                return True
        return False

    def _spell_threat(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any]) -> int:
        """The most damage one hostile spell of a foe's Servant can deal, over the Servants
        the foe may be (`deduction.candidates`; Masters are never known); 0 if none can."""
        rules = bot.rules
        worst = 0
        for x in view["battle"]["seats"]:
            if x == me["seat"]:
                continue
            for k in {k for sv in candidates(rules, view["camps"][x]) for k in sv.skills}:
                skill = rules.skills[k]
                dice = skill.effect.damage
                if skill.magecraft and skill.target == "enemy" and dice is not None:
                    worst = max(worst, dice.count * dice.sides + dice.bonus)
        return worst

    def cast(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any], action: Action,
             legal: list[Action]) -> Action:
        """A hostile spell hard to land goes with a concentration roll first (T4.2) while a
        roll stays free for a dodge."""
        field = read(view, bot.rules)
        if field is None or not isinstance(action, UseSkill) or field.free_uses < 2:
            return action
        boosted = ConcentrateCast(action.seat, action.skill, action.target, action.extra)
        check = bot.rules.skills[action.skill].check
        if boosted in legal and check is not None and check <= FOCUS_CAST_CHECK:
            return boosted
        return action

    def reaction(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
                 legal: list[Action]) -> Action | None:
        """Dodge (T4.3: Attacks only) a hit while HP is low, when the roll is likelier to avoid
        it than the counter card's defense."""
        dodge = Concentrate(me["seat"], "dodge")
        if dodge not in legal:
            return None
        field = read(view, bot.rules)
        p = view["battle"]["pending"]
        if field is None or p["fumble"] or ratio(me) >= LOW_HP:
            return None
        counter = next((a for a in of_type(legal, React) if a.kind in "BAQ"), None)
        defend = 0.0
        if counter is not None and not p["critical"]:
            bonus = rank_value(me["ranks"][CARD_STAT[counter.kind]]) // 10
            defend = odds_at_least(bonus, p["total"])
        return dodge if field.concentration_odds(me) > defend else None

    # --- the rollout policy -----------------------------------------------------------------------
    def ground(self, s: GameState, camp: Camp) -> Ground | None:
        """A ranged Servant keeps out of melee; hostile zones hold a Move, except the zone of
        the foe it heads for (lines of fire need nothing: the legal attacks respect them)."""
        module = tactics(s)
        if module is None:
            return None
        return Ground(module.data.weapon(camp.servant.id, camp.cls) in SHOOTERS,
                      module.controlled(s, camp.seat), ZONE_COST, module.radius)

    def rollout_reaction(self, s: GameState, camp: Camp, legal: list[Action],
                         rng: random.Random) -> Action | None:
        """Dodge a hit it may not survive."""
        if camp.hp / camp.servant.hp < LOW_HP and tactics(s) is not None:
            dodge = Concentrate(camp.seat, "dodge")
            if dodge in legal:
                return dodge
        return None
