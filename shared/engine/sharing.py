"""`Shared`: what the views of one state have in common, made once for them all."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from .state import GameState

T = TypeVar("T")


class Shared:
    """The parts that several views of one state have in common, each made once: whoever makes
    several views of a state (a room's broadcast, up to eight after every action) makes one
    `Shared` of it and hands it to each `view_for`; it goes with the state. A part is kept
    under a key that names it within this state (never an object's id), and is shared by the
    views: read-only, like the legal actions. Bound to its state: a view of another state with
    it raises.

    Made with the `Shared` of the state before (`earlier`), it also hands on what that state's
    views made by `carried` from an object the new state still holds (a record copied on
    write, unchanged, or values equal to those it was made of): one state back, never
    further, so nothing is kept longer than the two states."""

    __slots__ = ("_carried", "_earlier", "_parts", "state")

    def __init__(self, state: GameState, earlier: Shared | None = None) -> None:
        self.state = state
        self._parts: dict[Any, Any] = {}
        self._carried: dict[Any, tuple[Any, Any]] = {}
        self._earlier = {} if earlier is None else earlier._carried

    def get(self, key: Any, make: Callable[[], T]) -> T:
        """The part named `key`, made by `make()` the first time it is asked for."""
        try:
            return self._parts[key]
        except KeyError:
            part = self._parts[key] = make()
            return part

    def carried(self, key: Any, source: Any, make: Callable[[], T]) -> T:
        """The part named `key`, made by `make()` from `source` alone: immutable values (a
        record, a tuple of what `make` reads), and `make` reads nothing else, so an equal
        source makes an equal part in any state. The earlier state's part of that name is taken
        when it was made from an equal source. A key names one source within a state: another
        raises."""
        hit = self._carried.get(key)
        if hit is None:
            hit = self._earlier.get(key)
            if hit is None or not (hit[0] is source or hit[0] == source):
                hit = (source, make())
            self._carried[key] = hit
        elif not (hit[0] is source or hit[0] == source):
            raise ValueError(f"Shared.carried: {key!r} names another object in this state")
        return hit[1]
