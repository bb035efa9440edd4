"""Desktop client figures, headless (ARCADE_HEADLESS=1, Mesa llvmpipe here), 1280x800:

- `fps`: frames per second on the game screen (the map) while a battle runs on the embedded
  server (bots answering at their normal 0.2 s pace, messages arriving between frames), every
  frame drawn (the real loop skips unchanged ones) as fast as the machine allows, each frame
  waited for until OpenGL has drawn it: the headroom above the 60 Hz the client runs at.
  `fps_battle_screen`: the same on the battle screen.
- `fps_paced`: the game screen with the client's real loop (its 60 Hz frame clock on the
  reactor, approach 1 of CLIENT-NOTES): frames run per second (target: 60); `draws_paced`:
  how many of them drew (only those where the screen changed: messages, our clicks).
- `frame_ms_p50` / `frame_ms_p99`: one frame's time (dispatch, update, draw, flip, and the wait
  until OpenGL has finished drawing it), uncapped.
- `idle_cpu_pct_title` / `idle_cpu_pct_map` (and `idle_cpu_pct`, the larger): CPU time of the
  process over wall time (% of one core) while the client's real loop runs on a screen where
  nothing changes: the title, then the map waiting for our move (its countdown ticking; the
  embedded server idles in the same process). Goal: at most 10.
- `start_to_lobby_s`: a new process running the client (interpreter start, imports, window,
  fonts, connect to a server, the lobby drawn): from spawn to the first lobby frame.
- `client_rss_mb`: that process's resident memory at the lobby (the client alone);
  `play_rss_mb`: this process during the battle (client plus embedded server and bots).

    python bench/client_fps.py [--json] [--seconds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("ARCADE_HEADLESS", "1")


def rss_mb() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def reach_battle(app, timeout: float = 60.0) -> bool:
    """Play our seat (clicking like a player) until a battle is on; bots move at once here."""
    from grailwar.client.driver import AutoPlayer
    from grailwar.shared.protocol import BOT_DELAY
    m = app.model
    player = AutoPlayer(app, "normal", seed=5)
    ok = app.pump(until=lambda: bool(m.view and m.view.get("battle")
                                     and m.view["battle"]["stage"] != "offer"),
                  timeout=timeout, step=player.step, render=False)
    lobby = app.local.lobby
    lobby.pace_bots(BOT_DELAY, lobby.bot_pace)  # from here the bots play at the pace humans see
    return ok


def idle_cpu_pct(app, screen: str, seconds: float) -> float:
    """The real loop on `screen` once drawn, the reactor waiting as `reactor.run()` would."""
    from twisted.internet import reactor

    app.show(screen)
    app.pump(seconds=0.3)
    app.start_loop()
    cpu, wall = time.process_time(), time.perf_counter()
    while time.perf_counter() - wall < seconds:
        wait = reactor.timeout()
        reactor.iterate(0.1 if wait is None else min(0.1, wait))
    app.stop_loop()
    return round(100 * (time.process_time() - cpu) / (time.perf_counter() - wall), 1)


def measure_battle(seconds: float) -> dict[str, float]:
    from grailwar.client.app import GrailApp
    from twisted.internet import reactor

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "client"))
    app = GrailApp(reactor, lang="ja", name="bench", remember=False, bot_delay=0.0)
    app.settings["name"] = "bench"
    app.play_local("saber")
    m = app.model
    app.pump(until=lambda: m.room is not None and all(
        s["kind"] != "open" for s in m.room["seat_list"]), timeout=10, render=False)
    app.current.click("start")
    app.pump(until=lambda: m.state is not None, timeout=10, render=False)
    if not reach_battle(app):
        raise SystemExit("no battle was reached")
    from grailwar.client.driver import AutoPlayer

    player = AutoPlayer(app, "normal", seed=9)

    def uncapped(screen: str, seconds: float) -> tuple[float, list[float], float]:
        """Frames per second drawing `screen` as fast as possible while the battle goes on."""
        app.show(screen)
        for _ in range(10):  # warm up: glyphs into the atlas, buffers allocated
            app.frame(force=True)
        times: list[float] = []
        seen = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            reactor.iterate(0)
            player.step()  # our seat keeps playing (through the screen's own buttons)
            app.show(screen)  # stay on the measured screen
            t0 = time.perf_counter()
            app.frame(force=True)
            app.window.ctx.finish()  # a frame counts once software OpenGL has drawn it
            times.append(time.perf_counter() - t0)
            seen += bool(m.view and m.view.get("battle"))
        elapsed = time.perf_counter() - start
        return len(times) / elapsed, times, seen / max(1, len(times))

    fps, times, in_battle = uncapped("game", seconds)
    fps_battle, _battle_times, _ = uncapped("battle", seconds / 2)
    app.show("game")
    play_rss = rss_mb()
    # the real loop: the app's own 60 Hz frame clock on the reactor, our seat still playing
    from twisted.internet.task import LoopingCall

    frames_before, drawn_before = app.frames, app.draws
    keep_playing = LoopingCall(lambda: (player.step(), app.show("game")))
    keep_playing.start(1 / 30)
    app.start_loop()
    paced_start = time.perf_counter()
    while time.perf_counter() - paced_start < min(4.0, seconds):
        reactor.iterate(0.002)
    app.stop_loop()
    keep_playing.stop()
    paced_time = time.perf_counter() - paced_start
    paced = (app.frames - frames_before) / paced_time
    drawn = (app.draws - drawn_before) / paced_time
    # idle (measured last: an idle phase before the others changes their figures): our seat
    # stops playing, so the game waits for its move
    app.pump(until=lambda: bool(m.legal) and m.sent_state_id == -1, timeout=10, render=False)
    idle_map = idle_cpu_pct(app, "game", min(3.0, seconds))
    idle_title = idle_cpu_pct(app, "title", min(3.0, seconds))
    times.sort()
    app.shutdown()
    return {"fps": round(fps, 1), "fps_battle_screen": round(fps_battle, 1),
            "fps_paced": round(paced, 1), "draws_paced": round(drawn, 1), "cpus": os.cpu_count(),
            "load_avg_1m": round(os.getloadavg()[0], 2),
            "frame_ms_p50": round(statistics.median(times) * 1e3, 2),
            "frame_ms_p99": round(times[int(len(times) * 0.99) - 1] * 1e3, 2),
            "battle_share": round(in_battle, 2), "play_rss_mb": round(play_rss, 1),
            "idle_cpu_pct_title": idle_title, "idle_cpu_pct_map": idle_map,
            "idle_cpu_pct": max(idle_title, idle_map)}


PROBE = r"""
import os, sys, time
os.environ.setdefault("ARCADE_HEADLESS", "1")
from twisted.internet import reactor
from grailwar.client.app import GrailApp
app = GrailApp(reactor, lang="ja", name="bench", remember=False)
app.connect("127.0.0.1", int(sys.argv[1]))
ok = app.pump(until=lambda: getattr(app.current, "name", "") == "lobby"
              and app.model.rooms_total >= 0 and app.model.connection == "connected",
              timeout=20, render=False)
