"""Command Spells (seed 000 §Combat 15; docs/rules.md §6): what each of the 21 does, what it
costs, when it may be cast, and that its buffs cannot be stripped.

Saber (seat 0, the faster) against Caster (seat 1) with `bare()` rules (no skills), dice forced;
expected values come from command_spells.toml and rules.toml.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from grailwar.shared.engine import default_action, legal_actions
from grailwar.shared.engine.actions import (
    AnswerIntervention,
    Attack,
    ChooseReward,
    DeclareEncounter,
    DeclareNoblePhantasm,
    DeclareRest,
    DeclareSkill,
    DeclareWait,
    Move,
    OfferTruce,
    React,
    UseCommandSpell,
    UseNoblePhantasm,
    UseSkill,
    Wait,
)
from grailwar.shared.engine.data import NO_EFFECT, Effect, Skill, Text, default_ruleset
from grailwar.shared.engine.geometry import distance
from grailwar.shared.engine.state import GameState
from helpers import (
    act_all,
    bare,
    duel,
    faces,
    fight,
    find,
    game,
    only,
    place,
    ready_all,
    rolls,
    tweak,
    wait_round,
)

R = bare()
N = R.numbers
CS = R.command_spells
PAIR = ("saber", "caster")
SQUARE = 10
STAT = {"B": "str", "A": "end", "Q": "agi", "L": "luk"}
SABER_NP = dict(kind="attack", card="B", cards=2, charge=0, range=0, mp=70,
                self_effect=NO_EFFECT, target_effect=NO_EFFECT)
RNP = tweak(R, "saber", np=SABER_NP)

# docs/rules.md §6, in the seed's order: spell -> (strokes, when).
RULEBOOK = {
    "hp_recovery": (1, "any"), "mp_recovery": (1, "any"), "fighting_spirit": (1, "battle"),
    "defense_up": (1, "battle"), "ability_up": (1, "battle"), "retreat": (2, "battle"),
    "suicide": (1, "any"), "debuff_removal": (1, "any"), "concentration": (1, "battle"),
    "technique_up": (1, "battle"), "strength_up": (1, "battle"), "endurance_up": (1, "battle"),
    "agility_up": (1, "battle"), "rally": (1, "any"), "unfalling": (1, "battle"),
    "limitless": (1, "battle"), "star_eye": (1, "battle"), "phantasm_surge": (1, "battle"),
    "tactical_refinement": (1, "battle"), "war_roar": (1, "battle"), "teleport": (1, "any"),
}
ANY_TIME = {sid for sid, (_, when) in RULEBOOK.items() if when == "any"}


# --- local helpers -----------------------------------------------------------------------------
def param(s: GameState, seat: int, key: str) -> int:
    return s.camps[seat].servant.params[key]


def dmg(total: int, count: int | None = None) -> list[int]:
    count = count or N.damage_dice.count
    out = [total // count] * count
    out[0] += total - sum(out)
    return out


def full_damage(s: GameState, seat: int, kind: str, roll: int) -> int:
    """Normal damage at melee before reductions, with a paying Buster card's pool."""
    return (roll + param(s, seat, STAT[kind]) // N.damage_stat_divisor + N.card_power[kind]
            + (N.buster_bonus if kind == "B" else 0))


def guard(s: GameState, seat: int, extra_end: int = 0) -> int:
    return (param(s, seat, "end") + extra_end) // N.guard_divisor


def hp_lost(before: GameState, after: GameState, seat: int) -> int:
    return before.camps[seat].hp - after.camps[seat].hp


def spell_ids(s: GameState, seat: int) -> set[str]:
    return {a.spell for a in only(s, seat, UseCommandSpell)}


def cast(s: GameState, seat: int, spell: str, arg: str = "", dice=()) -> GameState:
    s, _ = act_all(s, UseCommandSpell(seat, spell, arg), dice)
    return s


def opening(rules=R) -> GameState:
    s = fight(PAIR, rules)
    assert s.prompt == ("main", {0}), f"Saber should be faster: {s.battle.order}"
    return s


