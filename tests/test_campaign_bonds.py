"""The campaign's §8: bonds (C8.1-C8.10; spec shared/modules/002-campaign.md, docs/rules.md
chapter 12): setting, awards and their per-Turn limits, resolution and its effects, the share
and split prompts, the five events, and the Wait bonus."""

from __future__ import annotations

import pytest
from grailwar.shared.bots import make_bot
from grailwar.shared.bots.match import run_match
from grailwar.shared.engine import apply, default_action, legal_actions, new_game, view_for
from grailwar.shared.engine.actions import (
    ACTION_TYPES,
    DeclareAmbush,
    DeclareEncounter,
    DeclareRest,
    DeclareWait,
    Negotiate,
    OfferTruce,
    Ready,
    from_dict,
)
from grailwar.shared.engine.events import Event, view_event
from grailwar.shared.engine.state import GameState
from grailwar.shared.modules.campaign import campaign
from grailwar.shared.modules.campaign import state as st
from grailwar.shared.modules.campaign.bonds import (
    AwardBond,
    Bonds,
    ResolveBond,
    SetBond,
    ShareBondDamage,
    SplitBondDamage,
)
from grailwar.shared.modules.campaign.spells import KeepDeclaration
from grailwar.shared.modules.campaign.stances import (
    ArrangeStance,
    ChooseStance,
    HoldNoblePhantasm,
    LinkStance,
    NameStance,
    SetStanceTrait,
)
from helpers import bare, find, game, place, run

RULES = bare()


def cgame(classes=("saber", "lancer", "archer"), **kw) -> GameState:
    return game(classes, modules=["campaign"], rules=RULES, **kw)




def give(s: GameState, seat: int, *bonds: st.Bond) -> None:
    """Put bonds in `seat`'s record (replacing any of the same holder and target)."""
    keep = [b for b in st.record(s, seat).bonds
            if (b.holder, b.target) not in {(x.holder, x.target) for x in bonds}]
    st.update(s, seat, bonds=tuple(sorted((*keep, *bonds), key=lambda b: (b.holder, b.target))))
    s._legal.clear()


def bond(s: GameState, seat: int, holder: str, target: int) -> st.Bond | None:
    return next((b for b in st.record(s, seat).bonds
                 if (b.holder, b.target) == (holder, target)), None)


def met(s: GameState, seat: int, *others: int) -> None:
    st.update(s, seat, met_last_turn=frozenset(others))
    s._legal.clear()


def of(s: GameState, seat: int, kind: type) -> list:
    return [a for a in legal_actions(s, seat) if isinstance(a, kind)]


def battle(s: GameState) -> GameState:
    """Seats 0 and 1 on one square: 1 encounters 0 for battle; seat 2 waits out of reach;
    Round 1 starts."""
    for seat in (0, 1):
        place(s, seat, 10)
    place(s, 2, 21)
    s, _ = run(s, DeclareEncounter(1, 0, "battle"), DeclareWait(2))
    assert s.prompt.kind == "round_start"
    return s


def truce(s: GameState) -> tuple[GameState, list[Event]]:
    seats = sorted(s.battle.seats)
    return run(s, *(OfferTruce(x) for x in seats), *(Ready(x) for x in seats))


# --- C8.1, C8.2 bonds and setting them ----------------------------------------------------------
def test_c8_2_internal_bonds_at_grade_1_and_set_bond_only_toward_a_camp_met_last_turn():
    s = cgame()
    assert bond(s, 0, "servant", 0) == st.Bond("servant", 0, "positive", 1)
    assert bond(s, 0, "master", 0) == st.Bond("master", 0, "positive", 1)
    assert not of(s, 0, SetBond)  # nobody met yet
    for seat in (0, 1):
        place(s, seat, 10)
    s, _ = run(s, DeclareWait(0), DeclareWait(1), DeclareWait(2))  # 0 and 1 share a square
    offered = set(of(s, 0, SetBond))
    assert offered == {SetBond(0, h, 1, p) for h in ("servant", "master")
                       for p in ("positive", "negative")}
    s, ev = apply(s, SetBond(0, "master", 1, "negative"))
    assert bond(s, 0, "master", 1) == st.Bond("master", 1, "negative", 0)
    assert SetBond(0, "master", 1, "positive") not in legal_actions(s, 0)  # C8.1: one per pair
    shown = find(ev, "BondSet")[0]
    assert view_event(shown, 0) and view_event(shown, 1) is None and view_event(shown, None) is None


