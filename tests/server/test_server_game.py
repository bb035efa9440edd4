"""The game in a room: actions checked and acknowledged after they are durable, per-seat views,
timers on a `task.Clock` (warnings, expiry into default actions, early close, battle prompts),
seat tokens and resyncs, the grace period's takeover bot, and rebuilding a room from its log."""

from __future__ import annotations

import re
from typing import Any

import pytest
from grailwar.client.net import ServerConnection
from grailwar.server.broadcasts import Broadcasts
from grailwar.server.lobby import Lobby
from grailwar.server.room import Room
from grailwar.server.seating import GRACE
from grailwar.server.store import Store
from grailwar.shared.engine import (
    default_action,
    from_replay,
    legal_actions,
    to_text,
)
from grailwar.shared.engine.data import CLASSES
from grailwar.shared.protocol import BOT_DELAY, FrameBuffer, ProtocolError, decode
from server_kit import FakeMember, Server, error_of, kinds, one, restarted, tick
from twisted.internet.address import IPv4Address
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport

SEED = 11


class Table:
    """A room run directly (no sockets) with fake members in its human seats; without a
    priority phase unless `priority_s` is given (the timers here are the window's own; the
    phase has its tests in test_server_priority.py)."""

    def __init__(self, classes: tuple[str, ...] = ("saber", "lancer"), humans: int = 2,
                 seed: int = SEED, store: Store | None = None, **options: Any) -> None:
        self.clock = Clock()
        self.store = store or Store()
        self.room = Room.create(1, "table", {"seats": len(classes), "priority_s": 0, **options},
                                self.clock, self.store, None, seed)
        self.members = [FakeMember(f"p{i}") for i in range(humans)]
        self.tokens = []
        for member, cls in zip(self.members, classes, strict=False):
            self.tokens.append(self.room.join_player(member, cls)[1])
        for cls in classes[humans:]:
            self.room.add_bot(cls, "heuristic")
        self.log: list[tuple[float, dict[str, Any], str]] = []
        append = self.store.append_action

        def recorded(room_id: int, seq: int, action: dict[str, Any], source: str) -> Any:
            written = append(room_id, seq, action, source)
            self.log.append((self.clock.seconds(), action, source))
            return written

        self.store.append_action = recorded  # type: ignore[method-assign]

    def tick(self, seconds: float) -> None:
        tick(self.clock, seconds)

    def start(self) -> Table:
        self.room.start()
        return self

    @property
    def state(self) -> Any:
        return self.room.state

    def act(self, seat: int, action: dict[str, Any], state_id: int | None = None) -> int:
        acks: list[int] = []
        self.room.act(self.members[seat], action,
                      self.state.version if state_id is None else state_id, acks.append)
        assert len(acks) == 1
        return acks[0]

    def wait(self, seat: int) -> int:
        return self.act(seat, {"type": "DeclareWait", "seat": seat})


def refused(table: Table, seat: int, action: dict[str, Any], state_id: int | None = None) -> str:
    before = to_text(table.state)
    with pytest.raises(ProtocolError) as err:
        table.act(seat, action, state_id)
    assert to_text(table.state) == before, "a refused action changed the state"
    return err.value.code


# --- actions ------------------------------------------------------------------------------------
def test_each_seat_gets_its_own_view_and_legal_actions() -> None:
    """At the start each player gets a state with its own view (`you`), its own legal actions
    and the deadline of every prompted seat; a spectator gets the public view and none."""
    t = Table(("saber", "lancer", "archer"), humans=2)
    watcher = FakeMember("w")
    t.room.join_spectator(watcher)
    t.start()
    for seat, member in enumerate(t.members):
        state = member.last("state")
        assert state["view"]["you"] == seat
        assert state["legal"] == [a.to_dict() for a in legal_actions(t.state, seat)]
        assert {a["seat"] for a in state["legal"]} == {seat}
        assert state["deadlines"] == {"0": 300, "1": 300, "2": 300}
    public = watcher.last("state")
    assert public["view"]["you"] is None and public["legal"] == []


