"""Operator commands (`server/admin.py`): each one driven through the admin line protocol over
a StringTransport on a fake clock, then one real round trip over the UNIX socket of a running
`grailwar serve`, with `grailwar admin` as the client."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest
from grailwar.cli.main import main
from grailwar.server.admin import CLOSED_BY_OPERATOR, AdminFactory, Operator
from grailwar.server.lobby import Lobby
from grailwar.server.store import Store
from server_kit import Server, Wire, one, peer, restarted
from test_server_seats import table
from twisted.internet.address import IPv6Address
from twisted.internet.testing import StringTransport


class Admin:
    """An operator's connection to `server`'s admin protocol; `wires` are the live clients."""

    def __init__(self, server: Server, wires: list[Wire]) -> None:
        self.server = server
        self.wires = wires
        operator = Operator(server.lobby, lambda: [w.proto for w in wires if not w.closed],
                            server.clock)
        self.transport = StringTransport()
        self.proto = AdminFactory(operator).buildProtocol(None)
        self.proto.makeConnection(self.transport)

    def raw(self, line: bytes) -> dict[str, Any]:
        self.transport.clear()
        self.proto.dataReceived(line + b"\n")
        answer = self.transport.value()
        assert answer.endswith(b"\n") and answer.count(b"\n") == 1, answer
        return json.loads(answer)

    def ask(self, cmd: str, **args: Any) -> dict[str, Any]:
        return self.raw(json.dumps({"cmd": cmd, **args}).encode())


def started_table() -> tuple[Server, Wire, Wire, Wire, str, int, Admin]:
    """A started 3-seat room: owner Rin (seat 0), Shirou (seat 1), spectator Taiga."""
    server = Server()
    owner, player, watcher, token, room = table(server)
    return server, owner, player, watcher, token, room, Admin(server, [owner, player, watcher])


def test_status_counts_rooms_connections_players_spectators_and_bots() -> None:
    """Two human seats, one bot (the third seat, filled at the start), one spectator, three
    connections, and the time since the operator's service began."""
    server, *_rest, admin = started_table()
    server.advance(90)
    status = admin.ask("status")
    assert status["ok"] is True
    assert {k: status[k] for k in ("rooms", "connections", "players", "spectators", "bots",
                                   "quarantined", "bans")} == {
        "rooms": 1, "connections": 3, "players": 2, "spectators": 1, "bots": 1,
        "quarantined": 0, "bans": 0}
    assert status["uptime"] == pytest.approx(90)


def test_rooms_lists_each_room_with_its_stage_counts_and_owner() -> None:
    server, _owner, _player, _watcher, _token, room, admin = started_table()
    waiting = one(server.wire("10.0.0.5", name="Kirei").ask("create_room", name="Church"),
                  "joined")["room"]
    assert admin.ask("rooms")["rooms"] == [
        {"id": room, "name": "Fuyuki", "started": True, "over": False, "paused": False,
         "players": 2, "bots": 1, "spectators": 1, "owner": "Rin"},
        {"id": waiting, "name": "Church", "started": False, "over": False, "paused": False,
         "players": 1, "bots": 0, "spectators": 0, "owner": "Kirei"},
    ]


def test_the_operator_kicks_even_the_owner_and_a_bot_takes_the_seat() -> None:
    """The kicked owner is told `left` (kicked); a bot plays its seat; the room passes to the
    other player."""
    server, owner, player, _watcher, _token, room, admin = started_table()
    assert admin.ask("kick", room=room, seat=0) == {"ok": True}
    assert one(owner.take(), "left")["reason"] == "kicked"
    seat = server.lobby.room(room).seats[0]
    assert (seat.kind, seat.member, seat.token) == ("bot", None, None)
    assert server.lobby.room(room).owner == 1
    assert one(player.take(), "seat_event")["what"] == "kicked"


def test_a_kick_of_no_player_or_of_no_room_is_refused_with_the_reason() -> None:
    _server, _owner, _player, _watcher, _token, room, admin = started_table()
    assert admin.ask("kick", room=room, seat=2) == {
        "ok": False, "error": "only another player may be kicked"}
    assert admin.ask("kick", room=999, seat=0) == {"ok": False, "error": "no room 999"}


def test_a_ban_drops_the_address_refuses_it_and_outlives_a_restart() -> None:
    """The banned address's connections are closed, a new one is refused at once, the ban is
    in the store (a new lobby on it refuses too), and other addresses still connect."""
    server, owner, player, _watcher, _token, _room, admin = started_table()
    answer = admin.ask("ban", addr="10.0.0.2", reason="spam")
    assert answer == {"ok": True, "until": None, "dropped": 1}
    assert player.closed and not owner.closed
    assert server.factory.buildProtocol(peer("10.0.0.2")) is None
    assert server.factory.buildProtocol(peer("10.0.0.9")) is not None
    assert server.store.load_bans() == [("10.0.0.2", None, "spam")]
    assert Lobby(server.clock, server.store).bans.refuses("10.0.0.2")


