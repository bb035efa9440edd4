"""`grailwar simulate`: whole games headless with bots, and the balance figures they give."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import traceback
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ..shared.bots import make_bot
from ..shared.bots.match import run_match
from ..shared.bots.modules import parts
from ..shared.engine import dice, new_game
from ..shared.engine.data import CLASSES, default_ruleset
from ..shared.engine.events import Event
from ..shared.engine.game import summon
from ..shared.engine.modules import normalize
from ..shared.engine.state import GameState
from . import modules as module_args
from .progress import Progress


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("simulate", help="play whole games between bots and print statistics")
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--bots", default="normal",
                   help="one bot level for every seat, or a comma list per seat "
                        "(random, easy, normal, hard: the levels of rooms and tournaments)")
    p.add_argument("--classes", default=",".join(CLASSES),
                   help="comma list of the classes that take part (2 to 7)")
    p.add_argument("--servants", default="",
                   help="comma list, one per class: the Servant each camp summons, by id, or "
                        "random (default: every camp summoned at random by the game's seed)")
    module_args.add_arguments(p)
    p.add_argument("--priority-phase", action="store_true",
                   help="each turn opens with a priority phase, as in a room (docs/rules.md §3.3)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def simulate(games: int, seed: int, bots: list[str], classes: list[str],
             progress: bool = False, modules: Sequence[str] = (),
             options: Mapping[str, Mapping[str, Any]] | None = None,
             servants: Sequence[str | None] | None = None,
             priority_phase: bool = False) -> dict[str, Any]:
    """Play `games` games with the rules `modules` on, the `servants` summoned (None: at
    random by each game's seed) and each turn opening with a priority phase if told; every
    failure is counted in `errors`, never hidden."""
    modules, options = normalize(modules, options)
    summon(default_ruleset(), seed, classes, servants)  # a bad list is a ValueError, not errors
    wins: Counter[str] = Counter()
    servant_wins: Counter[str] = Counter()
    servant_games: Counter[str] = Counter()
    draws = errors = 0
    rounds: list[int] = []
    days: list[int] = []
    first_error = ""
    # each module's balance figures (`BotPart.figures`), in the game's module order
    figures = {part.name: part.figures() for part in parts(modules) if part.figures is not None}
    watchers = [f.step for f in figures.values()]

    def on_step(state: GameState, events: list[Event]) -> None:
        for step in watchers:
            step(state, events)
    bar = Progress(games, progress)
    for g in range(games):
        levels = bots if len(bots) == len(classes) else bots[:1] * len(classes)
        game_seed = dice.series_seed(seed, g)
        try:
            state = new_game(seed=game_seed, classes=classes, modules=modules, options=options,
                             servants=servants, priority_phase=priority_phase)
            players = [make_bot(level, game_seed * 31 + i) for i, level in enumerate(levels)]
            result = run_match(state, players, arrival_seed=game_seed,
                               on_step=on_step if watchers else None)
        except Exception:  # an engine bug must be counted, and the run go on
            errors += 1
            first_error = first_error or f"game {g} (seed {game_seed}):\n{traceback.format_exc()}"
            continue
        servant_games.update(c.servant.id for c in state.camps)
        if result.winner_class:
            wins[result.winner_class] += 1
            servant_wins[state.camps[state.winner].servant.id] += 1
        else:
            draws += 1
        rounds.extend(result.battle_rounds)
        days.append(result.days)
        for f in figures.values():
            f.game_over(state)
        bar.tick(g + 1)
    bar.close()
    out = {
        "games": games,
        "modules": list(modules),
        "options": options,
        "priority_phase": priority_phase,
        "errors": errors,
        "wins_by_class": {c: wins[c] for c in classes},
        # per Servant summoned: its wins, and the games it played (its share = wins / games)
        "wins_by_servant": {x: servant_wins[x] for x in sorted(servant_games)},
        "games_by_servant": dict(sorted(servant_games.items())),
        "draws": draws,
        "battles": len(rounds),
        "median_battle_rounds": statistics.median(rounds) if rounds else None,
        "median_game_days": statistics.median(days) if days else None,
        "first_error": first_error,
    }
    for name, f in figures.items():
        out[name] = f.summary()
    return out


def run(args: argparse.Namespace) -> int:
    classes = args.classes.split(",")
    chosen = module_args.from_args(args, "simulate")
    if chosen is None:
        return 2
    servants = None
    if args.servants:
        servants = [None if x == "random" else x for x in args.servants.split(",")]
    try:
        summary = simulate(args.games, args.seed, args.bots.split(","), classes,
                           progress=sys.stderr.isatty() and not args.json, modules=chosen[0],
                           options=chosen[1], servants=servants,
                           priority_phase=args.priority_phase)
    except ValueError as err:  # a Servant not of its class, a list of the wrong length
        print(f"simulate: {err}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(summary))
    else:
        total = max(1, summary["games"] - summary["errors"])
        print(f"games {summary['games']}  errors {summary['errors']}  draws {summary['draws']}"
              f"  modules {module_args.describe(summary['options']) or 'none'}")
        for cls, n in summary["wins_by_class"].items():
            print(f"  {cls:<10} {n:>5}  {100 * n / total:5.1f}%")
        for servant, played in summary["games_by_servant"].items():
            n = summary["wins_by_servant"][servant]
            print(f"    {servant:<16} {n:>5}/{played:<5} {100 * n / max(1, played):5.1f}%")
        print(f"battles {summary['battles']}  median rounds {summary['median_battle_rounds']}  "
              f"median days {summary['median_game_days']}")
        for part in parts(summary["modules"]):
            line = part.figures.line(summary[part.name]) if part.figures is not None else None
            if line is not None:
                print(line)
        if summary["first_error"]:
            print(summary["first_error"], file=sys.stderr)
    return 1 if summary["errors"] else 0
