"""A room: its seats, members, chat, the game it runs, the timers and the bots. No sockets.

Members are anything with `send(message_dict)`; time comes from an injected `IReactorTime`.
Every accepted action goes through `_commit`: it is written to the store, then acknowledged,
then each member gets its own view (`view_for`) and the events it may see.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from twisted.internet.defer import Deferred, maybeDeferred
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.logger import Logger
from twisted.python.failure import Failure

from ..shared.engine import (
    Action,
    Event,
    GameState,
    MalformedActionError,
    NotPromptedError,
    RulesError,
    apply,
    default_action,
    events_for,
    from_dict,
    legal_actions,
    new_game,
    play,
    view_for,
)
from ..shared.engine.data import CLASSES, default_ruleset
from ..shared.engine.modules import fewest_camps, normalize
from ..shared.engine.prompts import PROMPTS
from ..shared.engine.text import event_line
from ..shared.engine.turns import priority_seats
from ..shared.protocol import BOT_DELAY, LEFT_PAUSED, SECONDS, ProtocolError, message
from .audit import audit
from .broadcasts import Broadcasts
from .chat import ChatLog, is_reveal
from .feeds import PublicPart, ViewFeed, wire_form
from .history import history_messages, seen_history
from .roomstore import AppendRefused, RoomStore
from .store import SeatRow
from .thinking import decide, room_bot, searches

log = Logger()

WARNINGS = (60, 10)  # seconds before a deadline when every member is warned
GRACE = 90.0  # seconds a disconnected player keeps its seat before a bot plays it
# 2: `options` holds the modules' options (new_game's argument); the room's own, `room_options`
# 3: `servants`, each seat's summoned Servant (the roster)
# 4: `priority_phase`, whether each turn opened with a priority phase (docs/rules.md §3.3)
REPLAY_FORMAT = "grailwar-replay-4"


class Member(Protocol):
    name: str
    features: frozenset[str]  # what its hello asked for (protocol.FEATURES)

    def send(self, msg: dict[str, Any]) -> None: ...

    def cork(self) -> None:
        """Hold what is sent until `uncork` (a broadcast's messages to one member)."""

    def uncork(self) -> None:
        """Send what `cork` held, in order."""

    def left(self, reason: str) -> None:
        """The room let this member go on its own (kicked, seat resumed elsewhere): the member
        forgets the room and is told with a `left` message."""


def hash_secret(secret: str, salt: bytes | None = None) -> str:
    """A salted scrypt hash of a room password, stored as salt$hash."""
    salt = salt if salt is not None else secrets.token_bytes(16)
    digest = hashlib.scrypt(secret.encode(), salt=salt, n=2**12, r=8, p=1, dklen=32)
    return salt.hex() + "$" + digest.hex()


def check_secret(secret: str, stored: str) -> bool:
    salt, _ = stored.split("$", 1)
    return hmac.compare_digest(hash_secret(secret, bytes.fromhex(salt)), stored)


def hash_token(token: str) -> str:
    """A seat token is 192 random bits, so a plain SHA-256 suffices (and costs microseconds
    where scrypt would cost ~20 ms per seat on every resume attempt)."""
    return "sha256$" + hashlib.sha256(token.encode()).hexdigest()


def check_token(token: str, stored: str) -> bool:
    return hmac.compare_digest(hash_token(token), stored)


@dataclass
class Seat:
    """One seat of the room: open, a human player, or a bot."""

    index: int
    cls: str | None = None
    kind: str = "open"  # open, human, bot
    name: str = ""
    token: str | None = None  # hashed
    level: str = "normal"
    member: Member | None = None
    away: IDelayedCall | None = None  # the grace-period timer of a disconnected player
    takeover: bool = False  # a bot plays this human seat while its player is away
    ready: bool = False  # the player said it is ready to start (before the start only)
    servant: str | None = None  # its own choice (`choose` summoning), then the one summoned

    def row(self) -> SeatRow:
        return SeatRow(self.index, self.cls, self.kind, self.name, self.token, self.level,
                       self.servant)

    @property
    def bot_plays(self) -> bool:
        return self.kind == "bot" or self.takeover


@dataclass
class Deadline:
    """A prompted seat's timer; `kind` names it (a prompt kind, or `priority` for the turn's
    priority phase); `since` is the state id at which that prompt began."""

    kind: str
    epoch: tuple
    due: float
    since: int
    calls: list[IDelayedCall] = field(default_factory=list)  # its expiry first, then warnings

    def running(self) -> bool:
        """Its expiry is still to come (an expired one is kept only until the timers are armed
        again, so that a window's clock goes on from its phase)."""
        return bool(self.calls) and self.calls[0].active()


class Room:
    def __init__(self, room_id: int, name: str, options: dict[str, Any], clock: IReactorTime,
                 store: RoomStore, password: str | None = None, seed: int | None = None) -> None:
        self.id = room_id
        self.name = name
        self.options = {k: options.get(k, default) for k, (_lo, _hi, default) in SECONDS.items()}
        self.options["seats"] = options.get("seats", 7)
        self.options["day_limit"] = options.get("day_limit", 7)
        self.modules, self.module_options = game_modules(options)
        # The campaign's random and relic summoning deal the Servants themselves: the room's
        # own switch then has no Servant to choose (docs/rules.md "Summoning and day 0").
        self.options["summoning"] = "random" if self.campaign_deals else options.get(
            "summoning", "random")
        fewest = fewest_camps(self.modules, self.module_options)
        if self.options["seats"] < fewest:
            raise ProtocolError("bad_field", f"seats: a room of these modules seats at least "
                                f"{fewest}", "seats")
        self.clock = clock
        self.store = store
        self.password = password  # hashed
        self.seed = seed if seed is not None else secrets.randbelow(2**31)
        self.seats = [Seat(i) for i in range(self.options["seats"])]
        self.owner = 0
        self.spectators: list[Member] = []
        self.state: GameState | None = None
        self.masters: list[str] = []
        self.deadlines: dict[int, Deadline] = {}
        self.bot_calls: dict[int, IDelayedCall] = {}
        self.bots: dict[tuple[int, str], Any] = {}  # (seat, level) -> its in-process bot
        self.thinking: set[int] = set()
        self.actions: list[dict[str, Any]] = []  # every accepted action, for the replay
        # every event of the game, for the history of a member joining late (a restart
        # regenerates them by replaying the actions)
        self.history: list[Event] = []
        self.chat_log = ChatLog(room_id, store)
        self.think: Callable[..., Deferred] = maybeDeferred  # the server: worker processes
        # the server's: views after the ack has left, in turns (`_after_change`); None: at once
        self.broadcasts: Broadcasts | None = None
        self._unsent: list = []  # events whose views wait
        self.feeds: dict[Member, ViewFeed] = {}  # what members taking updates were last sent
        self.watching = ViewFeed(None)  # the spectators' (one for all)
        self.common = PublicPart()  # their views' common part
        # Why the room gave itself up (an action its store refused), and whom it tells: the
        # lobby, which lets its members go and rebuilds it from the log.
        self.lost: str | None = None
        self.on_lost: Callable[[Room, str], None] = lambda room, why: None
        # While the game is paused: each prompted seat's timer kind and the seconds it had
        # left (None: the game runs). Stored (`save_pause`): a restart keeps the room paused.
        self.paused: dict[int, tuple[str, float]] | None = None
        # How its bots wait (the lobby's `pace_bots`: a local game's tests and tour go fast):
        # BOT_DELAY, and in a battle only bots fight in, `bot_pace` or else `bot_pace_ms`.
        self.bot_delay: float = BOT_DELAY
        self.bot_pace: float | None = None

    # --- persistence ---------------------------------------------------------------------
    @classmethod
    def create(cls, room_id: int, name: str, options: dict[str, Any], clock: IReactorTime,
               store: RoomStore, password: str | None, seed: int | None = None) -> Room:
        """A new room, written to the store; its game's seed is random unless given."""
        hashed = hash_secret(password) if password else None
        room = cls(room_id, name, options, clock, store, hashed, seed)
        store.create_room(room_id, name, room.stored_options(), hashed, room.seed)
        for seat in room.seats:
            store.save_seat(room_id, seat.row())
        return room

    @classmethod
    def restore(cls, row: Any, clock: IReactorTime, store: RoomStore) -> Room:
        """Rebuild a room from its log: seats, then the game replayed action by action. A room
        stored before rooms had a priority phase has none (its log was played without)."""
        options = {"priority_s": 0, **row.options}
        room = cls(row.id, row.name, options, clock, store, row.password, row.seed)
        room.owner = row.owner
        for srow in row.seats:
            seat = room.seats[srow.seat]
            seat.cls, seat.kind, seat.name, seat.token, seat.level, seat.servant = (
                srow.cls, srow.kind, srow.name, srow.token, srow.level, srow.servant)
        room.chat_log.restore(row.chat)
        if row.started:
            room.masters = row.masters
            room.state = room._new_game()
            for action, _source in row.actions:
                room.history.extend(play(room.state, from_dict(action)))
                room.actions.append(action)
            room.paused = row.paused
            if room.paused is not None:  # its timers, bots and graces wait for the resume
                return room
            for seat in room.seats:  # nobody is connected yet: each player's grace starts now
                if seat.kind == "human":
                    seat.away = clock.callLater(GRACE, room._grace_over, seat.index)
            room._arm_timers(restored=row.deadlines)
            room._schedule_bots()
        return room

    def stored_options(self) -> dict[str, Any]:
        """What the store keeps of the room's set-up: the create_room fields, resolved (the
        modules with every option filled), which `restore` hands back to `__init__`."""
        return {**self.options, "modules": list(self.modules),
                "options": copy.deepcopy(self.module_options)}

    def _save_seat(self, seat: Seat) -> None:
        self.store.save_seat(self.id, seat.row())

    # --- membership ------------------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id, "name": self.name, "locked": self.password is not None,
            "seats": len(self.seats),
            "players": sum(1 for s in self.seats if s.kind == "human"),
            "bots": sum(1 for s in self.seats if s.kind == "bot"),
            "spectators": len(self.spectators), "started": self.state is not None,
            "over": bool(self.state and self.state.over), "modules": list(self.modules),
            "summoning": self.options["summoning"], "paused": self.paused is not None,
        }

    def public(self, seat: int | None = None) -> dict[str, Any]:
        """The room as everyone sees it; `seat`'s own Servant choice is added for that seat
        only (the others see only its class)."""
        mine = self.seats[seat].servant if seat is not None and self.state is None else None
        return {
            **({"your_servant": mine} if mine else {}),
            **self.summary(), "owner": self.owner,
            "options": dict(self.options),
            "module_options": copy.deepcopy(self.module_options),
            "seat_list": [{"seat": s.index, "cls": s.cls, "kind": s.kind, "name": s.name,
                           "level": s.level, "connected": s.member is not None,
                           "ready": s.kind == "bot" or s.ready,
                           "bot_playing": s.bot_plays} for s in self.seats],
        }

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
        self._schedule_bots()

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

    def add_bot(self, cls: str, level: str) -> None:
        if self.state is not None:
            raise ProtocolError("game_started", "the game has started")
        seat = self._free_seat(cls)
        seat.kind, seat.cls, seat.level, seat.name = "bot", cls, level, f"bot ({level})"
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
            self._schedule_bots()
        self.broadcast_room()

    def choose_class(self, member: Member, cls: str) -> None:
        index = self.seat_of(member)
        if index is None:
            raise ProtocolError("spectator", "spectators have no class")
        if self.state is not None:
            raise ProtocolError("game_started", "classes are chosen before the start")
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
        index = self.seat_of(member)
        if index is None:
            raise ProtocolError("spectator", "spectators summon no Servant")
        if self.state is not None:
            raise ProtocolError("game_started", "Servants are summoned before the start")
        if self.campaign_deals:
            how = ("by a relic draft on day 0"
                   if self.module_options["campaign"]["summoning"] == "relic" else "at random")
            raise ProtocolError("bad_field", f"this room's campaign summons its Servants {how}",
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
        index = self.seat_of(member)
        if index is None:
            raise ProtocolError("spectator", "spectators are not in a seat")
        if self.state is not None:
            raise ProtocolError("game_started", "the game has already started")
        self.seats[index].ready = ready
        self.broadcast_room()

    def _seat(self, index: int) -> Seat:
        if not 0 <= index < len(self.seats):
            raise ProtocolError("bad_field", f"seat: no seat {index} in this room", "seat")
        return self.seats[index]

    def start(self) -> None:
        """Empty seats get bots (normal level); the game begins from the room's seed."""
        if self.state is not None:
            raise ProtocolError("game_started", "the game has already started")
        for seat in self.seats:
            if seat.kind == "open":
                seat.kind, seat.cls, seat.name = "bot", self._free_class(), "bot (normal)"
                self._save_seat(seat)
        self.state = self._new_game()
        self.masters = [c.master.id for c in self.state.camps]
        for seat, camp in zip(self.seats, self.state.camps, strict=True):
            # the room log keeps who was summoned (a campaign that deals summons again from
            # the seed: its Servants are of other classes than the lobby's)
            seat.servant = None if self.campaign_deals else camp.servant.id
            self._save_seat(seat)
        self.store.save_room(self.id, True, self.owner, self.masters)
        self.broadcast_room()
        self._after_change([])

    @property
    def campaign_deals(self) -> bool:
        """The campaign module deals the classes and Servants (its `summoning` random or
        relic): the seats' lobby classes only place them until then."""
        return self.module_options.get("campaign", {}).get("summoning", "choose") != "choose"

    def _new_game(self) -> GameState:
        servants = None if self.campaign_deals else [s.servant for s in self.seats]
        return new_game(seed=self.seed, classes=[s.cls for s in self.seats],
                        day_limit=self.options["day_limit"], masters=self.masters or None,
                        servants=servants,
                        modules=self.modules, options=self.module_options,
                        priority_phase=self.priority_phase)

    @property
    def priority_phase(self) -> bool:
        return self.options["priority_s"] > 0

    # --- chat -----------------------------------------------------------------------------------
    def chat(self, member: Member, text: str, channel: str, to: int | None = None) -> None:
        """A chat line (a dice command rolled, `/reveal` a secret roll shown) to the members
        of its channel; kept for those who join later."""
        index = self.seat_of(member)
        readers = self._chat_readers(index, channel, to)
        at, events = int(self.clock.seconds()), len(self.history)
        if is_reveal(text):
            line = self.chat_log.reveal(index, at, events)
        else:
            line = self.chat_log.say(index, member.name, text, channel, readers, at, events,
                                     to if channel == "whisper" else None)
        for m, seat in self.members:
            seen = line.seen_by(seat)
            if seen is not None:
                m.send(seen)

    def _chat_readers(self, index: int | None, channel: str, to: int | None) -> list[int] | None:
        """The seats that may read a line of `channel` (None: everyone, spectators too).
        Spectators whisper to no one: they watch what every camp does, so a word from them
        to one camp would be a hint from outside the table."""
        if channel == "negotiation":
            parley = self.state.parley if self.state is not None else None
            if parley is None or parley.kind != "negotiate" or index not in (
                    parley.opener, parley.target):
                raise ProtocolError("no_negotiation", "you are in no negotiation")
            return sorted({parley.opener, parley.target})
        if channel == "whisper":
            if index is None:
                raise ProtocolError("no_whisper", "spectators whisper to no one")
            if to is None or not 0 <= to < len(self.seats) or to == index or \
                    self.seats[to].kind != "human":
                raise ProtocolError("no_whisper", "whisper to another player's seat", "to")
            return sorted({index, to})
        return None

    def _send_history(self, member: Member, seat: int | None) -> None:
        """The game so far as `seat` may see it, and the chat lines it may read."""
        events, before = seen_history(self.history, seat)
        chat = [{**{k: v for k, v in msg.items() if k != "t"}, "after": before[n]}
                for n, msg in self.chat_log.seen_by(seat)]
        for msg in history_messages(events, chat):
            member.send(msg)

    # --- the game ---------------------------------------------------------------------------------
    def act(self, member: Member, data: dict[str, Any], state_id: int,
            ack: Callable[[int], None],
            refuse: Callable[[ProtocolError], None] | None = None) -> None:
        """A player's action: checked, written to the log, acknowledged with the new state id
        (`ack`) once durable, and only then shown to everyone; `refuse` hears of an action
        the store did not take (never acknowledged)."""
        if self.state is None:
            raise ProtocolError("game_not_started", "the game has not started")
        index = self.seat_of(member)
        if index is None:
            raise ProtocolError("spectator", "spectators cannot act")
        if self.paused is not None:
            raise ProtocolError("room_paused", "the game is paused: only chat until it is "
                                "resumed")
        if not all(isinstance(key, str) for key in data):
            raise ProtocolError("bad_field", "action: every key is a string", "action")
        try:
            action = from_dict(data)
        except MalformedActionError as err:
            raise ProtocolError("bad_field", f"action: {err}", "action") from err
        if action.seat != index:
            raise ProtocolError("not_your_turn", f"you play seat {index}, not {action.seat}")
        if state_id != self.state.version and not self._same_prompt(index, state_id):
            raise ProtocolError("stale_state", f"state {state_id} is old; now {self.state.version}")
        self._commit(action, "seat", ack, refuse)

    def _same_prompt(self, seat: int, state_id: int) -> bool:
        """An action chosen on an older state still stands if the seat has been asked the same
        question since then (another camp declaring in the same window changes the state id,
        not this seat's choice); the engine still checks it is legal now."""
        deadline = self.deadlines.get(seat)
        return deadline is not None and deadline.since <= state_id <= self.state.version

    def _commit(self, action: Action, source: str,
                ack: Callable[[int], None] | None = None,
                refuse: Callable[[ProtocolError], None] | None = None) -> None:
        """Apply, write to the log, then (once the write is durable) acknowledge and tell
        everyone. Engine refusals become ProtocolErrors. The room's state moves on at once
        (the next action is checked against it, and written after this one); a write the
        store refuses is never acknowledged: its player gets `not_saved` and the room gives
        itself up to be rebuilt from its log (`on_lost`)."""
        try:
            after, events = apply(self.state, action)
        except NotPromptedError as err:
            raise ProtocolError("not_your_turn", str(err)) from err
        except RulesError as err:
            raise ProtocolError("illegal_action", str(err)) from err
        data = action.to_dict()
        written = self.store.append_action(self.id, after.version, data, source)
        self.actions.append(data)
        self.history.extend(events)
        self.state = after
        written.addCallbacks(self._durable, self._not_durable,
                             (after.version, events, data, action.seat, source, ack), None,
                             (refuse,), None)
        written.addErrback(lambda failure: log.failure("room {room}: after an action", failure,
                                                       room=self.id))

    def _durable(self, _result: Any, version: int, events: list, data: dict[str, Any],
                 actor: int, source: str, ack: Callable[[int], None] | None) -> None:
        if self.lost is not None:  # the room was given up meanwhile: none of it happened
            return
        if ack is not None:
            ack(version)
        self._after_change(events)
        if source == "timer":  # the player learns the server answered for it, and how
            told = message("timed_out", seat=actor, action=data)
            for member, seat in self.members:
                if seat == actor:
                    member.send(told)

    def _not_durable(self, failure: Failure,
                     refuse: Callable[[ProtocolError], None] | None) -> None:
        why = failure.getErrorMessage() if failure.check(AppendRefused) else repr(failure.value)
        if refuse is not None:
            refuse(ProtocolError("not_saved", f"your action was not saved ({why}); it did not "
                                 "happen: the room is reloaded from its log, resume your seat"))
        if self.lost is None:
            log.error("room {room}: an action was not saved ({why}); the room is reloaded "
                      "from its log", room=self.id, why=why)
            self.lost = why
            self.on_lost(self, why)

    def _after_change(self, events: list) -> None:
        """Timers and bots at once; the views now, or, with `broadcasts` (the real server),
        at a later reactor turn (`server/broadcasts.py`): the acknowledgement is on its socket
        already (`send_now`), and every change made meanwhile (the other seats' timers, a bot)
        goes out together then: its events in order, and the latest view."""
        if self.paused is None:
            self._arm_timers()
        else:  # an action in flight at the pause, durable now: the prompt it opened is frozen
            self._thaw()
            self._freeze()
        self._unsent.extend(events)
        if self.broadcasts is None:
            self.send_views()
        else:
            self.broadcasts.add(self)
        self._schedule_bots()

    def send_views(self) -> None:
        if self.broadcasts is not None:
            self.broadcasts.discard(self)
        events, self._unsent = self._unsent, []
        deadlines = self._deadlines()  # one clock reading for everyone (and one dict)
        for member, seat in self.members:
            member.cork()  # its events and its view in one write
            try:
                self._send_events(member, seat, events)
                self._sync(member, seat, deadlines=deadlines)
            finally:
                member.uncork()

    def flush_views(self) -> None:
        """Send the views still waiting (before a member joins: its history has those events
        already, and it must not get them twice)."""
        if self._unsent or (self.broadcasts is not None and self.broadcasts.waiting(self)):
            self.send_views()

    def _send_events(self, member: Member, seat: int | None, events: list) -> None:
        seen = events_for(events, seat)
        if not seen:
            return
        if "no_log" in member.features:
            member.send(message("events", events=seen))
        else:
            member.send(message("events", events=seen, log=[event_line(e, "ja") for e in seen]))

    def _sync(self, member: Member, seat: int | None, joining: bool = False,
              deadlines: dict[str, int] | None = None) -> None:
        """The member's view (whole, or what changed for a member taking updates that is not
        `joining`), its legal actions, and the time left for each prompted seat (`deadlines`,
        when the caller read the clocks for several members)."""
        state = self.state
        if state is None:
            member.send(message("room", room=self.public()))
            return
        legal = self._legal(seat)
        if deadlines is None:
            deadlines = self._deadlines()
        if "updates" in member.features:
            member.send(self._fed(member, seat, joining, legal, deadlines))
        else:
            member.send(message("state", view=view_for(state, seat),
                                legal=[wire_form(a) for a in legal], state_id=state.version,
                                deadlines=deadlines))
        if state.over:
            member.send(message("replay", replay=self.replay()))

    def _legal(self, seat: int | None) -> list[Action]:
        """The seat's legal actions now (none for a spectator, none while paused)."""
        if seat is None or self.paused is not None:
            return []
        return legal_actions(self.state, seat)

    def _deadlines(self) -> dict[str, int]:
        return {str(s): max(0, round(left)) for s, left in self.time_left().items()}

    def _fed(self, member: Member, seat: int | None, joining: bool, legal: list[Action],
             deadlines: dict[str, int]) -> dict[str, Any]:
        """The next message of a member taking updates. A player has a feed of its own (a new
        one when it resumes: its first view is whole). The spectators share one; one joining
        gets the whole view the others are at."""
        state = self.state
        assert state is not None
        feed = self.feeds.get(member)
        if joining or feed is None or feed.seat != seat:
            if seat is not None:
                feed = ViewFeed(seat, compact="compact" in member.features)
            elif self.watching.state is state:
                self.feeds[member] = self.watching
                return self.watching.full(deadlines)
            else:  # no one watches with updates: every watcher is at the state (flush_views)
                feed = self.watching = ViewFeed(None)
            self.feeds[member] = feed
        return feed.message(state, self.common.of(state), legal, deadlines)

    def replay(self) -> dict[str, Any]:
        """Seed, seats, Masters, modules and every accepted action: `new_game` (given the keys
        named as its arguments) + `play` rebuild the game exactly. Sent only once the game is
        over, when nothing is hidden any more."""
        return {
            "format": REPLAY_FORMAT, "room": self.name, "seed": self.seed,
            "classes": [s.cls for s in self.seats], "masters": list(self.masters),
            "servants": [s.servant for s in self.seats],
            "day_limit": self.options["day_limit"], "priority_phase": self.priority_phase,
            "modules": list(self.modules),
            "options": copy.deepcopy(self.module_options), "room_options": dict(self.options),
            "actions": list(self.actions),
        }

    def broadcast_room(self) -> None:
        msg = message("room", room=self.public())
        for member, seat in self.members:
            chosen = seat is not None and self.state is None and self.seats[seat].servant
            member.send(message("room", room=self.public(seat)) if chosen else msg)

    # --- pausing: a campaign spans evenings ---------------------------------------------------
    def time_left(self) -> dict[int, float]:
        """Seconds left on each prompted seat's timer (frozen while the game is paused)."""
        if self.paused is not None:
            return {seat: left for seat, (_kind, left) in self.paused.items()}
        now = self.clock.seconds()
        return {seat: d.due - now for seat, d in self.deadlines.items()}

    def may_resume(self, member: Member) -> bool:
        """The owner resumes; while the owner is away, any seated player may (a table does
        not wait for a player who may never come back)."""
        seat = self.seat_of(member)
        owner = self.seats[self.owner]
        return seat is not None and (seat == self.owner or owner.member is None)

    def pause(self, by: str) -> None:
        """Stop the game: every timer keeps the time it had left, bots and grace periods
        stop, actions are refused (chat goes on). Written to the store, so a restart keeps the
        room paused. Pausing is no action of the game: the log and the replay do not change."""
        if self.state is None:
            raise ProtocolError("game_not_started", "only a started game can be paused")
        if self.state.over:
            raise ProtocolError("game_over", "the game is over")
        if self.paused is not None:
            raise ProtocolError("room_paused", "the game is paused already")
        self._freeze()
        for call in self.bot_calls.values():
            if call.active():
                call.cancel()
        self.bot_calls.clear()
        for seat in self.seats:  # a dropped player's grace starts over at the resume
            if seat.away is not None and seat.away.active():
                seat.away.cancel()
            seat.away = None
        audit("pause", room=self.id, by=by)
        self._notice(message("room_paused", by=by))

    def resume_game(self, by: str) -> None:
        """Go on where the pause stopped: each timer with the time it had left; a player
        not back has its grace period from now."""
        if self.paused is None:
            raise ProtocolError("not_paused", "the game is not paused")
        self._thaw()
        self.store.save_pause(self.id, None)
        for seat in self.seats:
            if seat.kind == "human" and seat.member is None and not seat.takeover:
                seat.away = self.clock.callLater(GRACE, self._grace_over, seat.index)
        audit("resume_game", room=self.id, by=by)
        self._notice(message("room_resumed", by=by))
        self._schedule_bots()

    def _freeze(self) -> None:
        """Every timer stopped, its time left kept (in memory and in the store)."""
        now = self.clock.seconds()
        self.paused = {s: (d.kind, max(0.0, d.due - now)) for s, d in self.deadlines.items()}
        for seat in list(self.deadlines):
            self._cancel(seat)
        self.store.save_deadlines(self.id, {})
        self.store.save_pause(self.id, self.paused)

    def _thaw(self) -> None:
        """Every prompted seat's timer armed again with the time it had left."""
        left, self.paused = self.paused or {}, None
        now = self.clock.seconds()
        self._arm_timers(restored={s: (kind, now + secs) for s, (kind, secs) in left.items()})

    def _notice(self, msg: dict[str, Any]) -> None:
        """Every member hears of the pause or the resume, then gets the room, and the state it
        is at with its legal actions and clocks now (a member taking updates: an update of
        the same state)."""
        self.flush_views()
        for member, _seat in self.members:
            member.send(msg)
        self.broadcast_room()
        deadlines = self._deadlines()
        for member, seat in self.members:
            feed = self.feeds.get(member)
            if "updates" in member.features and feed is not None and feed.state is self.state:
                member.send(feed.again(self._legal(seat), deadlines))
            else:
                self._sync(member, seat, deadlines=deadlines)

    # --- timers ----------------------------------------------------------------------------------
    def _timeout(self, timer: str) -> float:
        option = "priority_s" if timer == "priority" else PROMPTS[timer].timer
        return float(self.options[option])

    def _epoch(self) -> tuple:
        s = self.state
        b = s.battle
        return (s.day, s.turn, b.round if b else -1, b.cursor if b else -1)

    def _arm_timers(self, restored: dict[int, tuple[str, float]] | None = None) -> None:
        """Each prompted seat has a deadline; a new prompt (another kind, turn, round or
        activation) arms a new one; a seat no longer prompted loses its own."""
        state = self.state
        prompt = state.prompt
        now = self.clock.seconds()
        epoch = self._epoch()
        for seat in list(self.deadlines):
            if seat not in prompt.seats:
                self._cancel(seat)
        # a seat's timer: its prompt's kind, or `priority` while it may still make a priority
        # declaration in the turn's priority phase (a declaration window's: day 0's prompts
        # come before the first window and run on their own timers)
        phase = priority_seats(state) if prompt.kind == "declare" else frozenset()
        for seat in prompt.seats:
            timer = "priority" if seat in phase else prompt.kind
            current = self.deadlines.get(seat)
            if current is not None and current.kind == timer and current.epoch == epoch \
                    and current.running():  # (one that expired gets a new one, never 0:00)
                continue
            since, opened = state.version, now
            if current is not None:
                if current.kind == "priority" != timer and current.epoch == epoch:
                    # its phase ended: the window's clock runs from the window's opening
                    since, opened = current.since, current.due - self._timeout(current.kind)
                self._cancel(seat)
            if restored and seat in restored and restored[seat][0] == timer:
                due = restored[seat][1]
            else:
                due = opened + self._timeout(timer)
            deadline = Deadline(timer, epoch, due, since)
            deadline.calls.append(self.clock.callLater(max(0.0, due - now), self._expire, seat))
            for before in WARNINGS:
                if due - before > now:
                    deadline.calls.append(self.clock.callLater(due - before - now, self._warn,
                                                               seat, before))
            self.deadlines[seat] = deadline
        self.store.save_deadlines(self.id, {s: (d.kind, d.due) for s, d in self.deadlines.items()})

    def _cancel(self, seat: int, forget: bool = True) -> None:
        """Stop the seat's timer; `forget=False` keeps its record (an expiry: the window's
        clock goes on from it)."""
        deadline = self.deadlines.pop(seat) if forget else self.deadlines.get(seat)
        for call in deadline.calls if deadline is not None else ():
            if call.active():
                call.cancel()

    def _warn(self, seat: int, seconds: int) -> None:
        msg = message("warning", seat=seat, seconds=seconds)
        for member, _ in self.members:
            member.send(msg)

    def _expire(self, seat: int) -> None:
        """The seat's time ran out: the server issues its default action (declare → Wait; in
        the priority phase, PassPriority). The deadline stays on record until the timers are
        armed again, so that the window's clock goes on from the phase's start."""
        self._cancel(seat, forget=False)
        state = self.state
        if state is None or state.over or seat not in state.prompt.seats:
            self.deadlines.pop(seat, None)
            return
        try:
            self._commit(default_action(state, seat), "timer")
        except Exception:  # nobody to answer: log it, and let the bot or a new timer go on
            log.failure("timer of room {room} seat {seat}", room=self.id, seat=seat)
            self.deadlines.pop(seat, None)
            self._arm_timers()
            self._schedule_bots()

    # --- bots ----------------------------------------------------------------------------------
    def _schedule_bots(self) -> None:
        state = self.state
        if state is None or state.over or self.paused is not None:
            return
        delay = self._bot_delay()
        for seat in state.prompt.seats:
            if self.seats[seat].bot_plays and seat not in self.bot_calls:
                self.bot_calls[seat] = self.clock.callLater(delay, self._bot_move, seat)

    def _bot_delay(self) -> float:
        """BOT_DELAY; in a battle no human fights in, the room's `bot_pace_ms` instead, so that
        the people watching it can follow each step (0: as fast as the bots go)."""
        b = self.state.battle
        if b is None or not all(self.seats[x].bot_plays for x in b.seats):
            return self.bot_delay
        return self.bot_pace if self.bot_pace is not None else self.options["bot_pace_ms"] / 1000

    def _bot_move(self, seat: int) -> None:
        """A bot answers its seat's prompt. A searching bot thinks through `self.think` (worker
        processes in the real server, server/thinking.py), one search of this room at a time,
        so the reactor keeps serving every room meanwhile; in a room no person is in, it plays
        at the normal level instead, at once (nobody is there to be challenged)."""
        self.bot_calls.pop(seat, None)
        state = self.state
        if state is None or state.over or seat not in state.prompt.seats:
            return
        if not self.seats[seat].bot_plays or seat in self.thinking:
            return
        level = self.seats[seat].level
        seed = self.seed * 7 + seat
        if searches(level) and not self.empty:
            if self.thinking:  # this room's search in flight: its answer schedules this one
                return
            view, legal = view_for(state, seat), legal_actions(state, seat)
            self.thinking.add(seat)
            decided = self.think(decide, level, seed * 100_003 + state.version,
                                 self.options["bot_ms"], view, [wire_form(a) for a in legal])
            decided.addCallback(from_dict)
        else:
            key = (seat, "normal" if searches(level) else level)
            bot = self.bots.get(key)
            if bot is None:
                bot = self.bots[key] = room_bot(key[1], seed, self.options["bot_ms"])
            view = view_for(state, seat) if bot.needs_view else None
            self.thinking.add(seat)
            decided = maybeDeferred(bot.choose, view, legal_actions(state, seat))
        decided.addCallbacks(self._bot_chose, self._bot_failed, (seat, state), None,
                             (seat, state), None)

    def _bot_chose(self, action: Action, seat: int, state: GameState) -> None:
        self.thinking.discard(seat)
        if self.paused is not None:  # paused while it thought: the resume asks again
            return
        if self.state is not state:  # the game moved on while it thought: think again
            self._schedule_bots()
            return
        try:
            self._commit(action, "bot")
        except Exception:
            self._bot_failed(Failure(), seat, state)

    def _bot_failed(self, failure: Failure, seat: int, state: GameState) -> None:
        """A bot bug must not stop the room: log it, and the seat's default action instead."""
        self.thinking.discard(seat)
        log.failure("bot of room {room} seat {seat}", failure, room=self.id, seat=seat)
        if self.state is state:
            self._expire(seat)

    def stop(self) -> None:
        """Cancel every pending call (server shutdown, tests)."""
        if self.broadcasts is not None:
            self.broadcasts.discard(self)
        for seat in list(self.deadlines):
            self._cancel(seat)
        for call in self.bot_calls.values():
            if call.active():
                call.cancel()
        self.bot_calls.clear()
        for seat in self.seats:
            if seat.away is not None and seat.away.active():
                seat.away.cancel()


def game_modules(options: dict[str, Any]) -> tuple[tuple[str, ...], dict[str, dict[str, Any]]]:
    """The modules a room's game switches on and their options, resolved (`normalize`): a fault
    is a bad_field error naming `modules` or `options`, before anything is stored."""
    modules = options.get("modules", ())
    try:
        normalize(modules)
    except ValueError as err:
        raise ProtocolError("bad_field", f"modules: {err}", "modules") from err
    try:
        return normalize(modules, options.get("options"))
    except ValueError as err:
        raise ProtocolError("bad_field", f"options: {err}", "options") from err