def strike(s: GameState, kind: str = "B", card: str | None = None, seat: int = 0,
           target: int = 1, hit: int = 7, extra=()) -> tuple[GameState, list]:
    """`seat` attacks; its hit check, rolled with the Attack, shows natural `hit`, then the
    `extra` dice (a fumble's mishap). Returns the Attack's events too."""
    return act_all(s, Attack(seat, target, kind, kind if card is None else card),
                   [*faces(hit), *extra])


def attack(s: GameState, kind: str = "B", card: str | None = None, seat: int = 0,
           target: int = 1, hit: int = 7, extra=()) -> GameState:
    """`strike`, then the defender is asked for its reaction."""
    s, _ = strike(s, kind, card, seat, target, hit, extra)
    assert s.prompt == ("reaction", {target}), s.prompt
    return s


def mods(spell: str) -> dict[str, int]:
    return dict(CS[spell].effect.mods)


def t(name: str) -> Text:
    return Text(name, name, name)


def skill(sid: str, timing: str, *, check: int | None = None, duration: int = 1,
          target: str = "self", effect: Effect | None = None, **mod: int) -> Skill:
    return Skill(sid, t(sid), t(sid), "servant", timing, 0, check, duration, target, False, None,
                 effect or Effect(tuple(sorted(mod.items()))))


def with_skills(rules, cls: str, *skills: Skill):
    rules = replace(rules, skills={**rules.skills, **{k.id: k for k in skills}})
    return tweak(rules, cls, skills=tuple(k.id for k in skills))


def with_masters(rules, *masters: str):
    """`rules` with these Masters' own skills back (`bare` gives every Master inert ones)."""
    real = default_ruleset().masters
    return replace(rules, masters={**rules.masters, **{m: real[m] for m in masters}})


def master_skills_offered(s: GameState, seat: int) -> set[str]:
    """The Master skills `seat` is offered now, in battle (UseSkill) or as a turn action."""
    uses = only(s, seat, UseSkill)
    offered = {a.skill for a in uses} | {a.extra for a in uses}
    offered |= {a.skill for a in only(s, seat, DeclareSkill)}
    return {sid for sid in offered if sid and s.rules.skills[sid].owner == "master"}


# --- costs and availability ----------------------------------------------------------------------
def test_spell_data_matches_the_rulebook_table():
    """The 21 spells of §6 in order, 1 stroke each (Retreat 2), battle/any as in the table."""
    assert [(sid, (sp.cost, sp.when)) for sid, sp in CS.items()] == list(RULEBOOK.items())


@pytest.mark.parametrize("spell", list(RULEBOOK))
def test_casting_a_spell_spends_its_strokes(spell):
    """Each spell, cast in battle at the own main action, spends its cost in strokes."""
    s = opening(RNP)
    action = next(a for a in only(s, 0, UseCommandSpell) if a.spell == spell)
    after, events = act_all(s, action)
    assert s.camps[0].spells - after.camps[0].spells == RULEBOOK[spell][0]
    assert find(events, "CommandSpellUsed")[0].data["spell"] == spell


def test_outside_battle_only_any_time_spells_are_offered():
    """At the declaration prompt only the spells marked "any" can be cast."""
    s = game(PAIR, rules=R)
    assert s.prompt.kind == "declare"
    assert spell_ids(s, 0) == ANY_TIME


def test_spells_need_enough_strokes():
    """With one stroke left Retreat (2) is not offered; with none, no spell is."""
    s = opening()
    s.edit(0).spells = 1
    assert "retreat" not in spell_ids(s, 0) and "teleport" in spell_ids(s, 0)
    s.edit(0).spells = 0
    assert spell_ids(s, 0) == set()


def test_no_spells_while_the_master_sleeps():
    """A Master who did not rest on day 1 sleeps on day 2: no Command Spell at all."""
    s = game(PAIR, rules=R)
    while s.day == 1:
        for seat in sorted(s.prompt.seats):
            s, _ = act_all(s, DeclareWait(seat))
    assert s.prompt.kind == "declare" and all(c.asleep for c in s.camps)
    assert {type(a) for a in legal_actions(s, 0)} == {DeclareWait, DeclareRest}