@pytest.mark.parametrize("given", ["::ffff:10.0.0.2", "10.0.0.2"])
def test_an_ipv4_mapped_address_is_its_ipv4_address_for_bans_and_status(given: str) -> None:
    """Issue 38 item 2: an IPv6 listener sees an IPv4 player as ::ffff:a.b.c.d. The player's
    address, a ban given in either spelling, the refusal and the unban all use a.b.c.d."""
    server = Server()
    admin = Admin(server, [])
    mapped = IPv6Address("TCP", "::ffff:10.0.0.2", 4000)
    proto = server.factory.buildProtocol(mapped)
    proto.makeConnection(StringTransport(peerAddress=mapped))
    assert proto.address == "10.0.0.2"
    assert admin.ask("ban", addr=given)["ok"]
    assert server.store.load_bans() == [("10.0.0.2", None, "")]
    assert server.factory.buildProtocol(mapped) is None
    assert server.factory.buildProtocol(peer("10.0.0.2")) is None
    assert admin.ask("unban", addr="::FFFF:10.0.0.2") == {"ok": True}
    assert server.factory.buildProtocol(mapped) is not None


def test_a_ban_for_minutes_ends_by_itself_and_unban_lifts_one_at_once() -> None:
    server = Server()
    admin = Admin(server, [])
    assert admin.ask("ban", addr="10.0.0.2", minutes=30)["until"] == pytest.approx(1800)
    admin.ask("ban", addr="10.0.0.3")
    server.advance(1799)
    assert admin.ask("status")["bans"] == 2
    assert server.factory.buildProtocol(peer("10.0.0.2")) is None
    server.advance(2)
    assert admin.ask("status")["bans"] == 1
    assert server.factory.buildProtocol(peer("10.0.0.2")) is not None
    assert [row[0] for row in server.store.load_bans()] == ["10.0.0.3"]  # expired: deleted
    assert admin.ask("unban", addr="10.0.0.3") == {"ok": True}
    assert server.factory.buildProtocol(peer("10.0.0.3")) is not None
    assert server.store.load_bans() == []
    assert admin.ask("unban", addr="10.0.0.3") == {"ok": False, "error": "10.0.0.3 is not banned"}
    assert admin.ask("ban", addr="10.0.0.4", minutes=0)["ok"] is False


def test_close_ends_the_room_for_its_members_and_in_the_store() -> None:
    """Players and spectators are told `left` (closed by the operator); the room is gone from
    the lobby and closed in the store, so a resume finds no room."""
    server, owner, player, watcher, token, room, admin = started_table()
    assert admin.ask("close", room=room) == {"ok": True}
    for wire in (owner, player, watcher):
        assert one(wire.take(), "left")["reason"] == CLOSED_BY_OPERATOR
        assert wire.proto.room is None and not wire.closed
    assert room not in server.lobby.rooms and room not in server.store.open_room_ids()
    assert one(player.ask("resume", room=room, token=token), "error")["code"] == "room_not_found"
    player.lose()  # a connection of a closed room goes without touching it
    assert admin.ask("status")["rooms"] == 0


def test_close_ends_a_quarantined_room_in_the_store() -> None:
    store = Store()
    server = Server(store)
    server.lobby.quarantined[7] = "a damaged log"
    store.create_room(7, "Broken", {}, None, 1)
    assert Admin(server, []).ask("close", room=7) == {"ok": True}
    assert 7 not in server.lobby.quarantined and 7 not in store.open_room_ids()


def test_the_motd_is_sent_in_welcome_until_it_is_cleared() -> None:
    server = Server()
    admin = Admin(server, [])
    assert admin.ask("motd", text="  Maintenance at 22:00 UTC ")["motd"] == \
        "Maintenance at 22:00 UTC"
    wire = server.wire("10.0.0.1")
    assert one(wire.ask("hello", version=2, name="Rin"), "welcome")["motd"] == \
        "Maintenance at 22:00 UTC"
    assert admin.ask("motd", text="") == {"ok": True, "motd": ""}
    assert "motd" not in one(server.wire("10.0.0.2").ask("hello", version=2, name="Shirou"),
                             "welcome")
    assert admin.ask("status")["motd"] == ""


def test_the_motd_outlives_a_restart() -> None:
    store = Store()
    admin = Admin(Server(store), [])
    admin.ask("motd", text="Tournament on Saturday")
    _clock, lobby = restarted(store)
    assert lobby.motd == "Tournament on Saturday"


def test_a_motd_a_client_would_refuse_is_refused() -> None:
    """At most 300 characters on one line, like a chat line."""
    admin = Admin(Server(), [])
    assert "maximum 300" in admin.ask("motd", text="x" * 301)["error"]
    assert admin.ask("motd", text="two\nlines")["ok"] is False
    assert admin.server.lobby.motd == ""


NOT_A_COMMAND = ('a request is {"cmd": …} with a cmd among status, rooms, kick, ban, unban, '
                 'close, pause, resume, motd')


