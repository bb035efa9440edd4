"""The bot targets of the issue, measured (a script, not a test: it takes minutes).

    python bench/bot_targets.py duels --a hard --b normal --games 400 --budget 0.1 --jobs 2
    python bench/bot_targets.py duels --a normal --b random --games 400
    python bench/bot_targets.py ffa --games 100 --budget 0.05 --jobs 2
    python bench/bot_targets.py duels --a hard --b normal --games 100 --budget 0.05 --jobs 2 \
        --modules tactics

`duels`: level a against level b, class pairs rotated and seats mirrored (draws count half).
`ffa`: seven-camp games, six hard bots and one random-legal seat (its seat rotated); prints how
often the random seat wins. Targets: hard beats normal >= 65%, normal beats random >= 90%,
the random seat wins < 5% of the seven-camp games.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from grailwar.shared.bots.tournament import (
    GameSpec,
    duel_specs,
    run_games,
    summary,
    wilson,
)
from grailwar.shared.engine.data import CLASSES
from grailwar.shared.engine.modules import normalize


def progress(done: int, total: int) -> None:
    if sys.stderr.isatty():
        sys.stderr.write(f"\r{done}/{total}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=("duels", "ffa"))
    parser.add_argument("--a", default="hard")
    parser.add_argument("--b", default="normal")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=10_000)
    parser.add_argument("--budget", type=float, default=None, help="hard bot seconds/decision")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--modules", default="", help="comma list of rules modules (tactics)")
    args = parser.parse_args()
    modules = tuple(m for m in args.modules.split(",") if m)
    try:
        normalize(modules)
    except ValueError as err:
        parser.error(f"--modules: {err}")
    start = time.perf_counter()
    if args.mode == "duels":
        specs = duel_specs(args.a, args.b, args.games, args.seed, budget_s=args.budget,
                           modules=modules)
        results = run_games(specs, jobs=args.jobs, progress=progress)
        out = summary(results, [args.a, args.b])
    else:
        specs = []
        for g in range(args.games):
            levels = ["hard"] * len(CLASSES)
            levels[g % len(CLASSES)] = "random"
            specs.append(GameSpec(tuple(levels), CLASSES, args.seed + g, args.budget,
                                  modules=modules))
        results = run_games(specs, jobs=args.jobs, progress=progress)
        random_wins = sum(1 for r in results if r["winner"] >= 0
                          and r["levels"][r["winner"]] == "random")
        hard_wins = sum(1 for r in results if r["winner"] >= 0
                        and r["levels"][r["winner"]] == "hard")
        rate = random_wins / len(results)
        out = {"games": len(results), "random_seat_wins": random_wins,
               "random_win_rate": round(rate, 4),
               "ci95": [round(x, 4) for x in wilson(rate, len(results))],
               "hard_wins": hard_wins, "draws": len(results) - random_wins - hard_wins}
    out["budget_s"] = args.budget
    out["modules"] = list(modules)
    out["seconds"] = round(time.perf_counter() - start, 1)
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
