"""The campaign combined with the colossus and with tactics (spec 002 §6 "Switching on, and
combining", spec 003 §6): one test per point, with forced dice where chance decides, and a whole
bot game of each combination. docs/rules.md 12 "Combining" states each rule.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from grailwar.shared.bots import make_bot
from grailwar.shared.bots.match import run_match
from grailwar.shared.engine import apply, core, legal_actions, new_game, view_for
from grailwar.shared.engine.actions import (
    AnswerIntervention,
    Attack,
    DeclareDisengage,
    DeclareNoblePhantasm,
    DeclareWait,
    Move,
    React,
    Ready,
    UseCommandSpell,
    UseSkill,
    Wait,
)
from grailwar.shared.engine.events import view_event
from grailwar.shared.engine.state import GameState
from grailwar.shared.modules.campaign import state as st
from grailwar.shared.modules.campaign.bonds import SetBond
from grailwar.shared.modules.campaign.contract import SetSupply
from grailwar.shared.modules.campaign.data import METHODS
from grailwar.shared.modules.campaign.merit import EscapeWithMerit
from grailwar.shared.modules.campaign.plus import ActivatePlus
from grailwar.shared.modules.campaign.stances import ChooseStance
from grailwar.shared.modules.colossus import Colossus, DeclareRaid
from grailwar.shared.modules.colossus.actions import AttackPart, EndClimb, FireAtPart
from grailwar.shared.modules.tactics import Concentrate, ConcentrateCast
from grailwar.shared.modules.tactics.data import load_tactics
from helpers import act, act_all, battle_at, find, game, place, ready_all, to_main
from test_colossus import wait_ground
from test_hidden_info import CampaignAudit
from test_tactics import MAGE, MASTERS, SKILL_DICE, check_value, concentration, moves, uses

WAR = ["campaign", "colossus"]
WAKE_DAY1 = {"colossus": {"colossus_day": 1}}
BOTH = ("tactics", "campaign")
DATA = load_tactics(MAGE)
RESOURCES = Path(__file__).parent.parent / "resources"
COMBAT = METHODS.index("combat")
KILL_DICE = [4, 4, 5, 5]  # a natural 8 on the shin hits (≥ 9 with Saber's STR), 2D10 = 10


def colossus(s: GameState) -> Colossus:
    return next(m for m in s.modules if isinstance(m, Colossus))


def raid_war(homes: tuple[int, int] = (40, 41), hp: int | None = None) -> GameState:
    """A campaign Grail War, Saber and Lancer: the colossus woke on square 41 on day 1; each
    camp (on its home square) declared Raid; round 1's start (its HP set to `hp`)."""
    s = game(("saber", "lancer"), modules=WAR, options=WAKE_DAY1)
    for seat, home in enumerate(homes):
        place(s, seat, home)
    for seat in (0, 1):
        s, _ = apply(s, DeclareRaid(seat))
    assert s.prompt.kind == "raid_start", s.prompt
    if hp is not None:
        s = s.clone()
        colossus(s).put(s, hp=hp)
    return s


def raid_ready(s: GameState) -> GameState:
    for seat in sorted(s.prompt.seats):
        s, _ = apply(s, Ready(seat))
    assert s.prompt.kind == "raid_ground"
    return s


def combat_exp(s: GameState, seat: int) -> int:
    return st.record(s, seat).exp[COMBAT]


def exp_sources(events, seat: int) -> list[str]:
    return [e.data["source"] for e in find(events, "ExperienceGained")
            if e.data["seat"] == seat and e.data["method"] == "combat"]


