"""Server load on loopback: the echo floor, then R rooms of seven network players.

1. The floor: a bare Twisted echo server (another process; length-prefixed msgpack, decoded and
   re-encoded) answers 2,000 round trips of a ~220-byte message: `echo_p50_ms`, `echo_p99_ms`;
   then 300 more, 10 ms apart: `echo_paced_p50_ms`. Players act seconds apart, so the server
   and the client sleep between two of their trips and each trip pays for waking both up,
   which the back-to-back floor never does (on the 2-core machine: 0.08 ms back to back, 0.29
   ms paced).
2. The load: `grailwar serve` in its own process; R rooms of seven `BotPlayer`s (the engine's
   normal bot) over real TCP, in `--procs` client processes (2 by default), each one reactor
   holding whole rooms. Every room is created by one of its players with the shortest timers
   the protocol allows (declarations 30 s, main action 10 s, reaction and other prompts 5 s,
   a module's own timers at their least: the campaign's day 0 60 s, its relic draft 30 s).
   A player declares at a random moment in the first `--window` seconds of each declaration
   window (uniform; its second decision in the same window, a declaration after a Move, within
   `--follow-up` s), and answers a battle prompt within `--battle-think` s. A prompt the room
   times as a person's read (`declare_s`, or a module's own timer: the campaign's day-0 setup,
   where a camp shops, wears and prepares, and its relic draft) is such a window too. Only
   whole rooms count; the measurement starts once every room has started its game and lasts
   `--seconds` (or until every game is over).

Prints (one JSON object with --json): `rooms`, `clients`, `p50_ms` and `p99_ms` (an action sent
→ its ack received), `broadcast_p99_ms` (an action sent → the last of the room's seven players
receiving the state it produced), `msgs_per_s` (messages both ways), `server_rss_mb` (the
server's VmRSS at its highest sample, /proc), `echo_p50_ms`, and more: actions, errors by code,
the server's CPU share and CPU per action, its garbage collections (`server_gc_runs`, their
CPU seconds and the objects they found; `server_gc_pauses`: the heartbeats that logged one of
100 ms or more), games over, and `other_cpu_pct`: what everything else on the machine used
meanwhile (on a shared machine, figures taken beside a busy neighbour are not the server's
own).

Goal on the 2-core machine: 200 rooms (1,400 clients), p99 under 25 ms, p50 within 3x the echo
floor, the server under 400 MB. The clients share the machine with the server: the latencies
include the client processes' own delays (their CPU share is printed as `client_cpu_pct`).

    python bench/server_load.py --json                       # 200 rooms, 120 s
    python bench/server_load.py --rooms 20 --seconds 30      # a quick look
    python bench/server_load.py --seconds 400                # until the games end
    python bench/server_load.py --connect 7707 --pid PID     # an already running server
    python bench/server_load.py --modules tactics            # rooms with rules modules on
    python bench/server_load.py --cluster 2 --json           # SQLite, then 2 servers over
                                                             # PostgreSQL and Redis

With `--cluster N` the same load runs twice in one run: on the single SQLite server, then on N
`grailwar serve` processes sharing a new PostgreSQL database (`--pg`, dropped afterwards) and
one Redis (`--redis`); the client processes talk to the servers in turn and follow the
servers' redirects (a room lives on the server that owns it). The figures come as `sqlite` and
`cluster_N`, the servers' CPU and memory summed.

With `--modules` (and `--option MODULE.OPTION=VALUE`) every room is created with those modules;
`room_modules` lists the modules the server reported for the rooms. A campaign game opens on
day 0, where every camp shops, wears and prepares, a decision each `--follow-up` s; the rooms
start together, so every room's day 0 falls in the same seconds: `day0_actions`, `day0_p99_ms`
and `after_day0_p99_ms` tell that burst from the days that follow (`p99_ms` counts both), and
`day0_broadcast_p99_ms` and `after_day0_broadcast_p99_ms` the broadcasts' (issue 33 item 6:
at 200 rooms both read 155-173 ms, so the broadcast p99 is not day 0's alone).

With `--abandoned N`, N more rooms are set up first: one player creates each with six hard bots
thinking `--abandoned-bot-ms` per decision (5,000 by default, the most a room allows), starts it
and goes away, the bots playing on (issue 11 item 2); the figures are the measured rooms' own.
`--bot-workers` is passed to the server (its processes for searching bots).

    python bench/server_load.py --rooms 50 --abandoned 20 --json   # the bot-load bench
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import random
import re
import resource
import signal
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import msgpack
from grailwar.cli import modules as module_args
from grailwar.client.botclient import BotPlayer
from grailwar.client.net import ServerConnection
from grailwar.shared.engine.modules import room_timers
from grailwar.shared.engine.prompts import PROMPTS
from grailwar.shared.protocol import PROTOCOL_VERSION, SECONDS, FrameBuffer, decode
from grailwar.shared.protocol import encode as encode_message
from grailwar.shared.protocol import message as protocol_message
from twisted.internet import defer, task
from twisted.internet.protocol import ClientFactory, Factory, Protocol

GC_PAUSE = re.compile(r"a garbage collection paused the server (\d+) ms")
GC_TOTALS = re.compile(r"garbage collector: (\d+) collections, ([\d.]+) s of CPU, (\d+) objects "
                       r"found, (\d+) full")
LISTENING = re.compile(rb"grailwar server on 127\.0\.0\.1:(\d+)")
ECHO_LISTENING = re.compile(rb"echo on (\d+)")
HEADER = struct.Struct(">I")
# The prompts a person reads and plans: a declaration window, and a module's prompt with a room
# timer of its own (the campaign's day-0 setup and relic draft): a window to decide in.
WINDOWS = frozenset(kind for kind, spec in PROMPTS.items()
                    if spec.timer == "declare_s" or spec.timer in room_timers())
ROOM_OPTIONS = {"seats": 7, "declare_s": 30, "main_s": 10, "reaction_s": 5, "prompt_s": 5,
                **{key: timer.lo for key, (_module, timer) in room_timers().items()}}


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def machine_busy_seconds() -> float:
    """CPU seconds all processes of the machine have used (from /proc/stat)."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except OSError:
        return 0.0
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else 65536
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


