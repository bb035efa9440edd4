"""Issue 38 item 7: during a failover the first reconnect got a `redirect` to the dead owner
(connection refused) before `room_moving`. The directory sends nobody to a process whose
presence ran out (its lease lapses about then), even before the next beat reads it again."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from grailwar.server.cluster import Presence
from grailwar.server.lobby import Elsewhere, Lobby
from grailwar.server.store import Store
from grailwar.shared.protocol import ProtocolError
from services import need
from twisted.internet.task import Clock

need("redis")
SUMMARY = {"id": 7, "name": "r"}


@pytest.fixture
def directory() -> Iterator[tuple[Clock, Presence, Lobby]]:
    clock = Clock()
    presence = Presence(clock, "redis://127.0.0.1:1", "10.0.0.1:7707", ttl=10.0)
    presence.subscriber = object()  # (no listening thread: the test feeds the beats)
    lobby = Lobby(clock, Store(":memory:"))
    lobby.presence = presence
    try:
        yield clock, presence, lobby
    finally:
        presence.pool.stop()


def test_a_room_of_a_process_whose_presence_ran_out_is_moving_not_elsewhere(directory) -> None:
    clock, presence, lobby = directory
    # a beat: the owner of room 7 had 4 s of presence left (it stopped stamping 6 s ago)
    presence._read(({"10.0.0.2:7707": 1}, {"10.0.0.2:7707": 4.0},
                    {7: ("10.0.0.2:7707", SUMMARY)}))
    with pytest.raises(Elsewhere):
        lobby.room(7)
    assert presence.listed() == [SUMMARY]
    clock.advance(4.01)  # no beat since: its presence, and its lease, are gone
    with pytest.raises(ProtocolError) as err:
        lobby.room(7)
    assert err.value.code == "room_moving"
    assert presence.listed() == []
    assert presence.least_loaded(10) == "10.0.0.1:7707"  # no new room goes there either
