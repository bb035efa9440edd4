"""Playing the client through its own input handlers: find the clicks that send an action.

Used by the tour, the end-to-end test and the bench. A policy picks one of the legal actions
(the engine's bots, which see only this seat's view); `click_action` then presses the buttons a
player would press (a map square, a verb, an option, a page arrow, a confirmation), so every
click goes through `on_mouse_press` and becomes an `act` message like a human's.
"""

from __future__ import annotations

import time
from typing import Any

from ..shared.bots import make_bot
from ..shared.engine import from_dict
from .model import verb_of


def _sent(app: Any, before: int) -> bool:
    return app.model.sent_state_id != -1 and app.session.ref != before


def click_action(app: Any, action: dict[str, Any]) -> bool:
    """Send `action` by clicking through the current screen; True once it was sent."""
    view = app.current
    model = app.model
    before = app.session.ref
    if view.dirty or model.revision != view.seen_revision:
        view.rebuild()
    if action["type"] == "Move" and view.region_by_id(f"cell:{action['to']}") is not None:
        region = view.region_by_id(f"cell:{action['to']}")
        if region.on_click is not None:
            view.click(region.id)
            if _sent(app, before):
                return True
    verb = verb_of(action)
    if app.ui.verb != verb:
        app.ui.card = None
        if not view.click(f"verb:{verb}"):
            return False
        _confirm(app, action)
        if _sent(app, before):
            return True
    options = view.current_options()
    index = next((i for i, o in enumerate(options) if o.action == action), None)
    if index is None:  # behind a heading (a Command Spell's squares): open it first
        spell = action.get("spell", "")
        head = next((i for i, o in enumerate(options)
                     if o.action is None and not o.reason and o.group == spell), None)
        if head is None or not _click_option(view, head, len(options)):
            return False
        options = view.current_options()
        index = next((i for i, o in enumerate(options) if o.action == action), None)
        if index is None:
            return False
    if not _click_option(view, index, len(options)):
        return False
    _confirm(app, action)
    return _sent(app, before) or model.sent_state_id != -1


def _confirm(app: Any, action: dict[str, Any]) -> None:
    """A Command Spell or a Noble Phantasm asks first: confirm it as a player would."""
    if app.ui.extra.get("confirm") == action:
        app.current.click("confirm_ok")


def _click_option(view: Any, index: int, count: int) -> bool:
    """Page forward until option `index` is on screen, then click it."""
    for _ in range(count + 1):
        view.rebuild()
        if view.region_by_id(f"opt:{index}") is not None:
            view.click(f"opt:{index}")
            return True
        if not view.click("page:next"):
            return False
    return False


class AutoPlayer:
    """Answers this seat's prompts with one of the engine's bots, clicking like a player.

    `prefer` is an optional hook: given the legal actions, it may return one to play instead
    (the tour uses it to investigate early so the dossier fills)."""

    def __init__(self, app: Any, level: str = "normal", seed: int = 7, prefer: Any = None,
                 min_interval: float = 0.07) -> None:
        self.app = app
        self.min_interval = min_interval  # the server allows 20 messages a second
        self.last = 0.0
        self.bot = make_bot(level, seed)
        self.prefer = prefer
        self.clicked = 0
        self.failed = 0
        self.failures: list[tuple[str, str, dict[str, Any]]] = []  # (screen, prompt, action)

    def step(self) -> bool:
        """If the seat is prompted and nothing is on its way, choose and click; True if sent."""
        model = self.app.model
        legal = model.legal
        if not legal or model.sent_state_id != -1:
            return False
        now = time.monotonic()
        if now - self.last < self.min_interval:
            return False
        self.last = now
        choice = self.prefer(model, legal) if self.prefer else None
        if choice is None:
            action = self.bot.choose(model.view if self.bot.needs_view else None,
                                     [from_dict(a) for a in legal])
            choice = action.to_dict()
        if click_action(self.app, choice):
            self.clicked += 1
            return True
        self.failed += 1
        self.failures.append((getattr(self.app.current, "name", ""), model.prompt_kind, choice))
        # a button we could not find is a client bug: still keep the game going
        return self.app.session.act(choice)
