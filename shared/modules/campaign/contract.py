"""§0 and §9 of the campaign: the contract, spirit form and upkeep (C0.1-C0.8), contract
cancellation, stray Servants, vacant Masters and re-contracts (C9.1-C9.4).

The contract is the base game's: its upkeep is the base daily upkeep (C0.1) and the Servant
draws on its Master's MP by the base rule (C0.7). What the campaign adds is the supply switch:
with it off the Servant is in spirit form, cannot draw on the Master (`Camp.draw_open`), may
only do quiet things, and gives its Master MP back at the Turn's end. Everything here is public
(spec §4: spirit form, stray state and vacant Masters are seen by every seat), so its record
fields are all `public_fields`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...engine import core, prompts, turns
from ...engine.actions import Action, AnswerIntervention
from ...engine.state import GameState
from . import state as st
from .section import Section, section_of

# C0.2: what a camp in spirit form may still declare (Move is no declaration; "research" and
# "study" are the campaign's own kinds).
QUIET = frozenset({"wait", "rest", "investigate", "research", "study"})
# C0.3: declarations that make a spirit-form camp materialize (a Servant turn-action skill is
# "skill" with a Servant skill); a camp whose own MP is not above the cost is not offered them.
LOUD = frozenset({"encounter", "ambush", "soul_eating", "skill"})
OPENERS = frozenset({"encounter", "ambush"})  # declarations that open a parley or a battle


@dataclass(frozen=True, slots=True)
class SetSupply(Action):
    """C0.2: suspend (`on` false: spirit form) or resume the Master's supply of mana; free, at
    the declaration prompt, once per Turn."""

    on: bool


class Contract(Section):
    key = "contract"
    public_fields = ("supply_on", "supply_turn", "materialized_turn", "stray", "cancel_turn")

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
        if kind == "intervene" and self.spirit(s, seat) and not self.can_materialize(s, seat):
            return [a for a in actions if a != AnswerIntervention(seat, True)]
        return actions

    def _declare_legal(self, s: GameState, seat: int, actions: list[Action]) -> list[Action]:
        rec = st.record(s, seat)
        if self.spirit(s, seat):
            loud_ok = self.can_materialize(s, seat)
            actions = [a for a in actions if self._allowed_in_spirit(s, a, loud_ok)]
        if not rec.stray and rec.supply_turn != st.turn_key(s):
            actions = [*actions, SetSupply(seat, not rec.supply_on)]
        return actions

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
        joins = kind == "intervene" and action == AnswerIntervention(seat, True)
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

    # --- C0.5, C0.6 the Master's MP at the end of each Turn ---------------------------------
    def on_turn_end(self, s: GameState) -> None:
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

    # --- what leaves the engine -----------------------------------------------------------------
    def verbs(self) -> tuple[str, ...]:
        return ("SetSupply",)

    def view(self, s: GameState, seat: int | None) -> dict[str, Any]:
        """The camps in spirit form now (public, C0.2), so a table need not work it out."""
        return {"spirit": [x for x in s.living if self.spirit(s, x)]}

    def rebuild(self, s: GameState, view: Any) -> None:
        """The draw follows the (public) supply of each rebuilt record."""
        for seat in range(len(s.camps)):
            rec = st.record(s, seat)
            open_ = rec.supply_on and not rec.stray
            if s.camps[seat].draw_open != open_:
                s.edit(seat).draw_open = open_


prompts.extend("declare", st.NAME,
               {SetSupply: lambda s, a: section_of(s, Contract).set_supply(s, a)}, ("SetSupply",))

__all__ = ["Contract", "SetSupply"]
