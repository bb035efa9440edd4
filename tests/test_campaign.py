"""The campaign module's skeleton (seed 002; shared/modules/campaign/): its options, its data
and the errors that name file and field, its copy-on-write slot with the whole per-camp record
of spec §6.1, the records' view (own camp whole, rivals redacted) and rebuild, the canonical
text line, and how the Campaign hooks compose over its sections.

The rules of each section have their own test files (tests/test_campaign_*.py)."""

from __future__ import annotations

import random
import re
import shutil
from dataclasses import fields
from pathlib import Path

import pytest
from grailwar.shared import protocol
from grailwar.shared.bots import make_bot
from grailwar.shared.bots.determinize import state_from_view
from grailwar.shared.bots.match import run_match
from grailwar.shared.engine import apply, from_dict, legal_actions, new_game, to_text, view_for
from grailwar.shared.engine.actions import ACTION_TYPES
from grailwar.shared.engine.data import DataError, default_ruleset
from grailwar.shared.engine.errors import MalformedActionError
from grailwar.shared.engine.sharing import Shared
from grailwar.shared.modules import campaign as campaign_pkg
from grailwar.shared.modules.campaign import SECTIONS, Campaign, campaign
from grailwar.shared.modules.campaign import state as st
from grailwar.shared.modules.campaign.contract import (
    DeclareCancelContract,
    DeclareRecontract,
    SetSupply,
)
from grailwar.shared.modules.campaign.data import (
    METHODS,
    SERVANT_CATEGORIES,
    load_campaign,
)
from grailwar.shared.modules.campaign.info import DeclareResearch, ShareRumor
from grailwar.shared.modules.campaign.section import Section
from helpers import past_day0

RULES = default_ruleset()
DATA = Path(__file__).parent.parent / "resources" / "campaign"
SPEC = Path("/work/shared/modules/002-campaign.md")


def camp_game(seed: int = 1, **options) -> object:
    """A campaign game with these options, on day 1 Morning (its day 0 played by defaults)."""
    return past_day0(new_game(seed=seed, modules=["campaign"], options={"campaign": options}))


# --- options -------------------------------------------------------------------------------
def test_the_options_default_to_choose_and_random_and_travel_in_the_settings():
    """Switched on bare, summoning is `choose` and tags `random`; a given value is kept."""
    s = camp_game()
    assert s.settings.options == {"campaign": {"summoning": "choose", "tags": "random"}}
    s = camp_game(summoning="relic", tags="off")
    assert s.settings.options["campaign"] == {"summoning": "relic", "tags": "off"}
    assert view_for(s, 0)["modules"]["campaign"]["options"] == {"summoning": "relic",
                                                                 "tags": "off"}


@pytest.mark.parametrize(("options", "named"), [
    ({"summoning": "dream"}, "'summoning': must be one of 'choose', 'random', 'relic'"),
    ({"tags": "all"}, "'tags': must be one of 'off', 'random'"),
    ({"tags": True}, "'tags': expected str"),
    ({"relics": "on"}, "no option 'relics'"),
])
def test_a_bad_campaign_option_is_refused_by_name(options, named):
    with pytest.raises(ValueError, match=named):
        camp_game(**options)


# --- data ----------------------------------------------------------------------------------------
def test_the_shipped_data_loads_with_every_number_and_every_sheet():
    """rules.toml holds every `code` number the spec names (with its shipped default), and
    servants.toml / masters.toml an entry for every Servant and Master of the roster, the
    spec's shipped extras among them."""
    data = load_campaign(RULES)
    numbers = data.numbers._asdict()
    named = dict(re.findall(r"`([a-z_]+) = (\d+)`", SPEC.read_text(encoding="utf-8")))
    named.pop("mr_step")  # kept in modules/magecraft.toml, shared with seed 003 (spec §3)
    assert {k: numbers[k] for k in named} == {k: int(v) for k, v in named.items()}
    assert data.master_mp_per_level == {"human": 10, "artificial": 15}
    assert data.research_squares["akatsukigahama"] == {16, 11, 2}
    assert set(data.servants) == set(RULES.by_id) and set(data.masters) == set(RULES.masters)
    el_cid, honda = data.servants["el_cid"], data.servants["honda_tadakatsu"]
    assert (el_cid.fame, el_cid.plus_skills, el_cid.np_plus) == (0, {"twin_blades": 1}, 1)
    assert (honda.fame, honda.plus_skills, honda.np_plus) == (1, {"antler_helm": 1}, 1)
    assert data.servants["vainamoinen"].fame == 2
    assert {m.race for m in data.masters.values()} == {"human"}


