"""The campaign's pool and damage points (§0 mapping), §2 experience and levels (C2.1-C2.10),
§3 merit (C3.1-C3.5) and §4 "+" grades (C4.1-C4.3); spec shared/modules/002-campaign.md,
docs/rules.md chapter 12. Whole-game leak checks are in tests/test_hidden_info.py."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest
from grailwar.shared.engine import apply, core, default_action, legal_actions, view_for
from grailwar.shared.engine.actions import (
    ACTION_TYPES,
    AnswerAmbush,
    Attack,
    DeclareAmbush,
    DeclareDisengage,
    DeclareEncounter,
    DeclareInvestigate,
    DeclareWait,
    OfferTruce,
    React,
    Ready,
)
from grailwar.shared.engine.data import default_ruleset
from grailwar.shared.engine.events import Event, view_event
from grailwar.shared.engine.state import GameState
from grailwar.shared.modules.campaign import ledger
from grailwar.shared.modules.campaign import state as st
from grailwar.shared.modules.campaign.contract import DeclareCancelContract
from grailwar.shared.modules.campaign.growth import (
    ChooseGrowth,
    ChooseServantGrowth,
    DeclareStudy,
    Growth,
    SpendBackgroundPoint,
    SpendSkillPoint,
)
from grailwar.shared.modules.campaign.merit import EscapeWithMerit, TransferMerit
from grailwar.shared.modules.campaign.plus import ActivatePlus, Plus
from grailwar.shared.modules.campaign.section import section_of
from helpers import bare, faces, find, game, place, rolls, run, to_main, waits

R = default_ruleset()
N = R.numbers
DP = 3  # damage_point
MASTERS = ("kujo", "baek", "seo")


def cgame(classes: Sequence[str] = ("saber", "lancer"), **kw) -> GameState:
    kw.setdefault("masters", MASTERS[:len(classes)])
    return game(classes, modules=["campaign"], **kw)






def growth(s: GameState) -> Growth:
    return section_of(s, Growth)


def rec(s: GameState, seat: int = 0) -> st.CampRecord:
    return st.record(s, seat)


def battle(s: GameState) -> GameState:
    """Seats 0 and 1 on one square; seat 0 opens a battle; the round-1 round-start prompt."""
    place(s, 0, 10)
    place(s, 1, 10)
    s, _ = apply(s, DeclareEncounter(0, 1, "battle"))
    assert s.prompt.kind == "round_start", s.prompt
    return s


def guarded_hit(s: GameState, kind: str) -> tuple[GameState, list[Event]]:
    """From the round start: seat 0 attacks seat 1 with `kind` (natural 7 to hit), seat 1
    Guards, the damage dice are all 3s."""
    s = to_main(battle(s) if s.battle is None else s, 0)
    s, _ = run(s, Attack(0, 1, kind, kind), dice=faces(7))
    return run(s, React(1, "G", ""), dice=[3] * N.damage_dice.count)


def dealt(events: list[Event]) -> int:
    return find(events, "DamageDealt")[0].data["amount"]


def private_to(events: list[Event], event_type: str, seat: int) -> list[Event]:
    """The events of a type, each checked to reach `seat` only."""
    found = find(events, event_type)
    for e in found:
        assert view_event(e, seat) is not None
        assert all(view_event(e, x) is None for x in (None, *range(3)) if x != seat)
    return found


# --- the pool and damage points (§0 mapping) -------------------------------------------------
def test_the_fresh_pool_is_the_sheet_composition_in_tiles():
    s = cgame()
    assert rec(s).pool == (2 * 2, 1 * 2, 2 * 2)  # El Cid BBAQQ, tiles_per_card 2
    assert core.composition(s, s.camps[0]) == "BBAQQ"


def test_a_battle_fills_the_hand_from_the_pool_two_tiles_a_card():
    s = cgame()
    st.update(s, 0, pool=(7, 2, 4))  # 7 Buster tiles are 3 cards: the odd tile makes none
    s = battle(s)
    assert s.camps[0].hand == "BBBAQQ"


def test_the_pool_is_capped_at_max_pool_cards_dropping_the_last_kinds():
    s = cgame()
    st.update(s, 0, pool=(12, 4, 4))
    s = battle(s)
    assert s.camps[0].hand == "BBBBBBAAQ" and len(s.camps[0].hand) == 9


def test_damage_points_add_3_hp_each_to_attacks_of_their_kind_only():
    plain = bare()
    s0 = cgame(rules=plain)
    _, base_b = guarded_hit(s0.clone(), "B")
    s1 = cgame(rules=plain)
    st.update(s1, 0, dp=((2, 0, 0), (0, 0, 1)))  # contract B 2, item Q 1
    _, more_b = guarded_hit(s1.clone(), "B")
    _, more_q = guarded_hit(s1.clone(), "Q")
    _, base_q = guarded_hit(s0.clone(), "Q")
    assert dealt(more_b) - dealt(base_b) == 2 * DP
    assert dealt(more_q) - dealt(base_q) == 1 * DP


def test_a_luck_attack_gets_no_damage_points():
    s = cgame()
    st.update(s, 0, dp=((5, 5, 5), (0, 0, 0)))
    assert growth(s).modifier(s, s.camps[0], "attack_damage:L") == 0
    assert growth(s).modifier(s, s.camps[0], "attack_damage:A") == 5 * DP


# --- C2.1-C2.3 experience ----------------------------------------------------------------------
def test_c2_1_a_master_starts_at_level_1_with_five_empty_pools():
    r = rec(cgame())
    assert (r.level, r.exp) == (1, (0, 0, 0, 0, 0))


def test_c2_3_study_is_a_turn_action_giving_one_study_experience_privately():
    s = cgame()
    assert DeclareStudy(0) in legal_actions(s, 0)
    s, ev = run(s, DeclareStudy(0), DeclareWait(1))
    assert rec(s).exp == (0, 0, 1, 0, 0) and rec(s, 1).exp == (0, 0, 0, 0, 0)
    assert [e.data for e in private_to(ev, "ExperienceGained", 0)] == [
        {"seat": 0, "method": "study", "amount": 1, "source": "study"}]


def test_c2_2_scouting_gives_one_experience_per_turn_however_many_points_it_found():
    s = cgame()
    # a successful Investigate: a Servant and a Master Rumor point, one scouting experience
    s, ev = run(s, DeclareInvestigate(0, "lancer"), DeclareWait(1), dice=faces(12))
    assert len(find(ev, "InfoGained")) == 2 and rec(s).exp[0] == 1
    s, _ = run(s, DeclareInvestigate(0, "lancer"), DeclareWait(1), dice=faces(2))  # a failure
    assert rec(s).exp[0] == 1


def test_c2_2_combat_one_for_taking_part_one_for_the_front_row_one_for_the_win():
    s = cgame(rules=bare())
    s.edit(1).hp = 1
    s, ev = guarded_hit(s, "B")
    assert not s.camps[1].alive and s.battle is None
    assert rec(s).exp[1] == 3
    assert [e.data["source"] for e in private_to(ev, "ExperienceGained", 0)] == [
        "battle", "front_row", "win"]


def test_c2_2_a_truce_gives_each_combatant_one_for_taking_part_only():
    s = battle(cgame())
    s, _ = run(s, OfferTruce(0), OfferTruce(1), Ready(0), Ready(1))
    assert s.battle is None and rec(s).exp[1] == 1 and rec(s, 1).exp[1] == 1


# --- C2.4, C2.5 levels ---------------------------------------------------------------------
def test_c2_4_each_full_pool_gives_one_level_at_turn_end_and_the_surplus_is_lost():
    s = cgame()
    st.update(s, 0, exp=(0, 13, 10, 9, 0))  # combat 13 and study 10: two levels
    s, ev = waits(s)
    assert rec(s).level == 3 and rec(s).exp == (0, 0, 0, 9, 0)
    assert [e.data["method"] for e in private_to(ev, "LevelGained", 0)] == ["combat", "study"]


def test_c2_4_the_level_cap_stops_the_pools():
    s = cgame()
    st.update(s, 0, level=15, exp=(0, 9, 0, 0, 0))  # a human Master's cap is 15
    s, _ = run(s, DeclareStudy(0), DeclareWait(1))
    assert rec(s).level == 15 and rec(s).exp == (0, 9, 0, 0, 0)


def test_c2_4_c2_5_the_einzbern_tag_gives_the_artificial_cap_and_mp_per_level():
    """C12.1 ④: a tagged Master (human by the data) has the artificial cap (10, not 15) and
    15 MP a level (not 10), and its own view says so; the untagged rival stays human."""
    s = cgame()
    for seat in (0, 1):
        st.update(s, seat, level=9, exp=(10, 0, 0, 0, 0))
    st.update(s, 0, tag=st.HOMUNCULUS)
    s, ev = waits(s)
    assert [e.data["master_mp"] for e in find(ev, "LevelGained")] == [15, 10]
    assert [core.max_master_mp(s, c) - c.master.mp for c in s.camps] == [9 * 15, 9 * 10]
    views = [view_for(s, x)["modules"]["campaign"]["state"]["growth"] for x in (0, 1)]
    assert [(v["race"], v["cap"]) for v in views] == [("artificial", 10), ("human", 15)]
    for seat in (0, 1):
        s = choose_defaults(s, seat)
        st.update(s, seat, exp=(10, 0, 0, 0, 0))
    s, _ = run(s, *(DeclareWait(x) for x in sorted(s.prompt.seats)))
    assert [rec(s, x).level for x in (0, 1)] == [10, 11]


def test_c2_5_a_level_raises_the_masters_mp_and_gives_alternate_points():
    s = cgame()
    camp = s.camps[0]
    top, mp = core.max_master_mp(s, camp), camp.master_mp
    st.update(s, 0, exp=(10, 0, 0, 0, 0))
    s, _ = waits(s)
    assert core.max_master_mp(s, s.camps[0]) == top + 10  # human: 10 per level
    assert s.camps[0].master_mp == min(mp + 10, top + 10)
    assert (rec(s).skill_points, rec(s).background_points) == (1, 0)  # level 2: even
    s = choose_defaults(s, 0)
    st.update(s, 0, exp=(10, 0, 0, 0, 0))
    s, _ = run(s, *(DeclareWait(x) for x in sorted(s.prompt.seats)))
    assert rec(s).level == 3 and (rec(s).skill_points, rec(s).background_points) == (1, 1)


def choose_defaults(s: GameState, seat: int) -> GameState:
    """Make every pending growth choice of `seat` by the timeout defaults."""
    while rec(s, seat).pending_growth:
        s, _ = apply(s, default_action(s, seat))
    return s


# --- C2.6 skill and background points ------------------------------------------------------
def test_c2_6_a_skill_point_unlocks_the_fourth_skill_or_adds_10_to_a_checked_skill():
    s = cgame()
    st.update(s, 0, skill_points=2)
    legal = legal_actions(s, 0)
    assert SpendSkillPoint(0, "unlock") in legal and SpendSkillPoint(0, "reinforcement") in legal
    s, _ = apply(s, SpendSkillPoint(0, "unlock"))
    assert s.camps[0].unlocked and SpendSkillPoint(0, "unlock") not in legal_actions(s, 0)
    s, ev = apply(s, SpendSkillPoint(0, "reinforcement"))
    skill = R.skills["reinforcement"]
    assert growth(s).skill_check(s, 0, skill, -1) == 10 and rec(s).skill_points == 0
    assert not any(isinstance(a, SpendSkillPoint) for a in legal_actions(s, 0))
    private_to(ev, "PointSpent", 0)


def test_c2_6_a_background_point_buys_investigation_up_to_3_or_3_funds():
    s = cgame()
    st.update(s, 0, background_points=5)
    for _ in range(3):
        s, _ = apply(s, SpendBackgroundPoint(0, "investigation"))
    assert core.mod(s, s.camps[0], "investigation") == 3
    assert SpendBackgroundPoint(0, "investigation") not in legal_actions(s, 0)
    funds = rec(s).funds
    s, ev = apply(s, SpendBackgroundPoint(0, "funds"))
    assert rec(s).funds == funds + 3 and rec(s).background_points == 1
    private_to(ev, "FundsChanged", 0)


# --- C2.7, C2.8 growth choices --------------------------------------------------------------
def leveled(classes: Sequence[str] = ("saber", "lancer"), **kw) -> GameState:
    """Seat 0's Master has just gained level 2: its growth choice is pending."""
    s = cgame(classes, **kw)
    st.update(s, 0, exp=(0, 0, 10, 0, 0))
    s, _ = waits(s)
    assert rec(s).pending_growth == 1
    return s


