"""Turn-phase rules (seed 000 ●ターン行動; decisions Q4, Q6, Q12-Q13, Q17-Q25, Q43-Q47):
days and turns, Move, the declaration window, resolution, every turn action, upkeep, sleep,
victory, and the engine's contract (`apply` purity, typed errors, `from_dict`).

Expected values are computed from the data (`s.rules`, the sheets), never copied from output.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from grailwar.shared.engine import (
    GameOverError,
    IllegalActionError,
    MalformedActionError,
    NotPromptedError,
    apply,
    default_action,
    events_for,
    from_dict,
    legal_actions,
    to_text,
    view_event,
    view_for,
)
from grailwar.shared.engine.actions import (
    AnswerAmbush,
    AnswerIntervention,
    Attack,
    ChooseReward,
    DeclareAmbush,
    DeclareEncounter,
    DeclareInvestigate,
    DeclareRest,
    DeclareSkill,
    DeclareSoulEating,
    DeclareWait,
    Move,
    Negotiate,
    OfferTruce,
    React,
    Ready,
    UseCommandSpell,
    UseSkill,
    Wait,
)
from grailwar.shared.engine.data import default_ruleset
from grailwar.shared.engine.state import GameState
from helpers import act, act_all, duel, find, game, only, place, ready_all, tweak, types

PRIORITY_TYPES = (DeclareEncounter, DeclareAmbush, DeclareSoulEating)


# --- local helpers --------------------------------------------------------------------------------
MASTERS = {"saber": "baek", "lancer": "han", "archer": "hayase", "rider": "koga"}


def table(classes: tuple[str, ...] = ("saber", "lancer"), masters=None, **kw) -> GameState:
    """`game` with fixed Masters (Saber-Baek, Lancer-Han, Archer-Hayase unless told)."""
    return game(classes, masters=masters or [MASTERS[c] for c in classes], **kw)


def declare_last(s: GameState, action, dice=()) -> tuple[GameState, list]:
    """Every other seat still to declare Waits, then `action` closes the window and resolves
    with exactly `dice` (all consumed); `s` is left as it was."""
    while s.prompt.seats - {action.seat}:
        s, _ = apply(s, DeclareWait(min(s.prompt.seats - {action.seat})))
    return act_all(s, action, dice)


def city(s: GameState):
    return s.rules.maps[s.settings.map_id]


def sq(s: GameState, x: int, y: int) -> int:
    return city(s).index(x, y)


def constant_mod(s: GameState, seat: int, key: str) -> int:
    """A constant modifier summed from the sheets (Servant skills, unlocked Master skills, NP)."""
    camp = s.camps[seat]
    master = camp.master.skills if camp.unlocked else camp.master.skills[:3]
    total = sum(s.rules.skills[sid].effect.mod(key) for sid in (*camp.servant.skills, *master)
                if s.rules.skills[sid].timing == "constant")
    if camp.servant.np.kind == "constant":
        total += camp.servant.np.self_effect.mod(key)
    return total


def upkeep_cost(s: GameState, seat: int) -> int:
    """Q4: 10 + NP // 2 + era modifier + upkeep mods of constant skills."""
    n = s.rules.numbers
    servant = s.camps[seat].servant
    return (n.upkeep_base + servant.params["np"] // n.upkeep_np_divisor
            + n.era_upkeep[servant.era] + constant_mod(s, seat, "upkeep"))


def priority(s: GameState, seat: int) -> list:
    return [a for a in legal_actions(s, seat) if isinstance(a, PRIORITY_TYPES)]


def wait_turn(s: GameState) -> tuple[GameState, list]:
    """Every seat still to declare this turn declares Wait; returns the events of the turn."""
    start = (s.day, s.turn)
    events: list = []
    while s.prompt.kind == "declare" and (s.day, s.turn) == start and not s.over:
        s, ev = apply(s, DeclareWait(min(s.prompt.seats)))
        events += ev
    return s, events


def pass_turns(s: GameState, n: int) -> tuple[GameState, list]:
    events: list = []
    for _ in range(n):
        s, ev = wait_turn(s)
        events += ev
    return s, events


def with_master(rules, master_id: str, **changes):
    return replace(rules, masters={**rules.masters,
                                   master_id: replace(rules.masters[master_id], **changes)})


def end_by_truce(s: GameState) -> tuple[GameState, list]:
    """Every combatant offers a truce at the round start, then says Ready: the battle ends."""
    events: list = []
    for seat in sorted(s.prompt.seats):
        s, ev = apply(s, OfferTruce(seat))
        events += ev
    while s.prompt.kind == "round_start":
        s, ev = apply(s, Ready(min(s.prompt.seats)))
        events += ev
    return s, events


# --- days and turns -------------------------------------------------------------------------------
def test_turns_go_morning_noon_night_then_next_morning():
    """A day is morning, noon and night; after the night the next day starts in the morning."""
    s = table()
    assert (s.day, view_for(s, 0)["turn"]) == (1, "morning")
    seen, upkeep_after = [], []
    for _ in range(4):
        s, ev = wait_turn(s)
        started = find(ev, "TurnStarted")
        assert len(started) == 1
        seen.append((started[0].data["day"], started[0].data["turn"]))
        upkeep_after.append(bool(find(ev, "UpkeepPaid")))
    assert seen == [(1, "noon"), (1, "night"), (2, "morning"), (2, "noon")]
    assert upkeep_after == [False, False, True, False]  # the day ends only after the night
    assert (s.day, view_for(s, 0)["turn"]) == (2, "noon")
    assert s.rules.numbers.turns_per_day == 3


# --- Move -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", ["saber", "rider"])
def test_move_reaches_exactly_the_squares_within_movement(cls):
    """Move offers every square at Manhattan distance 1..Movement (with constant mods), no other."""
    s = table((cls, "lancer"))
    start = sq(s, 3, 2)
    place(s, 0, start)
    movement = s.camps[0].servant.movement + constant_mod(s, 0, "movement")
    grid = city(s)
    expected = {q for q in range(len(grid.squares)) if 0 < grid.distance(start, q) <= movement}
    assert {a.to for a in only(s, 0, Move)} == expected


def test_move_once_per_turn_and_again_next_turn():
    """Move is free (the seat still declares) but only once per turn; it is offered next turn."""
    s = table()
    s, ev = apply(s, Move(0, only(s, 0, Move)[0].to))
    assert types(ev) == ["Moved"]
    assert 0 in s.prompt.seats and s.prompt.kind == "declare"
    assert only(s, 0, Move) == []
    other = next(q for q in range(len(city(s).squares))
                 if 0 < city(s).distance(s.camps[0].pos, q) <= s.camps[0].servant.movement)
    with pytest.raises(IllegalActionError):
        apply(s, Move(0, other))
    s, _ = wait_turn(s)
    assert only(s, 0, Move)


