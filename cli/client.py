"""The desktop client's commands: `grailwar play`, `grailwar connect HOST[:PORT]`, `grailwar tour`.

`grailwar play --text` keeps the terminal game (no window) of `cli/play.py`.
"""

from __future__ import annotations

import argparse
import os
import sys

from ..shared.engine.data import CLASSES
from ..shared.protocol import LEVELS, SUMMONING
from . import modules as module_args


def register(sub: argparse._SubParsersAction) -> None:
    from . import play as text_play

    p = sub.add_parser("play", help="play against bots: a local server with bots in every "
                                    "other seat, and the desktop client")
    p.add_argument("--lang", choices=("ja", "ko", "en"), default=None,
                   help="interface language (remembered; default: the last one, or $LANG if "
                        "it is ja or ko, else the client asks; with --text the last one, or ja)")
    p.add_argument("--name", default=None, help="your player name (remembered)")
    p.add_argument("--text", action="store_true",
                   help="the terminal game instead of the window (no graphics needed)")
    p.add_argument("--cls", default="saber", choices=CLASSES, help="your Servant's class")
    p.add_argument("--seed", type=int, default=None, help="(--text) the game's seed")
    p.add_argument("--bots", default="normal", choices=LEVELS,
                   help="(--text) the bots' level")
    p.add_argument("--summoning", default=SUMMONING[0], choices=SUMMONING,
                   help="random: the seed draws each Servant from its class's roster; choose: "
                        "you pick yours in the room (the window only)")
    module_args.add_arguments(p)
    p.set_defaults(run=run_play, text_run=text_play.run)

    c = sub.add_parser("connect", help="the desktop client against a server (lobby, rooms)")
    c.add_argument("address", help="HOST or HOST:PORT (default port 7707)")
    c.add_argument("--lang", choices=("ja", "ko", "en"), default=None)
    c.add_argument("--name", default=None, help="your player name (remembered)")
    add_tls_arguments(c)
    c.set_defaults(run=run_connect)

    t = sub.add_parser("tour", help="render every main screen of a scripted local game to PNG")
    t.add_argument("--out", required=True, help="folder for the PNG files")
    t.add_argument("--lang", choices=("ja", "ko", "en"), default="ja")
    t.add_argument("--seed", type=int, default=None, help="the scripted game's seed")
    t.add_argument("--modules", default="", help="a rules module (comma-separated for several): "
                   "its screens instead, staged moments fed to the client as the server's "
                   "messages (the last in registry order that has a tour)")
    t.add_argument("--scenario", default="", metavar="NAME",
                   help="a scenario module's screens in that scenario (the module whose "
                        "`scenario` option takes NAME)")
    t.add_argument("--size", type=window_size_arg, default=None,
                   help="the window's size, WIDTHxHEIGHT (default 1280x800; e.g. 1366x768)")
    t.set_defaults(run=run_tour)


def add_tls_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tls", action="store_true",
                   help="connect with TLS; the certificate must be trusted by the system, or "
                        "pinned on first use (pins.json beside client.json)")
    p.add_argument("--trust-fingerprint", metavar="SHA256", default=None,
                   help="pin this SHA-256 fingerprint of the server's certificate (as its host "
                        "gave it; replaces an older pin); implies --tls")


def tls_pin(args: argparse.Namespace) -> str | None:
    """The fingerprint of `--trust-fingerprint`, in canonical form ("" if not given); None
    (said on stderr) if it is no SHA-256. Importing the TLS code only when asked for."""
    if args.trust_fingerprint is None:
        return ""
    from ..client.tls import parse_fingerprint

    pin = parse_fingerprint(args.trust_fingerprint)
    if pin is None:
        print(f"grailwar: {args.trust_fingerprint!r} is not a SHA-256 fingerprint (64 hex "
              "digits, colons allowed)", file=sys.stderr)
    return pin


def remember_pin(args: argparse.Namespace, address: tuple[str, int]) -> bool:
    """`--trust-fingerprint` pinned in pins.json for the server (the player's word, as if
    they had answered the client's question); False if it is no fingerprint."""
    pin = tls_pin(args)
    if pin:
        from ..client.tls import PinStore

        PinStore().pin("{}:{}".format(*address), pin)
    return pin is not None


