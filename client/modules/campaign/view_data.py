"""The campaign in the client (seed 002; spec `shared/modules/002-campaign.md` §4, §6.1): what the
campaign screens draw, read from the campaign module's view and the seat's legal actions only.

The view holds one record per camp under `view["modules"]["campaign"]["state"]["camps"]`: the
seat's own whole, a rival's public fields only (the engine redacts the rest). Each screen's
buttons are the legal actions of one type (`actions`); a click sends one of them as it is, so
an action the engine does not offer has no button. The words for actions and events are in
`campaign_text.py`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from ....shared.engine.data import CARD_KINDS, Ruleset
from ....shared.modules.campaign.data import (
    MASTER_CATEGORIES,
    METHODS,
    SERVANT_CATEGORIES,
    STANCES,
    SUBTYPES,
    TRAITS,
    CampaignData,
    load_campaign,
)
from ....shared.modules.campaign.gear import Item, load_items
from ....shared.modules.campaign.tags import Tag, load_tags

if TYPE_CHECKING:
    from ...model import ClientModel

NAME = "campaign"
WEARERS = ("servant", "master")
# The actions of the character sheet's pages, offered at the declaration prompt and on day 0:
# their buttons are on the campaign screen, not in the map's action bar (outside a battle).
SHEET_VERBS = frozenset({
    "Buy", "Wear", "UseItem", "RepairDoll", "TransferMerit", "ArrangeStance", "NameStance",
    "SetStanceTrait", "LinkStance", "HoldNoblePhantasm", "SetSupply",
    "SetBond", "AwardBond", "ResolveBond", "SpendSkillPoint", "SpendBackgroundPoint",
    "UseJewels", "ChooseGrowth", "ChooseServantGrowth"})
PAGES = ("sheet", "gear", "stances", "bonds")  # the campaign screen's pages
PAGE_VERBS = {
    "sheet": ("ChooseGrowth", "ChooseServantGrowth", "SpendSkillPoint", "SpendBackgroundPoint",
              "TransferMerit", "UseJewels", "SetSupply"),
    "gear": ("Buy", "Wear", "UseItem", "RepairDoll"),
    "stances": ("NameStance", "ArrangeStance", "SetStanceTrait", "LinkStance",
                "HoldNoblePhantasm"),
    "bonds": ("SetBond", "AwardBond", "ResolveBond"),
}

# The verbs that mark a page as waiting for the seat (a growth, points, new cards to place, a
# bond to set toward a camp just met, a doll to mend); the others (buying, renaming,
# deepening and resolving bonds, ...) are offered nearly always.
NEWS_VERBS = frozenset({"ChooseGrowth", "ChooseServantGrowth", "SpendSkillPoint",
                        "SpendBackgroundPoint", "ArrangeStance", "SetBond", "RepairDoll"})


def page_news(m: ClientModel, page: str) -> bool:
    """Something on a camp page waits for this seat."""
    return any(actions(m, v) for v in PAGE_VERBS[page] if v in NEWS_VERBS)


class Tables(NamedTuple):
    """The campaign's public data a screen reads: the numbers and extras (levels, maxima,
    races), the tags (names and texts) and the items (grades and prices)."""

    data: CampaignData
    tags: dict[str, Tag]
    items: dict[str, Item]


_TABLES: dict[int, tuple[Ruleset, Tables]] = {}


def tables(rules: Ruleset) -> Tables:
    """The shipped files, read once per ruleset."""
    if id(rules) not in _TABLES:
        items, _shops = load_items(set(rules.maps))
        _TABLES[id(rules)] = (rules, Tables(load_campaign(rules),
                                            {t.id: t for t in load_tags(rules)}, items))
    return _TABLES[id(rules)][1]


def campaign_data(rules: Ruleset) -> CampaignData:
    return tables(rules).data


def text_of(tr: Any, text: Any) -> str:
    """A data text (a `Text`, or its dict in a view) in the seat's language."""
    return text[tr.lang] if isinstance(text, dict) else getattr(text, tr.lang)


def tag_name(tr: Any, tag: str) -> str:
    """A tag's name (`tags.toml`): one's own, or a rival's its Master points revealed."""
    found = tables(tr.rules).tags.get(tag)
    return text_of(tr, found.name) if found else tag


def tag_text(tr: Any, tag: str) -> str:
    found = tables(tr.rules).tags.get(tag)
    return text_of(tr, found.text) if found else ""


def section_view(m: ClientModel, key: str) -> dict[str, Any]:
    """One engine section's own part of the campaign view (`Section.view`); {} without it."""
    return (state_of(m.view) or {}).get(key) or {}


