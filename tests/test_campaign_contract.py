"""The campaign's §0: the contract, spirit form and upkeep (C0.1-C0.8; spec
shared/modules/002-campaign.md, docs/rules.md chapter 12)."""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from pathlib import Path

import pytest
from grailwar.cli import scenario
from grailwar.shared.bots import make_bot
from grailwar.shared.engine import apply, core, legal_actions, view_for
from grailwar.shared.engine.actions import (
    ACTION_TYPES,
    AnswerIntervention,
    DeclareAmbush,
    DeclareEncounter,
    DeclareRest,
    DeclareSkill,
    DeclareSoulEating,
    DeclareWait,
    Move,
    Negotiate,
)
from grailwar.shared.engine.events import Event, view_event
from grailwar.shared.engine.game import new_game
from grailwar.shared.engine.state import GameState
from grailwar.shared.modules.campaign import state as st
from grailwar.shared.modules.campaign.contract import (
    Contract,
    DeclareCancelContract,
    DeclareRecontract,
    SetSupply,
)
from grailwar.shared.modules.campaign.section import section_of
from helpers import find, game, place, run, waits
from test_tactics import play_steps

MATERIALIZE = 30
DECLARATIONS = (DeclareEncounter, DeclareAmbush, DeclareSoulEating, DeclareSkill)


def cgame(classes: Sequence[str] = ("saber", "lancer"), **kw) -> GameState:
    return game(classes, modules=["campaign"], **kw)






def spirit(s: GameState, seat: int) -> bool:
    return section_of(s, Contract).spirit(s, seat)


# --- C0.1 the base upkeep is the contract ------------------------------------------------------
def test_c0_1_the_contract_costs_the_base_daily_upkeep_at_night_and_nothing_per_turn():
    """Three Turns of Wait in a campaign game and in a base game with the same seed: the same
    MP after each Turn (no per-Turn upkeep) and the same UpkeepPaid at the end of Night."""
    camp, base = cgame(), game()
    for _ in range(3):
        camp, camp_ev = waits(camp)
        base, base_ev = waits(base)
        assert [(c.mp, c.master_mp) for c in camp.camps] == [
            (c.mp, c.master_mp) for c in base.camps]
    paid = [e.data for e in find(camp_ev, "UpkeepPaid")]
    assert paid == [e.data for e in find(base_ev, "UpkeepPaid")] and len(paid) == 2


# --- C0.2 the supply switch -----------------------------------------------------------------------
def test_c0_2_set_supply_is_offered_once_per_turn_and_is_free_and_public():
    s = cgame()
    assert SetSupply(0, False) in legal_actions(s, 0) and SetSupply(0, True) not in legal_actions(
        s, 0)
    mp = (s.camps[0].mp, s.camps[0].master_mp)
    s, ev = apply(s, SetSupply(0, False))
    assert spirit(s, 0) and not s.camps[0].draw_open
    assert [view_event(e, 1) for e in find(ev, "SupplySet")] == [
        {"type": "SupplySet", "seat": 0, "on": False}]
    assert not any(isinstance(a, SetSupply) for a in legal_actions(s, 0))  # once per Turn
    s, _ = waits(s)
    assert SetSupply(0, True) in legal_actions(s, 0)
    s, _ = apply(s, SetSupply(0, True))
    assert not spirit(s, 0) and s.camps[0].draw_open
    assert (s.camps[0].mp, s.camps[0].master_mp) == (mp[0], mp[1])  # resuming costs nothing


def test_c0_2_in_spirit_form_only_quiet_declarations_and_loud_ones_it_can_pay_for():
    """In spirit form with its own MP at 30 (not above the cost), no Encounter, Ambush,
    Soul-eating or turn-action skill is offered; Move, Wait, Rest, Investigate, Research stay.
    With more MP the loud declarations come back (they materialize); a Master's turn-action
    skill never does (it is not in C0.2's list)."""
    s = cgame(masters=["han", "koga"])
    place(s, 0, 10)
    place(s, 1, 11)
    before = legal_actions(s, 0)
    assert any(isinstance(a, DeclareEncounter) for a in before)
    assert any(isinstance(a, DeclareSkill) for a in before)  # han's meditation
    s, _ = apply(s, SetSupply(0, False))
    s.edit(0).mp = MATERIALIZE
    s._legal.clear()
    quiet = {type(a).__name__ for a in legal_actions(s, 0)}
    assert not quiet & {t.__name__ for t in DECLARATIONS}
    assert {"Move", "DeclareWait", "DeclareRest", "DeclareInvestigate",
            "DeclareResearch"} <= quiet
    s.edit(0).mp = MATERIALIZE + 1
    s._legal.clear()
    loud = {type(a).__name__ for a in legal_actions(s, 0)}
    assert {"DeclareEncounter", "DeclareAmbush", "DeclareSoulEating"} <= loud
    assert "DeclareSkill" not in loud


