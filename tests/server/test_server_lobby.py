"""The lobby and the room's membership over the wire: listing, creating, joining as a player or
a spectator, leaving, the owner's commands, passwords, chat and the negotiation channel."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from grailwar.server.room import Room
from grailwar.shared.protocol import SECONDS, ProtocolError
from server_kit import FakeMember, Server, Wire, error_of, kinds, one
from twisted.internet.defer import Deferred


@pytest.fixture
def server() -> Server:
    return Server()


def create(server: Server, name: str = "owner", host: str = "10.0.0.1", **fields) -> Wire:
    w = server.wire(host, name=name)
    got = w.ask("create_room", name=fields.pop("room_name", "Fuyuki"), **fields)
    assert kinds(got)[0] == "joined", got
    return w


def room_of(w: Wire) -> Room:
    assert w.proto.room is not None
    return w.proto.room


def join(server: Server, room: Room, name: str, host: str = "10.0.0.2", **fields) -> Wire:
    w = server.wire(host, name=name)
    got = w.ask("join_room", room=room.id, **fields)
    assert kinds(got)[0] == "joined", got
    return w


def test_create_room_answers_joined_then_room(server: Server) -> None:
    """create_room makes its sender the owner in seat 0 (of `cls`): joined (with a seat
    token) comes first, then the room with the options asked for, defaults for the rest."""
    w = server.wire(name="Shirou")
    got = w.ask("create_room", name="Fuyuki", seats=3, day_limit=2, declare_s=45, cls="archer")
    assert kinds(got) == ["joined", "history", "room"]
    joined, room = got[0], got[2]["room"]
    assert (joined["seat"], joined["spectator"]) == (0, False) and len(joined["token"]) >= 24
    assert room["owner"] == 0 and room["name"] == "Fuyuki" and room["seats"] == 3
    assert room["options"]["day_limit"] == 2 and room["options"]["declare_s"] == 45
    assert room["options"]["main_s"] == SECONDS["main_s"][2]
    assert room["seat_list"][0] == {"seat": 0, "cls": "archer", "kind": "human",
                                    "name": "Shirou", "level": "normal", "connected": True,
                                    "ready": False, "bot_playing": False}


def test_list_rooms(server: Server) -> None:
    """list_rooms shows each room's public summary: lock, seats, players, bots, spectators."""
    owner = create(server, password="secret")
    owner.send("add_bot", cls="lancer")
    w = server.wire("10.0.0.5", name="x")
    (rooms,) = w.ask("list_rooms")
    assert rooms["total"] == 1
    assert rooms["rooms"] == [{"id": 1, "name": "Fuyuki", "locked": True, "seats": 7,
                               "players": 1, "bots": 1, "spectators": 0, "started": False,
                               "over": False, "modules": [], "summoning": "random",
                               "paused": False}]


def test_password_is_hashed_and_checked(server: Server) -> None:
    """The password is stored salted and hashed (never in clear, not in the store either);
    joining needs it, as player and as spectator."""
    owner = create(server, password="hunter2")
    room = room_of(owner)
    assert room.password and "hunter2" not in room.password
    stored = server.store.db.execute("SELECT password FROM rooms").fetchone()[0]
    assert stored == room.password
    w = server.wire("10.0.0.2", name="x")
    assert error_of(w.ask("join_room", room=room.id))["code"] == "wrong_password"
    assert error_of(w.ask("join_room", room=room.id, password="nope"))["code"] == \
        "wrong_password"
    assert error_of(w.ask("join_room", room=room.id, spectator=True))["code"] == \
        "wrong_password"
    assert kinds(w.ask("join_room", room=room.id, password="hunter2"))[0] == "joined"


def test_seat_tokens_are_hashed(server: Server) -> None:
    """A seat token is random per join and only its hash is kept (in the room and the store)."""
    owner = server.wire(name="a")
    token_a = one(owner.ask("create_room", name="r"), "joined")["token"]
    room = room_of(owner)
    b = server.wire("10.0.0.2", name="b")
    token_b = one(b.ask("join_room", room=room.id), "joined")["token"]
    assert token_a != token_b
    stored = [row[0] for row in server.store.db.execute("SELECT token FROM seats") if row[0]]
    assert len(stored) == 2 and not {token_a, token_b} & set(stored)
    assert all(token_a not in s.token and token_b not in s.token
               for s in room.seats if s.token)


