"""The rules modules that ship with the game, registered on import (`engine.modules.MODULES`):
`tactics` (seed 003's zones of control, lines of fire, concentration) and `colossus` (seed
003's colossus scenario, which turns tactics on). Registry order is hook order: tactics first."""

# isort: off
from . import tactics
from . import colossus
# isort: on

__all__ = ["colossus", "tactics"]
