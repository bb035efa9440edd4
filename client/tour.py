"""`grailwar tour`: every main screen, driven by a scripted local game, saved as PNG files.

The tour starts the embedded server, makes a few rooms for the lobby to show, then plays one
game from a fixed seed through the client's own input handlers: a room whose players choose
their Servants (the tour picks one), then the seat's choices come from the engine's normal
bot, with the planned investigations first so the dossier shows the deduction. Each screen is
captured when the game reaches it. Works with ARCADE_HEADLESS=1.

`--modules NAME` shows that module's screens instead (its client part's `tour`: staged
moments fed to the client as the server's messages, with no server); `--scenario NAME` those of
the module whose scenario it is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..shared.engine import events_for, legal_actions, view_for
from ..shared.engine.data import CLASSES
from ..shared.engine.events import Event
from ..shared.engine.modules import scenario_module
from ..shared.engine.state import GameState
from ..shared.protocol import PROTOCOL_VERSION
from .driver import AutoPlayer
from .modules import parts_on

SAMPLE_CHAT = {
    "ja": ("よろしくお願いします。聖杯は私がいただきます。", "お手柔らかに。"),
    "ko": ("잘 부탁드립니다. 성배는 제가 가져가겠습니다.", "살살 부탁해요."),
    "en": ("Good luck, everyone. The Grail is mine.", "Be gentle."),
}
PLAYER = {"ja": "衛宮", "ko": "한서진", "en": "Ayaka"}
# the operator's message of the day on the lobby (the operator's words, not a catalog's)
TOUR_MOTD = {"ja": "今夜23時から10分間メンテナンスします。",
             "ko": "오늘 밤 11시부터 10분간 점검합니다.",
             "en": "Maintenance tonight at 23:00 UTC, for ten minutes."}
TOUR_SEED = 1  # the scripted game's; the dossier comment below holds for it
TOUR_ROLL = "1D100<=60"  # rolled by the server in the chat (its own dice, not the game's)
TOUR_SERVANT = "hua_mulan"  # the tour's Saber, chosen in the room
# The tour's own investigations, class by class to a tier; the other rivals stay at tier 0.
# With the tour's seed the dossier of day 4 then shows every step of the deduction: Archer's
# Noble Phantasm seen firing (two candidates left), Lancer deduced from tier 1, Rider known
# by tier 2, Berserker deduced from its Noble Phantasm alone, Caster and Assassin all three.
TOUR_INVESTIGATIONS = {"lancer": 1, "rider": 2}


def state_message(state: GameState, seat: int | None,
                  deadlines: dict[str, int] | None = None) -> dict[str, Any]:
    """The `state` message the server sends a seat (as server/room.py builds it)."""
    return {"t": "state", "view": view_for(state, seat),
            "legal": [a.to_dict() for a in legal_actions(state, seat)],
            "state_id": state.version, "deadlines": deadlines or {}}


def feed(m: Any, state: GameState, events: list[Event], seat: int, modules: list[str],
         player: str = "Ayaka") -> None:
    """The messages of `seat` (played by `player`, bots elsewhere) sitting at `state`, the
    game so far as its history, given to the client model `m`."""
    m.handle({"t": "welcome", "version": PROTOCOL_VERSION, "server": "tour"})
    m.handle({"t": "joined", "room": 1, "seat": seat, "token": "", "spectator": False})
    m.handle({"t": "room", "room": {"modules": modules, "seat_list": [
        {"seat": i, "kind": "human" if i == seat else "bot",
         "name": player if i == seat else "", "level": "normal"}
        for i in range(len(state.camps))]}})
    m.handle({"t": "history", "first": True, "events": events_for(events, seat), "log": [],
              "chat": []})
    m.handle(state_message(state, seat, {str(x): 60 for x in state.prompt.seats}))


class Tour:
    def __init__(self, out: str | Path, lang: str = "ja", seed: int = TOUR_SEED,
                 reactor: Any = None, app: Any = None,
                 size: tuple[int, int] | None = None) -> None:
        if reactor is None:
            from twisted.internet import reactor as default_reactor

            reactor = default_reactor
        from .app import GrailApp

        self.out = Path(out)
        self.lang = lang
        self.seed = seed
        self.reactor = reactor
        self.app = app or GrailApp(reactor, lang=lang, name=PLAYER.get(lang, "Ayaka"),
                                   remember=False, bot_delay=0.0,
                                   export_dir=self.out / "exports", size=size)
        self.files: list[Path] = []
        self.notes: list[str] = []

    def shot(self, name: str) -> Path:
        self.app.model.notices.clear()  # a toast left from the script would hide the screen
        self.app.current.invalidate()
        path = self.app.capture(self.out / f"{name}.png")
        self.files.append(path)
        return path

    def wait(self, until: Any, timeout: float = 20.0, step: Any = None) -> bool:
        return self.app.pump(until=until, timeout=timeout, render=False, step=step)

    def hover(self, rid: str) -> None:
        view = self.app.current
        view.rebuild()
        for _page in range(20):  # an option on a later page of its menu: turn to it
            if view.region_by_id(rid) is not None or not view.click("page:next"):
                break
            view.rebuild()
        region = view.region_by_id(rid)
        if region is not None:
            view.point_at(region)

    def run(self) -> list[Path]:
        app = self.app
        m = app.model
        # --- title
        app.show("title")
        self.shot("title")
        app.current.click("help")  # the help, on its page of declarations
        app.current.click("help:page:declare")
        self.shot("help")
        app.current.click("help:back")
        # --- the local server and some rooms to show in the lobby
        from .embedded import LocalServer

        # bots wait 50 ms, so the client sees each declaration window before they act
        app.local = LocalServer(self.reactor, bot_delay=0.05)
        app.local.start()
        lobby = app.local.lobby
        lobby.motd = TOUR_MOTD.get(self.lang, TOUR_MOTD["en"])
        demo = [("冬木の夜会" if self.lang == "ja" else "한밤의 성배" if self.lang == "ko"
                 else "Fuyuki night table", "secret", 4),
                ("River Bridge", None, 7), ("初心者歓迎 beginners", None, 5)]
        self.hosts = [demo_host(self.reactor, app.local.port, f"host{i}", name, password, seats,
                                list(CLASSES[i + 1:i + 1 + seats - 2]))
                      for i, (name, password, seats) in enumerate(demo)]
        self.wait(lambda: len(lobby.rooms) >= len(demo), timeout=10)
        app.connect("127.0.0.1", app.local.port)
        self.wait(lambda: m.connection == "connected" and m.rooms_total >= 3)
        self.wait(lambda: app.current.name == "lobby")
        self.shot("lobby")
        # the password prompt of the locked room
        locked = next(r for r in m.rooms if r["locked"])
        app.current.click(f"join:{locked['id']}")
        app.current.type_text("wrong")
        self.shot("lobby_password")
        app.current.click("password_ok")
        self.wait(lambda: bool(m.current_notice(app.current.now())), timeout=5)
        app.current.click("password_cancel")
        # --- our room, with bots in every other seat
        lobby_view = app.current
        lobby_view.options["cls"] = "saber"
        lobby_view.click("inc:summoning")  # a choose room: the Servant is picked in the room
        lobby_view.click("create")
        self.wait(lambda: m.room is not None and app.current.name == "room")
        room_obj = lobby.rooms[m.room_id]
        room_obj.seed = self.seed  # a fixed game for the screenshots
        for _ in range(len(CLASSES) - 1):
            view = app.current
            view.rebuild()
            add = next((r for r in view.regions if r.id.startswith("add_bot:")), None)
            if add is None:
                break
            before = len([s for s in m.room["seat_list"] if s["kind"] == "bot"])
            view.click(add.id)
            self.wait(lambda b=before: len([s for s in m.room["seat_list"]
                                            if s["kind"] == "bot"]) > b, timeout=5)
        chat = SAMPLE_CHAT.get(self.lang, SAMPLE_CHAT["en"])
        view = app.current
        view.click("field:chat")
        view.type_text(chat[0])
        view.click("chat:send")
        self.wait(lambda: len(m.chat["room"]) >= 1, timeout=5)
        view.click(f"servant:{TOUR_SERVANT}")
        self.wait(lambda: m.room.get("your_servant") == TOUR_SERVANT, timeout=5)
        view.on_mouse_motion(0, 0, 0, 0)  # the click's hover would hide the choice
        self.shot("room")
        # --- the game
        view.click("start")
        self.wait(lambda: m.state is not None, timeout=10)

        def prefer(model: Any, legal: list[dict[str, Any]]) -> dict[str, Any] | None:
            """Investigate as TOUR_INVESTIGATIONS plans (the dossier then shows each tier of
            deduction), otherwise the bot decides."""
            if model.prompt_kind != "declare":
                return None
            known = (model.my_camp or {}).get("known", {})
            return next((a for cls, tier in TOUR_INVESTIGATIONS.items() if known[cls] < tier
                         for a in legal if a["type"] == "DeclareInvestigate"
                         and a["target_class"] == cls), None)

        player = AutoPlayer(app, "normal", seed=self.seed, prefer=prefer)
        self.wait(lambda: bool(m.legal) and m.prompt_kind == "declare", timeout=20)
        app.show("game")
        app.ui.verb = None
        view = app.current
        view.rebuild()
        card = view.region_by_id("card:0")
        if card is not None:  # the card's details on hover
            view.point_at(card)
        self.shot("game")
        view.on_mouse_motion(0, 0, 0, 0)
        # the Investigate options open, as a player would see them
        app.current.click("verb:DeclareInvestigate")
        self.shot("game_options")
        app.ui.reset()
        lobby = app.local.lobby
        lobby.pace_bots(0.0, lobby.bot_pace)  # from here on the bots answer at once

        def battle_moment() -> bool:
            b = m.view and m.view.get("battle")
            return bool(b and m.me in b["seats"] and m.my_turn
                        and m.prompt_kind in ("reaction", "main"))

        got_battle = self.wait(lambda: battle_moment() and m.prompt_kind == "reaction",
                               timeout=90, step=lambda: (not battle_moment()
                                                         or m.prompt_kind != "reaction")
                               and player.step())
        if not got_battle:
            self.notes.append("no reaction prompt of our seat was reached; showing a battle")
            self.wait(lambda: bool(m.view and m.view.get("battle")) or m.over, timeout=60,
                      step=player.step)
        if m.view and m.view.get("battle"):
            app.show("battle")
            self.shot("battle")
        # the dossier once the investigations of the first days are in
        self.wait(lambda: m.over or m.view["day"] >= 4, timeout=120, step=player.step)
        app.show("dossier")
        self.shot("dossier")
        self.wait(lambda: m.over, timeout=240, step=player.step)
        app.show("log")
        view = app.current
        for text in (chat[1], TOUR_ROLL):  # a word and a dice command in the log's chat
            view.click("field:chat")
            view.type_text(text)
            view.click("chat:send")
        self.wait(lambda: len(m.chat["room"]) >= 3, timeout=5)
        self.shot("log")
        if m.over:
            app.show("end")
        self.shot("end")
        return self.files

    def close(self) -> None:
        for host in getattr(self, "hosts", []):
            if host.transport is not None:
                host.transport.loseConnection()
        self.app.shutdown()


def demo_host(reactor: Any, port: int, player: str, name: str, password: str | None,
              seats: int, bots: list[str]) -> Any:
    """Another player's connection that opens a room (with bots) and stays in it, so the
    lobby has rooms to show."""
    from twisted.internet.endpoints import TCP4ClientEndpoint, connectProtocol

    from .net import ServerConnection

    def on_message(msg: dict[str, Any]) -> None:
        if msg["t"] == "welcome":
            fields: dict[str, Any] = {"name": name, "seats": seats}
            if password:
                fields["password"] = password
            conn.send("create_room", **fields)
        elif msg["t"] == "joined":
            for cls in bots:
                conn.send("add_bot", cls=cls, level="normal")

    conn = ServerConnection(player, on_message)
    connectProtocol(TCP4ClientEndpoint(reactor, "127.0.0.1", port), conn)
    return conn


def run_tour(out: str | Path, lang: str = "ja", seed: int = TOUR_SEED,
             modules: tuple[str, ...] = (), size: tuple[int, int] | None = None,
             scenario: str = "") -> list[Path]:
    """The scripted game's screens, or with `modules` the first one's screens (its client
    part's `tour`), or with `scenario` those of the module whose scenario it is, in a window
    of `size` (the design's 1280x800 unless given)."""
    if scenario:
        found = scenario_module()
        known = found[1].choices if found else ()
        if scenario not in known:
            raise ValueError(f"the tour has no screens for scenario {scenario!r} "
                             f"(scenarios: {', '.join(known)})")
        modules = (found[0],)
    toured = parts_on(modules)
    unknown = set(modules) - {p.name for p in toured}
    if unknown:
        raise ValueError(f"the tour has no screens for module(s) {', '.join(sorted(unknown))}")
    tour = Tour(out, lang, seed, size=size)
    try:
        for part in reversed(toured):  # the last in registry order: the one the others serve
            files = part.tour(tour, scenario)
            if files is not None:
                return files
        return tour.run()
    finally:
        for note in tour.notes:
            print(f"tour: {note}")
        tour.close()
