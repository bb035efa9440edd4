"""What every screen shares: a base scene rebuilt when the model or the UI changes, an overlay
(hover highlight, tooltip, modal) and clickable regions; buttons, fields, panels and bars."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import arcade
from arcade import key as keys

from .. import theme as th
from ..gfx import Region, Scene, TextField, legible, text_width

if TYPE_CHECKING:
    from ..app import GrailApp

NOTICE_H = 44  # a notice's height (one line)


def button_label(label: str, width: float, height: float, size: float) -> tuple[float, int]:
    """How a button draws its label: its size and lines. Two lines (at 12 at most) rather than
    an unreadable squeeze, when the label has words to break between, the button is tall
    enough for two lines, and one line would shrink it below 75 % of its size."""
    if " " in label.strip() and height >= 40 and \
            text_width(label, size=size * 0.75, bold=True) > width - 10:
        return min(size, 12), 2
    return size, 1


def label_legible(label: str, width: float, height: float, size: float) -> bool:
    """Whether a button of this size draws its label whole: no ellipsis, no word broken
    across lines, not below 75 % of the size it is drawn at (gfx.legible): a row of buttons
    asks before it settles on their width."""
    fitted, lines = button_label(label, width, height, size)
    return legible(label, width - 10 if lines == 1 else int(width - 10), fitted, bold=True,
                   lines=lines)


class BaseView(arcade.View):
    name = "base"
    background = th.BG
    split = False  # draw opaque shapes first, unblended (the screens drawn at 60 fps)
    # Draw the base scene once per change into an offscreen image and copy that image to the
    # screen every frame: with software OpenGL a frame then costs one copy instead of
    # hundreds of shapes and texts (the game screen: ~14 ms -> ~2 ms).
    cached = False

    def __init__(self, app: GrailApp) -> None:
        super().__init__(app.window)
        self.app = app
        ctx = app.window.ctx
        self.base = Scene(ctx, self.split)
        self.live = Scene(ctx)  # what changes every second (countdowns): redrawn on its own
        self.live_dirty = True
        self.overlay = Scene(ctx)
        self.regions: list[Region] = []
        self.modal_regions: list[Region] | None = None
        self.hover: Region | None = None
        self.fields: dict[str, TextField] = {}
        self.field_order: list[str] = []
        self.focus: str | None = None
        self.dirty = True
        self.stale = True  # what is on screen is not the latest picture: the next frame draws
        self.seen_revision = -1
        self.mouse = (-1.0, -1.0)
        self.scroll: dict[str, int] = {}
        self.notice_shown: Any = None
        self.notice_box: tuple[float, float, float, float] | None = None  # where it was drawn
        self.fbo: Any = None

    # --- conveniences ---------------------------------------------------------------------------
    @property
    def model(self) -> Any:
        return self.app.model

    @property
    def tr(self) -> Any:
        return self.app.tr

    def now(self) -> float:
        return time.monotonic()

    def invalidate(self) -> None:
        self.dirty = True

    def request_draw(self) -> None:
        """Draw again without rebuilding (the window was uncovered; an animation moved)."""
        self.stale = True

    def wants_draw(self) -> bool:
        """Whether the next frame must draw: an idle screen is not drawn again (software
        OpenGL spends a third of a core or more redrawing an unchanged screen 60 times a
        second). Call after on_update, which notices the model's and the clock's changes."""
        return self.stale or self.dirty or self.live_dirty

    # --- the frame ------------------------------------------------------------------------------
    def on_show_view(self) -> None:
        self.dirty = True
        self.hover = None

    def on_update(self, delta_time: float) -> None:
        if self.model.revision != self.seen_revision:
            self.dirty = True
        notice = self.model.current_notice(self.now())
        if notice is not self.notice_shown:
            self.dirty = True
        self.tick(self.now())

    def tick(self, now: float) -> None:
        """Per-frame hook (countdowns): mark what visibly changed (invalidate(), live_dirty);
        an animation calls request_draw() on every frame while it runs."""

    def on_resize(self, width: int, height: int) -> None:
        self.app.window_resized(width, height)
        self.invalidate()  # the cached picture has the window's size: make it again

    def on_expose(self) -> None:
        self.request_draw()

    def on_draw(self) -> None:
        self.app.projector.use(self.background)
        if self.dirty:
            self.rebuild()
        elif self.live_dirty:
            self.rebuild_live()
        ctx = self.window.ctx
        if self.fbo is not None:
            ctx.copy_framebuffer(self.fbo, ctx.screen, depth=False)
            ctx.screen._use(force=True)  # the copy left the cache bound for reading
        else:
            self.clear(color=self.background)
            self.base.draw()
        self.live.draw()
        self.overlay.draw()
        self.stale = False

    def _render_cache(self) -> None:
        ctx = self.window.ctx
        size = ctx.screen.size
        if self.fbo is None or self.fbo.size != size:
            self.fbo = ctx.framebuffer(color_attachments=[ctx.texture(size, components=4)])
        self.fbo.viewport = self.app.projector.viewport()  # the letterbox, as on screen
        with self.fbo.activate():
            self.fbo.clear(color=(*self.background, 255))
            self.base.draw()

    def rebuild(self) -> None:
        self.dirty = False
        self.seen_revision = self.model.revision
        self.base.begin()
        self.regions = []
        self.modal_regions = None
        self.layout(self.base)
        self.draw_notice(self.base)
        self.base.end()
        if self.cached:
            self._render_cache()
        self.rebuild_live()
        if self.hover is not None:
            self.hover = self.region_by_id(self.hover.id)
        self.rebuild_overlay()

    def layout(self, s: Scene) -> None:
        """Draw the screen into the base scene and register its regions."""

    def rebuild_live(self) -> None:
        self.live_dirty = False
        self.live.begin()
        self.live_layout(self.live)
        self.live.end()

    def live_layout(self, s: Scene) -> None:
        """Draw what changes by itself with time (countdowns); no regions here."""

    def rebuild_overlay(self) -> None:
        self.stale = True
        o = self.overlay
        o.begin()
        modal = self.close_dialog(o) if self.app.ui.extra.get("close_ask") else self.modal(o)
        if modal is not None:
            self.modal_regions = modal
        r = self.hover
        if modal is not None and not any(r is x for x in modal):
            r = None  # under a dialog nothing else answers the mouse, nor explains itself
        if r is not None and r.enabled and r.on_click is not None:
            o.rect(r.left, r.bottom, r.width, r.height, (255, 255, 255, 34))
            o.frame(r.left, r.bottom, r.width, r.height, (255, 240, 200, 150), 2)
        if r is not None and r.help:
            self.tooltip(o, r.help, r)
        o.end()

    def modal(self, o: Scene) -> list[Region] | None:
        """Draw a modal dialog into the overlay; return its regions (then only they are live)."""
        return None

    def close_dialog(self, o: Scene) -> list[Region]:
        """The window is closing during a local game: Continue later (paused and kept),
        Quit (given up) or Cancel."""
        tr = self.tr

        def quit_button(left: float, bottom: float, width: float) -> None:
            self.button(o, "close_quit", left + 24, bottom + 22, 130, 40, tr("close.quit"),
                        lambda: self.app.answer_close("quit"))

        return self.dialog(o, "close", tr("close.title"), tr("close.text"),
                           lambda later: self.app.answer_close("later" if later else "cancel"),
                           tr("close.later"), tr("close.cancel"), body=quit_button, height=250)

    def dialog(self, o: Scene, rid: str, title: str, text: str, answer: Callable[[bool], None],
               ok: str, cancel: str | None,
               body: Callable[[float, float, float], None] | None = None,
               height: float = 230) -> list[Region]:
        """A modal question over a dimmed screen: title, text (its lines), `body` (drawn with
        the dialog's left, bottom and width), then OK and Cancel (None: OK alone), which call
        `answer(True)` or `answer(False)`. Returns the dialog's regions, the only live ones
        while it shows."""
        o.rect(0, 0, th.WIDTH, th.HEIGHT, (0, 0, 0, 150))
        left, width = 390, 500
        bottom = 405 - height / 2
        o.shadow(left, bottom, width, height, 4, 5)
        o.box(left, bottom, width, height, th.PANEL, th.GOLD, 2)
        o.text(title, left + 24, bottom + height - 40, 18, th.GOLD, font="serif",
               max_width=width - 48)
        y = bottom + height - 72
        for line in text.split("\n"):  # each wraps, on three lines at most
            t = o.text(line, left + 24, y, 14, th.TEXT, width=int(width - 48), max_lines=3)
            y -= t.content_height + 6
        saved, self.regions = self.regions, []
        if body is not None:
            body(left, bottom, width)
        self.button(o, f"{rid}_ok", left + width - 24 - 130, bottom + 22, 130, 40, ok,
                    lambda: answer(True), style="primary")
        if cancel is not None:
            self.button(o, f"{rid}_cancel", left + width - 24 - 270, bottom + 22, 130, 40,
                        cancel, lambda: answer(False), style="ghost")
        modal, self.regions = self.regions, saved
        return modal

    # --- regions and input ----------------------------------------------------------------------
    def live_regions(self) -> list[Region]:
        return self.modal_regions if self.modal_regions is not None else self.regions

    def region_at(self, x: float, y: float) -> Region | None:
        for region in reversed(self.live_regions()):
            if region.contains(x, y):
                return region
        return None

    def region_by_id(self, rid: str) -> Region | None:
        for region in reversed(self.live_regions()):
            if region.id == rid:
                return region
        return None

    def add_region(self, rid: str, left: float, bottom: float, width: float, height: float,
                   on_click: Callable[[], None] | None = None, enabled: bool = True,
                   help: str = "", label: str = "") -> Region:
        region = Region(rid, left, bottom, width, height, on_click, enabled, help, label)
        self.regions.append(region)
        return region

    def on_mouse_motion(self, x: int, y: int, dx: int, dy: int) -> None:
        x, y = self.app.fit.to_design(x, y)
        self.mouse = (x, y)
        region = self.region_at(x, y)
        if region is not self.hover and (region is None or self.hover is None
                                         or region.id != self.hover.id):
            self.hover = region
            self.rebuild_overlay()

    def on_mouse_press(self, x: int, y: int, button: int, modifiers: int) -> None:
        x, y = self.app.fit.to_design(x, y)
        self.mouse = (x, y)
        if self.dirty:
            self.rebuild()
        region = self.region_at(x, y)
        if region is None:
            if self.focus is not None:
                self.focus = None
                self.invalidate()
            return
        if region.enabled and region.on_click is not None:
            region.on_click()
            self.invalidate()

    def on_mouse_scroll(self, x: int, y: int, scroll_x: float, scroll_y: float) -> None:
        region = self.region_at(*self.app.fit.to_design(x, y))
        if region is not None and region.id.startswith("scroll:"):
            name = region.id[len("scroll:"):]
            self.scroll[name] = max(0, self.scroll.get(name, 0) + (1 if scroll_y > 0 else -1))
            self.invalidate()

    def click(self, rid: str) -> bool:
        """Click a region by id through the real input handler (tests, the tour), on the screen
        as the latest message left it (a player would have seen the new frame)."""
        if self.dirty or self.model.revision != self.seen_revision:
            self.rebuild()
        region = self.region_by_id(rid)
        if region is None:
            return False
        x, y = self.point_at(region)
        self.on_mouse_press(x, y, arcade.MOUSE_BUTTON_LEFT, 0)
        return region.enabled

    def point_at(self, region: Region) -> tuple[int, int]:
        """Move the mouse to the middle of `region` through the real handler, in window
        pixels as the window reports them (tests, the tour); returns that point."""
        x, y = self.app.fit.to_window(*region.center)
        point = round(x), round(y)
        self.on_mouse_motion(*point, 0, 0)
        return point

    def type_text(self, text: str) -> None:
        """Type into the focused field through the real handlers (tests, the tour)."""
        self.on_text(text)

    def on_text(self, text: str) -> None:
        if self.focus is not None and self.focus in self.fields \
                and self.fields[self.focus].insert(text):
            self.on_field_changed(self.focus)
            self.invalidate()

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        if symbol == keys.F5:  # the help, from every screen and every field
            self.toggle_help()
            return
        if self.focus is not None and self.focus in self.fields:
            if symbol == keys.BACKSPACE:
                if self.fields[self.focus].backspace():
                    self.on_field_changed(self.focus)
                    self.invalidate()
                return
            if symbol in (keys.ENTER, keys.RETURN, keys.NUM_ENTER):
                self.on_enter(self.focus)
                self.invalidate()
                return
            if symbol == keys.TAB and self.field_order:
                order = self.field_order
                i = order.index(self.focus) if self.focus in order else -1
                self.focus = order[(i + 1) % len(order)]
                self.invalidate()
                return
            if symbol == keys.ESCAPE:
                self.focus = None
                self.invalidate()
                return
        self.on_key(symbol, modifiers)

    def on_key(self, symbol: int, modifiers: int) -> None:
        """Keys that no focused field took."""

    def toggle_help(self) -> None:
        """F5 or a "?" button: show the help, which comes back to this screen."""
        self.app.view("help").open_from(self)

    def on_enter(self, field: str) -> None:
        """Enter pressed in a field."""

    def on_field_changed(self, field: str) -> None:
        """A field's text changed."""

    # --- widgets --------------------------------------------------------------------------------
    def button(self, s: Scene, rid: str, left: float, bottom: float, width: float,
               height: float, label: str, on_click: Callable[[], None] | None,
               enabled: bool = True, help: str = "", style: str = "normal",
               size: float = 14, colour: tuple[int, ...] | None = None, why: str = "") -> Region:
        """A button; disabled ones are drawn greyed, cannot be clicked, and say `why` (or that
        they are not possible now) on hover."""
        if not enabled:
            fill, border, ink = th.DISABLED_BG, (64, 67, 86), th.DISABLED_TEXT
        elif style == "primary":
            fill, border, ink = th.VERMILION, th.GOLD, th.WHITE
        elif style == "selected":
            fill, border, ink = th.GOLD, th.shade(th.GOLD, 1.3), th.INK
        elif style == "ghost":
            fill, border, ink = th.BG2, th.LINE, th.TEXT
        elif style == "paper":
            fill, border, ink = th.PAPER, th.PAPER_DARK, th.INK
        else:
            fill, border, ink = th.PANEL2, th.LINE, th.TEXT
        if colour is not None and enabled:
            fill, border = colour, th.shade(colour, 1.35)
            ink = th.WHITE
        if enabled:
            s.shadow(left, bottom, width, height, 2, 3)
        s.box(left, bottom, width, height, fill, border, 1)
        if enabled and style in ("normal", "primary"):
            s.rect(left + 1, bottom + height - 2, width - 2, 1, th.shade(fill, 1.25))
        fitted, lines = button_label(label, width, height, size)
        if lines == 2:  # a quarter of a line higher: centred as a box, they sat low, the
            # second line on the button's edge
            s.text(label, left + width / 2, bottom + height / 2 + fitted / 4, fitted, ink,
                   bold=True, anchor_x="center", anchor_y="center", width=int(width - 10),
                   align="center", max_lines=2)
        else:
            s.text(label, left + width / 2, bottom + height / 2, size, ink, bold=True,
                   anchor_x="center", anchor_y="center", max_width=width - 10)
        if not enabled and help:
            help = f"{help}\n{self.tr('verb_help.why', why=why or self.tr('verb_help.disabled'))}"
        return self.add_region(rid, left, bottom, width, height, on_click, enabled, help, label)

    def field(self, s: Scene, name: str, left: float, bottom: float, width: float,
              height: float = 38, size: float = 15) -> Region:
        f = self.fields[name]
        focused = self.focus == name
        s.box(left, bottom, width, height, th.PAPER if focused else th.PAPER2,
              th.GOLD if focused else th.PAPER_DARK, 2 if focused else 1)
        shown = f.shown
        if shown:
            t = s.text(shown, left + 10, bottom + height / 2, size, th.INK, anchor_y="center",
                       max_width=width - 24)
            caret_x = left + 10 + t.content_width + 2
        else:
            s.text(f.placeholder, left + 10, bottom + height / 2, size - 2, th.INK_SOFT,
                   anchor_y="center", max_width=width - 24)
            caret_x = left + 10
        if focused:
            s.rect(min(caret_x, left + width - 8), bottom + 8, 2, height - 16, th.VERMILION)

        def focus() -> None:
            self.focus = name

        return self.add_region(f"field:{name}", left, bottom, width, height, focus)

    def panel(self, s: Scene, left: float, bottom: float, width: float, height: float,
              title: str = "", paper: bool = False, hollow: bool = False) -> None:
        """A panel; `hollow` leaves the inside unfilled below the title (something else
        covers it, and software OpenGL pays for every pixel drawn twice)."""
        s.shadow(left, bottom, width, height)
        if hollow:
            s.box(left, bottom + height - 40, width, 40, th.PANEL, None)
            s.frame(left, bottom, width, height, th.LINE, 1)
        elif paper:
            s.box(left, bottom, width, height, th.PAPER, th.PAPER_DARK, 1)
        else:
            s.box(left, bottom, width, height, th.PANEL, th.LINE, 1)
        if title:
            ink = th.INK if paper else th.GOLD
            s.text(title, left + 14, bottom + height - 24, 14, ink, font="serif",
                   max_width=width - 28)
            s.rect(left + 12, bottom + height - 33, width - 24, 1,
                   th.PAPER_DARK if paper else th.LINE)

    def bar(self, s: Scene, left: float, bottom: float, width: float, height: float,
            value: int | None, maximum: int | None, colour: tuple[int, ...],
            label: str = "", dark: bool = True) -> None:
        s.box(left, bottom, width, height, (22, 22, 30) if dark else th.PAPER_DARK,
              (70, 72, 90) if dark else th.INK_SOFT, 1)
        if value is not None and maximum:
            frac = max(0.0, min(1.0, value / maximum))
            s.rect(left + 1, bottom + 1, (width - 2) * frac, height - 2, colour)
            s.rect(left + 1, bottom + height - 3, (width - 2) * frac, 2, th.shade(colour, 1.3))
        if label:
            text = f"{label}  {value if value is not None else '?'}" + (
                f" / {maximum}" if maximum else "")
            s.text(text, left + 6, bottom + height / 2, max(9, height - 8), th.WHITE, bold=True,
                   anchor_y="center", max_width=width - 10)

    def tooltip(self, o: Scene, text: str, region: Region) -> None:
        width = 340
        lines = text.count("\n") + 1 + len(text) // 34
        height = min(240, 16 + 19 * lines)
        x = region.left + region.width / 2 - width / 2
        y = region.bottom + region.height + 8
        if y + height > th.HEIGHT - 4:
            y = region.bottom - height - 8
        x = max(6, min(th.WIDTH - width - 6, x))
        y = max(6, y)
        o.shadow(x, y, width, height, colour=(0, 0, 0, 140))
        o.box(x, y, width, height, (250, 244, 228), th.GOLD_DARK, 1)
        t = o.text(text, x + 10, y + height - 10, 12, th.INK, anchor_y="top", width=width - 20)
        if t.content_height + 18 > height:  # grow to fit the wrapped text
            extra = t.content_height + 18 - height
            o.box(x, y - extra, width, height + extra, (250, 244, 228), th.GOLD_DARK, 1)
            o.text(text, x + 10, y + height - 10, 12, th.INK, anchor_y="top", width=width - 20)

    def draw_notice(self, s: Scene) -> None:
        """The current notice, where no control of the screen sits under it (`notice_place`),
        and a sticky one's close button."""
        notice = self.model.current_notice(self.now())
        self.notice_shown = notice
        self.notice_box = None
        if notice is None:
            return
        colour = th.VERMILION_DARK if notice.level == "error" else (40, 110, 90)
        left, bottom, width = self.notice_place()
        self.notice_box = (left, bottom, width, NOTICE_H)
        s.shadow(left, bottom, width, NOTICE_H)
        s.box(left, bottom, width, NOTICE_H, colour, th.GOLD, 1)
        room = 100 if notice.sticky else 0  # a sticky one's close button, at its right end
        s.text(notice.text, left + (width - room) / 2, bottom + NOTICE_H / 2, 14, th.WHITE,
               anchor_x="center", anchor_y="center", max_width=width - 30 - room)
        if notice.sticky:
            self.button(s, "notice_close", left + width - 96, bottom + 6, 88, 32,
                        self.tr("top.close_notice"), self.model.close_notice, style="ghost",
                        size=13)

    def notice_place(self) -> tuple[float, float, float]:
        """Where a notice goes (left, bottom, width): the first place, from the bottom centre
        up, then left and right, where it covers no control (a button, a field, a card: a
        region with a label or a click); the bottom centre if the screen has no such place."""
        controls = [r for r in self.regions if r.label or r.on_click is not None]
        for width in (720.0, 520.0):
            for bottom in range(18, int(th.HEIGHT - NOTICE_H - 70), 12):
                for left in ((th.WIDTH - width) / 2, 12.0, th.WIDTH - width - 12):
                    if not any(r.left < left + width and left < r.left + r.width
                               and r.bottom < bottom + NOTICE_H and bottom < r.bottom + r.height
                               for r in controls):
                        return left, float(bottom), width
        return (th.WIDTH - 720) / 2, 18.0, 720.0

    def title_text(self, s: Scene, text: str, x: float, y: float, size: float = 26,
                   colour: tuple[int, ...] = th.GOLD, anchor_x: str = "left") -> None:
        s.text(text, x, y, size, colour, font="serif", anchor_x=anchor_x)

    def seal(self, s: Scene, x: float, y: float, r: float, colour: tuple[int, ...],
             strokes: int = 3, used: int = 0) -> None:
        """Command Spell strokes (令呪) as three crescent marks around a centre."""
        for i in range(3):
            angle_colour = colour if i < strokes else (70, 60, 70)
            cx = x + (i - 1) * r * 1.25
            s.diamond(cx, y, r * 0.55, angle_colour)
            s.diamond(cx, y, r * 0.28, th.shade(angle_colour, 1.4) if i < strokes else
                      (90, 80, 90))
