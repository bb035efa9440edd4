"""How the client trusts a TLS server: the system's CAs, or a certificate pinned on first use.

A public server has a certificate the system trusts (Let's Encrypt): it is checked against the
system's CAs and the host's name. A community server often has a self-signed one: the player
is shown its SHA-256 fingerprint once and, if they trust it, it is pinned in `pins.json`
(beside client.json, mode 0600) under `host:port`. From then on that server is accepted only
with exactly that certificate; a changed one is refused, naming both fingerprints (a new
certificate or someone in the middle: the player decides, by removing the pin).
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.serialization import Encoding
from OpenSSL import SSL
from service_identity import VerificationError
from service_identity.hazmat import DNS_ID, IPAddress_ID, verify_service_identity
from service_identity.pyopenssl import extract_patterns
from twisted.internet import ssl
from twisted.internet.interfaces import IOpenSSLClientConnectionCreator
from zope.interface import implementer

from . import config

HEX_DIGEST = re.compile(r"[0-9A-F]{64}")


def fingerprint(der: bytes) -> str:
    """A certificate's SHA-256 as `openssl x509 -fingerprint -sha256` prints it (AB:CD:…)."""
    digest = hashlib.sha256(der).hexdigest().upper()
    return ":".join(digest[i:i + 2] for i in range(0, 64, 2))


def parse_fingerprint(text: str) -> str | None:
    """A fingerprint typed or pasted by a person (any case, colons or not, a `sha256:` prefix,
    openssl's `sha256 Fingerprint=` line), in the form `fingerprint` gives; None if it is not
    a SHA-256."""
    digest = re.sub(r"[\s:]", "", text.rpartition("=")[2].upper()).removeprefix("SHA256")
    if not HEX_DIGEST.fullmatch(digest):
        return None
    return ":".join(digest[i:i + 2] for i in range(0, 64, 2))


def pins_path() -> Path:
    """Beside client.json, so the GRAILWAR_CONFIG override moves both."""
    return config.config_path().with_name("pins.json")


class PinStore:
    """`pins.json`: {"host:port": fingerprint}; read on every question, written whole."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or pins_path()

    def get(self, server: str) -> str | None:
        return self._load().get(server)

    def pin(self, server: str, print_: str) -> None:
        data = self._load()
        data[server] = print_
        config.write_private(self.path, data)

    def _load(self) -> dict[str, str]:
        return {k: p for k, v in config.read_map(self.path).items()
                if isinstance(v, str) and (p := parse_fingerprint(v))}


@dataclass(frozen=True)
class Refusal:
    """Why a server's certificate was not accepted: `untrusted` (not the system's CAs' and
    no pin: the player may pin `seen`), or `changed` (not the pinned `pinned`)."""

    kind: str
    seen: str
    pinned: str = ""


@implementer(IOpenSSLClientConnectionCreator)
class ServerTrust:
    """The TLS connections to one server: accepted if the certificate is the pinned one, or,
    with no pin, if the system's CAs (or `trust_root`, in tests) vouch for it and for the host's
    name. `refusal` says why the last handshake was refused."""

    def __init__(self, host: str, pinned: str | None = None, trust_root: Any = None) -> None:
        self.host = host
        self.pinned = pinned
        self.options = ssl.CertificateOptions(trustRoot=trust_root or ssl.platformTrust())
        try:
            self.identity: Any = IPAddress_ID(str(ipaddress.ip_address(host)))
            self.server_name: bytes | None = None  # no SNI for an address
        except ValueError:
            self.identity = DNS_ID(host)
            self.server_name = host.encode("idna")
        self.refusal: Refusal | None = None

    def clientConnectionForTLS(self, tls_protocol: Any) -> SSL.Connection:
        connection = SSL.Connection(self.options.getContext(), None)
        connection.set_app_data(tls_protocol)
        if self.server_name:
            connection.set_tlsext_host_name(self.server_name)
        chain_ok = [True]

        def verify(_conn: Any, cert: Any, _errno: int, depth: int, ok: int) -> bool:
            chain_ok[0] = chain_ok[0] and bool(ok)
            if depth != 0:  # decided at the server's own certificate, which comes last
                return True
            return self._accept(cert.to_cryptography().public_bytes(Encoding.DER), cert,
                                chain_ok[0])

        connection.set_verify(SSL.VERIFY_PEER | SSL.VERIFY_FAIL_IF_NO_PEER_CERT, verify)
        connection.set_connect_state()
        return connection

    def _accept(self, der: bytes, cert: Any, chain_ok: bool) -> bool:
        seen = fingerprint(der)
        if self.pinned is not None:
            if seen == self.pinned:
                return True
            self.refusal = Refusal("changed", seen, self.pinned)
            return False
        if chain_ok and self._names_host(cert):
            return True
        self.refusal = Refusal("untrusted", seen)
        return False

    def _names_host(self, cert: Any) -> bool:
        try:
            verify_service_identity(extract_patterns(cert), [self.identity], [])
        except VerificationError:
            return False
        return True
