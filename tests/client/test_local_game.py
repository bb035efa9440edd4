"""The client against real servers on loopback: a whole local game played through the client's
own input handlers to the end screen, a lost connection resumed with the seat token, and bad
input (unreachable server, other protocol version, wrong password) shown as messages."""

from __future__ import annotations

import json
from typing import Any

from grailwar.client.driver import AutoPlayer
from grailwar.client.net import ServerConnection
from grailwar.shared.engine import from_replay
from grailwar.shared.protocol import PROTOCOL_VERSION, encode, message
from twisted.internet.endpoints import TCP4ClientEndpoint, connectProtocol
from twisted.internet.protocol import Factory, Protocol


def open_local_lobby(app: Any) -> Any:
    """Title → name → play locally: the local lobby's create panel, by clicks."""
    title = app.show("title")
    title.click("field:name")
    title.fields["name"].value = ""
    title.type_text("凛")
    title.click("play_local")
    assert app.pump(until=lambda: app.current.name == "lobby", timeout=10)
    return app.current


def open_local_room(app: Any) -> None:
    """The local lobby's create button → the room fills with bots, all by clicks."""
    m = app.model
    open_local_lobby(app).click("create")
    assert app.pump(until=lambda: m.room is not None and all(
        s["kind"] != "open" for s in m.room["seat_list"]), timeout=10)
    assert app.current.name == "room"


def start_local_game(app: Any) -> None:
    """The local room, then its start button."""
    m = app.model
    open_local_room(app)
    app.current.click("start")
    assert app.pump(until=lambda: m.state is not None, timeout=10)


def test_a_whole_local_game_through_the_clients_input_handlers(app: Any) -> None:
    m = app.model
    start_local_game(app)
    assert app.current.name in ("game", "battle")
    player = AutoPlayer(app, "normal", seed=3, min_interval=0.06)
    # ~20 s on a quiet machine; the bound is for a loaded one (it only stops a hung game)
    assert app.pump(until=lambda: m.over, timeout=150, step=player.step, render=True)
    assert app.current.name == "end"
    assert player.clicked > 10 and player.failed == 0, (player.clicked, player.failed)
    assert any(msg["t"] == "act" for msg in app.session.sent)
    # the replay rebuilds the same game from its seed and actions
    path = app.export("replay")
    with open(path, encoding="utf-8") as f:
        replay = json.load(f)
    state = from_replay(replay)
    assert state.over and state.winner == m.view["winner"]
    # the end screen's buttons are live
    app.current.click("export_log")
    assert app.last_export.endswith(".txt")


def test_a_lost_connection_reconnects_and_resumes_the_seat(app: Any) -> None:
    m = app.model
    start_local_game(app)
    seat, token = m.seat, m.token
    app.session.drop()
    assert app.pump(until=lambda: m.connection == "reconnecting", timeout=5)
    app.current.invalidate()
    app.pump(seconds=0.01)
    labels = [label for label, _x, _y in app.current.base.labels]
    assert any(label.startswith(app.tr("net.reconnecting", n=1)[:6]) for label in labels)
    resumed = app.tr("net.resumed")
    assert app.pump(until=lambda: m.connection == "connected" and m.seat == seat
                    and any(n.text == resumed for n in m.notices), timeout=10)
    assert m.token == token
    # and the game goes on: this seat can still act
    player = AutoPlayer(app, "normal", seed=1)
    before = m.state_id
    assert app.pump(until=lambda: m.state_id > before + 3, timeout=10, step=player.step)


def test_an_unreachable_server_is_a_message_on_the_title_screen(app: Any, reactor: Any) -> None:
    port = reactor.listenTCP(0, Factory.forProtocol(Protocol), interface="127.0.0.1")
    free = port.getHost().port
    port.stopListening()
    app.pump(seconds=0.05, render=False)
    title = app.show("title")
    title.fields["host"].value = f"127.0.0.1:{free}"
    title.click("connect")
    assert app.pump(until=lambda: m_notice(app) == app.tr("error.unreachable",
                                                          host=f"127.0.0.1:{free}"), timeout=5)
    assert app.current.name == "title"


def m_notice(app: Any) -> str:
    notice = app.model.current_notice(app.current.now())
    return notice.text if notice else ""


class FakeServer(Protocol):
    """A server of another protocol version."""

    version = PROTOCOL_VERSION + 1
    refuse = False

    def dataReceived(self, data: bytes) -> None:
        if self.refuse:
            self.transport.write(encode(message(
                "error", code="version_mismatch",
                message=f"this server speaks protocol version {self.version - 2}, "
                        f"the client {PROTOCOL_VERSION}")))
            self.transport.loseConnection()
        else:
            self.transport.write(encode(message("welcome", version=self.version,
                                                server="future")))


def test_a_server_of_another_version_is_named_older_or_newer(app: Any, reactor: Any) -> None:
    for refuse, key in ((False, "error.server_new"), (True, "error.server_old")):
        proto = type("P", (FakeServer,), {"refuse": refuse})
        port = reactor.listenTCP(0, Factory.forProtocol(proto), interface="127.0.0.1")
        try:
            app.settings["name"] = "凛"
            app.show("title")
            app.connect("127.0.0.1", port.getHost().port)
            expected_server = PROTOCOL_VERSION + 1 if not refuse else PROTOCOL_VERSION - 1
            expected = app.tr(key, server=expected_server, client=PROTOCOL_VERSION)
            assert app.pump(until=lambda e=expected: any(n.text == e
                                                         for n in app.model.notices),
                            timeout=5), [n.text for n in app.model.notices]
            assert app.current.name == "title"
        finally:
            port.stopListening()
            app.pump(seconds=0.05, render=False)


def test_a_wrong_password_is_refused_with_a_message(app: Any, reactor: Any) -> None:
    from grailwar.client.embedded import LocalServer

    app.local = LocalServer(reactor, bot_delay=0.0)
    port = app.local.start()
    owner = ServerConnection("Rin", lambda msg: msg["t"] == "welcome" and owner.send(
        "create_room", name="locked table", password="sesame"))
    connectProtocol(TCP4ClientEndpoint(reactor, "127.0.0.1", port), owner)
    app.settings["name"] = "凛"
    app.connect("127.0.0.1", port)
    m = app.model
    assert app.pump(until=lambda: app.current.name == "lobby", timeout=5)
    app.list_rooms()
    assert app.pump(until=lambda: any(r["locked"] for r in m.rooms), timeout=5)
    room = next(r for r in m.rooms if r["locked"])
    lobby = app.current
    lobby.click(f"join:{room['id']}")
    lobby.type_text("open sesame")
    lobby.click("password_ok")
    assert app.pump(until=lambda: m_notice(app) == app.tr("error.wrong_password"), timeout=5)
    assert m.room_id is None
    lobby.click(f"join:{room['id']}")
    lobby.type_text("sesame")
    lobby.click("password_ok")
    assert app.pump(until=lambda: m.room_id == room["id"], timeout=5)
    owner.transport.loseConnection()
