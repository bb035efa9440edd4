"""The chat pane of the room and log screens, as table tools have it: channel tabs (room,
negotiation, whisper), each line with its time and speaker, dice rolls in the dice-bot form,
scrollback (wheel, PageUp/PageDown/Home/End) with a "new messages below" mark, and an input
line that gets a refused line's text back."""

from __future__ import annotations

import unicodedata
from typing import Any

from arcade import key as keys

from .. import theme as th
from ..chatbook import line_text, seat_class, seat_label, stamp
from ..gfx import Scene, TextField
from .base import BaseView

TABS = ("whisper", "negotiation", "room")  # right to left
PAGE = 5  # lines per PageUp / PageDown
SCROLL = "chat"  # the view's scroll entry: how many lines back from the newest


def chat_box(view: BaseView, s: Scene, left: float, bottom: float, width: float, height: float,
             tabs: tuple[str, ...] = TABS) -> None:
    """Chat lines of the channel shown, the tabs of the channels and the input line."""
    tr, m, ui = view.tr, view.model, view.app.ui
    view.panel(s, left, bottom, width, height, tr("chat.title"))
    channel = shown_channel(ui, tabs)
    top = bottom + height - 50
    if len(tabs) > 1:
        x = left + width - 10
        for tab in tabs:
            x -= 100
            label = tr("chatlog.whisper") if tab == "whisper" else tr(f"chat.{tab}")
            view.button(s, f"chat:{tab}", x, bottom + height - 34, 96, 28, label,
                        lambda c=tab: setattr(ui, "chat_channel", c),
                        style="selected" if channel == tab else "ghost", size=12)
    if channel == "whisper":
        top -= 36
        whisper_picker(view, s, left + 14, top + 4, width - 28)
    lines(view, s, channel, left, bottom + 62, width, top)
    field = view.fields.setdefault("chat", TextField("", max_len=300))
    if m.chat.draft is not None:  # a refused line: its text comes back to be sent again
        if not field.value:
            field.value = m.chat.draft
        m.chat.draft = None
    field.placeholder = tr("chat.hint")
    view.field(s, "chat", left + 14, bottom + 12, width - 28 - 96, 38, 13)
    view.button(s, "chat:send", left + width - 14 - 88, bottom + 12, 88, 38, tr("chat.send"),
                lambda: send_chat(view, channel), size=13)


def shown_channel(ui: Any, tabs: tuple[str, ...]) -> str:
    """The channel a pane with these tabs shows (and its input speaks in)."""
    return ui.chat_channel if ui.chat_channel in tabs else "room"


def lines(view: BaseView, s: Scene, channel: str, left: float, bottom: float, width: float,
          top: float) -> None:
    """The channel's lines, newest at the bottom, `view.scroll['chat']` lines back; a line
    arriving while scrolled back keeps the view still and is counted as new below."""
    tr, m = view.tr, view.model
    held = m.chat[channel]
    total = m.chat.total.get(channel, 0)
    back = view.scroll.get(SCROLL, 0)
    seen = view.scroll.get(f"{SCROLL}:{channel}:seen", total)
    fresh = view.scroll.get(f"{SCROLL}:{channel}:new", 0)
    if back and total > seen:
        back += total - seen
        fresh += total - seen
    back = min(back, max(0, len(held) - 1))
    if not back:
        fresh = 0
    view.scroll.update({SCROLL: back, f"{SCROLL}:{channel}:seen": total,
                        f"{SCROLL}:{channel}:new": fresh})
    view.add_region(f"scroll:{SCROLL}", left, bottom, width, top - bottom)
    if not held:
        key = "chat.no_negotiation" if channel == "negotiation" and not negotiating(m) \
            else "chat.empty"
        s.text(tr(key), left + width / 2, (bottom + top) / 2, 13, th.MUTED, anchor_x="center")
        return
    y = bottom + (26 if back else 0)
    for line in reversed(held[:len(held) - back]):
        if y > top - 18:
            break
        y = draw_line(view, s, line, left + 18, y, width - 36)
    if back:
        label = tr("chatlog.new_below", n=fresh) if fresh else tr("chatlog.below", n=back)
        view.button(s, "chat:end", left + 14, bottom, width - 28, 22, label,
                    lambda: view.scroll.update({SCROLL: 0}),
                    style="primary" if fresh else "ghost", size=11)


