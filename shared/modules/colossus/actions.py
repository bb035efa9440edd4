"""The colossus's actions (spec 003 §4): a Turn action, the raid's round-start and ground
choices, and the climbers' slots. Plain records like the base game's, decoded by name."""

from __future__ import annotations

from dataclasses import dataclass

from ...engine.actions import Action

COLOSSUS = 100  # the colossus as a Noble Phantasm's declared target (it is never a seat)


@dataclass(frozen=True, slots=True)
class DeclareRaid(Action):
    """Turn action: go to the colossus's square and fight it with every other raider (§5.5)."""


@dataclass(frozen=True, slots=True)
class Climb(Action):
    """Round start, a ground raider: act in the climbers' phase this Round (to Mount)."""


@dataclass(frozen=True, slots=True)
class AttackPart(Action):
    """Ground Main Action: a card attack on a part reachable from the ground (§5.5)."""

    part: str
    kind: str
    card: str


@dataclass(frozen=True, slots=True)
class FireAtPart(Action):
    """Ground Main Action: the declared, charged attack Noble Phantasm fired at a part."""

    part: str


@dataclass(frozen=True, slots=True)
class Mount(Action):
    """A climber's slot, from the ground: latch onto a ground tile (T7.4)."""

    tile: str


@dataclass(frozen=True, slots=True)
class ClimbMove(Action):
    """A climber's slot: roll 1D6 (horizontal surface) or 1D4, then choose where (T7.5)."""


@dataclass(frozen=True, slots=True)
class ClimbTo(Action):
    """After a ClimbMove roll: the tile to end on (its own tile: stay)."""

    tile: str


@dataclass(frozen=True, slots=True)
class ClimbAttack(Action):
    """A climber's slot, once a Round: a card attack on its own tile's part (T7.8)."""

    kind: str
    card: str


@dataclass(frozen=True, slots=True)
class ClimbNoblePhantasm(Action):
    """A climber's slot, once a Round (it is its attack): the charged Noble Phantasm at its
    own tile's part."""


@dataclass(frozen=True, slots=True)
class Dismount(Action):
    """From a ground tile: step down; it ends the climber's phase."""


@dataclass(frozen=True, slots=True)
class EndClimb(Action):
    """End the climber's phase with slots unused."""