def test_c2_7_while_a_growth_is_pending_only_the_growth_choices_are_legal():
    s = leveled()
    legal = legal_actions(s, 0)
    assert legal and all(isinstance(a, ChooseGrowth) for a in legal)
    assert {a.option for a in legal} == {"focus", "spread", "stock", "edge"}
    s, _ = apply(s, ChooseGrowth(0, "edge", "", ""))
    assert all(isinstance(a, ChooseServantGrowth) for a in legal_actions(s, 0))
    s, _ = apply(s, ChooseServantGrowth(0, "hp", "B", "B"))
    assert DeclareWait(0) in legal_actions(s, 0) and rec(s).pending_growth == 0


@pytest.mark.parametrize(("option", "first", "second", "tiles", "dp"), [
    ("focus", "A", "", (0, 1, 0), (0, 2, 0)),
    ("spread", "B", "Q", (1, 0, 1), (0, 1, 0)),
    ("stock", "B", "A", (1, 1, 2), (0, 0, 0)),
    ("edge", "", "", (0, 0, 0), (1, 1, 1)),
])
def test_c2_7_the_four_growth_options(option, first, second, tiles, dp):
    s = leveled()
    pool = rec(s).pool
    s, ev = apply(s, ChooseGrowth(0, option, first, second))
    assert tuple(b - a for a, b in zip(pool, rec(s).pool, strict=True)) == tiles
    assert rec(s).dp[0] == dp and rec(s).last_growth == option
    assert [e.data for e in private_to(ev, "GrowthChosen", 0)] == [
        {"seat": 0, "option": option, "first": first, "second": second}]


