"""The campaign's §7: its Command Spells (C7.0-C7.11; spec shared/modules/002-campaign.md §3.3,
docs/rules.md chapter 12). Forced dice throughout; each artificial variant against the human."""

from __future__ import annotations

from dataclasses import replace

import pytest
from grailwar.shared.engine import apply, core, default_action, legal_actions, powers
from grailwar.shared.engine.actions import (
    AnswerIntervention,
    Attack,
    DeclareEncounter,
    DeclareNoblePhantasm,
    DeclareRest,
    DeclareWait,
    React,
    Ready,
    UseCommandSpell,
    UseNoblePhantasm,
)
from grailwar.shared.engine.data import Effect
from grailwar.shared.engine.events import view_event
from grailwar.shared.engine.state import ActiveBuff, GameState
from grailwar.shared.modules.campaign import campaign
from grailwar.shared.modules.campaign import state as st
from grailwar.shared.modules.campaign.spells import KeepDeclaration
from helpers import act_all, bare, duel, faces, find, game, place, to_main, wait_round

RULES = bare()
NEW = ("attack_posture", "np_enhancement", "defense_posture", "status_recovery",
       "forced_attack", "absolute_defense", "binding_order", "action_restriction")


def cduel(classes=("saber", "lancer"), **kw) -> GameState:
    return duel(classes, modules=["campaign"], rules=kw.pop("rules", RULES), **kw)


@pytest.fixture(params=["human", "artificial", "homunculus"])
def race(request, monkeypatch) -> str:
    """Every Master is of this race for the test (C7: the artificial Master's variants): by
    the campaign data, or, for `homunculus`, human by the data with the Einzbern tag on every
    camp (C12.1 ④ makes it artificial, so it must get every artificial variant)."""
    if request.param == "homunculus":
        fresh = st.fresh_record
        monkeypatch.setattr(st, "fresh_record", lambda s, seat, data: fresh(
            s, seat, data)._replace(tag=st.HOMUNCULUS))
        return "artificial"
    s = game(modules=["campaign"], rules=RULES)
    masters = campaign(s).data.masters
    for master_id, extras in list(masters.items()):
        monkeypatch.setitem(masters, master_id, replace(extras, race=request.param))
    return request.param


def spells(s: GameState, seat: int, spell: str) -> list[UseCommandSpell]:
    return [a for a in legal_actions(s, seat)
            if isinstance(a, UseCommandSpell) and a.spell == spell]


def cast(s: GameState, seat: int, spell: str, arg: str = "", dice=()) -> tuple[GameState, list]:
    return act_all(s, UseCommandSpell(seat, spell, arg), dice)


# --- C7.0 ten kinds, one stroke each -----------------------------------------------------------
def test_c7_0_campaign_rooms_add_the_new_spells_at_one_stroke_each_and_base_rooms_do_not():
    base, camp = game(rules=RULES), game(modules=["campaign"], rules=RULES)
    assert powers.spell_table(base) is base.rules.command_spells
    table = powers.spell_table(camp)
    assert set(table) - set(base.rules.command_spells) == set(NEW)
    assert all(table[x].cost == 1 for x in NEW)
    strokes = camp.camps[0].spells
    s = camp
    s.edit(0).hp -= 50
    s, ev = cast(s, 0, "status_recovery", "0")
    assert s.camps[0].spells == strokes - 1 and find(ev, "CommandSpellUsed")


def test_c7_0_a_sleeping_master_casts_none_of_them():
    s = game(modules=["campaign"], rules=RULES)
    s.edit(0).hp -= 50
    assert spells(s, 0, "status_recovery")
    s.edit(0).asleep = True
    s._legal.clear()
    assert not spells(s, 0, "status_recovery")


def test_c7_1_c7_2_forced_summon_is_not_a_spell_and_forced_withdrawal_is_the_base_retreat():
    table = powers.spell_table(game(modules=["campaign"], rules=RULES))
    assert not any("summon" in x or "withdraw" in x for x in table)
    assert table["retreat"].cost == 2 and table["retreat"].special == "retreat"


# --- C7.3 Attack Posture -------------------------------------------------------------------------
def test_c7_3_attack_posture_doubles_the_first_hand_at_the_round_1_round_start(race):
    s = cduel()
    s, _ = cast(s, 0, "attack_posture")
    times = 3 if race == "artificial" else 2
    assert s.camps[0].hand == core.sort_cards("BBAQQ" * times)
    assert not spells(s, 0, "attack_posture")  # once a battle
    s = wait_round(s)
    assert not spells(s, 1, "attack_posture")  # Round 2: no longer


