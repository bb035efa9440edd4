"""Class balance with rules modules on, normal bots in every seat (a script, not a test).

    python bench/module_balance.py --modules tactics --games 300 --jobs 2
    python bench/module_balance.py --modules tactics --duels 20 --jobs 2

Seven-camp games on seeds `--seed` .. `--seed + games - 1`: wins by class (and each class's
share of the decided games), draws, errors (a game that raised; must be 0, the first traceback
is printed) and the median battle length. `--duels N` adds N duels per pair of classes and
their median battle length (spec 003: 3-8 rounds with tactics on). Targets (issue 2): no class
wins under 7% or over 25% of the decided seven-camp games. `grailwar simulate` gives the same
figures for the base game.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import traceback
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from grailwar.shared.bots import make_bot
from grailwar.shared.bots.match import run_match
from grailwar.shared.engine import new_game
from grailwar.shared.engine.data import CLASSES
from grailwar.shared.engine.modules import normalize

GameArgs = tuple[int, tuple[str, ...], tuple[str, ...]]


def play(args: GameArgs) -> dict[str, Any]:
    """One game of normal bots; an exception is returned, never raised, so it gets counted."""
    seed, classes, modules = args
    try:
        state = new_game(seed=seed, classes=classes, modules=modules)
        bots = [make_bot("normal", seed * 31 + i) for i in range(len(classes))]
        result = run_match(state, bots, arrival_seed=seed)
    except Exception:
        return {"error": traceback.format_exc()}
    return {"winner": result.winner_class, "rounds": result.battle_rounds, "days": result.days}


def run(games: list[GameArgs], jobs: int) -> list[dict[str, Any]]:
    if jobs <= 1:
        return [play(g) for g in games]
    with ProcessPoolExecutor(jobs) as pool:
        return list(pool.map(play, games, chunksize=4))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--modules", default="tactics", help="comma list ('' for none)")
    parser.add_argument("--games", type=int, default=300, help="seven-camp games")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--duels", type=int, default=0, help="duels per pair of classes")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    modules = tuple(m for m in args.modules.split(",") if m)
    try:
        normalize(modules)
    except ValueError as err:
        parser.error(f"--modules: {err}")
    full = run([(args.seed + g, CLASSES, modules) for g in range(args.games)], args.jobs)
    errors = [r["error"] for r in full if "error" in r]
    done = [r for r in full if "error" not in r]
    wins = {c: sum(1 for r in done if r["winner"] == c) for c in CLASSES}
    decided = max(1, sum(wins.values()))
    rounds = [n for r in done for n in r["rounds"]]
    out: dict[str, Any] = {
        "modules": list(modules), "games": args.games, "errors": len(errors),
        "error_share": round(len(errors) / max(1, args.games), 4),
        "wins_by_class": wins, "win_share": {c: round(n / decided, 3) for c, n in wins.items()},
        "draws": len(done) - sum(wins.values()),
        "outside_7_25": sorted(c for c, n in wins.items() if not 0.07 <= n / decided <= 0.25),
        "median_battle_rounds": statistics.median(rounds) if rounds else None,
        "median_game_days": statistics.median(r["days"] for r in done) if done else None,
    }
    if args.duels:
        pairs = [(args.seed + 1000 * i + g, pair, modules) for i, pair in
                 enumerate(itertools.combinations(CLASSES, 2)) for g in range(args.duels)]
        duels = run(pairs, args.jobs)
        errors += [r["error"] for r in duels if "error" in r]
        out["duel_errors"] = sum(1 for r in duels if "error" in r)
        duel_rounds = [n for r in duels if "error" not in r for n in r["rounds"]]
        out["median_duel_rounds"] = statistics.median(duel_rounds) if duel_rounds else None
    print(json.dumps(out))
    if errors:
        sys.stderr.write(errors[0])


if __name__ == "__main__":
    main()
