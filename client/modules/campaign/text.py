"""The campaign's words (seed 002; spec 002 §4): the label of each campaign action as an option
button names it, and the line of each campaign event in the log, in the seat's language. The
names of items, relics, stances, traits and categories are the catalog's `campaign.*` keys."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ....shared.engine.data import CARD_KINDS
from ....shared.modules.campaign.data import STANCES
from .view_data import campaign_data, own_record, relic_by_id, stance_name, tables, tag_name

if TYPE_CHECKING:
    from ...model import ClientModel

# The campaign's events (spec §4), each a line of the log; those of a battle are its lines.
EVENTS = frozenset({
    "SupplySet", "Materialized", "SpiritManaRecovered", "BerserkerSupplyPaid", "InfoGained",
    "CompositionLearned", "MasterLearned", "NoblePhantasmDisclosed", "TrueNameRevealed",
    "Researched", "RumorShared", "ExperienceGained", "LevelGained", "GrowthChosen",
    "MeritChanged", "PlusActivated", "StanceChosen", "StanceRevealed", "ItemBought",
    "ItemWorn", "ItemUsed", "DeviceReported", "FundsChanged", "BondSet", "BondAwarded",
    "BondResolved", "BondReversed", "BondMaxed", "EventTriggered", "ContractCancelled",
    "MasterVacated", "Recontracted", "StrayUpkeepPaid", "TagDealt", "Revived",
    "CommandSpellGiven", "RelicChosen"})
BATTLE_EVENTS = frozenset({"PlusActivated", "StanceChosen", "StanceRevealed", "ItemUsed",
                           "Materialized"})
# What a player must see on whichever screen it is on: a level gained asks for a growth choice.
NOTICES = frozenset({"LevelGained", "StanceRevealed", "TrueNameRevealed"})


def item_name(tr: Any, item: str) -> str:
    return tr(f"campaign.item.{item}")


def relic_name(m: ClientModel, relic: str) -> str:
    """A relic's name as the summoning section's view gives it (`relics.toml`)."""
    return relic_by_id(m, relic)["name"].get(m.tr.lang, "")


def relic_hint(m: ClientModel, relic: str) -> str:
    return relic_by_id(m, relic)["hint"].get(m.tr.lang, "")


def holder_name(tr: Any, holder: str) -> str:
    """The Servant or the Master of a camp (a bond's holder, an item's wearer)."""
    return tr(f"campaign.holder.{holder}")


def bond_target(m: ClientModel, holder: str, target: int) -> str:
    """A bond's target: a rival camp, or for an internal bond the other half of one's camp."""
    if target == m.me:
        return holder_name(m.tr, "master" if holder == "servant" else "servant")
    return m.who(target)


def growth_label(tr: Any, option: str, first: str = "", second: str = "") -> str:
    """C2.7's four options with their kinds; the "third kind" is the one not chosen."""
    third = next((k for k in CARD_KINDS if k not in (first, second)), "")
    return tr(f"campaign.growth.{option}", first=tr.card(first) if first else "",
              second=tr.card(second) if second else "", third=tr.card(third))


def tile_label(tr: Any, tile: str) -> str:
    """C2.8's tile: a card kind, or else a magecraft skill (by id)."""
    return tr.card(tile) if tile in CARD_KINDS else tr.skill(tile)


def stance_label(m: ClientModel, key: str) -> str:
    """One of the seat's own stances by its (renamed) name."""
    rec = own_record(m)
    if rec is None or key not in STANCES:
        return m.tr(f"campaign.stance.{key}")
    return stance_name(m.tr, rec["stances"][STANCES.index(key)], key)


def plus_label(tr: Any, what: str) -> str:
    """C4.3's `what`: a parameter, a skill, or the NP."""
    head, _, rest = what.partition(":")
    return tr.param(rest) if head == "param" else tr.skill(rest) if head == "skill" else \
        tr("panel.np")


