"""The PROXY protocol (issue 38 item 3): the header parser (HAProxy's v1 and v2), and a server
that takes it from its trusted proxies only, so that every limit and ban applies to the
client's own address behind a load balancer."""

from __future__ import annotations

import ipaddress
import struct

import pytest
from grailwar.server.addresses import networks
from grailwar.server.proxyheader import V2_SIGNATURE, BadProxyHeader, parse
from grailwar.shared.protocol import encode, message
from hypothesis import given, settings
from hypothesis import strategies as st
from proxy_relay import header
from server_kit import Server, error_of

PROXY = "10.0.0.254"


def v2(command: int = 0x1, family: int = 0x11, body: bytes | None = None) -> bytes:
    if body is None:
        body = (ipaddress.ip_address("198.51.100.9").packed + ipaddress.ip_address(
            "10.0.0.1").packed + struct.pack("!HH", 4000, 7707))
    return V2_SIGNATURE + bytes([0x20 | command, family]) + struct.pack("!H", len(body)) + body


# --- the parser ----------------------------------------------------------------------------
@pytest.mark.parametrize(("data", "client"), [
    (b"PROXY TCP4 192.0.2.7 10.0.0.1 5555 7707\r\n", "192.0.2.7"),
    (b"PROXY TCP6 2001:db8::7 ::1 5555 7707\r\n", "2001:db8::7"),
    (b"PROXY UNKNOWN\r\n", None),
    (b"PROXY UNKNOWN ffff::1 ffff::2 1 2\r\n", None),
    (v2(), "198.51.100.9"),
    (v2(family=0x21, body=ipaddress.ip_address("2001:db8::9").packed
        + ipaddress.ip_address("::1").packed + struct.pack("!HH", 1, 2)), "2001:db8::9"),
    (v2(body=ipaddress.ip_address("203.0.113.5").packed + bytes(8) + b"\x04\x00\x01x"),
     "203.0.113.5"),  # with a TLV after the addresses
    (v2(command=0x0, family=0x00, body=b""), None),  # LOCAL: a health check
])
def test_a_header_gives_the_client_and_its_length(data: bytes, client: str | None) -> None:
    assert parse(data + b"\x00\x00\x00\x05hello") == (client, len(data))
    for cut in range(1, len(data)):  # a header cut anywhere is not whole yet
        assert parse(data[:cut]) is None


@pytest.mark.parametrize("data", [
    b"PROXY TCP4 192.0.2.7 10.0.0.1 5555\r\n", b"PROXY TCP5 1.2.3.4 1.2.3.4 1 2\r\n",
    b"PROXY TCP4 2001:db8::7 10.0.0.1 1 2\r\n", b"PROXY TCP4 192.0.2.7 10.0.0.1 1 99999\r\n",
    b"PROXY TCP4 " + b"9" * 120, b"PROXX TCP4", b"\x00\x00\x00\x1f\x81\xa1t",
    v2()[:12] + bytes([0x31, 0x11, 0, 12]) + bytes(12),  # version 3
    v2(family=0x31, body=bytes(216)),  # UNIX sockets: no address to take
    v2(family=0x12),  # UDP
    v2(body=bytes(4)),  # shorter than its addresses
])
def test_anything_else_is_refused(data: bytes) -> None:
    with pytest.raises(BadProxyHeader):
        parse(data)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=120))
def test_any_bytes_are_a_header_not_yet_whole_or_refused(data: bytes) -> None:
    try:
        found = parse(data)
    except BadProxyHeader:
        return
    assert found is None or 0 < found[1] <= len(data)


# --- the server -------------------------------------------------------------------------------
def proxied(server: Server, client: str, version: str = "v1") -> object:
    """A connection through the trusted proxy for `client`, greeted."""
    w = server.wire(PROXY)
    w.raw(header(version, (client, 40000), ("10.0.0.1", 7707))
          + encode(message("hello", version=2, name="p")))
    return w


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_through_a_trusted_proxy_each_player_has_its_own_address(version: str) -> None:
    """20 players behind one proxy (the connection limit is 16 per address): each is welcomed
    and counted under its own address; a ban on one refuses it alone."""
    server = Server(trusted_proxies=networks(PROXY))
    wires = [proxied(server, f"192.0.2.{i}", version) for i in range(1, 21)]
    assert all(w.take()[0]["t"] == "welcome" for w in wires)
    assert sorted(w.proto.address for w in wires) == sorted(f"192.0.2.{i}" for i in range(1, 21))
    assert PROXY not in server.lobby.addresses
    server.lobby.bans.add("192.0.2.7")
    banned = proxied(server, "192.0.2.7", version)
    assert banned.closed and banned.take() == []
    assert proxied(server, "192.0.2.8", version).take()[0]["t"] == "welcome"


def test_a_header_from_anyone_else_is_refused_and_the_proxy_must_send_one() -> None:
    """A client naming its own address is refused (bad_frame, the connection closed); the
    trusted proxy's connection that starts with no header is refused too; its health check
    (v2 LOCAL) is the proxy's own connection."""
    server = Server(trusted_proxies=networks("10.0.0.0/30,2001:db8::/64"))
    liar = server.wire("192.0.2.50")
    liar.raw(b"PROXY TCP4 203.0.113.1 10.0.0.1 1 2\r\n")
    err = error_of(liar.take())
    assert err["code"] == "bad_frame" and "not a trusted proxy" in err["message"]
    assert liar.closed
    bare = server.wire("10.0.0.2")
    bare.raw(encode(message("hello", version=2, name="p")))
    assert error_of(bare.take())["code"] == "bad_frame" and bare.closed
    check = server.wire("10.0.0.1")
    check.raw(v2(command=0x0, family=0x00, body=b"") + encode(message("ping")))
    assert [m["t"] for m in check.take()] == ["error"]  # hello first, as from anyone
    assert check.proto.address == "10.0.0.1"


def test_a_proxied_connection_has_one_handshake_deadline_from_connecting() -> None:
    """The header is part of the handshake: a proxied client that sends its header at 6 s and
    no hello is cut at 10 s from connecting; one lost meanwhile leaves no timer behind."""
    server = Server(trusted_proxies=networks(PROXY))
    slow, gone = server.wire(PROXY), server.wire(PROXY)
    server.advance(6)
    for w in (slow, gone):
        w.raw(header("v1", ("192.0.2.1", 40000), ("10.0.0.1", 7707)))
    server.advance(1)
    gone.lose()
    assert not [c for c in server.clock.getDelayedCalls() if c.active()
                and getattr(c.func, "__self__", None) is gone.proto]
    server.advance(2.9)
    assert not slow.closed
    server.advance(0.2)
    assert error_of(slow.take())["code"] == "timeout" and slow.closed
