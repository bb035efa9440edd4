"""The colossus scenario (seed 003 "Special Rules for Conquering the Colossus", spec 003 T7 and
§5; docs/rules.md "The colossus"): one test per rule, dice forced where chance decides."""

from __future__ import annotations

import random
import shutil
import tomllib
from pathlib import Path

import pytest
from grailwar.cli import scenario
from grailwar.shared.bots import make_bot
from grailwar.shared.bots.determinize import state_from_view
from grailwar.shared.bots.match import run_match
from grailwar.shared.bots.policy import rollout_action
from grailwar.shared.engine import apply, core, legal_actions, new_game, view_for
from grailwar.shared.engine.actions import (
    ACTION_TYPES,
    AnswerIntervention,
    DeclareDisengage,
    DeclareEncounter,
    DeclareNoblePhantasm,
    DeclareRest,
    DeclareSoulEating,
    DeclareWait,
    Move,
    React,
    Ready,
    UseCommandSpell,
    UseNoblePhantasm,
    UseSkill,
    Wait,
    from_dict,
)
from grailwar.shared.engine.data import DataError, default_ruleset
from grailwar.shared.engine.errors import IllegalActionError
from grailwar.shared.engine.events import view_event
from grailwar.shared.engine.geometry import distance
from grailwar.shared.engine.state import GameState
from grailwar.shared.modules.colossus import Colossus
from grailwar.shared.modules.colossus.actions import (
    COLOSSUS,
    AttackPart,
    Climb,
    ClimbAttack,
    ClimbMove,
    ClimbNoblePhantasm,
    ClimbTo,
    DeclareRaid,
    Dismount,
    EndClimb,
    FireAtPart,
    Mount,
)
from grailwar.shared.modules.colossus.data import load_colossus
from grailwar.shared.modules.tactics import Concentrate
from helpers import act, find, game, place, types
from test_tactics import play_steps

RULES = default_ruleset()
DATA_DIR = Path(__file__).parent.parent / "resources"
COLOSSUS_ACTIONS = {cls for cls in ACTION_TYPES.values()
                    if cls.__module__.startswith("grailwar.shared.modules.colossus")}
RAID_ROOM = {"colossus": {"scenario": "colossus_raid"}}


def module(s: GameState) -> Colossus:
    return next(m for m in s.modules if isinstance(m, Colossus))


def raid(classes: tuple[str, ...] = ("lancer",), seed: int = 0, **kw) -> GameState:
    """A raid room (the colossus awake on square 40 on day 1) in which every camp stands on
    its square and declared Raid: round 1's start."""
    s = game(classes, seed, modules=["colossus"], options=RAID_ROOM, **kw)
    for seat in range(len(classes)):
        place(s, seat, 40)
    for seat in range(len(classes)):
        s, _ = apply(s, DeclareRaid(seat))
    assert s.prompt.kind == "raid_start", s.prompt
    return s


def setup(s: GameState, **changes) -> GameState:
    """Change the raid's public state for a test's set-up (tiles, tilts, round)."""
    s = s.clone()
    module(s).put_raid(s, **changes)
    return s


def tilts(s: GameState, **changes: str) -> tuple[str, ...]:
    m = module(s)
    now = dict(zip(m.data.surface_names, m.raid(s).tilts, strict=True))
    now.update(changes)
    return tuple(now[x] for x in m.data.surface_names)


def on(s: GameState, seat: int) -> str:
    return module(s).raid(s).tile_of(seat)


def ready_all(s: GameState, climb: tuple[int, ...] = ()) -> GameState:
    for seat in climb:
        s, _ = apply(s, Climb(seat))
    for seat in sorted(s.prompt.seats):
        s, _ = apply(s, Ready(seat))
    return s


def wait_ground(s: GameState) -> GameState:
    while s.prompt.kind == "raid_ground":
        s, _ = apply(s, Wait(min(s.prompt.seats)))
    return s


def guard_all(s: GameState, dice: list[int]) -> tuple[GameState, list]:
    events = []
    while s.prompt.kind == "raid_reaction":
        s, ev = act(s, React(min(s.prompt.seats), "G", ""), dice)
        events += ev
    return s, events


# --- data (§3, §5.2, §5.6) ------------------------------------------------------------------
def test_the_board_has_26_tiles_with_colour_surface_height_and_part():
    data = load_colossus(RULES)
    assert len(data.tiles) == 26
    crown = data.tiles["crown"]
    assert (crown.part, crown.surface, crown.colour, crown.height, crown.links) == (
        "head", "head", "blue", 11, ("nape",))
    assert data.factors["head"] == 200 and data.factors["feet"] == 0
    assert [t.id for t in data.tiles.values() if t.mount] == ["ankle_l", "ankle_r"]
    assert [step.id for step in data.script] == ["awaken", "stomp", "reach", "swat", "bow", "roar"]


@pytest.mark.parametrize(("old", "new", "named"), [
    ('colour = "green"', 'colour = "red"', "tile[2].colour: must be one of blue, green"),
    ('links = ["ankle_l"]', 'links = ["ankle_x"]', "tile[0].links[0]: unknown tile 'ankle_x'"),
    ('links = ["foot_l", "shin_l"]', 'links = ["shin_l"]',
     "tile[0].links[0]: 'ankle_l' does not link back to 'foot_l'"),
    ("akatsukigahama = [41, 40, 39", "akatsukigahama = [41, 39, 40",
     "path.akatsukigahama[1]: square 39 is not next to square 41"),
    ("hp_per_camp = 400", "hp_per_camp = 0", "numbers.hp_per_camp"),
    ("chest = 1", "belly = 1", "ground_parts.belly: unknown part"),
    ('immunity = ["curse"]', 'immunity = ["fire"]',
     "numbers.immunity[0]: 'fire' is not a magecraft sub-type"),
    ('targets = "all"', 'targets = "everyone"', "step[5].attack.targets"),
])
def test_a_data_error_names_the_file_and_the_field(tmp_path, old, new, named):
    target = tmp_path / "scenarios"
    target.mkdir()
    text = (DATA_DIR / "scenarios" / "colossus.toml").read_text(encoding="utf-8")
    assert old in text
    (target / "colossus.toml").write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_colossus(RULES, tmp_path)
    assert str(err.value).startswith("scenarios/colossus.toml") and named in str(err.value)


def test_the_shipped_data_loads_from_a_copy(tmp_path):
    shutil.copytree(DATA_DIR / "scenarios", tmp_path / "scenarios")
    assert load_colossus(RULES, tmp_path) == load_colossus(RULES)


