"""Retained drawing for the screens: a Scene is rebuilt when its content changes and drawn every
frame with two draw calls' worth of work (one vertex buffer of coloured triangles, one pyglet
batch of texts).

Measured under Mesa llvmpipe (software OpenGL, as in CI): each immediate arcade.draw_* call costs
about 0.3 ms and each text drawn on its own about 0.4 ms, so a screen of 300 shapes and 150 texts
drawn immediately would run near 10 fps. Here the shapes are one buffer and the texts share a
batch; texts are pooled by content and style, so a rebuild re-creates only the texts that
changed (creating a text costs ~0.6 ms, moving it ~0.06 ms).
"""

from __future__ import annotations

import array
import math
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import arcade
from arcade.gl import BufferDescription
from pyglet.graphics import Batch

from . import theme

_FONTS_LOADED = False


def load_fonts() -> None:
    """Load the bundled fonts explicitly (pyglet never falls back per character)."""
    global _FONTS_LOADED
    if _FONTS_LOADED:
        return
    for path in theme.font_paths():
        arcade.load_font(path)
    _FONTS_LOADED = True


_UNIT: dict[int, list[tuple[float, float]]] = {}


def _segments(r: float) -> int:
    """Enough sides for a circle of radius r to look round (fewer for small ones)."""
    return max(12, min(64, int(r * 1.1) + 8))


def _unit_circle(segments: int) -> list[tuple[float, float]]:
    pts = _UNIT.get(segments)
    if pts is None:
        pts = _UNIT[segments] = [(math.cos(2 * math.pi * i / segments),
                                  math.sin(2 * math.pi * i / segments))
                                 for i in range(segments + 1)]
    return pts


def _rgba(c: tuple[int, ...]) -> tuple[int, int, int, int]:
    return (c[0], c[1], c[2], c[3] if len(c) > 3 else 255)


