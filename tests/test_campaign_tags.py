"""The campaign's tags (seed 002 §12; spec C12.1, C12.2; docs/rules.md "Tags"): the deal on day 0
(by the dice, no repeats, within `classes`), their privacy, each tag's effect, and the parts the
spec marks [c] not offered."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from grailwar.shared.bots import make_bot
from grailwar.shared.engine import apply, core, legal_actions, new_game, view_for
from grailwar.shared.engine.actions import (
    AnswerIntervention,
    DeclareDisengage,
    DeclareEncounter,
    DeclareRest,
    DeclareWait,
    Move,
    Negotiate,
    UseCommandSpell,
    from_dict,
)
from grailwar.shared.engine.data import CLASSES, PARAMS, DataError, default_ruleset
from grailwar.shared.engine.events import view_event
from grailwar.shared.engine.geometry import distance
from grailwar.shared.modules.campaign import state as st
from grailwar.shared.modules.campaign.contract import Contract, SetSupply
from grailwar.shared.modules.campaign.info import Information
from grailwar.shared.modules.campaign.section import section_of
from grailwar.shared.modules.campaign.summoning import SetupReady
from grailwar.shared.modules.campaign.tags import (
    TAGS,
    GiveCommandSpell,
    Tags,
    UseJewels,
    load_tags,
)
from helpers import duel, find, game, place, run, waits

RULES = default_ruleset()
DATA = Path(__file__).parent.parent / "resources"
GRID = RULES.maps["akatsukigahama"]
CHURCH = 18


def tags_of(s) -> Tags:
    return section_of(s, Tags)


def tagged(tag: str, classes=("saber", "lancer", "caster"), seat: int = 0, **kw):
    """A campaign game on day 1 Morning with `tag` given to `seat` (no other tag dealt)."""
    s = game(classes, modules=["campaign"], **kw)
    tags_of(s).give(s, seat, tags_of(s).tag_by_id[tag])
    return s


def dealt(classes, forced=()):
    s = new_game(seed=1, classes=classes, modules=["campaign"], forced=forced,
                 options={"campaign": {"tags": "random"}})
    return s, [st.record(s, x).tag for x in range(len(classes))]






# --- C12.1 the deal ---------------------------------------------------------------------------
def test_the_tags_are_dealt_on_day_0_from_the_dice_without_repeats():
    """Each seat in turn: a die over the tags not dealt yet that its class may take."""
    s, got = dealt(("saber", "lancer", "caster"), forced=(1, 1, 1))
    assert got == ["holy_sword_sheath", "founding_jewels", "founding_insects"]
    assert s.day == 0 and s.forced == ()
    _s, got = dealt(("saber", "lancer", "caster"), forced=(2, 2, 2))
    assert got == ["founding_jewels", "founding_insects", "founding_homunculus"]


def test_a_tag_with_classes_goes_only_to_those_classes():
    """⑦ is Berserker only: a Saber's die runs over the seven others (7: the gatekeeper), a
    Berserker's over the rest with ⑦ among them (7: ⑦)."""
    _s, got = dealt(("saber", "berserker"), forced=(7, 7))
    assert got == ["gatekeeper", "strongest_enemy"]
    for seed in range(40):
        s = new_game(seed=seed, classes=CLASSES, modules=["campaign"])
        tags = [st.record(s, x).tag for x in range(7)]
        assert len(set(tags)) == 7 and set(tags) <= set(TAGS)
        assert all(t != "strongest_enemy" or c.cls == "berserker"
                   for t, c in zip(tags, s.camps, strict=True))


def test_tags_off_deals_none_and_rolls_no_die():
    s = new_game(seed=1, classes=("saber", "lancer"), modules=["campaign"], forced=(3,),
                 options={"campaign": {"tags": "off"}})
    assert [st.record(s, x).tag for x in (0, 1)] == ["", ""] and s.forced == (3,)