def test_no_spells_in_battle_while_the_master_sleeps():
    """A sleeping Master casts nothing in a battle either."""
    s = game(PAIR, rules=R)
    place(s, 0, SQUARE)
    place(s, 1, SQUARE)
    s.edit(1).asleep = True
    s, _ = act_all(s, DeclareEncounter(0, 1, "battle"))
    assert s.prompt.kind == "round_start"
    assert spell_ids(s, 1) == set() and spell_ids(s, 0)


def test_spells_at_round_start_main_and_reaction_prompts():
    """Battle spells are offered at the round-start, main-action and reaction prompts."""
    s = duel(PAIR, rules=R)
    battle_spells = set(RULEBOOK) - {"war_roar"}  # War Roar: main action only
    assert spell_ids(s, 0) == battle_spells
    s = ready_all(s)
    assert spell_ids(s, 0) == set(RULEBOOK)
    s = attack(s)
    assert spell_ids(s, 1) == battle_spells


def test_spells_at_the_critical_reward_prompt():
    """Spells can be cast at any prompt the seat receives, a critical reward too (§6, Q43);
    casting one does not take the reward's place."""
    s, _ = strike(opening(), "L", "", hit=12)
    assert s.prompt == ("critical", {0})
    assert spell_ids(s, 0) == set(RULEBOOK) - {"war_roar"}, "no Command Spell at the reward"
    s = cast(s, 0, "concentration")
    assert s.prompt == ("critical", {0}) and s.camps[0].mod("hit") == mods("concentration")["hit"]
    s, _ = act_all(s, ChooseReward(0, "card:B"))
    assert s.prompt == ("reaction", {1})
    # the defender's reward, after its reaction, offers its spells as well
    s, _ = act_all(attack(opening(), hit=11), React(1, "Q", "Q"), [6, 6])
    assert s.prompt == ("critical", {1}) and "hp_recovery" in spell_ids(s, 1)


def test_spells_at_the_intervention_prompt():
    """Spells can be cast at any prompt the seat receives, an intervention offer too (§6)."""
    s = game(("saber", "caster", "archer"), rules=R)
    for seat in (0, 1, 2):
        place(s, seat, SQUARE)
    s, _ = act_all(s, DeclareEncounter(0, 1, "battle"))
    s, _ = act_all(s, DeclareWait(2))
    assert s.prompt == ("intervene", {2})
    assert spell_ids(s, 2) == ANY_TIME, "no Command Spell at the intervention prompt"
    s.edit(2).asleep = True
    assert spell_ids(s, 2) == set()
    s.edit(2).asleep = False
    s, _ = act_all(s, AnswerIntervention(2, True))
    assert "fighting_spirit" in spell_ids(s, 2)  # a combatant now: battle spells too


# --- one test per spell ------------------------------------------------------------------------
@pytest.mark.parametrize(("spell", "pool"), [("hp_recovery", "hp"), ("mp_recovery", "mp")])
@pytest.mark.parametrize("missing", [160, 20])
def test_recovery_spells_restore_150_capped(spell, pool, missing):
    """HP / MP Recovery: +150, never beyond the maximum."""
    amount = getattr(CS[spell].effect, "heal_" + pool).bonus
    s = opening()
    camp = s.edit(0)
    setattr(camp, pool, getattr(camp.servant, pool) - missing)
    after = cast(s, 0, spell)
    assert getattr(after.camps[0], pool) - getattr(s.camps[0], pool) == min(amount, missing)


def test_fighting_spirit_adds_25_damage_for_the_round():
    """Fighting Spirit Up: +25 damage dealt, for this round only."""
    s = cast(opening(), 0, "fighting_spirit")
    s2 = attack(s)
    after, _ = act_all(s2, React(1, "G", ""), dmg(10))
    expected = full_damage(s, 0, "B", 10) + mods("fighting_spirit")["damage_dealt"] - guard(s, 1)
    assert hp_lost(s2, after, 1) == expected
    assert wait_round(after).camps[0].mod("damage_dealt") == 0


@pytest.mark.parametrize("kind", ["B", "L"])
def test_defense_up_subtracts_25_after_guard_never_below_0(kind):
    """Defense Up, cast at the reaction prompt: −25 damage taken after Guard, minimum 0."""
    s = attack(opening(), kind, "" if kind == "L" else None)
    s = cast(s, 1, "defense_up")
    after, events = act_all(s, React(1, "G", ""), dmg(2))
    raw = full_damage(s, 0, kind, 2) - guard(s, 1) + mods("defense_up")["damage_taken"]
    if kind == "L":
        assert raw < 0
    assert hp_lost(s, after, 1) == max(0, raw)
    assert find(events, "DamageDealt")[0].data["amount"] == max(0, raw)


