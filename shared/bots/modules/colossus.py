"""The colossus's bot part (seed 003, docs/rules.md "The colossus"). The normal bot plays it from
the module's public view only: it never knows the part factors.

It raids when the colossus is within `NEAR_VEIN` squares of the Dragon Vein (in a raid room,
always) and it is healthy; in the raid it climbs toward the crown (move, move, attack), fires
its Noble Phantasm when charged, and never ends its phase on a bare tile whose surface the next
step of the script tilts. The rollout policy climbs and strikes (`_RAID`), up the highest tile
within its roll. `ColossusFigures` are its balance figures in `grailwar simulate`.
"""

from __future__ import annotations

import random
import statistics
from collections import Counter, deque
from collections.abc import Mapping
from functools import cache
from typing import Any

from ...engine.actions import (
    Action,
    AnswerIntervention,
    DeclareDisengage,
    DeclareNoblePhantasm,
    Move,
    Ready,
    UseNoblePhantasm,
    Wait,
)
from ...engine.events import Event
from ...engine.state import GameState
from ...modules.colossus import Colossus
from ...modules.colossus.actions import (
    AttackPart,
    Climb,
    ClimbAttack,
    ClimbMove,
    ClimbNoblePhantasm,
    ClimbTo,
    DeclareRaid,
    EndClimb,
    FireAtPart,
    Mount,
)
from ...modules.tactics import Concentrate
from ...modules.tactics.lines import crossed
from . import BotPart, Choose, Figures, NormalBot, register

NEAR_VEIN = 3  # squares left to the vein at which the bot joins raids (spec 003 §7)
RAID_HP = 0.5  # the share of its HP a camp needs to declare a raid
CLIMB_HP = 0.35  # ... to climb rather than strike from the ground
DODGE_HP = 0.5  # below this share of its HP it dodges the colossus's attack with concentration
GROUND_TARGET = "arm"  # what a ground raider aims at (the chest looks big; nothing gets through)
_CARD_ORDER = "BAQ"

# The rollout policy in a raid (docs/rules.md §11): the first legal action of the first type
# listed.
_RAID: dict[str, tuple[type, ...]] = {
    "raid_start": (DeclareNoblePhantasm, Climb, Ready),
    "raid_ground": (FireAtPart, AttackPart, Wait),
    "climb": (Mount, ClimbNoblePhantasm, ClimbAttack, ClimbMove, EndClimb),
}


def colossus_view(view: dict[str, Any]) -> dict[str, Any] | None:
    mod = view["modules"].get("colossus")
    return None if mod is None else mod["state"]


@cache
def _to_crown(links: tuple[tuple[str, tuple[str, ...]], ...]) -> dict[str, int]:
    """Links from each tile to the crown (the board is static: computed once)."""
    graph = dict(links)
    seen = {"crown": 0}
    queue = deque(["crown"])
    while queue:
        here = queue.popleft()
        for nxt in graph[here]:
            if nxt not in seen:
                seen[nxt] = seen[here] + 1
                queue.append(nxt)
    return seen


def raid_time(view: dict[str, Any]) -> bool:
    """The colossus is up, in a raid room or near the vein: raids come first."""
    col = colossus_view(view)
    if col is None or not col["awake"] or col["destroyed"]:
        return False
    left = len(col["path"]) - 1 - col["path_index"]
    return col["scenario"] == "colossus_raid" or left <= NEAR_VEIN


def wants_raid(view: dict[str, Any], me: dict[str, Any]) -> bool:
    """Healthy enough, and the colossus in a raid room or near the vein."""
    return me["hp"] >= me["max_hp"] * RAID_HP and raid_time(view)