def test_c2_7_the_same_option_is_not_offered_at_the_next_level():
    s = leveled()
    st.update(s, 0, last_growth="focus")
    assert {a.option for a in legal_actions(s, 0)} == {"spread", "stock", "edge"}


def test_c2_7_the_timeout_takes_edge_or_focus_on_the_most_cards_after_edge():
    s = leveled()
    assert default_action(s, 0) == ChooseGrowth(0, "edge", "", "")
    st.update(s, 0, last_growth="edge")
    assert default_action(s, 0) == ChooseGrowth(0, "focus", "B", "")  # BBAQQ: B before Q


def test_c2_8_the_servant_gains_5_max_hp_a_dp_and_a_tile():
    s = leveled()
    s, _ = apply(s, ChooseGrowth(0, "edge", "", ""))
    hp, top, pool = s.camps[0].hp, core.max_hp(s, s.camps[0]), rec(s).pool
    s, _ = apply(s, ChooseServantGrowth(0, "hp", "Q", "A"))
    assert core.max_hp(s, s.camps[0]) == top + 5 and s.camps[0].hp == hp + 5
    assert view_for(s, 1)["camps"][0]["max_hp"] == top + 5  # max HP is public
    assert rec(s).dp[0] == (1, 1, 2) and rec(s).pool == (pool[0], pool[1] + 1, pool[2])