def test_action_is_durable_before_its_ack_and_its_broadcast() -> None:
    """An accepted action is in the store before the ack, and the ack (with the new state id)
    comes before anyone sees the new state."""
    t = Table().start()
    order: list[str] = []
    store_append = t.store.append_action
    t.store.append_action = lambda *a: (order.append("stored"), store_append(*a))[1]  # type: ignore
    for member in t.members:
        send = member.send
        member.send = lambda msg, send=send: (order.append(msg["t"]), send(msg))  # type: ignore
    acks: list[int] = []
    t.room.act(t.members[0], {"type": "DeclareWait", "seat": 0}, 0,
               lambda sid: (order.append("ack"), acks.append(sid)))
    assert acks == [1]
    assert order[:2] == ["stored", "ack"] and "state" in order[2:]
    stored = t.store.db.execute("SELECT seq, source FROM actions").fetchall()
    assert stored == [(1, "seat")]


def test_ack_over_the_wire() -> None:
    """Over the protocol, act is answered by ack echoing `ref` with the new state id, followed
    by the seat's new state."""
    server = Server()
    w = server.wire(name="a")
    w.send("create_room", name="r", seats=2)
    w.send("start")
    w.take()
    got = w.ask("act", action={"type": "DeclareWait", "seat": 0}, state_id=0, ref=77)
    assert got[0] == {"t": "ack", "ref": 77, "state_id": 1}
    assert got[-1]["t"] == "state" and got[-1]["state_id"] == 1


def test_stale_action_is_refused() -> None:
    """An action chosen on a state from before the seat's current prompt (or a state id from
    the future) is refused as stale_state, even if it would be legal now."""
    t = Table(("saber", "lancer", "archer"), humans=3).start()
    for seat in (0, 1, 2):  # the morning window closes: the noon window is a new prompt
        t.wait(seat)
    noon = t.state.version
    assert t.state.prompt.kind == "declare" and t.state.turn == 1
    assert refused(t, 1, {"type": "DeclareWait", "seat": 1}, state_id=noon - 1) == "stale_state"
    assert refused(t, 1, {"type": "DeclareWait", "seat": 1}, state_id=noon + 5) == "stale_state"
    t.act(1, {"type": "DeclareWait", "seat": 1}, state_id=noon)


def test_an_answer_to_an_unchanged_prompt_survives_another_seats_declaration() -> None:
    """In a shared window another camp's declaration changes the state id but not this seat's
    question: its answer, chosen on the earlier id, is accepted."""
    t = Table(("saber", "lancer", "archer"), humans=3).start()
    before = t.state.version
    t.wait(0)
    assert t.state.version > before
    t.act(1, {"type": "DeclareWait", "seat": 1}, state_id=before)
    assert 1 not in t.state.prompt.seats


def test_no_action_for_another_seat() -> None:
    """A player cannot act for another seat, prompted or not."""
    t = Table().start()
    assert refused(t, 0, {"type": "DeclareWait", "seat": 1}) == "not_your_turn"
    assert refused(t, 1, {"type": "DeclareWait", "seat": 0}) == "not_your_turn"


def test_illegal_and_unprompted_actions() -> None:
    """An action not among the seat's legal actions is illegal_action; a seat that has already
    declared is not prompted (not_your_turn); a malformed one is bad_field naming `action`."""
    t = Table().start()
    far = {"type": "DeclareEncounter", "seat": 0, "target": 1, "intent": "battle"}
    assert far not in [a.to_dict() for a in legal_actions(t.state, 0)]
    assert refused(t, 0, far) == "illegal_action"
    assert refused(t, 0, {"type": "Move", "seat": 0, "to": 999}) == "illegal_action"
    assert refused(t, 0, {"type": "Attack", "seat": 0, "target": 1, "card": "B",
                          "second": "B"}) in ("illegal_action", "bad_field")
    t.wait(0)
    assert refused(t, 0, {"type": "DeclareRest", "seat": 0}) == "not_your_turn"
    for bad in ({"type": "DeclareWait"}, {"type": "Nope", "seat": 1}, {"seat": 1},
                {"type": "DeclareWait", "seat": "1"}, {"type": "DeclareWait", "seat": 1, "x": 0},
                {"type": "DeclareWait", "seat": 1, b"x": 0, "y": 1}):
        with pytest.raises(ProtocolError) as err:
            t.act(1, bad)
        assert (err.value.code, err.value.field) == ("bad_field", "action"), bad