def test_ability_up_adds_5_to_check_totals():
    """Ability Up: +5 to every 2d6 check total (here the hit check)."""
    s, events = strike(cast(opening(), 0, "ability_up"))
    assert rolls(events, "hit")[0]["mod"] == param(s, 0, "str") // 10 + mods("ability_up")[
        "checks"]
    _, events = act_all(s, React(1, "Q", "Q"), [*faces(5), *dmg(10)])
    assert rolls(events, "defense")[0]["mod"] == param(s, 1, "agi") // 10


@pytest.mark.parametrize("ability_up", [True, False])
def test_ability_up_raises_skill_check_values_by_10(ability_up):
    """Ability Up: a skill check succeeds on up to 10 more (roll-under 1d100)."""
    own = skill("t_own", "own_activation", check=50, hit=1)
    s = opening(with_skills(R, "saber", own))
    if ability_up:
        s = cast(s, 0, "ability_up")
    roll = own.check + mods("ability_up")["skill_check"]
    after, events = act_all(s, UseSkill(0, "t_own"), [roll])
    assert bool(find(events, "SkillFailed")) is not ability_up
    assert (after.camps[0].mod("hit") == 1) is ability_up


def test_retreat_leaves_the_battle_for_any_square_at_once():
    """Retreat (2 strokes) leaves the battle at once for any square, even from a reaction."""
    s = attack(opening(), seat=0)
    assert "retreat" in spell_ids(s, 1)
    s = opening()
    to = 0
    after, events = act_all(s, UseCommandSpell(0, "retreat", str(to)))
    assert [(e.data["seat"], e.data["how"]) for e in find(events, "LeftBattle")] == [
        (0, "retreat")]
    assert after.battle is None and after.camps[0].pos == to
    assert s.camps[0].spells - after.camps[0].spells == 2


def test_suicide_kills_through_guts_and_invincibility():
    """Self-Destruction kills the own Servant through Rally's Guts and Unfalling."""
    s = duel(PAIR, rules=R)
    s.edit(1).spells = 3
    s = cast(cast(s, 1, "rally"), 1, "unfalling")
    after, events = act_all(s, UseCommandSpell(1, "suicide"))
    assert not after.camps[1].alive
    assert find(events, "ServantDied")[0].data["seat"] == 1
    assert after.over and after.winner == 0


def test_debuff_removal_clears_debuffs_and_keeps_buffs():
    """Debuff Removal takes every debuff off the own Servant and leaves its buffs."""
    s = cast(opening(), 0, "rally")
    s = attack(s, hit=2, extra=[3, 1])  # fumble -> 1d20 debuff no. 1
    assert any(b.debuff for b in s.camps[0].buffs)
    s, _ = act_all(s, React(1, "G", ""))  # the fumbled attack misses: no damage dice
    s, _ = act_all(s, Wait(1))
    after = cast(s, 0, "debuff_removal")
    assert not any(b.debuff for b in after.camps[0].buffs)
    assert [b.source for b in after.camps[0].buffs] == ["cs:rally"]


@pytest.mark.parametrize(("spell", "seat", "purpose", "key"), [
    ("concentration", 0, "hit", "hit"), ("technique_up", 1, "defense", "defense")])
def test_concentration_and_technique_up_add_10(spell, seat, purpose, key):
    """Concentration: +10 to hit checks; Technique Up (cast at the reaction): +10 to defense."""
    s = opening()
    if seat == 0:
        s = cast(s, 0, spell)
    s, attacked = strike(s)
    if seat == 1:
        s = cast(s, 1, spell)
    hits = seat == 0  # +10 to hit lands; +10 to the defense parries
    _, reacted = act_all(s, React(1, "Q", "Q"), faces(5) + (dmg(10) if hits else []))
    assert find(reacted, "AttackResolved")[0].data["hit"] is hits
    base = param(s, 0, "str") // 10 if seat == 0 else param(s, 1, "agi") // 10
    assert rolls(attacked + reacted, purpose)[0]["mod"] == base + mods(spell)[key]


