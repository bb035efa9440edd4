"""The client's view-model: what to draw, computed from the last messages of the server.

Pure Python, no OpenGL and no network: `ClientModel.handle(msg, now)` takes each server message;
the other methods answer what a screen needs (which actions are enabled, their labels and hover
texts, the hand, the map cells, the battle, the dossier, the log). Nothing here decides
legality: the `legal` list of the last `state` message is the only source of enabled actions,
and a click only ever becomes an `act` message carrying one of those action dicts.
"""

from __future__ import annotations

import time
from typing import Any

from ..shared.protocol import LEFT_PAUSED, text_fault
from .chatbook import ChatBook
from .i18n import Tr
from .modules import ClientPart, parts_on
from .presenters.actions import Actions
from .presenters.battle_view import BattlePresenter
from .presenters.board import Board
from .presenters.dossier_view import Dossier
from .presenters.log_view import LogPresenter
from .viewdata import (
    LEFT_TEXTS,
    MAX_EVENTS,
    Cell,
    Notice,
    Option,
    Question,
    Verb,
    card_of,
    classes_in,
    error_key,
    event_kind,
    verb_of,
)


class ClientModel(Actions, Board, BattlePresenter, Dossier, LogPresenter):
    """Everything the client knows, rebuilt from server messages only."""

    def __init__(self, lang: str = "en", tr: Tr | None = None) -> None:
        self.tr = tr or Tr(lang)
        self.server_version: int | None = None
        self.server_name = ""
        self.rooms: list[dict[str, Any]] = []
        self.rooms_total = 0
        self.room: dict[str, Any] | None = None
        self.replay: dict[str, Any] | None = None  # the server's, once the game is over
        self.room_id: int | None = None
        self.seat: int | None = None
        self.token = ""
        self.spectator = False
        self.state: dict[str, Any] | None = None
        self.state_at = 0.0
        self.events: list[dict[str, Any]] = []
        self.chat = ChatBook()
        self.notices: list[Notice] = []
        self.pinned: Notice | None = None  # a sticky notice not closed yet
        self.warning: dict[str, Any] | None = None
        self.connection = "offline"  # offline | connecting | connected | reconnecting
        self.attempt = 0
        self.host = ""
        self.motd = ""  # the server operator's message of the day, from `welcome`
        self.left_reason = ""
        self.sent_state_id = -1  # the state an action was sent on (buttons wait for the next)
        self.revision = 0  # bumped on every change that a screen must redraw for

    # --- messages ------------------------------------------------------------------------------
    def handle(self, msg: dict[str, Any], now: float | None = None) -> str:
        """Take one server message; returns its name (screens redraw on any)."""
        now = time.monotonic() if now is None else now
        kind = msg.get("t", "")
        handler = getattr(self, "_on_" + kind, None)
        if handler is not None:
            handler(msg, now)
        self.revision += 1
        return kind

    def _on_welcome(self, msg: dict[str, Any], now: float) -> None:
        self.server_version = msg.get("version")
        self.server_name = msg.get("server", "")
        self.motd = msg.get("motd", "")
        self.connection = "connected"
        self.attempt = 0

    def _on_rooms(self, msg: dict[str, Any], now: float) -> None:
        self.rooms = list(msg.get("rooms", []))
        self.rooms_total = msg.get("total", len(self.rooms))

    def _on_joined(self, msg: dict[str, Any], now: float) -> None:
        self.room_id = msg["room"]
        self.seat = msg["seat"] if msg["seat"] >= 0 else None
        self.spectator = bool(msg.get("spectator"))
        if msg.get("token"):
            self.token = msg["token"]
        self.left_reason = ""

    def _on_replay(self, msg: dict[str, Any], now: float) -> None:
        self.replay = msg["replay"]

    def _on_room(self, msg: dict[str, Any], now: float) -> None:
        self.room = msg["room"]

    def _on_state(self, msg: dict[str, Any], now: float) -> None:
        self.state = msg
        self.state_at = now
        if self.sent_state_id != -1 and msg["state_id"] != self.sent_state_id:
            self.sent_state_id = -1

    def _keep_events(self, events: list[dict[str, Any]]) -> None:
        """Events kept, the oldest past MAX_EVENTS gone."""
        self.events.extend(events)
        del self.events[:-MAX_EVENTS]

    def _on_events(self, msg: dict[str, Any], now: float) -> None:
        self._keep_events(msg.get("events", []))
        for e in msg.get("events", []):
            text = self.notice_text(e)
            if text:
                self.notify(text, "info", now)

    def _on_timed_out(self, msg: dict[str, Any], now: float) -> None:
        if msg.get("seat") == self.me and self.view is not None:
            self.notify(self.tr("notice.timed_out", action=self.option(msg["action"]).label),
                        "info", now)

    def notice_text(self, e: dict[str, Any]) -> str:
        """The results a player must see on the screen it is on, not only in the log: its own
        investigation's, and a Command Spell's effect (anyone's: the table sees it cast)."""
        kind = e.get("type")
        if kind == "Investigated" and e.get("seat") == self.me:
            return self.event_text(e)
        if kind == "CommandSpellUsed":
            spell = e.get("spell", "")
            return self.tr("notice.command_spell", who=self.who(e.get("seat")),
                           spell=self.tr.spell(spell), effect=self.tr.spell_text(spell))
        return next((text for part in self.parts() if (text := part.notice(self, e))), "")

    def _on_chat_message(self, msg: dict[str, Any], now: float) -> None:
        self.chat.add({k: v for k, v in msg.items() if k != "t"}, len(self.events))

    def _on_history(self, msg: dict[str, Any], now: float) -> None:
        """The game so far (after joined): the first part replaces the log and the chat."""
        if msg.get("first"):
            self.events.clear()
        self._keep_events(msg.get("events", []))
        self.chat.load(msg.get("chat", []), bool(msg.get("first")))

    def _on_warning(self, msg: dict[str, Any], now: float) -> None:
        self.warning = {**msg, "at": now}
        if msg.get("seat") == self.me and self.state is not None:
            self.notify(self.tr("top.countdown", s=msg.get("seconds")), "info", now)

    def _on_ack(self, msg: dict[str, Any], now: float) -> None:
        pass

    def _on_seat_event(self, msg: dict[str, Any], now: float) -> None:
        """A player dropped, a bot took over, the player came back …: a line in the log (kept
        with the game's events, in order) and a notice on whatever screen is up."""
        event = {"type": "SeatEvent", "seat": msg["seat"], "what": msg["what"],
                 "name": msg["name"], "seconds": msg.get("seconds", 0)}
        self._keep_events([event])
        self.notify(self.event_text(event), "info", now)

    def _on_room_paused(self, msg: dict[str, Any], now: float) -> None:
        self.notify(self.tr("pause.paused_by", name=self.by_name(msg["by"])), "info", now)

    def _on_room_resumed(self, msg: dict[str, Any], now: float) -> None:
        self.notify(self.tr("pause.resumed_by", name=self.by_name(msg["by"])), "info", now)

    def by_name(self, by: str) -> str:
        """Who paused or resumed: a player's name, or the server's operator."""
        return self.tr("pause.operator") if by == "operator" else by

    @property
    def paused(self) -> bool:
        return bool(self.room and self.room.get("paused"))

    @property
    def is_owner(self) -> bool:
        return bool(self.room) and self.seat is not None and \
            self.room.get("owner") == self.seat

    @property
    def may_pause(self) -> bool:
        """The owner, in a started game not over and not paused (the server checks it too)."""
        return self.is_owner and self.state is not None and not self.over and not self.paused

    @property
    def may_resume(self) -> bool:
        """The owner, or any seated player while the owner's seat has nobody connected."""
        if not self.paused or self.seat is None:
            return False
        owner = next((s for s in self.room.get("seat_list", [])
                      if s.get("seat") == self.room.get("owner")), None)
        return self.is_owner or owner is None or not owner.get("connected")

    def _on_error(self, msg: dict[str, Any], now: float) -> None:
        if self.chat.refused(msg.get("ref"), self.error_text(msg)):
            return  # the chat pane says it, and the line's text is back in the input
        if "ref" in msg or msg.get("code") in ("stale_state", "illegal_action", "not_your_turn",
                                                "rate_limited"):
            self.sent_state_id = -1  # the action was refused: its buttons are live again
        self.notify(self.error_text(msg), now=now)

    def _on_left(self, msg: dict[str, Any], now: float) -> None:
        reason = msg.get("reason", "left")
        self.left_reason = reason
        self.room = None
        self.room_id = None
        self.seat = None
        self.token = ""
        self.state = None
        key = LEFT_TEXTS.get(reason or "left")
        if key is not None:
            self.notify(self.tr(key), "info" if reason in ("left", LEFT_PAUSED) else "error",
                        now)

    def error_text(self, msg: dict[str, Any]) -> str:
        code = msg.get("code", "")
        if code == "version_mismatch":
            return self.version_text(msg.get("message", ""))
        key = error_key(self.tr, code)
        if not self.tr.has(key):
            return msg.get("message", code)
        return self.tr(key, detail=msg.get("field") or msg.get("message", ""))

    def version_text(self, message: str) -> str:
        """The server's version_mismatch says which version it speaks: older or newer?"""
        from ..shared.protocol import PROTOCOL_VERSION

        digits = [int(w) for w in message.replace(",", " ").split() if w.isdigit()]
        if digits:
            server = digits[0]
            key = "error.server_old" if server < PROTOCOL_VERSION else "error.server_new"
            return self.tr(key, server=server, client=PROTOCOL_VERSION)
        return self.tr("error.version_mismatch")

    def notify(self, text: str, level: str = "error", now: float | None = None,
               sticky: bool = False) -> None:
        notice = Notice(text, level, time.monotonic() if now is None else now, sticky)
        self.notices.append(notice)
        del self.notices[:-5]
        if sticky:
            self.pinned = notice
        self.revision += 1

    def current_notice(self, now: float, ttl: float = 6.0) -> Notice | None:
        """The latest notice for `ttl` seconds; then the pinned one until it is closed."""
        if self.notices and now - self.notices[-1].at < ttl:
            return self.notices[-1]
        return self.pinned

    def close_notice(self) -> None:
        self.pinned = None
        self.revision += 1

    def reset_room(self) -> None:
        self.room = self.room_id = self.seat = self.state = None
        self.token = ""
        self.events.clear()
        self.chat.clear()

    # --- the game state --------------------------------------------------------------------------
    @property
    def view(self) -> dict[str, Any] | None:
        return self.state["view"] if self.state else None

    @property
    def legal(self) -> list[dict[str, Any]]:
        if not self.state or self.sent_state_id == self.state["state_id"]:
            return []  # an action is on its way for this state: nothing more until the answer
        return self.state["legal"]

    @property
    def state_id(self) -> int:
        return self.state["state_id"] if self.state else -1

    @property
    def me(self) -> int | None:
        view = self.view
        return view.get("you") if view else self.seat

    @property
    def my_camp(self) -> dict[str, Any] | None:
        view, me = self.view, self.me
        if view is None or me is None or not 0 <= me < len(view["camps"]):
            return None
        return view["camps"][me]

    @property
    def prompt_kind(self) -> str:
        return self.view["prompt"]["kind"] if self.view else "none"

    @property
    def prompted_seats(self) -> list[int]:
        return list(self.view["prompt"]["seats"]) if self.view else []

    @property
    def my_turn(self) -> bool:
        return bool(self.legal)

    def parts(self) -> tuple[ClientPart, ...]:
        """The client parts of this game's modules (`client.modules`), in registry order."""
        return parts_on(self.modules())

    @property
    def in_battle(self) -> bool:
        """A battle or a module's own fight is on (anyone may watch it on the battle tab)."""
        return bool(self.view and (self.view.get("battle") or self.battle_screen != "battle"))

    @property
    def battle_screen(self) -> str:
        """The screen of the battle tab: a module's own fight's while one is on."""
        view = self.view or {}
        return next((p.fight_screen for p in self.parts() if view and p.fighting(view)),
                    "battle")

    @property
    def home_screen(self) -> str:
        """The screen a running game comes back to: a module's phase before day 1 while it
        lasts, else the map."""
        view = self.view or {}
        return next((p.prelude_screen for p in self.parts() if view and p.in_prelude(view)),
                    "game")

    def home_screens(self) -> set[str]:
        """Every screen `home_screen` may name in this game."""
        return {"game", *(p.prelude_screen for p in self.parts() if p.prelude_screen)}

    def fight_screens(self) -> set[str]:
        """Every screen `battle_screen` may name in this game."""
        return {"battle", *(p.fight_screen for p in self.parts() if p.fight_screen)}

    def module_tabs(self) -> tuple[str, ...]:
        """The header tabs this game's modules add (their own screens)."""
        view = self.view or {}
        return tuple(t for p in self.parts() if view and p.tabs_on(view) for t in p.tabs)

    def tab_news(self, tab: str) -> bool:
        """Something on a module's tab waits for this seat."""
        return any(p.tab_news(self, tab) for p in self.parts())

    @property
    def over(self) -> bool:
        return bool(self.view and self.view.get("over"))

    @property
    def day(self) -> int:
        """The day to show: a game stopped by the day limit is over on the day after the
        last, which it did not play."""
        return min(self.view["day"], self.view["day_limit"]) if self.view else 0

    def modules(self) -> list[str]:
        """The rules modules of this game: the view's once it runs, the room's before."""
        if self.view is not None:
            return list(self.view.get("modules", {}))
        return list((self.room or {}).get("modules") or [])

    def module_option(self, name: str, option: str) -> Any:
        """A module's option in the running game; None when the module is off."""
        module = (self.view or {}).get("modules", {}).get(name)
        return None if module is None else module.get("options", {}).get(option)

    def module_state(self, name: str) -> dict[str, Any] | None:
        """A module's public state in the running game (its view's), if on."""
        module = (self.view or {}).get("modules", {}).get(name)
        return module["state"] if module else None

    def camp(self, seat: int) -> dict[str, Any]:
        return self.view["camps"][seat]

    def who(self, seat: int | None) -> str:
        """A camp as players name it: its class (and the player's name from the room)."""
        named = next((n for p in self.parts() if seat is not None
                      and (n := p.seat_name(self, seat)) is not None), None)
        if named is not None:
            return named
        if seat is None or seat < 0 or not self.view or seat >= len(self.view["camps"]):
            return "—"
        return self.tr.cls(self.camp(seat)["cls"])

    def player_name(self, seat: int) -> str:
        if not self.room:
            return ""
        for s in self.room.get("seat_list", []):
            if s["seat"] == seat:
                if s.get("kind") == "bot":
                    level = s.get("level", "normal")
                    key = f"room.level_{level}"
                    return self.tr("room.bot") + (
                        f" · {self.tr(key)}" if self.tr.has(key) else "")
                return s["name"]
        return ""

    def seat_row(self, seat: int) -> dict[str, Any]:
        """The seat as the room's last `seat_list` shows it ({} before any)."""
        rows = (self.room or {}).get("seat_list", [])
        return next((row for row in rows if row.get("seat") == seat), {})

    def presence(self, seat: int) -> str:
        """Where a human seat's player is: "" at the table, "dropped" while the seat is kept for
        it, "bot_took_over" while a bot plays for it (the seat_event names)."""
        row = self.seat_row(seat)
        if row.get("kind") != "human":
            return ""
        if row.get("bot_playing"):
            return "bot_took_over"
        return "" if row.get("connected", True) else "dropped"

    def seat_label(self, seat: int, name: str) -> str:
        """A seat's class and its player's name, for the seat events' lines."""
        cls = self.seat_row(seat).get("cls")
        if cls is None and self.view and 0 <= seat < len(self.view["camps"]):
            cls = self.camp(seat)["cls"]
        return self.tr("seats.who", cls=self.tr.cls(cls), name=name)

def parse_host(text: str, default_port: int) -> tuple[str, int] | None:
    """`host`, `host:port` or `[v6]:port` -> (host, port); None if it is not an address."""
    text = text.strip()
    if not text or any(c.isspace() for c in text):
        return None
    host, port = text, default_port
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            return None
        host, rest = text[1:end], text[end + 1:]
        if rest:
            if not rest.startswith(":") or not rest[1:].isdigit():
                return None
            port = int(rest[1:])
    elif text.count(":") == 1:
        host, _, port_text = text.partition(":")
        if not port_text.isdigit():
            return None
        port = int(port_text)
    if not host or not 0 < port < 65536:
        return None
    return host, port


def check_name(name: str, kind: str = "name") -> str | None:
    """The catalog key of what is wrong with a player's name (or a room's: `kind` "label"),
    or None; the server refuses the same (`protocol.text_fault`)."""
    name = name.strip()
    if not name:
        return "error.name_empty"
    if len(name) > 32:
        return "error.name_long"
    if text_fault(name, kind):
        return "error.name_bad"
    return None


__all__ = ["Cell", "ClientModel", "Option", "Question", "Verb", "card_of", "check_name",
           "classes_in", "error_key", "event_kind", "parse_host", "verb_of"]