def test_a_tag_is_private_to_its_camp():
    s, _ = dealt(("saber", "lancer"), forced=(1, 1))
    s, _ = apply(s, SetupReady(0))
    views = {x: view_for(s, x)["modules"]["campaign"]["state"] for x in (0, 1, None)}
    assert views[0]["camps"][0]["tag"] == "holy_sword_sheath"
    assert views[0]["tags"]["mine"]["id"] == "holy_sword_sheath"
    assert views[0]["tags"]["mine"]["name"]["ja"] == "聖剣の鞘"
    for viewer, seat in ((1, 0), (0, 1), (None, 0), (None, 1)):
        rival = views[viewer]["camps"][seat]
        assert not {"tag", "jewels", "revivals"} & set(rival)
    assert "tags" not in views[None]
    s = game(("saber", "lancer"), modules=["campaign"])
    s.events = []
    tags_of(s).give(s, 0, tags_of(s).tag_by_id["overseer"])
    (event,) = find(s.events, "TagDealt")
    assert view_event(event, 0)["tag"] == "overseer"
    assert view_event(event, 1) is None and view_event(event, None) is None


def test_a_stray_camps_tag_does_nothing():
    """The tag is its Master's: a stray camp has none in force."""
    s = tagged("founding_jewels")
    st.update(s, 0, stray=True)
    assert st.tag(s, 0) == "" and core.mod(s, s.camps[0], "str") == 0


# --- ① the Holy Sword's sheath --------------------------------------------------------------------
def test_1_the_sheath_heals_10_hp_at_every_turn_end_capped():
    s = tagged("holy_sword_sheath")
    top = s.camps[0].servant.hp
    s.edit(0).hp = top - 25
    s.edit(1).hp = 40
    s, events = waits(s)
    assert s.camps[0].hp == top - 15 and s.camps[1].hp == 40
    assert find(events, "SheathHealed")[0].private == frozenset({0})
    s, _ = waits(s)
    s, _ = waits(s)
    assert s.camps[0].hp == top


# --- ② the Tohsaka jewels -------------------------------------------------------------------------
def test_2_the_jewels_hold_50_mp_poured_in_steps_of_10_at_any_prompt():
    s = tagged("founding_jewels")
    assert st.record(s, 0).jewels == 50
    s.edit(0).mp = 100
    assert [a for a in legal_actions(s, 0) if isinstance(a, UseJewels)] == [
        UseJewels(0, n) for n in (10, 20, 30, 40, 50)]
    s, events = apply(s, UseJewels(0, 20))
    assert (s.camps[0].mp, st.record(s, 0).jewels) == (120, 30)
    assert find(events, "JewelsUsed")[0].private == frozenset({0})
    assert s.prompt.kind == "declare" and 0 in s.prompt.seats  # free: still to declare
    assert [a.amount for a in legal_actions(s, 0) if isinstance(a, UseJewels)] == [10, 20, 30]
    assert not any(isinstance(a, UseJewels) for a in legal_actions(s, 1))


def test_2_the_jewels_are_offered_in_battle_and_not_into_a_full_servant():
    s = tagged("founding_jewels", classes=("saber", "lancer"))
    assert not any(isinstance(a, UseJewels) for a in legal_actions(s, 0))  # MP is full
    s = duel(modules=["campaign"])
    tags_of(s).give(s, 0, tags_of(s).tag_by_id["founding_jewels"])
    s.edit(0).mp = 10
    assert UseJewels(0, 50) in legal_actions(s, 0) and s.prompt.kind == "round_start"


def test_2_the_normal_bot_pours_the_jewels_into_a_servant_low_on_mp():
    s = tagged("founding_jewels")
    bot = make_bot("normal", 1)
    s.edit(0).mp = s.camps[0].servant.mp // 2
    assert not isinstance(bot.choose(view_for(s, 0), legal_actions(s, 0)), UseJewels)
    s.edit(0).mp = 10
    assert bot.choose(view_for(s, 0), legal_actions(s, 0)) == UseJewels(0, 50)


def test_2_while_contracted_every_parameter_is_10_higher():
    s = tagged("founding_jewels")
    camp = s.camps[0]
    assert all(core.param(s, camp, p) == camp.servant.params[p] + 10 for p in PARAMS)
    assert core.param(s, s.camps[1], "str") == s.camps[1].servant.params["str"]


