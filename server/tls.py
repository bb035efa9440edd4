"""The server's TLS certificate: `--tls-cert CERT.pem --tls-key KEY.pem` read and checked at
start, so a wrong file is one line saying which and why, not a traceback at the first client.

The certificate file may hold a chain (Let's Encrypt's `fullchain.pem`): the first certificate
is the server's, the others are sent with it.
"""

from __future__ import annotations

from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from OpenSSL import SSL
from twisted.internet import ssl


class BadCertificate(RuntimeError):
    """The certificate or key given to the server cannot be used (the reason is the text)."""


def _read(path: str, what: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as err:
        raise BadCertificate(f"cannot read the TLS {what} {path}: {err.strerror}") from None


def tls_options(cert: str | None, key: str | None) -> ssl.CertificateOptions | None:
    """The options `--tls-cert`/`--tls-key` ask for: None (neither) is plain TCP."""
    if cert is None and key is None:
        return None
    if cert is None or key is None:
        raise BadCertificate("TLS needs both --tls-cert and --tls-key")
    return load_server_tls(cert, key)


def load_server_tls(cert_path: str, key_path: str) -> ssl.CertificateOptions:
    """The TLS options of a server with this certificate (and chain) and private key, both PEM;
    the key must be the certificate's."""
    cert_pem = _read(cert_path, "certificate")
    key_pem = _read(key_path, "key")
    try:
        chain = x509.load_pem_x509_certificates(cert_pem)
    except ValueError:
        raise BadCertificate(f"{cert_path} is not a PEM certificate "
                             "(-----BEGIN CERTIFICATE-----)") from None
    try:
        key = serialization.load_pem_private_key(key_pem, password=None)
    except (ValueError, TypeError):
        raise BadCertificate(f"{key_path} is not a PEM private key (or it has a passphrase)") \
            from None
    options = ssl.CertificateOptions(privateKey=key, certificate=chain[0],
                                     extraCertChain=chain[1:])
    try:
        options.getContext()  # checks that the key is the certificate's
    except SSL.Error:
        raise BadCertificate(f"the key {key_path} does not belong to the certificate "
                             f"{cert_path}") from None
    return options
