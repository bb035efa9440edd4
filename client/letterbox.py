"""The screens are laid out on one 1280x800 design; a window of another size shows that design
scaled to fit, centred, with bars of the background on the two other sides (letterboxing).

One scale for everything keeps every screen's layout as it was designed and tested (nothing
is cut off: a 768-pixel-high window shows the whole design at 0.96); the mouse's window
coordinates are mapped back to design coordinates before any region is looked up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import theme

MIN_WIDTH, MIN_HEIGHT = 1024, 640  # the design at 0.8: its 11-point labels still read
SCREEN_MARGIN = (16, 72)  # what a desktop keeps around a window (title bar, a panel)


@dataclass(frozen=True)
class Letterbox:
    """The design's place in a window of `width` x `height` (window pixels, as the mouse)."""

    width: int
    height: int

    @property
    def scale(self) -> float:
        """(Never 0: a minimised window may report no size.)"""
        return max(0.01, min(self.width / theme.WIDTH, self.height / theme.HEIGHT))

    @property
    def rect(self) -> tuple[float, float, float, float]:
        """Left, bottom, width and height of the scaled design in the window."""
        w, h = theme.WIDTH * self.scale, theme.HEIGHT * self.scale
        return (self.width - w) / 2, (self.height - h) / 2, w, h

    def to_design(self, x: float, y: float) -> tuple[float, float]:
        left, bottom, _w, _h = self.rect
        return (x - left) / self.scale, (y - bottom) / self.scale

    def to_window(self, x: float, y: float) -> tuple[float, float]:
        left, bottom, _w, _h = self.rect
        return left + x * self.scale, bottom + y * self.scale

    def viewport(self, pixel_ratio: float = 1.0) -> tuple[int, int, int, int]:
        """The rect in framebuffer pixels (a high-DPI window has more than window pixels)."""
        return tuple(round(v * pixel_ratio) for v in self.rect)  # type: ignore[return-value]

    def bars(self, pixel_ratio: float = 1.0) -> list[tuple[int, int, int, int]]:
        """The window's parts outside the design (left and right, or below and above), in
        framebuffer pixels; none when the window has the design's proportions."""
        left, bottom, width, height = self.viewport(pixel_ratio)
        full_w, full_h = round(self.width * pixel_ratio), round(self.height * pixel_ratio)
        if left > 0:
            return [(0, 0, left, full_h), (left + width, 0, full_w - left - width, full_h)]
        if bottom > 0:
            return [(0, 0, full_w, bottom), (0, bottom + height, full_w, full_h - bottom - height)]
        return []


def window_size(saved: tuple[int, int], screen: tuple[int, int] | None) -> tuple[int, int]:
    """The size to open the window at: the last one (or the design's), no larger than the
    screen leaves room for (a 1366x768 laptop), no smaller than the minimum."""
    width, height = saved if all(v > 0 for v in saved) else (theme.WIDTH, theme.HEIGHT)
    if screen is not None:
        width = min(width, screen[0] - SCREEN_MARGIN[0])
        height = min(height, screen[1] - SCREEN_MARGIN[1])
    return max(MIN_WIDTH, width), max(MIN_HEIGHT, height)


def smooth_minified_text() -> None:
    """Glyphs drawn smaller than they were rasterised (a window below the design's size, a
    label squeezed to its width) are filtered linearly: pyglet's default, nearest, drops whole
    columns of a glyph (Hangul then reads badly at 0.8). Call before any text is drawn; text at
    1:1 or larger keeps the nearest filter, as crisp as before."""
    import pyglet
    from pyglet import gl

    pyglet.font.base.Font.texture_min_filter = gl.GL_LINEAR


def screen_size() -> tuple[int, int] | None:
    """The default screen's size, or None where there is none (headless)."""
    try:
        import pyglet

        screen = pyglet.display.get_display().get_default_screen()
        return screen.width, screen.height
    except Exception:  # no display to ask: the saved size stands
        return None


class Projector:
    """Draws the design into the letterboxed part of the window (arcade's Camera2D, its
    projection the design's 1280x800, its viewport the letterbox)."""

    def __init__(self, window: Any) -> None:
        from arcade.camera import Camera2D
        from arcade.types import LRBT

        self.window = window
        self.camera = Camera2D(window=window, position=(0, 0),
                               projection=LRBT(0, theme.WIDTH, 0, theme.HEIGHT))

    @property
    def fit(self) -> Letterbox:
        return Letterbox(*self.window.get_size())

    def pixel_ratio(self) -> float:
        return self.window.get_framebuffer_size()[0] / max(1, self.window.get_size()[0])

    def viewport(self) -> tuple[int, int, int, int]:
        return self.fit.viewport(self.pixel_ratio())

    def use(self, background: tuple[int, int, int]) -> None:
        """Paint the bars in `background`, then aim the next drawing at the letterbox (call
        before a screen draws; arcade clips every clear and copy to the viewport)."""
        from arcade.types import LBWH

        screen = self.window.ctx.screen
        for bar in self.fit.bars(self.pixel_ratio()):
            screen.clear(color=background, viewport=bar)
        self.camera.viewport = LBWH(*self.viewport())
        self.camera.use()
