"""The campaign's §5: stances and the lead exchange (C5.1-C5.12; spec
shared/modules/002-campaign.md, docs/rules.md chapter 12). Forced dice throughout."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from grailwar.shared.engine import apply, core, legal_actions
from grailwar.shared.engine.actions import (
    Attack,
    DeclareNoblePhantasm,
    React,
    Ready,
    UseNoblePhantasm,
    UseSkill,
    Wait,
)
from grailwar.shared.engine.data import DataError, default_ruleset, read_table
from grailwar.shared.engine.errors import IllegalActionError
from grailwar.shared.engine.events import Event, view_event
from grailwar.shared.engine.state import GameState
from grailwar.shared.modules.campaign import state as st
from grailwar.shared.modules.campaign.data import SERVANT_CATEGORIES, STANCES
from grailwar.shared.modules.campaign.info import Information
from grailwar.shared.modules.campaign.stances import (
    ArrangeStance,
    ChooseStance,
    NameStance,
    Stances,
    interleavings,
    load_traits,
)
from helpers import act, act_all, bare, duel, faces, find, game, to_main, wait_round

RULES = bare()
DP = 3  # damage_point


def cduel(classes=("saber", "lancer"), rules=None, **kw) -> GameState:
    """Saber (El Cid, seat 0) and Lancer (Honda, seat 1, agility 50: it acts first) in a
    campaign battle at Round 1's round start, with no skills."""
    return duel(classes, modules=["campaign"], rules=rules or RULES, **kw)


def sec(s: GameState) -> Stances:
    return next(m for m in s.modules if m.name == "campaign").section(Stances)


def set_stance(s: GameState, seat: int, name: str, *, now: bool = True, **fields) -> None:
    """Change one stance's fields (and make it the current one) on `s` itself."""
    rec = st.record(s, seat)
    i = STANCES.index(name)
    stances = (*rec.stances[:i], rec.stances[i]._replace(**fields), *rec.stances[i + 1:])
    st.update(s, seat, stances=stances, **({"stance_now": name} if now else {}))
    s._legal.clear()


def resist(s: GameState, viewer: int, other: int, categories=SERVANT_CATEGORIES) -> None:
    """`viewer` holds `other`'s given Servant categories at their maximum (C1.12)."""
    top = next(m for m in s.modules if m.name == "campaign").section(
        Information).servant_max(s, other)
    counts = tuple(top if c in categories else 0 for c in SERVANT_CATEGORIES)
    st.put_info(s, viewer, other, st.info_on(s, viewer, other)._replace(servant=counts))
    s._legal.clear()


def strike(s: GameState, att: int, dfn: int, kind: str, card: str, reaction: str,
           rcard: str = "", hit: int = 9, defense: int | None = 5,
           damage: tuple[int, ...] = (5, 5)) -> tuple[GameState, list[Event]]:
    """`att` attacks at its Main Action, `dfn` answers; forced dice (no defense roll for a
    Guard; `damage` () when it misses)."""
    s = to_main(s, att)
    s, ev = act_all(s, Attack(att, dfn, kind, card), faces(hit))
    dice = [*([] if reaction == "G" else faces(defense)), *damage]
    s, more = act_all(s, React(dfn, reaction, rcard), dice)
    return s, ev + more


def dealt(events: list[Event], target: int) -> int:
    return sum(e.data["amount"] for e in find(events, "DamageDealt")
               if e.data["target"] == target)


def lead(s: GameState, seat: int) -> str:
    return st.state(s).battle.lead[seat]


def to_round(s: GameState, n: int) -> GameState:
    while s.battle.round < n:
        s = wait_round(s)
    return s


# --- C5.1 four stances, names -------------------------------------------------------------------
def test_c5_1_four_stances_with_an_arrangement_trait_link_and_np_flag():
    s = cduel()
    rec = st.record(s, 0)
    assert [x.link for x in rec.stances] == ["combat", "encounter", "rumor", "legend"]
    assert sorted(x.link for x in rec.stances) == sorted(SERVANT_CATEGORIES)  # 1:1
    assert [x.np for x in rec.stances] == [False, False, False, True]
    assert all(x.order == "BBAQQ" for x in rec.stances)