def test_join_as_player_choosing_a_camp(server: Server) -> None:
    """A player takes a free seat of the class asked for; a taken class is room_full; the
    others see the new player in a room message."""
    owner = create(server, cls="saber")
    room = room_of(owner)
    owner.take()
    b = join(server, room, "b", cls="lancer")
    assert room.seats[1].cls == "lancer" and room.seats[1].kind == "human"
    assert one(owner.take(), "room")["room"]["players"] == 2
    c = server.wire("10.0.0.3", name="c")
    assert error_of(c.ask("join_room", room=room.id, cls="lancer"))["code"] == "room_full"
    assert error_of(c.ask("join_room", room=99))["code"] == "room_not_found"
    assert error_of(b.ask("join_room", room=room.id))["code"] == "already_in_room"
    assert error_of(b.ask("create_room", name="x"))["code"] == "already_in_room"


def test_room_full(server: Server) -> None:
    """A room of 2 seats takes 2 players; the third may only watch."""
    owner = create(server, seats=2)
    room = room_of(owner)
    join(server, room, "b")
    c = server.wire("10.0.0.3", name="c")
    assert error_of(c.ask("join_room", room=room.id))["code"] == "room_full"
    assert one(c.ask("join_room", room=room.id, spectator=True), "joined")["seat"] == -1


def test_spectator(server: Server) -> None:
    """A spectator joins with seat -1 and no token, is counted, may chat, may not act, choose
    a class or command the room."""
    owner = create(server)
    room = room_of(owner)
    s = server.wire("10.0.0.2", name="watcher")
    got = s.ask("join_room", room=room.id, spectator=True)
    assert kinds(got) == ["joined", "history", "room"]
    assert got[0] == {"t": "joined", "room": room.id, "seat": -1, "token": "",
                      "spectator": True}
    assert got[2]["room"]["spectators"] == 1
    assert one(s.ask("chat", text="hello"), "chat_message")["seat"] == -1
    assert error_of(s.ask("act", action={"type": "DeclareWait", "seat": 0},
                          state_id=0))["code"] == "game_not_started"
    assert error_of(s.ask("choose_class", cls="rider"))["code"] == "spectator"
    assert error_of(s.ask("start"))["code"] == "not_owner"
    owner.send("start")
    assert error_of(s.ask("act", action={"type": "DeclareWait", "seat": 0},
                          state_id=room.state.version))["code"] == "spectator"


def test_spectator_of_a_started_game_gets_the_public_view(server: Server) -> None:
    """A spectator who joins a running game gets joined, room, then the public state with no
    legal actions."""
    owner = create(server, seats=2)
    owner.send("start")
    room = room_of(owner)
    s = server.wire("10.0.0.2", name="watcher")
    got = s.ask("join_room", room=room.id, spectator=True)
    assert kinds(got) == ["joined", "history", "room", "state"]
    assert got[3]["legal"] == [] and got[3]["view"]["you"] is None


def test_leave_before_the_start(server: Server) -> None:
    """Leaving before the start frees the seat (and its class); the owner's leaving passes
    ownership to the next player; the last player's leaving closes the room."""
    owner = create(server, cls="saber")
    room = room_of(owner)
    b = join(server, room, "b")
    assert kinds(owner.ask("leave_room")) == ["left"]
    assert owner.proto.room is None
    assert room.seats[0].kind == "open" and room.seats[0].cls is None
    assert room.owner == 1
    assert kinds(b.ask("add_bot", cls="saber"))[0] == "room"
    assert kinds(b.ask("leave_room")) == ["left"]
    assert server.lobby.rooms == {}
    assert server.store.db.execute("SELECT closed FROM rooms").fetchone()[0] == 1
    assert error_of(b.ask("leave_room"))["code"] == "not_in_room"


