"""The desktop client: one window, one screen (arcade.View) at a time, driven by the reactor.

The loop is approach 1 of CLIENT-NOTES: the Twisted reactor is the main loop and a timed call
at 60 Hz dispatches the window's events and one update, then draws only if the screen changed
(an input, a message, a countdown's second, a resize), so an idle screen costs almost nothing
(tested with arcade 3.3.3 and pyglet 2.1.19, pinned in pyproject.toml). Network messages
arrive between frames on the same thread; nothing in a frame waits for the network.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..shared.engine.prompts import PROMPTS
from ..shared.protocol import LEFT_PAUSED, MAX_LISTED, SUMMONING
from . import config
from .i18n import Tr
from .letterbox import (
    MIN_HEIGHT,
    MIN_WIDTH,
    Letterbox,
    Projector,
    screen_size,
    smooth_minified_text,
    window_size,
)
from .model import ClientModel, check_name

FRAME_RATE = 60


@dataclass
class UiState:
    """Choices on screen that are not game state: the open verb, the card filter, the page."""

    verb: str | None = None
    card: str | None = None
    page: int = 0
    state_id: int = -1
    chat_channel: str = "room"
    whisper_to: int | None = None  # the seat the whisper channel speaks to
    log_kind: str = "dice"
    extra: dict[str, Any] = field(default_factory=dict)

    def reset(self) -> None:
        self.verb = None
        self.card = None
        self.page = 0
        self.extra.pop("group", None)


class GrailApp:
    """Owns the window, the model, the session and the screens; routes messages to screens."""

    def __init__(self, reactor: Any, *, lang: str | None = None, name: str | None = None,
                 host: str | None = None, local: bool = False, bot_delay: float | None = None,
                 export_dir: str | Path | None = None, remember: bool = True,
                 window: Any = None, antialiasing: bool = False,
                 size: tuple[int, int] | None = None, saves: Any = None) -> None:
        """`saves`: where the local game is kept between runs (a `LocalSave`; by default the
        user's data folder when the client remembers, else none: a game in memory only)."""
        import arcade
        import pyglet

        from .gfx import load_fonts

        self.reactor = reactor
        self.remember = remember
        self.settings = config.load() if remember else dict(config.DEFAULTS, lang="en")
        if lang:
            self.settings["lang"] = lang
        if name:
            self.settings["name"] = name
        if host:
            self.settings["host"] = host
        # first start, and no system language to use: ask, in English until answered (the
        # setting stays empty, so it is asked again if the window closes before an answer)
        ask_lang = not self.settings.get("lang")
        self.tr = Tr(self.settings.get("lang") or "en")
        self.model = ClientModel(tr=self.tr)
        self.local_mode = local
        self.bot_delay = bot_delay
        self.local: Any = None  # the embedded LocalServer, once started
        if saves is None and remember:
            from .localsave import LocalSave

            saves = LocalSave()
        self.saves = saves
        self.session: Any = None
        self.keeper: Any = None  # the SeatKeeper of a remote server's session
        self.tls = self.settings["tls"]  # remote servers over TLS (the title's switch)
        self.trust_root: Any = None  # the TLS trust root: None, the system's CAs (tests: theirs)
        self.refused: Any = None  # (host, port, tls.Refusal): the title screen's TLS dialog
        self.ui = UiState()
        self.export_dir = Path(export_dir) if export_dir else config.exports_dir()
        self.last_export = ""
        self.pending_local_class = "saber"
        self.local_modules: dict[str, Any] = {}  # create_room's modules/options (play --modules)
        self.local_summoning = SUMMONING[0]  # the local room's summoning (play --summoning)
        self.playing_local = False  # the lobby is the local game's (`open_local_lobby`)

        self.saved_size = (self.settings["width"], self.settings["height"])
        if window is None:
            pyglet.window.Window._enable_event_queue = True  # see below
            window = arcade.Window(
                *(size or window_size(self.saved_size, screen_size())), self.tr("app.title"),
                resizable=True, update_rate=1 / 1000, draw_rate=1 / 1000,
                antialiasing=antialiasing, vsync=False)
            window.set_minimum_size(MIN_WIDTH, MIN_HEIGHT)
        self.window = window
        # Dispatch events at once, as pyglet's own loop does (only after the window exists:
        # its creation dispatches a resize that needs the queue).
        pyglet.window.Window._enable_event_queue = False
        self.projector = Projector(self.window)
        smooth_minified_text()
        load_fonts()
        self.views: dict[str, Any] = {}
        self.frames = 0
        self.draws = 0  # frames that drew (the others found the screen unchanged)
        self.last_frame = time.perf_counter()
        self.loop: Any = None  # the next frame's delayed call
        self.loop_running = False
        self.next_frame = 0.0
        self.closing = False
        # what the command line asked to do at once (connect, play), held while the first
        # start's language question is open: `start_when_ready`
        self.after_language: Any = None
        self.show("language" if ask_lang else "title")

    def start_when_ready(self, action: Any, *args: Any) -> None:
        """Run `action` once the reactor runs, or, on a first start that asks for the
        language, once it is answered (`--name` must not skip the question)."""
        if getattr(self.current, "name", "") == "language":
            self.after_language = lambda: action(*args)
        else:
            self.reactor.callWhenRunning(action, *args)

    @property
    def fit(self) -> Letterbox:
        """Where the 1280x800 design sits in the window (mouse coordinates map through it)."""
        return self.projector.fit

    # --- screens --------------------------------------------------------------------------------
    def view(self, name: str) -> Any:
        if name not in self.views:
            from .views import view_class

            self.views[name] = view_class(name)(self)
        return self.views[name]

    @property
    def current(self) -> Any:
        return self.window.current_view

    def show(self, name: str) -> Any:
        view = self.view(name)
        if self.window.current_view is not view:
            self.window.show_view(view)
            view.invalidate()
        return view

    def set_lang(self, lang: str) -> None:
        self.tr = Tr(lang)
        self.model.tr = self.tr
        self.settings["lang"] = lang
        self.save_settings()
        self.window.set_caption(self.tr("app.title"))
        for view in self.views.values():
            view.invalidate()
        self.model.revision += 1

    def window_resized(self, width: int, height: int) -> None:
        """Remember the size for the next run (saved when the client quits)."""
        self.settings["width"], self.settings["height"] = width, height

    def save_size(self) -> None:
        """Save the settings if the window's size changed since they were loaded."""
        size = (self.settings["width"], self.settings["height"])
        if size != self.saved_size:
            self.save_settings()
            self.saved_size = size

    def save_settings(self) -> None:
        if self.remember:
            config.save(self.settings)

    # --- the loop -------------------------------------------------------------------------------
    def frame(self, force: bool = False) -> None:
        """One frame: window events, one update, then a draw and flip if the screen changed
        (or if `force`: the bench measures what a drawn frame costs)."""
        window = self.window
        if window.closed:
            return
        now = time.perf_counter()
        dt, self.last_frame = now - self.last_frame, now
        window.dispatch_events()
        if window.closed or self.closing:
            self.quit()
            return
        window.dispatch_event("on_update", dt)
        self.frames += 1
        view = self.current
        if not force and view is not None and not view.wants_draw():
            return
        window.switch_to()
        window.dispatch_event("on_draw")
        window.flip()
        self.draws += 1

    def safe_frame(self) -> None:
        """A frame whose failure (a client bug) is logged and skipped, so the window stays
        alive and the game goes on."""
        try:
            self.frame()
        except Exception:
            from twisted.logger import Logger

            Logger().failure("drawing a frame of the {screen} screen",
                             screen=getattr(self.current, "name", "?"))
            if self.current is not None:
                self.current.invalidate()

    def start_loop(self) -> None:
        """Frames at 60 Hz on the reactor. Like a LoopingCall, but a frame that ran late (a
        screen redrawn after a message) is made up at once instead of skipped, so the rate
        stays at 60 while the average frame takes less than 1/60 s."""
        self.loop_running = True
        self.next_frame = time.monotonic()
        self.reactor.callLater(0, self._tick)

    def stop_loop(self) -> None:
        self.loop_running = False
        if self.loop is not None and self.loop.active():
            self.loop.cancel()
        self.loop = None

    def _tick(self) -> None:
        self.loop = None
        if not self.loop_running:
            return
        self.safe_frame()
        period = 1 / FRAME_RATE
        now = time.monotonic()
        self.next_frame += period
        if self.next_frame < now - period:  # far behind (the machine was busy): start afresh
            self.next_frame = now
        if self.loop_running and not self.window.closed:
            self.loop = self.reactor.callLater(max(0.0, self.next_frame - now), self._tick)

    def run(self) -> None:
        """Run until the window closes (the reactor is the main loop)."""
        self.start_loop()
        self.window.on_close = self.request_close  # type: ignore[method-assign]
        self.reactor.addSystemEventTrigger("before", "shutdown", self.save_size)  # Ctrl+C too
        self.reactor.run()

    def request_close(self) -> None:
        """Closing the window in the middle of a local game asks first (`answer_close`); the
        game stands still while it asks (no clock may run out behind the question)."""
        if self.in_local_game():
            self.ui.extra["close_ask"] = True
            room = self._local_room()
            if room is not None and room.paused is None:
                room.pause(self.settings["name"].strip())
                self.ui.extra["paused_to_ask"] = True
            if self.current is not None:
                self.current.invalidate()
            return
        self.closing = True

    def in_local_game(self) -> bool:
        m = self.model
        return self.local is not None and self.saves is not None and m.state is not None \
            and not m.over and m.seat is not None

    def answer_close(self, choice: str) -> None:
        """`later`: the game is paused in the embedded server's log and kept, to be continued
        from the title screen; `quit`: given up; `cancel`: back to the game."""
        self.ui.extra.pop("close_ask", None)
        room = self._local_room()
        paused_to_ask = self.ui.extra.pop("paused_to_ask", False)
        if choice == "cancel":
            if paused_to_ask and room is not None and room.paused is not None:
                room.resume_game(self.settings["name"].strip())  # as it was before we asked
            if self.current is not None:
                self.current.invalidate()
            return
        if choice == "later" and room is not None and room.paused is None:
            room.pause(self.settings["name"].strip())  # written to the file before we go
        if choice == "quit" and self.saves is not None:
            self.saves.forget_seat()
        self.closing = True

    def _local_room(self) -> Any:
        """The local game's room in the embedded server (None elsewhere)."""
        return self.local.lobby.rooms.get(self.model.room_id) if self.local else None

    def quit(self) -> None:
        self.stop_loop()
        self.shutdown()
        if self.reactor.running:
            self.reactor.callLater(0, self.reactor.stop)

    def shutdown(self) -> None:
        self.save_size()
        if self.session is not None:
            self.session.close()
        if self.local is not None:
            self.local.stop()
            self.local = None
        if not self.window.closed:
            self.window.close()

    def pump(self, until: Any = None, timeout: float = 10.0, seconds: float = 0.0,
             render: bool = True, step: Any = None) -> bool:
        """Drive the reactor and the frames by hand (tests, the tour, the bench) until
        `until()` is true (False on timeout) or for `seconds`; `step()` runs every iteration."""
        deadline = time.monotonic() + (timeout if until is not None else seconds)
        last = 0.0
        ok = True
        while True:
            self.reactor.iterate(0.0005)
            if step is not None:
                step()
            if until is not None and until():
                break
            now = time.monotonic()
            if now > deadline:
                ok = until is None
                break
            if render and now - last >= 1 / FRAME_RATE:
                self.frame()
                last = now
        self.frame()
        return ok

    def capture(self, path: str | Path) -> Path:
        """Draw the current screen and save it as a PNG (the tour, the tests)."""
        import arcade

        view = self.current
        self.window.switch_to()
        view.on_update(0.0)
        view.on_draw()
        # the whole window (the design and its letterbox bars), in RGB: the window's alpha
        # channel is not what is on screen (translucent shapes leave it below 255, and a PNG
        # viewer would show the picture over white)
        image = arcade.get_image(0, 0, *self.window.get_framebuffer_size()).convert("RGB")
        self.window.flip()
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        image.save(path)
        return path

    # --- going places ---------------------------------------------------------------------------
    def new_session(self) -> Any:
        from .session import Session

        if self.session is not None:
            self.session.close()
        self.model.reset_room()
        self.keeper = None
        self.session = Session(self.reactor, self.model, self.settings["name"].strip())
        self.session.listeners.append(self.route)
        self.session.on_failed.append(lambda _text: self._connection_failed())
        self.session.on_refused.append(self._certificate_refused)
        return self.session

    def check_player_name(self) -> bool:
        problem = check_name(self.settings.get("name", ""))
        if problem:
            self.model.notify(self.tr(problem))
            return False
        return True

    def connect(self, host: str, port: int) -> bool:
        if not self.check_player_name():
            return False
        self.save_settings()
        session = self.new_session()
        self.playing_local = False
        if self.tls:
            from .tls import PinStore

            session.tls, session.pins, session.trust_root = True, PinStore(), self.trust_root
        self.keeper = self._keep_seats(session)
        session.on_welcome.append(self._welcomed)
        session.connect(host, port)
        return True

    def _certificate_refused(self, refusal: Any) -> None:
        """A certificate not accepted: the title screen shows why, with the fingerprints, and
        asks whether to pin an untrusted one."""
        self.refused = (self.session.host, self.session.port, refusal)

    def answer_refused(self, trust: bool) -> None:
        """The player's answer: yes to an untrusted certificate pins the fingerprint shown and
        connects again (a changed one is only acknowledged)."""
        refused, self.refused = self.refused, None
        if refused is None or not trust or refused[2].kind != "untrusted":
            return
        host, port, refusal = refused
        from .tls import PinStore

        PinStore().pin(f"{host}:{port}", refusal.seen)
        self.connect(host, port)

    def _keep_seats(self, session: Any) -> Any:
        """Seats on a remote server are kept on disk (`seats.json`); never those of our own
        embedded server, which is new on every start."""
        if not self.remember or self.local is not None:
            return None
        from .seats import SeatBook, SeatKeeper

        keeper = SeatKeeper(SeatBook(), session)
        session.listeners.insert(0, keeper.take)  # the book is written before screens route
        keeper.on_gone.append(self._seat_gone)
        return keeper

    def _welcomed(self) -> None:
        """A client that crashed or was closed sits down again: one seat kept for this server
        is resumed at once; several are offered in the lobby (its rejoin buttons)."""
        held = self.keeper.held() if self.keeper is not None else []
        if len(held) == 1 and self.keeper.rejoin(held[0]):
            self.model.notify(self.tr("seats.rejoining", room=held[0].name or held[0].room),
                              "info")
            return
        self.go_lobby()

    def _seat_gone(self) -> None:
        """A kept seat the server no longer knows: the lobby, with the server's error shown."""
        if getattr(self.current, "name", "") != "lobby":
            self.go_lobby()

    def play_local(self, cls: str | None = None) -> bool:
        """Start (once) the embedded server, then make a room with bots in every other seat
        (`play --name`: straight to the room)."""
        cls = cls or self.pending_local_class

        def create(session: Any) -> None:
            name = self.settings["name"].strip()
            room_name = self.tr("lobby.room_name_default", name=name)[:32]
            session.send("create_room", name=room_name, cls=cls, summoning=self.local_summoning,
                         **self.local_modules)
            self.ui.extra["fill_bots"] = True

        return self._local_session(create)

    def open_local_lobby(self) -> bool:
        """Local play from the title: the embedded server, then the lobby's create panel as on
        a server (the modules, their options and timers, the summoning), with bots filling
        every other seat of the room made there."""
        if not self._local_session(lambda session: self.show("lobby")):
            return False
        self.playing_local = True
        return True

    def _local_session(self, welcomed: Callable[[Any], None]) -> bool:
        """The player's name checked and kept, the embedded server started (afresh), and a
        connection to it; `welcomed(session)` once it greets us."""
        if not self.check_player_name():
            return False
        self.save_settings()
        if not self.start_local(fresh=True):
            return False
        session = self.new_session()
        session.on_welcome.append(lambda: welcomed(session))
        session.connect("127.0.0.1", self.local.port)
        return True

    def start_local(self, fresh: bool) -> bool:
        """Start (once) the embedded server: on its kept log (`fresh` False: the game to
        continue), or on a new one; in memory when nothing is kept."""
        if self.local is not None:
            return True
        from .embedded import LocalServer

        try:
            db = ":memory:" if self.saves is None else \
                self.saves.start_afresh() if fresh else str(self.saves.db)
            self.local = LocalServer(self.reactor, db=db, bot_delay=self.bot_delay)
            self.local.start()
        except Exception as err:  # a port or database problem: say so, never a traceback
            self.local = None
            self.model.notify(self.tr("error.local_failed", reason=str(err)))
            return False
        return True

    def saved_local_game(self) -> Any:
        """The kept local game to offer on the title screen (none once a server runs here)."""
        return self.saves.held() if self.saves is not None and self.local is None else None

    def continue_local(self) -> bool:
        """Bring the kept local game back: the embedded server replays its log (a paused game
        stays paused, its clocks as they were), and our seat is taken back with its token."""
        held = self.saved_local_game()
        if held is None or not self.check_player_name() or not self.start_local(fresh=False):
            return False
        self.save_settings()
        session = self.new_session()
        session.on_welcome.append(lambda: session.send("resume", room=held.room,
                                                       token=held.token))
        self.ui.extra["continuing"] = True
        session.connect("127.0.0.1", self.local.port)
        return True

    def _keep_local_seat(self, msg: dict[str, Any]) -> None:
        """The local game's seat is written down as soon as it is ours, forgotten when the
        game is over or given up (not when a paused game is left: it is continued later)."""
        kind = msg.get("t")
        if self.saves is None or self.local is None:
            return
        if kind == "joined" and msg.get("token"):
            self.ui.extra.pop("continuing", None)
            self.saves.keep(msg["room"], msg["token"])
        elif kind == "room" and msg["room"].get("id") == self.model.room_id:
            self.saves.keep_modules(list(msg["room"].get("modules", ())))
        elif (kind == "state" and msg["view"].get("over")) or (
                kind == "left" and msg.get("reason") != LEFT_PAUSED):
            self.saves.forget_seat()
        elif kind == "error" and msg.get("code") in ("bad_token", "room_not_found") and \
                self.ui.extra.pop("continuing", False):
            self.saves.forget_seat()  # the kept game is no more: the title offers a new one
            self.show("title")

    def go_lobby(self) -> None:
        if self.session is not None:
            self.session.send("list_rooms")
        self.show("lobby")

    def go_title(self) -> None:
        self.playing_local = False
        if self.session is not None:
            self.session.close()
        self.model.reset_room()
        self.show("title")

    def _connection_failed(self) -> None:
        if self.current is not None and getattr(self.current, "name", "") != "title":
            self.show("title")

    def fill_bots(self) -> None:
        """Local play: bots take every seat but ours (the owner's add_bot, one per class)."""
        room = self.model.room
        if not room or room.get("started"):
            return
        taken = {s["cls"] for s in room["seat_list"] if s["kind"] != "open"}
        from ..shared.engine.data import CLASSES

        for cls in CLASSES:
            if cls not in taken:  # (at the room's bot level: the room's button changes it)
                self.session.send("add_bot", cls=cls)

    # --- routing --------------------------------------------------------------------------------
    def route(self, msg: dict[str, Any]) -> None:
        """Choose the screen after a server message."""
        kind = msg.get("t")
        name = getattr(self.current, "name", "")
        self._keep_local_seat(msg)
        if kind == "rooms" and name not in ("lobby",) and self.model.room_id is None:
            if name != "title":
                self.show("lobby")
        elif kind == "joined":
            self.ui.reset()
        elif kind == "room":
            room = msg["room"]
            if self.ui.extra.pop("fill_bots", False):
                self.fill_bots()
            if not room.get("started") and name not in ("room",):
                self.show("room")
        elif kind == "state":
            if msg["state_id"] != self.ui.state_id:
                self.ui.state_id = msg["state_id"]
                self.ui.reset()
            view = msg["view"]
            battle = view.get("battle")
            screen = self.model.battle_screen  # "battle", or a module's own fight's screen
            key = (battle["purpose"], battle["opener"], battle["target"], view["day"],
                   view["turn"]) if battle else (screen, view["day"], view["turn"]) \
                if screen != "battle" else None
            new_battle = key is not None and key != self.ui.extra.get("battle")
            self.ui.extra["battle"] = key
            if view.get("over"):
                if name not in ("end", "log", "dossier"):
                    self.show("end")
            elif name in ("room", "lobby", "title", "end") or (
                    name in self.model.home_screens() and name != self.model.home_screen
                    and not key):
                self.show(screen if key else self.model.home_screen)
            elif name == "game" and key and (new_battle or self._prompted_in_battle(view)):
                self.show(screen)  # a battle breaks out, or it needs this seat
            elif name in self.model.fight_screens() and (key is None or name != screen):
                self.show(screen if key else self.model.home_screen)
        elif kind == "left":
            self.ui.reset()
            if self.local is not None:
                self.show("title")
            else:
                self.go_lobby()
        elif kind == "error" and msg.get("code") in ("bad_token", "room_not_found") \
                and self.model.room_id is None \
                and name in {"room", *self.model.home_screens(), *self.model.fight_screens()}:
            self.go_lobby()

    def _prompted_in_battle(self, view: dict[str, Any]) -> bool:
        """This seat must answer inside the battle (a player who went back to the map during
        someone else's battle is left there otherwise)."""
        kind = PROMPTS.get(view["prompt"]["kind"])
        return bool(self.model.legal) and kind is not None and kind.battle

    # --- exports --------------------------------------------------------------------------------
    def export(self, what: str) -> str | None:
        """Write the log (a text file and an HTML page beside it) or the replay (JSON) to the
        export folder, at any time of the game; returns the path (the text file's)."""
        from .embedded import dump_replay
        from .logexport import log_html, log_text

        stamp = time.strftime("%Y%m%d-%H%M%S")
        try:
            self.export_dir.mkdir(parents=True, exist_ok=True)
            if what == "log":
                path = self.export_dir / f"grailwar-log-{stamp}.txt"
                path.write_text(log_text(self.model), encoding="utf-8")
                path.with_suffix(".html").write_text(log_html(self.model), encoding="utf-8")
            else:
                path = self.export_dir / f"grailwar-replay-{stamp}.json"
                replay = self.model.replay  # the server sends it when the game is over
                if replay is None and self.local is not None and self.model.room_id is not None:
                    replay = self.local.replay(self.model.room_id)
                if replay is None:  # no replay yet: what this seat saw, event by event
                    replay = {"format": "grailwar-client-record-1",
                              "room": (self.model.room or {}).get("name"),
                              "seat": self.model.me, "events": self.model.events}
                path.write_text(dump_replay(replay), encoding="utf-8")
        except OSError as err:
            self.model.notify(self.tr("error.export_failed", reason=err.strerror or str(err)))
            return None
        self.last_export = str(path)
        notice = self.tr("chatlog.exported", folder=str(self.export_dir)) \
            if what == "log" else self.tr("end.exported", path=str(path))
        self.model.notify(notice, "info", sticky=True)  # a path to read (and copy): it stays
        return str(path)

    def list_rooms(self) -> None:
        if self.session is not None:
            self.session.send("list_rooms", offset=max(0, self.ui.extra.get("offset", 0)))


__all__ = ["MAX_LISTED", "GrailApp"]