class Shapes:
    """Coloured triangles in one vertex buffer (2 floats position, 4 floats colour 0..255)."""

    def __init__(self, ctx: Any, split: bool = False) -> None:
        self.ctx = ctx
        self.split = split
        self.data = array.array("f")
        self.glass = array.array("f")  # translucent shapes, when split
        self.buffer = None
        self.geometry = None
        self.count = 0
        self.opaque = 0
        self.capacity = 0

    def clear(self) -> None:
        self.data = array.array("f")
        self.glass = array.array("f")

    def _out(self, c: tuple[int, int, int, int]) -> array.array:
        """Where a shape goes: split scenes draw opaque shapes first with blending off (it
        halves the cost of a pixel in software OpenGL), then the translucent ones (shadows)."""
        return self.glass if self.split and c[3] < 255 else self.data

    def _tri(self, p: tuple[float, float], q: tuple[float, float], r: tuple[float, float],
             c: tuple[int, int, int, int]) -> None:
        self._out(c).extend((p[0], p[1], *c, q[0], q[1], *c, r[0], r[1], *c))

    def rect(self, left: float, bottom: float, width: float, height: float,
             colour: tuple[int, ...]) -> None:
        if width <= 0 or height <= 0:
            return
        c = _rgba(colour)
        x2, y2 = left + width, bottom + height
        self._out(c).extend((left, bottom, *c, x2, bottom, *c, x2, y2, *c,
                             left, bottom, *c, x2, y2, *c, left, y2, *c))

    def gradient(self, left: float, bottom: float, width: float, height: float,
                 top_colour: tuple[int, ...], bottom_colour: tuple[int, ...]) -> None:
        t, b = _rgba(top_colour), _rgba(bottom_colour)
        x2, y2 = left + width, bottom + height
        out = self.glass if self.split and min(t[3], b[3]) < 255 else self.data
        out.extend((left, bottom, *b, x2, bottom, *b, x2, y2, *t,
                    left, bottom, *b, x2, y2, *t, left, y2, *t))

    def box(self, left: float, bottom: float, width: float, height: float,
            fill: tuple[int, ...], border: tuple[int, ...] | None = None,
            border_width: float = 1) -> None:
        """A filled rectangle with an optional border drawn inside its edge (the border as four
        strips, not a rectangle under the fill: software OpenGL pays for every pixel drawn)."""
        if border is not None and border_width > 0:
            bw = border_width
            self.rect(left + bw, bottom + bw, width - 2 * bw, height - 2 * bw, fill)
            self.frame(left, bottom, width, height, border, bw)
        else:
            self.rect(left, bottom, width, height, fill)

    def shadow(self, left: float, bottom: float, width: float, height: float, dx: float = 3,
               dy: float = 4, colour: tuple[int, ...] = (0, 0, 0, 110)) -> None:
        """The drop shadow of a rectangle: only the strips that show (right and below)."""
        self.rect(left + width, bottom - dy, dx, height, colour)
        self.rect(left + dx, bottom - dy, width - dx, dy, colour)

    def frame(self, left: float, bottom: float, width: float, height: float,
              colour: tuple[int, ...], w: float = 1) -> None:
        """Only the border."""
        self.rect(left, bottom, width, w, colour)
        self.rect(left, bottom + height - w, width, w, colour)
        self.rect(left, bottom + w, w, height - 2 * w, colour)
        self.rect(left + width - w, bottom + w, w, height - 2 * w, colour)

    def circle(self, x: float, y: float, r: float, colour: tuple[int, ...],
               segments: int | None = None) -> None:
        c = _rgba(colour)
        pts = _unit_circle(segments or _segments(r))
        data: list[float] = []
        for (c0, s0), (c1, s1) in pairwise(pts):
            data += (x, y, *c, x + r * c0, y + r * s0, *c, x + r * c1, y + r * s1, *c)
        self._out(c).extend(data)

    def ring(self, x: float, y: float, r: float, width: float, colour: tuple[int, ...],
             segments: int | None = None) -> None:
        c = _rgba(colour)
        pts = _unit_circle(segments or _segments(r))
        inner = r - width
        data: list[float] = []
        for (c0, s0), (c1, s1) in pairwise(pts):
            p0x, p0y, p1x, p1y = x + r * c0, y + r * s0, x + r * c1, y + r * s1
            q0x, q0y, q1x, q1y = x + inner * c0, y + inner * s0, x + inner * c1, y + inner * s1
            data += (p0x, p0y, *c, p1x, p1y, *c, q1x, q1y, *c,
                     p0x, p0y, *c, q1x, q1y, *c, q0x, q0y, *c)
        self._out(c).extend(data)

    def line(self, x1: float, y1: float, x2: float, y2: float, width: float,
             colour: tuple[int, ...]) -> None:
        dx, dy = x2 - x1, y2 - y1
        length = math.hypot(dx, dy)
        if length == 0:
            return
        nx, ny = -dy / length * width / 2, dx / length * width / 2
        c = _rgba(colour)
        a, b = (x1 + nx, y1 + ny), (x2 + nx, y2 + ny)
        d, e = (x1 - nx, y1 - ny), (x2 - nx, y2 - ny)
        self._tri(a, b, e, c)
        self._tri(a, e, d, c)

    def triangle(self, p: tuple[float, float], q: tuple[float, float], r: tuple[float, float],
                 colour: tuple[int, ...]) -> None:
        self._tri(p, q, r, _rgba(colour))

    def diamond(self, x: float, y: float, r: float, colour: tuple[int, ...]) -> None:
        c = _rgba(colour)
        self._tri((x - r, y), (x, y - r), (x + r, y), c)
        self._tri((x - r, y), (x + r, y), (x, y + r), c)

    def upload(self) -> None:
        self.opaque = len(self.data) // 6
        self.count = self.opaque + len(self.glass) // 6
        if self.count == 0:
            return
        raw = self.data.tobytes() + self.glass.tobytes()
        if self.buffer is None or len(raw) > self.capacity:
            self.capacity = max(len(raw) * 2, 64 * 1024) // 24 * 24  # whole vertices
            self.buffer = self.ctx.buffer(reserve=self.capacity, usage="dynamic")
            self.geometry = self.ctx.geometry(
                [BufferDescription(self.buffer, "2f 4f", ("in_vert", "in_color"))])
        self.buffer.write(raw)

    def draw(self) -> None:
        if not self.count or self.geometry is None:
            return
        program = self.ctx.line_generic_with_colors_program
        if not self.split:
            self.ctx.enable(self.ctx.BLEND)
            self.geometry.render(program, mode=self.ctx.TRIANGLES, vertices=self.count)
            return
        if self.opaque:
            self.ctx.disable(self.ctx.BLEND)
            self.geometry.render(program, mode=self.ctx.TRIANGLES, vertices=self.opaque)
        self.ctx.enable(self.ctx.BLEND)
        if self.count > self.opaque:
            self.geometry.render(program, mode=self.ctx.TRIANGLES, first=self.opaque,
                                 vertices=self.count - self.opaque)