def test_owner_commands(server: Server) -> None:
    """The owner adds and removes bots and kicks players; anyone else gets not_owner."""
    owner = create(server)
    room = room_of(owner)
    b = join(server, room, "b")
    for name, fields in (("add_bot", {"cls": "rider"}), ("remove_bot", {"seat": 1}),
                         ("kick", {"seat": 0}), ("start", {}), ("bot_level", {"level": "easy"})):
        assert error_of(b.ask(name, **fields))["code"] == "not_owner"
    owner.send("add_bot", cls="rider", level="hard")
    bot = next(s for s in room.seats if s.kind == "bot")
    assert (bot.cls, bot.level) == ("rider", "hard")
    assert error_of(owner.ask("add_bot", cls="rider"))["code"] == "room_full"
    assert error_of(owner.ask("remove_bot", seat=1))["code"] == "seat_taken"  # a player
    assert error_of(owner.ask("remove_bot", seat=6))["code"] == "seat_taken"  # open
    owner.send("remove_bot", seat=bot.index)
    assert room.seats[bot.index].kind == "open"
    assert error_of(owner.ask("kick", seat=0))["code"] == "seat_taken"  # oneself


def test_the_bot_level_sets_every_seated_bot_before_the_start(server: Server) -> None:
    """`bot_level` gives every bot seat that level (and the name the room shows with it), the
    players' seats untouched; after the start it is refused."""
    owner = create(server)
    room = room_of(owner)
    owner.send("add_bot", cls="rider")
    owner.send("add_bot", cls="caster", level="easy")
    shown = owner.ask("bot_level", level="hard")[-1]["room"]["seat_list"]
    assert [(s["kind"], s["level"], s["name"]) for s in shown if s["kind"] != "open"] == [
        ("human", "normal", "owner"), ("bot", "hard", "bot (hard)"), ("bot", "hard", "bot (hard)")]
    owner.send("start")
    assert error_of(owner.ask("bot_level", level="easy"))["code"] == "game_started"
    assert {s.level for s in room.seats if s.kind == "bot"} == {"hard"}


def test_kick_before_the_start(server: Server) -> None:
    """A kicked player is told `left` (kicked), is out of the room (it may join another) and
    its seat is free again."""
    owner = create(server)
    room = room_of(owner)
    b = join(server, room, "b")
    b.take()
    owner.send("kick", seat=1)
    assert one(b.take(), "left")["reason"] == "kicked"
    assert b.proto.room is None and room.seats[1].kind == "open"
    assert error_of(b.ask("chat", text="hey"))["code"] == "not_in_room"
    assert kinds(b.ask("create_room", name="mine"))[0] == "joined"


def test_kick_after_the_start_gives_the_seat_to_a_bot(server: Server) -> None:
    """After the start a kicked player's seat becomes a bot seat and its token stops working."""
    owner = create(server, seats=2)
    room = room_of(owner)
    b = server.wire("10.0.0.2", name="b")
    token = one(b.ask("join_room", room=room.id), "joined")["token"]
    owner.send("start")
    owner.send("kick", seat=1)
    assert room.seats[1].kind == "bot" and room.seats[1].token is None
    assert one(b.take(), "left")["reason"] == "kicked"
    c = server.wire("10.0.0.3", name="c")
    assert error_of(c.ask("resume", room=room.id, token=token))["code"] == "bad_token"


def test_choose_class(server: Server) -> None:
    """Before the start a player may move to a free class; a taken one is seat_taken."""
    owner = create(server, cls="saber")
    room = room_of(owner)
    owner.send("add_bot", cls="archer")
    assert error_of(owner.ask("choose_class", cls="archer"))["code"] == "seat_taken"
    owner.send("choose_class", cls="caster")
    assert room.seats[0].cls == "caster"
    owner.send("start")
    assert error_of(owner.ask("choose_class", cls="saber"))["code"] == "game_started"


def test_start(server: Server) -> None:
    """start fills open seats with bots of the free classes, sends each player its state, and
    refuses a second start and late players."""
    owner = create(server, seats=3, cls="berserker")
    room = room_of(owner)
    owner.take()
    got = owner.ask("start")
    assert kinds(got) == ["room", "state"]
    assert [s.kind for s in room.seats] == ["human", "bot", "bot"]
    assert len({s.cls for s in room.seats}) == 3
    state = got[1]
    assert state["state_id"] == 0 and state["view"]["you"] == 0 and state["legal"]
    assert set(state["deadlines"]) == {"0", "1", "2"}
    assert error_of(owner.ask("start"))["code"] == "game_started"
    assert error_of(owner.ask("add_bot", cls="saber"))["code"] == "game_started"
    c = server.wire("10.0.0.3", name="late")
    assert error_of(c.ask("join_room", room=room.id))["code"] == "game_started"
    assert server.store.db.execute("SELECT started FROM rooms").fetchone()[0] == 1


