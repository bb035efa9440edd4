"""Dossier: what each of your investigations revealed about each class, tier by tier; a module
may draw its rows its own way (its client part's `dossier_row`: the information points)."""

from __future__ import annotations

from typing import Any

from .. import theme as th
from ..gfx import Scene, text_width
from .common import HEADER_H, InGameView, token

COLS = (16, 250, 560, 860)  # class | tier 1 | tier 2 | tier 3 (left edges)
ROW_MARGIN = 8  # below the last row: its bottom line clear of the sheet's edge at 1024x640


class DossierView(InGameView):
    name = "dossier"
    background = (22, 22, 32)
    split = True
    cached = True
    tab = "dossier"

    def layout(self, s: Scene) -> None:
        tr, m = self.tr, self.model
        self.header(s)
        top = th.HEIGHT - HEADER_H - 12
        s.text(tr("dossier.title"), 20, top - 30, 20, th.GOLD, font="serif")
        rows = m.dossier()
        if not rows:
            s.text(tr("dossier.spectator") if m.my_camp is None else tr("dossier.unknown"),
                   th.WIDTH / 2, th.HEIGHT / 2, 16, th.MUTED, anchor_x="center")
            return
        # the sheet: paper with a ruled table
        left, bottom, width = 12, 12, th.WIDTH - 24
        height = top - 48 - bottom
        s.shadow(left, bottom, width, height, 4, 5)
        s.box(left, bottom, width, height, th.PAPER, th.PAPER_DARK, 1)
        head_y = bottom + height - 34
        s.rect(left + 1, head_y - 4, width - 2, 37, th.PAPER2)
        sheet = next((p for p in m.parts() if p.dossier_columns and p.name in rows[0]), None)
        cols = sheet.dossier_columns if sheet else COLS
        titles = sheet.dossier_titles(tr) if sheet else (tr("panel.camps"),
                            tr("dossier.tier", n=1) + " · " + tr("dossier.tier1"),
                            tr("dossier.tier", n=2) + " · " + tr("dossier.tier2"),
                            tr("dossier.tier", n=3) + " · " + tr("dossier.tier3"))
        for x, x2, title in zip(cols, (*cols[1:], th.WIDTH - 12), titles, strict=True):
            s.text(title, x + 12, head_y + 10, 13, th.INK, bold=True, max_width=x2 - x - 20)
        for x in cols[1:]:
            s.rect(x, bottom + 6, 1, height - 12, th.PAPER_DARK)
        row_h = (head_y - 4 - bottom - ROW_MARGIN) / len(rows)
        y = head_y - 4
        for i, row in enumerate(rows):
            y -= row_h
            if i % 2:
                s.rect(left + 1, y, width - 2, row_h, (230, 219, 194))
            s.rect(left + 6, y, width - 12, 1, th.PAPER_DARK)
            if sheet:
                sheet.dossier_row(self, s, row, y, row_h)
            else:
                self.row(s, row, y, row_h)

    def class_cell(self, s: Scene, row: dict[str, Any], y: float, h: float, right: float,
                   pips: int) -> None:
        """The class, its token, its pips (tiers or reveals), its parameters."""
        tr = self.tr
        cls = row["cls"]
        token(s, COLS[0] + 30, y + h - 30, 18, cls, tr.short(cls), dead=not row["alive"])
        s.text(tr.cls(cls), COLS[0] + 56, y + h - 30, 16, th.shade(th.class_colour(cls), 0.8),
               font="serif", anchor_y="center")
        for k in range(3):  # tier pips
            s.circle(COLS[0] + 62 + k * 16, y + h - 54, 6,
                     th.VERMILION if k < pips else th.PAPER_DARK)
        if not row["alive"]:
            s.text(tr("dossier.fallen"), COLS[0] + 116, y + h - 58, 11, th.VERMILION_DARK)
        ranks = tr.ranks(row["ranks"])
        s.text(ranks, COLS[0] + 12, y + 6, 10, th.INK_SOFT, anchor_y="bottom",
               width=int(right - COLS[0] - 20), max_lines=2)
        self.add_region(f"dossier:{cls}", COLS[0], y, right - COLS[0], h,
                        help=f"{tr('dossier.params')}\n{ranks}")

    def row(self, s: Scene, row: dict[str, Any], y: float, h: float) -> None:
        tr = self.tr
        cls = row["cls"]
        mid = y + h / 2
        self.class_cell(s, row, y, h, COLS[1], row["tier"])
        self.composition(s, row, COLS[1], COLS[2], y, h)
        self.identity(s, row, COLS[2], COLS[3], y, h)
        # tier 3
        x = COLS[3] + 12
        if "profile" in row:
            w = th.WIDTH - 24 - COLS[3] - 12
            s.text(row["profile"], x, y + h - 8, 10, th.INK, anchor_y="top", width=int(w - 8))
            s.text(f"{tr('dossier.weakness')}: {row['weakness']}", x, y + 6, 10,
                   th.VERMILION_DARK, max_width=w - 8)
            self.add_region(f"profile:{cls}", COLS[3], y, w, h,
                            help=f"{tr('dossier.profile')}: {row['profile']}\n\n"
                                 f"{tr('dossier.weakness')}: {row['weakness']}")
        else:
            self.unknown(s, x, mid)

    def composition(self, s: Scene, row: dict[str, Any], left: float, right: float, y: float,
                    h: float) -> None:
        """Tier 1: the cards and the skills."""
        x = left + 12
        if "cards" not in row:
            self.unknown(s, x, y + h / 2)
            return
        cx = x
        for card in row["cards"]:
            colour = th.CARD_COLOURS.get(card, th.MUTED)
            s.box(cx, y + h - 34, 22, 26, colour, th.shade(colour, 1.4), 1)
            s.text(card, cx + 11, y + h - 21, 11, th.WHITE, bold=True, anchor_x="center",
                   anchor_y="center")
            cx += 26
        self.skills(s, row["skills"], x, y + h - 42, right - left - 24)

    def identity(self, s: Scene, row: dict[str, Any], left: float, right: float, y: float,
                 h: float) -> None:
        """Tier 2: the true name and the NP, or until then the Servants it may still be."""
        tr = self.tr
        x = left + 12
        if "true_name" in row:
            s.text(row["true_name"], x, y + h - 10, 13, th.INK, bold=True, anchor_y="top",
                   width=int(right - left - 24))
            s.text(f"{tr('dossier.np')}: {row['np']}", x, y + 10, 11, th.VERMILION_DARK,
                   max_width=right - left - 24)
            if "profile" in row and right - left < COLS[3] - COLS[2]:  # no tier-3 column
                s.text(row["profile"], x, y + h - 34, 10, th.INK, anchor_y="top",
                       width=int(right - left - 24), max_lines=3)
                s.text(f"{tr('dossier.weakness')}: {row['weakness']}", x, y + 24, 10,
                       th.VERMILION_DARK, max_width=right - left - 24)
                self.add_region(f"profile:{row['cls']}", left, y, right - left, h,
                                help=f"{tr('dossier.profile')}: {row['profile']}\n\n"
                                     f"{tr('dossier.weakness')}: {row['weakness']}")
        else:
            self.candidates(s, row, x, y, h, right - left - 24, left, right)

    def skills(self, s: Scene, skills: list[str], left: float, top: float, width: float) -> None:
        """The revealed skills, name after name in lines, a slash between two on a line (the
        names have spaces); hovering a name shows its text."""
        x, y, line_h, gap = left, top, 16, 20
        for sk in skills:
            label = self.tr.skill(sk)
            w = text_width(label, size=11)
            if x > left and x + w > left + width:
                x, y = left, y - line_h
            if x > left:
                s.text("/", x - gap / 2, y, 11, th.INK_SOFT, anchor_x="center", anchor_y="top")
            s.text(label, x, y, 11, th.INK, anchor_y="top", max_width=width)
            self.add_region(f"skill:{sk}", x, y - line_h, min(w, width), line_h,
                            help=self.tr.skill_help(sk))
            x += w + gap

    def candidates(self, s: Scene, row: dict[str, Any], x: float, y: float, h: float,
                   w: float, left: float = COLS[2], right: float = COLS[3]) -> None:
        """The deduction aid: the roster Servants still consistent with what this seat saw (at
        tier 0 the whole class: who exists), or the one left; the Noble Phantasm seen firing."""
        tr = self.tr
        if "deduced" in row:
            s.text(tr("dossier.deduced"), x, y + h - 10, 11, th.VERMILION_DARK, bold=True,
                   anchor_y="top", max_width=w)
            s.text(row["deduced"], x, y + h - 30, 13, th.INK, bold=True, anchor_y="top",
                   width=int(w), max_lines=2)
        else:
            s.text(tr("dossier.candidates", n=len(row["candidates"]), total=row["roster"]), x,
                   y + h - 10, 11, th.INK_SOFT, bold=True, anchor_y="top", max_width=w)
            size = 12 if "np_seen" in row else 13  # two lines of names over two of the NP
            s.text(listed(row["candidates"], w - 8, size), x, y + h - 28, size, th.INK,
                   anchor_y="top", width=int(w), max_lines=2)
        if "np_seen" in row:
            s.text(tr("dossier.np_seen", what=row["np_seen"]), x, y + 2, 10, th.VERMILION_DARK,
                   anchor_y="bottom", width=int(w), max_lines=2)
        self.add_region(f"candidates:{row['cls']}", left, y, right - left, h,
                        help=f"{tr('dossier.candidates_help')}\n{row['candidates_help']}")

    def unknown(self, s: Scene, x: float, y: float) -> None:
        s.text("？ " + self.tr("dossier.unknown"), x, y, 12, th.INK_SOFT, anchor_y="center")


def listed(names: list[str], width: float, size: float) -> str:
    """Names in a row, dot-separated, broken into lines between names and never inside one
    (Japanese text may otherwise break between any two characters)."""
    lines = [""]
    for name in names:
        joined = f"{lines[-1]} · {name}" if lines[-1] else name
        if lines[-1] and text_width(joined, size=size) > width:
            lines.append(name)
        else:
            lines[-1] = joined
    return "\n".join(lines)