def draw_line(view: BaseView, s: Scene, line: dict[str, Any], x: float, y: float,
              width: float) -> float:
    """One line: its text (wrapped) under its time and speaker; returns the y above it."""
    tr, m = view.tr, view.model
    if line.get("system"):
        t = s.text(line.get("text", ""), x, y, 12, th.VERMILION, width=int(width),
                   anchor_y="bottom")
        return y + t.content_height + 6
    colour = th.GOLD if line.get("roll") else th.TEXT
    t = s.text(line_text(line, tr), x, y, 13, colour, width=int(width), anchor_y="bottom")
    y += t.content_height + 1
    name = line.get("name", "")
    if line.get("channel") == "whisper":
        name = tr("chatlog.whisper_head", name=name, who=seat_label(m, line.get("to")))
    seat = line.get("seat", -1)
    cls = seat_class(m, seat)
    head = th.shade(th.class_colour(cls), 1.3) if cls else th.MUTED
    s.text(stamp(line), x, y, 11, th.FAINT, anchor_y="bottom")
    s.text(name, x + 44, y, 11, head, anchor_y="bottom", max_width=width - 44)
    return y + 28


def whisper_seats(m: Any) -> list[int]:
    """The seats this player may whisper to: the other seats players hold."""
    if m.seat is None:
        return []
    return [row["seat"] for row in (m.room or {}).get("seat_list", [])
            if row.get("kind") == "human" and row["seat"] != m.seat]


def whisper_target(m: Any, word: str) -> int | None:
    """The seat `/w word` means: a class (its id, name or short name) or a player's name."""
    def norm(text: str) -> str:
        return unicodedata.normalize("NFKC", text).casefold()

    wanted = norm(word)
    for seat in whisper_seats(m):
        cls = seat_class(m, seat) or ""
        names = (cls, m.tr.cls(cls), m.tr.short(cls), m.player_name(seat))
        if wanted in {norm(n) for n in names if n}:
            return seat
    return None


def whisper_picker(view: BaseView, s: Scene, x: float, y: float, width: float) -> None:
    """The seat the whisper channel speaks to, cycled by a click."""
    ui, m = view.app.ui, view.model
    seats = whisper_seats(m)
    if ui.whisper_to not in seats:
        ui.whisper_to = seats[0] if seats else None
    if ui.whisper_to is None:
        view.button(s, "chat:whisper_to", x, y, width, 28, view.tr("chatlog.whisper_nobody"),
                    None, enabled=False, size=12)
        return

    def cycle() -> None:
        ui.whisper_to = seats[(seats.index(ui.whisper_to) + 1) % len(seats)]

    view.button(s, "chat:whisper_to", x, y, width, 28,
                view.tr("chatlog.whisper_to", who=seat_label(m, ui.whisper_to)), cycle,
                style="ghost", size=12)


def scroll_key(view: BaseView, symbol: int) -> bool:
    """PageUp/PageDown/Home/End move through the chat; True when the key was one of them."""
    back = view.scroll.get(SCROLL, 0)
    moves = {keys.PAGEUP: back + PAGE, keys.PAGEDOWN: max(0, back - PAGE),
             keys.HOME: 10**6, keys.END: 0}
    if symbol not in moves:
        return False
    view.scroll[SCROLL] = moves[symbol]  # the pane clamps it to its lines
    view.invalidate()
    return True


def negotiating(m: Any) -> bool:
    view = m.view
    if not view or not view.get("parley"):
        return False
    p = view["parley"]
    return p["kind"] == "negotiate" and m.me in (p["opener"], p["target"])


def send_chat(view: BaseView, channel: str) -> None:
    """Send the input line (`/w class text` whispers); it is kept until the server could
    refuse it, and a refused line's text comes back to the input."""
    field = view.fields["chat"]
    text = field.value.strip()
    m, ui, session = view.model, view.app.ui, view.app.session
    if not text or session is None:
        return
    to = ui.whisper_to if channel == "whisper" else None
    words = text.split(None, 2)
    if words[0].lower() == "/w" and len(words) > 1:
        to = whisper_target(m, words[1])
        if to is None:
            m.notify(view.tr("chatlog.whisper_unknown", who=words[1]))
            return
        ui.whisper_to, channel = to, "whisper"
        if len(words) == 2:  # `/w saber`: the whisper channel now speaks to Saber
            ui.chat_channel, field.value = "whisper", ""
            return
        text = words[2]
    if channel == "whisper" and to is None:
        m.notify(view.tr("chatlog.whisper_who"))
        return
    if channel == "negotiation" and not negotiating(m):
        m.notify(view.tr("error.no_negotiation"))
        return
    ref = m.chat.sending(text[:300], channel)
    extra = {"to": to} if channel == "whisper" else {}
    if session.send("chat", text=text[:300], channel=channel, ref=ref, **extra):
        field.value = ""