def edit(file: str, old: str | None, new: str):
    def change(root: Path) -> None:
        path = root / "campaign" / file
        text = path.read_text(encoding="utf-8")
        assert old is None or old in text, old
        path.write_text(text + new if old is None else text.replace(old, new, 1),
                        encoding="utf-8")
    return change


@pytest.mark.parametrize(("change", "file", "field"), [
    (edit("rules.toml", "tiles_per_card = 2", "tiles_per_card = 0"), "rules.toml",
     "numbers.tiles_per_card"),
    (edit("rules.toml", "max_pool = 9", "max_pool = 9.5"), "rules.toml", "numbers.max_pool"),
    (edit("rules.toml", "stray_upkeep = 50", ""), "rules.toml", "numbers.stray_upkeep"),
    (edit("rules.toml", "damage_point = 3", "damage_point = 3\ndamage_pont = 3"), "rules.toml",
     "numbers.damage_pont"),
    (edit("rules.toml", "artificial = 15", "artificial = -1"), "rules.toml",
     "master_mp_per_level.artificial"),
    (edit("rules.toml", "[16, 11, 2]", "[16, 11, 42]"), "rules.toml",
     "research_squares.akatsukigahama"),
    (edit("rules.toml", None, "elf = { study = 1 }\n"), "rules.toml", "race_exp.elf"),
    (edit("servants.toml", "[el_cid]\nfame = 0", "[el_cid]\nfame = 3"), "servants.toml",
     "el_cid.fame"),
    (edit("servants.toml", "twin_blades = 1", "no_such_skill = 1"), "servants.toml",
     "el_cid.plus_skills.no_such_skill"),
    (edit("servants.toml", 'trait = "kind_damage"', 'trait = "thorns"'), "servants.toml",
     "el_cid.stances.attack.trait"),
    (edit("servants.toml", 'arg = "B"', 'arg = "L"'), "servants.toml",
     "el_cid.stances.attack.arg"),
    (edit("servants.toml", "[el_cid]", "[el_cid_x]"), "servants.toml", "el_cid_x"),
    (edit("servants.toml", "[judith]\nfame = 1\n", ""), "servants.toml", "judith"),
    (edit("masters.toml", '[koga]\nrace = "human"', '[koga]\nrace = "elf"'), "masters.toml",
     "koga.race"),
    (edit("masters.toml", '[koga]\nrace = "human"', '[koga]\nrace = "human"\nfunds = 3'),
     "masters.toml", "koga.funds"),
], ids=["number-range", "number-type", "number-missing", "number-unknown", "mp-per-level",
        "research-square", "race", "fame", "plus-unknown", "trait", "arg",
        "servant-unknown", "servant-missing", "master-race", "master-unknown-key"])
def test_a_campaign_data_error_names_the_file_and_the_field(tmp_path, change, file, field):
    """load_campaign refuses one bad value per case, naming its file and dotted field."""
    shutil.copytree(DATA, tmp_path / "campaign")
    load_campaign(RULES, root=tmp_path)  # the copy loads as shipped
    change(tmp_path)
    with pytest.raises(DataError) as err:
        load_campaign(RULES, root=tmp_path)
    assert (err.value.file, err.value.field) == (f"campaign/{file}", field)


