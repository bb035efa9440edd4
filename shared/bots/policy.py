"""A cheap playing policy on a whole `GameState`, for the hard bot's rollouts.

The hard bot never sees the real state; it plays out *determinized* states it sampled from its
own view (`determinize.py`). Inside such an imagined game every camp is moved by this policy,
which reads the imagined state directly (a view per step would cost more than the step). It
plays like the normal bot in a few lines: rest when hurt or before the Master would sleep, fight
weaker rivals, fire Noble Phantasms, attack with the strongest card, defend with the counter.
With the tactics module on it also dodges Noble Phantasms, keeps a ranged Servant out of melee
(one step back from a foe's square when a zone holds it) and walks around the zones of foes it
is not heading for; lines of fire need nothing, the legal attacks already respect them. In the
colossus's raids it climbs and strikes (`_RAID`).
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
from ..modules.colossus import Colossus
from ..modules.colossus.actions import (
    AttackPart,
    Climb,
    ClimbAttack,
    ClimbMove,
    ClimbNoblePhantasm,
    EndClimb,
    FireAtPart,
    Mount,
)
from ..modules.tactics import Concentrate, Tactics
from .tactical import SHOOTERS, ZONE_COST

_ATTACK_VALUE = {"B": 3.0, "A": 2.0, "Q": 1.5, "L": 0.0}


def ratio(camp: Camp) -> float:
    return camp.hp / camp.servant.hp


def distance(s: GameState, a: int, b: int) -> int:
    w = s.rules.maps[s.settings.map_id].width
    return abs(a % w - b % w) + abs(a // w - b // w)


def tactics(s: GameState) -> Tactics | None:
    """The game's tactics module, if it is on."""
    return next((m for m in s.modules if isinstance(m, Tactics)), None)


def rollout_action(s: GameState, seat: int, legal: list[Action], rng: random.Random) -> Action:
    """One action for `seat` at the current prompt, from `legal` (never empty): the policy's
    choice, or the first legal action where a module narrowed the prompt past it (the
    campaign: only KeepDeclaration or Action Restriction after declaring, C7.10; only the
    growth choice while one is pending)."""
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
    if kind == "climb_step":  # up: the highest tile within the roll
        tiles = next(m for m in s.modules if isinstance(m, Colossus)).data.tiles
        return max(legal, key=lambda a: tiles[a.tile].height)
    preferred = _RAID.get(kind, ())
    return next((a for want in preferred for a in legal if type(a) is want), legal[0])


# The colossus's raids (docs/rules.md §11): the first legal action of the first type listed.
_RAID: dict[str, tuple[type, ...]] = {
    "raid_start": (DeclareNoblePhantasm, Climb, Ready),
    "raid_ground": (FireAtPart, AttackPart, Wait),
    "climb": (Mount, ClimbNoblePhantasm, ClimbAttack, ClimbMove, EndClimb),
}


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
    module = tactics(s)
    shooter = module is not None and module.data.weapon(camp.servant.id, camp.cls) in SHOOTERS
    zones: frozenset[int] = module.controlled(s, seat) if module is not None else frozenset()
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
            own = module.radius(target) if module is not None else 0

            def cost(m: Move) -> int:
                d = distance(s, m.to, target.pos)
                return d + (ZONE_COST if m.to in zones and d > own else 0)

            return min(moves, key=cost)
    return Wait(seat) if Wait(seat) in legal else legal[0]


def _reaction(s: GameState, camp: Camp, legal: list[Action], rng: random.Random) -> Action:
    if ratio(camp) < 0.35 and tactics(s) is not None:  # a hit it may not survive
        dodge = Concentrate(camp.seat, "dodge")
        if dodge in legal:
            return dodge
    guard = None
    for a in legal:
        if type(a) is React:
            if a.kind in "BAQ":
                return a
            if a.kind == "G" and a.card == "" and guard is None:
                guard = a
    return guard if guard is not None else legal[0]
