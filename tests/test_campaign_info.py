"""The campaign's §1: information points (C1.1-C1.15; spec shared/modules/002-campaign.md,
docs/rules.md chapter 12). Whole-game leak checks are in tests/test_hidden_info.py."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from grailwar.shared.engine import apply, core, legal_actions, view_for
from grailwar.shared.engine.actions import (
    DeclareEncounter,
    DeclareInvestigate,
    DeclareNoblePhantasm,
    DeclareWait,
    Negotiate,
    OfferTruce,
    Ready,
    UseNoblePhantasm,
)
from grailwar.shared.engine.events import Event, view_event
from grailwar.shared.engine.state import GameState
from grailwar.shared.modules.campaign import state as st
from grailwar.shared.modules.campaign.contract import SetSupply
from grailwar.shared.modules.campaign.info import DeclareResearch, Information, ShareRumor
from grailwar.shared.modules.campaign.section import section_of
from helpers import bare, battle_at, duel, faces, find, game, place, run, to_main, waits

S, M = "servant", "master"


MASTERS = ("kujo", "baek", "seo")  # investigation +0, +0, +1, no investigation skill


def cgame(classes: Sequence[str] = ("saber", "lancer"), **kw) -> GameState:
    kw.setdefault("masters", MASTERS[:len(classes)])
    return game(classes, modules=["campaign"], **kw)






def info(s: GameState, holder: int, other: int) -> st.Info:
    return st.info_on(s, holder, other)


def gained(events: list[Event], holder: int) -> list[tuple[int, str, str, str]]:
    return [(e.data["target"], e.data["side"], e.data["category"], e.data["source"])
            for e in find(events, "InfoGained") if e.data["seat"] == holder]


def section(s: GameState) -> Information:
    return section_of(s, Information)


def seed_info(s: GameState, holder: int, other: int, servant: Sequence[int] = (0, 0, 0, 0),
              master: Sequence[int] = (0, 0, 0)) -> None:
    """Give `holder` points on `other` without events (a test set-up)."""
    st.put_info(s, holder, other, st.Info(tuple(servant), tuple(master)))


def truce(s: GameState) -> tuple[GameState, list[Event]]:
    """Every combatant offers a truce and is Ready: the battle ends at once."""
    seats = sorted(s.battle.seats)
    return run(s, *(OfferTruce(x) for x in seats), *(Ready(x) for x in seats))


def investigate(s: GameState, seat: int, cls: str, natural: int) -> tuple[GameState,
                                                                          list[Event]]:
    others = [DeclareWait(x) for x in sorted(s.prompt.seats) if x != seat]
    return run(s, DeclareInvestigate(seat, cls), *others, dice=faces(natural))


def research(s: GameState, seat: int, cls: str, dice: Sequence[int] = ()) -> tuple[
        GameState, list[Event]]:
    others = [DeclareWait(x) for x in sorted(s.prompt.seats) if x != seat]
    return run(s, DeclareResearch(seat, cls), *others, dice=dice)


def bonus(s: GameState, seat: int) -> int:
    """The Master's investigation modifier with its mods (Investigate's and Research's)."""
    camp = s.camps[seat]
    return camp.master.investigation + core.mod(s, camp, "investigation")


# --- C1.1, C1.4 Investigate gives Rumor points, not tiers --------------------------------------
def test_c1_1_c1_4_a_successful_investigate_gives_a_rumor_point_on_each_side_not_a_tier():
    s = cgame()
    need = 6 - bonus(s, 0)
    s, ev = investigate(s, 0, "lancer", need)
    assert info(s, 0, 1) == st.Info((0, 1, 0, 0), (0, 1, 0))
    assert gained(ev, 0) == [(1, S, "rumor", "investigate"), (1, M, "rumor", "investigate")]
    assert s.camps[0].known == (0,) * 7  # one point reveals nothing (C1.7 needs 3)
    assert [e.data for e in find(ev, "Investigated")] == [
        {"seat": 0, "cls": "lancer", "tier": 0, "success": True}]
    s, ev = investigate(s, 0, "lancer", need - 1)
    assert info(s, 0, 1).servant == (0, 1, 0, 0) and not find(ev, "InfoGained")


