"""The PROXY protocol header (HAProxy's, versions 1 and 2) that a TCP load balancer puts
before a client's own bytes, so that the server learns the client's address
(https://www.haproxy.org/download/2.9/doc/proxy-protocol.txt).

Only a trusted proxy's connections carry one (`--trusted-proxies`): from anyone else a header
would let a client name any address it likes. `parse` reads one from the start of what a
connection has sent so far.
"""

from __future__ import annotations

import ipaddress
import struct

V1_PREFIX = b"PROXY "
V1_MOST = 107  # the longest v1 line, its CRLF included
V2_SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"
V2_FIXED = 16  # the signature, version and command, family and transport, length
# v2 address families (the high nibble of byte 13) and the size of their address block
V2_INET, V2_INET6 = 0x1, 0x2
V2_ADDRESSES = {V2_INET: 12, V2_INET6: 36}


class BadProxyHeader(ValueError):
    """Bytes that are no PROXY header, or one that cannot be read."""


def starts_like_one(data: bytes) -> bool:
    """Whether `data` (a connection's first bytes) begins as a PROXY header would."""
    return _prefix_of(data, V1_PREFIX) or _prefix_of(data, V2_SIGNATURE)


def _prefix_of(data: bytes, start: bytes) -> bool:
    """`data` begins with `start`, or is the beginning of it."""
    n = min(len(data), len(start))
    return data[:n] == start[:n]


def parse(data: bytes) -> tuple[str | None, int] | None:
    """The client's address the header at the start of `data` gives (None: the proxy speaks
    for itself, a health check: v2 LOCAL, v1 UNKNOWN) and the header's length; None while
    the header is not whole yet. Raises BadProxyHeader for anything else."""
    if data[:1] == b"P":
        return _v1(data)
    return _v2(data)


def _v1(data: bytes) -> tuple[str | None, int] | None:
    if not _prefix_of(data, V1_PREFIX):
        raise BadProxyHeader("not a PROXY header")
    end = data.find(b"\r\n", 0, V1_MOST)
    if end < 0:
        if len(data) >= V1_MOST:
            raise BadProxyHeader("a PROXY v1 line longer than 107 bytes")
        return None
    words = data[:end].decode("ascii", "replace").split(" ")
    if words[0] != "PROXY" or len(words) < 2:
        raise BadProxyHeader("not a PROXY header")
    if words[1] == "UNKNOWN":
        return None, end + 2
    if words[1] not in ("TCP4", "TCP6") or len(words) != 6:
        raise BadProxyHeader(f"a PROXY v1 line of an unknown form: {words[1][:8]!r}")
    try:
        source = ipaddress.ip_address(words[2])
        ipaddress.ip_address(words[3])
        ports = [int(w) for w in words[4:]]
    except ValueError as err:
        raise BadProxyHeader(f"a PROXY v1 line with a bad address or port: {err}") from None
    if source.version != (4 if words[1] == "TCP4" else 6) or not all(
            0 <= p <= 65535 for p in ports):
        raise BadProxyHeader("a PROXY v1 line with a bad address or port")
    return str(source), end + 2


def _v2(data: bytes) -> tuple[str | None, int] | None:
    if not _prefix_of(data, V2_SIGNATURE):
        raise BadProxyHeader("not a PROXY header")
    if len(data) < V2_FIXED:
        return None
    version, command = data[12] >> 4, data[12] & 0x0F
    family, transport = data[13] >> 4, data[13] & 0x0F
    (length,) = struct.unpack("!H", data[14:16])
    if version != 2 or command not in (0x0, 0x1):
        raise BadProxyHeader("a PROXY v2 header of an unknown version or command")
    if len(data) < V2_FIXED + length:
        return None
    total = V2_FIXED + length
    if command == 0x0:  # LOCAL: the proxy's own connection (a health check)
        return None, total
    if family not in V2_ADDRESSES or transport != 0x1 or length < V2_ADDRESSES[family]:
        raise BadProxyHeader("a PROXY v2 header for no TCP over IPv4 or IPv6")
    size = 4 if family == V2_INET else 16
    source = ipaddress.ip_address(data[V2_FIXED:V2_FIXED + size])
    return str(source), total
