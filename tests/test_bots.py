"""Bots: the levels, their fairness (they decide from their seat's view only), the hard bot's
determinization and time budget, and the tournament's statistics and command."""

from __future__ import annotations

import io
import json
import random
from contextlib import redirect_stdout
from dataclasses import dataclass

import pytest
from grailwar.cli.main import main as cli_main
from grailwar.shared.bots import (
    LEVELS,
    EasyBot,
    HardBot,
    HeuristicBot,
    RandomBot,
    make_bot,
)
from grailwar.shared.bots.determinize import sample_hand, state_from_view
from grailwar.shared.bots.hard import candidates, evaluate
from grailwar.shared.bots.match import run_match
from grailwar.shared.bots.modules import PARTS
from grailwar.shared.bots.modules import tactics as tactics_part
from grailwar.shared.bots.policy import rollout_action
from grailwar.shared.bots.tournament import elo, summary, wilson
from grailwar.shared.engine import legal_actions, new_game, play, view_for
from grailwar.shared.engine.actions import (
    Action,
    AnswerAmbush,
    AnswerIntervention,
    Attack,
    DeclareAmbush,
    DeclareEncounter,
    DeclareNoblePhantasm,
    DeclareWait,
    Move,
    Negotiate,
    React,
    UseCommandSpell,
    UseNoblePhantasm,
    UseSkill,
    Wait,
)
from grailwar.shared.engine.data import CLASSES, default_ruleset
from grailwar.shared.engine.deduction import candidates as candidates_of
from grailwar.shared.engine.geometry import distance
from grailwar.shared.engine.state import GameState
from grailwar.shared.engine.view import buff_view
from grailwar.shared.modules.tactics import Concentrate, ConcentrateCast
from helpers import act, duel, game, only, place, ready_all

RULES = default_ruleset()
PROMPTS = ("declare", "negotiate", "ambush", "intervene", "round_start", "main", "reaction",
           "critical")


def all_bots(seed: int) -> list:
    """One bot of every level; the hard bot with a fixed search size (deterministic)."""
    return [make_bot(level, seed, iterations=16) for level in LEVELS]


# --- positions from real games ---------------------------------------------------------------
@dataclass
class Position:
    state: GameState
    seat: int


def positions(seed: int, classes=CLASSES, level: str = "normal", every: int = 1,
              limit: int = 10_000, modules: tuple[str, ...] = (),
              options: dict | None = None) -> list[Position]:
    """(state, prompted seat) at each step of a whole bot game (states are cheap clones)."""
    state = new_game(seed=seed, classes=classes, modules=modules, options=options)
    bots = [make_bot(level, seed * 31 + i) for i in range(len(classes))]
    arrival = random.Random(seed)
    out: list[Position] = []
    step = 0
    while not state.over and len(out) < limit:
        seats = sorted(state.prompt.seats)
        seat = seats[0] if len(seats) == 1 else arrival.choice(seats)
        if step % every == 0:
            out.append(Position(state.clone(), seat))
        bot = bots[seat]
        legal = legal_actions(state, seat)
        play(state, bot.choose(view_for(state, seat) if bot.needs_view else None, legal))
        step += 1
    return out


@pytest.fixture(scope="module")
def real_positions() -> list[Position]:
    out = positions(3) + positions(4, ("saber", "berserker"), level="random")
    out += positions(5, ("archer", "caster", "rider"))
    return out


TACTICS = ("tactics",)


@pytest.fixture(scope="module")
def tactics_positions() -> list[Position]:
    """Positions of games with the tactics module on: seven normal bots, and random bots (which
    play every concentration action) with the ranged classes and the polearm."""
    out = positions(6, modules=TACTICS)
    out += positions(7, ("archer", "lancer", "caster", "saber"), level="random", modules=TACTICS)
    return out