def _label(key: str, **fields: Callable[[ClientModel, dict[str, Any]], Any]
           ) -> Callable[[ClientModel, dict[str, Any]], str]:
    """A label from one catalog key, each placeholder computed from the model and action."""
    return lambda m, a: m.tr(key, **{k: f(m, a) for k, f in fields.items()})


def _item(m: ClientModel, a: dict[str, Any]) -> str:
    return item_name(m.tr, a["item"])


def _wear(m: ClientModel, a: dict[str, Any]) -> str:
    tr = m.tr
    if not a["wearer"]:
        return tr("campaign.take_off", item=item_name(tr, a["item"]))
    return tr("campaign.wear_on", item=item_name(tr, a["item"]),
              wearer=holder_name(tr, a["wearer"]))


def use_target(m: ClientModel, a: dict[str, Any]) -> str:
    """Where a UseItem goes: a square for a device placed or moved (C6.18-C6.26), else the
    camp it is used on ("" for one's own Servant)."""
    target = a.get("target", -1)
    if target < 0:
        return ""
    if tables(m.tr.rules).items[a["item"]].kind == "device" or a.get("arg") == "move":
        return m.square_name(target)
    return "" if target == m.me else m.who(target)


def _use(m: ClientModel, a: dict[str, Any]) -> str:
    name, target = item_name(m.tr, a["item"]), use_target(m, a)
    return m.tr("campaign.use_on", item=name, target=target) if target else name


def _skill_point(m: ClientModel, a: dict[str, Any]) -> str:
    tr = m.tr
    if a["arg"] == "unlock":
        return tr("campaign.skill_unlock")
    return tr("campaign.skill_raise", skill=tr.skill(a["arg"]),
              n=campaign_data(tr.rules).numbers.skill_point_check)


def _background(m: ClientModel, a: dict[str, Any]) -> str:
    return m.tr(f"campaign.background.{a['arg']}",
                n=campaign_data(m.tr.rules).numbers.background_funds)


def _transfer(m: ClientModel, a: dict[str, Any]) -> str:
    tr = m.tr
    giver = "master" if a["to"] == "servant" else "servant"
    rate = campaign_data(tr.rules).numbers.transfer_rate
    return tr("campaign.transfer", giver=holder_name(tr, giver), to=holder_name(tr, a["to"]),
              amount=a["amount"], cost=a["amount"] * rate)


OPTION_LABELS: dict[str, Callable[[ClientModel, dict[str, Any]], str]] = {
    "SetSupply": lambda m, a: m.tr("campaign.supply_on" if a["on"] else "campaign.supply_off"),
    "Buy": _item, "RepairDoll": _item, "UseItem": _use, "Wear": _wear,
    "TransferMerit": _transfer,
    "ArrangeStance": lambda m, a: f"{stance_label(m, a['stance'])}: {a['order']}",
    "NameStance": lambda m, a: stance_label(m, a["stance"]),
    "ChooseStance": lambda m, a: stance_label(m, a["stance"]),
    "SetBond": _label("campaign.bond_set", holder=lambda m, a: holder_name(m.tr, a["holder"]),
                      target=lambda m, a: bond_target(m, a["holder"], a["target"]),
                      polarity=lambda m, a: m.tr(f"campaign.polarity.{a['polarity']}")),
    "AwardBond": _label("campaign.bond_award",
                        holder=lambda m, a: holder_name(m.tr, a["holder"]),
                        target=lambda m, a: bond_target(m, a["holder"], a["target"])),
    "ResolveBond": lambda m, a: m.tr(f"campaign.effect.{a['effect']}"),
    "SpendSkillPoint": _skill_point, "SpendBackgroundPoint": _background,
    "UseJewels": _label("campaign.jewels", n=lambda m, a: a["amount"]),
    "ChooseGrowth": lambda m, a: growth_label(m.tr, a["option"], a["first"], a["second"]),
    "ChooseServantGrowth": _label(
        "campaign.servant_growth", pool=lambda m, a: m.tr(f"campaign.pool_gain.{a['pool']}"),
        dp=lambda m, a: m.tr.card(a["damage_kind"]), tile=lambda m, a: tile_label(m.tr, a["tile"])),
    "DeclareResearch": lambda m, a: m.tr.cls(a["target_class"]),
    "DeclareRecontract": lambda m, a: m.tr.master_name(a["master"]),
    "ShareRumor": lambda m, a: m.who(a["about"]),
    "ActivatePlus": _label("campaign.plus", what=lambda m, a: plus_label(m.tr, a["what"]),
                           pay=lambda m, a: m.tr(f"campaign.pay.{a['pay']}")),
    "ChooseRelic": lambda m, a: relic_name(m, a["relic"]),
    "ShareBondDamage": _label("campaign.share", n=lambda m, a: a["amount"]),
    "SplitBondDamage": _label("campaign.split", n=lambda m, a: a["mp_part"]),
}