# --- ③ the Makiri insects ------------------------------------------------------------------------
def squares_at(start: int, steps: int) -> int:
    return next(q for q in range(len(GRID.squares)) if distance(GRID, start, q) == steps)


def test_3_the_insects_give_a_rumor_point_on_each_materialized_servant_within_1_square():
    s = tagged("founding_insects", classes=("saber", "lancer", "caster", "rider"))
    home = 10
    place(s, 0, home)
    place(s, 1, squares_at(home, 1))
    place(s, 2, squares_at(home, 2))
    place(s, 3, home)
    s, _ = apply(s, SetSupply(3, False))  # in spirit form: the insects do not find it
    s, events = waits(s)
    rumor = 1  # SERVANT_CATEGORIES index
    assert [st.info_on(s, 0, x).servant[rumor] for x in (1, 2, 3)] == [1, 0, 0]
    assert st.info_on(s, 1, 0).servant[rumor] == 0
    assert all(e.private == frozenset({0}) for e in find(events, "InfoGained"))
    assert section_of(s, Contract).spirit(s, 3)


# --- ④ the Einzbern homunculus --------------------------------------------------------------------
def test_4_the_homunculus_master_is_artificial_but_not_while_stray():
    s = tagged("founding_homunculus")
    data = tags_of(s).data
    assert st.race(s, 0, data) == "artificial" and st.race(s, 1, data) == "human"
    st.update(s, 0, stray=True)  # the tag is its Master's, and does nothing while stray
    assert st.race(s, 0, data) == "human"


def test_4_c1_11_a_rival_that_learns_the_masters_race_sees_artificial():
    s = tagged("founding_homunculus")
    st.put_info(s, 1, 0, st.Info((0, 0, 0, 0), (10, 10, 10)))
    st.put_info(s, 2, 0, st.Info((0, 0, 0, 0), (10, 10, 0)))  # race not revealed yet
    info = [view_for(s, x)["modules"]["campaign"]["state"]["info"]["0"] for x in (1, 2)]
    assert info[0]["race"] == "artificial" and "race" not in info[1]


def test_4_it_takes_in_the_mp_of_another_servant_that_dies_capped():
    s = tagged("founding_homunculus")
    camp = s.edit(0)
    camp.master_mp = camp.master.mp - 50
    s.edit(1).mp = 77
    s.edit(2).mp = 31
    s, events = apply(s, UseCommandSpell(1, "suicide"))
    assert not s.camps[1].alive
    assert s.camps[0].master_mp == s.camps[0].master.mp  # 77 offered, 50 taken
    (drank,) = find(events, "HomunculusDrank")
    assert drank.private == frozenset({0}) and drank.data["amount"] == 50
    assert drank.data["target"] == 1


# --- ⑤ the Overseer ---------------------------------------------------------------------------
def test_5_the_overseer_has_one_more_stroke():
    s = game(modules=["campaign"])
    before = s.camps[0].spells
    tags_of(s).give(s, 0, tags_of(s).tag_by_id["overseer"])
    assert s.camps[0].spells == before + 1 and tags_of(s).is_overseer(s, 0)


def negotiation(tag_seat: int = 0):
    s = tagged("overseer", classes=("saber", "lancer"), seat=tag_seat)
    place(s, 0, 10)
    place(s, 1, 10)
    s, _ = apply(s, DeclareEncounter(1, 0, "negotiate"))
    assert s.prompt.kind == "negotiate"
    return s


def test_5_the_overseer_hands_a_stroke_to_its_negotiation_partner_once():
    s = negotiation()
    assert GiveCommandSpell(0) in legal_actions(s, 0)
    assert GiveCommandSpell(1) not in legal_actions(s, 1)
    s, events = apply(s, GiveCommandSpell(0))
    assert (s.camps[0].spells, s.camps[1].spells) == (3, 4)
    assert view_event(find(events, "CommandSpellGiven")[0], None)["target"] == 1  # public
    assert GiveCommandSpell(0) not in legal_actions(s, 0)
    assert s.prompt.kind == "negotiate"
    s, _ = run(s, Negotiate(0, False), Negotiate(1, False))


def test_5_the_overseer_keeps_one_stroke_for_its_own_servant():
    s = negotiation()
    s.edit(0).spells = 1
    assert GiveCommandSpell(0) not in legal_actions(s, 0)


