"""Skills and Command Spells: which a seat may use at this prompt, and what they do.

Both are offered at every prompt the seat is given (seed 000 §Combat 4 timings, §15 "at any
timing at all"), filtered here by timing, cost, once-per-round and no-stacking.
"""

from __future__ import annotations

from functools import cache

from . import core
from .actions import Action, UseCommandSpell, UseSkill
from .data import Skill
from .state import Camp, GameState

# Timings usable at each prompt kind (besides "optional", usable at any battle prompt).
_PROMPT_TIMINGS = {
    "round_start": ("round_start",),
    "main": ("own_activation",),
}


def usable_skill(s: GameState, camp: Camp, skill: Skill) -> bool:
    """Once per round, not again while its buff is on, affordable, and a sleeping Master
    casts nothing."""
    return (
        not (camp.asleep and skill.owner == "master")
        and skill.id not in camp.skills_used
        and not core.buff_active(camp, skill.id)
        and core.can_pay_skills(camp, skill)
    )


def skill_actions(s: GameState, seat: int, kind: str) -> list[Action]:
    """UseSkill actions for a battle prompt of `kind` (own-activation only before acting)."""
    b = s.battle
    if b is None:
        return []
    camp = s.camps[seat]
    timings = ["optional", *_PROMPT_TIMINGS.get(kind, ())]
    if kind == "round_start" and b.round == 1:
        timings.append("combat_start")
    if kind == "main" and b.acted:
        timings.remove("own_activation")
    foes = [t for t in b.seats if t != seat]
    companions = [sk for sk in core.skills_of(s, camp, "on_magecraft") if usable_skill(s, camp, sk)]
    out: list[Action] = []
    for timing in timings:
        for skill in core.skills_of(s, camp, timing):
            if not usable_skill(s, camp, skill):
                continue
            targets = [-1] if skill.target != "enemy" else [  # no stacking on the foe either
                t for t in foes if not core.buff_active(s.camps[t], skill.id)]
            for t in targets:
                out.append(UseSkill(seat, skill.id, t))
                if skill.magecraft:
                    out.extend(UseSkill(seat, skill.id, t, extra.id) for extra in companions
                               if core.can_pay_skills(camp, skill, extra))
    return out


def use_skill(s: GameState, action: UseSkill) -> None:
    seat = action.seat
    for sid in (action.skill, action.extra):
        if not sid:
            continue
        skill = s.rules.skills[sid]
        run_skill(s, seat, skill, action.target)


def run_skill(s: GameState, seat: int, skill: Skill, target: int) -> None:
    """Pay, check (1d100 <= value), then apply to self or the chosen enemy."""
    camp = s.edit(seat)
    camp.skills_used = camp.skills_used | {skill.id}
    core.pay_skill(s, seat, skill)
    core.emit(s, "SkillUsed", frozenset({seat}), {"seat": seat, "skill": None},
              seat=seat, skill=skill.id, target=target)
    if not core.skill_check(s, seat, skill, core.mod(s, s.camps[seat], "skill_check")):
        core.emit(s, "SkillFailed", seat=seat)
        return
    who = target if target >= 0 else seat
    core.apply_effect(s, who, skill.effect, skill.id, skill.duration, removable=True,
                      debuff=target >= 0, owner=seat)


# --- Command Spells --------------------------------------------------------------------------
def command_spell_actions(s: GameState, seat: int, in_main: bool = False) -> list[Action]:
    """Every Command Spell this seat may cast now (never while its Master sleeps)."""
    camp = s.camps[seat]
    if camp.asleep or camp.spells <= 0:
        return []
    in_battle = s.battle is not None and seat in s.battle.seats
    squares = tuple(map(str, range(len(s.rules.maps[s.settings.map_id].squares))))
    out: list[Action] = []
    for spell in s.rules.command_spells.values():
        if spell.cost > camp.spells or (spell.when == "battle" and not in_battle):
            continue
        special = spell.special
        if special in ("retreat", "teleport"):
            skip = -1 if special == "retreat" else camp.pos
            out.extend(a for a in _spell_args(seat, spell.id, squares) if a.arg != str(skip))
        elif special == "refine":
            out.extend(_spell_args(seat, spell.id, _SIX_CARDS))
        elif special == "war_roar":
            running = s.battle is not None and camp.disengage_round == s.battle.round
            if in_main and not camp.war_roar and not running and camp.servant.np.kind != "constant":
                out.append(UseCommandSpell(seat, spell.id))
        elif special == "suicide" or not core.buff_active(camp, "cs:" + spell.id):
            out.append(UseCommandSpell(seat, spell.id))
    return out


@cache
def _spell_args(seat: int, spell: str, args: tuple[str, ...]) -> tuple[UseCommandSpell, ...]:
    """The same long lists (every square, every six-card hand) are built once per seat."""
    return tuple(UseCommandSpell(seat, spell, arg) for arg in args)


def _six_card_hands() -> tuple[str, ...]:
    hands = []
    for b in range(7):
        for a in range(7 - b):
            hands.append("B" * b + "A" * a + "Q" * (6 - a - b))
    return tuple(hands)


_SIX_CARDS = _six_card_hands()


def use_command_spell(s: GameState, action: UseCommandSpell) -> None:
    seat = action.seat
    spell = s.rules.command_spells[action.spell]
    camp = s.edit(seat)
    camp.spells -= spell.cost
    core.emit(s, "CommandSpellUsed", seat=seat, spell=spell.id, left=camp.spells)
    special = spell.special
    if special in ("retreat", "teleport"):
        if special == "retreat":  # a Teleport in battle only moves: battles use the city map
            from .battle import leave_battle

            leave_battle(s, seat, special)
        camp = s.edit(seat)
        camp.pos = int(action.arg)
        core.emit(s, "Moved", seat=seat, to=camp.pos)
        if s.battle is not None and seat in s.battle.seats:
            from .battle import catch

            catch(s, seat, camp.pos)
    elif special == "suicide":
        core.take_damage(s, seat, 500, lethal_rescue=False)
    elif special == "refine":
        camp.hand = action.arg
    elif special == "war_roar":
        camp.war_roar = True
    else:
        core.apply_effect(s, seat, spell.effect, "cs:" + spell.id, spell.duration,
                          removable=False)