_TextKey = tuple[Any, ...]


class TextPool:
    """arcade.Text objects kept between rebuilds, keyed by content and style."""

    def __init__(self, batch: Batch, ctx: Any = None) -> None:
        self.batch = batch
        self.ctx = ctx
        self.free: dict[_TextKey, list[arcade.Text]] = {}
        self.used: dict[_TextKey, list[arcade.Text]] = {}
        self.idle = False

    def begin(self) -> None:
        for key, items in self.used.items():
            self.free.setdefault(key, []).extend(items)
        self.used = {}
        self.idle = False

    def get(self, key: _TextKey, make: Callable[[], arcade.Text]) -> arcade.Text:
        items = self.free.get(key)
        if not items and not self.idle and self.ctx is not None:
            # A new text may bring new glyphs, each copied into the glyph atlas: with software
            # OpenGL that copy waits for the frames still being drawn (measured: ~35 ms per
            # glyph in a running loop). Waiting once for them here makes every copy ~0.1 ms.
            self.ctx.finish()
            self.idle = True
        if items:
            text = items.pop()
            if not text.label.visible:
                text.label.visible = True
        else:
            text = make()
        self.used.setdefault(key, []).append(text)
        return text

    SPARE = 400  # texts kept hidden for when they come back (the verbs of another prompt)

    def end(self) -> None:
        """Hide the texts this rebuild did not use, and keep the most recent of them."""
        spare = 0
        for key in list(self.free):
            items = self.free[key]
            for text in items:
                if text.label.visible:
                    text.label.visible = False
            spare += len(items)
            if not items:
                del self.free[key]
        if spare > self.SPARE:  # forget the oldest (dicts keep insertion order)
            for key in list(self.free)[: len(self.free) // 2]:
                for text in self.free.pop(key):
                    text.label.delete()

    def texts(self) -> list[arcade.Text]:
        return [t for items in self.used.values() for t in items]


class Scene:
    """One layer of a screen: shapes below, texts above."""

    def __init__(self, ctx: Any, split: bool = False) -> None:
        self.shapes = Shapes(ctx, split)
        self.batch = Batch()
        self.pool = TextPool(self.batch, ctx)
        self.labels: list[tuple[str, float, float]] = []  # (text, x, y) drawn, for tests

    def begin(self) -> None:
        self.shapes.clear()
        self.pool.begin()
        self.labels = []

    def end(self) -> None:
        self.shapes.upload()
        self.pool.end()

    def draw(self) -> None:
        self.shapes.draw()
        self.batch.draw()

    # shape helpers, delegated
    def __getattr__(self, name: str) -> Any:
        return getattr(self.shapes, name)

    def text(self, content: str, x: float, y: float, size: float = 13,
             colour: tuple[int, ...] = theme.TEXT, *, font: str = "sans", bold: bool = False,
             anchor_x: str = "left", anchor_y: str = "baseline", width: int | None = None,
             align: str = "left", max_width: float | None = None,
             max_lines: int | None = None) -> arcade.Text:
        """A text; `width` wraps it into lines, `max_width` fits one line (smaller, then …).

        Bold and the serif face hold only the characters of the catalogs and data files: draw
        a player's own words (names, chat) in the regular sans face."""
        content = str(content)
        font_name = theme.SERIF if font == "serif" else theme.SANS
        bold = bold or font == "serif"  # the serif face ships in bold only
        key = (content, size, font_name, bold, anchor_x, anchor_y, width, align, max_width,
               max_lines)

        def make() -> arcade.Text:
            return _make_text(content, size, font_name, bold, anchor_x, anchor_y, width, align,
                              max_width, self.batch, max_lines)

        text = self.pool.get(key, make)
        rgba = _rgba(colour)
        if tuple(text.color) != rgba:
            text.color = rgba
        if (text.x, text.y) != (x, y):
            text.position = (x, y)
        self.labels.append((content, x, y))
        return text


_ADVANCES: dict[tuple[str, float, bool], dict[str, float]] = {}
# Japanese line breaking (kinsoku): no line starts with closing punctuation or a small kana,
# none ends with an opening bracket (it goes down with what it opens)
_NO_LINE_START = set("、。，．,.)）」』】〕〉》！？!?ー…・·:：;；%％"
                     "ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶ")
_NO_LINE_END = set("「『（(【〔〈《")


def _is_cjk(ch: str) -> bool:
    """Japanese (kana, kanji, full-width forms) breaks between any two characters; Korean, like
    English, breaks at the spaces between its words, so Hangul is not in this set."""
    code = ord(ch)
    return (0x2E80 <= code <= 0x9FFF or 0xF900 <= code <= 0xFAFF
            or 0xFF00 <= code <= 0xFFEF or 0x3000 <= code <= 0x303F)


def advance(ch: str, font_name: str, size: float, bold: bool) -> float:
    """A character's advance in pixels, from the font itself (cached)."""
    import pyglet

    table = _ADVANCES.setdefault((font_name, size, bold), {})
    if ch not in table:
        font = pyglet.font.load(font_name, size, weight="bold" if bold else "normal")
        glyphs, _positions = font.get_glyphs(ch)  # pyglet 2.1: (glyphs, positions)
        table[ch] = float(glyphs[0].advance) if glyphs else size
    return table[ch]


def _tokens(paragraph: str) -> list[str]:
    """Words, spaces, and single CJK characters (a line may break between any two)."""
    tokens: list[str] = []
    word = ""
    for ch in paragraph:
        if ch == " " or _is_cjk(ch):
            if word:
                tokens.append(word)
                word = ""
            tokens.append(ch)
        else:
            word += ch
    if word:
        tokens.append(word)
    return tokens


def wrap(text: str, width: float, font_name: str = theme.SANS, size: float = 13,
         bold: bool = False) -> str:
    """Break text into lines that fit `width`: at spaces between words, and between any two
    Japanese characters (pyglet wraps only at spaces), never before closing punctuation."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        tokens = _tokens(paragraph)
        line, line_w = "", 0.0
        split: list[str] = []
        for tok in tokens:  # a word wider than the line is broken between its letters
            if len(tok) > 1 and sum(advance(c, font_name, size, bold) for c in tok) > width:
                split.extend(tok)
            else:
                split.append(tok)
        for tok in split:
            tok_w = sum(advance(c, font_name, size, bold) for c in tok)
            if line and line_w + tok_w > width and tok != " " and tok[0] not in _NO_LINE_START:
                kept = line.rstrip(" ")
                carry = ""
                while kept and kept[-1] in _NO_LINE_END:
                    kept, carry = kept[:-1], kept[-1] + carry
                if kept.strip():  # (a line of openers only stays as it is)
                    lines.append(kept.rstrip())
                    line = carry
                    line_w = sum(advance(c, font_name, size, bold) for c in carry)
            line += tok
            line_w += tok_w
        lines.append(line.rstrip())
    return "\n".join(lines)


def text_width(text: str, font_name: str = theme.SANS, size: float = 13,
               bold: bool = False) -> float:
    return sum(advance(c, font_name, size, bold) for c in text)


def _fits(content: str, room: float, font_name: str, size: float, bold: bool,
          max_lines: int | None) -> bool:
    """Every word of content within `room` at `size`, wrapped into at most `max_lines` lines."""
    words_fit = all(text_width(w, font_name, size, bold) <= room
                    for w in _tokens(content.replace("\n", " ")))
    return words_fit and (max_lines is None
                          or wrap(content, room, font_name, size, bold).count("\n") < max_lines)


def legible(content: str, width: float, size: float, font_name: str = theme.SANS,
            bold: bool = False, lines: int = 1) -> bool:
    """Whether `content` is drawn within `width` at no less than 75 % of `size` (rounded down
    to a whole size: 10 for 14), on at most `lines` lines broken only between words (a Japanese
    character is a word): so that a row of buttons can tell, before it draws them, whether its
    labels would be cut or broken."""
    room = width if lines == 1 else width * 0.985 - 1  # the margin of a wrapped text
    smallest = max(8, int(size * 0.75))
    return any(_fits(content, room, font_name, size - k, bold, lines)
               for k in range(int(size)) if size - k >= smallest)


def _make_text(content: str, size: float, font_name: str, bold: bool, anchor_x: str,
               anchor_y: str, width: int | None, align: str, max_width: float | None,
               batch: Batch, max_lines: int | None = None) -> arcade.Text:
    kw: dict[str, Any] = dict(font_name=font_name, bold=bold, anchor_x=anchor_x,
                              anchor_y=anchor_y, batch=batch)
    if width is not None:
        # a small margin: pyglet places glyphs on whole pixels, the sum of advances does not
        room = width * 0.985 - 1
        # smaller (to 75 %) until every word fits and the lines are few enough
        # and, if a size within that range allows it, with no lone character on the last line
        fitted, first_fit = size, None
        while fitted > max(8, size * 0.75):
            if _fits(content, room, font_name, fitted, bold, max_lines):
                first_fit = fitted if first_fit is None else first_fit
                wrapped = wrap(content, room, font_name, fitted, bold)
                if "\n" not in wrapped or len(wrapped.rsplit("\n", 1)[1].strip()) > 1:
                    break
            fitted -= 1  # whole sizes: fewer fonts, so fewer glyphs to render
        else:
            fitted = first_fit if first_fit is not None else fitted
        size = fitted
        content = wrap(content, room, font_name, size, bold)
        text = arcade.Text(content, 0, 0, theme.TEXT, size, width=int(width) + 2,
                           multiline=True, align=align, **kw)
        _fix_font(text, font_name)
        text.label.set_style("line_spacing", round(size * 96 / 72 * 1.28))  # tighter than 1.5
        return text
    text = arcade.Text(content, 0, 0, theme.TEXT, size, **kw)
    _fix_font(text, font_name)
    if max_width is not None and text.content_width > max_width:
        fitted = size
        while text.content_width > max_width and fitted > max(9, size * 0.7):
            fitted -= 1
            text.font_size = fitted
        if text.content_width > max_width:
            lo, hi = 0, len(content)
            while lo < hi:  # the longest prefix that fits with an ellipsis
                mid = (lo + hi + 1) // 2
                text.text = content[:mid] + "…"
                if text.content_width <= max_width:
                    lo = mid
                else:
                    hi = mid - 1
            text.text = content[:lo] + "…"
    return text


def _fix_font(text: arcade.Text, font_name: str) -> None:
    """arcade 3.3 resolves a font name by loading it at normal weight; a family that exists in
    bold only (Grail Serif) then resolves to the default font. Name it again on the label."""
    if text.label.font_name != font_name:
        text.label.font_name = font_name


@dataclass
class Region:
    """A clickable rectangle of a screen."""

    id: str
    left: float
    bottom: float
    width: float
    height: float
    on_click: Callable[[], None] | None = None
    enabled: bool = True
    help: str = ""
    label: str = ""

    def contains(self, x: float, y: float) -> bool:
        return (self.left <= x < self.left + self.width
                and self.bottom <= y < self.bottom + self.height)

    @property
    def center(self) -> tuple[float, float]:
        return (self.left + self.width / 2, self.bottom + self.height / 2)


class TextField:
    """A one-line text input (the view routes on_text and keys to the focused field)."""

    def __init__(self, value: str = "", placeholder: str = "", max_len: int = 32,
                 secret: bool = False) -> None:
        self.value = value
        self.placeholder = placeholder
        self.max_len = max_len
        self.secret = secret

    def insert(self, text: str) -> bool:
        text = "".join(c for c in text if c.isprintable() and c not in "\r\n\t")
        if not text:
            return False
        self.value = (self.value + text)[: self.max_len]
        return True

    def backspace(self) -> bool:
        if not self.value:
            return False
        self.value = self.value[:-1]
        return True

    @property
    def shown(self) -> str:
        return "•" * len(self.value) if self.secret else self.value