# --- campaign + colossus (spec 002 §6, 003 §6) ----------------------------------------------------
def test_the_destroying_raid_is_a_win_pays_funds_and_the_killing_blow_merit():
    """Every raider of the destroying raid: +1 combat for taking part, +1 for the win, +5 funds;
    the killer also +1 for the front row and +2 Servant merit (the colossus_slayer event, its
    own camp's secret)."""
    s = raid_ready(raid_war(hp=10))
    killer = min(s.prompt.seats)
    other = 1 - killer
    funds = [st.record(s, x).funds for x in (0, 1)]
    s, events = act(s, AttackPart(killer, "shin", "B", "B"), KILL_DICE)
    assert find(events, "ColossusDestroyed")[0].data["killer"] == killer
    assert exp_sources(events, killer) == ["battle", "front_row", "win"]
    assert exp_sources(events, other) == ["battle", "win"]
    assert [st.record(s, x).funds - funds[x] for x in (0, 1)] == [5, 5]
    assert st.record(s, killer).merit == (2, 0) and st.record(s, other).merit == (0, 0)
    (slain,) = find(events, "EventTriggered")
    assert slain.data == {"event": "colossus_slayer", "camps": [killer]}
    assert slain.private == {killer}
    assert st.state(s).raid is None


def test_a_raid_that_does_not_destroy_it_gives_combat_but_no_win_no_funds_no_merit():
    """A raid that ends at its round limit: +1 combat each, +1 for the raider that struck."""
    s = raid_ready(raid_war())
    s = s.clone()
    colossus(s).put_raid(s, round=6)
    striker = min(s.prompt.seats)
    funds = [st.record(s, x).funds for x in (0, 1)]
    s, events = act(s, AttackPart(striker, "shin", "B", "B"), KILL_DICE)
    s = wait_ground(s)
    while s.prompt.kind == "raid_reaction":  # step 6, the roar: everyone Guards, hit or not
        s, more = act(s, React(min(s.prompt.seats), "G", ""), [1, 1, 1, 1])
        events += more
    while s.prompt.kind in ("raid_ground", "climb"):
        s, more = apply(s, legal_actions(s, min(s.prompt.seats))[0])
        events += more
    assert find(events, "RaidEnded")[0].data["reason"] == "round_limit"
    assert exp_sources(events, striker) == ["battle", "front_row"]
    assert exp_sources(events, 1 - striker) == ["battle"]
    assert [st.record(s, x).funds for x in (0, 1)] == funds
    assert not find(events, "EventTriggered") and st.record(s, striker).merit == (0, 0)


def test_fellow_raiders_have_met_encounter_points_and_a_bond_next_turn():
    """Raiders from two squares (40, 39) meet in the raid: at the Turn's end each gains an
    Encounter point on the other, and SetBond toward it is offered at the next declaration;
    the colossus (no camp) gives no information point, and raiders no Combat point."""
    s = raid_ready(raid_war(homes=(40, 39), hp=10))
    s, events = act(s, AttackPart(min(s.prompt.seats), "shin", "B", "B"), KILL_DICE)
    assert [s.camps[x].pos for x in (0, 1)] == [40, 39]  # home again: not on one square
    gained = {(e.data["seat"], e.data["source"]) for e in find(events, "InfoGained")}
    assert gained == {(0, "encounter"), (1, "encounter")}
    assert st.info_on(s, 0, 1).servant[0] == 1 and st.info_on(s, 1, 0).servant[0] == 1
    assert s.prompt.kind == "declare"
    assert SetBond(0, "servant", 1, "positive") in legal_actions(s, 0)


def test_stances_apply_in_a_raid_normal_first_then_chosen_and_the_np_in_its_stance():
    """Round 1 of a raid is in the normal stance, with no ChooseStance and no Noble Phantasm
    declaration (normal never holds it, C5.8); from round 2 ChooseStance is offered once a
    Round, and the critical stance (which holds the NP) lets Saber declare it at COLOSSUS."""
    s = game(("saber", "lancer"), modules=WAR, options=WAKE_DAY1)
    st.update(s, 0, stance_now="critical")  # left over from an earlier battle
    for seat in (0, 1):
        place(s, seat, 41)
        s, _ = apply(s, DeclareRaid(seat))
    s, _ = apply(s, Ready(1))
    assert st.record(s, 0).stance_now == "normal"
    legal = legal_actions(s, 0)
    assert not any(isinstance(a, ChooseStance | DeclareNoblePhantasm) for a in legal)
    s = s.clone()
    colossus(s).put_raid(s, round=2)
    s._legal.clear()
    legal = legal_actions(s, 0)
    assert ChooseStance(0, "critical") in legal
    assert not any(isinstance(a, DeclareNoblePhantasm) for a in legal)
    s, events = apply(s, ChooseStance(0, "critical"))
    assert find(events, "StanceChosen")[0].private == {0}
    legal = legal_actions(s, 0)
    assert not any(isinstance(a, ChooseStance) for a in legal)
    assert DeclareNoblePhantasm(0, 100) in legal