# --- switching on (§6) --------------------------------------------------------------------
def test_the_colossus_turns_tactics_on_and_is_not_a_seat():
    s = new_game(seed=1, modules=["colossus"])
    assert s.settings.modules == ("tactics", "colossus")
    assert s.settings.options["colossus"] == {"scenario": "colossus", "colossus_day": 3}
    assert len(s.camps) == 7 and len(s.camps) <= COLOSSUS
    with pytest.raises(ValueError, match="colossus_day"):
        new_game(seed=1, modules=["colossus"], options={"colossus": {"colossus_day": 11}})


def test_a_grail_war_needs_two_camps_and_a_raid_room_one():
    with pytest.raises(ValueError, match="need 2 to 7"):
        new_game(classes=["saber"], modules=["colossus"])
    s = new_game(classes=["saber"], modules=["colossus"], options=RAID_ROOM)
    assert s.prompt.kind == "declare"
    assert module(s).st(s).hp == module(s).data.raid_room_hp_per_camp


# --- waking and marching (§5.1, §5.6) -----------------------------------------------------
def pass_turns(s: GameState, count: int) -> GameState:
    for _ in range(count):
        turn = (s.day, s.turn)
        while (s.day, s.turn) == turn and not s.over:
            s, _ = apply(s, DeclareRest(min(s.prompt.seats)))
    return s


def test_it_wakes_on_the_morning_of_colossus_day_with_its_hp_per_camp():
    s = game(("saber", "lancer", "caster"), modules=["colossus"],
             options={"colossus": {"colossus_day": 2}})
    assert not module(s).st(s).awake
    assert DeclareRaid(0) not in legal_actions(s, 0)
    s = pass_turns(s, 3)
    st = module(s).st(s)
    assert (s.day, s.turn, st.awake, st.square) == (2, 0, True, 41)
    assert st.hp == st.hp_max == 3 * module(s).data.hp_per_camp
    assert 41 in s.eaten


def test_it_walks_one_square_a_turn_eats_it_and_tramples_the_camps_there():
    s = game(("saber", "lancer"), modules=["colossus"], options={"colossus": {"colossus_day": 1}})
    place(s, 0, 40)
    hp = s.camps[0].hp
    s, _ = apply(s, DeclareWait(0))
    s, events = apply(s, DeclareWait(1))
    st = module(s).st(s)
    assert st.square == 40 and 40 in s.eaten
    (roll,) = [e for e in find(events, "DiceRolled") if e.data["purpose"] == "trampled"]
    assert roll.data["dice"] == "2D10" and roll.data["mod"] == 10
    trampled = find(events, "Trampled")
    assert [(e.data["seat"], e.data["damage"]) for e in trampled] == [(0, roll.data["total"])]
    assert s.camps[0].hp == hp - roll.data["total"] and s.camps[1].hp == s.camps[1].servant.hp


def test_unopposed_it_drinks_the_vein_at_the_7th_turn_end_and_nobody_wins():
    s = game(("saber", "lancer"), modules=["colossus"])
    for seat in (0, 1):
        place(s, seat, 0)  # out of its way
    s = pass_turns(s, 2 * 3 + 6)  # days 1-2, then day 3 Morning to day 5 Noon
    assert not s.over and module(s).st(s).square == 17
    turn = (s.day, s.turn)
    events = []
    while (s.day, s.turn) == turn and not s.over:
        s, ev = apply(s, DeclareRest(min(s.prompt.seats)))
        events += ev
    assert s.over and s.winner == -1 and (turn == (5, 1) or turn == (5, 0))
    ended = find(events, "GameEnded")
    assert len(ended) == 1 and ended[0].data == {"winner": -1, "winners": [], "reason": "colossus"}


def test_a_turn_of_raids_costing_it_100_hp_holds_it_in_place():
    s = game(("saber", "lancer"), modules=["colossus"], options={"colossus": {"colossus_day": 1}})
    s = s.clone()
    module(s).put(s, lost=100)
    s = pass_turns(s, 1)
    st = module(s).st(s)
    assert st.square == 41 and st.lost == 0
    s = s.clone()
    module(s).put(s, lost=99)
    s = pass_turns(s, 1)
    assert module(s).st(s).square == 40


# --- declaring a raid (§5.5) ----------------------------------------------------------------
def test_raid_is_offered_within_reach_and_every_raider_joins_and_goes_home():
    s = game(("saber", "lancer", "caster"), modules=["colossus"], options=RAID_ROOM)
    place(s, 0, 40)
    place(s, 1, 39)
    place(s, 2, 0)
    assert DeclareRaid(0) in legal_actions(s, 0) and DeclareRaid(1) in legal_actions(s, 1)
    assert DeclareRaid(2) not in legal_actions(s, 2)
    s, _ = apply(s, DeclareRaid(0))
    s, _ = apply(s, DeclareRaid(1))
    s, events = apply(s, DeclareWait(2))
    assert find(events, "RaidOpened")[0].data["seats"] == [0, 1]
    assert s.camps[1].pos == 40 and s.fought == {0, 1}
    for seat in (0, 1):
        s, more = apply(s, DeclareDisengage(seat))
    assert module(s).st(s).raid is None and s.camps[1].pos == 39
    assert find(more, "ActionCancelled")[0].data == {"seat": 1, "kind": "raid"}


def test_a_raid_room_offers_no_encounter_ambush_or_soul_eating():
    s = game(("saber", "lancer"), modules=["colossus"], options=RAID_ROOM)
    place(s, 1, s.camps[0].pos)
    kinds = {type(a) for a in legal_actions(s, 0)}
    assert DeclareEncounter not in kinds and DeclareSoulEating not in kinds
    s = game(("saber", "lancer"), modules=["colossus"])
    place(s, 1, s.camps[0].pos)
    assert DeclareEncounter in {type(a) for a in legal_actions(s, 0)}


# --- the round's three phases (T7.1) ------------------------------------------------------
def test_a_round_runs_ground_then_colossus_then_climbers():
    s = raid(("saber", "lancer"))
    s = ready_all(s, climb=(1,))
    assert s.prompt.kind == "raid_ground" and s.prompt.seats == {0}
    s, ground = act(s, AttackPart(0, "shin", "B", "B"), [3, 3, 5, 5])
    assert s.prompt.kind == "climb" and s.prompt.seats == {1}
    assert "PartHit" in types(ground) and types(ground).index("PartHit") < types(ground).index(
        "ColossusActed")


def test_a_climber_does_not_act_in_the_ground_phase():
    s = setup(raid(("saber", "lancer")), tiles=((1, "back_1"),))
    s = ready_all(s)
    assert s.prompt.kind == "raid_ground" and s.prompt.seats == {0}
    s = wait_ground(s)
    assert s.prompt.kind == "climb" and s.prompt.seats == {1}