# --- C0.3 materializing ------------------------------------------------------------------------
def test_c0_3_a_loud_declaration_materializes_for_30_of_the_servants_own_mp_until_turn_end():
    s = cgame()
    for seat in (0, 1):
        place(s, seat, 10)
    s, _ = apply(s, SetSupply(0, False))
    s.edit(0).master_mp -= 50
    mp, master_mp = s.camps[0].mp, s.camps[0].master_mp
    s, ev = apply(s, DeclareEncounter(0, 1, "negotiate"))
    assert [view_event(e, 1) for e in find(ev, "Materialized")] == [
        {"type": "Materialized", "seat": 0, "mp": MATERIALIZE}]
    assert not spirit(s, 0) and not st.record(s, 0).supply_on  # the supply stays suspended
    s, _ = run(s, Negotiate(0, False), Negotiate(1, False))
    assert s.prompt.kind == "declare" and spirit(s, 0)  # materialized until the Turn's end
    assert s.camps[0].mp == mp - MATERIALIZE
    assert s.camps[0].master_mp == master_mp + 10  # C0.5 still holds, no Master draw


@pytest.mark.parametrize("opener", ["negotiate", "battle", "ambush"])
def test_c0_3_an_encounter_against_a_spirit_form_camp_materializes_it(opener):
    s = cgame()
    for seat in (0, 1):
        place(s, seat, 10)
    place(s, 0, 11)
    s, _ = apply(s, SetSupply(1, False))
    mp = s.camps[1].mp
    action = DeclareAmbush(0, 1) if opener == "ambush" else DeclareEncounter(0, 1, opener)
    s, ev = apply(s, action)
    assert find(ev, "Materialized")[0].data["seat"] == 1 and s.camps[1].mp == mp - MATERIALIZE
    assert s.prompt.kind == {"negotiate": "negotiate", "battle": "round_start",
                             "ambush": "ambush"}[opener]


@pytest.mark.parametrize("opener", ["negotiate", "battle", "ambush"])
def test_c0_3_one_that_cannot_pay_is_not_met_and_the_openers_action_is_spent(opener):
    s = cgame(("saber", "lancer", "archer"))
    for seat in (0, 1, 2):
        place(s, seat, 10)
    place(s, 0, 11)
    s, _ = apply(s, SetSupply(1, False))
    s.edit(1).mp = MATERIALIZE
    action = DeclareAmbush(0, 1) if opener == "ambush" else DeclareEncounter(0, 1, opener)
    s, ev = run(s, action, DeclareWait(2))
    cancelled = find(ev, "ActionCancelled")
    assert [e.data for e in cancelled] == [{"seat": 0, "kind": "ambush" if opener == "ambush"
                                            else "encounter", "reason": "spirit_form",
                                            "target": 1}]
    assert s.battle is None and s.parley is None and s.prompt.kind == "declare"
    assert s.camps[1].mp == MATERIALIZE and not find(ev, "Materialized")


def test_c0_3_joining_a_battle_materializes_and_needs_the_mp():
    def offered(mp: int) -> tuple[GameState, list]:
        s = cgame(("saber", "lancer", "archer"))
        for seat in (0, 1, 2):
            place(s, seat, 10)
        s, _ = apply(s, SetSupply(2, False))
        s.edit(2).mp = mp
        s, _ = run(s, DeclareEncounter(0, 1, "battle"), DeclareWait(2))
        return s, legal_actions(s, 2) if s.prompt.kind == "intervene" else []
    s, legal = offered(MATERIALIZE + 5)
    assert AnswerIntervention(2, True) in legal
    s, ev = apply(s, AnswerIntervention(2, True))
    assert find(ev, "Materialized")[0].data["seat"] == 2 and s.camps[2].mp == 5
    _, legal = offered(MATERIALIZE)
    assert AnswerIntervention(2, True) not in legal and AnswerIntervention(2, False) in legal


