"""What a member joining (or coming back, or watching) is sent of the game so far: its events,
their log lines and the chat lines it may read, cut into `history` messages below MAX_FRAME."""

from __future__ import annotations

from typing import Any

import msgpack

from ..shared.engine import Event, events_for
from ..shared.engine.text import event_line
from ..shared.protocol import MAX_FRAME, message

BUDGET = MAX_FRAME - 4096  # room for the message's own keys


def seen_history(events: list[Event], seat: int | None
                 ) -> tuple[list[dict[str, Any]], list[int]]:
    """The events `seat` sees (as `events_for` gives them live) and, for each place in the
    whole list, how many of them came before it (a chat line's place in the seat's log)."""
    seen: list[dict[str, Any]] = []
    before = []
    for event in events:
        before.append(len(seen))
        seen.extend(events_for([event], seat))
    before.append(len(seen))
    return seen, before


def history_messages(events: list[dict[str, Any]], chat: list[dict[str, Any]]
                     ) -> list[dict[str, Any]]:
    """`history` messages carrying the events (with their dice-bot lines) and the chat lines,
    in order; always at least one, the first marked `first`."""
    items = [("events", e) for e in events] + [("chat", c) for c in chat]
    out: list[dict[str, Any]] = []
    part: dict[str, list[Any]] = {"events": [], "log": [], "chat": []}
    size = 0
    for key, item in items:
        line = event_line(item, "ja") if key == "events" else None
        cost = len(msgpack.packb(item, use_bin_type=True)) + len((line or "").encode()) + 8
        if size + cost > BUDGET and size:
            out.append(message("history", **part, first=not out))
            part, size = {"events": [], "log": [], "chat": []}, 0
        part[key].append(item)
        if line is not None:
            part["log"].append(line)
        size += cost
    out.append(message("history", **part, first=not out))
    return out
