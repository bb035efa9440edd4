"""§4 of the campaign: "+" grades (C4.1-C4.3), and C3.5's faked "+".

A "+" is on a parameter whose rank ends in "+", on a skill of `plus_skills` (Servant or
Master, campaign data) or on an NP with `np_plus`. In campaign rooms it is a grade to activate,
not a standing bonus: A+ counts 50 (the base's +5 is taken off) until `ActivatePlus` pays for
it, for one Round. What is activated is public (`PlusActivated`, spec §4); a skill's name
follows the base rule (seen by those who know the skill, else "skill").
"""

from __future__ import annotations

from dataclasses import dataclass

from ...engine import core, prompts
from ...engine.actions import Action
from ...engine.data import PARAMS, RANKS, Skill
from ...engine.state import Camp, GameState
from . import ledger
from . import state as st
from .merit import Merit
from .section import Section, section_of

PLUS_PARAMS = tuple(p for p in PARAMS if p != "np")  # an NP's "+" is `np_plus` (C4.1)
# C4.3 "any battle prompt the seat receives": the intervention offer, the Round's prompts, a
# critical's reward, and a bond victim's split of its damage in battle (C8.8).
BATTLE_PROMPTS = ("intervene", "round_start", "main", "reaction", "critical", "split")


@dataclass(frozen=True, slots=True)
class ActivatePlus(Action):
    """C4.3: activate a "+" for this Round: `what` is `param:<p>`, `skill:<id>` or `np`;
    `pay` is `mp` or `merit`. On a parameter without "+" it is C3.5's fake (merit only)."""

    what: str
    pay: str




