"""The colossus's slot of the game state (spec 003 §6.1): plain, immutable data replaced as a
whole, like every module slot."""

from __future__ import annotations

from typing import NamedTuple


class Raid(NamedTuple):
    """One raid battle. `initiative` is the Round's order of every raider, `order` the phase's
    own list (ground raiders, or climbers) walked by `cursor`; `slots`, `attacked` and `budget`
    belong to the climber acting (`budget`: tiles it may still cover after a ClimbMove roll).
    `strike`: raiders the colossus's attack has still to reach, `roll` its hit check against
    the first of them. `dodge_left` is hidden (spec 003 §4)."""

    seats: tuple[int, ...]
    joined: tuple[int, ...]
    homes: tuple[tuple[int, int], ...]
    tilts: tuple[str, ...]  # per surface, in the data's order
    dodge_left: int
    round: int = 1
    stage: str = "offer"
    ready: frozenset[int] = frozenset()
    climbing: frozenset[int] = frozenset()
    tiles: tuple[tuple[int, str], ...] = ()  # (seat, tile) of every raider on the colossus
    initiative: tuple[int, ...] = ()
    order: tuple[int, ...] = ()
    cursor: int = 0
    slots: int = 0
    attacked: bool = False
    budget: int = 0
    roll_value: int = 0  # the ClimbMove roll the budget came from
    strike: tuple[int, ...] = ()
    roll: tuple[int, int, bool, bool] | None = None
    offered: frozenset[int] = frozenset()  # camps that declared Wait, asked to join
    seize: frozenset[int] = frozenset()  # raiders who declared Concentrate("initiative")
    seized: bool = False  # this Round the climbers act before the colossus (T4.1)
    moved: bool = False  # the ground raider acting has made its Move
    endured: bool = False  # this Round's first hostile-magecraft damage has met its endure

    def tile_of(self, seat: int) -> str:
        return next((t for x, t in self.tiles if x == seat), "")

    def with_tile(self, seat: int, tile: str) -> tuple[tuple[int, str], ...]:
        """`tiles` with `seat` on `tile` ("" : off the colossus)."""
        rest = [(x, t) for x, t in self.tiles if x != seat]
        return tuple(sorted([*rest, (seat, tile)] if tile else rest))


class ColossusState(NamedTuple):
    """The colossus over the whole game. `factors` (per part, in the data's order) are hidden:
    a rebuilt state holds a guess. `damage` is per seat over all raids; `lost` this Turn (the
    hold rule)."""

    factors: tuple[int, ...]
    awake: bool = False
    destroyed: bool = False
    square: int = -1
    path_index: int = 0
    hp: int = 0
    hp_max: int = 0
    damage: tuple[int, ...] = ()
    lost: int = 0
    raids: int = 0
    winners: tuple[int, ...] = ()
    raid: Raid | None = None
