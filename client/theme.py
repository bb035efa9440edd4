"""Colours, fonts and sizes of the client (plain data, no OpenGL)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

WIDTH, HEIGHT = 1280, 800

SANS = "Grail Sans"
SERIF = "Grail Serif"
FONT_FILES = ("GrailSans-Regular.otf", "GrailSans-Bold.otf", "GrailSerif-Bold.otf")

# A night city and washi paper: indigo panels, vermilion and gold accents, ink on paper.
BG = (20, 22, 34)
BG2 = (28, 31, 48)
PANEL = (36, 40, 60)
PANEL2 = (48, 53, 80)
LINE = (78, 84, 118)
PAPER = (236, 226, 204)
PAPER2 = (222, 209, 182)
PAPER_DARK = (196, 180, 150)
INK = (38, 32, 30)
INK_SOFT = (98, 86, 78)
TEXT = (234, 230, 220)
MUTED = (150, 152, 176)
FAINT = (104, 108, 134)
GOLD = (214, 176, 96)
GOLD_DARK = (150, 116, 50)
VERMILION = (206, 64, 46)
VERMILION_DARK = (150, 40, 30)
JADE = (70, 160, 128)
SKY = (96, 168, 230)
DISABLED_BG = (50, 53, 70)
DISABLED_TEXT = (112, 114, 132)
HP = (88, 190, 110)
HP_LOW = (220, 90, 70)
MP = (90, 140, 230)
MASTER_MP = (160, 110, 220)
WHITE = (255, 255, 255)

CLASS_COLOURS = {
    "saber": (58, 110, 214),
    "archer": (206, 156, 32),
    "lancer": (44, 158, 112),
    "rider": (226, 122, 40),
    "caster": (142, 82, 201),
    "assassin": (92, 112, 150),
    "berserker": (190, 46, 58),
}
CARD_COLOURS = {"B": (214, 62, 52), "A": (52, 104, 214), "Q": (44, 160, 84), "L": (200, 170, 60)}
LEYLINE_DOTS = {"none": 0, "small": 1, "medium": 2, "large": 3, "dragon": 4}
RESULT_COLOURS = {"critical": GOLD, "fumble": (170, 110, 220), "success": JADE,
                  "failure": MUTED}


def class_colour(cls: str | None) -> tuple[int, int, int]:
    return CLASS_COLOURS.get(cls or "", (120, 120, 120))


def shade(colour: tuple[int, ...], factor: float) -> tuple[int, int, int]:
    """Darker (<1) or lighter (>1) version of a colour."""
    r, g, b = colour[:3]
    if factor <= 1:
        return (int(r * factor), int(g * factor), int(b * factor))
    return tuple(int(c + (255 - c) * (factor - 1)) for c in (r, g, b))  # type: ignore[return-value]


def mix(a: tuple[int, ...], b: tuple[int, ...], t: float) -> tuple[int, int, int]:
    """`a` moved toward `b` by t (0..1): an opaque colour that looks like `b` laid over `a`."""
    return tuple(round(x + (y - x) * t) for x, y in zip(a[:3], b[:3], strict=True))  # type: ignore[return-value]


def alpha(colour: tuple[int, ...], a: int) -> tuple[int, int, int, int]:
    return (colour[0], colour[1], colour[2], a)


def font_paths() -> list[Path]:
    base = resources.files("grailwar.resources") / "fonts"
    return [Path(str(base / name)) for name in FONT_FILES]