# --- mounting and climbing (T7.4, T7.5) ------------------------------------------------------
def climber(tile: str = "", round_no: int = 1, **tilt: str) -> GameState:
    """Lancer alone, at its climbers' phase of `round_no`, on `tile` (or on the ground)."""
    s = raid(("lancer",))
    s = setup(s, round=round_no, tiles=((0, tile),) if tile else (), tilts=tilts(s, **tilt))
    s = ready_all(s, climb=() if tile else (0,))
    s, _ = guard_all(s, [1, 1, 1, 1])
    s.forced = ()  # the dice of an attack that did not come
    assert s.prompt.kind == "climb", s.prompt
    return s


def test_a_climber_mounts_only_a_hairy_tile_that_touches_the_ground():
    s = climber()
    mounts = {a.tile for a in legal_actions(s, 0) if isinstance(a, Mount)}
    assert mounts == {"ankle_l", "ankle_r"}  # the feet touch the ground but are bare
    assert not any(isinstance(a, ClimbMove | ClimbAttack) for a in legal_actions(s, 0))
    s, events = apply(s, Mount(0, "ankle_l"))
    assert on(s, 0) == "ankle_l" and find(events, "Mounted")


def test_a_move_rolls_1d4_on_a_tilted_surface_and_1d6_on_a_horizontal_one():
    s = climber("shin_l")  # legs: vertical
    with pytest.raises(IllegalActionError, match="does not fit a d4"):
        act(s.clone(), ClimbMove(0), [5])
    s2, _ = act(s, ClimbMove(0), [4])
    assert s2.prompt.kind == "climb_step" and module(s2).raid(s2).budget == 4
    s = climber("hip_l")  # hips: horizontal
    s, _ = act(s, ClimbMove(0), [6])
    assert module(s).raid(s).budget == 6


def test_a_move_goes_up_to_the_roll_over_enterable_tiles_only():
    s = climber("thigh_l")
    s, _ = act(s, ClimbMove(0), [2])
    reach = {a.tile for a in legal_actions(s, 0)}
    assert reach == {"thigh_l", "shin_l", "ankle_l", "hip_l", "hip_r", "back_1", "hand_l"} - {
        "hand_l"}  # the hand is bare on a vertical arm
    s = climber("thigh_l", hips="tilted")
    s, _ = act(s, ClimbMove(0), [2])
    assert {a.tile for a in legal_actions(s, 0)} == {"thigh_l", "shin_l", "ankle_l"}


def test_move_move_attack_is_legal_and_a_second_attack_is_not():
    s = climber("back_1")
    for roll, tile in ((1, "back_3"), (1, "back_5")):
        s, _ = act(s, ClimbMove(0), [roll])
        s, events = apply(s, ClimbTo(0, tile))
        assert find(events, "Climbed")[0].data["to"] == tile
    assert ClimbAttack(0, "B", "B") in legal_actions(s, 0)
    s, _ = act(s, ClimbAttack(0, "B", "B"), [1, 1, 1])  # a fumble: slot three spent
    assert s.prompt.kind == "raid_start"  # three slots used: the round is over
    s = setup(s, round=1)
    s = ready_all(s)
    s, _ = act(s, ClimbAttack(0, "Q", "Q"), [1, 2])
    legal = legal_actions(s, 0)
    assert not any(isinstance(a, ClimbAttack) for a in legal) and ClimbMove(0) in legal


def test_an_attack_may_take_the_first_slot_and_moves_follow():
    s = climber("back_1")
    s, _ = act(s, ClimbAttack(0, "Q", "Q"), [1, 2])
    s, _ = act(s, ClimbMove(0), [1])
    s, _ = apply(s, ClimbTo(0, "back_3"))
    s, _ = act(s, ClimbMove(0), [1])
    s, _ = apply(s, ClimbTo(0, "back_5"))
    assert s.prompt.kind == "raid_start" and on(s, 0) == "back_5"


def test_dismount_from_a_ground_tile_ends_the_phase():
    s = climber("ankle_l")
    assert Dismount(0) in legal_actions(s, 0)
    s, events = apply(s, Dismount(0))
    assert on(s, 0) == "" and s.prompt.kind == "raid_start" and find(events, "Dismounted")
    assert Dismount(0) not in legal_actions(climber("shin_l"), 0)


# --- tilting, shake-offs and falls (T7.6, T7.7) ---------------------------------------------
def to_colossus_phase(s: GameState) -> tuple[GameState, list]:
    events = []
    for seat in sorted(s.prompt.seats):
        s, ev = apply(s, Ready(seat))
        events += ev
    while s.prompt.kind == "raid_ground":
        s, ev = apply(s, Wait(min(s.prompt.seats)))
        events += ev
    return s, events


def test_a_white_tile_tilting_to_45_throws_its_climber_down_and_a_green_one_holds():
    s = raid(("saber", "lancer"))
    s = setup(s, round=5, tiles=((0, "hip_l"), (1, "back_3")))  # step 5, bow
    s, events = to_colossus_phase(s)
    shaken = find(events, "ShakenOff")
    assert [e.data for e in shaken] == [{"seat": 0, "tile": "hip_l", "height": 6, "damage": 30}]
    assert on(s, 0) == "" and on(s, 1) == "back_3"
    assert s.camps[0].hp == s.camps[0].servant.hp - 30


def test_a_fall_deals_height_times_5_whatever_the_guard_and_the_buffs():
    s = raid(("saber",))
    shield = next(b for b in RULES.buffs if b.effect.mod("damage_taken") < 0)
    s = s.clone()
    core.apply_effect(s, 0, shield.effect, "buff:" + shield.id, 3, True)
    module(s).put_raid(s, tiles=((0, "nape"),))
    module(s).fall(s, 0, module(s).data.tiles["nape"])
    assert s.camps[0].hp == s.camps[0].servant.hp - 50 and on(s, 0) == ""


def test_the_swat_shakes_the_hands_off_and_strikes_the_highest_on_the_back():
    s = raid(("saber", "lancer", "caster"))
    s = setup(s, round=4, tiles=((0, "hand_l"), (1, "back_3"), (2, "nape")),
              tilts=tilts(s, arm_l="horizontal", arm_r="horizontal"))
    s, events = to_colossus_phase(s)
    assert [(e.data["seat"], e.data["damage"]) for e in find(events, "ShakenOff")] == [(0, 25)]
    assert find(events, "ColossusAttacked")[0].data["targets"] == [2]  # the nape is back
    assert s.prompt.kind == "raid_reaction" and s.prompt.seats == {2}


