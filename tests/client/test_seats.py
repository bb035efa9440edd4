"""Seats survive the client: tokens kept in seats.json (0600, beside client.json) per server and
room, written and forgotten as the server speaks; a client started again takes its seat back
on connect, or the lobby offers it; local play keeps nothing; and every seat's drop, takeover
and return shows on the seat and in the log."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest
from grailwar.client.embedded import LocalServer
from grailwar.client.model import ClientModel
from grailwar.client.seats import HeldSeat, SeatBook, SeatKeeper, seats_path
from grailwar.shared.engine import new_game
from grailwar.shared.engine.data import CLASSES
from test_model import state_msg
from test_screens import join, render, room_public

SERVER = "example.org:7707"


def test_the_book_round_trips_in_a_private_file_beside_client_json(tmp_path: Path) -> None:
    """GRAILWAR_CONFIG (set to tmp_path/client.json by conftest) moves seats.json with it; the
    file is readable by its user only; seats come back per server, the newest first."""
    assert seats_path() == tmp_path / "seats.json"
    times = iter([100.0, 200.0, 300.0])
    book = SeatBook(clock=lambda: next(times))
    book.keep(SERVER, 3, "t" * 32, 1, "Fuyuki")
    book.keep(SERVER, 5, "u" * 32, 0)
    book.keep("other:7707", 3, "v" * 32, 2)
    assert stat.S_IMODE(seats_path().stat().st_mode) == 0o600
    book.describe(SERVER, 5, "River", "lancer")
    again = SeatBook()  # a new run reads what the last one wrote
    assert again.held(SERVER) == [HeldSeat(5, "u" * 32, 0, "River", "lancer", 200.0),
                                  HeldSeat(3, "t" * 32, 1, "Fuyuki", "", 100.0)]
    assert [s.token for s in again.held("other:7707")] == ["v" * 32]
    again.forget(SERVER, [3, 5])
    assert again.held(SERVER) == [] and len(again.held("other:7707")) == 1
    assert SERVER not in json.loads(seats_path().read_text(encoding="utf-8"))


def test_a_broken_file_holds_no_seats(tmp_path: Path) -> None:
    """A damaged seats.json (or a damaged entry) is no seat, never a crash."""
    seats_path().write_text('{"a:1": {"x": 1, "4": {"token": 5}}, "b:1": []', encoding="utf-8")
    assert SeatBook().held("a:1") == []
    seats_path().write_text(json.dumps({"a:1": {"4": {"token": "t" * 32, "seat": "2"},
                                                "6": {"token": "t" * 32, "seat": 2}}}),
                            encoding="utf-8")
    assert [s.room for s in SeatBook().held("a:1")] == [6]


class FakeSession:
    """What a keeper reads of its session: the server's address, the model, resume."""

    def __init__(self) -> None:
        self.host, self.port = "example.org", 7707
        self.model = ClientModel("en")
        self.resumed: list[tuple[int, str]] = []

    def resume(self, room: int, token: str) -> bool:
        self.resumed.append((room, token))
        return True


def keeper_in(room: int = 3, token: str = "t" * 32) -> tuple[SeatKeeper, FakeSession]:
    session = FakeSession()
    session.model.rooms = [{"id": room, "name": "Fuyuki"}]
    keeper = SeatKeeper(SeatBook(), session)
    keeper.take({"t": "joined", "room": room, "seat": 1, "token": token, "spectator": False})
    return keeper, session


def test_joined_keeps_the_seat_and_the_room_describes_it() -> None:
    keeper, _ = keeper_in()
    assert keeper.held() == [HeldSeat(3, "t" * 32, 1, "Fuyuki", "", keeper.held()[0].when)]
    keeper.take({"t": "room", "room": {"id": 3, "name": "Fuyuki", "seat_list": [
        {"seat": 0, "cls": "saber"}, {"seat": 1, "cls": "archer"}]}})
    assert keeper.held()[0].cls == "archer"
    spectator = SeatKeeper(SeatBook(), FakeSession())
    spectator.take({"t": "joined", "room": 4, "seat": -1, "token": "", "spectator": True})
    assert [s.room for s in spectator.held()] == [3], "watching keeps no seat"


@pytest.mark.parametrize("msg", [
    {"t": "left", "reason": "left"},
    {"t": "left", "reason": "kicked"},
    {"t": "error", "code": "bad_token", "message": "no seat"},
    {"t": "error", "code": "room_not_found", "message": "no room 3"},
    {"t": "state", "view": {"over": True}, "legal": [], "state_id": 9, "deadlines": {}},
], ids=["left", "kicked", "bad_token", "room_not_found", "game_over"])
def test_a_seat_given_up_or_gone_is_forgotten(msg: dict[str, Any]) -> None:
    keeper, _ = keeper_in()
    gone: list[bool] = []
    keeper.on_gone.append(lambda: gone.append(True))
    keeper.take(msg)
    assert keeper.held() == []
    assert gone == ([True] if msg["t"] == "error" else [])


