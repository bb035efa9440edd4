"""§5 of the campaign: stances (C5.1-C5.12), and the lead exchange they act in (§0 mapping).

A Servant has four stances (normal, attack, defense, critical), each an arrangement of the whole
pool, a trait, a link to one Servant information category and an NP flag. Stances never change
the cards (C5.5): what they change is which kinds may be spent in the camp's **lead exchange**
(the first non-NP exchange of a Round in which it attacks or defends: the kinds of the first H
cards of the arrangement, H its own category maximum, C5.6), whether its NP may be declared or
fired (C5.8), its trait's bonus (C5.10), and what a rival with **resistance** to the stance learns
and gets in that rival's own lead exchange (C5.9).

Everything about a camp's stances is its own secret (spec §4): no record field here is public; a
chosen stance is announced without its name; a resistant rival privately learns the current
stance's name, trait and lead kinds when a Round's initiative is about to be settled.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from ...engine import core, prompts
from ...engine.actions import (
    Action,
    Attack,
    DeclareNoblePhantasm,
    React,
    UseNoblePhantasm,
    UseSkill,
)
from ...engine.core import Check
from ...engine.data import CARD_KINDS, Reader, Text, read_table
from ...engine.sharing import Shared
from ...engine.state import GameState
from ..tactics.data import SUBTYPES, magecraft
from . import state as st
from .data import SERVANT_CATEGORIES, STANCES, TRAITS
from .info import Information
from .section import Section, section_of
from .summoning import SETUP

PHYSICAL = frozenset(CARD_KINDS)  # B, A, Q: the seed's Smash, Counter, Onslaught


# --- data: the trait catalogue and the magecraft sub-types -----------------------------------
@dataclass(frozen=True, slots=True)
class Trait:
    """A trait's entry of `campaign/traits.toml` (C5.10, C5.12): its argument kind, words."""

    id: str
    arg: str
    name: Text
    text: Text


def load_traits(reader: Reader) -> dict[str, Trait]:
    """Every entry must be one of the trait kinds the rules know (C5.12: a table's own trait is
    a new entry of a known kind), with the argument kind that trait takes; every known trait
    needs an entry, so each can be named to the players."""
    out = {}
    for trait_id in reader.ids():
        if trait_id not in TRAITS:
            reader.fail(trait_id, f"unknown trait (known: {', '.join(TRAITS)})")
        entry = reader.table(trait_id)
        arg = entry.choice("arg", ("", "kind", "subtype"))
        if arg != TRAITS[trait_id]:
            entry.fail("arg", f"{trait_id} takes {TRAITS[trait_id] or 'no argument'!r}")
        out[trait_id] = Trait(trait_id, arg, entry.text("name"), entry.text("text"))
        entry.finish(hint="a trait takes arg, name, text")
    missing = [t for t in TRAITS if t not in out]
    if missing:
        reader.fail(missing[0], "missing: every trait needs an entry")
    reader.finish()
    return out


@cache
def _catalogue() -> tuple[dict[str, Trait], dict[str, str]]:
    base = resources.files("grailwar.resources")
    return (load_traits(read_table(base, "campaign/traits.toml")),
            magecraft(base)[1])


def traits() -> dict[str, Trait]:
    return _catalogue()[0]


def subtype(skill_id: str) -> str:
    """A magecraft skill's sub-type ("" when it has none)."""
    return _catalogue()[1].get(skill_id, "")


# --- actions --------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ChooseStance(Action):
    """C5.4: the stance for this Round (round-start prompt, Round 2 on; once a Round)."""

    stance: str


@dataclass(frozen=True, slots=True)
class ArrangeStance(Action):
    """C5.7: a stance's new arrangement of the pool: the cards already placed keep their order,
    the new ones go anywhere (declaration prompt)."""

    stance: str
    order: str

    def template(self, state: Any) -> Action | None:
        """On day 0 any order of the whole pool (C5.7) is offered as the empty order."""
        if state.prompt.kind != SETUP:
            return None
        module = next(m for m in state.modules if m.name == st.NAME)
        pool = st.cards(st.record(state, self.seat), module.data)
        return replace(self, order="") if sorted(self.order) == sorted(pool) else None


