"""§14 of the campaign: summoning and day 0 (C14.1-C14.4).

The room option `summoning` says how Servants come to the seats: `choose` is the base lobby
(each seat's class as chosen, its Servant by the room's own summoning switch), `random` deals
the classes to the seats from the seed, and `relic` drafts them on day 0 from
`campaign/relics.toml`, one anonymous relic per roster Servant. Day 0 is a phase before day 1
Morning (`s.day` is 0 while it lasts): the relic draft, then tags dealt and the internal bonds
made, then the simultaneous `setup` prompt, where the other sections offer their day-0 free
actions beside `SetupReady`. Day 1 Morning opens when every living seat is ready.

What a relic brings is public once taken (the class is public in this game); which Servant a
relic summons never leaves the engine, and a free relic shows only its name and hint.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ...engine import core, prompts, turns
from ...engine.actions import Action
from ...engine.data import CLASSES, Ruleset, Servant, Text, read_table
from ...engine.sharing import Shared
from ...engine.state import GameState, Prompt
from . import state as st
from .section import Section, section_of

if TYPE_CHECKING:
    from . import Campaign

RELIC, SETUP = "relic", "setup"  # the day-0 prompt kinds (other sections extend SETUP)


@dataclass(frozen=True, slots=True)
class ChooseRelic(Action):
    """C14.2: take a free relic (first come, first served); its Servant answers the call."""

    relic: str


@dataclass(frozen=True, slots=True)
class SetupReady(Action):
    """C14.3: this camp's day-0 preparations are done."""


class Relic(NamedTuple):
    """A catalyst of `campaign/relics.toml`: the Servant it calls, and what the table sees."""

    id: str
    servant: str
    name: Text
    hint: Text


def load_relics(rules: Ruleset, root: Path | None = None) -> tuple[Relic, ...]:
    """`campaign/relics.toml` in file order (the timeout's order, C14.2): every Servant of the
    roster needs exactly one relic, and a relic names a known Servant."""
    base: Traversable = resources.files("grailwar.resources") if root is None else root
    doc = read_table(base, "campaign/relics.toml")
    out, seen = [], {}
    for relic_id in doc.ids():
        entry = doc.table(relic_id)
        servant = entry.ident("servant")
        if servant not in rules.by_id:
            entry.fail("servant", f"unknown Servant id {servant!r}")
        if servant in seen:
            entry.fail("servant", f"{servant!r} already has the relic {seen[servant]!r}")
        seen[servant] = relic_id
        out.append(Relic(relic_id, servant, entry.text("name"), entry.text("hint")))
        entry.finish(hint="a relic takes servant, name, hint")
    missing = sorted(set(rules.by_id) - set(seen))
    if missing:
        doc.fail(missing[0], "missing: every Servant of the roster needs a relic")
    doc.finish()
    return tuple(out)