def state_of(view: dict[str, Any] | None) -> dict[str, Any] | None:
    """The campaign module's view, if the game has it on."""
    module = (view or {}).get("modules", {}).get(NAME)
    return module["state"] if module else None


def record(m: ClientModel, seat: int | None = None) -> dict[str, Any] | None:
    """A camp's record as this seat sees it (its own: the whole; default: its own)."""
    st = state_of(m.view)
    seat = m.me if seat is None else seat
    if st is None or seat is None or not 0 <= seat < len(st["camps"]):
        return None
    return st["camps"][seat]


def own_record(m: ClientModel) -> dict[str, Any] | None:
    """The seat's own record; None for a spectator or without the campaign."""
    rec = record(m)
    return rec if rec is not None and "level" in rec else None


def actions(m: ClientModel, kind: str, **match: Any) -> list[dict[str, Any]]:
    """The legal actions of one type (whose fields equal `match`), in the engine's order."""
    return [a for a in m.legal if a["type"] == kind
            and all(a.get(k) == v for k, v in match.items())]


def day0_phase(view: dict[str, Any] | None) -> str:
    """The day-0 stage (relic, setup) while it lasts; "" once day 1 opened or off."""
    st = state_of(view)
    phase = st["day0"] if st else "done"
    return "" if phase == "done" else phase


def hidden_verbs(m: ClientModel) -> frozenset[str]:
    """The verbs the map's action bar leaves to the campaign screen (none in a battle, where
    an item or a bond's resolution is a battle action)."""
    return frozenset() if m.in_battle or state_of(m.view) is None else SHEET_VERBS


def to_do(m: ClientModel) -> bool:
    """Something on the campaign screen waits for this seat: a growth to choose, points to
    spend."""
    rec = own_record(m)
    return bool(rec and (rec["pending_growth"] or rec["skill_points"]
                         or rec["background_points"]))


# --- the character sheet --------------------------------------------------------------------
def sheet(m: ClientModel) -> dict[str, Any] | None:
    """The character sheet of the seat's camp: the Master's level and experience by method,
    points to spend, the pending growth, the Servant's pool and damage points, merit, funds."""
    rec, camp = own_record(m), m.my_camp
    if rec is None or camp is None:
        return None
    data = campaign_data(m.tr.rules)
    n = data.numbers
    growth = section_view(m, "growth")  # the race and cap the tag gives (C12.1 ④)
    per = n.tiles_per_card
    contract, items = rec["dp"]
    return {
        "level": rec["level"], "cap": growth["cap"], "race": growth["race"],
        "per_level": n.exp_per_level,
        "exp": list(zip(METHODS, rec["exp"], strict=True)),
        "skill_points": rec["skill_points"], "background_points": rec["background_points"],
        "investigation": rec["investigation_bonus"], "pending": rec["pending_growth"],
        "last_growth": rec["last_growth"],
        "pool": [{"kind": k, "tiles": t, "cards": t // per, "next": per - t % per,
                  "dp": contract[i] + items[i], "dp_items": items[i]}
                 for i, (k, t) in enumerate(zip(CARD_KINDS, rec["pool"], strict=True))],
        "per_card": per, "composition": growth.get("cards", ""),
        "max_pool": n.max_pool,
        "merit": {"servant": rec["merit"][0], "master": rec["merit"][1]},
        "funds": rec["funds"], "supply_on": rec["supply_on"], "stray": rec["stray"],
        "spirit": m.me in spirit_seats(m.view),
        "tag": rec["tag"], "jewels": rec["jewels"], "revivals": rec["revivals"],
        "hp": camp["hp"], "max_hp": camp["max_hp"], "mp": camp["mp"], "max_mp": camp["max_mp"],
        "master_mp": camp["master_mp"], "max_master_mp": camp["max_master_mp"],
        "growth_stage": "servant" if actions(m, "ChooseServantGrowth") else
        "option" if actions(m, "ChooseGrowth") else "",
    }


def growth_draft(extra: dict[str, Any], offered: list[dict[str, Any]]) -> dict[str, str]:
    """The Servant's growth being picked (C2.8): the seat's picks over the data default
    (the first action offered: HP, the kind with the most cards)."""
    if not offered:
        return {}
    base = {k: offered[0][k] for k in ("pool", "damage_kind", "tile")}
    return {**base, **extra.get("growth_draft", {})}