def test_the_stomp_strikes_the_ground_and_the_feet_not_the_ankles():
    s = raid(("saber", "lancer", "caster"))
    s = setup(s, round=2, tiles=((1, "foot_l"), (2, "ankle_l")))
    s, events = to_colossus_phase(s)
    assert find(events, "ColossusAttacked")[0].data["targets"] == [0, 1]


def test_a_guarded_stomp_deals_its_damage_less_end_over_10():
    s = raid(("saber",))
    s = setup(s, round=2)
    s, _ = to_colossus_phase(s)
    hp = s.camps[0].hp
    s, events = act(s, React(0, "G", ""), [5, 5])  # its hit was rolled: 2D10 = 10
    guard = s.camps[0].servant.params["end"] // 10
    assert find(events, "RaiderWounded")[0].data["amount"] == 10 + 25 - guard
    assert s.camps[0].hp == hp - (35 - guard)


# --- hitting the colossus (T7.8, T7.9, §5.5) ----------------------------------------------
def test_a_hit_needs_9_and_a_climber_off_the_horizontal_takes_2_less():
    s = climber("back_1")  # vertical: 2D6 + STR // 10 (4) - 2
    _, events = act(s.clone(), ClimbAttack(0, "B", "B"), [3, 4, 1, 1])
    assert find(events, "DiceRolled")[0].data["total"] == 9 and find(events, "PartHit")
    _, events = act(s.clone(), ClimbAttack(0, "B", "B"), [3, 3])
    assert find(events, "PartMissed") and not find(events, "PartHit")
    s = climber("hip_l")  # horizontal: no penalty
    _, events = act(s, ClimbAttack(0, "B", "B"), [2, 3, 1, 1])
    assert find(events, "DiceRolled")[0].data["total"] == 9 and find(events, "PartHit")


def test_damage_goes_through_the_hidden_factor_of_the_part():
    def hit(part_tile: str) -> int:
        s = climber(part_tile)
        _, events = act(s, ClimbAttack(0, "B", "B"), [6, 5, 5, 5, 6])
        return find(events, "PartHit")[0].data["amount"]
    base = hit("back_1")
    assert hit("shin_l") == base // 2
    assert hit("foot_l") == 0
    assert hit("crown") in (0, 2 * base)  # the crown's dodge may roll first


def test_the_seed_worked_example_lancer_hits_the_crown_for_102():
    s = climber("back_3", round_no=3)
    s, _ = act(s, ClimbMove(0), [3])
    s, _ = apply(s, ClimbTo(0, "crown"))
    s, events = act(s, ClimbAttack(0, "B", "B"), [3, 5, 2, 3, 4, 7])
    hit = find(events, "PartHit")[0].data
    assert (hit["part"], hit["amount"]) == ("head", 102)
    assert not find(events, "ColossusDodged")


def test_its_one_dodge_negates_the_first_crown_hit_and_nobody_sees_the_roll():
    s = climber("crown")
    s, events = act(s, ClimbAttack(0, "B", "B"), [3, 5, 4, 3])  # dodge 4+3+3 = 10: no damage roll
    assert find(events, "PartHit")[0].data["amount"] == 0 and find(events, "ColossusDodged")
    dodge = [e for e in find(events, "DiceRolled") if e.data["purpose"] == "colossus_dodge"]
    assert len(dodge) == 1 and all(view_event(dodge[0], x) is None for x in (None, 0))
    assert module(s).raid(s).dodge_left == 0
    s, _ = apply(s, EndClimb(0))
    s = setup(s, round=1)
    s = ready_all(s)
    s, events = act(s, ClimbAttack(0, "Q", "Q"), [3, 5, 4, 7])
    assert find(events, "PartHit")[0].data["amount"] > 0
    assert not [e for e in find(events, "DiceRolled") if e.data["purpose"] == "colossus_dodge"]


def test_ground_raiders_strike_the_feet_shins_chest_and_arms_the_chest_with_nothing_through():
    s = ready_all(raid(("archer",)))
    parts = {a.part for a in legal_actions(s, 0) if isinstance(a, AttackPart)}
    assert parts == {"feet", "shin", "chest", "arm"}
    _, events = act(s.clone(), AttackPart(0, "chest", "B", "B"), [6, 5, 5, 5])
    assert find(events, "PartHit")[0].data["amount"] == 0
    _, at_feet = act(s.clone(), AttackPart(0, "feet", "B", "B"), [6, 5, 5, 5])
    mods = [find(ev, "DiceRolled")[0].data["mod"] for ev in (events, at_feet)]
    assert mods[0] == mods[1] - 2  # fired upward: the range penalty of one square


# --- the end of a raid and its rewards (§5.5, §5.7) --------------------------------------------
# --- hostile magecraft on it (seed 003 T6, spec §5.6: mr 2, immune to curses, endure) ----------
def mage_raid(master: str = "kang") -> GameState:
    """A raid room whose one raider is Väinämöinen (Bog Song, a hostile attack spell) with a
    Master's spells: Kang's Curse (a curse) and Thunder Talisman (its 4th skill, unlocked
    here), or Kujo's Kanashibari (its 4th)."""
    s = raid(("caster",), masters=(master,))
    s.edit(0).unlocked = True
    s._legal.clear()
    return s


def spell(s: GameState, skill: str, dice: list[int]) -> tuple[GameState, list, int]:
    """`skill` cast at the colossus with `dice`; the state, the events and the HP it lost."""
    before = module(s).st(s).hp
    s, events = act(s, UseSkill(0, skill, COLOSSUS), dice)
    assert s.forced == ()
    return s, events, before - module(s).st(s).hp


def test_hostile_magecraft_aims_at_the_colossus_in_sight_and_at_no_raider():
    """Magic may target anything in sight (T2.1): from its square or three squares away, or
    clinging to it; four squares away it is out of sight (a Master without a familiar). Only
    hostile magecraft aims at it: a raider's own buffs still aim at itself."""
    s = mage_raid()
    legal = legal_actions(s, 0)
    assert {UseSkill(0, k, COLOSSUS) for k in ("bog_song", "curse", "thunder_talisman")} <= set(
        legal)
    aimed = {a for a in legal if isinstance(a, UseSkill) and a.target == COLOSSUS}
    assert all(s.rules.skills[a.skill].magecraft for a in aimed)
    s = mage_raid("baek")  # (Kang's familiar would see it from anywhere, T2.1)
    grid, there = core.city(s), module(s).st(s).square
    for away, seen in ((3, True), (4, False)):
        moved = s.clone()
        place(moved, 0, next(q for q in range(grid.width * grid.height)
                             if distance(grid, q, there) == away))
        moved._legal.clear()
        assert (UseSkill(0, "bog_song", COLOSSUS) in legal_actions(moved, 0)) == seen, away
        if not seen:
            clinging = setup(moved, tiles=((0, "back_1"),))
            clinging._legal.clear()
            assert UseSkill(0, "bog_song", COLOSSUS) in legal_actions(clinging, 0)