def test_a_seat_resumed_in_another_window_stays_kept() -> None:
    keeper, _ = keeper_in()
    keeper.take({"t": "left", "reason": "resumed elsewhere"})
    assert len(keeper.held()) == 1


def test_a_seat_left_in_a_paused_game_stays_kept_for_the_next_evening() -> None:
    """Leaving a paused game (`left_paused`) keeps the seat: the lobby offers to rejoin it."""
    keeper, session = keeper_in()
    keeper.take({"t": "left", "reason": "left_paused"})
    assert [s.room for s in keeper.held()] == [3]
    assert keeper.rejoin(keeper.held()[0]) and session.resumed == [(3, "t" * 32)]


def test_a_full_room_list_drops_the_rooms_that_are_closed() -> None:
    """Only a list that holds every room (total == its length) proves a room is gone."""
    keeper, _ = keeper_in()
    keeper.take({"t": "left", "reason": "resumed elsewhere"})  # not in the room any more
    keeper.take({"t": "rooms", "rooms": [{"id": 8}], "total": 120})
    assert len(keeper.held()) == 1
    keeper.take({"t": "rooms", "rooms": [{"id": 8}], "total": 1})
    assert keeper.held() == []


def test_rejoin_resumes_with_the_kept_token() -> None:
    keeper, session = keeper_in(room=7, token="k" * 32)
    assert keeper.rejoin(keeper.held()[0])
    assert session.resumed == [(7, "k" * 32)]


# --- the screens ---------------------------------------------------------------------------
def test_the_lobby_offers_each_kept_seat_a_rejoin(app: Any) -> None:
    """A banner with a rejoin button for the newest seat, and in the list a rejoin button in
    place of join and watch on each room holding a kept seat."""
    session = app.new_session()
    session.host, session.port = "example.org", 7707
    app.keeper = SeatKeeper(SeatBook(), session)
    book = app.keeper.book
    book.keep("example.org:7707", 2, "t" * 32, 3, "冬木の夜")
    book.describe("example.org:7707", 2, "冬木の夜", "lancer")
    app.model.handle({"t": "rooms", "total": 2, "rooms": [
        {"id": 1, "name": "River", "locked": False, "seats": 7, "players": 1, "bots": 2,
         "spectators": 0, "started": False, "over": False},
        {"id": 2, "name": "冬木の夜", "locked": False, "seats": 7, "players": 1, "bots": 6,
         "spectators": 0, "started": True, "over": False}]})
    render(app, "lobby")
    view = app.current
    labels = [label for label, _x, _y in view.base.labels]
    which = app.tr("seats.seat_cls", n=4, cls=app.tr.cls("lancer"))
    assert app.tr("seats.banner", room="冬木の夜", seat=which) in labels
    assert view.region_by_id("rejoin").enabled
    assert view.region_by_id("rejoin:2").enabled
    assert view.region_by_id("join:2") is None and view.region_by_id("watch:2") is None
    assert view.region_by_id("join:1").enabled and view.region_by_id("rejoin:1") is None


def test_a_dropped_and_a_bot_played_seat_are_marked_and_logged(app: Any) -> None:
    """Each seat_event is a log line in the language and a notice; the camp list marks the
    away player's seat and says on hover what it means."""
    join(app)
    m = app.model
    state = new_game(seed=3, classes=list(CLASSES))
    m.handle(state_msg(state, 0, {str(s): 300 for s in state.prompt.seats}))
    room = m.room
    room["seat_list"][1].update(kind="human", name="凛", bot_playing=False)
    room["seat_list"][2].update(kind="human", name="桜", bot_playing=False)
    m.handle({"t": "seat_event", "seat": 1, "what": "dropped", "name": "凛", "seconds": 90})
    room["seat_list"][1]["connected"] = False
    m.handle({"t": "room", "room": room})
    m.handle({"t": "seat_event", "seat": 2, "what": "bot_took_over", "name": "桜"})
    room["seat_list"][2].update(connected=False, bot_playing=True)
    m.handle({"t": "room", "room": room})
    archer = app.tr("seats.who", cls=app.tr.cls("archer"), name="凛")
    assert (m.presence(0), m.presence(1), m.presence(2), m.presence(3)) == \
        ("", "dropped", "bot_took_over", "")
    lines = [text for kind, text in m.log_lines() if kind == "seat"]
    assert lines == [app.tr("seats.dropped", who=archer, s=90),
                     app.tr("seats.bot_took_over",
                            who=app.tr("seats.who", cls=app.tr.cls("lancer"), name="桜"))]
    assert m.notices[-1].text == lines[-1]
    render(app, "game")
    view = app.current
    assert app.tr("seats.mark_dropped") in view.region_by_id("camp:1").help
    assert app.tr("seats.mark_bot") in view.region_by_id("camp:2").help
    assert app.tr("seats.mark_dropped") not in view.region_by_id("camp:3").help
    m.handle({"t": "seat_event", "seat": 1, "what": "returned", "name": "凛"})
    assert m.log_lines()[-1] == ("seat", app.tr("seats.returned", who=archer))
    app.ui.log_kind = "dice"  # the default tab of the log shows them too
    render(app, "log")
    labels = [label for label, _x, _y in app.current.base.labels]
    assert app.tr("seats.returned", who=archer) in labels


