"""§3 of the campaign: merit points (C3.1-C3.5). Each camp has two wallets, the Servant's and
the Master's. Merit comes in only through `ledger.add_merit` (bond resolutions, events,
colossus rewards: other sections call it); it goes out by `TransferMerit` (2 for 1),
`EscapeWithMerit` (C3.4) and the "+" it buys (`plus.py`, including C3.5's faked "+"). Wallets
are the camp's own secret (spec §4): every event here is private.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...engine import core, prompts
from ...engine.actions import Action
from ...engine.state import Camp, GameState
from . import ledger
from . import state as st
from .ledger import HOLDERS
from .section import Section, section_of

ESCAPE = "escape"  # the `plus_used` mark of an EscapeWithMerit this Round
ESCAPE_ITEM = "rabbit_foot"  # C6.14: every escape counts as paid


@dataclass(frozen=True, slots=True)
class TransferMerit(Action):
    """C3.3: at a declaration prompt, the other wallet gives transfer_rate x `amount` and
    wallet `to` gets `amount`."""

    to: str
    amount: int




@dataclass(frozen=True, slots=True)
class EscapeWithMerit(Action):
    """C3.4: for escape_merit Servant merit, this Round's Disengage ignores its Movement and
    check penalties, or the Flee its Reaction penalty."""


class Merit(Section):
    key = "merit"
    modifier_keys = frozenset({"movement", "checks", "defense"})
    camp_keys = ("merit",)

    def scenario_camp(self, s: GameState, seat: int, values: Any) -> None:
        """`merit = [servant, master]`: the two wallets (C3.1)."""
        merit = values["merit"]
        if not (isinstance(merit, list) and len(merit) == 2
                and all(type(x) is int and x >= 0 for x in merit)):
            raise ValueError(f"merit: {merit!r} is not [servant, master], two integers >= 0")
        st.update(s, seat, merit=tuple(merit))

    def wallet(self, s: GameState, seat: int, holder: str) -> int:
        return st.record(s, seat).merit[HOLDERS.index(holder)]

    # --- C3.3 ----------------------------------------------------------------------------------
    def transfer(self, s: GameState, action: TransferMerit) -> None:
        giver = HOLDERS[1 - HOLDERS.index(action.to)]
        rate = self.data.numbers.transfer_rate
        ledger.add_merit(s, action.seat, giver, -rate * action.amount, "transfer")
        ledger.add_merit(s, action.seat, action.to, action.amount, "transfer")

    # --- C3.4 ----------------------------------------------------------------------------------
    def escaping(self, s: GameState, camp: Camp) -> bool:
        rec = st.record(s, camp.seat)
        return ESCAPE in rec.plus_used or dict(rec.items).get(ESCAPE_ITEM, 0) > 0

    def modifier(self, s: GameState, camp: Camp, key: str) -> int:
        """The escape waives the base penalties exactly, where the base applies them: the
        Disengage's −2 Movement and −10 to every check in its Round, the Flee's −10 to its
        Reaction checks only (the `defense` key, which only Reactions read)."""
        if s.battle is None or not self.escaping(s, camp):
            return 0
        n = s.rules.numbers
        if camp.disengage_round == s.battle.round:
            return {"movement": -n.disengage_movement, "checks": -n.disengage_checks}.get(key, 0)
        return -n.flee_reaction if camp.fleeing and key == "defense" else 0

    def escape(self, s: GameState, action: EscapeWithMerit) -> None:
        seat = action.seat
        ledger.add_merit(s, seat, "servant", -self.data.numbers.escape_merit, "escape")
        st.update(s, seat, plus_used=st.record(s, seat).plus_used | {ESCAPE})
        core.emit(s, "EscapeBought", frozenset({seat}), None, seat=seat)

    # --- offering -------------------------------------------------------------------------------
    def legal(self, s: GameState, seat: int, actions: list[Action]) -> list[Action]:
        kind = s.prompt.kind
        rec = st.record(s, seat)
        if kind == "declare":
            rate = self.data.numbers.transfer_rate
            return [*actions, *(TransferMerit(seat, to, n) for i, to in enumerate(HOLDERS)
                                for n in range(1, rec.merit[1 - i] // rate + 1))]
        if kind in ("round_start", "ambush") and self.may_escape(s, seat):
            return [*actions, EscapeWithMerit(seat)]
        return actions

    def may_escape(self, s: GameState, seat: int) -> bool:
        """Offered on the Round it declared Disengage, or to the ambushed camp; never twice,
        never with the Rabbit's Foot (it needs no merit), never without the merit."""
        camp = s.camps[seat]
        if st.record(s, seat).merit[0] < self.data.numbers.escape_merit or self.escaping(s, camp):
            return False
        if s.prompt.kind == "ambush":
            return s.parley is not None and s.parley.target == seat
        return s.battle is not None and camp.disengage_round == s.battle.round

    def verbs(self) -> tuple[str, ...]:
        return ("TransferMerit", "EscapeWithMerit")


prompts.extend("declare", st.NAME,
               {TransferMerit: lambda s, a: section_of(s, Merit).transfer(s, a)},
               ("TransferMerit",))
for _kind in ("round_start", "ambush"):
    prompts.extend(_kind, st.NAME,
                   {EscapeWithMerit: lambda s, a: section_of(s, Merit).escape(s, a)},
                   ("EscapeWithMerit",))

__all__ = ["HOLDERS", "EscapeWithMerit", "Merit", "TransferMerit"]