def test_its_resistance_lowers_a_spell_check_by_20():
    """T6.1, §5.6 `mr = 2`: Bog Song's check value (70, +5 from Väinämöinen's own skill check
    bonus) is 55 against it, so a 60 fails (it would land on a raider without resistance) and
    a 55 lands."""
    s = mage_raid()
    value = s.rules.skills["bog_song"].check + core.mod(s, s.camps[0], "skill_check")
    _, events, lost = spell(s.clone(), "bog_song", [60])
    (roll,) = [e.data for e in find(events, "DiceRolled") if e.data["purpose"] == "skill"]
    assert value - 20 < 60 <= value and roll["target"] == value - 20
    assert find(events, "SkillFailed") and lost == 0
    _, events, lost = spell(s, "bog_song", [value - 20, 5, 5, 1, 1])
    assert not find(events, "SkillFailed") and lost == 10


def test_its_immunity_lets_a_curse_roll_and_do_nothing():
    """T6.2, T6.3, §5.6 immunity `curse`: Kang's Curse is cast (MP paid, the check rolled in
    the open and made), and does nothing: `SkillResisted`, no HP lost."""
    s = mage_raid()
    mp = s.camps[0].master_mp
    s, events, lost = spell(s, "curse", [1])
    assert [e.data["result"] for e in find(events, "DiceRolled")] == ["success"]
    assert find(events, "SkillResisted")[0].data == {"seat": 0, "target": COLOSSUS}
    assert lost == 0 and not find(events, "SpellOnColossus")
    assert s.camps[0].master_mp < mp


@pytest.mark.parametrize(("endure", "halved"), [([5, 2], True), ([4, 2], False)])
def test_its_endure_halves_the_first_spell_damage_of_a_round_only(endure, halved):
    """T4.4, §5.6: the first hostile-magecraft damage of a Round rolls its endure in the open
    (2D6 + 3 >= 10): Bog Song's 10 becomes 5 on a 7, stays 10 on a 6. Thunder Talisman's 9
    in the same Round rolls no endure and goes through whole."""
    s = mage_raid()
    s, events, lost = spell(s, "bog_song", [1, 5, 5, *endure])
    rolled = [e.data for e in find(events, "DiceRolled") if e.data["purpose"] == "colossus_endure"]
    assert [r["total"] for r in rolled] == [sum(endure) + 3]
    assert lost == (5 if halved else 10) and bool(find(events, "ColossusEndured")) == halved
    assert find(events, "SpellOnColossus")[0].data == {"seat": 0, "skill": "bog_song",
                                                        "amount": lost, "hp": module(s).st(s).hp}
    s, events, lost = spell(s, "thunder_talisman", [1, 3, 3, 3])
    assert lost == 9 and not [e for e in find(events, "DiceRolled")
                              if e.data["purpose"] == "colossus_endure"]


def test_a_spell_without_damage_reaches_it_and_does_nothing():
    """Kanashibari (Kujo's) lands on it and has nothing to bind: no HP lost, no endure."""
    _, events, lost = spell(mage_raid("kujo"), "kanashibari", [1])
    assert lost == 0 and find(events, "SpellOnColossus")[0].data["amount"] == 0
    assert not find(events, "ColossusEndured")


def test_a_raid_ends_after_round_6_climbers_come_down_and_hp_carries_over():
    s = climber("back_1", round_no=6)
    hp = module(s).st(s).hp
    s, events = apply(s, EndClimb(0))
    assert find(events, "RaidEnded")[0].data["reason"] == "round_limit"
    st = module(s).st(s)
    assert st.raid is None and st.hp == hp and s.camps[0].pos == 40


def test_destroying_it_in_a_grail_war_rewards_and_the_war_goes_on():
    s = game(("saber", "lancer"), modules=["colossus"], options={"colossus": {"colossus_day": 1}})
    for seat in (0, 1):
        place(s, seat, 41)
        s, _ = apply(s, DeclareRaid(seat))
    s = s.clone()
    module(s).put(s, hp=10, damage=(0, 500))
    spells = [c.spells for c in s.camps]
    s = ready_all(s)
    killer = min(s.prompt.seats)
    s, events = act(s, AttackPart(killer, "shin", "B", "B"), [4, 4, 5, 5])
    assert find(events, "ColossusDestroyed")[0].data == {"killer": killer, "top": 1}
    gained = [1, 1] if killer == 0 else [0, 2]
    assert [c.spells for c in s.camps] == [spells[0] + gained[0], spells[1] + gained[1]]
    assert not s.over and module(s).st(s).raid is None
    assert DeclareRaid(0) not in legal_actions(s, min(s.prompt.seats))


def test_destroying_it_wins_a_raid_room_for_every_living_camp():
    s = raid(("saber", "lancer"))
    s = s.clone()
    module(s).put(s, hp=10)
    s = ready_all(s)
    s, events = act(s, AttackPart(min(s.prompt.seats), "shin", "B", "B"), [4, 4, 5, 5])
    assert s.over and find(events, "GameEnded")[0].data == {
        "winner": -1, "winners": [0, 1], "reason": "colossus_destroyed"}


def test_a_raid_room_is_lost_when_every_servant_is_dead():
    s = raid(("saber",))
    s = s.clone()
    s.edit(0).hp = 10
    module(s).put_raid(s, round=5, tiles=((0, "shoulder_l"),))
    s, events = to_colossus_phase(s)
    assert s.over and find(events, "GameEnded")[0].data == {
        "winner": -1, "winners": [], "reason": "all_dead"}


# --- views, hidden information, rebuilt states (§4) -------------------------------------------
def test_the_view_shows_the_body_and_the_raid_but_no_factor_and_no_dodge():
    s = climber("back_1")
    view = view_for(s, 0)["modules"]["colossus"]["state"]
    assert view["hp"] == module(s).data.raid_room_hp_per_camp
    assert view["raid"]["tiles"] == {"0": "back_1"}
    assert view["raid"]["tilts"]["back"] == "vertical" and view["next_step"] == "awaken"
    assert view["board"][0]["id"] == "foot_l" and "factor" not in view["board"][0]
    text = str(view)
    assert "factor" not in text and "dodge" not in text and "200" not in text


