"""Shared test helpers: small games set up exactly, with forced dice."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import replace

from grailwar.shared.engine import apply, default_action, legal_actions
from grailwar.shared.engine.actions import (
    Action,
    AnswerIntervention,
    DeclareEncounter,
    DeclareRest,
    DeclareWait,
    Ready,
    Wait,
)
from grailwar.shared.engine.data import Effect, Ruleset, Skill, Text, default_ruleset
from grailwar.shared.engine.events import Event
from grailwar.shared.engine.game import new_game
from grailwar.shared.engine.state import GameState


def game(classes: Sequence[str] = ("saber", "lancer"), seed: int = 0, day0: bool = False,
         **kw) -> GameState:
    """A new game in which each camp plays its class's own sheet (`servants/<class>.toml`),
    unless `servants` says otherwise (None: summoned at random by the seed).

    A campaign game deals no tags unless its options ask (a tag would change the numbers a
    test of another rule counts), and starts past day 0, every seat ready, unless `day0`."""
    if "servants" not in kw:
        rules = kw.get("rules") or default_ruleset()
        kw["servants"] = [rules.servants[c].id for c in classes]
    if "campaign" in kw.get("modules", ()):
        options = dict(kw.get("options") or {})
        options["campaign"] = {"tags": "off", **options.get("campaign", {})}
        kw["options"] = options
    s = new_game(seed=seed, classes=classes, **kw)
    return s if day0 else past_day0(s)


def past_day0(s: GameState) -> GameState:
    """Day 1 Morning of a campaign game: every seat takes the default of each day-0 prompt
    (the first free relic; ready with the data defaults). Any other game is returned as is."""
    while s.prompt.kind in ("relic", "setup"):
        s, _ = apply(s, default_action(s, min(s.prompt.seats)))
    return s


def place(s: GameState, seat: int, pos: int) -> None:
    """Put a camp on a square (setup only, before the camp's first move)."""
    s.edit(seat).pos = pos


def act(s: GameState, action: Action, dice: Iterable[int] = ()) -> tuple[GameState, list[Event]]:
    """Force the next dice, then apply; returns the new state and its events."""
    s.forced = (*s.forced, *dice)
    return apply(s, action)



def run(s: GameState, *actions: Action, dice: Iterable[int] = ()
        ) -> tuple[GameState, list[Event]]:
    """Apply each action in turn with `dice` forced (the given state keeps none of them, so
    one state can be branched with different dice); every event of all of them."""
    before = s.forced
    s.forced = (*before, *dice)
    events: list[Event] = []
    start = s
    try:
        for action in actions:
            s, ev = apply(s, action)
            events += ev
    finally:
        start.forced = before
    return s, events


def waits(s: GameState) -> tuple[GameState, list[Event]]:
    """Every camp asked declares Wait: one Turn goes by."""
    return run(s, *(DeclareWait(x) for x in sorted(s.prompt.seats)))


def types(events: list[Event]) -> list[str]:
    return [e.type for e in events]


def find(events: list[Event], event_type: str) -> list[Event]:
    return [e for e in events if e.type == event_type]


def duel(classes: Sequence[str] = ("saber", "lancer"), square: int = 10, seed: int = 0,
         **kw) -> GameState:
    """Two camps on one square; seat 0 has encountered seat 1 for battle; round 1 starts."""
    s = game(classes, seed, **kw)
    for seat in range(len(classes)):
        place(s, seat, square)
    s, _ = apply(s, DeclareEncounter(0, 1, "battle"))
    assert s.prompt.kind == "round_start", s.prompt
    return s


def battle_at(classes: Sequence[str], squares: Sequence[tuple[int, int]],
              fighters: int | None = None, seed: int = 0, **kw) -> GameState:
    """The first `fighters` camps (default: all) in one battle at round 1's round-start prompt,
    each camp on its square (x, y) of the map: seat 0 encountered seat 1, the other fighters
    waited on that square and joined, the rest rested and stay out of the battle."""
    s = game(classes, seed, **kw)
    fighters = len(classes) if fighters is None else fighters
    for seat in range(len(classes)):
        place(s, seat, s.camps[1].pos)
    s, _ = apply(s, DeclareEncounter(0, 1, "battle"))
    for seat in range(2, len(classes)):
        s, _ = apply(s, DeclareWait(seat) if seat < fighters else DeclareRest(seat))
    while s.prompt.kind == "intervene":
        s, _ = apply(s, AnswerIntervention(min(s.prompt.seats), True))
    assert s.prompt.kind == "round_start" and len(s.battle.seats) == fighters, s.prompt
    grid = s.rules.maps[s.settings.map_id]
    for seat, (x, y) in enumerate(squares):
        place(s, seat, grid.index(x, y))
    return s


def to_main(s: GameState, seat: int) -> GameState:
    """Ready / Wait everyone until `seat` has its main prompt."""
    while not (s.prompt.kind == "main" and s.prompt.seats == {seat}):
        who = min(s.prompt.seats)
        s, _ = act_all(s, Ready(who) if s.prompt.kind == "round_start" else Wait(who))
    return s


def ready_all(s: GameState, dice: Iterable[int] = ()) -> GameState:
    """Every seat at the round-start prompt says Ready (initiative dice may be forced)."""
    s.forced = (*s.forced, *dice)
    while s.prompt.kind == "round_start":
        s, _ = apply(s, Ready(min(s.prompt.seats)))
    return s


def only(s: GameState, seat: int, kind: type) -> list[Action]:
    return [a for a in legal_actions(s, seat) if type(a) is kind]


# --- crafted rulesets and exact dice (battle and Command Spell tests) ----------------------------
def bare(rules: Ruleset | None = None) -> Ruleset:
    """The rules with no skills on any Servant or Master, so only the rule under test acts."""
    rules = rules or default_ruleset()
    # A Master sheet always has 4 skills: inert constant ones stand in for them.
    inert = [Skill(f"bare_{i}", _NAME, _NAME, "master", "constant", 0, None, 0, "self", False,
                   None, Effect(())) for i in range(1, 5)]
    return replace(
        rules,
        skills={**rules.skills, **{k.id: k for k in inert}},
        servants={c: replace(sv, skills=()) for c, sv in rules.servants.items()},
        masters={m: replace(ms, skills=tuple(k.id for k in inert))
                 for m, ms in rules.masters.items()},
    )


_NAME = Text("-", "-", "-")


def tweak(rules: Ruleset, cls: str, *, np: dict | None = None, params: dict | None = None,
          **fields) -> Ruleset:
    """A copy of `rules` with one Servant changed: sheet fields, some params, some NP fields."""
    sv = rules.servants[cls]
    if np is not None:
        fields["np"] = replace(sv.np, **np)
    if params is not None:
        fields["params"] = {**sv.params, **params}
    return replace(rules, servants={**rules.servants, cls: replace(sv, **fields)})


def act_all(s: GameState, action: Action, dice: Iterable[int] = ()) -> tuple[GameState,
                                                                               list[Event]]:
    """Like `act`, but every forced die must be used by this action; `s` itself keeps no dice,
    so one state can be branched with different dice."""
    before = s.forced
    s.forced = (*before, *dice)
    try:
        new, events = apply(s, action)
    finally:
        s.forced = before
    assert new.forced == (), f"{action}: forced dice left unused {new.forced}"
    return new, events


def rolls(events: list[Event], purpose: str) -> list[dict]:
    """The DiceRolled data of one purpose ("hit", "defense", "damage", "np_damage", ...)."""
    return [e.data for e in events if e.type == "DiceRolled" and e.data["purpose"] == purpose]


def faces(natural: int) -> list[int]:
    """Two d6 faces summing to `natural` (2..12)."""
    assert 2 <= natural <= 12
    high = min(6, natural - 1)
    return [high, natural - high]


def fight(classes: Sequence[str] = ("saber", "caster"), rules: Ruleset | None = None,
          dice: Iterable[int] = (), **kw) -> GameState:
    """`duel` with the round-start prompt answered: the first activation of round 1."""
    s = ready_all(duel(classes, rules=rules or bare(), **kw), dice)
    assert s.prompt.kind == "main", s.prompt
    return s


def wait_round(s: GameState) -> GameState:
    """Every combatant Waits (round start: Ready) until the next round-start prompt or the end."""
    start = s.battle.round if s.battle else None
    while s.battle is not None and s.battle.round == start and s.prompt.kind in (
            "main", "round_start"):
        seat = min(s.prompt.seats)
        s, _ = apply(s, Ready(seat) if s.prompt.kind == "round_start" else Wait(seat))
    return s


def random_states(seed: int, modules: tuple[str, ...], priority: bool,
                  options: dict | None = None, steps: int = 500) -> list[GameState]:
    """The states of a game whose prompted seats pick legal actions at random."""
    rng = random.Random(seed)
    state = new_game(seed=seed, modules=modules, options=options, priority_phase=priority)
    states = [state]
    while not state.over and len(states) < steps:
        seat = rng.choice(sorted(state.prompt.seats))
        state, _ = apply(state, rng.choice(legal_actions(state, seat)))
        states.append(state)
    return states
