"""The rules modules that ship with the game, registered on import (`engine.modules.MODULES`):
`tactics` (seed 003's zones of control, lines of fire, concentration), `colossus` (seed
003's colossus scenario, which turns tactics on) and `campaign` (seed 002). Registry order is
hook order: tactics first."""

# isort: off
from . import tactics
from . import colossus
from . import campaign
# isort: on

__all__ = ["campaign", "colossus", "tactics"]