def test_a_rebuilt_state_plays_on_with_drawn_factors():
    """A bot's rebuilt state (`determinize`) holds the public colossus and factors drawn from
    the values that exist (never read from the real state); it plays on alike."""
    s = climber("crown")
    drawn = set()
    for seed in range(12):
        rebuilt = state_from_view(view_for(s, 0), RULES, random.Random(seed))
        st = module(rebuilt).st(rebuilt)
        assert set(st.factors) <= {0, 50, 100, 200}
        assert st.raid._replace(dodge_left=0) == module(s).raid(s)._replace(dodge_left=0)
        assert legal_actions(rebuilt, 0) == legal_actions(s, 0)
        drawn.add(st.factors)
    assert len(drawn) > 1  # drawn, not read: they differ from one rebuild to the next
    flat = s.clone()
    module(flat).rebuild(flat, view_for(s, 0)["modules"]["colossus"]["state"])
    assert set(module(flat).st(flat).factors) == {100}


# --- actions on the wire (§4) ------------------------------------------------------------------
def test_every_colossus_action_round_trips():
    samples = [DeclareRaid(0), Climb(0), AttackPart(0, "shin", "B", "B"),
               from_dict({"type": "FireAtPart", "seat": 0, "part": "arm"}), Mount(0, "ankle_l"),
               ClimbMove(0), ClimbTo(0, "nape"), ClimbAttack(0, "A", "A"),
               from_dict({"type": "ClimbNoblePhantasm", "seat": 1}), Dismount(0), EndClimb(0)]
    assert {type(a) for a in samples} == COLOSSUS_ACTIONS
    for action in samples:
        assert from_dict(action.to_dict()) == action


# --- scenario files (tests/scenarios/colossus/) ------------------------------------------------
SCENARIO_FILES = Path(__file__).parent / "scenarios" / "colossus"
STATE_KEYS = ("hp", "square", "raids", "destroyed", "winners")


@pytest.mark.parametrize("path", sorted(SCENARIO_FILES.glob("*.toml")), ids=lambda p: p.stem)
def test_colossus_scenario_files_play_as_their_comments_say(path):
    """Each file plays to its end with every forced die used; each step's named events happen
    with the named fields, and the colossus, the camps' squares and HP end as the file says."""
    spec = tomllib.loads(path.read_text(encoding="utf-8"))
    expect = spec["expect"]
    s, log = play_steps(scenario.setup(spec), spec["step"])
    assert s.forced == ()
    for want in expect.get("event", []):
        fields = {k: v for k, v in want.items() if k not in ("step", "type")}
        assert any(e.type == want["type"] and fields.items() <= e.data.items()
                   for e in log[want["step"] - 1]), want
    st = module(s).st(s)
    for key, value in expect.get("colossus", {}).items():
        got = s.over if key == "over" else getattr(st, key)
        assert (list(got) if key == "winners" else got) == value, key
    for key in ("pos", "hp"):
        for seat, value in expect.get(key, {}).items():
            assert getattr(s.camps[int(seat)], key) == value, (key, seat)


def test_the_scenario_files_cover_every_step_of_the_script_and_both_endings():
    seen: set[str] = set()
    for path in SCENARIO_FILES.glob("*.toml"):
        spec = tomllib.loads(path.read_text(encoding="utf-8"))
        _, log = play_steps(scenario.setup(spec), spec["step"])
        seen |= {f"move:{e.data['move']}" for ev in log for e in ev if e.type == "ColossusActed"}
        seen |= {e.type for ev in log for e in ev}
        seen |= {f"end:{e.data['reason']}" for ev in log for e in ev if e.type == "GameEnded"}
    assert {f"move:{x}" for x in ("awaken", "stomp", "reach", "swat", "bow", "roar")} <= seen
    assert {"ShakenOff", "ColossusDodged", "ColossusHeld", "Trampled", "ColossusDestroyed",
            "end:colossus", "end:colossus_destroyed"} <= seen


# --- bots (spec 003 §7) -------------------------------------------------------------------------
class Recording:
    """A bot wrapper that notes the type of every action it plays."""

    def __init__(self, bot, seen: set) -> None:
        self.bot, self.seen, self.needs_view = bot, seen, bot.needs_view

    def choose(self, view, legal):
        action = self.bot.choose(view, legal)
        self.seen.add(type(action))
        return action


def played(level: str, games: int, classes=("saber", "lancer", "archer"), **options) -> set:
    seen: set = set()
    for g in range(games):
        s = new_game(seed=g, classes=list(classes), modules=["colossus"],
                     options={"colossus": options})
        bots = [Recording(make_bot(level, g * 7 + i), seen) for i in range(len(classes))]
        run_match(s, bots, arrival_seed=g)
        assert s.over
    return seen


def test_the_random_bot_plays_every_raid_action():
    assert played("random", 60, scenario="colossus_raid") >= COLOSSUS_ACTIONS


def test_the_normal_bot_raids_and_climbs_and_every_camp_wounds_it_in_a_raid_room():
    seen = played("normal", 2, scenario="colossus_raid")
    assert {DeclareRaid, Climb, Mount, ClimbMove, ClimbTo, ClimbAttack} <= seen
    for g in range(3):
        s = new_game(seed=g, classes=["saber", "lancer", "archer"], modules=["colossus"],
                     options=RAID_ROOM)
        run_match(s, [make_bot("normal", g * 7 + i) for i in range(3)], arrival_seed=g)
        st = module(s).st(s)
        assert s.over and st.raids >= 3 and all(d > 0 for d in st.damage)
        assert st.hp < st.hp_max // 4


def test_the_normal_bot_steps_off_a_bare_tile_the_next_step_tilts():
    """With one slot left on a hip it strikes, unless the next step (round 5's bow) tilts the
    hips: then it moves on, to the tile nearest the crown that will not shake it off."""
    bot = make_bot("normal", 1)
    s = setup(climber("hip_l", round_no=2), slots=1)
    assert isinstance(bot.choose(view_for(s, 0), legal_actions(s, 0)), ClimbAttack)
    s = setup(climber("hip_l", round_no=4), slots=1)
    action = bot.choose(view_for(s, 0), legal_actions(s, 0))
    assert action == ClimbMove(0)
    s, _ = act(s, action, [2])
    assert bot.choose(view_for(s, 0), legal_actions(s, 0)) == ClimbTo(0, "back_3")


def test_the_hard_bot_searches_a_raid_without_errors():
    s = climber("back_1")
    bot = make_bot("hard", 3, iterations=12)
    action = bot.choose(view_for(s, 0), legal_actions(s, 0))
    assert action in legal_actions(s, 0) and bot.last["errors"] == 0


def test_hard_bots_play_a_whole_raid_room_without_search_errors():
    errors = []

    class Counting:
        needs_view = True

        def __init__(self, seed: int) -> None:
            self.bot = make_bot("hard", seed, iterations=4)

        def choose(self, view, legal):
            action = self.bot.choose(view, legal)
            errors.append(self.bot.last.get("errors", 0))
            return action

    s = new_game(seed=3, classes=["saber", "lancer"], modules=["colossus"], options=RAID_ROOM)
    run_match(s, [Counting(3), Counting(4)], arrival_seed=1)
    assert s.over and module(s).st(s).raids >= 2 and len(errors) > 50 and not any(errors)


