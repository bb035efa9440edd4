"""What a room sends its members: the history of a member joining late, each member's events
(with the dice-bot log lines unless it asked `no_log`), its view whole or as an update (the
`updates` feature, `feeds.ViewFeed`), the room, and the pause's notices. A part
of `Room`, apart because the wire form a member gets is chosen here, by its features, and
nowhere else in the room.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from ..shared.engine import Action, Event, GameState, events_for, legal_actions, view_for
from ..shared.engine.sharing import Shared
from ..shared.engine.text import event_line
from ..shared.protocol import message
from .feeds import ViewFeed, wire_form
from .history import history_messages, seen_history
from .seating import Member, Seat

if TYPE_CHECKING:
    from .broadcasts import Broadcasts
    from .chat import ChatLog
    from .prompt_clock import PromptClock


class Delivery:
    """Sending to a room's members (mixed into `Room`, which holds the attributes annotated
    here)."""

    id: int
    name: str
    password: str | None
    seats: list[Seat]
    owner: int
    spectators: list[Member]
    options: dict[str, Any]
    modules: tuple[str, ...]
    module_options: dict[str, dict[str, Any]]
    summoning_choice: list[Any] | None  # [module, option, value] of a module's summoning
    state: GameState | None
    history: list[Event]
    chat_log: ChatLog
    timers: PromptClock
    broadcasts: Broadcasts | None
    _unsent: list
    feeds: dict[Member, ViewFeed]
    watching: ViewFeed
    shared: Shared | None

    def _send_history(self, member: Member, seat: int | None) -> None:
        """The game so far as `seat` may see it, and the chat lines it may read."""
        events, before = seen_history(self.history, seat)
        chat = [{**{k: v for k, v in msg.items() if k != "t"}, "after": before[n]}
                for n, msg in self.chat_log.seen_by(seat)]
        for msg in history_messages(events, chat):
            member.send(msg)

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
            member.send(message("state", view=view_for(state, seat, self._shared()),
                                legal=[wire_form(a) for a in legal], state_id=state.version,
                                deadlines=deadlines))
        if state.over:
            member.send(message("replay", replay=self.replay()))

    def _shared(self) -> Shared:
        """What the views of the room's state share: made with the first of them from the
        earlier state's, dropped when the state changes."""
        assert self.state is not None
        if self.shared is None or self.shared.state is not self.state:
            self.shared = Shared(self.state, self.shared)
        return self.shared

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
                feed = ViewFeed(seat)
            elif self.watching.state is state:
                self.feeds[member] = self.watching
                return self.watching.full(deadlines)
            else:  # no one watches with updates: every watcher is at the state (flush_views)
                feed = self.watching = ViewFeed(None)
            self.feeds[member] = feed
        return feed.message(state, self._shared(), legal, deadlines)

    def broadcast_room(self) -> None:
        msg = message("room", room=self.public())
        for member, seat in self.members:
            chosen = seat is not None and self.state is None and self.seats[seat].servant
            member.send(message("room", room=self.public(seat)) if chosen else msg)

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
            # the module that summons the Servants, if one does: [module, option, value]
            "summoned_by": self.summoning_choice,
            "seat_list": [{"seat": s.index, "cls": s.cls, "kind": s.kind, "name": s.name,
                           "level": s.level, "connected": s.member is not None,
                           "ready": s.kind == "bot" or s.ready,
                           "bot_playing": s.bot_plays} for s in self.seats],
        }