# --- the echo floor ------------------------------------------------------------------------------
class Echo(Protocol):
    """Frames in, the same message decoded and encoded again out."""

    def connectionMade(self) -> None:
        self.buffer = b""

    def dataReceived(self, data: bytes) -> None:
        self.buffer += data
        while len(self.buffer) >= 4:
            (size,) = HEADER.unpack_from(self.buffer)
            if len(self.buffer) < 4 + size:
                return
            msg = msgpack.unpackb(self.buffer[4:4 + size], raw=False)
            self.buffer = self.buffer[4 + size:]
            body = msgpack.packb(msg, use_bin_type=True)
            self.transport.write(HEADER.pack(len(body)) + body)


def echo_server() -> int:
    from twisted.internet import reactor

    port = reactor.listenTCP(0, Factory.forProtocol(Echo), interface="127.0.0.1")
    print(f"echo on {port.getHost().port}", flush=True)
    reactor.run()
    return 0


class EchoClient(Protocol):
    """Round trips back to back, or with `pause` seconds between them (both ends then sleep
    between trips, as the server and a player do between actions: waking costs time)."""

    def __init__(self, trips: int, done: defer.Deferred, pause: float = 0.0) -> None:
        self.trips = trips
        self.done = done
        self.pause = pause
        self.times: list[float] = []
        self.buffer = b""
        # ~220 bytes of msgpack, like CLIENT-NOTES' measurement
        self.msg = {"t": "act", "state_id": 1234, "ref": 99, "action": {
            "type": "DeclareEncounter", "seat": 3, "target": 5, "intent": "battle"},
            "pad": "x" * 120, "list": list(range(10))}

    def connectionMade(self) -> None:
        self.send()

    def send(self) -> None:
        body = msgpack.packb(self.msg, use_bin_type=True)
        self.sent = time.perf_counter()
        self.transport.write(HEADER.pack(len(body)) + body)

    def dataReceived(self, data: bytes) -> None:
        self.buffer += data
        while len(self.buffer) >= 4:
            (size,) = HEADER.unpack_from(self.buffer)
            if len(self.buffer) < 4 + size:
                return
            msgpack.unpackb(self.buffer[4:4 + size], raw=False)
            self.buffer = self.buffer[4 + size:]
            self.times.append(time.perf_counter() - self.sent)
            if len(self.times) >= self.trips:
                self.transport.loseConnection()
                self.done.callback(self.times)
                return
            if self.pause:
                from twisted.internet import reactor

                reactor.callLater(self.pause, self.send)
            else:
                self.send()


