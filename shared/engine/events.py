"""Events: what happened, named in the past tense, with who may see it.

An event is public unless `private` names the seats that see its full `data`; every other seat
(and a spectator) sees `public` instead, or nothing when `public` is None. `view_event` is the
only way an event leaves the engine.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Event(NamedTuple):
    type: str
    data: dict[str, Any]
    private: frozenset[int] | None = None
    public: dict[str, Any] | None = None


def view_event(event: Event, seat: int | None) -> dict[str, Any] | None:
    """The event as `seat` may see it (None = spectator), or None if it sees nothing."""
    if event.private is None or (seat is not None and seat in event.private):
        return {"type": event.type, **event.data}
    if event.public is None:
        return None
    return {"type": event.type, **event.public}