def test_5_resting_on_the_hilltop_church_gets_the_dragon_veins_40():
    """The church's own leyline gives 30; the Overseer's Rest there gets 10 more on each of
    its three recoveries (the same dice in both games)."""
    gains = []
    for tag in ("overseer", "holy_sword_sheath"):
        s = tagged(tag, classes=("saber", "lancer"))
        place(s, 0, CHURCH)
        camp = s.edit(0)
        camp.hp, camp.mp, camp.master_mp = 20, 20, 20
        s, events = run(s, DeclareRest(0), DeclareRest(1))
        camp = s.camps[0]
        gains.append((camp.hp, camp.mp, camp.master_mp, types := [e.type for e in events]))
        if tag == "overseer":
            assert "DragonVeinRested" in types
    (hp, mp, mmp, _), (hp2, mp2, mmp2, _) = gains
    heal = 10  # the sheath's Turn-end heal in the other game
    assert (hp - (hp2 - heal), mp - mp2, mmp - mmp2) == (10, 10, 10)


# --- ⑥ the spirit from the future -------------------------------------------------------------
def test_6_the_future_spirit_knows_one_rival_at_its_maximum_less_1_and_hates_it():
    s = game(("saber", "lancer", "caster"), modules=["campaign"])
    s.forced = (2,)
    tags_of(s).give(s, 0, tags_of(s).tag_by_id["future_spirit"])
    top = section_of(s, Information).servant_max(s, 2)
    assert st.info_on(s, 0, 2).servant == (top - 1,) * 4 and st.info_on(s, 0, 1) == st.Info()
    assert st.Bond("servant", 2, "negative", 3) in st.record(s, 0).bonds
    assert s.camps[0].known[CLASSES.index("caster")] == 1  # its composition shows
    assert find(s.events, "TagDealt")[0].data["target"] == 2 and s.forced == ()


# --- ⑦ the strongest foe ----------------------------------------------------------------------
def test_7_a_killing_blow_brings_it_back_at_full_hp_eleven_times():
    s = tagged("strongest_enemy", classes=("berserker", "saber"))
    assert st.record(s, 0).revivals == 11
    s.events = []
    core.take_damage(s, 0, 10_000)
    assert s.camps[0].alive and s.camps[0].hp == s.camps[0].servant.hp
    assert st.record(s, 0).revivals == 10
    assert view_event(find(s.events, "Revived")[0], 1)["seat"] == 0  # public
    st.update(s, 0, revivals=0)
    core.take_damage(s, 0, 10_000)
    assert not s.camps[0].alive


def test_7_suicide_is_no_blow_it_rises_from():
    s = tagged("strongest_enemy", classes=("berserker", "saber"))
    s, _ = apply(s, UseCommandSpell(0, "suicide"))
    assert not s.camps[0].alive and st.record(s, 0).revivals == 11


@pytest.mark.parametrize(("master_mp", "left", "paid"), [(100, 11, 55), (23, 3, 15), (0, 0, 0)])
def test_7_the_master_pays_5_per_revival_left_at_every_turn_end(master_mp, left, paid):
    """After the supplied Berserker's 5 (C0.6): 5 MP per revival left; what cannot be paid
    for is lost (23 - 5 = 18 keeps 3 revivals for 15)."""
    s = tagged("strongest_enemy", classes=("berserker", "saber"))
    s.edit(0).master_mp = master_mp
    s, events = waits(s)
    assert st.record(s, 0).revivals == left
    assert s.camps[0].master_mp == master_mp - min(5, master_mp) - paid
    assert find(events, "RevivalsUpkept")[0].data["amount"] == paid


# --- ⑧ the gatekeeper -------------------------------------------------------------------------
def test_8_the_gatekeeper_does_not_move_teleport_or_retreat():
    s = tagged("gatekeeper", classes=("saber", "lancer"))
    legal = legal_actions(s, 0)
    assert not any(isinstance(a, Move) for a in legal)
    assert not any(isinstance(a, UseCommandSpell) and a.spell in ("teleport", "retreat")
                   for a in legal)
    assert any(isinstance(a, Move) for a in legal_actions(s, 1))


