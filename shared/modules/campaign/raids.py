"""The campaign with the colossus (spec 002 §6 "Campaign + colossus", spec 003 §6): a raid is a
battle for the campaign too. Its raiders gain `combat` experience (the destroying raid is a win
for each), fellow raiders have met (Encounter points, bonds), a raider's Noble Phantasm gives
the others a Legend point, the killing blow is an event worth Servant merit and every raider of
the destroying raid is paid funds. Stances apply: Round 1 is normal, `ChooseStance` is offered
from Round 2 and a Noble Phantasm is declared and fired only in the stance that holds it;
`ActivatePlus` is offered at every raid prompt, once per `what` per raid Round (C4.3). The
colossus is no camp: it has no information categories, so it gives no points and no stance
resistance (nothing here reads it as a seat).

The raid lives in the colossus's slot and is walked by its stage machine, not by the base
battle hooks; this section watches it: `on_action` notes raiders and the front row while it is
open, `advance` settles it in the walk step where it has just closed (before the Turn's end,
so its experience counts in that Turn's levels). `docs/rules.md` 12 "Combining" states each
rule.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ...engine import core, prompts
from ...engine.actions import Action, DeclareNoblePhantasm, UseNoblePhantasm
from ...engine.events import Event
from ...engine.sharing import Shared
from ...engine.state import GameState
from ..colossus.actions import AttackPart, ClimbAttack, ClimbNoblePhantasm, FireAtPart
from . import ledger
from . import state as st
from .data import STANCES
from .info import Information
from .plus import BATTLE_PROMPTS, Plus, offer_at
from .section import Section, section_of
from .stances import ChooseStance, Stances

COLOSSUS = "colossus"  # the colossus module's slot
SLAYER = "colossus_slayer"  # the killing blow's event (C3.1: merit from events)
_STRIKES = (AttackPart, FireAtPart, ClimbAttack, ClimbNoblePhantasm)  # the front row's acts
_NP_FIRES = (FireAtPart, ClimbNoblePhantasm, UseNoblePhantasm)
_RAID_PROMPTS = ("raid_start", "raid_ground", "climb")
# C4.3 "any battle prompt the seat receives", in a raid: the raid's offer, each of its stages'
# prompts, and a critical's reward while it is open (a raid has no base battle).
PLUS_PROMPTS = ("raid_offer", "raid_start", "raid_ground", "raid_reaction", "climb",
                "climb_step", "critical")


class RaidRecord(NamedTuple):
    """The open raid as the campaign sees it: every raider that joined, those that struck the
    colossus (the front row, C2.2), and who chose a stance in which Round (C5.4: once a
    Round), and the Round the activated "+" belong to (C4.3: once per `what` per Round)."""

    raiders: tuple[int, ...] = ()
    front: frozenset[int] = frozenset()
    chose: tuple[tuple[int, int], ...] = ()  # (seat, Round)
    plus_round: int = 1  # the raid Round the camps' activated "+" (C4.3) count for


class Raids(Section):
    key = "raids"

    def open_raid(self, s: GameState) -> Any:
        """The colossus's raid now (None: no colossus on, or no raid open)."""
        slot = s.mods.get(COLOSSUS)
        return None if slot is None else slot.raid

    def record(self, s: GameState) -> RaidRecord | None:
        return st.state(s).raid

    # --- watching the raid ------------------------------------------------------------------
    def on_action(self, s: GameState, action: Action) -> None:
        raid = self.open_raid(s)
        if raid is None:
            return
        rec = self.record(s) or RaidRecord()
        new = [x for x in raid.joined if x not in rec.raiders]
        if new:
            section_of(s, Stances).set_normal(s, new)  # C5.4: Round 1 in the normal stance
            rec = rec._replace(raiders=(*rec.raiders, *new))
            self.meet(s, rec.raiders)
        if isinstance(action, _STRIKES) and action.seat in raid.seats:
            rec = rec._replace(front=rec.front | {action.seat})
        if rec != self.record(s):
            st.put(s, raid=rec)

    def after_action(self, s: GameState, action: Action, events: list[Event]) -> None:
        """C4.3: a new raid Round frees every "+" again (the raid never calls the base's
        Round end, where a battle frees them)."""
        raid, rec = self.open_raid(s), self.record(s)
        if raid is not None and rec is not None and rec.plus_round != raid.round:
            section_of(s, Plus).clear(s)
            st.put(s, raid=rec._replace(plus_round=raid.round))

    def meet(self, s: GameState, raiders: tuple[int, ...]) -> None:
        """C1.2: fellow raiders have met (Encounter points at the Turn's end, SetBond next)."""
        for x in raiders:
            others = frozenset(raiders) - {x}
            met = st.record(s, x).met_now
            if not others <= met:
                st.update(s, x, met_now=met | others)

    def on_np_fired(self, s: GameState, seat: int) -> None:
        """C1.5 (i), C1.9 in a raid: every other raider gains a Legend point and learns it."""
        raid = self.open_raid(s)
        if raid is None or seat not in raid.seats:
            return
        info = section_of(s, Information)
        for x in raid.seats:
            if x != seat:
                info.gain(s, x, seat, "np", "legend")
                info.disclose_np(s, x, seat)

    # --- settling it ---------------------------------------------------------------------------
    def advance(self, s: GameState) -> bool:
        rec = self.record(s)
        if rec is not None and self.open_raid(s) is None:
            self.settle(s, rec)
        return False

    def settle(self, s: GameState, rec: RaidRecord) -> None:
        """C2.2 per raider: +1 `combat`, +1 for the front row, +1 for a win (the destroying
        raid); the killer's Servant gains raid_slayer_merit (an event) and every living raider
        of the destroying raid raid_funds."""
        st.put(s, raid=None)
        section_of(s, Plus).clear(s)  # C4.3: for this battle's Round only
        killer = next((e.data["killer"] for e in s.events if e.type == "ColossusDestroyed"), -1)
        n = self.data.numbers
        for x in rec.raiders:
            if not s.camps[x].alive:
                continue
            ledger.gain_exp(s, self.data, x, "combat", 1, "battle")
            if x in rec.front:
                ledger.gain_exp(s, self.data, x, "combat", 1, "front_row")
            if killer >= 0:
                ledger.gain_exp(s, self.data, x, "combat", 1, "win")
                ledger.gain_funds(s, x, n.raid_funds, COLOSSUS)
        section_of(s, Stances).set_normal(s, rec.raiders)
        if killer >= 0 and s.camps[killer].alive:
            ledger.add_merit(s, killer, "servant", n.raid_slayer_merit, SLAYER)
            core.emit(s, "EventTriggered", frozenset({killer}), None, event=SLAYER,
                      camps=[killer])

    # --- stances in a raid (C5.4, C5.8) ------------------------------------------------------
    def legal(self, s: GameState, seat: int, actions: list[Action]) -> list[Action]:
        kind = s.prompt.kind
        raid = self.open_raid(s)
        if raid is None:
            return actions
        if kind in PLUS_PROMPTS and s.battle is None:
            actions = [*actions, *section_of(s, Plus).offers(s, seat)]
        if kind not in _RAID_PROMPTS:
            return actions
        stances = section_of(s, Stances)
        camp = s.camps[seat]
        if not (stances.current(s, seat).np or camp.servant.np.kind == "constant"):
            banned = (DeclareNoblePhantasm, *_NP_FIRES)
            actions = [a for a in actions if not isinstance(a, banned)]
        rec = self.record(s) or RaidRecord()
        if kind == "raid_start" and raid.round >= 2 and (seat, raid.round) not in rec.chose:
            now = st.record(s, seat).stance_now
            actions = [*actions, *(ChooseStance(seat, name) for name in STANCES if name != now)]
        return actions

    def choose(self, s: GameState, action: ChooseStance) -> None:
        rec = self.record(s) or RaidRecord()
        st.put(s, raid=rec._replace(chose=(*rec.chose, (action.seat, self.open_raid(s).round))))
        section_of(s, Stances).set_stance(s, action.seat, action.stance)

    # --- what leaves the engine (all of it public: who raids and who struck is seen) ------------
    def view(self, s: GameState, seat: int | None, shared: Shared) -> dict[str, Any] | None:
        rec = self.record(s)
        if rec is None:
            return None
        return {"raiders": list(rec.raiders), "front": sorted(rec.front),
                "chose": [list(c) for c in rec.chose], "plus_round": rec.plus_round}

    def rebuild(self, s: GameState, view: dict[str, Any]) -> None:
        st.put(s, raid=RaidRecord(tuple(view["raiders"]), frozenset(view["front"]),
                                  tuple(tuple(c) for c in view["chose"]), view["plus_round"]))


offer_at(tuple(k for k in PLUS_PROMPTS if k not in BATTLE_PROMPTS))
prompts.extend("raid_start", st.NAME,
               {ChooseStance: lambda s, a: section_of(s, Raids).choose(s, a)}, ("ChooseStance",))

__all__ = ["RaidRecord", "Raids"]
