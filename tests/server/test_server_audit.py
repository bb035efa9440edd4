"""The operator's log: every connection, hello, join, leave, drop, resume, kick and room
open/close is one structured event in the `grailwar.audit` namespace, with a stable format and
its fields as keys (what `grailwar serve --log-format json` writes, one object per line)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from grailwar.server.audit import NAMESPACE
from server_kit import Server, one
from test_server_seats import table
from twisted.logger import eventAsJSON, formatEvent, globalLogPublisher

FIELDS = ("event", "room", "seat", "addr", "name", "why", "by")


@pytest.fixture
def events() -> Iterator[list[dict[str, Any]]]:
    """Every audit event logged during the test."""
    got: list[dict[str, Any]] = []

    def observe(event: dict[str, Any]) -> None:
        if event.get("log_namespace") == NAMESPACE:
            got.append(event)

    globalLogPublisher.addObserver(observe)
    yield got
    globalLogPublisher.removeObserver(observe)


def brief(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: e[k] for k in FIELDS if k in e} for e in events]


def test_a_connect_hello_create_join_leave_sequence_is_logged_event_by_event(
        events: list[dict[str, Any]]) -> None:
    """Each step is one event, with who (address, name), which room and which seat."""
    server = Server()
    rin = server.wire("10.0.0.1", name="Rin")
    room = one(rin.ask("create_room", name="Fuyuki", seats=3), "joined")["room"]
    shirou = server.wire("10.0.0.2", name="Shirou")
    shirou.ask("join_room", room=room)
    shirou.ask("leave_room")
    rin.lose()
    assert brief(events) == [
        {"event": "connect", "addr": "10.0.0.1"},
        {"event": "hello", "addr": "10.0.0.1", "name": "Rin"},
        {"event": "room_open", "room": room, "name": "Fuyuki", "addr": "10.0.0.1"},
        {"event": "join", "room": room, "seat": 0, "addr": "10.0.0.1", "name": "Rin"},
        {"event": "connect", "addr": "10.0.0.2"},
        {"event": "hello", "addr": "10.0.0.2", "name": "Shirou"},
        {"event": "join", "room": room, "seat": 1, "addr": "10.0.0.2", "name": "Shirou"},
        {"event": "leave", "room": room, "seat": 1, "addr": "10.0.0.2", "name": "Shirou"},
        {"event": "drop", "room": room, "seat": 0, "addr": "10.0.0.1", "name": "Rin"},
        {"event": "room_close", "room": room, "why": "abandoned"},
        {"event": "disconnect", "addr": "10.0.0.1", "name": "Rin"},
    ]


def test_a_drop_a_resume_a_kick_and_a_spectator_are_logged(
        events: list[dict[str, Any]]) -> None:
    """After the start: the player's drop and resume keep its seat; the spectator's seat is -1;
    a kick says who kicked."""
    server = Server()
    owner, player, _watcher, token, room = table(server)
    player.lose()
    back = server.wire("10.0.0.4", name="Shirou")
    back.ask("resume", room=room, token=token)
    owner.ask("kick", seat=1)
    seen = brief(events)
    assert {"event": "join", "room": room, "seat": -1, "addr": "10.0.0.3",
            "name": "Taiga"} in seen
    assert seen[-6:] == [
        {"event": "drop", "room": room, "seat": 1, "addr": "10.0.0.2", "name": "Shirou"},
        {"event": "disconnect", "addr": "10.0.0.2", "name": "Shirou"},
        {"event": "connect", "addr": "10.0.0.4"},
        {"event": "hello", "addr": "10.0.0.4", "name": "Shirou"},
        {"event": "resume", "room": room, "seat": 1, "addr": "10.0.0.4", "name": "Shirou"},
        {"event": "kick", "room": room, "seat": 1, "name": "Shirou", "by": "owner"},
    ]


def test_an_event_has_a_stable_format_a_readable_line_and_one_json_object(
        events: list[dict[str, Any]]) -> None:
    """Two joins share one `log_format`; the text line names every field; the JSON form
    carries the fields as keys."""
    server = Server()
    rin = server.wire("10.0.0.1", name="Rin")
    room = one(rin.ask("create_room", name="Fuyuki", seats=3), "joined")["room"]
    server.wire("10.0.0.2", name="Shirou").ask("join_room", room=room)
    joins = [e for e in events if e["event"] == "join"]
    assert joins[0]["log_format"] == joins[1]["log_format"]
    assert formatEvent(joins[1]) == f"join room={room} seat=1 addr=10.0.0.2 name=Shirou"
    line = json.loads(eventAsJSON(joins[1]))
    assert (line["event"], line["room"], line["seat"], line["addr"], line["name"]) == (
        "join", room, 1, "10.0.0.2", "Shirou")
    assert line["log_namespace"] == NAMESPACE