# --- C8.3, C8.4 awards -------------------------------------------------------------------------
def test_c8_3_met_bonds_get_one_award_each_and_one_unmet_bond_one_a_turn():
    s = cgame()
    give(s, 0, st.Bond("servant", 1, "positive", 2), st.Bond("servant", 2, "positive", 2),
         st.Bond("master", 2, "negative", 1))
    met(s, 0, 1)
    s, ev = apply(s, AwardBond(0, "servant", 1))
    assert bond(s, 0, "servant", 1).grade == 3
    assert AwardBond(0, "servant", 1) not in legal_actions(s, 0)  # once per bond per Turn
    s, _ = apply(s, AwardBond(0, "servant", 2))  # the one unmet award of the Servant
    assert AwardBond(0, "servant", 0) not in legal_actions(s, 0)  # its internal bond: unmet
    assert AwardBond(0, "master", 2) in legal_actions(s, 0)  # the Master's own unmet award
    shown = find(ev, "BondAwarded")[0]
    assert view_event(shown, 0)["grade"] == 3 and view_event(shown, 1) is None
    s, _ = run(s, DeclareWait(0), DeclareWait(1), DeclareWait(2))
    met(s, 0, 1)
    assert AwardBond(0, "servant", 1) in legal_actions(s, 0)  # a new Turn, new awards


def test_c8_4_a_grade_never_passes_5_without_an_event():
    s = cgame()
    give(s, 0, st.Bond("servant", 1, "positive", 5))
    met(s, 0, 1)
    assert AwardBond(0, "servant", 1) not in legal_actions(s, 0)


def test_c8_5_no_action_reverses_a_bond_or_makes_it_max():
    names = {n for n, t in ACTION_TYPES.items() if t.__module__.endswith("campaign.bonds")}
    assert names == {"SetBond", "AwardBond", "ResolveBond", "ShareBondDamage",
                     "SplitBondDamage"}


# --- C8.6, C8.7 resolution ----------------------------------------------------------------------
@pytest.mark.parametrize("effect", ["funds", "exp", "heal_hp", "heal_mp"])
def test_c8_6_c8_7_a_positive_bond_resolves_after_meeting_both_camps_benefit(effect):
    s = cgame()
    give(s, 0, st.Bond("master", 1, "positive", 3))
    assert not [a for a in of(s, 0, ResolveBond) if a.target == 1]  # not met: not offered
    met(s, 0, 1)
    for seat in (0, 1):
        s.edit(seat).hp -= 40
        s.edit(seat).mp -= 40
    before = [(st.record(s, x).funds, st.record(s, x).exp, s.camps[x].hp, s.camps[x].mp)
              for x in (0, 1, 2)]
    s, ev = apply(s, ResolveBond(0, "master", 1, effect))
    assert st.record(s, 0).merit == (0, 3)  # the Master's wallet, grade 3
    assert bond(s, 0, "master", 1).fixed
    assert not [a for a in of(s, 0, ResolveBond) if a.target == 1]
    after = [(st.record(s, x).funds, st.record(s, x).exp, s.camps[x].hp, s.camps[x].mp)
             for x in (0, 1, 2)]
    for x in (0, 1):
        funds, exp, hp, mp = (a - b if isinstance(a, int) else a[3] - b[3]
                              for a, b in zip(after[x], before[x], strict=True))
        assert (funds, exp, hp, mp) == {"funds": (3, 0, 0, 0), "exp": (0, 6, 0, 0),
                                        "heal_hp": (0, 0, 15, 0),
                                        "heal_mp": (0, 0, 0, 15)}[effect]
    assert after[2] == before[2]
    resolved = find(ev, "BondResolved")[0]
    assert view_event(resolved, None) == {"type": "BondResolved", "seat": 0, "holder": "master",
                                          "target": 1, "polarity": "positive",
                                          "effect": effect, "grade": 3}


