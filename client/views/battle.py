"""Battle: the turn-order track, combatants with HP bars, the round and the refill countdown,
Noble Phantasm charge, the reaction prompt with its countdown, dice results with criticals and
fumbles shown as such, the Command Spell menu (a verb of the action bar). A module may add a
line to each combatant's box and a panel under the dice (its client part's `combatant_line`
and `battle_tray`)."""

from __future__ import annotations

from functools import partial
from typing import Any

from ...shared.engine.text import RESULT_WORDS
from .. import theme as th
from ..battle_feed import Strike, damage_line, np_titles
from ..gfx import Scene
from .common import HEADER_H, InGameView, token

ARENA = (16, 196, 884, 442)
TRAY = (912, 196, 352, 540)
HAND = (16, 12, 388, 172)
BAR = (416, 12, 848, 172)
PIPS = {1: [(0, 0)], 2: [(-1, 1), (1, -1)], 3: [(-1, 1), (0, 0), (1, -1)],
        4: [(-1, 1), (1, 1), (-1, -1), (1, -1)], 5: [(-1, 1), (1, 1), (0, 0), (-1, -1), (1, -1)],
        6: [(-1, 1), (1, 1), (-1, 0), (1, 0), (-1, -1), (1, -1)]}


class BattleView(InGameView):
    name = "battle"
    background = (24, 18, 30)
    split = True
    cached = True
    tab = "battle"

    def layout(self, s: Scene) -> None:
        self.header(s)
        battle = self.model.battle(self.now())
        if battle is None:
            s.text(self.tr("battle.no_battle"), th.WIDTH / 2, th.HEIGHT / 2, 18, th.MUTED,
                   anchor_x="center")
            return
        self.title_row(s, battle)
        self.order_track(s, battle)
        self.arena(s, battle, *ARENA)
        left, bottom, width, height = TRAY
        for part in self.model.parts():
            taken = part.battle_tray(self, s, battle, left, bottom, width)
            bottom, height = bottom + taken, height - taken
        self.dice_tray(s, left, bottom, width, height,
                       seats=[c["seat"] for c in battle["combatants"]])
        self.hand(s, *HAND)
        self.action_bar(s, *BAR)

    def title_row(self, s: Scene, b: dict[str, Any]) -> None:
        tr = self.tr
        top = th.HEIGHT - HEADER_H - 12
        title = tr("battle.title", square=self.model.square_name(b["square"]))
        purpose = tr(f"battle.purpose_{b['purpose']}") if tr.has(
            f"battle.purpose_{b['purpose']}") else b["purpose"]
        if b["purpose"] != "battle":  # (a battle's own word would only repeat the title's)
            title = f"{title}  ·  {purpose}"
        s.text(title, 20, top - 26, 20, th.GOLD, font="serif", max_width=470)
        rx = 900
        s.box(rx - 190, top - 38, 190, 36, th.VERMILION_DARK, th.GOLD, 1)
        s.text(tr("battle.round", n=b["round"]), rx - 95, top - 20, 17, th.WHITE,
               font="serif", anchor_x="center", anchor_y="center")
        refill = tr("battle.refill_now") if b["refill_now"] else \
            tr("battle.refill", n=b["refill_round"])
        s.text(refill, rx - 200, top - 20, 12, th.MUTED, anchor_x="right", anchor_y="center",
               max_width=190)

    def order_track(self, s: Scene, b: dict[str, Any]) -> None:
        tr, m = self.tr, self.model
        top = th.HEIGHT - HEADER_H - 60
        s.text(tr("battle.order"), 20, top - 22, 12, th.MUTED)
        x = 120
        for i, seat in enumerate(b["order"]):
            camp = m.camp(seat)
            acting = seat == b["actor"]
            done = b["stage"] not in ("round_start",) and i < b["cursor"]
            w = 120
            fill = th.shade(th.class_colour(camp["cls"]), 0.8 if not done else 0.4)
            s.box(x, top - 36, w, 30, fill, th.GOLD if acting else th.LINE, 3 if acting else 1)
            s.text(tr.cls(camp["cls"]), x + w / 2, top - 21, 13,
                   th.WHITE if not done else th.MUTED, bold=True, anchor_x="center",
                   anchor_y="center", max_width=w - 10)
            if acting:
                s.triangle((x + w / 2 - 8, top - 42), (x + w / 2 + 8, top - 42),
                           (x + w / 2, top - 50), th.GOLD)
            x += w + 8
            if i < len(b["order"]) - 1:
                s.triangle((x - 7, top - 26), (x - 7, top - 16), (x - 1, top - 21), th.MUTED)

    def arena(self, s: Scene, b: dict[str, Any], left: float, bottom: float, width: float,
              height: float) -> None:
        m = self.model
        s.box(left, bottom, width, height, (34, 26, 36), th.LINE, 1)
        pending, strike = b["pending"], b["strike"]
        top_pad = 0
        if pending is not None:
            top_pad = 86 if pending["mine"] else 40
            self.pending_banner(s, pending, left + 10, bottom + height - top_pad - 4,
                                width - 20, top_pad)
        if strike is not None and (pending is None or strike.nps):
            band = 36 if pending is not None else 70  # with a prompt: the NP's name only
            top_pad += band + 6
            self.strike_banner(s, strike, left + 10, bottom + height - top_pad - 4,
                               width - 20, band)
        fighters = b["combatants"]
        n = max(1, len(fighters))
        gap = 12
        cw = min(280, (width - 24 - gap * (n - 1)) / n)
        total = n * cw + (n - 1) * gap
        x = left + (width - total) / 2
        ch = height - 24 - top_pad - 8
        targets = m.target_seats(self.app.ui.verb) if self.app.ui.verb else set()
        for c in fighters:
            self.combatant(s, c, x, bottom + 12, cw, ch, c["seat"] in targets, b)
            x += cw + gap

    def pending_banner(self, s: Scene, p: dict[str, Any], left: float, bottom: float,
                       width: float, height: float) -> None:
        tr, m = self.tr, self.model
        if p["mine"]:
            s.box(left, bottom, width, height, th.VERMILION_DARK, th.GOLD, 2)
            s.text(tr("battle.reaction_title", attacker=m.who(p["attacker"]), kind=p["kind"]),
                   left + 18, bottom + height - 32, 19, th.WHITE, font="serif",
                   max_width=width - 220)
            roll = tr("battle.reaction_roll", total=p["total"])
            badge = tr("battle.critical") if p["critical"] else tr("battle.fumble") if \
                p["fumble"] else ""
            s.text(roll + (f"  [{badge}]" if badge else ""), left + 18, bottom + 16, 15,
                   th.GOLD if p["critical"] else th.TEXT)
            if p["seconds"] is not None:  # the countdown: redrawn every second on its own
                self.live_slots.append(("reaction", p["target"], left + width - 105,
                                        bottom + height / 2))
        else:
            s.box(left, bottom, width, height, (60, 36, 40), th.LINE, 1)
            s.text(tr("battle.pending", attacker=m.who(p["attacker"]),
                      target=m.who(p["target"]), kind=p["kind"]) + f" · {p['total']}",
                   left + 16, bottom + height / 2, 14, th.TEXT, anchor_y="center",
                   max_width=width - 32)

    def strike_banner(self, s: Scene, k: Strike, left: float, bottom: float, width: float,
                      height: float) -> None:
        """The latest strike: the NP's name when one fired, a HIT / MISS marker, who struck
        whom with what, and the damage with its parts."""
        tr, m = self.tr, self.model
        np = bool(k.nps)
        s.box(left, bottom, width, height, (78, 56, 22) if np else th.PANEL2,
              th.GOLD if np else th.LINE, 2 if np else 1)
        top = bottom + height - 18
        x = left + 14
        if np:
            t = s.text(np_titles(tr, k), x, top, 17, th.GOLD, font="serif",
                       bold=True, anchor_y="center", max_width=width * 0.6)
            x += t.content_width + 16
        if height < 50:  # the reaction prompt below says the rest
            return
        if k.hit is not None:
            word = "strike.halved" if k.hit and k.halved else "strike.hit" if k.hit else \
                "strike.miss"
            colour = th.VERMILION if k.hit else th.SKY
            t = s.text(tr(word), x + 8, top, 15, th.WHITE, bold=True, anchor_y="center")
            s.box(x, top - 13, t.content_width + 16, 26, colour, th.WHITE, 1)
            x += t.content_width + 28
        if k.clash:
            what = tr("strike.clash", winner=m.who(k.attacker)) if k.amount else \
                tr("strike.clash_even")
        elif k.target is None:
            what = tr("strike.np_by", who=m.who(k.attacker))
        else:
            kind = tr("battle.np_attack") if np else tr.card(k.card)
            what = tr("strike.attack", attacker=m.who(k.attacker), target=m.who(k.target),
                      kind=kind)
        s.text(what if k.hit is not None else f"{what}  ·  {tr('strike.waiting')}", x,
               top, 14, th.TEXT, anchor_y="center", max_width=left + width - x - 10)
        if k.amount is not None:
            line = damage_line(tr, k.amount, k.parts)
        elif k.hit is False:
            line = tr("strike.no_damage")
        else:
            return
        s.text(line, left + 14, bottom + 10, 14, th.GOLD if k.amount else th.MUTED,
               max_width=width - 28)

    def strike_mark(self, s: Scene, k: Strike, right: float, y: float) -> None:
        """On the struck combatant: HIT with the damage taken, or MISS."""
        tr = self.tr
        word = tr("strike.hit") if k.hit else tr("strike.miss")
        if k.hit and k.amount is not None:
            word += f" −{k.amount}"
        t = s.text(word, right - 6, y + 6, 13, th.WHITE, bold=True, anchor_x="right",
                   anchor_y="center")
        s.box(right - t.content_width - 12, y - 5, t.content_width + 12, 22,
              th.VERMILION if k.hit else th.SKY, th.WHITE, 1)

    def combatant(self, s: Scene, c: dict[str, Any], x: float, y: float, w: float, h: float,
                  targeted: bool, b: dict[str, Any]) -> None:
        tr, m = self.tr, self.model
        cls = c["cls"]
        colour = th.class_colour(cls)
        out = not c["in"] or not c["alive"]
        s.shadow(x, y, w, h, 4, 5)
        border = th.VERMILION if targeted else th.GOLD if c["acting"] else th.shade(colour, 1.3)
        s.box(x, y, w, h, (44, 40, 56) if not out else (40, 40, 44), border,
              3 if (targeted or c["acting"]) else 1)
        band = 64
        s.gradient(x + 3, y + h - band - 3, w - 6, band, th.shade(colour, 0.95),
                   th.shade(colour, 0.55))
        token(s, x + 34, y + h - band / 2 - 3, 22, cls, tr.short(cls), mine=c["mine"],
              dead=not c["alive"])
        s.text(tr.cls(cls), x + 64, y + h - 30, 17, th.WHITE, font="serif", max_width=w - 72)
        name = m.player_name(c["seat"])
        s.text(name + ("  ★" if c["mine"] else ""), x + 64, y + h - 52, 12,
               th.shade(colour, 1.7), max_width=w - 72)
        yy = y + h - band - 40
        self.bar(s, x + 10, yy, w - 20, 26, c["hp"], c["max_hp"],
                 th.HP if c["hp"] > c["max_hp"] * 0.3 else th.HP_LOW, tr("panel.hp"))
        yy -= 26
        strike = b["strike"]
        if strike is not None and strike.hit is not None and strike.target == c["seat"]:
            self.strike_mark(s, strike, x + w - 12, yy)
        if c["acting"]:
            s.text("▶ " + tr("battle.acting"), x + 12, yy, 13, th.GOLD, bold=True)
            yy -= 22
        if c["np"]:
            # (a 1-px border loses edges at 1024x640)
            s.box(x + 10, yy - 8, w - 20, 26, (70, 50, 20), th.GOLD, 2)
            s.text(c["np"], x + 18, yy + 5, 12, th.GOLD, anchor_y="center", max_width=w - 36)
            yy -= 34
        for flag in c["flags"]:
            t = s.text(flag, x + 18, yy, 12, th.SKY, max_width=w - 36)
            s.frame(x + 12, yy - 6, min(t.content_width, w - 36) + 12, 22, th.SKY, 1)
            yy -= 26
        for buff in c["buffs"][:4]:
            name = tr.source(buff["source"])
            rounds = buff.get("rounds", 0)
            colour2 = th.VERMILION if buff.get("debuff") else th.JADE
            s.text(f"{'▼' if buff.get('debuff') else '▲'} {name}" + (
                f" ({rounds}R)" if rounds and rounds > 0 else ""), x + 14, yy, 11, colour2,
                max_width=w - 28)
            yy -= 18
        # the bottom line: cards in hand (backs), Command Spells, square
        by = y + 12
        for i in range(c["hand_size"]):
            s.box(x + 12 + i * 15, by, 13, 20, (70, 60, 90), th.GOLD_DARK, 1)
        self.seal(s, x + w - 40, by + 10, 9, th.VERMILION, c["spells"])
        if c["pos"] != b["square"]:  # the header names the square the others stand on
            s.text(m.square_name(c["pos"]), x + 12, by + 30, 11, th.SKY, max_width=w - 24)
        for part in m.parts():
            part.combatant_line(self, s, c, x + 12, by + 50, w - 24)
        on_click = None
        if self.app.ui.verb:
            options = [o for o in m.options(self.app.ui.verb) if o.target == c["seat"]]
            if len(options) == 1:
                on_click = partial(self.send, options[0].action)
        ranks = tr.ranks(m.camp(c["seat"])["ranks"])
        self.add_region(f"combatant:{c['seat']}", x, y, w, h, on_click, True,
                        f"{tr.cls(cls)} {name}\n{ranks}")

    def dice_tray(self, s: Scene, left: float, bottom: float, width: float,
                  height: float, seats: list[int] | None = None) -> None:
        tr, m = self.tr, self.model
        self.panel(s, left, bottom, width, height, tr("battle.dice"))
        rolls = m.dice(7, seats)
        y = bottom + height - 50
        for roll in reversed(rolls):
            row_h = 68
            y -= row_h
            if y < bottom + 6:
                break
            result = roll["result"]
            fill = (70, 58, 24) if result == "critical" else (52, 36, 70) if \
                result == "fumble" else th.PANEL2
            s.box(left + 10, y, width - 20, row_h - 6, fill,
                  th.RESULT_COLOURS.get(result, th.LINE), 2 if result in ("critical",
                                                                          "fumble") else 1)
            s.text(f"{roll['who']} · {roll['purpose']}", left + 20, y + row_h - 22, 12,
                   th.MUTED, max_width=width - 150)
            s.text(roll["formula"], left + width - 20, y + row_h - 22, 12, th.TEXT,
                   anchor_x="right", max_width=120)
            dx = left + 22
            for face in roll["faces"][:4]:
                self.die(s, dx, y + 10, 26, face, roll["dice"])
                dx += 32
            total = roll["total"]
            s.text("?" if total is None else str(total), left + width - 30, y + 24, 22,
                   th.WHITE, bold=True, anchor_x="right", anchor_y="center")
            if result in ("critical", "fumble"):
                label = tr(f"battle.{result}")
                colour = th.RESULT_COLOURS[result]
                t = s.text(label, left + width - 80, y + 24, 12, th.INK, bold=True,
                           anchor_x="right", anchor_y="center")  # texts draw above shapes
                s.box(left + width - 86 - t.content_width, y + 13, t.content_width + 12, 22,
                      colour, th.WHITE, 1)
            elif result:
                s.text(RESULT_WORDS[tr.lang].get(result, ""), left + width - 80, y + 24, 12,
                       th.RESULT_COLOURS.get(result, th.MUTED), anchor_x="right",
                       anchor_y="center")
            if roll["parts"]:  # where the modifier came from (a hit's stat, range, ...)
                s.text(roll["parts"], dx + 4, y + 24, 10, th.MUTED, anchor_y="center",
                       max_width=left + width - (150 if result else 70) - dx - 4)
            self.add_region(f"roll:{y:.0f}", left + 10, y, width - 20, row_h - 6,
                            help="\n".join(filter(None, (roll["line"], roll["parts"]))))

    def die(self, s: Scene, x: float, y: float, size: float, face: int, dice: str) -> None:
        s.box(x, y, size, size, (246, 240, 226), th.INK_SOFT, 1)
        if dice.endswith("D6") and face in PIPS:
            r = size * 0.09
            for px, py in PIPS[face]:
                s.circle(x + size / 2 + px * size * 0.27, y + size / 2 + py * size * 0.27, r,
                         th.VERMILION if face == 1 else th.INK, 10)
        else:
            s.text(str(face), x + size / 2, y + size / 2, 11, th.INK, bold=True,
                   anchor_x="center", anchor_y="center")
