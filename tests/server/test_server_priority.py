"""The priority phase over the protocol (docs/rules.md §3.3): a human who takes 5 seconds to
decide still has Encounter, Ambush and Soul-eating against six bots that declare in 0.2 s,
every turn of a whole game; without the phase (`priority_s` 0) the bots' first ordinary
declaration closes them. The phase's clock: PassPriority by timer, then the declaration's own."""

from __future__ import annotations

from typing import Any

from grailwar.client.net import KEEPALIVE
from grailwar.shared.bots import make_bot
from grailwar.shared.engine import from_dict
from grailwar.shared.engine.actions import DeclareEncounter, DeclareRest
from grailwar.shared.engine.data import CLASSES
from server_kit import Server, Wire, one

PRIORITY = {"DeclareEncounter", "DeclareAmbush", "DeclareSoulEating"}
THINK_S = 5.0  # how long the human takes to decide, each turn


def table(server: Server, seed: int = 1, **options: Any) -> Wire:
    """A seven-seat room of game `seed`: the human in the Saber seat, normal bots in the six
    others."""
    human = server.wire(name="Rin")
    room = one(human.ask("create_room", name="fair", seats=7, cls="saber", **options),
               "joined")["room"]
    server.lobby.rooms[room].seed = seed
    for cls in CLASSES[1:]:
        human.ask("add_bot", cls=cls, level="normal")
    human.ask("start")
    return human


def latest_state(wire: Wire) -> dict[str, Any]:
    """The last state the connection received (`ask` and `take` keep all in `wire.log`)."""
    wire.take()
    return next(m for m in reversed(wire.log) if m["t"] == "state")


def events_since(wire: Wire, start: int) -> list[dict[str, Any]]:
    wire.take()
    return [e for m in wire.log[start:] if m["t"] == "events" for e in m["events"]]


def play_declaring_late(server: Server, human: Wire, turns: int = 40) -> list[tuple[str, bool]]:
    """Each turn the human takes THINK_S, then declares a priority action if it has one (an
    Encounter when one is offered), or Rest on a night it has not rested (so that its Master
    never sleeps); in its battles it plays as the normal bot would, at once. Returns, per turn
    in which it had priority declarations when the turn opened, (day/turn, whether it still had
    one when it had decided: the map may change meanwhile, bots move and bind their targets,
    but nothing they declare may close them)."""
    mind = make_bot("normal", 1)
    seen: list[tuple[str, bool]] = []
    turn, opened, offered = "", 0.0, []
    pinged = server.clock.seconds()
    for _ in range(100_000):
        state = latest_state(human)
        view = state["view"]
        if view["over"] or len(seen) >= turns:
            break
        legal = [from_dict(a) for a in state["legal"]]
        wait = server.next_call()
        if legal and view["prompt"]["kind"] == "declare":
            now = [a for a in legal if type(a).__name__ in PRIORITY]
            if turn != f"{view['day']}/{view['turn']}":
                turn, opened, offered = f"{view['day']}/{view['turn']}", server.clock.seconds(), now
            decide_at = opened + THINK_S
            if server.clock.seconds() < decide_at:
                wait = min(wait if wait is not None else THINK_S,
                           decide_at - server.clock.seconds())
            else:
                if offered and (not seen or seen[-1][0] != turn):  # (asked again after a Move)
                    seen.append((turn, bool(now)))
                encounters = [a for a in now if isinstance(a, DeclareEncounter)]
                choice = (encounters or now or [mind.choose(view, legal)])[0]
                if view["turn"] == "night" and not view["rested"][0]:
                    choice = DeclareRest(0)  # or its Master sleeps tomorrow (Wait/Rest only)
                act(human, choice, state)
                continue
        elif legal:
            act(human, mind.choose(view, legal), state)
            continue
        assert wait is not None, "nothing scheduled"
        if server.clock.seconds() - pinged >= KEEPALIVE:  # as a waiting client does
            human.send("ping")
            pinged = server.clock.seconds()
        server.advance(wait)
    return seen


def act(human: Wire, action: Any, state: dict[str, Any]) -> None:
    reply = human.ask("act", action=action.to_dict(), state_id=state["state_id"], ref=1)
    assert not [m for m in reply if m["t"] == "error"], reply


GAMES = (1, 2, 3, 4, 5)  # room seeds; the human plays until it falls or the game ends


def test_a_human_declaring_after_five_seconds_keeps_every_priority_declaration():
    """Every turn of each game the human was asked to declare, 5 s in it could still make a
    priority declaration (and made it: `act` checks it was accepted)."""
    seen = []
    for seed in GAMES:
        server = Server()
        seen += play_declaring_late(server, table(server, seed))  # the default phase: 20 s
    assert len(seen) >= 10, f"the human declared in too few turns to show anything: {seen}"
    assert all(legal for _turn, legal in seen), seen


def test_without_the_phase_the_bots_close_the_priority_declarations_first():
    """The race the phase removes: 5 s in, the bots' Rests and Waits have closed them in
    nearly every turn."""
    seen = []
    for seed in GAMES[:2]:
        server = Server()
        seen += play_declaring_late(server, table(server, seed, priority_s=0))
    assert len(seen) >= 10
    assert sum(legal for _turn, legal in seen) <= len(seen) // 5, seen


def test_the_phase_timer_passes_then_the_declaration_timer_waits():
    """Two silent players: PassPriority for both when the phase's time is up, Wait at the
    window's end; the deadlines they are shown are the phase's, then the window's, counted
    from its opening."""
    server = Server()
    rin = server.wire(name="Rin")
    room = one(rin.ask("create_room", name="quiet", seats=2, priority_s=15, declare_s=60),
               "joined")["room"]
    sakura = server.wire(name="Sakura")
    sakura.ask("join_room", room=room)
    rin.ask("start")
    state = latest_state(rin)
    assert state["deadlines"] == {"0": 15, "1": 15}
    assert state["view"]["priority"] == {"open": True, "passed": []}
    start = len(rin.log)
    server.advance(15)
    events = events_since(rin, start)
    assert [e["seat"] for e in events if e["type"] == "PriorityPassed"] == [0, 1]
    assert "PriorityPhaseEnded" in [e["type"] for e in events]
    state = latest_state(rin)
    assert not state["view"]["priority"]["open"]
    assert state["deadlines"] == {"0": 60 - 15, "1": 60 - 15}
    start = len(rin.log)
    server.advance(60 - 15)
    declared = [(e["seat"], e["kind"]) for e in events_since(rin, start)
                if e["type"] == "Declared"]
    assert declared == [(0, "wait"), (1, "wait")]