def one_per_prompt(found: list[Position], per_kind: int = 2) -> list[Position]:
    """A few positions of every prompt kind found, spread over the game."""
    by_kind: dict[str, list[Position]] = {}
    for p in found:
        by_kind.setdefault(p.state.prompt.kind, []).append(p)
    picked = []
    for items in by_kind.values():
        step = max(1, len(items) // per_kind)
        picked += items[::step][:per_kind]
    return picked


# --- levels ----------------------------------------------------------------------------------
def test_levels_and_the_old_name() -> None:
    """`make_bot` knows random, easy, normal and hard; "heuristic" is the old name of normal."""
    assert LEVELS == ("random", "easy", "normal", "hard")
    assert isinstance(make_bot("random", 1), RandomBot)
    assert type(make_bot("easy", 1)) is EasyBot
    assert type(make_bot("normal", 1)) is HeuristicBot
    assert type(make_bot("heuristic", 1)) is HeuristicBot
    hard = make_bot("hard", 1, budget_s=0.3)
    assert isinstance(hard, HardBot) and hard.budget_s == 0.3
    assert make_bot("hard", 1).budget_s == 1.0
    with pytest.raises(ValueError, match="unknown bot level"):
        make_bot("grandmaster", 1)


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_whole_games(level: str) -> None:
    """A duel and a three-camp game played to the end by bots of one level, every action legal
    (run_match plays through the engine's checks)."""
    for seed, classes in ((21, ("saber", "rider")), (22, ("archer", "lancer", "assassin"))):
        state = new_game(seed=seed, classes=classes, day_limit=2)
        bots = [make_bot(level, seed + i, iterations=6) for i in range(len(classes))]
        errors = []
        if level == "hard":  # every playout of the hard bot's search ran without an error
            for bot in bots:
                bot.choose = watch(bot, errors)
        result = run_match(state, bots, arrival_seed=seed)
        assert state.over and result.steps > 0
        assert errors == []


def watch(bot: HardBot, errors: list):
    choose = bot.choose

    def checked(view, legal):
        action = choose(view, legal)
        if bot.last["errors"]:
            errors.append(bot.last)
        return action

    return checked


def crafted_prompts() -> dict[str, tuple[GameState, int]]:
    """A position for each prompt kind that real games reach only now and then."""
    out: dict[str, tuple[GameState, int]] = {}
    s = game(("saber", "lancer"))
    place(s, 0, 10)
    place(s, 1, 10)
    s, _ = act(s, DeclareEncounter(0, 1, "negotiate"))
    out["negotiate"] = (s, 1)
    s = game(("saber", "archer"))
    place(s, 0, 10)
    place(s, 1, 11)
    s, _ = act(s, DeclareAmbush(0, 1))
    out["ambush"] = (s, 1)
    s = game(("saber", "lancer", "archer"))
    for seat in range(3):
        place(s, seat, 10)
    s, _ = act(s, DeclareEncounter(0, 1, "battle"))
    s, _ = act(s, DeclareWait(2))
    out["intervene"] = (s, 2)
    s = duel(("saber", "lancer"))
    out["round_start"] = (s, 0)
    return out


@pytest.mark.parametrize("kind", ["negotiate", "ambush", "intervene", "round_start"])
def test_every_level_answers_encounters_ambushes_and_interventions(kind: str) -> None:
    """Negotiation (fight or part), an ambush (flee or fight), an intervention offer and a
    round start: every level answers with one of the legal actions."""
    state, seat = crafted_prompts()[kind]
    assert state.prompt.kind == kind and seat in state.prompt.seats
    legal = legal_actions(state, seat)
    for bot in all_bots(5):
        action = bot.choose(view_for(state, seat), legal)
        assert action in legal, (bot.name, action)


def test_answers_follow_the_odds() -> None:
    """The normal bot parts from a stronger rival and fights a weaker one; flees an ambush when
    badly hurt; stays out of a battle when hurt."""
    s, _ = crafted_prompts()["negotiate"]
    bot = HeuristicBot(1)
    s.edit(0).hp = 40
    assert bot.choose(view_for(s, 1), legal_actions(s, 1)) == Negotiate(1, True)
    s.edit(0).hp = 165
    s.edit(1).hp = 40
    assert bot.choose(view_for(s, 1), legal_actions(s, 1)) == Negotiate(1, False)
    s, _ = crafted_prompts()["ambush"]
    s.edit(1).hp = 20
    assert bot.choose(view_for(s, 1), legal_actions(s, 1)) == AnswerAmbush(1, True)
    s, _ = crafted_prompts()["intervene"]
    s.edit(2).hp = 30
    assert bot.choose(view_for(s, 2), legal_actions(s, 2)) == AnswerIntervention(2, False)


def test_bots_reach_every_prompt_kind(real_positions: list[Position]) -> None:
    """The real games behind the fairness tests cover the prompts bots must answer (the rare
    ones are crafted above)."""
    kinds = {p.state.prompt.kind for p in real_positions}
    assert kinds >= {"declare", "round_start", "main", "reaction", "critical"}


# --- determinization -----------------------------------------------------------------------------
def test_rebuilt_state_keeps_everything_the_seat_knows(real_positions: list[Position]) -> None:
    """From any seat's view, the rebuilt state has the same prompt and legal actions for that
    seat, its own camp exactly, and the same public structure (declarations, agenda, battle)."""
    rng = random.Random(1)
    for p in real_positions[::3]:
        assert_rebuilt(p.state, p.seat, rng)


def assert_rebuilt(real: GameState, seat: int, rng: random.Random) -> GameState:
    """The state rebuilt from `seat`'s view of `real` agrees with it on everything the seat
    knows; returned for further checks."""
    made = state_from_view(view_for(real, seat), RULES, rng)
    assert made.prompt == real.prompt
    assert set(legal_actions(made, seat)) == set(legal_actions(real, seat))
    mine, theirs = made.camps[seat], real.camps[seat]
    for name in ("hand", "mp", "master_mp", "known", "waits", "unlocked", "buster", "quick",
                 "skills_used", "np_target", "war_roar", "disengage_round", "moved",
                 "rested", "asleep", "spells", "hp", "pos"):
        assert getattr(mine, name) == getattr(theirs, name), name
    assert mine.master is theirs.master
    assert [buff_view(made, b, seat) for b in mine.buffs] == [
        buff_view(real, b, seat) for b in theirs.buffs]
    assert [(d.seat, d.kind, d.target, d.intent) for d in made.decls] == [
        (d.seat, d.kind, d.target, d.intent) for d in real.decls]
    for name in ("day", "turn", "phase", "bound", "agenda", "fought", "eaten", "contest",
                 "rewards", "parley", "over", "winner"):
        assert getattr(made, name) == getattr(real, name), name
    assert (made.battle is None) == (real.battle is None)
    if real.battle is not None:
        for name in type(real.battle).__slots__:
            assert getattr(made.battle, name) == getattr(real.battle, name), name
    for a, b in zip(made.camps, real.camps, strict=True):
        if not b.alive:  # a fallen camp keeps stale battle marks nobody reads
            assert (a.hp, a.pos, a.alive) == (b.hp, b.pos, b.alive)
            continue
        assert (a.hp, a.pos, a.alive, len(a.hand), a.np_target, a.fleeing) == (
            b.hp, b.pos, b.alive, len(b.hand), b.np_target, b.fleeing)
    # what the view shows of every camp's figures holds in the rebuilt state (a module's
    # hidden state, the campaign's growth and items, makes a max HP and the cards)
    for a, b in zip(view_for(made, seat)["camps"], view_for(real, seat)["camps"], strict=True):
        assert (a["max_hp"], a.get("cards")) == (b["max_hp"], b.get("cards")), a["seat"]
    return made


def test_rebuilt_tactics_states_keep_the_module_state(tactics_positions: list[Position]) -> None:
    """With the tactics module on, over some hundreds of battle positions the state rebuilt from
    the seat's view has the same legal actions (zones, lines, concentration offers) and the
    same public module state: active zones, concentration uses, declared initiative and
    endure."""
    rng = random.Random(4)
    fights = [p for p in tactics_positions if p.state.battle is not None]
    checked = fights[::max(1, len(fights) // 300)]
    assert len(checked) >= 250
    offered = set()
    for p in checked:
        made = assert_rebuilt(p.state, p.seat, rng)
        mine, real = made.mods["tactics"], p.state.mods["tactics"]
        assert (mine.zoc, mine.uses, mine.seize, mine.endure) == (
            real.zoc, real.uses, real.seize, real.endure)
        offered |= {type(a) for a in legal_actions(p.state, p.seat)}
    assert {Concentrate, ConcentrateCast} <= offered


def test_rebuilt_tactics_state_knows_a_zone_dropped_this_activation() -> None:
    """A Saber that has just shot at range (its zone drops when its activation ends, T1.4) is
    rebuilt from the target's view with the zone still due to drop."""
    s = ready_all(duel(("saber", "archer"), modules=TACTICS))
    s, _ = act(s, Wait(1))  # the Archer acts first (AGI A) and waits
    s.edit(1).pos = 11
    s, _ = act(s, Attack(0, 1, "B", "B"))  # at distance 1: a ranged Attack
    assert s.prompt.kind == "reaction" and 0 in s.mods["tactics"].dropped
    made = state_from_view(view_for(s, 1), RULES, random.Random(0))
    assert made.mods["tactics"].dropped == s.mods["tactics"].dropped


def test_rebuilt_states_sample_what_is_hidden(real_positions: list[Position]) -> None:
    """Rivals' Masters, hands and MP vary between samples, stay plausible (distinct Masters, the
    right hand size drawn from the composition, MP within the sheet) and the dice are reseeded."""
    p = next(p for p in real_positions if p.state.battle is not None and len(p.state.camps) == 7)
    view = view_for(p.state, p.seat)
    samples = [state_from_view(view, RULES, random.Random(i)) for i in range(12)]
    rivals = [c.seat for c in p.state.camps if c.seat != p.seat]
    assert len({tuple(s.camps[x].master.id for x in rivals) for s in samples}) > 1
    assert len({tuple(s.camps[x].mp for x in rivals) for s in samples}) > 1
    assert len({s.rng for s in samples}) == len(samples)
    for s in samples:
        assert len({c.master.id for c in s.camps}) == len(s.camps)
        for x in rivals:
            camp = s.camps[x]
            assert 0 <= camp.mp <= camp.servant.mp and 0 <= camp.master_mp <= camp.master.mp
            assert len(camp.hand) == len(p.state.camps[x].hand)


def test_sampled_hands_come_from_the_composition() -> None:
    rng = random.Random(3)
    for size in range(0, 8):
        hand = sample_hand("BBAQQ", size, rng)
        assert len(hand) == size
        if size <= 5:
            assert all(hand.count(k) <= "BBAQQ".count(k) for k in "BAQ")


def test_rebuilt_states_play_on(real_positions: list[Position]) -> None:
    """The engine plays random legal games onward from rebuilt states without an error."""
    rng = random.Random(2)
    for p in real_positions[::7]:
        s = state_from_view(view_for(p.state, p.seat), RULES, rng)
        for _ in range(60):
            if s.over:
                break
            seat = rng.choice(sorted(s.prompt.seats))
            play(s, rng.choice(legal_actions(s, seat)))


def test_spectator_view_cannot_be_determinized() -> None:
    with pytest.raises(ValueError, match="seat's view"):
        state_from_view(view_for(game(), None), RULES, random.Random(0))


# --- fairness: decisions do not depend on hidden information -------------------------------------
def disguise(state: GameState, viewer: int, rng: random.Random) -> GameState:
    """The same position with every value hidden from `viewer` changed to another plausible
    one: rivals' Servants (another of the roster entries the viewer cannot tell apart from the
    real one, `deduction.candidates`), hands (same size), MP, Masters (swapped among the
    rivals), Master MP, rest and wait counters, investigation tiers, stored card bonuses, used
    skills, hidden declaration arguments, the effects of buffs whose source the viewer cannot
    see, and the dice."""
    s = state.clone()
    seen = view_for(state, viewer)["camps"]
    rivals = [c.seat for c in s.camps if c.seat != viewer]
    masters = [s.camps[x].master for x in rivals]
    spare = [m for m in RULES.masters.values() if m not in {c.master for c in s.camps}]
    pool = masters + spare
    rng.shuffle(pool)
    master_skills = [sk for sk in RULES.skills.values() if sk.owner == "master"
                     and sk.effect.mods and sk.duration > 0 and sk.target == "self"]
    for x, master in zip(rivals, pool, strict=False):
        hidden = [i for i, b in enumerate(s.camps[x].buffs)
                  if buff_view(s, b, viewer)["source"] in ("skill", "np")]
        camp = s.edit(x)
        camp.master = master
        camp.servant = rng.choice(candidates_of(RULES, seen[x]))
        camp.hand = sample_hand(camp.servant.cards, len(camp.hand), rng)
        camp.mp = rng.randint(1, camp.servant.mp)
        camp.master_mp = rng.randint(0, master.mp)
        camp.known = tuple(rng.randint(0, 3) for _ in CLASSES)
        camp.waits = rng.randint(0, 5)
        camp.unlocked = rng.random() < 0.5
        camp.buster = rng.choice((0, 5, 10))
        camp.quick = rng.choice((0, 1, 2))
        camp.skills_used = frozenset(rng.sample(list(master.skills), 2))
        buffs = list(camp.buffs)
        for i in hidden:
            if buffs[i].source.startswith("np:"):
                continue
            other = rng.choice(master_skills)
            buffs[i] = buffs[i]._replace(source=other.id, effect=other.effect)
        camp.buffs = tuple(buffs)
    s.decls = tuple(
        d._replace(arg=rng.choice([c.cls for c in s.camps if c.seat != d.seat]))
        if d.kind == "investigate" and d.seat != viewer else d for d in s.decls)
    s.rng = rng.getrandbits(64)
    return s


def test_disguise_changes_hidden_values_only(real_positions: list[Position]) -> None:
    """The variants differ from the real state in what they hide, and the viewer's view of them
    is unchanged (what the fairness test relies on)."""
    p = next(p for p in real_positions if p.state.prompt.kind == "reaction")
    other = disguise(p.state, p.seat, random.Random(9))
    rival = next(c.seat for c in p.state.camps if c.seat != p.seat)
    assert (other.camps[rival].mp, other.camps[rival].master, other.rng) != (
        p.state.camps[rival].mp, p.state.camps[rival].master, p.state.rng)
    assert view_for(other, p.seat) == view_for(p.state, p.seat)
    variants = [disguise(p.state, p.seat, random.Random(n)) for n in range(6)]
    assert any(v.camps[x].servant is not p.state.camps[x].servant
               for v in variants for x in range(len(v.camps)) if x != p.seat)


def assert_fair(picked: list[Position], seed: int) -> None:
    """Each level (the hard bot with a fixed search size) given the same seed chooses the same
    action from each position and from three variants of it in which every rival's hidden
    values were replaced by other plausible ones; the hard bot really searched most of them."""
    rng = random.Random(seed)
    searched = 0
    for n, p in enumerate(picked):
        variants = [disguise(p.state, p.seat, rng) for _ in range(3)]
        legal = legal_actions(p.state, p.seat)
        for level in LEVELS:
            bot = make_bot(level, n, iterations=40)
            real = bot.choose(view_for(p.state, p.seat), legal)
            if level == "hard" and bot.last["candidates"] > 1:
                searched += 1
            for v in variants:
                got = make_bot(level, n, iterations=40).choose(view_for(v, p.seat),
                                                               legal_actions(v, p.seat))
                assert got == real, (level, p.state.prompt.kind, real, got)
    assert searched >= len(picked) // 2


def test_decisions_do_not_depend_on_hidden_information(real_positions: list[Position]) -> None:
    """For positions of every prompt kind, no level's choice changes when every rival's hidden
    values change (`assert_fair`)."""
    picked = one_per_prompt(real_positions, per_kind=2)
    picked += [Position(s, seat) for s, seat in crafted_prompts().values()]
    assert {p.state.prompt.kind for p in picked} >= set(PROMPTS)
    assert_fair(picked, 11)


def test_tactics_decisions_do_not_depend_on_hidden_information(
        tactics_positions: list[Position]) -> None:
    """With the tactics module on (its state is public), no level's choice changes when every
    rival's hidden values change, at positions of every battle prompt and at prompts where a
    concentration action is offered."""
    fights = [p for p in tactics_positions if p.state.battle is not None]
    picked = one_per_prompt(fights, per_kind=2)
    focus = [p for p in fights if any(isinstance(a, Concentrate | ConcentrateCast)
                                      for a in legal_actions(p.state, p.seat))]
    picked += focus[::max(1, len(focus) // 4)][:4]
    assert {p.state.prompt.kind for p in picked} >= {"round_start", "main", "reaction"}
    assert_fair(picked, 12)


def test_bots_cannot_reach_the_state() -> None:
    """A bot is given a plain view (no GameState anywhere in it) and the legal actions."""
    s = duel()
    view = view_for(s, 0)

    def walk(value):
        assert not isinstance(value, GameState)
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list | tuple):
            for item in value:
                walk(item)

    walk(view)
    json.dumps(view)


# --- the hard bot --------------------------------------------------------------------------------
class StepClock:
    """A fake clock that moves `step` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_hard_bot_stops_at_its_budget_by_the_injected_clock() -> None:
    """With a clock advancing 10 ms a reading, a 0.5 s budget allows about 40 playouts and
    the decision ends within the budget (of the injected time)."""
    s = duel(("saber", "lancer"))
    clock = StepClock(0.01)
    bot = HardBot(1, budget_s=0.5, clock=clock)
    action = bot.choose(view_for(s, 0), legal_actions(s, 0))
    assert action in legal_actions(s, 0)
    assert 20 <= bot.last["iterations"] <= 45
    assert clock.now <= 0.5


def test_hard_bot_honours_a_real_budget() -> None:
    """A 0.1 s budget on the real clock: the decision takes about that, never far more."""
    import time

    s = duel(("saber", "lancer"))
    bot = HardBot(1, budget_s=0.1)
    start = time.perf_counter()
    bot.choose(view_for(s, 0), legal_actions(s, 0))
    assert time.perf_counter() - start < 0.5
    assert bot.last["iterations"] > 0 and bot.last["errors"] == 0


def test_hard_bot_with_fixed_iterations_is_deterministic() -> None:
    s = duel(("saber", "berserker"))
    view, legal = view_for(s, 0), legal_actions(s, 0)
    picks = {HardBot(4, iterations=30).choose(view, legal) for _ in range(3)}
    assert len(picks) == 1


def test_candidates_prune_long_lists_and_keep_the_normal_choice() -> None:
    """Teleport and Retreat keep two squares each, Tactical Refinement two hands, and the normal
    bot's own choice comes first."""
    s = duel(("saber", "lancer"))
    s.edit(0).hp = 30  # in a pinch: Command Spells are searched
    view, legal = view_for(s, 0), legal_actions(s, 0)
    prior = HeuristicBot(1).choose(view, legal)
    kept = candidates(view, legal, prior)
    assert kept[0] == prior and len(kept) == len(set(kept))
    assert set(kept) <= set(legal) and len(kept) < len(legal) // 3
    spells = [a for a in kept if isinstance(a, UseCommandSpell)]
    for name in ("retreat", "teleport", "tactical_refinement"):
        assert 1 <= len([a for a in spells if a.spell == name]) <= 2


def test_evaluation_prefers_winning_and_health() -> None:
    s = duel(("saber", "lancer"))
    base = evaluate(s, 0)
    hurt = s.clone()
    hurt.edit(0).hp = 20
    weak = s.clone()
    weak.edit(1).hp = 20
    assert evaluate(hurt, 0) < base < evaluate(weak, 0)
    won = s.clone()
    won.over, won.winner = True, 0
    assert evaluate(won, 0) == 1.0 and evaluate(won, 1) == 0.0


def test_hard_bot_beats_random() -> None:
    """Even with a tiny search the hard bot wins duels against the random bot."""
    wins = 0
    for seed in (31, 32):
        state = new_game(seed=seed, classes=("saber", "lancer"), day_limit=3)
        bots = [make_bot("hard", seed, iterations=8), make_bot("random", seed)]
        wins += run_match(state, bots, arrival_seed=seed).winner == 0
    assert wins == 2


# --- tactics (seed 003) --------------------------------------------------------------------------
def test_random_bot_plays_every_tactics_action() -> None:
    """Over a few seven-camp games with tactics on, the random bot plays Concentrate for each
    use (initiative, endure, dodge) and ConcentrateCast: it picks an action type first, so the
    new kinds are not drowned by long lists of moves."""
    played: set[str] = set()
    for seed in (1, 3):
        state = new_game(seed=seed, modules=TACTICS)
        bots = [make_bot("random", seed * 7 + i) for i in range(len(CLASSES))]
        while not state.over:
            seat = min(state.prompt.seats)
            action = bots[seat].choose(None, legal_actions(state, seat))
            if isinstance(action, Concentrate):
                played.add(action.use)
            elif isinstance(action, ConcentrateCast):
                played.add("cast")
            play(state, action)
    assert played == {"initiative", "endure", "dodge", "cast"}


def battle_of_three() -> GameState:
    """Saber (seat 0), Lancer (1) and Archer (2) in one battle with tactics on, at the Saber's
    first Main Action (the Lancer and the Archer acted first and waited, so every zone is
    active); then spread out: Saber (0,2), Lancer (3,0), a hurt Archer (6,2)."""
    s = game(("saber", "lancer", "archer"), modules=TACTICS)
    for seat in range(3):
        place(s, seat, 10)
    s, _ = act(s, DeclareEncounter(0, 1, "battle"))
    s, _ = act(s, DeclareWait(2))
    s, _ = act(s, AnswerIntervention(2, True))
    s = ready_all(s)
    while s.prompt.seats != {0}:
        s, _ = act(s, Wait(min(s.prompt.seats)))
    assert s.prompt.kind == "main"
    for seat, square in ((0, 14), (1, 3), (2, 20)):
        s.edit(seat).pos = square
    s.edit(2).hp = 60
    return s


def test_normal_bot_walks_around_a_polearm_zone() -> None:
    """The Saber heads for the hurt Archer; the shortest step, (3,2), ends inside the Lancer's
    radius-2 zone, where it does not mean to fight. It takes (2,2) instead, just as close but
    for the zone; with the Lancer's zone inactive it takes the short way."""
    s = battle_of_three()
    zone = next(z for z in view_for(s, 0)["modules"]["tactics"]["state"]["zoc"] if z["seat"] == 1)
    assert zone["active"] and 17 in zone["squares"] and 16 not in zone["squares"]
    assert Move(0, 17) in legal_actions(s, 0)
    assert HeuristicBot(1).choose(view_for(s, 0), legal_actions(s, 0)) == Move(0, 16)
    st = s.mods["tactics"]
    s.set_mod("tactics", st._replace(zoc=st.zoc - {1}))
    assert HeuristicBot(1).choose(view_for(s, 0), legal_actions(s, 0)) == Move(0, 17)


def test_ranged_servant_steps_out_of_melee_to_shoot() -> None:
    """An Archer on a Saber's square, inside its zone, steps back one square (T1.7 allows no
    more) and then shoots from there; without the module it fights in melee."""
    s = ready_all(duel(("saber", "archer"), modules=TACTICS))
    assert s.prompt.seats == {1} and s.prompt.kind == "main"
    step = HeuristicBot(1).choose(view_for(s, 1), legal_actions(s, 1))
    grid = RULES.maps[s.settings.map_id]
    assert isinstance(step, Move) and distance(grid, step.to, 10) == 1
    s, _ = act(s, step)
    shot = HeuristicBot(1).choose(view_for(s, 1), legal_actions(s, 1))
    assert isinstance(shot, Attack) and shot.target == 0 and shot.kind in "BAQ"
    base = ready_all(duel(("saber", "archer")))
    melee = HeuristicBot(1).choose(view_for(base, 1), legal_actions(base, 1))
    assert isinstance(melee, Attack) and melee.target == 0


def test_shooter_walks_to_a_clear_line() -> None:
    """An Archer at (3,3) with the Saber at (6,3) behind the blocking squares (4,3) and (5,3)
    has no legal shot (the view rules it out for the line); it moves to a square from which the
    line is clear and then shoots."""
    s = ready_all(duel(("saber", "archer"), modules=TACTICS))
    s.edit(1).pos = 24
    s.edit(0).pos = 27
    view = view_for(s, 1)
    assert {"target": 0, "what": "attack", "reason": "line"} in (
        view["modules"]["tactics"]["state"]["ruled_out"])
    assert not only(s, 1, Attack)
    step = HeuristicBot(1).choose(view, legal_actions(s, 1))
    assert isinstance(step, Move)
    s, _ = act(s, step)
    shot = HeuristicBot(1).choose(view_for(s, 1), legal_actions(s, 1))
    assert isinstance(shot, Attack) and shot.target == 0


def at_reaction(np: bool, hp: int) -> GameState:
    """Saber (seat 0, at `hp`) answering the Archer's first attack with tactics on: its Noble
    Phantasm (hit roll a natural 6: a Quick NP's critical starts at 9), or a Buster attack
    whose hit roll is a natural 11 (no counter is likely)."""
    s = duel(("saber", "archer"), modules=TACTICS)
    if np:
        s, _ = act(s, DeclareNoblePhantasm(1, 0))
    s = ready_all(s)
    s.edit(0).hp = hp
    attack = UseNoblePhantasm(1, 0) if np else Attack(1, 0, "B", "B")
    s, _ = act(s, attack, dice=[3, 3] if np else [6, 5])
    assert s.prompt.kind == "reaction" and s.prompt.seats == {0}
    return s


@pytest.mark.parametrize(("np", "hp", "dodges"), [(True, 50, False), (False, 165, False),
                                                  (False, 50, True)])
def test_normal_bot_dodges_big_hits(np: bool, hp: int, dodges: bool) -> None:
    """Concentrate("dodge") (T4.3) answers an Attack once HP is low; an Attack at full HP gets
    a card reaction and keeps the roll; a Noble Phantasm cannot be dodged at all."""
    s = at_reaction(np, hp)
    choice = HeuristicBot(1).choose(view_for(s, 0), legal_actions(s, 0))
    assert (choice == Concentrate(0, "dodge")) is dodges, choice
    assert dodges or isinstance(choice, React)


def round_start_choices(s: GameState, seat: int) -> list[Action]:
    """Everything the normal bot does at its round-start prompt, up to its Ready."""
    bot = HeuristicBot(2)
    out: list[Action] = []
    while seat in s.prompt.seats and s.prompt.kind == "round_start":
        action = bot.choose(view_for(s, seat), legal_actions(s, seat))
        out.append(action)
        s, _ = act(s, action)
    return out


@pytest.mark.parametrize(("foe", "foe_hp", "seizes"), [
    ("archer", 20, True),    # faster than the Saber, and one Buster attack kills it
    ("archer", 170, False),  # faster, but not to be killed this round
    ("caster", 20, False),   # killable, but the Saber acts first anyway
])
def test_normal_bot_seizes_the_initiative_to_kill_first(foe: str, foe_hp: int,
                                                        seizes: bool) -> None:
    """Concentrate("initiative") (T4.1) is declared only when a foe that would act first can
    be killed now."""
    s = duel(("saber", foe), modules=TACTICS)
    s.edit(1).hp = foe_hp
    assert (Concentrate(0, "initiative") in round_start_choices(s, 0)) is seizes


@pytest.mark.parametrize(("foe", "hp", "endures"), [
    ("caster", 60, True),    # Song of the Mire (2D10) is a quarter of 60 HP or more
    ("caster", 165, False),  # at full HP a halved spell is not worth a roll
    ("lancer", 60, False),   # no hostile spell on the Lancer's sheet
])
def test_normal_bot_endures_a_spellcaster(foe: str, hp: int, endures: bool) -> None:
    """Concentrate("endure") (T4.4) is declared against a foe whose Servant casts damaging
    spells, once such a spell would hurt at the bot's HP."""
    s = duel(("saber", foe), modules=TACTICS)
    s.edit(0).hp = hp
    assert (Concentrate(0, "endure") in round_start_choices(s, 0)) is endures


def test_hard_spells_are_cast_with_concentration() -> None:
    """A hostile spell with a check of 60 (Demon-Breaking Arrow) goes as ConcentrateCast
    (T4.2) while two rolls are free; an easier one (Song of the Mire, 70) stays a plain
    UseSkill, and so does the hard one once only one roll is left."""
    s = duel(("caster", "saber"), modules=TACTICS, masters=["hayase", "takizawa"])
    s.edit(0).unlocked = True
    legal = legal_actions(s, 0)
    arrow, song = UseSkill(0, "demon_breaking_arrow", 1), UseSkill(0, "bog_song", 1)
    assert arrow in legal and song in legal
    bot = HeuristicBot(1)
    part = PARTS["tactics"]
    view = view_for(s, 0)
    me = view["camps"][0]
    assert tactics_part.read(view, RULES) is not None
    assert part.cast(bot, view, me, arrow, legal) == ConcentrateCast(0, "demon_breaking_arrow", 1)
    assert part.cast(bot, view, me, song, legal) == song
    st = s.mods["tactics"]
    s.set_mod("tactics", st._replace(uses=(1, *st.uses[1:])))
    legal = legal_actions(s, 0)
    view = view_for(s, 0)
    assert part.cast(bot, view, view["camps"][0], arrow, legal) == arrow


def test_rollout_policy_concentrates_only_to_dodge_when_low(
        tactics_positions: list[Position]) -> None:
    """The hard bot's rollout policy plays whole tactics positions without an error; among its
    choices Concentrate appears only as a dodge of a hit it may not survive (it does not fall
    on a concentration action by accident), and it does dodge one."""
    rng = random.Random(5)
    dodged = 0
    for p in tactics_positions:
        if p.state.battle is None:
            continue
        legal = legal_actions(p.state, p.seat)
        choice = rollout_action(p.state, p.seat, legal, rng)
        assert choice in legal
        if isinstance(choice, Concentrate | ConcentrateCast):
            assert choice == Concentrate(p.seat, "dodge")
            camp = p.state.camps[p.seat]
            assert camp.hp < 0.35 * camp.servant.hp
            dodged += 1
    s = at_reaction(np=False, hp=50)
    assert rollout_action(s, 0, legal_actions(s, 0), rng) == Concentrate(0, "dodge")
    s = at_reaction(np=False, hp=165)
    assert rollout_action(s, 0, legal_actions(s, 0), rng) != Concentrate(0, "dodge")


def test_rollout_policy_steps_a_shooter_out_of_melee() -> None:
    """Like the normal bot, the rollout policy moves an Archer held in a Saber's zone one
    square off its square, then shoots."""
    s = ready_all(duel(("saber", "archer"), modules=TACTICS))
    rng = random.Random(0)
    step = rollout_action(s, 1, legal_actions(s, 1), rng)
    assert isinstance(step, Move)
    s, _ = act(s, step)
    shot = rollout_action(s, 1, legal_actions(s, 1), rng)
    assert isinstance(shot, Attack) and shot.target == 0


# --- tournament ----------------------------------------------------------------------------------
def test_wilson_interval() -> None:
    lo, hi = wilson(0.5, 100)
    assert 0.40 < lo < 0.41 and 0.59 < hi < 0.60
    assert wilson(1.0, 10)[1] == 1.0 and wilson(0.0, 10)[0] == 0.0


def test_elo_orders_levels_by_results() -> None:
    results = ([{"levels": ["a", "b"], "winner": 0}] * 7 + [{"levels": ["a", "b"], "winner": 1}]
               * 3 + [{"levels": ["b", "c"], "winner": 0}] * 7
               + [{"levels": ["c", "b"], "winner": -1}] * 2)
    table = elo(results, anchor="c")
    assert table["a"] > table["b"] > table["c"] == 1000.0
    assert 120 < table["a"] - table["b"] < 180  # 70% is about +147 Elo


def test_summary_counts_draws_half() -> None:
    results = [{"levels": ["x", "y"], "winner": 0}, {"levels": ["y", "x"], "winner": -1}]
    out = summary(results, ["x", "y"])
    assert out["games"] == 2 and out["win_rate"] == {"x vs y": 0.75}
    assert out["record"]["x vs y"] == {"games": 2, "wins": 1, "draws": 1, "losses": 0}


def test_tournament_command_json() -> None:
    """`grailwar tournament --json` prints one object with games, win rates and Elo."""
    out = io.StringIO()
    with redirect_stdout(out):
        code = cli_main(["tournament", "--games", "2", "--levels", "random,normal", "--json"])
    data = json.loads(out.getvalue())
    assert code == 0 and data["games"] == 2
    assert set(data["win_rate"]) == {"normal vs random"}
    assert set(data["elo"]) == {"normal", "random"}
    lo, hi = data["ci95"]["normal vs random"]
    assert lo <= data["win_rate"]["normal vs random"] <= hi


def test_tournament_command_refuses_bad_levels(capsys) -> None:
    assert cli_main(["tournament", "--levels", "normal,wizard"]) == 2
    assert "--levels" in capsys.readouterr().err
