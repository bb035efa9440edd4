"""A person's clock (issue 32, item 1): every prompt a person must read and plan runs on the
timer its kind names, a room setting, and the server answers for a silent person only when
that timer has run out. The campaign's day 0 and relic draft once ran on the 20-second priority
clock (the first turn's priority phase), then froze at 0:00."""

from __future__ import annotations

from typing import Any

import pytest
from grailwar.shared.engine.data import CLASSES
from grailwar.shared.engine.modules import MODULES, room_timers
from grailwar.shared.engine.prompts import PROMPTS
from grailwar.shared.protocol import SECONDS
from server_kit import Server, Wire, one, restarted, tick
from test_server_game import Table

SILENT_S = 25  # a person reading day 0 for 25 seconds, beside six bots that answer at once


def campaign_room(server: Server, summoning: str) -> tuple[Wire, dict[str, Any]]:
    """A seven-seat campaign room made as the lobby makes one (every timer at its default, the
    priority phase on): the human in the Saber seat, six normal bots; started."""
    human = server.wire(name="Rin")
    one(human.ask("create_room", name="day0", seats=7, cls="saber", modules=["campaign"],
                  options={"campaign": {"summoning": summoning}}), "joined")
    for cls in CLASSES[1:]:
        human.ask("add_bot", cls=cls, level="normal")
    msgs = human.ask("start")
    return human, [m for m in msgs if m["t"] == "state"][-1]


def latest_state(wire: Wire) -> dict[str, Any]:
    wire.take()
    return next(m for m in reversed(wire.log) if m["t"] in ("state", "update"))


@pytest.mark.parametrize(("summoning", "kind", "timer"), [("choose", "setup", "setup_s"),
                                                          ("relic", "relic", "draft_s")])
def test_a_silent_person_at_day_0_keeps_its_own_clock(summoning: str, kind: str,
                                                      timer: str) -> None:
    """Silent 25 s at its first prompt beside six bots: nothing is answered in its name, its
    deadline read ≥ 120 s when the prompt opened (the room's setting for the kind), and it
    keeps counting down with the clock (neither reset by the bots' answers nor frozen)."""
    server = Server()
    human, first = campaign_room(server, summoning)
    room = server.lobby.rooms[next(iter(server.lobby.rooms))]
    assert first["view"]["prompt"]["kind"] == kind and first["view"]["day"] == 0
    assert room.options[timer] == SECONDS[timer][2] >= 120
    assert first["deadlines"]["0"] == SECONDS[timer][2]
    server.advance(SILENT_S)
    state = room.state
    assert state.prompt.kind == kind and 0 in state.prompt.seats, "answered in its name"
    actions = server.store.load_room(room.id).actions
    assert all(source != "timer" for _action, source in actions), "answered for someone"
    assert round(room.time_left()[0]) == SECONDS[timer][2] - SILENT_S
    shown = latest_state(human)  # the bots' answers reached it with its clock still running
    assert shown["view"]["prompt"]["kind"] == kind and shown["deadlines"]["0"] >= 120 - SILENT_S
    server.advance(10)
    assert round(room.time_left()[0]) == SECONDS[timer][2] - SILENT_S - 10


def test_the_day_0_clock_comes_after_the_draft_on_its_own_timer() -> None:
    """The draft timed out for a silent person at draft_s exactly (its default relic), and then
    day 0's preparations got setup_s in full, counting (the setup countdown once stood at a red
    0:00 for minutes after the draft)."""
    server = Server()
    campaign_room(server, "relic")
    room = server.lobby.rooms[next(iter(server.lobby.rooms))]
    server.advance(SECONDS["draft_s"][2] - 1)
    assert room.state.prompt.kind == "relic"
    server.advance(1)
    assert room.state.prompt.kind == "setup"
    assert round(room.time_left()[0]) == SECONDS["setup_s"][2]
    server.advance(60)
    assert round(room.time_left()[0]) == SECONDS["setup_s"][2] - 60


