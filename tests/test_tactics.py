"""The tactics module (seed 003; rules T0-T6 of shared/modules/003-tactics-colossus.md): zones
of control, lines of fire, sight, concentration and magic resistance, one test per rule.

Battles are set up directly (`battle_at`: every camp in the battle, each on its square) with
`bare()` rules, so only the rule under test acts; skills are given back where a rule needs them.
Squares are written (x, y) as in the spec. Numbers come from the module's data
(`resources/tactics/`), so a retuned value does not change what a test means. The scenario files
of tests/scenarios/tactics/ are played at the end of this file.
"""

from __future__ import annotations

import random
import shutil
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from grailwar.cli import scenario
from grailwar.shared.bots import make_bot
from grailwar.shared.bots.determinize import state_from_view
from grailwar.shared.engine import (
    apply,
    default_action,
    from_dict,
    legal_actions,
    new_game,
    play,
    to_text,
    view_for,
)
from grailwar.shared.engine.actions import (
    Action,
    AnswerAmbush,
    AnswerIntervention,
    Attack,
    DeclareAmbush,
    DeclareDisengage,
    DeclareEncounter,
    DeclareNoblePhantasm,
    DeclareWait,
    Move,
    OfferTruce,
    React,
    Ready,
    UseCommandSpell,
    UseNoblePhantasm,
    UseSkill,
    Wait,
)
from grailwar.shared.engine.data import (
    DataError,
    Effect,
    Skill,
    Text,
    default_ruleset,
    load_ruleset,
)
from grailwar.shared.engine.geometry import distance
from grailwar.shared.engine.sharing import Shared
from grailwar.shared.engine.state import GameState
from grailwar.shared.modules.tactics import Concentrate, ConcentrateCast
from grailwar.shared.modules.tactics.data import load_tactics
from grailwar.shared.modules.tactics.lines import crossed
from helpers import (
    act_all,
    bare,
    battle_at,
    faces,
    find,
    game,
    only,
    place,
    ready_all,
    rolls,
    to_main,
    tweak,
    wait_round,
)

R = bare()
ON = ("tactics",)
RESOURCES = Path(__file__).parent.parent / "resources"
SCENARIOS = Path(__file__).parent / "scenarios" / "tactics"
DATA = load_tactics(R)


def fixture_skill(sid: str, **mods: int) -> Skill:
    """A constant Servant skill carrying only `mods` (e.g. mr)."""
    name = Text(sid, sid, sid)
    return Skill(sid, name, name, "servant", "constant", 0, None, 0, "self", False, None,
                 Effect(tuple(sorted(mods.items()))))


def with_skills(rules, cls: str, *skill_ids: str, extra: tuple[Skill, ...] = ()):
    """`rules` where the Servant of `cls` has exactly these skills."""
    rules = replace(rules, skills={**rules.skills, **{k.id: k for k in extra}})
    return tweak(rules, cls, skills=(*skill_ids, *(k.id for k in extra)))


def master_with(rules, master: str, *skill_ids: str):
    """`rules` where one Master's first skills are `skill_ids` (inert ones fill the sheet)."""
    sheet = rules.masters[master]
    skills = (*skill_ids, *sheet.skills[len(skill_ids):])
    return replace(rules, masters={**rules.masters, master: replace(sheet, skills=skills)})


# Caster sings Bog Song (a Servant hostile magecraft skill); the Master Baek casts Curse (a
# Master hostile magecraft skill) and Reinforcement (Master magecraft on its own Servant).
MAGE = master_with(with_skills(R, "caster", "bog_song"), "baek", "curse", "reinforcement")
MASTERS = ("seo", "koga", "hayase")  # bare Masters for most games; "baek" where named


def xy(s: GameState, x: int, y: int) -> int:
    return s.rules.maps[s.settings.map_id].index(x, y)


def at(s: GameState, square: int) -> tuple[int, int]:
    width = s.rules.maps[s.settings.map_id].width
    return square % width, square // width


def moves(s: GameState, seat: int) -> dict[tuple[int, int], int]:
    """The squares `seat`'s legal battle Moves reach, with their distance from its square."""
    grid = s.rules.maps[s.settings.map_id]
    return {at(s, a.to): distance(grid, s.camps[seat].pos, a.to) for a in only(s, seat, Move)}


def arena(classes, squares, rules=R, modules=ON, masters=MASTERS, **kw) -> GameState:
    """`battle_at` with the tactics module on (or `modules`), bare rules and bare Masters."""
    return battle_at(classes, squares, rules=rules, modules=modules,
                     masters=masters[:len(classes)], **kw)


def zone_view(s: GameState, seat: int) -> dict[str, Any]:
    """The public view of one combatant's zone (seat, radius, active, squares)."""
    zones = s.modules[0].view(s, None, Shared(s))["zoc"]
    return next(z for z in zones if z["seat"] == seat)


def uses(s: GameState) -> tuple[int, ...]:
    return s.mods["tactics"].uses


def concentration(s: GameState, seat: int, success: bool) -> list[int]:
    """Two d6 faces that make `seat`'s concentration roll succeed or fail by the least margin
    (2D6 + MAG // 10 + check mods against concentration_target)."""
    camp = s.camps[seat]
    bonus = camp.servant.params["mag"] // 10
    natural = DATA.concentration_target - bonus - (0 if success else 1)
    return faces(min(12, max(2, natural)))