def _no_display_hint() -> str | None:
    if sys.platform.startswith("linux") and not os.environ.get("DISPLAY") \
            and not os.environ.get("WAYLAND_DISPLAY") and not os.environ.get("ARCADE_HEADLESS"):
        return ("grailwar: no display found. Run it in a desktop session, or try "
                "`grailwar play --text` (terminal game) or ARCADE_HEADLESS=1 for tests.")
    return None


def _window_error(err: Exception) -> int:
    print(f"grailwar: the window could not open ({err.__class__.__name__}: {err}).\n"
          "An OpenGL 3.3 driver is needed (on Linux: apt-get install libgl1 libegl1). "
          "`grailwar play --text` plays in the terminal.", file=sys.stderr)
    return 2


def _log_warnings() -> None:
    """Client bugs and server warnings go to stderr (not the embedded server's chatter)."""
    from twisted.logger import (
        FilteringLogObserver,
        LogLevel,
        LogLevelFilterPredicate,
        globalLogBeginner,
        textFileLogObserver,
    )

    predicate = LogLevelFilterPredicate(defaultLogLevel=LogLevel.warn)
    globalLogBeginner.beginLoggingTo(
        [FilteringLogObserver(textFileLogObserver(sys.stderr), [predicate])],
        redirectStandardIO=False)


def run_play(args: argparse.Namespace) -> int:
    chosen = module_args.from_args(args, "play")
    if chosen is None:
        return 2
    if args.text:
        return args.text_run(args)
    hint = _no_display_hint()
    if hint:
        print(hint, file=sys.stderr)
        return 2
    from twisted.internet import reactor

    try:
        from ..client.app import GrailApp

        app = GrailApp(reactor, lang=args.lang, name=args.name, local=True)
    except Exception as err:  # no OpenGL, no display: a clear message, not a traceback
        return _window_error(err)
    app.pending_local_class = args.cls
    app.local_summoning = args.summoning
    if chosen[0]:
        app.local_modules = {"modules": list(chosen[0]), "options": chosen[1]}
    _log_warnings()
    if args.name:  # a name given on the command line: straight to the room
        app.start_when_ready(app.play_local, args.cls)
    app.run()
    return 0


def run_connect(args: argparse.Namespace) -> int:
    from ..client.model import parse_host
    from ..shared.protocol import DEFAULT_PORT

    address = parse_host(args.address, DEFAULT_PORT)
    if address is None:
        print(f"grailwar: {args.address!r} is not a server address (HOST or HOST:PORT)",
              file=sys.stderr)
        return 2
    if not remember_pin(args, address):
        return 2
    hint = _no_display_hint()
    if hint:
        print(hint, file=sys.stderr)
        return 2
    from twisted.internet import reactor

    try:
        from ..client.app import GrailApp

        app = GrailApp(reactor, lang=args.lang, name=args.name, host=args.address)
    except Exception as err:
        return _window_error(err)
    app.tls = app.tls or args.tls or args.trust_fingerprint is not None
    _log_warnings()
    if app.settings.get("name", "").strip():
        app.start_when_ready(app.connect, *address)
    app.run()
    return 0


def window_size_arg(text: str) -> tuple[int, int]:
    """`1366x768` as (1366, 768)."""
    width, sep, height = text.lower().partition("x")
    if not sep or not width.isdigit() or not height.isdigit():
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT, got {text!r}")
    return int(width), int(height)


def run_tour(args: argparse.Namespace) -> int:
    from ..client.tour import TOUR_SEED
    from ..client.tour import run_tour as tour

    try:
        files = tour(args.out, args.lang, args.seed if args.seed is not None else TOUR_SEED,
                     tuple(m for m in args.modules.split(",") if m), args.size, args.scenario)
    except ValueError as err:  # a module or scenario without a tour
        print(f"grailwar tour: {err}", file=sys.stderr)
        return 2
    except Exception as err:
        if "display" in str(err).lower() or "NoSuchDisplay" in err.__class__.__name__:
            print("grailwar tour: no display; set ARCADE_HEADLESS=1", file=sys.stderr)
            return 2
        raise
    for path in files:
        print(path)
    return 0