@pytest.mark.parametrize(("line", "error"), [
    (b"status", "a request is one JSON object on one line"),
    (b"\xff", "a request is one JSON object on one line"),
    (b"[1]", NOT_A_COMMAND),
    (b'{"cmd": "reboot"}', NOT_A_COMMAND),
    (b'{"cmd": "kick", "room": 1}', "kick needs seat"),
    (b'{"cmd": "kick", "room": "1", "seat": 0}', "kick: room must be int"),
    (b'{"cmd": "kick", "room": true, "seat": 0}', "kick: room must be int"),
    (b'{"cmd": "status", "verbose": 1}', "status takes no 'verbose'"),
])
def test_a_bad_request_is_answered_with_the_reason_and_the_line_stays_open(
        line: bytes, error: str) -> None:
    admin = Admin(Server(), [])
    assert admin.raw(line) == {"ok": False, "error": error}
    assert admin.ask("status")["ok"] is True
    assert not admin.transport.disconnecting


def test_a_request_line_too_long_closes_the_admin_connection() -> None:
    admin = Admin(Server(), [])
    admin.proto.dataReceived(b"x" * 20_000)
    assert json.loads(admin.transport.value())["ok"] is False
    assert admin.transport.disconnecting


@pytest.mark.skipif(sys.platform == "win32", reason="UNIX sockets")
def test_grailwar_admin_talks_to_a_running_server_over_its_socket(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`grailwar serve` opens `<db>.admin.sock` (mode 0600); `grailwar admin` reads its status,
    sets the motd a new client gets, and bans an address, dropping its connection."""
    from test_server_loopback import Client, ServerProcess

    db = tmp_path / "grailwar.db"
    server = ServerProcess(db)
    try:
        sock = Path(f"{db}.admin.sock")
        assert stat.S_IMODE(os.stat(sock).st_mode) == 0o600
        first = Client(server.port, "Rin")
        assert main(["admin", "--db", str(db), "status"]) == 0
        assert "1 connection(s)" in capsys.readouterr().out
        assert main(["admin", "--socket", str(sock), "--json", "motd", "Welcome, Masters"]) == 0
        assert json.loads(capsys.readouterr().out) == {"ok": True, "motd": "Welcome, Masters"}
        second = Client(server.port, "")
        second.send("hello", version=2, name="Shirou")
        assert second.expect("welcome")["motd"] == "Welcome, Masters"
        assert main(["admin", "--db", str(db), "ban", "127.0.0.1", "--minutes", "5"]) == 0
        assert "2 connection(s) dropped" in capsys.readouterr().out
        with pytest.raises(AssertionError, match="connection closed"):
            first.expect("pong")
        assert main(["admin", "--db", str(db), "kick", "9", "0"]) == 1
        assert capsys.readouterr().out.strip() == "refused: no room 9"
        assert server.stop() == 0
        assert not sock.exists()
    finally:
        server.kill()


def test_grailwar_admin_prints_one_line_per_room_for_a_person() -> None:
    from grailwar.cli.admin import describe

    rooms = {"ok": True, "rooms": [
        {"id": 3, "name": "Fuyuki", "started": True, "over": False, "players": 2, "bots": 1,
         "spectators": 1, "owner": "Rin"},
        {"id": 12, "name": "Church", "started": True, "over": True, "players": 0, "bots": 7,
         "spectators": 0, "owner": ""}]}
    assert describe("rooms", rooms).splitlines() == [
        "     3  Fuyuki  [started]  2 player(s), 1 bot(s), 1 spectator(s), owner Rin",
        "    12  Church  [over]  0 player(s), 7 bot(s), 0 spectator(s), owner -"]
    assert describe("rooms", {"ok": True, "rooms": []}) == "no room"


def test_the_twist_plugin_opens_the_admin_socket_beside_the_database_unless_told_not() -> None:
    from grailwar.server.tap import Options, makeService

    def service(*argv: str) -> Any:
        options = Options()
        options.parseOptions(["--db", "/srv/gw.db", *argv])
        return makeService(options)

    assert service().admin_socket == "/srv/gw.db.admin.sock"
    assert service("--admin-socket", "/run/gw.sock").admin_socket == "/run/gw.sock"
    assert service("--no-admin").admin_socket is None


def test_grailwar_admin_says_the_uptime_in_days_hours_and_minutes() -> None:
    from grailwar.cli.admin import duration

    assert [duration(s) for s in (59, 300, 3 * 3600 + 60, 2 * 86400 + 120)] == [
        "0 min", "5 min", "3 h 1 min", "2 d 0 h 2 min"]


@pytest.mark.skipif(sys.platform == "win32", reason="UNIX sockets")
def test_the_socket_of_a_killed_server_is_replaced_at_the_next_start(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from test_server_loopback import ServerProcess

    db = tmp_path / "grailwar.db"
    ServerProcess(db).kill()  # SIGKILL: the socket and its lock stay behind
    assert Path(f"{db}.admin.sock").exists()
    server = ServerProcess(db)
    try:
        assert main(["admin", "--db", str(db), "status"]) == 0
        assert capsys.readouterr().out.startswith("up 0 min, 0 room(s)")
    finally:
        server.kill()
