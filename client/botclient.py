"""A headless network player: joins a room and plays with one of the engine's bots."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from twisted.internet.interfaces import IReactorTime

from ..shared.bots import make_bot
from ..shared.engine import Action, from_dict
from .net import ServerConnection


class BotPlayer:
    """Reacts to server messages: joins the named room, then answers every prompt of its seat.

    `think` schedules the decision (immediately by default; the load bench delays it to a random
    moment inside the declaration window)."""

    def __init__(self, room: str | int, level: str = "heuristic", seed: int = 0,
                 think: Callable[[Callable[[], None]], None] | None = None,
                 on_ack: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.room = room
        self.bot = make_bot(level, seed)
        self.think = think or (lambda decide: decide())
        self.on_ack = on_ack
        self.conn: ServerConnection | None = None
        self.seat = -1
        self.state_id = -1
        self.over = False
        self.listed = 0  # rooms read so far while looking for the room by name
        self.errors: list[dict[str, Any]] = []
        self._wire: list[dict[str, Any]] | None = None  # the legal list last decoded, and
        self._legal: list[Action] = []  # its actions

    def connection(self, name: str, clock: IReactorTime | None = None) -> ServerConnection:
        """The bot's connection; with a clock it keeps itself alive while it waits."""
        self.conn = ServerConnection(name, self.on_message, clock=clock)
        return self.conn

    def on_message(self, msg: dict[str, Any]) -> None:
        kind = msg["t"]
        if kind == "welcome":
            if isinstance(self.room, int):
                self.conn.send("join_room", room=self.room)
            else:
                self.conn.send("list_rooms")
        elif kind == "rooms":
            self._join(msg["rooms"], msg["total"])
        elif kind == "joined":
            self.seat = msg["seat"]
        elif kind == "state":
            self._prompted(msg)
        elif kind == "ack" and self.on_ack is not None:
            self.on_ack(msg)
        elif kind == "error":
            self.errors.append(msg)

    def _join(self, rooms: list[dict[str, Any]], total: int) -> None:
        """Join the first unstarted room of that name, reading the list page by page."""
        for room in rooms:
            if self.room == room["name"] and not room["started"]:
                self.conn.send("join_room", room=room["id"])
                return
        self.listed += len(rooms)
        if rooms and self.listed < total:
            self.conn.send("list_rooms", offset=self.listed)
            return
        self.errors.append({"code": "room_not_found", "message": f"no open room {self.room!r}"})
        self.conn.transport.loseConnection()

    def _prompted(self, msg: dict[str, Any]) -> None:
        view = msg["view"]
        self.over = view["over"]
        self.state_id = msg["state_id"]
        if not msg["legal"]:
            return
        state_id = msg["state_id"]

        def decide() -> None:
            if state_id != self.state_id:  # a newer state arrived meanwhile
                return
            action = self.bot.choose(view if self.bot.needs_view else None,
                                     self._actions(msg["legal"]))
            self.conn.send("act", action=action.to_dict(), state_id=state_id, ref=state_id)

        self.think(decide)

    def _actions(self, wire: list[dict[str, Any]]) -> list[Action]:
        """The legal list as actions: an update that left it unchanged hands on the same list
        (`apply_update`), which is decoded once."""
        if wire is not self._wire:
            self._wire, self._legal = wire, [from_dict(a) for a in wire]
        return self._legal