def test_c5_1_the_three_non_normal_stances_are_renamed_privately_and_the_name_is_checked():
    s = game(modules=["campaign"])
    offered = [a for a in legal_actions(s, 0) if isinstance(a, NameStance)]
    assert offered == [NameStance(0, n, "") for n in ("attack", "defense", "critical")]
    s, ev = apply(s, NameStance(0, "attack", "Tizona Unbound"))
    assert st.record(s, 0).stances[1].name == "Tizona Unbound"
    named = find(ev, "StanceNamed")
    assert view_event(named[0], 0)["name"] == "Tizona Unbound" and view_event(named[0], 1) is None
    for bad in ("x" * 25, " padded", ""):
        if bad:
            with pytest.raises(IllegalActionError):
                apply(s, NameStance(0, "attack", bad))
    with pytest.raises(IllegalActionError):
        apply(s, NameStance(0, "normal", "Calm"))
    s, _ = apply(s, NameStance(0, "attack", "x" * 24))
    s, _ = apply(s, NameStance(0, "attack", ""))  # the empty name: the default one again
    assert st.record(s, 0).stances[1].name == ""


# --- C5.2, C5.3 [c] -----------------------------------------------------------------------------
def test_c5_2_c5_3_no_master_stance_and_no_rows_every_stance_open_from_round_2():
    """Only the Servant's four stances are ever offered (no magus stance), and a camp that
    has not attacked (the seed's back row) may take any of them."""
    s = to_round(cduel(), 2)
    choices = {a.stance for a in legal_actions(s, 0) if isinstance(a, ChooseStance)}
    assert choices == {"attack", "defense", "critical"}


# --- C5.4 choosing -----------------------------------------------------------------------------
def test_c5_4_round_1_is_normal_and_from_round_2_one_choice_a_round_announced_without_a_name():
    s = cduel()
    assert not [a for a in legal_actions(s, 0) if isinstance(a, ChooseStance)]
    s = to_round(s, 2)
    s, ev = apply(s, ChooseStance(0, "defense"))
    assert st.record(s, 0).stance_now == "defense"
    chosen = find(ev, "StanceChosen")
    assert view_event(chosen[0], 1) == {"type": "StanceChosen", "seat": 0}
    assert view_event(chosen[0], None) == {"type": "StanceChosen", "seat": 0}
    assert view_event(chosen[0], 0)["stance"] == "defense"
    assert not [a for a in legal_actions(s, 0) if isinstance(a, ChooseStance)]
    s = wait_round(s)  # Round 3: the stance is kept unless chosen again
    assert st.record(s, 0).stance_now == "defense"
    assert ChooseStance(0, "normal") in legal_actions(s, 0)


def test_c5_4_a_new_battle_starts_in_the_normal_stance():
    s = to_round(cduel(), 2)
    s, _ = apply(s, ChooseStance(0, "attack"))
    sec(s).on_battle_start(s)
    assert st.record(s, 0).stance_now == "normal"


# --- C5.5 the cards never change ---------------------------------------------------------------
def test_c5_5_choosing_a_stance_leaves_the_hand_and_pool_alone():
    s = to_round(cduel(), 2)
    hand, pool = s.camps[0].hand, st.record(s, 0).pool
    s, _ = apply(s, ChooseStance(0, "critical"))
    assert s.camps[0].hand == hand and st.record(s, 0).pool == pool


# --- C5.6 the lead set ---------------------------------------------------------------------------
def big_pool(s: GameState, seat: int = 0) -> None:
    """El Cid's pool grows to 5 Buster, 1 Arts, 2 Quick; its normal stance puts the five
    Buster first, so the lead set (H = 5) is Buster only."""
    st.update(s, seat, pool=(10, 2, 4))
    set_stance(s, seat, "normal", order="BBBBBAQQ")