@dataclass(frozen=True, slots=True)
class NameStance(Action):
    """C5.1: rename one of the three non-normal stances (1 to stance_name_max characters; the
    empty name gives back the default one). Offered as its empty-name template."""

    stance: str
    name: str

    def template(self, state: Any) -> Action | None:
        limit = next(m for m in state.modules if m.name == st.NAME).data.numbers.stance_name_max
        text = self.name
        if 0 < len(text) <= limit and text.strip() == text and text.isprintable():
            return replace(self, name="")
        return None


@dataclass(frozen=True, slots=True)
class SetStanceTrait(Action):
    """C14.3, C5.10: day 0 gives one of the three non-normal stances another trait (with its
    kind or magecraft sub-type when it takes one; `setup` prompt)."""

    stance: str
    trait: str
    arg: str


@dataclass(frozen=True, slots=True)
class LinkStance(Action):
    """C14.3, C5.1: day 0 links a stance to another Servant category; the stance that held
    it takes this one's old link, so the links stay 1:1 (A19; `setup` prompt)."""

    stance: str
    link: str


@dataclass(frozen=True, slots=True)
class HoldNoblePhantasm(Action):
    """C14.3, C5.8: day 0 moves an attack or support NP to another non-normal stance (one
    stance always holds it; `setup` prompt)."""

    stance: str


# --- reading a camp's stances ----------------------------------------------------------------
def stance(rec: st.CampRecord, name: str) -> st.Stance:
    return rec.stances[STANCES.index(name)]


def split_order(rec: st.CampRecord, order: str, pool: str) -> tuple[str, str]:
    """(placed, new): the cards of `order` still in the pool, in their order, and the pool's
    cards the order does not place yet (appended, in B, A, Q order: C5.7)."""
    return _split(order, pool)


@lru_cache(maxsize=4096)
def _split(order: str, pool: str) -> tuple[str, str]:
    """`split_order` of plain strings, cached: every prompt asks it of the same few orders."""
    left = Counter(pool)
    placed = []
    for card in order:
        if left[card] > 0:
            left[card] -= 1
            placed.append(card)
    return "".join(placed), "".join(k * left[k] for k in CARD_KINDS)


def interleavings(placed: str, new: str) -> list[str]:
    """Every distinct order that keeps `placed` in its order and puts the `new` cards anywhere."""
    return list(_interleavings(placed, new))


@lru_cache(maxsize=4096)
def _interleavings(placed: str, new: str) -> tuple[str, ...]:
    """`interleavings`, cached across calls: each declaration window asks it again of the
    stances that have not changed."""
    @cache
    def walk(i: int, rest: tuple[tuple[str, int], ...]) -> tuple[str, ...]:
        out: list[str] = []
        if i < len(placed):
            out.extend(placed[i] + tail for tail in walk(i + 1, rest))
        for j, (card, count) in enumerate(rest):
            if count:
                more = (*rest[:j], (card, count - 1), *rest[j + 1:])
                out.extend(card + tail for tail in walk(i, more))
        return tuple(dict.fromkeys(out)) or ("",)

    return walk(0, tuple(Counter(new).items()))


@lru_cache(maxsize=4096)
def _arrangements(seat: int, name: str, placed: str, new: str) -> tuple[ArrangeStance, ...]:
    """The ArrangeStance offers of one stance (immutable actions, so shared between lists)."""
    return tuple(ArrangeStance(seat, name, order) for order in _interleavings(placed, new))


def _setup_offers(seat: int, stances: tuple[st.Stance, ...], constant: bool) -> list[Action]:
    """`Stances._setup_actions` of the seat's stances: day 0 asks it on every step, and a
    setup action changes one stance's one field, so each part is cached on what it reads."""
    by = dict(zip(STANCES, stances, strict=True))
    out: list[Action] = [*_fixed_setup_offers(seat)]
    for name in STANCES[1:]:
        out += _trait_offers(seat, name, by[name].trait, by[name].arg)
    for name in STANCES:
        out += _link_offers(seat, name, by[name].link)
    if not constant:
        out += [HoldNoblePhantasm(seat, name) for name in STANCES[1:] if not by[name].np]
    return out


