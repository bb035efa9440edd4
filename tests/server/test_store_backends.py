"""The room log behind one interface: the same behaviour from the SQLite store and the
PostgreSQL one (each test runs on both), then what only PostgreSQL does: the acknowledgement
waits until the action is durable, and an action the database refuses (its room's lease
moved, an earlier action lost) is never acknowledged."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from grailwar.cli.main import main
from grailwar.server.lobby import Lobby
from grailwar.server.room import Room
from grailwar.server.store import SeatRow, Store
from grailwar.shared.engine import default_action
from grailwar.shared.protocol import ProtocolError
from server_kit import FakeMember, Server
from services import need
from twisted.internet.task import Clock

psycopg = need("psycopg")  # the `cluster` extra: skipped without it (failed in CI)
PgStore = need("grailwar.server.pgstore").PgStore
OPTIONS = {"seats": 2, "priority_s": 0}


def settle(store: Any) -> None:
    """PostgreSQL's writes land on its writer thread: wait for them (SQLite's already have)."""
    if isinstance(store, PgStore):
        store.settle()


def played(store: Any, room_id: int, actions: int = 3) -> tuple[Room, FakeMember, list[int]]:
    """A started two-seat room (a human, a bot) whose human plays `actions` default actions
    (the bot answers when the clock moves); returns the room, the member and its acks."""
    store.claim(room_id)
    room = Room.create(room_id, "rin's room", OPTIONS, Clock(), store, None, seed=11)
    member = FakeMember("Rin")
    room.join_player(member, "saber")
    room.add_bot("lancer", "heuristic")
    room.start()
    acks: list[int] = []
    for _ in range(actions):
        while 0 not in room.state.prompt.seats:
            room.clock.advance(1)
            settle(store)
        room.act(member, default_action(room.state, 0).to_dict(), room.state.version,
                 acks.append)
        settle(store)
    return room, member, acks


def test_a_room_comes_back_from_its_log(any_store: Any) -> None:
    """Seats (with the hashed token), the started flag, every action in order, the deadlines
    and the chat come back as written; the replayed room is at the same state."""
    room, member, acks = played(any_store, 1)
    room.chat(member, "よろしく", "room")
    settle(any_store)
    row = any_store.load_room(1)
    assert row.started and row.masters == room.masters
    assert [a for a, _src in row.actions] == room.actions
    assert [s.token for s in row.seats] == [s.token for s in room.seats]
    assert row.deadlines == {s: (d.kind, d.due) for s, d in room.timers.deadlines.items()}
    assert [line["msg"]["text"] for line in row.chat] == ["よろしく"]
    again = Room.restore(row, Clock(), any_store)
    assert again.state.version == room.state.version == acks[-1]
    room.stop()
    again.stop()


def test_seats_settings_motd_and_bans_are_kept(any_store: Any) -> None:
    any_store.create_room(5, "r", {"seats": 3}, "salt$hash", 42)
    any_store.save_seat(5, SeatRow(0, "saber", "human", "Rin", "sha256$x", "normal", None))
    any_store.save_seat(5, SeatRow(0, "archer", "bot", "bot", None, "hard", "emiya"))
    any_store.save_room(5, True, 0, ["tohsaka"])
    any_store.save_motd("今夜は聖杯戦争")
    any_store.save_ban("10.0.0.9", None, "spam")
    any_store.save_ban("10.0.0.8", 99.0, "flood")
    any_store.delete_ban("10.0.0.8")
    settle(any_store)
    row = any_store.load_room(5)
    assert (row.name, row.options, row.password, row.seed) == ("r", {"seats": 3}, "salt$hash",
                                                               42)
    assert row.seats == [SeatRow(0, "archer", "bot", "bot", None, "hard", "emiya")]
    assert any_store.motd() == "今夜は聖杯戦争"
    assert any_store.load_bans() == [("10.0.0.9", None, "spam")]


def test_purge_takes_closed_rooms_past_retention_only(any_store: Any) -> None:
    """Closed unfinished rooms go, finished ones once older than `keep`, open ones never, at
    most `limit` per call; ids are never given again."""
    for room_id in range(1, 6):
        any_store.create_room(room_id, f"r{room_id}", {}, None, 1)
        any_store.append_action(room_id, 1, {"type": "DeclareWait", "seat": 0}, "seat")
    any_store.close_room(1)
    any_store.close_room(2)
    any_store.close_room(3, finished=100.0)
    any_store.close_room(4, finished=900.0)
    settle(any_store)
    assert any_store.purge(now=1000.0, keep=500.0, limit=2) == 2
    assert any_store.purge(now=1000.0, keep=500.0, limit=2) == 1
    assert any_store.purge(now=1000.0, keep=500.0) == 0
    assert any_store.open_room_ids() == [5]
    assert any_store.purge(now=5000.0, keep=0) == 0  # 0: finished games kept forever
    assert any_store.purge(now=5000.0, keep=500.0) == 1
    assert any_store.next_room_id() > 0


def test_a_lobby_restores_what_another_left(any_store: Any) -> None:
    """A lobby on the same store after the first stopped gets its rooms back, with the seat
    resumable by its token."""
    clock = Clock()
    lobby = Lobby(clock, any_store)
    room = lobby.create("r", dict(OPTIONS), None, "10.0.0.1")
    _seat, token = room.join_player(FakeMember("Rin"), "saber")
    room.start()
    settle(any_store)
    lobby.stop()
    if isinstance(any_store, PgStore):
        any_store.release(room.id)
        settle(any_store)
    again = Lobby(Clock(), any_store)
    again.restore()
    back = again.room(room.id)
    assert back.resume(FakeMember("Rin"), token) == 0
    assert back.state.version == room.state.version
    again.stop()


# --- PostgreSQL only ---------------------------------------------------------------------------
def test_the_ack_waits_until_the_action_is_durable(pg_url: str) -> None:
    """The room's state moves at once, but the ack, and the views, only once the writer
    thread has committed the action: another connection sees it in the table by then."""
    store = PgStore(pg_url)
    try:
        room, member, _acks = played(store, 1, actions=1)
        while 0 not in room.state.prompt.seats:
            room.clock.advance(1)
            settle(store)
        acks: list[int] = []
        gate = threading.Event()
        store._queue(lambda _cur: gate.wait(10))  # hold the writer back: nothing commits
        member.clear()
        room.act(member, default_action(room.state, 0).to_dict(), room.state.version,
                 acks.append)
        time.sleep(0.05)
        store._fire()
        assert acks == [] and member.of("state") == []
        gate.set()
        store.settle()
        assert acks == [room.state.version]
        assert member.of("state")
        with psycopg.connect(pg_url) as other:
            seqs = [s for (s,) in other.execute("SELECT seq FROM actions WHERE room = 1")]
        assert seqs[-1] == acks[0]
        room.stop()
    finally:
        store.close()


def test_an_action_whose_lease_moved_is_never_acknowledged(pg_url: str) -> None:
    """Another server adopted the room (the first one's lease lapsed): the first one's next
    action is refused by the database (fencing by epoch), its player gets `not_saved`, no
    ack, the action is not in the log, and the room gives itself up; the adopter's log goes
    on from the last durable action."""
    first = PgStore(pg_url, lease_s=0.3)
    second = PgStore(pg_url, lease_s=5)
    try:
        room, member, acks = played(first, 1, actions=2)
        while 0 not in room.state.prompt.seats:
            room.clock.advance(1)
            first.settle()
        stored = len(first.load_room(1).actions)
        time.sleep(0.4)  # the first server missed its renewals
        assert second.claim(1) is not None
        assert first.claim(1) is None  # held by the second now
        refused: list[ProtocolError] = []
        lost: list[str] = []
        room.on_lost = lambda _room, why: lost.append(why)
        room.act(member, default_action(room.state, 0).to_dict(), room.state.version,
                 acks.append, refused.append)
        first.settle()
        assert len(acks) == 2 and [e.code for e in refused] == ["not_saved"]
        assert "owned by another server" in refused[0].message
        assert lost and room.lost
        assert len(second.load_room(1).actions) == stored
        room.stop()
    finally:
        first.close()
        second.close()


def test_an_action_after_a_lost_one_is_refused_too(pg_url: str) -> None:
    """Appends keep their order: once one is refused, the ones queued behind it for the same
    room are refused as well (the log never has a hole); another room is not affected."""
    store = PgStore(pg_url)
    try:
        for room_id in (1, 2):
            store.create_room(room_id, "r", {}, None, 1)
        store.settle()
        with psycopg.connect(pg_url, autocommit=True) as other:  # as if seq 1 had been lost
            other.execute("INSERT INTO actions VALUES (1, 1, '\\x80', 'seat')")
        outcomes: list[str] = []
        for room_id, seq in ((1, 1), (1, 2), (2, 1)):
            written = store.append_action(room_id, seq, {"type": "DeclareWait", "seat": 0},
                                          "seat")
            written.addCallbacks(lambda _r, r=room_id, s=seq: outcomes.append(f"{r}.{s} ok"),
                                 lambda f, r=room_id, s=seq: outcomes.append(
                                     f"{r}.{s} {f.getErrorMessage()}"))
        store.settle()
        assert outcomes[0].startswith("1.1 the database did not take it")  # duplicate key
        assert outcomes[1] == "1.2 an earlier action of room 1 was not written"
        assert outcomes[2] == "2.1 ok"
    finally:
        store.close()


def test_a_lobby_gives_up_a_refused_room_and_claims_it_back_from_its_log(pg_url: str) -> None:
    """Over the lobby: the refused player is told `not_saved`, every member `left` with
    `room_moved`; the room comes back from its log at the next turn under a new epoch, at
    the last durable state, and the seat resumes with its token."""
    store = PgStore(pg_url)
    try:
        clock = Clock()
        lobby = Lobby(clock, store)
        room = lobby.create("r", dict(OPTIONS), None, "10.0.0.1")
        member = FakeMember("Rin")
        _seat, token = room.join_player(member, "saber")
        room.start()
        store.settle()
        durable = room.state.version
        epoch = store.epochs[room.id]
        with psycopg.connect(pg_url, autocommit=True) as other:  # the lease lapses
            other.execute("UPDATE leases SET expires = now() - interval '1 second'")
        refused: list[ProtocolError] = []
        room.act(member, default_action(room.state, 0).to_dict(), room.state.version,
                 lambda _v: pytest.fail("acknowledged"), refused.append)
        store.settle()
        assert refused[0].code == "not_saved" and "lapsed" in refused[0].message
        assert member.reasons == ["room_moved"]
        assert room.id not in lobby.rooms
        clock.advance(0)
        store.settle()
        back = lobby.room(room.id)
        assert store.epochs[room.id] == epoch + 1
        assert back.state.version == durable
        assert back.resume(FakeMember("Rin"), token) == 0
        lobby.stop()
    finally:
        store.close()


def test_db_migrate_moves_a_sqlite_server_into_postgresql(tmp_path: Path, pg_url: str,
                                                          capsys: pytest.CaptureFixture) -> None:
    """`grailwar db migrate`: every room (with its actions, seats, chat and timers), the bans
    and the message of the day; a PostgreSQL lobby then runs the room on from where it was,
    the seat resumes with its token, new ids come after the moved ones; a second migration
    into the same database is refused with the ids named."""
    db = tmp_path / "rooms.db"
    sqlite = Store(db)
    room, member, _acks = played(sqlite, 3)
    room.chat(member, "good luck", "room")
    token = member.of("joined")[0]["token"]
    sqlite.save_ban("10.0.0.9", None, "spam")
    sqlite.save_motd("welcome")
    sqlite.mark_alive(room.clock.seconds())
    room.stop()
    sqlite.close()
    assert main(["db", "migrate", str(db), pg_url]) == 0
    assert "1 room(s) moved" in capsys.readouterr().out
    store = PgStore(pg_url)
    try:
        assert store.motd() == "welcome" and store.load_bans() == [("10.0.0.9", None, "spam")]
        lobby = Lobby(Clock(), store)
        lobby.restore()
        back = lobby.room(3)
        assert back.actions == room.actions and back.state.version == room.state.version
        assert [s.token for s in back.seats] == [s.token for s in room.seats]
        assert [line.msg["text"] for line in back.chat_log.lines] == ["good luck"]
        assert back.resume(FakeMember("Rin"), token) == 0
        assert lobby.create("new", dict(OPTIONS), None, "10.0.0.1").id == 4
        lobby.stop()
    finally:
        store.close()
    assert main(["db", "migrate", str(db), pg_url]) == 1
    assert "room(s) 3 are in the PostgreSQL database already" in capsys.readouterr().err


def test_an_adopted_room_keeps_the_time_its_timers_had_left(pg_url: str) -> None:
    """The adopter moves the room's deadlines by the time since its last owner was last known
    alive (its last renewal), and by nothing when that owner gave the room up cleanly."""
    dead = PgStore(pg_url, lease_s=0.3)
    adopter = PgStore(pg_url, lease_s=5)
    try:
        lobby = Lobby(Clock(), dead)
        room = lobby.create("r", dict(OPTIONS), None, "10.0.0.1")
        room.join_player(FakeMember("Rin"), "saber")
        room.start()
        dead.settle()
        due = {s: d.due for s, d in room.timers.deadlines.items()}
        assert due
        room.stop()
        time.sleep(0.6)  # no renewal: the owner died
        back = Lobby(Clock(), adopter)
        back.restore()
        moved = {s: d.due - due[s] for s, d in back.room(room.id).timers.deadlines.items()}
        assert moved.keys() == due.keys()
        assert all(0.55 <= m < 2.0 for m in moved.values()), moved
        back.stop()
        adopter.release(room.id)  # a clean handover: no time was lost
        adopter.settle()
        again = Lobby(Clock(), dead)
        again.restore()
        assert {s: d.due for s, d in again.room(room.id).timers.deadlines.items()} == pytest.approx(
            {s: due[s] + m for s, m in moved.items()}, abs=0.05)
        again.stop()
    finally:
        dead.close()
        adopter.close()


def test_db_check_replays_a_postgresql_database(pg_url: str,
                                                capsys: pytest.CaptureFixture) -> None:
    """`grailwar db check postgresql://…` replays every open room: a sound one passes, one
    whose stored action no longer decodes is named; `db backup` points to PostgreSQL's
    own tools."""
    store = PgStore(pg_url)
    try:
        played(store, 1)[0].stop()
        played(store, 2)[0].stop()
        with psycopg.connect(pg_url, autocommit=True) as other:
            other.execute("UPDATE actions SET action = '\\xc1' WHERE room = 2 AND seq = "
                          "(SELECT min(seq) FROM actions WHERE room = 2)")
    finally:
        store.close()
    assert main(["db", "check", pg_url]) == 1
    out = capsys.readouterr().out
    assert "room 2: its log does not replay" in out and "room 1" not in out
    assert main(["db", "backup", pg_url, "/tmp/never-written.db"]) == 1
    assert "pg_dump" in capsys.readouterr().err


def test_a_dropped_database_connection_costs_no_action(pg_url: str) -> None:
    """PostgreSQL closes both of the store's connections (a restart, a failover of the
    database): the next append is written on a new connection and acknowledged, and reads
    open theirs again."""
    store = PgStore(pg_url)
    try:
        room, member, acks = played(store, 1, actions=1)
        with psycopg.connect(pg_url, autocommit=True) as other:
            other.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                          "datname = current_database() AND pid <> pg_backend_pid()")
        while 0 not in room.state.prompt.seats:
            room.clock.advance(1)
            store.settle()
        room.act(member, default_action(room.state, 0).to_dict(), room.state.version,
                 acks.append, lambda err: pytest.fail(err.message))
        store.settle()
        assert acks[-1] == room.state.version
        assert len(store.load_room(1).actions) == len(room.actions)
        room.stop()
    finally:
        store.close()


def test_over_the_wire_the_ack_then_the_state(any_store: Any) -> None:
    """The protocol's path on either store: act is answered by its ack (echoing `ref`, with
    the new state id) and then the seat's new state; with PostgreSQL both wait for the
    commit."""
    server = Server(any_store)
    w = server.wire(name="a")
    w.send("create_room", name="r", seats=2, priority_s=0)
    w.send("start")
    settle(any_store)
    w.take()
    w.send("act", action={"type": "DeclareWait", "seat": 0}, state_id=0, ref=77)
    if isinstance(any_store, PgStore):
        assert w.take() == []  # not durable yet: nothing said
    settle(any_store)
    got = w.take()
    assert got[0] == {"t": "ack", "ref": 77, "state_id": 1}
    assert got[-1]["t"] == "state" and got[-1]["state_id"] == 1
    server.lobby.stop()
