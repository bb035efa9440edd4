"""The campaign's §0: the contract, spirit form and upkeep (C0.1-C0.8; spec
shared/modules/002-campaign.md, docs/rules.md chapter 12)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from grailwar.shared.bots import make_bot
from grailwar.shared.engine import apply, core, legal_actions
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
from grailwar.shared.modules.campaign.contract import Contract, SetSupply
from grailwar.shared.modules.campaign.section import section_of
from helpers import find, game, place

MATERIALIZE = 30
DECLARATIONS = (DeclareEncounter, DeclareAmbush, DeclareSoulEating, DeclareSkill)


def cgame(classes: Sequence[str] = ("saber", "lancer"), **kw) -> GameState:
    return game(classes, modules=["campaign"], **kw)


def run(s: GameState, *actions) -> tuple[GameState, list[Event]]:
    """Apply each action in turn; every event of all of them."""
    events: list[Event] = []
    for action in actions:
        s, ev = apply(s, action)
        events += ev
    return s, events


def waits(s: GameState) -> tuple[GameState, list[Event]]:
    """Every living camp declares Wait: one Turn goes by."""
    return run(s, *(DeclareWait(x) for x in sorted(s.prompt.seats)))


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
    assert [e.data for e in recovered] == [{"seat": 0, "master_mp": gain}]
    assert view_event(recovered[0], 1) is None  # private to its camp


@pytest.mark.parametrize(("master_mp", "paid"), [(100, 5), (3, 3)])
def test_c0_6_a_supplied_berserkers_master_pays_5_at_each_turn_end(master_mp, paid):
    s = cgame(("berserker", "lancer"))
    s.edit(0).master_mp = master_mp
    s.edit(1).master_mp = master_mp
    s, ev = waits(s)
    assert (s.camps[0].master_mp, s.camps[1].master_mp) == (master_mp - paid, master_mp)
    assert [e.data for e in find(ev, "BerserkerSupplyPaid")] == [{"seat": 0, "master_mp": paid}]
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
    """Over a random campaign game, the campaign's actions offered are only those of §0 and
    §1 and none moves MP to another camp: there is nothing like a circuit link to offer."""
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
              "Wear", "UseItem", "RepairDoll"}
    assert seen <= {"SetSupply", "DeclareResearch", "ShareRumor", *others} and "SetSupply" in seen
    campaign_types = {n for n, t in ACTION_TYPES.items()
                      if t.__module__.startswith("grailwar.shared.modules.campaign")}
    assert not any("Mana" in n or "Circuit" in n for n in campaign_types)


def test_move_stays_free_in_spirit_form():
    s = cgame()
    s, _ = apply(s, SetSupply(0, False))
    moves = [a for a in legal_actions(s, 0) if isinstance(a, Move)]
    assert moves and DeclareRest(0) in legal_actions(s, 0)
