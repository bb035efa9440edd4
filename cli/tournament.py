"""`grailwar tournament`: bot levels against each other in duels, seats and classes rotated.

Prints each pairing's win rate with its 95% confidence interval (draws count half) and an Elo
table; `--json` prints one object: `modules` and `options` (the rules modules on, `--modules`),
`games`, `win_rate` per pairing ("hard vs normal": the first level's score), `ci95`, `record`
(wins, draws, losses) and `elo` per level.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys

from ..shared.bots import LEVELS
from ..shared.bots.base import ALIASES
from ..shared.bots.tournament import duel_specs, run_games, summary
from . import modules as module_args
from .progress import Progress


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tournament", help="bot levels against each other: win rates and Elo")
    p.add_argument("--games", type=int, default=20, help="games per pairing of levels")
    p.add_argument("--levels", default="random,easy,normal,hard",
                   help=f"comma list of levels ({', '.join(LEVELS)})")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--budget", type=float, default=None,
                   help="the hard bot's seconds per decision (default 1)")
    p.add_argument("--iterations", type=int, default=None,
                   help="a fixed search size for the hard bot instead of a time budget")
    p.add_argument("--jobs", type=int, default=1, help="games played in parallel processes")
    module_args.add_arguments(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    levels = [ALIASES.get(x.strip(), x.strip()) for x in args.levels.split(",") if x.strip()]
    unknown = [x for x in levels if x not in LEVELS]
    if unknown or len(levels) < 2 or len(set(levels)) != len(levels):
        print(f"--levels needs two or more distinct levels of {', '.join(LEVELS)}, "
              f"got {args.levels!r}", file=sys.stderr)
        return 2
    if args.games < 1:
        print("--games must be at least 1", file=sys.stderr)
        return 2
    chosen = module_args.from_args(args, "tournament")
    if chosen is None:
        return 2
    modules, options = chosen
    levels = sorted(levels, key=lambda x: -LEVELS.index(x) if x in LEVELS else 0)
    specs = []
    for i, (a, b) in enumerate(itertools.combinations(levels, 2)):
        specs += duel_specs(a, b, args.games, args.seed + 100_000 * i, budget_s=args.budget,
                            iterations=args.iterations, modules=modules, options=options)
    bar = Progress(len(specs), sys.stderr.isatty() and not args.json)
    result = {"modules": list(modules), "options": options,
              **summary(run_games(specs, jobs=args.jobs, progress=lambda done, _n: bar.tick(done)),
                        levels)}
    bar.close()
    if args.json:
        print(json.dumps(result))
        return 0
    games = result["games"]
    print(f"{games} game{'' if games == 1 else 's'}, {args.games} per pairing (draws count "
          f"half), modules {module_args.describe(options) or 'none'}")
    for key, rate in result["win_rate"].items():
        lo, hi = result["ci95"][key]
        r = result["record"][key]
        print(f"  {key:<20} {100 * rate:5.1f}%  95% CI {100 * lo:5.1f}–{100 * hi:5.1f}%  "
              f"(W {r['wins']} D {r['draws']} L {r['losses']})")
    print("Elo" + (" (random = 1000)" if "random" in levels else " (mean = 1000)"))
    for level, rating in result["elo"].items():
        print(f"  {level:<8} {rating:7.1f}")
    return 0
