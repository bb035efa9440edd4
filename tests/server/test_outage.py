"""Issue 38 item 12: while PostgreSQL was unreachable, a cluster server logged a critical
traceback at every round (looking for rooms to adopt, every second, and every lease renewal).
An outage is now two warning lines: the database gone, and back with the outage's length."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from grailwar.server.app import GrailService
from server_kit import Server, Wire, error_of
from test_server_seats import table
from twisted.internet import defer
from twisted.internet.task import Clock
from twisted.logger import LogLevel, globalLogPublisher


@pytest.fixture
def logged() -> Iterator[list[dict[str, Any]]]:
    events: list[dict[str, Any]] = []
    globalLogPublisher.addObserver(events.append)
    yield events
    globalLogPublisher.removeObserver(events.append)


class AwayStore:
    """A store whose database is away until `back` is set."""

    def __init__(self) -> None:
        self.back = False

    def ownerless_rooms(self) -> list[int]:
        if not self.back:
            raise OSError("connection refused")
        return []

    def renew(self) -> defer.Deferred:
        if not self.back:
            return defer.fail(OSError("connection refused"))
        return defer.succeed(set())


def said(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    from twisted.logger import formatEvent

    return [(e["log_level"].name, formatEvent(e)) for e in events
            if e.get("log_namespace", "").startswith("grailwar.server")
            and e["log_level"] >= LogLevel.warn]


def test_an_outage_is_one_line_when_it_begins_and_one_when_it_ends(logged) -> None:
    clock = Clock()
    service = GrailService(clock, ":memory:", "127.0.0.1", 0)
    service.store = store = AwayStore()
    service.lobby = SimpleNamespace(may_adopt=True, rooms={}, quarantined={})
    for _ in range(12):  # rounds of a 12 s outage: adopting every second, renewing every 3
        service._adopt_ownerless()
        if clock.seconds() % 3 == 0:
            service._renew_leases()
        clock.advance(1)
    store.back = True
    service._renew_leases()
    service._adopt_ownerless()
    lines = said(logged)
    assert [level for level, _ in lines] == ["warn", "warn"], lines
    assert lines[0][1] == ("the database is unreachable (looking for rooms to adopt: connection "
                           "refused); the rooms wait, and the server keeps trying")
    assert lines[1][1] == "the database is back after 12.0 s"


# --- issue 38 items 10 and 11: seats kept through an outage, never two owners ----------------
class Directory:
    """A cluster directory that lists no other server's room (its owner gave it up)."""

    healthy = True

    def __init__(self) -> None:
        self.remote: dict[int, Any] = {}

    def listed(self) -> list[dict[str, Any]]:
        return []

    def publish(self, room: int, summary: dict[str, Any] | None) -> None:
        """(what this server's rooms tell the others: nobody listens here)"""


def cluster_table(store_open: Any) -> tuple[Server, Wire, str, int]:
    """A started room whose server then stops serving it (its lease moved away): the
    directory lists it nowhere, and `store_open` answers whether it is open."""
    server = Server()
    _owner, player, _watcher, token, room = table(server)
    server.lobby.presence = Directory()  # type: ignore[assignment]
    server.lobby.give_up(server.lobby.rooms[room], "its lease moved to another server")
    server.store.is_open = store_open  # type: ignore[method-assign]
    player.take()
    return server, player, token, room


def away(_room: int) -> bool:
    raise OSError("connection refused")


@pytest.mark.parametrize(("store_open", "code"), [
    (away, "room_moving"), (lambda _room: True, "room_moving"),
    (lambda _room: False, "room_not_found")])
def test_a_resume_while_no_server_serves_the_room_waits_unless_it_is_gone(store_open: Any,
                                                                        code: str) -> None:
    """Issue 38 item 10: during a PostgreSQL outage every resume was room_not_found until the
    old lease ran out, and the client dropped the seat. A room the database holds open, or
    while the database cannot say, is room_moving (the client keeps the seat and asks again);
    only a room the database says is closed or unknown is room_not_found."""
    server, _player, token, room = cluster_table(store_open)
    again = server.wire("10.0.0.2", name="Shirou")
    assert error_of(again.ask("resume", room=room, token=token))["code"] == code


def test_a_server_steps_down_before_its_unrenewed_leases_can_lapse() -> None:
    """Issue 38 item 11: after an outage longer than the lease, an idle room was served by two
    servers for 2-3 s. A server whose leases were last renewed two rounds ago gives its rooms
    up (before they may lapse at one lease time), and a member joining meanwhile is sent to
    wait, never served by the stale owner."""
    clock = Clock()
    service = GrailService(clock, ":memory:", "127.0.0.1", 0, lease_s=9.0)
    service.store = AwayStore()
    given_up: list[int] = []
    service.lobby = SimpleNamespace(
        rooms={5: SimpleNamespace(id=5)}, lease_fresh=service._lease_fresh,
        give_up=lambda room, why: given_up.append(room.id))
    service.renewed_at = clock.seconds()
    clock.advance(3.0)
    service._keep_leases()  # 3 s: fresh
    assert given_up == [] and service._lease_fresh()
    clock.advance(3.0)
    service._keep_leases()  # 6 s = two thirds of the lease: it may lapse before the next round
    assert given_up == [5]


def test_a_join_on_a_stale_lease_gives_the_room_up_and_waits() -> None:
    server = Server()
    _owner, player, _watcher, _token, room = table(server)
    server.lobby.presence = Directory()  # type: ignore[assignment]
    server.lobby.lease_fresh = lambda: False
    spectator = server.wire("10.0.0.9", name="Kirei")
    assert error_of(spectator.ask("join_room", room=room, spectator=True))["code"] == \
        "room_moving"
    assert room not in server.lobby.rooms
    assert any(m["t"] == "left" and m["reason"] == "room_moved" for m in player.take())