def test_c1_4_investigate_stays_legal_after_the_true_name():
    s = cgame()
    seed_info(s, 0, 1, (6,) * 4)
    st.put_info(s, 0, 1, info(s, 0, 1)._replace(true_name=True))
    s.edit(0).known = (0, 0, 3, 0, 0, 0, 0)
    assert DeclareInvestigate(0, "lancer") in legal_actions(s, 0)


# --- C1.2 Encounter points --------------------------------------------------------------------
def test_c1_2_a_negotiation_and_a_shared_square_each_count_once_per_turn():
    s = cgame(("saber", "lancer", "archer"))
    for seat in (0, 1):
        place(s, seat, 10)
    place(s, 2, 30)
    s, ev = run(s, DeclareEncounter(0, 1, "negotiate"), DeclareWait(2), Negotiate(0, False),
                Negotiate(1, False))
    for x, y in ((0, 1), (1, 0)):
        assert gained(ev, x) == [(y, S, "encounter", "encounter"),
                                 (y, M, "encounter", "encounter")]
    assert info(s, 0, 1) == st.Info((1, 0, 0, 0), (1, 0, 0)) and gained(ev, 2) == []
    assert st.record(s, 0).met_last_turn == {1} and st.record(s, 0).met_now == frozenset()


@pytest.mark.parametrize(("spirit", "meets"), [(False, True), (True, False)])
def test_c1_2_on_one_square_at_turn_end_camps_meet_unless_one_is_in_spirit_form(spirit, meets):
    s = cgame()
    for seat in (0, 1):
        place(s, seat, 10)
    if spirit:
        s, _ = apply(s, SetSupply(1, False))
    s, ev = waits(s)
    assert bool(gained(ev, 0)) is meets and bool(gained(ev, 1)) is meets


# --- C1.3 Combat points -------------------------------------------------------------------------
def test_c1_3_each_combatant_gains_a_combat_point_on_each_other_once_per_pair_per_turn():
    s = duel(("saber", "lancer"), modules=["campaign"])
    s, ev = truce(s)
    assert gained(ev, 0)[:2] == [(1, S, "combat", "combat"), (1, M, "combat", "combat")]
    assert gained(ev, 1)[:2] == [(0, S, "combat", "combat"), (0, M, "combat", "combat")]
    assert info(s, 0, 1).servant[2] == 1 and info(s, 0, 1).master[2] == 1


def test_c1_3_a_second_battle_end_in_the_same_turn_gives_no_second_point():
    s = duel(("saber", "lancer"), modules=["campaign"])
    sec = section(s)
    sec.on_battle_end(s)
    sec.on_battle_end(s)
    assert info(s, 0, 1).servant[2] == 1 and info(s, 1, 0).master[2] == 1


# --- C1.5 Legend points, C1.9 the NP disclosed ---------------------------------------------
def fire(s: GameState) -> tuple[GameState, list[Event]]:
    """Seat 0 (El Cid, charge 0) declares and fires Tizona at seat 1 in Round 1 (in the
    critical stance that holds it, C5.8, put in place as if it were Round 2's)."""
    st.update(s, 0, stance_now="critical")
    s, _ = apply(s, DeclareNoblePhantasm(0, 1))
    s = to_main(s, 0)
    return apply(s, UseNoblePhantasm(0, 1))