def test_act_before_the_start() -> None:
    """Acting before the start is game_not_started."""
    t = Table()
    with pytest.raises(ProtocolError) as err:
        t.act(0, {"type": "DeclareWait", "seat": 0}, 0)
    assert err.value.code == "game_not_started"


def test_dice_log_lines_in_the_dice_bot_style() -> None:
    """Every roll reaches the players as a DiceRolled event with a log line in the dice-bot
    style (`(2D6) ＞ 7[3,4]`); another camp's MP roll shows no faces (`＞ ?`)."""
    t = Table().start()
    t.act(0, {"type": "DeclareRest", "seat": 0})
    t.act(1, {"type": "DeclareRest", "seat": 1})
    mine = t.members[0].last("events")
    rolls = [(e, line) for e, line in zip(mine["events"], mine["log"], strict=True)
             if e["type"] == "DiceRolled"]
    assert rolls
    own = [line for e, line in rolls if e["seat"] == 0]
    other_mp = [line for e, line in rolls if e["seat"] == 1 and "_hp" not in e["purpose"]]
    assert own and all(re.search(r"\(\d+D\d+[^)]*\) ＞ \d+\[[\d,]+\]", line) for line in own)
    assert other_mp and all(line.endswith("＞ ?") for line in other_mp)


# --- timers -------------------------------------------------------------------------------------
def test_declaration_window_warnings_and_expiry() -> None:
    """Nobody declares: warnings go out 60 s and 10 s before the window's end to every member,
    and at the end the server declares Wait for each silent seat (source `timer`)."""
    t = Table(declare_s=120).start()
    t.tick(59.9)
    assert not t.members[0].of("warning")
    t.tick(0.1)
    assert sorted((w["seat"], w["seconds"]) for w in t.members[0].of("warning")) == \
        [(0, 60), (1, 60)]
    t.tick(50)
    assert sorted(w["seat"] for w in t.members[1].of("warning") if w["seconds"] == 10) == [0, 1]
    assert t.log == []
    t.tick(10)
    assert sorted((a["type"], a["seat"], src) for _, a, src in t.log) == \
        [("DeclareWait", 0, "timer"), ("DeclareWait", 1, "timer")]
    assert {when for when, _, _ in t.log} == {120.0}


def test_window_closes_early_when_all_have_declared() -> None:
    """When every camp has declared, the window closes at once and its timers are cancelled:
    no warning and no server action follows for it (the next window has its own)."""
    t = Table(declare_s=60).start()
    t.tick(5)
    t.wait(0)
    t.wait(1)
    assert t.state.turn == 1
    assert {d.due for d in t.room.timers.deadlines.values()} == {65.0}
    t.members[0].clear()
    t.tick(45)  # the first window's 10 s warning would be due now
    assert t.members[0].of("warning") == []
    t.tick(10)  # and its end
    assert not [a for _, a, src in t.log if src == "timer"]
    assert {w["seconds"] for w in t.members[0].of("warning")} == {10}  # the new window's


def test_declared_seat_loses_its_timer() -> None:
    """A seat that has declared gets no warning and no Wait; the silent one gets both."""
    t = Table(declare_s=30).start()
    t.wait(0)
    t.tick(30)
    assert {w["seat"] for w in t.members[0].of("warning")} == {1}
    assert [(a["seat"], src) for _, a, src in t.log] == [(0, "seat"), (1, "timer")]