# --- the slot and the record --------------------------------------------------------------------
def test_a_fresh_record_holds_every_field_of_spec_6_1_at_its_day_0_value():
    s = camp_game(tags="off")
    g = st.state(s)
    assert len(g.camps) == len(s.camps)
    for seat, rec in enumerate(g.camps):
        camp = s.camps[seat]
        assert rec.supply_on and not rec.stray and rec.materialized_turn == -1
        assert rec.level == 1 and rec.exp == (0,) * len(METHODS) == (0, 0, 0, 0, 0)
        assert (rec.skill_points, rec.background_points, rec.pending_growth) == (0, 0, 0)
        assert rec.merit == (0, 0) and rec.funds == 16
        assert rec.items == rec.worn == rec.devices == rec.growth == ()
        assert rec.bonds == (st.Bond("servant", seat, "positive", 1),
                             st.Bond("master", seat, "positive", 1))  # day 0's internal bonds
        assert st.cards(rec, campaign(s).data) == camp.servant.cards  # pool = composition
        assert rec.dp == ((0, 0, 0), (0, 0, 0))
        assert [x.order for x in rec.stances] == [camp.servant.cards] * 4
        assert rec.stance_now == "normal" and rec.tag == ""
        assert len(rec.info) == len(s.camps)
        assert all(i.servant == (0,) * len(SERVANT_CATEGORIES) and i.master == (0, 0, 0)
                   and not i.np_known and not i.true_name for i in rec.info)
    assert (g.vacant, g.residual, g.relics, g.day0, g.battle) == ((), (), (), "done", None)


def test_the_stance_defaults_follow_the_spec_and_the_servants_overrides():
    """normal (none, Combat), attack (kind_damage on the kind with the most cards,
    Encounter), defense (extra_guard, Rumor), critical (won_lead, Legend, NP)."""
    s = new_game(seed=1, modules=["campaign"], classes=("saber", "caster"),
                 servants=["el_cid", "vainamoinen"])
    got = [[(x.trait, x.arg, x.link, x.np) for x in st.record(s, seat).stances]
           for seat in (0, 1)]
    assert got[1] == [("none", "", "combat", False), ("kind_damage", "A", "encounter", False),
                      ("extra_guard", "", "rumor", False), ("won_lead", "", "legend", True)]
    assert got[0][1] == ("kind_damage", "B", "encounter", False)


def test_the_slot_is_copy_on_write_between_clones():
    """put_record on a clone changes only that camp's record of the clone; the original's
    slot, and the clone's other records, are the very same objects."""
    s = camp_game()
    before = st.state(s)
    clone = s.clone()
    st.update(clone, 2, funds=3, merit=(1, 2))
    assert st.state(s) is before and st.record(s, 2).funds == 16
    assert st.record(clone, 2).funds == 3 and st.record(clone, 2).merit == (1, 2)
    assert all(st.record(clone, x) is before.camps[x] for x in range(len(s.camps)) if x != 2)
    st.put_info(clone, 0, 3, st.Info(servant=(1, 0, 0, 0)))
    assert st.info_on(clone, 0, 3).servant == (1, 0, 0, 0) and st.info_on(s, 0, 3) == st.Info()


def test_apply_never_changes_the_campaign_state_it_was_given():
    """Through random play, every state given to apply keeps its slot."""
    s = camp_game(seed=3)
    bot = make_bot("random", 3)
    kept = []
    for _ in range(60):
        if s.over:
            break
        kept.append((s, s.mods["campaign"]))
        seat = min(s.prompt.seats)
        s, _ = apply(s, bot.choose(None, legal_actions(s, seat)))
    assert all(state.mods["campaign"] is value for state, value in kept)


# --- view, rebuild, text --------------------------------------------------------------------
def test_a_camp_sees_its_whole_record_and_a_rival_only_the_public_fields():
    s = camp_game()
    st.update(s, 1, funds=7, supply_on=False, merit=(2, 0))
    own = view_for(s, 1)["modules"]["campaign"]["state"]["camps"][1]
    assert set(own) == set(st.CampRecord._fields) and own["funds"] == 7
    public = campaign(s).public_fields
    assert public == {"supply_on", "supply_turn", "materialized_turn", "stray", "cancel_turn"}
    for viewer in (0, 2, None):
        rival = view_for(s, viewer)["modules"]["campaign"]["state"]["camps"][1]
        assert set(rival) == public and rival["supply_on"] is False


