"""The client over TLS against a real TLS server on loopback: the certificate checked against
the system's CAs (a self-signed one refused, its fingerprint offered in a dialog, pinned on
yes), a pinned certificate accepted, a changed one refused naming both fingerprints, and a CA's
certificate accepted for its host's name only. The certificates are made in the test."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from grailwar.client.net import ServerConnection
from grailwar.client.tls import PinStore, Refusal, fingerprint, parse_fingerprint, pins_path
from grailwar.client.views.title import two_lines
from grailwar.server.app import GrailService
from grailwar.server.tls import load_server_tls
from tls_kit import MadeCertificate, make_certificate
from twisted.internet import ssl
from twisted.internet.endpoints import TCP4ClientEndpoint, connectProtocol


class TlsServer:
    """A real server (in-memory database) listening with TLS on a free loopback port."""

    def __init__(self, reactor: Any, made: MadeCertificate) -> None:
        self.made = made
        self.service = GrailService(reactor, ":memory:", "127.0.0.1", 0, tune_gc=False,
                                    tls=load_server_tls(str(made.cert), str(made.key)))
        self.service.startService()
        self.port = self.service.address.port
        self.server = f"127.0.0.1:{self.port}"


@pytest.fixture
def made(tmp_path: Path) -> MadeCertificate:
    return make_certificate(tmp_path)


@pytest.fixture
def server(app: Any, reactor: Any, made: MadeCertificate) -> Iterator[TlsServer]:
    running = TlsServer(reactor, made)
    yield running
    stopped = running.service.stopService()
    done: list[Any] = []
    stopped.addBoth(done.append)
    app.pump(until=lambda: bool(done), timeout=5, render=False)


def connect_tls(app: Any, server: TlsServer, trust_root: Any = None, host: str = "127.0.0.1"
                ) -> None:
    app.tls, app.trust_root = True, trust_root
    app.show("title")
    assert app.connect(host, server.port)


def connected(app: Any) -> bool:
    return app.model.connection == "connected" and app.current.name == "lobby"


def dialog_text(view: Any) -> str:
    """The lines the open dialog drew (its title and buttons aside), as one text."""
    view.rebuild()
    drawn = [label for label, _x, _y in view.overlay.labels]
    assert view.region_by_id("refusal_ok") is not None, drawn
    return "\n".join(drawn[1:-2 if view.region_by_id("refusal_cancel") else -1])


def notices(app: Any) -> list[str]:
    return [n.text for n in app.model.notices]


def test_a_self_signed_certificate_is_refused_then_pinned_through_the_dialog(
        app: Any, server: TlsServer) -> None:
    """No pin, the system's CAs: refused, nothing pinned, the title screen asks with the
    fingerprint; Trust pins it in pins.json (0600) and the client connects and is welcomed."""
    connect_tls(app, server)
    assert app.pump(until=lambda: app.refused is not None, timeout=5)
    seen = server.made.sha256
    assert app.refused == ("127.0.0.1", server.port, Refusal("untrusted", seen))
    assert app.tr("tls.untrusted", server=server.server, seen=seen) in notices(app)
    assert app.model.connection == "offline" and app.session.retry_call is None
    assert PinStore().get(server.server) is None
    title = app.current
    assert title.name == "title"
    assert dialog_text(title) == app.tr("tls.ask_text", server=server.server,
                                        fingerprint=two_lines(seen))
    assert title.click("refusal_ok")
    assert app.refused is None
    assert PinStore().get(server.server) == seen
    assert stat.S_IMODE(os.stat(pins_path()).st_mode) == 0o600
    assert app.pump(until=lambda: connected(app), timeout=5), notices(app)


def test_the_title_switch_connects_over_tls_and_is_remembered(app: Any,
                                                              server: TlsServer) -> None:
    """Off, the client speaks plain TCP; the title's switch turns TLS on (its label says so,
    the settings keep it), and Connect then meets the server's certificate."""
    title = app.show("title")
    assert not app.tls
    title.rebuild()
    labels = [label for label, _x, _y in title.base.labels]
    assert app.tr("tls.toggle_off") in labels
    assert title.click("tls")
    assert app.tls and app.settings["tls"] is True
    title.rebuild()
    assert app.tr("tls.toggle_on") in [label for label, _x, _y in title.base.labels]
    title.fields["name"].value = "凛"
    title.fields["host"].value = f"127.0.0.1:{server.port}"
    title.click("connect")
    assert app.pump(until=lambda: app.refused is not None, timeout=5)  # TLS: the certificate
    title.rebuild()
    assert title.click("refusal_cancel")  # (the dialog holds the screen until answered)
    assert title.click("tls") and not app.tls and app.settings["tls"] is False


def test_no_to_the_dialog_pins_nothing(app: Any, server: TlsServer) -> None:
    connect_tls(app, server)
    assert app.pump(until=lambda: app.refused is not None, timeout=5)
    app.current.rebuild()
    assert app.current.click("refusal_cancel")
    assert app.refused is None and not pins_path().exists()
    app.pump(seconds=0.1, render=False)
    assert app.model.connection == "offline"


def test_a_pinned_certificate_is_accepted(app: Any, server: TlsServer) -> None:
    """The pin (as `--trust-fingerprint` writes it) lets hello/welcome through: the lobby."""
    PinStore().pin(server.server, server.made.sha256)
    connect_tls(app, server)
    assert app.pump(until=lambda: connected(app), timeout=5), notices(app)
    assert app.refused is None