@lru_cache(maxsize=4096)
def _declare_offers(seat: int, orders: tuple[str, ...], pool: str) -> tuple[Action, ...]:
    """`Stances._declare_actions` of the stances' orders and the pool, cached: every seat's
    offers are made again after every declaration of the window, from the same few orders.
    Names are offered empty (the text is the player's); an arrangement only where the pool
    has cards the stance does not place yet."""
    out: list[Action] = [NameStance(seat, name, "") for name in STANCES[1:]]
    for name, order in zip(STANCES, orders, strict=True):
        placed, new = _split(order, pool)
        if new:
            out.extend(_arrangements(seat, name, placed, new))
    return tuple(out)


@lru_cache(maxsize=64)
def _fixed_setup_offers(seat: int) -> tuple[Action, ...]:
    return (*(NameStance(seat, name, "") for name in STANCES[1:]),
            *(ArrangeStance(seat, name, "") for name in STANCES))


@lru_cache(maxsize=4096)
def _trait_offers(seat: int, name: str, trait: str, arg: str) -> tuple[SetStanceTrait, ...]:
    return tuple(SetStanceTrait(seat, name, t, a) for t, a in _TRAIT_CHOICES
                 if (t, a) != (trait, arg))


@lru_cache(maxsize=4096)
def _link_offers(seat: int, name: str, link: str) -> tuple[LinkStance, ...]:
    return tuple(LinkStance(seat, name, x) for x in SERVANT_CATEGORIES if x != link)


