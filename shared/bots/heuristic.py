"""A heuristic bot that fights sensibly, deciding from its own view and legal actions only.

It rests when hurt or when its Master has not rested by night, picks fights it is likely to win
(comparing public HP), investigates otherwise, fires its Noble Phantasm when it can, defends
with the matching card, and spends Command Spells to heal or to retreat before it dies.

With the tactics module on (seed 003) it also reads the zones of control and lines of fire
from the module's public view: it keeps out of hostile zones it does not mean to fight in, a
ranged Servant steps out of melee to shoot, it walks to a square with a clear line, and it
spends concentration rolls on dodging big hits, seizing the initiative for a kill and enduring
a hostile spellcaster's magic. With the colossus on it raids it when it nears the Dragon Vein
(`raider.RaidPlay`). With the campaign on it drafts a relic, readies on day 0 and uses the
Tohsaka jewels (`day0.Day0Play`).
"""

from __future__ import annotations

import random
from typing import Any

from ..engine.actions import (
    Action,
    AnswerAmbush,
    AnswerIntervention,
    Attack,
    ChooseReward,
    DeclareAmbush,
    DeclareDisengage,
    DeclareEncounter,
    DeclareInvestigate,
    DeclareNoblePhantasm,
    DeclareRest,
    DeclareSoulEating,
    DeclareWait,
    Move,
    Negotiate,
    OfferTruce,
    React,
    Ready,
    UseCommandSpell,
    UseNoblePhantasm,
    UseSkill,
    Wait,
)
from ..engine.data import Dice, Ruleset, default_ruleset
from ..engine.deduction import candidates
from ..modules.tactics import Concentrate, ConcentrateCast
from . import tactical
from .campaign import campaign_action, study_declaration
from .campaign_play import CampaignPlay
from .day0 import Day0Play
from .raider import RaidPlay
from .tactical import ZONE_COST, Field, odds_at_least
from .tactical import rank_value as _rank

_CARD_STAT = {"B": "str", "A": "end", "Q": "agi"}
NO_SHOT = 6  # the same, for a square a shooter cannot shoot its target from
LOW_HP = 0.35  # below this share of its HP a hit is big enough to dodge (T4.3)
FOCUS_CAST_CHECK = 60  # a hostile spell this hard to land is cast with concentration (T4.2)
SPELL_SHARE = 0.25  # endure (T4.4) once one hostile spell could take this share of the HP left
FIT = 0.6  # the share of its HP a camp wants before it picks a fight


def _ratio(camp: dict[str, Any]) -> float:
    return camp["hp"] / max(1, camp["max_hp"])


def _of(legal: list[Action], kind: type) -> list[Action]:
    return [a for a in legal if type(a) is kind]