def test_c8_6_a_grade_0_bond_and_a_fixed_bond_never_resolve():
    s = cgame()
    give(s, 0, st.Bond("master", 1, "positive", 0), st.Bond("servant", 1, "positive", 2, True))
    met(s, 0, 1)
    assert not [a for a in of(s, 0, ResolveBond) if a.target == 1]
    assert AwardBond(0, "servant", 1) not in legal_actions(s, 0)  # Fixed: no awards either


def test_c8_6_in_battle_positive_only_heals_and_negative_only_there():
    s = cgame()
    give(s, 0, st.Bond("servant", 1, "positive", 2), st.Bond("master", 1, "negative", 2))
    met(s, 0, 1)
    assert {a.effect for a in of(s, 0, ResolveBond) if a.target == 1} == {
        "funds", "exp", "heal_hp", "heal_mp"}
    s = battle(s)
    got = {(a.holder, a.effect) for a in of(s, 0, ResolveBond) if a.target == 1}
    assert got == {("servant", "heal_hp"), ("servant", "heal_mp"),
                   ("master", "end_damage"), ("master", "mid_damage")}
    assert not [a for a in of(s, 1, ResolveBond) if a.target == 2]


# --- C8.8 shares and splits ---------------------------------------------------------------------
def test_c8_7_c8_8_end_damage_at_the_battle_end_shared_by_a_positive_holder():
    s = cgame()
    give(s, 0, st.Bond("master", 1, "negative", 3))
    give(s, 2, st.Bond("servant", 1, "positive", 1))  # may take up to 5
    s = battle(s)
    s, _ = apply(s, ResolveBond(0, "master", 1, "end_damage"))
    hp1, hp2 = s.camps[1].hp, s.camps[2].hp
    s, _ = truce(s)
    assert s.prompt.kind == "share" and s.prompt.seats == {2}
    assert of(s, 2, ShareBondDamage) == [ShareBondDamage(2, 0), ShareBondDamage(2, 5)]
    assert default_action(s, 2) == ShareBondDamage(2, 0)
    queue = [view_for(s, x)["modules"]["campaign"]["state"]["bond_queue"] for x in (0, 1, 2)]
    assert queue == [[], [["end", 1, 1, 30]], [["share", 2, 1, 30]]]  # each its own steps
    s, _ = apply(s, ShareBondDamage(2, 5))
    assert (s.camps[1].hp, s.camps[2].hp) == (hp1 - 25, hp2 - 5)
    assert s.prompt.kind == "declare"


def test_c8_7_end_damage_is_void_if_the_holder_died():
    s = cgame()
    give(s, 0, st.Bond("master", 1, "negative", 3))
    s = battle(s)
    s, _ = apply(s, ResolveBond(0, "master", 1, "end_damage"))
    hp = s.camps[1].hp
    s.edit(0).alive = False
    campaign(s).section(Bonds).on_battle_end(s)
    assert not st.state(s).bond_queue and s.camps[1].hp == hp


@pytest.mark.parametrize("mp_part", [0, 5, 10])
def test_c8_7_c8_8_mid_damage_now_split_by_the_victim_mp_lost_twice(mp_part):
    s = cgame()
    give(s, 0, st.Bond("master", 1, "negative", 2))  # 10 damage
    s = battle(s)
    hp, mp = s.camps[1].hp, s.camps[1].mp
    s, _ = apply(s, ResolveBond(0, "master", 1, "mid_damage"))
    assert s.prompt.kind == "split" and s.prompt.seats == {1}
    assert default_action(s, 1) == SplitBondDamage(1, 0)  # all to HP
    s, _ = apply(s, SplitBondDamage(1, mp_part))
    assert (s.camps[1].hp, s.camps[1].mp) == (hp - (10 - mp_part), mp - 2 * mp_part)
    assert s.prompt.kind == "round_start"


# --- C8.9 events -------------------------------------------------------------------------------
def test_c8_9_betrayal_reverses_the_bond_and_gives_merit():
    s = cgame()
    give(s, 0, st.Bond("servant", 1, "positive", 2))
    for seat in (0, 1):
        place(s, seat, 10)
    s, ev = apply(s, DeclareEncounter(0, 1, "battle"))
    assert bond(s, 0, "servant", 1).polarity == "negative"
    assert st.record(s, 0).merit == (1, 0)
    rev = find(ev, "BondReversed")[0]
    assert view_event(rev, 1) and view_event(rev, 0) and view_event(rev, 2) is None
    assert view_event(find(ev, "EventTriggered")[0], 0)["event"] == "betrayal"


