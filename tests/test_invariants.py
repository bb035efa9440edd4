"""Random legal games played to the end, with the engine's invariants checked after every step.

After every step: one prompt kind with a non-empty set of living seats until the game is over
(none after); every prompted seat has a legal action (and a legal timeout default), no other
seat has any; HP, MP, Master MP and Command Spells stay within their sheet bounds; dead Servants
never act; cards are neither made nor lost (each hand is recomputed from the previous hands and
the step's events). On a sample of steps the game goes through `apply` instead of `play`, and the
state it was given must not change, then or later. Finally the game is replayed from its seed and
its action list and must give the same events and the same final text. Some games are played
with the tactics module on (zones, lines of fire, concentration), under the same checks.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

import pytest
from grailwar.shared.bots import make_bot
from grailwar.shared.engine import (
    RulesError,
    apply,
    default_action,
    legal_actions,
    new_game,
    play,
    to_text,
    view_for,
)
from grailwar.shared.engine.actions import (
    Action,
    DeclareEncounter,
    DeclareNoblePhantasm,
    DeclareRest,
    DeclareWait,
    Ready,
    UseCommandSpell,
    UseNoblePhantasm,
    UseSkill,
    Wait,
)
from grailwar.shared.engine.core import sort_cards
from grailwar.shared.engine.data import CLASSES, default_ruleset
from grailwar.shared.engine.events import Event
from grailwar.shared.engine.state import Battle, Camp, GameState
from helpers import game

PROMPT_KINDS = {"declare", "negotiate", "ambush", "intervene", "round_start", "main", "reaction",
                "critical"}
# Events in which `seat` is the one acting (a dead Servant must never be one).
ACTING = {"Declared", "Moved", "Attacked", "Reacted", "NoblePhantasmDeclared",
          "NoblePhantasmFired", "SkillUsed", "CommandSpellUsed", "Waited", "TruceOffered",
          "DisengageDeclared", "InterventionAnswered", "CriticalReward", "NegotiationAnswered",
          "AmbushAnswered", "Rested", "SoulsEaten", "Investigated", "ConcentrationDeclared",
          "ConcentrationRolled"}
APPLY_EVERY = 5  # every 5th step goes through `apply` and its input is kept to recheck later


def snapshot(s: GameState) -> tuple[Any, ...]:
    """Every field of the state (camps and battle included) as comparable immutable values."""
    skip = {"_owned", "_battle_owned", "_mods_owned", "events", "rules", "camps", "battle"}
    top = tuple(getattr(s, name) for name in GameState.__slots__ if name not in skip)
    camps = tuple(tuple(getattr(c, name) for name in Camp.__slots__) for c in s.camps)
    battle = None if s.battle is None else tuple(getattr(s.battle, n) for n in Battle.__slots__)
    return top, camps, battle


@dataclass
class Played:
    seed: int
    classes: tuple[str, ...]
    modules: tuple[str, ...] = ()
    actions: list[Action] = field(default_factory=list)
    events: list[list[Event]] = field(default_factory=list)
    final: str = ""
    check: Checker | None = None


KINDS = ("prompt", "bounds", "dead_act", "cards", "purity")


class Checker:
    """The invariants, checked step by step on one game. A broken invariant is recorded (by
    kind, the first few with their step) and the game goes on, so one does not hide another."""

    def __init__(self, state: GameState) -> None:
        self.rules = state.rules
        self.dead = {c.seat for c in state.camps if not c.alive}
        self.found: dict[str, list[str]] = {kind: [] for kind in KINDS}
        self.counts: dict[str, int] = dict.fromkeys(KINDS, 0)
        self.n = 0

    def expect(self, ok: bool, kind: str, message: Any) -> None:
        if not ok:
            self.counts[kind] += 1
            if len(self.found[kind]) < 5:
                text = message() if callable(message) else message
                self.found[kind].append(f"step {self.n}: {text}")

    # --- after every step ---------------------------------------------------------------------
    def state(self, s: GameState) -> None:
        expect = self.expect
        seats = range(len(s.camps))
        if s.over:
            expect(s.prompt.kind == "none" and not s.prompt.seats, "prompt",
                   f"game over but prompt {s.prompt}")
            expect(all(legal_actions(s, x) == [] for x in seats), "prompt",
                   "game over but legal actions")
        else:
            expect(s.prompt.kind in PROMPT_KINDS, "prompt", f"unknown prompt {s.prompt}")
            expect(bool(s.prompt.seats), "prompt", lambda: f"no seat prompted\n{to_text(s)}")
            expect(s.prompt.seats <= set(s.living), "prompt",
                   lambda: f"a dead seat is prompted\n{to_text(s)}")
            for x in seats:
                legal = legal_actions(s, x)
                if x in s.prompt.seats:
                    expect(bool(legal), "prompt", lambda x=x: f"seat {x} prompted, no legal "
                                                              f"action\n{to_text(s)}")
                    if legal:
                        try:
                            ok = default_action(s, x) in legal
                        except RulesError as err:
                            ok = False
                            expect(False, "prompt", f"no timeout default for seat {x}: {err}")
                        expect(ok, "prompt", f"timeout default of seat {x} is not legal")
                else:
                    expect(legal == [], "prompt", f"seat {x} not prompted but has actions")
        for c in s.camps:
            where = f"seat {c.seat} ({c.cls}) {'alive' if c.alive else 'dead'}"
            expect(0 <= c.hp <= c.servant.hp, "bounds",
                   f"HP {c.hp} out of 0..{c.servant.hp}: {where}")
            expect(0 <= c.mp <= c.servant.mp, "bounds",
                   f"MP {c.mp} out of 0..{c.servant.mp}: {where}")
            expect(0 <= c.master_mp <= c.master.mp, "bounds",
                   f"Master MP {c.master_mp} out of 0..{c.master.mp}: {where}")
            expect(0 <= c.spells <= c.master.command_spells, "bounds",
                   f"Command Spells {c.spells}: {where}")
        expect(s.over == (len(s.living) <= 1 or s.day > s.settings.day_limit), "prompt",
               f"over={s.over} with {len(s.living)} living on day {s.day}")

    def step(self, hands: list[str], fighting: set[int], action: Action, events: list[Event],
             after: GameState) -> None:
        self.n += 1
        self.expect(action.seat not in self.dead, "dead_act",
                    f"dead seat {action.seat} was asked and acted: {action}")
        for e in events:
            if e.type in ACTING:
                self.expect(e.data["seat"] not in self.dead, "dead_act",
                            lambda e=e: f"{e.type} by dead seat {e.data['seat']} after {action};"
                                        f" events {[x.type for x in events]}")
            if e.type == "ServantDied":
                self.dead.add(e.data["seat"])
        expected = self.expected_hands(after, hands, fighting, action, events)
        got = [sort_cards(c.hand) for c in after.camps]
        self.expect(got == expected, "cards",
                    lambda: f"hands {got} but the events account for {expected} after "
                            f"{action}: {[e.type for e in events]}")

    def expected_hands(self, s: GameState, hands: list[str], fighting: set[int],
                       action: Action, events: list[Event]) -> list[str]:
        """The hands the step's events account for: cards spent (attack, reaction, Noble
        Phantasm, fumble), hands set to the composition (battle start, refill), a critical's
        card, Tactical Refinement, and a skill's gained cards; nothing else."""
        hands = list(hands)
        camps = s.camps
        fighting = set(fighting)
        gained: dict[int, str] = {}

        def spend(seat: int, card: str, count: int = 1) -> None:
            for _ in range(count if card else 0):
                self.expect(card in hands[seat], "cards",
                            f"seat {seat} spent {card} not in its hand {hands[seat]!r}")
                hands[seat] = hands[seat].replace(card, "", 1)

        def flush() -> None:
            for seat, cards in gained.items():
                hands[seat] = sort_cards(hands[seat] + cards)
            gained.clear()

        for e in events:
            t, d = e.type, e.data
            if t == "SkillUsed":
                flush()
                cards = self.rules.skills[d["skill"]].effect.gain_cards
                if cards:
                    gained[d["target"] if d["target"] >= 0 else d["seat"]] = cards
            elif t == "SkillFailed":
                gained.pop(d["seat"], None)
            elif t == "BattleOpened":
                fighting = set(d["seats"])
            elif t == "InterventionAnswered" and d["join"]:
                fighting.add(d["seat"])
            elif t == "BattleStarted":
                fighting = set(d["seats"])
                for x in fighting:
                    hands[x] = camps[x].servant.cards
            elif t in ("LeftBattle", "ServantDied"):
                fighting.discard(d["seat"])
            elif t == "BattleEnded":
                fighting = set()
            elif t == "HandsRefilled":
                for x in fighting:
                    hands[x] = camps[x].servant.cards
            elif t in ("Attacked", "Reacted"):
                spend(d["seat"], d["card"])
            elif t == "NoblePhantasmFired":
                np = camps[d["seat"]].servant.np
                spend(d["seat"], np.card, np.cards)
            elif t == "FumblePenalty" and d["penalty"] == "card":
                spend(d["seat"], d["card"])
            elif t == "CriticalReward" and d["reward"].startswith("card:"):
                hands[d["seat"]] = sort_cards(hands[d["seat"]] + d["reward"][5:])
            elif t == "CommandSpellUsed" and \
                    self.rules.command_spells[d["spell"]].special == "refine":
                self.expect(isinstance(action, UseCommandSpell) and action.seat == d["seat"],
                            "cards", f"Tactical Refinement without its action: {action}")
                hands[d["seat"]] = getattr(action, "arg", hands[d["seat"]])
        flush()
        return [sort_cards(h) for h in hands]