def test_8_it_encounters_only_on_its_own_square():
    s = tagged("gatekeeper", classes=("saber", "lancer"))
    post = GRID.starts["saber"]
    place(s, 1, post)
    assert DeclareEncounter(0, 1, "battle") in legal_actions(s, 0)
    place(s, 1, squares_at(post, 1))
    s._legal.clear()
    assert not any(isinstance(a, DeclareEncounter) for a in legal_actions(s, 0))


def test_8_it_does_not_disengage_nor_join_a_battle_away_from_its_square():
    s = duel(modules=["campaign"])
    tags_of(s).give(s, 0, tags_of(s).tag_by_id["gatekeeper"])
    assert DeclareDisengage(0) not in legal_actions(s, 0)
    assert DeclareDisengage(1) in legal_actions(s, 1)
    for square, joins in ((10, False), (GRID.starts["caster"], True)):
        s = tagged("gatekeeper", classes=("saber", "lancer", "caster"), seat=2)
        for seat in (0, 1, 2):
            place(s, seat, square)
        s, _ = run(s, DeclareEncounter(0, 1, "battle"), DeclareWait(2))
        assert s.prompt == ("intervene", frozenset({2}))
        assert (AnswerIntervention(2, True) in legal_actions(s, 2)) is joins
        assert AnswerIntervention(2, False) in legal_actions(s, 2)


def test_8_on_its_square_every_check_is_1_higher():
    s = tagged("gatekeeper", classes=("saber", "lancer"))
    camp = s.camps[0]
    assert core.mod(s, camp, "checks") == 1
    place(s, 0, squares_at(GRID.starts["saber"], 1))
    assert core.mod(s, s.camps[0], "checks") == 0


# --- C12.2 and the [c] parts ------------------------------------------------------------------
def test_the_tag_actions_travel_as_dicts():
    for action in (UseJewels(0, 30), GiveCommandSpell(2)):
        assert from_dict(action.to_dict()) == action


def test_the_data_holds_the_eight_tags_only_and_refuses_an_event_tag(tmp_path):
    assert tuple(t.id for t in load_tags(RULES)) == TAGS
    shutil.copytree(DATA / "campaign", tmp_path / "campaign")
    path = tmp_path / "campaign" / "tags.toml"
    path.write_text(path.read_text(encoding="utf-8") + '\n[event_tag]\nname = {ja="a", '
                    'ko="a", en="a"}\ntext = {ja="a", ko="a", en="a"}\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"event tags, C12\.2, are not played") as err:
        load_tags(RULES, root=tmp_path)
    assert (err.value.file, err.value.field) == ("campaign/tags.toml", "event_tag")


def test_a_bad_class_limit_names_the_field(tmp_path):
    shutil.copytree(DATA / "campaign", tmp_path / "campaign")
    path = tmp_path / "campaign" / "tags.toml"
    path.write_text(path.read_text(encoding="utf-8").replace('["berserker"]', '["pirate"]'),
                    encoding="utf-8")
    with pytest.raises(DataError, match="unknown class") as err:
        load_tags(RULES, root=tmp_path)
    assert err.value.field == "strongest_enemy.classes[0]"


def test_no_revival_insect_combat_maid_or_event_tag_is_offered():
    """[c] ③'s revival insect (Masters cannot die), ④'s combat maid (no NPC combatants),
    C12.2's event tags: over whole random games with every tag dealt, the tags offer only
    UseJewels and GiveCommandSpell, and nothing else of theirs."""
    seen = set()
    for seed in (1, 2):
        s = new_game(seed=seed, classes=CLASSES, modules=["campaign"])
        bots = [make_bot("random", seed * 10 + i) for i in range(7)]
        for _ in range(3000):
            if s.over:
                break
            seat = min(s.prompt.seats)
            legal = legal_actions(s, seat)
            seen |= {type(a).__name__ for a in legal
                     if type(a).__module__.endswith("campaign.tags")}
            s, _ = apply(s, bots[seat].choose(None, legal))
    assert seen == {"UseJewels", "GiveCommandSpell"} or seen == {"UseJewels"}