def test_a_state_rebuilt_from_a_seats_view_has_its_own_record_and_the_rivals_public_part():
    s = camp_game()
    st.update(s, 0, funds=5, exp=(1, 2, 3, 0, 0), items=(("potion_of_life", 2),),
              info=(st.Info(), st.Info(servant=(1, 2, 0, 0), np_known=True),
                    *st.record(s, 0).info[2:]),
              met_now=frozenset({1, 2}))
    st.update(s, 1, funds=9, stray=True)
    st.put(s, residual=((16, frozenset({"saber"})),), day0="done")
    rebuilt = state_from_view(view_for(s, 0), RULES, random.Random(1))
    assert st.record(rebuilt, 0) == st.record(s, 0)
    rival = st.record(rebuilt, 1)
    assert rival.stray and rival.funds == 16  # hidden funds stay at the set-up value
    assert st.state(rebuilt).residual == st.state(s).residual


def test_the_text_form_has_one_campaign_line_per_camp_with_the_changed_fields():
    s = camp_game()
    st.update(s, 4, funds=2, met_now=frozenset({1, 3}))
    lines = [x for x in to_text(s).splitlines() if x.startswith("campaign ")]
    assert len(lines) == len(s.camps)
    assert "funds 2" in lines[4] and "met_now {1,3}" in lines[4] and "funds 16" in lines[3]
    st.put(s, vacant=(st.VacantMaster("koga", 12, 100, 2, st.CampRecord()),))
    assert any(x.startswith("campaign vacant") for x in to_text(s).splitlines())


# --- the sections -----------------------------------------------------------------------------
class Probe(Section):
    """A section for the composition test: it adds, sums and chains visibly."""

    key = "probe"

    def modifier(self, s, camp, key):
        return 3 if key == "checks" else 0

    def damage(self, s, seat, amount, source):
        return amount * 2

    def legal(self, s, seat, actions):
        return actions[:1]

    def upkeep(self, s, seat, cost):
        return cost + 1

    def view(self, s, seat, shared):
        return {"seat": seat}


def test_the_campaign_hooks_walk_every_section_in_order(monkeypatch):
    """A section is a file and a SECTIONS entry: with a probe section added, the modifier
    sums, damage and upkeep chain, legal filters, and the view gets the probe's key."""
    monkeypatch.setattr(campaign_pkg, "SECTIONS", (*SECTIONS, Probe, Probe))
    module = Campaign(RULES, {"summoning": "choose", "tags": "random"})
    s = camp_game()
    camp = s.camps[0]
    assert module.modifier(s, camp, "checks") == 6
    assert module.damage(s, 0, 5, "attack") == 20
    assert module.upkeep(s, 0, 10) == 12
    assert len(module.legal(s, 0, legal_actions(s, 0))) == 1
    assert module.view(s, 2, Shared(s))["probe"] == {"seat": 2}


def test_a_modifier_key_is_asked_only_of_the_sections_that_name_it_and_sums_the_same(
        monkeypatch):
    """`modifier_keys` is a shortcut, not a rule: over whole random games, at every key the
    engine reads, the module's sum equals every section's sum (a section that answers a key
    it does not name fails here), and the sections did answer."""
    asked: set[str] = set()
    answered: set[str] = set()
    original = Campaign.modifier

    def checked(self, s, camp, key):
        value = original(self, s, camp, key)
        every = [sec.modifier(s, camp, key) for sec in self.hooked["modifier"]]
        assert value == sum(every), key
        asked.add(key)
        answered.update(key for v in every if v)
        return value

    monkeypatch.setattr(Campaign, "modifier", checked)
    for seed in range(4):
        s = new_game(seed=seed, modules=["campaign"])
        run_match(s, [make_bot("random", seed * 7 + i) for i in range(7)], arrival_seed=seed)
    assert {"movement", "max_hp", "max_mp", "damage_dealt"} <= asked
    assert {"max_hp", "max_mp"} <= answered


