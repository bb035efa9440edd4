"""§7 of the campaign: its Command Spells (C7.0-C7.11; the table of spec §3.3).

Campaign rooms add the spells of `campaign/command_spells.toml` to the base 21 (C7.0, through
`Module.command_spells`): each is a `special` registered here, which says at which prompt it is
offered and what it does. They cost one stroke like any spell, and the base rules for strokes
hold (never while the Master sleeps, never regained). An artificial Master (`state.race`: the
Einzbern tag makes one, C12.1 ④) gets the stronger variant; the pairs of numbers are in
`rules.toml [spells]`.

Forced Withdrawal and Forced Summon are the base Retreat (C7.1, C7.2): nothing is added for
them. Changing an activation after its Round (C7.11) is not offered.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Any

from ...engine import core, powers, prompts
from ...engine.actions import Action, UseCommandSpell, UseNoblePhantasm
from ...engine.data import CommandSpell, _load_spells, read_table
from ...engine.geometry import distance
from ...engine.state import GameState
from . import state as st
from .bonds import Bonds
from .contract import OPENERS
from .section import Section, section_of
from .stances import Stances
from .state import declared


def _spells(s: GameState) -> Spells:
    return section_of(s, Spells)


def _in_battle(s: GameState, seat: int) -> bool:
    return s.battle is not None and seat in s.battle.seats and st.state(s).battle is not None


def _round_start(s: GameState, seat: int) -> bool:
    return _in_battle(s, seat) and s.prompt.kind == "round_start"


# --- when each is offered (SpellSpecial.actions) ------------------------------------------------
def _attack_posture(s: GameState, seat: int, spell: CommandSpell, _m: bool) -> list[Action]:
    """C7.3: at the Round-1 round start, or at the intervention offer; once a battle."""
    if _spells(s).marked(s, "posture", seat):
        return []
    at_start = _round_start(s, seat) and s.battle.round == 1
    offered = s.prompt.kind == "intervene" and seat in s.prompt.seats
    return [UseCommandSpell(seat, spell.id)] if at_start or offered else []


def _np_enhancement(s: GameState, seat: int, spell: CommandSpell, in_main: bool) -> list[Action]:
    """C7.4: at its own Main Action, its NP due (declared and charged, or War Roar) and its
    cards in hand; one firing per stroke."""
    camp = s.camps[seat]
    np = camp.servant.np
    if not (in_main and _in_battle(s, seat)) or np.kind == "constant" or (
            _spells(s).marked(s, "np_free", seat)):
        return []
    charged = camp.war_roar or (camp.np_target >= 0
                                and s.battle.round >= camp.np_round + np.charge)
    return [UseCommandSpell(seat, spell.id)] if charged and camp.hand.count(np.card) >= (
        np.cards) else []


def _defense_posture(s: GameState, seat: int, spell: CommandSpell, _m: bool) -> list[Action]:
    """C7.5: at the Round-1 round start (over max), or at any later battle prompt while hurt."""
    if not _in_battle(s, seat):
        return []
    camp = s.camps[seat]
    first = _round_start(s, seat) and s.battle.round == 1
    return [UseCommandSpell(seat, spell.id)] if first or camp.hp < camp.servant.hp else []


def _status_recovery(s: GameState, seat: int, spell: CommandSpell, _m: bool) -> list[Action]:
    """C7.6: outside battle; `arg` the MP turned into HP (steps), at most what HP lacks
    (rounded up to a step) and what is recovered."""
    if s.battle is not None and seat in s.battle.seats:
        return []
    camp = s.camps[seat]
    if camp.hp >= camp.servant.hp and camp.mp >= camp.servant.mp:
        return []
    recovered, step = _spells(s).recovery(s, seat)
    most = min(recovered, -(-(camp.servant.hp - camp.hp) // step) * step)
    return [UseCommandSpell(seat, spell.id, str(n)) for n in range(0, most + 1, step)]


def _forced_attack(s: GameState, seat: int, spell: CommandSpell, in_main: bool) -> list[Action]:
    """C7.7: at its own Main Action, before it acts."""
    ok = in_main and _in_battle(s, seat) and not s.battle.acted
    return [UseCommandSpell(seat, spell.id)] if ok and not _spells(s).marked(
        s, "forced", seat) else []


def _absolute_defense(s: GameState, seat: int, spell: CommandSpell, _m: bool) -> list[Action]:
    """C7.8: at a round-start prompt; once a Round."""
    return [UseCommandSpell(seat, spell.id)] if _round_start(s, seat) and not _spells(s).marked(
        s, "absolute", seat) else []


def _binding_order(s: GameState, seat: int, spell: CommandSpell, _m: bool) -> list[Action]:
    """C7.9: outside battle, while the Servant's bond toward its Master can still rise."""
    if s.battle is not None and seat in s.battle.seats:
        return []
    bond = section_of(s, Bonds).bond(s, seat, "servant", seat)
    ok = bond is not None and not bond.fixed and bond.grade < section_of(s, Bonds).top()
    return [UseCommandSpell(seat, spell.id)] if ok else []


