"""Edge cases of the battle rules found in review: drains, stacking, sleep, fumbles and Luck,
a support NP's bonus window, hidden fumble MP, teleport catching, and fixed amounts."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from grailwar.shared.engine import apply, events_for, legal_actions
from grailwar.shared.engine.actions import (
    Attack,
    DeclareDisengage,
    Move,
    React,
    Ready,
    UseCommandSpell,
    UseNoblePhantasm,
    UseSkill,
    Wait,
)
from grailwar.shared.engine.core import apply_effect
from grailwar.shared.engine.data import default_ruleset
from helpers import act, act_all, bare, duel, faces, fight, find, only, rolls, tweak, wait_round

R = default_ruleset()


def debuff(name: str):
    return next(d for d in R.debuffs if d.id == name)


def test_bleeding_and_mana_leak_drain_at_round_start():
    """Negative per-round modifiers (Bleeding, Mana Leak) take HP and MP at each round start."""
    s = fight()
    for name in ("bleeding", "mana_leak"):
        d = debuff(name)
        apply_effect(s, 1, d.effect, "debuff:" + d.id, d.duration, True, debuff=True)
    hp, mp = s.camps[1].hp, s.camps[1].mp
    s = wait_round(s)
    assert (s.camps[1].hp, s.camps[1].mp) == (hp - 5, mp - 5)


def test_a_support_np_cannot_fire_again_while_its_buff_lasts_even_after_war_roar():
    """War Roar does not let a support Noble Phantasm stack its own buff."""
    rules = tweak(bare(), "saber", np={"kind": "support", "card": "A", "cards": 1, "mp": 10,
                                       "duration": 3, "self_effect": R.servants["assassin"].np
                                       .self_effect})
    s = fight(rules=rules)  # saber (AGI B) acts before caster (AGI C)
    assert s.battle.actor == 0
    s, _ = act(s, UseCommandSpell(0, "war_roar"))
    s, _ = act(s, UseNoblePhantasm(0, 0))
    s = wait_round(s)
    s, _ = apply(s, Ready(0))
    s, _ = apply(s, Ready(1))
    if s.battle.actor != 0:
        s, _ = apply(s, Wait(s.battle.actor))
    s.edit(0).hand = "BBAQQ"  # cards and MP are there: only the running buff stops it
    assert any(b.source.startswith("np:") for b in s.camps[0].buffs)
    s, _ = act(s, UseCommandSpell(0, "war_roar"))
    assert UseNoblePhantasm(0, 0) not in legal_actions(s, 0)
    s.edit(0).buffs = ()
    assert UseNoblePhantasm(0, 0) in legal_actions(s, 0)


def test_a_sleeping_masters_lethal_skill_does_not_fire():
    """A sleeping Master casts nothing, not even an automatic skill on lethal damage."""
    lethal = next(k for k in R.skills.values() if k.owner == "master" and k.trigger == "lethal")
    rules = bare()
    holder = next(m for m in R.masters.values() if lethal.id in m.skills)
    rules = replace(rules, skills={**rules.skills, **R.skills}, masters={
        **rules.masters, holder.id: replace(rules.masters[holder.id],
                                            skills=(*rules.masters[holder.id].skills[:3],
                                                    lethal.id))})
    s = fight(rules=rules, masters=(next(m for m in rules.masters if m != holder.id),
                                    holder.id))
    camp = s.edit(1)
    camp.unlocked, camp.hp, camp.master_mp = True, 1, 300
    if s.battle.actor == 1:
        s, _ = apply(s, Wait(1))
    s, _ = act(s, Attack(0, 1, "B", "B"), faces(11))
    asleep = s.clone()
    asleep.edit(1).asleep = True
    awake, events = act_all(s, React(1, "G", ""), [6, 6, 1])  # damage, then 1d100 = 1
    assert awake.camps[1].alive and find(events, "SkillTriggered")
    slept, events = act(asleep, React(1, "G", ""), [6, 6, 1])
    assert not slept.camps[1].alive
    assert not find(events, "SkillTriggered")


def test_a_fumbled_attack_misses_even_against_luck_defense():
    """Luck defense only halves a hit, but an attacker's natural 2 still misses outright."""
    s = fight()
    s, _ = act_all(s, Attack(0, 1, "B", "B"), [1, 1, 3, 1])  # natural 2, mishap 3: debuff 1
    assert s.battle.pending.fumble
    after, events = act_all(s, React(1, "L", ""), faces(5))
    assert not find(events, "AttackResolved")[0].data["hit"]
    assert after.camps[1].hp == s.camps[1].hp