def test_a_scenario_file_may_start_the_colossus_wounded_and_nothing_else():
    spec = {"scenario": "colossus_raid", "classes": ["saber"],
            "module_state": {"colossus": {"hp": 300}}}
    assert module(scenario.setup(spec)).st(scenario.setup(spec)).hp == 300
    for bad, says in (({"colossus": {"hp": 0}}, "module_state.colossus.hp"),
                      ({"colossus": {"factors": 1}}, "module_state.colossus.factors"),
                      ({"tactics": {"zoc": 1}}, "takes no module_state")):
        with pytest.raises(ValueError, match=says):
            scenario.setup({**spec, "module_state": bad})


# --- Noble Phantasms and per-round effects in a raid (§5.5) ------------------------------------
def test_an_attack_np_declared_at_the_colossus_fires_at_a_part_from_the_ground():
    s = raid(("archer",))
    assert DeclareNoblePhantasm(0, COLOSSUS) in legal_actions(s, 0)
    s, _ = apply(s, DeclareNoblePhantasm(0, COLOSSUS))
    s, _ = apply(s, Ready(0))
    parts = {a.part for a in legal_actions(s, 0) if isinstance(a, FireAtPart)}
    assert parts == {"feet", "shin", "chest", "arm"}  # its range is 3
    hand = s.camps[0].hand
    s, events = act(s, FireAtPart(0, "arm"), [4, 4])
    assert find(events, "NoblePhantasmFired") and find(events, "PartHit")[0].data["amount"] > 0
    assert s.camps[0].hand.count("Q") == hand.count("Q") - 2


def test_a_climber_fires_its_np_at_its_tile_and_it_is_the_rounds_attack():
    s = setup(raid(("archer",)), tiles=((0, "crown"),))
    s, _ = apply(s, DeclareNoblePhantasm(0, COLOSSUS))
    s, _ = apply(s, Ready(0))
    assert ClimbNoblePhantasm(0) in legal_actions(s, 0)
    s, events = act(s, ClimbNoblePhantasm(0), [4, 4, 1, 1])  # its dodge fails: 2 + 3
    assert find(events, "PartHit")[0].data["part"] == "head"
    assert not any(isinstance(a, ClimbAttack | ClimbNoblePhantasm) for a in legal_actions(s, 0))


def test_per_round_effects_tick_in_a_raid():
    s = raid(("saber",))
    bleed = next(d for d in RULES.debuffs if d.effect.mod("hp_per_round") < 0)
    s = s.clone()
    core.apply_effect(s, 0, bleed.effect, "debuff:" + bleed.id, 3, True, debuff=True)
    hp = s.camps[0].hp
    s = wait_ground(ready_all(s))
    assert s.prompt.kind == "raid_start"
    assert s.camps[0].hp == hp + bleed.effect.mod("hp_per_round")
    assert s.camps[0].buffs[0].rounds == 2


def test_a_camp_that_waited_within_reach_is_offered_to_join_and_it_is_no_time_with_its_master():
    s = game(("saber", "lancer", "caster"), modules=["colossus"], options=RAID_ROOM)
    place(s, 0, 40)
    place(s, 1, 39)
    place(s, 2, 0)  # too far to join
    s, _ = apply(s, DeclareRaid(0))
    s, _ = apply(s, DeclareWait(1))
    s, events = apply(s, DeclareWait(2))
    assert find(events, "RaidOpened")[0].data["offered"] == [1]
    assert s.prompt.kind == "raid_offer" and s.prompt.seats == {1}
    s, _ = apply(s, AnswerIntervention(1, True))
    assert s.prompt.kind == "raid_start" and module(s).raid(s).seats == (0, 1)
    assert s.camps[1].pos == 40
    for seat in (1, 0):
        s, _ = apply(s, DeclareDisengage(seat))
    assert s.camps[1].pos == 39 and s.camps[1].waits == 0 and s.camps[2].waits == 1


# --- concentration in a raid (T4.1, T4.3, Z14) -------------------------------------------------
def test_a_seized_initiative_puts_the_climbers_before_the_colossus():
    s = setup(raid(("saber", "lancer")), round=4, tiles=((1, "back_3"),))
    assert Concentrate(0, "initiative") in legal_actions(s, 0)
    s, _ = apply(s, Concentrate(0, "initiative"))  # a ground raider seizes it for all (Z14)
    s, _ = apply(s, Ready(1))
    s, events = act(s, Ready(0), [6, 6])
    assert find(events, "RaidRoundStarted")[0].data["seized"]
    s, events = apply(s, Wait(0))
    assert s.prompt.kind == "climb" and not find(events, "ColossusActed")
    s, events = apply(s, EndClimb(1))
    assert find(events, "ColossusAttacked")[0].data["targets"] == [1]
    s, _ = guard_all(s, [3, 3])
    assert s.prompt.kind == "raid_start" and module(s).raid(s).round == 5


def test_a_failed_seize_keeps_the_colossus_before_the_climbers():
    s = setup(raid(("saber", "lancer")), round=4, tiles=((1, "back_3"),))
    s, _ = apply(s, Concentrate(0, "initiative"))
    s, _ = apply(s, Ready(1))
    s, _ = act(s, Ready(0), [1, 1])
    s, events = act(s, Wait(0), [3, 3])
    assert s.prompt.kind == "raid_reaction" and find(events, "ColossusAttacked")


def test_a_concentration_dodge_makes_the_colossus_miss_and_a_failure_is_a_guard():
    s = setup(raid(("saber",)), round=2)
    s, _ = to_colossus_phase(s)
    hp = s.camps[0].hp
    assert Concentrate(0, "dodge") in legal_actions(s, 0)
    done, events = act(s.clone(), Concentrate(0, "dodge"), [6, 6])
    assert find(events, "ColossusStruck")[0].data["hit"] is False and done.camps[0].hp == hp
    done, events = act(s.clone(), Concentrate(0, "dodge"), [1, 1, 5, 5])
    guard = s.camps[0].servant.params["end"] // 10
    assert find(events, "RaiderWounded")[0].data["amount"] == 35 - guard


# --- Command Spells in a raid (§5.5) --------------------------------------------------------
def spells_of(s: GameState, seat: int) -> set[str]:
    return {a.spell for a in legal_actions(s, seat) if isinstance(a, UseCommandSpell)}


