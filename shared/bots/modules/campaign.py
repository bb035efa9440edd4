"""The campaign's bot part (seed 002): cheap rules, no search.

Its habits at every prompt (`campaign_action`): it takes each level's growth on its strongest
card kind, spends its points, moves Master merit to the Servant (whose wallet buys escapes and
"+"), buys and wears what makes its Servant hit harder or last longer, drinks a potion when
hurt, and escapes with merit when it disengages. It pours Tohsaka jewels into a Servant low on
MP.

Its stances and bonds: it awards every bond it may and opens one toward each camp it met,
resolves a bond once it is worth it, fights in the stance that holds its NP when the NP is
ready (in a raid too), else attacks while healthy and defends when hurt, and takes bond damage
where it hurts least. The war is long on healing and short on days (`press`), and half its
idle Turns go to study.

Day 0 (§12, §14; docs/rules.md "Summoning and day 0"): it drafts the relic of the class its
seat was given when one is free (one of them by its own dice; the relic catalogue is shipped
data, as the sheets are), else the first free relic; at the setup prompt it buys and wears as
on any day (`campaign_action`, asked first), then deals each stance whose lead set misses a
kind of its pool into a B-A-Q round robin (so every kind may lead, C5.6), then is ready.

`CampaignFigures` are its growth figures in `grailwar simulate`.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from ...engine import core
from ...engine.actions import Action, DeclareAmbush, DeclareEncounter, Move
from ...engine.data import Ruleset
from ...engine.events import Event
from ...engine.state import GameState
from ...modules.campaign import state as campaign_state
from ...modules.campaign.bonds import (
    AwardBond,
    ResolveBond,
    SetBond,
    ShareBondDamage,
    SplitBondDamage,
)
from ...modules.campaign.gear import Buy, UseItem, Wear, load_items
from ...modules.campaign.growth import (
    ChooseGrowth,
    ChooseServantGrowth,
    DeclareStudy,
    SpendBackgroundPoint,
    SpendSkillPoint,
)
from ...modules.campaign.merit import EscapeWithMerit, TransferMerit
from ...modules.campaign.plus import ActivatePlus
from ...modules.campaign.spells import KeepDeclaration
from ...modules.campaign.stances import ArrangeStance, ChooseStance
from ...modules.campaign.summoning import ChooseRelic, SetupReady, load_relics
from ...modules.campaign.tags import UseJewels
from ..estimates import of_type, ratio
from . import BotPart, Choose, Figures, NormalBot, parts, register

# What it buys, best first: worn items for the Servant, then potions to carry.
WISHES = ("nekote", "amulet_of_life", "giants_belt", "thunderbolt_shield", "fairy_shoes",
          "amulet_of_protection", "mana_necklace", "potion_of_life", "recovery_potion")
HEALS = ("potion_of_life", "recovery_potion")
CARRY = 2  # potions it keeps at most of each
RESOLVE_AT = 3  # a bond is resolved once its grade reaches this
HURT = 0.5  # below this share of max HP: defend, heal
JEWELS_MP = 0.4  # below this share of its MP the Servant gets the jewels


# --- its habits at every prompt ------------------------------------------------------------------
def campaign_action(view: dict[str, Any], me: dict[str, Any], legal: list[Action],
                    distance: Callable[[int, int], int]) -> Action | None:
    """A campaign action worth taking before the base decision, or None."""
    growth = of_type(legal, ChooseGrowth)
    if growth:
        return _growth(view, growth)
    servant = of_type(legal, ChooseServantGrowth)
    if servant:
        most = _most(view)
        return next((a for a in servant if (a.pool, a.damage_kind, a.tile) == ("hp", most, most)),
                    servant[0])
    for kind in (SpendSkillPoint, SpendBackgroundPoint, EscapeWithMerit):
        found = of_type(legal, kind)
        if found:
            return found[0]
    to_servant = [a for a in of_type(legal, TransferMerit) if a.to == "servant"]
    if to_servant:
        return max(to_servant, key=lambda a: a.amount)
    heal = [a for a in of_type(legal, UseItem) if a.item in HEALS]
    if heal and me["hp"] < me["max_hp"] * 0.6:
        return heal[0]
    wear = [a for a in of_type(legal, Wear) if a.wearer]
    if wear:
        return min(wear, key=lambda a: (a.wearer != "servant", _rank(a.item)))
    owned = dict(_own(view).get("items", ()))
    buys = [a for a in of_type(legal, Buy) if a.item in WISHES
            and (a.item not in HEALS or owned.get(a.item, 0) < CARRY)
            and (a.item in HEALS or owned.get(a.item, 0) == 0)]
    if buys:
        return min(buys, key=lambda a: _rank(a.item))
    shop = _shop(view, me, legal, distance)
    if shop is not None:
        return shop
    # One real "+" (the ones MP can pay) a Round, while MP is plentiful.
    plus = [a for a in of_type(legal, ActivatePlus)
            if a.what.startswith("param:") and a.pay == "mp"]
    if plus and view["prompt"]["kind"] == "round_start" and not _own(view)["plus_used"] and (
            me["mp"] > me["max_mp"] * 0.5):
        return plus[0]
    return None


def _shop(view: dict[str, Any], me: dict[str, Any], legal: list[Action],
          distance: Callable[[int, int], int]) -> Action | None:
    """With funds for a worn wish and nothing worn, walk toward the nearest shop selling one
    (when healthy: a hurt camp has better things to do; not while another module calls every
    camp to a task of its own (`BotPart.pressing`), nor with a rival in reach: the walk spends
    the reach a battle needs, and a war is won by fighting)."""
    moves = [a for a in legal if isinstance(a, Move)]
    record = _own(view)
    if (not moves or record["worn"] or me["hp"] < me["max_hp"] * 0.6
            or any(p.pressing(view) for p in parts(view["modules"]))
            or any(isinstance(a, DeclareEncounter | DeclareAmbush) for a in legal)):
        return None
    shops = [q for q, items in _shops(view["map"]).items()
             if any(i in items for i in WISHES[:6]) and q != me["pos"]]
    if record["funds"] < 8 or not shops:
        return None
    goal = min(shops, key=lambda q: distance(me["pos"], q))
    return min(moves, key=lambda a: (distance(a.to, goal), a.to))


@cache
def _shops(map_id: str) -> dict[int, tuple[str, ...]]:
    """The map's shops (square -> items on sale), read once from the data."""
    return load_items({map_id})[1].get(map_id, {})


