"""The window is resizable: the 1280x800 design is scaled to fit it (letterboxed), clicks are
mapped back onto the right buttons, and the size is remembered between runs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from grailwar.client import config
from grailwar.client import theme as th
from grailwar.client.driver import click_action
from grailwar.client.letterbox import MIN_HEIGHT, MIN_WIDTH, Letterbox, window_size
from grailwar.shared.engine import new_game
from grailwar.shared.engine.data import CLASSES
from test_model import GREYED_MASTERS, play_game, state_msg
from test_screens import ActRecorder, join, record_sends

LAPTOP = (1366, 768)


def test_the_design_fits_a_laptop_and_the_minimum_whole() -> None:
    laptop = Letterbox(*LAPTOP)
    assert laptop.scale == pytest.approx(0.96)
    left, bottom, width, height = laptop.rect
    assert (bottom, height) == (0, 768), "all 800 design pixels in the 768 of the window"
    assert left == pytest.approx((1366 - 1228.8) / 2) and width == pytest.approx(1228.8)
    assert laptop.bars() == [(0, 0, 69, 768), (1298, 0, 68, 768)]
    assert Letterbox(1280, 900).bars() == [(0, 0, 1280, 50), (0, 850, 1280, 50)]
    smallest = Letterbox(MIN_WIDTH, MIN_HEIGHT)
    assert smallest.rect == (0, 0, MIN_WIDTH, MIN_HEIGHT) and smallest.scale == 0.8
    assert smallest.bars() == []
    for fit in (laptop, smallest, Letterbox(1280, 800)):
        assert fit.to_design(*fit.to_window(640, 400)) == pytest.approx((640, 400))
        assert fit.to_window(th.WIDTH, th.HEIGHT)[1] == pytest.approx(fit.rect[1] + fit.rect[3])


def test_the_window_opens_at_the_saved_size_within_the_screen() -> None:
    assert window_size((0, 0), None) == (th.WIDTH, th.HEIGHT), "nothing saved: the design's"
    assert window_size((1500, 900), None) == (1500, 900)
    assert window_size((0, 0), LAPTOP) == (1280, 696), "a laptop's screen: room for its panel"
    assert window_size((1600, 1000), LAPTOP) == (1350, 696)
    assert window_size((300, 200), None) == (MIN_WIDTH, MIN_HEIGHT)


def test_the_config_keeps_the_size_and_ignores_a_wrong_type() -> None:
    config.save(dict(config.load(), width=1366, height=768))
    assert config.load()["width"] == 1366 and config.load()["height"] == 768
    config.config_path().write_text(json.dumps({"width": "big", "height": 700, "name": "凛"}))
    assert config.stored() == {"height": 700, "name": "凛"}


def close(app: Any, window: Any) -> None:
    """Close a client's own window and hand drawing back to the other tests' window."""
    import arcade

    app.shutdown()
    arcade.set_window(window)
    window.switch_to()


@pytest.fixture
def minimum_sizes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """The minimum sizes windows are given (a headless window does not keep it)."""
    import arcade

    calls: list[tuple[int, int]] = []
    monkeypatch.setattr(arcade.Window, "set_minimum_size", lambda _w, *size: calls.append(size))
    return calls


@pytest.fixture
def sized(window: Any, reactor: Any, size: tuple[int, int], tmp_path: Any,
          minimum_sizes: list[tuple[int, int]]) -> Iterator[Any]:
    """A client that opens its own window at the `size` its settings remember."""
    from grailwar.client.app import GrailApp

    config.save(dict(config.DEFAULTS, lang="ja", name="衛宮", width=size[0], height=size[1]))
    app = GrailApp(reactor, remember=True, bot_delay=0.0, export_dir=tmp_path)
    yield app
    close(app, window)


def shown(app: Any, name: str) -> tuple[Any, Any]:
    """Show a screen, draw it as a frame does; its view and the whole window's pixels."""
    view = app.show(name)
    app.frame()
    path = app.capture(app.export_dir / f"{name}.png")
    from PIL import Image

    return view, Image.open(path)


def window_pixel(app: Any, image: Any, x: float, y: float) -> tuple[int, int, int]:
    """The colour drawn at design point (x, y), read where the window shows it."""
    wx, wy = app.fit.to_window(x, y)
    return image.getpixel((int(wx), image.height - 1 - int(wy)))


