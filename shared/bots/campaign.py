"""The heuristic bot's campaign habits (seed 002): cheap rules, no search. It takes each
level's growth on its strongest card kind, spends its points, moves Master merit to the
Servant (whose wallet buys escapes and "+"), buys and wears what makes its Servant hit harder
or last longer, drinks a potion when hurt, and escapes with merit when it disengages."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from ..engine.actions import Action, DeclareAmbush, DeclareEncounter, Move
from ..modules.campaign.gear import Buy, UseItem, Wear, load_items
from ..modules.campaign.growth import (
    ChooseGrowth,
    ChooseServantGrowth,
    DeclareStudy,
    SpendBackgroundPoint,
    SpendSkillPoint,
)
from ..modules.campaign.merit import EscapeWithMerit, TransferMerit
from ..modules.campaign.plus import ActivatePlus
from .raider import raid_time

# What it buys, best first: worn items for the Servant, then potions to carry.
WISHES = ("nekote", "amulet_of_life", "giants_belt", "thunderbolt_shield", "fairy_shoes",
          "amulet_of_protection", "mana_necklace", "potion_of_life", "recovery_potion")
HEALS = ("potion_of_life", "recovery_potion")
CARRY = 2  # potions it keeps at most of each


def _of(legal: list[Action], kind: type) -> list[Action]:
    return [a for a in legal if type(a) is kind]


def campaign_action(view: dict[str, Any], me: dict[str, Any], legal: list[Action],
                    distance: Callable[[int, int], int]) -> Action | None:
    """A campaign action worth taking before the base decision, or None."""
    growth = _of(legal, ChooseGrowth)
    if growth:
        return _growth(view, growth)
    servant = _of(legal, ChooseServantGrowth)
    if servant:
        most = _most(view)
        return next((a for a in servant if (a.pool, a.damage_kind, a.tile) == ("hp", most, most)),
                    servant[0])
    for kind in (SpendSkillPoint, SpendBackgroundPoint, EscapeWithMerit):
        found = _of(legal, kind)
        if found:
            return found[0]
    to_servant = [a for a in _of(legal, TransferMerit) if a.to == "servant"]
    if to_servant:
        return max(to_servant, key=lambda a: a.amount)
    heal = [a for a in _of(legal, UseItem) if a.item in HEALS]
    if heal and me["hp"] < me["max_hp"] * 0.6:
        return heal[0]
    wear = [a for a in _of(legal, Wear) if a.wearer]
    if wear:
        return min(wear, key=lambda a: (a.wearer != "servant", _rank(a.item)))
    owned = dict(_campaign(view).get("items", ()))
    buys = [a for a in _of(legal, Buy) if a.item in WISHES
            and (a.item not in HEALS or owned.get(a.item, 0) < CARRY)
            and (a.item in HEALS or owned.get(a.item, 0) == 0)]
    if buys:
        return min(buys, key=lambda a: _rank(a.item))
    shop = _shop(view, me, legal, distance)
    if shop is not None:
        return shop
    # One real "+" (the ones MP can pay) a Round, while MP is plentiful.
    plus = [a for a in _of(legal, ActivatePlus) if a.what.startswith("param:") and a.pay == "mp"]
    if plus and view["prompt"]["kind"] == "round_start" and not _campaign(view)["plus_used"] and (
            me["mp"] > me["max_mp"] * 0.5):
        return plus[0]
    return None


def _shop(view: dict[str, Any], me: dict[str, Any], legal: list[Action],
          distance: Callable[[int, int], int]) -> Action | None:
    """With funds for a worn wish and nothing worn, walk toward the nearest shop selling one
    (when healthy: a hurt camp has better things to do; not while the colossus calls for
    raids, nor with a rival in reach: the walk spends the reach a battle needs, and a war is
    won by fighting)."""
    moves = [a for a in legal if isinstance(a, Move)]
    record = _campaign(view)
    if (not moves or record["worn"] or me["hp"] < me["max_hp"] * 0.6 or raid_time(view)
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


def study_declaration(legal: list[Action]) -> Action | None:
    """DeclareStudy when the campaign offers it (C2.3)."""
    return next(iter(_of(legal, DeclareStudy)), None)


def _rank(item: str) -> int:
    return WISHES.index(item) if item in WISHES else len(WISHES)


def _campaign(view: dict[str, Any]) -> dict[str, Any]:
    """The seat's own campaign record from the view (its whole record, spec §4)."""
    state = view["modules"]["campaign"]["state"]
    return state["camps"][view["you"]]


def _most(view: dict[str, Any]) -> str:
    cards = view["modules"]["campaign"]["state"]["growth"]["cards"]
    return max("BAQ", key=cards.count)


def _growth(view: dict[str, Any], legal: list[ChooseGrowth]) -> Action:
    """G1 on its strongest kind, else G4 (the two alternate, never twice in a row)."""
    most = _most(view)
    focus = [a for a in legal if a.option == "focus" and a.first == most]
    return focus[0] if focus else next((a for a in legal if a.option == "edge"), legal[0])