# --- processes ---------------------------------------------------------------------------------
class Child:
    """A subprocess whose stderr/stdout goes to a file; `wait_for` reads a pattern from it."""

    def __init__(self, args: list[str], log: Path) -> None:
        self.log = log
        with log.open("wb") as out:
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=subprocess.STDOUT, preexec_fn=raise_fd_limit)

    @classmethod
    def attach(cls, pid: int | None) -> Child:
        """A process this bench did not start (only read from /proc; never signalled)."""
        child = cls.__new__(cls)
        child.proc = argparse.Namespace(pid=pid or 0)
        return child

    def wait_for(self, pattern: re.Pattern, timeout: float = 20.0) -> re.Match:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            found = pattern.search(self.log.read_bytes())
            if found:
                return found
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError(f"{self.proc.args[:4]} did not start:\n{self.log.read_text()}")

    def stop(self, timeout: float = 15.0) -> int | None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=timeout)
                return None
        return self.proc.returncode

    def status(self, field: str) -> float:
        """A /proc/<pid>/status field in MB (VmRSS, VmHWM)."""
        try:
            for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
        except OSError:
            pass
        return 0.0

    def cpu_seconds(self) -> float:
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            return 0.0


# --- the players -------------------------------------------------------------------------------
class Stats:
    def __init__(self) -> None:
        self.measuring = False
        # an action sent -> its ack, on the campaign's day 0 and on the days after (all of them)
        self.day0_acks: list[float] = []
        self.later_acks: list[float] = []
        self.sends: dict[tuple[int, int], float] = {}  # (room, state_id acked) -> send time
        self.day0_sends: set[tuple[int, int]] = set()  # those acked on the campaign's day 0
        self.seen: dict[tuple[int, int], list[float]] = {}  # (room, state_id) -> receive times
        self.messages = 0
        self.errors: dict[str, int] = {}
        self.error_samples: list[dict[str, Any]] = []
        self.games_over: set[int] = set()
        self.room_modules: set[tuple[str, ...]] = set()  # as the server reported the rooms


class MeasuredConnection(ServerConnection):
    """Counts messages and stamps every `act` it sends."""

    def __init__(self, player: BenchPlayer, name: str) -> None:
        from twisted.internet import reactor

        super().__init__(name, player.on_message, clock=reactor)  # pings while it waits
        self.player = player

    def send(self, msg_name: str, /, **fields: Any) -> None:
        if msg_name == "act":
            self.player.sent[fields["ref"]] = time.perf_counter()
            self.player.stats.messages += self.player.stats.measuring
        super().send(msg_name, **fields)

    def connectionLost(self, reason: Any = None) -> None:
        if self.player.conn is self:  # not a connection a redirect left
            self.player.connected = False


