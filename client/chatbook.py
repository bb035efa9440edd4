"""The chat as the client holds it: the lines of each channel, the lines the server refused
(their text goes back to the input box, so nothing typed is lost), and each line's text in
the player's language (a dice command as the dice bot prints it)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ..shared.chatdice import roll_line
from .i18n import Tr

CHANNELS = ("room", "negotiation", "whisper")
MAX_LINES = 500  # per channel
MAX_PENDING = 20  # lines sent and not yet answered that a refusal could give back
FIRST_REF = 1 << 30  # chat refs never meet the refs of actions, which count from 1


@dataclass
class Pending:
    text: str
    channel: str


@dataclass
class ChatBook:
    lines: dict[str, list[dict[str, Any]]] = field(
        default_factory=lambda: {c: [] for c in CHANNELS})
    pending: dict[int, Pending] = field(default_factory=dict)
    total: dict[str, int] = field(default_factory=dict)  # lines ever added, per channel
    draft: str | None = None  # a refused line's text, for the input box to take back
    next_ref: int = FIRST_REF

    def __getitem__(self, channel: str) -> list[dict[str, Any]]:
        return self.lines[channel]

    def add(self, msg: dict[str, Any], after: int) -> None:
        """A line from the server; `after` is how many game events came before it."""
        line = {**msg, "after": msg.get("after", after)}
        line.setdefault("at", int(time.time()))
        channel = line.get("channel", "room")
        lines = self.lines.setdefault(channel, [])
        lines.append(line)
        self.total[channel] = self.total.get(channel, 0) + 1
        del lines[:-MAX_LINES]

    def load(self, items: list[dict[str, Any]], first: bool) -> None:
        """A `history` message's chat: the first one replaces what was held."""
        if first:
            self.clear()
        for item in items:
            self.add(item, item.get("after", 0))

    def clear(self) -> None:
        for lines in self.lines.values():
            lines.clear()
        self.pending.clear()

    def sending(self, text: str, channel: str) -> int:
        """The ref of a line about to be sent, remembered until the server answers."""
        self.next_ref += 1
        self.pending[self.next_ref] = Pending(text, channel)
        for ref in list(self.pending)[:-MAX_PENDING]:
            del self.pending[ref]
        return self.next_ref

    def refused(self, ref: int | None, reason: str) -> bool:
        """The server refused line `ref`: its text becomes the draft again and the reason is
        written in its channel. False when `ref` is not a chat line's."""
        pending = self.pending.pop(ref, None) if ref is not None else None
        if pending is None:
            return False
        self.draft = pending.text
        self.add({"system": True, "text": reason, "channel": pending.channel, "seat": -1,
                  "name": ""}, 0)
        return True

    def rolls(self) -> list[dict[str, Any]]:
        """Every dice line of every channel, in the order of the room (its `id`)."""
        out = [line for lines in self.lines.values() for line in lines if line.get("roll")]
        return sorted(out, key=lambda line: line.get("id", 0))


def line_text(line: dict[str, Any], tr: Tr) -> str:
    """What a chat line says in this language: a roll as the dice bot writes it, then the
    comment typed after the command."""
    roll = line.get("roll")
    if not roll:
        return line.get("text", "")
    if "terms" not in roll:
        return tr("chatlog.secret_roll")
    text = roll_line(roll, tr("chatlog.success"), tr("chatlog.failure"), tr.lang)
    words = line.get("text", "").split(None, 1)
    if len(words) > 1:
        text += f"  {words[1]}"
    if roll.get("secret"):
        text = tr("chatlog.revealed" if roll.get("revealed") else "chatlog.secret_mine") + text
    return text


def stamp(line: dict[str, Any]) -> str:
    """HH:MM in local time."""
    return time.strftime("%H:%M", time.localtime(line.get("at", 0)))


def seat_class(m: Any, seat: int | None) -> str | None:
    """The class of a seat, from the room (`m` is the ClientModel)."""
    for row in (m.room or {}).get("seat_list", []):
        if row["seat"] == seat:
            return row.get("cls")
    return None


def seat_label(m: Any, seat: int | None) -> str:
    """A seat as a whisper names it: its class and its player."""
    cls = seat_class(m, seat)
    return f"{m.tr.cls(cls)} {m.player_name(seat)}".strip() if cls else "—"
