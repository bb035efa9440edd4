"""The client in a cluster (docs/protocol.md, `redirect`): it follows a redirect to the room's
server and asks again there, resumes a room that moved, asks again while a room is being
adopted, comes back through the address the player gave, and asks there again for a room the
server a redirect led to gave up, all without a word to the player. The connections are
fakes: what is checked is what the session sends, and where."""

from __future__ import annotations

from typing import Any

from grailwar.client.model import ClientModel
from grailwar.client.session import RETRY_DELAYS, Session
from twisted.internet.task import Clock


class FakeTransport:
    def __init__(self) -> None:
        self.closed = False

    def loseConnection(self) -> None:
        self.closed = True


class FakeConnection:
    """What a ServerConnection is to the session: `send`, a transport, `on_lost`."""

    def __init__(self, session: Session) -> None:
        self.transport = FakeTransport()
        self.on_lost = session._lost
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def send(self, name: str, /, **fields: Any) -> None:
        self.sent.append((name, fields))


class Harness:
    """A session whose `connect` opens a fake connection at once (and records where)."""

    def __init__(self) -> None:
        self.clock = Clock()
        self.session = Session(self.clock, ClientModel("en"), "Rin")
        self.dialled: list[tuple[str, int]] = []
        self.session.connect = self._connect  # type: ignore[method-assign]
        self.session.connect("lb.example", 7707)

    def _connect(self, host: str, port: int) -> None:
        s = self.session
        if not s.following and not s.reconnecting:
            s.entry = (host, port)
        s.host, s.port = host, port
        self.dialled.append((host, port))
        s.proto = FakeConnection(s)  # type: ignore[assignment]

    def server(self, t: str, **fields: Any) -> None:
        self.session._message({"t": t, **fields})

    @property
    def proto(self) -> FakeConnection:
        return self.session.proto  # type: ignore[return-value]


def test_a_redirect_is_followed_and_the_request_sent_again_there() -> None:
    h = Harness()
    h.server("welcome", version=2, server="grailwar")
    h.session.send("join_room", room=12)
    first = h.proto
    h.server("redirect", host="10.0.0.2", port=7708, room=12)
    assert first.transport.closed and first.on_lost is None  # leaving it is no loss
    assert h.dialled[-1] == ("10.0.0.2", 7708)
    assert h.proto.sent == []  # nothing before the new server greets
    h.server("welcome", version=2, server="grailwar")
    assert h.proto.sent == [("join_room", {"room": 12})]
    assert h.session.entry == ("lb.example", 7707)
    assert h.session.model.connection == "connected" and not h.session.model.notices


def test_a_moved_room_is_resumed_and_asked_again_while_it_is_adopted() -> None:
    h = Harness()
    h.server("welcome", version=2, server="grailwar")
    h.session.send("join_room", room=3)
    h.server("joined", room=3, seat=1, token="tok", spectator=False)
    h.server("left", reason="room_moved")
    assert h.session.model.room_id == 3  # the seat stands: the player still sits there
    h.clock.advance(RETRY_DELAYS[0])
    assert h.proto.sent[-1] == ("resume", {"room": 3, "token": "tok"})
    h.server("error", code="room_moving", message="adopting", ref=0)
    assert h.session.model.room_id == 3
    h.clock.advance(RETRY_DELAYS[-2])
    assert h.proto.sent[-1] == ("resume", {"room": 3, "token": "tok"})
    h.server("redirect", host="10.0.0.3", port=7709, room=3)
    h.server("welcome", version=2, server="grailwar")
    assert h.proto.sent == [("resume", {"room": 3, "token": "tok"})]


def test_a_lost_server_is_replaced_through_the_entry_address() -> None:
    """Seated on the server a redirect led to, the connection is lost (that server died):
    the session reconnects to the address the player gave, and resumes the seat there."""
    h = Harness()
    h.server("welcome", version=2, server="grailwar")
    h.session.send("join_room", room=5)
    h.server("redirect", host="10.0.0.2", port=7708, room=5)
    h.server("welcome", version=2, server="grailwar")
    h.server("joined", room=5, seat=0, token="tok", spectator=False)
    h.proto.on_lost(None)
    h.clock.advance(RETRY_DELAYS[0])
    assert h.dialled[-1] == ("lb.example", 7707)
    h.server("welcome", version=2, server="grailwar")
    assert h.proto.sent == [("resume", {"room": 5, "token": "tok"})]


def test_a_room_the_redirected_server_gave_up_is_asked_for_again_at_the_entry() -> None:
    """The directory still listed the room on a server that had just given it up (it was cut
    off from the directory): that server answers `room_not_found`, and the seat is asked for
    again at the entry, which has adopted it meanwhile; a few tries, then the seat is gone."""
    h = Harness()
    h.server("welcome", version=2, server="grailwar")
    h.session.model.room_id, h.session.model.token = 4, "tok"
    h.session.resume(4, "tok")
    h.server("redirect", host="10.0.0.2", port=7708, room=4)
    h.server("welcome", version=2, server="grailwar")
    h.server("error", code="room_not_found", message="no room 4")
    assert h.session.model.room_id == 4  # not given up
    h.clock.advance(RETRY_DELAYS[0])
    assert h.dialled[-1] == ("lb.example", 7707)
    h.server("welcome", version=2, server="grailwar")
    assert h.proto.sent == [("resume", {"room": 4, "token": "tok"})]
    h.server("joined", room=4, seat=1, token="tok", spectator=False)
    assert h.session.model.room_id == 4 and h.session.entry_tries == 0
    # at the entry itself, `room_not_found` is the truth: the seat is gone
    h.session.resume(4, "tok")
    h.server("error", code="room_not_found", message="no room 4")
    assert h.session.model.room_id is None


def test_a_room_gone_everywhere_is_given_up_after_a_few_tries_at_the_entry() -> None:
    h = Harness()
    h.server("welcome", version=2, server="grailwar")
    h.session.model.room_id, h.session.model.token = 4, "tok"
    h.session.resume(4, "tok")
    for delay in RETRY_DELAYS:
        h.server("redirect", host="10.0.0.2", port=7708, room=4)
        h.server("welcome", version=2, server="grailwar")
        h.server("error", code="room_not_found", message="no room 4")
        assert h.session.model.room_id == 4
        h.clock.advance(delay)
        h.server("welcome", version=2, server="grailwar")
    h.server("redirect", host="10.0.0.2", port=7708, room=4)
    h.server("welcome", version=2, server="grailwar")
    h.server("error", code="room_not_found", message="no room 4")
    assert h.session.model.room_id is None