class BenchPlayer(BotPlayer):
    """A `BotPlayer` that joins a room by id (or creates it), and thinks like a person: one
    random moment per declaration window, a shorter one for a battle prompt."""

    def __init__(self, bench: LoadBench, index: int, room_slot: int, owner: bool) -> None:
        super().__init__(0, "normal", seed=index, think=self._think)
        self.bench = bench
        self.stats = bench.stats
        self.rng = random.Random(index)
        self.room_slot = room_slot
        self.owner = owner
        self.room_id = 0
        self.sent: dict[int, float] = {}
        self.pending: Any = None
        self.epoch: tuple = ()
        self.acted_in_epoch = False
        self.window_opened = 0.0
        self.last: dict[str, Any] | None = None
        self.connected = False
        self.started = False

    def connection(self, name: str) -> ServerConnection:
        self.conn = MeasuredConnection(self, name)
        self.connected = True
        return self.conn

    def on_message(self, msg: dict[str, Any]) -> None:
        kind = msg["t"]
        stats = self.stats
        now = time.perf_counter()
        if stats.measuring:
            stats.messages += 1
        if kind == "welcome":
            if self.owner:
                name = f"load-{self.bench.args.room_offset + self.room_slot}"
                self.conn.send("create_room", name=name, day_limit=self.bench.args.days,
                               priority_s=self.bench.args.priority_s, **ROOM_OPTIONS,
                               **self.bench.game)
            else:
                self.conn.send("join_room", room=self.bench.room_ids[self.room_slot])
            return
        if kind == "redirect":  # a cluster: the room (or a new one) lives on another server
            self.conn.transport.loseConnection()
            self.bench.connect(self, msg["port"])
            return
        if kind == "joined":
            self.room_id = msg["room"]
            if self.owner:
                self.bench.room_created(self.room_slot, msg["room"])
        elif kind == "room" and self.owner and not self.started:
            room = msg["room"]
            stats.room_modules.add(tuple(room["modules"]))
            if room["players"] == 7 and not room["started"]:
                self.started = True
                self.conn.send("start")
        elif kind == "state":
            self.last = msg
            self.started = True
            if stats.measuring:
                stats.seen.setdefault((self.room_id, msg["state_id"]), []).append(now)
            if msg["view"]["over"]:
                stats.games_over.add(self.room_id)
        elif kind == "ack":
            sent = self.sent.pop(msg["ref"], None)
            if sent is not None and stats.measuring:
                day0 = self.last is not None and self.last["view"]["day"] == 0
                (stats.day0_acks if day0 else stats.later_acks).append(now - sent)
                stats.sends[(self.room_id, msg["state_id"])] = sent
                if day0:
                    stats.day0_sends.add((self.room_id, msg["state_id"]))
        elif kind == "error":
            if stats.measuring:
                stats.errors[msg["code"]] = stats.errors.get(msg["code"], 0) + 1
                if len(stats.error_samples) < 5 and msg["code"] != "stale_state":
                    stats.error_samples.append(msg)
            elif not self.started and msg["code"] == "room_not_found" and self.bench.args.cluster:
                from twisted.internet import reactor  # made on another server of the cluster

                reactor.callLater(0.2, self.conn.send, "join_room",  # an instant ago: the
                                  room=self.bench.room_ids[self.room_slot])  # directory is behind
            elif not self.started:
                self.bench.setup_errors.append(msg)
            return  # a refused action: the next state prompts again
        super().on_message(msg)

    def _think(self, decide: Any) -> None:
        """Schedule `decide` like a person would (called on every state that prompts us)."""
        from twisted.internet import reactor

        view = self.last["view"] if self.last else {}
        prompt = view.get("prompt", {}).get("kind", "")
        battle = view.get("battle") or {}
        epoch = (view.get("day"), view.get("turn"), prompt,
                 battle.get("round") if isinstance(battle, dict) else None)
        now = time.perf_counter()
        if epoch != self.epoch:
            self.epoch, self.acted_in_epoch, self.window_opened = epoch, False, now
            if prompt in WINDOWS:
                self.target = now + self.rng.uniform(0, self.bench.args.window)
            else:
                self.target = now + self.rng.uniform(0, self.bench.args.battle_think)
        elif self.acted_in_epoch and self.target <= now:
            self.target = now + self.rng.uniform(0, self.bench.args.follow_up)
        if self.pending is not None and self.pending.active():
            self.pending.cancel()

        def go() -> None:
            self.pending = None
            if self.connected:
                self.acted_in_epoch = True
                decide()

        self.pending = reactor.callLater(max(0.0, self.target - now), go)


class Connector(ClientFactory):
    def __init__(self, player: BenchPlayer) -> None:
        self.player = player

    def buildProtocol(self, addr: Any) -> ServerConnection:
        return self.player.connection(f"p{self.player.seed_index}")

    def clientConnectionFailed(self, connector: Any, reason: Any) -> None:
        self.player.bench.failed_connections += 1


class LoadBench:
    def __init__(self, args: argparse.Namespace, port: int) -> None:
        self.args = args
        self.port = port
        self.stats = Stats()
        self.players: list[BenchPlayer] = []
        self.room_ids: dict[int, int] = {}
        self.failed_connections = 0
        self.setup_errors: list[dict[str, Any]] = []
        modules, options = module_args.parse(args.modules, args.option)
        self.game = {"modules": list(modules), "options": options} if modules else {}

    def connect(self, player: BenchPlayer, port: int | None = None) -> None:
        """A new player to this worker's server, or (`port`) one that a redirect sends on."""
        from twisted.internet import reactor

        if port is None:
            player.seed_index = len(self.players)
            self.players.append(player)
        reactor.connectTCP("127.0.0.1", port or self.port, Connector(player), timeout=30)

    def room_created(self, slot: int, room_id: int) -> None:
        self.room_ids[slot] = room_id
        for _ in range(6):
            self.connect(BenchPlayer(self, len(self.players), slot, owner=False))

    @defer.inlineCallbacks
    def fill(self) -> Any:
        """Create the rooms a few at a time (the listen backlog is small)."""
        from twisted.internet import reactor

        for slot in range(self.args.rooms):
            self.connect(BenchPlayer(self, len(self.players), slot, owner=True))
            if slot % 10 == 9:
                yield task.deferLater(reactor, 0.2, lambda: None)