def _rank(item: str) -> int:
    return WISHES.index(item) if item in WISHES else len(WISHES)


def _own(view: dict[str, Any]) -> dict[str, Any]:
    """The seat's own campaign record from the view (its whole record, spec §4)."""
    return view["modules"]["campaign"]["state"]["camps"][view["you"]]


def _most(view: dict[str, Any]) -> str:
    cards = view["modules"]["campaign"]["state"]["growth"]["cards"]
    return max("BAQ", key=cards.count)


def _growth(view: dict[str, Any], legal: list[ChooseGrowth]) -> Action:
    """G1 on its strongest kind, else G4 (the two alternate, never twice in a row)."""
    most = _most(view)
    focus = [a for a in legal if a.option == "focus" and a.first == most]
    return focus[0] if focus else next((a for a in legal if a.option == "edge"), legal[0])


def jewels(me: dict[str, Any], legal: list[Action]) -> Action | None:
    """The most the jewels may pour, when the Servant's MP is low."""
    pours = [a for a in legal if isinstance(a, UseJewels)]
    if not pours or me["mp"] >= me["max_mp"] * JEWELS_MP:
        return None
    return max(pours, key=lambda a: a.amount)


# --- day 0 ---------------------------------------------------------------------------------------
_RELIC_CLASSES: dict[int, tuple[Ruleset, dict[str, str]]] = {}


def relic_classes(rules: Ruleset) -> dict[str, str]:
    """Relic -> the class of the Servant it calls, read once per ruleset."""
    hit = _RELIC_CLASSES.get(id(rules))
    if hit is None or hit[0] is not rules:
        hit = _RELIC_CLASSES[id(rules)] = (
            rules, {r.id: rules.by_id[r.servant].cls for r in load_relics(rules)})
    return hit[1]


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


class CampaignFigures(Figures):
    """The campaign's growth figures (spec 002 §7): each living camp's Master level and pool
    size (cards) when day 7 opens, or at the game's end for a game over sooner. In the JSON
    report only."""

    DAY = 7

    def __init__(self) -> None:
        self.levels: list[int] = []
        self.pools: list[int] = []
        self.taken = False
        self.reached = 0

    def step(self, state: GameState, events: list[Event]) -> None:
        if not self.taken and state.day >= self.DAY:
            self.reached += 1
            self.take(state)

    def take(self, state: GameState) -> None:
        self.taken = True
        for camp in state.camps:
            if camp.alive:
                self.levels.append(campaign_state.record(state, camp.seat).level)
                self.pools.append(len(core.composition(state, camp)))

    def game_over(self, state: GameState) -> None:
        if not self.taken:
            self.take(state)
        self.taken = False

    def summary(self) -> dict[str, Any]:
        return {"median_level_day7": statistics.median(self.levels) if self.levels else None,
                "median_pool_day7": statistics.median(self.pools) if self.pools else None,
                "levels_day7": dict(sorted(Counter(self.levels).items())),
                "games_reaching_day7": self.reached}