@cache
def play_checked(bot: str, seed: int, classes: Sequence[str],
                 modules: tuple[str, ...] = ()) -> Played:
    """One whole game between bots of one level, with `modules` on, every invariant checked at
    every step (played once per session: the fixture and the module test share it)."""
    state = new_game(seed=seed, classes=classes, modules=modules)
    bots = [make_bot(bot, seed * 31 + i) for i in range(len(classes))]
    arrival = random.Random(seed)
    check = Checker(state)
    check.state(state)
    record = Played(seed, tuple(classes), modules, check=check)
    kept: list[tuple[GameState, str, tuple[Any, ...]]] = []
    while not state.over:
        seats = sorted(state.prompt.seats)
        seat = seats[0] if len(seats) == 1 else arrival.choice(seats)
        legal = legal_actions(state, seat)
        player = bots[seat]
        action = player.choose(view_for(state, seat) if player.needs_view else None, legal)
        hands = [sort_cards(c.hand) for c in state.camps]
        fighting = set(state.battle.seats) if state.battle is not None else set()
        if (check.n + 1) % APPLY_EVERY == 0:
            text, deep = to_text(state), snapshot(state)
            before = state
            state, events = apply(before, action)
            check.expect(to_text(before) == text and snapshot(before) == deep, "purity",
                         f"apply changed the state it was given ({action})")
            kept.append((before, text, deep))
        else:
            events = play(state, action)
        check.step(hands, fighting, action, events, state)
        check.state(state)
        record.actions.append(action)
        record.events.append(events)
    for old, text, deep in kept:  # later steps played in place must not reach older states
        check.expect(to_text(old) == text and snapshot(old) == deep, "purity",
                     "a state given to apply changed during later steps")
    record.final = to_text(state)
    return record