class GcPauses:
    """The longest garbage collection pause of this process while it is installed."""

    def __init__(self) -> None:
        self.longest = 0.0
        self.began = 0.0
        gc.callbacks.append(self)

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.began = time.perf_counter()
        else:
            self.longest = max(self.longest, time.perf_counter() - self.began)

    def remove(self) -> None:
        gc.callbacks.remove(self)

# --- the run -----------------------------------------------------------------------------------
@defer.inlineCallbacks
def echo_floor(reactor: Any, port: int, trips: int, out: dict[str, Any]) -> Any:
    """`echo_p50_ms`/`echo_p99_ms`: back to back; `echo_paced_p50_ms`: 300 trips 10 ms apart."""
    for key, count, pause in (("echo", trips, 0.0), ("echo_paced", 300, 0.01)):
        done: defer.Deferred = defer.Deferred()
        client = EchoClient(count, done, pause)
        factory = ClientFactory()
        factory.protocol = lambda client=client: client  # type: ignore[misc]
        reactor.connectTCP("127.0.0.1", port, factory)
        times = yield done
        times = times[len(times) // 10:]  # the first trips warm the path up
        out[f"{key}_p50_ms"] = round(quantile(times, 0.5) * 1e3, 3)
        if not pause:
            out["echo_p99_ms"] = round(quantile(times, 0.99) * 1e3, 3)


@defer.inlineCallbacks
def worker(reactor: Any, args: argparse.Namespace, out: dict[str, Any]) -> Any:
    """One client process: its share of the rooms; raw figures for the parent to merge."""
    bench = LoadBench(args, args.worker_port)
    started_at = time.monotonic()
    yield bench.fill()
    while time.monotonic() - started_at < args.setup_timeout:
        started = sum(1 for p in bench.players if p.owner and p.last is not None)
        if started >= args.rooms and len(bench.players) >= 7 * args.rooms:
            break
        yield task.deferLater(reactor, 0.25, lambda: None)
    out["setup_s"] = round(time.monotonic() - started_at, 1)
    out["setup_errors"] = bench.setup_errors[:5]
    out["rooms"] = sum(1 for p in bench.players if p.owner and p.last is not None)
    out["clients"] = sum(1 for p in bench.players if p.connected)
    # This process holds many players' states: keep its garbage collector from pausing it
    # for tens of milliseconds (that would be counted as the server's latency).
    gc.collect()
    gc.freeze()
    gc.set_threshold(200_000, 1000, 1000)
    pauses = GcPauses()
    stats = bench.stats
    stats.measuring = True
    print("measuring", flush=True)
    cpu0, t0 = time.process_time(), time.monotonic()
    while time.monotonic() - t0 < args.seconds and len(stats.games_over) < out["rooms"]:
        yield task.deferLater(reactor, 0.5, lambda: None)
    stats.measuring = False
    pauses.remove()
    elapsed = time.monotonic() - t0
    broadcast, day0_broadcast = [], []
    for key, sent in stats.sends.items():
        seen = stats.seen.get(key, [])
        if len(seen) == 7:
            (day0_broadcast if key in stats.day0_sends else broadcast).append(max(seen) - sent)
    out.update(
        seconds=elapsed, cpu_s=time.process_time() - cpu0, gc_max_s=pauses.longest,
        day0_acks=stats.day0_acks, later_acks=stats.later_acks, broadcast=broadcast,
        day0_broadcast=day0_broadcast,
        messages=stats.messages, errors=stats.errors,
        error_samples=stats.error_samples,
        games_over=len(stats.games_over), failed_connections=bench.failed_connections,
        room_modules=sorted(stats.room_modules))
    for p in bench.players:
        if p.pending is not None and p.pending.active():
            p.pending.cancel()
        if p.conn is not None and p.conn.transport is not None:
            p.conn.transport.loseConnection()
    yield task.deferLater(reactor, 0.5, lambda: None)


def react(main: Any, *extra: Any) -> None:
    try:
        task.react(main, extra)
    except SystemExit as stop:
        if stop.code:
            raise


def run_workers(args: argparse.Namespace, ports: list[int], servers: list[Child],
                out: dict[str, Any]) -> None:
    """Start the client processes (the i-th talking to the i-th port, round the list), sample
    the servers while they measure, merge their figures."""
    shares = [args.rooms // args.procs + (i < args.rooms % args.procs) for i in range(args.procs)]
    procs, offset = [], 0
    for n, share in enumerate(shares):
        port = ports[n % len(ports)]
        cmd = [sys.executable, __file__, "--worker-port", str(port), "--rooms", str(share),
               "--room-offset", str(offset), "--seconds", str(args.seconds),
               "--window", str(args.window), "--follow-up", str(args.follow_up),
               "--battle-think", str(args.battle_think), "--days", str(args.days),
               "--priority-s", str(args.priority_s),
               "--setup-timeout", str(args.setup_timeout), "--modules", args.modules,
               "--cluster", str(len(ports) if len(ports) > 1 else 0),
               *(f"--option={option}" for option in args.option)]
        procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                      preexec_fn=raise_fd_limit))
        offset += share
    try:
        lines = [p.stdout.readline() for p in procs]  # "measuring" (or EOF if it failed)
        cpu0, t0, rss = sum(x.cpu_seconds() for x in servers), time.monotonic(), 0.0
        busy0 = machine_busy_seconds()
        while any(p.poll() is None for p in procs) and time.monotonic() - t0 < args.seconds:
            rss = max(rss, sum(x.status("VmRSS") for x in servers))
            time.sleep(1.0)
        rss = max(rss, sum(x.status("VmRSS") for x in servers))
        elapsed = time.monotonic() - t0
        server_cpu = sum(x.cpu_seconds() for x in servers) - cpu0
        machine_cpu = machine_busy_seconds() - busy0
        results = []
        for p, line in zip(procs, lines, strict=True):
            rest, _ = p.communicate(timeout=args.seconds + args.setup_timeout + 60)
            if not line.startswith(b"measuring"):
                rest = line + rest
            results.append(json.loads(rest.splitlines()[-1]))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=10)
    day0 = [a for r in results for a in r["day0_acks"]]
    later = [a for r in results for a in r["later_acks"]]
    acks = day0 + later
    day0_broadcast = [b for r in results for b in r["day0_broadcast"]]
    later_broadcast = [b for r in results for b in r["broadcast"]]
    broadcast = day0_broadcast + later_broadcast
    seconds = max(r["seconds"] for r in results)
    errors: dict[str, int] = {}
    for r in results:
        for code, count in r["errors"].items():
            errors[code] = errors.get(code, 0) + count
    out.update(
        rooms=sum(r["rooms"] for r in results),
        clients=sum(r["clients"] for r in results),
        client_procs=args.procs,
        setup_s=max(r["setup_s"] for r in results),
        seconds=round(seconds, 1),
        p50_ms=round(quantile(acks, 0.5) * 1e3, 3),
        p99_ms=round(quantile(acks, 0.99) * 1e3, 3),
        max_ms=round(max(acks, default=float("nan")) * 1e3, 3),
        broadcast_p50_ms=round(quantile(broadcast, 0.5) * 1e3, 3),
        broadcast_p99_ms=round(quantile(broadcast, 0.99) * 1e3, 3),
        actions=len(acks),
        actions_per_s=round(len(acks) / seconds, 1),
        msgs_per_s=round(sum(r["messages"] for r in results) / seconds, 1),
        server_rss_mb=round(rss, 1),
        server_hwm_mb=round(sum(x.status("VmHWM") for x in servers), 1),
        servers=len(servers),
        server_cpu_pct=round(100 * server_cpu / elapsed, 1),
        # the server's CPU per acknowledged action (all its work: broadcasts, timers, disk)
        server_cpu_ms_per_action=round(1e3 * server_cpu / max(1, len(acks)) * seconds / elapsed,
                                       3),
        client_cpu_pct=round(100 * sum(r["cpu_s"] for r in results) / seconds, 1),
        client_gc_max_ms=round(max(r["gc_max_s"] for r in results) * 1e3, 1),
        # CPU of everything else on the machine meanwhile (other jobs disturb the figures)
        other_cpu_pct=round(100 * (machine_cpu - server_cpu) / elapsed - sum(
            100 * r["cpu_s"] / r["seconds"] for r in results), 1),
        cores=os.cpu_count(),
        errors=errors,
        games_over=sum(r["games_over"] for r in results),
        room_modules=sorted({tuple(m) for r in results for m in r["room_modules"]}),
        failed_connections=sum(r["failed_connections"] for r in results),
    )
    if day0:  # the campaign's day 0 apart: every room's seven players shop in the same seconds
        out.update(day0_actions=len(day0), day0_p99_ms=round(quantile(day0, 0.99) * 1e3, 3),
                   after_day0_p99_ms=round(quantile(later, 0.99) * 1e3, 3),
                   day0_broadcast_p99_ms=round(quantile(day0_broadcast, 0.99) * 1e3, 3),
                   after_day0_broadcast_p99_ms=round(quantile(later_broadcast, 0.99) * 1e3, 3))
    samples = [e for r in results for e in r["error_samples"]]
    if samples:
        out["error_samples"] = samples[:5]
    setup_errors = [e for r in results for e in r["setup_errors"]]
    if setup_errors:
        out["setup_errors"] = setup_errors[:5]


