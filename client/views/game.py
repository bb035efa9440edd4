"""Game: the city map, the day and turn, who is still deciding, your Servant and Master, the
action bar and the hand."""

from __future__ import annotations

from functools import partial
from typing import Any

from .. import theme as th
from ..gfx import Scene, text_width
from ..model import Cell
from .common import (
    HEADER_H,
    InGameView,
    paper,
    presence_mark,
    presence_name,
    presence_tag,
    token,
)

MAP = (16, 196, 764, 544)  # left, bottom, width, height
SIDE = (792, 196, 472, 544)
HAND = (16, 12, 388, 172)
BAR = (416, 12, 848, 172)


class GameView(InGameView):
    name = "game"
    background = (22, 22, 35)
    split = True
    cached = True
    tab = "game"

    def layout(self, s: Scene) -> None:
        self.header(s)
        if self.model.view is None:
            return
        self.city_map(s, *MAP)
        self.side(s, *SIDE)
        self.hand(s, *HAND)
        self.action_bar(s, *BAR)

    # --- the map --------------------------------------------------------------------------------
    def city_map(self, s: Scene, left: float, bottom: float, width: float,
                 height: float) -> None:
        tr, m = self.tr, self.model
        view = m.view
        title = tr("map.title", city=tr.city(view["map"]))
        self.panel(s, left, bottom, width, height, title, hollow=True)
        moves = m.move_actions()
        right = left + width - 16
        status = " · ".join(filter(None, (p.map_status(m) for p in m.parts())))
        if status:  # a module's figure (its HP, how far it has to walk), on the title
            t = s.text(status, right, bottom + height - 24, 12, th.VERMILION, bold=True,
                       anchor_x="right", max_width=width - 300)
            right -= t.content_width + 16
        if moves and m.prompt_kind == "declare":
            title_w = text_width(title, th.SERIF, 14) + 40
            s.text(tr("map.move_hint"), right, bottom + height - 24, 12, th.SKY,
                   anchor_x="right", max_width=max(60, right - left - title_w))
        cols, rows = m.grid_size()
        gx, gy = left + 10, bottom + 10
        gw, gh = width - 20, height - 52
        cw, ch = gw / cols, gh / rows
        selected_targets = m.target_seats(self.app.ui.verb) if self.app.ui.verb else set()
        centres = {}
        for cell in m.cells():
            x = gx + cell.x * cw
            y = gy + (rows - 1 - cell.y) * ch
            self.cell(s, cell, x + 2, y + 2, cw - 4, ch - 4, selected_targets)
            centres[cell.index] = (x + cw / 2, y + ch / 2)
        for part in m.parts():
            part.map_overlay(s, m, centres, cw, ch)

    def cell(self, s: Scene, cell: Cell, x: float, y: float, w: float, h: float,
             selected_targets: set[int]) -> None:
        tr, m = self.tr, self.model
        rank = th.LEYLINE_DOTS.get(cell.leyline, 0)
        tint = paper(cell)
        s.box(x, y, w, h, tint, th.PAPER_DARK, 1)
        plate = False
        for part in m.parts():
            plate = part.square_marks(s, m, cell, x, y, w, h, tint) or plate
        # leyline marks (bottom right): jade dots, a gold diamond for a Dragon Vein
        for k in range(min(rank, 3)):
            s.circle(x + w - 10 - k * 11, y + 10, 4, th.JADE)
        if rank == 4:
            s.diamond(x + w - 12, y + 12, 8, th.GOLD_DARK)
            s.diamond(x + w - 12, y + 12, 4, th.GOLD)
        if cell.eaten:
            s.triangle((x + 1, y + 1), (x + 16, y + 1), (x + 1, y + 16), th.VERMILION_DARK)
        name = s.text(cell.name, x + 5, y + h - 4, 10, th.INK, anchor_y="top",
                      width=int(w - 10), max_lines=2)
        if plate:  # its name on a plate of its paper, above a module's marks (shapes are
            # drawn under every text of the scene)
            s.rect(x + 3, y + h - 6 - name.content_height, name.content_width + 5,
                   name.content_height + 4, tint)
        # highlights
        if cell.move is not None:
            s.frame(x, y, w, h, th.SKY, 3)
        if cell.battle:
            s.frame(x, y, w, h, th.VERMILION, 3)
            s.line(x + w - 22, y + 8, x + w - 8, y + 22, 3, th.VERMILION)
            s.line(x + w - 22, y + 22, x + w - 8, y + 8, 3, th.VERMILION)
        if cell.mine:
            s.frame(x + 3, y + 3, w - 6, h - 6, th.GOLD, 2)
        camps = cell.camps
        if camps:
            r = 14 if len(camps) <= 3 else 11
            step = min(2 * r + 4, (w - 2 * r - 8) / max(1, len(camps) - 1)) if len(
                camps) > 1 else 0
            cx = x + r + 6
            for camp in camps:
                target = camp["seat"] in selected_targets  # rings only for the open verb
                token(s, cx, y + r + 6, r, camp["cls"], tr.short(camp["cls"]),
                      mine=camp["seat"] == m.me, target=target,
                      size=12 if tr.lang != "en" else 10)
                ring = next((c for p in m.parts() if (c := p.token_ring(m, camp["seat"]))),
                            None)
                if ring is not None:  # a module's mark (spirit form: a pale ring)
                    s.ring(cx, y + r + 6, r + 4, 2, ring)
                cx += step
        help_lines = [cell.name, tr("map.leyline", rank=tr(f"leyline.{cell.leyline}"))]
        if camps:
            help_lines.append(tr("map.camps_here", list=", ".join(
                f"{tr.cls(c['cls'])} {m.player_name(c['seat'])}".strip() for c in camps)))
        if cell.eaten:
            help_lines.append(tr("map.eaten"))
        help_lines.extend(m.square_lines(cell.index))
        on_click = None
        if cell.move is not None:
            on_click = partial(self.send, cell.move)
        elif self.app.ui.verb:
            options = [o for o in m.options(self.app.ui.verb)
                       if o.target in {c["seat"] for c in camps} or o.square == cell.index]
            if len(options) == 1:
                on_click = partial(self.send, options[0].action)
        self.add_region(f"cell:{cell.index}", x, y, w, h, on_click, True, "\n".join(help_lines))

    # --- the side panel -------------------------------------------------------------------------
    def side(self, s: Scene, left: float, bottom: float, width: float, height: float) -> None:
        split = 286
        self.own_camp(s, left, bottom + height - split, width, split)
        self.camps_list(s, left, bottom, width, height - split - 12)

    def own_camp(self, s: Scene, left: float, bottom: float, width: float,
                 height: float) -> None:
        tr, m = self.tr, self.model
        camp = m.my_camp
        self.panel(s, left, bottom, width, height)
        if camp is None:
            s.text(tr("panel.no_camp"), left + width / 2, bottom + height / 2, 14, th.MUTED,
                   anchor_x="center")
            return
        cls = camp["cls"]
        colour = th.class_colour(cls)
        top = bottom + height
        s.rect(left + 1, top - 58, width - 2, 57, th.shade(colour, 0.45))
        s.rect(left + 1, top - 4, width - 2, 3, colour)
        token(s, left + 34, top - 30, 20, cls, tr.short(cls), mine=True)
        s.text(tr.cls(cls), left + 64, top - 26, 18, th.WHITE, font="serif")
        servant = tr.servant_by_id(camp.get("servant", ""))  # one's own camp names it
        if servant is not None:
            s.text(servant.true_name.get(tr.lang), left + 64, top - 47, 11, th.shade(colour, 1.6),
                   max_width=width - 200)
        self.add_region("own_servant", left, top - 58, width - 110, 57,
                        help=f"{tr('dossier.params')}\n{tr.ranks(camp['ranks'])}")
        self.seal(s, left + width - 56, top - 28, 14, th.VERMILION, camp["spells"])
        self.add_region("spells", left + width - 100, top - 50, 90, 44,
                        help=f"{tr('panel.command_spells')}: {camp['spells']}")
        y = top - 90
        self.bar(s, left + 14, y, width - 28, 22, camp["hp"], camp["max_hp"],
                 th.HP if camp["hp"] > camp["max_hp"] * 0.3 else th.HP_LOW, tr("panel.hp"))
        y -= 28
        self.bar(s, left + 14, y, width - 28, 18, camp.get("mp"), camp.get("max_mp"), th.MP,
                 tr("panel.mp"))
        y -= 34
        master = tr.master_name(camp.get("master", ""))
        s.text(f"{tr('panel.master')}  {master}", left + 14, y + 8, 13, th.TEXT,
               max_width=width / 2)
        if camp.get("asleep"):
            t = s.text(tr("panel.asleep"), left + width - 14, y + 8, 12, th.VERMILION,
                       anchor_x="right")
            self.add_region("asleep", left + width - 14 - t.content_width, y + 2,
                            t.content_width, 20, help=tr("panel.asleep_help"))
        y -= 22
        self.bar(s, left + 14, y, width - 28, 16, camp.get("master_mp"),
                 camp.get("max_master_mp"), th.MASTER_MP, tr("panel.master_mp"))
        y -= 26
        used = set(camp.get("skills_used", []))
        skills = list(camp.get("skills", []))
        x0 = left + 14
        x = x0
        for sk in skills + list(camp.get("master_skills", [])):
            label = tr.skill(sk)
            is_master = sk not in skills
            colour = th.MUTED if sk in used else (th.shade(th.MASTER_MP, 1.4) if is_master
                                                   else th.TEXT)
            t = s.text(label, 0, 0, 11, colour, max_width=200)
            w = t.content_width + 14
            if x + w > left + width - 12:
                x = x0
                y -= 24
            t.position = (x + 7, y)
            s.box(x, y - 6, w, 20, th.BG2, th.shade(th.MASTER_MP, 0.8) if is_master else th.LINE,
                  1)
            self.add_region(f"skill:{sk}", x, y - 6, w, 20, help=tr.skill_help(sk))
            x += w + 6
        y -= 26
        info = [tr("panel.position", square=m.square_name(camp["pos"])),
                tr("panel.movement", n=camp["movement"])]
        s.text(" · ".join(info), left + 14, y, 12, th.MUTED, max_width=width - 28)

    def camps_list(self, s: Scene, left: float, bottom: float, width: float,
                   height: float) -> None:
        tr, m = self.tr, self.model
        now = self.now()
        view = m.view
        self.panel(s, left, bottom, width, height, tr("panel.camps"))
        declared = {d["seat"]: d for d in view["declarations"]}
        rows = m.deciding(now)
        row_h = min(34, (height - 46) / max(1, len(rows)))
        y = bottom + height - 44 - row_h
        for seat, status, _seconds in rows:
            camp = view["camps"][seat]
            cls = camp["cls"]
            alive = camp["alive"]
            mine = seat == m.me
            if mine:
                s.rect(left + 6, y + 1, width - 12, row_h - 2, th.PANEL2)
            token(s, left + 24, y + row_h / 2, 11, cls, tr.short(cls), mine=mine,
                  dead=not alive, size=10 if tr.lang != "en" else 8)
            name = m.player_name(seat)
            presence = m.presence(seat) if alive else ""
            s.text(tr.cls(cls), left + 44, y + row_h / 2, 13,
                   th.class_colour(cls) if alive else th.FAINT, bold=True, anchor_y="center")
            if presence:  # its player is away: a badge on the token, a tag after the name
                presence_mark(s, left + 32, y + row_h / 2 - 7, presence)
                presence_name(s, tr, name, presence, left + 150, y + row_h / 2, 112)
            else:
                s.text(name, left + 150, y + row_h / 2, 12, th.TEXT if alive else th.FAINT,
                       anchor_y="center", max_width=110)
            bx = left + 268
            if alive:
                self.bar(s, bx, y + row_h / 2 - 5, 70, 10, camp["hp"], camp["max_hp"],
                         th.HP if camp["hp"] > camp["max_hp"] * 0.3 else th.HP_LOW)
            sx = left + width - 14
            if status == "deciding":  # with its seconds: drawn every second by live_layout
                self.live_slots.append(("deciding", seat, sx, y + row_h / 2))
                text, colour = "", th.GOLD
            elif status == "declared" and seat in declared:
                text = tr(f"decl.{declared[seat]['kind']}")
                colour = th.JADE
            elif status == "declared":
                text = tr("panel.declared")
                colour = th.JADE
            elif status == "bound":
                text = tr("panel.bound")
                colour = th.VERMILION
            elif status == "dead":
                text = tr("panel.dead")
                colour = th.FAINT
            else:
                text, colour = "", th.MUTED
            if text:
                s.text(text, sx, y + row_h / 2, 12, colour, anchor_x="right", anchor_y="center",
                       max_width=110)
            self.add_region(f"camp:{seat}", left + 6, y, width - 12, row_h,
                            help=self.camp_help(camp))
            y -= row_h

    def camp_help(self, camp: dict[str, Any]) -> str:
        tr, m = self.tr, self.model
        presence = m.presence(camp["seat"]) if camp["alive"] else ""
        lines = [f"{tr.cls(camp['cls'])} {m.player_name(camp['seat'])}".strip(),
                 *([presence_tag(tr, presence)[2]] if presence else []),
                 f"{tr('panel.hp')} {camp['hp']}/{camp['max_hp']} · "
                 f"{tr('panel.command_spells')} {camp['spells']}", tr.ranks(camp["ranks"]),
                 tr("panel.position", square=m.square_name(camp["pos"]))]
        return "\n".join(lines)


__all__ = ["HEADER_H", "GameView"]
