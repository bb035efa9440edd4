"""§6 of the campaign: funds, shops and items (C6.1-C6.27; the 23 items of spec §3.2 are
`resources/campaign/items.toml`, the shops `resources/campaign/shops/<map>.toml`).

A camp buys at a shop square (`Buy`), wears mystic codes in two slots per character (`Wear`),
uses consumables (`UseItem`) and places scouting devices (`UseItem` with a square). Worn items
change the pool (their tiles are added to `CampRecord.pool` while worn), the item half of the
damage points (`dp[1]`), max HP and MP and check values. Funds, items owned and worn, and device
placements are the camp's own secret (spec §4): those events are private. An item used in
battle is public (`ItemUsed` to all, its battle effect a public `buff:item:<id>`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import TYPE_CHECKING, Any, NamedTuple

from ...engine import battle, core, prompts
from ...engine.actions import Action
from ...engine.data import CARD_KINDS, Effect, Reader, Skill, read_table
from ...engine.geometry import Size, distance
from ...engine.sharing import Shared
from ...engine.state import Camp, GameState
from ..tactics.data import magecraft
from . import ledger
from . import state as st
from .contract import Contract
from .info import Information
from .section import Section, section_of
from .summoning import SETUP

if TYPE_CHECKING:
    from . import Campaign

GRADES = ("E", "D", "C", "B", "A", "EX")  # C6.4: a label and a price band
KINDS = ("worn", "carried", "consumable", "device")
WEARERS = ("servant", "master")
WHEN = ("free", "main", "battle")  # a consumable's timing (items.toml header)
BATTLE_PROMPTS = ("round_start", "main", "reaction")
OTHER_PROMPTS = ("negotiate", "ambush", "intervene")  # outside battle: free items only
OVERSEER = "overseer"  # the tag that may buy the Overseer's items (C6.15, C6.17)
BALL = "crystal_ball"


class Item(NamedTuple):
    """One row of items.toml (the effects its header names; 0 / False: none)."""

    id: str
    grade: str
    price: int
    kind: str
    wearers: tuple[str, ...] = ()
    max_hp: int = 0
    max_mp: int = 0
    tiles: tuple[int, ...] = (0, 0, 0)
    dp: tuple[int, ...] = (0, 0, 0)
    magecraft_check: int = 0
    mr: int = 0
    overseer: bool = False
    master_mp: int = 0
    when: str = ""
    hp: int = 0
    mp: int = 0
    battle_dp: int = 0
    guard_dp: int = 0
    battle_mr: int = 0
    cleanse: bool = False
    turns: int = 0
    sees_spirit: bool = False
    fragile: bool = False
    bond_grades: int = 0


def _per_kind(r: Reader, key: str) -> tuple[int, ...]:
    if key not in r:
        return (0,) * len(CARD_KINDS)
    table = r.table(key)
    out = tuple(table.integer(k, 0, 20) if k in table else 0 for k in CARD_KINDS)
    table.finish(hint="card kinds are B, A, Q", known=CARD_KINDS)
    return out


def _item(r: Reader, item_id: str) -> Item:
    ints = {k: r.integer(k, 0, 500) for k in ("max_hp", "max_mp", "magecraft_check", "mr",
                                              "master_mp", "hp", "mp", "battle_dp", "guard_dp",
                                              "battle_mr", "turns", "bond_grades") if k in r}
    flags = {k: r.flag(k) for k in ("overseer", "cleanse", "sees_spirit", "fragile") if k in r}
    kind = r.choice("kind", KINDS)
    wearers = ()
    if kind == "worn":
        wearers = r.idents("wearers", 1, 2)
        for w in wearers:
            if w not in WEARERS:
                r.fail("wearers", f"{w!r} is not one of {', '.join(WEARERS)}")
    when = r.choice("when", WHEN) if kind == "consumable" else ""
    item = Item(item_id, r.choice("grade", GRADES), r.integer("price", 0, 1000), kind,
                tuple(wearers), tiles=_per_kind(r, "tiles"), dp=_per_kind(r, "dp"), when=when,
                **ints, **flags)
    r.finish(hint="see the header of items.toml for the keys an item takes")
    return item


def load_items(map_ids: set[str], root: Traversable | None = None) -> tuple[
        dict[str, Item], dict[str, dict[int, tuple[str, ...]]]]:
    """items.toml and the shop file of every map that has one (validated by file and field),
    under `root` (default: the installed resources)."""
    base = resources.files("grailwar.resources") if root is None else root
    doc = read_table(base, "campaign/items.toml")
    items = {item_id: _item(doc.table(item_id), item_id) for item_id in doc.ids()}
    doc.finish()
    shops: dict[str, dict[int, tuple[str, ...]]] = {}
    for map_id in sorted(map_ids):
        if not base.joinpath(f"campaign/shops/{map_id}.toml").is_file():
            continue
        table = read_table(base, f"campaign/shops/{map_id}.toml").table("shops")
        shops[map_id] = {}
        for square in table.ids():
            sold = table.idents(square, 1, len(items))
            unknown = [i for i in sold if i not in items]
            if not square.isdigit() or unknown:
                table.fail(square, f"must be a square index listing item ids (unknown: "
                                   f"{', '.join(unknown) or 'none'})")
            shops[map_id][int(square)] = sold
        table.finish()
    return items, shops


@dataclass(frozen=True, slots=True)
class Buy(Action):
    """C6.2: buy one `item` at a shop square that sells it (day 0: anything)."""

    item: str




@dataclass(frozen=True, slots=True)
class Wear(Action):
    """C6.3: put a mystic code on `wearer` ("servant" or "master"), or take it off ("")."""

    item: str
    wearer: str


@dataclass(frozen=True, slots=True)
class UseItem(Action):
    """C6.3: use a consumable (`target` -1, or the camp a Love Potion is for), place a device
    (`target` the square), or look into the Crystal Ball (`target` the camp watched)."""

    item: str
    target: int
    arg: str




@dataclass(frozen=True, slots=True)
class RepairDoll(Action):
    """C6.26: a damaged Advanced Doll made whole for 1 fund."""

    item: str


def _count(pairs: tuple[tuple[str, int], ...], item: str, n: int) -> tuple[tuple[str, int], ...]:
    table = dict(pairs)
    table[item] = table.get(item, 0) + n
    return tuple(sorted((k, v) for k, v in table.items() if v))


class Gear(Section):
    key = "gear"
    modifier_keys = frozenset({"max_hp", "max_mp", "mr", "max_master_mp"})
    camp_keys = ("funds", "items", "worn")

    def __init__(self, module: Campaign) -> None:
        super().__init__(module)
        self.items, self.shops = load_items(set(self.rules.maps))
        self.catalogue = tuple(self.items)  # what day 0 sells (C14.3)
        self.mr_step, _subtypes = magecraft(resources.files("grailwar.resources"))

    # --- what is worn -------------------------------------------------------------------------
    def worn(self, s: GameState, seat: int, wearer: str) -> list[Item]:
        return [self.items[i] for i, w in st.record(s, seat).worn if w == wearer]

    def modifier(self, s: GameState, camp: Camp, key: str) -> int:
        """Worn items: max HP and MP (max_master_mp for a Master's necklace), `mr`."""
        if key in ("max_hp", "max_mp", "mr"):
            return self._worn_sum(s, camp.seat, "servant", key)
        if key == "max_master_mp":
            return self._worn_sum(s, camp.seat, "master", "max_mp")
        return 0

    def _worn_sum(self, s: GameState, seat: int, wearer: str, key: str) -> int:
        """One figure summed over what `wearer` wears."""
        return sum(getattr(i, key) for i in self.worn(s, seat, wearer))

    def skill_check(self, s: GameState, seat: int, skill: Skill, target: int) -> int:
        """C6.13: the wearer's magecraft skills (a Servant skill: the Servant's cloak). The
        target's `mr` (C6.15, C6.24) lowers a hostile one by mr_step a grade; with tactics on,
        its T6.1 applies that same `mr` (with concentration and immunity), so not here too."""
        if not skill.magecraft:
            return 0
        out = sum(i.magecraft_check for i in self.worn(s, seat, skill.owner))
        if target >= 0 and skill.target == "enemy" and "tactics" not in s.settings.modules:
            out -= self.mr_step * core.mod(s, s.camps[target], "mr")
        return out

    def sight(self, s: GameState, seat: int) -> frozenset[int]:
        """Seed 003 T2.1 "through an item": the squares its eyes and dolls watch, and the
        square of the camp its Crystal Ball watches this Turn."""
        return frozenset(s.camps[d.square].pos if d.item == BALL else d.square
                         for d in st.record(s, seat).devices)

    def damage(self, s: GameState, seat: int, amount: int, source: str) -> int:
        """C6.22: this battle's damage from B/A/Q attacks is `guard_dp` dp less."""
        p = s.battle.pending if s.battle is not None else None
        if source != "attack" or p is None or p.kind not in CARD_KINDS:
            return amount
        less = core.mod(s, s.camps[seat], "attack_damage_taken")
        return max(0, amount - less) if less else amount

    def refit(self, s: GameState, seat: int, worn: tuple[tuple[str, str], ...]) -> None:
        """New worn items: the pool's item tiles and the item dp follow, HP and MP are capped."""
        rec = st.record(s, seat)

        def tiles(pairs: tuple[tuple[str, str], ...]) -> tuple[int, ...]:
            got = [self.items[i].tiles for i, w in pairs if w == "servant"]
            return tuple(sum(t[k] for t in got) for k in range(len(CARD_KINDS)))

        old, new = tiles(rec.worn), tiles(worn)
        dp = tuple(sum(self.items[i].dp[k] for i, w in worn if w == "servant")
                   for k in range(len(CARD_KINDS)))
        st.update(s, seat, worn=worn, dp=(rec.dp[0], dp), pool=tuple(
            p - a + b for p, a, b in zip(rec.pool, old, new, strict=True)))
        camp = s.camps[seat]
        hp, mp, master_mp = core.max_hp(s, camp), core.max_mp(s, camp), core.max_master_mp(s, camp)
        if camp.hp > hp or camp.mp > mp or camp.master_mp > master_mp:  # wearing never heals
            edit = s.edit(seat)
            edit.hp, edit.mp = min(edit.hp, hp), min(edit.mp, mp)
            edit.master_mp = min(edit.master_mp, master_mp)

    def scenario_camp(self, s: GameState, seat: int, values: Any) -> None:
        """`funds = 30`; `items = {id = count}` owned; `worn = [[id, "servant" | "master"]]`,
        each put on as a Wear action would (owned, wearable by that wearer, within its slots),
        so the pool, HP and MP follow."""
        if "funds" in values:
            if type(values["funds"]) is not int or values["funds"] < 0:
                raise ValueError(f"funds: {values['funds']!r} is not an integer >= 0")
            st.update(s, seat, funds=values["funds"])
        if "items" in values:
            items = values["items"]
            if not isinstance(items, dict) or not all(
                    k in self.items and type(n) is int and n >= 1 for k, n in items.items()):
                raise ValueError(f"items: {items!r} is not a table of item id = count >= 1; "
                                 f"items: {', '.join(self.items)}")
            self.refit(s, seat, ())
            st.update(s, seat, items=tuple(sorted(items.items())))
        worn: tuple[tuple[str, str], ...] = ()
        for pair in values.get("worn", []):
            owned = st.record(s, seat).items
            if not (isinstance(pair, list) and len(pair) == 2
                    and Wear(seat, *pair) in self.wear_offers(seat, owned, worn)):
                raise ValueError(f"worn: {pair!r} is not [item, wearer] that camp may put on "
                                 f"(it owns {dict(owned)}, wears {list(worn)})")
            worn = tuple(sorted((*worn, (pair[0], pair[1]))))
        if "worn" in values:
            self.refit(s, seat, worn)

    # --- C6.1 funds ---------------------------------------------------------------------------
    def on_day_end(self, s: GameState) -> None:
        """funds_per_day at each Morning from day 2 on (given as day 1 and later end)."""
        if s.day >= 1:
            for seat in s.living:
                ledger.gain_funds(s, seat, self.data.numbers.funds_per_day, "day")

    # --- C6.2 buying, C6.3 wearing ------------------------------------------------------------
    def on_sale(self, s: GameState, seat: int) -> tuple[str, ...]:
        if st.state(s).day0 != "done":
            return self.catalogue
        return self.shops.get(s.settings.map_id, {}).get(s.camps[seat].pos, ())

    def shop_actions(self, s: GameState, seat: int) -> tuple[Action, ...]:
        """Buying and wearing, kept by what they read (`_shop_offers`): the offers are made
        again for every seat after every declaration of the window, and a seat's funds, items
        and worn list change only when it shops."""
        rec = st.record(s, seat)
        return _shop_offers(self, seat, self.on_sale(s, seat), rec.tag, rec.funds,
                            s.camps[seat].master_mp, rec.items, rec.worn)

    def may_buy(self, item: Item, tag: str, funds: int, master_mp: int) -> bool:
        if item.overseer and tag != OVERSEER:
            return False
        mp = self.data.numbers.holy_shroud_master_mp if item.id == "holy_shroud" else 0
        return funds >= item.price and master_mp >= mp

    def buy(self, s: GameState, action: Buy) -> None:
        seat, item = action.seat, self.items[action.item]
        if item.id == "holy_shroud":  # C6.2: the only item that also costs Master MP
            s.edit(seat).master_mp -= self.data.numbers.holy_shroud_master_mp
        ledger.gain_funds(s, seat, -item.price, "buy")
        rec = st.record(s, seat)
        st.update(s, seat, items=_count(rec.items, item.id, 1))
        core.emit(s, "ItemBought", frozenset({seat}), None, seat=seat, item=item.id,
                  price=item.price)

    def wear_offers(self, seat: int, items: tuple[tuple[str, int], ...],
                    worn: tuple[tuple[str, str], ...]) -> list[Action]:
        slots = self.data.numbers.wear_slots
        out: list[Action] = []
        for item_id, n in items:
            item = self.items[item_id]
            if item.kind != "worn":
                continue
            on = [w for i, w in worn if i == item_id]
            if on:
                out.append(Wear(seat, item_id, ""))
            if len(on) < n:
                out.extend(Wear(seat, item_id, w) for w in item.wearers if w not in on
                           and sum(1 for _i, x in worn if x == w) < slots)
        return out

    def wear(self, s: GameState, action: Wear) -> None:
        seat = action.seat
        worn = tuple(p for p in st.record(s, seat).worn if p[0] != action.item)
        if action.wearer:
            worn = tuple(sorted((*st.record(s, seat).worn, (action.item, action.wearer))))
        self.refit(s, seat, worn)
        core.emit(s, "ItemWorn", frozenset({seat}), None, seat=seat, item=action.item,
                  wearer=action.wearer)

    # --- C6.16-C6.27 using ---------------------------------------------------------------------
    def use_actions(self, s: GameState, seat: int) -> list[Action]:
        kind = s.prompt.kind
        rec = st.record(s, seat)
        camp = s.camps[seat]
        in_battle = self.in_battle(s, seat)
        out: list[Action] = []
        for item_id, _n in rec.items:
            item = self.items[item_id]
            if item.kind == "consumable":
                if item.overseer and rec.tag != OVERSEER:
                    continue
                if item.bond_grades:
                    out.extend(UseItem(seat, item_id, x, "") for x in self.lovers(s, seat))
                elif self.usable_now(s, seat, item, in_battle):
                    out.append(UseItem(seat, item_id, -1, ""))
            elif item.kind == "device" and kind == "declare":
                out.extend(UseItem(seat, item_id, q, "") for q in self.reach(s, camp))
            elif item_id == BALL and kind == "declare" and not self.watching(s, seat) and (
                    camp.master_mp >= item.master_mp):
                out.extend(UseItem(seat, item_id, c.seat, "") for c in s.camps
                           if c.alive and c.seat != seat)
        if kind == "declare":
            for d in rec.devices:
                if self.items[d.item].fragile:
                    out.extend(UseItem(seat, d.item, q, "move") for q in self.reach(s, camp)
                               if q != d.square)
                    if d.damaged and rec.funds >= 1:
                        out.append(RepairDoll(seat, d.item))
        return out

    def in_battle(self, s: GameState, seat: int) -> bool:
        return s.prompt.kind in BATTLE_PROMPTS and s.battle is not None and seat in s.battle.seats

    def usable_now(self, s: GameState, seat: int, item: Item, in_battle: bool) -> bool:
        """Outside battle: the free timing at any prompt, the main one at the declaration
        prompt. In battle: free ones at any battle prompt; main ones at the Main Action; battle
        ones at the Round-1 round start or as a Main Action (never outside battle: they act on
        a battle)."""
        kind = s.prompt.kind
        if not in_battle:
            return item.when == "free" or (kind == "declare" and item.when == "main")
        if item.when == "free":
            return True
        if item.when == "main":
            return kind == "main"
        return kind == "main" or (kind == "round_start" and s.battle.round == 1)

    def reach(self, s: GameState, camp: Camp) -> list[int]:
        grid = core.city(s)
        size = Size(grid.width, grid.height)
        return list(_reach(size, len(grid.squares), camp.pos, core.movement(s, camp)))

    def lovers(self, s: GameState, seat: int) -> list[int]:
        """C6.27: camps on the same square, or the negotiation partner, whose Servant holds a
        bond toward this camp."""
        here = {c.seat for c in s.camps if c.alive and c.seat != seat
                and c.pos == s.camps[seat].pos}
        p = s.parley
        if p is not None and seat in (p.opener, p.target):
            here.add(p.target if seat == p.opener else p.opener)
        return sorted(x for x in here if any(b.holder == "servant" and b.target == seat
                                             for b in st.record(s, x).bonds))

    def use(self, s: GameState, action: UseItem) -> None:
        seat, item = action.seat, self.items[action.item]
        if item.kind == "device":
            self.place(s, action)
            return
        if item.id == BALL:
            self.look(s, action)
            return
        rec = st.record(s, seat)
        st.update(s, seat, items=_count(rec.items, item.id, -1))
        in_battle = self.in_battle(s, seat)
        hp = core.heal(s, seat, item.hp) if item.hp else 0
        mp = core.gain_mp(s, seat, item.mp) if item.mp else 0
        if item.cleanse:
            core.apply_effect(s, seat, Effect((), remove_debuffs=True), "item:" + item.id, 0,
                              True)
        if item.bond_grades:
            self.charm(s, seat, action.target, item.bond_grades)
        mods = tuple((k, v) for k, v in (
            *((f"attack_damage:{k}", item.battle_dp * self.data.numbers.damage_point)
              for k in CARD_KINDS if item.battle_dp),
            ("attack_damage_taken", item.guard_dp * self.data.numbers.damage_point),
            ("mr", item.battle_mr)) if v)
        if mods:  # this battle: a buff that lapses with it
            core.apply_effect(s, seat, Effect(mods), "buff:item:" + item.id,
                              s.rules.numbers.max_battle_rounds, False, owner=seat)
        data = {"seat": seat, "item": item.id, "hp": hp, "mp": mp}
        if in_battle:
            core.emit(s, "ItemUsed", **data)
        else:
            core.emit(s, "ItemUsed", frozenset({seat}), None, **data)
        if s.prompt.kind == "main" and item.when != "free":  # it was the Main Action
            s.edit_battle().acted = True
            battle.next_activation(s)

    def charm(self, s: GameState, seat: int, target: int, grades: int) -> None:
        """C6.27: the target Servant's bond toward this camp +grades (capped at the top grade)."""
        top = self.data.numbers.bond_grade_max
        bonds = tuple(b._replace(grade=min(top, b.grade + grades))
                      if b.holder == "servant" and b.target == seat and b.grade < top else b
                      for b in st.record(s, target).bonds)
        st.update(s, target, bonds=bonds)

    # --- devices: C6.18, C6.20, C6.21, C6.26 --------------------------------------------------
    def place(self, s: GameState, action: UseItem) -> None:
        seat, item = action.seat, self.items[action.item]
        rec = st.record(s, seat)
        if action.arg == "move":
            devices = tuple(d._replace(square=action.target) if d.item == item.id else d
                            for d in rec.devices)
            st.update(s, seat, devices=devices)
        else:
            turns = item.turns if item.turns else -1
            st.update(s, seat, items=_count(rec.items, item.id, -1),
                      devices=(*rec.devices, st.Device(item.id, action.target, turns)))
        core.emit(s, "DevicePlaced", frozenset({seat}), None, seat=seat, item=item.id,
                  square=action.target)

    def repair(self, s: GameState, action: RepairDoll) -> None:
        seat = action.seat
        rec = st.record(s, seat)
        st.update(s, seat, devices=tuple(d._replace(damaged=False) if d.item == action.item
                                         else d for d in rec.devices))
        ledger.gain_funds(s, seat, -1, "repair")

    def on_battle_end(self, s: GameState) -> None:
        """C6.18: a battle on a device's square destroys it."""
        square = s.battle.square
        for seat in range(len(s.camps)):
            rec = st.record(s, seat)
            kept = tuple(d for d in rec.devices if d.square != square or d.item == BALL)
            if len(kept) != len(rec.devices):
                st.update(s, seat, devices=kept)
                core.emit(s, "DeviceDestroyed", frozenset({seat}), None, seat=seat,
                          square=square)

    def on_turn_end(self, s: GameState) -> None:
        """Each device's finds: +1 Servant Rumor point on each Servant on its square (an eye
        for its Turns; a doll once, then destroyed, or damaged first if it is fragile)."""
        contract, info = section_of(s, Contract), section_of(s, Information)
        for seat in s.living:
            kept = []
            for d in st.record(s, seat).devices:
                if d.item == BALL:
                    continue  # the ball's watch is for its Turn only
                item = self.items[d.item]
                found = [c.seat for c in s.camps if c.alive and c.seat != seat
                         and c.pos == d.square and (item.sees_spirit
                                                    or not contract.spirit(s, c.seat))]
                for x in found:
                    info.gain(s, seat, x, "device", "rumor")
                if found:
                    core.emit(s, "DeviceReported", frozenset({seat}), None, seat=seat,
                              item=d.item, square=d.square, found=found)
                if item.turns:
                    if d.turns_left > 1:
                        kept.append(d._replace(turns_left=d.turns_left - 1))
                elif not found:
                    kept.append(d)
                elif item.fragile and not d.damaged:
                    kept.append(d._replace(damaged=True))
            if tuple(kept) != st.record(s, seat).devices:
                st.update(s, seat, devices=tuple(kept))

    # --- C6.11 the Crystal Ball ----------------------------------------------------------------
    def watching(self, s: GameState, seat: int) -> bool:
        return any(d.item == BALL for d in st.record(s, seat).devices)

    def look(self, s: GameState, action: UseItem) -> None:
        """5 Master MP: this Turn the named camp's declaration is shown in full (its
        `Declared`, seen when it declares) and the ball gives a Servant Rumor point. The watch
        is kept as a device whose `square` is the watched seat, gone at the Turn's end."""
        seat = action.seat
        s.edit(seat).master_mp -= self.items[BALL].master_mp
        rec = st.record(s, seat)
        st.update(s, seat, devices=(*rec.devices, st.Device(BALL, action.target, 1)))
        core.emit(s, "CrystalBallUsed", frozenset({seat}), None, seat=seat, about=action.target)
        section_of(s, Information).gain(s, seat, action.target, "device", "rumor")
        self.reveal_declared(s, seat, action.target)

    def reveal_declared(self, s: GameState, seat: int, target: int) -> None:
        decl = st.declared(s, target)
        if decl is not None:
            core.emit(s, "DeclarationSeen", frozenset({seat}), None, seat=seat, about=target,
                      kind=decl.kind, target=decl.target, intent=decl.intent, arg=decl.arg)

    def after_action(self, s: GameState, action: Action, events: list[Any]) -> None:
        """A watched camp declared: its owner sees the whole declaration."""
        if not any(e.type == "Declared" and e.data.get("seat") == action.seat for e in events):
            return  # (reveal_declared adds no `Declared`, and changes no record)
        for seat, rec in enumerate(st.state(s).camps):
            for d in rec.devices:
                if d.item == BALL and d.square == action.seat:
                    self.reveal_declared(s, seat, action.seat)

    # --- offering --------------------------------------------------------------------------------
    def legal(self, s: GameState, seat: int, actions: list[Action]) -> list[Action]:
        kind = s.prompt.kind
        if kind in OTHER_PROMPTS:
            return [*actions, *self.use_actions(s, seat)]
        if kind == SETUP:  # C14.3: day 0 buys from the whole catalogue and wears
            return [*actions, *self.shop_actions(s, seat)]
        if kind not in ("declare", *BATTLE_PROMPTS):
            return actions
        if kind != "declare" and not self.in_battle(s, seat):
            return actions
        out = list(actions)
        if kind == "declare":
            out += self.shop_actions(s, seat)
        return out + self.use_actions(s, seat)

    def verbs(self) -> tuple[str, ...]:
        return VERBS

    def view(self, s: GameState, seat: int | None, shared: Shared) -> dict[str, Any] | None:
        """For a seat: what its square sells now (the map's shops are data, `shops/<map>.toml`,
        not sent with every view)."""
        if seat is None:
            return None
        wares = self.on_sale(s, seat)  # (day 0's whole catalogue, then a square's)
        return shared.carried(("campaign.wares", seat), wares, lambda: {"on_sale": list(wares)})


@lru_cache(maxsize=4096)
def _shop_offers(gear: Gear, seat: int, on_sale: tuple[str, ...], tag: str, funds: int,
                 master_mp: int, items: tuple[tuple[str, int], ...],
                 worn: tuple[tuple[str, str], ...]) -> tuple[Action, ...]:
    """`Gear.shop_actions` of what it reads: what the square sells and the seat can pay for
    (C6.2), and where each worn item owned can go on or come off (C6.4)."""
    buys = (Buy(seat, i) for i in on_sale if gear.may_buy(gear.items[i], tag, funds, master_mp))
    return (*buys, *gear.wear_offers(seat, items, worn))


@lru_cache(maxsize=4096)
def _reach(grid: Size, squares: int, pos: int, steps: int) -> tuple[int, ...]:
    """The squares within `steps` of `pos`, cached: every declaration asks it of each device."""
    return tuple(q for q in range(squares) if distance(grid, pos, q) <= steps)


VERBS = ("Buy", "Wear", "UseItem", "RepairDoll")

_OUTFIT = {Buy: lambda s, a: section_of(s, Gear).buy(s, a),
           Wear: lambda s, a: section_of(s, Gear).wear(s, a)}
prompts.extend("declare", st.NAME, {
    **_OUTFIT,
    UseItem: lambda s, a: section_of(s, Gear).use(s, a),
    RepairDoll: lambda s, a: section_of(s, Gear).repair(s, a)}, VERBS)
prompts.extend(SETUP, st.NAME, _OUTFIT, ("Buy", "Wear"))
for _kind in (*BATTLE_PROMPTS, *OTHER_PROMPTS):
    prompts.extend(_kind, st.NAME, {UseItem: lambda s, a: section_of(s, Gear).use(s, a)},
                   ("UseItem",))

__all__ = ["Buy", "Gear", "Item", "RepairDoll", "UseItem", "Wear", "load_items"]
