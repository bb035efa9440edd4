"""A room: the game session it runs, made of its parts. No sockets.

Members are anything with `send(message_dict)`; time comes from an injected `IReactorTime`.
Every accepted action goes through `commit`: it is written to the store, then acknowledged,
then each member gets its own view (`view_for`) and the events it may see. The parts, each in a
file of its own: the seats and members (`membership.py`), what members are sent
(`delivery.py`), the pause (`pausing.py`), the prompt timers (`prompt_clock.py`) and the bots
(`bot_driver.py`).
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
    from_dict,
    new_game,
    play,
)
from ..shared.engine.modules import fewest_camps, normalize, summoned_by
from ..shared.engine.sharing import Shared
from ..shared.protocol import SECONDS, ProtocolError, message
from .bot_driver import BotDriver
from .broadcasts import Broadcasts
from .chat import ChatLog, is_reveal
from .delivery import Delivery
from .feeds import ViewFeed
from .membership import Membership
from .pausing import Pausing
from .prompt_clock import PromptClock
from .roomstore import AppendRefused, RoomStore
from .seating import GRACE, Member, Seat, hash_secret

log = Logger()

# 2: `options` holds the modules' options (new_game's argument); the room's own, `room_options`
# 3: `servants`, each seat's summoned Servant (the roster)
# 4: `priority_phase`, whether each turn opened with a priority phase (docs/rules.md §3.3)
REPLAY_FORMAT = "grailwar-replay-4"


class Room(Membership, Delivery, Pausing):
    """A room: its seats and members (`Membership`), what it sends them (`Delivery`), its pause
    (`Pausing`), its chat, and the game session: each action checked, made durable,
    acknowledged, then shown."""

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
        self.summoned_by, self.summoning_choice = summoned_by(self.modules, self.module_options)
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
        self.shared: Shared | None = None  # what the views of the latest state share
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
        at a later reactor turn (`server/broadcasts.py`): the acknowledgement was written
        before them, and every change made meanwhile (the other seats' timers, a bot)
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
