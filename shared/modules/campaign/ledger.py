"""The campaign's currencies that every section pays into: a Master's experience (C2.2), merit
(C3.1) and funds (C6.1). Each is a field of the camp's record and a private event; they sit
here, below the sections, so that a section gives another's currency without importing that
section (bonds give merit, growth gives funds, raids give all three)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...engine import core
from . import state as st
from .data import METHODS

if TYPE_CHECKING:
    from ...engine.state import GameState
    from .data import CampaignData

HOLDERS = ("servant", "master")  # the merit wallets, in `CampRecord.merit` order


def level_cap(s: GameState, seat: int, data: CampaignData) -> int:
    """C2.4: the level cap (a human Master's is higher; a tagged homunculus is not human,
    C12.1 ④)."""
    n = data.numbers
    return n.level_cap_human if st.race(s, seat, data) == "human" else n.level_cap


def gain_exp(s: GameState, data: CampaignData, seat: int, method: str, amount: int,
             source: str) -> None:
    """C2.2: experience of `method` (plus the race's C2.10 extra), shown privately by method
    and source; nothing once the Master is at its cap or the Servant stray (§2, growth.py,
    turns it into levels)."""
    rec = st.record(s, seat)
    if rec.stray or rec.level >= level_cap(s, seat, data) or not s.camps[seat].alive:
        return
    amount += data.race_exp.get(st.race(s, seat, data), {}).get(method, 0)
    exp = list(rec.exp)
    exp[METHODS.index(method)] += amount
    st.update(s, seat, exp=tuple(exp))
    core.emit(s, "ExperienceGained", frozenset({seat}), None, seat=seat, method=method,
              amount=amount, source=source)


def note_scouting(s: GameState, seat: int) -> None:
    """C2.2 `scouting`: a point gained by Investigate, Research or a scouting device marks the
    Turn; its end gives +1 experience for the Turn, once (growth.py)."""
    if st.record(s, seat).scouted_turn != st.turn_key(s):
        st.update(s, seat, scouted_turn=st.turn_key(s))


def add_merit(s: GameState, seat: int, holder: str, amount: int, source: str) -> None:
    """Merit into (or, negative, out of) one wallet, shown to the camp only."""
    merit = list(st.record(s, seat).merit)
    merit[HOLDERS.index(holder)] += amount
    st.update(s, seat, merit=(merit[0], merit[1]))
    core.emit(s, "MeritChanged", frozenset({seat}), None, seat=seat, holder=holder,
              amount=amount, merit=merit[HOLDERS.index(holder)], source=source)


def gain_funds(s: GameState, seat: int, amount: int, source: str) -> None:
    """Funds in (or, negative, out); private (spec §4)."""
    rec = st.update(s, seat, funds=st.record(s, seat).funds + amount)
    core.emit(s, "FundsChanged", frozenset({seat}), None, seat=seat, amount=amount,
              funds=rec.funds, source=source)
