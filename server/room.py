"""A room: its seats, members, chat, the game it runs, the timers and the bots. No sockets.

Members are anything with `send(message_dict)`; time comes from an injected `IReactorTime`.
Every accepted action goes through `_commit`: it is written to the store, then acknowledged,
then each member gets its own view (`view_for`) and the events it may see.
"""

from __future__ import annotations

import copy
import secrets
from collections.abc import Callable
from typing import Any

from twisted.internet.interfaces import IReactorTime
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
from ..shared.engine.modules import fewest_camps, normalize, summoned_by
from ..shared.engine.text import event_line
from ..shared.protocol import LEFT_PAUSED, SECONDS, ProtocolError, message
from .audit import audit
from .bot_driver import BotDriver
from .broadcasts import Broadcasts
from .chat import ChatLog, is_reveal
from .feeds import PublicPart, ViewFeed, wire_form
from .history import history_messages, seen_history
from .prompt_clock import PromptClock
from .roomstore import AppendRefused, RoomStore
from .seating import GRACE, Member, Seat, check_secret, check_token, hash_secret, hash_token

log = Logger()

# 2: `options` holds the modules' options (new_game's argument); the room's own, `room_options`
# 3: `servants`, each seat's summoned Servant (the roster)
# 4: `priority_phase`, whether each turn opened with a priority phase (docs/rules.md §3.3)
REPLAY_FORMAT = "grailwar-replay-4"


class Room:
    def __init__(self, room_id: int, name: str, options: dict[str, Any], clock: IReactorTime,
                 store: RoomStore, password: str | None = None, seed: int | None = None) -> None:
        self.id = room_id
        self.name = name
        self.options = {k: options.get(k, default) for k, (_lo, _hi, default) in SECONDS.items()}
        self.options["seats"] = options.get("seats", 7)
        self.options["day_limit"] = options.get("day_limit", 7)
        self.modules, self.module_options = game_modules(options)
        # A module that summons the Servants itself (`Module.summons`): the room's
        # own switch then has no Servant to choose (docs/rules.md "Summoning and day 0").
        self.summoned_by = summoned_by(self.modules, self.module_options)
        self.options["summoning"] = "random" if self.summoned_by else options.get(
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
        self.timers = PromptClock(clock, self.options, store, room_id, self._timed_out,
                                  self._warn)
        self.bot_driver = BotDriver()
        self.bot_level = "normal"  # of the bots added, and of those filling seats at the start
        self.actions: list[dict[str, Any]] = []  # every accepted action, for the replay
        # every event of the game, for the history of a member joining late (a restart
        # regenerates them by replaying the actions)
        self.history: list[Event] = []
        self.chat_log = ChatLog(room_id, store)
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
            room.timers.paused = row.paused
            if room.paused is not None:  # its timers, bots and graces wait for the resume
                return room
            for seat in room.seats:  # nobody is connected yet: each player's grace starts now
                if seat.kind == "human":
                    seat.away = clock.callLater(GRACE, room._grace_over, seat.index)
            room.timers.arm(room.state, restored=row.deadlines)
            room.bot_driver.schedule(room)
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
        """Empty seats get bots (at `bot_level`); the game begins from the room's seed."""
        if self.state is not None:
            raise ProtocolError("game_started", "the game has already started")
        for seat in self.seats:
            if seat.kind == "open":
                seat.kind, seat.cls, seat.level = "bot", self._free_class(), self.bot_level
                seat.name = f"bot ({self.bot_level})"
                self._save_seat(seat)
        self.state = self._new_game()
        self.masters = [c.master.id for c in self.state.camps]
        for seat, camp in zip(self.seats, self.state.camps, strict=True):
            # the room log keeps who was summoned (a module that deals summons again from
            # the seed: its Servants are of other classes than the lobby's)
            seat.servant = None if self.summoned_by else camp.servant.id
            self._save_seat(seat)
        self.store.save_room(self.id, True, self.owner, self.masters)
        self.broadcast_room()
        self._after_change([])

    def _new_game(self) -> GameState:
        servants = None if self.summoned_by else [s.servant for s in self.seats]
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
        self.commit(action, "seat", ack, refuse)

    def _same_prompt(self, seat: int, state_id: int) -> bool:
        """An action chosen on an older state still stands if the seat has been asked the same
        question since then (another camp declaring in the same window changes the state id,
        not this seat's choice); the engine still checks it is legal now."""
        return self.timers.same_prompt(seat, state_id, self.state.version)

    def commit(self, action: Action, source: str,
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
            self.timers.arm(self.state)
        else:  # an action in flight at the pause, durable now: the prompt it opened is frozen
            self.timers.thaw(self.state)
            self.timers.freeze()
        self._unsent.extend(events)
        if self.broadcasts is None:
            self.send_views()
        else:
            self.broadcasts.add(self)
        self.bot_driver.schedule(self)

    def send_views(self) -> None:
        if self.broadcasts is not None:
            self.broadcasts.discard(self)
        events, self._unsent = self._unsent, []
        deadlines = self.timers.shown()  # one clock reading for everyone (and one dict)
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
            deadlines = self.timers.shown()
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

    # --- pausing: a game spans evenings ------------------------------------------------------
    @property
    def paused(self) -> dict[int, tuple[str, float]] | None:
        """While the game is paused: each prompted seat's timer kind and the seconds it had
        left (`PromptClock.paused`); None while it runs."""
        return self.timers.paused

    def time_left(self) -> dict[int, float]:
        return self.timers.time_left()

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
        self.timers.freeze()
        self.bot_driver.cancel()
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
        self.timers.thaw(self.state)
        self.store.save_pause(self.id, None)
        for seat in self.seats:
            if seat.kind == "human" and seat.member is None and not seat.takeover:
                seat.away = self.clock.callLater(GRACE, self._grace_over, seat.index)
        audit("resume_game", room=self.id, by=by)
        self._notice(message("room_resumed", by=by))
        self.bot_driver.schedule(self)

    def _notice(self, msg: dict[str, Any]) -> None:
        """Every member hears of the pause or the resume, then gets the room, and the state it
        is at with its legal actions and clocks now (a member taking updates: an update of
        the same state)."""
        self.flush_views()
        for member, _seat in self.members:
            member.send(msg)
        self.broadcast_room()
        deadlines = self.timers.shown()
        for member, seat in self.members:
            feed = self.feeds.get(member)
            if "updates" in member.features and feed is not None and feed.state is self.state:
                member.send(feed.again(self._legal(seat), deadlines))
            else:
                self._sync(member, seat, deadlines=deadlines)

    # --- timers ----------------------------------------------------------------------------------
    def _warn(self, seat: int, seconds: int) -> None:
        msg = message("warning", seat=seat, seconds=seconds)
        for member, _ in self.members:
            member.send(msg)

    def _timed_out(self, seat: int) -> None:
        """The seat's time ran out (`PromptClock.expire`): the server issues its default action
        (declare → Wait; in the priority phase, PassPriority)."""
        state = self.state
        if state is None or state.over or seat not in state.prompt.seats:
            self.timers.forget(seat)
            return
        try:
            self.commit(default_action(state, seat), "timer")
        except Exception:  # nobody to answer: log it, and let the bot or a new timer go on
            log.failure("timer of room {room} seat {seat}", room=self.id, seat=seat)
            self.timers.forget(seat)
            self.timers.arm(state)
            self.bot_driver.schedule(self)

    def stop(self) -> None:
        """Cancel every pending call (server shutdown, tests)."""
        if self.broadcasts is not None:
            self.broadcasts.discard(self)
        self.timers.stop()
        self.bot_driver.cancel()
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