class ColossusFigures(Figures):
    """The colossus's balance figures (docs/rules.md "The colossus"): how often it is
    destroyed, how often it drinks the vein, the raids it takes to fell, the raids' lengths,
    and the cooperative room's wins."""

    def __init__(self) -> None:
        self.destroyed = self.vein = self.won = 0
        self.raids_to_fell: list[int] = []
        self.raid_rounds: list[int] = []
        self.raids = 0
        self.reason = ""

    def step(self, state: GameState, events: list[Event]) -> None:
        for e in events:
            if e.type == "RaidEnded":
                self.raid_rounds.append(e.data["rounds"])
            elif e.type == "GameEnded":
                self.reason = e.data["reason"]

    def game_over(self, state: GameState) -> None:
        st = state.mods["colossus"]
        self.raids += st.raids
        if st.destroyed:
            self.destroyed += 1
            self.raids_to_fell.append(st.raids)
        self.vein += self.reason == "colossus"
        self.won += bool(st.winners)
        self.reason = ""

    def summary(self) -> dict[str, Any]:
        return {"destroyed": self.destroyed, "reached_vein": self.vein, "raid_room_won": self.won,
                "raids": self.raids,
                "median_raids_to_fell": statistics.median(self.raids_to_fell)
                if self.raids_to_fell else None,
                "raids_to_fell": dict(sorted(Counter(self.raids_to_fell).items())),
                "median_raid_rounds": statistics.median(self.raid_rounds)
                if self.raid_rounds else None}

    @staticmethod
    def line(summary: dict[str, Any]) -> str | None:
        return "colossus " + "  ".join(f"{k} {v}" for k, v in summary.items())