def test_c1_5_c1_9_a_fired_np_gives_each_other_combatant_legend_and_the_np_not_the_name():
    s = battle_at(("saber", "lancer", "archer"), [(3, 3), (3, 3), (0, 0)], fighters=2,
                  modules=["campaign"], rules=bare())
    s, ev = fire(s)
    assert gained(ev, 1) == [(0, S, "legend", "np")] and gained(ev, 2) == []
    assert info(s, 1, 0).np_known and not info(s, 1, 0).true_name
    disclosed = find(ev, "NoblePhantasmDisclosed")
    assert [e.data for e in disclosed] == [{"seat": 1, "target": 0, "cls": "saber"}]
    assert view_event(disclosed[0], 0) is None and view_event(disclosed[0], 2) is None
    mine = view_for(s, 1)
    np = s.camps[0].servant.np
    assert mine["modules"]["campaign"]["state"]["info"]["0"]["np"] == {
        "name": {"ja": np.name.ja, "ko": np.name.ko, "en": np.name.en},
        "text": {"ja": np.text.ja, "ko": np.text.ko, "en": np.text.en},
        "kind": np.kind, "card": np.card, "scale": np.scale}
    assert "servant" not in mine["camps"][0]  # no true name
    assert "np" not in view_for(s, 2)["modules"]["campaign"]["state"]["info"]["0"]


def test_c1_5_a_constant_np_gives_one_legend_point_per_battle_to_each_camp_that_fought_it():
    s = duel(("saber", "lancer"), modules=["campaign"])
    assert s.camps[1].servant.np.kind == "constant"  # Honda Tadakatsu's Tonbokiri
    s, ev = truce(s)
    assert (1, S, "legend", "constant") in gained(ev, 0)
    assert not any(c == "legend" for _, _, c, _ in gained(ev, 1))
    assert info(s, 0, 1).servant[3] == 1


# --- C1.6 maxima, C1.7 and C1.8 reveals, C1.10 experience -------------------------------------
def test_c1_6_the_servant_maximum_is_5_plus_fame_and_a_point_beyond_is_not_gained():
    s = cgame(("saber", "caster"))  # el_cid fame 0, vainamoinen fame 2
    sec = section(s)
    assert (sec.servant_max(s, 0), sec.servant_max(s, 1)) == (5, 7)
    seed_info(s, 0, 1, (0, 7, 0, 0), (0, 10, 0))
    s, ev = investigate(s, 0, "caster", 12)
    assert info(s, 0, 1).servant == (0, 7, 0, 0) and info(s, 0, 1).master == (0, 10, 0)
    assert not find(ev, "InfoGained")


def test_c1_7_three_servant_points_show_the_composition_and_skills_and_no_more():
    s = cgame()
    seed_info(s, 0, 1, (1, 1, 0, 0))
    assert "cards" not in view_for(s, 0)["camps"][1]
    s, ev = investigate(s, 0, "lancer", 12)
    seen = view_for(s, 0)["camps"][1]
    assert seen["cards"] == s.camps[1].servant.cards and seen["skills"]
    assert "servant" not in seen and "noble_phantasm" not in seen
    assert [e.data for e in find(ev, "CompositionLearned")] == [
        {"seat": 0, "target": 1, "cls": "lancer", "tier": 1}]
    assert "cards" not in view_for(s, None)["camps"][1]


def test_c1_8_all_four_at_maximum_reveal_the_true_name_np_profile_and_weakness():
    s = cgame()
    seed_info(s, 0, 1, (6, 5, 6, 6))  # honda: fame 1, maximum 6
    s, ev = investigate(s, 0, "lancer", 12)
    assert info(s, 0, 1).true_name and info(s, 0, 1).np_known
    seen = view_for(s, 0)["camps"][1]
    assert seen["servant"] == "honda_tadakatsu" and seen["profile"] and seen["weakness"]
    assert [e.data for e in find(ev, "TrueNameRevealed")] == [
        {"seat": 0, "target": 1, "cls": "lancer", "tier": 3}]
    assert section(s).at_max(s, 0, 1, "encounter")  # every category counts as at maximum