def test_c8_9_a_negotiation_is_no_betrayal_but_an_ambush_is():
    s = cgame()
    give(s, 0, st.Bond("servant", 1, "positive", 2))
    for seat in (0, 1):
        place(s, seat, 10)
    s2, _ = apply(s, DeclareEncounter(0, 1, "negotiate"))
    assert bond(s2, 0, "servant", 1).polarity == "positive"
    place(s, 1, 11)
    s3, _ = apply(s, DeclareAmbush(0, 1))
    assert bond(s3, 0, "servant", 1).polarity == "negative"


def part(s: GameState) -> tuple[GameState, list[Event]]:
    for seat in (0, 1):
        place(s, seat, 10)
    return run(s, DeclareEncounter(0, 1, "negotiate"), DeclareWait(2), Negotiate(0, False),
               Negotiate(1, False))


def test_c8_9_reconciliation_reverses_both_negative_bonds_on_parting():
    s = cgame()
    give(s, 0, st.Bond("servant", 1, "negative", 2))
    give(s, 1, st.Bond("master", 0, "negative", 1))
    s, _ = part(s)
    assert bond(s, 0, "servant", 1).polarity == bond(s, 1, "master", 0).polarity == "positive"
    assert st.record(s, 0).merit == (1, 0) and st.record(s, 1).merit == (0, 1)


def test_c8_9_sworn_makes_both_grade_5_positive_bonds_max():
    s = cgame()
    give(s, 0, st.Bond("servant", 1, "positive", 5))
    give(s, 1, st.Bond("servant", 0, "positive", 5))
    s, ev = part(s)
    assert bond(s, 0, "servant", 1).grade == bond(s, 1, "servant", 0).grade == 7
    assert [view_event(e, 2) for e in find(ev, "BondMaxed")] == [None, None]


def test_c8_9_one_sided_bonds_set_off_no_event():
    s = cgame()
    give(s, 0, st.Bond("servant", 1, "positive", 5))
    s, ev = part(s)
    assert bond(s, 0, "servant", 1).grade == 5 and not find(ev, "EventTriggered")


def test_c8_9_nemesis_after_three_battles_at_grade_5():
    s = cgame()
    give(s, 0, st.Bond("master", 1, "negative", 5, battles=2))
    s = battle(s)
    s, ev = truce(s)
    assert bond(s, 0, "master", 1).grade == 7 and find(ev, "EventTriggered")
    s = cgame()
    give(s, 0, st.Bond("master", 1, "negative", 5, battles=1))
    s = battle(s)
    s, _ = truce(s)
    assert bond(s, 0, "master", 1) == st.Bond("master", 1, "negative", 5, battles=2)


def test_c8_9_heart_to_heart_when_the_internal_bond_reaches_5_with_the_4th_skill():
    s = cgame()
    give(s, 0, st.Bond("servant", 0, "positive", 4))
    s.edit(0).unlocked = True
    s, ev = run(s, DeclareWait(0), DeclareRest(1), DeclareRest(2))  # time with the Master
    assert bond(s, 0, "servant", 0).grade == 7
    assert view_event(find(ev, "EventTriggered")[0], 0)["event"] == "heart_to_heart"


# --- C8.10 time with the Master ---------------------------------------------------------------
def test_c8_10_a_wait_with_the_master_raises_both_internal_bonds():
    s = cgame()
    s, _ = run(s, DeclareWait(0), DeclareRest(1), DeclareRest(2))
    assert bond(s, 0, "servant", 0).grade == bond(s, 0, "master", 0).grade == 2
    assert bond(s, 1, "servant", 1).grade == 1  # it rested


@pytest.mark.parametrize("values,named", [
    ({"bond": [{"seat": 0, "holder": "servant", "target": 1, "polarity": "warm", "grade": 1}]},
     "polarity"),
    ({"bond": [{"seat": 0, "holder": "servant", "target": 1, "polarity": "positive",
                "grade": 6}]}, "grade"),
    ({"bond": [{"seat": 0, "holder": "servant", "target": 1, "polarity": "positive",
                "grade": 1, "colour": "red"}]}, "keys are"),
    ({"bonds": []}, "has no key 'bonds'"),
])
def test_a_bad_scenario_bond_is_refused_with_what_is_wrong(values, named):
    s = cgame()
    with pytest.raises(ValueError, match=named):
        campaign(s).scenario_state(s, {"bonds": values})


