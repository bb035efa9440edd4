"""Writing to a client's socket at once, not at the reactor's next poll.

Twisted's `transport.write` buffers the bytes and registers the socket for writing (an
`epoll_ctl`); the next poll finds it writable, sends, and unregisters it (another `epoll_ctl`).
A room's broadcast writes to seven or eight sockets after every action, so that was two system
calls and a pass through the reactor's dispatch per member, and every view waited for the
next poll, behind the timers and reads of that reactor turn. A socket with nothing waiting in
Twisted's buffers is sent to here at once; what the kernel does not take, and every write to a
socket that has bytes waiting, goes through `transport.write` as before, so the bytes keep
their order and Twisted's flow control (the producer paused past its buffer) still holds.
"""

from __future__ import annotations

from typing import Any

from twisted.internet.tcp import Connection


def open_socket(transport: Any) -> Any | None:
    """The socket under a plain TCP transport with nothing waiting to be written; None for
    anything else (a TLS transport wraps the socket, a test's transport has none, a closing
    connection is left to the reactor)."""
    # (isinstance, not an attribute: TLS's wrapper hands on every attribute of the transport
    # it wraps, the socket's too, and bytes sent to it would skip the encryption)
    if (not isinstance(transport, Connection) or transport.TLS or not transport.connected
            or transport.disconnecting or transport.dataBuffer or transport._tempDataBuffer):
        return None
    return transport.socket


def write_now(transport: Any, data: bytes) -> bool:
    """Send `data` to the socket now if it has nothing waiting (the rest, if the kernel's buffer
    is full, is buffered by the transport); else buffer all of it. True if the socket was
    written to. A broken connection is left for the transport's own write to find: it buffers
    the bytes, and its next attempt reports the connection lost as it always has."""
    sock = open_socket(transport)
    if sock is None:
        transport.write(data)
        return False
    try:
        sent = sock.send(data)
    except OSError:  # would block, interrupted, or broken: Twisted's write tries again or closes
        sent = 0
    if sent < len(data):
        transport.write(data[sent:] if sent else data)
    return True