def test_c7_3_attack_posture_at_the_intervention_offer_gives_the_joiners_first_hand():
    s = game(("saber", "lancer", "archer"), modules=["campaign"], rules=RULES)
    for seat in range(3):
        place(s, seat, 10)
    s, _ = apply(s, DeclareEncounter(0, 1, "battle"))
    s, _ = apply(s, DeclareWait(2))
    assert s.prompt.kind == "intervene" and spells(s, 2, "attack_posture")
    s, _ = cast(s, 2, "attack_posture")
    s, _ = apply(s, AnswerIntervention(2, True))
    assert s.prompt.kind == "round_start"
    assert s.camps[2].hand == core.sort_cards(s.camps[2].servant.cards * 2)
    assert s.camps[0].hand == s.camps[0].servant.cards  # only the caster's


# --- C7.4 NP Enhancement -------------------------------------------------------------------------
def test_c7_4_np_enhancement_makes_the_next_firing_free(race):
    s = cduel()
    st.update(s, 0, stance_now="critical")  # the NP's stance (C5.8)
    s, _ = apply(s, DeclareNoblePhantasm(0, 1))
    s = to_main(s, 0)
    assert spells(s, 0, "np_enhancement")
    s, _ = cast(s, 0, "np_enhancement")
    assert not spells(s, 0, "np_enhancement")
    mp, master = s.camps[0].mp, s.camps[0].master_mp
    s, _ = act_all(s, UseNoblePhantasm(0, 1), faces(9))
    assert (s.camps[0].mp, s.camps[0].master_mp) == (mp, master)
    np = core.param(s, s.camps[0], "np")
    assert np == 40 + (10 if race == "artificial" else 0)  # for this firing
    s, _ = act_all(s, React(1, "G", ""), [5, 5])
    assert core.param(s, s.camps[0], "np") == 40


def test_c7_4_an_enhanced_np_fires_even_without_the_mp_for_it():
    s = cduel()
    st.update(s, 0, stance_now="critical")
    s, _ = apply(s, DeclareNoblePhantasm(0, 1))
    s = to_main(s, 0)
    s.edit(0).mp, s.edit(0).master_mp = 10, 0  # Tizona costs 70
    s._legal.clear()
    assert UseNoblePhantasm(0, 1) not in legal_actions(s, 0)
    s, _ = cast(s, 0, "np_enhancement")
    assert UseNoblePhantasm(0, 1) in legal_actions(s, 0)
    s, ev = act_all(s, UseNoblePhantasm(0, 1), faces(9))
    assert find(ev, "NoblePhantasmFired") and s.camps[0].mp == 10


def test_c7_4_not_offered_before_the_np_is_due():
    s = to_main(cduel(), 0)
    assert not spells(s, 0, "np_enhancement")


# --- C7.5 Defense Posture ------------------------------------------------------------------------
def test_c7_5_defense_posture_over_max_at_round_1_lost_at_the_battle_end(race):
    s = cduel()
    top = s.camps[0].servant.hp
    s, _ = cast(s, 0, "defense_posture")
    assert s.camps[0].hp == top + (30 if race == "artificial" else 20)
    campaign(s).on_battle_end(s)
    assert s.camps[0].hp == top


def test_c7_5_later_it_heals_up_to_max(race):
    s = wait_round(cduel())
    top = s.camps[0].servant.hp
    s.edit(0).hp = top - 100
    s._legal.clear()
    s, _ = cast(s, 0, "defense_posture")
    assert s.camps[0].hp == top - 100 + (50 if race == "artificial" else 30)
    s.edit(0).hp = top - 10
    s._legal.clear()
    s, _ = cast(s, 0, "defense_posture")
    assert s.camps[0].hp == top
    assert not spells(s, 0, "defense_posture")  # at full HP after Round 1: nothing to do


