"""Writing to a client's socket at once, not at the reactor's next poll, through Twisted's public
API only (`ITCPTransport.getHandle`, `ITransport.write`).

Twisted's `transport.write` buffers the bytes and registers the socket for writing; the next
poll finds it writable and sends. A room's broadcast writes to seven or eight sockets after
every action, and every acknowledgement then waited behind the timers and reads of that reactor
turn: measured (`bench/server_load.py --rooms 200 --seconds 30`, two pairs), the ack p50 went
from 1.01 to 2.23-2.29 ms and its p99 from 6.0 to 9.5-10.5 ms without this.

`write` sends to the socket itself while nothing of this connection waits in Twisted's
buffer, which it knows without reading Twisted's attributes: every byte goes through it, and
the first time the kernel does not take all of a write (a client that does not read), the rest
and everything after goes through `transport.write`, in order, for the rest of the connection,
so Twisted's buffering and flow control hold as before. A TLS transport (its wrapper hands on
the socket of the connection it wraps; bytes sent there would skip the encryption) and any
transport without a socket (a test's) are written through `transport.write` always.
"""

from __future__ import annotations

import socket
from typing import Any

from twisted.internet.interfaces import ISSLTransport, ITCPTransport


def plain_socket(transport: Any) -> socket.socket | None:
    """The socket under a plain TCP transport; None under TLS or without one."""
    if ISSLTransport.providedBy(transport) or not ITCPTransport.providedBy(transport):
        return None
    get_handle = getattr(transport, "getHandle", None)  # (Twisted's test transports lack it)
    handle = get_handle() if get_handle is not None else None
    return handle if isinstance(handle, socket.socket) else None


def write(transport: Any, sock: socket.socket | None, data: bytes) -> socket.socket | None:
    """Write `data` to `sock` at once (None: through the transport); returns the socket the
    connection's next write may use, None once the kernel did not take all of one (from then
    on every write goes in order behind what Twisted holds). Every write of a connection must
    go through here with the socket it returned last (a byte written to the transport past it
    could be overtaken)."""
    if sock is None:
        transport.write(data)
        return None
    try:
        sent = sock.send(data)
    except OSError:  # would block, interrupted, or broken: Twisted's write tries again or
        sent = 0  # reports the connection lost, as it always does
    if sent < len(data):
        transport.write(data[sent:])
        return None
    return sock