@register
class CampaignPart(BotPart):
    name = "campaign"
    press = True
    figures = CampaignFigures

    def prompts(self) -> Mapping[str, Choose]:
        return {"relic": self._relic, "setup": self._setup, "share": self._share,
                "split": self._split}

    def first(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
              legal: list[Action]) -> Action | None:
        """The jewels, its habits, then its bonds at a declaration and its stance at a raid's
        start (the stance that holds its NP, as at a battle's round start)."""
        pour = jewels(me, legal)
        if pour is not None:
            return pour
        extra = campaign_action(view, me, legal, lambda a, b: bot.distance(view, a, b))
        if extra is not None:
            return extra
        kind = view["prompt"]["kind"]
        if kind == "declare":
            return self._declare(bot, view, me, legal)
        if kind == "raid_start" and any(isinstance(a, ChooseStance) for a in legal):
            return self.round_start(bot, view, me, legal)
        return None

    def idle(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
             legal: list[Action]) -> Action | None:
        """DeclareStudy (C2.3), half the idle Turns."""
        study = next(iter(of_type(legal, DeclareStudy)), None)
        if study is not None and bot.rng.random() < 0.5:
            return study
        return None

    # --- stances and bonds ----------------------------------------------------------------------
    def _declare(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
                 legal: list[Action]) -> Action | None:
        keep = [a for a in legal if isinstance(a, KeepDeclaration)]
        if keep:  # declared already: it keeps its action (no Action Restriction)
            return keep[0]
        awards = [a for a in legal if isinstance(a, AwardBond)]
        if awards:
            return awards[0]
        resolve = [a for a in legal if isinstance(a, ResolveBond)]
        ripe = self._ripe(view, me, resolve)
        if ripe is not None:
            return ripe
        bonds = [a for a in legal if isinstance(a, SetBond) and a.polarity == "positive"
                 and a.holder == "servant"]
        return bonds[0] if bonds else None

    def _ripe(self, view: dict[str, Any], me: dict[str, Any],
              resolve: list[ResolveBond]) -> Action | None:
        """A bond at RESOLVE_AT or more: heal when hurt, else experience (else funds)."""
        if not resolve:
            return None
        grade = {(b["holder"], b["target"]): b["grade"] for b in _own(view)["bonds"]}
        want = ("heal_hp", "mid_damage") if ratio(me) < HURT else ("exp", "mid_damage", "funds")
        for effect in want:
            for a in resolve:
                if a.effect == effect and grade.get((a.holder, a.target), 0) >= RESOLVE_AT:
                    return a
        return None

    def round_start(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
                    legal: list[Action]) -> Action | None:
        """A ripe bond, else the stance: the NP's when it can pay for it, else attack while
        healthy and defense when hurt."""
        ripe = self._ripe(view, me, [a for a in legal if isinstance(a, ResolveBond)])
        if ripe is not None:
            return ripe
        stances = {a.stance: a for a in legal if isinstance(a, ChooseStance)}
        if not stances:
            return None
        np = bot.rules.by_id[me["servant"]].np
        ready = np.kind != "constant" and me["mp"] >= np.mp
        want = "critical" if ready else ("defense" if ratio(me) < HURT else "attack")
        return stances.get(want)

    def _share(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
               legal: list[Action]) -> Action:
        """Take a share only while healthy."""
        shares = [a for a in legal if isinstance(a, ShareBondDamage)]
        return max(shares, key=lambda a: a.amount) if ratio(me) > 0.7 else shares[0]

    def _split(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
               legal: list[Action]) -> Action:
        """Into MP when HP is the scarcer, and MP can pay twice over."""
        splits = [a for a in legal if isinstance(a, SplitBondDamage)]
        if ratio(me) < HURT:
            affordable = [a for a in splits if 2 * a.mp_part < me["mp"]]
            if affordable:
                return max(affordable, key=lambda a: a.mp_part)
        return splits[0]

    # --- day 0 ------------------------------------------------------------------------------------
    def _relic(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
               legal: list[Action]) -> Action:
        drafts = [a for a in legal if isinstance(a, ChooseRelic)]
        classes = relic_classes(bot.rules)
        own = [a for a in drafts if classes.get(a.relic) == me["cls"]]
        return bot.rng.choice(own) if own else drafts[0]

    def _setup(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
               legal: list[Action]) -> Action:
        stances = view["modules"]["campaign"]["state"].get("stances") or {}
        for a in legal:
            if isinstance(a, ArrangeStance) and a.stance in stances:
                now = stances[a.stance]
                if set(now["lead"]) != set(now["order"]):
                    return ArrangeStance(a.seat, a.stance, round_robin(now["order"]))
        return SetupReady(me["seat"])