def test_c2_8_mp_instead_of_hp_and_a_magecraft_check_instead_of_a_tile():
    s = leveled()
    s, _ = apply(s, ChooseGrowth(0, "edge", "", ""))
    assert ChooseServantGrowth(0, "mp", "B", "healing_magecraft") in legal_actions(s, 0)
    top, pool = core.max_mp(s, s.camps[0]), rec(s).pool
    s, _ = apply(s, ChooseServantGrowth(0, "mp", "B", "healing_magecraft"))
    assert core.max_mp(s, s.camps[0]) == top + 5 and rec(s).pool == pool
    assert growth(s).skill_check(s, 0, R.skills["healing_magecraft"], -1) == 5


def test_c2_8_the_timeout_takes_hp_and_the_kind_with_the_most_cards():
    s = leveled()
    s, _ = apply(s, ChooseGrowth(0, "stock", "A", "Q"))  # B +2 tiles: B has the most cards
    assert default_action(s, 0) == ChooseServantGrowth(0, "hp", "B", "B")


def test_c2_9_the_contract_end_takes_back_every_growth():
    s = leveled()
    pool = rec(s).pool
    s, _ = run(s, ChooseGrowth(0, "focus", "B", ""), ChooseServantGrowth(0, "hp", "A", "Q"))
    assert s.camps[0].hp == s.camps[0].servant.hp + 5
    growth(s).on_contract_end(s, 0)
    assert rec(s).pool == pool and rec(s).dp[0] == (0, 0, 0) and rec(s).growth == ()
    assert core.max_hp(s, s.camps[0]) == s.camps[0].servant.hp == s.camps[0].hp
    assert rec(s).level == 2  # the Master keeps its level


def test_c2_9_c9_2_a_cancelled_contract_takes_its_growth_back_at_the_turn_end():
    """The cancel itself, not only the section's hook: the stray's pool, dp and max HP are
    the sheet's again, and its HP is capped."""
    s = leveled()
    pool = rec(s).pool
    s, _ = run(s, ChooseGrowth(0, "focus", "B", ""), ChooseServantGrowth(0, "hp", "A", "Q"))
    assert rec(s).growth and s.camps[0].hp == s.camps[0].servant.hp + 5
    s, _ = run(s, DeclareCancelContract(0), *(DeclareWait(x) for x in sorted(s.prompt.seats)
                                              if x != 0))
    assert rec(s).stray and rec(s).pool == pool and rec(s).dp[0] == (0, 0, 0)
    assert rec(s).growth == () and s.camps[0].hp <= core.max_hp(s, s.camps[0])
    assert core.max_hp(s, s.camps[0]) == s.camps[0].servant.hp