# --- T0 scope ------------------------------------------------------------------------------------
def test_t0_1_the_rules_apply_only_with_the_module_on():
    """T0.1: the same position has a zone (Saber's stops Assassin at (3,2)) and a blocked line
    of fire (Archer at (4,1) to Caster at (6,1) past the Hospital) with `tactics` on, neither
    without it; outside battles the module changes no legal action."""
    classes = ("assassin", "saber", "caster", "archer")  # Agility order: 0, 3, 1, 2
    squares = [(3, 4), (2, 2), (6, 1), (4, 1)]
    seen = {}
    for modules in (ON, ()):
        s = to_main(arena(classes, squares, modules=modules, masters=(*MASTERS, "baek")), 0)
        stopped = (3, 1) not in moves(s, 0)
        s = to_main(s, 3)
        seen[modules] = (stopped, Attack(3, 2, "B", "B") not in legal_actions(s, 3))
    assert seen == {ON: (True, True), (): (False, False)}
    plain, tactical = (new_game(seed=5, modules=m) for m in ((), ON))
    for seat in plain.prompt.seats:
        assert legal_actions(tactical, seat) == legal_actions(plain, seat)


# --- T1 zones of control -------------------------------------------------------------------------
@pytest.mark.parametrize(("walls", "passes"), [(((2, 2), (4, 2)), False),
                                               (((1, 2), (5, 2)), True)])
def test_t1_9_a_wall_of_two_zones_stops_a_move_and_a_gap_lets_it_pass(walls, passes):
    """T1.9: melee Servants at (2,2) and (4,2) close row 2 from x = 1 to 5: a Servant moving
    north from (3,4) stops at (3,2). At (1,2) and (5,2) the row has a gap at x = 3 and the same
    Move reaches (3,0)."""
    s = to_main(arena(("saber", "berserker", "assassin"), [*walls, (3, 4)]), 2)
    reach = moves(s, 2)
    assert (3, 2) in reach
    assert ((3, 1) in reach, (3, 0) in reach) == (passes, passes)


@pytest.mark.parametrize("modules", [ON, ()])
def test_t1_6_a_move_that_meets_a_zone_at_step_4_ends_there(modules):
    """T1.6: a Movement-6 Servant going east along row 5 enters Saber's zone at (4,5), its 4th
    square: the Move may end there and can go no further (without the module it can)."""
    rules = tweak(R, "assassin", movement=6)
    s = to_main(arena(("assassin", "saber"), [(0, 5), (4, 4)], rules=rules, modules=modules),
                0)
    reach = moves(s, 0)
    assert reach[(4, 5)] == 4
    assert ((5, 5) in reach, (6, 5) in reach) == (not modules, not modules)


@pytest.mark.parametrize("hostile", [(3, 2), (3, 3)])
@pytest.mark.parametrize("modules", [ON, ()])
def test_t1_7_a_move_that_starts_in_a_hostile_zone_covers_one_square(modules, hostile):
    """T1.7: a camp on a square Saber controls (its own or the next one) moves at most 1 square;
    without the module it moves its full Movement."""
    s = to_main(arena(("assassin", "saber"), [(3, 3), hostile], modules=modules), 0)
    farthest = max(moves(s, 0).values())
    assert farthest == (1 if modules else s.camps[0].servant.movement)


@pytest.mark.parametrize("modules", [ON, ()])
def test_t1_7_disengaging_from_a_melee_servants_square_runs_exactly_one_square(modules):
    """T1.7, T1.14: the disengage run (Movement − 2 = 2 for Assassin) from Saber's square covers
    exactly 1 square under Saber's zone: every offered Move is 1 square long."""
    s = arena(("assassin", "saber"), [(3, 2), (3, 2)], modules=modules)
    s, _ = act_all(s, DeclareDisengage(0))
    s = ready_all(s)
    assert s.prompt == ("main", {0})
    run = s.camps[0].servant.movement + s.rules.numbers.disengage_movement
    assert set(moves(s, 0).values()) == {1 if modules else run}
    assert {type(a) for a in legal_actions(s, 0)} <= {Move, UseCommandSpell}


@pytest.mark.parametrize(("owner", "stop"), [("lancer", (3, 3)), ("saber", (3, 2))])
def test_t1_1_a_polearm_controls_squares_2_away_and_a_sword_does_not(owner, stop):
    """T1.1, T1.2: Lancer (polearm, radius 2) at (3,1) stops a Move from (3,4) at (3,3), two
    squares away; Saber (melee, radius 1) there only stops it at (3,2)."""
    s = to_main(arena(("assassin", owner), [(3, 4), (3, 1)]), 0)
    assert zone_view(s, 1)["radius"] == DATA.zoc_radius["polearm" if owner == "lancer"
                                                        else "melee"]
    reach = moves(s, 0)
    beyond = (3, stop[1] - 1)
    assert stop in reach and beyond not in reach


@pytest.mark.parametrize(("owner", "stops"), [("archer", False), ("caster", False),
                                              ("saber", True)])
def test_t1_3_ranged_and_magic_servants_have_no_zone_in_round_1(owner, stops):
    """T1.3: in round 1 a melee Servant's zone is active from the start; an Archer (ranged) or
    a Caster (magic) next to the same path has none."""
    s = to_main(arena(("assassin", owner), [(3, 4), (2, 2)]), 0)
    assert s.battle.round == 1
    assert ((3, 0) not in moves(s, 0)) == stops


def zoc_after(actions: list[tuple[Action, list[int]]], saber: tuple[int, int],
              archer: tuple[int, int]) -> bool:
    """Whether Saber (seat 0) still stops a Move after an activation of `actions` (each with
    its forced dice): Caster (seat 2, the slowest) then moves north from (3,4) past Saber's
    square (2,2), and the test is whether it can reach (3,1)."""
    s = arena(("saber", "archer", "caster"), [saber, archer, (3, 4)],
              rules=with_skills(MAGE, "saber", "bog_song", "twin_blades"),
              masters=("baek", "seo", "koga"))
    s = to_main(s, 0)
    for action, dice in actions:
        s, _ = act_all(s, action, dice)
    s = to_main(s, 2)
    assert s.camps[0].pos == xy(s, 2, 2) and s.battle.round == 1
    return (3, 1) not in moves(s, 2)


