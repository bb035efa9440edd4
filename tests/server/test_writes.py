"""Writing to a client's socket at once (`server/writes.py`), over Twisted's own TCP transport
on a real socket pair, through Twisted's public API: the bytes keep their order, the reactor is
asked to poll the socket only when the kernel did not take everything (and then every later
write goes behind those bytes), a broken socket is left for Twisted to find, a TLS transport is
written through Twisted; and a room's broadcast reaches each member in one write."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest
from grailwar.server.writes import plain_socket, write
from grailwar.shared.protocol import FrameBuffer, decode
from server_kit import Server, one
from twisted.internet import tcp
from twisted.internet.interfaces import ISSLTransport
from zope.interface import implementer


class FDSet:
    """The part of a reactor a transport asks to poll its socket for writing."""

    def __init__(self) -> None:
        self.writers: set[Any] = set()

    def addWriter(self, descriptor: Any) -> None:
        self.writers.add(descriptor)

    def removeWriter(self, descriptor: Any) -> None:
        self.writers.discard(descriptor)


@pytest.fixture
def pair() -> Iterator[tuple[Any, socket.socket, FDSet]]:
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
    sock = plain_socket(transport)
    assert sock is not None and write(transport, sock, b"hello") is sock
    assert received(theirs) == b"hello"
    assert not reactor.writers


def test_what_the_kernel_does_not_take_waits_and_every_later_write_behind_it(pair: Any) -> None:
    """A full socket buffer: the rest is buffered by the transport, the reactor polls the
    socket, and the connection's later writes queue behind it; once the reader reads, every
    byte arrives, in order."""
    transport, theirs, reactor = pair
    data = bytes(range(256)) * 40_000  # ~10 MB, more than a socket pair buffers
    assert write(transport, plain_socket(transport), data) is None
    assert reactor.writers == {transport}
    assert write(transport, None, b"after") is None
    got = b""
    while transport in reactor.writers:
        got += received(theirs)
        transport.doWrite()
    got += received(theirs)
    assert got == data + b"after"


def test_a_broken_socket_is_left_for_twisted_to_report(pair: Any) -> None:
    transport, theirs, reactor = pair
    theirs.close()
    assert write(transport, plain_socket(transport), b"lost") is None  # no exception here
    assert reactor.writers == {transport}  # the reactor's write finds the broken connection
    assert transport.doWrite() is not None


def test_a_tls_transport_is_written_through_twisted(pair: Any) -> None:
    """TLS's transport hands on the socket of the connection it wraps: bytes sent to it would
    skip the encryption, so a transport that provides ISSLTransport is never written to at
    once (the server's TLS games: tests/server/test_server_tls.py)."""
    transport, theirs, _reactor = pair

    @implementer(ISSLTransport)
    class Wrapper:
        def __init__(self) -> None:
            self.written: list[bytes] = []

        def getHandle(self) -> Any:
            return transport.getHandle()

        def write(self, data: bytes) -> None:
            self.written.append(data)

    wrapper = Wrapper()
    assert isinstance(wrapper.getHandle(), socket.socket) and plain_socket(wrapper) is None
    assert write(wrapper, plain_socket(wrapper), b"secret") is None
    assert wrapper.written == [b"secret"] and received(theirs) == b""


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
