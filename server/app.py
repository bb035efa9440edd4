"""The server as a Twisted service: one store, one lobby, one listening port.

Starting restores every room from the database (its log replayed, its timers re-armed with the
time they had left when the server stopped). Stopping closes the port, lets every client's
connection go while the database is still open, cancels the timers and closes the database.
Both `grailwar serve` and the `twist grailwar` plugin run this service.

One server per database: the lock is an exclusive `flock` on the database file itself, so a
second server refuses however it names the file (a symlink, a hard link, another relative
path). A damaged database refuses to start; an empty (0-byte) one starts with a loud warning.
Closed rooms are purged at start and every PURGE_EVERY seconds, finished games after
`keep_days` days.
"""

from __future__ import annotations

import os
import socket
import weakref
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no lock file
    fcntl = None  # type: ignore[assignment]
from typing import Any

from twisted.application.service import Service
from twisted.internet import defer, task
from twisted.internet.endpoints import UNIXServerEndpoint
from twisted.internet.error import CannotListenError
from twisted.internet.interfaces import IListeningPort
from twisted.logger import Logger

from ..shared.protocol import DEFAULT_PORT
from .addresses import networks
from .admin import PORT_MARK, AdminFactory, Operator
from .collector import Collector
from .lobby import Lobby
from .outage import DatabaseWatch
from .protocol import GrailFactory, GrailProtocol
from .roomstore import LEASE_S, RoomStore, is_postgresql
from .store import DamagedDatabase, Store
from .thinking import BOT_WORKERS, BotPool, no_search

log = Logger()
HEARTBEAT = 1.0  # seconds between "still alive" stamps; a crash costs players at most this much
CLOSE_TIMEOUT = 3.0  # seconds the clients' connections get to close at shutdown
GC_PAUSE_WARNING = 0.1  # seconds: a longer collection is logged
ADOPT_EVERY = 1.0  # seconds between two looks for rooms whose server died (PostgreSQL)
KEEP_DAYS = 30.0  # finished games are kept this long after they close (0: forever)
# Closed rooms purged: at most PURGE_BATCH every PURGE_EVERY seconds (36,000 an hour); a
# batch of 300-action games takes ~15 ms of the reactor's thread (more, in one go, would be
# a pause every player feels).
PURGE_EVERY = 10.0
PURGE_BATCH = 100
DAY = 86_400.0
_LOCKED: set[tuple[int, int]] = set()  # (device, inode) of the databases this process locked


class DatabaseInUse(RuntimeError):
    """Another server holds the database's lock."""


class CannotListen(RuntimeError):
    """The port is taken, or the address is not this machine's to listen on."""


REFUSALS = (DatabaseInUse, DamagedDatabase)  # an operator's problem, said in one line
# The exit status of `grailwar serve` for each (docs/deploy.md): a locked or damaged database
# will not mend by itself (1); a port may be freed soon (3: systemd may try again).
EXIT_REFUSED, EXIT_CANNOT_LISTEN = 1, 3


def _file_key(info: os.stat_result) -> tuple[int, int]:
    return info.st_dev, info.st_ino


def lock_holder(key: tuple[int, int]) -> tuple[int, str] | None:
    """The process holding a `flock` on the file `key` (device, inode) and the name it opened
    the file by, from Linux's /proc/locks and the holder's /proc/PID/fd; None where that
    cannot be read (another system, another user's process)."""
    try:
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split()  # "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"
        if len(parts) < 6 or parts[1] != "FLOCK" or parts[2] == "->":
            continue
        major, minor, inode = parts[5].split(":")
        if (os.makedev(int(major, 16), int(minor, 16)), int(inode)) != key:
            continue
        pid = int(parts[4])
        for fd in Path(f"/proc/{pid}/fd").glob("*"):  # (none: another user's process)
            try:
                name = os.readlink(fd)
                if _file_key(os.stat(fd)) == key:
                    return pid, name
            except OSError:
                continue
        return None
    return None