TACTICS = ("tactics",)
GAMES = [
    ("heuristic", 11, CLASSES, ()), ("heuristic", 12, CLASSES, ()), ("heuristic", 13, CLASSES, ()),
    ("heuristic", 14, ("saber", "berserker"), ()),
    ("heuristic", 15, ("archer", "caster", "rider"), ()),
    ("random", 11, CLASSES, ()), ("random", 12, CLASSES, ()), ("random", 13, CLASSES, ()),
    ("random", 14, ("lancer", "assassin"), ()), ("random", 15, ("saber", "archer", "caster"), ()),
    ("heuristic", 16, CLASSES, TACTICS), ("heuristic", 17, ("lancer", "caster"), TACTICS),
    ("random", 16, CLASSES, TACTICS), ("random", 18, ("saber", "archer", "caster"), TACTICS),
]


def game_id(g: tuple) -> str:
    return f"{g[0]}-{g[1]}-{len(g[2])}camps{''.join('-' + m for m in g[3])}"


@pytest.fixture(scope="module", params=GAMES, ids=game_id)
def played(request: pytest.FixtureRequest) -> Played:
    return play_checked(*request.param)


@pytest.mark.parametrize("kind", KINDS)
def test_invariant_holds_at_every_step(played: Played, kind: str) -> None:
    """The whole game keeps this invariant at every step (prompt: one kind, prompted seats with
    legal actions and a legal timeout default, nobody else; bounds: HP, MP, Master MP, Command
    Spells; dead_act: no dead Servant acts; cards: hands change only as the events say; purity:
    `apply` leaves its input as it was)."""
    assert played.final.splitlines()[-1].startswith("over winner")
    found = played.check.found[kind]
    assert not found, f"{played.check.counts[kind]} violation(s), first:\n  " + "\n  ".join(found)


