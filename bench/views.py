"""What a server does for each action between its log and its sockets, on one core: apply it,
make the legal actions of every prompted seat, and make and pack the messages of eight feeds
(seven seats and the spectators) as `server/feeds.py` does. Random bots play whole 7-camp
games; prints `ms_per_action` for the three stages (the best of --rounds, CPU time).

    python bench/views.py --modules campaign

A shared host's noise blurs a few per cent. For an A/B of two trees, count instructions
instead: `--callgrind` turns valgrind's instrumentation on for the measured games only, and
the figure is valgrind's "Collected" over `actions` (run the interpreter itself, not a shim):

    valgrind --tool=callgrind --instr-atstart=no python bench/views.py --modules campaign \
        --games 2 --rounds 1 --callgrind
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import time
from typing import Any

import msgpack
from grailwar.cli import modules as module_args
from grailwar.server.feeds import ViewFeed
from grailwar.shared.bots import RandomBot
from grailwar.shared.engine import apply, legal_actions, new_game
from grailwar.shared.engine.sharing import Shared

STAGES = ("apply", "legal", "views")


def play(seeds: range, game: dict[str, Any]) -> tuple[int, dict[str, float]]:
    """Actions played and CPU seconds per stage over whole games on these seeds."""
    spent = dict.fromkeys(STAGES, 0.0)
    actions = 0
    for g in seeds:
        state = new_game(seed=g, **game)
        bots = [RandomBot(g * 7 + i) for i in range(7)]
        feeds = [ViewFeed(x) for x in range(7)] + [ViewFeed(None)]
        rng, shared = random.Random(g), None
        while not state.over:
            seat = rng.choice(sorted(state.prompt.seats))
            action = bots[seat].choose(None, legal_actions(state, seat))
            t0 = time.process_time()
            state, _ = apply(state, action)
            t1 = time.process_time()
            legal = {f.seat: legal_actions(state, f.seat) for f in feeds if f.seat is not None}
            t2 = time.process_time()
            shared = Shared(state, shared)
            for f in feeds:
                msgpack.packb(f.message(state, shared, legal.get(f.seat, []), {}))
            t3 = time.process_time()
            for stage, seconds in zip(STAGES, (t1 - t0, t2 - t1, t3 - t2), strict=True):
                spent[stage] += seconds
            actions += 1
    return actions, spent


def callgrind(switch: str) -> None:
    """Turn valgrind's instrumentation of this process on or off (nothing outside valgrind)."""
    subprocess.run(["callgrind_control", "-i", switch, str(os.getpid())],
                   capture_output=True, check=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=6, help="games per round")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--callgrind", action="store_true",
                        help="instrument the measured games only (run under valgrind)")
    module_args.add_arguments(parser)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    chosen = module_args.from_args(args, "bench/views.py")
    if chosen is None:
        return 2
    game = {"modules": chosen[0], "options": chosen[1]} if chosen[0] else {}
    play(range(100, 102), game)  # warm-up: imports, caches and memos
    if args.callgrind:
        callgrind("on")
    best: dict[str, float] = {}
    total = 0  # every measured action: what the instructions collected are divided by
    for r in range(args.rounds):
        actions, spent = play(range(r * args.games, (r + 1) * args.games), game)
        total += actions
        per = {stage: seconds * 1e3 / actions for stage, seconds in spent.items()}
        if not best or sum(per.values()) < sum(best.values()):
            best = per
    if args.callgrind:
        callgrind("off")
    result: dict[str, Any] = {"modules": list(chosen[0]), "actions": total,
                              **{f"{k}_ms_per_action": round(v, 4) for k, v in best.items()},
                              "ms_per_action": round(sum(best.values()), 4)}
    print(json.dumps(result) if args.json else
          "\n".join(f"{k:>24}: {v}" for k, v in result.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