# --- C0.4 no draw on the Master --------------------------------------------------------------
def test_c0_4_in_spirit_form_the_upkeep_comes_from_the_servants_own_mp_or_it_vanishes():
    """Night's end with 5 MP of its own: supplied, the Master pays the rest; in spirit form
    the Servant cannot pay and vanishes."""
    def night(supply: bool) -> tuple[GameState, list[Event]]:
        s = cgame(("saber", "lancer", "archer"))
        if not supply:
            s, _ = apply(s, SetSupply(0, False))
        s.edit(0).mp = 5
        events = []
        for _ in range(3):
            s, ev = waits(s)
            events += ev
        return s, events
    s, ev = night(supply=True)
    assert s.camps[0].alive and find(ev, "UpkeepPaid")[0].data["seat"] == 0
    s, ev = night(supply=False)
    assert not s.camps[0].alive
    assert [e.data["seat"] for e in find(ev, "UpkeepUnpaid")] == [0]


def test_c0_4_the_zero_mp_top_up_is_off_and_no_cost_reaches_the_master():
    s = cgame()
    s, _ = apply(s, SetSupply(0, False))
    camp = s.camps[0]
    assert not core.master_mp_open(camp) and core.can_pay(camp, camp.mp - 1)
    assert not core.can_pay(camp, camp.mp)  # would leave 0 MP with no Master to top it up
    s.edit(0).mp = 0
    core.check_mp(s, 0)
    assert not s.camps[0].alive and s.camps[0].master_mp == s.camps[0].master.mp


# --- C0.5, C0.6 the Master's MP at each Turn's end ------------------------------------------
@pytest.mark.parametrize(("cls", "below", "gain"), [
    ("saber", 50, 10), ("berserker", 50, 20), ("saber", 4, 4), ("berserker", 0, 0)])
def test_c0_5_a_whole_turn_in_spirit_form_gives_the_master_mp_capped(cls, below, gain):
    s = cgame((cls, "lancer"))
    s.edit(0).master_mp = s.camps[0].master.mp - below
    s, _ = apply(s, SetSupply(0, False))
    before = s.camps[0].master_mp
    s, ev = waits(s)
    assert s.camps[0].master_mp == before + gain
    recovered = find(ev, "SpiritManaRecovered")
    assert [e.data for e in recovered] == [{"seat": 0, "amount": gain}]
    assert view_event(recovered[0], 1) is None  # private to its camp


@pytest.mark.parametrize(("master_mp", "paid"), [(100, 5), (3, 3)])
def test_c0_6_a_supplied_berserkers_master_pays_5_at_each_turn_end(master_mp, paid):
    s = cgame(("berserker", "lancer"))
    s.edit(0).master_mp = master_mp
    s.edit(1).master_mp = master_mp
    s, ev = waits(s)
    assert (s.camps[0].master_mp, s.camps[1].master_mp) == (master_mp - paid, master_mp)
    assert [e.data for e in find(ev, "BerserkerSupplyPaid")] == [{"seat": 0, "amount": paid}]
    s, _ = apply(s, SetSupply(0, False))
    s, ev = waits(s)
    assert not find(ev, "BerserkerSupplyPaid")  # A3: not in a Turn with the supply cut


# --- C0.7 the base draw -------------------------------------------------------------------------
def test_c0_7_a_supplied_servant_draws_on_its_masters_mp_by_the_base_rule():
    """The Master pays what the Servant's own MP lacks, then tops the empty Servant up."""
    s = cgame()
    s.edit(0).mp = 5
    master_mp = s.camps[0].master_mp
    assert core.master_mp_open(s.camps[0]) and core.can_pay(s.camps[0], 40)
    core.pay_mp(s, 0, 40)
    top_up = s.rules.numbers.master_transfer
    assert (s.camps[0].mp, s.camps[0].master_mp) == (top_up, master_mp - 35 - top_up)


