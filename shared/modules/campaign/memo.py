"""Plain data made from the campaign's immutable objects, kept by those objects' identity.

Everything the campaign keeps is copied on write (`state.py`): a record, an `Info` or a field
value that a change left alone is the same object in the next state. A server makes up to eight
views after every action, each of them encoding every camp's record: made once per object,
they are looked up instead. Values are shared: read-only, like the legal actions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

# The bound of a memo with about one live entry per seat of each room's latest state (a few
# thousand on a busy server), whose old entries a record's every change leaves behind: an
# entry keeps the objects of its key, so a bound far above what the rooms use keeps old states
# alive. With the records' and stances' memos at the default, 200 campaign rooms had grown to
# 404 MB after 200 s of play (480 MB after 300 s); at these bounds, 288 MB.
PER_SEAT = 1 << 12
PER_PAIR = 1 << 14  # one live entry per seat and rival (42 a room of seven)
PER_STATE = 1 << 10  # one live entry per room (its latest state), keyed by its camps or records


class IdentityMemo:
    """`make()` for a tuple of objects, again only when one of them is another object. The
    objects are keyed by their ids and kept with the entry: an id is reused as soon as its
    object is gone (copies on write come and go all the time), and while the entry keeps them
    no other object can have their ids, so a key found is the same objects (`==` would compare
    whole camps field by field).

    Bounded in two generations: when the young one holds `most` entries it becomes the old
    one, and a hit there moves back. What every room of a busy server still uses stays (a
    plain clear at the bound emptied the memo several times per second at 200 rooms), and
    what no state uses any more is gone after two generations."""

    __slots__ = ("_old", "_young", "most")

    def __init__(self, most: int = 1 << 15) -> None:
        self.most = most
        self._young: dict[tuple[int, ...], tuple[tuple[Any, ...], Any]] = {}
        self._old: dict[tuple[int, ...], tuple[tuple[Any, ...], Any]] = {}

    def get(self, objects: tuple[Any, ...], make: Callable[[], T]) -> T:
        key = tuple(map(id, objects))
        hit = self._young.get(key)
        if hit is not None:
            return hit[1]
        hit = self._old.pop(key, None)
        if hit is None:
            hit = (objects, make())
        self._keep(key, hit)
        return hit[1]

    def _keep(self, key: tuple[int, ...], entry: tuple[tuple[Any, ...], Any]) -> None:
        if len(self._young) >= self.most:
            self._old, self._young = self._young, {}
        self._young[key] = entry
