"""Writing to a client's socket at once (`server/writes.py`), over Twisted's own TCP transport
on a real socket pair: the bytes keep their order, the reactor is asked to poll the socket
only when the kernel did not take everything, a broken socket is left for Twisted to find,
and a room's broadcast reaches each member in one write."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from grailwar.server.writes import open_socket, write_now
from grailwar.shared.protocol import FrameBuffer, decode
from server_kit import Server, one
from twisted.internet import tcp


class FDSet:
    """The part of a reactor a transport asks to poll its socket for writing."""

    def __init__(self) -> None:
        self.writers: set[Any] = set()

    def addWriter(self, descriptor: Any) -> None:
        self.writers.add(descriptor)

    def removeWriter(self, descriptor: Any) -> None:
        self.writers.discard(descriptor)


@pytest.fixture
def pair() -> Any:
    """A connected transport (Twisted's TCP connection class over one end of a socket pair)
    and the other end, with the reactor part it registers with."""
    ours, theirs = socket.socketpair()
    theirs.setblocking(False)
    reactor = FDSet()
    transport = tcp.Connection(ours, None, reactor)
    transport.connected = True
    yield transport, theirs, reactor
    ours.close()
    theirs.close()


def received(sock: socket.socket) -> bytes:
    out = b""
    while True:
        try:
            chunk = sock.recv(1 << 16)
        except BlockingIOError:
            return out
        if not chunk:
            return out
        out += chunk


def test_an_idle_socket_is_written_at_once_without_the_reactor(pair: Any) -> None:
    transport, theirs, reactor = pair
    assert write_now(transport, b"hello")
    assert received(theirs) == b"hello"
    assert not reactor.writers and not transport._tempDataBuffer


def test_bytes_already_waiting_go_first(pair: Any) -> None:
    """A socket with bytes in Twisted's buffer is not written past: the new bytes queue
    behind them, and the reactor's write sends both in order."""
    transport, theirs, reactor = pair
    transport.write(b"first ")
    assert open_socket(transport) is None
    assert not write_now(transport, b"second")
    assert received(theirs) == b""
    assert reactor.writers == {transport}
    transport.doWrite()
    assert received(theirs) == b"first second"
    assert not reactor.writers


def test_what_the_kernel_does_not_take_waits_in_order(pair: Any) -> None:
    """A full socket buffer: the rest is buffered by the transport and the reactor polls the
    socket; once the reader reads, every byte arrives, in order."""
    transport, theirs, reactor = pair
    data = bytes(range(256)) * 40_000  # ~10 MB, more than a socket pair buffers
    assert write_now(transport, data)
    assert reactor.writers == {transport}
    got = b""
    while transport in reactor.writers:
        got += received(theirs)
        transport.doWrite()
    got += received(theirs)
    assert got == data


def test_a_broken_socket_is_left_for_twisted_to_report(pair: Any) -> None:
    transport, theirs, reactor = pair
    theirs.close()
    assert write_now(transport, b"lost")  # no exception here
    assert reactor.writers == {transport}  # the reactor's write finds the broken connection
    assert transport.doWrite() is not None


def test_a_closing_or_wrapped_transport_is_written_through_twisted(pair: Any) -> None:
    """TLS's wrapper hands on the socket attribute of the transport it wraps: writing to that
    socket would skip the encryption, so only Twisted's own TCP connection is written to."""
    transport, theirs, _reactor = pair

    class Wrapper:
        def __init__(self) -> None:
            self.written: list[bytes] = []

        def __getattr__(self, name: str) -> Any:
            return getattr(transport, name)

        def write(self, data: bytes) -> None:
            self.written.append(data)

    wrapper = Wrapper()
    assert wrapper.socket is transport.socket
    assert not write_now(wrapper, b"secret")
    assert wrapper.written == [b"secret"] and received(theirs) == b""
    transport.disconnecting = True
    assert open_socket(transport) is None


class Writes:
    """A test transport's writes, each kept apart."""

    def __init__(self, transport: Any) -> None:
        self.calls: list[bytes] = []
        write = transport.write

        def counted(data: bytes) -> None:
            self.calls.append(data)
            write(data)

        transport.write = counted


def test_a_broadcast_reaches_each_member_in_one_write() -> None:
    """The events of an action and the view they produced leave together: one write (one
    system call on a socket) per member, not one per message."""
    server = Server(defer_views=True)
    rin = server.wire(name="Rin")
    room = one(rin.ask("create_room", name="r", seats=2, cls="saber", declare_s=30),
               "joined")["room"]
    shirou = server.wire(name="Shirou")
    one(shirou.ask("join_room", room=room, cls="lancer"), "joined")
    rin.ask("start")
    server.advance(0)
    state = next(m for m in reversed(rin.take()) if m["t"] == "state")
    shirou.take()
    writes = Writes(shirou.transport)
    rin.send("act", action={"type": "DeclareWait", "seat": state["view"]["you"]},
             state_id=state["state_id"], ref=1)
    server.advance(0)
    (write,) = writes.calls
    assert [decode(body)["t"] for body in FrameBuffer().feed(write)] == ["events", "state"]