def test_c5_6_in_its_lead_exchange_a_camp_spends_only_lead_kinds_and_card_free_options_stay():
    s = cduel()
    big_pool(s)
    assert sec(s).lead_kinds(s, 0) == {"B"}
    s = to_main(s, 0)
    attacks = {(a.kind, a.card) for a in legal_actions(s, 0) if isinstance(a, Attack)}
    assert ("B", "B") in attacks and ("L", "") in attacks and ("L", "B") in attacks
    assert not attacks & {("A", "A"), ("Q", "Q"), ("L", "A"), ("L", "Q")}


def test_c5_6_the_defender_in_its_lead_exchange_reacts_only_with_lead_kinds():
    s = cduel()
    big_pool(s)
    s = to_main(s, 1)
    s, _ = act_all(s, Attack(1, 0, "B", "B"), faces(9))  # Buster is answered by Quick
    reacts = {(a.kind, a.card) for a in legal_actions(s, 0) if isinstance(a, React)}
    assert ("Q", "Q") not in reacts and ("G", "") in reacts and ("G", "B") in reacts
    assert ("L", "A") not in reacts and ("L", "") in reacts


def test_c5_6_after_the_lead_exchange_every_card_is_open_again():
    s = cduel()
    big_pool(s)
    s, _ = strike(s, 1, 0, "B", "B", "G", damage=(5, 5))  # the lead exchange of both
    assert (lead(s, 0), lead(s, 1)) == ("lost", "won")
    s = to_main(s, 0)
    assert Attack(0, 1, "Q", "Q") in legal_actions(s, 0)


def test_c5_6_a_noble_phantasm_exchange_is_not_a_lead_exchange():
    s = cduel()
    big_pool(s)
    set_stance(s, 0, "critical")
    s, _ = apply(s, DeclareNoblePhantasm(0, 1))
    s = to_main(s, 0)
    assert UseNoblePhantasm(0, 1) in legal_actions(s, 0)  # NPs are exempt from the lead set
    s, _ = act_all(s, UseNoblePhantasm(0, 1), faces(9))
    s, _ = act_all(s, React(1, "G", ""), [5, 5])
    assert (lead(s, 0), lead(s, 1)) == ("open", "open")


def test_c5_6_each_round_has_its_own_lead_exchange():
    s = cduel()
    s, _ = strike(s, 1, 0, "B", "B", "G")
    assert lead(s, 1) == "won"
    s = wait_round(s)
    assert (lead(s, 0), lead(s, 1)) == ("open", "open")


# --- C5.7 arrangements ----------------------------------------------------------------------------
def test_c5_7_a_new_card_is_appended_and_may_be_placed_anywhere_keeping_the_old_order():
    s = game(modules=["campaign"])
    st.update(s, 0, pool=(6, 2, 4))  # El Cid BBAQQ gains a Buster
    s._legal.clear()
    assert sec(s).arrangement(s, 0, "attack") == "BBAQQB"
    orders = {a.order for a in legal_actions(s, 0)
              if isinstance(a, ArrangeStance) and a.stance == "attack"}
    assert orders == {"BBBAQQ", "BBABQQ", "BBAQBQ", "BBAQQB"}
    with pytest.raises(IllegalActionError):
        apply(s, ArrangeStance(0, "attack", "QQBBBA"))  # moves placed cards
    s, ev = apply(s, ArrangeStance(0, "attack", "BBAQBQ"))
    assert sec(s).arrangement(s, 0, "attack") == "BBAQBQ"
    assert not [a for a in legal_actions(s, 0)
                if isinstance(a, ArrangeStance) and a.stance == "attack"]  # all placed now
    assert view_event(find(ev, "StanceArranged")[0], 1) is None


def test_c5_7_interleavings_keep_the_placed_order():
    assert sorted(interleavings("AB", "Q")) == ["ABQ", "AQB", "QAB"]
    assert interleavings("BB", "B") == ["BBB"]