# --- C0.8 (c) no mana sharing between other characters -------------------------------------------
def test_c0_8_no_action_shares_mana_between_camps():
    """Over a random campaign game, the campaign's actions offered are only those of §0, §1
    and §9 and none moves MP to another camp: there is nothing like a circuit link to offer."""
    s = new_game(seed=4, modules=["campaign"])
    bot = make_bot("random", 4)
    seen: set[str] = set()
    for _ in range(400):
        if s.over:
            break
        seat = min(s.prompt.seats)
        legal = legal_actions(s, seat)
        seen |= {type(a).__name__ for a in legal
                 if type(a).__module__.startswith("grailwar.shared.modules.campaign")}
        s, _ = apply(s, bot.choose(None, legal))
    # §2-§4 and §6 (growth, merit, "+", items) add these; none of them moves MP to a camp.
    others = {"DeclareStudy", "ChooseGrowth", "ChooseServantGrowth", "SpendSkillPoint",
              "SpendBackgroundPoint", "TransferMerit", "EscapeWithMerit", "ActivatePlus", "Buy",
              "Wear", "UseItem", "RepairDoll", "SetupReady", "UseJewels", "GiveCommandSpell",
              "ChooseStance", "ArrangeStance", "NameStance", "SetStanceTrait", "LinkStance",
              "HoldNoblePhantasm", "SetBond", "AwardBond",
              "ResolveBond", "ShareBondDamage", "SplitBondDamage", "KeepDeclaration"}
    assert seen <= {"SetSupply", "DeclareResearch", "ShareRumor", "DeclareCancelContract",
                    "DeclareRecontract", *others} and "SetSupply" in seen
    campaign_types = {n for n, t in ACTION_TYPES.items()
                      if t.__module__.startswith("grailwar.shared.modules.campaign")}
    assert not any("Mana" in n or "Circuit" in n for n in campaign_types)


def test_move_stays_free_in_spirit_form():
    s = cgame()
    s, _ = apply(s, SetSupply(0, False))
    moves = [a for a in legal_actions(s, 0) if isinstance(a, Move)]
    assert moves and DeclareRest(0) in legal_actions(s, 0)


# --- §9 cancellation, stray Servants, vacant Masters, re-contracts ------------------------------
def cancelled(classes: Sequence[str] = ("saber", "lancer"), **kw) -> tuple[GameState,
                                                                             list[Event]]:
    """Seat 0 cancels its contract in the first Turn (the others Wait)."""
    s = cgame(classes, **kw)
    assert DeclareCancelContract(0) in legal_actions(s, 0)
    return run(s, DeclareCancelContract(0), *(DeclareWait(x) for x in range(1, len(classes))))


def test_c9_1_a_cancelled_contract_leaves_a_vacant_master_and_a_stray_servant_at_turn_end():
    s = cgame(masters=["han", "koga"])
    master, square, master_mp, spells = "han", s.camps[0].pos, s.camps[0].master_mp, 3
    s, ev = run(s, DeclareCancelContract(0), DeclareWait(1))
    assert [view_event(e, 1) for e in find(ev, "ContractCancelled")] == [
        {"type": "ContractCancelled", "seat": 0}]
    assert [view_event(e, None) for e in find(ev, "MasterVacated")] == [
        {"type": "MasterVacated", "seat": 0, "master": master, "square": square}]
    (vacant,) = st.state(s).vacant
    assert (vacant.master, vacant.square, vacant.master_mp, vacant.spells) == (
        master, square, master_mp, spells)
    rec, camp = st.record(s, 0), s.camps[0]
    assert rec.stray and (camp.spells, camp.master_mp, camp.master.skills) == (0, 0, ())
    assert view_for(s, 1)["modules"]["campaign"]["state"]["vacant"] == [
        {"master": master, "square": square}]
    assert view_for(s, 1)["modules"]["campaign"]["state"]["camps"][0]["stray"]


def test_c9_1_the_cancelling_turn_offers_no_recontract_and_a_stray_no_second_cancel():
    s = cgame()
    s, _ = run(s, DeclareCancelContract(0), DeclareWait(1))
    legal = legal_actions(s, 0)
    assert DeclareCancelContract(0) not in legal
    assert DeclareRecontract(0, s.camps[0].master.id) in legal  # the next Turn: it may
    st.update(s, 0, cancel_turn=st.turn_key(s))
    s._legal.clear()
    assert not any(isinstance(a, DeclareRecontract) for a in legal_actions(s, 0))


def test_c9_2_a_stray_pays_50_of_its_own_mp_every_turn_end_and_no_daily_upkeep():
    s, ev = cancelled(("saber", "lancer"))
    mp = s.camps[0].mp
    paid = find(ev, "StrayUpkeepPaid")
    assert [e.data for e in paid] == [{"seat": 0, "amount": 50}]  # from the cancelling Turn
    assert view_event(paid[0], 1) == {"type": "StrayUpkeepPaid", "seat": 0}
    s, ev = waits(s)
    s, ev2 = waits(s)
    assert s.camps[0].mp == mp - 100
    assert [e.data["seat"] for e in find(ev + ev2, "UpkeepPaid")] == [1]  # night: only seat 1


