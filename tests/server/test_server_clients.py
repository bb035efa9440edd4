"""The client side in memory: `ServerConnection` and `BotPlayer` talking to a real
`GrailProtocol` through an IOPump, and the client refusing what the schema does not declare."""

from __future__ import annotations

from typing import Any

from grailwar.client.botclient import BotPlayer
from grailwar.client.net import ServerConnection
from grailwar.shared.protocol import encode
from server_kit import Pair, Recorder, Server, recording_bot, run
from twisted.test.iosim import FakeTransport


def test_hello_on_connect_and_welcome() -> None:
    """A ServerConnection says hello as soon as it is connected; the server welcomes it."""
    server = Server()
    client = Recorder("Sakura")
    Pair(server, client.conn)
    assert client.got == [{"t": "welcome", "version": 2, "server": "grailwar"}]


def test_bot_player_finds_its_room_by_name_on_a_later_page() -> None:
    """A BotPlayer looking for a room by name reads the room list page by page, joins it, and
    then plays its seat over the wire until the game ends."""
    server = Server()
    for i in range(120):
        server.lobby.create(f"room {i}", {}, None)
    owner = Recorder("owner")
    pairs = [Pair(server, owner.conn)]
    owner.send("create_room", name="the one", seats=2, declare_s=30, main_s=10,
               reaction_s=5, prompt_s=5)
    pairs[0].pump.flush()
    room = server.lobby.rooms[max(server.lobby.rooms)]
    player = BotPlayer("the one", "normal", seed=3)
    conn, got = recording_bot(player, "bot")
    pairs.append(Pair(server, conn))
    assert player.seat == 1 and room.seats[1].name == "bot"
    owner.send("start")
    run(server, pairs, lambda: room.state.over)
    pairs[1].pump.flush()
    assert player.over and {e["code"] for e in player.errors} <= {"stale_state"}
    assert [m for m in got if m["t"] == "ack"]


def test_bot_player_reports_a_missing_room() -> None:
    """A BotPlayer whose room does not exist records room_not_found and hangs up."""
    server = Server()
    player = BotPlayer("nowhere")
    conn, _ = recording_bot(player, "bot")
    pair = Pair(server, conn)
    pair.pump.flush()
    assert [e["code"] for e in player.errors] == ["room_not_found"]
    assert server.lobby.addresses == {}


def test_client_drops_a_server_that_breaks_the_schema() -> None:
    """A ServerConnection validates every server message: an undeclared one (or a client
    message sent back) makes it hang up, with the reason in `fault`, and nothing is delivered."""
    got: list[dict[str, Any]] = []
    conn = ServerConnection("x", got.append)
    transport = FakeTransport(conn, isServer=False)
    conn.makeConnection(transport)
    conn.dataReceived(encode({"t": "pong"}) + encode({"t": "welcome", "version": "1",
                                                       "server": "s"}))
    assert got == [{"t": "pong"}]
    assert conn.fault is not None and conn.fault.field == "version"
    assert transport.disconnecting
    conn.dataReceived(encode({"t": "pong"}))
    assert got == [{"t": "pong"}]