def _mean(dice: Dice) -> float:
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
        best = (_mean(n.np_damage_dice) + np.power + _rank(me["ranks"]["np"])
                // n.np_damage_divisor + (n.np_buster_power if np.card == "B" else 0))
    for card in set(me["hand"]) & set(_CARD_STAT):
        best = max(best, _mean(n.damage_dice) + n.card_power[card]
                   + _rank(me["ranks"][_CARD_STAT[card]]) // n.damage_stat_divisor)
    return best + me["buster"]


class HeuristicBot(RaidPlay, Day0Play, CampaignPlay):
    name = "normal"
    needs_view = True

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.rules = default_ruleset()

    def choose(self, view: dict[str, Any] | None, legal: list[Action]) -> Action:
        assert view is not None
        me = view["camps"][view["you"]]
        kind = view["prompt"]["kind"]
        pour = self.jewels(me, legal)
        if pour is not None:
            return pour
        if "campaign" in view["modules"]:
            extra = campaign_action(view, me, legal,
                                    lambda a, b: self._distance(view, a, b))
            if extra is not None:
                return extra
        decide = getattr(self, f"_{kind}")
        return decide(view, me, legal)

    # --- turn play ---------------------------------------------------------------------------
    def _declare(self, view: dict[str, Any], me: dict[str, Any], legal: list[Action]) -> Action:
        if "campaign" in view["modules"]:
            free = self.campaign_declare(view, me, legal)
            if free is not None:
                return free
        hp = _ratio(me)
        mp_low = me["mp"] < me["max_mp"] * 0.3
        must_rest = not me["rested"] and view["turn"] == "night"
        # The campaign's war is long on healing and short on days (issue 13): a fight on offer
        # comes before the night's rest, and a camp too hurt to fight (below FIT) rests rather
        # than idles, or too few battles are fought to end the war.
        press = "campaign" in view["modules"]
        prey = self._prey(view, me, legal, press) if press else None
        if prey is not None:
            return prey
        if (hp < (FIT if press else 0.5) or must_rest) and _of(legal, DeclareRest):
            return _of(legal, DeclareRest)[0]
        raid = self.raid_declaration(view, me, legal)
        if raid is not None:
            return raid
        eat = _of(legal, DeclareSoulEating)
        if eat and mp_low:
            return eat[0]
        prey = prey if press else self._prey(view, me, legal)
        if prey is not None:
            return prey
        parley = self._deny_rest(view, me, legal)
        if parley is not None:
            return parley
        approach = self._approach(view, me, legal)
        if approach is not None:
            return approach
        looks = _of(legal, DeclareInvestigate)
        if looks and self.rng.random() < 0.6:
            known = me["known"]
            return min(looks, key=lambda a: (known[a.target_class], self.rng.random()))
        if mp_low and _of(legal, DeclareRest):
            return _of(legal, DeclareRest)[0]
        study = study_declaration(legal)  # the campaign: half the idle Turns go to study
        if study is not None and self.rng.random() < 0.5:
            return study
        return _of(legal, DeclareWait)[0]

    def _prey(self, view: dict[str, Any], me: dict[str, Any], legal: list[Action],
              press: bool = False) -> Action | None:
        """Attack a rival that is weaker by public HP when healthy enough; as the day limit
        nears, any rival will do (a draw wins nobody the Grail). With `press` (the campaign)
        it weighs hurt rivals first and never lets a fight it likes pass (the base bot skips
        one in five)."""
        late = view["day"] >= view["day_limit"] - 2
        if _ratio(me) < (0.45 if late else FIT):
            return None
        camps = view["camps"]
        options = [a for a in legal if isinstance(a, DeclareEncounter)
                   and a.intent in ("battle", "prevent")]
        options += _of(legal, DeclareAmbush)
        # With `press` a rival more hurt than itself (by share of HP) is prey too, and the
        # most hurt goes first: a kill ends the war, a blow to a whole rival seldom does.
        scored = [(_ratio(camps[a.target]) if press else 0, camps[a.target]["hp"],
                   self.rng.random(), a) for a in options
                  if late or camps[a.target]["hp"] < me["hp"] * 1.1
                  or _ratio(camps[a.target]) < 0.5
                  or (press and _ratio(camps[a.target]) < _ratio(me))]
        if not scored or (not press and self.rng.random() < 0.2):
            return None
        return min(scored, key=lambda x: x[:3])[3]

    def _deny_rest(self, view: dict[str, Any], me: dict[str, Any],
                   legal: list[Action]) -> Action | None:
        """At night, open a negotiation with a rival that has neither rested today nor declared
        yet: a bound camp declares nothing, so its Master goes to sleep for a day."""
        if view["turn"] != "night" or _ratio(me) < 0.5:
            return None
        undeclared = set(view["prompt"]["seats"])
        options = [a for a in legal if isinstance(a, DeclareEncounter)
                   and a.intent == "negotiate" and a.target in undeclared
                   and not view["rested"][a.target]]
        if not options or self.rng.random() < 0.5:
            return None
        return min(options, key=lambda a: (view["camps"][a.target]["hp"], a.target))

    def _approach(self, view: dict[str, Any], me: dict[str, Any],
                  legal: list[Action]) -> Action | None:
        """Walk toward the weakest living rival, to fight it on a later turn."""
        moves = _of(legal, Move)
        rivals = [c for c in view["camps"] if c["alive"] and c["seat"] != me["seat"]]
        if not moves or not rivals or _ratio(me) < 0.6:
            return None
        target = min(rivals, key=lambda c: (c["hp"], self._distance(view, me["pos"], c["pos"])))
        if self._distance(view, me["pos"], target["pos"]) <= 1:
            return None
        return min(moves, key=lambda a: (abs(self._distance(view, a.to, target["pos"]) - 1),
                                         self.rng.random()))

    def _negotiate(self, view: dict[str, Any], me: dict[str, Any], legal: list[Action]) -> Action:
        parley = view["parley"]
        other_seat = parley["target"] if parley["opener"] == me["seat"] else parley["opener"]
        other = view["camps"][other_seat]
        return Negotiate(me["seat"], me["hp"] > other["hp"] * 1.2 and _ratio(me) > 0.6)

    def _ambush(self, view: dict[str, Any], me: dict[str, Any], legal: list[Action]) -> Action:
        return AnswerAmbush(me["seat"], _ratio(me) < 0.4)

    def _intervene(self, view: dict[str, Any], me: dict[str, Any], legal: list[Action]) -> Action:
        join = AnswerIntervention(me["seat"], _ratio(me) > 0.8 and self.rng.random() < 0.3)
        return join if join in legal else AnswerIntervention(me["seat"], False)

    # --- battle ---------------------------------------------------------------------------------
    def _rescue(self, me: dict[str, Any], legal: list[Action]) -> Action | None:
        """Command Spells when the Servant is about to fall."""
        spells = {a.spell: a for a in _of(legal, UseCommandSpell) if not a.arg}
        if _ratio(me) < 0.25:
            if "hp_recovery" in spells and me["spells"] > 2:  # keep two strokes to retreat
                return spells["hp_recovery"]
            retreat = [a for a in _of(legal, UseCommandSpell) if a.spell == "retreat"]
            if retreat and _ratio(me) < 0.15:
                return self.rng.choice(retreat)
        return None

    def _round_start(self, view: dict[str, Any], me: dict[str, Any],
                     legal: list[Action]) -> Action:
        rescue = self._rescue(me, legal)
        if rescue:
            return rescue
        if "campaign" in view["modules"]:
            free = self.campaign_round_start(view, me, legal)
            if free is not None:
                return free
        nps = _of(legal, DeclareNoblePhantasm)
        if nps:
            camps = view["camps"]
            return min(nps, key=lambda a: camps[a.target]["hp"])
        field = tactical.read(view, self.rules)
        focus = self._focus(view, me, legal, field) if field else None
        if focus is not None:
            return focus
        skills = _of(legal, UseSkill)
        if skills and self.rng.random() < 0.7:
            return self._cast(self.rng.choice(skills), legal, field)
        if _ratio(me) < 0.3 and _of(legal, DeclareDisengage):
            return _of(legal, DeclareDisengage)[0]
        if _ratio(me) < 0.3 and _of(legal, OfferTruce):
            return _of(legal, OfferTruce)[0]
        return _of(legal, Ready)[0]

    def _main(self, view: dict[str, Any], me: dict[str, Any], legal: list[Action]) -> Action:
        rescue = self._rescue(me, legal)
        if rescue:
            return rescue
        fire = _of(legal, UseNoblePhantasm)
        if fire:
            return fire[0]
        attacks = _of(legal, Attack)
        moves = _of(legal, Move)
        battle = view["battle"]
        field = tactical.read(view, self.rules)
        if field is not None:
            return self._main_tactics(view, me, legal, attacks, moves, field)
        foe_squares = {view["camps"][x]["pos"] for x in battle["seats"] if x != me["seat"]}
        if attacks and min(self._distance(view, me["pos"], view["camps"][a.target]["pos"])
                           for a in attacks) > 0:
            closing = [a for a in moves if a.to in foe_squares]
            if closing:  # step in: melee has no range penalty
                return self.rng.choice(closing)
        if attacks:
            return max(attacks, key=lambda a: self._attack_score(view, me, a))
        foes = [view["camps"][x] for x in battle["seats"] if x != me["seat"]]
        if moves and foes and me["disengaging"] != battle["round"]:
            target = min(foes, key=lambda c: c["hp"])
            return min(moves, key=lambda a: self._distance(view, a.to, target["pos"]))
        if moves:
            return moves[0]
        return _of(legal, Wait)[0] if _of(legal, Wait) else legal[0]

    def _attack_score(self, view: dict[str, Any], me: dict[str, Any], a: Attack) -> float:
        target = view["camps"][a.target]
        stat = _rank(me["ranks"][_CARD_STAT.get(a.kind, "luk")]) / (20 if a.kind == "L" else 10)
        card_value = {"B": 3, "A": 1.5, "Q": 1, "L": -2}[a.kind]
        reach = self._distance(view, me["pos"], target["pos"]) * 2
        return stat + card_value - reach - target["hp"] / 100 - (1 if a.card == "" else 0)

    def _distance(self, view: dict[str, Any], a: int, b: int) -> int:
        width = self.rules.maps[view["map"]].width
        return abs(a % width - b % width) + abs(a // width - b // width)

    def _reaction(self, view: dict[str, Any], me: dict[str, Any], legal: list[Action]) -> Action:
        rescue = self._rescue(me, legal)
        if rescue:
            return rescue
        dodge = Concentrate(me["seat"], "dodge")
        if dodge in legal and self._dodges(view, me, legal):
            return dodge
        reacts = _of(legal, React)
        normal = [a for a in reacts if a.kind in "BAQ"]
        if normal:
            return normal[0]
        luck = _rank(me["ranks"]["luk"]) // 20
        end = _rank(me["ranks"]["end"]) // 10
        kind = "L" if luck >= 3 and end < 5 else "G"
        choice = [a for a in reacts if a.kind == kind and a.card == ""]
        return choice[0] if choice else reacts[0]

    # --- tactics (seed 003): zones, lines of fire, concentration ---------------------------------
    def _main_tactics(self, view: dict[str, Any], me: dict[str, Any], legal: list[Action],
                      attacks: list[Action], moves: list[Action], field: Field) -> Action:
        """The Main Action with zones and lines in mind. A ranged Servant standing in melee
        inside a hostile zone steps out one square to a square it can shoot from; a shooter
        otherwise shoots from where it stands, or walks to a square with a clear line. A melee
        Servant steps onto a foe's square to fight. Every other Move keeps out of the zones of
        foes it does not mean to fight there."""
        battle = view["battle"]
        seat = me["seat"]
        foes = [x for x in battle["seats"] if x != seat]
        here = me["pos"]
        if moves and me["disengaging"] == battle["round"]:  # run clear of zones, far from foes
            return min(moves, key=lambda a: (field.zones_on(a.to), -min(
                field.distance(a.to, field.positions[x]) for x in foes), a.to))
        reach = self.rules.numbers.ranged_max
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
                    return self.rng.choice(closing)
            return max(attacks, key=lambda a: self._attack_score(view, me, a))
        if not moves or not foes:
            return _of(legal, Wait)[0] if _of(legal, Wait) else legal[0]
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

    def _focus(self, view: dict[str, Any], me: dict[str, Any], legal: list[Action],
               field: Field) -> Action | None:
        """Round-start concentration (T4.1, T4.4): seize the initiative when a foe that would
        act first can be killed now; endure when a foe's Servant casts spells that hurt at this
        HP and a roll stays free for a dodge (a dodged Noble Phantasm is worth far more than a
        halved spell, so endure waits until the spell matters)."""
        offered = {a.use: a for a in _of(legal, Concentrate)}
        if "initiative" in offered and self._kills_first(view, me, field):
            return offered["initiative"]
        if ("endure" in offered and field.free_uses >= 2
                and self._spell_threat(view, me) >= SPELL_SHARE * me["hp"]):
            return offered["endure"]
        return None

    def _kills_first(self, view: dict[str, Any], me: dict[str, Any], field: Field) -> bool:
        """A foe this camp can reach this round, no slower than it, whose public HP its best
        attack (its charged Noble Phantasm, else its best card) would likely take."""
        camps = view["camps"]
        battle = view["battle"]
        np_round = next(c["np_round"] for c in battle["combatants"] if c["seat"] == me["seat"])
        agi = _rank(me["ranks"]["agi"])
        steps = 1 if field.zones_on(me["pos"]) else me["movement"]
        for x, square in field.positions.items():
            foe = camps[x]
            if x == me["seat"] or _rank(foe["ranks"]["agi"]) < agi:
                continue
            if field.distance(me["pos"], square) > steps:
                continue
            guard = _rank(foe["ranks"]["end"]) // self.rules.numbers.guard_divisor
            if expected_damage(self.rules, me, np_round, battle["round"], x) - guard >= foe["hp"]:
                return True
        return False

    def _spell_threat(self, view: dict[str, Any], me: dict[str, Any]) -> int:
        """The most damage one hostile spell of a foe's Servant can deal, over the Servants
        the foe may be (`deduction.candidates`; Masters are never known); 0 if none can."""
        worst = 0
        for x in view["battle"]["seats"]:
            if x == me["seat"]:
                continue
            for k in {k for sv in candidates(self.rules, view["camps"][x]) for k in sv.skills}:
                skill = self.rules.skills[k]
                dice = skill.effect.damage
                if skill.magecraft and skill.target == "enemy" and dice is not None:
                    worst = max(worst, dice.count * dice.sides + dice.bonus)
        return worst

    def _cast(self, action: Action, legal: list[Action], field: Field | None) -> Action:
        """A hostile spell hard to land goes with a concentration roll first (T4.2) while a
        roll stays free for a dodge."""
        if field is None or not isinstance(action, UseSkill) or field.free_uses < 2:
            return action
        boosted = ConcentrateCast(action.seat, action.skill, action.target, action.extra)
        check = self.rules.skills[action.skill].check
        if boosted in legal and check is not None and check <= FOCUS_CAST_CHECK:
            return boosted
        return action

    def _dodges(self, view: dict[str, Any], me: dict[str, Any], legal: list[Action]) -> bool:
        """Dodge (T4.3: Attacks only) a hit while HP is low, when the roll is likelier to avoid
        it than the counter card's defense."""
        field = tactical.read(view, self.rules)
        p = view["battle"]["pending"]
        if field is None or p["fumble"] or _ratio(me) >= LOW_HP:
            return False
        counter = next((a for a in _of(legal, React) if a.kind in "BAQ"), None)
        defend = 0.0
        if counter is not None and not p["critical"]:
            bonus = _rank(me["ranks"][_CARD_STAT[counter.kind]]) // 10
            defend = odds_at_least(bonus, p["total"])
        return field.concentration_odds(me) > defend

    def _critical(self, view: dict[str, Any], me: dict[str, Any], legal: list[Action]) -> Action:
        wanted = "hp" if _ratio(me) < 0.6 else "card:B"
        return next(a for a in legal if isinstance(a, ChooseReward) and a.reward == wanted)


class EasyBot(HeuristicBot):
    """The normal bot with a beginner's mistakes: one decision in five is any legal action of
    a random kind (as the random bot picks it)."""

    name = "easy"
    needs_view = True
    MISTAKES = 0.2

    def choose(self, view: dict[str, Any] | None, legal: list[Action]) -> Action:
        if self.rng.random() < self.MISTAKES:
            groups: dict[type, list[Action]] = {}
            for action in legal:
                groups.setdefault(type(action), []).append(action)
            return self.rng.choice(groups[self.rng.choice(list(groups))])
        return super().choose(view, legal)
