"""Engine speed: whole 7-camp games with random bots, and state copy + apply (what a search bot
pays per node). One core. Prints `games_per_s` and `applies_per_s` (with --json, one object).

With `--modules` (and `--option`, as `grailwar simulate` takes them) the same run measures the
base game and the game with those modules, interleaved in rounds so that a neighbour's load
weighs on both alike, and prints `modules_games_per_s`, `modules_applies_per_s` and `ratio`:
the lower of the two speed ratios (modules / base). Target: tactics ≥ 0.8.

    python bench/engine.py --modules tactics
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import time
from typing import Any

from grailwar.cli import modules as module_args
from grailwar.shared.bots import RandomBot
from grailwar.shared.bots.match import run_match
from grailwar.shared.engine import apply, legal_actions, new_game, play

ROUNDS = 5  # measurement rounds, base and modules alternating


def play_games(seeds: range, game: dict[str, Any]) -> tuple[float, int]:
    """Seconds and steps of whole games on these seeds (`game`: new_game's modules/options)."""
    steps = 0
    start = time.perf_counter()
    for g in seeds:
        state = new_game(seed=g, **game)
        steps += run_match(state, [RandomBot(g * 7 + i) for i in range(7)], arrival_seed=g).steps
    return time.perf_counter() - start, steps


def sample_positions(count: int, game: dict[str, Any]) -> list[tuple]:
    """(state, action) pairs drawn from random games, in every kind of prompt."""
    rng = random.Random(1)
    pairs = []
    seed = 0
    while len(pairs) < count:
        state = new_game(seed=seed, **game)
        seed += 1
        while not state.over and len(pairs) < count:
            seat = rng.choice(sorted(state.prompt.seats))
            action = rng.choice(legal_actions(state, seat))
            if rng.random() < 0.2:
                pairs.append((state.clone(), action))
            play(state, action)
    return pairs


def apply_seconds(pairs: list[tuple], first: int, count: int) -> float:
    """Seconds to apply actions `first` .. `first + count`, cycling over the sampled pairs."""
    start = time.perf_counter()
    for i in range(first, first + count):
        state, action = pairs[i % len(pairs)]
        apply(state, action)
    return time.perf_counter() - start


def measure(games: int, applies: int, variants: dict[str, dict[str, Any]]
            ) -> dict[str, dict[str, float]]:
    """Per variant: games/s, steps per game and applies/s, the variants taking turns."""
    pairs = {name: sample_positions(5_000, game) for name, game in variants.items()}
    # The sampled states live to the end: frozen, the collector's full passes skip them. Left
    # to it, a full pass over 10,000 states fell in one variant's applies or the other's as the
    # allocation counts went (base applies 40,000/s against 56,000 from one tree to the next).
    gc.collect()
    gc.freeze()
    totals = {name: [0.0, 0, 0.0] for name in variants}  # game seconds, steps, apply seconds
    for r in range(ROUNDS):
        seeds = range(r * games // ROUNDS, (r + 1) * games // ROUNDS)
        first, count = r * applies // ROUNDS, (r + 1) * applies // ROUNDS - r * applies // ROUNDS
        for name, game in variants.items():
            seconds, steps = play_games(seeds, game)
            totals[name][0] += seconds
            totals[name][1] += steps
            totals[name][2] += apply_seconds(pairs[name], first, count)
    return {name: {"games_per_s": games / t[0], "steps_per_game": t[1] / games,
                   "applies_per_s": applies / t[2]} for name, t in totals.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--applies", type=int, default=20_000)
    module_args.add_arguments(parser)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    chosen = module_args.from_args(args, "bench/engine.py")
    if chosen is None:
        return 2
    variants = {"": {}}
    if chosen[0]:
        variants["modules_"] = {"modules": chosen[0], "options": chosen[1]}
    figures = measure(args.games, args.applies, variants)
    result: dict[str, Any] = {"games": args.games}
    if chosen[0]:
        result["modules"], result["options"] = list(chosen[0]), chosen[1]
    for prefix, f in figures.items():
        result[prefix + "games_per_s"] = round(f["games_per_s"], 1)
        result[prefix + "steps_per_game"] = round(f["steps_per_game"], 1)
        result[prefix + "applies_per_s"] = round(f["applies_per_s"])
    if chosen[0]:
        base, mods = figures[""], figures["modules_"]
        result["games_ratio"] = round(mods["games_per_s"] / base["games_per_s"], 3)
        result["applies_ratio"] = round(mods["applies_per_s"] / base["applies_per_s"], 3)
        result["ratio"] = min(result["games_ratio"], result["applies_ratio"])
    print(json.dumps(result) if args.json else
          "\n".join(f"{k:>22}: {v}" for k, v in result.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