def test_strength_up_raises_hit_and_damage():
    """Strength Up: +50 STR: the Buster hit check +5 and its damage +25."""
    bonus = mods("strength_up")["str"]
    s, events = strike(cast(opening(), 0, "strength_up"))
    assert rolls(events, "hit")[0]["mod"] == (param(s, 0, "str") + bonus) // 10
    after, _ = act_all(s, React(1, "G", ""), dmg(10))
    expected = full_damage(s, 0, "B", 10) + bonus // N.damage_stat_divisor - guard(s, 1)
    assert bonus // N.damage_stat_divisor == 25
    assert hp_lost(s, after, 1) == expected


def test_endurance_up_strengthens_the_guard():
    """Endurance Up (cast at the reaction): +50 END, so Guard takes (END+50)//10."""
    s = cast(attack(opening()), 1, "endurance_up")
    after, _ = act_all(s, React(1, "G", ""), dmg(10))
    expected = full_damage(s, 0, "B", 10) - guard(s, 1, mods("endurance_up")["end"])
    assert hp_lost(s, after, 1) == expected


def test_agility_up_at_round_start_counts_for_that_rounds_initiative():
    """Agility Up cast at a round start puts the slower Servant first for that round."""
    s = cast(duel(PAIR, rules=R), 1, "agility_up")
    s = ready_all(s)
    assert s.battle.order == (1, 0)
    s = ready_all(wait_round(s))
    assert s.battle.order == (0, 1)


def test_rally_guts_30_lasts_across_battles_and_does_not_stack():
    """Rally: Guts 30, not re-castable while held, kept across battles, saves once."""
    s = cast(duel(PAIR, rules=R), 1, "rally")
    assert "rally" not in spell_ids(s, 1)
    for seat in (0, 1):
        s, _ = act_all(s, OfferTruce(seat))
    s = ready_all(s)
    assert s.battle is None and [b.source for b in s.camps[1].buffs] == ["cs:rally"]
    s, _ = act_all(s, DeclareEncounter(0, 1, "battle"))
    s = ready_all(s)
    assert s.prompt == ("main", {0})
    s = attack(s)
    s.edit(1).hp = 1
    after, events = act_all(s, React(1, "G", ""), dmg(10))
    assert after.camps[1].alive and after.camps[1].hp == mods("rally")["guts"]
    assert find(events, "GutsTriggered") and not after.camps[1].buffs


@pytest.mark.parametrize("pierce", [False, True])
def test_unfalling_is_invincible_unless_the_attacker_has_limitless(pierce):
    """Unfalling: attacks deal 0; an attacker with Limitless (Pierce) still deals damage."""
    s = cast(duel(PAIR, rules=R), 1, "unfalling")
    if pierce:
        s = cast(s, 0, "limitless")
    s = attack(ready_all(s))
    after, _ = act_all(s, React(1, "G", ""), dmg(10))
    expected = full_damage(s, 0, "B", 10) - guard(s, 1) if pierce else 0
    assert hp_lost(s, after, 1) == expected


@pytest.mark.parametrize(("natural", "result"), [(3, "critical"), (2, "fumble")])
def test_star_eye_makes_every_natural_3_critical_but_2_stays_a_fumble(natural, result):
    """Star Eye: +10 critical range, so a natural 3 is critical; a natural 2 still fumbles."""
    mishap = [3, 1] if natural == 2 else []
    after, events = strike(cast(opening(), 0, "star_eye"), hit=natural, extra=mishap)
    assert rolls(events, "hit")[0]["result"] == result
    assert after.prompt == (("critical", {0}) if natural == 3 else ("reaction", {1}))
    _, events = strike(opening(), hit=natural, extra=mishap)  # without it: 3 is plain
    assert rolls(events, "hit")[0]["result"] == ("" if natural == 3 else "fumble")