def test_a_raiders_noble_phantasm_gives_each_fellow_raider_a_legend_point():
    """C1.5 (i), C1.9 in a raid: Saber fires its NP at the colossus (round 2, in the critical
    stance that holds it); Lancer gains a Legend point on Saber and learns the NP."""
    s, _ = apply(raid_war(), Ready(1))
    s = s.clone()
    colossus(s).put_raid(s, round=2)
    st.update(s, 0, stance_now="critical")
    s._legal.clear()
    s, _ = apply(s, DeclareNoblePhantasm(0, 100))
    s, _ = apply(s, Ready(0))
    while s.prompt.seats != {0}:
        s, _ = apply(s, legal_actions(s, min(s.prompt.seats))[0])
    s, events = act(s, FireAtPart(0, "shin"), [6, 6, *[5] * 10])
    gained = [(e.data["seat"], e.data["category"]) for e in find(events, "InfoGained")
              if e.data["source"] == "np"]
    assert gained == [(1, "legend")]
    assert [e.private for e in find(events, "NoblePhantasmDisclosed")] == [{1}]
    assert st.info_on(s, 1, 0).np_known and not st.info_on(s, 0, 1).np_known


def plus_offers(s: GameState, seat: int) -> set[str]:
    return {a.what for a in legal_actions(s, seat) if isinstance(a, ActivatePlus)}


def plus_round(s: GameState, what: str) -> tuple[GameState, set[str]]:
    """Walk the raid Round to its end (Ready, Wait, Guard, EndClimb), checking at each prompt of
    seat 0 that `what`, activated this Round, is not offered again while another "+" is;
    returns the state and the prompt kinds seat 0 had."""
    kinds = set()
    start = colossus(s).raid(s).round
    while colossus(s).raid(s).round == start:
        kind, seat = s.prompt.kind, min(s.prompt.seats)
        if 0 in s.prompt.seats:
            offers = plus_offers(s, 0)
            assert what not in offers and "param:end" in offers, kind
            kinds.add(kind)
            seat = 0
        action = {"raid_start": Ready(seat), "raid_ground": Wait(seat),
                  "raid_reaction": React(seat, "G", "")}.get(kind, EndClimb(seat))
        s, _ = apply(s, action)
    return s, kinds


def test_activate_plus_at_every_raid_prompt_once_per_what_per_raid_round():
    """C4.3 "any battle prompt the seat receives": a raider is offered ActivatePlus at the
    raid's round start, its ground phase and its Reaction (Round 2's stomp); the "+" counts in
    the raid (STR +10 here: a fake "+" for 1 merit, C3.5), is offered at no other prompt of
    that Round, and is offered again in the next raid Round, which no longer has it."""
    s = raid_war().clone()
    st.update(s, 0, merit=(10, 0))
    s._legal.clear()
    strength = core.param(s, s.camps[0], "str")
    s, events = apply(s, ActivatePlus(0, "param:str", "merit"))
    assert [view_event(e, 1) for e in find(events, "PlusActivated")] == [
        {"type": "PlusActivated", "seat": 0, "what": "param:str", "pay": "merit"}]
    assert core.param(s, s.camps[0], "str") == strength + 10
    s, kinds = plus_round(s, "param:str")
    assert kinds == {"raid_start", "raid_ground"}
    assert "param:str" in plus_offers(s, 0) and core.param(s, s.camps[0], "str") == strength
    s, _ = apply(s, Ready(min(s.prompt.seats)))
    if s.prompt.kind == "raid_start":
        s, _ = apply(s, Ready(min(s.prompt.seats)))
    while 0 not in s.prompt.seats:
        s, _ = apply(s, Wait(min(s.prompt.seats)))
    assert s.prompt.kind == "raid_ground"  # taken at another prompt this time
    s, _ = apply(s, ActivatePlus(0, "param:str", "merit"))
    s, kinds = plus_round(s, "param:str")
    assert "raid_reaction" in kinds
    price = campaign_data(s).numbers.fake_plus_merit
    assert "param:str" in plus_offers(s, 0) and st.record(s, 0).merit == (10 - 2 * price, 0)


