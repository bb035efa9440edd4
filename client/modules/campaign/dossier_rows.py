"""The campaign's rows of the dossier (spec 002 C1.1-C1.11): the information points by
category against their maxima and what they revealed, in place of the tiers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ... import theme as th
from .view_data import tag_name

if TYPE_CHECKING:
    from ...gfx import Scene

# class | Servant points | Master points | cards and skills | true name (left edges)
COLUMNS = (16, 196, 446, 696, 956)


def titles(tr: Any) -> tuple[str, ...]:
    return (tr("panel.camps"), tr("campaign.dossier.servant"), tr("campaign.dossier.master"),
            tr("dossier.tier1"), tr("dossier.tier2"))


def dossier_row(view: Any, s: Scene, row: dict[str, Any], y: float, h: float) -> None:
    """A campaign row: the points on the Servant and on the Master by category against
    their maxima (C1.6), the Master's sheet as far as they show it (C1.11), the cards and
    skills (C1.7), the true name or the candidates and an NP seen fired (C1.8, C1.9)."""
    tr = view.tr
    c = row["campaign"]
    cols = COLUMNS
    view.class_cell(s, row, y, h, cols[1], row["tier"])
    for k, (x, rows) in enumerate(((cols[1], c["servant_rows"]),
                                   (cols[2], c["master_rows"]))):
        step = min(18.0, (h - 12) / max(4, len(rows) + k))
        yy = y + h - 8 - step
        for category, value, top in rows:
            points(view, s, tr(f"campaign.category.{category}"), value, top, x + 10, yy,
                        cols[k + 2] - x - 20, step - 4)
            yy -= step
        if k:
            master_seen(view, s, c, x + 10, yy - 2, cols[3] - x - 20)
    view.add_region(f"points:{row['cls']}", cols[1], y, cols[3] - cols[1], h,
                    help=tr("campaign.dossier.points_help", n=c["max"]))
    view.composition(s, row, cols[3], cols[4], y, h)
    view.identity(s, row, cols[4], th.WIDTH - 12, y, h)
    if c.get("np") and "true_name" not in row:  # the NP seen fired (C1.9), its name too
        np = c["np"]
        s.text(tr("campaign.dossier.np_known", name=np["name"][tr.lang]),
               cols[4] + 12, y + 4, 10, th.VERMILION_DARK, anchor_y="bottom",
               max_width=th.WIDTH - 24 - cols[4] - 12)

def points(view: Any, s: Scene, label: str, value: int, top: int, x: float, y: float,
           width: float, height: float) -> None:
    """One category: its name, a bar of its points, value / maximum (gold when full)."""
    full = value >= top
    s.text(label, x, y + height / 2, 10, th.INK, anchor_y="center", max_width=64)
    view.bar(s, x + 66, y, width - 112, height, value, top,
             th.GOLD_DARK if full else th.SKY, dark=False)
    s.text(f"{value}/{top}", x + width, y + height / 2, 10,
           th.VERMILION_DARK if full else th.INK, bold=full, anchor_x="right",
           anchor_y="center")

def master_seen(view: Any, s: Scene, c: dict[str, Any], x: float, top: float,
                width: float) -> None:
    """What the Master points revealed: name and tag, skills, MP, level and race."""
    tr = view.tr
    if "master_name" not in c:
        return
    line = c["master_name"][tr.lang]
    if c.get("tag"):
        line += " · " + tag_name(tr, c["tag"])
    if "level" in c:
        line += " · " + tr("campaign.level_short", n=c["level"])
    s.text(line, x, top, 10, th.INK, bold=True, anchor_y="top", max_width=width)

