"""The engine's public face: `new_game`, `legal_actions`, `apply`, `play`, `default_action`.

    >>> from grailwar.shared.engine import new_game, legal_actions, apply
    >>> state = new_game(seed=7)
    >>> sorted(state.prompt.seats)
    [0, 1, 2, 3, 4, 5, 6]
    >>> action = legal_actions(state, 0)[0]
    >>> after, events = apply(state, action)
    >>> (after.version, state.version)
    (1, 0)

`apply` never changes the state it is given: it raises a `RulesError` for an action that is not
legal now, or returns the new state with the events the action produced. `play` is the in-place
form used by simulations that keep no history.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import repeat
from operator import is_
from typing import Any

from . import battle, core, dice, turns
from . import modules as _modules
from .actions import Action, Move, from_dict
from .data import CLASSES, Ruleset, Servant, default_ruleset
from .errors import GameOverError, IllegalActionError, NotPromptedError
from .events import Event
from .prompts import PROMPTS
from .state import NO_PROMPT, Camp, GameState, Prompt, Settings

# --- setting up ----------------------------------------------------------------------------------


def new_game(
    seed: int = 0,
    classes: Sequence[str] = CLASSES,
    rules: Ruleset | None = None,
    map_id: str | None = None,
    day_limit: int | None = None,
    masters: Sequence[str] | None = None,
    servants: Sequence[str | None] | None = None,
    forced: Sequence[int] = (),
    modules: Sequence[str] = (),
    options: Mapping[str, Mapping[str, Any]] | None = None,
    priority_phase: bool = False,
) -> GameState:
    """A game with one camp per class in `classes` (seat i plays classes[i]), on day 1 morning,
    with the rules `modules` switched on (`options`: per module, its options), and with each
    turn opening on a priority phase if `priority_phase` (docs/rules.md §3.3).

    `servants` names each seat's Servant by id (a Servant of that seat's class); a seat given
    None, or every seat when `servants` is None, summons one of its class's roster at random
    by the seed (the room's `random` summoning)."""
    rules = rules or default_ruleset()
    names, resolved = _modules.normalize(modules, options)
    if type(seed) is not int:
        raise ValueError(f"seed must be an integer, got {seed!r}")
    fewest = _modules.fewest_camps(names, resolved)
    if len(set(classes)) != len(classes) or not fewest <= len(classes) <= len(CLASSES):
        raise ValueError(f"need {fewest} to 7 distinct classes, got {list(classes)}")
    unknown = [c for c in classes if c not in rules.servants]
    if unknown:
        raise ValueError(f"unknown class(es) {unknown}; choose from {', '.join(CLASSES)}")
    map_id = map_id or next(iter(rules.maps))
    if map_id not in rules.maps:
        raise ValueError(f"unknown map {map_id!r}; maps: {', '.join(rules.maps)}")
    city = rules.maps[map_id]
    master_ids = list(masters) if masters else _draw_masters(rules, seed, len(classes))
    bad = [m for m in master_ids if m not in rules.masters]
    if bad or len(master_ids) != len(classes):
        raise ValueError(f"need one known Master per camp, got {master_ids}")
    sheets = summon(rules, seed, classes, servants)
    camps = [
        Camp(seat, sheets[seat], rules.masters[master_ids[seat]], city.starts[cls])
        for seat, cls in enumerate(classes)
    ]
    settings = Settings(map_id, day_limit or rules.numbers.day_limit, names, resolved,
                        priority_phase)
    state = GameState(rules, settings, camps, dice.seed_state(seed),
                      _modules.instances(rules, names, resolved))
    state.forced = tuple(forced)
    for m in state.modules:
        m.setup(state)
    core.emit(state, "GameStarted", seats=[c.cls for c in camps], map=map_id, seed=seed)
    core.emit(state, "TurnStarted", day=1, turn=turns.TURN_NAMES[0])
    turns_advance(state)
    state.events = []
    return state


# the keys of a replay (the server's `replay` message, docs/protocol.md) that are new_game's
REPLAY_SETUP = ("seed", "classes", "day_limit", "masters", "servants", "priority_phase",
                "modules", "options")


def from_replay(replay: Mapping[str, Any]) -> GameState:
    """The finished game a replay records: `new_game` from its set-up, then every action."""
    state = new_game(**{k: replay[k] for k in REPLAY_SETUP})
    for action in replay["actions"]:
        play(state, from_dict(action))
    return state


def _draw_masters(rules: Ruleset, seed: int, count: int) -> list[str]:
    """Masters are drawn from the seed, so no class is always paired with the same Master."""
    pool = list(rules.masters)
    rng = dice.stream(seed, 0x5EED)
    drawn = []
    for _ in range(count):
        rng, i = dice.face(rng, len(pool))
        drawn.append(pool.pop(i - 1))
    return drawn


def summon(rules: Ruleset, seed: int, classes: Sequence[str],
           chosen: Sequence[str | None] | None = None) -> list[Servant]:
    """Each seat's Servant: the one `chosen` for it, else one of its class's roster drawn from
    the seed (a stream of its own, so the draw changes neither the dice nor the Masters)."""
    chosen = list(chosen) if chosen is not None else [None] * len(classes)
    if len(chosen) != len(classes):
        raise ValueError(f"need one Servant (or None) per camp, got {chosen}")
    rng = dice.stream(seed, 0x5E2F)
    out = []
    for cls, pick in zip(classes, chosen, strict=True):
        roster = rules.roster[cls]
        rng, i = dice.face(rng, len(roster))
        if pick is None:
            out.append(roster[i - 1])
            continue
        sheet = rules.by_id.get(pick)
        if sheet is None or sheet.cls != cls:
            ids = ", ".join(s.id for s in roster)
            raise ValueError(f"unknown {cls} Servant {pick!r}; choose from {ids}")
        out.append(sheet)
    return out


# --- walking the structure -----------------------------------------------------------------------
def turns_advance(s: GameState) -> None:
    """Walk days, turns, resolution and battles until some seats must act (or the game ends)."""
    while True:
        for m in s.modules:
            if m.advance(s):
                return
        if s.over:
            if s.battle is not None:
                battle.end_battle(s, "game_over")
            s.prompt = NO_PROMPT
            return
        if s.rewards:
            s.rewards = tuple(x for x in s.rewards if s.camps[x].alive)
            if s.rewards:
                s.prompt = Prompt("critical", frozenset({s.rewards[0]}))
                return
        if s.parley is not None:
            s.prompt = turns.parley_prompt(s)
            return
        if s.battle is not None:
            if battle.battle_step(s):
                return
        elif s.phase == "declare":
            if s.priority and not turns.priority_seats(s):  # all declared or passed
                turns.end_priority(s)
            seats = turns.awaiting_declaration(s)
            if seats:
                for m in s.modules:
                    seats = m.declare_seats(s, seats)
                s.prompt = Prompt("declare", seats)
                return
            turns.close_window(s)
        elif s.agenda:
            turns.resolve_step(s)
        else:
            turns.end_turn(s)


# --- legal actions -----------------------------------------------------------------------------
def legal_actions(state: GameState, seat: int) -> list[Action]:
    """Everything `seat` may do now; empty when the game is not waiting for it.

    This one list is what the server checks, what the client enables and what bots choose from.
    It is cached on the state until the state changes: treat it as read-only.
    """
    if state.over or seat not in state.prompt.seats:
        return []
    cached = state._legal.get(seat)
    if cached is None:
        cached = PROMPTS[state.prompt.kind].legal(state, seat)
        for m in state.modules:
            cached = m.legal(state, seat, cached)
        state._legal[seat] = cached
    return cached


# --- applying actions ----------------------------------------------------------------------------
def _check(state: GameState, action: Action) -> None:
    """Refuse, with the precise reason, anything the seat may not do now."""
    if state.over:
        raise GameOverError("the game is over")
    kind = state.prompt.kind
    if action.seat not in state.prompt.seats:
        waiting = ", ".join(str(x) for x in sorted(state.prompt.seats))
        raise NotPromptedError(f"seat {action.seat} is not asked to act now "
                               f"(the {kind} prompt waits for seat(s) {waiting})")
    legal = legal_actions(state, action.seat)
    if not _offered(action, legal) and action.template(state) not in legal:
        same = [a for a in legal if type(a) is type(action)]
        hint = (f"; legal {type(action).__name__} actions: {same[:6]}"
                f"{' …' if len(same) > 6 else ''}" if same
                else f"; no {type(action).__name__} is legal in the {kind} prompt")
        raise IllegalActionError(f"{action} is not legal for seat {action.seat} now{hint}")


def _offered(action: Action, legal: list[Action]) -> bool:
    """`action in legal`, looking for the object itself first (in C): a bot hands back one of
    the listed actions, and `in` calls the dataclass's Python `__eq__` on every action before
    it (5 µs in a seed-002 declaration of 130; an action from the wire takes both passes)."""
    return any(map(is_, legal, repeat(action))) or action in legal


def play(state: GameState, action: Action) -> list[Event]:
    """Apply `action` to `state` in place (after the same checks as `apply`)."""
    _check(state, action)
    return _play_checked(state, action)


def _play_checked(state: GameState, action: Action) -> list[Event]:
    state.events = []
    state._legal.clear()
    handler = PROMPTS[state.prompt.kind].handler(action)
    for m in state.modules:
        m.on_action(state, action)
    handler(state, action)
    state.version += 1
    turns_advance(state)
    for m in state.modules:
        m.after_action(state, action, state.events)
    events, state.events = state.events, []
    return events


def apply(state: GameState, action: Action) -> tuple[GameState, list[Event]]:
    """The state after `action`, and the events it produced; `state` itself is not changed."""
    _check(state, action)
    new = state.clone()
    return new, _play_checked(new, action)


def default_action(state: GameState, seat: int) -> Action:
    """What the server issues for a seat whose timer ran out (seed 000: no declaration = Wait);
    each prompt kind names its own."""
    kind = state.prompt.kind
    legal = legal_actions(state, seat)
    if not legal:
        raise NotPromptedError(f"seat {seat} is not asked to act now")
    wanted = PROMPTS[kind].default(state, seat)
    for m in state.modules:
        wanted = m.default(state, seat, wanted)
    if wanted in legal:
        return wanted
    # A disengaging camp must move: take the first of its forced moves.
    moves = [a for a in legal if isinstance(a, Move)]
    if moves:
        return moves[0]
    raise IllegalActionError(f"no default action for seat {seat} in the {kind} prompt")