class DatabaseLock:
    """An exclusive `flock` on the database file itself, held while the server runs: it goes
    with the process however it ends, and it follows the file, not its name. `flock` locks do
    not meet SQLite's own (POSIX `fcntl`) locks on Linux. Closing any descriptor of the file
    would drop SQLite's POSIX locks of this process, so a second lock in the same process is
    refused before the file is opened again."""

    def __init__(self, db: str) -> None:
        self.db = db
        self.key: tuple[int, int] | None = None
        self.file: Any = None

    def acquire(self) -> None:
        if fcntl is None:  # Windows
            return
        if os.path.exists(self.db) and _file_key(os.stat(self.db)) in _LOCKED:
            raise self._in_use(_file_key(os.stat(self.db)))
        fd = os.open(self.db, os.O_RDWR | os.O_CREAT, 0o600)
        key = _file_key(os.fstat(fd))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise self._in_use(key) from None
        self.file, self.key = fd, key
        _LOCKED.add(key)

    def _in_use(self, key: tuple[int, int]) -> DatabaseInUse:
        """The refusal, naming the file under the name its holder opened it by (a hard link
        is a name of its own: resolving it gives itself back) and the holder's process."""
        holder = lock_holder(key)
        if holder is None:
            resolved = Path(self.db).resolve()
            also = f" ({resolved})" if str(resolved) != self.db else ""
            return DatabaseInUse(f"another server is using the database {self.db}{also}")
        pid, name = holder
        return DatabaseInUse(f"another server is using the database {self.db}: process {pid} "
                             f"holds the lock on {name}")

    def release(self) -> None:
        if self.file is not None:
            os.close(self.file)  # closing releases the lock
            _LOCKED.discard(self.key)
            self.file, self.key = None, None


class TrackingFactory(GrailFactory):
    """The protocol factory, remembering its live connections so a stop can close them first."""

    def __init__(self, lobby: Lobby, clock: Any) -> None:
        super().__init__(lobby, clock)
        self.live: weakref.WeakSet[GrailProtocol] = weakref.WeakSet()

    def buildProtocol(self, addr: Any) -> GrailProtocol | None:
        proto = super().buildProtocol(addr)
        if proto is not None:
            self.live.add(proto)
        return proto

    def connected(self) -> list[GrailProtocol]:
        return [p for p in list(self.live)
                if p.transport is not None and not getattr(p.transport, "disconnected", True)]