HIT, GUARD_DAMAGE = faces(7), [5, 5]


@pytest.mark.parametrize(("actions", "saber", "archer", "active"), [
    ([(Wait(0), [])], (2, 2), (1, 2), True),
    ([(Attack(0, 1, "B", "B"), HIT), (React(1, "G", ""), GUARD_DAMAGE)], (2, 2), (2, 2), True),
    ([(Move(0, 16), []), (Wait(0), [])], (2, 1), (1, 2), True),  # 16 = (2,2)
    ([(UseSkill(0, "reinforcement"), [1]), (Wait(0), [])], (2, 2), (1, 2), True),
    ([(Attack(0, 1, "B", "B"), HIT), (React(1, "G", ""), GUARD_DAMAGE)], (2, 2), (1, 2), False),
    ([(UseSkill(0, "bog_song", 1), [100]), (Wait(0), [])], (2, 2), (1, 2), False),
    ([(UseSkill(0, "twin_blades"), [1]), (Wait(0), [])], (2, 2), (1, 2), False),
    ([(UseSkill(0, "twin_blades"), [100]), (Wait(0), [])], (2, 2), (1, 2), False),
], ids=["wait", "melee-attack", "move", "master-magecraft", "ranged-attack",
        "servant-magecraft", "servant-buff-skill", "servant-buff-skill-failed"])
def test_t1_4_the_last_activation_decides_the_zone(actions, saber, archer, active):
    """T1.4 (seed 003's ZOC-keeping and ZOC-cancelling lists): after a Wait, a melee Attack, a
    Move alone or a Master's magecraft the zone stays active and stops the next Move; after a
    ranged Attack, or any skill of the Servant's own used at its activation ("any other act
    that uses a skill": magecraft or a buff, even a failed one), it stops nobody until the
    camp's next activation ends."""
    assert zoc_after(actions, saber, archer) == active


def test_t1_4_a_defensive_stance_keeps_the_zone():
    """T1.4, the seed's ZOC-keeping "defensive stance": Saber Guards the faster Assassin's
    attack (a Reaction, not Saber's own action) and its zone stays active through it, then
    through its own Wait."""
    s = to_main(arena(("saber", "assassin"), [(2, 2), (2, 2)]), 1)
    s, _ = act_all(s, Attack(1, 0, "B", "B"), HIT)
    s, _ = act_all(s, React(0, "G", ""), GUARD_DAMAGE)
    assert s.prompt == ("main", {0})
    assert zone_view(s, 0)["active"] and 0 not in s.mods["tactics"].dropped
    s, _ = act_all(s, Wait(0))
    assert zone_view(s, 0)["active"]


@pytest.mark.parametrize("disengage", [True, False])
def test_t1_4_declaring_disengage_drops_the_zone_at_once(disengage):
    """T1.4: Saber's Disengage declaration drops its zone before anyone acts: the faster
    Assassin then moves past it from (3,4) to (3,0); without the declaration it stops at (3,2)."""
    s = arena(("saber", "assassin"), [(2, 2), (3, 4)])
    if disengage:
        s, _ = act_all(s, DeclareDisengage(0))
    s = ready_all(s)
    assert s.prompt == ("main", {1})
    assert ((3, 0) in moves(s, 1)) == disengage
    assert zone_view(s, 0)["active"] == (not disengage)


def test_t1_8_a_camps_own_zone_never_stops_it():
    """T1.8: Saber inside its own zone moves its full Movement (T1.7 does not apply to it)."""
    s = to_main(arena(("saber", "archer"), [(2, 2), (6, 5)]), 0)
    assert zone_view(s, 0)["active"]
    assert max(moves(s, 0).values()) == s.camps[0].servant.movement


@pytest.mark.parametrize(("fighters", "passes"), [(2, True), (3, False)])
def test_t1_10_a_camp_outside_the_battle_projects_no_zone(fighters, passes):
    """T1.10: Saber at (2,2), not in the battle (it rested), does not stop Assassin's Move from
    (3,4) to (3,0); once Saber fights in that battle, it does."""
    s = arena(("assassin", "caster", "saber"), [(3, 4), (6, 5), (2, 2)], fighters=fighters)
    s = to_main(s, 0)
    assert ((3, 0) in moves(s, 0)) == passes


def test_t1_12_zones_only_add_stops_to_the_base_move_rules():
    """T1.12: with the module on a Move still may not pass a combatant's square (the Archer at
    (3,2), which has no zone) nor enter a bystander's square (the resting Saber at (2,4))."""
    s = arena(("assassin", "archer", "saber"), [(3, 4), (3, 2), (2, 4)], fighters=2)
    s = to_main(s, 0)
    reach = moves(s, 0)
    assert (3, 2) in reach and (3, 1) not in reach and (2, 4) not in reach


def test_t1_13_teleport_in_battle_ignores_zones_and_keeps_the_zone():
    """T1.13: Assassin inside Saber's zone may Move 1 square only, but its Teleport lands
    anywhere; after it Waits, its own zone is active on its new square."""
    s = to_main(arena(("assassin", "saber"), [(3, 3), (3, 2)]), 0)
    far = xy(s, 0, 5)
    assert max(moves(s, 0).values()) == 1
    s, _ = act_all(s, UseCommandSpell(0, "teleport", str(far)))
    assert s.camps[0].pos == far and s.battle is not None
    s, _ = act_all(s, Wait(0))
    assert zone_view(s, 0)["active"] and far in zone_view(s, 0)["squares"]