def test_room_chat(server: Server) -> None:
    """Room chat reaches every player and spectator of the room, and no other room."""
    owner = create(server)
    room = room_of(owner)
    b = join(server, room, "b")
    s = join(server, room, "s", host="10.0.0.3", spectator=True)
    other = create(server, name="elsewhere", host="10.0.0.4", room_name="Other")
    for w in (owner, b, s, other):
        w.take()
    server.advance(61)
    b.send("chat", text="同盟を組もう")
    expected = {"t": "chat_message", "seat": 1, "name": "b", "channel": "room",
                "text": "同盟を組もう", "id": 1, "at": int(server.clock.seconds())}
    for w in (owner, b, s):
        assert w.take() == [expected]
    assert other.take() == []


def test_negotiation_channel_reaches_the_two_camps_only(server: Server) -> None:
    """During an Encounter's negotiation, the negotiation channel reaches the opener and the
    target only: not a third player, not a spectator; outside it, no_negotiation."""
    owner = create(server, seats=3, cls="saber")
    room = room_of(owner)
    b = join(server, room, "b", cls="lancer")
    c = join(server, room, "c", host="10.0.0.3", cls="archer")
    s = join(server, room, "s", host="10.0.0.4", spectator=True)
    assert error_of(b.ask("chat", text="psst", channel="negotiation"))["code"] == \
        "no_negotiation"
    owner.send("start")
    # Saber and Lancer share a square so an Encounter is legal; seats otherwise untouched.
    square = room.state.camps[0].pos
    room.state.edit(1).pos = square
    room.state._legal.clear()
    act(owner, room, {"type": "DeclareEncounter", "seat": 0, "target": 1,
                      "intent": "negotiate"})
    act(c, room, {"type": "DeclareWait", "seat": 2})
    assert room.state.parley is not None and room.state.prompt.kind == "negotiate"
    for w in (owner, b, c, s):
        w.take()
    b.send("chat", text="truce?", channel="negotiation")
    for w in (owner, b):
        assert one(w.take(), "chat_message")["channel"] == "negotiation"
    assert c.take() == [] and s.take() == []
    assert error_of(c.ask("chat", text="me too", channel="negotiation"))["code"] == \
        "no_negotiation"
    assert error_of(s.ask("chat", text="me too", channel="negotiation"))["code"] == \
        "no_negotiation"


def act(w: Wire, room: Room, action: dict) -> None:
    got = w.ask("act", action=action, state_id=room.state.version, ref=1)
    assert "ack" in kinds(got), got


def test_abandoned_room_with_spectator_stays(server: Server) -> None:
    """A room is closed when nobody is in it and no player seat is held; a spectator keeps an
    unstarted room open, and the next player to join becomes its owner."""
    owner = create(server)
    room = room_of(owner)
    s = join(server, room, "s", spectator=True)
    owner.send("leave_room")
    assert room.id in server.lobby.rooms
    b = join(server, room, "b", host="10.0.0.3")
    assert room.seat_of(b.proto) == room.owner
    s.lose()
    b.lose()
    assert server.lobby.rooms == {}


def test_rooms_are_independent(server: Server) -> None:
    """What happens in one room (start, bots acting, chat, errors) sends nothing to another."""
    a = create(server, seats=2)
    b = create(server, name="b", host="10.0.0.2", room_name="B")
    b.take()
    a.send("start")
    a.send_dict({"t": "act", "action": {"type": "Nope", "seat": 0}, "state_id": 0})
    a.send("chat", text="x")
    server.advance(30)
    assert b.take() == []
    assert room_of(b).state is None