# --- C7.6 Status Recovery ------------------------------------------------------------------------
def test_c7_6_status_recovery_outside_battle_with_mp_turned_to_hp(race):
    s = game(modules=["campaign"], rules=RULES)
    camp = s.camps[0]
    s.edit(0).mp, s.edit(0).hp = 10, camp.servant.hp - 25
    s._legal.clear()
    args = [a.arg for a in spells(s, 0, "status_recovery")]
    assert args == ["0", "10", "20", "30"]  # steps of 10, up to the HP missing (rounded up)
    s, _ = cast(s, 0, "status_recovery", "20")
    recovered = camp.servant.mp * (150 if race == "artificial" else 100) // 100
    assert s.camps[0].hp == camp.servant.hp - 5
    assert s.camps[0].mp == min(camp.servant.mp, 10 + recovered - 20)


def test_c7_6_not_in_battle():
    s = cduel()
    s.edit(0).mp = 0
    s._legal.clear()
    assert not spells(s, 0, "status_recovery")


# --- C7.7 Forced Attack --------------------------------------------------------------------------
def attack_parts(forced: bool, reaction: str) -> tuple[int, dict]:
    """Seat 0's Buster attack on seat 1 with the same dice, with or without Forced Attack:
    the damage and its parts."""
    s = to_main(cduel(), 0)
    if forced:
        s, _ = cast(s, 0, "forced_attack")
    s, _ = act_all(s, Attack(0, 1, "B", "B"), faces(9 if reaction == "G" else 4))
    dice = ([] if reaction == "G" else faces(10)) + [5, 5]  # a Luck Defense that wins
    s, ev = act_all(s, React(1, reaction, ""), dice)
    hit = find(ev, "DamageDealt")[0].data
    return hit["amount"], dict(hit["parts"])


def test_c7_7_forced_attack_ignores_the_guard_and_luck_halving():
    guarded, parts = attack_parts(False, "G")
    assert "guard" in parts
    forced_g, parts = attack_parts(True, "G")
    assert "guard" not in parts and forced_g > guarded
    halved, parts = attack_parts(False, "L")
    assert "halved" in parts
    forced_l, parts = attack_parts(True, "L")
    assert "halved" not in parts and forced_l > halved
    assert forced_g == forced_l  # the same dice, no reduction either way


def test_c7_7_forced_attack_ignores_damage_taken_mods_but_not_invincibility():
    s = to_main(cduel(), 0)
    s.edit(1).buffs = (*s.camps[1].buffs, _buff(s, {"damage_taken": -25}))
    s, _ = cast(s, 0, "forced_attack")
    s, _ = act_all(s, Attack(0, 1, "B", "B"), faces(9))
    s, ev = act_all(s, React(1, "G", ""), [5, 5])
    parts = dict(find(ev, "DamageDealt")[0].data["parts"])
    assert "taken" not in parts
    s = to_main(cduel(), 0)
    s.edit(1).buffs = (*s.camps[1].buffs, _buff(s, {"invincible": 1}))
    s, _ = cast(s, 0, "forced_attack")
    s, _ = act_all(s, Attack(0, 1, "B", "B"), faces(9))
    s, ev = act_all(s, React(1, "G", ""), [5, 5])
    assert find(ev, "DamageDealt")[0].data["amount"] == 0


def _buff(s: GameState, mods: dict) -> ActiveBuff:
    return ActiveBuff("test", Effect(tuple(mods.items())), 3, False, False, 1)


def test_c7_7_an_artificial_master_adds_2_dp(race):
    s = to_main(cduel(), 0)
    base = core.mod(s, s.camps[0], "damage_dealt")
    s, _ = cast(s, 0, "forced_attack")
    s, _ = act_all(s, Attack(0, 1, "B", "B"), faces(9))
    assert core.mod(s, s.camps[0], "damage_dealt") - base == (6 if race == "artificial" else 0)


# --- C7.8 Absolute Defense -----------------------------------------------------------------------
def test_c7_8_the_swap_rule(race):
    s = cduel()
    s, _ = cast(s, 1, "absolute_defense")
    floor = 0 if race == "artificial" else 10
    hp = s.camps[1].hp
    assert core.module_damage(s, 1, 40, "attack") == floor  # the largest so far: protected
    assert s.camps[1].hp == hp
    assert core.module_damage(s, 1, 30, "attack") == 30  # smaller: taken as it is
    s.events = []
    assert core.module_damage(s, 1, 50, "np") == floor  # larger: the 40's waiver is dealt now
    assert s.camps[1].hp == hp - (40 - floor)
    assert [e.data for e in find(s.events, "AbsoluteDefenseReleased")] == [
        {"seat": 1, "amount": 40 - floor}]
    assert core.module_damage(s, 1, floor, "attack") == floor