def test_t1_13_an_intervener_arrives_with_an_active_zone_on_its_square():
    """T1.13, T1.3: a melee camp that joined the battle from its own square has an active zone
    there in round 1, before its first activation."""
    s = game(("archer", "caster", "berserker"), rules=R, modules=ON)
    for seat, square in enumerate((10, 10, 12)):  # (3,1), (3,1), (5,1)
        place(s, seat, square)
    s, _ = act_all(s, DeclareEncounter(0, 1, "battle"))
    s, _ = act_all(s, DeclareWait(2))
    s, _ = act_all(s, AnswerIntervention(2, True))
    assert s.prompt.kind == "round_start" and s.camps[2].pos == 12
    view = zone_view(s, 2)
    assert view["active"] and set(view["squares"]) == {5, 11, 12, 13, 19}  # (5,1) and around


def zone_facts(s: GameState) -> tuple:
    """What the module's state decides for the battle's combatants: whose zone is active now,
    whose goes when its activation ends, uses left, declared initiative and endure."""
    st, seats = s.mods["tactics"], set(s.battle.seats)
    return (st.zoc & seats, st.dropped & seats, st.uses, st.seize, st.endure)


def test_t1_4_the_zone_state_is_public_and_rebuilt_exactly_from_any_view():
    """The module's state is public: a determinization from the prompted seat's view (what a
    search bot plays on) rebuilds every zone fact, including a zone that will drop when the
    current activation ends (after a ranged Attack or a Servant's magecraft), at every battle
    step of random-bot games."""
    checked = dropping = 0
    for seed in (1, 2, 3):
        s = new_game(seed=seed, modules=ON)
        bots = [make_bot("random", seed * 31 + i) for i in range(len(s.camps))]
        arrival = random.Random(seed)
        while not s.over:
            seat = arrival.choice(sorted(s.prompt.seats))
            if s.battle is not None:
                rebuilt = state_from_view(view_for(s, seat), s.rules, random.Random(seed))
                assert zone_facts(rebuilt) == zone_facts(s), f"seed {seed}\n{to_text(s)}"
                checked += 1
                dropping += bool(s.mods["tactics"].dropped)
            play(s, bots[seat].choose(None, legal_actions(s, seat)))
    assert checked > 100 and dropping > 10


# --- T2 lines of fire and sight ------------------------------------------------------------------
@pytest.mark.parametrize(("a", "b", "expected"), [
    ((0, 0), (2, 1), [(1, 0), (1, 1)]),
    ((0, 0), (1, 1), []),
    ((0, 0), (3, 0), [(1, 0), (2, 0)]),
])
def test_t2_3_lines_cross_the_squares_whose_interior_they_pass(a, b, expected):
    """T2.3: the segment between square centres crosses (0,0)→(2,1): (1,0), (1,1);
    (0,0)→(1,1): nothing (a corner); (0,0)→(3,0): (1,0), (2,0); the same both ways."""
    width = 7
    index = lambda p: p[1] * width + p[0]  # noqa: E731
    want = sorted(index(p) for p in expected)
    assert sorted(crossed(width, index(a), index(b))) == want
    assert sorted(crossed(width, index(b), index(a))) == want


# archer (seat 0) -> saber (seat 1), caster (seat 2) elsewhere; blocking: (5,1) (4,3) (5,3) (6,4)
@pytest.mark.parametrize(("archer", "saber", "caster", "clear"), [
    ((4, 1), (6, 1), (0, 5), False),  # through the Hospital at (5,1)
    ((0, 3), (2, 3), (1, 3), False),  # through another combatant's square
    ((0, 3), (2, 3), (1, 4), True),   # that combatant beside the line
    ((0, 0), (1, 1), (1, 0), True),   # a corner is no crossing
    ((4, 1), (5, 1), (0, 5), True),   # distance 1: always clear, onto a blocking square too
], ids=["terrain", "body", "beside", "corner", "adjacent"])
@pytest.mark.parametrize("modules", [ON, ()])
def test_t2_3_t2_5_a_ranged_attack_needs_a_clear_line(modules, archer, saber, caster, clear):
    """T2.3, T2.5: a ranged Attack is legal only if its line crosses no blocking square and no
    other combatant's square; at distance 1 it always is; without the module always."""
    s = to_main(arena(("archer", "saber", "caster"), [archer, saber, caster],
                      modules=modules), 0)
    assert (Attack(0, 1, "B", "B") in legal_actions(s, 0)) == (clear or not modules)


@pytest.mark.parametrize(("archer", "saber", "clear"), [((4, 1), (6, 1), False),
                                                        ((4, 2), (6, 2), True)])
def test_t2_3_an_attack_noble_phantasm_needs_a_clear_line(archer, saber, clear):
    """T2.3: Archer's attack Noble Phantasm (range 3), declared and charged, may fire at
    distance 2 only if the Hospital at (5,1) is not in the way."""
    rules = tweak(R, "archer", np={"charge": 0})
    s = arena(("archer", "saber"), [archer, saber], rules=rules)
    s, _ = act_all(s, DeclareNoblePhantasm(0, 1))
    s = to_main(s, 0)
    assert (UseNoblePhantasm(0, 1) in legal_actions(s, 0)) == clear