def test_short_window_gets_the_10_second_warning_only() -> None:
    """A 30 s window has no 60 s warning, only the 10 s one."""
    t = Table(declare_s=30).start()
    t.tick(30)
    assert {w["seconds"] for w in t.members[0].of("warning")} == {10}


def test_deadlines_in_the_state_count_down() -> None:
    """Each state message tells the seconds left per prompted seat."""
    t = Table(declare_s=100).start()
    t.tick(40)
    t.wait(0)
    assert t.members[1].last("state")["deadlines"] == {"1": 60}


def battle_table(**options: Any) -> Table:
    """Saber and Lancer on one square; Saber declares a battle Encounter against Lancer."""
    t = Table(**options).start()
    t.state.edit(1).pos = t.state.camps[0].pos
    t.state._legal.clear()
    t.act(0, {"type": "DeclareEncounter", "seat": 0, "target": 1, "intent": "battle"})
    return t


def test_battle_prompts_time_out_into_default_actions() -> None:
    """In battle nobody answers: each prompt has its own timer (round start: prompt_s; main
    action: main_s → Wait; reaction: reaction_s → Guard with no card) and expires into the
    engine's default action, issued at exactly that many seconds."""
    t = battle_table(prompt_s=20, main_s=40, reaction_s=15)
    assert t.state.battle is not None
    t.tick(400)
    timed = [(when, a) for when, a, src in t.log if src == "timer"]
    assert timed, "no timer fired in the battle"
    kinds_seen = {a["type"] for _, a in timed}
    assert {"Ready", "Wait"} <= kinds_seen
    # Each timed action came exactly one timer length after the action before it.
    length = {"Ready": 20, "Wait": 40, "React": 15, "DeclareWait": 300}
    previous = t.log[0][0]
    for when, action, _src in t.log[1:]:
        if action["type"] in length and action["type"] != "DeclareWait":
            assert when - previous in (length[action["type"]], 0), (when, previous, action)
        previous = when


def test_reaction_timeout_guards_with_no_card() -> None:
    """An attack nobody answers is met by the server's Guard with no card after reaction_s."""
    t = battle_table(prompt_s=5, main_s=100, reaction_s=7)
    for _ in range(40):
        if t.state.prompt.kind == "main":
            break
        t.tick(5)
    assert t.state.prompt.kind == "main"
    actor = t.state.battle.actor
    attacks = [a for a in legal_actions(t.state, actor) if type(a).__name__ == "Attack"]
    assert attacks
    t.act(actor, attacks[0].to_dict())
    if t.state.prompt.kind != "reaction":
        pytest.skip("this attack needed no reaction")
    start = t.clock.seconds()
    t.tick(7)
    when, action, source = t.log[-1]
    assert (action["type"], action["card"], source, when - start) == ("React", "", "timer", 7)
    assert action["seat"] != actor
    assert next(a for _, a, _ in t.log if a["type"] == "React")["kind"] == "G"


def test_bot_seats_answer_after_a_short_delay() -> None:
    """A bot seat answers its prompt BOT_DELAY seconds later (source `bot`)."""
    t = Table(("saber", "lancer"), humans=1).start()
    t.tick(BOT_DELAY)
    assert [(a["seat"], src) for _, a, src in t.log] == [(1, "bot")]


# --- seats: tokens, grace and takeover -------------------------------------------------------
def test_resume_with_the_token_resyncs_the_seat() -> None:
    """A player who reconnects with its token gets joined (same seat), the room, and a full
    state of its own view and legal actions; a wrong token is bad_token."""
    server = Server()
    a = server.wire(name="a")
    token = one(a.ask("create_room", name="r", seats=2), "joined")["token"]
    a.send("start")
    room = a.proto.room
    a.lose()
    b = server.wire("10.0.0.2", name="a again")
    assert error_of(b.ask("resume", room=room.id, token="x" * 32))["code"] == "bad_token"
    assert b.proto.room is None
    assert error_of(b.ask("resume", room=99, token="x" * 32))["code"] == "room_not_found"
    got = b.ask("resume", room=room.id, token=token)
    assert kinds(got) == ["joined", "history", "room", "state"]
    assert got[0] == {"t": "joined", "room": room.id, "seat": 0, "token": token,
                      "spectator": False}
    assert got[3]["view"]["you"] == 0
    assert got[3]["legal"] == [x.to_dict() for x in legal_actions(room.state, 0)]
    assert "hand" in got[3]["view"]["camps"][0]


