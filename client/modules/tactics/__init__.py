"""The tactics module's client part (seed 003 T1-T4): zones of control and blocking terrain on
the map and the battle's own small map, the targets a line of fire or sight rules out, the
concentration options and rolls left."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ... import theme as th
from ...viewdata import Cell, Option
from .. import ClientPart, register

if TYPE_CHECKING:
    from ...gfx import Scene

# The verbs whose targets a line of fire or sight may rule out (the `what` of each
# `ruled_out` entry of the module's view).
RULED_OUT_VERBS = {"Attack": "attack", "UseSkill": "skill", "ConcentrateCast": "skill"}
HATCH = (118, 106, 96)  # the hatching of blocking terrain
ZONE_MIX = 0.42  # how far a zone of control moves its squares' paper toward the owner's colour
ZONE_MAP_H = 262  # the battle's small map: its share of the tray, below the dice


def state_of(m: Any) -> dict[str, Any]:
    """The module's public state (zones, blocking squares, concentration); {} when off."""
    return m.module_state("tactics") or {}


def zones(m: Any) -> tuple[dict[int, list[int]], dict[int, list[int]], set[int]]:
    """Per square, the seats whose active zones cover it and those whose idle zones do (zones
    are listed during a battle only), and the blocking squares."""
    st = state_of(m)
    cover: dict[bool, dict[int, list[int]]] = {True: {}, False: {}}
    for z in st.get("zoc", ()):
        for q in z["squares"]:
            cover[z["active"]].setdefault(q, []).append(z["seat"])
    return cover[True], cover[False], set(st.get("blocking", ()))