def test_the_raid_hand_is_the_campaign_pool():
    """A raider's hand is filled from its pool (grown here by two Buster tiles: one more card),
    as at a battle's start; the sheet's own composition is not used."""
    s = game(("saber", "lancer"), modules=WAR, options=WAKE_DAY1)
    rec = st.record(s, 0)
    st.update(s, 0, pool=(rec.pool[0] + 2, *rec.pool[1:]))
    pool = st.cards(st.record(s, 0), campaign_data(s))
    assert len(pool) == len(s.camps[0].servant.cards) + 1
    for seat in (0, 1):
        place(s, seat, 41)
        s, _ = apply(s, DeclareRaid(seat))
    assert sorted(s.camps[0].hand) == sorted(pool)


@pytest.mark.parametrize(("mp", "offered"), [(31, True), (30, False)])
def test_a_spirit_form_camp_materializes_to_raid(mp, offered):
    """A raid is a battle: a camp in spirit form may declare Raid only if its Servant's own MP
    is above materialize_mp (30), and declaring it materializes it (C0.3)."""
    s = game(("saber", "lancer"), modules=WAR, options=WAKE_DAY1)
    place(s, 0, 40)
    s, _ = apply(s, SetSupply(0, False))
    s.edit(0).mp = mp
    s._legal.clear()
    assert (DeclareRaid(0) in legal_actions(s, 0)) == offered
    if offered:
        s, events = apply(s, DeclareRaid(0))
        assert find(events, "Materialized") and s.camps[0].mp == mp - 30


def answers(s: GameState, seat: int) -> list[AnswerIntervention]:
    """The join and stay answers offered (the offer has ActivatePlus too, C4.3)."""
    return [a for a in legal_actions(s, seat) if isinstance(a, AnswerIntervention)]


def test_a_spirit_form_camp_offered_a_raid_materializes_to_join():
    """A camp in spirit form that declared Wait beside the colossus is offered to join the raid
    as an intervention; joining materializes it, and without the MP only Stay is offered."""
    s = game(("saber", "lancer"), modules=WAR, options=WAKE_DAY1)
    place(s, 0, 41)
    place(s, 1, 40)
    s, _ = apply(s, SetSupply(1, False))
    s, _ = apply(s, DeclareRaid(0))
    s, _ = apply(s, DeclareWait(1))
    assert s.prompt == ("raid_offer", {1})
    assert answers(s, 1) == [AnswerIntervention(1, True), AnswerIntervention(1, False)]
    assert ActivatePlus(1, "param:str", "mp") not in legal_actions(s, 1)  # no "+" on it
    assert "np" in plus_offers(s, 1)  # C4.3: the raid's offer is an intervention offer
    mp = s.camps[1].mp
    joined, events = apply(s, AnswerIntervention(1, True))
    assert find(events, "Materialized") and joined.camps[1].mp == mp - 30
    s.edit(1).mp = 30
    s._legal.clear()
    assert answers(s, 1) == [AnswerIntervention(1, False)]


