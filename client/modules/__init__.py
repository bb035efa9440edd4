"""The client's part of each rules module (docs/modules.md "Client"): the words, marks and
screens a module adds to the table, reached by the base client through `ClientPart` hooks so
that no base file names a module.

A module's client part is a `ClientPart` subclass registered under its engine module's name
(`register`). The parts that ship with the game live in this package's subpackages, one per
module, and are imported by `load_shipped` without being named; a module from elsewhere (a
test's toy module) registers its own part the same way. The base asks only the parts of the
modules switched on in the game it shows (`parts_on`), in registry order, the engine's.

Every hook has a default that adds nothing, so a part overrides only what its module shows.
Hooks read the model (`m`: the `ClientModel`) and the view; none may change either.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING, Any

from ...shared.engine.modules import MODULES

if TYPE_CHECKING:
    from pathlib import Path

    from ..gfx import Scene
    from ..viewdata import Cell, Option

_PARTS: dict[str, ClientPart] = {}


class ClientPart:
    """One module's client part; every hook's default adds nothing."""

    name = ""  # the engine module's name (its `Module.name`)
    # Event kinds the battle screen's log shows (the rest go to the map's).
    battle_events: frozenset[str] = frozenset()
    # Tabs its state adds to the header, after the battle's, while `tabs_on` says so.
    tabs: tuple[str, ...] = ()
    fight_screen = ""  # its own battle screen (a screen of `screens`), while `fighting`
    prelude_screen = ""  # its screen of a phase before day 1, while `in_prelude`
    # Its actions that fire a Noble Phantasm: confirmed first, as a UseNoblePhantasm is.
    np_firings: frozenset[str] = frozenset()

    # --- screens --------------------------------------------------------------------------------
    def screens(self) -> dict[str, type]:
        """Its own screens by name (arcade views, made like the base's)."""
        return {}

    def tabs_on(self, view: dict[str, Any]) -> bool:
        """Whether its tabs show in this view (the module's state is in it)."""
        return bool(self.tabs)

    def tab_news(self, m: Any, tab: str) -> bool:
        """Something on one of its tabs waits for this seat (the tab gets a red dot)."""
        return False

    def in_prelude(self, view: dict[str, Any]) -> bool:
        """A phase of its own before day 1 is on: the game comes back to `prelude_screen`
        instead of the map."""
        return False

    def fighting(self, view: dict[str, Any]) -> bool:
        """A fight of its own is on: the battle tab shows `fight_screen` instead."""
        return False

    # --- words ----------------------------------------------------------------------------------
    def strings(self, lang: str) -> dict[str, str]:
        """Catalog entries of its own (dotted keys, as `resources/i18n/<lang>.toml` flattens
        them), added to the language's catalog; the shipped modules keep theirs in the
        catalogs themselves."""
        return {}

    def seat_name(self, m: Any, seat: int) -> str | None:
        """The name of a seat number the module gives to something that is not a camp."""
        return None

    def event_line(self, m: Any, e: dict[str, Any]) -> str | None:
        """One of its events in the log's words ("" to tell nothing; None: not its event)."""
        return None

    def hides_event(self, m: Any, e: dict[str, Any]) -> bool:
        """A base event its module made moot, which the log leaves out."""
        return False

    def notice(self, m: Any, e: dict[str, Any]) -> str:
        """The notice an event of its own raises on every screen ("" for none)."""
        return ""

    def option(self, m: Any, a: dict[str, Any], help_text: str) -> Option | None:
        """An action of its own as an option of the action bar (None: not its action)."""
        return None

    def ruled_out(self, m: Any, what: str) -> list[Option]:
        """Targets of `what` (a verb) that its rules rule out, as disabled options."""
        return []

    def hidden_verbs(self, m: Any) -> frozenset[str]:
        """Verbs offered on a screen of its own rather than in the action bar."""
        return frozenset()

    def result(self, m: Any, reason: str | None) -> dict[str, Any]:
        """What the end screen adds for the game's end `reason` (e.g. `{"all_won": True}`)."""
        return {}

    # --- the map --------------------------------------------------------------------------------
    def map_status(self, m: Any) -> str:
        """A short line on the map's title (its own figure's state)."""
        return ""

    def square_marks(self, s: Scene, m: Any, cell: Cell, x: float, y: float, w: float,
                     h: float, paper: tuple[int, int, int]) -> bool:
        """Draws its marks on a square's paper (under the base's); True when they need the
        square's name on a plate."""
        return False

    def square_lines(self, m: Any, square: int) -> list[str]:
        """Its lines of a square's hover text."""
        return []

    def token_ring(self, m: Any, seat: int) -> tuple[int, ...] | None:
        """A ring's colour around a camp's token on the map (None: no ring)."""
        return None

    def map_overlay(self, s: Scene, m: Any, centres: dict[int, tuple[float, float]],
                    cw: float, ch: float) -> None:
        """Draws over the whole map (after the squares): figures and paths of its own."""

    # --- battle and dossier ---------------------------------------------------------------------
    def combatant(self, m: Any, b: dict[str, Any], seat: int) -> dict[str, Any]:
        """Fields of its own for a combatant of the battle screen (its marks: "flags")."""
        return {}

    def combatant_line(self, view: Any, s: Scene, c: dict[str, Any], x: float, y: float,
                       width: float) -> None:
        """Draws its line in a combatant's box (from `combatant`'s fields)."""

    def battle_tray(self, view: Any, s: Scene, b: dict[str, Any], left: float, bottom: float,
                    width: float) -> float:
        """Draws its panel at the bottom of the battle's tray; returns the height it took."""
        return 0

    # The dossier: a part whose `dossier` gives a rival's row its data (under the part's
    # name) draws those rows itself, in its own columns.
    dossier_columns: tuple[float, ...] = ()  # left edges of its columns (the first: the class)

    def dossier(self, m: Any) -> dict[int, Any]:
        """Its part of the dossier's row, per rival seat."""
        return {}

    def dossier_titles(self, tr: Any) -> tuple[str, ...]:
        """The titles of its columns."""
        return ()

    def dossier_row(self, view: Any, s: Scene, row: dict[str, Any], y: float, h: float) -> None:
        """Draws one rival's row (the dossier screen's `class_cell`, `composition`,
        `identity` are there to use)."""

    # --- the tour -------------------------------------------------------------------------------
    def tour(self, tour: Any, scenario: str) -> list[Path] | None:
        """Its screens for `grailwar client --tour` (None: it has none)."""
        return None


def register(part: ClientPart) -> ClientPart:
    """Register a module's client part under its name (a later one replaces it)."""
    _PARTS[part.name] = part
    _parts_on.cache_clear()
    return part


def unregister(name: str) -> None:
    """Drop a part (a test's toy module, when the test ends)."""
    _PARTS.pop(name, None)
    _parts_on.cache_clear()


def load_shipped() -> None:
    """Import every subpackage of this package: each registers its module's part."""
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")


def part(name: str) -> ClientPart | None:
    return _PARTS.get(name)


def parts_on(names: Iterable[str]) -> tuple[ClientPart, ...]:
    """The parts of the modules named (the game's), in the engine's registry order."""
    return _parts_on(frozenset(names))


@cache  # (the log asks for every event it words; `register` and `unregister` clear it)
def _parts_on(wanted: frozenset[str]) -> tuple[ClientPart, ...]:
    order = [n for n in MODULES if n in wanted] + sorted(wanted - set(MODULES))
    return tuple(_PARTS[n] for n in order if n in _PARTS)


def every_part() -> list[ClientPart]:
    """Every registered part (for what is known before a game: screens, event kinds)."""
    return list(_PARTS.values())


load_shipped()