# --- bots ---------------------------------------------------------------------------------------
def share_state() -> GameState:
    """A `share` prompt for seat 2 (see the end-damage test above)."""
    s = cgame()
    give(s, 0, st.Bond("master", 1, "negative", 3))
    give(s, 2, st.Bond("servant", 1, "positive", 2))
    s = battle(s)
    s, _ = apply(s, ResolveBond(0, "master", 1, "end_damage"))
    s, _ = truce(s)
    return s


def split_state() -> GameState:
    s = cgame()
    give(s, 0, st.Bond("master", 1, "negative", 2))
    s = battle(s)
    s, _ = apply(s, ResolveBond(0, "master", 1, "mid_damage"))
    return s


@pytest.mark.parametrize("level", ["random", "normal"])
@pytest.mark.parametrize("make,kind", [(share_state, ShareBondDamage),
                                       (split_state, SplitBondDamage)])
def test_both_bots_answer_the_share_and_split_prompts(level, make, kind):
    """(A "+" may come first at a split: it is a battle prompt, C4.3.)"""
    s = make()
    seat = min(s.prompt.seats)
    bot = make_bot(level, 1)
    for _ in range(10):
        action = bot.choose(view_for(s, seat) if bot.needs_view else None,
                            legal_actions(s, seat))
        assert action in legal_actions(s, seat)
        if isinstance(action, kind):
            break
        s, _ = apply(s, action)
    assert isinstance(action, kind)


def test_the_random_bot_plays_every_stance_and_bond_action_over_campaign_games():
    seen: set[str] = set()

    class Recording:
        needs_view = False

        def __init__(self, seed: int) -> None:
            self.bot = make_bot("random", seed)

        def choose(self, view, legal):
            action = self.bot.choose(view, legal)
            seen.add(type(action).__name__)
            return action

    for g in range(3):
        s = new_game(seed=g, modules=["campaign"])
        run_match(s, [Recording(g * 7 + i) for i in range(len(s.camps))], arrival_seed=g)
    assert {"ChooseStance", "NameStance", "SetBond", "AwardBond", "ResolveBond"} <= seen


def test_the_normal_bot_awards_resolves_and_chooses_stances():
    seen: set[str] = set()

    class Recording:
        needs_view = True

        def __init__(self, seed: int) -> None:
            self.bot = make_bot("normal", seed)

        def choose(self, view, legal):
            action = self.bot.choose(view, legal)
            seen.add(type(action).__name__)
            return action

    for g in range(2):
        s = new_game(seed=g, modules=["campaign"])
        run_match(s, [Recording(g * 7 + i) for i in range(len(s.camps))], arrival_seed=g)
    assert {"ChooseStance", "SetBond", "AwardBond", "ResolveBond"} <= seen


# --- the actions on the wire ------------------------------------------------------------------
def test_every_stance_spell_and_bond_action_round_trips_through_the_wire_form():
    """Plain int/str/bool fields: `to_dict` / `from_dict` give the same action back."""
    samples = [ChooseStance(0, "attack"), ArrangeStance(0, "attack", "BBAQQB"),
               NameStance(0, "critical", "Tizona"), SetStanceTrait(0, "attack", "kind_damage", "Q"),
               LinkStance(1, "normal", "legend"), HoldNoblePhantasm(2, "defense"),
               KeepDeclaration(1),
               SetBond(0, "servant", 1, "negative"), AwardBond(0, "master", 0),
               ResolveBond(0, "servant", 1, "mid_damage"), ShareBondDamage(2, 5),
               SplitBondDamage(1, 10)]
    mine = {cls for cls in ACTION_TYPES.values() if cls.__module__.endswith(
        ("campaign.stances", "campaign.spells", "campaign.bonds"))}
    assert {type(a) for a in samples} == mine
    for action in samples:
        assert from_dict(action.to_dict()) == action
        assert all(type(v) in (int, str, bool) for v in action.to_dict().values())
