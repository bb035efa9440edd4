"""What one member was last shown, so that the next view goes as a difference.

A member whose hello asked for "updates" gets one full `state`, then `update`s: the view's
top-level parts that changed, the camps whose view changed, the entries of each module's state
that changed, the legal actions only when they changed (docs/protocol.md, Features). The view
is still made whole, from the state, for every member after every change: a difference is cut
from two full views, never kept as a diff of the game, so it can hold nothing the full view
would not. What is the same in every seat's view (`public_view`) is made and compared once per
change for the whole room (`PublicPart`), and camps unchanged since a member's last view are
not viewed again (`CampViews`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from operator import attrgetter
from typing import Any

from ..shared.engine import Action, GameState
from ..shared.engine.view import CampViewMemo, CampViews, public_view, seat_view
from ..shared.protocol import message
from ..shared.updates import legal_refs, map_changes, module_changes, module_entries

_WIRE: dict[tuple[type, Any], dict[str, Any]] = {}
_WIRE_MOST = 1 << 15
_VALUES: dict[type, Callable[[Action], Any]] = {}


def wire_form(action: Action) -> dict[str, Any]:
    """An action's wire form, kept: every state message lists a prompted seat's legal actions
    (74 for a camp at the start of a seven-camp game), the same actions state after state, and
    building their dicts was a tenth of the server's CPU. Kept by the action's class and field
    values, which hash and compare in C (the dataclass's own hash and equality are Python, and
    made an `lru_cache` lookup cost twice this). The dicts are shared: read-only."""
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


class PublicPart:
    """The room's `public_view` of its latest state, and what changed in it since the one
    before (made once per state, whoever asks first)."""

    def __init__(self) -> None:
        self.state: GameState | None = None
        self.part: dict[str, Any] = {}
        self.base = -1  # the version `changed` is counted from (-1: none)
        self.changed: dict[str, Any] = {}
        self.entries: dict[str, dict[str, Any]] = {}  # of the changed maps: what changed
        self.camps = CampViewMemo()  # the camp views its viewers share

    def of(self, state: GameState) -> PublicPart:
        if state is not self.state:
            part = public_view(state)
            if self.state is not None:
                self.base = self.state.version
                self.changed = {k: v for k, v in part.items() if v != self.part[k]}
                self.entries = map_changes(self.changed, self.part)
            self.state, self.part = state, part
        return self


class ViewFeed:
    """One seat's views as last sent. The spectators of a room share one feed: they see the
    same, so each change is viewed once for all of them (`message` of the same state again
    gives the same message)."""

    def __init__(self, seat: int | None, compact: bool = False) -> None:
        self.seat = seat
        self.compact = compact  # the "compact" feature: `legal_ref`, `entries`, `module_entries`
        self.camps = CampViews(seat)
        self.view: dict[str, Any] | None = None
        self.legal: list[Action] = []
        self.wires: list[dict[str, Any]] = []  # `legal` as the member holds it (wire forms)
        self.state: GameState | None = None
        self.sent: dict[str, Any] = {}  # the message that brought the feed to `state`

    def message(self, state: GameState, public: PublicPart, legal: list[Action],
                deadlines: dict[str, int]) -> dict[str, Any]:
        """The `state` (the first time) or `update` that brings the member to `state`; the
        legal actions are put in their wire form only when they changed (most declarations
        leave the other seats' as they were)."""
        if state is not self.state:
            self.sent = self._next(state, public, legal, deadlines)
            self.state = state
        return self.sent

    def again(self, legal: list[Action], deadlines: dict[str, int]) -> dict[str, Any]:
        """An update from the state the member is at to the same state, with its legal actions
        and clocks now (a pause or a resume changes them, not the state)."""
        assert self.state is not None
        self.legal = legal
        self.wires = [wire_form(a) for a in legal]
        return message("update", base=self.state.version, state_id=self.state.version,
                       view={}, camps={}, legal=self.wires, deadlines=deadlines)

    def full(self, deadlines: dict[str, int]) -> dict[str, Any]:
        """The whole `state` the feed is at, for a member joining it."""
        assert self.view is not None and self.state is not None
        return message("state", view=self.view, legal=self.wires,
                       state_id=self.state.version, deadlines=deadlines)

    def _next(self, state: GameState, public: PublicPart, legal: list[Action],
              deadlines: dict[str, int]) -> dict[str, Any]:
        changed = self.camps.update(state, public.camps)
        own = seat_view(state, self.seat, camps=list(self.camps.views))
        view = {**public.part, **own}
        old, self.view = self.view, view
        old_legal, self.legal = self.legal, legal
        if old is None:
            self.wires = [wire_form(a) for a in legal]
            return message("state", view=view, legal=self.wires, state_id=state.version,
                           deadlines=deadlines)
        entries: dict[str, dict[str, Any]] = {}
        if old["version"] == public.base:  # the member saw the room's state before this one
            if self.compact:
                entries = public.entries
            parts = {k: v for k, v in public.changed.items() if k not in entries}
        else:
            parts = {k: v for k, v in public.part.items() if v != old[k]}
        parts.update((k, v) for k, v in own.items()
                     if k not in ("camps", "modules") and v != old[k])
        modules = module_changes(own["modules"], old["modules"])
        if modules is None:
            parts["modules"] = own["modules"]
        nested: dict[str, dict[str, Any]] = {}
        if modules and self.compact:
            modules, nested = module_entries(modules, old["modules"])
        new_camps, old_camps = view["camps"], old["camps"]
        return message(
            "update", base=old["version"], state_id=state.version, view=parts,
            # an unchanged camp's view is the same object (`CampViewMemo`): no deep comparison
            camps={str(i): new_camps[i] for i in changed if new_camps[i] is not old_camps[i]},
            deadlines=deadlines, **({"modules": modules} if modules else {}),
            **({"entries": entries} if entries else {}),
            **({"module_entries": nested} if nested else {}),
            **({} if legal == old_legal else self._legal_part(legal)))

    def _legal_part(self, legal: list[Action]) -> dict[str, Any]:
        """The changed legal actions: whole, or (`compact`) naming the ones the member holds
        already by their place in its list (most of a battle prompt's offers outlive it)."""
        wires, held = [wire_form(a) for a in legal], self.wires
        self.wires = wires
        return {"legal_ref": legal_refs(wires, held)} if self.compact else {"legal": wires}
