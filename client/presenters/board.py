"""The map screen's presenter: its cells, their hover texts and names. A part of
`ClientModel` (mixed in)."""

from __future__ import annotations

from ..viewdata import Cell


class Board:
    """The map's cells (mixed into `ClientModel`)."""

    # --- the map --------------------------------------------------------------------------------
    def cells(self) -> list[Cell]:
        view = self.view
        if not view:
            return []
        grid = self.tr.rules.maps[view["map"]]
        moves = self.move_actions()
        targets = self.target_seats()
        battle = view.get("battle")
        battle_squares = set()
        if battle:
            battle_squares.add(battle["square"])
            battle_squares.update(self.camp(s)["pos"] for s in battle["seats"])
        eaten = set(view.get("eaten", []))
        tactics = self.tactics() or {}
        blocking = set(tactics.get("blocking", ()))
        zones: dict[bool, dict[int, list[int]]] = {True: {}, False: {}}
        for z in tactics.get("zoc", ()):  # listed during a battle only
            for q in z["squares"]:
                zones[z["active"]].setdefault(q, []).append(z["seat"])
        me = self.me
        out = []
        for i, sq in enumerate(grid.squares):
            camps = [c for c in view["camps"] if c["pos"] == i and c["alive"]]
            out.append(Cell(
                i, sq.x, sq.y, sq.name.get(self.tr.lang), sq.leyline, camps, moves.get(i),
                any(c["seat"] in targets for c in camps), i in battle_squares, i in eaten,
                any(c["seat"] == me for c in camps), tuple(zones[True].get(i, ())),
                tuple(zones[False].get(i, ())), i in blocking))
        return out

    def cell_help(self, cell: Cell) -> list[str]:
        """The tactics lines of a square's hover text: whose zones cover it, whether it blocks."""
        tr = self.tr
        lines = []
        for key, seats in (("tactics.zone_of", cell.zoc), ("tactics.zone_idle_of", cell.zoc_idle)):
            if seats:
                lines.append(tr(key, list=", ".join(self.who(x) for x in seats)))
        if cell.blocking:
            lines.append(tr("tactics.blocking"))
        return lines

    def grid_size(self) -> tuple[int, int]:
        grid = self.tr.rules.maps[self.view["map"]] if self.view else None
        return (grid.width, grid.height) if grid else (7, 6)

    def square_name(self, index: int) -> str:
        return self.tr.square(self.view["map"], index) if self.view else str(index)
