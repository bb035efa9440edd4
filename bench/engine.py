"""Engine speed: whole 7-camp games with random bots, and state copy + apply (what a search bot
pays per node). One core. Prints `games_per_s` and `applies_per_s` (with --json, one object)."""

from __future__ import annotations

import argparse
import json
import random
import time

from grailwar.shared.bots import RandomBot
from grailwar.shared.bots.match import run_match
from grailwar.shared.engine import apply, legal_actions, new_game, play


def games_per_second(games: int) -> tuple[float, int]:
    steps = 0
    start = time.perf_counter()
    for g in range(games):
        state = new_game(seed=g)
        steps += run_match(state, [RandomBot(g * 7 + i) for i in range(7)], arrival_seed=g).steps
    return games / (time.perf_counter() - start), steps


def sample_positions(count: int) -> list[tuple]:
    """(state, action) pairs drawn from random games, in every kind of prompt."""
    rng = random.Random(1)
    pairs = []
    seed = 0
    while len(pairs) < count:
        state = new_game(seed=seed)
        seed += 1
        while not state.over and len(pairs) < count:
            seat = rng.choice(sorted(state.prompt.seats))
            action = rng.choice(legal_actions(state, seat))
            if rng.random() < 0.2:
                pairs.append((state.clone(), action))
            play(state, action)
    return pairs


def applies_per_second(count: int, positions: int = 5_000) -> float:
    """Apply `count` actions, cycling over `positions` sampled (state, action) pairs."""
    pairs = sample_positions(positions)
    start = time.perf_counter()
    for i in range(count):
        state, action = pairs[i % positions]
        apply(state, action)
    return count / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--applies", type=int, default=20_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    gps, steps = games_per_second(args.games)
    aps = applies_per_second(args.applies)
    result = {"games": args.games, "games_per_s": round(gps, 1),
              "steps_per_game": round(steps / args.games, 1), "applies_per_s": round(aps)}
    print(json.dumps(result) if args.json else
          "\n".join(f"{k:>15}: {v}" for k, v in result.items()))


if __name__ == "__main__":
    main()
