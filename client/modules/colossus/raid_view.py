"""Raid: a battle against the colossus (seed 003 §5.5, spec 003 T7), read at a glance. Its body
as its 26 tiles at their heights (colour, the tilt of their surface), who clings where, the tiles
the coming script step shakes climbers off, the step itself, the colossus's HP and the damage
that got through, the acting climber's three slots, and the raid's legal actions as buttons (a
lit tile takes the Mount or the climb that ends there)."""

from __future__ import annotations

from functools import partial
from typing import Any

from ... import theme as th
from ...gfx import Scene, text_width
from ...views.common import HEADER_H, InGameView, token
from .view_data import SLOTS, STAGES, listing, part_name, raid_screen, step_text, tile_name

BODY = (16, 196, 650, 504)  # left, bottom, width, height
SIDE = (678, 196, 586, 496)
HAND = (16, 12, 388, 172)
BAR = (416, 12, 848, 172)
SCRIPT_H = 164  # the script panel's height, under the colossus's
GROUND_H = 46  # the strip under the feet where ground raiders stand
RAIDER_BAR = 140  # where a raider's HP bar starts in its row (its name stops before)
GROUND_TOKEN = 34  # a ground raider's token and its gap, when the strip has no room for names
RULER_W = 34  # the heights' scale left of the body
# Where each tile sits across the body seen from behind (its column; its row is its height):
# the left arm, shoulder and half of the body, the spine, then the right side mirrored.
COLUMNS = {"arm_l": 1, "shoulders_l": 2, "body_l": 3, "spine": 4}
TILE_COLUMN = {
    **dict.fromkeys(("hand_l", "forearm_l", "upper_arm_l"), COLUMNS["arm_l"]),
    "shoulder_l": COLUMNS["shoulders_l"],
    **dict.fromkeys(("foot_l", "ankle_l", "shin_l", "thigh_l", "hip_l", "back_1", "back_3",
                     "back_5"), COLUMNS["body_l"]),
    "nape": COLUMNS["spine"], "crown": COLUMNS["spine"],
}
MAX_COLUMN = 7
TILE_COLOURS = {"blue": (62, 98, 176), "green": (64, 138, 84), "white": (226, 224, 214),
                "yellow": (222, 186, 76)}
DARK_INK = frozenset({"white", "yellow"})  # bare tiles are light: dark writing on them
SHAKEN = (236, 74, 52)


def column(tile_id: str) -> int:
    """A tile's column: the right side mirrors the left (`_r` for `_l`, back_2k for 2k-1)."""
    if tile_id in TILE_COLUMN:
        return TILE_COLUMN[tile_id]
    mirror = tile_id[:-2] + "_l" if tile_id.endswith("_r") else \
        f"back_{int(tile_id[5:]) - 1}" if tile_id.startswith("back_") else tile_id
    return MAX_COLUMN + 1 - TILE_COLUMN.get(mirror, COLUMNS["spine"])


