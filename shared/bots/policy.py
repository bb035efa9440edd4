"""A cheap playing policy on a whole `GameState`, for the hard bot's rollouts.

The hard bot never sees the real state; it plays out *determinized* states it sampled from its
own view (`determinize.py`). Inside such an imagined game every camp is moved by this policy,
which reads the imagined state directly (a view per step would cost more than the step). It
plays like the normal bot in a few lines: rest when hurt or before the Master would sleep, fight
weaker rivals, fire Noble Phantasms, attack with the strongest card, defend with the counter.
With rules modules on it asks the bot part of each (`bots.modules`): at the prompt kinds a
module adds (`BotPart.rollout`), for the battlefield of a Main Action (`BotPart.ground`: who
keeps out of melee, where a Move is held) and before the counter card of a Reaction
(`BotPart.rollout_reaction`).
"""

from __future__ import annotations

import random

from ..engine.actions import (
    Action,
    AnswerAmbush,
    AnswerIntervention,
    Attack,
    ChooseReward,
    DeclareAmbush,
    DeclareDisengage,
    DeclareEncounter,
    DeclareNoblePhantasm,
    DeclareRest,
    DeclareSoulEating,
    DeclareWait,
    Move,
    Negotiate,
    React,
    Ready,
    UseNoblePhantasm,
    UseSkill,
    Wait,
)
from ..engine.state import Camp, GameState
from .modules import PLAIN, parts

_ATTACK_VALUE = {"B": 3.0, "A": 2.0, "Q": 1.5, "L": 0.0}


def ratio(camp: Camp) -> float:
    return camp.hp / camp.servant.hp


def distance(s: GameState, a: int, b: int) -> int:
    w = s.rules.maps[s.settings.map_id].width
    return abs(a % w - b % w) + abs(a // w - b // w)


def rollout_action(s: GameState, seat: int, legal: list[Action], rng: random.Random) -> Action:
    """One action for `seat` at the current prompt, from `legal` (never empty): the policy's
    choice, or the first legal action where a module narrowed the prompt past it (only the
    actions a module leaves after a declaration, or while a choice of its own is pending)."""
    action = _policy(s, seat, legal, rng)
    return action if action in legal else legal[0]


def _policy(s: GameState, seat: int, legal: list[Action], rng: random.Random) -> Action:
    kind = s.prompt.kind
    camp = s.camps[seat]
    if kind == "declare":
        return _declare(s, camp, legal, rng)
    if kind == "main":
        return _main(s, camp, legal, rng)
    if kind == "reaction":
        return _reaction(s, camp, legal, rng)
    if kind == "round_start":
        return _round_start(s, camp, legal, rng)
    if kind == "negotiate":
        p = s.parley
        other = s.camps[p.target if p.opener == seat else p.opener]
        return Negotiate(seat, camp.hp > other.hp * 1.2 and ratio(camp) > 0.6)
    if kind == "ambush":
        return AnswerAmbush(seat, ratio(camp) < 0.4)
    if kind == "intervene":
        return AnswerIntervention(seat, ratio(camp) > 0.8 and rng.random() < 0.3)
    if kind == "critical":
        return ChooseReward(seat, "hp" if ratio(camp) < 0.6 else "card:B")
    for part in parts(s.settings.modules):  # a prompt kind a module adds
        action = part.rollout(s, seat, legal, rng)
        if action is not None:
            return action
    return legal[0]


def _declare(s: GameState, camp: Camp, legal: list[Action], rng: random.Random) -> Action:
    seat = camp.seat
    r = ratio(camp)
    must_rest = not camp.rested and s.turn == s.rules.numbers.turns_per_day - 1
    if camp.asleep:
        return DeclareRest(seat) if r < 0.8 else DeclareWait(seat)
    if r < 0.5 or must_rest:
        return DeclareRest(seat)
    fights: list[Action] = []
    eat = None
    for a in legal:
        t = type(a)
        if (t is DeclareEncounter and a.intent in ("battle", "prevent")) or t is DeclareAmbush:
            fights.append(a)
        elif t is DeclareSoulEating:
            eat = a
    if eat is not None and camp.mp < camp.servant.mp * 0.3:
        return eat
    if fights and r >= 0.6 and rng.random() < 0.5:
        camps = s.camps
        weak = [a for a in fights if camps[a.target].hp < camp.hp * 1.1
                or ratio(camps[a.target]) < 0.5]
        if weak:
            return min(weak, key=lambda a: camps[a.target].hp)
    return DeclareWait(seat)


def _round_start(s: GameState, camp: Camp, legal: list[Action], rng: random.Random) -> Action:
    seat = camp.seat
    nps = [a for a in legal if type(a) is DeclareNoblePhantasm]
    if nps:
        return min(nps, key=lambda a: s.camps[a.target].hp)
    if ratio(camp) < 0.25 and rng.random() < 0.5:
        for a in legal:
            if type(a) is DeclareDisengage:
                return a
    if rng.random() < 0.3:
        skills = [a for a in legal if type(a) is UseSkill and a.target < 0 and not a.extra]
        if skills:
            return rng.choice(skills)
    return Ready(seat)


def _main(s: GameState, camp: Camp, legal: list[Action], rng: random.Random) -> Action:
    seat = camp.seat
    ground = next((g for part in parts(s.settings.modules)
                   if (g := part.ground(s, camp)) is not None), PLAIN)
    shooter = ground.ranged
    zones = ground.held
    best: Action | None = None
    best_value = -1e9
    moves: list[Move] = []
    for a in legal:
        t = type(a)
        if t is UseNoblePhantasm:
            return a
        if t is Attack:
            target = s.camps[a.target]
            d = distance(s, camp.pos, target.pos)
            value = _ATTACK_VALUE[a.kind] - 2 * d - (0.5 if a.card == "" else 0) \
                - target.hp / 200
            if value > best_value:
                best, best_value = a, value
        elif t is Move:
            moves.append(a)
    foe_squares = {s.camps[x].pos for x in s.battle.seats if x != seat}
    if shooter and moves and camp.pos in foe_squares and camp.pos in zones:
        return moves[0]  # held by a zone, it moves one square: out of melee, then shoots
    if best is not None and best_value < 0 and moves and not shooter:  # step in for melee
        closing = [m for m in moves if m.to in foe_squares]
        if closing:
            return rng.choice(closing)
    if best is not None:
        return best
    if moves:
        if camp.disengage_round == s.battle.round:
            return moves[0]
        foes = [s.camps[x] for x in s.battle.seats if x != seat]
        if foes:
            target = min(foes, key=lambda c: c.hp)
            own = ground.free(target)

            def cost(m: Move) -> int:
                d = distance(s, m.to, target.pos)
                return d + (ground.cost if m.to in zones and d > own else 0)

            return min(moves, key=cost)
    return Wait(seat) if Wait(seat) in legal else legal[0]


def _reaction(s: GameState, camp: Camp, legal: list[Action], rng: random.Random) -> Action:
    for part in parts(s.settings.modules):
        action = part.rollout_reaction(s, camp, legal, rng)
        if action is not None:
            return action
    guard = None
    for a in legal:
        if type(a) is React:
            if a.kind in "BAQ":
                return a
            if a.kind == "G" and a.card == "" and guard is None:
                guard = a
    return guard if guard is not None else legal[0]