@pytest.mark.parametrize("on_post", [True, False])
def test_a_gatekeeper_raids_only_a_colossus_on_its_post(on_post):
    """⑧ The gatekeeper fights only on its start square: Raid is offered only while the
    colossus stands there (the raid is fought on the colossus's square)."""
    s = game(("saber", "lancer"), modules=WAR, options=WAKE_DAY1)
    st.update(s, 0, tag="gatekeeper")
    post = s.camps[0].pos
    s = s.clone()
    colossus(s).put(s, square=post if on_post else 41)
    s._legal.clear()
    assert (DeclareRaid(0) in legal_actions(s, 0)) == on_post


def campaign_data(s: GameState):
    """The campaign's data (its pool rules) of a running game."""
    return next(m for m in s.modules if m.name == "campaign").data


# --- campaign + tactics (spec 002 §6, 003 §6) -----------------------------------------------------
def arena2(classes, squares, modules=BOTH, rules=MAGE, masters=MASTERS, **kw) -> GameState:
    return battle_at(classes, squares, rules=rules, modules=modules,
                     masters=masters[:len(classes)], **kw)


@pytest.mark.parametrize("modules", [BOTH, ("tactics",)])
def test_legality_filters_intersect_line_of_fire_and_the_lead_set(modules):
    """Archer (seat 0) at (4,1): Caster at (6,1) behind the Hospital is out of its line of
    fire (tactics), and with the campaign on, its lead set (the first 5 + fame cards of the
    normal arrangement QQQQQAAB...) leaves no Buster card for its lead exchange."""
    order = "QQQQQAAB"
    for target_square, line in (((6, 1), False), ((4, 2), True)):
        s = arena2(("archer", "caster"), [(4, 1), target_square], modules=modules)
        if "campaign" in modules:
            per = campaign_data(s).numbers.tiles_per_card
            stances = st.record(s, 0).stances
            st.update(s, 0, pool=(per, 2 * per, 5 * per),
                      stances=(stances[0]._replace(order=order), *stances[1:]))
        s = to_main(s, 0)
        attacks = {a.card for a in legal_actions(s, 0) if isinstance(a, Attack)}
        lead_ok = "campaign" not in modules
        want = ({"B", "A", "Q"} if lead_ok else {"A", "Q"}) if line else set()
        assert attacks & {"B", "A", "Q"} == want


def caster_at_main(modules=BOTH, squares=((3, 3), (3, 3))) -> GameState:
    s = arena2(("caster", "saber"), list(squares), modules=modules, masters=("baek", "seo"))
    return to_main(s, 0)


def test_mr_step_is_held_once_in_the_shared_magecraft_file(tmp_path):
    """The tactics module reads `mr_step` from modules/magecraft.toml, the file the campaign
    reads too: a house rule changes it for both."""
    for folder in ("tactics", "modules"):
        shutil.copytree(RESOURCES / folder, tmp_path / folder)
    shared = tmp_path / "modules" / "magecraft.toml"
    shared.write_text(shared.read_text(encoding="utf-8").replace("mr_step = 10", "mr_step = 7"),
                      encoding="utf-8")
    assert load_tactics(MAGE, root=tmp_path).mr_step == 7
    assert "mr_step =" not in (RESOURCES / "tactics" / "rules.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize(("modules", "lowered"), [(BOTH, 20), (("campaign",), 20),
                                                  (("tactics",), 0)])
def test_mr_from_a_campaign_item_lowers_a_hostile_check_once(modules, lowered):
    """The Holy Shroud's `mr` +2 (a campaign item worn by Saber) lowers Bog Song's check by
    mr_step × 2, counted once with both modules on (the one definition of `mr`)."""
    s = caster_at_main(modules)
    if "campaign" in modules:
        st.update(s, 1, worn=(("holy_shroud", "servant"),))
    base = s.rules.skills["bog_song"].check
    _, events = act_all(s, UseSkill(0, "bog_song", 1), SKILL_DICE["bog_song"])
    assert check_value(events) == base - lowered


