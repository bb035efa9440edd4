"""§0 and §9 of the campaign: the contract, spirit form and upkeep (C0.1-C0.8), contract
cancellation, stray Servants, vacant Masters and re-contracts (C9.1-C9.4).

The contract is the base game's: its upkeep is the base daily upkeep (C0.1) and the Servant
draws on its Master's MP by the base rule (C0.7). What the campaign adds is the supply switch:
with it off the Servant is in spirit form, cannot draw on the Master (`Camp.draw_open`), may
only do quiet things, and gives its Master MP back at the Turn's end. Nearly everything here
is public (spec §4: spirit form, stray state and vacant Masters are seen by every seat), so its
record fields are `public_fields`, all but the Master a re-contract has claimed (it is told at
the Turn's end, with `Recontracted`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ...engine import core, prompts, turns
from ...engine.actions import Action, AnswerIntervention
from ...engine.data import Master
from ...engine.events import Event
from ...engine.sharing import Shared
from ...engine.state import Declaration, GameState
from . import state as st
from .section import Section, section_of

# C0.2: what a camp in spirit form may still declare (Move is no declaration; "research" and
# "study" are the campaign's own kinds).
QUIET = frozenset({"wait", "rest", "investigate", "research", "study"})
# C0.3: declarations that make a spirit-form camp materialize (a Servant turn-action skill is
# "skill" with a Servant skill); a camp whose own MP is not above the cost is not offered them.
LOUD = frozenset({"encounter", "ambush", "soul_eating", "skill", "raid"})  # a raid: a battle
JOINS = frozenset({"intervene", "raid_offer"})  # prompts whose join materializes too
OPENERS = frozenset({"encounter", "ambush"})  # declarations that open a parley or a battle


@dataclass(frozen=True, slots=True)
class SetSupply(Action):
    """C0.2: suspend (`on` false: spirit form) or resume the Master's supply of mana; free, at
    the declaration prompt, once per Turn."""

    on: bool




@dataclass(frozen=True, slots=True)
class DeclareCancelContract(Action):
    """C9.1: end the contract at the end of this Turn (a Turn action): the Master is left
    vacant on the square, the Servant goes on stray."""




@dataclass(frozen=True, slots=True)
class DeclareRecontract(Action):
    """C9.4: a stray Servant takes the vacant Master `master` on its square as its own, at
    the end of this Turn (a Turn action)."""

    master: str


def unbound(master: Master) -> Master:
    """The sheet a stray Servant plays with (C9.2): no Master skills, no Master MP, no
    strokes, an investigation modifier of +0 (the id stays, for the camp's own view)."""
    return replace(master, skills=(), mp=0, investigation=0, command_spells=0)


class Contract(Section):
    key = "contract"
    public_fields = ("supply_on", "supply_turn", "materialized_turn", "stray", "cancel_turn")
    camp_keys = ("stray",)

    def scenario_camp(self, s: GameState, seat: int, values: Any) -> None:
        """`stray = true`: the contract ends as a cancellation ends it (C9.1-C9.3): the
        Master is left vacant on the camp's square with its part of the record, the Servant
        stray. Applied after the camp's other keys, so what they gave the Master goes with it."""
        if values["stray"] is not True:
            raise ValueError(f"stray: {values['stray']!r}; only true (a contracted camp is the "
                             "default)")
        if st.record(s, seat).stray or not s.camps[seat].alive:
            raise ValueError("stray: the camp is already stray, or gone")
        self.end_contract(s, seat)

    # --- reading ------------------------------------------------------------------------------
    def spirit(self, s: GameState, seat: int) -> bool:
        """In spirit form now: the supply is off and it has not materialized this Turn."""
        rec = st.record(s, seat)
        return not (rec.supply_on or rec.stray) and rec.materialized_turn != st.turn_key(s)

    def can_materialize(self, s: GameState, seat: int) -> bool:
        """C0.3: the Servant's own MP must be above the cost (paying leaves it at least 1)."""
        return s.camps[seat].mp > self.data.numbers.materialize_mp

    def _loud(self, s: GameState, action: Action) -> bool:
        kind = turns.declaration_kind(action)
        if kind == "skill":
            return self.rules.skills[action.skill].owner == "servant"
        return kind in LOUD

    # --- offering --------------------------------------------------------------------------------
    def legal(self, s: GameState, seat: int, actions: list[Action]) -> list[Action]:
        kind = s.prompt.kind
        if kind == "declare":
            return self._declare_legal(s, seat, actions)
        if kind in JOINS and self.spirit(s, seat) and not self.can_materialize(s, seat):
            return [a for a in actions if a != AnswerIntervention(seat, True)]
        return actions

    def _declare_legal(self, s: GameState, seat: int, actions: list[Action]) -> list[Action]:
        rec = st.record(s, seat)
        if not s.camps[seat].asleep:
            actions = [*actions, *self._contract_actions(s, seat)]
        if self.spirit(s, seat):
            loud_ok = self.can_materialize(s, seat)
            actions = [a for a in actions if self._allowed_in_spirit(s, a, loud_ok)]
        if not rec.stray and rec.supply_turn != st.turn_key(s):
            actions = [*actions, SetSupply(seat, not rec.supply_on)]
        return actions

    def _contract_actions(self, s: GameState, seat: int) -> list[Action]:
        """C9.1 a contracted camp may cancel; C9.4 a stray one may take a vacant Master on its
        square, but not in the Turn it cancelled."""
        rec = st.record(s, seat)
        if not rec.stray:
            return [DeclareCancelContract(seat)]
        if rec.cancel_turn == st.turn_key(s):
            return []
        pos = s.camps[seat].pos
        return [DeclareRecontract(seat, v.master) for v in st.state(s).vacant if v.square == pos]

    def _allowed_in_spirit(self, s: GameState, action: Action, loud_ok: bool) -> bool:
        kind = turns.declaration_kind(action)
        if kind is None or kind in QUIET:
            return True
        return loud_ok and self._loud(s, action)

    # --- C0.2 the supply switch -----------------------------------------------------------------
    def set_supply(self, s: GameState, action: SetSupply) -> None:
        seat = action.seat
        st.update(s, seat, supply_on=action.on, supply_turn=st.turn_key(s))
        s.edit(seat).draw_open = action.on  # C0.4: no draw on the Master while it is off
        core.emit(s, "SupplySet", seat=seat, on=action.on)

    # --- C0.3 materializing ----------------------------------------------------------------------
    def materialize(self, s: GameState, seat: int) -> None:
        """Pay materialize_mp from the Servant's own MP (no Master draw) and stay materialized
        until the end of the Turn; the supply stays suspended."""
        s.edit(seat).mp -= self.data.numbers.materialize_mp
        st.update(s, seat, materialized_turn=st.turn_key(s))
        core.emit(s, "Materialized", seat=seat, mp=self.data.numbers.materialize_mp)

    def on_action(self, s: GameState, action: Action) -> None:
        seat = action.seat
        if not self.spirit(s, seat):
            return
        kind = s.prompt.kind
        joins = kind in JOINS and action == AnswerIntervention(seat, True)
        if joins or (kind == "declare" and self._loud(s, action)):
            self.materialize(s, seat)

    def advance(self, s: GameState) -> bool:
        """C0.3: before an Encounter or Ambush resolves against a camp in spirit form, the camp
        materializes if its own MP allows, else the action is cancelled (its Turn action
        spent). The base's own cancellations (a dead or busy opener, a dead target) come
        first, so only an action the base would resolve is looked at."""
        if s.battle is not None or s.parley is not None or s.phase != "resolve" or not s.agenda:
            return False
        step = s.agenda[0]
        if step[0] != "decl":
            return False
        decl = s.decls[step[1]]
        if (decl.kind not in OPENERS or not s.camps[decl.seat].alive or decl.seat in s.fought
                or not s.camps[decl.target].alive or not self.spirit(s, decl.target)):
            return False
        if self.can_materialize(s, decl.target):
            self.materialize(s, decl.target)
        else:
            s.agenda = s.agenda[1:]
            core.emit(s, "ActionCancelled", seat=decl.seat, kind=decl.kind,
                      reason="spirit_form", target=decl.target)
        return False

    # --- the end of each Turn ----------------------------------------------------------------
    def on_turn_end(self, s: GameState) -> None:
        """C0.5 and C0.6 for the contracted camps, then C9.1 the cancellations, C9.2 every
        stray Servant's upkeep (the one that just cancelled too), C9.4 the re-contracts."""
        self._supply_mana(s)
        now = st.turn_key(s)
        for seat in s.living:
            rec = st.record(s, seat)
            if not rec.stray and rec.cancel_turn == now:
                core.emit(s, "ContractCancelled", seat=seat)
                self.end_contract(s, seat)
        self._stray_upkeep(s)
        if s.over:
            return
        for seat in s.living:
            rec = st.record(s, seat)
            if rec.stray and rec.recontract:
                self.recontract(s, seat, rec.recontract)

    def _supply_mana(self, s: GameState) -> None:
        """C0.5: a whole Turn in spirit form gives the Master MP; C0.6: a supplied Berserker
        costs its Master 5."""
        n = self.data.numbers
        for seat in s.living:
            rec = st.record(s, seat)
            if rec.stray:
                continue
            camp = s.camps[seat]
            berserker = camp.cls == "berserker"
            if not rec.supply_on:  # suspended before it declared, and to the end (C0.5)
                gain = n.berserker_spirit_master_mp if berserker else n.spirit_master_mp
                gain = max(0, min(gain, camp.master.mp - camp.master_mp))
                s.edit(seat).master_mp += gain
                core.emit(s, "SpiritManaRecovered", frozenset({seat}), None, seat=seat,
                          amount=gain)
            elif berserker:
                paid = min(n.berserker_extra_mp, camp.master_mp)
                s.edit(seat).master_mp -= paid
                core.emit(s, "BerserkerSupplyPaid", frozenset({seat}), None, seat=seat,
                          amount=paid)

    def _stray_upkeep(self, s: GameState) -> None:
        """C9.2: stray_upkeep MP from the Servant's own MP at every Turn's end, or it vanishes
        (the others see that it paid, not how much); the victory check comes after all."""
        cost = self.data.numbers.stray_upkeep
        gone = []
        for seat in s.living:
            if not st.record(s, seat).stray:
                continue
            mine = frozenset({seat})
            if s.camps[seat].mp > cost:
                s.edit(seat).mp -= cost
                core.emit(s, "StrayUpkeepPaid", mine, {"seat": seat}, seat=seat, amount=cost)
            else:
                core.emit(s, "StrayUpkeepUnpaid", mine, {"seat": seat}, seat=seat, amount=cost)
                gone.append(seat)
        for seat in gone:
            core.kill(s, seat, "vanished", judge=False)
        if gone:
            core.judge_victory(s)

    def upkeep(self, s: GameState, seat: int, cost: int) -> int | None:
        """C9.2: a stray Servant's upkeep is by the Turn, not by the day."""
        return None if st.record(s, seat).stray else cost

    # --- §9 the contract's end and a new one --------------------------------------------------
    def cancel(self, s: GameState, _i: int, decl: Declaration) -> None:
        """C9.1: resolved in its turn; the contract ends at the end of the Turn."""
        st.update(s, decl.seat, cancel_turn=st.turn_key(s))

    def claim(self, s: GameState, _i: int, decl: Declaration) -> None:
        """C9.4: the first stray (in resolution order) to claim a vacant Master still on its
        square gets it at the end of the Turn; a later one's action is cancelled."""
        seat, master = decl.seat, decl.arg
        here = any(v.master == master and v.square == s.camps[seat].pos
                   for v in st.state(s).vacant)
        taken = any(st.record(s, x).recontract == master for x in range(len(s.camps)))
        if not here or taken or not st.record(s, seat).stray:
            core.emit(s, "ActionCancelled", seat=seat, kind="recontract")
            return
        st.update(s, seat, recontract=master)

    def end_contract(self, s: GameState, seat: int) -> None:
        """The Master leaves as a vacant Master on the camp's square, with its MP, strokes and
        its part of the record (C9.3); the Servant is stray, with the unbound sheet (C9.2)."""
        camp = s.edit(seat)
        rest, part = st.master_part(st.record(s, seat))
        vacant = st.VacantMaster(camp.master.id, camp.pos, camp.master_mp, camp.spells, part)
        gone = frozenset(camp.master.skills)  # what its Master's skills left on it goes too
        camp.buffs = tuple(b for b in camp.buffs if not (b.owner == seat and b.source in gone))
        camp.skills_used = camp.skills_used - gone
        camp.master = unbound(camp.master)
        camp.master_mp = camp.spells = camp.waits = 0
        camp.unlocked = True  # nothing left to unlock (and no Wait counts for it)
        camp.draw_open = False
        st.put_record(s, seat, rest._replace(stray=True, supply_on=True, recontract=""))
        st.put(s, vacant=(*st.state(s).vacant, vacant))
        core.emit(s, "MasterVacated", seat=seat, master=vacant.master, square=vacant.square)
        for sec in self.module.sections:
            sec.on_contract_end(s, seat)

    def recontract(self, s: GameState, seat: int, master: str) -> None:
        """C9.4: the vacant Master becomes the camp's: its MP, strokes and record part come
        with it; the daily upkeep applies again; Wait counter and 4th-skill unlock reset."""
        g = st.state(s)
        vacant = next(v for v in g.vacant if v.master == master)
        camp = s.edit(seat)
        camp.master = self.rules.masters[master]
        camp.master_mp, camp.spells = vacant.master_mp, vacant.spells
        camp.waits = 0
        camp.unlocked = False
        camp.draw_open = True
        rec = st.with_master(st.record(s, seat), vacant.record)
        st.put_record(s, seat, rec._replace(stray=False, supply_on=True, recontract=""))
        core.emit(s, "Recontracted", seat=seat, master=master, square=camp.pos)
        for sec in self.module.sections:  # (they may still read the vacant Master)
            sec.on_contract_start(s, seat)
        st.put(s, vacant=tuple(v for v in st.state(s).vacant if v.master != master))

    def after_action(self, s: GameState, action: Action, events: list[Event]) -> None:
        """C9.3: a camp whose Servant died leaves its Master vacant on its square."""
        if s.over:
            return
        for camp in s.camps:
            if not camp.alive and not st.record(s, camp.seat).stray:
                self.end_contract(s, camp.seat)

    # --- what leaves the engine -----------------------------------------------------------------
    def verbs(self) -> tuple[str, ...]:
        return ("SetSupply", "DeclareCancelContract", "DeclareRecontract")

    def view(self, s: GameState, seat: int | None, shared: Shared) -> dict[str, Any]:
        """The camps in spirit form now (public, C0.2), so a table need not work it out: made
        once per state for every seat."""
        return shared.get("campaign.spirit",
                          lambda: {"spirit": [x for x in s.living if self.spirit(s, x)]})

    def rebuild(self, s: GameState, view: Any) -> None:
        """The draw follows the (public) supply of each rebuilt record; a (public) stray camp
        plays the unbound sheet."""
        for seat in range(len(s.camps)):
            rec = st.record(s, seat)
            open_ = rec.supply_on and not rec.stray
            if s.camps[seat].draw_open != open_:
                s.edit(seat).draw_open = open_
            if rec.stray and s.camps[seat].master.skills:
                camp = s.edit(seat)
                camp.master = unbound(camp.master)
                camp.master_mp = camp.spells = 0
                camp.unlocked = True


def _cancel(s: GameState, i: int, decl: Declaration) -> None:
    section_of(s, Contract).cancel(s, i, decl)


def _claim(s: GameState, i: int, decl: Declaration) -> None:
    section_of(s, Contract).claim(s, i, decl)


turns.register_declaration(DeclareCancelContract, "cancel_contract", _cancel)
turns.register_declaration(DeclareRecontract, "recontract", _claim, arg="master")
prompts.extend("declare", st.NAME,
               {SetSupply: lambda s, a: section_of(s, Contract).set_supply(s, a),
                DeclareCancelContract: turns.declare, DeclareRecontract: turns.declare},
               ("SetSupply", "DeclareCancelContract", "DeclareRecontract"))

__all__ = ["Contract", "DeclareCancelContract", "DeclareRecontract", "SetSupply"]