def test_t2_4_behind_a_blocking_square_a_hostile_skill_lands_and_a_ranged_attack_cannot():
    """T2.4: Saber at (6,1) behind the Hospital (5,1), 2 squares from Caster at (4,1): Caster's
    ranged Attack is not legal, its Bog Song is, and it deals its 2D10 damage."""
    s = to_main(arena(("caster", "saber"), [(4, 1), (6, 1)], rules=MAGE), 0)
    legal = legal_actions(s, 0)
    assert not [a for a in legal if isinstance(a, Attack)]
    hp = s.camps[1].hp
    s, events = act_all(s, UseSkill(0, "bog_song", 1), [1, 4, 5])
    assert s.camps[1].hp == hp - 9
    assert rolls(events, "effect_damage")[0]["total"] == 9


@pytest.mark.parametrize(("master", "gap", "sees"), [
    ("seo", 3, True), ("seo", 4, False), ("han", 4, True), ("mashiba", 5, True),
])
def test_t2_1_t2_2_a_hostile_skill_needs_its_target_in_sight(master, gap, sees):
    """T2.1, T2.2: Caster (default rules) may aim Bog Song only at a combatant within
    sight_range (3) squares, anywhere if its Master has a familiar skill (Han's
    familiar_scouting, Mashiba's shikigami_watch)."""
    assert DATA.sight_range == 3
    rules = default_ruleset()
    s = arena(("caster", "saber"), [(0, 0), (gap, 0)], rules=rules, masters=(master, "seo"))
    s = to_main(s, 0)
    assert (UseSkill(0, "bog_song", 1) in legal_actions(s, 0)) == sees


# --- T3 targeting ------------------------------------------------------------------------------
def test_t3_2_t3_6_hostile_acts_aim_at_hostiles_and_beneficial_ones_at_the_own_camp():
    """T3.2, T3.6: in a free-for-all every Attack, Noble Phantasm, hostile skill and
    ConcentrateCast of a combatant aims at another combatant, and every beneficial skill at its
    own camp (-1): nothing heals, helps or moves a hostile."""
    s = arena(("caster", "saber", "archer"), [(3, 3)] * 3, rules=MAGE,
              masters=("baek", "seo", "koga"))
    checked = 0
    while s.battle is not None and s.battle.round == 1:
        seat = min(s.prompt.seats)
        for a in legal_actions(s, seat):
            if isinstance(a, Attack | UseNoblePhantasm | UseSkill | ConcentrateCast):
                hostile = not isinstance(a, UseSkill) or s.rules.skills[a.skill].target == "enemy"
                own = isinstance(a, UseNoblePhantasm) and a.target == seat
                assert (a.target in s.battle.seats and a.target != seat) if hostile and not own \
                    else a.target in (-1, seat), a
                checked += 1
        s, _ = apply(s, Ready(seat) if s.prompt.kind == "round_start" else Wait(seat))
    assert checked > 20


# --- T4 concentration ------------------------------------------------------------------------
INIT = ("assassin", "archer", "berserker")  # Agility 55, 50, 45: base order 0, 1, 2


@pytest.mark.parametrize(("seize", "succeed", "order"), [
    ({2}, {2}, (2, 0, 1)),
    ({1, 2}, {1, 2}, (1, 2, 0)),
    ({1, 2}, {2}, (2, 0, 1)),
    ({2}, set(), (0, 1, 2)),
])
def test_t4_1_a_seized_initiative_acts_before_every_camp_that_did_not(seize, succeed, order):
    """T4.1: Concentrate("initiative") rolled once all are Ready; a success acts before every
    camp that did not succeed, successes keep the base (Agility) order among themselves, and a
    failure changes nothing but uses a roll too."""
    s = arena(INIT, [(3, 3)] * 3)
    for seat in sorted(seize):
        s, _ = act_all(s, Concentrate(seat, "initiative"))
    s = ready_all(s, [d for seat in sorted(seize) for d in concentration(s, seat, seat in succeed)])
    assert s.forced == ()
    assert s.battle.order == order
    assert uses(s) == tuple(DATA.concentration_uses - (x in seize) for x in range(3))


@pytest.mark.parametrize(("seize", "order"), [(False, (0, 2, 1)), (True, (0, 1, 2))])
def test_t4_1_the_round_1_ambusher_still_acts_first(seize, order):
    """T4.1: the ambushed Archer's successful initiative puts it before the intervening
    Assassin, but not before Berserker, the round-1 ambusher."""
    s = game(("berserker", "archer", "assassin"), rules=R, modules=ON, masters=MASTERS)
    for seat, square in enumerate((10, 17, 24)):
        place(s, seat, square)
    for action in (DeclareAmbush(0, 1), DeclareWait(2), AnswerAmbush(1, False),
                   AnswerIntervention(2, True)):
        s, _ = act_all(s, action)
    if seize:
        s, _ = act_all(s, Concentrate(1, "initiative"))
    s = ready_all(s, concentration(s, 1, True) if seize else [])
    assert s.forced == () and s.battle.order == order


def caster_turn(rules=MAGE, options=None) -> GameState:
    """Caster (seat 0: Bog Song; its Master Baek: Curse) at its main prompt, Saber on its
    square (Saber, faster, Waited)."""
    s = arena(("caster", "saber"), [(3, 3), (3, 3)], rules=rules, masters=("baek", "seo"),
              options=options)
    return to_main(s, 0)


def check_value(events: list) -> int:
    (roll,) = rolls(events, "skill")
    return roll["target"]


SKILL_DICE = {"bog_song": [1, 1, 1], "curse": [1]}  # d100 success, then Bog Song's 2D10