@register
class ColossusPart(BotPart):
    name = "colossus"
    figures = ColossusFigures

    def prompts(self) -> Mapping[str, Choose]:
        return {"raid_offer": self._raid_offer, "raid_start": self._raid_start,
                "raid_ground": self._raid_ground, "raid_reaction": self._raid_reaction,
                "climb": self._climb, "climb_step": self._climb_step}

    def pressing(self, view: dict[str, Any]) -> bool:
        return raid_time(view)

    def declaration(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
                    legal: list[Action]) -> Action | None:
        """A raid when it wants one, or a Move toward the colossus out of reach."""
        col = colossus_view(view)
        if not wants_raid(view, me):
            return None
        raid = DeclareRaid(me["seat"])
        if raid in legal:
            return raid
        moves = [a for a in legal if isinstance(a, Move)]  # out of reach: walk toward it
        if not moves:
            return None
        width = bot.rules.maps[view["map"]].width
        square = col["square"]
        return min(moves, key=lambda a: abs(a.to % width - square % width)
                   + abs(a.to // width - square // width))

    # --- the raid's prompts -------------------------------------------------------------------
    def _raid_offer(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
                    legal: list[Action]) -> Action:
        join = AnswerIntervention(me["seat"], True)  # not offered to a camp that may not join
        return join if join in legal and wants_raid(view, me) else AnswerIntervention(
            me["seat"], False)

    def _raid_start(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
                    legal: list[Action]) -> Action:
        seat = me["seat"]
        declare = [a for a in legal if isinstance(a, DeclareNoblePhantasm)]
        if declare:
            return declare[0]
        hp = me["hp"] / max(1, me["max_hp"])
        if DeclareDisengage(seat) in legal and hp < CLIMB_HP / 2:
            return DeclareDisengage(seat)
        if Climb(seat) in legal and hp >= CLIMB_HP:
            return Climb(seat)
        return Ready(seat)

    def _raid_ground(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
                     legal: list[Action]) -> Action:
        col = colossus_view(view)
        assert col is not None
        step = next(x for x in col["script"] if x["id"] == col["raid"]["step"])
        if step["attack"] and step["attack"]["targets"] == "ground_and_feet":
            away = self._step_off(bot, view, col, legal)  # the stomp strikes only its square
            if away is not None:
                return away
        elif Move(me["seat"], col["square"]) in legal:  # back under it, to climb next Round
            return Move(me["seat"], col["square"])
        boost = UseNoblePhantasm(me["seat"], me["seat"])  # a support NP before striking
        if boost in legal:
            return boost
        fire = [a for a in legal if isinstance(a, FireAtPart) and a.part == GROUND_TARGET]
        if fire:
            return fire[0]
        attacks = [a for a in legal if isinstance(a, AttackPart) and a.part == GROUND_TARGET]
        if attacks:
            return min(attacks, key=lambda a: _CARD_ORDER.index(a.kind))
        return Wait(me["seat"])

    def _step_off(self, bot: NormalBot, view: dict[str, Any], col: dict[str, Any],
                  legal: list[Action]) -> Action | None:
        """A Move off the colossus's square to one with a clear line to it, if any."""
        width = bot.rules.maps[view["map"]].width
        walls = set(view["modules"]["tactics"]["state"]["blocking"])
        square = col["square"]
        for move in (a for a in legal if isinstance(a, Move)):
            if not any(q in walls for q in crossed(width, move.to, square)):
                return move
        return None

    def _raid_reaction(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
                       legal: list[Action]) -> Action:
        """Dodge with concentration when hurt (T4.3), else the normal bot's Reaction."""
        dodge = Concentrate(me["seat"], "dodge")
        if dodge in legal and me["hp"] < me["max_hp"] * DODGE_HP:
            return dodge
        return bot.reaction(view, me, [a for a in legal if a != dodge])

    def _climb(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
               legal: list[Action]) -> Action:
        seat = me["seat"]
        col = colossus_view(view)
        assert col is not None
        raid = col["raid"]
        mounts = [a for a in legal if isinstance(a, Mount)]
        if mounts:
            return mounts[0]
        here = raid["tiles"][str(seat)]
        boost = UseNoblePhantasm(seat, seat)
        if boost in legal and raid["slots"] >= 2:
            return boost
        strike = [a for a in legal if isinstance(a, ClimbNoblePhantasm)] or sorted(
            (a for a in legal if isinstance(a, ClimbAttack)),
            key=lambda a: _CARD_ORDER.index(a.kind))
        move = ClimbMove(seat) if ClimbMove(seat) in legal else None
        if here == "crown" or (strike and raid["slots"] == 1 and here not in self._unsafe(col)):
            return strike[0] if strike else EndClimb(seat)
        if move is not None:
            return move
        return strike[0] if strike else EndClimb(seat)

    def _climb_step(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
                    legal: list[Action]) -> Action:
        col = colossus_view(view)
        assert col is not None
        unsafe = self._unsafe(col)
        distance = _to_crown(tuple((t["id"], tuple(t["links"])) for t in col["board"]))
        heights = {t["id"]: t["height"] for t in col["board"]}
        steps = [a for a in legal if isinstance(a, ClimbTo)]
        return min(steps, key=lambda a: (a.tile in unsafe, distance[a.tile], -heights[a.tile]))

    def _unsafe(self, col: dict[str, Any]) -> frozenset[str]:
        """Bare tiles the next Round's step tilts off the horizontal (they shake off)."""
        raid = col["raid"]
        script = col["script"]
        upcoming = script[raid["round"] % len(script)]
        tilting = {surface for surface, tilt in upcoming["tilt"].items() if tilt != "horizontal"}
        return frozenset(t["id"] for t in col["board"] if t["surface"] in tilting
                         and t["colour"] in ("white", "yellow"))

    # --- the rollout policy -----------------------------------------------------------------------
    def rollout(self, s: GameState, seat: int, legal: list[Action],
                rng: random.Random) -> Action | None:
        kind = s.prompt.kind
        if kind == "climb_step":  # up: the highest tile within the roll
            tiles = next(m for m in s.modules if isinstance(m, Colossus)).data.tiles
            return max(legal, key=lambda a: tiles[a.tile].height)
        preferred = _RAID.get(kind)
        if preferred is None:
            return None
        return next((a for want in preferred for a in legal if type(a) is want), legal[0])
