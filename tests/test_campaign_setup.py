"""The campaign's summoning and day 0 (seed 002 §14; spec C14.1-C14.4; docs/rules.md "Summoning
and day 0"): the room options end to end (engine, scenario files, simulate, tournament, the
lobby's names), the day-0 phase (relic draft, tags, internal bonds, the setup prompt), the relic
draft and its data, and what of it every seat sees."""

from __future__ import annotations

import json
import random
import shutil
import tomllib
from pathlib import Path

import pytest
from grailwar.cli import scenario
from grailwar.cli.main import main
from grailwar.client.i18n import LANGS, Tr
from grailwar.shared.bots import make_bot
from grailwar.shared.bots.determinize import state_from_view
from grailwar.shared.engine import (
    apply,
    default_action,
    from_replay,
    legal_actions,
    new_game,
    play,
    to_text,
    view_for,
)
from grailwar.shared.engine.actions import DeclareWait, from_dict
from grailwar.shared.engine.data import CLASSES, DataError, default_ruleset
from grailwar.shared.engine.events import view_event
from grailwar.shared.engine.modules import MODULES
from grailwar.shared.engine.prompts import PROMPTS
from grailwar.shared.modules.campaign import state as st
from grailwar.shared.modules.campaign.gear import Buy, Gear, Wear
from grailwar.shared.modules.campaign.section import section_of
from grailwar.shared.modules.campaign.stances import (
    ArrangeStance,
    HoldNoblePhantasm,
    LinkStance,
    NameStance,
    SetStanceTrait,
    Stances,
)
from grailwar.shared.modules.campaign.summoning import (
    ChooseRelic,
    SetupReady,
    Summoning,
    load_relics,
)
from helpers import find, game, run, types
from test_tactics import play_steps

RULES = default_ruleset()
RELICS = load_relics(RULES)
DATA = Path(__file__).parent.parent / "resources"
SCENARIO = Path(__file__).parent / "scenarios" / "campaign" / "relic_draft.toml"


def day0(summoning: str = "choose", tags: str = "off", classes=("saber", "lancer", "caster"),
         **kw):
    """A campaign game at its first day-0 prompt."""
    return new_game(seed=kw.pop("seed", 3), classes=classes, modules=["campaign"],
                    options={"campaign": {"summoning": summoning, "tags": tags}}, **kw)




def ready_all(s):
    return run(s, *(SetupReady(x) for x in sorted(s.prompt.seats)))


# --- C14.1 the room option, end to end -------------------------------------------------------
def test_with_the_campaign_off_a_game_opens_on_day_1_morning_as_before():
    s = new_game(seed=3)
    assert (s.day, s.prompt.kind, s.settings.modules) == (1, "declare", ())


def test_choose_keeps_the_seats_classes_and_servants_and_opens_day_0():
    """`choose` is the base lobby: seat i plays classes[i] and the Servant given for it."""
    s = day0("choose", servants=["gyebaek", "benkei", None])
    assert [c.cls for c in s.camps] == ["saber", "lancer", "caster"]
    assert [c.servant.id for c in s.camps][:2] == ["gyebaek", "benkei"]
    assert (s.day, s.prompt.kind, s.prompt.seats) == (0, "setup", frozenset({0, 1, 2}))


def test_random_deals_the_classes_from_the_dice_and_a_servant_of_each_roster():
    """Each seat in turn: a die over the classes not dealt yet, then one over its roster; the
    lobby's classes and Servant choices do not count."""
    s = day0("random", forced=(7, 1, 1, 3, 5, 2), servants=["gyebaek", None, None])
    assert [c.cls for c in s.camps] == ["berserker", "saber", "assassin"]
    assert [c.servant.id for c in s.camps] == [RULES.roster["berserker"][0].id,
                                               RULES.roster["saber"][2].id,
                                               RULES.roster["assassin"][1].id]
    starts = RULES.maps["akatsukigahama"].starts
    assert [c.pos for c in s.camps] == [starts["berserker"], starts["saber"], starts["assassin"]]
    for seat, camp in enumerate(s.camps):  # the record follows the Servant dealt
        assert st.cards(st.record(s, seat), section_of(s, Summoning).data) == camp.servant.cards
        assert {x.order for x in st.record(s, seat).stances} == {camp.servant.cards}