# --- C5.8 the NP only in its stance ---------------------------------------------------------------
def test_c5_8_the_np_is_declared_and_fired_only_in_the_stance_that_holds_it():
    s = cduel()
    assert not [a for a in legal_actions(s, 0) if isinstance(a, DeclareNoblePhantasm)]
    s = to_round(s, 2)
    s, _ = apply(s, ChooseStance(0, "attack"))
    assert not [a for a in legal_actions(s, 0) if isinstance(a, DeclareNoblePhantasm)]
    s = to_round(wait_round(s), 3)
    s, _ = apply(s, ChooseStance(0, "critical"))
    s, _ = apply(s, DeclareNoblePhantasm(0, 1))
    s = to_main(s, 0)
    assert UseNoblePhantasm(0, 1) in legal_actions(s, 0)
    set_stance(s, 0, "defense")  # out of its stance: it may not fire
    assert UseNoblePhantasm(0, 1) not in legal_actions(s, 0)


def test_c5_8_a_constant_np_works_in_every_stance():
    s = cduel()  # Honda's Tonbokiri: a constant Quick NP
    crit = core.mod(s, s.camps[1], "crit")
    for name in STANCES:
        set_stance(s, 1, name)
        assert sec(s).current(s, 1).np == (name == "critical")
        assert core.mod(s, s.camps[1], "crit") == crit


# --- C5.9 resistance ---------------------------------------------------------------------------
def test_c5_9_1_2_a_resistant_rival_learns_the_stance_privately_when_all_are_ready():
    s = cduel()
    resist(s, 1, 0, ("combat",))  # the normal stance's link
    st.update(s, 0, stances=tuple(x._replace(name="Calm") if x.link == "combat" else x
                                  for x in st.record(s, 0).stances))
    s, ev = apply(s, Ready(0))
    assert not find(ev, "StanceRevealed")  # not until every combatant is Ready
    s, ev = apply(s, Ready(1))
    shown = find(ev, "StanceRevealed")
    assert [view_event(e, 1) for e in shown] == [{
        "type": "StanceRevealed", "seat": 1, "about": 0, "stance": "normal", "name": "Calm",
        "trait": "none", "arg": "", "lead": "BAQ"}]
    assert view_event(shown[0], 0) is None and view_event(shown[0], None) is None


def test_c5_9_resistance_follows_the_link_of_the_current_stance():
    s = cduel()
    resist(s, 1, 0, ("encounter",))  # the attack stance's link only
    assert not sec(s).resistant(s, 1, 0)
    set_stance(s, 0, "attack")
    assert sec(s).resistant(s, 1, 0) and not sec(s).resistant(s, 0, 1)


def tie_strike(s: GameState, att: int, dfn: int, kind: str, card: str, reaction: str,
               rcard: str) -> tuple[GameState, list[Event]]:
    """An exchange whose opposed check ties exactly (no critical, no fumble)."""
    s = to_main(s, att)
    s, ev = act_all(s, Attack(att, dfn, kind, card), faces(7))
    a_total = next(e.data for e in ev if e.type == "DiceRolled")["total"]
    stat = core.CHECK_STAT[reaction]
    d_mod = core.check_mod(s, s.camps[dfn], stat) + core.mod(s, s.camps[dfn], "defense")
    natural = a_total - d_mod
    assert 3 <= natural <= 11
    s, more = act(s, React(dfn, reaction, rcard), [*faces(natural), 5, 5])
    return s, ev + more


@pytest.mark.parametrize("resistant", [False, True])
def test_c5_9_3_a_tie_goes_to_the_resistant_attacker_in_its_lead_exchange(resistant):
    s = cduel()
    if resistant:
        resist(s, 0, 1)
    s = to_main(s, 0)
    s, ev = tie_strike(s, 0, 1, "B", "B", "Q", "Q")
    assert bool(dealt(ev, 1)) == resistant  # base: every tie goes to the defender


def test_c5_9_3_a_tie_outside_the_lead_exchange_stays_the_defenders():
    s = cduel()
    resist(s, 0, 1)
    s, _ = strike(s, 1, 0, "B", "B", "G")  # seat 0's lead exchange is spent defending
    s, ev = tie_strike(s, 0, 1, "B", "B", "Q", "Q")
    assert dealt(ev, 1) == 0


