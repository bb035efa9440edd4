"""TLS on the server: `grailwar serve --tls-cert CERT --tls-key KEY` (and `twist grailwar`)
serves TLS only; a wrong certificate or key is one line and exit 1. Real sockets on loopback,
every wait bounded; the certificates are made in the test."""

from __future__ import annotations

import socket
import ssl
import subprocess
import sys
from pathlib import Path

import pytest
from grailwar.server.tls import BadCertificate, tls_options
from grailwar.shared.protocol import PROTOCOL_VERSION, encode, message
from test_server_loopback import TIMEOUT, Client, ServerProcess
from test_twist_plugin import run as run_twist
from tls_kit import MadeCertificate, make_certificate


@pytest.fixture
def made(tmp_path: Path) -> MadeCertificate:
    return make_certificate(tmp_path)


def _bad_pairs(made: MadeCertificate, tmp_path: Path) -> dict[str, tuple[str | None, str | None]]:
    other = make_certificate(tmp_path, "other")
    return {
        "cannot read the TLS certificate": (str(tmp_path / "missing.pem"), str(made.key)),
        "cannot read the TLS key": (str(made.cert), str(tmp_path / "missing.pem")),
        "is not a PEM certificate": (str(made.key), str(made.key)),
        "is not a PEM private key": (str(made.cert), str(made.cert)),
        "does not belong to the certificate": (str(made.cert), str(other.key)),
        "needs both --tls-cert and --tls-key": (str(made.cert), None),
    }


def test_a_wrong_certificate_or_key_is_refused_with_the_reason(made: MadeCertificate,
                                                               tmp_path: Path) -> None:
    """Each wrong file (missing, the other kind, a key of another certificate, one of the two
    alone) is refused with its own reason; the right pair loads; neither is plain TCP."""
    for reason, (cert, key) in _bad_pairs(made, tmp_path).items():
        with pytest.raises(BadCertificate, match=reason):
            tls_options(cert, key)
    assert tls_options(str(made.cert), str(made.key)) is not None
    assert tls_options(None, None) is None


def test_grailwar_serve_says_a_wrong_key_in_one_line_and_exits_1(made: MadeCertificate,
                                                                  tmp_path: Path) -> None:
    other = make_certificate(tmp_path, "other")
    done = subprocess.run(
        [sys.executable, "-m", "grailwar.cli.main", "serve", "--port", "0", "--db",
         str(tmp_path / "rooms.db"), "--tls-cert", str(made.cert), "--tls-key", str(other.key)],
        capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "does not belong to the certificate" in lines[0], done.stderr
    assert not (tmp_path / "rooms.db").exists()  # refused before the database is touched


def test_twist_grailwar_refuses_a_certificate_without_its_key(made: MadeCertificate,
                                                              tmp_path: Path) -> None:
    done = run_twist(["grailwar", "--port", "0", "--db", str(tmp_path / "rooms.db"),
                      "--tls-cert", str(made.cert)], tmp_path)
    assert done.returncode != 0
    assert "TLS needs both --tls-cert and --tls-key" in done.stdout + done.stderr


def test_a_tls_server_greets_a_tls_client_and_closes_a_plain_one(made: MadeCertificate,
                                                                 tmp_path: Path) -> None:
    """hello/welcome over TLS, the certificate verified by the client (it trusts this one);
    a plain-TCP hello to the same port gets no welcome, only a closed connection; and the
    server goes on serving TLS."""
    server = ServerProcess(tmp_path / "rooms.db", "--tls-cert", str(made.cert),
                           "--tls-key", str(made.key))
    context = ssl.create_default_context(cafile=str(made.cert))
    try:
        assert ", TLS," in server.banner
        tls = Client(server.port, "tls",
                     wrap=lambda sock: context.wrap_socket(sock, server_hostname="127.0.0.1"))
        tls.close()
        plain = socket.create_connection(("127.0.0.1", server.port), timeout=TIMEOUT)
        plain.sendall(encode(message("hello", version=PROTOCOL_VERSION, name="plain")))
        answer = b""
        while chunk := plain.recv(65536):
            answer += chunk
        plain.close()
        assert answer[:1] in (b"", b"\x15"), answer  # nothing, or a TLS alert record
        Client(server.port, "again",
               wrap=lambda sock: context.wrap_socket(sock, server_hostname="127.0.0.1")).close()
        assert server.stop() == 0
    finally:
        server.kill()


def bot(port: int, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "grailwar.cli.main", "bot", "--connect", f"127.0.0.1:{port}",
         "--room", "no such room", "--tls", *options],
        capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)


def test_grailwar_bot_over_tls_with_a_pin(made: MadeCertificate, tmp_path: Path) -> None:
    """`grailwar bot --tls --trust-fingerprint SHA256`: the right pin gets through to the lobby
    (its room is not found, so the server answered it); a wrong pin is refused naming both
    fingerprints."""
    server = ServerProcess(tmp_path / "rooms.db", "--tls-cert", str(made.cert),
                           "--tls-key", str(made.key))
    try:
        through = bot(server.port, "--trust-fingerprint", made.sha256.replace(":", "").lower())
        assert "server error room_not_found" in through.stdout, through
        wrong = make_certificate(tmp_path, "wrong").sha256
        refused = bot(server.port, "--trust-fingerprint", wrong)
        assert refused.returncode == 1
        assert f"pinned {wrong}, got {made.sha256}" in refused.stdout, refused
        assert server.stop() == 0
    finally:
        server.kill()


def test_a_chain_file_is_served_from_its_first_certificate(made: MadeCertificate,
                                                            tmp_path: Path) -> None:
    """`fullchain.pem` (the server's certificate, then its issuers) loads with the server's
    key; the same chain in the other order does not."""
    issuer = make_certificate(tmp_path, "issuer")
    chain, reversed_chain = tmp_path / "fullchain.pem", tmp_path / "reversed.pem"
    chain.write_bytes(made.cert.read_bytes() + issuer.cert.read_bytes())
    reversed_chain.write_bytes(issuer.cert.read_bytes() + made.cert.read_bytes())
    assert tls_options(str(chain), str(made.key)) is not None
    with pytest.raises(BadCertificate, match="does not belong"):
        tls_options(str(reversed_chain), str(made.key))
