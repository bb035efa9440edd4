"""The hard bot: Monte Carlo search over determinized hidden information, within a time budget.

For each decision it

1. prunes the legal actions to the ones worth searching (`candidates`: a few squares for
   Teleport / Retreat / moves, a few Tactical Refinement hands, the likeliest targets), always
   keeping the normal bot's own choice;
2. repeats, until its budget is spent (or a fixed number of iterations, for tests): sample a
   full state from its view (`determinize.state_from_view`: rivals' hands, MP, Masters and the
   future dice are drawn, never read), pick a candidate by UCB1, play it, then play the game on
   with the cheap rollout policy of every camp up to a horizon — the end of the current battle
   when the decision is inside one, else the end of the current turn — and score the result
   from its own seat (`evaluate`);
3. plays the candidate with the best mean score; the normal bot's choice wins near-ties, so a
   handful of noisy rollouts never talk it out of a sensible move.

It sees nothing but its seat's view and the legal actions, like every bot.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Any

from ..engine import legal_actions, play
from ..engine.actions import (
    Action,
    DeclareAmbush,
    DeclareEncounter,
    DeclareInvestigate,
    Move,
    UseCommandSpell,
)
from ..engine.data import default_ruleset
from ..engine.errors import RulesError
from ..engine.state import GameState
from ..engine.turns import TURN_NAMES
from .determinize import state_from_view
from .heuristic import HeuristicBot
from .policy import rollout_action

DEFAULT_BUDGET_S = 1.0
ROLLOUT_STEPS = 600  # a safety cap: a rollout stops here even before its horizon
SAFETY = 0.85  # the share of the budget the search may use (the rest: setup and slack)
EXPLORE = 0.35  # UCB1 exploration constant, for values in [0, 1]
BATTLE_ROUNDS = 3  # inside a battle, the horizon: the end of the battle or of this many rounds
MIN_VISITS = 8  # a candidate needs this many playouts before it may replace the normal choice
PRIOR_MARGIN = 0.02  # ... and must beat the normal choice's mean by this
CONFIDENCE = 1.5  # ... plus this many standard errors of the difference


class HardBot:
    name = "hard"
    needs_view = True

    def __init__(self, seed: int = 0, budget_s: float | None = None,
                 iterations: int | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.rng = random.Random(seed)
        self.rules = default_ruleset()
        self.budget_s = DEFAULT_BUDGET_S if budget_s is None else budget_s
        self.iterations = iterations
        self.clock = clock
        self.guide = HeuristicBot(seed)
        self.last: dict[str, Any] = {}  # statistics of the last decision, for tests and benches

    # --- the decision --------------------------------------------------------------------------
    def choose(self, view: dict[str, Any] | None, legal: list[Action]) -> Action:
        assert view is not None
        start = self.clock()
        prior = self.guide.choose(view, legal)
        options = candidates(view, legal, prior, self.rules)
        self.last = {"candidates": len(options), "iterations": 0, "errors": 0}
        if len(options) == 1:
            return options[0]
        deadline = start + self.budget_s * SAFETY
        visits = [0] * len(options)
        totals = [0.0] * len(options)
        squares = [0.0] * len(options)
        n = 0
        while True:
            if self.iterations is not None:
                if n >= self.iterations:
                    break
            elif self.clock() >= deadline:
                break
            arm = self._select(visits, totals, n)
            try:
                value = self._simulate(view, options[arm])
            except Exception as err:  # an engine error in an imagined game must not cost the
                value = None  # real one: count it (tests require none) and score it as a loss
                self.last["error"] = repr(err)
            if value is None:  # the sampled state refused the action, or the playout failed
                value = 0.0
                self.last["errors"] += 1
            visits[arm] += 1
            totals[arm] += value
            squares[arm] += value * value
            n += 1
        self.last["iterations"] = n
        self.last["values"] = {str(a): (round(totals[i] / visits[i], 3), visits[i])
                               for i, a in enumerate(options) if visits[i]}
        return self._best(options, visits, totals, squares)

    def _select(self, visits: list[int], totals: list[float], n: int) -> int:
        for i, v in enumerate(visits):
            if v == 0:
                return i
        log_n = math.log(n)
        return max(range(len(visits)), key=lambda i: totals[i] / visits[i]
                   + EXPLORE * math.sqrt(log_n / visits[i]))

    def _best(self, options: list[Action], visits: list[int], totals: list[float],
              squares: list[float]) -> Action:
        """The normal bot's choice (options[0]) unless another candidate, well sampled, is
        better by more than the noise of both estimates and a small margin."""
        if visits[0] == 0:
            return options[0]

        def mean(i: int) -> float:
            return totals[i] / visits[i]

        def var(i: int) -> float:
            m = mean(i)
            return max(squares[i] / visits[i] - m * m, 0.01)

        enough = max(MIN_VISITS, max(visits) // 4)
        rivals = [i for i in range(1, len(options)) if visits[i] >= enough]
        if not rivals:
            return options[0]
        best = max(rivals, key=lambda i: (mean(i), visits[i]))
        noise = math.sqrt(var(best) / visits[best] + var(0) / visits[0])
        if mean(best) - mean(0) > PRIOR_MARGIN + CONFIDENCE * noise:
            return options[best]
        return options[0]

    # --- one playout --------------------------------------------------------------------------
    def _simulate(self, view: dict[str, Any], action: Action) -> float | None:
        """Play `action` in a fresh determinization, roll out to the horizon, score it."""
        me = view["you"]
        state = state_from_view(view, self.rules, self.rng)
        try:
            play(state, action)
        except RulesError:
            return None
        battle = view["battle"]
        last_round = battle["round"] + BATTLE_ROUNDS - 1 if battle is not None else 0
        when = (view["day"], TURN_NAMES.index(view["turn"]))
        rng = self.rng
        for _ in range(ROLLOUT_STEPS):
            if state.over:
                break
            if battle is not None:
                b = state.battle
                if b is None or b.round > last_round:
                    break
            elif (state.day, state.turn) != when:
                break
            seats = state.prompt.seats
            seat = next(iter(seats)) if len(seats) == 1 else rng.choice(sorted(seats))
            legal = legal_actions(state, seat)
            if not legal:  # a sampled module's battle can leave a rival nothing to play: the
                self.last["stuck"] = self.last.get("stuck", 0) + 1  # playout ends there, counted
                break
            play(state, rollout_action(state, seat, legal, rng))
        return evaluate(state, me)


# --- evaluation --------------------------------------------------------------------------------
def strength(state: GameState, seat: int) -> float:
    """How well placed one camp is, in [0, 1]: alive, HP above all, then MP, Command Spells and
    an awake Master."""
    c = state.camps[seat]
    if not c.alive:
        return 0.0
    mana = c.mp + (c.master_mp * 0.5 if c.spells > 0 else 0)
    return (0.2 + 0.55 * c.hp / c.servant.hp + 0.1 * min(1.0, mana / c.servant.mp)
            + 0.15 * min(c.spells, 3) / 3 - (0.1 if c.asleep else 0.0))


def evaluate(state: GameState, seat: int) -> float:
    """The score of `state` for `seat`, in [0, 1]: 1 won, 0 lost or out; otherwise its share of
    the strength of itself and its strongest rival."""
    if state.over:
        if state.winner == seat:
            return 1.0
        return 0.0 if state.winner >= 0 or not state.camps[seat].alive else 0.3
    mine = strength(state, seat)
    if mine <= 0:
        return 0.0
    rivals = [strength(state, c.seat) for c in state.camps if c.seat != seat and c.alive]
    if not rivals:
        return 1.0
    top = max(rivals)
    share = mine / (mine + top)
    alive_bonus = 0.1 * (1 - len(rivals) / (len(state.camps) - 1))
    return 0.05 + 0.85 * share + alive_bonus


# --- pruning -------------------------------------------------------------------------------------
def candidates(view: dict[str, Any], legal: list[Action], prior: Action,
               rules: Any = None) -> list[Action]:
    """The legal actions worth searching, the normal bot's choice first."""
    rules = rules or default_ruleset()
    width = rules.maps[view["map"]].width
    me = view["camps"][view["you"]]
    rivals = [c for c in view["camps"] if c["alive"] and c["seat"] != me["seat"]]

    def dist(a: int, b: int) -> int:
        return abs(a % width - b % width) + abs(a // width - b // width)

    def away(square: int) -> int:
        return min((dist(square, c["pos"]) for c in rivals), default=0)

    keep: list[Action] = [prior]
    # Command Spells are few and never come back: searched only in a pinch (own HP low) or to
    # finish a weakened rival in battle; otherwise they only stay if the normal bot wants them.
    ratio = me["hp"] / max(1, me["max_hp"])
    battle = view["battle"]
    foes = [view["camps"][x] for x in battle["seats"] if x != me["seat"]] if battle else []
    spells_wanted = ratio < 0.5 or any(c["hp"] < 0.35 * c["max_hp"] for c in foes)
    moves: list[Move] = []
    squares: dict[str, list[UseCommandSpell]] = {}
    refine: list[UseCommandSpell] = []
    looks: list[DeclareInvestigate] = []
    fights: list[Action] = []
    for a in legal:
        t = type(a)
        if t is Move:
            moves.append(a)
        elif t is UseCommandSpell and not spells_wanted:
            continue
        elif t is UseCommandSpell and a.arg:
            if a.arg.isdigit():
                squares.setdefault(a.spell, []).append(a)
            else:
                refine.append(a)
        elif t is DeclareInvestigate:
            looks.append(a)
        elif t in (DeclareEncounter, DeclareAmbush):
            fights.append(a)
        else:
            keep.append(a)
    if moves:
        keep.extend(_moves(view, me, rivals, moves, dist, away))
    for spell_moves in squares.values():
        keep.append(max(spell_moves, key=lambda a: (away(int(a.arg)), -int(a.arg))))
        if rivals and view["battle"] is None:  # a teleport next to the weakest rival
            weakest = min(rivals, key=lambda c: c["hp"])
            keep.append(min(spell_moves, key=lambda a: (dist(int(a.arg), weakest["pos"]),
                                                        int(a.arg))))
    if refine:
        wanted = {"BBBBBB", rules.by_id[me["servant"]].np.card * 6}
        keep.extend(a for a in refine if a.arg in wanted)
    if looks:
        known = me["known"]
        keep.append(min(looks, key=lambda a: (known[a.target_class], a.target_class)))
    if fights:
        camps = view["camps"]
        targets = sorted({a.target for a in fights}, key=lambda t: (camps[t]["hp"], t))[:3]
        keep.extend(a for a in fights if a.target in targets)
    out: list[Action] = []
    for a in keep:
        if a not in out:
            out.append(a)
    return out


def _moves(view: dict[str, Any], me: dict[str, Any], rivals: list[dict[str, Any]],
           moves: list[Move], dist: Callable[[int, int], int],
           away: Callable[[int], int]) -> list[Move]:
    """A few squares: onto or next to each nearby rival, and the safest one."""
    if not rivals:
        return moves[:1]
    battle = view["battle"]
    pool = rivals
    if battle is not None:
        pool = [c for c in rivals if c["seat"] in battle["seats"]] or rivals
    out = [max(moves, key=lambda m: (away(m.to), -m.to))]
    for c in sorted(pool, key=lambda c: (c["hp"], c["seat"]))[:2]:
        out.append(min(moves, key=lambda m: (dist(m.to, c["pos"]), m.to)))
        if battle is None:
            near = [m for m in moves if dist(m.to, c["pos"]) == 1]
            if near:
                out.append(min(near, key=lambda m: m.to))
    return out