@pytest.mark.parametrize("resistant", [False, True])
def test_c5_9_3_a_resistant_luck_attack_ignores_the_guard(resistant):
    s = cduel()
    if resistant:
        resist(s, 0, 1)
    s, ev = strike(s, 0, 1, "L", "", "G", damage=(5, 5))
    parts = dict(find(ev, "DamageDealt")[0].data["parts"])
    assert ("guard" in parts) != resistant


@pytest.mark.parametrize("resistant", [False, True])
def test_c5_9_3_a_luck_defense_against_a_resistant_luck_attack_loses(resistant):
    s = cduel()
    if resistant:
        resist(s, 0, 1)
    s, ev = strike(s, 0, 1, "L", "", "L", hit=5, defense=10)  # the defender rolls higher
    resolved = find(ev, "AttackResolved")[0].data
    assert resolved["hit"] and resolved["halved"] != resistant


def test_c5_9_3_a_guard_magecraft_of_the_resisted_side_makes_the_exchange_the_resistants_win():
    rules = bare()
    rules = replace(rules, masters={**rules.masters, "han": default_ruleset().masters["han"]})
    for ward in (False, True):
        s = cduel(rules=rules, masters=["han", "koga"])
        resist(s, 1, 0)  # Honda (first to act) resists El Cid's stance
        if ward:
            s, _ = act(s, UseSkill(0, "ward_field", -1), [1])  # a guard ward this Round
        s, _ = strike(s, 1, 0, "B", "B", "Q", "Q", hit=3, defense=10, damage=())  # a miss
        assert (lead(s, 1), lead(s, 0)) == (("won", "lost") if ward else ("lost", "won"))


# --- C5.10 traits -------------------------------------------------------------------------------
def damage_with(trait: str, arg: str = "", kind: str = "B", reaction: str = "G",
                before=None) -> tuple[int, int]:
    """Seat 0's attack damage with the trait and without it (the same dice)."""
    out = []
    for with_trait in (False, True):
        s = cduel()
        if before:
            s = before(s)
        if with_trait:
            set_stance(s, 0, "attack", trait=trait, arg=arg)
        s, ev = strike(s, 0, 1, kind, kind if kind != "L" else "", reaction)
        out.append(dealt(ev, 1))
    return out[0], out[1]


def test_c5_10_kind_damage_adds_2_dp_on_its_kind_only():
    plain, more = damage_with("kind_damage", "B", "B")
    assert more - plain == 2 * DP
    plain, more = damage_with("kind_damage", "A", "B")
    assert more == plain


def test_c5_10_lead_damage_adds_1_dp_in_the_lead_exchange_only():
    plain, more = damage_with("lead_damage")
    assert more - plain == DP
    spent = lambda s: strike(s, 1, 0, "B", "B", "G")[0]  # noqa: E731
    plain, more = damage_with("lead_damage", before=spent)
    assert more == plain


@pytest.mark.parametrize("trait,outcome", [("won_lead", "won"), ("lost_lead", "lost")])
def test_c5_10_won_lead_and_lost_lead_add_1_dp_to_later_attacks_that_round(trait, outcome):
    def defend(s):  # Honda attacks first: seat 0's lead exchange, won by a miss or lost
        if outcome == "won":
            return strike(s, 1, 0, "B", "B", "Q", "Q", hit=3, defense=10, damage=())[0]
        return strike(s, 1, 0, "B", "B", "G")[0]
    plain, more = damage_with(trait, before=defend)
    assert more - plain == DP
    other = "lost_lead" if trait == "won_lead" else "won_lead"
    plain, more = damage_with(other, before=defend)
    assert more == plain


def test_c5_10_extra_guard_reduces_5_more_and_only_on_a_guard():
    for reaction, cut in (("G", 5), ("L", 0)):
        got = []
        for with_trait in (False, True):
            s = cduel()
            if with_trait:
                set_stance(s, 0, "defense")  # extra_guard by default
            s, ev = strike(s, 1, 0, "B", "B", reaction, hit=9, defense=3)
            got.append(dealt(ev, 0))
        assert got[0] - got[1] == cut