@pytest.mark.parametrize("extra, legal", [(0, True), (1, False)])
def test_encounter_reach_is_movement_minus_squares_moved(extra, legal):
    """After moving k squares the Encounter reach is Movement - k (Q13), not the full Movement."""
    s = table()
    movement = s.camps[0].servant.movement
    place(s, 0, sq(s, 0, 0))
    place(s, 1, sq(s, movement + extra, 0))
    # before moving: the target at distance Movement is in reach, one further is not
    assert bool(only(s, 0, DeclareEncounter)) == (extra == 0)
    s, _ = apply(s, Move(0, sq(s, 1, 0)))  # moved 1: distance Movement - 1 + extra
    assert city(s).distance(s.camps[0].pos, s.camps[1].pos) <= movement  # in full Movement
    assert bool(only(s, 0, DeclareEncounter)) is legal
    if not legal:
        with pytest.raises(IllegalActionError):
            apply(s, DeclareEncounter(0, 1, "battle"))


# --- the declaration window -----------------------------------------------------------------------
def trio() -> GameState:
    """Saber, Lancer, Archer in a row, one square apart: everyone in every reach."""
    s = table(("saber", "lancer", "archer"))
    for seat, x in enumerate((2, 3, 4)):
        place(s, seat, sq(s, x, 2))
    return s


@pytest.mark.parametrize("first", [DeclareWait(1), DeclareRest(1),
                                   DeclareInvestigate(1, "saber"), DeclareSkill(1, "meditation")],
                         ids=["wait", "rest", "investigate", "skill"])
def test_no_priority_declaration_after_an_ordinary_one(first):
    """The first Wait/Rest/Investigate/Skill closes the priority phase for everyone (Q17)."""
    s = trio()
    assert {type(a) for a in priority(s, 0)} == set(PRIORITY_TYPES)
    s, _ = apply(s, first)
    assert priority(s, 0) == [] and priority(s, 2) == []
    for action in (DeclareSoulEating(0), DeclareEncounter(0, 1, "battle"), DeclareAmbush(2, 0)):
        with pytest.raises(IllegalActionError):
            apply(s, action)


def test_priority_declarations_chain_until_an_ordinary_one():
    """Encounter, Ambush and Soul-eating stay legal while every declaration so far is one."""
    s = trio()
    s, _ = apply(s, DeclareSoulEating(0))
    assert {type(a) for a in priority(s, 2)} == set(PRIORITY_TYPES)
    # against a soul-eater an Encounter is Prevent or Steal, never negotiate / battle (Q18)
    assert {a.intent for a in only(s, 2, DeclareEncounter) if a.target == 0} == {"prevent",
                                                                                 "steal"}
    s, _ = apply(s, DeclareRest(2))
    assert priority(s, 1) == []


def test_ambush_may_follow_an_ambush():
    """An Ambush after an Ambush is legal, even against the camp that declared the first one."""
    s = trio()
    s, _ = apply(s, DeclareAmbush(0, 1))
    assert DeclareAmbush(2, 0) in legal_actions(s, 2)
    s, _ = apply(s, DeclareAmbush(2, 0))
    assert [(d.seat, d.kind, d.target) for d in s.decls] == [(0, "ambush", 1), (2, "ambush", 0)]


@pytest.mark.parametrize("declaration", [DeclareEncounter(0, 1, "negotiate"), DeclareAmbush(0, 1)],
                         ids=["encounter", "ambush"])
def test_bound_target_is_not_prompted_and_cannot_be_targeted_again(declaration):
    """The target of an Encounter/Ambush declares nothing and no one else may target it (Q18)."""
    s = trio()
    s, _ = apply(s, declaration)
    assert s.prompt.seats == frozenset({2})
    assert legal_actions(s, 1) == []
    with pytest.raises(NotPromptedError):
        apply(s, DeclareWait(1))
    with pytest.raises(NotPromptedError):
        apply(s, Move(1, sq(s, 3, 3)))
    assert all(a.target != 1 for a in priority(s, 2) if not isinstance(a, DeclareSoulEating))
    for action in (DeclareEncounter(2, 1, "battle"), DeclareAmbush(2, 1)):
        with pytest.raises(IllegalActionError):
            apply(s, action)
    assert DeclareAmbush(2, 0) in legal_actions(s, 2)  # the declarer itself is still a target


def test_window_closes_only_when_every_camp_has_declared():
    """The prompt keeps the undeclared seats; the last declaration closes the window (Q17)."""
    s = trio()
    s, ev = apply(s, DeclareWait(2))
    assert s.prompt == ("declare", frozenset({0, 1})) and not find(ev, "DeclarationsClosed")
    s, ev = apply(s, DeclareWait(0))
    assert s.prompt == ("declare", frozenset({1})) and not find(ev, "DeclarationsClosed")
    s, ev = apply(s, DeclareWait(1))
    assert find(ev, "DeclarationsClosed")[0].data["order"] == [2, 0, 1]
    assert s.turn == 1


def test_window_closes_when_the_last_camp_is_bound():
    """A bound target counts as declared: binding the last undeclared camp closes the window."""
    s = table()
    place(s, 1, s.camps[0].pos)
    s, ev = apply(s, DeclareEncounter(0, 1, "negotiate"))
    assert find(ev, "DeclarationsClosed")[0].data["order"] == [0]
    assert s.prompt.kind == "negotiate"


def test_declarations_resolve_in_declaration_order_not_seat_order():
    """Declarations resolve in arrival order: the first declarer's Rest takes the first dice."""
    s = trio()
    for c in s.camps:
        s.edit(c.seat).hp = c.servant.hp - 100
    s, _ = apply(s, DeclareRest(2))
    s, _ = apply(s, DeclareRest(0))
    # 11 dice per Rest (3 HP, 3 MP, 5 Master); the first three (seat 2's HP roll) are all 10s
    s, ev = act_all(s, DeclareRest(1), dice=[10, 10, 10] + [1] * 30)
    assert find(ev, "DeclarationsClosed")[0].data["order"] == [2, 0, 1]
    assert [e.data["seat"] for e in find(ev, "Rested")] == [2, 0, 1]
    healed = {e.data["seat"]: e.data["hp"] for e in find(ev, "Rested")}
    bonus = {c.seat: s.rules.numbers.leyline_bonus[city(s).squares[c.pos].leyline]
             for c in s.camps}
    assert healed == {2: 30 + bonus[2], 0: 3 + bonus[0], 1: 3 + bonus[1]}