# --- gear -----------------------------------------------------------------------------------
def gear(m: ClientModel) -> dict[str, Any] | None:
    """Items owned (with what each wears), the two slots per character, devices placed, and
    the shop: what the square sells now (the engine's `on_sale`; on day 0 the whole
    catalogue), each with its price and the Buy action when the engine offers it."""
    rec = own_record(m)
    if rec is None:
        return None
    worn: dict[str, list[str]] = {w: [] for w in WEARERS}
    for item, wearer in rec["worn"]:
        worn.setdefault(wearer, []).append(item)
    owned = [{"item": item, "count": count,
              "worn": [w for w, items in worn.items() if item in items]}
             for item, count in rec["items"]]
    items = tables(m.tr.rules).items
    buy = {a["item"]: a for a in actions(m, "Buy")}
    shop = [{"item": i, "grade": items[i].grade, "price": items[i].price, "buy": buy.get(i)}
            for i in section_view(m, "gear").get("on_sale", ())]
    return {"owned": owned, "worn": worn, "slots": campaign_data(m.tr.rules).numbers.wear_slots,
            "devices": rec["devices"], "funds": rec["funds"], "shop": shop,
            "square": (m.my_camp or {}).get("pos", -1), "day0": bool(day0_phase(m.view))}


# --- stances --------------------------------------------------------------------------------
def stance_name(tr: Any, stance: dict[str, Any], key: str) -> str:
    """A stance's name: the seat's own (NameStance), else its default name."""
    return stance["name"] or tr(f"campaign.stance.{key}")


def stances(m: ClientModel) -> list[dict[str, Any]]:
    """The four stances: name, trait, link, NP flag, the arrangement as it plays now and its
    lead kinds (the stances section's view: the pool's new cards placed last, C5.7), whether
    it is the current one, and the rename, arrange and choose actions legal for it, with day
    0's trait, link and NP-stance ones (C14.3)."""
    rec = own_record(m)
    if rec is None:
        return []
    now = section_view(m, "stances")
    out = []
    for key, stance in zip(STANCES, rec["stances"], strict=True):
        playing = now.get(key, {"order": stance["order"], "lead": ""})
        out.append({**stance, **playing, "key": key, "label": stance_name(m.tr, stance, key),
                    "now": rec["stance_now"] == key,
                    "rename": bool(actions(m, "NameStance", stance=key)),
                    "arrange": actions(m, "ArrangeStance", stance=key),
                    "choose": actions(m, "ChooseStance", stance=key),
                    "traits": actions(m, "SetStanceTrait", stance=key),
                    "links": actions(m, "LinkStance", stance=key),
                    "hold_np": actions(m, "HoldNoblePhantasm", stance=key)})
    return out


def trait_draft(extra: dict[str, Any], st: dict[str, Any]) -> tuple[str, str]:
    """The (trait, argument) being picked for a stance on day 0: the seat's pick, else the
    stance's own."""
    return extra.get("trait_drafts", {}).get(st["key"], (st["trait"], st["arg"]))


def trait_pick(st: dict[str, Any], trait: str) -> tuple[str, str]:
    """A trait picked: with the stance's own argument if it is its trait, else the first
    argument offered with it ("" for a trait without one)."""
    if trait == st["trait"]:
        return trait, st["arg"]
    return trait, next(a["arg"] for a in st["traits"] if a["trait"] == trait)


def trait_args(trait: str) -> tuple[str, ...]:
    """C5.10: the arguments a trait may take (card kinds, magecraft sub-types, or none)."""
    return {"kind": CARD_KINDS, "subtype": SUBTYPES}.get(TRAITS[trait], ())


def trait_choices(st: dict[str, Any]) -> list[str]:
    """The traits a stance may take on day 0 (its own among them), in the catalogue's
    order."""
    offered = {a["trait"] for a in st["traits"]}
    return [t for t in TRAITS if t in offered or t == st["trait"]]


def arrange_action(st: dict[str, Any], order: str) -> dict[str, Any] | None:
    """The ArrangeStance that sends `order`: one offered as it is (C5.7's new cards placed),
    or on day 0 the engine's any-order template (its empty order) filled in."""
    exact = next((a for a in st["arrange"] if a["order"] == order), None)
    template = next((a for a in st["arrange"] if a["order"] == ""), None)
    if exact is None and template is not None and sorted(order) == sorted(st["order"]):
        return {**template, "order": order}
    return exact


def lead_size(m: ClientModel) -> int:
    """C5.6: how many first cards of an arrangement lead, the Servant's own maximum in a
    category (5 + its fame)."""
    data = campaign_data(m.tr.rules)
    servant = (m.my_camp or {}).get("servant", "")
    fame = data.fame(servant) if servant in data.servants else 0
    return data.numbers.info_max_servant + fame