def test_random_never_deals_a_class_twice_over_many_seeds():
    for seed in range(30):
        s = day0("random", classes=CLASSES, seed=seed)
        assert sorted(c.cls for c in s.camps) == sorted(CLASSES)


def test_the_options_travel_in_the_replay_and_rebuild_the_same_game():
    s = day0("relic", "random", seed=5)
    bots = [make_bot("random", i) for i in range(3)]
    actions = []
    while s.day < 2 and not s.over:
        seat = min(s.prompt.seats)
        action = bots[seat].choose(None, legal_actions(s, seat))
        actions.append(action.to_dict())
        play(s, action)
    replay = {"seed": 5, "classes": ["saber", "lancer", "caster"], "day_limit": None,
              "masters": [c.master.id for c in s.camps], "servants": None,
              "priority_phase": False, "modules": ["campaign"],
              "options": {"campaign": {"summoning": "relic", "tags": "random"}},
              "actions": actions}
    assert to_text(from_replay(json.loads(json.dumps(replay)))) == to_text(s)


def test_the_scenario_file_sets_the_options_and_plays_the_draft():
    """tests/scenarios/campaign/relic_draft.toml plays as its comment says, every forced die
    used."""
    spec = tomllib.loads(SCENARIO.read_text(encoding="utf-8"))
    s, log = play_steps(scenario.setup(spec), spec["step"])
    assert s.settings.options == {"campaign": {"summoning": "relic", "tags": "random"}}
    assert s.forced == ()
    for want in spec["expect"]["event"]:
        fields = {k: v for k, v in want.items() if k not in ("step", "type")}
        assert any(e.type == want["type"] and fields.items() <= e.data.items()
                   for e in log[want["step"] - 1]), want
    assert {str(c.seat): c.servant.id for c in s.camps} == spec["expect"]["servant"]
    assert s.camps[2].spells == spec["expect"]["spells"]["2"]