def test_command_spell_at_declaration_is_not_the_turn_action():
    """A Command Spell used at the declaration prompt leaves the seat still to declare (Q43)."""
    s = table()
    s.edit(0).hp = 1
    s, _ = apply(s, UseCommandSpell(0, "hp_recovery"))
    assert s.camps[0].spells == s.camps[0].master.command_spells - 1
    assert s.camps[0].hp > 1
    assert 0 in s.prompt.seats and s.prompt.kind == "declare" and s.decls == ()


# --- timeouts -------------------------------------------------------------------------------------
def test_default_action_in_the_window_is_wait_even_for_a_sleeping_master():
    """The server's timeout in the declaration window is Wait (seed: no declaration = Standby)."""
    s = table()
    assert default_action(s, 0) == DeclareWait(0)
    s.edit(1).asleep = True
    assert default_action(s, 1) == DeclareWait(1)
    s, _ = apply(s, default_action(s, 0))
    assert s.decls[0].kind == "wait"
    with pytest.raises(NotPromptedError):
        default_action(s, 0)


def test_default_actions_of_the_other_prompts():
    """Timeouts: negotiate -> part, ambush -> fight, intervene -> decline, round start -> ready,
    main -> Wait, critical -> recover HP, reaction -> Guard with no card."""
    s = table()
    place(s, 1, s.camps[0].pos)
    s, _ = apply(s, DeclareEncounter(0, 1, "negotiate"))
    assert default_action(s, 0) == Negotiate(0, False)
    assert default_action(s, 1) == Negotiate(1, False)

    s = table()
    place(s, 0, sq(s, 2, 2))
    place(s, 1, sq(s, 3, 2))
    s, _ = apply(s, DeclareAmbush(0, 1))
    assert s.prompt.kind == "ambush" and default_action(s, 1) == AnswerAmbush(1, False)

    s = trio()
    s, _ = apply(s, DeclareEncounter(0, 1, "battle"))
    s, _ = apply(s, DeclareWait(2))
    assert s.prompt == ("intervene", frozenset({2}))
    assert default_action(s, 2) == AnswerIntervention(2, False)

    s = duel(masters=["baek", "han"])
    assert default_action(s, 0) == Ready(0)
    s = ready_all(s)
    first = s.battle.actor
    assert s.prompt.kind == "main" and default_action(s, first) == Wait(first)
    s, _ = apply(s, Wait(first))
    attacker, target = s.battle.actor, first
    # a natural 12 on the hit check (rolled with the Attack) earns the attacker a critical
    # reward, asked for before the target's reaction
    s, _ = act(s, Attack(attacker, target, "B", "B"), dice=[6, 6])
    assert s.prompt == ("critical", frozenset({attacker}))
    assert default_action(s, attacker) == ChooseReward(attacker, "hp")
    s, _ = act_all(s, default_action(s, attacker), dice=[5])
    assert s.prompt == ("reaction", frozenset({target}))
    assert default_action(s, target) == React(target, "G", "")


# --- Rest -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("square", [(3, 0), (2, 0), (3, 1)], ids=["none", "large", "dragon"])
def test_rest_rolls_hp_mp_and_master_separately_plus_leyline(square):
    """Rest: Servant 3d10 HP and a separate 3d10 MP, Master 5d10 MP, each + the leyline bonus."""
    s = table()
    place(s, 0, sq(s, *square))
    camp = s.camps[0]
    c = s.edit(0)
    c.hp, c.mp, c.master_mp = camp.servant.hp - 150, camp.servant.mp - 150, camp.master.mp - 200
    n = s.rules.numbers
    bonus = n.leyline_bonus[city(s).squares[camp.pos].leyline]
    assert (n.rest_servant.count, n.rest_master.count) == (3, 5)
    hp_faces, mp_faces, master_faces = [1, 2, 3], [4, 5, 6], [7, 8, 9, 10, 1]
    s, ev = declare_last(s, DeclareRest(0), hp_faces + mp_faces + master_faces)
    after = s.camps[0]
    assert after.hp == camp.servant.hp - 150 + sum(hp_faces) + bonus
    assert after.mp == camp.servant.mp - 150 + sum(mp_faces) + bonus
    assert after.master_mp == camp.master.mp - 200 + sum(master_faces) + bonus
    rested = find(ev, "Rested")[0]
    assert rested.data["hp"] == sum(hp_faces) + bonus


def test_rest_is_capped_at_the_maximums():
    """Rest never raises Servant HP/MP or Master MP above the sheet maximum (Q1)."""
    s = table()
    place(s, 0, sq(s, 3, 1))  # the Dragon Vein
    c = s.edit(0)
    c.hp, c.mp, c.master_mp = c.servant.hp - 5, c.servant.mp - 5, c.master.mp - 5
    s, _ = declare_last(s, DeclareRest(0), [10] * 11)
    after = s.camps[0]
    assert (after.hp, after.mp, after.master_mp) == (after.servant.hp, after.servant.mp,
                                                     after.master.mp)


# --- Investigate ----------------------------------------------------------------------------------
def investigation_bonus(s: GameState, seat: int) -> int:
    return s.camps[seat].master.investigation + constant_mod(s, seat, "investigation")


def investigate(s: GameState, seat: int, cls: str, faces: list[int]) -> tuple[GameState, list]:
    """`seat` investigates `cls` with exactly these 2d6 faces; every other seat waits."""
    return declare_last(s, DeclareInvestigate(seat, cls), faces)


def known(s: GameState, seat: int, cls: str) -> int:
    return view_for(s, seat)["camps"][seat]["known"][cls]


@pytest.mark.parametrize("masters", [("baek", "han"), ("han", "baek")], ids=["plain", "mods"])
def test_investigation_succeeds_at_six_with_master_modifier_and_mods(masters):
    """Investigate: 2d6 + Master modifier + investigation mods >= 6 succeeds (Q6, Q47)."""
    s = table(masters=masters)
    need = s.rules.numbers.investigation_target - investigation_bonus(s, 0)
    assert 3 <= need <= 12
    fail, ev = investigate(s, 0, "lancer", [1, need - 2])
    assert known(fail, 0, "lancer") == 0
    assert find(ev, "Investigated")[0].data == {"seat": 0, "cls": "lancer", "tier": 0,
                                                "success": False}
    ok, ev = investigate(s, 0, "lancer", [1, need - 1])
    assert known(ok, 0, "lancer") == 1
    assert find(ev, "Investigated")[0].data == {"seat": 0, "cls": "lancer", "tier": 1,
                                                "success": True}