def hatch(s: Scene, x: float, y: float, w: float, h: float, colour: tuple[int, ...],
          step: int = 14, width: float = 2.5) -> None:
    """Diagonal lines across a box (each line u - v = c, cut at the box's edges)."""
    for c in range(step // 2 - int(h), int(w), step):
        v0, v1 = max(0.0, -c), min(h, w - c)
        s.line(x + v0 + c, y + v0, x + v1 + c, y + v1, width, colour)


def uses_left(m: Any) -> str:
    """This seat's concentration rolls left in the battle."""
    uses = state_of(m).get("uses", [])
    me = m.me
    return m.tr("tactics.uses", n=uses[me] if me is not None and me < len(uses) else 0)


class TacticsPart(ClientPart):
    name = "tactics"

    # --- the map --------------------------------------------------------------------------------
    def square_marks(self, s: Scene, m: Any, cell: Cell, x: float, y: float, w: float,
                     h: float, paper: tuple[int, int, int]) -> bool:
        """A band per active zone of control in its owner's camp colour with a strip of the
        pure colour on top (whose zone, at a glance), an outline only per inactive zone, and
        hatching on terrain that blocks lines of fire (its name then on a plate)."""
        active, idle, blocking = zones(m)
        seats = active.get(cell.index, ())
        if seats:
            bw = (w - 2) / len(seats)
            for i, seat in enumerate(seats):
                colour = th.class_colour(m.camp(seat)["cls"])
                s.rect(x + 1 + i * bw, y + 1, bw, h - 2, th.mix(paper, colour, ZONE_MIX))
                s.rect(x + 1 + i * bw, y + h - 5, bw, 4, colour)
        for k, seat in enumerate(idle.get(cell.index, ())):
            inset = 3 + 4 * k
            s.frame(x + inset, y + inset, w - 2 * inset, h - 2 * inset,
                    th.class_colour(m.camp(seat)["cls"]), 2)
        if cell.index in blocking:
            hatch(s, x + 1, y + 1, w - 2, h - 2, HATCH)
        return cell.index in blocking

    def square_lines(self, m: Any, square: int) -> list[str]:
        """Whose zones cover the square, whether it blocks."""
        tr = m.tr
        active, idle, blocking = zones(m)
        lines = [tr(key, list=", ".join(m.who(x) for x in cover[square]))
                 for key, cover in (("tactics.zone_of", active), ("tactics.zone_idle_of", idle))
                 if square in cover]
        if square in blocking:
            lines.append(tr("tactics.blocking"))
        return lines

    # --- the action bar -------------------------------------------------------------------------
    def option(self, m: Any, a: dict[str, Any], help_text: str) -> Option | None:
        tr = m.tr
        if a["type"] == "Concentrate":
            use = a["use"]
            return Option(tr(f"tactics.use.{use}"), a,
                          "\n".join((tr(f"tactics.use_help.{use}"), uses_left(m))))
        if a["type"] == "ConcentrateCast":  # a UseSkill's option with the rolls left
            skill = m.option({**a, "type": "UseSkill"})
            return replace(skill, action=a, help="\n".join((help_text, uses_left(m),
                                                             skill.help)))
        return None

    def ruled_out(self, m: Any, verb: str) -> list[Option]:
        """Targets in reach that a line of fire or sight rules out (T2), shown disabled with
        the reason. They carry no action: nothing can send them."""
        what = RULED_OUT_VERBS.get(verb)
        entries = [r for r in state_of(m).get("ruled_out", []) if r["what"] == what]
        if not entries or not m.legal:
            return []
        if what == "attack":
            aims = [(m.who(r["target"]), r) for r in entries]
        else:  # every skill the seat may aim at another camp now, at each unseen target
            skills = dict.fromkeys(a["skill"] for a in m.legal if a["type"] == verb
                                   and a.get("target", -1) >= 0 and a["target"] != m.me)
            aims = [(m.aimed(skill, r["target"]), r) for skill in skills for r in entries]
        return [Option(f"× {label}", None, m.tr(f"tactics.ruled_out.{r['reason']}"),
                       target=r["target"], reason=r["reason"]) for label, r in aims]

    def event_line(self, m: Any, e: dict[str, Any]) -> str | None:
        kind = e.get("type")
        if kind not in ("ConcentrationDeclared", "ConcentrationRolled"):
            return None
        tr = m.tr
        result = tr("event.concentration_ok" if e.get("success") else "event.concentration_ng")
        return tr(f"event.{kind}", who=m.who(e.get("seat")),
                  use=tr(f"tactics.use.{e.get('use')}"), result=result)

    # --- the battle -----------------------------------------------------------------------------
    def combatant(self, m: Any, b: dict[str, Any], seat: int) -> dict[str, Any]:
        """Its marks (seizing, enduring), its zone, and its concentration rolls left (None:
        not counted in this game)."""
        st, tr = state_of(m), m.tr
        flags = [tr(key) for key, part in (("tactics.seizing", "seize"),
                                           ("tactics.enduring", "endure"))
                 if seat in st.get(part, ())]
        counted = m.module_option("tactics", "concentration")
        return {"flags": flags, "uses": st["uses"][seat] if counted else None,
                "zone": next((z for z in st.get("zoc", ()) if z["seat"] == seat), None)}

    def combatant_line(self, view: Any, s: Scene, c: dict[str, Any], x: float, y: float,
                       width: float) -> None:
        """Its zone of control (a swatch: filled when active, outlined when not) and its
        concentration rolls left."""
        tr = view.tr
        zone, parts = c.get("zone"), []
        swatch = zone is not None and zone["radius"] > 0
        if swatch:
            colour = th.class_colour(c["cls"])
            if zone["active"]:
                s.rect(x, y - 1, 12, 12, colour)
            else:
                s.frame(x, y - 1, 12, 12, colour, 2)
            parts.append(tr("tactics.zone_active" if zone["active"] else "tactics.zone_idle",
                            r=zone["radius"]))
        if c.get("uses") is not None:
            parts.append(tr("tactics.uses", n=c["uses"]))
        if parts:
            dx = 18 if swatch else 0
            s.text(" · ".join(parts), x + dx, y, 11, th.TEXT, max_width=width - dx)

    def battle_tray(self, view: Any, s: Scene, b: dict[str, Any], left: float, bottom: float,
                    width: float) -> float:
        """The city around the battle: zones of control, blocking terrain, the combatants;
        a lit square takes a battle Move."""
        from ...views.common import paper, token

        tr, m, height = view.tr, view.model, ZONE_MAP_H
        view.panel(s, left, bottom, width, height, tr("tactics.map"), hollow=True)
        cols, rows = m.grid_size()
        cw, ch = (width - 16) / cols, (height - 50) / rows
        fighters = set(b["seats"])
        targets = m.target_seats(view.app.ui.verb) if view.app.ui.verb else set()
        for cell in m.cells():
            x = left + 8 + cell.x * cw + 1
            y = bottom + 8 + (rows - 1 - cell.y) * ch + 1
            w, h = cw - 2, ch - 2
            tint = paper(cell)
            s.box(x, y, w, h, tint, th.PAPER_DARK, 1)
            self.square_marks(s, m, cell, x, y, w, h, tint)
            if cell.move is not None:
                s.frame(x, y, w, h, th.SKY, 2)
            if cell.index == b["square"]:
                s.frame(x, y, w, h, th.VERMILION, 2)
            camps = [c for c in cell.camps if c["seat"] in fighters]
            r = min(9.0, h / 2 - 4)
            for i, camp in enumerate(camps[:3]):
                token(s, x + r + 4 + i * (w - 2 * r - 8) / max(1, len(camps[:3]) - 1), y + h / 2,
                      r, camp["cls"], tr.short(camp["cls"]), mine=camp["seat"] == m.me,
                      target=camp["seat"] in targets, size=9 if tr.lang != "en" else 7)
            lines = [cell.name, *self.square_lines(m, cell.index)]
            lines.extend(f"{tr.cls(c['cls'])} {m.player_name(c['seat'])}".strip() for c in camps)
            on_click = partial(view.send, cell.move) if cell.move is not None else None
            view.add_region(f"zone:{cell.index}", x, y, w, h, on_click, True, "\n".join(lines))
        return height + 12

    def tour(self, tour: Any, scenario: str) -> list[Path] | None:
        from .tour import screens
        return screens(tour, scenario)


register(TacticsPart())