def test_concentration_and_campaign_items_add_up_on_one_check():
    """The modules' check modifiers add up: a successful ConcentrateCast of Bog Song (Caster
    MAG A: level 6, +30, tactics) with Caster's Magus Cloak (+20, campaign) against Saber's
    Holy Shroud (`mr` 2: −20, the campaign's item through tactics' T6.1)."""
    s = caster_at_main()
    st.update(s, 0, worn=(("magus_cloak", "servant"),))
    st.update(s, 1, worn=(("holy_shroud", "servant"),))
    _, events = act_all(s, ConcentrateCast(0, "bog_song", 1),
                        [*concentration(s, 0, True), *SKILL_DICE["bog_song"]])
    base = s.rules.skills["bog_song"].check
    assert check_value(events) == base + 20 - 20 + DATA.lower_resistance_per_level * 6


def bog_song_on_saber(endure: bool, absolute: bool) -> tuple[GameState, int]:
    """Caster's Bog Song on Saber (both modules on), Saber having declared Endure (tactics,
    with a successful roll) and/or Absolute Defense (the campaign's Command Spell) at the
    round start: the state after, and Saber's HP lost."""
    s = arena2(("caster", "saber"), [(3, 3), (3, 3)], masters=("baek", "seo"))
    if endure:
        s, _ = apply(s, Concentrate(1, "endure"))
    if absolute:
        s, _ = apply(s, UseCommandSpell(1, "absolute_defense", ""))
    s = to_main(s, 0)
    hp = s.camps[1].hp
    dice = [1, 10, 10, *(concentration(s, 1, True) if endure else [])]
    s, _ = act_all(s, UseSkill(0, "bog_song", 1), dice)
    return s, hp - s.camps[1].hp


def test_damage_hooks_of_both_modules_act_on_one_instance(monkeypatch):
    """The modules' damage hooks chain on one instance: Endure halves Bog Song's damage
    (tactics, first in the registry), then Absolute Defense (the campaign; its floor set to 0
    here) takes the halved amount, which is what it waived."""
    spells = campaign_data(arena2(("caster", "saber"), [(3, 3), (3, 3)])).spells
    monkeypatch.setitem(spells, "absolute_defense_floor", (0, 0))  # all of it is waived
    _, full = bog_song_on_saber(False, False)
    _, halved = bog_song_on_saber(True, False)
    s, both = bog_song_on_saber(True, True)
    assert halved == full // 2 > 0 and both == 0
    assert dict(st.state(s).battle.protected)[1] == halved  # not the full amount


@pytest.mark.parametrize(("modules", "level"), [(BOTH, 4), (("tactics",), None)])
def test_a_master_skills_caster_level_is_the_campaign_level(modules, level):
    """T4.2 for the Master's Curse: +5 × the Master's campaign level (4 here) with the campaign
    on, +5 × master_caster_level (3) without it."""
    s = caster_at_main(modules)
    if level:
        st.update(s, 0, level=level)
    base = s.rules.skills["curse"].check
    _, events = act_all(s, ConcentrateCast(0, "curse", 1),
                        [*concentration(s, 0, True), *SKILL_DICE["curse"]])
    want = level or DATA.master_caster_level
    assert check_value(events) == base + DATA.lower_resistance_per_level * want
    assert uses(_)[0] == DATA.concentration_uses - 1


@pytest.mark.parametrize("device", ["", "eye_of_searching", "crystal_ball"])
def test_scouting_devices_and_the_crystal_ball_give_sight_for_hostile_skills(device):
    """T2.1 "through an item": Saber 5 squares away is out of sight (3), so Bog Song cannot
    aim at it; an Eye on its square, or the Crystal Ball watching it this Turn, lets it."""
    s = caster_at_main(squares=((0, 0), (5, 0)))
    if device == "eye_of_searching":
        st.update(s, 0, devices=(st.Device(device, s.camps[1].pos, 2),))
    elif device:
        st.update(s, 0, devices=(st.Device(device, 1, 1),))  # the ball's square: the seat
    s._legal.clear()
    assert (UseSkill(0, "bog_song", 1) in legal_actions(s, 0)) == bool(device)


