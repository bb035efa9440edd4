"""Self-signed certificates made in a test (an EC key: fast), written as PEM files."""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclass(frozen=True)
class MadeCertificate:
    cert: Path
    key: Path
    certificate: x509.Certificate

    @property
    def sha256(self) -> str:
        """The fingerprint as `openssl x509 -fingerprint -sha256` prints it."""
        return self.certificate.fingerprint(hashes.SHA256()).hex(":").upper()


def make_certificate(folder: Path, name: str = "server",
                     hosts: tuple[str, ...] = ("localhost", "127.0.0.1")) -> MadeCertificate:
    """A self-signed certificate for `hosts` (names and addresses) and its key, in `folder`."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    alt_names: list[x509.GeneralName] = []
    for host in hosts:
        try:
            alt_names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            alt_names.append(x509.DNSName(host))
    certificate = (
        x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.SubjectAlternativeName(alt_names), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / f"{name}.crt.pem", folder / f"{name}.key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return MadeCertificate(cert_path, key_path, certificate)
