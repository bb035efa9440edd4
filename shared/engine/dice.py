"""Dice whose generator lives in the game state, so a game replays exactly from (seed, actions).

The generator is SplitMix64: one integer of state, cheap to copy with the state, and the same
on every platform. Tests and scenario files push *forced* faces, consumed before the generator.
"""

from __future__ import annotations

_MASK = (1 << 64) - 1


def seed_state(seed: int) -> int:
    """Fold any integer seed into the 64-bit generator state."""
    return (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & _MASK


def stream(seed: int, salt: int) -> int:
    """A generator state for one purpose of a game (its Masters, its Servants), independent of
    the dice and of the same purpose in the games of nearby seeds: the seed is hashed first,
    because SplitMix64 states of consecutive seeds are one step of each other's stream."""
    return seed_state(next_u64(seed_state(seed ^ salt))[1])


def series_seed(seed: int, game: int) -> int:
    """The seed of the `game`-th game of a series run from `seed` (`simulate`): hashed, like
    `stream`, because the dice of seeds s and s + 1 are one roll apart, and a series on
    consecutive seeds measured balance on correlated dice."""
    return next_u64(seed_state((seed << 32) + game))[1]


def next_u64(state: int) -> tuple[int, int]:
    """Advance SplitMix64: returns (new_state, 64-bit output)."""
    state = (state + 0x9E3779B97F4A7C15) & _MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return state, z ^ (z >> 31)


def face(state: int, sides: int) -> tuple[int, int]:
    """One uniform face in 1..sides (rejection sampling keeps it unbiased)."""
    limit = (1 << 64) - ((1 << 64) % sides)
    while True:
        state, out = next_u64(state)
        if out < limit:
            return state, out % sides + 1