def test_c5_10_guard_thorns_deals_1_dp_to_the_attacker_each_guard():
    s = cduel()
    set_stance(s, 0, "attack", trait="guard_thorns")
    hp = s.camps[1].hp
    s, ev = strike(s, 1, 0, "B", "B", "G")
    assert s.camps[1].hp == hp - DP
    assert find(ev, "ThornsDealt")[0].data == {"seat": 0, "target": 1, "amount": DP}
    s = cduel()
    set_stance(s, 0, "attack", trait="guard_thorns")
    s, ev = strike(s, 1, 0, "B", "B", "L", hit=9, defense=3)
    assert s.camps[1].hp == hp and not find(ev, "ThornsDealt")


def test_c5_10_incantation_ward_cuts_3_dp_after_a_magecraft_skill_that_round():
    rules = bare()
    rules = replace(rules, masters={**rules.masters, "han": default_ruleset().masters["han"]})
    got = []
    for cast in (False, True):
        s = cduel(rules=rules, masters=["koga", "han"])
        set_stance(s, 1, "attack", trait="incantation_ward")
        if cast:
            s, _ = act(s, UseSkill(1, "ward_field", -1), [100])  # used, even if it failed
        s, _ = apply(s, Ready(0))
        s, _ = apply(s, Ready(1))
        s, _ = apply(s, Wait(1))
        s, ev = strike(s, 0, 1, "B", "B", "L", hit=9, defense=3)
        got.append(dealt(ev, 1))
    assert got[0] - got[1] == 3 * DP


def test_c5_10_magecraft_grade_adds_a_grade_to_its_subtype():
    rules = default_ruleset()
    s = cduel(("caster", "lancer"), rules=rules)
    bog = rules.skills["bog_song"]  # attack magecraft
    assert sec(s).skill_check(s, 0, bog, 1) == 0
    set_stance(s, 0, "attack", trait="magecraft_grade", arg="attack")
    assert sec(s).skill_check(s, 0, bog, 1) == 10
    set_stance(s, 0, "attack", trait="magecraft_grade", arg="curse")
    assert sec(s).skill_check(s, 0, bog, 1) == 0


# --- C5.11 [c], C5.12 ---------------------------------------------------------------------------
def test_c5_11_there_is_no_consecutive_or_additional_strike_trait():
    from grailwar.shared.modules.campaign.stances import traits
    assert set(traits()) == {"none", "kind_damage", "lead_damage", "magecraft_grade",
                             "incantation_ward", "won_lead", "lost_lead", "guard_thorns",
                             "extra_guard"}


@pytest.mark.parametrize("old,new,field", [
    ("[extra_guard]", "[consecutive_attack]", "consecutive_attack"),
    ('[kind_damage]\narg = "kind"', '[kind_damage]\narg = ""', "kind_damage.arg"),
    ("[guard_thorns]", "[guard_thornz]", "guard_thornz"),
])
def test_c5_12_a_trait_entry_must_be_a_known_trait_with_its_argument(tmp_path: Path, old, new,
                                                                   field):
    src = Path(__file__).parents[1] / "resources" / "campaign" / "traits.toml"
    (tmp_path / "campaign").mkdir()
    text = src.read_text(encoding="utf-8")
    assert old in text
    (tmp_path / "campaign" / "traits.toml").write_text(text.replace(old, new), encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_traits(read_table(tmp_path, "campaign/traits.toml"))
    assert "campaign/traits.toml" in str(err.value) and field in str(err.value)


# --- scenario files: tests/scenarios/campaign/ (played by test_campaign_contract.py) ----------
@pytest.mark.parametrize("values,named", [
    ({"resistant": [[0, 0]]}, "two different seats"), ({"resistant": [[0, 9]]}, "viewer, other"),
    ({"resist": []}, "has no key 'resist'"),
])
def test_a_bad_scenario_resistance_is_refused_with_what_is_wrong(values, named):
    s = cduel()
    with pytest.raises(ValueError, match=named):
        next(m for m in s.modules if m.name == "campaign").scenario_state(s, {"stances": values})