@pytest.mark.parametrize("size", [LAPTOP, (MIN_WIDTH, MIN_HEIGHT)])
def test_the_map_fits_and_its_buttons_answer_where_they_are_drawn(
        sized: Any, size: tuple[int, int], minimum_sizes: list[tuple[int, int]]) -> None:
    app = sized
    assert app.window.get_size() == size and app.window.resizeable  # (pyglet spells it so)
    assert minimum_sizes == [(MIN_WIDTH, MIN_HEIGHT)]
    join(app)
    state = new_game(seed=3, classes=list(CLASSES), masters=GREYED_MASTERS)
    app.model.handle(state_msg(state, 0, {str(s): 300 for s in state.prompt.seats}))
    view, image = shown(app, "game")
    assert image.size == app.window.get_size()
    for r in view.regions:  # every region lies inside the design, so inside the window
        assert 0 <= r.left <= th.WIDTH - r.width, r.id
        assert 0 <= r.bottom <= th.HEIGHT - r.height, r.id
    verbs = [r for r in view.regions if r.id.startswith("verb:")]
    greyed = [r for r in verbs if not r.enabled]
    assert greyed and all(window_pixel(app, image, r.left + 8, r.bottom + 8) == th.DISABLED_BG
                          for r in greyed), "drawn where the mouse finds them"
    app.session = recorder = ActRecorder(app.model)
    legal = app.model.legal
    for action in (next(a for a in legal if a["type"] == "UseCommandSpell"),  # behind a heading
                   next(a for a in legal if a["type"] == "DeclareInvestigate"),  # an option row
                   next(a for a in legal if a["type"] == "Move")):  # a map square
        app.model.sent_state_id = -1
        assert click_action(app, action), action  # the driver clicks in window coordinates
        assert recorder.acts[-1] == action


@pytest.mark.parametrize("size", [LAPTOP])
def test_the_battle_fits_and_a_click_in_the_letterbox_hits_nothing(sized: Any) -> None:
    app = sized
    state, events = play_game(seed=4, stop=lambda s: s.battle is not None
                              and s.prompt.kind == "reaction")
    target = min(state.prompt.seats)
    join(app, target)
    app.model.handle({"t": "events", "events": events, "log": []})
    app.model.handle(state_msg(state, target, {str(target): 60}))
    view, image = shown(app, "battle")
    guard = view.region_by_id("verb:ReactGuard")
    assert guard.enabled
    assert window_pixel(app, image, guard.left + 3, guard.bottom + 3) != view.background
    sent = record_sends(app)
    bar = app.fit.rect[0] / 2  # the middle of the left bar, beside the verb
    assert image.getpixel((int(bar), image.height // 2)) == view.background
    x, y = app.fit.to_window(*guard.center)
    view.on_mouse_press(int(bar), int(y), 1, 0)
    assert app.ui.verb is None and sent == []
    view.on_mouse_press(round(x), round(y), 1, 0)
    assert app.ui.verb == "ReactGuard", "the verb opened: the press landed on its button"


@pytest.mark.parametrize("size", [(1100, 700)])
def test_the_size_is_saved_when_resized_and_restored_next_run(sized: Any) -> None:
    app = sized
    assert app.window.get_size() == (1100, 700), "the remembered size"
    app.window.dispatch_event("on_resize", 1200, 720)
    app.shutdown()
    assert (config.load()["width"], config.load()["height"]) == (1200, 720)


def test_the_tour_takes_a_window_size(window: Any, reactor: Any, tmp_path: Any) -> None:
    """`grailwar tour --size 1366x768` (the screenshots of a laptop's window)."""
    import argparse

    from grailwar.cli.client import window_size_arg
    from grailwar.client.app import GrailApp

    assert window_size_arg("1366x768") == LAPTOP
    with pytest.raises(argparse.ArgumentTypeError):
        window_size_arg("1366")
    app = GrailApp(reactor, remember=False, size=(1200, 750), export_dir=tmp_path)
    try:
        assert app.window.get_size() == (1200, 750)
    finally:
        close(app, window)


def test_a_window_of_no_size_maps_the_mouse_without_failing() -> None:
    assert Letterbox(0, 0).to_design(0, 0) == pytest.approx((th.WIDTH / 2, th.HEIGHT / 2))


def test_text_drawn_smaller_than_rasterised_is_filtered_smoothly(app: Any) -> None:
    """A scaled-down window (or a squeezed label) samples its glyphs linearly; at 1:1 and above
    they stay nearest, pixel for pixel as rasterised."""
    import pyglet
    from pyglet import gl

    shown(app, "title")
    glyphs, _offsets = pyglet.font.load(th.SANS, 14).get_glyphs("봇")
    glyph = glyphs[0]
    assert (glyph.owner.min_filter, glyph.owner.mag_filter) == (gl.GL_LINEAR, gl.GL_NEAREST)
