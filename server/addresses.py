"""A connection's address as every limit, ban, log line and `admin status` compares and shows
it: one spelling per host.

An IPv6 listener (`--host ::`) that takes IPv4 too sees an IPv4 player as `::ffff:a.b.c.d`
(an IPv4-mapped address). Kept as it came, a ban on `a.b.c.d` would never match that player,
nor would the per-address limits count it with the same host's IPv4 connections, so every
address is normalized where it enters: a mapped address becomes its IPv4 form, an IPv6 address
its compressed form (`2001:db8::1`). Anything that is no IP address (a test's transport, a
Unix socket) is kept as it is.
"""

from __future__ import annotations

import ipaddress
from typing import Any


def normal(address: str) -> str:
    """`address` in the one spelling the server compares and shows."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)


def peer_address(peer: Any) -> str:
    """A Twisted peer (`IAddress`) as its normal host."""
    return normal(getattr(peer, "host", str(peer)))


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def networks(text: str) -> tuple[Network, ...]:
    """`--trusted-proxies`: addresses or networks, comma-separated (`10.0.0.5,192.0.2.0/24`)."""
    out = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        try:
            out.append(ipaddress.ip_network(part, strict=False))
        except ValueError:
            raise ValueError(f"--trusted-proxies: {part!r} is no IP address or network") from None
    return tuple(out)


def within(address: str, nets: tuple[Network, ...]) -> bool:
    """Whether the (normal) `address` lies in one of `nets`."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in net for net in nets)