def test_the_room_tags_an_away_players_seat_and_explains_it(app: Any) -> None:
    """A room restored after a server restart holds its players' seats while nobody is
    connected: the seat list tags them, and the tag says on hover what it means."""
    join(app)
    room = room_public(started=False, seats=3)
    room["seat_list"][1].update(kind="human", name="凛", connected=False, bot_playing=False)
    app.model.handle({"t": "room", "room": room})
    render(app, "room")
    tags = [r for r in app.current.regions if r.id.startswith("tag:")]
    assert [(r.id.split(":")[1], r.help) for r in tags] == \
        [("1", app.tr("seats.mark_dropped"))]


# --- against a server on loopback ------------------------------------------------------------
@pytest.fixture
def remote(reactor: Any) -> Any:
    """A server of its own (not the app's local play): its seats are kept."""
    server = LocalServer(reactor, bot_delay=0.0)
    server.start()
    yield server
    server.stop()


def held(app: Any) -> list[HeldSeat]:
    return SeatBook().held(f"127.0.0.1:{app.model.host.rsplit(':', 1)[1]}")


def seated_in_a_started_game(app: Any, port: int) -> tuple[int, int, str]:
    """Connect, create a room from the lobby, start it: (room, seat, token)."""
    m = app.model
    app.remember = True
    assert app.connect("127.0.0.1", port)
    assert app.pump(until=lambda: app.current.name == "lobby", timeout=10)
    app.current.create()
    assert app.pump(until=lambda: m.room is not None and app.current.name == "room", timeout=10)
    app.current.click("start")
    assert app.pump(until=lambda: m.state is not None, timeout=10)
    return m.room_id, m.seat, m.token


def quit_and_reconnect(app: Any, port: int) -> None:
    """The client closes (the server keeps the seat) and is started again."""
    app.go_title()
    app.model.notices.clear()
    assert app.connect("127.0.0.1", port)


def test_a_client_started_again_takes_its_seat_back_on_connect(app: Any, remote: Any) -> None:
    m = app.model
    room, seat, token = seated_in_a_started_game(app, remote.port)
    kept = held(app)
    assert [(s.room, s.seat, s.token) for s in kept] == [(room, seat, token)]
    assert kept[0].name == m.room["name"] and kept[0].cls == "saber"
    quit_and_reconnect(app, remote.port)
    assert app.pump(until=lambda: m.seat == seat and m.state is not None, timeout=10)
    assert app.current.name in ("game", "battle")
    assert "resume" in [msg["t"] for msg in app.session.sent]
    assert any(n.text == app.tr("net.resumed") for n in m.notices)


def test_two_kept_seats_are_offered_in_the_lobby(app: Any, remote: Any) -> None:
    """With more than one seat kept the client asks: the lobby offers rejoin, and the kept
    seat of a room the server no longer lists is dropped."""
    m = app.model
    room, seat, _token = seated_in_a_started_game(app, remote.port)
    SeatBook().keep(f"127.0.0.1:{remote.port}", room + 50, "z" * 32, 2, "closed long ago")
    quit_and_reconnect(app, remote.port)
    assert app.pump(until=lambda: app.current.name == "lobby" and m.rooms, timeout=10)
    assert [s.room for s in held(app)] == [room]
    render(app, "lobby")
    app.current.click(f"rejoin:{room}")
    assert app.pump(until=lambda: m.seat == seat and m.state is not None, timeout=10)


def test_a_kept_seat_the_server_no_longer_knows_is_forgotten(app: Any, remote: Any) -> None:
    m = app.model
    app.remember = True
    SeatBook().keep(f"127.0.0.1:{remote.port}", 99, "z" * 32, 2, "gone")
    assert app.connect("127.0.0.1", remote.port)
    assert app.pump(until=lambda: app.current.name == "lobby" and not held(app), timeout=10)
    assert any(n.text == m.error_text({"code": "room_not_found"}) for n in m.notices)


def test_leaving_the_room_on_purpose_forgets_the_seat(app: Any, remote: Any) -> None:
    m = app.model
    app.remember = True
    assert app.connect("127.0.0.1", remote.port)
    assert app.pump(until=lambda: app.current.name == "lobby", timeout=10)
    app.current.create()
    assert app.pump(until=lambda: app.current.name == "room" and held(app), timeout=10)
    app.current.click("leave")
    assert app.pump(until=lambda: not held(app) and m.room_id is None, timeout=10)


def test_local_play_keeps_no_seat(app: Any) -> None:
    """The embedded server is new on every start: its tokens are never written."""
    app.remember = True
    assert app.play_local("saber")
    assert app.pump(until=lambda: app.model.token != "", timeout=10)
    assert app.keeper is None and not seats_path().exists()