@pytest.mark.parametrize("modules", [BOTH, ("campaign",)])
def test_escape_with_merit_waives_the_disengage_penalty_but_not_zoc(modules):
    """Assassin disengages from Saber's square with EscapeWithMerit: without tactics it runs
    its full Movement (no −2); with tactics Saber's zone still holds it to one square."""
    s = arena2(("assassin", "saber"), [(3, 2), (3, 2)], modules=modules)
    st.update(s, 0, merit=(1, 0))
    s, _ = act_all(s, DeclareDisengage(0))
    assert EscapeWithMerit(0) in legal_actions(s, 0)
    s, _ = act_all(s, EscapeWithMerit(0))
    s = ready_all(s)
    assert s.prompt == ("main", {0}) and st.record(s, 0).merit == (0, 0)
    run = s.camps[0].servant.movement  # its whole Movement: the run's −2 is waived
    assert set(moves(s, 0).values()) == ({1} if "tactics" in modules else {run})


def test_a_spirit_form_camp_is_in_no_battle_so_zoc_never_touches_it():
    """A spirit-form Saber beside Assassin's path projects no zone (Assassin passes (3,3), which
    Saber's zone would cover were it a combatant) and no zone is drawn for it."""
    s = arena2(("assassin", "lancer", "saber"), [(3, 4), (6, 4), (2, 3)], fighters=2)
    st.update(s, 2, supply_on=False)
    s = to_main(s, 0)
    assert 2 not in s.battle.seats
    assert (3, 1) in moves(s, 0)
    zones = view_for(s, 0)["modules"]["tactics"]["state"]["zoc"]
    assert {z["seat"] for z in zones} == {0, 1}
    assert not any(isinstance(a, Move) and a.seat == 2 for a in legal_actions(s, 2))


# --- whole bot games (spec 002 §7, 003 §7) --------------------------------------------------------
@pytest.mark.parametrize("options", [{}, {"colossus": {"colossus_day": 1}},
                                     {"colossus": {"scenario": "colossus_raid"}}])
def test_a_whole_bot_game_of_each_combination_ends(options):
    """Campaign + tactics, campaign + the colossus in a Grail War, and in a raid room: bots
    play a short game to its end without an error."""
    modules = ["campaign", "tactics", *options]
    s = new_game(seed=3, classes=["saber", "lancer", "archer"], modules=modules,
                 options={"campaign": {"tags": "random"}, **options}, day_limit=3)
    run_match(s, [make_bot("normal", 3 + i) for i in range(3)], arrival_seed=3)
    assert s.over


def test_the_normal_bot_raids_a_campaign_raid_room_and_fires_its_np_in_the_right_stance():
    """In a campaign raid room the bots walk to the colossus instead of to the shops, raid it
    again and again, and choose the NP's stance in a raid so that Noble Phantasms fire."""
    s = new_game(seed=3, classes=["saber", "lancer", "archer"], modules=WAR,
                 options={"colossus": {"scenario": "colossus_raid"}})
    fired: list = []
    run_match(s, [make_bot("normal", 3 + i) for i in range(3)], arrival_seed=3,
              on_step=lambda _s, events: fired.extend(find(events, "NoblePhantasmFired")))
    assert s.over and colossus(s).st(s).raids >= 3 and fired


@pytest.mark.parametrize("options", [{}, {"colossus": {"colossus_day": 1}}])
def test_no_campaign_secret_leaks_in_a_combined_bot_game(options):
    """The campaign's leak audit (every view and event of every seat and the spectator, each
    row of the spec's table and the base secrets) over a whole bot game with tactics, and with
    the colossus: nothing hidden shows."""
    audit = CampaignAudit()
    audit.play("normal", 9, ("campaign", "tactics", *options), options=options, day_limit=3)
    leaks = {kind: audit.found[kind] for kind, count in audit.counts.items() if count}
    assert not leaks, leaks