def test_the_day_0_clock_stands_through_a_pause_and_goes_on_after_a_restart() -> None:
    """Day 0's clock keeps its time through a pause (frozen, however long), and a restarted
    server arms it again with the time it had left, counting: never the priority phase's,
    never 0:00."""
    t = Table(("saber", "lancer"), humans=1, priority_s=20, modules=["campaign"]).start()
    t.tick(100)
    assert t.state.prompt.kind == "setup" and round(t.room.time_left()[0]) == 200
    t.room.pause("p0")
    t.tick(1000)
    assert t.room.time_left() == {0: pytest.approx(200)}
    t.room.resume_game("p0")
    t.tick(50)
    assert round(t.room.time_left()[0]) == 150
    t.room.stop()
    clock, lobby = restarted(t.store, t.clock.seconds())
    again = lobby.rooms[t.room.id]
    assert again.timers.deadlines[0].kind == "setup" and round(again.time_left()[0]) == 150
    tick(clock, 10)  # (its player not back yet: its seat is kept for it meanwhile)
    assert again.state.prompt.kind == "setup" and round(again.time_left()[0]) == 140


def test_every_prompt_kind_names_a_room_timer() -> None:
    """A kind's timer is a room setting (or a timeout would find no limit), and every module's
    own timer is one of a prompt kind's (none is offered in the lobby for nothing)."""
    for kind in PROMPTS.values():
        assert kind.timer in SECONDS, kind.name
    named = {kind.timer for kind in PROMPTS.values()}
    for key, (module, timer) in room_timers().items():
        assert module in MODULES and key in named, key
        assert timer.lo <= timer.default <= timer.hi and timer.default in timer.choices


class Clocks:
    """Every deadline a room arms for seat 0, as (prompt kind, timer kind, seconds it was
    given, due), and every default the server issued for it, as (time, action type)."""

    def __init__(self, table: Table) -> None:
        self.table, self.armed = table, []
        self.last: Any = None  # (held: an id of a freed deadline may be a new one's)
        room = table.room
        arm = room.timers.arm

        def recorded(*args: Any, **kwargs: Any) -> None:
            arm(*args, **kwargs)
            deadline = room.timers.deadlines.get(0)
            if deadline is not None and deadline is not self.last:
                self.last = deadline
                now = table.clock.seconds()
                self.armed.append((room.state.prompt.kind, deadline.kind,
                                   round(deadline.due - now), deadline.due))

        room.timers.arm = recorded  # type: ignore[method-assign]

    def answered(self) -> list[tuple[float, str]]:
        return [(at, action["type"]) for at, action, source in self.table.log
                if source == "timer" and action.get("seat") == 0]


@pytest.mark.parametrize(("modules", "options"), [
    (["campaign"], {"campaign": {"summoning": "relic"}}),
    (["campaign", "tactics"], {}),
    (["colossus"], {}),
])
def test_a_silent_person_gets_each_prompts_own_time_in_whole_games(
        modules: list[str], options: dict[str, Any]) -> None:
    """A person who never answers, beside six bots, over two days of a room with the
    priority phase on: every prompt it meets (day 0, the draft, declarations, battles, the
    modules' own) arms the timer its kind names in full (a declaration window: less only what
    its priority phase took), and every answer in its name comes at that deadline, not
    before."""
    table = Table(tuple(CLASSES), humans=1, priority_s=20, modules=modules, options=options)
    clocks = Clocks(table)
    table.start()
    for _ in range(600):  # (bounded: a clock that froze would stop the game for good)
        if table.state.day > 2 or table.state.over:
            break
        table.tick(30)
    assert table.state.day > 2 or table.state.over, "the game stopped: a clock froze"
    room = table.room
    kinds = {prompt for prompt, *_ in clocks.armed}
    assert "declare" in kinds and ("setup" in kinds) == ("campaign" in modules)
    for prompt, timer, given, _due in clocks.armed:
        if timer == "priority":
            assert prompt == "declare" and given == room.options["priority_s"]
        elif prompt == "declare":  # after its phase, what the window has left
            full = room.options["declare_s"]
            assert full - room.options["priority_s"] <= given <= full
        else:
            assert given == room.options[PROMPTS[prompt].timer], (prompt, given)
    dues = [due for *_rest, due in clocks.armed]
    answered = clocks.answered()
    assert answered, "the silent seat was never answered for"
    for at, action in answered:  # (a clock's float sum may differ in its last bits)
        assert any(abs(at - due) < 1e-6 for due in dues), f"{action} issued at {at}: too soon"