def option_label(m: ClientModel, a: dict[str, Any]) -> str | None:
    """The option button's label of a campaign action (None: not the campaign's, or its
    verb's name says it all)."""
    label = OPTION_LABELS.get(a["type"])
    return None if label is None else label(m, a)


def short_label(m: ClientModel, a: dict[str, Any]) -> str:
    """An action's label in a row that already names its item or bond: what it does only."""
    tr, kind = m.tr, a["type"]
    if kind == "Wear":
        return tr("campaign.wear_to", wearer=holder_name(tr, a["wearer"])) if a["wearer"] \
            else tr("campaign.take_off_short")
    if kind == "ResolveBond":  # under the row's "Resolve" head
        return tr(f"campaign.effect.{a['effect']}")
    if kind == "AwardBond":
        return tr("campaign.award_short")
    if kind == "UseItem" and use_target(m, a):
        return use_target(m, a)
    return tr(f"verb.{kind}")


def option_help(m: ClientModel, a: dict[str, Any]) -> str:
    """The hover text of a campaign option: an item's effect, a relic's hint."""
    tr = m.tr
    item = a.get("item", "")
    if tr.has(f"campaign.item_help.{item}"):
        return f"{item_name(tr, item)}\n{tr(f'campaign.item_help.{item}')}"
    if a["type"] == "ChooseRelic":
        return relic_hint(m, a["relic"])
    return tr(f"verb_help.{a['type']}")


# --- events -----------------------------------------------------------------------------------
def event_line(m: ClientModel, e: dict[str, Any]) -> str:
    """One campaign event as a sentence of the log, its names filled in."""
    tr, kind = m.tr, e["type"]
    if kind == "SupplySet":
        return tr(f"campaign.event.SupplySet_{'on' if e.get('on') else 'off'}",
                  who=m.who(e.get("seat")))
    if kind == "RelicChosen" and not e.get("relic"):  # a rival's: its class only
        return tr("event.RelicChosen", who=m.who(e.get("seat")))
    if kind == "InfoGained":
        side = "servant" if e.get("side") == "servant" else "master"
        return tr("campaign.event.InfoGained", about=m.who(e.get("target")),
                  side=holder_name(tr, side), category=tr(f"campaign.category.{e.get('category')}"),
                  amount=e.get("amount"))
    if kind == "StanceRevealed":
        return tr("campaign.event.StanceRevealed", who=m.who(e.get("about", e.get("seat"))),
                  stance=e.get("name") or tr(f"campaign.stance.{e.get('stance')}"),
                  trait=trait_text(tr, e.get("trait", "none"), e.get("arg", "")),
                  lead=" ".join(tr.card(k) for k in e.get("lead", "")))
    if kind in ("BondSet", "BondAwarded", "BondResolved", "BondReversed", "BondMaxed"):
        holder = e.get("holder", "servant")
        return tr(f"campaign.event.{kind}", who=m.who(e.get("seat")),
                  holder=holder_name(tr, holder), target=m.who(e.get("target")),
                  polarity=tr(f"campaign.polarity.{e.get('polarity')}"),
                  effect=tr(f"campaign.effect.{e.get('effect')}"), grade=e.get("grade"))
    return tr(f"campaign.event.{kind}", **_event_fields(m, e))