class Plus(Section):
    key = "plus"
    # modifier_keys: any (a constant Noble Phantasm's "+" counts its self effect once more)

    # --- C4.1 where the "+" are -------------------------------------------------------------
    def param_plus(self, camp: Camp, p: str) -> bool:
        return camp.servant.ranks[p].endswith("+")

    def skill_plus(self, s: GameState, camp: Camp) -> dict[str, int]:
        """The camp's skills with a "+" (Servant's and Master's)."""
        own = {**self.data.servants[camp.servant.id].plus_skills,
               **self.data.masters[camp.master.id].plus_skills}
        return {sid: n for sid, n in own.items() if sid in core.skill_ids(camp)}

    def np_plus(self, camp: Camp) -> int:
        return self.data.servants[camp.servant.id].np_plus

    def active(self, s: GameState, seat: int, what: str) -> bool:
        return what in st.record(s, seat).plus_used

    # --- C4.2, C4.3 what an activated "+" does ------------------------------------------------
    def modifier(self, s: GameState, camp: Camp, key: str) -> int:
        n = self.data.numbers
        if key in PLUS_PARAMS:
            standing = camp.servant.params[key] - RANKS[camp.servant.ranks[key].rstrip("+")]
            bonus = n.plus_param if self.active(s, camp.seat, "param:" + key) else 0
            return bonus - standing
        np = camp.servant.np
        if not self.active(s, camp.seat, "np"):
            return 0
        if np.kind != "constant":
            return n.plus_np_power * self.np_plus(camp) if key == "np_power" else 0
        return np.self_effect.mod(key) * self.np_plus(camp)  # counted once more per "+"

    def skill_check(self, s: GameState, seat: int, skill: Skill, target: int) -> int:
        """C4.3 `skill:<id>`: its use this Round succeeds without a check (the value is put
        past the die's faces)."""
        if self.active(s, seat, "skill:" + skill.id):
            return self.rules.numbers.skill_die
        return 0

    # --- offering and paying ----------------------------------------------------------------------
    def costs(self, s: GameState, camp: Camp, what: str) -> dict[str, int]:
        """The payments `what` may take and their price (C4.3; C3.5 for a faked "+")."""
        n = self.data.numbers
        if what.startswith("param:"):
            if not self.param_plus(camp, what[6:]):
                return {"merit": n.fake_plus_merit}
            return {"mp": n.plus_param_mp, "merit": n.plus_param_merit}
        if what.startswith("skill:"):
            return {"mp": n.plus_skill_mp, "merit": n.plus_skill_merit}
        plus = self.np_plus(camp)
        if camp.servant.np.kind == "constant":
            return {"mp": n.plus_constant_mp * plus, "merit": n.plus_constant_merit}
        return {"mp": n.plus_np_mp * plus, "merit": n.plus_np_merit * plus}

    def wallet(self, s: GameState, what: str) -> str:
        """Whose merit and MP pay: a Master skill's are the Master's."""
        if what.startswith("skill:") and self.rules.skills[what[6:]].owner == "master":
            return "master"
        return "servant"

    def can_pay(self, s: GameState, camp: Camp, what: str, pay: str, price: int) -> bool:
        holder = self.wallet(s, what)
        if pay == "merit":
            return section_of(s, Merit).wallet(s, camp.seat, holder) >= price
        if holder == "master":
            return camp.master_mp >= price
        return core.can_pay(camp, price)

    def options(self, s: GameState, camp: Camp) -> list[str]:
        out = [f"param:{p}" for p in PLUS_PARAMS]
        out += [f"skill:{sid}" for sid in sorted(self.skill_plus(s, camp))
                if sid not in camp.skills_used]
        if self.np_plus(camp):
            out.append("np")
        return out

    def legal(self, s: GameState, seat: int, actions: list[Action]) -> list[Action]:
        if s.prompt.kind not in BATTLE_PROMPTS or s.battle is None:
            return actions  # a raid's prompts are offered by raids.py
        return [*actions, *self.offers(s, seat)]

    def offers(self, s: GameState, seat: int) -> list[ActivatePlus]:
        """Every "+" the seat may activate now: not yet this Round, and paid for."""
        camp = s.camps[seat]
        used = st.record(s, seat).plus_used
        return [ActivatePlus(seat, what, pay) for what in self.options(s, camp)
                if what not in used
                for pay, price in self.costs(s, camp, what).items()
                if self.can_pay(s, camp, what, pay, price)]

    def activate(self, s: GameState, action: ActivatePlus) -> None:
        seat, what = action.seat, action.what
        camp = s.camps[seat]
        price = self.costs(s, camp, what)[action.pay]
        holder = self.wallet(s, what)
        if action.pay == "merit":
            ledger.add_merit(s, seat, holder, -price, "plus")
        elif holder == "master":
            s.edit(seat).master_mp -= price
        else:
            core.pay_mp(s, seat, price)
        st.update(s, seat, plus_used=st.record(s, seat).plus_used | {what})
        data = {"seat": seat, "what": what, "pay": action.pay}
        if what.startswith("skill:"):  # the base skill-name rule: only its knowers see which
            viewers = core.skill_viewers(s, seat, self.rules.skills[what[6:]])
            core.emit(s, "PlusActivated", viewers, {**data, "what": "skill"}, **data)
        else:
            core.emit(s, "PlusActivated", **data)

    def clear(self, s: GameState) -> None:
        """A new Round (or no battle): every "+" may be activated again."""
        for seat in range(len(s.camps)):
            if st.record(s, seat).plus_used:
                st.update(s, seat, plus_used=frozenset())

    def on_round_end(self, s: GameState) -> None:
        self.clear(s)

    def on_battle_end(self, s: GameState) -> None:
        self.clear(s)

    def on_turn_end(self, s: GameState) -> None:
        self.clear(s)

    def verbs(self) -> tuple[str, ...]:
        return ("ActivatePlus",)


def _activate(s: GameState, action: ActivatePlus) -> None:
    section_of(s, Plus).activate(s, action)


def offer_at(kinds: tuple[str, ...]) -> None:
    """Make ActivatePlus an action of these prompt kinds (its section's `legal` offers it)."""
    for kind in kinds:
        prompts.extend(kind, st.NAME, {ActivatePlus: _activate}, ("ActivatePlus",))


offer_at(BATTLE_PROMPTS)

__all__ = ["ActivatePlus", "Plus"]
