"""The campaign module (seed 002; spec `shared/modules/002-campaign.md`): contracts and spirit
form, information points, experience and levels, merit, "+" grades, stances, items, Command
Spells, bonds, contract cancellation, tags and the summoning of day 0.

The rules are split by spec section into `Section`s (`section.py`), one file each, walked in
`SECTIONS` order by the `Campaign` module's hooks: `legal`, `composition`, `default`, `damage`,
`initiative` and `upkeep` chain (each section gets the previous one's result; an `upkeep` of
None ends the chain: no daily upkeep); `modifier` and `skill_check` sum; `sight` joins;
`skill_void`, `investigate`, `rescue` and `judge` are true when any section says so; `advance`
stops at the first section that set a prompt; `battle_move` joins the stops and keeps the tightest
limit; the `on_*` listeners call each section in order; `view` is the camps' records (redacted
for rivals) plus one key per section. Everything the module keeps is in one copy-on-write slot
(`state.py`); every number is in `resources/campaign/rules.toml` (`data.py`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from ...engine.actions import Action
from ...engine.core import Check
from ...engine.data import CommandSpell, Ruleset, Skill
from ...engine.events import Event
from ...engine.modules import Module, OptionSpec, RoomTimer, register
from ...engine.sharing import Shared
from ...engine.state import Camp, GameState
from . import state as st
from .bonds import Bonds
from .contract import Contract
from .data import CampaignData, load_campaign
from .gear import Gear
from .growth import Growth
from .info import Information
from .merit import Merit
from .plus import Plus
from .raids import Raids
from .section import Section
from .spells import Spells
from .stances import PRIVATE_MARKS, Stances
from .state import CampaignState, CampRecord, VacantMaster
from .summoning import RELIC, Summoning
from .tags import Tags

# Summoning first: its set-up settles who is summoned before the others' set-up reads it;
# Tags after the sections that offer: its gatekeeper filters what they offer; Spells then: a
# declared camp is offered only to keep its declaration or restrict it (C7.10); Growth last:
# its Turn-end level-ups count the experience every other section gave. Raids (the colossus's
# raid as a battle) after Stances, whose choices it offers in a raid.
SECTIONS: tuple[type[Section], ...] = (Summoning, Contract, Information, Merit, Plus, Gear,
                                       Stances, Raids, Bonds, Tags, Spells, Growth)

# The Section hooks (`Campaign.hooked`): every method `Section` defines, so a new one needs
# no list kept beside it.
_HOOKS = tuple(name for name, fn in vars(Section).items()
               if inspect.isfunction(fn) and not name.startswith("_"))

# Record fields whose values are NamedTuples (decoded back from a view by their class).
_NESTED = {"stances": st.Stance, "info": st.Info, "bonds": st.Bond, "devices": st.Device}


@register
class Campaign(Module):
    name = st.NAME
    options: ClassVar[dict[str, OptionSpec]] = {
        # C14.1, the summoning section (summoning.py).
        "summoning": OptionSpec("choose", ("choose", "random", "relic"),
                                doc="C14.1: how Servants come to the seats"),
        # C12.1, the tags section (tags.py).
        "tags": OptionSpec("random", ("off", "random"), doc="C12.1: a tag dealt to each camp"),
    }
    camp_keys = tuple(key for cls in SECTIONS for key in cls.camp_keys)
    # Day 0 is a person's longest read (stances, the shop, the sheet), the relic draft a
    # list of 24 relics: each has a room timer of its own (summoning.py's prompt kinds).
    timers: ClassVar[dict[str, RoomTimer]] = {
        "setup_s": RoomTimer(60, 1800, 300, (120, 300, 600, 900),
                             doc="C14: day 0's preparations (stances, shop, ready)"),
        "draft_s": RoomTimer(30, 600, 120, (60, 120, 180, 300),
                             doc="C14.1: choosing a relic in the relic draft"),
    }

    summoning_option = "summoning"

    @classmethod
    def summons(cls, values: Mapping[str, Any]) -> str:
        """C14.1: `random` deals the classes and Servants, `relic` drafts them on day 0 (the
        seats' lobby classes only place them until then); `choose` leaves it to the room."""
        return {"random": "the campaign deals them at random",
                "relic": "the campaign drafts them by relics on day 0"}.get(
            values["summoning"], "")

    def __init__(self, rules: Ruleset, values: dict[str, Any]) -> None:
        super().__init__(rules, values)
        self.data: CampaignData = load_campaign(rules)
        self.sections: tuple[Section, ...] = tuple(cls(self) for cls in SECTIONS)
        self._by_class = {type(sec): sec for sec in self.sections}
        self.public_fields = frozenset(f for sec in self.sections for f in sec.public_fields)
        self._spells = {k: v for sec in self.sections for k, v in sec.command_spells().items()}
        self._verbs = tuple(v for sec in self.sections for v in sec.verbs())  # in every view
        # Per hook, only the sections that override it: the base hooks change nothing, and
        # asking all twelve on every step is most of the module's cost (issue 13).
        self.hooked: dict[str, tuple[Section, ...]] = {
            name: tuple(sec for sec in self.sections
                        if getattr(type(sec), name) is not getattr(Section, name))
            for name in _HOOKS}
        self._modifiers: dict[str, tuple[Section, ...]] = {}  # per mod key: who answers it

    def section(self, cls: type[Section]) -> Any:
        """This module's instance of a section class (for action handlers)."""
        return self._by_class[cls]

    # --- set-up and steps ------------------------------------------------------------------------
    def setup(self, s: GameState) -> None:
        s.set_mod(self.name, st.fresh_state(s, self.data))
        for sec in self.sections:
            sec.setup(s)

    def advance(self, s: GameState) -> bool:
        for sec in self.hooked["advance"]:  # noqa: SIM110 (no generator made at every step)
            if sec.advance(s):
                return True
        return False

    def legal(self, s: GameState, seat: int, actions: list[Action]) -> list[Action]:
        for sec in self.hooked["legal"]:
            actions = sec.legal(s, seat, actions)
        return actions

    def battle_move(self, s: GameState, seat: int) -> tuple[frozenset[int], int | None]:
        stops: frozenset[int] = frozenset()
        limit: int | None = None
        for sec in self.hooked["battle_move"]:
            more, most = sec.battle_move(s, seat)
            stops |= more
            if most is not None:
                limit = most if limit is None else min(limit, most)
        return stops, limit

    def modifier(self, s: GameState, camp: Camp, key: str) -> int:
        asked = self._modifiers.get(key)
        if asked is None:  # (the keys are the rules' mod keys: a few dozen)
            asked = self._modifiers[key] = tuple(
                sec for sec in self.hooked["modifier"]
                if sec.modifier_keys is None or key in sec.modifier_keys)
        total = 0
        for sec in asked:  # (most keys are asked of one section or two)
            total += sec.modifier(s, camp, key)
        return total

    def skill_check(self, s: GameState, seat: int, skill: Skill, target: int) -> int:
        return sum(sec.skill_check(s, seat, skill, target) for sec in self.hooked["skill_check"])

    def skill_void(self, s: GameState, seat: int, skill: Skill, target: int) -> bool:
        return any(sec.skill_void(s, seat, skill, target) for sec in self.hooked["skill_void"])

    def sight(self, s: GameState, seat: int) -> frozenset[int]:
        return frozenset().union(*(sec.sight(s, seat) for sec in self.hooked["sight"]))

    def composition(self, s: GameState, seat: int, cards: str) -> str:
        for sec in self.hooked["composition"]:
            cards = sec.composition(s, seat, cards)
        return cards

    def default(self, s: GameState, seat: int, action: Action) -> Action:
        for sec in self.hooked["default"]:
            action = sec.default(s, seat, action)
        return action

    def damage(self, s: GameState, seat: int, amount: int, source: str) -> int:
        for sec in self.hooked["damage"]:
            amount = sec.damage(s, seat, amount, source)
        return amount

    def initiative(self, s: GameState, order: tuple[int, ...]) -> tuple[int, ...]:
        for sec in self.hooked["initiative"]:
            order = sec.initiative(s, order)
        return order

    def opposed(self, s: GameState, att: int, dfn: int, reaction: str, att_check: Check,
                dfn_check: Check, wins: bool) -> bool:
        for sec in self.hooked["opposed"]:
            wins = sec.opposed(s, att, dfn, reaction, att_check, dfn_check, wins)
        return wins

    def reductions(self, s: GameState, att: int, seat: int, halve: bool, guard: bool,
                   taken: bool) -> tuple[bool, bool, bool]:
        for sec in self.hooked["reductions"]:
            halve, guard, taken = sec.reductions(s, att, seat, halve, guard, taken)
        return halve, guard, taken

    def command_spells(self) -> Mapping[str, CommandSpell]:
        return self._spells

    def declare_seats(self, s: GameState, seats: frozenset[int]) -> frozenset[int]:
        for sec in self.hooked["declare_seats"]:
            seats = sec.declare_seats(s, seats)
        return seats

    def upkeep(self, s: GameState, seat: int, cost: int) -> int | None:
        for sec in self.hooked["upkeep"]:
            cost = sec.upkeep(s, seat, cost)
            if cost is None:
                return None
        return cost

    def investigate(self, s: GameState, seat: int, target: int, success: bool) -> bool:
        return any(sec.investigate(s, seat, target, success) for sec in self.hooked["investigate"])

    def judge(self, s: GameState) -> bool:
        return any(sec.judge(s) for sec in self.hooked["judge"])

    def rescue(self, s: GameState, seat: int) -> bool:
        return any(sec.rescue(s, seat) for sec in self.hooked["rescue"])

    def on_action(self, s: GameState, action: Action) -> None:
        for sec in self.hooked["on_action"]:
            sec.on_action(s, action)

    def after_action(self, s: GameState, action: Action, events: list[Event]) -> None:
        for sec in self.hooked["after_action"]:
            sec.after_action(s, action, events)

    def on_battle_start(self, s: GameState) -> None:
        # Marks made before the battle began (a spell cast at the intervention offer) stay.
        before = st.state(s).battle
        st.put(s, battle=st.BattleRecord(lead=("open",) * len(s.camps),
                                         marks=frozenset() if before is None else before.marks))
        for sec in self.hooked["on_battle_start"]:
            sec.on_battle_start(s)

    def on_join(self, s: GameState, seat: int) -> None:
        for sec in self.hooked["on_join"]:
            sec.on_join(s, seat)

    def on_activation_end(self, s: GameState, seat: int) -> None:
        for sec in self.hooked["on_activation_end"]:
            sec.on_activation_end(s, seat)

    def on_np_fired(self, s: GameState, seat: int) -> None:
        for sec in self.hooked["on_np_fired"]:
            sec.on_np_fired(s, seat)

    def on_round_end(self, s: GameState) -> None:
        for sec in self.hooked["on_round_end"]:
            sec.on_round_end(s)

    def on_battle_end(self, s: GameState) -> None:
        for sec in self.hooked["on_battle_end"]:
            sec.on_battle_end(s)
        st.put(s, battle=None)

    def on_turn_end(self, s: GameState) -> None:
        for sec in self.hooked["on_turn_end"]:
            sec.on_turn_end(s)

    def on_day_end(self, s: GameState) -> None:
        for sec in self.hooked["on_day_end"]:
            sec.on_day_end(s)

    # --- what leaves the engine ----------------------------------------------------------------
    def verbs(self) -> tuple[str, ...]:
        return self._verbs

    def view(self, s: GameState, seat: int | None, shared: Shared) -> dict[str, Any]:
        """Every camp's record: its own whole, a rival's only the sections' public fields (the
        hidden-information table of spec §4); the public global part; each section's key."""
        g = st.state(s)
        # each record encoded once for all the state's views (and the next state's, while it
        # is the same record): its own camp's whole, its rivals' public fields
        out: dict[str, Any] = {
            "camps": [shared.carried(("campaign.record", x, x == seat), rec, lambda rec=rec, x=x:
                                     _encode_record(rec, None if x == seat else self.public_fields))
                      for x, rec in enumerate(g.camps)],
            **shared.get("campaign.public", lambda: {
                "vacant": [{"master": v.master, "square": v.square} for v in g.vacant],
                "residual": {str(q): sorted(classes) for q, classes in g.residual},
                "day0": g.day0}),
            "relics": {relic: x for relic, x in g.relics if x == seat},  # its own (summoning)
            # who is asked to share bond damage shows a bond: each seat sees its own steps only
            "bond_queue": _encode(tuple(q for q in g.bond_queue if q[1] == seat)),
            "battle": None if g.battle is None else _encode(g.battle._replace(marks=frozenset(
                m for m in g.battle.marks if m[0] not in PRIVATE_MARKS or m[1] == seat))),
        }
        for sec in self.sections:
            part = sec.view(s, seat, shared)
            if part is not None:
                out[sec.key] = part
        return out

    def rebuild(self, s: GameState, view: dict[str, Any]) -> None:
        """The records back from a view: the seat's own whole; a rival's shown fields over a
        fresh contract's record of the rebuilt camp (`unseen`), never the set-up's draws (a
        vacant Master's carried state: its sheet's); then each section's part (the
        information section puts in what the seat's points revealed)."""
        whole = set(CampRecord._fields)
        camps = tuple((CampRecord() if set(shown) == whole else self.unseen(s, x, view["day0"]))
                      ._replace(**{k: _decode(k, v) for k, v in shown.items()})
                      for x, shown in enumerate(view["camps"]))
        vacant = tuple(VacantMaster(v["master"], v["square"], self.rules.masters[v["master"]].mp,
                                    self.rules.masters[v["master"]].command_spells, CampRecord())
                       for v in view["vacant"])
        battle = view["battle"]
        s.set_mod(self.name, CampaignState(
            camps=camps, vacant=vacant,
            residual=tuple((int(q), frozenset(c)) for q, c in view["residual"].items()),
            relics=tuple(view["relics"].items()), day0=view["day0"],
            bond_queue=_tuples(view["bond_queue"]),
            battle=None if battle is None else st.BattleRecord(
                lead=tuple(battle["lead"]), front=frozenset(battle["front"]),
                protected=_tuples(battle["protected"]),
                bond_damage=_tuples(battle["bond_damage"]),
                marks=frozenset(tuple(m) for m in battle["marks"]),
                exchange=tuple(battle["exchange"]))))
        for sec in self.sections:
            if sec.key in view:
                sec.rebuild(s, view[sec.key])

    def rebuild_camp(self, s: GameState, shown: Mapping[str, Any]) -> None:
        """A rival's max HP and cards are public (spec §4) though what makes them is not: its
        rebuilt record is a fresh contract's, so the difference is taken as contract growth."""
        self.section(Growth).assume(s, shown["seat"], shown["max_hp"], shown.get("cards"))

    def unseen(self, s: GameState, seat: int, day0: str) -> CampRecord:
        """What a seat assumes of a rival's hidden record: a fresh contract of the camp as
        rebuilt (its funds, pool and default stances), with the internal bonds once day 0 has
        dealt them; level 1, no merit, items, bonds or points (the tags section samples its
        tag)."""
        rec = st.fresh_record(s, seat, self.data)
        if day0 == RELIC:  # the draft: nothing dealt yet
            return rec
        return rec._replace(bonds=st.internal_bonds(seat, self.data.numbers.internal_bond_grade))

    def sample(self, s: GameState, choose: Callable[[Sequence[Any]], Any], seat: int) -> None:
        for sec in self.sections:
            sec.sample(s, choose, seat)

    def text(self, s: GameState) -> list[str]:
        """One line per camp (the fields that differ from a bare `CampRecord`), one for the
        global part when it is not empty, then the sections' lines."""
        g = st.state(s)
        bare = CampRecord()
        lines = []
        for x, rec in enumerate(g.camps):
            fields = [f"{k} {_compact(k, v)}" for k, v in zip(rec._fields, rec, strict=True)
                      if v != getattr(bare, k)]
            lines.append(f"#{x} " + " ".join(fields))
        rest = [f"{k} {_compact(k, v)}" for k, v in zip(g._fields[1:], g[1:], strict=True)
                if v != getattr(CampaignState((),), k)]
        if rest:
            lines.append(" ".join(rest))
        for sec in self.sections:
            lines.extend(sec.text(s))
        return lines

    def scenario_state(self, s: GameState, values: Mapping[str, Any]) -> None:
        """`[module_state.campaign.<section key>]` tables, each given to its section."""
        keys = {sec.key: sec for sec in self.sections}
        for key, part in values.items():
            if key not in keys:
                raise ValueError(f"campaign module_state has no section {key!r}; sections: "
                                 f"{', '.join(keys)}")
            keys[key].scenario_state(s, part)

    def scenario_camp(self, s: GameState, seat: int, values: Mapping[str, Any]) -> None:
        """Each section's keys, the contract's last: a camp made stray leaves its Master
        vacant with what the other keys gave it."""
        for sec in sorted(self.sections, key=lambda sec: isinstance(sec, Contract)):
            mine = {key: values[key] for key in sec.camp_keys if key in values}
            if mine:
                sec.scenario_camp(s, seat, mine)


def campaign(s: GameState) -> Campaign:
    """The campaign module of a game that has it on."""
    return next(m for m in s.modules if isinstance(m, Campaign))


# --- the records as plain data ------------------------------------------------------------------
def _encode(value: Any) -> Any:
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return {k: _encode(v) for k, v in zip(value._fields, value, strict=True)}
    if isinstance(value, tuple | list):
        return [_encode(v) for v in value]
    if isinstance(value, frozenset):
        return sorted(value)
    return value


def _encode_record(rec: CampRecord, shown: frozenset[str] | None) -> dict[str, Any]:
    """A record as plain data, all of it (`shown` None) or only the `shown` fields."""
    return {k: _encode(v) for k, v in zip(rec._fields, rec, strict=True)
            if shown is None or k in shown}


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _decode(field: str, value: Any) -> Any:
    """One record field back from `_encode`."""
    nested = _NESTED.get(field)
    if nested is not None:
        return tuple(nested(**{k: _tuples(v) for k, v in item.items()}) for item in value)
    if isinstance(getattr(CampRecord(), field), frozenset):
        return frozenset(value)
    return _tuples(value)


def _compact(field: str, value: Any) -> str:
    """A field for the canonical text: tuples in brackets, sets sorted; `info` lists only the
    camps something is known of."""
    if field == "info":
        bare = st.Info()
        return " ".join(f"{x}:{_compact('', i)}" for x, i in enumerate(value) if i != bare) or "-"
    if isinstance(value, frozenset):
        return "{" + ",".join(map(str, sorted(value))) + "}"
    if isinstance(value, tuple):
        return "(" + ",".join(_compact("", v) for v in value) + ")"
    if isinstance(value, bool):
        return "y" if value else "n"
    return str(value) if value != "" else "''"


__all__ = ["SECTIONS", "Campaign", "campaign"]
