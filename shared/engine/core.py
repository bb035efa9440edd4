"""Mechanics shared by the turn and battle rules: dice, checks, modifiers, MP, damage, death.

Every function takes the state it changes; dice go through `roll`, which consumes forced faces
first and records a `DiceRolled` event for the dice log.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from . import dice
from .data import CLASSES, CityMap, Dice, Effect, Skill
from .errors import IllegalActionError
from .events import Event
from .state import ActiveBuff, Camp, GameState

CARD_ORDER = "BAQ"
COUNTER = {"B": "Q", "A": "B", "Q": "A"}  # the normal defense that answers each attack card
CHECK_STAT = {"B": "str", "A": "end", "Q": "agi", "L": "luk"}


# --- events and dice ---------------------------------------------------------------------------
def emit(
    s: GameState,
    event_type: str,
    private: frozenset[int] | None = None,
    public: dict[str, Any] | None = None,
    /,
    **data: Any,
) -> None:
    """Record an event; `private` seats see `data`, everyone else `public` (None: nothing)."""
    s.events.append(Event(event_type, data, private, public))


def roll(s: GameState, count: int, sides: int) -> list[int]:
    """Roll count d sides, forced faces first (a forced face that cannot fit is an error)."""
    faces = []
    for _ in range(count):
        if s.forced:
            value, s.forced = s.forced[0], s.forced[1:]
            if not 1 <= value <= sides:
                raise IllegalActionError(f"forced die {value} does not fit a d{sides}")
        else:
            s.rng, value = dice.face(s.rng, sides)
        faces.append(value)
    return faces


def roll_dice(
    s: GameState, d: Dice, seat: int, purpose: str, private: frozenset[int] | None = None
) -> int:
    """Roll a data Dice (e.g. 3d10+5), log it, and return the total (a fixed amount such as
    a Command Spell's 150 is no roll and is not logged)."""
    if not d.count:
        return d.bonus
    faces = roll(s, d.count, d.sides)
    total = sum(faces) + d.bonus
    data = dict(seat=seat, purpose=purpose, dice=f"{d.count}D{d.sides}", faces=faces,
                mod=d.bonus, total=total, target=None, result="")
    public = {**data, "faces": [], "total": None} if private is not None else None
    emit(s, "DiceRolled", private, public, **data)
    return total


class Check(NamedTuple):
    """A 2d6 check: natural sum, modified total, and whether it is critical or a fumble."""

    natural: int
    total: int
    critical: bool
    fumble: bool


def check_2d6(
    s: GameState,
    seat: int,
    purpose: str,
    mod: int,
    crit_bonus: int = 0,
    special: bool = True,
    target: int | None = None,
    private: frozenset[int] | None = None,
    parts: list[tuple[str, int]] | None = None,
) -> Check:
    """Roll 2d6 + mod. `special` False: no critical or fumble (NP reactions, investigation).
    `parts`, where `mod` has more than one, say where it came from (the event's `parts`)."""
    faces = roll(s, 2, 6)
    natural = faces[0] + faces[1]
    total = natural + mod
    fumble = special and natural == 2
    critical = special and not fumble and natural >= 12 - min(crit_bonus, 10)
    if critical:
        result = "critical"
    elif fumble:
        result = "fumble"
    elif target is not None:
        result = "success" if total >= target else "failure"
    else:
        result = ""
    data = dict(seat=seat, purpose=purpose, dice="2D6", faces=faces, mod=mod, total=total,
                target=target, result=result)
    if parts and len(parts) > 1:
        data["parts"] = [list(p) for p in parts]
    emit(s, "DiceRolled", private, None, **data)
    return Check(natural, total, critical, fumble)


def attacker_wins(att: Check, dfn: Check) -> bool:
    """Opposed check: criticals win, fumbles lose, a natural 2 beats a widened critical,
    two criticals or two fumbles compare totals; every tie goes to the defender."""
    if att.fumble != dfn.fumble:
        return dfn.fumble
    if att.critical != dfn.critical:
        return att.critical
    return att.total > dfn.total


def skill_check(s: GameState, seat: int, skill: Skill, bonus: int) -> bool:
    """1d100 at or under the skill's value (plus skill_check modifiers) succeeds.

    The value identifies the skill, and the face with the result bounds the value, so only
    those who know the skill see either; the others see the result, which the skill's effect
    (or SkillFailed) shows anyway."""
    if skill.check is None:
        return True
    face = roll(s, 1, s.rules.numbers.skill_die)[0]
    value = skill.check + bonus
    ok = face <= value
    data = dict(seat=seat, purpose="skill", dice="1D100", faces=[face], mod=0, total=face,
                target=value, result="success" if ok else "failure")
    public = {**data, "faces": [], "total": None, "target": None}
    emit(s, "DiceRolled", skill_viewers(s, seat, skill), public, **data)
    return ok


def knowers(s: GameState, seat: int, tier: int) -> frozenset[int]:
    """The camp itself and the seats whose investigation of it reached `tier` (1: cards and
    skills, 2: Noble Phantasm and true name, 3: profile and weakness)."""
    idx = CLASSES.index(s.camps[seat].cls)
    return frozenset({seat} | {c.seat for c in s.camps if c.known[idx] >= tier})


def skill_viewers(s: GameState, seat: int, skill: Skill) -> frozenset[int]:
    """Who knows a skill's sheet: a Servant skill is revealed at tier 1; no investigation
    reveals a Master's skills."""
    return frozenset({seat}) if skill.owner == "master" else knowers(s, seat, 1)


# --- modifiers ---------------------------------------------------------------------------------
_CONSTANT: dict[tuple[int, int, int, bool], tuple[Any, dict[str, int]]] = {}


def constant_mods(s: GameState, camp: Camp) -> dict[str, int]:
    """Mods that are always on: constant skills and a constant Noble Phantasm's own effect.

    Cached per (servant, master, skills table, unlocked); the cached entry keeps the objects
    alive so their ids cannot be reused by other data.
    """
    key = (id(camp.servant), id(camp.master), id(s.rules.skills), camp.unlocked)
    hit = _CONSTANT.get(key)
    if hit is not None:
        return hit[1]
    total: dict[str, int] = {}
    sources = [s.rules.skills[sid] for sid in skill_ids(camp)]
    effects = [sk.effect for sk in sources if sk.timing == "constant"]
    if camp.servant.np.kind == "constant":
        effects.append(camp.servant.np.self_effect)
    for effect in effects:
        for name, value in effect.mods:
            total[name] = total.get(name, 0) + value
    _CONSTANT[key] = ((camp.servant, camp.master, s.rules.skills), total)
    return total


def skill_ids(camp: Camp) -> tuple[str, ...]:
    """The Servant's skills and the Master's, the 4th Master skill once unlocked."""
    master = camp.master.skills if camp.unlocked else camp.master.skills[:3]
    return (*camp.servant.skills, *master)


def mod(s: GameState, camp: Camp, key: str) -> int:
    """A modifier from every source: active buffs, constant skills and Noble Phantasm, and
    the modules switched on."""
    value = camp.mod(key) + constant_mods(s, camp).get(key, 0)
    for m in s.modules:
        value += m.modifier(s, camp, key)
    return value


def composition(s: GameState, camp: Camp) -> str:
    """The cards the camp's hand is filled from: its sheet's, or what a module makes of them."""
    cards = camp.servant.cards
    for m in s.modules:
        cards = m.composition(s, camp.seat, cards)
    return cards


def max_hp(s: GameState, camp: Camp) -> int:
    """The Servant's maximum HP: the sheet's plus the module-only mod key `max_hp` (growth and
    items of seed 002; no data uses the key, so it is 0 in every base game)."""
    return camp.servant.hp + mod(s, camp, "max_hp")


def max_mp(s: GameState, camp: Camp) -> int:
    return camp.servant.mp + mod(s, camp, "max_mp")


def max_master_mp(s: GameState, camp: Camp) -> int:
    return camp.master.mp + mod(s, camp, "max_master_mp")


def module_damage(s: GameState, seat: int, amount: int, source: str) -> int:
    """Damage after the modules' say (seed 003's Endure halves magecraft damage)."""
    for m in s.modules:
        amount = m.damage(s, seat, amount, source)
    return amount


def city(s: GameState) -> CityMap:
    return s.rules.maps[s.settings.map_id]


def param(s: GameState, camp: Camp, key: str) -> int:
    """A parameter (str, end, agi, mag, luk, np) with its buffs."""
    return camp.servant.params[key] + mod(s, camp, key)


def stat_bonus(s: GameState, camp: Camp, stat: str) -> int:
    """A parameter's share of a 2d6 check: stat / 10 (Luck / 20)."""
    return param(s, camp, stat) // (20 if stat == "luk" else 10)


def check_mod(s: GameState, camp: Camp, stat: str) -> int:
    """The bonus a 2d6 check adds: `stat_bonus`, plus all-check modifiers."""
    value = stat_bonus(s, camp, stat) + mod(s, camp, "checks")
    if camp.disengage_round >= 0 and s.battle and camp.disengage_round == s.battle.round:
        value += s.rules.numbers.disengage_checks
    return value


def movement(s: GameState, camp: Camp) -> int:
    value = camp.servant.movement + mod(s, camp, "movement")
    if camp.disengage_round >= 0 and s.battle and camp.disengage_round == s.battle.round:
        value += s.rules.numbers.disengage_movement
    return value


def has_flag(s: GameState, camp: Camp, key: str) -> bool:
    return mod(s, camp, key) > 0


# --- cards ---------------------------------------------------------------------------------------
def sort_cards(cards: str) -> str:
    return "".join(sorted(cards, key=CARD_ORDER.index))


def spend_card(s: GameState, seat: int, card: str) -> None:
    """Spend one card and take its benefit: Buster +5 stored damage, Arts +3 MP, Quick +1 crit."""
    if not card:
        return
    camp = s.edit(seat)
    camp.hand = camp.hand.replace(card, "", 1)
    n = s.rules.numbers
    if card == "B":
        camp.buster = min(camp.buster + n.buster_bonus, n.buster_cap)
    elif card == "A":
        gain_mp(s, seat, n.arts_mp)
    else:
        camp.quick = min(camp.quick + 1, n.quick_crit_cap)


# --- HP, MP, death -------------------------------------------------------------------------------
def heal(s: GameState, seat: int, amount: int) -> int:
    camp = s.edit(seat)
    before = camp.hp
    camp.hp = min(max_hp(s, camp), camp.hp + max(amount, 0))
    return camp.hp - before


def gain_mp(s: GameState, seat: int, amount: int) -> int:
    camp = s.edit(seat)
    before = camp.mp
    camp.mp = min(max_mp(s, camp), camp.mp + max(amount, 0))
    return camp.mp - before


def master_mp_open(camp: Camp) -> bool:
    """Seed 000 §15: "If all Command Spells are lost, the Master's MP can no longer be used"
    (and a module may close the draw: `Camp.draw_open`)."""
    return camp.spells > 0 and camp.draw_open


def can_pay(camp: Camp, amount: int, master_share: int = 0) -> bool:
    """Whether the Servant can pay `amount` and still be kept (a Servant left at 0 MP vanishes
    unless its Master can top it up); `master_share` is what the Master pays from its own MP at
    the same time. Both draws on the Master's MP need it open (a Command Spell left)."""
    left = camp.master_mp - master_share
    if left < 0 or (master_share and not master_mp_open(camp)):
        return False
    if camp.mp > amount:
        return True
    return master_mp_open(camp) and camp.mp + left > amount


def can_pay_skills(camp: Camp, *skills: Skill) -> bool:
    """Master skills are paid from the Master's MP, a Servant's from its own (and its Master's);
    a magecraft skill used with an on-magecraft companion must afford both. A Master skill needs
    the Master's MP open even when it costs none: it is the Master's mana at work (§15)."""
    servant_mp = master_mp = 0
    for sk in skills:
        if sk.owner == "master":
            if not master_mp_open(camp):
                return False
            master_mp += sk.mp
        else:
            servant_mp += sk.mp
    return can_pay(camp, servant_mp, master_mp)


def pay_mp(s: GameState, seat: int, amount: int) -> None:
    """Pay from the Servant's MP, the Master covering the rest; an empty Servant may vanish."""
    camp = s.edit(seat)
    own = min(camp.mp, amount)
    camp.mp -= own
    camp.master_mp -= amount - own
    check_mp(s, seat)


def pay_skill(s: GameState, seat: int, skill: Skill) -> None:
    """A Master skill is paid from the Master's MP, a Servant skill like any Servant cost."""
    if skill.owner == "master":
        s.edit(seat).master_mp -= skill.mp
    else:
        pay_mp(s, seat, skill.mp)


def lose_mp(s: GameState, seat: int, amount: int) -> None:
    camp = s.edit(seat)
    camp.mp = max(0, camp.mp - amount)
    check_mp(s, seat)


def check_mp(s: GameState, seat: int) -> None:
    """A Servant at 0 MP is kept by its Master's MP, or vanishes (seed 000 §16)."""
    camp = s.camps[seat]
    if not camp.alive or camp.mp > 0:
        return
    if master_mp_open(camp) and camp.master_mp > 0:
        camp = s.edit(seat)
        moved = min(s.rules.numbers.master_transfer, camp.master_mp)
        camp.master_mp -= moved
        camp.mp += moved
        emit(s, "MasterSuppliedMana", frozenset({seat}), {"seat": seat}, seat=seat, amount=moved)
    else:
        kill(s, seat, "vanished")


def take_damage(s: GameState, seat: int, amount: int, lethal_rescue: bool = True) -> None:
    """Lose HP; at 0 or below Guts (or a lethal-trigger skill) may hold the Servant up."""
    camp = s.edit(seat)
    camp.hp -= max(amount, 0)
    if camp.hp > 0:
        return
    if lethal_rescue:
        for buff in camp.buffs:
            if buff.effect.mod("guts") > 0:
                camp.buffs = tuple(b for b in camp.buffs if b is not buff)
                camp.hp = buff.effect.mod("guts")
                emit(s, "GutsTriggered", seat=seat, hp=camp.hp)
                return
        for skill in skills_of(s, camp, "automatic"):
            if skill.trigger == "lethal" and skill.id not in camp.skills_used and not (
                    skill.owner == "master" and camp.asleep) and can_pay_skills(camp, skill):
                camp.skills_used = camp.skills_used | {skill.id}
                pay_skill(s, seat, skill)
                camp = s.edit(seat)
                if skill_check(s, seat, skill, mod(s, camp, "skill_check")):
                    camp.hp = max(1, skill.effect.mod("guts"))
                    emit(s, "SkillTriggered", frozenset({seat}), {"seat": seat, "hp": camp.hp},
                         seat=seat, skill=skill.id, hp=camp.hp)
                    return
        if any(m.rescue(s, seat) for m in s.modules):
            return
    camp.hp = 0
    kill(s, seat, "slain")


def kill(s: GameState, seat: int, how: str, judge: bool = True) -> None:
    camp = s.edit(seat)
    camp.alive = False
    camp.hp = min(camp.hp, 0) if how != "vanished" else camp.hp
    emit(s, "ServantDied", seat=seat, cls=camp.cls, how=how)
    if judge:
        judge_victory(s)


def judge_victory(s: GameState) -> None:
    """The last camp with a living Servant obtains the Grail; if none is left, nobody does. A
    module may judge instead (seed 003's cooperative raid room has no Grail to win)."""
    if any(m.judge(s) for m in s.modules):
        return
    survivors = s.living
    if len(survivors) <= 1 and not s.over:
        s.over = True
        s.winner = survivors[0] if survivors else -1
        s.phase = "over"
        emit(s, "GameEnded", winner=s.winner, reason="last_servant" if survivors else "all_dead")


# --- skills and effects --------------------------------------------------------------------------
def skills_of(s: GameState, camp: Camp, timing: str) -> list[Skill]:
    """The camp's skills (Servant's, and Master's with the 4th once unlocked) of one timing."""
    table = s.rules.skills
    return [table[sid] for sid in skill_ids(camp) if table[sid].timing == timing]


def apply_effect(
    s: GameState, seat: int, effect: Effect, source: str, rounds: int, removable: bool,
    debuff: bool = False, owner: int = -1, source_kind: str = "effect",
) -> None:
    """Instant parts happen now; modifiers become a buff lasting `rounds` (0 = none).
    `source_kind` tells modules what the damage comes from ("magecraft" for a hostile spell)."""
    if effect.heal_hp is not None:
        heal(s, seat, roll_dice(s, effect.heal_hp, seat, "heal"))
    if effect.heal_mp is not None:
        gain_mp(s, seat, roll_dice(s, effect.heal_mp, seat, "mana", frozenset({seat})))
    if effect.gain_cards:
        camp = s.edit(seat)
        camp.hand = sort_cards(camp.hand + effect.gain_cards)
    if effect.remove_debuffs:
        camp = s.edit(seat)
        camp.buffs = tuple(b for b in camp.buffs if not b.debuff)
    if effect.strip_buffs:
        camp = s.edit(seat)
        camp.buffs = tuple(b for b in camp.buffs if not b.removable or b.debuff)
    if effect.damage is not None:
        amount = roll_dice(s, effect.damage, seat, "effect_damage")
        take_damage(s, seat, module_damage(s, seat, amount, source_kind))
    if effect.mods and rounds != 0 and s.camps[seat].alive:
        camp = s.edit(seat)
        camp.buffs = (*camp.buffs, ActiveBuff(source, effect, rounds, removable, debuff,
                                                 seat if owner < 0 else owner))


def buff_active(camp: Camp, source: str, owner: int | None = None) -> bool:
    """Whether a buff of `source` that `owner` (default: the camp itself) gave is on `camp`.
    An effect does not stack with itself; the same skill of another camp is another effect
    (and the caster may not know its name, so it must not change what the caster may do)."""
    owner = camp.seat if owner is None else owner
    for b in camp.buffs:  # noqa: SIM110 (asked at every declaration: no generator made)
        if b.source == source and b.owner == owner:
            return True
    return False