app.frame()
t = time.time()
rss = 0.0
for line in open("/proc/self/status"):
    if line.startswith("VmRSS:"):
        rss = int(line.split()[1]) / 1024
print(f"LOBBY {t} {rss} {ok}", flush=True)
app.shutdown()
"""


def measure_start() -> dict[str, float]:
    """A separate client process against a server process, timed from its spawn."""
    server = subprocess.Popen(
        [sys.executable, "-u", "-m", "grailwar.cli.main", "serve", "--host", "127.0.0.1",
         "--port", "0", "--db", ":memory:"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True)
    try:
        port = None
        deadline = time.time() + 20
        while time.time() < deadline and port is None:
            line = server.stderr.readline()
            if "grailwar server on" in line:
                port = int(line.split("grailwar server on")[1].split(",")[0].rsplit(":", 1)[1])
        if port is None:
            raise SystemExit("the server did not start")
        spawn = time.time()
        out = subprocess.run([sys.executable, "-c", PROBE, str(port)], capture_output=True,
                             text=True, timeout=60)
        line = next((x for x in out.stdout.splitlines() if x.startswith("LOBBY")), None)
        if line is None:
            raise SystemExit(f"the client probe failed:\n{out.stderr[-2000:]}")
        _tag, at, rss, ok = line.split()
        return {"start_to_lobby_s": round(float(at) - spawn, 2),
                "client_rss_mb": round(float(rss), 1), "lobby_reached": ok == "True"}
    finally:
        server.terminate()
        server.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    result = measure_start()
    result.update(measure_battle(args.seconds))
    result["resolution"] = "1280x800"
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>18}: {value}")


if __name__ == "__main__":
    main()
