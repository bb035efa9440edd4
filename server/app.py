"""The server as a Twisted service: one store, one lobby, one listening port.

Starting restores every room from the database (its log replayed, its timers re-armed with the
time they had left when the server stopped). Stopping closes the port, lets every client's
connection go while the database is still open, cancels the timers and closes the database.
Both `grailwar serve` and the `twist grailwar` plugin run this service.
"""

from __future__ import annotations

import gc
import time
import weakref

try:
    import fcntl
except ImportError:  # Windows: no lock file
    fcntl = None  # type: ignore[assignment]
from typing import Any

from twisted.application.service import Service
from twisted.internet import defer, task, threads
from twisted.internet.interfaces import IListeningPort
from twisted.logger import Logger

from .lobby import (
    CREATES_PER_ADDRESS,
    HANDSHAKE_TIMEOUT,
    IDLE_TIMEOUT,
    JOINS_PER_ADDRESS,
    MAX_QUEUED,
    Lobby,
)
from .protocol import GrailFactory, GrailProtocol
from .store import Store

log = Logger()
DEFAULT_PORT = 7707
MAX_PER_ADDRESS = 16  # connections from one address (a bench or a LAN party behind NAT: raise)
MAX_ROOMS = 1000
ROOMS_PER_ADDRESS = 4  # open rooms created from one address
HEARTBEAT = 1.0  # seconds between "still alive" stamps; a crash costs players at most this much
CLOSE_TIMEOUT = 3.0  # seconds the clients' connections get to close at shutdown
# The cyclic garbage collector: CPython's default (700, 10, 10) collects the youngest
# generation every 700 net allocations, which in this server (each action builds seven views
# and their legal action lists) cost ~9% of the CPU and pauses of tens of milliseconds; with
# everything alive at start-up frozen out of its scans and a young generation of 10,000 it is
# ~1% (measured in-process with 200 rooms). Objects are still freed by reference counting.
GC_THRESHOLDS = (10_000, 10, 10)
GC_PAUSE_WARNING = 0.1  # seconds: a longer collection is logged


class TrackingFactory(GrailFactory):
    """The protocol factory, remembering its live connections so a stop can close them first."""

    def __init__(self, lobby: Lobby, clock: Any) -> None:
        super().__init__(lobby, clock)
        self.live: weakref.WeakSet[GrailProtocol] = weakref.WeakSet()

    def buildProtocol(self, addr: Any) -> GrailProtocol:
        proto = super().buildProtocol(addr)
        self.live.add(proto)
        return proto

    def connected(self) -> list[GrailProtocol]:
        return [p for p in list(self.live)
                if p.transport is not None and not getattr(p.transport, "disconnected", True)]


