"""The lobby: every room on this server, and the limits that protect them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import islice
from typing import TYPE_CHECKING, Any

from twisted.internet.defer import Deferred, maybeDeferred
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger

from ..shared.protocol import BOT_DELAY, MAX_LISTED, ProtocolError
from .addresses import Network
from .audit import audit
from .bans import Bans
from .broadcasts import Broadcasts
from .limits import AddressLimit, PasswordGuard
from .room import Room
from .roomstore import RoomStore
from .seating import Member

if TYPE_CHECKING:
    from .cluster import Presence

log = Logger()
MAX_PER_ADDRESS = 16  # connections from one address (a bench or a LAN party behind NAT: raise)
MAX_ROOMS = 1000
ROOMS_PER_ADDRESS = 4  # open rooms created from one address
MAX_QUEUED = 1024 * 1024  # bytes waiting for a client that does not read, before it is cut
HANDSHAKE_TIMEOUT = 10.0  # seconds from connecting to a complete `hello`
IDLE_TIMEOUT = 120.0  # seconds without a complete frame (clients ping every 30 s)
JOINS_PER_ADDRESS = 20  # create_room + join_room + resume per JOINS_PER seconds, per address
JOINS_PER = 10.0
CONNECTS_PER_ADDRESS = 30  # new connections per CONNECTS_PER seconds, per address
CONNECTS_PER = 10.0
CREATES_PER_ADDRESS = 10  # create_room per CREATES_PER seconds, per address
CREATES_PER = 60.0


class Elsewhere(Exception):
    """The room (or a new room: `room` 0) belongs on another server of the cluster."""

    def __init__(self, address: str, room: int) -> None:
        super().__init__(f"room {room} lives on {address}")
        self.address = address
        self.room = room


class RoomDamaged(Exception):
    """A stored room whose log does not replay; the message says why."""


def replay_room(reader: RoomStore, room_id: int, clock: IReactorTime, store: RoomStore,
                downtime: float = 0.0) -> Room:
    """One stored room rebuilt (its log replayed, its timers armed on `clock` with `downtime`
    seconds more than they had left, writing to `store`); any failure (a field that no longer
    decodes, an action the engine refuses) is damage: RoomDamaged."""
    try:
        row = reader.load_room(room_id)
        row.deadlines = {seat: (kind, due + downtime)
                         for seat, (kind, due) in row.deadlines.items()}
        return Room.restore(row, clock, store)
    except Exception as err:
        raise RoomDamaged(f"{type(err).__name__}: {err}") from err


class Lobby:
    def __init__(self, clock: IReactorTime, store: RoomStore, max_rooms: int = MAX_ROOMS,
                 max_per_address: int = MAX_PER_ADDRESS,
                 rooms_per_address: int = ROOMS_PER_ADDRESS,
                 think: Callable[..., Deferred] = maybeDeferred, max_queued: int = MAX_QUEUED,
                 handshake_timeout: float = HANDSHAKE_TIMEOUT,
                 idle_timeout: float = IDLE_TIMEOUT, joins_per_address: int = JOINS_PER_ADDRESS,
                 creates_per_address: int = CREATES_PER_ADDRESS,
                 connects_per_address: int = CONNECTS_PER_ADDRESS,
                 trusted_proxies: tuple[Network, ...] = (),
                 defer_views: bool = False, bot_delay: float = BOT_DELAY,
                 bot_pace: float | None = None) -> None:
        self.clock = clock
        # the server's rooms send their views after the ack has left, in turns
        self.broadcasts = Broadcasts(clock) if defer_views else None
        self.store = store
        self.max_rooms = max_rooms
        self.max_per_address = max_per_address
        self.rooms_per_address = rooms_per_address
        self.max_queued = max_queued
        self.handshake_timeout = handshake_timeout
        self.idle_timeout = idle_timeout
        # Counted per address, so that reconnecting does not reset them.
        self.join_limit = AddressLimit(clock, joins_per_address, JOINS_PER, "room joins")
        self.create_limit = AddressLimit(clock, creates_per_address, CREATES_PER, "new rooms")
        # New connections: an address that opens thousands a second is refused before any
        # protocol is built for them (each cost a handshake's work and an error frame).
        self.connect_limit = AddressLimit(clock, connects_per_address, CONNECTS_PER,
                                          "new connections")
        # Load balancers whose connections start with a PROXY header naming the client
        # (`proxyheader`): every limit and ban then applies to the client's address.
        self.trusted_proxies = trusted_proxies
        self.passwords = PasswordGuard(clock)
        self.think = think  # how rooms run searching bots (a thread pool in the real server)
        self.bot_delay, self.bot_pace = bot_delay, bot_pace  # its rooms' (`BotDriver`)
        self.rooms: dict[int, Room] = {}
        self.quarantined: dict[int, str] = {}  # room id -> why its log does not replay
        self.addresses: Counter[str] = Counter()
        self.creators: dict[int, str] = {}
        self.bans = Bans(store, clock)
        self.motd = store.motd()  # the operator's message of the day, sent in `welcome`
        self.presence: Presence | None = None  # the cluster (server/cluster.py), if any
        # Whether a cluster server's room leases are surely still its own (set by the server
        # on PostgreSQL: `GrailService._lease_fresh`); a file's rooms are always this server's.
        self.lease_fresh: Callable[[], bool] = lambda: True

    def restore(self) -> None:
        """Bring back every open room of the store this server may own (with PostgreSQL,
        those whose lease no other live server holds), its game replayed and timers re-armed.
        A room whose log does not replay is quarantined: left as stored (a repaired database
        brings it back at the next start), refused to its players with `room_quarantined`."""
        for room_id in self.store.open_room_ids():
            self.adopt_stored(room_id)

    @property
    def may_adopt(self) -> bool:
        """Alone, always; in a cluster, only while this server reaches the directory."""
        return self.presence is None or self.presence.healthy

    def adopt_stored(self, room_id: int) -> Room | None:
        """Claim a stored room and bring it back; None if another server holds it, or its log
        does not replay (then it is quarantined)."""
        if not self.may_adopt:
            return None
        downtime = self.store.claim(room_id)
        if downtime is None:
            return None
        try:
            room = replay_room(self.store, room_id, self.clock, self.store, downtime)
        except RoomDamaged as err:  # one damaged log must not keep the other rooms down
            self.quarantined[room_id] = str(err)
            self.store.release(room_id)
            log.error("room {room} is quarantined: its stored log does not replay "
                      "({why}); it is kept as stored, `grailwar db check` lists it",
                      room=room_id, why=self.quarantined[room_id])
            return None
        self._adopt(room)
        return room

    def _adopt(self, room: Room) -> None:
        """A room created or restored joins the lobby and runs as this server runs rooms."""
        room.broadcasts = self.broadcasts
        driver = room.bot_driver
        driver.think, driver.delay, driver.pace = self.think, self.bot_delay, self.bot_pace
        room.on_lost = self.give_up
        self.rooms[room.id] = room
        self._announce(room)

    def pace_bots(self, delay: float, pace: float | None) -> None:
        """How long every room's bots wait from now on (`BotDriver.delay`, `.pace`): a local
        game's tests and tour play fast."""
        self.bot_delay, self.bot_pace = delay, pace
        for room in self.rooms.values():
            room.bot_driver.delay, room.bot_driver.pace = delay, pace

    def _announce(self, room: Room, gone: bool = False) -> None:
        """The cluster's directory hears of a room of this server appearing or going."""
        if self.presence is not None:
            self.presence.publish(room.id, None if gone else room.summary())

    def give_up(self, room: Room, why: str) -> None:
        """The room stops here, not closed: its store refused an action, or its lease moved to
        another server. Its members are let go (`left`, reason `room_moved`: they resume their
        seats, the client at once) and the room is claimed again from its log at the next
        turn, by this server if nobody else holds it."""
        if self.rooms.get(room.id) is not room:
            return
        room.lost = room.lost or why
        for member, _seat in room.members:
            member.left("room_moved")
        room.stop()
        del self.rooms[room.id]
        self.store.release(room.id)
        self._announce(room, gone=True)
        audit("room_moved", room=room.id, why=why)
        self.clock.callLater(0, self._reclaim, room.id)

    def _reclaim(self, room_id: int) -> None:
        if room_id in self.rooms:
            return
        try:
            self.adopt_stored(room_id)
        except Exception:  # the database is away: a later adoption round tries again
            log.failure("room {room} could not be claimed back", room=room_id)

    def turns_away(self, address: str, **context: str) -> bool:
        """A new connection from `address` is refused before anything is read: the address is
        banned (audited, with `context`), or past its rate of new connections (not logged
        each time: a flood's own cost)."""
        if self.bans.refuses(address):
            audit("refused", addr=address, why="banned", **context)
            return True
        return not self.connect_limit.allow(address)

    def connect(self, address: str) -> None:
        if self.addresses[address] >= self.max_per_address:
            raise ProtocolError("too_many_connections", f"at most {self.max_per_address} "
                                "connections from one address")
        self.addresses[address] += 1

    def disconnect(self, address: str, member: Member, room: Room | None) -> None:
        self.addresses[address] -= 1
        if self.addresses[address] <= 0:
            del self.addresses[address]
        if room is not None:
            room.disconnect(member)
            self._close_if_abandoned(room)

    def leave(self, member: Member, room: Room) -> str:
        """The member leaves; returns the `left` reason it is told."""
        reason = room.leave(member)
        self._close_if_abandoned(room)
        return reason

    def _close_if_abandoned(self, room: Room) -> None:
        """A room nobody will come back to (no member, and no player seat or a finished game)
        is closed. A paused room is kept, empty or not, until it is resumed or the operator
        closes it."""
        over = room.state is not None and room.state.over
        players = any(s.kind == "human" for s in room.seats)
        if room.empty and room.paused is None and (over or not players):
            self._close(room, "over" if over else "abandoned")

    def _close(self, room: Room, why: str) -> None:
        """Stop the room and close it in the store (a finished game's retention counts from
        now); `why` goes to the audit log: abandoned, over or operator."""
        over = room.state is not None and room.state.over
        room.stop()
        self.store.close_room(room.id, self.clock.seconds() if over else None)
        del self.rooms[room.id]
        self._announce(room, gone=True)
        self.creators.pop(room.id, None)
        audit("room_close", room=room.id, why=why)

    def kick(self, room_id: int, seat: int) -> None:
        """The operator kicks a seat's player (the owner too); a room left empty closes."""
        room = self.room(room_id)
        room.kick(seat, by="operator")
        self._close_if_abandoned(room)

    def pause(self, room_id: int) -> None:
        """The operator pauses a room's game (as its owner could)."""
        self.room(room_id).pause("operator")

    def resume(self, room_id: int) -> None:
        """The operator resumes a paused game; one nobody will come back to then closes."""
        room = self.room(room_id)
        room.resume_game("operator")
        self._close_if_abandoned(room)

    def close(self, room_id: int, reason: str) -> None:
        """End a room now (the operator): every member is told `left` with `reason`. A
        quarantined room is closed in the store."""
        if self.quarantined.pop(room_id, None) is not None:
            self.store.close_room(room_id)
            audit("room_close", room=room_id, why="operator")
            return
        room = self.room(room_id)
        for member, _seat in room.members:
            member.left(reason)
        self._close(room, "operator")

    def sweep(self) -> None:
        """Close every abandoned room (finished games nobody watches any more)."""
        for room in list(self.rooms.values()):
            self._close_if_abandoned(room)

    def list(self, offset: int = 0) -> tuple[list[dict[str, Any]], int]:
        """At most MAX_LISTED room summaries from `offset`, and how many rooms there are: this
        server's, then (in a cluster) the other servers' as the directory last said. Only the
        rooms listed are summed up: any client may ask twenty times a second, and summing up
        every room of a full server (1,000) for each ask cost milliseconds."""
        listed = [room.summary() for room in islice(self.rooms.values(), offset,
                                                    offset + MAX_LISTED)]
        others = [] if self.presence is None else [
            s for s in self.presence.listed() if s["id"] not in self.rooms]
        start = max(0, offset - len(self.rooms))
        listed += others[start:start + MAX_LISTED - len(listed)]
        return listed, len(self.rooms) + len(others)

    def create(self, name: str, options: dict[str, Any], password: str | None,
               address: str = "") -> Room:
        if self.presence is not None:  # a new room goes to the least loaded server
            target = self.presence.least_loaded(len(self.rooms))
            if target != self.presence.address:
                raise Elsewhere(target, 0)
        self.sweep()
        if len(self.rooms) >= self.max_rooms:
            raise ProtocolError("server_full", f"this server holds at most {self.max_rooms} rooms")
        if sum(1 for a in self.creators.values() if a == address) >= self.rooms_per_address:
            raise ProtocolError("server_full", f"at most {self.rooms_per_address} open rooms "
                                "created from one address")
        room_id = max(self.store.next_room_id(), max(self.rooms, default=0) + 1)
        self.store.claim(room_id)
        room = Room.create(room_id, name, options, self.clock, self.store, password)
        self._adopt(room)
        self.creators[room_id] = address
        audit("room_open", room=room_id, name=name, addr=address)
        return room

    def room(self, room_id: int) -> Room:
        room = self.rooms.get(room_id)
        if room is not None and not self.lease_fresh():  # no member may see two owners
            self.give_up(room, "its lease may have lapsed")
            room = None
        if room is None and self.presence is not None:
            if room_id in self.presence.remote:
                owner = self.presence.owner_of(room_id)
                if owner is not None:
                    raise Elsewhere(owner, room_id)
                raise ProtocolError("room_moving", f"room {room_id}'s server stopped; another "
                                    "server adopts it within seconds: ask again")
            if self._open_in_store(room_id):
                raise ProtocolError("room_moving", f"room {room_id} has no server now (its "
                                    "server gave it up, or the database is away); a server "
                                    "adopts it within seconds: ask again")
        if room is None and room_id in self.quarantined:
            raise ProtocolError("room_quarantined", f"room {room_id}'s log is damaged; the "
                                "server's operator has been told")
        if room is None:
            raise ProtocolError("room_not_found", f"no room {room_id}")
        return room

    def _open_in_store(self, room_id: int) -> bool:
        """A cluster's room that no server serves now: open in the database, or perhaps open
        while the database cannot say (a resume waits then, it is not told `room_not_found`,
        which would cost the player the seat)."""
        try:
            return self.store.is_open(room_id)
        except Exception:
            return True

    def check_password(self, room: Room, password: str | None, address: str) -> None:
        """`wrong_password`, counted per room and address; repeated failures lock out."""
        self.passwords.check(room.id, address)
        try:
            room.check_password(password)
        except ProtocolError:
            self.passwords.failed(room.id, address)
            raise
        self.passwords.passed(room.id, address)

    def stop(self) -> None:
        for room in self.rooms.values():
            room.stop()
