"""The campaign's client part (seed 002; spec 002 §4, §6.1): the character sheet's tab and
day 0's screen, the camp's words (actions, events, notices), stances in battle, spirit form and
vacant Masters on the map, the information points in the dossier."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ... import theme as th
from ...viewdata import Cell, Option
from .. import ClientPart, register
from . import dossier_rows
from . import text as tx
from . import view_data as vd

if TYPE_CHECKING:
    from ...gfx import Scene


class CampaignPart(ClientPart):
    name = "campaign"
    battle_events = tx.BATTLE_EVENTS
    tabs = ("camp",)
    prelude_screen = "day0"
    dossier_columns = dossier_rows.COLUMNS

    def screens(self) -> dict[str, type]:
        from .camp_view import CampView
        from .day0_view import Day0View
        return {"camp": CampView, "day0": Day0View}

    def tabs_on(self, view: dict[str, Any]) -> bool:
        return vd.state_of(view) is not None

    def tab_news(self, m: Any, tab: str) -> bool:
        return tab == "camp" and vd.to_do(m)

    def in_prelude(self, view: dict[str, Any]) -> bool:
        return bool(vd.day0_phase(view))

    # --- words ----------------------------------------------------------------------------------
    def event_line(self, m: Any, e: dict[str, Any]) -> str | None:
        kind = e.get("type")
        if kind in tx.EVENTS:
            return tx.event_line(m, e)
        if kind in ("ActionCancelled", "DeclarationWithdrawn") \
                and e.get("reason") == "spirit_form":  # seed 002 §0
            return m.tr("event.cancelled_spirit_form", who=m.who(e.get("seat")),
                        kind=m.tr(f"decl.{e.get('kind')}"))
        return None

    def notice(self, m: Any, e: dict[str, Any]) -> str:
        return tx.notice(m, e)

    def option(self, m: Any, a: dict[str, Any], help_text: str) -> Option | None:
        label = tx.option_label(m, a)
        return None if label is None else Option(label, a, tx.option_help(m, a),
                                                 target=a.get("target", -1))

    def hidden_verbs(self, m: Any) -> frozenset[str]:
        return vd.hidden_verbs(m)

    # --- the map, the battle, the dossier -------------------------------------------------------
    def square_marks(self, s: Scene, m: Any, cell: Cell, x: float, y: float, w: float,
                     h: float, paper: tuple[int, int, int]) -> bool:
        """A diamond per Master left there without a Servant."""
        for k in range(vd.vacant_on(m.view, cell.index)):
            s.diamond(x + w - 50 - k * 14, y + 12, 6, th.INK_SOFT)
        return False

    def square_lines(self, m: Any, square: int) -> list[str]:
        return vd.map_lines(m, square)

    def token_ring(self, m: Any, seat: int) -> tuple[int, ...] | None:
        """Spirit form: a pale ring, as if half there."""
        return th.SKY if seat in vd.spirit_seats(m.view) else None

    def combatant(self, m: Any, b: dict[str, Any], seat: int) -> dict[str, Any]:
        return {"flags": tx.stance_flags(m, seat)}

    def dossier(self, m: Any) -> dict[int, Any]:
        return vd.dossier(m)

    def dossier_titles(self, tr: Any) -> tuple[str, ...]:
        return dossier_rows.titles(tr)

    def dossier_row(self, view: Any, s: Scene, row: dict[str, Any], y: float, h: float) -> None:
        dossier_rows.dossier_row(view, s, row, y, h)

    def tour(self, tour: Any, scenario: str) -> list[Path] | None:
        from .tour import screens
        return screens(tour, scenario)


register(CampaignPart())