def test_c2_10_a_race_experience_trait_is_data(monkeypatch):
    s = cgame()
    module = growth(s).module
    monkeypatch.setattr(module, "data", replace(module.data, race_exp={"human": {"study": 2}}))
    s, _ = run(s, DeclareStudy(0), DeclareWait(1))
    assert rec(s).exp[2] == 3


# --- §3 merit -----------------------------------------------------------------------------------
def test_c3_1_merit_goes_to_its_holders_wallet_privately():
    s = cgame()
    ledger.add_merit(s, 0, "master", 3, "event")
    assert rec(s).merit == (0, 3)
    s2, _ = waits(s)  # nothing else gives merit
    assert rec(s2).merit == (0, 3)


def test_c3_2_no_action_hands_out_merit_for_role_play():
    names = {n for n, t in ACTION_TYPES.items()
             if t.__module__.startswith("grailwar.shared.modules.campaign")}
    assert {n for n in names if "Merit" in n} == {"TransferMerit", "EscapeWithMerit"}


def test_c3_3_transfer_gives_one_for_two():
    s = cgame()
    st.update(s, 0, merit=(0, 5))
    legal = [a for a in legal_actions(s, 0) if isinstance(a, TransferMerit)]
    assert sorted((a.to, a.amount) for a in legal) == [("servant", 1), ("servant", 2)]
    s, ev = apply(s, TransferMerit(0, "servant", 2))
    assert rec(s).merit == (2, 1)
    assert len(private_to(ev, "MeritChanged", 0)) == 2


def disengaging(merit: int = 1) -> GameState:
    s = cgame()
    st.update(s, 0, merit=(merit, 0))
    s, _ = apply(battle(s), DeclareDisengage(0))
    return s


def test_c3_4_escape_with_merit_waives_the_disengage_penalties_for_one_merit():
    s = disengaging()
    camp = s.camps[0]
    move, checks = core.movement(s, camp), core.check_mod(s, camp, "agi")
    assert EscapeWithMerit(0) in legal_actions(s, 0)
    s, _ = apply(s, EscapeWithMerit(0))
    assert rec(s).merit == (0, 0)
    assert core.movement(s, s.camps[0]) == move - N.disengage_movement
    assert core.check_mod(s, s.camps[0], "agi") == checks - N.disengage_checks
    assert EscapeWithMerit(0) not in legal_actions(s, 0)


def test_c3_4_no_escape_without_merit_or_without_disengaging():
    assert EscapeWithMerit(0) not in legal_actions(disengaging(merit=0), 0)
    s = cgame()
    st.update(s, 0, merit=(3, 0))
    assert EscapeWithMerit(0) not in legal_actions(battle(s), 0)


def fled(escape: bool = False, item: str = "") -> tuple[GameState, int]:
    """Seat 1, ambushed, flees (with EscapeWithMerit first, or carrying `item`); seat 0's
    Buster attack (natural 7) meets its Quick Reaction: the state, and that check's modifier."""
    s = cgame()
    st.update(s, 1, merit=(1, 0), items=((item, 1),) if item else ())
    place(s, 0, 10)
    place(s, 1, 11)
    s, _ = apply(s, DeclareAmbush(0, 1))
    assert s.prompt.kind == "ambush"
    assert (EscapeWithMerit(1) in legal_actions(s, 1)) is not bool(item)
    s, _ = run(s, *([EscapeWithMerit(1)] if escape else []), AnswerAmbush(1, True))
    assert s.camps[1].fleeing and s.prompt.kind == "round_start"
    s, _ = run(s, *(Ready(x) for x in sorted(s.prompt.seats)))
    s, _ = run(to_main(s, 0), Attack(0, 1, "B", "B"), dice=faces(7))
    _, ev = run(s, React(1, "Q", "Q"), dice=[*faces(7), *[3] * 10])
    return s, rolls(ev, "defense")[0]["mod"]


@pytest.mark.parametrize(("escape", "item"), [(True, ""), (False, "rabbit_foot")])
def test_c3_4_c6_14_an_escaping_flee_loses_only_its_reaction_penalty(escape, item):
    """C3.4: with the Flee, EscapeWithMerit (or C6.14's Rabbit's Foot, free) waives the −10 to
    its Reactions and nothing else: its other checks and its Movement stay as they were."""
    plain, penalised = fled()
    s, waived = fled(escape, item)
    assert waived == penalised - N.flee_reaction
    assert rec(s, 1).merit == ((0, 0) if escape else (1, 0))
    for stat in ("str", "agi", "luk"):
        assert core.check_mod(s, s.camps[1], stat) == core.check_mod(plain, plain.camps[1], stat)
    assert core.movement(s, s.camps[1]) == core.movement(plain, plain.camps[1])