def test_resume_elsewhere_moves_the_seat() -> None:
    """A resume while the old connection is still open moves the seat: the old connection is
    told `left` and is out of the room."""
    server = Server()
    a = server.wire(name="a")
    token = one(a.ask("create_room", name="r", seats=2), "joined")["token"]
    b = server.wire("10.0.0.2", name="a2")
    assert kinds(b.ask("resume", room=a.proto.room.id, token=token))[0] == "joined"
    assert one(a.take(), "left")["reason"] == "resumed elsewhere"
    assert a.proto.room is None and b.proto.room is not None


def test_grace_period_then_takeover_bot_then_resume() -> None:
    """A player gone during the game keeps its seat for GRACE (90 s), during which no bot
    plays it; then a bot plays it; a resume stops the bot at once."""
    t = Table(declare_s=600).start()
    t.wait(0)
    t.room.disconnect(t.members[1])
    assert t.room.public()["seat_list"][1]["connected"] is False
    t.tick(GRACE - 0.01)
    assert len(t.log) == 1  # seat 1 still waited for
    t.tick(0.01 + BOT_DELAY)
    assert t.log[-1][2] == "bot" and t.log[-1][1]["seat"] == 1
    assert t.room.seats[1].takeover
    back = FakeMember("back")
    assert t.room.resume(back, t.tokens[1]) == 1
    assert not t.room.seats[1].takeover
    assert kinds(back.got)[:4] == ["joined", "history", "room", "state"]
    count = len(t.log)
    t.tick(10)
    assert all(a["seat"] != 1 or src != "bot" for _, a, src in t.log[count:])


def test_resume_within_the_grace_period_cancels_the_takeover() -> None:
    """Back before the grace period ends: no bot ever plays the seat."""
    t = Table(declare_s=600).start()
    t.room.disconnect(t.members[1])
    t.tick(GRACE / 2)
    t.room.resume(FakeMember("back"), t.tokens[1])
    t.tick(GRACE * 2)
    assert [src for _, _, src in t.log] == []


def test_leaving_during_the_game_hands_the_seat_to_a_bot() -> None:
    """leave_room after the start gives the seat up: a bot plays it at once and for good, and
    the old token no longer resumes it (a dropped connection, unlike this, keeps the seat)."""
    t = Table(declare_s=600).start()
    t.room.leave(t.members[1])
    t.tick(BOT_DELAY)
    assert [(a["seat"], src) for _, a, src in t.log] == [(1, "bot")]
    assert t.room.seats[1].kind == "bot"
    with pytest.raises(ProtocolError) as err:
        t.room.resume(FakeMember("back"), t.tokens[1])
    assert err.value.code == "bad_token"