def test_an_enemy_debuff_skill_is_not_offered_on_a_foe_that_already_has_it():
    """No stacking: Bog Song (optional, on a foe, here lasting 3 rounds) is not offered again
    while the foe still carries it, and is offered again once the foe is rid of it."""
    song = replace(R.skills["bog_song"], duration=3)
    rules = replace(R, skills={**R.skills, "bog_song": song})
    s = fight(("caster", "saber"), rules=rules, masters=("baek", "han"))
    s.edit(0).mp = 300
    if s.battle.actor != 0:
        s, _ = apply(s, Wait(s.battle.actor))
    s, _ = act(s, UseSkill(0, "bog_song", 1), [1])  # 1d100 = 1: success
    s = wait_round(s)
    assert s.prompt.kind == "round_start" and s.battle.round == 2
    assert any(b.source == "bog_song" for b in s.camps[1].buffs)
    assert UseSkill(0, "bog_song", 1) not in legal_actions(s, 0)
    s.edit(1).buffs = ()
    assert UseSkill(0, "bog_song", 1) in legal_actions(s, 0)


def test_a_support_np_bonus_is_gone_after_the_next_round():
    """The power a support Buster NP gives lasts for the first attack of the next round only."""
    s = fight()
    camp = s.edit(0)
    camp.pending_power, camp.pending_round = 20, 1  # due in round 1 …
    s.battle.round = 2  # … but the camp's first attack comes in round 2
    s, _events = act_all(s, Attack(0, 1, "B", "B"), faces(12))
    assert s.battle.pending.power == 0
    assert s.camps[0].pending_power == 0


def test_the_rulebook_says_an_unused_support_np_bonus_is_lost():
    """docs/rules.md §5.14 tells what the test above shows: a support NP's bonus that no attack
    of the next Round uses is lost, it does not wait for a later Round."""
    rules = (Path(__file__).parent.parent / "docs" / "rules.md").read_text(encoding="utf-8")
    section = rules.split("\n### 5.14 ", 1)[1].split("\n### ", 1)[0]
    assert "next Round, the bonus is lost" in section
    assert "from the next Round on" not in rules


def test_a_fumbles_mp_loss_is_rolled_out_of_sight():
    """Mishap 1 on MP: the pool die is public, the amount die only its camp sees."""
    s = fight()
    before = s.camps[0].mp
    after, events = act_all(s, Attack(0, 1, "B", "B"), [1, 1, 1, 2, 7])
    assert after.camps[0].mp == before - 7
    own = rolls(events, "fumble_damage")
    assert own and own[0]["faces"] == [7]
    theirs = [e for e in events_for(events, 1) if e.get("purpose") == "fumble_damage"]
    assert theirs and theirs[0]["faces"] == [] and theirs[0]["total"] is None
    assert all(e.get("amount") is None for e in events_for(events, 1)
               if e["type"] == "FumblePenalty")


def test_teleporting_onto_a_disengaging_foe_catches_it():
    """A Teleport that lands in a disengager's square catches it, like a move would."""
    s = fight()  # saber (seat 0, AGI B) acts before caster (seat 1, AGI C) every round
    s, _ = apply(s, Wait(0))
    s, _ = apply(s, Wait(1))
    s, _ = apply(s, DeclareDisengage(0))
    s, _ = apply(s, Ready(0))
    s, _ = apply(s, Ready(1))
    s, _ = apply(s, only(s, 0, Move)[0])  # saber runs as far as it can
    assert s.battle.actor == 1 and not s.camps[0].caught
    s, _ = act(s, UseCommandSpell(1, "teleport", str(s.camps[0].pos)))
    assert s.camps[0].caught


def test_a_disengaging_camp_is_not_offered_war_roar():
    """A camp that must run this activation cannot fire its Noble Phantasm through War Roar."""
    s = fight()
    s, _ = apply(s, Wait(0))
    s, _ = apply(s, Wait(1))
    s, _ = apply(s, DeclareDisengage(0))
    s = act(s, Ready(0))[0]
    s = act(s, Ready(1))[0]
    assert s.battle.actor == 0
    assert not [a for a in legal_actions(s, 0) if isinstance(a, UseCommandSpell)
                and a.spell == "war_roar"]


def test_a_fixed_recovery_is_not_logged_as_a_roll():
    """HP Recovery restores a fixed 150: no dice event (no "0D0" in the log)."""
    s = fight()
    s.edit(0).hp = 1
    after, events = act_all(s, UseCommandSpell(0, "hp_recovery"))
    assert after.camps[0].hp == min(s.camps[0].servant.hp, 151)
    assert not find(events, "DiceRolled")


def test_a_skill_is_blocked_only_by_its_own_copy_of_the_same_skill() -> None:
    """Kang and Takizawa both know Curse (rules §5.6, Q7): Kang's Curse on Takizawa's Servant
    does not stop Takizawa cursing back, and next round Kang's Curse is not offered again on a
    foe that still carries Kang's own copy."""
    s = duel(("saber", "lancer"), masters=("kang", "takizawa"))
    curse = UseSkill(0, "curse", 1)
    assert curse in legal_actions(s, 0)
    s, events = act_all(s, curse, [1])
    assert find(events, "SkillUsed") and s.camps[1].buffs[0].source == "curse"
    assert UseSkill(1, "curse", 0) in legal_actions(s, 1)
    s = wait_round(s)
    assert s.battle.round == 2 and s.camps[1].buffs[0].owner == 0
    assert curse not in legal_actions(s, 0)
