"""What one member was last shown, so that the next view goes as a difference.

A member whose hello asked for "updates" gets one full `state`, then `update`s: the changes
(`shared/updates.diff`) that make the `view` and `legal` it holds the ones it would be sent now
(docs/protocol.md, Features). The view is still made whole, from the state, for every member
after every change: a difference is cut from two full views of one seat, never kept as a diff
of the game, so it can hold nothing the full view would not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from operator import attrgetter
from typing import Any

from ..shared.engine import Action, GameState
from ..shared.engine.sharing import Shared
from ..shared.engine.view import view_for
from ..shared.protocol import message
from ..shared.updates import diff

_WIRE: dict[tuple[type, Any], dict[str, Any]] = {}
_WIRE_MOST = 1 << 15
_VALUES: dict[type, Callable[[Action], Any]] = {}


def wire_form(action: Action) -> dict[str, Any]:
    """An action's wire form, kept: every state message lists a prompted seat's legal actions
    (74 for a camp at the start of a seven-camp game), the same actions state after state, and
    building their dicts was a tenth of the server's CPU. Kept by the action's class and field
    values, which hash and compare in C (the dataclass's own hash and equality are Python, and
    made an `lru_cache` lookup cost twice this). The dicts are shared: read-only; an unchanged
    legal list is then a list of the same dicts, which the difference skips at once."""
    cls = type(action)
    values = _VALUES.get(cls)
    if values is None:
        values = _VALUES[cls] = attrgetter(*(f.name for f in fields(cls)))
    key = (cls, values(action))
    wire = _WIRE.get(key)
    if wire is None:
        if len(_WIRE) >= _WIRE_MOST:
            _WIRE.clear()
        wire = _WIRE[key] = action.to_dict()
    return wire


class ViewFeed:
    """One seat's view and legal actions as last sent. The spectators of a room share one
    feed: they see the same, so each change is viewed once for all of them (`message` of the
    same state again gives the same message)."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.held: dict[str, Any] | None = None  # {"view", "legal"} as the member holds them
        self.state: GameState | None = None
        self.sent: dict[str, Any] = {}  # the message that brought the feed to `state`

    def message(self, state: GameState, shared: Shared, legal: list[Action],
                deadlines: dict[str, int]) -> dict[str, Any]:
        """The `state` (the first time) or `update` that brings the member to `state` (whose
        views share `shared`)."""
        if state is not self.state:
            self.sent = self._next(view_for(state, self.seat, shared), legal, deadlines)
            self.state = state
        return self.sent

    def again(self, legal: list[Action], deadlines: dict[str, int]) -> dict[str, Any]:
        """An update from the state the member is at to the same state, with its legal actions
        and clocks now (a pause or a resume changes them, not the state)."""
        assert self.held is not None
        return self._next(self.held["view"], legal, deadlines)

    def full(self, deadlines: dict[str, int]) -> dict[str, Any]:
        """The whole `state` the feed is at, for a member joining it."""
        assert self.held is not None
        return message("state", **self.held, state_id=self.held["view"]["version"],
                       deadlines=deadlines)

    def _next(self, view: dict[str, Any], legal: list[Action],
              deadlines: dict[str, int]) -> dict[str, Any]:
        old = self.held
        self.held = {"view": view, "legal": [wire_form(a) for a in legal]}
        if old is None:
            return self.full(deadlines)
        return message("update", base=old["view"]["version"], state_id=view["version"],
                       patch=diff(old, self.held), deadlines=deadlines)