def test_phantasm_surge_adds_50_np_power():
    """Phantasm Surge: +50 to the Noble Phantasm's damage this round."""
    s = duel(PAIR, rules=RNP)
    s, _ = act_all(s, DeclareNoblePhantasm(0, 1))
    s = ready_all(s)
    hits = []
    for surge in (False, True):
        t_ = cast(s, 0, "phantasm_surge") if surge else s
        t_, _ = act_all(t_, UseNoblePhantasm(0, 1), faces(7))
        after, _ = act_all(t_, React(1, "G", ""), dmg(10, N.np_damage_dice.count))
        hits.append(hp_lost(t_, after, 1))
    assert hits[1] - hits[0] == mods("phantasm_surge")["np_power"]


def test_tactical_refinement_sets_the_hand_until_the_refill():
    """Tactical Refinement: the hand becomes the 6 chosen cards, discarded at the next refill."""
    s = cast(opening(), 0, "tactical_refinement", "BBBBAQ")
    assert s.camps[0].hand == "BBBBAQ"
    assert len({a.arg for a in only(opening(), 0, UseCommandSpell)
                if a.spell == "tactical_refinement"}) == 28  # every 6-card B/A/Q hand
    while s.battle.round <= N.hand_refill_every:
        s = wait_round(s)
    assert s.camps[0].hand == s.camps[0].servant.cards


def test_war_roar_fires_the_np_without_declaration_or_charge():
    """War Roar fires the NP now, undeclared and uncharged, paid; unused it lapses."""
    rules = tweak(RNP, "saber", np={"charge": 2})
    s = opening(rules)
    assert not only(s, 0, UseNoblePhantasm)
    assert "war_roar" not in spell_ids(duel(PAIR, rules=rules), 0)
    roared = cast(s, 0, "war_roar")
    assert only(roared, 0, UseNoblePhantasm) == [UseNoblePhantasm(0, 1)]
    after, _ = act_all(roared, UseNoblePhantasm(0, 1), faces(7))
    np = s.camps[0].servant.np
    assert s.camps[0].mp - after.camps[0].mp == np.mp
    assert after.camps[0].hand == s.camps[0].hand.replace(np.card, "", np.cards)
    assert after.prompt == ("reaction", {1})
    later, _ = act_all(roared, Wait(0))
    later = ready_all(wait_round(later))
    assert not only(later, 0, UseNoblePhantasm)


def test_teleport_outside_battle_keeps_the_turn_move_and_action():
    """Teleport in the declaration window moves the camp; its Move and action remain."""
    s = game(PAIR, rules=R)
    to = next(q for q in range(10) if q != s.camps[0].pos)
    after = cast(s, 0, "teleport", str(to))
    assert after.camps[0].pos == to
    assert after.prompt.kind == "declare" and 0 in after.prompt.seats
    assert only(after, 0, Move) and DeclareWait(0) in legal_actions(after, 0)


def test_teleport_in_battle_only_moves_and_retreat_leaves():
    """Teleport cast in a battle moves the camp (1 stroke) but it stays in the battle, the
    battlefield being the city; Retreat (2 strokes) is the way out."""
    s = opening()
    grid = s.rules.maps[s.settings.map_id]
    to = next(q for q in range(20) if distance(grid, q, SQUARE) > N.ranged_max)
    after, events = act_all(s, UseCommandSpell(0, "teleport", str(to)))
    assert not find(events, "LeftBattle") and not find(events, "BattleEnded")
    assert after.battle is not None and after.battle.seats == (0, 1)
    assert after.camps[0].pos == to
    assert s.camps[0].spells - after.camps[0].spells == 1
    assert after.prompt == ("main", {0})  # the spell is not the main action
    assert not only(after, 0, Attack)  # out of reach, but still a combatant
    after, _ = act_all(after, Wait(0))
    assert after.prompt == ("main", {1}) and after.battle.seats == (0, 1)
    after, events = act_all(s, UseCommandSpell(0, "retreat", str(to)))
    assert [(e.data["seat"], e.data["how"]) for e in find(events, "LeftBattle")] == [
        (0, "retreat")]
    assert after.battle is None and after.camps[0].pos == to