def abandon_rooms(port: int, count: int, bot_ms: int) -> int:
    """`count` rooms of six hard bots, each started by a player who then leaves (closes its
    connection: its seat waits for it, the bots play on). Returns the rooms started."""
    return sum(abandon_room(port, f"abandoned {i}", bot_ms) for i in range(count))


def abandon_room(port: int, name: str, bot_ms: int) -> bool:
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        frames = FrameBuffer()

        def ask(kind: str, msg: str, /, **fields: Any) -> bool:
            """Send `msg`, read until a `kind` (True) or an error (False) arrives."""
            sock.sendall(encode_message(protocol_message(msg, **fields)))
            while True:
                for body in frames.feed(sock.recv(65536)):
                    got = decode(body)["t"]
                    if got in (kind, "error"):
                        return got == kind

        ok = ask("welcome", "hello", version=PROTOCOL_VERSION, name="leaver")
        ok = ok and ask("joined", "create_room", name=name, seats=7, bot_ms=bot_ms, cls="saber")
        for cls in ("archer", "lancer", "rider", "caster", "assassin", "berserker"):
            ok = ok and ask("room", "add_bot", cls=cls, level="hard")
        return ok and ask("state", "start")


def make_parser(doc: str) -> argparse.ArgumentParser:
    """The options of the load (also those of benches built on it)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rooms", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=120.0,
                        help="how long the measurement lasts at most (after the setup)")
    parser.add_argument("--procs", type=int, default=2,
                        help="client processes (the rooms are shared out; a room's seven "
                        "players are in one process)")
    parser.add_argument("--window", type=float, default=10.0,
                        help="players declare at a random moment in the first WINDOW seconds "
                        "of the 30-s declaration window")
    parser.add_argument("--follow-up", type=float, default=1.0,
                        help="seconds for a second decision in the same window")
    parser.add_argument("--battle-think", type=float, default=2.0,
                        help="players answer a battle prompt within this many seconds")
    parser.add_argument("--days", type=int, default=7, help="the rooms' day limit")
    parser.add_argument("--priority-s", type=int, default=SECONDS["priority_s"][2],
                        help="the rooms' priority phase (0: none; default %(default)s)")
    parser.add_argument("--setup-timeout", type=float, default=120.0)
    parser.add_argument("--echo-trips", type=int, default=2000)
    module_args.add_arguments(parser)
    parser.add_argument("--abandoned", type=int, default=0,
                        help="rooms of six hard bots whose player left, beside the measured")
    parser.add_argument("--abandoned-bot-ms", type=int, default=5000)
    parser.add_argument("--bot-workers", type=int, default=1,
                        help="the server's processes for searching bots")
    parser.add_argument("--cluster", type=int, default=0, metavar="N",
                        help="measure the single SQLite server, then N servers over "
                        "PostgreSQL (--pg) and Redis (--redis), in one run")
    parser.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/postgres",
                        help="with --cluster: where the bench creates its database")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--keep-db", help="write the server's database here (default: a temp)")
    parser.add_argument("--connect", type=int, metavar="PORT",
                        help="load a server already running on 127.0.0.1:PORT (started with a "
                        "high enough --max-per-address, --rooms-per-address, --joins-per-address, "
                        "--creates-per-address and --connects-per-address) instead")
    parser.add_argument("--pid", type=int, help="with --connect: that server's process id")
    parser.add_argument("--echo-server", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--worker-port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--room-offset", type=int, default=0, help=argparse.SUPPRESS)
    return parser


def serve(db: str, rooms: int, log: Path, *options: str) -> Child:
    """`grailwar serve` on a free loopback port (`db` a SQLite file or a PostgreSQL URL), its
    per-address limits raised for `rooms` rooms of seven players all on 127.0.0.1, and any
    more of its `options`."""
    players = str(7 * rooms + 100)
    where = ["--store", db] if db.startswith("postgresql://") else ["--db", db]
    return Child([sys.executable, "-m", "grailwar.cli.main", "serve", "--host", "127.0.0.1",
                  "--port", "0", *where, "--max-per-address", players,
                  "--max-rooms", str(rooms + 10), "--rooms-per-address", str(rooms + 10),
                  "--joins-per-address", players, "--creates-per-address", players,
                  "--connects-per-address", players, *options],
                 log)


def main() -> int:
    parser = make_parser(__doc__)
    args = parser.parse_args()
    if args.echo_server:
        return echo_server()
    if module_args.from_args(args, "bench/server_load.py") is None:
        return 2
    raise_fd_limit()
    if args.worker_port:
        result: dict[str, Any] = {}
        react(lambda reactor: worker(reactor, args, result))
        print(json.dumps(result), flush=True)
        return 0
    with tempfile.TemporaryDirectory(prefix="grailwar-load-") as tmp:
        if not args.cluster:
            out = measure(args, Path(tmp), args.keep_db or str(Path(tmp) / "load.db"))
        else:  # the single SQLite server, then N servers over PostgreSQL and Redis, one run
            out = {"sqlite": measure(args, Path(tmp), str(Path(tmp) / "load.db"))}
            with bench_database(args.pg) as url:
                out[f"cluster_{args.cluster}"] = measure(args, Path(tmp), url, args.cluster)
    report(out, args.json)
    return 0


def measure(args: argparse.Namespace, tmp: Path, db: str, cluster: int = 0) -> dict[str, Any]:
    """One measurement: the echo floor, then the load on one server (`db` a SQLite file) or
    on `cluster` servers sharing the PostgreSQL database `db` and the bench's Redis (then no
    echo floor: this process's reactor ran for the first measurement's, and runs once)."""
    out: dict[str, Any] = {}
    echo = None if cluster else Child([sys.executable, __file__, "--echo-server"],
                                      tmp / "echo.log")
    if args.connect:
        servers = [Child.attach(args.pid)]
    elif cluster:
        name = f"bench{os.getpid()}"
        servers = [serve(db, args.rooms + args.abandoned, tmp / f"server{n}.log",
                         "--bot-workers", str(args.bot_workers), "--presence", args.redis,
                         "--cluster-name", name, "--no-admin")
                   for n in range(cluster)]
    else:
        servers = [serve(db, args.rooms + args.abandoned, tmp / "server.log",
                         "--bot-workers", str(args.bot_workers))]
    try:
        ports = [args.connect] if args.connect else [
            int(x.wait_for(LISTENING, 60).group(1)) for x in servers]
        if echo is not None:
            echo_port = int(echo.wait_for(ECHO_LISTENING).group(1))
            react(lambda reactor: echo_floor(reactor, echo_port, args.echo_trips, out))
            echo.stop()
        else:
            time.sleep(4)  # a beat of each: every server knows the others
        if args.abandoned:
            out["abandoned_rooms"] = abandon_rooms(ports[0], args.abandoned,
                                                   args.abandoned_bot_ms)
        run_workers(args, ports, servers, out)
    finally:
        if echo is not None:
            echo.stop()
        if not args.connect:
            for n, server in enumerate(servers):
                stop_server(server, server.log, out, f"_{n}" if cluster else "")
    return out


@contextlib.contextmanager
def bench_database(base: str) -> Iterator[str]:
    """A new PostgreSQL database for the cluster's run, dropped after it."""
    import psycopg

    name = f"grailwar_bench_{os.getpid()}"
    with psycopg.connect(base, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
        try:
            yield urlsplit(base)._replace(path=f"/{name}").geturl()
        finally:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def stop_server(server: Child, log: Path, out: dict[str, Any], suffix: str = "") -> None:
    """Stop a bench's server; its exit code and the tracebacks it logged go in `out`."""
    out["server_exit" + suffix] = server.stop()
    text = log.read_text(errors="replace")
    out["server_errors_logged" + suffix] = text.count("Traceback")
    # the server logs each heartbeat whose longest collection took 100 ms or more
    pauses = [int(ms) for ms in GC_PAUSE.findall(text)]
    out["server_gc_pauses" + suffix] = len(pauses)
    out["server_gc_max_ms" + suffix] = max(pauses, default=0)
    totals = GC_TOTALS.search(text)  # logged at the server's stop
    if totals:
        out["server_gc_runs" + suffix] = int(totals[1])
        out["server_gc_cpu_s" + suffix] = float(totals[2])
        out["server_gc_found" + suffix] = int(totals[3])
        out["server_gc_full" + suffix] = int(totals[4])


def report(out: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(out))
    else:
        for key, value in out.items():
            print(f"{key:>22}: {value}")


if __name__ == "__main__":
    sys.exit(main())