class GrailService(Service):
    """Starts by restoring every room from the database; stops by closing it cleanly."""

    name = "grailwar"

    def __init__(self, reactor: Any, db: str, host: str = "0.0.0.0", port: int = DEFAULT_PORT,
                 tune_gc: bool = True, keep_days: float = KEEP_DAYS,
                 bot_workers: int = BOT_WORKERS, tls: Any = None,
                 admin_socket: str | None = None, store: str | None = None,
                 lease_s: float = LEASE_S, presence: str | None = None,
                 public_address: str | None = None, cluster_name: str = "grailwar",
                 **lobby_options: Any) -> None:
        """`store`: a PostgreSQL URL, in place of the SQLite file `db`; `lease_s`: how long it
        owns a room without renewing. `presence`: the cluster's Redis URL, where this server
        is `public_address` (host:port as clients reach it) among the servers of
        `cluster_name`. `lobby_options` are the Lobby's limits (max_per_address,
        max_rooms, max_queued, the timeouts …; `trusted_proxies` as the setting's text): its
        defaults stand for those not given."""
        self.reactor = reactor
        self.tls = tls  # the TLS options (server/tls.py): this port speaks only TLS; None: TCP
        self.db = store if store and is_postgresql(store) else db
        self.lease_s = lease_s
        if presence and not is_postgresql(self.db):
            raise ValueError("--presence needs --store postgresql://…: the servers of a "
                             "cluster share their rooms' logs")
        self.presence_url = presence
        self.public_address = public_address
        self.cluster_name = cluster_name
        self.presence: Any = None
        self.host = host
        self.port = port
        if isinstance(lobby_options.get("trusted_proxies"), str):  # as the settings give it
            lobby_options["trusted_proxies"] = networks(lobby_options["trusted_proxies"])
        self.lobby_options = lobby_options
        self.tune_gc = tune_gc
        self.admin_socket = admin_socket  # the operator's UNIX socket (None: no admin socket)
        self.admin_port: IListeningPort | None = None
        self.keep = keep_days * DAY  # seconds a finished game is kept (0: forever)
        self.bot_workers = bot_workers  # processes for searching bots (0: they play normal)
        self.pool: BotPool | None = None
        self.collector: Collector | None = None
        self.store: RoomStore | None = None
        self.lobby: Lobby | None = None
        self.factory: TrackingFactory | None = None
        self.listening: IListeningPort | None = None
        self.heartbeat: task.LoopingCall | None = None
        self.purger: task.LoopingCall | None = None
        self.leases: task.LoopingCall | None = None
        self.adopter: task.LoopingCall | None = None
        self.beats: task.LoopingCall | None = None
        self._lock = DatabaseLock(db)
        self.database = DatabaseWatch(reactor)  # a cluster's outages, told once each way
        self.renewed_at = reactor.seconds()  # when the last renewal that worked was sent

    def _open_store(self) -> RoomStore:
        """Lock, then open the database; an empty file is said loudly (it holds no room), a
        damaged one refuses to start with the reason. PostgreSQL needs no lock: each room has
        its lease."""
        if is_postgresql(self.db):
            from .pgstore import PgStore

            return PgStore(self.db, deliver=self.reactor.callFromThread, lease_s=self.lease_s,
                           owner=self._owner_name())
        if self.db == ":memory:":
            return Store(self.db)
        empty = os.path.exists(self.db) and os.path.getsize(self.db) == 0
        self._lock.acquire()
        try:
            store = Store(self.db)
        except DamagedDatabase as err:
            self._lock.release()
            raise DamagedDatabase(f"{err}. The server does not start on a damaged database: "
                                  "run `grailwar db check`, restore a backup or move the "
                                  "file away") from None
        except Exception:
            self._lock.release()
            raise
        if empty:
            log.warn("the database file {db} was EMPTY (0 bytes): this server starts with no "
                     "room; if it had rooms, stop it and restore a backup", db=self.db)
        return store

    def _owner_name(self) -> str | None:
        """Who holds this server's leases: its address, when it is fixed, so that a server
        restarted in its own place takes its rooms back at once (the old process is gone:
        the port was its); otherwise (port 0) a name of its own (pgstore.process_name)."""
        if self.public_address:
            return self.public_address
        return f"{socket.gethostname()}:{self.port}" if self.port else None

    def _purge(self, store: RoomStore) -> int:
        """Closed rooms go (finished games after their retention), one batch per call."""
        return store.purge(self.reactor.seconds(), self.keep, PURGE_BATCH)

    def startService(self) -> None:
        store = self._open_store()
        try:
            while self._purge(store):
                pass  # everything due, before the rooms come back
            # Downtime is not charged to the players: every saved deadline moves by it.
            downtime = store.resume_clock(self.reactor.seconds())
            self.pool = BotPool(self.reactor, self.bot_workers) if self.bot_workers else None
            lobby = Lobby(self.reactor, store, think=self.pool.think if self.pool else no_search,
                          defer_views=True, **self.lobby_options)
            if is_postgresql(self.db):
                self.renewed_at = self.reactor.seconds()  # the restored rooms' fresh claims
                lobby.lease_fresh = self._lease_fresh
            lobby.restore()
            factory = TrackingFactory(lobby, self.reactor)
            self.listening = self._listen(factory)
        except Exception:
            store.close()
            self._lock.release()
            raise
        super().startService()
        self.store, self.lobby, self.factory = store, lobby, factory
        if self.tune_gc:
            self.collector = Collector(self.reactor)
            self.collector.start()
        self.heartbeat = task.LoopingCall(self._beat)
        self.heartbeat.clock = self.reactor
        self.heartbeat.start(HEARTBEAT, now=True)
        self.purger = task.LoopingCall(self._purge, store)
        self.purger.clock = self.reactor
        self.purger.start(PURGE_EVERY, now=False)
        if self.presence_url:
            self._join_cluster(lobby)
            # the presence beats on a loop of its own: a slow Redis never delays a renewal
            self.beats = task.LoopingCall(self._beat_presence)
            self.beats.clock = self.reactor
            self.beats.start(self.lease_s / 3, now=True)
        if is_postgresql(self.db):
            self.leases = task.LoopingCall(self._keep_leases)
            self.leases.clock = self.reactor
            self.leases.start(self.lease_s / 3, now=False)
            # a dead server's rooms are looked for more often than leases are renewed: its
            # players wait the lease time, and at most ADOPT_EVERY more
            self.adopter = task.LoopingCall(self._adopt_ownerless)
            self.adopter.clock = self.reactor
            self.adopter.start(min(ADOPT_EVERY, self.lease_s / 3), now=False)
        if self.admin_socket is not None:
            self._listen_admin(Operator(lobby, factory.connected, self.reactor))
        address = self.listening.getHost()
        log.info("grailwar server on {host}:{port}, {wire}, database {db}, {rooms} room(s) "
                 "restored (server was down {downtime:.1f} s), at most {per} connection(s) per "
                 "address", host=address.host, port=address.port,
                 wire="TLS" if self.tls is not None else "plain TCP", db=self.db,
                 rooms=len(lobby.rooms),
                 downtime=downtime, per=lobby.max_per_address)
        if lobby.quarantined:
            log.error("{count} room(s) QUARANTINED, their logs damaged: {rooms}",
                      count=len(lobby.quarantined), rooms=sorted(lobby.quarantined))

    def _listen(self, factory: TrackingFactory) -> IListeningPort:
        """TLS only when a certificate is given: no plain port beside it, or a client that
        forgot `--tls` would send its seat token and room password in clear after all."""
        try:
            if self.tls is not None:
                return self.reactor.listenSSL(self.port, factory, self.tls, interface=self.host)
            return self.reactor.listenTCP(self.port, factory, interface=self.host)
        except CannotListenError as err:
            why = getattr(err.socketError, "strerror", None) or str(err.socketError)
            raise CannotListen(f"cannot listen on {self.host or '*'}:{self.port}: {why} (is "
                               "another server, or another program, on that port?)") from None

    def _listen_admin(self, operator: Operator) -> None:
        """The operator's socket, mode 0600; one left by a killed server is replaced. Failing
        to open it is said loudly but does not stop the game server."""
        assert self.admin_socket is not None and self.listening is not None
        path = self.admin_socket.replace(PORT_MARK, str(self.listening.getHost().port))
        endpoint = UNIXServerEndpoint(self.reactor, path, mode=0o600, wantPID=True)
        listening = endpoint.listen(AdminFactory(operator))

        def opened(port: IListeningPort) -> None:
            self.admin_port = port
            log.info("operator commands on {socket} (grailwar admin)", socket=path)

        listening.addCallbacks(opened, lambda failure: log.error(  # one line, no traceback
            "no operator socket at {socket}: {why} (the game server runs on without one; "
            "--admin-socket PATH puts it where this process may write)", socket=path,
            why=failure.getErrorMessage()))

    def _join_cluster(self, lobby: Lobby) -> None:
        from .cluster import Presence

        where = self.listening.getHost()
        address = self.public_address or f"{where.host}:{where.port}"
        self.presence = Presence(self.reactor, self.presence_url, address, self.lease_s,
                                 f"{self.cluster_name}:")
        lobby.presence = self.presence
        self.presence.listen()
        log.info("in the cluster {name} as {address}", name=self.cluster_name, address=address)

    def _beat_presence(self) -> defer.Deferred:
        """Stamp this server's presence and read the directory; cut off from it for a lease
        time, the server gives every room up (the others adopt them) and adopts none."""
        rooms = {room.id: room.summary() for room in self.lobby.rooms.values()}
        beat = self.presence.beat(rooms)
        beat.addCallback(lambda _ok: None if self.presence.healthy else self._cut_off())
        return beat

    def _keep_leases(self) -> defer.Deferred | None:
        """Renew this server's leases, unless it is cut off from the cluster's directory. A
        server whose last renewal is two rounds old steps down first: by its own clock its
        leases may lapse before the next round, and another server may adopt its rooms then;
        members of a room must never see two owners (the database's fencing keeps the writes
        apart, not what an idle room's stale owner would still send)."""
        if self.presence is not None and not self.presence.healthy:
            self._cut_off()
            return None
        if not self.lobby.lease_fresh():
            self._step_down()
        return self._renew_leases()

    def _lease_fresh(self) -> bool:
        """This server's leases are surely still its own: renewed less than two thirds of the
        lease time ago (by its own clock, counted from when the renewal was sent)."""
        return self.reactor.seconds() - self.renewed_at < self.lease_s * 2 / 3

    def _step_down(self) -> None:
        if self.lobby.rooms:
            log.warn("the room leases were last renewed {s:.1f} s ago: giving up {n} room(s) "
                     "before they may lapse", s=self.reactor.seconds() - self.renewed_at,
                     n=len(self.lobby.rooms))
        for room in list(self.lobby.rooms.values()):
            self.lobby.give_up(room, "its lease may have lapsed")

    def _cut_off(self) -> None:
        if self.lobby.rooms:
            log.error("cut off from the cluster's directory for {s:g} s: giving up {n} "
                      "room(s) to the other servers", s=self.lease_s, n=len(self.lobby.rooms))
        for room in list(self.lobby.rooms.values()):
            self.lobby.give_up(room, "cut off from the cluster's directory")

    def _renew_leases(self) -> defer.Deferred:
        """Renew this server's leases (a room whose lease another server took is given up:
        its players follow it there)."""
        sent = self.reactor.seconds()
        renewed = self.store.renew()
        renewed.addCallback(self._lost_leases, sent)
        renewed.addErrback(lambda failure: self.database.failed("renewing the room leases",
                                                                failure.getErrorMessage()))
        return renewed

    def _lost_leases(self, lost: set[int], sent: float) -> None:
        self.database.answered()
        self.renewed_at = max(self.renewed_at, sent)
        for room_id in sorted(lost):
            room = self.lobby.rooms.get(room_id)
            if room is not None:
                self.lobby.give_up(room, "its lease moved to another server")

    def _adopt_ownerless(self) -> None:
        """Adopt the open rooms whose lease lapsed (their server died or gave them up)."""
        if not self.lobby.may_adopt:
            return
        try:
            ownerless = self.store.ownerless_rooms()
        except Exception as err:  # the database is away: the next round tries again
            self.database.failed("looking for rooms to adopt", str(err) or type(err).__name__)
            return
        self.database.answered()
        for room_id in ownerless:
            if room_id in self.lobby.rooms or room_id in self.lobby.quarantined:
                continue
            if self.lobby.adopt_stored(room_id):
                log.info("room {room} adopted: its server stopped renewing its lease",
                         room=room_id)

    def _beat(self) -> None:
        if self.store is not None:
            self.store.mark_alive(self.reactor.seconds())
        pause = self.collector.take_pause() if self.collector is not None else 0.0
        if pause >= GC_PAUSE_WARNING:
            log.warn("a garbage collection paused the server {ms:.0f} ms", ms=pause * 1e3)

    @property
    def address(self) -> Any:
        """The address actually listened on (port 0 asks the system for a free port)."""
        return self.listening.getHost() if self.listening is not None else None

    @defer.inlineCallbacks
    def stopService(self) -> Any:
        if not self.running:
            return
        super().stopService()
        for loop in (self.heartbeat, self.purger, self.leases, self.adopter, self.beats):
            if loop is not None and loop.running:
                loop.stop()
        if self.collector is not None:
            self.collector.stop()
            runs, seconds, found = self.collector.totals
            log.info("garbage collector: {runs} collections, {seconds:.2f} s of CPU, {found} "
                     "objects found, {full} full", runs=runs, seconds=seconds, found=found,
                     full=self.collector.full_collections)
            self.collector = None
        for port in (self.listening, self.admin_port):
            if port is not None:
                yield port.stopListening()
        self.listening = self.admin_port = None
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
        if self.presence is not None:
            self.presence.stop()
            self.presence = None
        if self.pool is not None:
            self.pool.stop()
            self.pool = None
        if self.store is not None:
            self.store.mark_alive(self.reactor.seconds())
            self.store.close()
            self.store = None
        self._lock.release()
        log.info("grailwar server stopped: {clients} connection(s) closed, database {db} closed",
                 clients=len(clients), db=self.db)