def _event_fields(m: ClientModel, e: dict[str, Any]) -> dict[str, Any]:
    tr = m.tr
    fields: dict[str, Any] = {
        "who": m.who(e.get("seat")), "about": m.who(e.get("about", e.get("target"))),
        "amount": e.get("amount"), "level": e.get("level"), "mp": e.get("mp"),
        "master_mp": e.get("master_mp"), "funds": e.get("funds"),
        "cls": tr.cls(e.get("cls")), "square": m.square_name(e.get("square", 0)),
        "method": tr(f"campaign.method.{e.get('method')}"),
        "merit": holder_name(tr, e.get("holder", e.get("wallet", "servant"))),
    }
    if "item" in e:
        fields["item"] = item_name(tr, e["item"])
    if "wearer" in e:
        fields["wearer"] = holder_name(tr, e["wearer"]) if e["wearer"] else tr("campaign.none")
    if e.get("option") == "servant":  # C2.8: first the pool, second the dp's kind, the tile
        fields["option"] = tr("campaign.servant_growth",
                              pool=tr(f"campaign.pool_gain.{e.get('first')}"),
                              dp=tr.card(e.get("second", "")),
                              tile=tile_label(tr, e.get("tile", "")))
    elif "option" in e:
        fields["option"] = growth_label(tr, e["option"], e.get("first", ""), e.get("second", ""))
    if "master" in e:
        fields["master"] = tr.master_name(e["master"])
    if "relic" in e:
        fields["relic"] = relic_name(m, e["relic"])
    if "tag" in e:
        fields["tag"] = tag_name(tr, e["tag"])
    if "what" in e:
        fields["what"] = plus_label(tr, e["what"])
    if "event" in e:
        fields["event"] = tr(f"campaign.bond_event.{e['event']}")
    fields["result"] = tr("campaign.success" if e.get("success") else "campaign.failure")
    return fields


def trait_text(tr: Any, trait: str, arg: str) -> str:
    """A stance trait (C5.10) with its argument: a card kind or a magecraft sub-type."""
    if not arg:
        return tr(f"campaign.trait.{trait}")
    return tr(f"campaign.trait.{trait}", arg=arg_label(tr, arg))


def arg_label(tr: Any, arg: str) -> str:
    """A trait's argument: a card kind or a magecraft sub-type."""
    return tr.card(arg) if arg in CARD_KINDS else tr(f"campaign.subtype.{arg}")


def notice(m: ClientModel, e: dict[str, Any]) -> str:
    """The campaign news this seat must see on whatever screen it is on."""
    if e.get("type") not in NOTICES or e.get("seat") != m.me:
        return ""
    return event_line(m, e)


def stance_flags(m: ClientModel, seat: int) -> list[str]:
    """A combatant's stance line in a campaign battle: one's own current stance; a rival's
    only as a `StanceRevealed` showed it to this seat for the current Round (C5.9 ①②: the
    engine reveals at the Round's initiative, just before its `RoundStarted`)."""
    rec = own_record(m)
    if rec is None:
        return []
    tr = m.tr
    if seat == m.me:
        return [tr("campaign.stance_now", stance=stance_label(m, rec["stance_now"]))]
    bounds = [i for i, e in enumerate(m.events)
              if e.get("type") in ("RoundStarted", "BattleStarted")]
    if not bounds or m.events[bounds[-1]].get("type") != "RoundStarted":
        return []
    for e in reversed(m.events[bounds[-2] if len(bounds) > 1 else 0:bounds[-1]]):
        if e.get("type") == "StanceRevealed" and e.get("about") == seat:
            return [tr("campaign.stance_seen",
                       stance=e.get("name") or tr(f"campaign.stance.{e.get('stance')}"),
                       trait=trait_text(tr, e.get("trait", "none"), e.get("arg", "")),
                       lead=" ".join(e.get("lead", "")))]
    return []