def test_simulate_takes_the_campaign_summoning_option(capsys):
    code = main(["simulate", "--modules", "campaign", "--option", "campaign.summoning=relic",
                 "--games", "2", "--seed", "2", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["errors"] == 0
    assert out["options"] == {"campaign": {"summoning": "relic", "tags": "random"}}


def test_tournament_takes_the_campaign_options(capsys):
    code = main(["tournament", "--modules", "campaign", "--option", "campaign.summoning=random",
                 "--option", "campaign.tags=off", "--levels", "random,normal", "--games", "1",
                 "--seed", "2", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["options"] == {"campaign": {"summoning": "random", "tags": "off"}}


def test_a_bad_summoning_value_is_refused_by_name(capsys):
    assert main(["simulate", "--modules", "campaign", "--option", "campaign.summoning=lottery",
                 "--games", "1"]) != 0
    assert "'summoning': must be one of 'choose', 'random', 'relic'" in capsys.readouterr().err


def test_the_lobby_names_every_value_of_the_campaign_options_in_each_language():
    """The create panel steps through the choices, each shown as
    option_value.campaign.<option>.<value>; the option and the module have names too."""
    for lang in LANGS:
        tr = Tr(lang)
        assert tr.has("module.campaign") and tr.has("module_help.campaign")
        for option, spec in MODULES["campaign"].options.items():
            assert tr.has(f"option.campaign.{option}")
            for value in spec.choices:
                assert tr.has(f"option_value.campaign.{option}.{value}"), (lang, option, value)


# --- C14.3 day 0 -------------------------------------------------------------------------------
def test_day_0_ends_when_every_seat_is_ready_and_day_1_morning_opens():
    s = day0()
    s, events = apply(s, SetupReady(1))
    assert s.prompt == ("setup", frozenset({0, 2})) and find(events, "SetupFinished")
    assert legal_actions(s, 1) == []  # a ready seat waits
    s, events = ready_all(s)
    assert (s.day, s.turn, s.prompt.kind) == (1, 0, "declare")
    assert find(events, "TurnStarted")[0].data == {"day": 1, "turn": "morning"}
    assert st.state(s).day0 == "done" and st.state(s).day0_ready == frozenset()


def test_the_setup_prompt_waits_setup_s_and_its_default_is_ready():
    """Day 0 and the draft run on the campaign's own room timers; on timeout the data defaults
    stand: the seat is ready with nothing changed."""
    s = day0()
    assert PROMPTS["setup"].timer == "setup_s" and PROMPTS["relic"].timer == "draft_s"
    assert default_action(s, 2) == SetupReady(2)
    assert legal_actions(s, 0)[0] == SetupReady(0)


def test_the_internal_bonds_are_positive_grade_1_each_way():
    """C8.2 / C14.3: on day 0 each camp's Servant and Master hold a bond toward each other."""
    s = day0()
    for seat in range(3):
        assert st.record(s, seat).bonds == (st.Bond("servant", seat, "positive", 1),
                                            st.Bond("master", seat, "positive", 1))


def test_day_0_is_before_every_turn():
    """The turn counter is below day 1's while day 0 lasts, and nothing of a Turn happens."""
    s = day0()
    assert st.turn_key(s) < 3 and s.decls == ()
    s, events = ready_all(s)
    assert "TimeWithMaster" not in types(events) and st.turn_key(s) == 3


# --- C14.2 the relic draft ---------------------------------------------------------------------
def test_relic_opens_a_draft_for_every_seat_with_every_relic_free():
    s = day0("relic")
    assert (s.day, s.prompt) == (0, ("relic", frozenset({0, 1, 2})))
    assert legal_actions(s, 0) == [ChooseRelic(0, r.id) for r in RELICS]


def test_a_relic_brings_its_servant_class_and_start_square_and_only_its_class_is_public():
    s = day0("relic")
    s, events = apply(s, ChooseRelic(0, "thousandth_sword"))
    camp = s.camps[0]
    assert (camp.servant.id, camp.cls) == ("benkei", "lancer")
    assert camp.pos == RULES.maps["akatsukigahama"].starts["lancer"]
    assert (camp.hp, camp.mp, camp.hand) == (camp.servant.hp, camp.servant.mp,
                                             camp.servant.cards)
    assert st.cards(st.record(s, 0), section_of(s, Summoning).data) == camp.servant.cards
    (chosen,) = find(events, "RelicChosen")
    assert view_event(chosen, 0)["relic"] == "thousandth_sword"
    for viewer in (0, 1, None):
        assert view_event(chosen, viewer)["cls"] == "lancer"
        assert "servant" not in view_event(chosen, viewer)
    for viewer in (1, None):  # the shipped file names the relic's Servant: its taker's alone
        assert view_event(chosen, viewer)["relic"] == ""


def test_first_come_first_served_and_a_drafted_class_closes_its_other_relics():
    s = day0("relic")
    s, _ = apply(s, ChooseRelic(1, "thousandth_sword"))
    offered = {a.relic for a in legal_actions(s, 0)}
    lancers = {r.id for r in RELICS if RULES.by_id[r.servant].cls == "lancer"}
    assert offered and not offered & lancers
    assert s.prompt.seats == frozenset({0, 2})
    with pytest.raises(Exception, match="not legal"):
        apply(s, ChooseRelic(0, "halved_dragonfly_wing"))


def test_on_timeout_a_seat_gets_the_first_free_relic_in_file_order():
    s = day0("relic")
    s, _ = apply(s, ChooseRelic(2, RELICS[0].id))
    first_free = next(r for r in RELICS if RULES.by_id[r.servant].cls != "saber")
    assert default_action(s, 0) == ChooseRelic(0, first_free.id)


def test_after_the_draft_the_tags_are_dealt_then_the_setup_prompt_opens():
    s = day0("relic", "random")
    s, _ = run(s, ChooseRelic(0, RELICS[0].id), ChooseRelic(1, "thousandth_sword"))
    assert all(st.record(s, x).tag == "" for x in range(3))
    s.forced = (1, 1, 1)
    s, events = apply(s, ChooseRelic(2, "pike_bone_harp"))
    assert [e.data["seat"] for e in find(events, "TagDealt")] == [0, 1, 2]
    assert s.prompt == ("setup", frozenset({0, 1, 2}))


def test_the_draft_shows_names_hints_and_drafted_classes_and_the_taken_relic_to_its_taker():
    """A free relic shows its name and hint only; once a class is drafted, each of its relics
    shows that class to everyone, and which of them was taken only to its taker."""
    s = day0("relic")
    s, _ = apply(s, ChooseRelic(1, "pike_bone_harp"))
    views = {x: view_for(s, x)["modules"]["campaign"]["state"]["summoning"]
             for x in (0, 1, 2, None)}
    assert views[0] == views[2] == views[None] != views[1]
    casters = {r.id for r in RELICS if RULES.by_id[r.servant].cls == "caster"}
    for viewer, view in views.items():
        relics = {r["id"]: r for r in view["relics"]}
        assert {i for i, r in relics.items() if r["cls"]} == casters
        assert {i for i, r in relics.items() if r["seat"] >= 0} == (
            {"pike_bone_harp"} if viewer == 1 else set())
    assert {r["id"]: r for r in views[0]["relics"]}["thousandth_sword"] == {
        "id": "thousandth_sword", "seat": -1, "cls": "",
        "name": {"ja": "千本目の太刀", "ko": "천 번째 칼", "en": "The Thousandth Sword"},
        "hint": {r["id"]: r for r in views[0]["relics"]}["thousandth_sword"]["hint"]}
    servant_ids = set(RULES.by_id)
    assert not any(token in servant_ids for r in views[0]["relics"] for token in
                   json.dumps(r).replace('"', " ").split())


def test_a_bot_rebuilds_the_day_0_state_from_its_view():
    s = day0("relic")
    s, _ = run(s, ChooseRelic(1, "pike_bone_harp"), ChooseRelic(0, RELICS[0].id),
               ChooseRelic(2, "thousandth_sword"), SetupReady(2))
    rebuilt = state_from_view(view_for(s, 0), RULES, random.Random(1))
    own, *others = st.state(rebuilt).relics
    assert own == (RELICS[0].id, 0)  # the others' are a relic of their class, not theirs
    assert sorted(seat for _r, seat in others) == [1, 2]
    assert section_of(rebuilt, Summoning).free_relics(rebuilt) == section_of(
        s, Summoning).free_relics(s)
    assert st.state(rebuilt).day0_ready == frozenset({2}) and rebuilt.day == 0
    assert [c.cls for c in rebuilt.camps] == [c.cls for c in s.camps]


def test_the_bots_draft_ready_and_play_a_relic_game_to_its_end():
    """The random bot plays every day-0 action; the normal bot keeps its seat's class."""
    for kind in ("random", "heuristic"):
        s = day0("relic", "random", classes=CLASSES, seed=11)
        bots = [make_bot(kind, i) for i in range(7)]
        seen = set()
        while not s.over:
            seat = min(s.prompt.seats)
            legal = legal_actions(s, seat)
            action = bots[seat].choose(view_for(s, seat), legal)
            seen.add(type(action).__name__)
            play(s, action)
        assert {"ChooseRelic", "SetupReady"} <= seen
        if kind == "heuristic":
            assert [c.cls for c in s.camps] == list(CLASSES)


# --- C14.3 the setup prompt's free actions (C5.7, C6.2, C6.3) -------------------------------------
def test_setup_sells_the_whole_catalogue_and_the_seat_wears_what_it_bought():
    """C6.2: on day 0 every item is for sale wherever the camp stands (the Old Foreign
    Quarter's belt at the saber's start square 7); C6.3 it is worn there; the prompt stays
    open for the seat until its SetupReady."""
    s = game(classes=("saber", "lancer"), day0=True, modules=["campaign"])
    gear = section_of(s, Gear)
    assert s.camps[0].pos not in (q for q, items in gear.shops["akatsukigahama"].items()
                                  if "giants_belt" in items)
    buys = {a.item for a in legal_actions(s, 0) if isinstance(a, Buy)}
    assert buys == {i for i, item in gear.items.items()
                    if item.price <= 16 and not item.overseer}
    s, ev = run(s, Buy(0, "giants_belt"), Wear(0, "giants_belt", "servant"))
    rec = st.record(s, 0)
    assert rec.funds == 8 and rec.worn == (("giants_belt", "servant"),)
    assert st.cards(rec, section_of(s, Stances).data).count("B") == 3  # +2 B tiles: one card
    assert s.prompt == ("setup", frozenset({0, 1}))
    assert view_event(find(ev, "ItemBought")[0], 1) is None
    s, _ = run(s, SetupReady(0), SetupReady(1))
    assert s.day == 1 and not [a for a in legal_actions(s, 0) if isinstance(a, Buy)
                               and a.item == "giants_belt"]  # day 1: the shop's wares only


def test_setup_arranges_a_stance_in_any_order_of_its_pool():
    """C5.7: on day 0 the order is free (placed cards may move); any other cards are refused,
    and on day 1 a placed card may no longer move."""
    s = game(classes=("saber", "lancer"), day0=True, modules=["campaign"])
    assert section_of(s, Stances).arrangement(s, 0, "attack") == "BBAQQ"
    s, ev = run(s, ArrangeStance(0, "attack", "QBQAB"))
    assert section_of(s, Stances).arrangement(s, 0, "attack") == "QBQAB"
    assert view_event(find(ev, "StanceArranged")[0], 1) is None
    with pytest.raises(Exception, match="not legal"):
        apply(s, ArrangeStance(0, "attack", "AABQQ"))  # not the pool's cards
    s, _ = ready_all(s)
    with pytest.raises(Exception, match="not legal"):
        apply(s, ArrangeStance(0, "attack", "BBAQQ"))


def test_setup_names_stances_and_sets_their_traits():
    """C5.1 names; C5.10 a non-normal stance takes any trait of the catalogue with its
    argument; the normal stance keeps `none`."""
    s = game(classes=("saber", "lancer"), day0=True, modules=["campaign"])
    traits = [a for a in legal_actions(s, 0) if isinstance(a, SetStanceTrait)]
    assert {a.stance for a in traits} == {"attack", "defense", "critical"}
    assert not [a for a in traits if a.trait == "none"]
    assert SetStanceTrait(0, "defense", "magecraft_grade", "curse") in traits
    with pytest.raises(Exception, match="not legal"):
        apply(s, SetStanceTrait(0, "defense", "magecraft_grade", "B"))
    s, ev = run(s, SetStanceTrait(0, "defense", "kind_damage", "Q"),
                NameStance(0, "defense", "Babieca"))
    defense = st.record(s, 0).stances[2]
    assert (defense.trait, defense.arg, defense.name) == ("kind_damage", "Q", "Babieca")
    assert view_event(find(ev, "StanceTraitSet")[0], 1) is None


def test_setup_links_swap_so_the_four_categories_stay_one_to_one():
    """C5.1, A19: linking normal to Legend gives critical normal's Combat."""
    s = game(classes=("saber", "lancer"), day0=True, modules=["campaign"])
    s, ev = run(s, LinkStance(0, "normal", "legend"))
    links = [x.link for x in st.record(s, 0).stances]
    assert links == ["legend", "encounter", "rumor", "combat"]
    assert view_event(find(ev, "StanceLinked")[0], 1) is None


def test_setup_moves_the_np_to_one_non_normal_stance_and_a_constant_np_has_none_to_move():
    """C5.8: exactly one non-normal stance holds an attack or support NP; a constant NP is on
    in every stance, so nothing is offered for it."""
    s = game(classes=("saber", "lancer"), day0=True, modules=["campaign"])
    offered = [a for a in legal_actions(s, 0) if isinstance(a, HoldNoblePhantasm)]
    assert offered == [HoldNoblePhantasm(0, "attack"), HoldNoblePhantasm(0, "defense")]
    s, _ = run(s, HoldNoblePhantasm(0, "attack"))
    assert [x.np for x in st.record(s, 0).stances] == [False, True, False, False]
    assert s.camps[1].servant.np.kind == "constant"
    assert not [a for a in legal_actions(s, 1) if isinstance(a, HoldNoblePhantasm)]


def test_the_normal_bot_buys_wears_and_deals_its_lead_sets_at_setup():
    """The heuristic bot outfits its Servant on day 0 and leaves no stance whose lead set
    misses a kind of its pool."""
    s = game(classes=("saber", "lancer"), day0=True, modules=["campaign"])
    bot = make_bot("heuristic", 0)
    seen = []
    while s.day == 0:
        seat = min(s.prompt.seats)
        action = bot.choose(view_for(s, seat), legal_actions(s, seat))
        seen.append(type(action).__name__)
        play(s, action)
    assert "Buy" in seen and "Wear" in seen and seen.count("SetupReady") == 2
    for seat in range(2):
        rec = st.record(s, seat)
        assert rec.worn
        stances = section_of(s, Stances)
        for name in ("normal", "attack", "defense", "critical"):
            assert stances.lead_kinds(s, seat, name) == set(stances.pool(s, seat))


# --- relics.toml -------------------------------------------------------------------------------
def test_every_roster_servant_has_one_relic_that_does_not_name_it():
    assert sorted(r.servant for r in RELICS) == sorted(RULES.by_id)
    for relic in RELICS:
        sheet = RULES.by_id[relic.servant]
        names = {sheet.id}
        for lang in ("ja", "ko", "en"):
            full = getattr(sheet.true_name, lang)
            names |= {full, full.split("（")[0].split("(")[0].strip()}
        for lang in ("ja", "ko", "en"):
            shown = getattr(relic.name, lang) + getattr(relic.hint, lang)
            assert not any(n and n in shown for n in names), (relic.id, lang)
        assert sheet.id not in relic.id


@pytest.mark.parametrize(("text", "field", "says"), [
    ('[a]\nservant = "nobody"\nname = {ja="a", ko="a", en="a"}\nhint = {ja="a", ko="a", en="a"}',
     "a.servant", "unknown Servant"),
    ('[a]\nservant = "el_cid"\nname = {ja="a", ko="a", en="a"}\nhint = {ja="a", ko="a", en="a"}'
     '\n[b]\nservant = "el_cid"\nname = {ja="a", ko="a", en="a"}\nhint = {ja="a", ko="a", en="a"}',
     "b.servant", "already has the relic"),
    ('[a]\nservant = "el_cid"\nname = {ja="a", ko="a", en="a"}\nhint = {ja="a", ko="a", en="a"}',
     "abe_no_seimei", "every Servant of the roster needs a relic"),
    ('[a]\nservant = "el_cid"\nname = "A"\nhint = {ja="a", ko="a", en="a"}', "a.name",
     "must be a table"),
])
def test_a_bad_relics_file_names_file_and_field(tmp_path, text, field, says):
    shutil.copytree(DATA / "campaign", tmp_path / "campaign")
    (tmp_path / "campaign" / "relics.toml").write_text(text, encoding="utf-8")
    with pytest.raises(DataError, match=says) as err:
        load_relics(RULES, root=tmp_path)
    assert (err.value.file, err.value.field) == ("campaign/relics.toml", field)


def test_a_declaration_is_no_day_0_action():
    s = day0()
    with pytest.raises(Exception, match="no DeclareWait is legal in the setup prompt"):
        apply(s, DeclareWait(0))
    assert from_dict(ChooseRelic(0, "x").to_dict()) == ChooseRelic(0, "x")
    assert from_dict(SetupReady(1).to_dict()) == SetupReady(1)


def test_campaign_games_in_test_helpers_start_past_day_0_without_tags():
    """(The helper other sections' tests use.)"""
    s = game(modules=["campaign"])
    assert s.day == 1 and s.prompt.kind == "declare" and st.record(s, 0).tag == ""
    assert game(modules=["campaign"], day0=True).prompt.kind == "setup"