def _may_restrict(s: GameState, seat: int) -> bool:
    """C7.10: declared, the window still open, a stroke in hand, and not kept this Turn."""
    camp = s.camps[seat]
    return (s.phase == "declare" and camp.alive and not camp.asleep and camp.spells > 0
            and declared(s, seat) is not None
            and st.record(s, seat).kept_turn != st.turn_key(s))


def _action_restriction(s: GameState, seat: int, spell: CommandSpell, _m: bool) -> list[Action]:
    """C7.10: at the declaration prompt, once the camp has declared."""
    ok = s.prompt.kind == "declare" and _may_restrict(s, seat)
    return [UseCommandSpell(seat, spell.id)] if ok else []


# --- what each does (SpellSpecial.cast) -----------------------------------------------------------
def _cast_attack_posture(s: GameState, action: UseCommandSpell, _spell: CommandSpell) -> None:
    sec = _spells(s)
    if st.state(s).battle is None:  # the intervention offer: the battle has not begun
        st.put(s, battle=st.BattleRecord())
    sec.mark(s, "posture", action.seat)
    if s.prompt.kind == "round_start":
        sec.double_hand(s, action.seat)


def _cast_np_enhancement(s: GameState, action: UseCommandSpell, _spell: CommandSpell) -> None:
    _spells(s).mark(s, "np_free", action.seat)


def _cast_defense_posture(s: GameState, action: UseCommandSpell, _spell: CommandSpell) -> None:
    sec, seat = _spells(s), action.seat
    camp = s.camps[seat]
    if s.prompt.kind == "round_start" and s.battle.round == 1:
        s.edit(seat).hp = camp.servant.hp + sec.number(s, seat, "defense_posture_over")
        sec.mark(s, "over_max", seat)
    else:
        core.heal(s, seat, sec.number(s, seat, "defense_posture_heal"))


def _cast_status_recovery(s: GameState, action: UseCommandSpell, _spell: CommandSpell) -> None:
    seat = action.seat
    recovered, _step = _spells(s).recovery(s, seat)
    to_hp = int(action.arg)
    core.heal(s, seat, to_hp)
    core.gain_mp(s, seat, recovered - to_hp)


def _cast_forced_attack(s: GameState, action: UseCommandSpell, _spell: CommandSpell) -> None:
    _spells(s).mark(s, "forced", action.seat)


def _cast_absolute_defense(s: GameState, action: UseCommandSpell, _spell: CommandSpell) -> None:
    _spells(s).mark(s, "absolute", action.seat)


def _cast_binding_order(s: GameState, action: UseCommandSpell, _spell: CommandSpell) -> None:
    grades = _spells(s).data.numbers.binding_order_grades
    section_of(s, Bonds).raise_grade(s, action.seat, "servant", action.seat, grades, "spell")


def _cast_action_restriction(s: GameState, action: UseCommandSpell,
                             _spell: CommandSpell) -> None:
    """C7.10: the declaration is withdrawn, a target it bound released; the camp declares
    again, under the priority rules as they stand now."""
    seat = action.seat
    decl = declared(s, seat)
    s.decls = tuple(d for d in s.decls if d.seat != seat)
    s.held = tuple(d for d in s.held if d.seat != seat)
    if decl.kind in OPENERS:
        s.bound = s.bound - {decl.target}
    core.emit(s, "DeclarationWithdrawn", frozenset({seat}), {"seat": seat}, seat=seat,
              kind=decl.kind)


