"""The server's settings, in one table that both `grailwar serve` (argparse) and `twist
grailwar` (twisted.python.usage) read, so that the two command lines can never drift apart."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..shared.protocol import DEFAULT_PORT
from .admin import default_socket
from .app import BOT_WORKERS, KEEP_DAYS
from .lobby import (
    CONNECTS_PER_ADDRESS,
    CREATES_PER_ADDRESS,
    HANDSHAKE_TIMEOUT,
    IDLE_TIMEOUT,
    JOINS_PER_ADDRESS,
    MAX_PER_ADDRESS,
    MAX_QUEUED,
    MAX_ROOMS,
    ROOMS_PER_ADDRESS,
)
from .roomstore import LEASE_S


@dataclass(frozen=True)
class Setting:
    """One option: `--name`, its type and default, and what it does. `service` names the
    GrailService argument it fills ("" for the ones `service_arguments` reads itself)."""

    name: str
    kind: type
    default: Any
    help: str
    service: str = ""


SETTINGS = (
    Setting("host", str, "0.0.0.0", "address to listen on (0.0.0.0: all)"),
    Setting("port", int, DEFAULT_PORT, "TCP port (0: any free port)"),
    Setting("db", str, "grailwar.db", "SQLite file holding every room's log"),
    Setting("store", str, None, "a PostgreSQL URL (postgresql://user@host/db) holding every "
            "room's log in place of the SQLite file: several servers may share it "
            "(pip install 'grailwar[cluster]')", "store"),
    Setting("lease-s", float, LEASE_S, "with --store: seconds a server owns a room without "
            "renewing; a dead server's rooms are adopted by another after this", "lease_s"),
    Setting("presence", str, None, "the cluster's Redis (redis://host:6379/0): several servers "
            "on one --store share one lobby", "presence"),
    Setting("public-address", str, None, "with --presence: HOST:PORT at which clients reach "
            "this server, unique in the cluster (it names the server's room leases; default: "
            "the address it listens on)", "public_address"),
    Setting("cluster-name", str, "grailwar", "with --presence: the cluster's name, the prefix "
            "of its keys in Redis (several clusters may share one)", "cluster_name"),
    Setting("max-per-address", int, MAX_PER_ADDRESS, "connections allowed from one address",
            "max_per_address"),
    Setting("max-rooms", int, MAX_ROOMS, "rooms this server holds at most", "max_rooms"),
    Setting("rooms-per-address", int, ROOMS_PER_ADDRESS, "open rooms created from one address",
            "rooms_per_address"),
    Setting("bot-workers", int, BOT_WORKERS, "processes in which hard bots search: the cap on "
            "the bots' CPU (0: hard bots play at the normal level)", "bot_workers"),
    Setting("keep-days", float, KEEP_DAYS, "days a finished game is kept after it closes "
            "(0: forever); other closed rooms are purged", "keep_days"),
    Setting("tls-cert", str, None, "serve TLS only, with this PEM certificate (a chain: the "
            "server's first)"),
    Setting("tls-key", str, None, "the certificate's PEM private key (no passphrase)"),
    Setting("max-queued", int, MAX_QUEUED, "bytes waiting for a client that does not read "
            "before it is cut", "max_queued"),
    Setting("handshake-timeout", float, HANDSHAKE_TIMEOUT, "seconds a new connection has to "
            "send hello", "handshake_timeout"),
    Setting("idle-timeout", float, IDLE_TIMEOUT, "seconds without a message before a "
            "connection is closed", "idle_timeout"),
    Setting("joins-per-address", int, JOINS_PER_ADDRESS, "room joins (create, join, resume) "
            "per 10 s from one address", "joins_per_address"),
    Setting("creates-per-address", int, CREATES_PER_ADDRESS, "new rooms per minute from one "
            "address", "creates_per_address"),
    Setting("connects-per-address", int, CONNECTS_PER_ADDRESS, "new connections per 10 s from "
            "one address (more are closed before a byte is read)", "connects_per_address"),
    Setting("trusted-proxies", str, "", "load balancers (addresses or networks, comma-"
            "separated) whose connections start with a PROXY header (v1 or v2) naming the "
            "client; a header from anyone else is refused", "trusted_proxies"),
    Setting("admin-socket", str, None, "UNIX socket for `grailwar admin`, mode 0600 ({port} in "
            "it: the port this server listens on; default: beside the database, <db>.admin.sock; "
            "with --store, grailwar-{port}.admin.sock in $RUNTIME_DIRECTORY, else /run/grailwar "
            "if it exists, else the temporary directory)"),
)
NO_ADMIN = "open no operator socket"  # the --no-admin flag's help


def service_arguments(value: Callable[[str], Any], no_admin: bool) -> dict[str, Any]:
    """GrailService's keyword arguments from the settings' values (`value(name)`), the TLS
    options and the operator's socket excepted (the caller turns certificates into options)."""
    out = {s.service: value(s.name) for s in SETTINGS if s.service}
    out["admin_socket"] = None if no_admin else value("admin-socket") or default_socket(
        value("db"), value("store"))
    return out