class Summoning(Section):
    key = "summoning"

    def __init__(self, module: Campaign) -> None:
        super().__init__(module)
        self.relics = load_relics(module.rules)
        self.relic_by_id = {r.id: r for r in self.relics}
        # the draft as each seat sees it, by the relics taken (fixed after day 0): every view
        # carries it, and it was rebuilt, names and hints in three languages, for each one
        self._draft = lru_cache(maxsize=1024)(self._make_draft)
        self._ready = lru_cache(maxsize=1024)(sorted)  # the same list while no one readies

    # --- reading ------------------------------------------------------------------------------
    def relic_class(self, relic: Relic) -> str:
        return self.rules.by_id[relic.servant].cls

    def free_relics(self, s: GameState) -> list[Relic]:
        """Relics nobody took whose class no camp holds yet (one camp per class: a drafted
        class closes its other relics)."""
        taken = dict(st.state(s).relics)
        classes = {self.relic_class(self.relic_by_id[r]) for r in taken}
        return [r for r in self.relics if r.id not in taken
                and self.relic_class(r) not in classes]

    def drafted(self, s: GameState) -> frozenset[int]:
        return frozenset(x for _relic, x in st.state(s).relics)

    # --- C14.1 the deal, C14.3 day 0 opens -------------------------------------------------
    def setup(self, s: GameState) -> None:
        """Day 0 opens: with `random` the classes are dealt first; with `relic` the draft
        comes first, else the day-0 deal and the setup prompt."""
        how = self.option("summoning")
        s.day = 0
        if how == "random":
            self.deal_classes(s)
        st.put(s, day0=RELIC if how == "relic" else SETUP)
        if how != "relic":
            self.deal(s)

    def deal_classes(self, s: GameState) -> None:
        """C14.1 `random`: each seat in turn draws a class not yet dealt, then one Servant of
        its roster (the dice, so forced dice reach it)."""
        left = list(CLASSES)
        for seat in range(len(s.camps)):
            cls = left.pop(core.roll(s, 1, len(left))[0] - 1)
            roster = self.rules.roster[cls]
            self.summon(s, seat, roster[core.roll(s, 1, len(roster))[0] - 1])

    def summon(self, s: GameState, seat: int, sheet: Servant) -> None:
        """The seat's Servant becomes `sheet`, fresh, on its class's start square; the campaign
        record follows it (its pool and default stances)."""
        camp = s.edit(seat)
        camp.servant, camp.cls = sheet, sheet.cls
        camp.hp, camp.mp, camp.hand = sheet.hp, sheet.mp, sheet.cards
        camp.pos = core.city(s).starts[sheet.cls]
        fresh = st.fresh_record(s, seat, self.data)
        st.update(s, seat, pool=fresh.pool, stances=fresh.stances)

    def deal(self, s: GameState) -> None:
        """C14.3 after the draft: the tags (the `tags` section), then each camp's internal
        bonds, its Servant and Master toward each other at Positive internal_bond_grade
        (C8.2)."""
        for sec in self.module.sections:
            if sec.key == "tags":
                sec.deal(s)
        grade = self.data.numbers.internal_bond_grade
        for seat in range(len(s.camps)):
            st.update(s, seat, bonds=(*st.internal_bonds(seat, grade), *st.record(s, seat).bonds))

    # --- the day-0 prompts ----------------------------------------------------------------------
    def advance(self, s: GameState) -> bool:
        g = st.state(s)
        if g.day0 == RELIC:
            waiting = frozenset(range(len(s.camps))) - self.drafted(s)
            if waiting:
                s.prompt = Prompt(RELIC, waiting)
                return True
            st.put(s, day0=SETUP)
            self.deal(s)
        if st.state(s).day0 == SETUP:
            waiting = frozenset(s.living) - st.state(s).day0_ready
            if waiting:
                s.prompt = Prompt(SETUP, waiting)
                return True
            st.put(s, day0="done", day0_ready=frozenset())
            s.day = 1
            core.emit(s, "TurnStarted", day=1, turn=turns.TURN_NAMES[0])
            # The modules walked before this one saw day 0: they get day 1's first step now
            # (the colossus wakes on day 1's Morning before anyone declares).
            return any(m.advance(s) for m in s.modules if m.name != st.NAME)
        return False

    def relic_actions(self, s: GameState, seat: int) -> list[Action]:
        return [ChooseRelic(seat, r.id) for r in self.free_relics(s)]

    def default_relic(self, s: GameState, seat: int) -> Action:
        """C14.2: on timeout, the first free relic in file order."""
        return ChooseRelic(seat, self.free_relics(s)[0].id)

    def choose_relic(self, s: GameState, action: ChooseRelic) -> None:
        relic = self.relic_by_id[action.relic]
        st.put(s, relics=(*st.state(s).relics, (relic.id, action.seat)))
        self.summon(s, action.seat, self.rules.by_id[relic.servant])
        shown = {"seat": action.seat, "cls": self.relic_class(relic),
                 "square": s.camps[action.seat].pos}
        core.emit(s, "RelicChosen", frozenset({action.seat}), {**shown, "relic": ""},
                  **shown, relic=relic.id)

    def ready(self, s: GameState, action: SetupReady) -> None:
        st.put(s, day0_ready=st.state(s).day0_ready | {action.seat})
        core.emit(s, "SetupFinished", seat=action.seat)

    # --- what leaves the engine ---------------------------------------------------------------
    def view(self, s: GameState, seat: int | None, shared: Shared) -> dict[str, Any]:
        """Every relic with its name and hint, the class it calls once that class is drafted,
        and who is ready on day 0. Which relic of a drafted class was taken is its taker's
        alone: the shipped relics.toml names each relic's Servant, so a relic seen taken by a
        camp would be that camp's true name."""
        g = st.state(s)
        return {"relics": self._draft(g.relics, seat), "ready": self._ready(g.day0_ready)}

    def _make_draft(self, relics: tuple[tuple[str, int], ...],
                    seat: int | None) -> list[dict[str, Any]]:
        taken = dict(relics)
        drafted = {self.relic_class(self.relic_by_id[r]) for r in taken}
        return [{"id": r.id, "name": as_dict(r.name), "hint": as_dict(r.hint),
                 "seat": seat if seat is not None and taken.get(r.id) == seat else -1,
                 "cls": cls if (cls := self.relic_class(r)) in drafted else ""}
                for r in self.relics]

    def rebuild(self, s: GameState, view: Any) -> None:
        """Who is ready, the viewer's own relic, and for each other drafted class the first
        relic of that class as its camp's (which one it took is hidden; any of them closes
        the class alike)."""
        own = [(r["id"], r["seat"]) for r in view["relics"] if r["seat"] >= 0]
        classes = {self.relic_class(self.relic_by_id[r]) for r, _ in own}
        holders = {camp.cls: camp.seat for camp in s.camps}
        others = []
        for r in view["relics"]:
            if r["cls"] and r["cls"] not in classes:
                classes.add(r["cls"])
                others.append((r["id"], holders[r["cls"]]))
        st.put(s, day0_ready=frozenset(view["ready"]), relics=(*own, *others))


def as_dict(text: Text) -> dict[str, str]:
    """A text as plain data for a view."""
    return {"ja": text.ja, "ko": text.ko, "en": text.en}


def _summoning(s: GameState) -> Summoning:
    return section_of(s, Summoning)


for _kind in (
    prompts.PromptKind(
        RELIC, lambda s, seat: _summoning(s).relic_actions(s, seat),
        {ChooseRelic: lambda s, a: _summoning(s).choose_relic(s, a)},
        lambda s, seat: _summoning(s).default_relic(s, seat), timer="draft_s",
        verbs=("ChooseRelic",),
        doc="day 0 (campaign, summoning = relic): every seat without a relic drafts one"),
    prompts.PromptKind(
        SETUP, lambda s, seat: [SetupReady(seat)],
        {SetupReady: lambda s, a: _summoning(s).ready(s, a)},
        lambda s, seat: SetupReady(seat), timer="setup_s", verbs=("SetupReady",),
        doc="day 0 (campaign): each camp's preparations, until every seat is ready"),
):
    prompts.register(_kind)

__all__ = ["RELIC", "SETUP", "ChooseRelic", "Relic", "SetupReady", "Summoning", "as_dict",
           "load_relics"]
