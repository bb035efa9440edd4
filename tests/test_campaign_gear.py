"""The campaign's §6: funds, shops and the 23 items (C6.1-C6.27; spec
shared/modules/002-campaign.md §3.2, docs/rules.md chapter 12)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from grailwar.shared.engine import apply, core, legal_actions, view_for
from grailwar.shared.engine.actions import (
    Attack,
    DeclareDisengage,
    DeclareEncounter,
    DeclareWait,
    React,
    Ready,
    Wait,
)
from grailwar.shared.engine.data import Effect, default_ruleset
from grailwar.shared.engine.events import Event, view_event
from grailwar.shared.engine.state import ActiveBuff, GameState
from grailwar.shared.modules.campaign import state as st
from grailwar.shared.modules.campaign.contract import SetSupply
from grailwar.shared.modules.campaign.gear import GRADES, Buy, Gear, RepairDoll, UseItem, Wear
from grailwar.shared.modules.campaign.merit import EscapeWithMerit, Merit
from grailwar.shared.modules.campaign.section import section_of
from helpers import bare, faces, find, game, place, run, to_main, waits

R = default_ruleset()
N = R.numbers
DP = 3
OLD_QUARTER, UNIVERSITY, CHURCH, HOSPITAL = 13, 11, 18, 12


def cgame(classes: Sequence[str] = ("saber", "lancer"), **kw) -> GameState:
    kw.setdefault("masters", ("kujo", "baek", "seo")[:len(classes)])
    return game(classes, modules=["campaign"], **kw)






def rec(s: GameState, seat: int = 0) -> st.CampRecord:
    return st.record(s, seat)


def give(s: GameState, seat: int, *items: str) -> None:
    """Items owned, without buying (a test set-up)."""
    table = dict(rec(s, seat).items)
    for item in items:
        table[item] = table.get(item, 0) + 1
    st.update(s, seat, items=tuple(sorted(table.items())))


def battle(s: GameState) -> GameState:
    place(s, 0, 10)
    place(s, 1, 10)
    s, _ = apply(s, DeclareEncounter(0, 1, "battle"))
    assert s.prompt.kind == "round_start"
    return s


def hit(s: GameState, kind: str = "B") -> tuple[GameState, list[Event]]:
    """Seat 0 attacks seat 1 (natural 7); seat 1 Guards; damage dice all 3s."""
    s = to_main(s, 0)
    s, _ = run(s, Attack(0, 1, kind, kind), dice=faces(7))
    return run(s, React(1, "G", ""), dice=[3] * N.damage_dice.count)


def dealt(events: list[Event]) -> int:
    return find(events, "DamageDealt")[0].data["amount"]


def only_own(events: list[Event], event_type: str, seat: int = 0) -> list[Event]:
    found = find(events, event_type)
    assert found
    for e in found:
        assert view_event(e, seat) is not None
        assert all(view_event(e, x) is None for x in (None, 1, 2) if x != seat)
    return found


# --- C6.1 funds --------------------------------------------------------------------------------
def test_c6_1_sixteen_funds_at_the_start_and_three_each_morning_from_day_2():
    s = cgame()
    assert rec(s).funds == 16
    events: list[Event] = []
    for _ in range(3):  # day 1's three Turns
        s, ev = waits(s)
        events += ev
    assert s.day == 2 and rec(s).funds == 19 and rec(s, 1).funds == 19
    only_own([e for e in events if e.data.get("seat") == 0], "FundsChanged")


# --- C6.2 shops, C6.4 grades --------------------------------------------------------------------
def test_c6_2_a_shop_sells_its_own_items_only_for_funds():
    s = cgame()
    place(s, 0, HOSPITAL)
    buys = {a.item for a in legal_actions(s, 0) if isinstance(a, Buy)}
    assert buys == {"recovery_potion", "potion_of_life", "potion_of_spirit",
                    "potion_of_protection"}
    s, ev = apply(s, Buy(0, "potion_of_protection"))
    assert rec(s).funds == 10 and dict(rec(s).items) == {"potion_of_protection": 1}
    only_own(ev, "ItemBought")
    place(s, 0, 0)  # no shop there
    assert not any(isinstance(a, Buy) for a in legal_actions(s, 0))


def test_c6_2_nothing_is_offered_that_the_funds_cannot_pay():
    s = cgame()
    place(s, 0, OLD_QUARTER)
    st.update(s, 0, funds=8)
    assert {a.item for a in legal_actions(s, 0) if isinstance(a, Buy)} == {
        "amulet_of_protection", "giants_belt", "thunderbolt_shield", "fairy_shoes"}


def test_c6_2_on_day_0_the_whole_catalogue_is_for_sale():
    s = cgame()
    place(s, 0, 0)
    st.update(s, 0, funds=100)
    st.put(s, day0="setup")
    buys = {a.item for a in legal_actions(s, 0) if isinstance(a, Buy)}
    assert len(buys) == 21  # all 23 but the Overseer's two


def test_c6_4_the_catalogue_has_23_items_with_the_spec_grades_and_prices():
    items = section_of(cgame(), Gear).items
    assert len(items) == 23 and all(i.grade in GRADES for i in items.values())
    assert {i: (items[i].grade, items[i].price) for i in (
        "amulet_of_protection", "nekote", "crystal_ball", "rabbit_foot", "holy_shroud",
        "love_potion")} == {"amulet_of_protection": ("E", 4), "nekote": ("C", 12),
                            "crystal_ball": ("B", 16), "rabbit_foot": ("A", 20),
                            "holy_shroud": ("EX", 30), "love_potion": ("A", 10)}


# --- C6.3 wearing --------------------------------------------------------------------------------
def test_c6_3_two_slots_a_character_no_two_of_one_item_and_take_off():
    s = cgame()
    give(s, 0, "giants_belt", "nekote", "amulet_of_life", "mana_necklace", "mana_necklace")
    assert Wear(0, "giants_belt", "master") not in legal_actions(s, 0)  # a Servant's item
    s, ev = run(s, Wear(0, "giants_belt", "servant"), Wear(0, "nekote", "servant"))
    only_own(ev, "ItemWorn")
    legal = legal_actions(s, 0)
    assert Wear(0, "amulet_of_life", "servant") not in legal  # both slots full
    assert Wear(0, "mana_necklace", "master") in legal
    s, _ = apply(s, Wear(0, "mana_necklace", "master"))
    assert Wear(0, "mana_necklace", "master") not in legal_actions(s, 0)  # one of each
    s, _ = apply(s, Wear(0, "giants_belt", ""))
    assert ("giants_belt", "servant") not in rec(s).worn
    assert Wear(0, "amulet_of_life", "servant") in legal_actions(s, 0)


# --- C6.5-C6.10, C6.12, C6.13 mystic codes ------------------------------------------------
@pytest.mark.parametrize(("item", "gain"), [("amulet_of_protection", 10), ("amulet_of_life", 20)])
def test_c6_5_c6_10_amulets_raise_max_hp_which_is_public(item, gain):
    s = cgame()
    give(s, 0, item)
    top, hp = core.max_hp(s, s.camps[0]), s.camps[0].hp
    s, _ = apply(s, Wear(0, item, "servant"))
    assert core.max_hp(s, s.camps[0]) == top + gain and s.camps[0].hp == hp  # not a heal
    assert view_for(s, 1)["camps"][0]["max_hp"] == top + gain
    s.edit(0).hp = top + gain
    s, _ = apply(s, Wear(0, item, ""))
    assert s.camps[0].hp == top  # capped when it comes off


@pytest.mark.parametrize(("item", "kind"), [("giants_belt", "B"), ("thunderbolt_shield", "A"),
                                            ("fairy_shoes", "Q")])
def test_c6_6_c6_8_a_physical_code_adds_a_card_and_a_damage_point(item, kind):
    plain = cgame(rules=bare())
    s = cgame(rules=bare())
    give(s, 0, item)
    s, _ = apply(s, Wear(0, item, "servant"))
    assert core.composition(s, s.camps[0]).count(kind) == "BBAQQ".count(kind) + 1
    _, base = hit(battle(plain), kind)
    s, more = hit(battle(s), kind)
    assert dealt(more) - dealt(base) == DP


def test_c6_9_nekote_adds_two_damage_points_to_each_kind():
    s = cgame()
    give(s, 0, "nekote")
    s, _ = apply(s, Wear(0, "nekote", "servant"))
    assert [core.mod(s, s.camps[0], "attack_damage:" + k) for k in "BAQL"] == [6, 6, 6, 0]


def test_c6_12_the_mana_necklace_raises_its_wearers_max_mp():
    s = cgame()
    give(s, 0, "mana_necklace", "mana_necklace")
    mp, master = core.max_mp(s, s.camps[0]), core.max_master_mp(s, s.camps[0])
    s, _ = run(s, Wear(0, "mana_necklace", "servant"), Wear(0, "mana_necklace", "master"))
    assert core.max_mp(s, s.camps[0]) == mp + 20
    assert core.max_master_mp(s, s.camps[0]) == master + 20


def test_c6_13_the_magus_cloak_adds_20_to_its_wearers_magecraft():
    s = cgame()  # Master kujo: reinforcement (magecraft), no Servant magecraft
    give(s, 0, "magus_cloak")
    gear = section_of(s, Gear)
    s, _ = apply(s, Wear(0, "magus_cloak", "master"))
    assert gear.skill_check(s, 0, R.skills["reinforcement"], -1) == 20
    assert gear.skill_check(s, 0, R.skills["twin_blades"], -1) == 0  # not magecraft
    s, _ = run(s, Wear(0, "magus_cloak", ""), Wear(0, "magus_cloak", "servant"))
    assert gear.skill_check(s, 0, R.skills["reinforcement"], -1) == 0  # a Master's skill


# --- C6.14 the rabbit's foot, C6.15 and C6.17 the Overseer's items -------------------------
def test_c6_14_the_rabbit_foot_makes_every_disengage_an_escape_without_merit():
    s = cgame()
    give(s, 0, "rabbit_foot")
    s, _ = apply(battle(s), DeclareDisengage(0))
    assert EscapeWithMerit(0) not in legal_actions(s, 0)
    assert section_of(s, Merit).modifier(s, s.camps[0], "movement") == -N.disengage_movement
    assert section_of(s, Merit).modifier(s, s.camps[0], "checks") == -N.disengage_checks
    assert section_of(s, Merit).modifier(s, s.camps[0], "defense") == 0
    assert rec(s).merit == (0, 0)


def test_c6_15_c6_17_the_overseers_items_are_not_sold_to_others():
    s = cgame()
    place(s, 0, CHURCH)
    st.update(s, 0, funds=100)
    buys = {a.item for a in legal_actions(s, 0) if isinstance(a, Buy)}
    assert "holy_shroud" not in buys and "holy_water" not in buys
    give(s, 0, "holy_water")
    assert not any(isinstance(a, UseItem) and a.item == "holy_water"
                   for a in legal_actions(s, 0))


def test_c6_15_the_holy_shroud_costs_30_master_mp_and_gives_mr_2():
    s = cgame()
    place(s, 0, CHURCH)
    st.update(s, 0, funds=40, tag="overseer")
    mp = s.camps[0].master_mp
    s, _ = apply(s, Buy(0, "holy_shroud"))
    assert s.camps[0].master_mp == mp - 30 and rec(s).funds == 10
    s, _ = apply(s, Wear(0, "holy_shroud", "servant"))
    assert section_of(s, Gear).modifier(s, s.camps[0], "mr") == 2


def test_c6_17_holy_water_removes_the_servants_debuffs():
    s = cgame()
    st.update(s, 0, tag="overseer")
    give(s, 0, "holy_water")
    s.edit(0).buffs = (ActiveBuff("debuff:x", Effect((("str", -10),)), 3, True, True, -1),)
    s, _ = apply(s, UseItem(0, "holy_water", -1, ""))
    assert s.camps[0].buffs == () and dict(rec(s).items) == {}


# --- C6.16, C6.19, C6.23 potions --------------------------------------------------------------
@pytest.mark.parametrize(("item", "hp", "mp"), [("recovery_potion", 5, 5),
                                                ("potion_of_life", 10, 0),
                                                ("potion_of_spirit", 0, 10)])
def test_c6_16_c6_19_c6_23_potions_outside_battle_are_free_and_private(item, hp, mp):
    s = cgame()
    give(s, 0, item)
    s.edit(0).hp -= 30
    s.edit(0).mp -= 30
    before = (s.camps[0].hp, s.camps[0].mp)
    s, ev = apply(s, UseItem(0, item, -1, ""))
    assert (s.camps[0].hp, s.camps[0].mp) == (before[0] + hp, before[1] + mp)
    assert s.prompt.kind == "declare" and 0 in s.prompt.seats  # free: it still declares
    only_own(ev, "ItemUsed")


def test_c6_16_in_battle_a_recovery_potion_is_the_main_action_and_public():
    s = cgame()
    give(s, 0, "recovery_potion", "potion_of_life")
    s = battle(s)
    assert not any(isinstance(a, UseItem) and a.item == "recovery_potion"
                   for a in legal_actions(s, 0))  # not at the round start
    assert UseItem(0, "potion_of_life", -1, "") in legal_actions(s, 0)  # free: any prompt
    s = to_main(s, 0)
    s, ev = apply(s, UseItem(0, "recovery_potion", -1, ""))
    assert not (s.prompt.kind == "main" and 0 in s.prompt.seats)  # the activation is over
    assert view_event(find(ev, "ItemUsed")[0], 1)["item"] == "recovery_potion"


# --- C6.22, C6.24, C6.25 battle potions ----------------------------------------------------
def test_c6_25_a_berserk_potion_adds_3_dp_for_the_battle_and_is_seen_by_all():
    plain = cgame(rules=bare())
    s = cgame(rules=bare())
    give(s, 0, "berserk_potion")
    s = battle(s)
    s, ev = apply(s, UseItem(0, "berserk_potion", -1, ""))
    assert view_event(find(ev, "ItemUsed")[0], 1) is not None
    assert view_for(s, 1)["camps"][0]["buffs"][0]["source"] == "buff:item:berserk_potion"
    s, more = hit(s)
    _, base = hit(battle(plain))
    assert dealt(more) - dealt(base) == 3 * DP


def test_c6_22_a_potion_of_protection_takes_one_dp_off_each_physical_hit():
    plain = cgame(rules=bare())
    s = cgame(rules=bare())
    give(s, 1, "potion_of_protection")
    s = battle(s)
    s, _ = apply(s, UseItem(1, "potion_of_protection", -1, ""))
    s, less = hit(s)
    _, base = hit(battle(plain))
    assert dealt(base) - dealt(less) == DP


def test_c6_24_a_potion_of_will_gives_mr_2_and_only_in_battle():
    s = cgame()
    give(s, 0, "potion_of_will")
    assert not any(isinstance(a, UseItem) for a in legal_actions(s, 0))  # outside battle
    s = battle(s)
    s, _ = apply(s, UseItem(0, "potion_of_will", -1, ""))
    assert core.mod(s, s.camps[0], "mr") == 2


def test_c6_22_after_round_1_a_battle_potion_waits_for_the_main_action():
    s = cgame()
    give(s, 0, "potion_of_will")
    s = battle(s)
    s, _ = run(s, Ready(0), Ready(1))
    while s.prompt.kind != "round_start":
        s, _ = apply(s, Wait(min(s.prompt.seats)))
    assert s.battle.round == 2
    assert not any(isinstance(a, UseItem) for a in legal_actions(s, 0))


# --- C6.18, C6.20, C6.21, C6.26 devices ----------------------------------------------------------
def placed(item: str, square: int = 3, rival: int | None = None) -> GameState:
    """Seat 0 on square 2 places `item` on `square`; seat 1 stands on `rival` (default: the
    device's square)."""
    s = cgame()
    give(s, 0, item)
    place(s, 0, 2)
    place(s, 1, square if rival is None else rival)
    s, _ = apply(s, UseItem(0, item, square, ""))
    return s


def test_c6_18_an_eye_reports_the_servant_on_its_square_for_two_turns():
    s = placed("eye_of_searching")
    assert rec(s).devices == (st.Device("eye_of_searching", 3, 2),)
    s, ev = waits(s)
    assert st.info_on(s, 0, 1).servant[1] == 1 and rec(s).exp[0] == 1  # rumor, scouting
    only_own(ev, "DeviceReported")
    s, _ = waits(s)
    assert st.info_on(s, 0, 1).servant[1] == 2 and rec(s).devices == ()


def test_c6_18_an_eye_is_placed_only_within_movement():
    s = cgame()
    give(s, 0, "eye_of_searching")
    squares = {a.target for a in legal_actions(s, 0) if isinstance(a, UseItem)}
    grid = s.rules.maps[s.settings.map_id]
    steps = core.movement(s, s.camps[0])
    assert squares and all(abs(q % grid.width - s.camps[0].pos % grid.width)
                           + abs(q // grid.width - s.camps[0].pos // grid.width) <= steps
                           for q in squares)


def test_c6_18_c6_21_only_the_eye_of_detection_sees_spirit_form():
    for item, seen in (("eye_of_searching", 0), ("eye_of_detection", 1)):
        s = placed(item)
        s, _ = apply(s, SetSupply(1, False))
        s, _ = waits(s)
        assert st.info_on(s, 0, 1).servant[1] == seen


def test_c6_18_a_battle_on_its_square_destroys_the_eye():
    s = placed("eye_of_searching", square=10)
    place(s, 0, 10)
    s, _ = apply(s, DeclareEncounter(0, 1, "battle"))
    s, _ = run(s, *(Ready(x) for x in (0, 1)))
    section_of(s, Gear).on_battle_end(s)
    assert rec(s).devices == ()


def test_c6_20_a_scouting_doll_finds_once_and_is_gone():
    s = placed("scouting_doll", square=4, rival=20)
    s, _ = waits(s)  # nobody there: it waits
    assert rec(s).devices == (st.Device("scouting_doll", 4, -1),)
    place(s, 1, 4)
    s, _ = waits(s)
    assert st.info_on(s, 0, 1).servant[1] == 1 and rec(s).devices == ()


def test_c6_26_an_advanced_doll_is_damaged_first_repaired_for_a_fund_and_moved():
    s = placed("advanced_doll")
    s, _ = waits(s)
    assert rec(s).devices == (st.Device("advanced_doll", 3, -1, True),)
    funds = rec(s).funds
    assert RepairDoll(0, "advanced_doll") in legal_actions(s, 0)
    s, _ = apply(s, RepairDoll(0, "advanced_doll"))
    assert not rec(s).devices[0].damaged and rec(s).funds == funds - 1
    s, _ = apply(s, UseItem(0, "advanced_doll", 4, "move"))
    assert rec(s).devices[0].square == 4
    place(s, 1, 4)
    s, _ = waits(s)
    s, _ = waits(s)
    assert rec(s).devices == () and st.info_on(s, 0, 1).servant[1] == 3


# --- C6.11 the Crystal Ball, C6.27 the love potion ------------------------------------------
def test_c6_11_the_crystal_ball_shows_the_watched_declaration_to_its_owner_only():
    s = cgame()
    give(s, 0, "crystal_ball")
    mp = s.camps[0].master_mp
    s, ev = apply(s, UseItem(0, "crystal_ball", 1, ""))
    assert s.camps[0].master_mp == mp - 5 and st.info_on(s, 0, 1).servant[1] == 1
    assert not any(isinstance(a, UseItem) for a in legal_actions(s, 0))  # once per Turn
    s, ev = apply(s, DeclareWait(1))
    seen = only_own(ev, "DeclarationSeen")
    assert seen[0].data["kind"] == "wait" and seen[0].data["about"] == 1


def test_c6_27_a_love_potion_raises_the_target_servants_bond_by_two():
    s = cgame()
    give(s, 0, "love_potion")
    place(s, 1, s.camps[0].pos)
    assert not any(isinstance(a, UseItem) for a in legal_actions(s, 0))  # no bond to raise
    st.update(s, 1, bonds=(st.Bond("servant", 0, "positive", 1),))
    s, _ = apply(s, UseItem(0, "love_potion", 1, ""))
    assert rec(s, 1).bonds[0].grade == 3 and dict(rec(s).items) == {}


def test_c6_11_a_battle_does_not_end_the_crystal_balls_watch():
    """The watch is kept as a device naming the watched seat: a battle on the square of that
    number is no battle on the ball."""
    s = cgame()
    give(s, 0, "crystal_ball")
    s, _ = apply(s, UseItem(0, "crystal_ball", 1, ""))
    s = battle(s)
    s.edit_battle().square = 1
    section_of(s, Gear).on_battle_end(s)
    assert [d.item for d in rec(s).devices] == ["crystal_ball"]



@pytest.mark.parametrize("action", [Buy(0, "nekote"), Wear(0, "nekote", ""),
                                    UseItem(0, "eye_of_searching", 12, ""),
                                    RepairDoll(1, "advanced_doll")], ids=str)
def test_a_gear_action_round_trips_through_an_act_message(action):
    from grailwar.shared import protocol
    from grailwar.shared.engine import from_dict
    assert from_dict(action.to_dict()) == action
    msg = protocol.message("act", action=action.to_dict(), state_id=3, ref=1)
    (body,) = protocol.FrameBuffer().feed(protocol.encode(msg))
    assert from_dict(protocol.decode(body)["action"]) == action


def test_an_item_not_owned_or_not_on_sale_is_refused():
    from grailwar.shared.engine.errors import IllegalActionError
    s = cgame()
    place(s, 0, 0)
    for action in (Buy(0, "nekote"), Wear(0, "nekote", "servant"),
                   UseItem(0, "potion_of_life", -1, "")):
        with pytest.raises(IllegalActionError, match="not legal"):
            apply(s, action)


# --- the data files --------------------------------------------------------------------------
def data_root(tmp_path, items: str, shop: str = "[shops]\n") -> Any:
    from pathlib import Path
    base = Path(tmp_path)
    (base / "campaign" / "shops").mkdir(parents=True)
    (base / "campaign" / "items.toml").write_text(items, encoding="utf-8")
    (base / "campaign" / "shops" / "akatsukigahama.toml").write_text(shop, encoding="utf-8")
    return base


GOOD = '[potion]\ngrade = "E"\nprice = 2\nkind = "consumable"\nwhen = "free"\nhp = 5\n'


@pytest.mark.parametrize(("items", "shop", "named"), [
    (GOOD.replace('kind = "consumable"', 'kind = "potion"'), "[shops]\n", "kind"),
    (GOOD + "colour = 3\n", "[shops]\n", "colour"),
    (GOOD.replace('grade = "E"', 'grade = "S"'), "[shops]\n", "grade"),
    (GOOD.replace("price = 2", "price = -1"), "[shops]\n", "price"),
    ('[belt]\ngrade = "D"\nprice = 8\nkind = "worn"\nwearers = ["horse"]\n', "[shops]\n",
     "wearers"),
    (GOOD, '[shops]\n3 = ["potion", "elixir"]\n', "elixir"),
])
def test_a_bad_item_or_shop_is_named_by_file_and_field(tmp_path, items, shop, named):
    from grailwar.shared.engine.data import DataError
    from grailwar.shared.modules.campaign.gear import load_items
    with pytest.raises(DataError, match=named):
        load_items({"akatsukigahama"}, data_root(tmp_path, items, shop))


def test_the_good_data_loads(tmp_path):
    from grailwar.shared.modules.campaign.gear import load_items
    items, shops = load_items({"akatsukigahama"},
                              data_root(tmp_path, GOOD, '[shops]\n3 = ["potion"]\n'))
    assert items["potion"].hp == 5 and shops == {"akatsukigahama": {3: ("potion",)}}


def test_c6_19_a_free_potion_may_be_drunk_in_a_negotiation_but_not_a_recovery_potion():
    s = cgame()
    give(s, 1, "potion_of_life", "recovery_potion")
    place(s, 0, 10)
    place(s, 1, 10)
    s, _ = apply(s, DeclareEncounter(0, 1, "negotiate"))
    assert s.prompt.kind == "negotiate"
    uses = {a.item for a in legal_actions(s, 1) if isinstance(a, UseItem)}
    assert uses == {"potion_of_life"}
    s, ev = apply(s, UseItem(1, "potion_of_life", -1, ""))
    assert view_event(find(ev, "ItemUsed")[0], 0) is None  # outside battle: private
    assert s.prompt.kind == "negotiate"