def test_c3_5_a_faked_plus_costs_two_merit_and_gives_10_for_the_round():
    s = cgame()  # El Cid has no "+" parameter
    st.update(s, 0, merit=(2, 0))
    s = battle(s)
    legal = legal_actions(s, 0)
    assert ActivatePlus(0, "param:str", "merit") in legal
    assert ActivatePlus(0, "param:str", "mp") not in legal
    assert not any(isinstance(a, ActivatePlus) and a.what == "param:np" for a in legal)
    strength = core.param(s, s.camps[0], "str")
    s, ev = apply(s, ActivatePlus(0, "param:str", "merit"))
    assert rec(s).merit == (0, 0) and core.param(s, s.camps[0], "str") == strength + 10
    assert find(ev, "PlusActivated")[0].public is None  # public: every seat sees it
    s, _ = run(s, *(Ready(x) for x in sorted(s.prompt.seats)))
    s = next_round(s)
    assert core.param(s, s.camps[0], "str") == strength


def next_round(s: GameState) -> GameState:
    from helpers import wait_round
    s = wait_round(s)
    assert s.prompt.kind == "round_start", s.prompt
    return s


# --- §4 "+" ---------------------------------------------------------------------------------------
def test_c4_1_the_plus_grades_of_a_camp():
    s = cgame(("rider", "caster"))
    plus = section_of(s, Plus)
    assert plus.param_plus(s.camps[0], "end") and not plus.param_plus(s.camps[0], "str")
    assert plus.skill_plus(s, s.camps[0]) == {"thirty_three_years": 1}
    assert plus.np_plus(s.camps[1]) == 2


def test_c4_2_an_a_plus_counts_50_until_it_is_activated():
    base, camp = game(("rider", "saber")), cgame(("rider", "saber"))
    assert core.param(base, base.camps[0], "end") == 55
    assert core.param(camp, camp.camps[0], "end") == 50


def test_c4_3_activating_a_parameter_for_10_mp_gives_plus_10_this_round_once():
    s = battle(cgame(("rider", "saber")))
    mp = s.camps[0].mp
    s, _ = apply(s, ActivatePlus(0, "param:end", "mp"))
    assert core.param(s, s.camps[0], "end") == 60 and s.camps[0].mp == mp - 10
    assert not any(isinstance(a, ActivatePlus) and a.what == "param:end"
                   for a in legal_actions(s, 0))


def test_c4_3_an_activated_skill_succeeds_without_a_check():
    s = battle(cgame(("rider", "saber")))
    skill = R.skills["thirty_three_years"]
    assert ActivatePlus(0, "skill:thirty_three_years", "mp") in legal_actions(s, 0)
    s, _ = apply(s, ActivatePlus(0, "skill:thirty_three_years", "mp"))
    assert section_of(s, Plus).skill_check(s, 0, skill, -1) >= N.skill_die


def test_c4_3_an_np_plus_plus_costs_60_mp_or_4_merit_and_adds_40_power():
    s = cgame(("caster", "saber"))
    st.update(s, 0, merit=(4, 0))
    s = battle(s)
    legal = legal_actions(s, 0)
    assert ActivatePlus(0, "np", "merit") in legal
    plus = section_of(s, Plus)
    assert plus.costs(s, s.camps[0], "np") == {"mp": 60, "merit": 4}
    s, _ = apply(s, ActivatePlus(0, "np", "merit"))
    assert rec(s).merit == (0, 0) and plus.modifier(s, s.camps[0], "np_power") == 40


def at_critical(s: GameState) -> GameState:
    """Seat 0 rolls a natural 12 on its Buster attack: its critical-reward prompt."""
    s, _ = run(to_main(s, 0), Attack(0, 1, "B", "B"), dice=faces(12))
    assert s.prompt == ("critical", {0}), s.prompt
    return s


def at_intervention(s: GameState) -> GameState:
    """Seat 2, waiting on the battle's square, is offered to intervene."""
    for seat in range(3):
        place(s, seat, 10)
    s, _ = run(s, DeclareEncounter(0, 1, "battle"), DeclareWait(2))
    assert s.prompt == ("intervene", {2}), s.prompt
    return s


def at_split(s: GameState) -> GameState:
    from test_campaign_bonds import split_state
    return split_state()