SPECIALS = {
    "attack_posture": (_attack_posture, _cast_attack_posture),
    "np_enhancement": (_np_enhancement, _cast_np_enhancement),
    "defense_posture": (_defense_posture, _cast_defense_posture),
    "status_recovery": (_status_recovery, _cast_status_recovery),
    "forced_attack": (_forced_attack, _cast_forced_attack),
    "absolute_defense": (_absolute_defense, _cast_absolute_defense),
    "binding_order": (_binding_order, _cast_binding_order),
    "action_restriction": (_action_restriction, _cast_action_restriction),
}
for _name, (_offer, _cast) in SPECIALS.items():
    powers.register_special(_name, powers.SpellSpecial(_offer, _cast))

# Marks that last until the activation ends, and until the Round ends.
_ACTIVATION = frozenset({"forced", "np_boost"})
_ROUND = frozenset({"absolute"})


@dataclass(frozen=True, slots=True)
class KeepDeclaration(Action):
    """C7.10: a declared camp that could still restrict its action keeps it; it leaves the
    declaration prompt for this Turn (the default on its timeout)."""


class Spells(Section):
    key = "spells"
    modifier_keys = frozenset({"np", "damage_dealt"})

    def __init__(self, module: Any) -> None:
        super().__init__(module)
        self._table = _load_spells(read_table(resources.files("grailwar.resources"),
                                               "campaign/command_spells.toml"))

    def command_spells(self) -> dict[str, CommandSpell]:
        return self._table

    # --- reading -------------------------------------------------------------------------------
    def artificial(self, s: GameState, seat: int) -> bool:
        """The stronger variants (C7.x): an artificial Master, a tagged homunculus too."""
        return st.race(s, seat, self.data) == "artificial"

    def number(self, s: GameState, seat: int, key: str) -> int:
        """A `[spells]` number for this camp's Master (human or artificial)."""
        return self.data.spells[key][self.artificial(s, seat)]

    def recovery(self, s: GameState, seat: int) -> tuple[int, int]:
        """C7.6: the MP Status Recovery gives back, and the MP-to-HP step."""
        percent = self.number(s, seat, "status_recovery_percent")
        return (s.camps[seat].servant.mp * percent // 100,
                self.number(s, seat, "status_recovery_step"))

    def marked(self, s: GameState, what: str, seat: int) -> bool:
        b = st.state(s).battle
        return b is not None and (what, seat) in b.marks

    def mark(self, s: GameState, what: str, seat: int, on: bool = True) -> None:
        b = st.state(s).battle
        marks = b.marks | {(what, seat)} if on else b.marks - {(what, seat)}
        st.put(s, battle=b._replace(marks=marks))

    def double_hand(self, s: GameState, seat: int) -> None:
        """C7.3: the first hand is the pool so many times over (later refills are normal)."""
        times = self.number(s, seat, "attack_posture_hand")
        s.edit(seat).hand = core.sort_cards(st.cards(st.record(s, seat), self.data) * times)

    # --- C7.10 the declaration window -------------------------------------------------------
    def declare_seats(self, s: GameState, seats: frozenset[int]) -> frozenset[int]:
        """A declared camp holding a stroke stays in the prompt (it does not hold it open)."""
        return seats | {x for x in range(len(s.camps)) if _may_restrict(s, x)}

    def legal(self, s: GameState, seat: int, actions: list[Action]) -> list[Action]:
        """C7.10: a declared camp may only keep its declaration or restrict it. C7.4: an
        enhanced NP may fire even when its MP could not be paid."""
        if s.prompt.kind == "declare" and declared(s, seat) is not None:
            return [KeepDeclaration(seat), *(a for a in actions if isinstance(a, UseCommandSpell)
                                             and a.spell == "action_restriction")]
        if (s.prompt.kind == "main" and self.marked(s, "np_free", seat)
                and not any(isinstance(a, UseNoblePhantasm) for a in actions)):
            return [*actions, *self._free_firing(s, seat)]
        return actions

    def _free_firing(self, s: GameState, seat: int) -> list[Action]:
        """The firings the base would offer if the MP were there (its stance permitting)."""
        camp = s.camps[seat]
        np = camp.servant.np
        if not section_of(s, Stances).current(s, seat).np:
            return []
        if np.kind == "support":
            return [UseNoblePhantasm(seat, seat)]
        grid = core.city(s)
        return [UseNoblePhantasm(seat, t) for t in s.battle.seats
                if t != seat and (camp.war_roar or camp.np_target == t)
                and distance(grid, camp.pos, s.camps[t].pos) <= np.range]

    def keep(self, s: GameState, action: KeepDeclaration) -> None:
        st.update(s, action.seat, kept_turn=st.turn_key(s))

    def verbs(self) -> tuple[str, ...]:
        return ("KeepDeclaration",)

    # --- the battle ---------------------------------------------------------------------------
    def on_battle_start(self, s: GameState) -> None:
        """C7.3 cast at the intervention offer: the hand just given becomes the posture's."""
        for seat in s.battle.seats:
            if self.marked(s, "posture", seat):
                self.double_hand(s, seat)

    def on_action(self, s: GameState, action: Action) -> None:
        """C7.4: the enhanced firing costs nothing: its MP is given before the base takes it."""
        if isinstance(action, UseNoblePhantasm) and self.marked(s, "np_free", action.seat):
            seat = action.seat
            s.edit(seat).mp += s.camps[seat].servant.np.mp
            self.mark(s, "np_free", seat, on=False)
            if self.number(s, seat, "np_enhancement_param"):
                self.mark(s, "np_boost", seat)

    def modifier(self, s: GameState, camp: Any, key: str) -> int:
        if key == "np" and self.marked(s, "np_boost", camp.seat):
            return self.number(s, camp.seat, "np_enhancement_param")
        if key == "damage_dealt" and self.marked(s, "forced", camp.seat):
            p = s.battle.pending if s.battle is not None else None
            if p is not None and p.attacker == camp.seat:
                return self.number(s, camp.seat, "forced_attack_dp") * (
                    self.data.numbers.damage_point)
        return 0

    def reductions(self, s: GameState, att: int, seat: int, halve: bool, guard: bool,
                   taken: bool) -> tuple[bool, bool, bool]:
        """C7.7: no Guard, no Luck halving, no damage-taken modifiers (Invincibility stays)."""
        if self.marked(s, "forced", att):
            return False, False, False
        return halve, guard, taken

    def damage(self, s: GameState, seat: int, amount: int, source: str) -> int:
        """C7.8, the swap rule: the largest instance so far this Round is the one reduced to
        the floor; when a larger one comes, the earlier one's waived damage is dealt at once."""
        if not self.marked(s, "absolute", seat):
            return amount
        floor = self.number(s, seat, "absolute_defense_floor")
        if amount <= floor:
            return amount
        b = st.state(s).battle
        waived = dict(b.protected).get(seat)
        if waived is not None and amount <= waived + floor:
            return amount
        st.put(s, battle=b._replace(protected=(*(p for p in b.protected if p[0] != seat),
                                               (seat, amount - floor))))
        core.emit(s, "AbsoluteDefenseHeld", seat=seat, amount=amount, to=floor)
        if waived:
            core.emit(s, "AbsoluteDefenseReleased", seat=seat, amount=waived)
            core.take_damage(s, seat, waived)
            if not s.camps[seat].alive:
                return 0
        return floor

    def on_activation_end(self, s: GameState, seat: int) -> None:
        b = st.state(s).battle
        if b is not None and any(m[0] in _ACTIVATION for m in b.marks):
            st.put(s, battle=b._replace(marks=frozenset(
                m for m in b.marks if m[0] not in _ACTIVATION)))

    def on_round_end(self, s: GameState) -> None:
        b = st.state(s).battle
        if b is not None:
            st.put(s, battle=b._replace(protected=(), marks=frozenset(
                m for m in b.marks if m[0] not in _ROUND)))

    def on_battle_end(self, s: GameState) -> None:
        """C7.5: HP above max is lost when the battle ends."""
        for seat in s.battle.joined:
            camp = s.camps[seat]
            if self.marked(s, "over_max", seat) and camp.alive and camp.hp > camp.servant.hp:
                s.edit(seat).hp = camp.servant.hp


def _keep_default(s: GameState, seat: int) -> Action | None:
    """A timeout keeps a declared camp's declaration."""
    if any(m.name == st.NAME for m in s.modules) and declared(s, seat) is not None:
        return KeepDeclaration(seat)
    return None


prompts.extend("declare", st.NAME,
               {KeepDeclaration: lambda s, a: section_of(s, Spells).keep(s, a)},
               ("KeepDeclaration",), default=_keep_default)

__all__ = ["SPECIALS", "KeepDeclaration", "Spells"]