def test_investigation_tiers_reveal_cards_then_np_then_profile_then_stop():
    """Successes count: tier 1 cards+skills, 2 NP+true name, 3 profile+weakness; then no more."""
    s = table()
    revealed = [("cards", "skills"), ("servant", "noble_phantasm"), ("profile", "weakness")]
    for tier, keys in enumerate(revealed, start=1):
        assert not set(keys) & set(view_for(s, 0)["camps"][1])
        s, _ = investigate(s, 0, "lancer", [6, 5])
        assert known(s, 0, "lancer") == tier
        assert set(keys) <= set(view_for(s, 0)["camps"][1])
        assert not set(keys) & set(view_for(s, None)["camps"][1])
    lancer = s.camps[1].servant
    seen = view_for(s, 0)["camps"][1]
    assert (seen["cards"], seen["noble_phantasm"]) == (lancer.cards, lancer.np.id)
    assert DeclareInvestigate(0, "lancer") not in legal_actions(s, 0)


def test_investigation_has_no_critical_on_twelve():
    """A natural 12 on Investigate is a plain success: one tier, no critical reward (Q30)."""
    s = table()
    s, ev = investigate(s, 0, "lancer", [6, 6])
    assert known(s, 0, "lancer") == 1
    roll = next(e for e in find(ev, "DiceRolled") if e.data["purpose"] == "investigate")
    assert roll.data["result"] == "success"
    assert s.prompt.kind == "declare" and s.rewards == ()


def test_investigation_has_no_fumble_on_two():
    """A natural 2 on Investigate is not a fumble: with +4 it reaches 6 and succeeds (Q30)."""
    rules = with_master(default_ruleset(), "baek", investigation=4)
    s = table(rules=rules)
    assert investigation_bonus(s, 0) + 2 >= s.rules.numbers.investigation_target
    s, ev = investigate(s, 0, "lancer", [1, 1])
    assert known(s, 0, "lancer") == 1
    assert not find(ev, "FumblePenalty")


def test_investigation_is_private_to_the_investigator():
    """The target class, the roll and the result reach the investigating camp only (Q47)."""
    s = table(("saber", "lancer", "archer"))
    s, ev = investigate(s, 0, "lancer", [6, 5])
    mine = events_for(ev, 0)
    assert any(e["type"] == "Investigated" and e["tier"] == 1 for e in mine)
    for viewer in (1, 2, None):
        seen = events_for(ev, viewer)
        assert not any(e["type"] == "Investigated" for e in seen)
        assert not any(e["type"] == "DiceRolled" and e["purpose"] == "investigate"
                       for e in seen)
        declared = next(e for e in seen if e["type"] == "Declared" and e["seat"] == 0)
        assert declared == {"type": "Declared", "seat": 0, "kind": "investigate"}
        if viewer is not None:
            assert "known" not in view_for(s, viewer)["camps"][0]
            assert "cards" not in view_for(s, viewer)["camps"][1] or viewer == 1
    investigated = next(e for e in ev if e.type == "Investigated")
    assert view_event(investigated, 1) is None and view_event(investigated, 0) is not None


def test_only_living_other_camps_can_be_investigated():
    """Investigate names a class of another living camp: not one's own, not a dead one."""
    s = table(("saber", "lancer", "archer"))
    assert {a.target_class for a in only(s, 0, DeclareInvestigate)} == {"lancer", "archer"}
    s, _ = apply(s, UseCommandSpell(2, "suicide"))
    assert not s.camps[2].alive
    assert {a.target_class for a in only(s, 0, DeclareInvestigate)} == {"lancer"}


# --- turn-action skills ---------------------------------------------------------------------------
def test_turn_action_skill_pays_mp_and_applies():
    """A turn-action skill is the turn's action: its MP is paid and its effect applies (Q7)."""
    s = table(masters=("koga", "baek"))
    skill = s.rules.skills["herbal_tonic"]
    assert skill.timing == "turn_action" and skill.owner == "master" and skill.mp > 0
    s.edit(0).hp = s.camps[0].servant.hp - 100
    before = s.camps[0]
    s, _ = apply(s, DeclareSkill(0, "herbal_tonic"))
    assert 0 not in s.prompt.seats  # it was the turn's one action
    faces = [4 + i % 6 for i in range(skill.effect.heal_hp.count)]
    s, ev = act_all(s, DeclareWait(1), faces)
    assert find(ev, "SkillUsed")[0].data["skill"] == "herbal_tonic"
    heal = sum(faces) + skill.effect.heal_hp.bonus
    assert s.camps[0].master_mp == before.master_mp - skill.mp
    assert s.camps[0].hp == before.hp + heal
    assert s.camps[0].mp == before.mp


# --- Encounter and negotiation --------------------------------------------------------------------
def negotiation() -> GameState:
    s = table()
    place(s, 0, sq(s, 0, 0))
    place(s, 1, sq(s, 1, 0))
    s, _ = apply(s, DeclareEncounter(0, 1, "negotiate"))
    return s


def test_negotiation_prompts_both_and_two_partings_end_it_without_battle():
    """Negotiate: both camps are asked; if both part, no battle and the turn goes on."""
    s = negotiation()
    assert s.prompt == ("negotiate", frozenset({0, 1}))
    home = s.camps[0].pos
    s, ev = apply(s, Negotiate(1, False))
    assert s.prompt == ("negotiate", frozenset({0}))
    s, ev = apply(s, Negotiate(0, False))
    assert "NegotiationEnded" in types(ev)
    assert not find(ev, "BattleOpened") and s.battle is None
    assert s.camps[0].pos == home
    assert s.turn == 1 and s.prompt.kind == "declare"


@pytest.mark.parametrize("answers", [[(0, True)], [(1, True)], [(0, False), (1, True)],
                                     [(1, False), (0, True)]],
                         ids=["opener", "target", "part-then-target", "part-then-opener"])
def test_negotiation_either_side_fighting_starts_the_battle(answers):
    """Negotiate: as soon as either camp chooses fight, the battle opens."""
    s = negotiation()
    for seat, fight in answers:
        s, ev = apply(s, Negotiate(seat, fight))
    assert find(ev, "BattleOpened")[0].data["seats"] == [0, 1]
    assert s.battle is not None and s.prompt.kind == "round_start"