@pytest.mark.parametrize(("skill", "level"), [("bog_song", 60 // 10),
                                              ("curse", DATA.master_caster_level)])
def test_t4_2_concentrate_cast_raises_the_check_by_5_per_caster_level(skill, level):
    """T4.2: ConcentrateCast rolls first; on a success the skill's 1d100 check value gets
    +5 × caster level (Servant: MAG // 10 = 6 for Caster; Master: master_caster_level), on a
    failure none; either way it uses a roll."""
    s = caster_turn()
    assert s.camps[0].servant.params["mag"] // 10 == 60 // 10
    base = s.rules.skills[skill].check
    _, plain = act_all(s, UseSkill(0, skill, 1), SKILL_DICE[skill])
    assert check_value(plain) == base
    for success, bonus in ((True, DATA.lower_resistance_per_level * level), (False, 0)):
        after, events = act_all(s, ConcentrateCast(0, skill, 1),
                                [*concentration(s, 0, success), *SKILL_DICE[skill]])
        assert [e.data["success"] for e in find(events, "ConcentrationRolled")] == [success]
        assert check_value(events) == base + bonus
        assert uses(after)[0] == DATA.concentration_uses - 1


def test_t4_2_t5_1_an_incapacitating_skill_gets_no_concentrate_cast(tmp_path, monkeypatch):
    """T4.2, T5.1: a skill flagged `incapacitating` in tactics/spells.toml (a fixture flag on
    Bog Song) is offered as UseSkill but never as ConcentrateCast; Curse still is."""
    shutil.copytree(RESOURCES / "tactics", tmp_path / "tactics")
    shutil.copytree(RESOURCES / "modules", tmp_path / "modules")
    (tmp_path / "tactics" / "spells.toml").write_text(
        "[spells.bog_song]\nincapacitating = true\n", encoding="utf-8")
    data = load_tactics(MAGE, root=tmp_path)
    assert data.incapacitating == {"bog_song"}
    s = caster_turn()
    monkeypatch.setattr(s.modules[0], "data", data)
    s._legal.clear()
    legal = legal_actions(s, 0)
    assert UseSkill(0, "bog_song", 1) in legal and ConcentrateCast(0, "curse", 1) in legal
    assert ConcentrateCast(0, "bog_song", 1) not in legal


def test_t5_1_the_shipped_incapacitating_spells_are_kanashibari_alone():
    """T5.1 in the shipped data: of the shipped magecraft skills only Kanashibari (a binding:
    the seed's paralysis) disables outright. Its Master is offered it as UseSkill but never as
    ConcentrateCast, while Curse, hostile magecraft that only weakens, is offered both ways."""
    assert DATA.incapacitating == {"kanashibari"}
    magecraft = {k for k, skill in R.skills.items() if skill.magecraft}
    assert DATA.incapacitating <= magecraft
    s = caster_turn(master_with(MAGE, "baek", "curse", "kanashibari"))
    legal = legal_actions(s, 0)
    assert UseSkill(0, "kanashibari", 1) in legal and ConcentrateCast(0, "curse", 1) in legal
    assert ConcentrateCast(0, "kanashibari", 1) not in legal


@pytest.mark.parametrize("grades", [1, 3])
def test_t6_1_resistance_lowers_a_hostile_magecraft_check_by_10_per_grade(grades):
    """T6.1, T4.2: `mr` on the target (a constant fixture skill) lowers Bog Song's and Curse's
    check value by mr_step (10) per grade; a successful ConcentrateCast offsets it."""
    rules = with_skills(MAGE, "saber", extra=(fixture_skill(f"mr_{grades}", mr=grades),))
    s = caster_turn(rules)
    for skill in ("bog_song", "curse"):
        base = s.rules.skills[skill].check
        _, events = act_all(s, UseSkill(0, skill, 1), SKILL_DICE[skill])
        assert check_value(events) == base - DATA.mr_step * grades
    _, events = act_all(s, ConcentrateCast(0, "bog_song", 1),
                        [*concentration(s, 0, True), *SKILL_DICE["bog_song"]])
    boost = DATA.lower_resistance_per_level * 6
    assert check_value(events) == 70 - DATA.mr_step * grades + boost


def test_t6_1_a_very_large_resistance_makes_the_check_impossible():
    """T6.1: mr 10 takes Bog Song's check value to 70 − 100 ≤ 0: even a 1 on the d100 fails."""
    rules = with_skills(MAGE, "saber", extra=(fixture_skill("mr_10", mr=10),))
    s = caster_turn(rules)
    hp = s.camps[1].hp
    s, events = act_all(s, UseSkill(0, "bog_song", 1), [1])
    assert check_value(events) <= 0 and find(events, "SkillFailed") and s.camps[1].hp == hp


def test_t4_2_an_on_magecraft_companion_heals_the_caster_not_the_target():
    """ConcentrateCast(Bog Song + Kantele Echo) hurts Saber by 2 and heals Caster by 6."""
    s = caster_turn(with_skills(MAGE, "caster", "bog_song", "kantele_echo"))
    s.edit(0).hp -= 20
    s.edit(1).hp -= 20
    hp = (s.camps[0].hp, s.camps[1].hp)
    s, _ = act_all(s, ConcentrateCast(0, "bog_song", 1, "kantele_echo"),
                   [*concentration(s, 0, True), 1, 1, 1, 1, 3, 3])
    assert (s.camps[0].hp, s.camps[1].hp) == (hp[0] + 6, hp[1] - 2)


def reaction_to_saber(options=None) -> GameState:
    """Saber (seat 0) has hit Caster (seat 1) on their square with a Buster card (natural 7):
    Caster's reaction prompt."""
    s = to_main(arena(("saber", "caster"), [(3, 3), (3, 3)], rules=MAGE, options=options), 0)
    s, _ = act_all(s, Attack(0, 1, "B", "B"), faces(7))
    assert s.prompt == ("reaction", {1})
    return s


def test_t4_3_a_successful_dodge_negates_the_attack():
    """T4.3: Concentrate("dodge") is a Reaction; on a success the attack misses: no damage, no
    card spent, one use gone."""
    s = reaction_to_saber()
    hp, hand = s.camps[1].hp, s.camps[1].hand
    s, events = act_all(s, Concentrate(1, "dodge"), concentration(s, 1, True))
    assert [e.data["hit"] for e in find(events, "AttackResolved")] == [False]
    assert not find(events, "DamageDealt") and (s.camps[1].hp, s.camps[1].hand) == (hp, hand)
    assert uses(s)[1] == DATA.concentration_uses - 1


def test_t4_3_a_noble_phantasm_cannot_be_dodged():
    """T4.3 (decision): a concentration dodge answers an Attack, never a Noble Phantasm; the
    same Caster with uses left is offered it against Saber's Buster card."""
    rules = tweak(MAGE, "saber", np={"charge": 0})
    s = arena(("saber", "caster"), [(3, 3), (3, 3)], rules=rules)
    s, _ = act_all(s, DeclareNoblePhantasm(0, 1))
    s = to_main(s, 0)
    s, _ = act_all(s, UseNoblePhantasm(0, 1), faces(7))
    assert s.prompt == ("reaction", {1})
    assert Concentrate(1, "dodge") not in legal_actions(s, 1)
    assert Concentrate(1, "dodge") in legal_actions(reaction_to_saber(), 1)


def test_t4_3_a_failed_dodge_resolves_as_a_guard_with_no_card():
    """T4.3: on a failure the attack lands as against a Guard with no card (END // 10 off the
    same damage roll), the hand is kept, and the use is gone."""
    s = reaction_to_saber()
    guarded, _ = act_all(s, React(1, "G", ""), [5, 5])
    dodged, events = act_all(s, Concentrate(1, "dodge"), [*concentration(s, 1, False), 5, 5])
    assert find(events, "DamageDealt") and dodged.camps[1].hp == guarded.camps[1].hp
    assert dodged.camps[1].hp < s.camps[1].hp and dodged.camps[1].hand == s.camps[1].hand
    assert uses(dodged)[1] == DATA.concentration_uses - 1


ENDURE = ("berserker", "saber", "caster")  # Agility 45, 40, 30; Saber (seat 1) endures


def endure_round(endure: bool, dice: list[int]) -> tuple[GameState, int, int]:
    """Round 1 on one square: Saber declared Endure (or not); Berserker hits it (Guard, 2D10 =
    10), then Caster's Bog Song deals 2D10 = 9 to it, followed by `dice` (the Endure roll).
    Returns the state and Saber's HP lost to the attack and to the song."""
    s = arena(ENDURE, [(3, 3)] * 3, rules=MAGE)
    if endure:
        s, _ = act_all(s, Concentrate(1, "endure"))
    s = to_main(s, 0)
    hp = s.camps[1].hp
    s, _ = act_all(s, Attack(0, 1, "B", "B"), faces(7))
    s, events = act_all(s, React(1, "G", ""), [5, 5])
    assert not find(events, "ConcentrationRolled")
    by_attack, hp = hp - s.camps[1].hp, s.camps[1].hp
    s = to_main(s, 2)
    s, events = act_all(s, UseSkill(2, "bog_song", 1), [1, 4, 5, *dice])
    return s, by_attack, hp - s.camps[1].hp


@pytest.mark.parametrize(("endure", "success", "lost"), [(True, True, 9 // 2),
                                                         (True, False, 9), (False, None, 9)])
def test_t4_4_endure_halves_the_first_hostile_magecraft_damage_only(endure, success, lost):
    """T4.4: after Concentrate("endure") an attack's damage is untouched and rolls nothing; the
    round's first hostile-magecraft damage (Bog Song's 9) rolls, and a success halves it,
    rounded down; without Endure nothing is rolled."""
    dice = concentration(arena(ENDURE, [(3, 3)] * 3), 1, bool(success)) if endure else []
    s, by_attack, by_song = endure_round(endure, dice)
    _, plain_attack, _ = endure_round(False, [])
    assert by_attack == plain_attack > 0
    assert by_song == lost
    assert uses(s)[1] == DATA.concentration_uses - endure


def test_t4_4_an_unused_endure_lapses_at_round_end_and_spends_nothing():
    """T4.4: Endure declared in a round with no hostile magecraft is not spent, and does not
    carry over: the next round's Bog Song deals its full damage with no roll."""
    s = arena(ENDURE, [(3, 3)] * 3, rules=MAGE)
    s, _ = act_all(s, Concentrate(1, "endure"))
    s = wait_round(ready_all(s))
    assert s.battle.round == 2 and not s.mods["tactics"].endure
    assert uses(s) == (DATA.concentration_uses,) * 3
    s = to_main(s, 2)
    hp = s.camps[1].hp
    s, events = act_all(s, UseSkill(2, "bog_song", 1), [1, 4, 5])
    assert s.camps[1].hp == hp - 9 and not find(events, "ConcentrationRolled")


def test_t4_two_uses_per_battle_none_offered_at_0_and_refilled_at_the_next_battle():
    """T4: each camp has concentration_uses (2) rolls per battle and a reserved use counts; with
    none free no Concentrate (round start, Reaction) and no ConcentrateCast is offered; the next
    battle starts with 2 again."""
    assert DATA.concentration_uses == 2
    s = arena(("saber", "caster"), [(3, 3), (3, 3)], rules=MAGE, masters=("seo", "baek"))
    s, _ = act_all(s, Concentrate(1, "initiative"))
    s, _ = act_all(s, Concentrate(1, "endure"))
    assert not only(s, 1, Concentrate) and only(s, 0, Concentrate)
    s = to_main(ready_all(s, concentration(s, 1, False)), 1)
    assert uses(s)[1] == 1 and not only(s, 1, ConcentrateCast)  # its last use is reserved
    s = wait_round(s)
    s, _ = act_all(s, Concentrate(1, "initiative"))
    s = ready_all(s, concentration(s, 1, False))
    assert uses(s)[1] == 0 and s.prompt == ("main", {0})
    s, _ = act_all(s, Attack(0, 1, "B", "B"), faces(7))
    assert s.prompt == ("reaction", {1}) and not only(s, 1, Concentrate)
    s, _ = act_all(s, React(1, "G", ""), [5, 5])
    assert s.prompt == ("main", {1}) and only(s, 1, UseSkill) and not only(s, 1, ConcentrateCast)
    s = wait_round(s)
    assert not only(s, 1, Concentrate) and only(s, 0, Concentrate)
    s, _ = act_all(s, OfferTruce(0))
    s, _ = act_all(s, OfferTruce(1))
    s = ready_all(s)
    assert s.battle is None and s.prompt.kind == "declare"
    place(s, 0, s.camps[1].pos)
    s, _ = act_all(s, DeclareEncounter(0, 1, "battle"))
    assert s.prompt.kind == "round_start" and uses(s) == (2, 2) and only(s, 1, Concentrate)


@pytest.mark.parametrize("on", [True, False])
def test_t4_option_concentration_off_offers_no_concentration_at_all(on):
    """T4: with the option `concentration = false` there is no Concentrate at round start or
    as a Reaction and no ConcentrateCast; with it on, all three are offered."""
    options = {"tactics": {"concentration": on}}
    s = reaction_to_saber(options)
    assert bool(only(s, 1, Concentrate)) == on
    s, _ = act_all(s, React(1, "G", ""), [5, 5])
    assert s.prompt == ("main", {1}) and only(s, 1, UseSkill)
    assert bool(only(s, 1, ConcentrateCast)) == on
    s = wait_round(s)
    assert s.prompt.kind == "round_start"
    assert bool(only(s, 0, Concentrate) and only(s, 1, Concentrate)) == on


# --- T6 magic immunity is NPC data only --------------------------------------------------------
def test_t6_2_the_servant_loader_rejects_magic_immunity(tmp_path):
    """T6.2: a Servant sheet with an `immunity` key does not load; the error names the file
    and the field."""
    shutil.copytree(RESOURCES, tmp_path / "r", ignore=shutil.ignore_patterns("fonts"))
    sheet = tmp_path / "r" / "servants" / "saber.toml"
    sheet.write_text('immunity = "all"\n' + sheet.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_ruleset(tmp_path / "r")
    assert (err.value.file, err.value.field) == ("servants/saber.toml", "immunity")


# --- scenario files (tests/scenarios/tactics/) -------------------------------------------------
def scenario_state(spec: dict[str, Any], modules: list[str] | None = None) -> GameState:
    """The game a scenario file sets up, with its modules (or `modules`) and options."""
    if modules is not None:
        spec = {**spec, "modules": modules}
        if not modules:
            spec.pop("options", None)
    return scenario.setup(spec)


def play_steps(s: GameState, steps: list[dict[str, Any]],
               before: Any = lambda n, s: None) -> tuple[GameState, list[list]]:
    """Each step's dice forced, then its action (or the timeout default); `before(n, s)` is
    called before step n. Returns the final state and each step's events."""
    log = []
    for n, step in enumerate(steps, start=1):
        before(n, s)
        s.forced = (*s.forced, *step.get("dice", ()))
        action = (default_action(s, step["timeout"]) if "timeout" in step
                  else from_dict(step["action"]))
        s, events = apply(s, action)
        log.append(events)
    return s, log


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.toml")), ids=lambda p: p.stem)
def test_tactics_scenario_files_play_as_their_comments_say(path):
    """Each file plays to its end with every forced die used, and its `expect` table holds:
    the actions named illegal before a step are (and are legal there without the module), each
    step's named events happen with the named fields, and the final squares and HP are right."""
    spec = tomllib.loads(path.read_text(encoding="utf-8"))
    expect = spec.get("expect", {})
    assert spec["modules"] == ["tactics"] and expect
    illegal: dict[int, list[Action]] = {}
    for item in expect.get("illegal", []):
        illegal.setdefault(item["step"], []).append(from_dict(item["action"]))

    def check(n: int, s: GameState) -> None:
        for action in illegal.get(n, ()):
            assert action not in legal_actions(s, action.seat), f"step {n}: {action} is legal"

    s, log = play_steps(scenario_state(spec), spec["step"], check)
    assert s.forced == ()
    for want in expect.get("event", []):
        fields = {k: v for k, v in want.items() if k not in ("step", "type")}
        assert any(e.type == want["type"] and fields.items() <= e.data.items()
                   for e in log[want["step"] - 1]), want
    for key in ("pos", "hp"):
        for seat, value in expect.get(key, {}).items():
            assert getattr(s.camps[int(seat)], key) == value, (key, seat)
    for n, actions in illegal.items():
        plain, _ = play_steps(scenario_state(spec, modules=[]), spec["step"][:n - 1])
        assert all(a in legal_actions(plain, a.seat) for a in actions), (n, actions)