def test_c9_2_a_stray_that_cannot_pay_vanishes():
    s, _ = cancelled(("saber", "lancer", "archer"))
    s.edit(0).mp = 50
    s, ev = waits(s)
    assert not s.camps[0].alive
    assert view_event(find(ev, "StrayUpkeepUnpaid")[0], 1) == {"type": "StrayUpkeepUnpaid",
                                                                "seat": 0}


def test_c9_2_a_stray_has_no_master_skills_no_strokes_no_supply_and_investigates_at_0():
    s, _ = cancelled(masters=["han", "koga"])
    legal = legal_actions(s, 0)
    assert not any(isinstance(a, (DeclareSkill, SetSupply)) for a in legal)
    assert not any(type(a).__name__ == "UseCommandSpell" for a in legal)
    assert s.camps[0].master.investigation == 0 and not core.master_mp_open(s.camps[0])
    assert not spirit(s, 0)


def test_c9_3_the_vacant_master_keeps_its_mp_strokes_level_merit_bonds_worn_items_and_tag():
    s = cgame()
    bond = st.Bond("master", 1, "positive", 2)
    skill = s.camps[0].master.skills[0]
    st.update(s, 0, level=3, exp=(1, 2, 3, 4, 5), merit=(4, 6), tag="overseer",
              bonds=(bond, st.Bond("servant", 1, "negative", 1)),
              worn=(("mana_necklace", "master"), ("nekote", "servant")),
              skill_bonus=((skill, 10),))
    s.edit(0).master_mp = 77
    s, _ = run(s, DeclareCancelContract(0), DeclareWait(1))
    (vacant,) = st.state(s).vacant
    assert (vacant.master_mp, vacant.spells) == (77, 3)
    carried = vacant.record
    assert (carried.level, carried.exp, carried.merit, carried.tag) == (
        3, (1, 2, 3, 4, 5), (0, 6), "overseer")
    assert carried.bonds == (bond,) and carried.worn == (("mana_necklace", "master"),)
    assert carried.skill_bonus == ((skill, 10),)  # C2.6's checks bought go with the Master
    rec = st.record(s, 0)
    assert (rec.level, rec.merit, rec.tag, rec.worn) == (1, (4, 0), "", (("nekote", "servant"),))
    assert rec.skill_bonus == ()
    assert [b.holder for b in rec.bonds] == ["servant"]


def test_c9_3_a_camp_whose_servant_dies_leaves_its_master_vacant_on_its_square():
    s = cgame(("saber", "lancer", "archer"))
    s, _ = apply(s, SetSupply(1, False))
    s.edit(1).mp = 5  # cannot pay the night's upkeep without its Master
    square, master = s.camps[1].pos, s.camps[1].master.id
    for _ in range(3):
        s, ev = waits(s)
    assert not s.camps[1].alive
    assert [(v.master, v.square) for v in st.state(s).vacant] == [(master, square)]
    assert find(ev, "MasterVacated")[0].data == {"seat": 1, "master": master, "square": square}


def test_c9_4_a_stray_on_the_vacant_masters_square_recontracts_it_at_turn_end():
    s = cgame(("saber", "lancer"), masters=["han", "koga"])
    s.edit(0).master_mp = 150
    st.update(s, 0, level=2, merit=(1, 5))
    s, _ = run(s, DeclareCancelContract(0), DeclareWait(1))
    s, _ = run(s, DeclareCancelContract(1), DeclareWait(0))  # seat 1 cancels too
    place(s, 1, s.camps[0].pos)  # seat 1 stands on han's square
    s.edit(1).waits = 2
    assert DeclareRecontract(1, "han") in legal_actions(s, 1)
    s, ev = run(s, DeclareRecontract(1, "han"), DeclareWait(0))
    assert [view_event(e, 0) for e in find(ev, "Recontracted")] == [
        {"type": "Recontracted", "seat": 1, "master": "han", "square": s.camps[1].pos}]
    camp, rec = s.camps[1], st.record(s, 1)
    assert camp.master is s.rules.masters["han"] and (camp.master_mp, camp.spells) == (150, 3)
    assert (camp.waits, camp.unlocked, camp.draw_open) == (0, False, True)
    assert not rec.stray and (rec.level, rec.merit) == (2, (0, 5))
    assert [v.master for v in st.state(s).vacant] == ["koga"]
    contract = section_of(s, Contract)
    assert contract.upkeep(s, 1, 40) == 40 and contract.upkeep(s, 0, 40) is None