def test_encounter_battle_moves_encounterer_to_target_and_back_home():
    """Encounter: the encounterer fights in the target's square and returns home after (Q12)."""
    s = table()
    home, there = sq(s, 0, 0), sq(s, 2, 0)
    place(s, 0, home)
    place(s, 1, there)
    s, ev = apply(s, DeclareEncounter(0, 1, "battle"))
    assert find(ev, "BattleOpened")[0].data["square"] == there
    assert s.camps[0].pos == there and s.camps[1].pos == there
    s, ev = end_by_truce(s)
    assert find(ev, "BattleEnded")
    assert s.camps[0].pos == home and s.camps[1].pos == there


def test_encounterer_that_retreats_does_not_return_home():
    """An encounterer that leaves by Command Spell Retreat stays where it retreated to (Q12)."""
    s = table()
    home, there, away = sq(s, 0, 0), sq(s, 2, 0), sq(s, 6, 5)
    place(s, 0, home)
    place(s, 1, there)
    s, _ = apply(s, DeclareEncounter(0, 1, "battle"))
    s, ev = apply(s, UseCommandSpell(0, "retreat", str(away)))
    assert find(ev, "BattleEnded") and s.battle is None
    assert s.camps[0].pos == away


def test_encounterer_that_teleports_still_returns_home():
    """Teleport in battle only moves the camp, which stays in the battle: when it ends, the
    encounterer still goes back home (Q12)."""
    s = table()
    home, there, away = sq(s, 0, 0), sq(s, 2, 0), sq(s, 6, 5)
    place(s, 0, home)
    place(s, 1, there)
    s, _ = apply(s, DeclareEncounter(0, 1, "battle"))
    s, ev = apply(s, UseCommandSpell(0, "teleport", str(away)))
    assert not find(ev, "LeftBattle") and s.battle is not None
    assert s.camps[0].pos == away
    s, ev = end_by_truce(s)
    assert find(ev, "BattleEnded") and s.battle is None
    assert s.camps[0].pos == home and s.camps[1].pos == there


# --- Ambush ---------------------------------------------------------------------------------------
def ambush() -> tuple[GameState, list]:
    s = table()  # saber (slower) ambushes lancer
    place(s, 0, sq(s, 2, 2))
    place(s, 1, sq(s, 4, 2))
    s, _ = apply(s, DeclareAmbush(0, 1))
    return s, [s.camps[0].pos, s.camps[1].pos]


def test_ambush_reach_is_one_to_three_squares():
    """Ambush targets a camp 1..ambush_max_range squares away, never one in the same square."""
    s = table()
    grid = city(s)
    reach = s.rules.numbers.ambush_max_range
    place(s, 0, sq(s, 0, 0))
    for x in range(grid.width):
        place(s, 1, sq(s, x, 0))
        assert (DeclareAmbush(0, 1) in legal_actions(s, 0)) == (1 <= x <= reach)


def test_ambush_target_chooses_fight_and_ambusher_acts_first():
    """Ambush: only the target is asked flee/fight; both stay put; the ambusher leads round 1."""
    s, squares = ambush()
    assert s.prompt == ("ambush", frozenset({1}))
    assert set(legal_actions(s, 1)) >= {AnswerAmbush(1, True), AnswerAmbush(1, False)}
    assert legal_actions(s, 0) == []
    s, _ = apply(s, AnswerAmbush(1, False))
    assert [s.camps[0].pos, s.camps[1].pos] == squares
    assert s.camps[1].servant.params["agi"] > s.camps[0].servant.params["agi"]
    s = ready_all(s)
    assert s.battle.order[0] == 0 and s.prompt == ("main", frozenset({0}))


def test_ambush_target_that_flees_leaves_at_its_first_activation():
    """Ambush + flee: the battle starts and the target leaves at its own round-1 activation."""
    s, squares = ambush()
    s, _ = apply(s, AnswerAmbush(1, True))
    s = ready_all(s)
    s, ev = apply(s, Wait(0))
    assert find(ev, "LeftBattle")[0].data == {"seat": 1, "how": "fled"}
    assert find(ev, "BattleEnded") and s.battle is None
    assert [s.camps[0].pos, s.camps[1].pos] == squares


# --- Soul-eating ----------------------------------------------------------------------------------
@pytest.mark.parametrize("face", [1, 37, 200])
def test_soul_eating_gives_1d200_mp_capped_at_max(face):
    """Soul-eating: the Servant gains 1d200 MP, never above its max MP (Q1)."""
    s = table()
    dice = s.rules.numbers.soul_eating
    assert (dice.count, dice.sides) == (1, 200)
    start = s.camps[0].servant.mp - 60
    s.edit(0).mp = start
    s, _ = apply(s, DeclareSoulEating(0))
    s, ev = act_all(s, DeclareWait(1), [face])
    expected = min(s.camps[0].servant.mp, start + face)
    assert s.camps[0].mp == expected
    assert find(ev, "SoulsEaten")[0].data["mp"] == expected - start


def test_soul_eating_once_per_square():
    """An eaten square can never be eaten again, by anyone; another square still can (Q22)."""
    s = table()
    eaten = s.camps[0].pos
    s, _ = apply(s, DeclareSoulEating(0))
    s, _ = act_all(s, DeclareWait(1), [50])
    assert eaten in s.eaten and view_for(s, 1)["eaten"] == [eaten]
    assert DeclareSoulEating(0) not in legal_actions(s, 0)
    with pytest.raises(IllegalActionError):
        apply(s, DeclareSoulEating(0))
    # the other camp walking in may not eat there either
    place(s, 1, sq(s, 1, 1))
    assert city(s).distance(s.camps[1].pos, eaten) <= s.camps[1].servant.movement
    s1, _ = apply(s, Move(1, eaten))
    assert DeclareSoulEating(1) not in legal_actions(s1, 1)
    # moving off the eaten square makes it legal again
    s0, _ = apply(s, Move(0, next(a.to for a in only(s, 0, Move) if a.to not in s.eaten)))
    assert DeclareSoulEating(0) in legal_actions(s0, 0)


def contest(intent: str) -> GameState:
    """Saber eats at (1,1); Archer, two squares away, declares a Prevent/Steal encounter."""
    s = table(("saber", "archer"))
    place(s, 0, sq(s, 1, 1))
    place(s, 1, sq(s, 3, 1))
    s.edit(0).mp = s.camps[0].servant.mp - 150
    s.edit(1).mp = s.camps[1].servant.mp - 150
    s, _ = apply(s, DeclareSoulEating(0))
    s, ev = apply(s, DeclareEncounter(1, 0, intent))
    opened = find(ev, "BattleOpened")[0].data
    assert (opened["purpose"], opened["seats"]) == (intent, [1, 0])
    assert not find(ev, "SoulsEaten")  # the encounter resolves before the eating
    return s


