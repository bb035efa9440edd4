"""Several server processes, one lobby: presence and the room directory in Redis (redis-py).

Each process stamps its presence (`<prefix>proc:<address>`, its public address and room count,
expiring after the lease time) and writes a line per room it owns into one hash
(`<prefix>rooms`: id → owner's address and the room's summary); every change is published on
`<prefix>events` at once, and the whole directory is read again at every beat, so the lobby of
every process lists every room of the cluster. A room lives on the process that holds its
lease (PostgreSQL, pgstore.py): a client asking another process for it is sent there
(`redirect`), and a new room is made on the process with the fewest rooms.

Redis is only ever called off the reactor's thread (one thread of its own, so the calls keep
their order); what comes back is applied on the reactor's thread. A process that cannot reach
Redis for a lease time gives its rooms up (`healthy` goes False): the others see it gone and
adopt them, and it adopts nothing until it reaches Redis again.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import redis
from twisted.internet.defer import Deferred
from twisted.internet.threads import deferToThreadPool
from twisted.logger import Logger
from twisted.python.threadpool import ThreadPool

log = Logger()
PREFIX = "grailwar:"
# A beat's read of the directory: live processes (address → room count), the seconds each
# one's presence had left, and the rooms (id → owner's address, summary).
Directory = tuple[dict[str, int], dict[str, float], dict[int, tuple[str, dict[str, Any]]]]


class Presence:
    """This process in the cluster's directory, and the directory as last read."""

    def __init__(self, reactor: Any, url: str, address: str, ttl: float,
                 prefix: str = PREFIX) -> None:
        self.reactor = reactor
        self.address = address  # host:port, as clients reach this process
        self.ttl = ttl
        self.prefix = prefix
        self.redis = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        self.pool = ThreadPool(1, 1, name="grailwar-redis")
        self.pool.start()
        self.live: dict[str, int] = {}  # every live process's address → its room count
        # when each one's presence runs out, unless it stamps it again (a dead one's: its
        # lease lapses about then, and nobody is sent to it past that)
        self.until: dict[str, float] = {}
        self.remote: dict[int, tuple[str, dict[str, Any]]] = {}  # others' rooms
        self.last_ok = reactor.seconds()
        self.subscriber: Any = None

    def _call(self, work: Any, *args: Any) -> Deferred:
        return deferToThreadPool(self.reactor, self.pool, work, *args)

    @property
    def healthy(self) -> bool:
        """Reached Redis within the lease time: this process may hold and adopt rooms."""
        return self.reactor.seconds() - self.last_ok < self.ttl

    # --- listening --------------------------------------------------------------------------
    def listen(self) -> None:
        """Changes published by the other processes, applied as they come."""
        pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        pubsub.subscribe(**{self.prefix + "events": self._published})
        self.subscriber = pubsub.run_in_thread(sleep_time=0.05, daemon=True,
                                               exception_handler=self._listen_failed)

    def _listen_failed(self, err: Exception, pubsub: Any, thread: Any) -> None:
        """Redis went away: the subscription stops (said once); the directory is read at
        every beat meanwhile, and the first beat that reaches Redis again subscribes anew."""
        thread.stop()
        pubsub.close()
        self.subscriber = None
        log.warn("the Redis subscription was lost ({err}); the directory is read at every "
                 "beat until Redis is back", err=str(err))

    def _published(self, event: dict[str, Any]) -> None:
        self.reactor.callFromThread(self._apply, json.loads(event["data"]))

    def _apply(self, change: dict[str, Any]) -> None:
        address, room = change["address"], int(change["room"])
        if address == self.address:
            return
        if change.get("summary") is None:
            if self.remote.get(room, ("",))[0] == address:
                del self.remote[room]
        else:
            self.remote[room] = (address, change["summary"])

    # --- writing ------------------------------------------------------------------------------
    def publish(self, room: int, summary: dict[str, Any] | None) -> Deferred:
        """A room of this process appeared, changed (its summary) or went (None)."""
        change = json.dumps({"room": room, "address": self.address, "summary": summary})
        key, rooms = self.prefix + "events", self.prefix + "rooms"

        def work() -> None:
            with self.redis.pipeline() as pipe:
                if summary is None:
                    pipe.hdel(rooms, room)
                else:
                    pipe.hset(rooms, room, change)
                pipe.publish(key, change)
                pipe.execute()

        return self._call(work).addErrback(self._failed)

    def beat(self, summaries: dict[int, dict[str, Any]]) -> Deferred:
        """Stamp this process's presence, write its rooms' lines, read the directory back."""
        me = self.prefix + "proc:" + self.address
        lines = {room: json.dumps({"room": room, "address": self.address, "summary": summary})
                 for room, summary in summaries.items()}

        def work() -> Directory:
            with self.redis.pipeline() as pipe:
                pipe.set(me, len(summaries), px=int(self.ttl * 1000))
                if lines:
                    pipe.hset(self.prefix + "rooms", mapping=lines)
                pipe.execute()
            names = list(self.redis.scan_iter(self.prefix + "proc:*", count=1000))
            with self.redis.pipeline() as pipe:
                for name in names:
                    pipe.get(name)
                    pipe.pttl(name)
                found = pipe.execute()
            live, left = {}, {}
            for name, count, ms in zip(names, found[::2], found[1::2], strict=True):
                if count is not None and ms > 0:
                    address = name.decode()[len(self.prefix) + 5:]
                    live[address], left[address] = int(count), ms / 1000
            rooms = {}
            for raw in self.redis.hgetall(self.prefix + "rooms").values():
                line = json.loads(raw)
                rooms[int(line["room"])] = (line["address"], line["summary"])
            return live, left, rooms

        return self._call(work).addCallbacks(self._read, self._failed)

    def _read(self, found: Directory) -> bool:
        """The directory as a beat read it: each live process, the seconds its presence had
        left then, and the rooms."""
        if self.subscriber is None:  # Redis is back: so are the published changes
            self._call(self.listen).addErrback(self._failed)
        self.live, left, rooms = found
        now = self.reactor.seconds()
        self.until = {address: now + seconds for address, seconds in left.items()}
        self.remote = {room: line for room, line in rooms.items() if line[0] != self.address}
        self.last_ok = self.reactor.seconds()
        return True

    def _failed(self, failure: Any) -> bool:
        log.warn("Redis is out of reach: {why}", why=failure.getErrorMessage())
        return False

    # --- reading (the reactor's thread, from the last beat) ----------------------------------
    def alive(self, address: str) -> bool:
        """The process at `address` stamped its presence within the lease time: a process
        that stopped stamping (killed, cut off) is not, from the moment its presence runs out,
        even before the next beat reads the directory again."""
        return self.until.get(address, 0.0) > self.reactor.seconds()

    def owner_of(self, room: int) -> str | None:
        """The live process that owns `room`, if another does."""
        line = self.remote.get(room)
        return line[0] if line is not None and self.alive(line[0]) else None

    def listed(self) -> list[dict[str, Any]]:
        """The other live processes' rooms."""
        return [summary for _room, (address, summary) in sorted(self.remote.items())
                if self.alive(address)]

    def least_loaded(self, mine: int) -> str:
        """Where a new room goes: the live process with the fewest rooms, if it has at least
        two fewer than this one (the counts are a beat old: one room more or less is no
        reason to send a player away). It is counted one room more at once, so that two
        processes that each think the other emptier send a player back and forth once at
        most, and a burst of new rooms spreads instead of landing on one process."""
        others = [(count, address) for address, count in self.live.items()
                  if address != self.address and self.alive(address)]
        count, best = min(others, default=(mine, self.address))
        if count > mine - 2:
            return self.address
        self.live[best] = count + 1
        return best

    def stop(self) -> None:
        if self.subscriber is not None:
            self.subscriber.stop()
        with contextlib.suppress(redis.RedisError):  # else it expires on its own
            self.redis.delete(self.prefix + "proc:" + self.address)
        self.pool.stop()
