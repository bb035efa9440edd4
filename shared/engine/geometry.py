"""The city grid: Manhattan distance and the squares a move can reach."""

from __future__ import annotations

from collections import deque
from typing import NamedTuple, Protocol


class Grid(Protocol):
    width: int
    height: int


class Size(NamedTuple):
    """A hashable grid size, for caches (a CityMap holds dicts and cannot be hashed)."""

    width: int
    height: int


def distance(city: Grid, a: int, b: int) -> int:
    w = city.width
    return abs(a % w - b % w) + abs(a // w - b // w)


def neighbours(city: Grid, square: int) -> list[int]:
    w, h = city.width, city.height
    x, y = square % w, square // w
    out = []
    if x > 0:
        out.append(square - 1)
    if x < w - 1:
        out.append(square + 1)
    if y > 0:
        out.append(square - w)
    if y < h - 1:
        out.append(square + w)
    return out


def reachable(
    city: Grid, start: int, steps: int, closed: frozenset[int], stop: frozenset[int]
) -> dict[int, int]:
    """Squares within `steps` moves (with their distance), never entering `closed` squares and
    never moving on through `stop` squares (they may be the last square of the move)."""
    found = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        d = found[here]
        if d == steps or (here in stop and here != start):
            continue
        for nxt in neighbours(city, here):
            if nxt not in found and nxt not in closed:
                found[nxt] = d + 1
                queue.append(nxt)
    return found