@pytest.mark.parametrize("intent", ["prevent", "steal"])
def test_soul_eater_alive_after_an_undecided_contest_eats(intent):
    """No win for the encounterer (a truce): the soul-eater eats as declared (Q22)."""
    s = contest(intent)
    eater_square = s.camps[0].pos
    mp = [c.mp for c in s.camps]
    s.forced = (80,)
    s, ev = end_by_truce(s)
    assert types(ev).index("BattleEnded") < types(ev).index("SoulsEaten")
    assert s.camps[0].mp == mp[0] + 80 and s.camps[1].mp == mp[1]
    assert eater_square in s.eaten


def test_prevent_steal_resolves_in_the_eaters_slot_before_later_declarations():
    """A Prevent declared last is fought at the eater's slot, before both eatings (Q22)."""
    s = table(("saber", "archer", "lancer"))
    for seat, x in enumerate((1, 3, 5)):
        place(s, seat, sq(s, x, 1))
        s.edit(seat).mp = s.camps[seat].servant.mp - 150
    s, _ = apply(s, DeclareSoulEating(0))
    s, _ = apply(s, DeclareSoulEating(2))
    s, ev = apply(s, DeclareEncounter(1, 0, "prevent"))
    assert find(ev, "DeclarationsClosed")[0].data["order"] == [0, 2, 1]
    assert find(ev, "BattleOpened")[0].data["seats"] == [1, 0]
    assert not find(ev, "SoulsEaten")
    mp = [c.mp for c in s.camps]
    s.forced = (80, 90)
    s, ev = end_by_truce(s)
    assert [(e.data["seat"], e.data["mp"]) for e in find(ev, "SoulsEaten")] == [(0, 80), (2, 90)]
    assert (s.camps[0].mp, s.camps[2].mp) == (mp[0] + 80, mp[2] + 90)


def test_prevent_win_denies_the_eating_and_leaves_the_square():
    """Prevent won (the eater retreated): nobody eats and the square is not used up (Q22)."""
    s = contest("prevent")
    eater_square = s.camps[0].pos
    mp = [c.mp for c in s.camps]
    s, ev = apply(s, UseCommandSpell(0, "retreat", str(sq(s, 6, 5))))
    assert find(ev, "SoulEatingFailed")[0].data["prevented"] is True
    assert not find(ev, "SoulsEaten")
    assert [c.mp for c in s.camps] == mp
    assert eater_square not in s.eaten


def test_steal_win_gives_the_stealer_1d200():
    """Steal won (the eater retreated): the stealer gains 1d200 MP, the eater nothing (Q22)."""
    s = contest("steal")
    mp = [c.mp for c in s.camps]
    s, ev = act_all(s, UseCommandSpell(0, "retreat", str(sq(s, 6, 5))), [80])
    assert find(ev, "SoulsEaten")[0].data["stolen_from"] == 0
    assert s.camps[1].mp == mp[1] + 80 and s.camps[0].mp == mp[0]


def test_steal_win_uses_up_the_soul_eaters_square():
    """Steal won: the square used up is the one the humans were eaten in, the eater's (Q22)."""
    s = contest("steal")
    eater_square, stealer_home = sq(s, 1, 1), sq(s, 3, 1)
    s, _ = act(s, UseCommandSpell(0, "retreat", str(sq(s, 6, 5))), dice=[80])
    assert s.camps[1].pos == stealer_home  # the stealer went back home after the battle
    assert s.eaten == frozenset({eater_square})


def test_steal_win_is_not_blocked_by_the_stealers_own_eaten_square():
    """Steal won: the stealer eats the eater's square even if its own home was eaten before."""
    s = table(("saber", "archer"))
    stealer_home = sq(s, 3, 1)
    place(s, 1, stealer_home)
    s, _ = apply(s, DeclareSoulEating(1))  # the stealer's home square is used up first
    s, _ = act_all(s, DeclareWait(0), [5])
    assert stealer_home in s.eaten
    place(s, 0, sq(s, 1, 1))
    s.edit(1).mp = s.camps[1].servant.mp - 150
    s, _ = apply(s, DeclareSoulEating(0))
    s, _ = apply(s, DeclareEncounter(1, 0, "steal"))
    before = s.camps[1].mp
    s, ev = act(s, UseCommandSpell(0, "retreat", str(sq(s, 6, 5))), dice=[80])
    assert s.camps[1].mp == before + 80, types(ev)


# --- fighting uses the turn action ----------------------------------------------------------------
def test_camp_that_fought_earlier_loses_its_own_later_action():
    """A Waiting camp that joined an earlier battle loses its own action (no Master time)."""
    s = trio()
    s, _ = apply(s, DeclareEncounter(0, 1, "battle"))
    s, _ = apply(s, DeclareWait(2))
    s, _ = apply(s, AnswerIntervention(2, True))
    assert s.battle.seats == (0, 1, 2)
    s, ev = end_by_truce(s)
    cancelled = find(ev, "ActionCancelled")
    assert [(e.data["seat"], e.data["kind"]) for e in cancelled] == [(2, "wait")]
    assert not find(ev, "TimeWithMaster") and s.camps[2].waits == 0


# --- time with the Master -------------------------------------------------------------------------
def test_third_wait_unlocks_the_fourth_master_skill():
    """Each Wait outside battle is time with the Master; the 3rd unlocks the 4th skill (Q24)."""
    s = table(masters=("seo", "baek"))
    master = s.camps[0].master
    unlock = s.rules.numbers.master_wait_unlock
    fourth = master.skills[3]
    assert s.rules.skills[fourth].timing == "turn_action"
    for count in range(1, unlock + 1):
        assert view_for(s, 0)["camps"][0]["master_skills"] == list(master.skills[:3])
        s, ev = wait_turn(s)
        assert view_for(s, 0)["camps"][0]["waits"] == count
        timed = find(ev, "TimeWithMaster")
        assert {e.data["seat"] for e in timed} == {0, 1}
    assert view_for(s, 0)["camps"][0]["master_skills"] == list(master.skills)
    assert view_for(s, 0)["camps"][0]["unlocked"] is True
    unlocked = [e for e in events_for(ev, 0) if e["type"] == "MasterSkillUnlocked"]
    assert [(e["seat"], e["skill"]) for e in unlocked] == [(0, fourth)]
    assert not any(e["type"] == "MasterSkillUnlocked" and e["seat"] == 0
                   for e in events_for(ev, 1))
    # day 2 the Master sleeps (no Rest on day 1); day 3 the new skill is a legal declaration
    s, _ = pass_turns(s, 3)
    assert not s.camps[0].asleep
    assert DeclareSkill(0, fourth) in legal_actions(s, 0)