def test_c7_8_it_lasts_one_round_and_does_not_change_who_wins_the_exchange(race):
    s = cduel()
    s, _ = cast(s, 0, "absolute_defense")
    s, _ = act_all(s, Ready(0))
    s, _ = act_all(s, Ready(1))
    s, _ = act_all(s, Attack(1, 0, "B", "B"), faces(9))
    s, ev = act_all(s, React(0, "G", ""), [9, 9])
    assert find(ev, "DamageDealt")[0].data["amount"] == (0 if race == "artificial" else 10)
    assert st.state(s).battle.lead[1] == "won"  # it dealt damage before the waiver
    s = wait_round(s)
    assert core.module_damage(s, 0, 40, "attack") == 40


# --- C7.9 Binding Order --------------------------------------------------------------------------
def test_c7_9_binding_order_raises_the_servants_bond_to_its_master_by_3_up_to_5():
    s = game(modules=["campaign"], rules=RULES)
    s, _ = cast(s, 0, "binding_order")
    bond = next(b for b in st.record(s, 0).bonds if b.holder == "servant")
    assert bond.grade == 4 and bond.target == 0
    s, _ = cast(s, 0, "binding_order")
    bond = next(b for b in st.record(s, 0).bonds if b.holder == "servant")
    assert bond.grade == 5
    assert not spells(s, 0, "binding_order")  # it cannot rise further
    assert not spells(cduel(), 0, "binding_order")  # and never in battle


# --- C7.10 Action Restriction -------------------------------------------------------------------
def three() -> GameState:
    s = game(("saber", "lancer", "archer"), modules=["campaign"], rules=RULES)
    for seat in range(3):
        place(s, seat, 10)
    return s


def test_c7_10_a_declared_camp_with_a_stroke_stays_with_only_keep_or_restrict():
    s = three()
    s, _ = apply(s, DeclareWait(0))
    assert 0 in s.prompt.seats
    assert legal_actions(s, 0) == [KeepDeclaration(0),
                                   UseCommandSpell(0, "action_restriction")]
    assert default_action(s, 0) == KeepDeclaration(0)
    s, _ = apply(s, KeepDeclaration(0))
    assert 0 not in s.prompt.seats and s.prompt.seats == {1, 2}
    s = three()
    s.edit(0).spells = 0
    s, _ = apply(s, DeclareWait(0))
    assert s.prompt.seats == {1, 2}  # no stroke: nothing to restrict with


def test_c7_10_restriction_withdraws_releases_the_bound_target_and_declares_again():
    s = three()
    s, _ = apply(s, DeclareEncounter(0, 1, "battle"))
    assert 1 not in s.prompt.seats  # bound
    s, ev = cast(s, 0, "action_restriction")
    assert not s.decls and s.bound == frozenset() and {0, 1, 2} <= s.prompt.seats
    shown = find(ev, "DeclarationWithdrawn")[0]
    assert view_event(shown, 1) == {"type": "DeclarationWithdrawn", "seat": 0}
    assert view_event(shown, 0)["kind"] == "encounter"
    s, _ = apply(s, DeclareEncounter(0, 2, "negotiate"))  # priority kinds are still open
    assert s.camps[0].spells == 2


def test_c7_10_the_priority_rules_apply_as_of_now_and_it_does_not_hold_the_window_open():
    s = three()
    s, _ = apply(s, DeclareWait(0))
    s, _ = apply(s, DeclareWait(1))  # an ordinary declaration: no more Encounters this Turn
    s, _ = cast(s, 0, "action_restriction")
    assert not [a for a in legal_actions(s, 0) if isinstance(a, DeclareEncounter)]
    s, _ = apply(s, DeclareRest(0))
    assert 0 in s.prompt.seats  # it could restrict again (two strokes left) ...
    s, ev = apply(s, DeclareWait(2))  # ... but the last camp's declaration closes the window
    assert find(ev, "DeclarationsClosed") and s.turn == 1


# --- C7.11 -------------------------------------------------------------------------------------
def test_c7_11_no_spell_changes_an_activation_after_its_round():
    table = powers.spell_table(game(modules=["campaign"], rules=RULES))
    assert set(table) - set(RULES.command_spells) == set(NEW)