def test_c9_4_of_two_strays_claiming_one_master_the_first_to_resolve_gets_it():
    s = cgame(("saber", "lancer", "archer"))
    s, _ = run(s, DeclareCancelContract(0), DeclareCancelContract(1), DeclareWait(2))
    master = st.state(s).vacant[0].master
    place(s, 1, s.camps[0].pos)
    s, ev = run(s, DeclareRecontract(1, master), DeclareRecontract(0, master), DeclareWait(2))
    assert [e.data for e in find(ev, "ActionCancelled")] == [{"seat": 0, "kind": "recontract"}]
    assert s.camps[1].master.id == master and st.record(s, 0).stray


def swapped(**before) -> GameState:
    """Seats 0 (Master han) and 1 cancel in the first Turn; in the next, seat 1 (moved onto
    han's square) re-contracts han. `before` updates seat 0's record first; seat 2 holds
    points on seat 0 (Servant 1, 2, 0, 0; Master 2, 1, 0) and seat 0 on seat 2."""
    s = cgame(("saber", "lancer", "archer"), masters=["han", "koga", "baek"])
    st.update(s, 0, **before)
    st.put_info(s, 2, 0, st.Info((1, 2, 0, 0), (2, 1, 0)))
    st.put_info(s, 0, 2, st.Info((0, 1, 0, 0), (1, 0, 0)))
    s, _ = run(s, DeclareCancelContract(0), DeclareCancelContract(1), DeclareWait(2))
    place(s, 1, s.camps[0].pos)
    s, _ = run(s, DeclareRecontract(1, "han"), DeclareWait(0), DeclareWait(2))
    assert s.camps[1].master.id == "han"
    return s


def test_c1_1_c9_3_master_points_leave_with_the_master_servant_points_stay_on_the_servant():
    """The points others hold on a camp's Master are on that Master: at the cancel they go
    with it (the camp's Master counters are 0) and a re-contract brings them to its new camp;
    Servant points stay on the Servant; what a camp holds on others stays with the camp."""
    s = cgame(("saber", "lancer", "archer"), masters=["han", "koga", "baek"])
    st.put_info(s, 2, 0, st.Info((1, 2, 0, 0), (2, 1, 0)))
    s, _ = run(s, DeclareCancelContract(0), DeclareWait(1), DeclareWait(2))
    assert st.info_on(s, 2, 0) == st.Info((1, 2, 0, 0), (0, 0, 0))
    assert st.state(s).vacant[0].known == ((0, 0, 0), (0, 0, 0), (2, 1, 0))
    s = swapped()
    assert st.info_on(s, 2, 1).master == (2, 1, 0)  # on han, now seat 1's Master
    assert st.info_on(s, 2, 1).servant == (0, 0, 0, 0)  # seat 1's Servant: as it was
    assert st.info_on(s, 2, 0) == st.Info((1, 2, 0, 0), (0, 0, 0))
    assert st.info_on(s, 0, 2) == st.Info((0, 1, 0, 0), (1, 0, 0))  # held by the stray camp


def test_c9_4_c1_11_points_that_reveal_the_master_on_its_new_camp_tell_their_holder():
    """Seat 2's points on han (2, 1, 0: the name, C1.11) reveal it on seat 1 once seat 1
    re-contracts han: a MasterLearned to seat 2 alone; seat 3's (1, 1, 0) reveal nothing."""
    s = cgame(("saber", "lancer", "archer", "caster"), masters=["han", "koga", "baek", "seo"])
    st.put_info(s, 2, 0, st.Info((0, 0, 0, 0), (2, 1, 0)))
    st.put_info(s, 3, 0, st.Info((0, 0, 0, 0), (1, 1, 0)))
    s, _ = run(s, DeclareCancelContract(0), DeclareCancelContract(1), DeclareWait(2),
               DeclareWait(3))
    place(s, 1, s.camps[0].pos)
    s, ev = run(s, DeclareRecontract(1, "han"), DeclareWait(0), DeclareWait(2), DeclareWait(3))
    learned = [e for e in find(ev, "MasterLearned") if e.data["target"] == 1]
    assert [e.data for e in learned] == [{"seat": 2, "target": 1, "level": 1}]
    assert [x for x in range(4) if view_event(learned[0], x) is not None] == [2]
    seen = view_for(s, 2)["modules"]["campaign"]["state"]["info"]["1"]
    assert seen["master_name"]["en"] == s.rules.masters["han"].name.en