@pytest.mark.parametrize(("reach", "classes", "seat", "what"), [
    (lambda s: at_critical(battle(s)), ("rider", "saber"), 0, "param:end"),
    (at_intervention, ("saber", "lancer", "rider"), 2, "param:end"),
    (at_split, None, 1, "np"),  # Honda's constant NP "+", the victim of a mid_damage bond
])
def test_c4_3_activate_plus_at_the_critical_reward_intervention_offer_and_split(
        reach, classes, seat, what):
    """C4.3: "any battle prompt the seat receives", not only the Round's three."""
    s = reach(cgame(classes) if classes else None)
    assert ActivatePlus(seat, what, "mp") in legal_actions(s, seat)
    mp = s.camps[seat].mp
    s, ev = apply(s, ActivatePlus(seat, what, "mp"))
    assert find(ev, "PlusActivated") and s.camps[seat].mp == mp - 10
    assert not any(isinstance(a, ActivatePlus) and a.what == what
                   for a in legal_actions(s, seat))


def test_c4_3_a_plus_activated_at_the_round_start_is_not_offered_again_at_its_critical():
    """At most once per `what` per Round, across the Round's prompts."""
    s, _ = apply(battle(cgame(("rider", "saber"))), ActivatePlus(0, "param:end", "mp"))
    s = at_critical(s)
    assert ActivatePlus(0, "param:end", "mp") not in legal_actions(s, 0)
    assert core.param(s, s.camps[0], "end") == 60


def test_c4_3_a_constant_np_plus_counts_its_own_effect_once_more():
    s = battle(cgame(("lancer", "saber")))  # Honda: constant NP, np_plus 1
    np = s.camps[0].servant.np
    key, value = np.self_effect.mods[0]
    before = core.mod(s, s.camps[0], key)
    s, _ = apply(s, ActivatePlus(0, "np", "mp"))
    assert core.mod(s, s.camps[0], key) == before + value


# --- the bots ---------------------------------------------------------------------------------
NEW_ACTIONS = {"DeclareStudy", "ChooseGrowth", "ChooseServantGrowth", "SpendSkillPoint",
               "SpendBackgroundPoint", "TransferMerit", "EscapeWithMerit", "ActivatePlus", "Buy",
               "Wear", "UseItem", "RepairDoll"}


def stocked(seed: int) -> GameState:
    """A 3-camp campaign game in which every camp has what each new action needs: a level
    due, points, merit, funds, potions, a damaged doll placed, and the Old Foreign Quarter's
    shop of mystic codes (square 13) under its feet."""
    s = cgame(("saber", "lancer", "rider"), seed=seed)
    for x in range(3):
        st.update(s, x, exp=(0, 0, 10, 0, 0), skill_points=1, background_points=1,
                  merit=(9, 9), funds=200,
                  items=(("potion_of_life", 2), ("recovery_potion", 2)),
                  devices=(st.Device("advanced_doll", 13, -1, True),))
        place(s, x, 13)
    return s


def test_the_random_bot_plays_every_new_action():
    from grailwar.shared.bots import make_bot
    played: set[str] = set()
    for seed in range(1, 6):
        s = stocked(seed)
        bots = [make_bot("random", seed * 10 + x) for x in range(3)]
        for _ in range(3000):
            if s.over:
                break
            seat = min(s.prompt.seats)
            action = bots[seat].choose(None, legal_actions(s, seat))
            played.add(type(action).__name__)
            s, _ = apply(s, action)
    assert played >= NEW_ACTIONS, NEW_ACTIONS - played


def test_the_heuristic_bot_takes_its_growth_spends_points_and_merit_and_shops():
    from grailwar.shared.bots import make_bot
    s = stocked(1)
    st.update(s, 0, level=2, pending_growth=1)  # a level just gained
    bot = make_bot("heuristic", 1)
    seen: list[str] = []
    while 0 in s.prompt.seats and s.prompt.kind == "declare" and len(seen) < 40:
        action = bot.choose(view_for(s, 0), legal_actions(s, 0))
        seen.append(type(action).__name__)
        s, _ = apply(s, action)
    assert seen[:2] == ["ChooseGrowth", "ChooseServantGrowth"]
    assert {"SpendSkillPoint", "SpendBackgroundPoint", "TransferMerit", "Buy", "Wear"} <= set(seen)
    assert rec(s).last_growth == "focus" and rec(s).merit[1] < 2  # Master merit to the Servant
    assert rec(s).worn  # it wears what it bought


def test_a_grown_rival_still_has_candidates_for_a_sampling_bot():
    """Growth moves max HP off every roster sheet: deduction falls back to the whole class
    (it never does in a base game, where a view always matches its own sheet)."""
    from grailwar.shared.engine.deduction import candidates
    s = cgame()
    growth(s).add_growth(s, 1, (0, 0, 0), (0, 0, 0), {"max_hp": 5})
    found = candidates(R, view_for(s, 0)["camps"][1])
    assert [x.id for x in found] == [x.id for x in R.roster["lancer"]]