def test_with_no_module_on_nothing_of_the_campaign_shows():
    plain = new_game(seed=2)
    assert "campaign" not in plain.mods and "campaign" not in to_text(plain)


# --- the actions on the wire ------------------------------------------------------------------
def _sample(cls: type, seat: int) -> object:
    """One instance of an action type, each field a value of its declared type."""
    values = {"int": 5, "str": "lancer", "bool": True}
    return cls(seat, *(values[str(f.type)] for f in fields(cls)[1:]))


CAMPAIGN_TYPES = sorted((t for t in ACTION_TYPES.values()
                         if t.__module__.startswith(campaign_pkg.__name__)),
                        key=lambda t: t.__name__)
CAMPAIGN_ACTIONS = [SetSupply(0, False), SetSupply(3, True), DeclareResearch(1, "lancer"),
                    ShareRumor(2, 5), DeclareCancelContract(4), DeclareRecontract(6, "koga"),
                    *(_sample(t, i % 7) for i, t in enumerate(CAMPAIGN_TYPES))]


def test_the_sample_holds_every_campaign_action_type():
    """(Guards the round-trip test below: every section's actions are in it, and they are
    many: the campaign's sections are registered.)"""
    assert {type(a) for a in CAMPAIGN_ACTIONS} == set(CAMPAIGN_TYPES)
    assert len(CAMPAIGN_TYPES) >= 8


@pytest.mark.parametrize("action", CAMPAIGN_ACTIONS, ids=str)
def test_a_campaign_action_round_trips_as_a_dict_and_inside_an_act_message(action):
    assert from_dict(action.to_dict()) == action
    msg = protocol.message("act", action=action.to_dict(), state_id=3, ref=1)
    (body,) = protocol.FrameBuffer().feed(protocol.encode(msg))
    back = protocol.decode(body)
    assert protocol.validate(back, "c2s").name == "act"
    assert from_dict(back["action"]) == action


@pytest.mark.parametrize(("data", "named"), [
    ({"type": "SetSupply", "seat": 0}, "missing field 'on'"),
    ({"type": "SetSupply", "seat": 0, "on": 1}, "SetSupply.on: expected bool"),
    ({"type": "DeclareResearch", "seat": 0, "target_class": 2},
     "DeclareResearch.target_class: expected str"),
    ({"type": "ShareRumor", "seat": 0, "about": 1, "to": 2}, "'to'"),
    ({"type": "DeclareRecontract", "seat": 0}, "missing field 'master'"),
])
def test_a_malformed_campaign_action_is_refused_by_field(data, named):
    with pytest.raises(MalformedActionError, match=named):
        from_dict(data)


# --- bots ------------------------------------------------------------------------------------
class Recording:
    """A bot wrapper that notes the type of every action it plays, and checks that no action
    is offered twice (the sections add to one list: `Information` adds the investigations the
    base game left out, by identity)."""

    def __init__(self, bot) -> None:
        self.bot, self.needs_view, self.played = bot, bot.needs_view, set()

    def choose(self, view, legal):
        assert len(set(legal)) == len(legal), [a for a in legal if legal.count(a) > 1]
        action = self.bot.choose(view, legal)
        self.played.add(type(action).__name__)
        return action


def test_random_bots_play_a_whole_campaign_game_with_its_actions():
    """Seven random bots finish a campaign game; between them they supply and cut, research,
    cancel and re-contract (ShareRumor, offered only in a negotiation with points to pass on,
    is in the legal lists too: tests/test_campaign_info.py)."""
    wanted = {"SetSupply", "DeclareResearch", "DeclareCancelContract", "DeclareRecontract"}
    played: set[str] = set()
    for seed in range(1, 7):  # a re-contract needs a stray on a vacant Master's square
        s = new_game(seed=seed, modules=["campaign"])
        bots = [Recording(make_bot("random", 31 * seed + i)) for i in range(len(s.camps))]
        run_match(s, bots, arrival_seed=seed)
        assert s.over
        played |= set().union(*(b.played for b in bots))
        if wanted <= played:
            break
    assert wanted <= played