class Stances(Section):
    key = "stances"
    modifier_keys = frozenset({"damage_dealt", "damage_taken"})

    # --- reading -------------------------------------------------------------------------------
    def pool(self, s: GameState, seat: int) -> str:
        return st.cards(st.record(s, seat), self.data)

    def arrangement(self, s: GameState, seat: int, name: str) -> str:
        """The stance's arrangement now: its placed cards, then the pool's new ones (C5.7)."""
        rec = st.record(s, seat)
        placed, new = split_order(rec, stance(rec, name).order, self.pool(s, seat))
        return placed + new

    def current(self, s: GameState, seat: int) -> st.Stance:
        rec = st.record(s, seat)
        return stance(rec, rec.stance_now)

    def lead_depth(self, s: GameState, seat: int) -> int:
        """C5.6: H, how many of an arrangement's first cards lead: the Servant's own maximum
        in the linked category (5 + fame)."""
        return section_of(s, Information).servant_max(s, seat)

    def lead_kinds(self, s: GameState, seat: int, name: str | None = None) -> frozenset[str]:
        """C5.6: the kinds among the first H cards of the arrangement."""
        name = name or st.record(s, seat).stance_now
        return frozenset(self.arrangement(s, seat, name)[:self.lead_depth(s, seat)])

    def lead(self, s: GameState, seat: int) -> str:
        """"open", "won" or "lost": the camp's lead exchange this Round ("" outside battle)."""
        b = st.state(s).battle
        return b.lead[seat] if b is not None and b.lead else ""

    def resistant(self, s: GameState, viewer: int, other: int) -> bool:
        """C5.9, C1.12: `viewer` has `other`'s current stance's linked category at maximum."""
        if viewer == other:
            return False
        return section_of(s, Information).at_max(s, viewer, other, self.current(s, other).link)

    def trait(self, s: GameState, seat: int) -> tuple[str, str]:
        now = self.current(s, seat)
        return now.trait, now.arg

    def marked(self, s: GameState, what: str, seat: int) -> bool:
        b = st.state(s).battle
        return b is not None and (what, seat) in b.marks

    def mark(self, s: GameState, what: str, seat: int) -> None:
        b = st.state(s).battle
        st.put(s, battle=b._replace(marks=b.marks | {(what, seat)}))

    def dp(self, n: int = 1) -> int:
        return n * self.data.numbers.damage_point

    # --- offering -------------------------------------------------------------------------------
    def legal(self, s: GameState, seat: int, actions: list[Action]) -> list[Action]:
        kind = s.prompt.kind
        if kind == "declare":
            return [*actions, *self._declare_actions(s, seat)]
        if kind == SETUP:
            return [*actions, *self._setup_actions(s, seat)]
        if s.battle is None or seat not in s.battle.seats or st.state(s).battle is None:
            return actions
        if kind == "round_start":
            return self._round_start(s, seat, actions)
        if kind == "main":
            holds = self.current(s, seat).np or s.camps[seat].servant.np.kind == "constant"
            out = [a for a in actions if holds or not isinstance(a, UseNoblePhantasm)]
            return self._lead_cards(s, seat, out, Attack)
        if kind == "reaction" and not s.battle.pending.noble_phantasm:
            return self._lead_cards(s, seat, actions, React)
        return actions

    def _declare_actions(self, s: GameState, seat: int) -> tuple[Action, ...]:
        return _declare_offers(seat, tuple(x.order for x in st.record(s, seat).stances),
                               self.pool(s, seat))

    def _setup_actions(self, s: GameState, seat: int) -> list[Action]:
        """C14.3: names, free arrangements (the empty-order template), traits, links and the
        NP stance, each as often as the seat likes until it is ready."""
        constant = s.camps[seat].servant.np.kind == "constant"
        return _setup_offers(seat, st.record(s, seat).stances, constant)

    def _round_start(self, s: GameState, seat: int, actions: list[Action]) -> list[Action]:
        now = self.current(s, seat)
        out = [a for a in actions if now.np or not isinstance(a, DeclareNoblePhantasm)]
        if s.battle.round >= 2 and not self.marked(s, "chose", seat):
            out.extend(ChooseStance(seat, name) for name in STANCES
                       if name != st.record(s, seat).stance_now)
        return out

    def _lead_cards(self, s: GameState, seat: int, actions: list[Action],
                    kind: type) -> list[Action]:
        """C5.6: in the camp's lead exchange, a card spent must be of a lead kind; options with
        no card stay open."""
        if self.lead(s, seat) != "open":
            return actions
        kinds = self.lead_kinds(s, seat)
        return [a for a in actions
                if not (type(a) is kind and a.card and a.card not in kinds)]

    # --- actions --------------------------------------------------------------------------------
    def choose(self, s: GameState, action: ChooseStance) -> None:
        self.mark(s, "chose", action.seat)
        self.set_stance(s, action.seat, action.stance)

    def set_stance(self, s: GameState, seat: int, name: str) -> None:
        """The stance for this Round, chosen (in a battle or a raid): seen only by its camp."""
        st.update(s, seat, stance_now=name)
        core.emit(s, "StanceChosen", frozenset({seat}), {"seat": seat}, seat=seat, stance=name)

    def arrange(self, s: GameState, action: ArrangeStance) -> None:
        self._set(s, action.seat, action.stance, order=action.order)
        core.emit(s, "StanceArranged", frozenset({action.seat}), None, seat=action.seat,
                  stance=action.stance, order=action.order)

    def name(self, s: GameState, action: NameStance) -> None:
        self._set(s, action.seat, action.stance, name=action.name)
        core.emit(s, "StanceNamed", frozenset({action.seat}), None, seat=action.seat,
                  stance=action.stance, name=action.name)

    def set_trait(self, s: GameState, action: SetStanceTrait) -> None:
        self._set(s, action.seat, action.stance, trait=action.trait, arg=action.arg)
        core.emit(s, "StanceTraitSet", frozenset({action.seat}), None, seat=action.seat,
                  stance=action.stance, trait=action.trait, arg=action.arg)

    def link(self, s: GameState, action: LinkStance) -> None:
        seat = action.seat
        rec = st.record(s, seat)
        old = stance(rec, action.stance).link
        other = next(name for name in STANCES if stance(rec, name).link == action.link)
        self._set(s, seat, other, link=old)
        self._set(s, seat, action.stance, link=action.link)
        core.emit(s, "StanceLinked", frozenset({seat}), None, seat=seat, stance=action.stance,
                  link=action.link, other=other, other_link=old)

    def hold_np(self, s: GameState, action: HoldNoblePhantasm) -> None:
        seat = action.seat
        for name in STANCES:
            self._set(s, seat, name, np=name == action.stance)
        core.emit(s, "NoblePhantasmStanceSet", frozenset({seat}), None, seat=seat,
                  stance=action.stance)

    def _set(self, s: GameState, seat: int, which: str, **fields: Any) -> None:
        rec = st.record(s, seat)
        i = STANCES.index(which)
        new = rec.stances[i]._replace(**fields)
        st.update(s, seat, stances=(*rec.stances[:i], new, *rec.stances[i + 1:]))

    # --- the battle -----------------------------------------------------------------------------
    def set_normal(self, s: GameState, seats: Any) -> None:
        """C5.4: these camps start a battle (or a raid) in the normal stance."""
        for seat in seats:
            if st.record(s, seat).stance_now != "normal":
                st.update(s, seat, stance_now="normal")

    def on_battle_start(self, s: GameState) -> None:
        """C5.4: Round 1 is fought in the normal stance."""
        self.set_normal(s, s.battle.seats)

    def on_join(self, s: GameState, seat: int) -> None:
        self.set_normal(s, (seat,))

    def on_battle_end(self, s: GameState) -> None:
        self.set_normal(s, s.battle.joined)

    def initiative(self, s: GameState, order: tuple[int, ...]) -> tuple[int, ...]:
        """C5.9 ① ②: every combatant is Ready; each resistant rival learns the stance."""
        seats = s.battle.seats
        for viewer in seats:
            for other in seats:
                if self.resistant(s, viewer, other):
                    now = self.current(s, other)
                    core.emit(s, "StanceRevealed", frozenset({viewer}), None, seat=viewer,
                              about=other, stance=st.record(s, other).stance_now,
                              name=now.name, trait=now.trait, arg=now.arg,
                              lead="".join(k for k in CARD_KINDS
                                           if k in self.lead_kinds(s, other)))
        return order

    def on_action(self, s: GameState, action: Action) -> None:
        if s.battle is None or st.state(s).battle is None:
            return
        if isinstance(action, React) and s.prompt.kind == "reaction":
            p = s.battle.pending
            b = st.state(s).battle
            st.put(s, battle=b._replace(exchange=(p.attacker, p.target, action.kind,
                                                  p.noble_phantasm)))
        elif isinstance(action, UseSkill):
            skill = self.rules.skills[action.skill]
            if skill.magecraft:
                self.mark(s, "magecraft", action.seat)
                if subtype(skill.id) == "guard":
                    self.mark(s, "guard_magecraft", action.seat)

    def damage(self, s: GameState, seat: int, amount: int, source: str) -> int:
        """The exchange's damage before the modules' reductions decides who won it (an
        Absolute Defense does not change that, C7.8)."""
        b = st.state(s).battle
        if b is not None and b.exchange and b.exchange[1] == seat and amount >= 1:
            self.mark(s, "hit", seat)
        return amount

    def on_activation_end(self, s: GameState, seat: int) -> None:
        """The exchange of this activation is over: the lead exchanges it was (§0 mapping: the
        attacker won if it dealt damage; C5.9 ③ a guard-type magecraft of the resisted side
        counts as the resistant side's win), then Thorned Guard."""
        b = st.state(s).battle
        if b is None or not b.exchange:
            return
        att, dfn, reaction, np = b.exchange
        won = (("hit", dfn) in b.marks
               or (self.resistant(s, att, dfn) and ("guard_magecraft", dfn) in b.marks
                   and b.lead[att] == "open"))
        lead = list(b.lead)
        if not np:
            for x, mine in ((att, won), (dfn, not won)):
                if lead[x] == "open":
                    lead[x] = "won" if mine else "lost"
        st.put(s, battle=b._replace(lead=tuple(lead), exchange=(),
                                    marks=b.marks - {("hit", dfn)}))
        if (reaction == "G" and s.camps[dfn].alive and s.camps[att].alive
                and self.trait(s, dfn)[0] == "guard_thorns"):
            core.emit(s, "ThornsDealt", seat=dfn, target=att, amount=self.dp())
            core.take_damage(s, att, self.dp())

    def on_round_end(self, s: GameState) -> None:
        """Each Round has its own lead exchanges, choices and magecraft."""
        b = st.state(s).battle
        if b is None:
            return
        keep = frozenset(m for m in b.marks if m[0] not in _ROUND_MARKS)
        st.put(s, battle=b._replace(lead=("open",) * len(b.lead), marks=keep, exchange=()))

    # --- C5.9 ③ resistance in the lead exchange -----------------------------------------------
    def _resisting(self, s: GameState, v: int, x: int) -> bool:
        """V's lead exchange against X, whose stance V resists."""
        return self.lead(s, v) == "open" and self.resistant(s, v, x)

    def opposed(self, s: GameState, att: int, dfn: int, reaction: str, att_check: Check,
                dfn_check: Check, wins: bool) -> bool:
        if wins or s.battle.pending.noble_phantasm or not self._resisting(s, att, dfn):
            return wins
        tie = (att_check.fumble == dfn_check.fumble and att_check.critical == dfn_check.critical
               and att_check.total == dfn_check.total)
        luck_vs_luck = s.battle.pending.kind == "L" and reaction == "L"
        return tie or luck_vs_luck

    def reductions(self, s: GameState, att: int, seat: int, halve: bool, guard: bool,
                   taken: bool) -> tuple[bool, bool, bool]:
        p = s.battle.pending if s.battle is not None else None
        if (guard and p is not None and p.kind == "L" and not p.noble_phantasm
                and self._resisting(s, att, seat)):
            guard = False
        return halve, guard, taken

    # --- C5.10 traits ----------------------------------------------------------------------------
    def modifier(self, s: GameState, camp: Any, key: str) -> int:
        if key == "damage_dealt":
            return self._dealt(s, camp.seat)
        if key == "damage_taken":
            return self._taken(s, camp.seat)
        return 0

    def _dealt(self, s: GameState, seat: int) -> int:
        b = s.battle
        if b is None or b.pending is None or b.pending.attacker != seat or b.pending.noble_phantasm:
            return 0
        if st.state(s).battle is None:
            return 0
        trait, arg = self.trait(s, seat)
        kind, lead = b.pending.kind, self.lead(s, seat)
        if trait == "kind_damage":
            return self.dp(2) if kind == arg else 0
        if trait == "lead_damage":
            return self.dp() if kind in PHYSICAL and lead == "open" else 0
        if (trait, lead) in (("won_lead", "won"), ("lost_lead", "lost")):
            return self.dp()
        return 0

    def _taken(self, s: GameState, seat: int) -> int:
        b = st.state(s).battle
        if b is None or s.battle is None:
            return 0
        trait = self.trait(s, seat)[0]
        if trait == "extra_guard" and b.exchange and b.exchange[1] == seat and (
                b.exchange[2] == "G"):
            return -self.data.numbers.extra_guard
        if trait == "incantation_ward" and ("magecraft", seat) in b.marks:
            return -self.dp(self.data.numbers.incantation_ward_dp)
        return 0

    def skill_check(self, s: GameState, seat: int, skill: Any, target: int) -> int:
        trait, arg = self.trait(s, seat)
        if trait == "magecraft_grade" and skill.magecraft and subtype(skill.id) == arg:
            return self.data.numbers.grade_check
        return 0

    # --- what leaves the engine -----------------------------------------------------------------
    def scenario_state(self, s: GameState, values: Any) -> None:
        """`resistant = [[viewer, other], ...]`: `viewer` starts with every Servant category
        of `other` at its maximum (C1.12), so it resists each of `other`'s stances; the points
        are gained as in play (`[[camp]] info`), so the true name is known too (C1.8)."""
        unknown = sorted(set(values) - {"resistant"})
        if unknown:
            raise ValueError(f"campaign stances module_state has no key {unknown[0]!r}; "
                             "keys: resistant")
        info = section_of(s, Information)
        for pair in values.get("resistant", []):
            if not (isinstance(pair, list) and len(pair) == 2 and all(
                    type(x) is int and 0 <= x < len(s.camps) for x in pair) and pair[0] != pair[1]):
                raise ValueError(f"campaign stances resistant: {pair!r} is not [viewer, other], "
                                 "two different seats")
            viewer, other = pair
            top = info.servant_max(s, other)
            held = st.info_on(s, viewer, other).servant
            info.scenario_camp(s, viewer, {"info": [{"on": other, "servant": {
                category: top - n for category, n in zip(SERVANT_CATEGORIES, held, strict=True)}}]})

    def verbs(self) -> tuple[str, ...]:
        return ("ChooseStance", *SETUP_VERBS)

    def view(self, s: GameState, seat: int | None, shared: Shared) -> dict[str, Any] | None:
        """The viewer's own stances as they play now: each arrangement with its lead kinds
        (made of its record and its Servant: taken from the state before while they are the
        same)."""
        if seat is None or not s.camps[seat].alive:
            return None
        return shared.carried(("campaign.stances", seat),
                              (st.record(s, seat), s.camps[seat].servant),
                              lambda: self._view(s, seat))

    def _view(self, s: GameState, seat: int) -> dict[str, Any]:
        depth = self.lead_depth(s, seat)
        out = {}
        for name in STANCES:
            order = self.arrangement(s, seat, name)
            lead = frozenset(order[:depth])
            out[name] = {"order": order, "lead": "".join(k for k in CARD_KINDS if k in lead)}
        return out