def test_command_spells_work_at_raid_prompts_but_teleport():
    s = climber("back_1")
    spells = spells_of(s, 0)
    assert {"retreat", "fighting_spirit", "hp_recovery"} <= spells and "teleport" not in spells


def test_retreat_takes_a_climber_out_of_the_raid():
    s = climber("nape")
    s, events = apply(s, UseCommandSpell(0, "retreat", "3"))
    assert find(events, "LeftRaid")[0].data == {"seat": 0, "how": "retreat"}
    assert module(s).st(s).raid is None and s.camps[0].pos == 3
    assert find(events, "RaidEnded")[0].data["reason"] == "empty"


def test_war_roar_fires_an_undeclared_np_from_the_ground():
    s = ready_all(raid(("archer",)))
    assert not any(isinstance(a, FireAtPart) for a in legal_actions(s, 0))
    s, _ = apply(s, UseCommandSpell(0, "war_roar"))
    assert FireAtPart(0, "arm") in legal_actions(s, 0)


def test_a_raider_uses_its_own_skills_and_its_battle_start_skills_fire():
    s = raid(("saber",))  # El Cid: Campeador at the first Round's start
    assert UseSkill(0, "campeador", -1) in legal_actions(s, 0)
    s, events = act(s, UseSkill(0, "campeador", -1), [1, 1])
    assert find(events, "SkillUsed") and any(b.source == "campeador" for b in s.camps[0].buffs)
    assert not any(isinstance(a, UseSkill) and 0 <= a.target < len(s.camps)
                   for a in legal_actions(s, 0))  # no raider is another's enemy (T3.2)


def test_battle_start_skills_fire_when_a_raid_opens():
    s = game(("rider",), modules=["colossus"], options=RAID_ROOM)
    place(s, 0, 40)
    s, events = act(s, DeclareRaid(0), [1, 1])
    assert [e.data["skill"] for e in find(events, "SkillUsed")] == ["bogatyr_oath"]


# --- ground raiders on the city map (§5.5 phase ①) ---------------------------------------------
def test_a_ground_raider_in_its_zone_moves_one_square_then_fires_upward_from_there():
    s = ready_all(raid(("archer",)))
    moves = {a.to for a in legal_actions(s, 0) if isinstance(a, Move)}
    assert moves == {33, 39, 41}  # one square: it starts inside the colossus's zone (T1.7)
    _, at_feet = act(s.clone(), AttackPart(0, "feet", "B", "B"), [6, 5, 5, 5])
    s, events = apply(s, Move(0, 33))
    assert s.prompt.kind == "raid_ground" and not any(isinstance(a, Move)
                                                      for a in legal_actions(s, 0))
    parts = {a.part for a in legal_actions(s, 0) if isinstance(a, AttackPart)}
    assert parts == {"chest", "arm"}  # from a square away: the ranged parts only
    s, events = act(s, AttackPart(0, "arm", "B", "B"), [6, 5, 5, 5])
    mods = [find(ev, "DiceRolled")[0].data["mod"] for ev in (events, at_feet)]
    assert mods[0] == mods[1] - 2  # one square of range: -2
    assert s.prompt.kind == "raid_start" and s.camps[0].pos == 33


def test_a_blocked_line_rules_out_the_ranged_parts():
    s = ready_all(raid(("archer",)))
    s = s.clone()
    place(s, 0, 19)  # (5,2): the Radio Tower (5,3) stands between it and the colossus (5,5)
    assert not any(isinstance(a, AttackPart | FireAtPart) for a in legal_actions(s, 0))
    place(s, 0, 38)  # (3,5): two squares west, a clear line
    assert {a.part for a in legal_actions(s, 0) if isinstance(a, AttackPart)} == {"chest", "arm"}


def test_a_ground_raider_off_its_square_escapes_the_stomp_and_cannot_climb():
    s = setup(raid(("saber", "archer")), round=2)
    s = ready_all(s)
    first = min(s.prompt.seats)
    s, _ = apply(s, Move(first, 39))
    s, _ = apply(s, Wait(first))
    s, events = apply(s, Wait(min(s.prompt.seats)))
    assert find(events, "ColossusAttacked")[0].data["targets"] == [1 - first]
    s, _ = guard_all(s, [1, 1])
    assert Climb(first) not in legal_actions(s, first) and Climb(1 - first) in legal_actions(
        s, 1 - first)


def test_the_normal_bot_steps_off_its_square_before_the_stomp_and_comes_back_after():
    bot = make_bot("normal", 1)
    s = ready_all(setup(raid(("archer",)), round=2))
    move = bot.choose(view_for(s, 0), legal_actions(s, 0))
    assert isinstance(move, Move) and move.to != 40
    s, _ = apply(s, move)
    assert isinstance(bot.choose(view_for(s, 0), legal_actions(s, 0)), AttackPart | FireAtPart)
    s = setup(s, round=3)
    s, _ = apply(s, Wait(0))
    s = ready_all(s)
    assert bot.choose(view_for(s, 0), legal_actions(s, 0)) == Move(0, 40)


def test_a_support_np_works_in_a_raid_and_powers_the_next_rounds_first_attack():
    s = raid(("saber",), servants=["gyebaek"])
    assert DeclareNoblePhantasm(0, 0) in legal_actions(s, 0)
    s, _ = apply(s, DeclareNoblePhantasm(0, 0))
    s, _ = apply(s, Ready(0))
    assert UseNoblePhantasm(0, 0) in legal_actions(s, 0)
    s, events = apply(s, UseNoblePhantasm(0, 0))
    assert find(events, "NoblePhantasmFired") and s.camps[0].pending_power > 0
    assert any(b.source.startswith("np:") for b in s.camps[0].buffs)
    s = ready_all(s)
    plain = s.clone()
    plain.edit(0).pending_power = 0
    _, without = act(plain, AttackPart(0, "arm", "B", "B"), [4, 4, 5, 5])
    s, events = act(s, AttackPart(0, "arm", "B", "B"), [4, 4, 5, 5])
    bonus = s.rules.numbers.np_buster_power
    assert find(events, "PartHit")[0].data["amount"] == find(without, "PartHit")[0].data[
        "amount"] + bonus
    assert s.camps[0].pending_power == 0


def test_the_hard_bots_rollouts_climb_and_strike():
    rng = random.Random(1)
    s = climber()
    assert isinstance(rollout_action(s, 0, legal_actions(s, 0), rng), Mount)
    s = climber("thigh_l")
    assert isinstance(rollout_action(s, 0, legal_actions(s, 0), rng), ClimbAttack)
    s, _ = act(s, ClimbMove(0), [2])
    assert rollout_action(s, 0, legal_actions(s, 0), rng) == ClimbTo(0, "back_1")