def test_replay_reproduces_events_and_final_text(played: Played) -> None:
    """The same seed and the same actions give the same events, step by step, and the same
    final canonical text."""
    state = new_game(seed=played.seed, classes=played.classes, modules=played.modules)
    for i, (action, events) in enumerate(zip(played.actions, played.events, strict=True)):
        state, again = apply(state, action)
        assert again == events, f"step {i + 1} ({action}) gave other events"
    assert to_text(state) == played.final


@pytest.mark.parametrize("game", [g for g in GAMES if g[3]], ids=game_id)
def test_module_games_fight_under_the_module(game: tuple) -> None:
    """A game with the tactics module on fought battles, so its rules were under the checks;
    the random bot also used concentration in them."""
    kinds = {e.type for events in play_checked(*game).events for e in events}
    assert "BattleStarted" in kinds
    assert game[0] != "random" or "ConcentrationRolled" in kinds


def test_refused_action_leaves_state_unchanged() -> None:
    """An action that is not legal now raises a RulesError and changes nothing."""
    state = new_game(seed=3)
    text, deep = to_text(state), snapshot(state)
    state, _ = apply(state, DeclareWait(0))
    text, deep = to_text(state), snapshot(state)
    for bad in (DeclareWait(0), UseCommandSpell(1, "no_such_spell")):
        with pytest.raises(RulesError):
            apply(state, bad)
        with pytest.raises(RulesError):
            play(state, bad)
        assert to_text(state) == text and snapshot(state) == deep


def _noble_phantasm_ready_state(mp: int, spells: int, master_mp: int):
    rules = default_ruleset()
    saber = rules.servants["saber"]
    np = replace(saber.np, kind="attack", charge=0, range=0, mp=50, cards=1, card="B")
    rules = replace(rules, servants={**rules.servants, "saber": replace(saber, np=np)})
    s = game(("saber", "lancer", "archer"), 1, rules=rules, masters=("baek", "han", "hayase"))
    for seat in (0, 1):
        s.edit(seat).pos = 10
    s, _ = apply(s, DeclareEncounter(0, 1, "battle"))
    s, _ = apply(s, DeclareRest(2))
    assert s.prompt.kind == "round_start"
    s, _ = apply(s, DeclareNoblePhantasm(0, 1))
    s, _ = apply(s, Ready(0))
    s, _ = apply(s, Ready(1))
    if s.battle.actor == 1:
        s, _ = apply(s, Wait(1))
    camp = s.edit(0)
    camp.mp, camp.spells, camp.master_mp = mp, spells, master_mp
    return s


def test_a_noble_phantasm_that_would_empty_the_servant_is_not_offered() -> None:
    """Paying the NP's 50 MP with exactly 50 and no Command Spell left would leave the Servant at
    0 MP and make it vanish (rules §2.4): the engine does not offer it, so no dead seat acts."""
    s = _noble_phantasm_ready_state(mp=50, spells=0, master_mp=100)
    assert UseNoblePhantasm(0, 1) not in legal_actions(s, 0)
    s = _noble_phantasm_ready_state(mp=51, spells=0, master_mp=0)
    assert UseNoblePhantasm(0, 1) in legal_actions(s, 0)
    s = _noble_phantasm_ready_state(mp=50, spells=1, master_mp=1)  # the Master tops it up
    assert UseNoblePhantasm(0, 1) in legal_actions(s, 0)
    s, events = apply(s, UseNoblePhantasm(0, 1))
    assert s.camps[0].alive and "NoblePhantasmFired" in [e.type for e in events]


def test_a_skill_that_would_empty_the_servant_is_not_offered() -> None:
    """The same for a skill: Child of the Egg with exactly its cost in MP and no Command Spell."""
    assert "child_of_the_egg" in default_ruleset().servants["archer"].skills
    s = game(("archer", "lancer", "saber"), 1, masters=("baek", "han", "hayase"))
    for seat in (0, 1):
        s.edit(seat).pos = 10
    s, _ = apply(s, DeclareEncounter(0, 1, "battle"))
    s, _ = apply(s, DeclareRest(2))
    skill = default_ruleset().skills["child_of_the_egg"]
    camp = s.edit(0)
    camp.mp, camp.spells = skill.mp, 0
    assert UseSkill(0, "child_of_the_egg") not in legal_actions(s, 0)
    s.edit(0).mp = skill.mp + 1
    assert UseSkill(0, "child_of_the_egg") in legal_actions(s, 0)
