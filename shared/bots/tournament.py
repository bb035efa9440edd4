"""Bot levels against each other: duels with seats and classes rotated, win rates with 95%
confidence intervals, and an Elo table. Used by `grailwar tournament` and the benches.

Every pairing plays its games in mirrored pairs: the same seed and the same two classes twice,
the levels swapping seats, so neither level is favoured by a class, a seat or the dice.
A draw (the day limit with both alive) counts half a win to each side.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from ..engine import legal_actions, new_game, play, view_for
from ..engine.data import CLASSES
from .base import make_bot

CLASS_PAIRS = list(itertools.combinations(CLASSES, 2))


@dataclass(frozen=True)
class GameSpec:
    """One game: a level per seat, the classes, the seed, the hard bot's budget and the rules
    modules switched on."""

    levels: tuple[str, ...]
    classes: tuple[str, ...]
    seed: int
    budget_s: float | None = None
    iterations: int | None = None
    modules: tuple[str, ...] = ()


def play_game(spec: GameSpec) -> dict[str, Any]:
    """Play one game to its end; returns the winning seat (-1: nobody) and its levels."""
    state = new_game(seed=spec.seed, classes=spec.classes, modules=spec.modules)
    bots = [make_bot(level, spec.seed * 31 + i, budget_s=spec.budget_s,
                     iterations=spec.iterations) for i, level in enumerate(spec.levels)]
    arrival = random.Random(spec.seed)
    steps = 0
    while not state.over:
        seats = sorted(state.prompt.seats)
        seat = seats[0] if len(seats) == 1 else arrival.choice(seats)
        bot = bots[seat]
        legal = legal_actions(state, seat)
        play(state, bot.choose(view_for(state, seat) if bot.needs_view else None, legal))
        steps += 1
    return {"levels": list(spec.levels), "classes": list(spec.classes), "seed": spec.seed,
            "winner": state.winner, "days": min(state.day, state.settings.day_limit),
            "steps": steps}


def duel_specs(a: str, b: str, games: int, seed: int, budget_s: float | None = None,
               iterations: int | None = None, modules: tuple[str, ...] = ()) -> list[GameSpec]:
    """`games` duels of level a against level b: class pairs rotated, seats mirrored."""
    specs = []
    for g in range(games):
        pair = CLASS_PAIRS[(g // 2) % len(CLASS_PAIRS)]
        levels = (a, b) if g % 2 == 0 else (b, a)
        specs.append(GameSpec(levels, pair, seed + g // 2, budget_s, iterations, modules))
    return specs


def run_games(specs: Sequence[GameSpec], jobs: int = 1,
              progress: Callable[[int, int], None] | None = None) -> list[dict[str, Any]]:
    """Play every game, on `jobs` processes; results in the order of `specs`."""
    results: list[dict[str, Any]] = []
    if jobs <= 1:
        for i, spec in enumerate(specs):
            results.append(play_game(spec))
            if progress:
                progress(i + 1, len(specs))
        return results
    with ProcessPoolExecutor(jobs) as pool:
        for i, result in enumerate(pool.map(play_game, specs, chunksize=1)):
            results.append(result)
            if progress:
                progress(i + 1, len(specs))
    return results


# --- statistics ------------------------------------------------------------------------------
def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate `score` over `n` games."""
    if n == 0:
        return (0.0, 1.0)
    denom = 1 + z * z / n
    centre = (score + z * z / (2 * n)) / denom
    half = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def pair_scores(results: Sequence[dict[str, Any]]) -> dict[tuple[str, str], list[float]]:
    """For every ordered pair of different levels that met, the scores of the first against the
    second (1 win, 0.5 draw, 0 loss), one per (game, pair of seats)."""
    out: dict[tuple[str, str], list[float]] = {}
    for r in results:
        levels, winner = r["levels"], r["winner"]
        for i, j in itertools.permutations(range(len(levels)), 2):
            a, b = levels[i], levels[j]
            if a == b:
                continue
            score = 0.5 if winner not in (i, j) else 1.0 if winner == i else 0.0
            out.setdefault((a, b), []).append(score)
    return out


def elo(results: Sequence[dict[str, Any]], anchor: str | None = None,
        base: float = 1000.0) -> dict[str, float]:
    """Elo ratings that best explain the pairwise scores (a Bradley-Terry fit by minorization-
    maximization, draws as half wins), the mean (or `anchor`) at `base`."""
    scores = pair_scores(results)
    levels = sorted({lv for pair in scores for lv in pair})
    if not levels:
        return {}
    wins = {lv: 0.0 for lv in levels}
    games: dict[tuple[str, str], int] = {}
    for (a, b), s in scores.items():
        wins[a] += sum(s)
        games[(a, b)] = len(s)
    strength = dict.fromkeys(levels, 1.0)
    for _ in range(2000):
        new = {}
        for a in levels:
            denom = sum(n / (strength[a] + strength[b]) for (x, b), n in games.items() if x == a)
            w = min(max(wins[a], 0.25), sum(n for (x, _), n in games.items() if x == a) - 0.25)
            new[a] = w / denom if denom else strength[a]
        norm = math.exp(sum(math.log(v) for v in new.values()) / len(new))
        new = {k: v / norm for k, v in new.items()}
        done = max(abs(new[k] - strength[k]) for k in levels) < 1e-10
        strength = new
        if done:
            break
    rating = {k: 400 * math.log10(v) for k, v in strength.items()}
    shift = base - (rating[anchor] if anchor in rating else sum(rating.values()) / len(rating))
    return {k: round(v + shift, 1) for k, v in sorted(rating.items(), key=lambda kv: -kv[1])}


def summary(results: Sequence[dict[str, Any]], levels: Sequence[str]) -> dict[str, Any]:
    """The tournament as one plain object: games, win rates per pairing (with their 95% CI,
    wins, draws and losses) and Elo per level."""
    scores = pair_scores(results)
    win_rate: dict[str, float] = {}
    ci95: dict[str, list[float]] = {}
    record: dict[str, dict[str, int]] = {}
    for a, b in itertools.combinations(levels, 2):
        if (a, b) not in scores:
            continue
        s = scores[(a, b)]
        key = f"{a} vs {b}"
        rate = sum(s) / len(s)
        win_rate[key] = round(rate, 4)
        ci95[key] = [round(x, 4) for x in wilson(rate, len(s))]
        record[key] = {"games": len(s), "wins": s.count(1.0), "draws": s.count(0.5),
                       "losses": s.count(0.0)}
    anchor = "random" if "random" in levels else None
    return {"games": len(results), "win_rate": win_rate, "ci95": ci95, "record": record,
            "elo": elo(results, anchor=anchor)}
