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
from ..shared.engine import core, dice, new_game
from ..shared.engine.data import CLASSES, default_ruleset
from ..shared.engine.events import Event
from ..shared.engine.game import summon
from ..shared.engine.modules import normalize
from ..shared.engine.state import GameState
from ..shared.modules.campaign import state as campaign_state
from . import modules as module_args


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
    giant = ColossusFigures() if "colossus" in modules else None
    camp = CampaignFigures() if "campaign" in modules else None
    watchers = [w.step for w in (giant, camp) if w is not None]

    def on_step(state: GameState, events: list[Event]) -> None:
        for step in watchers:
            step(state, events)
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
        if giant is not None:
            giant.game_over(state)
        if camp is not None:
            camp.game_over(state)
        if progress:
            done = (g + 1) * 30 // games
            sys.stderr.write(f"\r[{'#' * done}{'.' * (30 - done)}] {g + 1}/{games}")
    if progress:
        sys.stderr.write("\n")
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
    if giant is not None:
        out["colossus"] = giant.summary()
    if camp is not None:
        out["campaign"] = camp.summary()
    return out


class CampaignFigures:
    """The campaign's growth figures (spec 002 §7): each living camp's Master level and pool
    size (cards) when day 7 opens, or at the game's end for a game over sooner."""

    DAY = 7

    def __init__(self) -> None:
        self.levels: list[int] = []
        self.pools: list[int] = []
        self.taken = False
        self.reached = 0

    def step(self, state: GameState, events: list[Event]) -> None:
        if not self.taken and state.day >= self.DAY:
            self.reached += 1
            self.take(state)

    def take(self, state: GameState) -> None:
        self.taken = True
        for camp in state.camps:
            if camp.alive:
                self.levels.append(campaign_state.record(state, camp.seat).level)
                self.pools.append(len(core.composition(state, camp)))

    def game_over(self, state: GameState) -> None:
        if not self.taken:
            self.take(state)
        self.taken = False

    def summary(self) -> dict[str, Any]:
        return {"median_level_day7": statistics.median(self.levels) if self.levels else None,
                "median_pool_day7": statistics.median(self.pools) if self.pools else None,
                "levels_day7": dict(sorted(Counter(self.levels).items())),
                "games_reaching_day7": self.reached}


class ColossusFigures:
    """The colossus's balance figures (docs/rules.md "The colossus"): how often it is
    destroyed, how often it drinks the vein, the raids it takes to fell, the raids' lengths,
    and the cooperative room's wins."""

    def __init__(self) -> None:
        self.destroyed = self.vein = self.won = 0
        self.raids_to_fell: list[int] = []
        self.raid_rounds: list[int] = []
        self.raids = 0
        self.reason = ""

    def step(self, state: GameState, events: list[Event]) -> None:
        for e in events:
            if e.type == "RaidEnded":
                self.raid_rounds.append(e.data["rounds"])
            elif e.type == "GameEnded":
                self.reason = e.data["reason"]

    def game_over(self, state: GameState) -> None:
        st = state.mods["colossus"]
        self.raids += st.raids
        if st.destroyed:
            self.destroyed += 1
            self.raids_to_fell.append(st.raids)
        self.vein += self.reason == "colossus"
        self.won += bool(st.winners)
        self.reason = ""

    def summary(self) -> dict[str, Any]:
        return {"destroyed": self.destroyed, "reached_vein": self.vein, "raid_room_won": self.won,
                "raids": self.raids,
                "median_raids_to_fell": statistics.median(self.raids_to_fell)
                if self.raids_to_fell else None,
                "raids_to_fell": dict(sorted(Counter(self.raids_to_fell).items())),
                "median_raid_rounds": statistics.median(self.raid_rounds)
                if self.raid_rounds else None}


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
        if "colossus" in summary:
            print("colossus " + "  ".join(f"{k} {v}" for k, v in summary["colossus"].items()))
        if summary["first_error"]:
            print(summary["first_error"], file=sys.stderr)
    return 1 if summary["errors"] else 0