def test_c9_4_the_master_brings_its_points_merit_and_tag_and_new_internal_bonds_start_at_1():
    """C9.3/C9.4, C12.1, A42: the Master's level, skill and background points, Master merit
    and tag come with it; its own bonds too, but the bonds toward its new camp are the new
    internal ones at grade 1 (its old internal bond, toward seat 0, is now a bond toward
    another camp and stays)."""
    s = swapped(level=3, skill_points=1, background_points=2, merit=(4, 6),
                tag="holy_sword_sheath",
                bonds=(st.Bond("servant", 0, "positive", 4), st.Bond("master", 0, "positive", 5),
                       st.Bond("master", 1, "negative", 2), st.Bond("master", 2, "positive", 3)))
    new = st.record(s, 1)
    assert (new.level, new.skill_points, new.background_points, new.merit, new.tag) == (
        3, 1, 2, (0, 6), "holy_sword_sheath")
    assert sorted(new.bonds) == sorted((
        st.Bond("servant", 1, "positive", 1), st.Bond("master", 1, "positive", 1),
        st.Bond("master", 0, "positive", 5), st.Bond("master", 2, "positive", 3)))
    old = st.record(s, 0)
    assert (old.tag, old.merit, old.level) == ("", (4, 0), 1)
    # the stray's own, not raised by its Wait: no Master to spend it with (C8.10, C9.2)
    assert old.bonds == (st.Bond("servant", 0, "positive", 4),)


def test_c9_2_what_the_masters_skills_left_on_the_servant_goes_with_the_master():
    s = cgame(masters=["baek", "koga"])
    core.apply_effect(s, 0, s.rules.skills["reinforcement"].effect, "reinforcement", 2,
                      removable=True, owner=0)
    s.edit(0).skills_used = frozenset({"reinforcement"})
    s, _ = run(s, DeclareCancelContract(0), DeclareWait(1))
    assert not s.camps[0].buffs and s.camps[0].skills_used == frozenset()


# --- scenario files (tests/scenarios/campaign/) ------------------------------------------------
SCENARIOS = Path(__file__).parent / "scenarios" / "campaign"


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.toml")), ids=lambda p: p.stem)
def test_campaign_scenario_files_play_as_their_comments_say(path):
    """Each file plays to its end with every forced die used; each step's named events happen
    with the named fields; each camp ends with the named values (a Camp attribute, else a
    field of its campaign record; tuples are written as arrays)."""
    spec = tomllib.loads(path.read_text(encoding="utf-8"))
    s, log = play_steps(scenario.setup(spec), spec["step"])
    assert s.forced == ()
    for want in spec["expect"]["event"]:
        fields = {k: v for k, v in want.items() if k not in ("step", "type")}
        assert any(e.type == want["type"] and fields.items() <= e.data.items()
                   for e in log[want["step"] - 1]), want
    for seat, values in spec["expect"].get("camp", {}).items():
        camp, rec = s.camps[int(seat)], st.record(s, int(seat))
        for key, value in values.items():
            got = getattr(camp, key) if hasattr(camp, key) else getattr(rec, key)
            assert _as_toml(got) == value, (seat, key)


def _as_toml(value: object) -> object:
    """A record's value as a file writes it: tuples as arrays."""
    return [_as_toml(x) for x in value] if isinstance(value, tuple) else value


def test_a_scenario_race_is_the_race_every_rule_reads():
    """`[[camp]] race` (stray_race_residual.toml) is what `st.race` answers, so C2.5's Master
    MP per level follows it: at level 3, Koga gains the artificial race's MP, not a human's."""
    path = SCENARIOS / "stray_race_residual.toml"
    s = scenario.setup(tomllib.loads(path.read_text(encoding="utf-8")))
    data = s.modules[0].data
    assert data.masters["koga"].race == "human" and st.race(s, 0, data) == "artificial"
    st.update(s, 0, level=3)
    assert st.level_master_mp(s, 0, data) == 2 * data.master_mp_per_level["artificial"]
    assert data.master_mp_per_level["artificial"] != data.master_mp_per_level["human"]