def test_wait_while_the_master_sleeps_is_no_time_with_the_master():
    """Q24/Q45: a sleeping Master spends no time with its Servant; its Waits do not count."""
    s = table()
    s, _ = pass_turns(s, 2)  # two Waits, no Rest on day 1
    s, _ = investigate(s, 0, "lancer", [1, 1])  # not a Wait, not a Rest
    assert s.camps[0].asleep and s.camps[0].waits == 2
    s, _ = wait_turn(s)
    assert s.camps[0].waits == 2 and not s.camps[0].unlocked


# --- upkeep --------------------------------------------------------------------------------------
def end_of_day(s: GameState) -> tuple[GameState, list]:
    return pass_turns(s, 3)


@pytest.mark.parametrize("era", ["age_of_gods", "ancient", "medieval", "modern"])
def test_upkeep_formula_paid_by_the_servant(era):
    """Upkeep = base + NP // divisor + era modifier + constant upkeep mods, from Servant MP."""
    rules = tweak(default_ruleset(), "saber", era=era)
    s = table(rules=rules)
    mp = [c.mp for c in s.camps]
    master_mp = [c.master_mp for c in s.camps]
    s, ev = end_of_day(s)
    for seat in (0, 1):
        cost = upkeep_cost(s, seat)
        assert s.camps[seat].mp == mp[seat] - cost
        assert s.camps[seat].master_mp == master_mp[seat]
        paid = next(e for e in find(ev, "UpkeepPaid") if e.data["seat"] == seat)
        assert paid.data["cost"] == cost
    assert constant_mod(s, 1, "upkeep") != 0  # Lancer's Master: the 4th skill lowers upkeep


def test_upkeep_short_servant_is_topped_up_by_the_master():
    """The Servant pays what it can, the Master the rest; an emptied Servant gets the transfer."""
    s = table()
    s.edit(0).mp = 5
    master_mp = s.camps[0].master_mp
    s, _ = end_of_day(s)
    cost = upkeep_cost(s, 0)
    transfer = s.rules.numbers.master_transfer
    assert s.camps[0].alive
    assert s.camps[0].mp == transfer
    assert s.camps[0].master_mp == master_mp - (cost - 5) - transfer


def test_upkeep_unpaid_without_command_spell_vanishes_the_servant():
    """Without a Command Spell the Master's MP is closed: a short Servant vanishes (Q4)."""
    s = table(("saber", "lancer", "archer"))
    s.edit(0).spells = 0
    s.edit(0).mp = 1
    s, ev = end_of_day(s)
    assert not s.camps[0].alive and s.camps[0].master_mp == s.camps[0].master.mp
    assert find(ev, "UpkeepUnpaid")[0].data["seat"] == 0
    assert find(ev, "ServantDied")[0].data == {"seat": 0, "cls": "saber", "how": "vanished"}
    assert not s.over and s.prompt.seats == frozenset({1, 2})


def test_upkeep_vanishing_decides_the_game():
    """A Servant that vanishes at upkeep leaves the other camp the last one: it wins (Q25)."""
    s = table()
    s.edit(0).spells = 0
    s.edit(0).mp = 1
    s, ev = end_of_day(s)
    assert s.over and s.winner == 1
    assert find(ev, "GameEnded")[0].data["winner"] == 1


def test_servant_emptied_by_upkeep_gets_what_mp_its_master_has_left():
    """Q44: a Servant left at 0 MP is topped up with what its Master has, up to the transfer."""
    s = table(("saber", "lancer", "archer"))
    assert not any(s.rules.skills[x].effect.mod("upkeep") for x in s.camps[0].master.skills)
    c = s.edit(0)
    c.mp = upkeep_cost(s, 0)  # the Servant pays it all and is left at 0 MP
    c.master_mp = s.rules.numbers.master_transfer - 1  # Command Spells left, but not 10 MP
    assert c.spells > 0
    s, ev = end_of_day(s)
    assert s.camps[0].alive
    assert s.camps[0].mp == s.rules.numbers.master_transfer - 1 and s.camps[0].master_mp == 0
    supplied = [e.data for e in find(ev, "MasterSuppliedMana") if e.data["seat"] == 0]
    assert supplied == [{"seat": 0, "amount": s.rules.numbers.master_transfer - 1}]


def test_servant_emptied_by_upkeep_vanishes_when_master_has_no_mp():
    """Q44: with nothing left in its Master, a Servant at 0 MP vanishes."""
    s = table(("saber", "lancer", "archer"))
    c = s.edit(0)
    c.mp = upkeep_cost(s, 0)
    c.master_mp = 0
    s, _ = end_of_day(s)
    assert not s.camps[0].alive


def test_all_servants_vanishing_at_the_same_upkeep_means_no_winner():
    """Upkeep is paid by all before the victory check: all vanish at once -> nobody wins (Q25)."""
    s = table()
    for seat in (0, 1):
        s.edit(seat).spells = 0
        s.edit(seat).mp = 1
    s, ev = end_of_day(s)
    assert s.over
    assert [c.alive for c in s.camps] == [False, False]
    assert find(ev, "GameEnded")[0].data["winner"] == -1 and s.winner == -1


# --- Master sleep ---------------------------------------------------------------------------------
def test_master_that_did_not_rest_sleeps_the_next_day_then_wakes():
    """No Rest on day D: day D+1 only Wait/Rest, no Move, no Command Spell; awake on day D+2."""
    s = table()
    s, _ = wait_turn(s)
    s, _ = declare_last(s, DeclareRest(0), [1] * 11)
    s, ev = wait_turn(s)
    assert s.day == 2
    assert [e.data["seat"] for e in find(ev, "MasterAsleep")] == [1]
    assert set(legal_actions(s, 1)) == {DeclareWait(1), DeclareRest(1)}
    assert view_for(s, 0)["camps"][1]["asleep"] is True
    assert only(s, 0, Move) and only(s, 0, UseCommandSpell)  # the rested Master is awake
    with pytest.raises(IllegalActionError):
        apply(s, UseCommandSpell(1, "hp_recovery"))
    s, _ = pass_turns(s, 3)  # nobody rests on day 2
    assert s.day == 3
    assert not s.camps[1].asleep and only(s, 1, Move) and only(s, 1, UseCommandSpell)
    assert s.camps[0].asleep