def test_a_failing_bot_falls_back_to_the_default_action(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot that raises does not stall the room: its seat gets the default action."""
    t = Table(("saber", "lancer"), humans=1).start()
    t.tick(0)
    bot = type("Broken", (), {"needs_view": False, "choose": lambda self, v, legal: 1 / 0})()
    t.room.bot_driver.bots[(1, t.room.seats[1].level)] = bot
    t.tick(BOT_DELAY)
    assert [(a["type"], src) for _, a, src in t.log] == [("DeclareWait", "timer")]


# --- durability ---------------------------------------------------------------------------------
def test_room_is_rebuilt_from_its_log() -> None:
    """A restarted server (a new lobby on the same store) rebuilds a room by replaying its log:
    same state, same deadlines, the human seats under their grace period, the old tokens valid."""
    t = Table(("saber", "lancer", "archer"), humans=3, declare_s=200)
    t.start()
    t.act(2, {"type": "DeclareWait", "seat": 2})
    t.tick(20)
    t.act(0, {"type": "DeclareRest", "seat": 0})
    before = to_text(t.state)
    due = {s: d.due for s, d in t.room.timers.deadlines.items()}
    assert due == {1: 200.0}
    t.room.stop()

    clock, lobby = restarted(t.store, t.clock.seconds())
    room = lobby.rooms[1]
    assert to_text(room.state) == before
    assert {s: d.due for s, d in room.timers.deadlines.items()} == due
    assert [s.kind for s in room.seats] == ["human"] * 3
    member = FakeMember("back")
    assert room.resume(member, t.tokens[1]) == 1
    assert member.last("state")["deadlines"] == {"1": 180}
    tick(clock, 180)
    assert room.state.version > t.state.version  # the timer went on after the restart


def test_restored_seats_are_taken_over_after_the_grace_period() -> None:
    """After a restart nobody is connected: each human seat is played by a bot once GRACE has
    passed, so the game goes on."""
    t = Table(("saber", "lancer"), humans=2, declare_s=600).start()
    t.room.stop()
    clock, lobby = restarted(t.store)
    room = lobby.rooms[1]
    tick(clock, GRACE + BOT_DELAY)
    assert room.state.version >= 2
    assert all(s.takeover for s in room.seats)


def test_stop_cancels_every_call() -> None:
    """Stopping a room (server shutdown) leaves nothing scheduled on the clock."""
    t = Table(("saber", "lancer", "archer"), humans=2).start()
    t.room.disconnect(t.members[0])
    t.room.stop()
    assert t.clock.getDelayedCalls() == []


def test_all_classes_can_be_seated() -> None:
    """A full room seats all seven classes, one each."""
    t = Table(tuple(CLASSES), humans=1).start()
    assert sorted(c.cls for c in t.state.camps) == sorted(CLASSES)


def test_the_replay_comes_when_the_game_is_over_and_rebuilds_it() -> None:
    """No replay while the game runs (it would show hidden choices); once it is over every
    member gets one, and new_game + play of its actions rebuild the final state exactly."""
    t = Table(("saber", "lancer"), humans=1).start()
    member = t.members[0]
    for _ in range(200):
        if t.room.state.over:
            break
        if 0 in t.room.state.prompt.seats:
            t.act(0, default_action(t.room.state, 0).to_dict())
        t.tick(5)
    assert t.room.state.over
    replays = [m["replay"] for m in member.got if m["t"] == "replay"]
    assert replays, "a finished game sends its replay"
    replay = replays[-1]
    assert to_text(from_replay(replay)) == to_text(t.room.state)


def test_a_room_whose_log_no_longer_replays_is_quarantined_not_fatal() -> None:
    """A restart restores every room it can: a room whose log the engine refuses (e.g. after a
    rule change) is quarantined (kept open in the store, refused to its players with
    `room_quarantined`), and the other rooms come back."""
    store = Store()
    clock = Clock()
    good = Table(("saber", "lancer"), humans=2, store=store).start()
    good.wait(0)
    bad = Room.create(99, "broken", {"seats": 2}, clock, store, None)
    bad.add_bot("saber", "normal")
    bad.add_bot("lancer", "normal")
    bad.start()
    store.append_action(99, 1, {"type": "Attack", "seat": 0, "target": 1, "card": "B"}, "seat")
    lobby = Lobby(Clock(), store)
    lobby.restore()
    assert good.room.id in lobby.rooms and 99 not in lobby.rooms
    assert to_text(lobby.rooms[good.room.id].state) == to_text(good.state)
    assert lobby.quarantined[99].startswith("MalformedActionError")  # the reason, for the log
    assert 99 in store.open_room_ids()  # not closed: a repair can bring it back
    with pytest.raises(ProtocolError) as refused:
        lobby.room(99)
    assert refused.value.code == "room_quarantined"
    lobby.stop()


def test_a_timeout_tells_only_its_own_player_what_was_played() -> None:
    """When a seat's time runs out, the server's default action is announced to that seat's
    player (timed_out, after the state it led to), and to nobody else."""
    t = Table(declare_s=30).start()
    t.wait(0)
    t.tick(30)
    told = t.members[1].of("timed_out")
    assert told == [{"t": "timed_out", "seat": 1, "action": {"type": "DeclareWait", "seat": 1}}]
    assert t.members[0].of("timed_out") == []
    kinds_after = [m["t"] for m in t.members[1].got]
    assert kinds_after.index("timed_out") > kinds_after.index("state")


def bot_battle(**options: Any) -> list[tuple[float, str, tuple[int, ...] | None]]:
    """Seed 1 with one human (Saber, who lets its declarations time out) and two bots, until
    the bots have fought a while: each action's time, source and the battle's fighters in the
    state it was chosen on (None outside a battle)."""
    t = Table(classes=("saber", "lancer", "archer"), humans=1, seed=1, declare_s=30, **options)
    seen: list[tuple[float, str, tuple[int, ...] | None]] = []
    append = t.store.append_action

    def recorded(room_id: int, seq: int, action: dict[str, Any], source: str) -> Any:
        b = t.room.state.battle
        seen.append((t.clock.seconds(), source, None if b is None else tuple(b.seats)))
        return append(room_id, seq, action, source)

    t.store.append_action = recorded  # type: ignore[method-assign]
    t.start()
    while sum(1 for *_, fighters in seen if fighters) < 6 and t.clock.seconds() < 600:
        t.tick(1)
    return seen


def bot_gaps(seen: list[tuple[float, str, tuple[int, ...] | None]],
             in_bot_battle: bool) -> set[float]:
    """The pause before each bot action (since the action before it, or the start) chosen in
    a battle no human fights in, or else outside any battle."""
    times = [0.0, *(when for when, _source, _fighters in seen)]
    return {round(when - times[i], 3) for i, (when, source, fighters) in enumerate(seen)
            if source == "bot" and (bool(fighters and 0 not in fighters) if in_bot_battle
                                    else fighters is None)}


def test_bots_fighting_among_themselves_wait_bot_pace_ms_so_a_watcher_can_follow() -> None:
    """In a battle of bots only, each bot waits the room's bot_pace_ms (default 1.5 s) before
    it acts (two prompted at once act together); 0 lets them go at once."""
    assert bot_gaps(bot_battle(), True) == {1.5, 0.0}
    assert bot_gaps(bot_battle(bot_pace_ms=2500), True) == {2.5, 0.0}
    assert bot_gaps(bot_battle(bot_pace_ms=0), True) == {0.0}


def test_bots_outside_a_bot_battle_keep_the_short_delay() -> None:
    """Out of battle a bot still answers BOT_DELAY after its prompt, whatever the pace."""
    assert bot_gaps(bot_battle(bot_pace_ms=3000), False) == {BOT_DELAY}


def test_a_bot_fighting_a_human_keeps_the_short_delay() -> None:
    """A battle a human fights in is not paced: its bot answers BOT_DELAY after its prompt."""
    t = Table(classes=("saber", "lancer"), humans=1, bot_pace_ms=3000).start()
    t.tick(BOT_DELAY)  # Lancer's bot declares
    t.state.edit(1).pos = t.state.camps[0].pos
    t.state._legal.clear()
    t.act(0, {"type": "DeclareEncounter", "seat": 0, "target": 1, "intent": "battle"})
    assert t.state.battle is not None and 1 in t.state.prompt.seats
    before = len(t.log)
    t.tick(BOT_DELAY)
    assert [src for _, _a, src in t.log[before:]] == ["bot"]


# --- the acknowledgement first ------------------------------------------------------------------
def test_with_deferred_views_the_ack_leaves_before_any_view() -> None:
    """The real server (`broadcasts`): an action is acknowledged at once, and the views go out
    at the next reactor turn; changes made meanwhile go out together, their events in order,
    with one view of the latest state."""
    t = Table(("saber", "lancer"), humans=2).start()
    t.room.broadcasts = Broadcasts(t.clock)
    for m in t.members:
        m.clear()
    version = t.wait(0)
    assert version == t.state.version
    assert not t.members[1].of("state") and not t.members[0].of("events")
    t.wait(1)  # a second change before the views left
    t.clock.advance(0)  # (a Clock runs both turns' calls at once; the reactor, one a turn)
    for m in t.members:
        states = m.of("state")
        assert [s["state_id"] for s in states] == [t.state.version]
        declared = [e["seat"] for msg in m.of("events") for e in msg["events"]
                    if e["type"] == "Declared"]
        assert declared == [0, 1]


def test_the_ack_leaves_first_and_views_wait_for_the_reactor() -> None:
    """An acknowledgement does not wait behind the views (they go at a later reactor turn,
    with every change made meanwhile): it is written when the action is durable, and on a
    plain socket at once (tests/server/test_writes.py)."""
    server = Server(defer_views=True)
    human = server.wire(name="Rin")
    one(human.ask("create_room", name="r", seats=2, cls="saber", declare_s=30), "joined")
    human.ask("add_bot", cls="lancer", level="normal")
    human.ask("start")
    server.advance(0)
    human.take()
    state = next(m for m in reversed(human.log) if m["t"] == "state")
    human.transport.clear()
    wait = {"type": "DeclareWait", "seat": state["view"]["you"]}
    human.send("act", action=wait, state_id=state["state_id"], ref=5)
    assert [m["t"] for m in decoded(human.transport.value())] == ["ack"]
    server.advance(0)
    assert "state" in kinds(decoded(human.transport.value()))


class NagleTransport(StringTransport):
    """A TCP transport that records whether Nagle's algorithm was turned off."""

    no_delay = False

    def setTcpNoDelay(self, enabled: bool) -> None:
        self.no_delay = enabled


def test_both_ends_turn_nagle_off() -> None:
    """With Nagle on, a view written after the ack waits for the client's delayed ACK (40 ms
    on Linux), and a player's second action for the server's."""
    server = Server()
    served = NagleTransport(peerAddress=IPv4Address("TCP", "10.0.0.9", 5000))
    server.factory.buildProtocol(served.getPeer()).makeConnection(served)
    client = NagleTransport()
    ServerConnection("Rin", lambda msg: None).makeConnection(client)
    assert served.no_delay and client.no_delay


def decoded(data: bytes) -> list[dict[str, Any]]:
    return [decode(body) for body in FrameBuffer().feed(data)]


def test_a_member_joining_while_views_wait_gets_each_event_once() -> None:
    """Its history holds the waiting events: they are sent to the others first, not again."""
    t = Table(("saber", "lancer"), humans=2).start()
    t.room.broadcasts = Broadcasts(t.clock)
    t.wait(0)
    watcher = FakeMember("w")
    t.room.join_spectator(watcher)
    t.clock.advance(0)
    history = [e for msg in watcher.of("history") for e in msg["events"]]
    live = [e for msg in watcher.of("events") for e in msg["events"]]
    assert any(e["type"] == "Declared" for e in history)
    assert not any(e["type"] == "Declared" for e in live)
    assert [s["state_id"] for s in watcher.of("state")][-1] == t.state.version
    assert not t.room.broadcasts.waiting(t.room)  # sent: the next turn sends them no more


def test_a_stopped_room_leaves_no_views_waiting() -> None:
    t = Table(("saber", "lancer"), humans=2).start()
    t.room.broadcasts = Broadcasts(t.clock)
    t.wait(0)
    assert t.room.broadcasts.waiting(t.room)
    t.room.stop()
    assert not t.room.broadcasts.waiting(t.room) and not t.clock.getDelayedCalls()
