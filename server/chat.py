"""A room's chat: who may read each line, the dice the chat rolls, and the kept history.

Every line is kept with the seats that may read it (None: everyone in the room, spectators
too), so a member joining late gets exactly the lines it could have seen live. A secret roll
is read in full by its roller only; the others of its channel read that a secret roll was
made. Chat dice come from the system's generator, never from the game's seeded dice: they
cannot move the game or be replayed into it. The last MAX_LINES lines are kept, in the store.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import asdict, dataclass
from typing import Any

from ..shared.chatdice import DiceError, parse, roll
from ..shared.protocol import ProtocolError, message
from .roomstore import RoomStore

MAX_LINES = 2000
REVEAL = "/reveal"


@dataclass
class Line:
    """One chat line as kept: the message, its readers, and for a secret roll its roller and
    what the other readers get."""

    id: int
    msg: dict[str, Any]
    readers: list[int] | None  # None: every member of the room
    events: int  # how many game events had happened (the dice tab's order)
    secret_of: int | None = None
    hidden: dict[str, Any] | None = None
    revealed: bool = False

    def seen_by(self, seat: int | None) -> dict[str, Any] | None:
        """The form of this line `seat` reads (None for a spectator), or None."""
        if self.readers is not None and seat not in self.readers:
            return None
        if self.secret_of is not None and seat != self.secret_of:
            return self.hidden
        return self.msg


class ChatLog:
    def __init__(self, room_id: int, store: RoomStore, rng: random.Random | None = None) -> None:
        self.room_id = room_id
        self.store = store
        self.rng = rng or random.SystemRandom()
        self.lines: deque[Line] = deque(maxlen=MAX_LINES)
        self.next_id = 1

    def restore(self, rows: list[dict[str, Any]]) -> None:
        for row in rows:
            self.lines.append(Line(**row))
        if self.lines:
            self.next_id = self.lines[-1].id + 1

    def say(self, seat: int | None, name: str, text: str, channel: str,
            readers: list[int] | None, at: int, events: int, to: int | None = None) -> Line:
        """A line said by `seat` (None: a spectator): a dice command is rolled here."""
        try:
            command = parse(text)
        except DiceError as err:
            raise ProtocolError("bad_dice", f"text: {err}", "text") from err
        fields: dict[str, Any] = {"seat": -1 if seat is None else seat, "name": name,
                                  "channel": channel, "text": text, "at": at}
        if to is not None:
            fields["to"] = to
        if command is None:
            return self._keep(fields, readers, events)
        if command.secret and seat is None:
            raise ProtocolError("spectator", "spectators roll in the open")
        fields["roll"] = roll(command, self.rng)
        if not command.secret:
            return self._keep(fields, readers, events)
        hidden = {**fields, "text": "", "roll": {"secret": True}}
        return self._keep(fields, readers, events, seat, hidden)

    def reveal(self, seat: int | None, at: int, events: int) -> Line:
        """Show the seat's last secret roll (not yet revealed) to the readers of its channel."""
        for line in reversed(self.lines):
            if line.secret_of == seat and seat is not None and not line.revealed:
                line.revealed = True
                self._store(line)
                shown = {k: v for k, v in line.msg.items() if k not in ("t", "id")}
                shown.update(at=at, roll={**line.msg["roll"], "revealed": True})
                return self._keep(shown, line.readers, events)
        raise ProtocolError("no_secret_roll", "you made no secret roll to reveal")

    def _keep(self, fields: dict[str, Any], readers: list[int] | None, events: int,
              secret_of: int | None = None, hidden: dict[str, Any] | None = None) -> Line:
        line_id, self.next_id = self.next_id, self.next_id + 1
        msg = message("chat_message", id=line_id, **fields)
        if hidden is not None:
            hidden = message("chat_message", id=line_id, **hidden)
        line = Line(line_id, msg, readers, events, secret_of, hidden)
        self.lines.append(line)
        self._store(line, MAX_LINES)
        return line

    def _store(self, line: Line, keep: int | None = None) -> None:
        self.store.save_chat(self.room_id, line.id, asdict(line), keep)

    def seen_by(self, seat: int | None) -> list[tuple[int, dict[str, Any]]]:
        """(events before it, message) for every kept line `seat` may read, oldest first."""
        out = []
        for line in self.lines:
            seen = line.seen_by(seat)
            if seen is not None:
                out.append((line.events, seen))
        return out


def is_reveal(text: str) -> bool:
    return text.strip().lower() == REVEAL