def test_ownership_never_rests_on_a_bot(server: Server) -> None:
    """If every player left and a bot now sits in the owner's seat (a spectator kept the room
    open), the next player to join becomes the owner and can start the game."""
    a = create(server)
    room = room_of(a)
    b = join(server, room, "b")
    a.send("leave_room")
    assert room.owner == 1
    b.send("add_bot", cls="saber")  # into seat 0, the first open one
    assert room.seats[0].kind == "bot"
    join(server, room, "s", host="10.0.0.3", spectator=True)
    b.send("leave_room")
    c = join(server, room, "c", host="10.0.0.4")
    assert room.owner == room.seat_of(c.proto)
    assert kinds(c.ask("start"))[-1] == "state"


# --- room limits and searching bots -----------------------------------------------------------
def test_one_address_may_keep_only_a_few_rooms_open() -> None:
    """Rooms created from one address are capped (rooms_per_address); other addresses are not."""
    server = Server(rooms_per_address=2)
    watcher = FakeMember("w")
    for _ in range(2):
        server.lobby.create("r", {}, None, address="10.0.0.9").spectators.append(watcher)
    with pytest.raises(ProtocolError) as err:
        server.lobby.create("r", {}, None, address="10.0.0.9")
    assert err.value.code == "server_full"
    server.lobby.create("r", {}, None, address="10.0.0.10")


def test_a_finished_game_nobody_watches_is_closed() -> None:
    """A room whose game is over and that has no member left is swept away."""
    server = Server()
    watcher = FakeMember("w")
    room = server.lobby.create("done", {"seats": 2}, None)
    room.spectators.append(watcher)
    room.add_bot("saber", "normal")
    room.add_bot("lancer", "normal")
    room.start()
    server.advance(10_000)
    assert room.state.over
    server.lobby.sweep()
    assert room.id in server.lobby.rooms  # still watched
    room.disconnect(watcher)
    server.lobby.sweep()
    assert room.id not in server.lobby.rooms


class Thinker:
    """A lobby's `think` that keeps each search pending until the test answers it."""

    def __init__(self) -> None:
        self.pending: list[tuple[Deferred, tuple]] = []

    def __call__(self, f: Callable, *args: Any) -> Deferred:
        d: Deferred = Deferred()
        self.pending.append((d, args))
        return d

    def answer(self) -> None:
        """The oldest search answers the first of its legal actions."""
        d, args = self.pending.pop(0)
        d.callback(args[-1][0])


def searching_room(thinker: Thinker, hard: int = 1, watched: bool = True) -> tuple[Server, Any]:
    """A started room of `hard` hard bots and normal ones, watched by a spectator if told."""
    server = Server(think=thinker)
    room = server.lobby.create("r", {"seats": 3, "bot_ms": 250}, None)
    room.seed = 3  # a fixed game: the test is about where bots think, not luck
    if watched:
        room.spectators.append(FakeMember("w"))
    for i, cls in enumerate(("saber", "lancer", "archer")):
        room.add_bot(cls, "hard" if i < hard else "normal")
    room.start()
    return server, room


def test_a_searching_bot_thinks_off_the_reactor_and_its_answer_is_applied_later() -> None:
    """Bots with a time budget think through the lobby's `think` (worker processes in the
    real server) with plain data, the room's budget included: the room goes on serving, and
    the answer is committed when it arrives (an answer to an older state is thought again)."""
    thinker = Thinker()
    server, room = searching_room(thinker)
    server.advance(1)
    assert len(thinker.pending) == 1 and 0 in room.bot_driver.thinking
    level, _seed, budget_ms, view, legal = thinker.pending[0][1]
    assert (level, budget_ms, view["you"]) == ("hard", 250, 0)
    assert all(isinstance(a, dict) for a in legal)
    assert 0 in room.state.prompt.seats  # the reactor went on: the normal bots declared
    thinker.answer()  # an answer to the state before they did: thought again
    server.advance(1)
    assert len(thinker.pending) == 1 and 0 in room.bot_driver.thinking
    version = room.state.version
    thinker.answer()
    assert room.state.version > version and 0 not in room.bot_driver.thinking


def test_a_room_has_one_search_in_flight_at_a_time() -> None:
    """Three hard bots prompted together: one searches, the next when it has answered, so
    one room can never fill the workers that every room shares."""
    thinker = Thinker()
    server, room = searching_room(thinker, hard=3)
    server.advance(1)
    assert len(thinker.pending) == 1 and len(room.state.prompt.seats) == 3
    version = room.state.version
    thinker.answer()
    server.advance(1)
    assert room.state.version > version
    assert len(thinker.pending) == 1 and len(room.bot_driver.thinking) == 1


