"""The colossus's client part (seed 003 §5; docs/rules.md "The colossus"): its raid screen, its
figure and path on the city map, its events, notices and the raid's options."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ... import theme as th
from ...viewdata import Option
from .. import ClientPart, register
from . import view_data as vd

if TYPE_CHECKING:
    from ...gfx import Scene

FIGURE = (64, 52, 60)  # the colossus's figure on the map


class ColossusPart(ClientPart):
    name = "colossus"
    battle_events = vd.BATTLE_EVENTS
    fight_screen = "raid"
    np_firings = frozenset({"FireAtPart", "ClimbNoblePhantasm"})

    def screens(self) -> dict[str, type]:
        from .raid_view import RaidView
        return {"raid": RaidView}

    def fighting(self, view: dict[str, Any]) -> bool:
        return vd.raid_of(view) is not None

    def seat_name(self, m: Any, seat: int) -> str | None:
        return m.tr("colossus.name") if seat == vd.COLOSSUS else None

    def event_line(self, m: Any, e: dict[str, Any]) -> str | None:
        return vd.event_line(m, e) if e.get("type") in vd.EVENTS else None

    def hides_event(self, m: Any, e: dict[str, Any]) -> bool:
        return e.get("type") in ("ActionCancelled", "DeclarationWithdrawn") \
            and vd.raided(m.events, e)

    def notice(self, m: Any, e: dict[str, Any]) -> str:
        return vd.notice(m, e)

    def option(self, m: Any, a: dict[str, Any], help_text: str) -> Option | None:
        label = vd.option_label(m, a)
        return None if label is None else Option(label, a, help_text, card=a.get("card", ""))

    def result(self, m: Any, reason: str | None) -> dict[str, Any]:
        return {"all_won": True} if reason == "colossus_destroyed" else {}

    # --- the map --------------------------------------------------------------------------------
    def map_status(self, m: Any) -> str:
        """Its HP and how far it has still to walk, or the day it wakes."""
        giant, wakes = vd.map_marks(m.view), vd.asleep_until(m.view)
        if giant is not None:
            return m.tr("colossus.map_status", hp=giant["hp"], hp_max=giant["hp_max"],
                        n=len(giant["ahead"]))
        return m.tr("colossus.map_asleep", day=wakes) if wakes is not None else ""

    def square_lines(self, m: Any, square: int) -> list[str]:
        """A square's hover lines about the colossus: it stands here, or walks here later."""
        giant, tr = vd.map_marks(m.view), m.tr
        if giant is None:
            return []
        lines = []
        if square == giant["square"]:
            lines.append(tr("colossus.map_here", hp=giant["hp"], hp_max=giant["hp_max"]))
        if square in giant["ahead"]:
            lines.append(tr("colossus.map_ahead", n=giant["ahead"].index(square) + 1))
        if square == giant["vein"]:
            lines.append(tr("colossus.map_vein"))
        return lines

    def map_overlay(self, s: Scene, m: Any, centres: dict[int, tuple[float, float]],
                    cw: float, ch: float) -> None:
        """Its way to the Dragon Vein (a line of steps from its square), the vein ringed, and
        the colossus itself: a standing figure on its square."""
        giant = vd.map_marks(m.view)
        if giant is None:
            return
        squares = [giant["square"], *giant["ahead"]]
        for a, b in pairwise(squares):
            s.line(*centres[a], *centres[b], 4, th.alpha(th.VERMILION, 190))
        for q in giant["ahead"]:
            s.circle(*centres[q], 6, th.VERMILION_DARK)
        vx, vy = centres[giant["vein"]]
        s.ring(vx, vy, min(cw, ch) / 2 - 10, 3, th.VERMILION)
        x, y = centres[giant["square"]]
        x, y = x + cw / 2 - 26, y - 4
        s.ring(x, y, 21, 2, th.BG)
        s.circle(x, y, 19, th.VERMILION if giant["raid"] else th.GOLD)
        s.circle(x, y, 16, FIGURE)
        s.circle(x, y + 7, 5, th.PAPER)  # its head over broad shoulders
        s.rect(x - 9, y - 8, 18, 12, th.PAPER)
        s.rect(x - 9, y - 12, 6, 5, th.PAPER)
        s.rect(x + 3, y - 12, 6, 5, th.PAPER)
        frac = giant["hp"] / max(1, giant["hp_max"])
        s.rect(x - 20, y - 28, 40, 6, th.BG)
        s.rect(x - 19, y - 27, 38 * frac, 4, th.VERMILION)

    def tour(self, tour: Any, scenario: str) -> list[Path] | None:
        from .tour import screens
        return screens(tour, scenario or "colossus")


register(ColossusPart())