class GrailService(Service):
    """Starts by restoring every room from the database; stops by closing it cleanly."""

    name = "grailwar"

    def __init__(self, reactor: Any, db: str, host: str = "0.0.0.0", port: int = DEFAULT_PORT,
                 max_per_address: int = MAX_PER_ADDRESS, max_rooms: int = MAX_ROOMS,
                 rooms_per_address: int = ROOMS_PER_ADDRESS, max_queued: int = MAX_QUEUED,
                 handshake_timeout: float = HANDSHAKE_TIMEOUT,
                 idle_timeout: float = IDLE_TIMEOUT, joins_per_address: int = JOINS_PER_ADDRESS,
                 creates_per_address: int = CREATES_PER_ADDRESS, tune_gc: bool = True) -> None:
        self.reactor = reactor
        self.db = db
        self.host = host
        self.port = port
        self.max_per_address = max_per_address
        self.max_rooms = max_rooms
        self.rooms_per_address = rooms_per_address
        self.max_queued = max_queued
        self.handshake_timeout = handshake_timeout
        self.idle_timeout = idle_timeout
        self.joins_per_address = joins_per_address
        self.creates_per_address = creates_per_address
        self.tune_gc = tune_gc
        self.gc_pause = 0.0  # the longest collection since the last heartbeat
        self._gc_began = 0.0
        self.store: Store | None = None
        self.lobby: Lobby | None = None
        self.factory: TrackingFactory | None = None
        self.listening: IListeningPort | None = None
        self.heartbeat: task.LoopingCall | None = None
        self._lock_file: Any = None

    def _lock_database(self) -> None:
        """One server per database: a second one on the same file would interleave two logs.
        The lock (on `<db>.lock`) goes with the process, however it ends."""
        if self.db == ":memory:" or fcntl is None:
            return
        self._lock_file = open(f"{self.db}.lock", "a+b")  # noqa: SIM115 (held while running)
        try:
            fcntl.flock(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock_file.close()
            self._lock_file = None
            raise RuntimeError(f"another server is using the database {self.db}") from None

    def _unlock_database(self) -> None:
        if self._lock_file is not None:
            self._lock_file.close()  # closing releases the lock
            self._lock_file = None

    def startService(self) -> None:
        self._lock_database()
        try:
            store = Store(self.db)
        except Exception:
            self._unlock_database()
            raise
        try:
            # Downtime is not charged to the players: every saved deadline moves by it.
            downtime = store.resume_clock(self.reactor.seconds())
            lobby = Lobby(self.reactor, store, max_rooms=self.max_rooms,
                          max_per_address=self.max_per_address,
                          rooms_per_address=self.rooms_per_address, think=self._think,
                          max_queued=self.max_queued, handshake_timeout=self.handshake_timeout,
                          idle_timeout=self.idle_timeout,
                          joins_per_address=self.joins_per_address,
                          creates_per_address=self.creates_per_address)
            lobby.restore()
            factory = TrackingFactory(lobby, self.reactor)
            self.listening = self.reactor.listenTCP(self.port, factory, interface=self.host)
        except Exception:
            store.close()
            self._unlock_database()
            raise
        super().startService()
        self.store, self.lobby, self.factory = store, lobby, factory
        if self.tune_gc:
            gc.collect()
            gc.freeze()  # modules, rules data and the restored rooms: never scanned again
            gc.set_threshold(*GC_THRESHOLDS)
            gc.callbacks.append(self._gc_watch)
        self.heartbeat = task.LoopingCall(self._beat)
        self.heartbeat.clock = self.reactor
        self.heartbeat.start(HEARTBEAT, now=True)
        address = self.listening.getHost()
        log.info("grailwar server on {host}:{port}, database {db}, {rooms} room(s) restored "
                 "(server was down {downtime:.1f} s), at most {per} connection(s) per address",
                 host=address.host, port=address.port, db=self.db, rooms=len(lobby.rooms),
                 downtime=downtime, per=self.max_per_address)

    def _think(self, choose: Any, *args: Any) -> defer.Deferred:
        """A searching bot thinks in the reactor's thread pool, not in the reactor's thread."""
        return threads.deferToThreadPool(self.reactor, self.reactor.getThreadPool(), choose,
                                         *args)

    def _gc_watch(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_began = time.perf_counter()
        else:
            self.gc_pause = max(self.gc_pause, time.perf_counter() - self._gc_began)

    def _beat(self) -> None:
        if self.store is not None:
            self.store.mark_alive(self.reactor.seconds())
        if self.gc_pause >= GC_PAUSE_WARNING:
            log.warn("a garbage collection paused the server {ms:.0f} ms",
                     ms=self.gc_pause * 1e3)
        self.gc_pause = 0.0

    @property
    def address(self) -> Any:
        """The address actually listened on (port 0 asks the system for a free port)."""
        return self.listening.getHost() if self.listening is not None else None

    @defer.inlineCallbacks
    def stopService(self) -> Any:
        if not self.running:
            return
        super().stopService()
        if self.heartbeat is not None and self.heartbeat.running:
            self.heartbeat.stop()
        if self._gc_watch in gc.callbacks:
            gc.callbacks.remove(self._gc_watch)
        if self.listening is not None:
            yield self.listening.stopListening()
            self.listening = None
        clients = self.factory.connected() if self.factory is not None else []
        for proto in clients:
            proto.transport.loseConnection()
        waited = 0.0
        while self.factory is not None and self.factory.connected() and waited < CLOSE_TIMEOUT:
            yield task.deferLater(self.reactor, 0.05, lambda: None)
            waited += 0.05
        stuck = self.factory.connected() if self.factory is not None else []
        for proto in stuck:  # a client that reads nothing: its connection is cut
            proto.transport.abortConnection()
        if stuck:
            yield task.deferLater(self.reactor, 0.1, lambda: None)
        if self.lobby is not None:
            self.lobby.stop()
        if self.store is not None:
            self.store.mark_alive(self.reactor.seconds())
            self.store.close()
            self.store = None
        self._unlock_database()
        log.info("grailwar server stopped: {clients} connection(s) closed, database {db} closed",
                 clients=len(clients), db=self.db)
