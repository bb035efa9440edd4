"""The loop draws only when the screen changed: an idle screen is not drawn again, while a
message, a hover, a countdown's second or a resize draws the next frame."""

from __future__ import annotations

from typing import Any

from grailwar.shared.engine import new_game
from test_model import state_msg
from test_screens import join


def draws_over(app: Any, frames: int = 30) -> int:
    """How many of the next `frames` frames drew."""
    before = app.draws
    for _ in range(frames):
        app.frame()
    return app.draws - before


def settle(app: Any, name: str) -> Any:
    """Show a screen and draw it once: from here on nothing has changed."""
    view = app.show(name)
    app.frame()
    assert app.current is view
    return view


def test_an_idle_screen_is_not_drawn_again(app: Any) -> None:
    settle(app, "title")
    assert draws_over(app) == 0
    assert app.frames and app.draws, "the frames still run (events, updates)"


def test_a_message_draws_the_next_frame_once(app: Any) -> None:
    settle(app, "lobby")
    app.model.handle({"t": "rooms", "rooms": [], "total": 0, "offset": 0})
    assert draws_over(app) == 1


def test_a_hover_change_draws_and_a_move_inside_the_same_button_does_not(app: Any) -> None:
    view = settle(app, "title")
    button = next(r for r in view.regions if r.on_click is not None and r.enabled)
    view.point_at(button)
    assert draws_over(app) == 1
    x, y = view.app.fit.to_window(button.left + 2, button.bottom + 2)
    view.on_mouse_motion(int(x), int(y), 0, 0)
    assert view.hover is not None and view.hover.id == button.id
    assert draws_over(app) == 0
    view.on_mouse_motion(0, 0, 0, 0)
    assert view.hover is None
    assert draws_over(app) == 1


def test_the_countdown_draws_once_a_second(app: Any) -> None:
    clock = [100.0]
    join(app)
    state = new_game(seed=2, classes=["saber", "archer", "lancer"])
    app.model.handle(state_msg(state, 0, {str(s): 300 for s in state.prompt.seats}), now=100.0)
    view = settle(app, "game")
    view.now = lambda: clock[0]  # the screen's clock, in the model's time
    app.frame()
    assert app.model.my_seconds_left(clock[0]) == 300
    clock[0] += 0.4
    assert draws_over(app) == 0, "within the same second"
    clock[0] += 0.7
    assert app.model.my_seconds_left(clock[0]) == 299
    assert draws_over(app) == 1, "the second ticked"
    assert not view.dirty, "only the countdown was drawn again, not the whole screen"


def test_a_resize_or_an_uncovered_window_draws(app: Any) -> None:
    view = settle(app, "title")
    app.window.dispatch_event("on_expose")
    assert draws_over(app) == 1
    width, height = app.window.get_size()
    app.window.dispatch_event("on_resize", width, height)
    assert view.dirty
    assert draws_over(app) == 1