# C5.10: every (trait, argument) a non-normal stance may take on day 0.
_TRAIT_CHOICES = tuple((trait, arg) for trait, kind in TRAITS.items() if trait != "none"
                       for arg in {"kind": CARD_KINDS, "subtype": SUBTYPES}.get(kind, ("",)))
SETUP_VERBS = ("ArrangeStance", "NameStance", "SetStanceTrait", "LinkStance",
               "HoldNoblePhantasm")

# Battle marks that last one Round (the others, a Command Spell's, are the spells' to clear).
_ROUND_MARKS = frozenset({"chose", "hit", "magecraft", "guard_magecraft"})
# Marks only their own camp sees: that a skill used was magecraft (of the guard sub-type) would
# name a skill the others may not know (base §7).
PRIVATE_MARKS = frozenset({"magecraft", "guard_magecraft"})

prompts.extend("round_start", st.NAME,
               {ChooseStance: lambda s, a: section_of(s, Stances).choose(s, a)},
               ("ChooseStance",))
_DECLARE_HANDLERS = {ArrangeStance: lambda s, a: section_of(s, Stances).arrange(s, a),
                     NameStance: lambda s, a: section_of(s, Stances).name(s, a)}
prompts.extend("declare", st.NAME, _DECLARE_HANDLERS, ("ArrangeStance", "NameStance"))
prompts.extend(SETUP, st.NAME, {
    **_DECLARE_HANDLERS,
    SetStanceTrait: lambda s, a: section_of(s, Stances).set_trait(s, a),
    LinkStance: lambda s, a: section_of(s, Stances).link(s, a),
    HoldNoblePhantasm: lambda s, a: section_of(s, Stances).hold_np(s, a)}, SETUP_VERBS)

__all__ = ["PRIVATE_MARKS", "ArrangeStance", "ChooseStance", "HoldNoblePhantasm", "LinkStance",
           "NameStance", "SetStanceTrait", "Stances", "load_traits", "traits"]