class RaidView(InGameView):
    name = "raid"
    background = (20, 22, 30)
    split = True
    cached = True
    tab = "battle"

    def layout(self, s: Scene) -> None:
        self.header(s)
        r = raid_screen(self.model)
        if r is None:
            s.text(self.tr("battle.no_battle"), th.WIDTH / 2, th.HEIGHT / 2, 18, th.MUTED,
                   anchor_x="center")
            return
        self.title_row(s, r)
        self.body(s, r, *BODY)
        left, bottom, width, height = SIDE
        top = bottom + height
        self.colossus_panel(s, r, left, top - 112, width, 112)
        self.script_panel(s, r, left, top - 112 - 12 - SCRIPT_H, width, SCRIPT_H)
        self.raiders_panel(s, r, left, bottom, width, height - 112 - SCRIPT_H - 24)
        self.hand(s, *HAND)
        self.action_bar(s, *BAR)

    # --- the title: where, which round, which phase ------------------------------------------
    def title_row(self, s: Scene, r: dict[str, Any]) -> None:
        tr = self.tr
        top = th.HEIGHT - HEADER_H - 12
        title = tr("colossus.raid_title", square=self.model.square_name(r["square"]))
        s.text(title, 20, top - 26, 20, th.GOLD, font="serif", max_width=420)
        x = SIDE[0]
        s.box(x, top - 38, 136, 36, th.VERMILION_DARK, th.GOLD, 1)
        s.text(tr("colossus.round", n=r["round"], total=r["rounds"]), x + 68, top - 20, 16,
               th.WHITE, font="serif", anchor_x="center", anchor_y="center", max_width=128)
        x += 144
        stage = "colossus" if r["stage"] == "reaction" else r["stage"]
        for i, name in enumerate(STAGES):
            lit = name == stage
            w = 142
            s.box(x, top - 36, w, 32, th.GOLD if lit else th.PANEL, th.GOLD if lit else th.LINE,
                  1)
            s.text(f"{'①②③'[i]} {tr(f'colossus.stage.{name}')}", x + w / 2, top - 20, 13,
                   th.INK if lit else th.MUTED, bold=lit, anchor_x="center", anchor_y="center",
                   max_width=w - 8)
            x += w + 8
        if r["stage"] == "round_start":
            s.text(tr("colossus.stage.round_start"), SIDE[0] - 14, top - 20, 13, th.GOLD,
                   anchor_x="right", anchor_y="center", max_width=150)

    # --- the body ------------------------------------------------------------------------------
    def body(self, s: Scene, r: dict[str, Any], left: float, bottom: float, width: float,
             height: float) -> None:
        tr = self.tr
        self.panel(s, left, bottom, width, height, tr("colossus.body"), hollow=True)
        self.legend(s, left + width - 14, bottom + height - 24)
        ground_y = bottom + 8
        rows_bottom = ground_y + GROUND_H + 6
        top_row = max(t["height"] for t in r["tiles"])
        row_h = (bottom + height - 50 - rows_bottom) / (top_row + 1)
        col_w = (width - RULER_W - 20) / MAX_COLUMN
        x0 = left + RULER_W + 10
        for h in range(top_row + 1):
            s.text(str(h), left + 10 + RULER_W / 2, rows_bottom + (h + 0.5) * row_h, 10,
                   th.FAINT, anchor_x="center", anchor_y="center")
        s.text(tr("colossus.height"), left + 10 + RULER_W / 2, bottom + height - 44, 9,
               th.FAINT, anchor_x="center", anchor_y="center", max_width=RULER_W + 6)
        centres = {t["id"]: (x0 + (column(t["id"]) - 0.5) * col_w,
                             rows_bottom + (t["height"] + 0.5) * row_h) for t in r["tiles"]}
        drawn = set()
        for t in r["tiles"]:  # the links first, under the tiles
            for link in t["links"]:
                if (link, t["id"]) not in drawn:
                    drawn.add((t["id"], link))
                    s.line(*centres[t["id"]], *centres[link], 3, (92, 86, 104))
        for t in r["tiles"]:
            cx, cy = centres[t["id"]]
            self.tile(s, r, t, cx - col_w / 2 + 3, cy - row_h / 2 + 2, col_w - 6, row_h - 4)
        self.ground(s, r, left + 10, ground_y, width - 20, GROUND_H)

    def legend(self, s: Scene, right: float, y: float) -> None:
        """The two kinds of tile: hairy (blue, green) holds on a tilt; bare (white, yellow)
        throws its climber off."""
        tr = self.tr
        x = right
        for key, colours in (("colossus.bare", ("white", "yellow")),
                             ("colossus.hairy", ("blue", "green"))):
            t = s.text(tr(key), x, y, 11, th.TEXT, anchor_x="right", anchor_y="center")
            x -= t.content_width + 6
            for colour in reversed(colours):
                s.box(x - 14, y - 7, 14, 14, TILE_COLOURS[colour], th.PAPER_DARK, 1)
                x -= 17
            x -= 14

    def tile(self, s: Scene, r: dict[str, Any], t: dict[str, Any], x: float, y: float,
             w: float, h: float) -> None:
        tr, m = self.tr, self.model
        fill = TILE_COLOURS[t["colour"]]
        ink = th.INK if t["colour"] in DARK_INK else th.WHITE
        acting = r["actor"] is not None and r["actor"] in t["climbers"]
        border = th.GOLD if acting else th.shade(fill, 0.6)
        s.box(x, y, w, h, fill, border, 2 if acting else 1)
        self.tilt_mark(s, t["tilt"], x + w - 8, y + h / 2, ink)
        climbers = t["climbers"]
        if not climbers:  # an occupied tile shows who clings there (its name on hover)
            s.text(tile_name(tr, t["id"]), x + 4, y + h / 2, 9.5, ink, anchor_y="center",
                   max_width=w - 18)
        for i, seat in enumerate(climbers):
            camp = m.camp(seat)
            token(s, x + 11 + i * 20, y + h / 2, min(9.0, h / 2 - 3), camp["cls"],
                  tr.short(camp["cls"]), mine=seat == m.me,
                  target=any(x["seat"] == seat and x["struck"] for x in r["raiders"]),
                  size=8 if tr.lang != "en" else 7)
        if t["shaken"]:
            s.frame(x - 2, y - 2, w + 4, h + 4, SHAKEN, 3)
        choice = t["choice"]
        if choice is not None:
            s.frame(x - 3, y - 3, w + 6, h + 6, th.SKY, 3)
        on_click = partial(self.send, choice) if choice is not None else None
        if t["reach"]:  # a ground raider's attack reaches its part: the click opens them
            s.frame(x - 3, y - 3, w + 6, h + 6, th.GOLD, 2)
            on_click = partial(self.press_verb, "AttackPart")
        self.add_region(f"tile:{t['id']}", x, y, w, h, on_click, True, self.tile_help(r, t))

    def tilt_mark(self, s: Scene, tilt: str, x: float, y: float, ink: tuple[int, ...]) -> None:
        """The surface's tilt as a stroke: — horizontal, / 45°, | vertical."""
        d = 5
        ends = {"horizontal": (-d, 0, d, 0), "tilted": (-d, -d, d, d), "vertical": (0, -d, 0, d)}
        dx1, dy1, dx2, dy2 = ends.get(tilt, ends["horizontal"])
        s.line(x + dx1, y + dy1, x + dx2, y + dy2, 3, ink)

    def tile_help(self, r: dict[str, Any], t: dict[str, Any]) -> str:
        tr, m = self.tr, self.model
        kind = "colossus.hairy" if t["colour"] in ("blue", "green") else "colossus.bare"
        lines = [tile_name(tr, t["id"]),
                 tr("colossus.tile_help", part=part_name(tr, t["part"]),
                    surface=tr(f"colossus.surface.{t['surface']}"),
                    tilt=tr(f"colossus.tilt.{t['tilt']}"), height=t["height"],
                    fall=t["height"] * r["fall"]),
                 f"{tr('colossus.colour.' + t['colour'])} · {tr(kind)}"]
        if t["ground"]:
            lines.append(tr("colossus.ground_tile"))
        if t["reach"]:
            lines.append(tr("colossus.reach"))
        if t["shaken"]:
            lines.append(tr("colossus.shaken_next", step=tr(f"colossus.step.{r['step']['id']}")))
        lines.extend(f"{tr.cls(m.camp(x)['cls'])} {m.player_name(x)}".strip()
                     for x in t["climbers"])
        return "\n".join(lines)

    def ground(self, s: Scene, r: dict[str, Any], left: float, bottom: float, width: float,
               height: float) -> None:
        tr, m = self.tr, self.model
        s.box(left, bottom, width, height, (58, 50, 40), th.PAPER_DARK, 1)
        s.text(tr("colossus.ground"), left + 10, bottom + height / 2, 12, th.PAPER,
               anchor_y="center", max_width=90)
        x, right = left + 120, left + width - 10
        struck = {x["seat"] for x in r["raiders"] if x["struck"]}
        seats = r["ground"]
        names = [tr.cls(m.camp(seat)["cls"]) for seat in seats]
        # Each name whole beside its token, or (crowded) the tokens alone, named on hover.
        named = sum(44 + text_width(name, size=11) for name in names) <= right - x
        for i, seat in enumerate(seats):
            camp = m.camp(seat)
            token(s, x, bottom + height / 2, 14, camp["cls"], tr.short(camp["cls"]),
                  mine=seat == m.me, target=seat in struck, size=11 if tr.lang != "en" else 9)
            if named:
                t = s.text(names[i], x + 22, bottom + height / 2, 11, th.PAPER,
                           anchor_y="center")
                x += 44 + t.content_width
            else:
                x += GROUND_TOKEN
        self.add_region("ground", left, bottom, width, height, None, True,
                        listing(tr, names))

    # --- the colossus: HP, the damage that got through ---------------------------------------
    def colossus_panel(self, s: Scene, r: dict[str, Any], left: float, bottom: float,
                       width: float, height: float) -> None:
        tr, m = self.tr, self.model
        self.panel(s, left, bottom, width, height)
        top = bottom + height
        s.text(tr("colossus.name"), left + 14, top - 24, 18, th.GOLD, font="serif")
        self.bar(s, left + 14, top - 62, width - 28, 26, r["hp"], r["hp_max"],
                 th.VERMILION if r["hp"] > r["hp_max"] * 0.3 else th.HP_LOW, tr("panel.hp"))
        hit = r["hit"]
        if hit is not None:
            kind = hit["type"]
            line = tr(f"colossus.last.{kind}", who=m.who(hit.get("seat")),
                      part=part_name(tr, hit.get("part", "")), amount=hit.get("amount"),
                      skill=tr.skill(hit.get("skill", "")))
            s.text(line, left + width - 14, top - 24, 13,
                   th.GOLD if kind in ("PartHit", "SpellOnColossus") and hit.get("amount")
                   else th.SKY,
                   anchor_x="right", bold=True, max_width=width - 200)
        dealt = " · ".join(f"{tr.cls(m.camp(x['seat'])['cls'])} {x['damage']}"
                           for x in r["raiders"])
        s.text(tr("colossus.dealt", list=dealt), left + 14, bottom + 14, 12, th.TEXT,
               max_width=width - 28)

    # --- the script: the step to come, and the six of them -------------------------------------
    def script_panel(self, s: Scene, r: dict[str, Any], left: float, bottom: float,
                     width: float, height: float) -> None:
        tr, m = self.tr, self.model
        self.panel(s, left, bottom, width, height, tr("colossus.script"))
        top = bottom + height - 46
        step = r["step"]
        if step is None:
            s.text(tr("colossus.last_round"), left + 14, top - 10, 15, th.MUTED)
        else:
            key = "colossus.now_step" if r["stage"] == "reaction" else "colossus.next_step"
            head = tr(key, round=r["step_round"], step=tr(f"colossus.step.{step['id']}"))
            s.text(head, left + 14, top - 10, 17, th.WHITE, font="serif", bold=True,
                   max_width=width - 28)
            if r["hit_roll"] is not None and r["strike"]:  # on the title's row
                self.strike_roll(s, r, left + width - 14, bottom + height - 22)
            s.text(step_text(tr, step), left + 14, top - 34, 13, th.GOLD, max_width=width - 28)
            warn = []
            shaken = [(x, t) for t in r["tiles"] if t["shaken"] for x in t["climbers"]]
            if shaken:
                warn.append(tr("colossus.warn_shaken", list=listing(tr, [
                    f"{m.who(x)} ({tile_name(tr, t['id'])}, −{t['height'] * r['fall']})"
                    for x, t in shaken])))
            struck = [m.who(x["seat"]) for x in r["raiders"] if x["struck"]]
            if struck:
                warn.append(tr("colossus.warn_struck", list=listing(tr, struck)))
            s.text("  ".join(warn), left + 14, top - 56, 12, SHAKEN, bold=True,
                   max_width=width - 28)
        n = len(r["script"])
        gap = 6
        bw = (width - 28 - gap * (n - 1)) / n
        x = left + 14
        for i, st in enumerate(r["script"]):
            number = i + 1
            coming = step is not None and number == r["step_round"]
            past = number < r["round"] or (number == r["round"] and r["stage"] == "climb")
            fill = th.GOLD if coming else th.PANEL if past else th.PANEL2
            s.box(x, bottom + 10, bw, 40, fill, th.GOLD if coming else th.LINE, 1)
            ink = th.INK if coming else th.FAINT if past else th.TEXT
            s.text(str(number), x + 6, bottom + 41, 9, ink, anchor_y="center")
            s.text(tr(f"colossus.step.{st['id']}"), x + bw / 2, bottom + 27, 12, ink,
                   bold=coming, anchor_x="center", anchor_y="center", max_width=bw - 8)
            self.add_region(f"step:{number}", x, bottom + 10, bw, 40,
                            help=f"{tr('colossus.step.' + st['id'])}\n{step_text(tr, st)}")
            x += bw + gap

    def strike_roll(self, s: Scene, r: dict[str, Any], right: float, y: float) -> None:
        """Its attack's hit check against the raider answering now, as a badge."""
        tr, m = self.tr, self.model
        _natural, total, critical, fumble = r["hit_roll"]
        text = tr("colossus.strike_roll", who=m.who(r["strike"][0]), total=total)
        if critical or fumble:
            text += f"  [{tr('battle.critical' if critical else 'battle.fumble')}]"
        t = s.text(text, right - 8, y, 13, th.WHITE, bold=True, anchor_x="right",
                   anchor_y="center")
        s.box(right - t.content_width - 16, y - 13, t.content_width + 16, 26, th.VERMILION,
              th.GOLD, 1)

    # --- the raiders: where each is, its HP, the acting climber's slots -------------------------
    def raiders_panel(self, s: Scene, r: dict[str, Any], left: float, bottom: float,
                      width: float, height: float) -> None:
        tr, m = self.tr, self.model
        self.panel(s, left, bottom, width, height, tr("colossus.raiders"))
        if r["actor"] is not None:
            self.slots(s, r, left + width - 14, bottom + height - 22)
        rows = r["raiders"]
        row_h = min(26, (height - 46) / max(1, len(rows)))
        y = bottom + height - 42 - row_h
        for row in rows:
            cls = row["cls"]
            if row["acting"]:
                s.box(left + 6, y + 1, width - 12, row_h - 2, th.PANEL2, th.GOLD, 1)
            token(s, left + 22, y + row_h / 2, 10, cls, tr.short(cls), mine=row["mine"],
                  dead=not row["alive"], target=row["struck"], size=9 if tr.lang != "en" else 7)
            s.text(tr.cls(cls), left + 40, y + row_h / 2, 13,
                   th.class_colour(cls) if row["in"] else th.FAINT, bold=True,
                   anchor_y="center", max_width=RAIDER_BAR - 40 - 6)
            self.bar(s, left + RAIDER_BAR, y + row_h / 2 - 6, 90, 12, row["hp"], row["max_hp"],
                     th.HP if row["hp"] > row["max_hp"] * 0.3 else th.HP_LOW)
            s.text(f"{row['hp']}/{row['max_hp']}", left + 236, y + row_h / 2, 11, th.MUTED,
                   anchor_y="center")
            s.text(self.where(row), left + 300, y + row_h / 2, 12,
                   th.TEXT if row["in"] else th.FAINT, anchor_y="center", max_width=width - 420)
            flags = [tr("colossus.np_declared")] if row["np"] else []
            if row["ready"] and r["stage"] == "round_start":
                flags.append(tr("battle.ready"))
            if flags:
                s.text(" · ".join(flags), left + width - 14, y + row_h / 2, 11, th.GOLD,
                       anchor_x="right", anchor_y="center", max_width=110)
            self.add_region(f"raider:{row['seat']}", left + 6, y, width - 12, row_h,
                            help=f"{tr.cls(cls)} {m.player_name(row['seat'])}".strip())
            y -= row_h
        self.feed(s, left + 14, bottom + 10, width - 28, y - bottom - 12)

    def feed(self, s: Scene, left: float, bottom: float, width: float, height: float) -> None:
        """The raid's latest lines of the log, newest at the bottom, in what room is left."""
        rows = int(height // 18)
        if rows <= 0:
            return
        lines = [text for kind, text in self.model.log_lines(60) if kind == "battle"][-rows:]
        y = bottom + 18 * (len(lines) - 1)
        for i, line in enumerate(lines):
            s.text(line, left, y + 4, 11, th.TEXT if i == len(lines) - 1 else th.MUTED,
                   max_width=width)
            y -= 18

    def where(self, row: dict[str, Any]) -> str:
        tr = self.tr
        if not row["in"]:
            return tr("colossus.out")
        if row["tile"]:
            return tr("colossus.on_tile", tile=tile_name(tr, row["tile"]))
        return tr("colossus.climbing" if row["climbing"] else "colossus.on_ground")

    def slots(self, s: Scene, r: dict[str, Any], right: float, y: float) -> None:
        """The acting climber's three slots: used ones filled (the attack's in red), then the
        roll a move left to spend, if any."""
        tr, m = self.tr, self.model
        attacked = int(r["attacked"])
        used = max(SLOTS - r["slots"], attacked)
        marks = ["move"] * (used - attacked) + ["attack"] * attacked + ["free"] * (SLOTS - used)
        x = right
        for mark in reversed(marks):
            w = 62
            fill = {"attack": th.VERMILION, "move": th.SKY, "free": th.BG2}[mark]
            s.box(x - w, y - 11, w, 22, fill, th.GOLD if mark == "free" else th.WHITE, 1)
            s.text(tr(f"colossus.slot.{mark}"), x - w / 2, y, 10,
                   th.TEXT if mark == "free" else th.WHITE, bold=True, anchor_x="center",
                   anchor_y="center", max_width=w - 6)
            x -= w + 4
        label = tr("colossus.slots", who=m.who(r["actor"]))
        if r["budget"]:
            label = tr("colossus.roll_left", roll=r["roll"], n=r["budget"])
        s.text(label, x - 6, y, 12, th.GOLD, anchor_x="right", anchor_y="center",
               max_width=x - 6 - (SIDE[0] + 120))