# --- spell buffs ---------------------------------------------------------------------------------
def test_spell_buffs_cannot_be_stripped():
    """Buff removal takes a skill's buff off but not a Command Spell's."""
    edge = skill("t_edge", "optional", duration=2, damage_dealt=10)
    strip = skill("t_strip", "optional", target="enemy", duration=0,
                  effect=Effect((), strip_buffs=True))
    rules = with_skills(with_skills(R, "saber", edge), "caster", strip)
    s = duel(PAIR, rules=rules)
    s, _ = act_all(s, UseSkill(0, "t_edge"))
    s = cast(s, 0, "strength_up")
    assert {b.source for b in s.camps[0].buffs} == {"t_edge", "cs:strength_up"}
    s, _ = act_all(s, UseSkill(1, "t_strip", 0))
    assert [b.source for b in s.camps[0].buffs] == ["cs:strength_up"]


def test_spell_buffs_last_one_round():
    """A 1-round spell buff ends with the round it was cast in."""
    s = cast(opening(), 0, "concentration")
    assert s.camps[0].mod("hit") == mods("concentration")["hit"]
    assert wait_round(s).camps[0].mod("hit") == 0


def test_default_actions_never_cast_spells():
    """No timeout default spends a stroke."""
    s = duel(PAIR, rules=R)
    assert not isinstance(default_action(s, 0), UseCommandSpell)
    s = attack(ready_all(s))
    assert default_action(s, 1) == React(1, "G", "")


# --- the last stroke spent: the Master's MP is closed (§15) -------------------------------------
@pytest.mark.parametrize("spells", [1, 0])
def test_master_skills_need_a_command_spell_in_battle(spells):
    """"If all Command Spells are lost, the Master's MP can no longer be used": with no stroke
    left none of Koga's battle skills (Healing Magecraft, Reinforcement) is offered; with one
    they are. Baek's on-magecraft companion (Amplified Chant) goes with them."""
    s = duel(PAIR, rules=with_masters(R, "koga", "baek"), masters=("koga", "baek"))
    for seat in (0, 1):
        s.edit(seat).spells = spells
    offered = {0: {"healing_magecraft", "reinforcement"}, 1: {"gale_talisman", "reinforcement",
                                                              "amplified_chant"}}
    for seat in (0, 1):
        assert master_skills_offered(s, seat) == (offered[seat] if spells else set())


@pytest.mark.parametrize("spells", [1, 0])
def test_master_turn_skills_need_a_command_spell(spells):
    """No Master turn-action skill without a stroke, not even Meditation, which costs no MP (it
    fills the Servant from the Master's own mana)."""
    s = game(PAIR, rules=with_masters(R, "koga", "han"), masters=("koga", "han"))
    for seat in (0, 1):
        s.edit(seat).spells = spells
    assert master_skills_offered(s, 0) == ({"herbal_tonic"} if spells else set())
    assert master_skills_offered(s, 1) == ({"meditation"} if spells else set())


def test_a_declared_master_skill_is_cancelled_once_the_last_stroke_is_gone():
    """A Master turn-action skill declared with a stroke left, resolved after the last one is
    gone, is cancelled and its MP stays with the Master."""
    s = game(PAIR, rules=with_masters(R, "koga"), masters=("koga", "han"))
    s.edit(0).hp -= 50
    s, _ = act_all(s, DeclareSkill(0, "herbal_tonic"))
    s.edit(0).spells = 0
    s, events = act_all(s, DeclareWait(1))
    assert [e.data["kind"] for e in find(events, "ActionCancelled")] == ["skill"]
    assert s.camps[0].master_mp == s.camps[0].master.mp and not find(events, "SkillUsed")


@pytest.mark.parametrize("spells", [1, 0])
def test_a_lethal_master_skill_needs_a_command_spell(spells):
    """Koga's Hangontan (automatic, on lethal damage, paid from the Master's MP) holds Caster up
    while its Master has a stroke, and does not fire once the last one is spent."""
    s = fight(PAIR, rules=with_masters(R, "koga"), masters=("han", "koga"))
    camp = s.edit(1)
    camp.unlocked, camp.hp, camp.spells = True, 1, spells
    s = attack(s, "B", hit=11)
    # damage 2d10 = 6+6, then (only if it may fire) Hangontan's 1d100 = 1
    after, events = act_all(s, React(1, "G", ""), [6, 6, 1] if spells else [6, 6])
    assert after.camps[1].alive is bool(spells)
    assert bool(find(events, "SkillTriggered")) is bool(spells)
    assert (after.camps[1].master_mp < s.camps[1].master_mp) is bool(spells)