def test_a_room_nobody_is_in_plays_its_hard_bots_at_once_without_searching() -> None:
    """No person in the room (its players gone, no spectator): no search at all; the hard
    seats play as the normal bot, and the game goes on."""
    thinker = Thinker()
    server, room = searching_room(thinker, hard=3, watched=False)
    server.advance(5)
    assert thinker.pending == [] and room.state.version > 5
    watcher = FakeMember("back")
    room.join_spectator(watcher)  # someone is back: the search resumes
    server.advance(1)
    assert len(thinker.pending) == 1


def test_a_rooms_hard_bots_think_for_the_rooms_budget(server: Server) -> None:
    """bot_ms (a room option, default 1 s) is the hard bot's time per decision."""
    owner = create(server, seats=2, bot_ms=250)
    room = room_of(owner)
    assert room.options["bot_ms"] == 250
    calls: list[tuple] = []
    room.bot_driver.think = lambda f, *args: calls.append(args) or Deferred()
    owner.send("add_bot", cls="lancer", level="hard")
    owner.send("start")
    server.advance(1)
    assert [(c[0], c[2]) for c in calls] == [("hard", 250)]


def latest_seats(w: Wire) -> dict[int, dict]:
    rooms = [m for m in w.take() if m["t"] == "room"]
    return {s["seat"]: s for s in rooms[-1]["room"]["seat_list"]}


def test_players_say_they_are_ready_and_a_new_class_unreadies(server: Server) -> None:
    """ready: shown to every member in seat_list; choosing another Servant clears it; bots count
    as ready; spectators and started games refuse it."""
    owner = create(server, seats=3)
    room = room_of(owner)
    guest = join(server, room, "guest", cls="lancer")
    guest.send("ready", ready=True)
    seats = latest_seats(owner)
    assert seats[1]["ready"] is True and seats[0]["ready"] is False
    guest.send("choose_class", cls="archer")
    seats = latest_seats(owner)
    assert seats[1]["ready"] is False
    owner.send("add_bot", cls="rider")
    seats = latest_seats(owner)
    assert seats[2]["ready"] is True
    watcher = server.wire("10.0.0.3", name="w")
    watcher.send("join_room", room=room.id, spectator=True)
    watcher.take()
    assert error_of(watcher.ask("ready", ready=True))["code"] == "spectator"
    owner.send("start")
    assert error_of(guest.ask("ready", ready=True))["code"] == "game_started"




class Directory:
    """A cluster's directory as the lobby reads it: the other servers' rooms."""

    def __init__(self, listed: list[dict[str, Any]]) -> None:
        self._listed = listed

    def listed(self) -> list[dict[str, Any]]:
        return self._listed


def test_the_listing_pages_over_this_servers_rooms_then_the_others_and_sums_up_only_a_page(
        server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """A page is this server's rooms from the offset, then the other servers' (a room this
    server holds is not listed twice); only the rooms on the page are summed up, so a client
    asking again and again costs a page, not the whole server."""
    from grailwar.server import lobby

    monkeypatch.setattr(lobby, "MAX_LISTED", 2)
    watcher = FakeMember("w")
    rooms = []
    for i in range(3):
        room = server.lobby.create(f"r{i}", {}, None, address=f"10.0.0.{i}")
        room.spectators.append(watcher)
        rooms.append(room)
    server.lobby.presence = Directory([{"id": 900 + i} for i in range(4)]
                                      + [{"id": rooms[0].id}])
    summed: list[int] = []
    for room in rooms:
        monkeypatch.setattr(room, "summary", lambda room=room: summed.append(room.id) or
                            {"id": room.id})
    pages = [server.lobby.list(offset) for offset in (0, 2, 4, 6, 8)]
    assert [[r["id"] for r in page] for page, _total in pages] == [
        [rooms[0].id, rooms[1].id], [rooms[2].id, 900], [901, 902], [903], []]
    assert {total for _page, total in pages} == {7}
    assert summed == [rooms[0].id, rooms[1].id, rooms[2].id]  # each summed up once, on its page