def test_c1_10_after_the_true_name_a_point_becomes_master_experience_of_its_method():
    s = cgame()
    # The Master counters at their maximum too: a Master point gained would also be the
    # Turn's scouting experience (C2.2), and this test is about the conversion alone.
    seed_info(s, 0, 1, (6, 6, 6, 6), (10, 10, 10))
    st.put_info(s, 0, 1, info(s, 0, 1)._replace(true_name=True, np_known=True))
    s, ev = investigate(s, 0, "lancer", 12)
    assert st.record(s, 0).exp == (1, 0, 0, 0, 0)  # scouting
    assert [e.data for e in find(ev, "ExperienceGained")] == [
        {"seat": 0, "method": "scouting", "amount": 1, "source": "investigate"}]
    assert info(s, 0, 1).servant == (6, 6, 6, 6)


# --- C1.11 the Master's sheet ---------------------------------------------------------------------
@pytest.mark.parametrize(("master", "keys"), [
    ((1, 1, 0), set()),
    ((1, 2, 0), {"master_name", "master_profile", "tag"}),
    ((10, 0, 0), {"master_name", "master_profile", "tag", "master_skills", "unlocked"}),
    ((10, 10, 10), {"master_name", "master_profile", "tag", "master_skills", "unlocked",
                    "master_mp", "max_master_mp", "level", "race"}),
])
def test_c1_11_master_points_reveal_name_then_skills_then_mp_level_race(master, keys):
    s = cgame(masters=["koga", "han"])
    seed_info(s, 0, 1, master=master)
    seen = view_for(s, 0)["modules"]["campaign"]["state"]["info"]["1"]
    revealed = set(seen) - {"servant", "master", "max", "np_known", "true_name"}
    assert revealed == keys
    if "master_skills" in keys:
        assert seen["master_skills"] == list(s.camps[1].master.skills[:3])
    if "race" in keys:
        assert (seen["race"], seen["level"], seen["master_mp"]) == ("human", 1,
                                                                    s.camps[1].master_mp)
    assert view_for(s, None)["modules"]["campaign"]["state"]["info"] == {}


def test_c1_11_the_max_master_mp_shown_is_the_levels_and_not_a_necklaces():
    """All three Master categories at maximum show MP and level: the max MP is the sheet's
    plus what the levels gave (C2.5), which the level and race shown already tell; a worn
    necklace's MP is the camp's gear, hidden (spec §4)."""
    s = cgame(masters=["koga", "han"])
    seed_info(s, 0, 1, master=(10, 10, 10))
    per_level = section_of(s, Information).data.master_mp_per_level["human"]
    assert per_level > 0
    st.update(s, 1, level=3)
    seen = view_for(s, 0)["modules"]["campaign"]["state"]["info"]["1"]
    assert seen["level"] == 3
    assert seen["max_master_mp"] == s.camps[1].master.mp + 2 * per_level
    assert core.max_master_mp(s, s.camps[1]) == seen["max_master_mp"]  # no necklace worn


def test_c1_11_crossing_a_master_threshold_is_a_private_master_learned_event():
    s = cgame()
    seed_info(s, 0, 1, master=(1, 1, 0))
    s, ev = investigate(s, 0, "lancer", 12)
    learned = find(ev, "MasterLearned")
    assert [e.data for e in learned] == [{"seat": 0, "target": 1, "level": 1}]
    assert view_event(learned[0], 1) is None


# --- C1.12 resistance --------------------------------------------------------------------------
def test_c1_12_a_category_at_maximum_is_the_resistance_condition():
    s = cgame()
    seed_info(s, 0, 1, (6, 5, 0, 0))
    sec = section(s)
    assert sec.at_max(s, 0, 1, "encounter") and not sec.at_max(s, 0, 1, "rumor")


# --- C1.13 ShareRumor --------------------------------------------------------------------------
def negotiating(points: Sequence[int] = (1, 0, 0, 0)) -> GameState:
    s = cgame(("saber", "lancer", "archer"))
    for seat in (0, 1):
        place(s, seat, 10)
    place(s, 2, 30)
    seed_info(s, 0, 2, points)
    s, _ = run(s, DeclareEncounter(0, 1, "negotiate"), DeclareWait(2))
    assert s.prompt.kind == "negotiate"
    return s