# --- scenario files (tests/scenarios/campaign/) ------------------------------------------------
def test_the_level_up_scenario_plays_as_its_comment_says():
    """tests/scenarios/campaign/level_up.toml: every step legal and every forced die used, the
    named events at their steps, the actions named illegal not offered, the final records."""
    import tomllib
    from pathlib import Path

    from grailwar.cli import scenario
    from grailwar.shared.engine.actions import from_dict
    path = Path(__file__).parent / "scenarios" / "campaign" / "level_up.toml"
    spec = tomllib.loads(path.read_text(encoding="utf-8"))
    expect = spec["expect"]
    s = scenario.setup(spec)
    log = []
    for n, step in enumerate(spec["step"], start=1):
        for item in expect.get("illegal", []):
            if item["step"] == n:
                action = from_dict(item["action"])
                assert action not in legal_actions(s, action.seat), (n, action)
        s, events = run(s, from_dict(step["action"]), dice=step.get("dice", ()))
        log.append(events)
    assert s.forced == ()
    for want in expect["event"]:
        fields = {k: v for k, v in want.items() if k not in ("step", "type")}
        assert any(e.type == want["type"] and fields.items() <= e.data.items()
                   for e in log[want["step"] - 1]), want
    for seat, fields in expect["record"].items():
        record = rec(s, int(seat))
        for key, value in fields.items():
            got = getattr(record, key)
            assert (list(map(list, got)) if key == "dp" else list(got) if isinstance(
                got, tuple) else got) == value, (key, got)
    for seat, hp in expect["hp"].items():
        assert s.camps[int(seat)].hp == hp


def test_a_scenario_may_set_only_a_level_and_experience():
    s = cgame()
    with pytest.raises(ValueError, match=r"growth\.0\.funds"):
        growth(s).scenario_state(s, {"0": {"funds": 3}})
    with pytest.raises(ValueError, match="a seat number"):
        growth(s).scenario_state(s, {"7": {"level": 2}})
    growth(s).scenario_state(s, {"1": {"level": 4, "exp": {"combat": 5}}})
    assert (rec(s, 1).level, rec(s, 1).exp) == (4, (0, 5, 0, 0, 0))


# --- the actions on the wire ---------------------------------------------------------------
ONE_OF_EACH = [DeclareStudy(0), ChooseGrowth(0, "spread", "B", "A"),
               ChooseServantGrowth(0, "mp", "Q", "healing_magecraft"),
               SpendSkillPoint(0, "unlock"), SpendBackgroundPoint(0, "funds"),
               TransferMerit(1, "servant", 2), EscapeWithMerit(1), ActivatePlus(0, "np", "merit")]


def test_every_new_action_type_has_its_round_trip_here():
    from grailwar.shared.modules.campaign.gear import Buy, RepairDoll, UseItem, Wear
    types = {type(a) for a in ONE_OF_EACH} | {Buy, Wear, UseItem, RepairDoll}
    assert {ACTION_TYPES[n] for n in NEW_ACTIONS} == types


@pytest.mark.parametrize("action", ONE_OF_EACH, ids=str)
def test_a_growth_merit_or_plus_action_round_trips_through_an_act_message(action):
    from grailwar.shared import protocol
    from grailwar.shared.engine import from_dict
    assert from_dict(action.to_dict()) == action
    msg = protocol.message("act", action=action.to_dict(), state_id=3, ref=1)
    (body,) = protocol.FrameBuffer().feed(protocol.encode(msg))
    assert from_dict(protocol.decode(body)["action"]) == action


@pytest.mark.parametrize(("data", "named"), [
    ({"type": "ChooseGrowth", "seat": 0, "option": "edge", "first": ""}, "missing field 'second'"),
    ({"type": "TransferMerit", "seat": 0, "to": "servant", "amount": "2"},
     "TransferMerit.amount: expected int"),
])
def test_a_malformed_campaign_action_is_refused_by_field(data, named):
    from grailwar.shared.engine import from_dict
    from grailwar.shared.engine.errors import MalformedActionError
    with pytest.raises(MalformedActionError, match=named):
        from_dict(data)


def test_an_action_not_offered_is_refused_with_its_reason():
    """Legality is the offer: a growth option repeated, merit not held, an unaffordable buy."""
    from grailwar.shared.engine.errors import IllegalActionError
    s = leveled()
    st.update(s, 0, last_growth="edge")
    with pytest.raises(IllegalActionError, match="not legal"):
        apply(s, ChooseGrowth(0, "edge", "", ""))
    with pytest.raises(IllegalActionError, match="not legal"):
        apply(cgame(), TransferMerit(0, "servant", 1))
