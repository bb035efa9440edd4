"""The rules modules that ship with the game, registered on import (`engine.modules.MODULES`):
`tactics` (seed 003's zones of control, lines of fire, concentration)."""

from . import tactics

__all__ = ["tactics"]
