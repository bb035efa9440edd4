"""Skills and Command Spells: which a seat may use at this prompt, and what they do.

Both are offered at every prompt the seat is given (seed 000 §Combat 4 timings, §15 "at any
timing at all"), filtered here by timing, cost, once-per-round and no-stacking.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import NamedTuple

from . import core
from .actions import Action, UseCommandSpell, UseSkill
from .data import CommandSpell, Skill, extend_vocabulary
from .state import Camp, GameState


def usable_skill(s: GameState, camp: Camp, skill: Skill) -> bool:
    """Once per round, not again while its buff is on, affordable, and a sleeping Master
    casts nothing."""
    return (
        not (camp.asleep and skill.owner == "master")
        and skill.id not in camp.skills_used
        and not core.buff_active(camp, skill.id)
        and core.can_pay_skills(camp, skill)
    )


def skill_actions(s: GameState, seat: int, *timings: str) -> list[Action]:
    """UseSkill actions at a battle prompt: skills of the "optional" timing (usable at any
    battle prompt) and of the `timings` the prompt adds."""
    b = s.battle
    if b is None:
        return []
    camp = s.camps[seat]
    timings = ("optional", *timings)
    foes = [t for t in b.seats if t != seat]
    companions = [sk for sk in core.skills_of(s, camp, "on_magecraft") if usable_skill(s, camp, sk)]
    out: list[Action] = []
    for timing in timings:
        for skill in core.skills_of(s, camp, timing):
            if not usable_skill(s, camp, skill):
                continue
            targets = [-1] if skill.target != "enemy" else [  # no stacking on the foe either
                t for t in foes if not core.buff_active(s.camps[t], skill.id, seat)]
            for t in targets:
                out.append(UseSkill(seat, skill.id, t))
                if skill.magecraft:
                    out.extend(UseSkill(seat, skill.id, t, extra.id) for extra in companions
                               if core.can_pay_skills(camp, skill, extra))
    return out


def use_skill(s: GameState, action: UseSkill) -> None:
    """The skill on its target, then its on-magecraft companion (if any) on its own: a
    self-targeted companion such as Kantele Echo helps the caster, never the enemy."""
    seat = action.seat
    run_skill(s, seat, s.rules.skills[action.skill], action.target)
    if action.extra:
        extra = s.rules.skills[action.extra]
        run_skill(s, seat, extra, action.target if extra.target == "enemy" else -1)


def run_skill(s: GameState, seat: int, skill: Skill, target: int) -> None:
    """Pay, check (1d100 <= value), then apply to self or the chosen enemy."""
    camp = s.edit(seat)
    camp.skills_used = camp.skills_used | {skill.id}
    core.pay_skill(s, seat, skill)
    core.emit(s, "SkillUsed", frozenset({seat}), {"seat": seat, "skill": None},
              seat=seat, skill=skill.id, target=target)
    bonus = core.mod(s, s.camps[seat], "skill_check")
    void = False
    for m in s.modules:
        bonus += m.skill_check(s, seat, skill, target)
        void = void or m.skill_void(s, seat, skill, target)
    if not core.skill_check(s, seat, skill, bonus):
        core.emit(s, "SkillFailed", seat=seat)
        return
    if void:  # immunity: the caster's roll stood, the effect does nothing (seed 003 P4.3)
        core.emit(s, "SkillResisted", seat=seat, target=target)
        return
    if target >= len(s.camps):  # no seat: the module that offered it applies it
        for m in s.modules:
            m.skill_on_other(s, seat, skill, target)
        return
    who = target if target >= 0 else seat
    core.apply_effect(s, who, skill.effect, skill.id, skill.duration, removable=True,
                      debuff=target >= 0, owner=seat,
                      source_kind="magecraft" if skill.magecraft and target >= 0 else "effect")


# --- Command Spells --------------------------------------------------------------------------
class SpellSpecial(NamedTuple):
    """What a Command Spell with a `special` does: the actions it offers a seat that can pay
    its strokes now (`in_main`: at the seat's own Main Action), and how it is cast (after the
    strokes are spent and CommandSpellUsed is announced)."""

    actions: Callable[[GameState, int, CommandSpell, bool], Iterable[Action]]
    cast: Callable[[GameState, UseCommandSpell, CommandSpell], None]


SPECIALS: dict[str | None, SpellSpecial] = {}


def register_special(name: str | None, special: SpellSpecial) -> None:
    """Give the Command Spell data a `special` (None: an ordinary spell with an effect)."""
    if name is not None:
        extend_vocabulary("spell_specials", name)
    SPECIALS[name] = special


def spell_table(s: GameState) -> Mapping[str, CommandSpell]:
    """The Command Spells of this game: the base's, then those of the modules switched on (the
    seed 002's eight); with no module on, exactly the base table. Made once per rules and
    modules (they are shared by every game with the same options: `modules.instances`):
    every declaration offer reads it."""
    if not s.modules:
        return s.rules.command_spells
    key = (id(s.rules), s.modules)
    hit = _TABLES.get(key)
    if hit is None:
        extra = [m.command_spells() for m in s.modules]
        table = s.rules.command_spells
        if any(extra):
            table = dict(table)
            for spells in extra:
                table.update(spells)
        hit = _TABLES[key] = (s.rules, table)  # the rules kept: their id stays theirs
    return hit[1]


_TABLES: dict[tuple, tuple[object, Mapping[str, CommandSpell]]] = {}


def command_spell_actions(s: GameState, seat: int, in_main: bool = False,
                          in_battle: bool | None = None) -> list[Action]:
    """Every Command Spell this seat may cast now (never while its Master sleeps); a module's
    battle (seed 003's raid) says `in_battle` itself."""
    camp = s.camps[seat]
    if camp.asleep or camp.spells <= 0:
        return []
    if in_battle is None:
        in_battle = s.battle is not None and seat in s.battle.seats
    out: list[Action] = []
    for spell in spell_table(s).values():
        if spell.cost > camp.spells or (spell.when == "battle" and not in_battle):
            continue
        out.extend(SPECIALS[spell.special].actions(s, seat, spell, in_main))
    return out


def use_command_spell(s: GameState, action: UseCommandSpell) -> None:
    seat = action.seat
    spell = spell_table(s)[action.spell]
    camp = s.edit(seat)
    camp.spells -= spell.cost
    core.emit(s, "CommandSpellUsed", seat=seat, spell=spell.id, left=camp.spells)
    SPECIALS[spell.special].cast(s, action, spell)


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


def _once(s: GameState, seat: int, spell: CommandSpell, _in_main: bool) -> list[Action]:
    """An ordinary spell is not cast again while its effect is on."""
    return [] if core.buff_active(s.camps[seat], "cs:" + spell.id) else [
        UseCommandSpell(seat, spell.id)]


def _cast_effect(s: GameState, action: UseCommandSpell, spell: CommandSpell) -> None:
    core.apply_effect(s, action.seat, spell.effect, "cs:" + spell.id, spell.duration,
                      removable=False)


def _war_roar_actions(s: GameState, seat: int, spell: CommandSpell,
                      in_main: bool) -> list[Action]:
    camp = s.camps[seat]
    running = s.battle is not None and camp.disengage_round == s.battle.round
    if in_main and not camp.war_roar and not running and camp.servant.np.kind != "constant":
        return [UseCommandSpell(seat, spell.id)]
    return []


def _cast_war_roar(s: GameState, action: UseCommandSpell, _spell: CommandSpell) -> None:
    s.edit(action.seat).war_roar = True


def _cast_refine(s: GameState, action: UseCommandSpell, _spell: CommandSpell) -> None:
    s.edit(action.seat).hand = action.arg


def _cast_suicide(s: GameState, action: UseCommandSpell, _spell: CommandSpell) -> None:
    core.take_damage(s, action.seat, 500, lethal_rescue=False)


register_special(None, SpellSpecial(_once, _cast_effect))
register_special("war_roar", SpellSpecial(_war_roar_actions, _cast_war_roar))
register_special("refine", SpellSpecial(
    lambda s, seat, spell, _m: _spell_args(seat, spell.id, _SIX_CARDS), _cast_refine))
register_special("suicide", SpellSpecial(
    lambda s, seat, spell, _m: [UseCommandSpell(seat, spell.id)], _cast_suicide))