def moved(order: str, i: int, step: int) -> str:
    """The arrangement with its card at `i` moved `step` places (a draft the seat may send
    only if the engine offers that order)."""
    j = i + step
    if not (0 <= i < len(order) and 0 <= j < len(order)):
        return order
    cards = list(order)
    cards[i], cards[j] = cards[j], cards[i]
    return "".join(cards)


# --- bonds ----------------------------------------------------------------------------------
def bonds(m: ClientModel) -> dict[str, Any] | None:
    """The bonds the seat's Servant and Master hold, each with the award and resolve actions
    legal for it, and the new bonds it may set (toward camps met last Turn)."""
    rec = own_record(m)
    if rec is None:
        return None
    data = campaign_data(m.tr.rules)
    rows = []
    for b in rec["bonds"]:
        key = {"holder": b["holder"], "target": b["target"]}
        rows.append({**b, "max": b["grade"] >= data.numbers.bond_max_value,
                     "internal": b["target"] == m.me,
                     "award": actions(m, "AwardBond", **key),
                     "resolve": actions(m, "ResolveBond", **key)})
    return {"rows": rows, "set": actions(m, "SetBond"), "top": data.numbers.bond_grade_max,
            "met": list(rec["met_last_turn"])}


# --- the dossier ----------------------------------------------------------------------------
def dossier(m: ClientModel) -> dict[int, dict[str, Any]]:
    """Per rival seat: its information points by category against their maxima (after the
    true name every Servant category counts as full, C1.8), and what they revealed beyond the
    base tiers (the NP seen fired, the Master's sheet)."""
    st = state_of(m.view)
    if st is None or m.my_camp is None:
        return {}
    top = campaign_data(m.tr.rules).numbers.info_max_master
    out = {}
    for seat, info in st.get("info", {}).items():
        servant = [info["max"]] * len(SERVANT_CATEGORIES) if info["true_name"] else \
            info["servant"]
        out[int(seat)] = {
            **info,
            "servant_rows": [(c, v, info["max"]) for c, v in zip(SERVANT_CATEGORIES, servant,
                                                                 strict=True)],
            "master_rows": [(c, v, top) for c, v in zip(MASTER_CATEGORIES, info["master"],
                                                        strict=True)]}
    return out


# --- day 0 ----------------------------------------------------------------------------------
def relics(m: ClientModel) -> list[dict[str, Any]]:
    """The relic draft as the summoning section shows it: every relic with its name and hint,
    this seat's own (`seat`), the class a drafted relic calls (`cls`: that class is taken,
    its relics closed; which one a rival took stays hidden) and the ChooseRelic action for
    a relic still free."""
    if m.module_option(NAME, "summoning") != "relic":
        return []  # no draft in this room: the view lists the relics all the same
    offered = {a["relic"]: a for a in actions(m, "ChooseRelic")}
    return [{**r, "choose": offered.get(r["id"])}
            for r in section_view(m, "summoning").get("relics", ())]


def relic_by_id(m: ClientModel, relic: str) -> dict[str, Any]:
    return next((r for r in relics(m) if r["id"] == relic),
                {"id": relic, "name": {}, "hint": {}, "seat": -1, "cls": ""})


# --- the city map ---------------------------------------------------------------------------
def spirit_seats(view: dict[str, Any] | None) -> frozenset[int]:
    """Camps whose Servant is in spirit form now (public, spec §4), as the contract section
    counts them: the supply cut, not materialized this Turn, not stray."""
    st = state_of(view)
    return frozenset(((st or {}).get("contract") or {}).get("spirit", ()))


def map_lines(m: ClientModel, square: int) -> list[str]:
    """A square's campaign lines for its hover text: spirit form and stray Servants there, and
    the Masters left there without a Servant (all public)."""
    st = state_of(m.view)
    if st is None:
        return []
    tr, view = m.tr, m.view or {}
    spirit = spirit_seats(view)
    lines = []
    for x, rec in enumerate(st["camps"]):
        camp = view["camps"][x]
        if camp["alive"] and camp["pos"] == square:
            if rec["stray"]:
                lines.append(tr("campaign.map.stray", who=m.who(x)))
            elif x in spirit:
                lines.append(tr("campaign.map.spirit", who=m.who(x)))
    lines += [tr("campaign.map.vacant", master=tr.master_name(v["master"]))
              for v in st["vacant"] if v["square"] == square]
    return lines


def vacant_on(view: dict[str, Any] | None, square: int) -> int:
    """How many Masters stand on `square` without a Servant."""
    st = state_of(view)
    return sum(v["square"] == square for v in st["vacant"]) if st else 0