def test_c1_13_share_rumor_gives_the_partner_a_servant_rumor_point_once_per_negotiation():
    s = negotiating()
    assert ShareRumor(0, 2) in legal_actions(s, 0)
    assert ShareRumor(0, 1) not in legal_actions(s, 0)  # not about a camp of the talk
    assert not any(isinstance(a, ShareRumor) for a in legal_actions(s, 1))  # holds nothing
    s, ev = apply(s, ShareRumor(0, 2))
    assert info(s, 1, 2).servant == (0, 1, 0, 0) and info(s, 1, 2).master == (0, 0, 0)
    assert gained(ev, 1) == [(2, S, "rumor", "share")]
    shared = find(ev, "RumorShared")[0]
    assert view_event(shared, 2) is None and view_event(shared, 1)["about"] == 2
    assert not any(isinstance(a, ShareRumor) for a in legal_actions(s, 0))
    assert s.prompt.kind == "negotiate" and 0 in s.prompt.seats  # still to answer


def test_c1_13_share_rumor_needs_a_point_on_the_camp():
    s = negotiating(points=(0, 0, 0, 0))
    assert not any(isinstance(a, ShareRumor) for a in legal_actions(s, 0))


# --- C1.14 Research, C1.15 residual thoughts ---------------------------------------------------
@pytest.mark.parametrize(("square", "library"), [(10, 0), (16, 2), (11, 2), (2, 2)])
def test_c1_14_research_succeeds_at_6_with_the_library_bonus_on_research_squares(square,
                                                                                 library):
    s = cgame()
    place(s, 0, square)
    need = 6 - bonus(s, 0) - library
    fail, ev = research(s, 0, "lancer", faces(need - 1))
    assert info(fail, 0, 1).servant == (0, 0, 0, 0)
    assert [e.data["success"] for e in find(ev, "Researched")] == [False]
    ok, ev = research(s, 0, "lancer", faces(need))
    assert info(ok, 0, 1).servant == (0, 0, 0, 1)
    roll = next(e for e in find(ev, "DiceRolled") if e.data["purpose"] == "research")
    assert view_event(roll, 1) is None or view_event(roll, 1)["total"] is None
    assert all(view_event(e, 1) is None for e in find(ev, "Researched"))
    declared = next(e for e in find(ev, "Declared") if e.data["seat"] == 0)
    assert view_event(declared, 1) == {"type": "Declared", "seat": 0, "kind": "research"}


def test_c1_14_research_has_no_critical_on_a_natural_12_nor_fumble_on_2():
    s = cgame()
    s, ev = research(s, 0, "lancer", [6, 6])
    assert s.rewards == () and not find(ev, "FumblePenalty")


def test_c1_15_residual_thoughts_make_research_succeed_without_a_roll_until_day_end():
    s = battle_at(("saber", "lancer", "archer"), [(3, 3), (3, 3), (0, 0)], fighters=2,
                  modules=["campaign"])
    square = s.battle.square
    s, _ = truce(s)
    while s.prompt.kind != "declare":
        s, _ = apply(s, DeclareWait(min(s.prompt.seats)))
    assert dict(st.state(s).residual)[square] >= {"saber", "lancer"}
    place(s, 2, square)
    s, ev = research(s, 2, "lancer")
    assert not [e for e in find(ev, "DiceRolled") if e.data["purpose"] == "research"]
    assert [e.data for e in find(ev, "Researched")] == [
        {"seat": 2, "cls": "lancer", "success": True, "residual": True}]
    assert gained(ev, 2)[0] == (1, S, "legend", "residual")
    while s.day == 1:
        s, _ = waits(s)
    assert st.state(s).residual == ()


def test_the_points_are_the_holders_secret():
    s = cgame(("saber", "lancer", "archer"))
    seed_info(s, 0, 1, (1, 2, 0, 0))
    for viewer in (1, 2, None):
        camps = view_for(s, viewer)["modules"]["campaign"]["state"]["camps"]
        assert "info" not in camps[0]
    assert view_for(s, 0)["modules"]["campaign"]["state"]["info"]["1"]["servant"] == [1, 2, 0, 0]