def test_a_changed_certificate_is_refused_naming_both_fingerprints(
        app: Any, server: TlsServer, tmp_path: Path) -> None:
    """A pin for another certificate: refused loudly (old and new fingerprints, in the notice
    and in a dialog with a Close button only), no retry, the pin kept as it was."""
    old = make_certificate(tmp_path, "old").sha256
    PinStore().pin(server.server, old)
    connect_tls(app, server)
    expected = app.tr("tls.changed", server=server.server, pinned=old, seen=server.made.sha256)
    assert app.pump(until=lambda: expected in notices(app), timeout=5), notices(app)
    assert old in expected and server.made.sha256 in expected
    app.pump(seconds=0.2, render=False)
    assert app.model.connection == "offline" and app.session.retry_call is None
    assert app.current.name == "title"
    assert dialog_text(app.current) == app.tr(
        "tls.changed_text", server=server.server, pinned=two_lines(old),
        seen=two_lines(server.made.sha256))
    assert app.current.region_by_id("refusal_cancel") is None
    assert app.current.click("refusal_ok")
    assert app.refused is None and PinStore().get(server.server) == old


def test_a_certificate_from_a_trusted_ca_is_accepted_for_its_name_only(
        app: Any, server: TlsServer, tmp_path: Path) -> None:
    """With the server's certificate as a trusted root (as a CA's would be), no pin is needed
    for a name it carries (127.0.0.1); a root that did not sign it is refused as untrusted."""
    root = ssl.trustRootFromCertificates([ssl.Certificate.loadPEM(server.made.cert.read_bytes())])
    connect_tls(app, server, root)
    assert app.pump(until=lambda: connected(app), timeout=5), notices(app)
    assert not pins_path().exists()
    stranger = make_certificate(tmp_path, "stranger")
    foreign = ssl.trustRootFromCertificates([ssl.Certificate.loadPEM(
        stranger.cert.read_bytes())])
    connect_tls(app, server, foreign)
    assert app.pump(until=lambda: app.refused is not None, timeout=5), notices(app)


def test_a_trusted_ca_certificate_for_another_name_is_refused(app: Any, reactor: Any,
                                                             tmp_path: Path) -> None:
    """A certificate the trust root vouches for, but made for another host: refused."""
    made = make_certificate(tmp_path, "elsewhere", hosts=("example.org",))
    running = TlsServer(reactor, made)
    try:
        root = ssl.trustRootFromCertificates([ssl.Certificate.loadPEM(made.cert.read_bytes())])
        connect_tls(app, running, root)
        assert app.pump(until=lambda: app.refused is not None, timeout=5), notices(app)
        assert app.refused[2] == Refusal("untrusted", made.sha256)
    finally:
        running.service.stopService()
        app.pump(seconds=0.1, render=False)


def test_a_plain_tcp_client_to_the_tls_port_gets_no_welcome(app: Any, reactor: Any,
                                                           server: TlsServer) -> None:
    got: list[dict[str, Any]] = []
    lost: list[Any] = []
    proto = ServerConnection("plain", got.append, lost.append)
    connectProtocol(TCP4ClientEndpoint(reactor, "127.0.0.1", server.port), proto)
    assert app.pump(until=lambda: bool(lost), timeout=5, render=False)
    assert got == []


def test_the_pin_file_round_trips_with_mode_0600(tmp_path: Path) -> None:
    """Pins are kept per host:port, each rewritten whole in a private file; a hand-edited
    entry that is no SHA-256 is ignored."""
    store = PinStore(tmp_path / "pins.json")
    a, b = fingerprint(b"one"), fingerprint(b"two")
    store.pin("example.org:7707", a)
    store.pin("10.1.2.3:7708", b)
    store.pin("example.org:7707", b)
    again = PinStore(tmp_path / "pins.json")
    assert again.get("example.org:7707") == b and again.get("10.1.2.3:7708") == b
    assert again.get("example.org:7708") is None
    assert stat.S_IMODE(os.stat(tmp_path / "pins.json").st_mode) == 0o600
    (tmp_path / "pins.json").write_text('{"x:1": "nonsense", "y:2": 3}', encoding="utf-8")
    assert again.get("x:1") is None and again.get("y:2") is None


def test_a_fingerprint_is_read_as_people_type_it() -> None:
    canonical = fingerprint(b"cert")
    bare = canonical.replace(":", "")
    for typed in (canonical, canonical.lower(), bare, f"sha256:{bare}",
                  f"SHA256 Fingerprint={canonical}"):
        assert parse_fingerprint(typed) == canonical, typed
    for wrong in ("", "AB:CD", bare[:-1] + "G", bare + "00"):
        assert parse_fingerprint(wrong) is None, wrong


def test_connect_trust_fingerprint_pins_the_server(capsys: pytest.CaptureFixture[str]) -> None:
    """`grailwar connect HOST:PORT --trust-fingerprint SHA256` pins it for that server (the
    window then connects with TLS); something else than a SHA-256 is refused and pins nothing."""
    from grailwar.cli.client import remember_pin
    from grailwar.cli.main import build_parser

    parser = build_parser()
    seen = fingerprint(b"community server")
    args = parser.parse_args(["connect", "example.org:7708", "--trust-fingerprint",
                              seen.replace(":", "").lower()])
    assert remember_pin(args, ("example.org", 7708))
    assert PinStore().get("example.org:7708") == seen
    bad = parser.parse_args(["connect", "other.org", "--trust-fingerprint", "AB:CD"])
    assert not remember_pin(bad, ("other.org", 7707))
    assert "is not a SHA-256 fingerprint" in capsys.readouterr().err
    assert PinStore().get("other.org:7707") is None
    plain = parser.parse_args(["connect", "other.org", "--tls"])
    assert remember_pin(plain, ("other.org", 7707)) and PinStore().get("other.org:7707") is None
