"""A heuristic bot that fights sensibly, deciding from its own view and legal actions only.

It rests when hurt or when its Master has not rested by night, picks fights it is likely to win
(comparing public HP), investigates otherwise, fires its Noble Phantasm when it can, defends
with the matching card, and spends Command Spells to heal or to retreat before it dies.

With rules modules on it asks the bot part of each (`bots.modules`, in the game's module
order) at fixed points: first at every prompt, at the prompt kinds a module adds, at a
declaration (after the rest, and instead of idling), at a round's start (after the rescue, and
after the Noble Phantasm declarations), for a skill's form, for the Main Action and before the
counter card of a Reaction; a part's `press` makes the war a race (`_prey`).
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
from ..engine.data import default_ruleset
from .estimates import CARD_STAT as _CARD_STAT
from .estimates import of_type as _of
from .estimates import rank_value as _rank
from .estimates import ratio as _ratio
from .modules import Choose, parts

FIT = 0.6  # the share of its HP a camp wants before it picks a fight
# The base game's prompt kinds, each answered by the method `_<kind>`; a module's own kinds
# are answered by its part (`BotPart.prompts`).
BASE_KINDS = ("declare", "negotiate", "ambush", "intervene", "round_start", "main", "reaction",
              "critical")


class HeuristicBot:
    name = "normal"
    needs_view = True

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.rules = default_ruleset()

    def choose(self, view: dict[str, Any] | None, legal: list[Action]) -> Action:
        assert view is not None
        me = view["camps"][view["you"]]
        kind = view["prompt"]["kind"]
        first = self._ask(view, "first", me, legal)
        if first is not None:
            return first
        if kind in BASE_KINDS:
            return getattr(self, f"_{kind}")(view, me, legal)
        for part in parts(view["modules"]):
            chooser: Choose | None = part.prompts().get(kind)
            if chooser is not None:
                return chooser(self, view, me, legal)
        raise ValueError(f"no bot part answers the prompt kind {kind!r}")

    def _ask(self, view: dict[str, Any], hook: str, me: dict[str, Any],
             legal: list[Action]) -> Action | None:
        """The first action the `hook` of the parts of the view's modules returns, or None."""
        for part in parts(view["modules"]):
            action = getattr(part, hook)(self, view, me, legal)
            if action is not None:
                return action
        return None

    # --- turn play ---------------------------------------------------------------------------
    def _declare(self, view: dict[str, Any], me: dict[str, Any], legal: list[Action]) -> Action:
        hp = _ratio(me)
        mp_low = me["mp"] < me["max_mp"] * 0.3
        must_rest = not me["rested"] and view["turn"] == "night"
        # A module's war may be long on healing and short on days (`BotPart.press`, issue 13):
        # a fight on offer comes before the night's rest, and a camp too hurt to fight (below
        # FIT) rests rather than idles, or too few battles are fought to end the war.
        press = any(part.press for part in parts(view["modules"]))
        prey = self._prey(view, me, legal, press) if press else None
        if prey is not None:
            return prey
        if (hp < (FIT if press else 0.5) or must_rest) and _of(legal, DeclareRest):
            return _of(legal, DeclareRest)[0]
        called = self._ask(view, "declaration", me, legal)
        if called is not None:
            return called
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
        idle = self._ask(view, "idle", me, legal)
        if idle is not None:
            return idle
        return _of(legal, DeclareWait)[0]

    def _prey(self, view: dict[str, Any], me: dict[str, Any], legal: list[Action],
              press: bool = False) -> Action | None:
        """Attack a rival that is weaker by public HP when healthy enough; as the day limit
        nears, any rival will do (a draw wins nobody the Grail). With `press` (a module's)
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
        target = min(rivals, key=lambda c: (c["hp"], self.distance(view, me["pos"], c["pos"])))
        if self.distance(view, me["pos"], target["pos"]) <= 1:
            return None
        return min(moves, key=lambda a: (abs(self.distance(view, a.to, target["pos"]) - 1),
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
        free = self._ask(view, "round_start", me, legal)
        if free is not None:
            return free
        nps = _of(legal, DeclareNoblePhantasm)
        if nps:
            camps = view["camps"]
            return min(nps, key=lambda a: camps[a.target]["hp"])
        focus = self._ask(view, "focus", me, legal)
        if focus is not None:
            return focus
        skills = _of(legal, UseSkill)
        if skills and self.rng.random() < 0.7:
            action = self.rng.choice(skills)
            for part in parts(view["modules"]):
                action = part.cast(self, view, me, action, legal)
            return action
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
        own = self._ask(view, "main", me, legal)
        if own is not None:
            return own
        attacks = _of(legal, Attack)
        moves = _of(legal, Move)
        battle = view["battle"]
        foe_squares = {view["camps"][x]["pos"] for x in battle["seats"] if x != me["seat"]}
        if attacks and min(self.distance(view, me["pos"], view["camps"][a.target]["pos"])
                           for a in attacks) > 0:
            closing = [a for a in moves if a.to in foe_squares]
            if closing:  # step in: melee has no range penalty
                return self.rng.choice(closing)
        if attacks:
            return max(attacks, key=lambda a: self.attack_score(view, me, a))
        foes = [view["camps"][x] for x in battle["seats"] if x != me["seat"]]
        if moves and foes and me["disengaging"] != battle["round"]:
            target = min(foes, key=lambda c: c["hp"])
            return min(moves, key=lambda a: self.distance(view, a.to, target["pos"]))
        if moves:
            return moves[0]
        return _of(legal, Wait)[0] if _of(legal, Wait) else legal[0]

    def attack_score(self, view: dict[str, Any], me: dict[str, Any], a: Attack) -> float:
        target = view["camps"][a.target]
        stat = _rank(me["ranks"][_CARD_STAT.get(a.kind, "luk")]) / (20 if a.kind == "L" else 10)
        card_value = {"B": 3, "A": 1.5, "Q": 1, "L": -2}[a.kind]
        reach = self.distance(view, me["pos"], target["pos"]) * 2
        return stat + card_value - reach - target["hp"] / 100 - (1 if a.card == "" else 0)

    def distance(self, view: dict[str, Any], a: int, b: int) -> int:
        width = self.rules.maps[view["map"]].width
        return abs(a % width - b % width) + abs(a // width - b // width)

    def _reaction(self, view: dict[str, Any], me: dict[str, Any], legal: list[Action]) -> Action:
        rescue = self._rescue(me, legal)
        if rescue:
            return rescue
        own = self._ask(view, "reaction", me, legal)
        if own is not None:
            return own
        reacts = _of(legal, React)
        normal = [a for a in reacts if a.kind in "BAQ"]
        if normal:
            return normal[0]
        luck = _rank(me["ranks"]["luk"]) // 20
        end = _rank(me["ranks"]["end"]) // 10
        kind = "L" if luck >= 3 and end < 5 else "G"
        choice = [a for a in reacts if a.kind == kind and a.card == ""]
        return choice[0] if choice else reacts[0]

    reaction = _reaction  # for a part's own reaction prompt (`NormalBot.reaction`)

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
