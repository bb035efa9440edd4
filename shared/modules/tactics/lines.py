"""Lines of fire and zones on the square grid (seed 003 T1.2, T2.3), exact and cached.

    >>> crossed(7, 0, 7 * 1 + 2)        # (0,0) -> (2,1) crosses (1,0) and (1,1)
    (1, 8)
    >>> crossed(7, 0, 8)                # (0,0) -> (1,1) passes a corner: nothing
    ()
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache


@cache
def crossed(width: int, a: int, b: int) -> tuple[int, ...]:
    """The squares (other than the two ends) whose interior the open segment between the
    centres of squares `a` and `b` passes through; passing exactly through a corner does not
    count. Coordinates are doubled so centres are even and square edges odd."""
    ax, ay, bx, by = 2 * (a % width), 2 * (a // width), 2 * (b % width), 2 * (b // width)
    dx, dy = bx - ax, by - ay
    out = []
    for y in range(min(ay, by) // 2, max(ay, by) // 2 + 1):
        for x in range(min(ax, bx) // 2, max(ax, bx) // 2 + 1):
            square = y * width + x
            if square in (a, b):
                continue
            lo_x, hi_x = _inside(ax, dx, 2 * x)
            lo_y, hi_y = _inside(ay, dy, 2 * y)
            if max(lo_x, lo_y, Fraction(0)) < min(hi_x, hi_y, Fraction(1)):
                out.append(square)
    return tuple(out)


def _inside(start: int, delta: int, centre: int) -> tuple[Fraction, Fraction]:
    """The open interval of t where start + t·delta lies strictly within 1 of `centre`."""
    if delta == 0:
        inside = abs(start - centre) < 1
        return (Fraction(-1), Fraction(2)) if inside else (Fraction(1), Fraction(0))
    t1, t2 = Fraction(centre - 1 - start, delta), Fraction(centre + 1 - start, delta)
    return min(t1, t2), max(t1, t2)


@cache
def zone(width: int, height: int, centre: int, radius: int) -> frozenset[int]:
    """Every square at Manhattan distance 0 to `radius` of `centre` (radius 0: none, T1.2)."""
    if radius <= 0:
        return frozenset()
    cx, cy = centre % width, centre // width
    return frozenset(y * width + x
                     for y in range(max(0, cy - radius), min(height, cy + radius + 1))
                     for x in range(max(0, cx - radius), min(width, cx + radius + 1))
                     if abs(x - cx) + abs(y - cy) <= radius)
