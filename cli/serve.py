"""`grailwar serve`: host a dedicated server (SIGTERM or Ctrl-C stops it cleanly)."""

from __future__ import annotations

import argparse
import sys

from ..server.settings import NO_ADMIN, SETTINGS


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="run a dedicated server")
    add_options(p)
    p.add_argument("--log-format", choices=("text", "json"), default="text",
                   help="text lines, or one JSON event per line (twisted.logger), on stderr")
    p.set_defaults(run=run)


def add_options(p: argparse.ArgumentParser) -> None:
    """The server's settings (server/settings.py, shared with `twist grailwar`)."""
    for s in SETTINGS:
        shown = " (default %(default)s)" if s.default is not None else ""
        p.add_argument(f"--{s.name}", type=s.kind, default=s.default, help=s.help + shown)
    p.add_argument("--no-admin", action="store_true", help=NO_ADMIN)


def run(args: argparse.Namespace) -> int:
    from twisted.internet import reactor
    from twisted.logger import (
        Logger,
        globalLogBeginner,
        jsonFileLogObserver,
        textFileLogObserver,
    )

    from ..server.app import (
        EXIT_CANNOT_LISTEN,
        EXIT_REFUSED,
        REFUSALS,
        CannotListen,
        GrailService,
    )
    from ..server.settings import service_arguments
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
        return EXIT_REFUSED
    try:
        service = GrailService(reactor, args.db, args.host, args.port, tls=tls,
                               **service_arguments(lambda name: getattr(args,
                                                                        name.replace("-", "_")),
                                                   args.no_admin))
    except ValueError as err:  # settings that do not go together
        log.critical("the server could not start: {why}", why=str(err))
        return EXIT_REFUSED
    failed: list[int] = []

    def start() -> None:
        try:
            service.startService()
            return
        except REFUSALS as err:  # a locked or damaged database: no traceback, the reason
            log.critical("the server could not start: {why}", why=str(err))
            failed.append(EXIT_REFUSED)
        except CannotListen as err:  # the port taken: one line, and a status of its own
            log.critical("the server could not start: {why}", why=str(err))
            failed.append(EXIT_CANNOT_LISTEN)
        except Exception:
            log.failure("the server could not start")
            failed.append(EXIT_REFUSED)
        reactor.stop()

    reactor.callWhenRunning(start)
    reactor.addSystemEventTrigger("before", "shutdown", service.stopService)
    reactor.run()  # SIGTERM and SIGINT stop the reactor, which stops the service first
    return failed[0] if failed else 0