def battle_with_a_sleeping_master() -> GameState:
    """Day 2: Saber's Master rested on day 1, Lancer's did not; Saber encounters Lancer."""
    s = table()
    s, _ = wait_turn(s)
    s, _ = declare_last(s, DeclareRest(0), [1] * 11)
    s, _ = wait_turn(s)
    assert s.camps[1].asleep and not s.camps[0].asleep
    place(s, 1, s.camps[0].pos)
    s, _ = apply(s, DeclareEncounter(0, 1, "battle"))
    assert s.prompt.kind == "round_start" and 1 in s.prompt.seats
    return s


def test_sleeping_master_gives_no_command_spell_in_battle():
    """While its Master sleeps a camp gets no Command Spell, even at a battle prompt (Q43/Q45)."""
    s = battle_with_a_sleeping_master()
    assert only(s, 0, UseCommandSpell)  # the awake Master may
    assert only(s, 1, UseCommandSpell) == []
    with pytest.raises(IllegalActionError):
        apply(s, UseCommandSpell(1, "hp_recovery"))


def test_sleeping_master_gives_no_master_skill_in_battle():
    """Rules §2.5: while its Master sleeps a camp may not use the Master's skills, in battle too."""
    s = battle_with_a_sleeping_master()
    assert any(a.skill in s.camps[0].master.skills for a in only(s, 0, UseSkill))  # awake
    master_skills = set(s.camps[1].master.skills)
    offered = [a for a in legal_actions(s, 1) if isinstance(a, UseSkill)]
    assert [a for a in offered if a.skill in master_skills] == []


# --- victory -------------------------------------------------------------------------------------
def test_last_living_servant_wins():
    """When one camp's Servant remains, the game ends with that camp the winner (Q25)."""
    s = table()
    s, ev = apply(s, UseCommandSpell(0, "suicide"))
    assert find(ev, "GameEnded")[0].data == {"winner": 1, "reason": "last_servant"}
    assert s.over and s.winner == 1 and view_for(s, 0)["winner"] == 1
    assert legal_actions(s, 1) == []
    with pytest.raises(GameOverError):
        apply(s, DeclareWait(1))


def test_a_death_with_two_camps_left_does_not_end_the_game():
    """A dead Servant's camp is out: it is no longer prompted, and the others play on."""
    s = table(("saber", "lancer", "archer"))
    s, ev = apply(s, UseCommandSpell(2, "suicide"))
    assert not find(ev, "GameEnded") and not s.over
    assert s.prompt.seats == frozenset({0, 1})
    s, _ = wait_turn(s)
    assert s.prompt.seats == frozenset({0, 1})


def test_day_limit_ends_the_game_without_winner():
    """At the end of the last day with 2+ Servants alive nobody wins (Q25)."""
    s = table(day_limit=2)
    s, _ = end_of_day(s)
    assert not s.over and s.day == 2
    s, ev = end_of_day(s)
    assert s.over and s.winner == -1
    assert find(ev, "GameEnded")[0].data == {"winner": -1, "reason": "day_limit"}
    assert all(legal_actions(s, seat) == [] for seat in (0, 1))


# --- the engine's contract ------------------------------------------------------------------------
def test_apply_never_changes_the_state_it_is_given():
    """apply returns a new state; the old one (to_text) is the same after every action."""
    s = table()
    place(s, 1, sq(s, 2, 1))
    script = [Move(0, sq(s, 1, 1)), DeclareEncounter(0, 1, "battle"), Ready(0), Ready(1)]
    for action in script:
        before = to_text(s)
        s_next, _ = apply(s, action)
        assert to_text(s) == before
        s = s_next
    actor = s.battle.actor
    other = 1 - actor
    for action, dice in ((Attack(actor, other, "Q", "Q"), (3, 3)), (React(other, "G", ""), (5, 5))):
        before = to_text(s)
        s.forced = dice  # the hit check with the Attack, the damage with the React
        s_next, _ = apply(s, action)
        assert to_text(s) == before
        s = s_next
    before = to_text(s)
    with pytest.raises(IllegalActionError):
        apply(s, Move(s.battle.actor, -1))
    assert to_text(s) == before


def test_wrong_seat_raises_not_prompted_with_a_message():
    """An action from a seat the game does not wait for raises NotPromptedError naming it."""
    s = negotiation()
    s, _ = apply(s, Negotiate(1, False))
    before = to_text(s)
    with pytest.raises(NotPromptedError, match=r"seat 1 is not asked.*negotiate.*seat\(s\) 0"):
        apply(s, Negotiate(1, True))
    assert to_text(s) == before


def test_illegal_action_raises_with_a_message_naming_it():
    """An illegal action raises IllegalActionError naming the action and what is legal."""
    s = table()
    far = next(q for q in range(len(city(s).squares))
               if city(s).distance(s.camps[0].pos, q) > s.camps[0].servant.movement)
    with pytest.raises(IllegalActionError, match=rf"Move\(seat=0, to={far}\).*legal Move"):
        apply(s, Move(0, far))
    with pytest.raises(IllegalActionError, match=r"no Attack is legal in the declare prompt"):
        apply(s, Attack(0, 1, "B", "B"))


def test_from_dict_round_trips_turn_actions():
    """Every declaration-window action survives to_dict / from_dict unchanged."""
    s = trio()
    for seat in (0, 1, 2):
        for action in legal_actions(s, seat):
            assert from_dict(action.to_dict()) == action


@pytest.mark.parametrize("data, message", [
    ({"type": "Fly", "seat": 0}, "unknown action type 'Fly'"),
    ({"seat": 0}, "unknown action type None"),
    ({"type": "Move", "seat": 0}, "Move: missing field 'to'"),
    ({"type": "DeclareEncounter", "seat": 0, "target": 1}, "missing field 'intent'"),
    ({"type": "Move", "seat": "0", "to": 3}, "Move.seat: expected int, got str"),
    ({"type": "Move", "seat": True, "to": 3}, "Move.seat: expected int, got bool"),
    ({"type": "Negotiate", "seat": 0, "fight": 1}, "Negotiate.fight: expected bool, got int"),
    ({"type": "DeclareWait", "seat": 0, "x": 1}, r"unknown field\(s\) \['x'\]"),
    (["DeclareWait", 0], "an action is a table/map"),
], ids=["unknown", "no-type", "missing", "missing-intent", "str", "bool", "int-bool", "extra",
        "list"])
def test_from_dict_rejects_malformed_actions(data, message):
    """from_dict raises MalformedActionError for unknown types, missing or mistyped fields."""
    with pytest.raises(MalformedActionError, match=message):
        from_dict(data)
