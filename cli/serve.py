"""`grailwar serve`: host a dedicated server (SIGTERM or Ctrl-C stops it cleanly)."""

from __future__ import annotations

import argparse
import sys

from ..server.app import (
    BOT_WORKERS,
    DEFAULT_PORT,
    KEEP_DAYS,
    MAX_PER_ADDRESS,
    MAX_ROOMS,
    ROOMS_PER_ADDRESS,
)
from ..server.lobby import (
    CREATES_PER_ADDRESS,
    HANDSHAKE_TIMEOUT,
    IDLE_TIMEOUT,
    JOINS_PER_ADDRESS,
    MAX_QUEUED,
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="run a dedicated server")
    add_options(p)
    p.add_argument("--log-format", choices=("text", "json"), default="text",
                   help="text lines, or one JSON event per line (twisted.logger), on stderr")
    p.set_defaults(run=run)


def add_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (0.0.0.0: all)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT,
                   help="TCP port (default %(default)s; 0: any free port)")
    p.add_argument("--db", default="grailwar.db", help="SQLite file holding every room's log")
    p.add_argument("--max-per-address", type=int, default=MAX_PER_ADDRESS,
                   help="connections allowed from one address (default %(default)s)")
    p.add_argument("--max-rooms", type=int, default=MAX_ROOMS,
                   help="rooms this server holds at most (default %(default)s)")
    p.add_argument("--rooms-per-address", type=int, default=ROOMS_PER_ADDRESS,
                   help="open rooms created from one address (default %(default)s)")
    p.add_argument("--bot-workers", type=int, default=BOT_WORKERS,
                   help="processes in which hard bots search: the cap on the bots' CPU "
                   "(default %(default)s; 0: hard bots play at the normal level)")
    p.add_argument("--keep-days", type=float, default=KEEP_DAYS,
                   help="days a finished game is kept after it closes (default %(default)s; "
                   "0: forever); other closed rooms are purged")
    p.add_argument("--tls-cert", default=None, metavar="CERT.pem",
                   help="serve TLS only, with this PEM certificate (a chain: the server's first)")
    p.add_argument("--tls-key", default=None, metavar="KEY.pem",
                   help="the certificate's PEM private key (no passphrase)")
    p.add_argument("--max-queued", type=int, default=MAX_QUEUED,
                   help="bytes waiting for a client that does not read before it is cut "
                   "(default %(default)s)")
    p.add_argument("--handshake-timeout", type=float, default=HANDSHAKE_TIMEOUT,
                   help="seconds a new connection has to send hello (default %(default)s)")
    p.add_argument("--idle-timeout", type=float, default=IDLE_TIMEOUT,
                   help="seconds without a message before a connection is closed "
                   "(default %(default)s)")
    p.add_argument("--joins-per-address", type=int, default=JOINS_PER_ADDRESS,
                   help="room joins (create, join, resume) per 10 s from one address "
                   "(default %(default)s)")
    p.add_argument("--creates-per-address", type=int, default=CREATES_PER_ADDRESS,
                   help="new rooms per minute from one address (default %(default)s)")
    admin = p.add_mutually_exclusive_group()
    admin.add_argument("--admin-socket", metavar="PATH",
                       help="UNIX socket for `grailwar admin` (default: beside the database, "
                       "<db>.admin.sock, mode 0600)")
    admin.add_argument("--no-admin", action="store_true", help="open no operator socket")


def run(args: argparse.Namespace) -> int:
    from twisted.internet import reactor
    from twisted.logger import (
        Logger,
        globalLogBeginner,
        jsonFileLogObserver,
        textFileLogObserver,
    )

    from ..server.admin import default_socket
    from ..server.app import REFUSALS, GrailService
    from ..server.tls import BadCertificate, tls_options

    if args.log_format == "json":
        observer = jsonFileLogObserver(sys.stderr)
    else:
        observer = textFileLogObserver(sys.stderr)
    globalLogBeginner.beginLoggingTo([observer], redirectStandardIO=False)
    log = Logger(namespace="grailwar.serve")
    try:
        tls = tls_options(args.tls_cert, args.tls_key)
    except BadCertificate as err:
        log.critical("the server could not start: {why}", why=str(err))
        return 1
    service = GrailService(reactor, args.db, args.host, args.port,
                           max_per_address=args.max_per_address, max_rooms=args.max_rooms,
                           rooms_per_address=args.rooms_per_address,
                           keep_days=args.keep_days, bot_workers=args.bot_workers, tls=tls,
                           max_queued=args.max_queued, handshake_timeout=args.handshake_timeout,
                           idle_timeout=args.idle_timeout,
                           joins_per_address=args.joins_per_address,
                           creates_per_address=args.creates_per_address,
                           admin_socket=None if args.no_admin
                           else args.admin_socket or default_socket(args.db))
    failed: list[bool] = []

    def start() -> None:
        try:
            service.startService()
            return
        except REFUSALS as err:  # a locked or damaged database: no traceback, the reason
            log.critical("the server could not start: {why}", why=str(err))
        except Exception:
            log.failure("the server could not start")
        failed.append(True)
        reactor.stop()

    reactor.callWhenRunning(start)
    reactor.addSystemEventTrigger("before", "shutdown", service.stopService)
    reactor.run()  # SIGTERM and SIGINT stop the reactor, which stops the service first
    return 1 if failed else 0
