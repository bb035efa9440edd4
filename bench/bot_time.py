"""The hard bot's thinking time per decision on this machine, against normal bots.

Plays games (seven-camp games and duels, alternately; the hard bot's seat rotated) until
`--decisions` hard decisions were timed, with the default budget of 1 s unless `--budget`.
Prints `p50_s`, `p95_s` and `max_s` over every decision, the same over the decisions that
searched (more than one candidate), and the mean search iterations (with --json, one object).
Target: p95 under 1 s with the default budget. Run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from grailwar.shared.bots import HardBot, make_bot
from grailwar.shared.engine import legal_actions, new_game, play, view_for
from grailwar.shared.engine.data import CLASSES


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def measure(decisions: int, budget: float | None, seed: int) -> dict:
    times: list[float] = []
    searched: list[float] = []
    iterations: list[int] = []
    game = 0
    while len(times) < decisions:
        classes = CLASSES if game % 2 == 0 else ("saber", "berserker", "caster", "lancer")[
            game % 3:game % 3 + 2]
        state = new_game(seed=seed + game, classes=classes)
        me = game % len(classes)
        bots = [make_bot("normal", seed + game * 31 + i) for i in range(len(classes))]
        hard = HardBot(seed + game, budget_s=budget)
        arrival = random.Random(seed + game)
        while not state.over and len(times) < decisions:
            seats = sorted(state.prompt.seats)
            seat = seats[0] if len(seats) == 1 else arrival.choice(seats)
            legal = legal_actions(state, seat)
            view = view_for(state, seat)
            if seat == me:
                start = time.perf_counter()
                action = hard.choose(view, legal)
                spent = time.perf_counter() - start
                times.append(spent)
                if hard.last["candidates"] > 1:
                    searched.append(spent)
                    iterations.append(hard.last["iterations"])
            else:
                action = bots[seat].choose(view, legal)
            play(state, action)
        game += 1
    return {
        "budget_s": budget if budget is not None else 1.0,
        "decisions": len(times), "games": game,
        "p50_s": round(statistics.median(times), 4), "p95_s": round(quantile(times, 0.95), 4),
        "max_s": round(max(times), 4),
        "searched": len(searched),
        "searched_p50_s": round(statistics.median(searched), 4) if searched else 0.0,
        "searched_p95_s": round(quantile(searched, 0.95), 4),
        "mean_iterations": round(statistics.mean(iterations), 1) if iterations else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--decisions", type=int, default=150)
    parser.add_argument("--budget", type=float, default=None, help="seconds (default 1)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = measure(args.decisions, args.budget, args.seed)
    print(json.dumps(result) if args.json else
          "\n".join(f"{k:>16}: {v}" for k, v in result.items()))


if __name__ == "__main__":
    main()
