"""Plain data made from the campaign's immutable objects, kept by those objects' identity.

Everything the campaign keeps is copied on write (`state.py`): a record, an `Info` or a field
value that a change left alone is the same object in the next state. A server makes up to eight
views after every action, each of them encoding every camp's record: made once per object,
they are looked up instead. Values are shared: read-only, like the legal actions.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import is_
from typing import Any, TypeVar

T = TypeVar("T")


class IdentityMemo:
    """`make()` for a tuple of objects, again only when one of them is another object. An id
    is reused as soon as its object is gone (copies on write come and go all the time), so the
    objects are kept and compared by identity (`==` would compare whole camps field by field).

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
        if hit is None:
            hit = self._old.pop(key, None)
            if hit is not None and all(map(is_, hit[0], objects)):
                self._keep(key, hit)
                return hit[1]
        elif all(map(is_, hit[0], objects)):
            return hit[1]
        out = make()
        self._keep(key, (objects, out))
        return out

    def _keep(self, key: tuple[int, ...], entry: tuple[tuple[Any, ...], Any]) -> None:
        if len(self._young) >= self.most:
            self._old, self._young = self._young, {}
        self._young[key] = entry
