"""Balance check: a round robin of duels between every pair of classes, then seven-camp games,
all with the heuristic bot. Prints win rates per class and the median battle length.
Targets (issue 2): median duel 3–8 rounds; no class above 25% or below 7% of 7-camp wins.

    python bench/balance.py --modules tactics [--option tactics.concentration=false]

plays every game with those rules modules on (`grailwar simulate` takes the same flags).

    python bench/balance.py --servant-duels 20

adds (issue 9) duels between every two Servants of the roster, of different classes, whose
parameters have the same total: the median battle length of each pair, and the pairs outside
3–8 rounds (target: none).

    python bench/balance.py --campaign-duels 10 --level 3

plays (issue 13) the same equal-total pairs as campaign duels, tags off, with both Masters
raised to `--level` (the day-7 median of `simulate --modules campaign`) on day 1, each level's
growth chosen by the normal bot as in a war; it prints the median battle length (target 3-8)
and skips the class round robin and the seven-camp games."""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
from collections import Counter

from grailwar.cli import modules as module_args
from grailwar.cli.simulate import simulate
from grailwar.shared.bots import make_bot
from grailwar.shared.bots.match import run_match
from grailwar.shared.engine import legal_actions, new_game, play, view_for
from grailwar.shared.engine.data import CLASSES, Servant, default_ruleset
from grailwar.shared.modules.campaign.growth import Growth
from grailwar.shared.modules.campaign.section import section_of


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--duels", type=int, default=40, help="games per pair of classes")
    parser.add_argument("--games", type=int, default=300, help="seven-camp games")
    parser.add_argument("--servant-duels", type=int, default=0,
                        help="games per pair of Servants of equal parameter total (0: none)")
    parser.add_argument("--campaign-duels", type=int, default=0,
                        help="campaign games per pair of Servants of equal parameter total, "
                             "both Masters at --level (0: none)")
    parser.add_argument("--level", type=int, default=3, help="the Masters' level, with "
                        "--campaign-duels")
    module_args.add_arguments(parser)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.campaign_duels:
        out = campaign_duels(args.campaign_duels, args.level)
        print(json.dumps(out) if args.json else json.dumps(out, indent=1))
        return 0
    chosen = module_args.from_args(args, "bench/balance.py")
    if chosen is None:
        return 2
    game = {"modules": chosen[0], "options": chosen[1]}
    duel_wins: Counter[str] = Counter()
    duel_games: Counter[str] = Counter()
    rounds = []
    errors = 0
    for a, b in itertools.combinations(CLASSES, 2):
        result = simulate(args.duels, 1000, ["heuristic"], [a, b], **game)
        errors += result["errors"]
        for cls, n in result["wins_by_class"].items():
            duel_wins[cls] += n
        duel_games[a] += args.duels
        duel_games[b] += args.duels
        rounds.append(result["median_battle_rounds"])
    full = simulate(args.games, 0, ["heuristic"], list(CLASSES), **game)
    decided = max(1, sum(full["wins_by_class"].values()))
    out = {
        "modules": list(chosen[0]), "options": chosen[1],
        "duel_win_rate": {c: round(duel_wins[c] / duel_games[c], 3) for c in CLASSES},
        "median_duel_rounds": sorted(rounds)[len(rounds) // 2],
        "games": args.games,
        "errors": errors + full["errors"],
        "draws": full["draws"],
        "win_share": {c: round(n / decided, 3) for c, n in full["wins_by_class"].items()},
        "median_battle_rounds": full["median_battle_rounds"],
        "median_game_days": full["median_game_days"],
    }
    if args.servant_duels:
        out["servant_duels"] = servant_duels(args.servant_duels, game)
    print(json.dumps(out) if args.json else json.dumps(out, indent=1))
    return 0


def equal_pairs() -> list[tuple[Servant, Servant]]:
    """Every two Servants of the roster, of different classes, whose parameters have the same
    total."""
    roster = [s for entries in default_ruleset().roster.values() for s in entries]
    return [(a, b) for a, b in itertools.combinations(roster, 2)
            if a.cls != b.cls and sum(a.params.values()) == sum(b.params.values())]


def servant_duels(games: int, game: dict) -> dict:
    """Median battle rounds of duels between Servants of equal parameter total."""
    medians = {}
    errors = 0
    for a, b in equal_pairs():
        result = simulate(games, 2000, ["heuristic"], [a.cls, b.cls], servants=[a.id, b.id],
                          **game)
        errors += result["errors"]
        medians[f"{a.id}-{b.id}"] = result["median_battle_rounds"]
    values = sorted(v for v in medians.values() if v is not None)
    return {"pairs": len(medians), "errors": errors,
            "median_rounds": {"min": values[0], "median": values[len(values) // 2],
                              "max": values[-1]},
            "outside_3_8": {k: v for k, v in medians.items() if v is None or not 3 <= v <= 8}}


def campaign_duels(games: int, level: int) -> dict:
    """Battle lengths of two-camp campaign games between Servants of equal parameter total,
    both Masters raised to `level` once day 1 opens (the levels' growth then chosen by the
    normal bot at its prompts, as in a war). Tags are off: a tag would make the two unequal."""
    rounds: list[int] = []
    medians: dict[str, float | None] = {}
    for i, (a, b) in enumerate(equal_pairs()):
        pair: list[int] = []
        for g in range(games):
            seed = 3000 + 100 * i + g
            state = new_game(seed=seed, classes=[a.cls, b.cls], modules=["campaign"],
                             options={"campaign": {"tags": "off"}}, servants=[a.id, b.id])
            bots = [make_bot("heuristic", seed * 31 + x) for x in range(2)]
            while state.day < 1:  # day 0, played by the bots
                seat = min(state.prompt.seats)
                play(state, bots[seat].choose(view_for(state, seat), legal_actions(state, seat)))
            growth = section_of(state, Growth)
            for seat in range(2):
                for _ in range(level - 1):  # Masters start at level 1
                    growth.level_up(state, seat, "combat")
            pair.extend(run_match(state, bots, arrival_seed=seed).battle_rounds)
        medians[f"{a.id}-{b.id}"] = statistics.median(pair) if pair else None
        rounds.extend(pair)
    return {"level": level, "pairs": len(medians), "battles": len(rounds),
            "median_rounds": statistics.median(rounds) if rounds else None,
            "outside_3_8": {k: v for k, v in medians.items() if v is None or not 3 <= v <= 8}}


if __name__ == "__main__":
    raise SystemExit(main())
