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
        me = self.me
        out = []
        for i, sq in enumerate(grid.squares):
            camps = [c for c in view["camps"] if c["pos"] == i and c["alive"]]
            out.append(Cell(
                i, sq.x, sq.y, sq.name.get(self.tr.lang), sq.leyline, camps, moves.get(i),
                any(c["seat"] in targets for c in camps), i in battle_squares, i in eaten,
                any(c["seat"] == me for c in camps)))
        return out

    def square_lines(self, square: int) -> list[str]:
        """The modules' lines of a square's hover text (whose zones cover it, what walks
        there)."""
        return [line for part in self.parts() for line in part.square_lines(self, square)]

    def grid_size(self) -> tuple[int, int]:
        grid = self.tr.rules.maps[self.view["map"]] if self.view else None
        return (grid.width, grid.height) if grid else (7, 6)

    def square_name(self, index: int) -> str:
        return self.tr.square(self.view["map"], index) if self.view else str(index)
