"""A room's seating: who sits where, who watches, joining and leaving, a player's grace
period and a bot taking over, and the owner's commands on the seats (bots, classes, Servants,
kicks). A part of `Room` (`room.Room` is made of it), apart because it knows no game rules:
only seats, members and the room's own store and messages.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from twisted.internet.interfaces import IReactorTime

from ..shared.engine.data import CLASSES, default_ruleset
from ..shared.protocol import LEFT_PAUSED, ProtocolError, message
from .audit import audit
from .roomstore import RoomStore
from .seating import GRACE, Member, Seat, check_secret, check_token, hash_token

if TYPE_CHECKING:
    from ..shared.engine import GameState
    from .bot_driver import BotDriver


class Membership:
    """The seats and the members of a room (mixed into `Room`, which holds the attributes
    annotated here and sends what they change: `broadcast_room`, `_send_history`, `_sync`)."""

    id: int
    store: RoomStore
    seats: list[Seat]
    owner: int
    spectators: list[Member]
    password: str | None
    state: GameState | None
    clock: IReactorTime
    options: dict[str, Any]
    summoned_by: str
    bot_level: str
    bot_driver: BotDriver

    def check_password(self, password: str | None) -> None:
        if self.password is not None and not check_secret(password or "", self.password):
            raise ProtocolError("wrong_password", "wrong password for this room")

    def join_player(self, member: Member, cls: str | None) -> tuple[int, str]:
        """Take a free seat (of `cls` if given); returns the seat and its secret token."""
        if self.state is not None:
            raise ProtocolError("game_started", "the game has started; join as a spectator")
        seat = self._free_seat(cls)
        token = secrets.token_urlsafe(24)
        seat.kind, seat.name, seat.member = "human", member.name, member
        seat.token = hash_token(token)
        seat.cls = cls or self._free_class()
        if self.seats[self.owner].kind != "human":  # the owner's seat was left to a bot
            self.owner = seat.index
        self._save_seat(seat)
        member.send(message("joined", room=self.id, seat=seat.index, token=token,
                            spectator=False))
        self._send_history(member, seat.index)
        self.broadcast_room()
        return seat.index, token

    def _free_seat(self, cls: str | None) -> Seat:
        if cls is not None and any(s.cls == cls and s.kind != "open" for s in self.seats):
            raise ProtocolError("room_full", f"the {cls} seat is taken")
        for seat in self.seats:
            if seat.kind == "open":
                return seat
        raise ProtocolError("room_full", "no free seat")

    def _free_class(self) -> str:
        taken = {s.cls for s in self.seats if s.kind != "open"}
        return next(c for c in CLASSES if c not in taken)

    def join_spectator(self, member: Member) -> None:
        self.flush_views()
        self.spectators.append(member)
        member.send(message("joined", room=self.id, seat=-1, token="", spectator=True))
        self._send_history(member, None)
        self.broadcast_room()
        if self.state is not None:
            self._sync(member, None, joining=True)

    def resume(self, member: Member, token: str) -> int:
        """Take back a human seat: `joined`, then the room, then the seat's full view."""
        self.flush_views()
        for seat in self.seats:
            if seat.kind == "human" and seat.token and check_token(token, seat.token):
                if seat.away is not None and seat.away.active():
                    seat.away.cancel()
                seat.away = None
                seat.takeover = False
                previous, seat.member = seat.member, member
                if previous is not None and previous is not member:
                    previous.left("resumed elsewhere")
                member.send(message("joined", room=self.id, seat=seat.index, token=token,
                                    spectator=False))
                if previous is None:  # the others saw it go: they see it come back
                    self._tell_seat(seat.index, "returned", seat.name, but=member)
                self._send_history(member, seat.index)
                self.broadcast_room()
                if self.state is not None:
                    self._sync(member, seat.index, joining=True)
                return seat.index
        raise ProtocolError("bad_token", "no seat in this room has that token")

    def seat_of(self, member: Member) -> int | None:
        return next((s.index for s in self.seats if s.member is member), None)

    def _release(self, member: Member) -> Seat | None:
        """Take the member out of the room; its seat (if it had one) is returned, to be kept,
        opened or given to a bot. Before the start a seat simply opens again."""
        self.feeds.pop(member, None)
        if member in self.spectators:
            self.spectators.remove(member)
        index = self.seat_of(member)
        if index is None:
            return None
        seat = self.seats[index]
        seat.member = None
        if self.state is None:
            self._vacate(seat)
            return None
        return seat

    def disconnect(self, member: Member) -> None:
        """The connection is gone: a player's seat is kept for the grace period (before the
        start it opens: the player has left)."""
        index = self.seat_of(member)
        seat = self._release(member)
        if seat is not None and self.paused is None:
            seat.away = self.clock.callLater(GRACE, self._grace_over, seat.index)
            self._tell_seat(seat.index, "dropped", seat.name, seconds=round(GRACE))
        elif index is not None:  # before the start, or paused: its grace starts at the resume
            self._tell_seat(index, "left", member.name)
        self.broadcast_room()

    def leave(self, member: Member) -> str:
        """A player leaving on purpose: before the start its seat opens; after it the player
        gives the seat up: a bot plays it for good and the token is void. In a paused game
        the seat is kept for its player (the token stays good: it comes back another
        evening). Returns the `left` reason the member is told."""
        index = self.seat_of(member)
        seat = self._release(member)
        if index is not None:
            self._tell_seat(index, "left", member.name)
        if seat is not None and self.paused is not None:
            self.broadcast_room()
            return LEFT_PAUSED
        if seat is not None:
            seat.kind, seat.token = "bot", None
            self._save_seat(seat)
            self._take_over(seat.index)
        self.broadcast_room()
        return "left"

    def _tell_seat(self, index: int, what: str, name: str, but: Member | None = None,
                   **fields: Any) -> None:
        """Every member (but `but`) hears what became of a seat's player."""
        msg = message("seat_event", seat=index, what=what, name=name, **fields)
        for member, _ in self.members:
            if member is not but:
                member.send(msg)

    def _vacate(self, seat: Seat) -> None:
        seat.kind, seat.name, seat.token, seat.cls = "open", "", None, None
        seat.ready = False
        self._save_seat(seat)
        self._pass_ownership(seat)

    def _pass_ownership(self, seat: Seat) -> None:
        """The owner's seat lost its player: the first other player owns the room."""
        if seat.index == self.owner:
            humans = [s.index for s in self.seats if s.kind == "human"]
            self.owner = humans[0] if humans else 0

    def _grace_over(self, index: int) -> None:
        """The player did not come back in time: a bot plays the seat until it does."""
        self._tell_seat(index, "bot_took_over", self.seats[index].name)
        self._take_over(index)

    def _take_over(self, index: int) -> None:
        seat = self.seats[index]
        seat.takeover = True
        seat.away = None
        self.broadcast_room()
        self.bot_driver.schedule(self)

    @property
    def members(self) -> list[tuple[Member, int | None]]:
        players = [(s.member, s.index) for s in self.seats if s.member is not None]
        return players + [(m, None) for m in self.spectators]

    @property
    def empty(self) -> bool:
        return not self.members

    # --- owner commands ----------------------------------------------------------------------
    def require_owner(self, member: Member) -> None:
        if self.seat_of(member) != self.owner:
            raise ProtocolError("not_owner", "only the room's owner may do that")

    def add_bot(self, cls: str, level: str | None = None) -> None:
        """A bot seat of `cls`, at `level` (default: the room's `bot_level`)."""
        level = level or self.bot_level
        if self.state is not None:
            raise ProtocolError("game_started", "the game has started")
        seat = self._free_seat(cls)
        seat.kind, seat.cls, seat.level, seat.name = "bot", cls, level, f"bot ({level})"
        self._save_seat(seat)
        self.broadcast_room()

    def set_bot_level(self, level: str) -> None:
        """Every bot seat plays at `level`, and so do the bots added or filling the empty
        seats at the start (before the start: a seat's level is its bot's)."""
        if self.state is not None:
            raise ProtocolError("game_started", "the game has started")
        self.bot_level = level
        for seat in self.seats:
            if seat.kind == "bot":
                seat.level, seat.name = level, f"bot ({level})"
                self._save_seat(seat)
        self.broadcast_room()

    def remove_bot(self, index: int) -> None:
        seat = self._seat(index)
        if seat.kind != "bot" or self.state is not None:
            raise ProtocolError("seat_taken", "only a bot seat may be removed, before the start")
        self._vacate(seat)
        self.broadcast_room()

    def kick(self, index: int, by: str = "owner") -> None:
        """The seat's player goes (before the start the seat opens, after it a bot plays it).
        The owner kicks another player; the operator (`by="operator"`) anyone, the owner too."""
        seat = self._seat(index)
        if seat.kind != "human" or (index == self.owner and by == "owner"):
            raise ProtocolError("seat_taken", "only another player may be kicked")
        member = seat.member
        seat.member = None
        if seat.away is not None and seat.away.active():
            seat.away.cancel()
        seat.away, seat.takeover = None, False
        if member is not None:
            member.left("kicked")
        self._tell_seat(index, "kicked", seat.name)
        audit("kick", room=self.id, seat=index, name=seat.name, by=by)
        if self.state is None:
            self._vacate(seat)
        else:
            seat.kind, seat.token, seat.name = "bot", None, f"bot ({seat.level})"
            self._save_seat(seat)
            self._pass_ownership(seat)
            self.bot_driver.schedule(self)
        self.broadcast_room()

    def _seated_before_start(self, member: Member, spectator: str, started: str) -> int:
        """The member's seat, for a choice made in a seat before the start (else the error
        `spectator` or `started` says)."""
        index = self.seat_of(member)
        if index is None:
            raise ProtocolError("spectator", spectator)
        if self.state is not None:
            raise ProtocolError("game_started", started)
        return index

    def choose_class(self, member: Member, cls: str) -> None:
        index = self._seated_before_start(member, "spectators have no class",
                                          "classes are chosen before the start")
        if any(s.cls == cls and s.index != index for s in self.seats if s.kind != "open"):
            raise ProtocolError("seat_taken", f"the {cls} seat is taken")
        self.seats[index].cls = cls
        self.seats[index].ready = False  # a new Servant: ready again when it is chosen
        self.seats[index].servant = None  # a Servant of the old class is no choice now
        self._save_seat(self.seats[index])
        self.broadcast_room()

    def choose_servant(self, member: Member, servant: str) -> None:
        """In a `choose` room, before the start: the seat's Servant, one of its class's
        roster; the room tells only this seat which."""
        index = self._seated_before_start(member, "spectators summon no Servant",
                                          "Servants are summoned before the start")
        if self.summoned_by:
            raise ProtocolError("bad_field", f"no Servant to choose: {self.summoned_by}",
                                "servant")
        if self.options["summoning"] != "choose":
            raise ProtocolError("bad_field", "this room summons Servants at random", "servant")
        seat = self.seats[index]
        roster = [s.id for s in default_ruleset().roster[seat.cls]]
        if servant not in roster:
            raise ProtocolError("bad_field", f"servant: {servant!r} is not a {seat.cls}; "
                                             f"choose from {', '.join(roster)}", "servant")
        seat.servant, seat.ready = servant, False
        self._save_seat(seat)
        self.broadcast_room()

    def set_ready(self, member: Member, ready: bool) -> None:
        """A player says it is ready (the owner sees who is before starting)."""
        index = self._seated_before_start(member, "spectators are not in a seat",
                                          "the game has already started")
        self.seats[index].ready = ready
        self.broadcast_room()

    def _seat(self, index: int) -> Seat:
        if not 0 <= index < len(self.seats):
            raise ProtocolError("bad_field", f"seat: no seat {index} in this room", "seat")
        return self.seats[index]

    def _save_seat(self, seat: Seat) -> None:
        self.store.save_seat(self.id, seat.row())
