"""The `twist grailwar` plugin's options and service (the plugin itself is
`twisted-plugin/twisted/plugins/grailwar_plugin.py`). The same service as `grailwar serve`."""

from __future__ import annotations

from typing import Any, ClassVar

from twisted.python import usage

from .admin import default_socket
from .app import (
    BOT_WORKERS,
    DEFAULT_PORT,
    KEEP_DAYS,
    MAX_PER_ADDRESS,
    MAX_ROOMS,
    ROOMS_PER_ADDRESS,
    GrailService,
)
from .lobby import (
    CREATES_PER_ADDRESS,
    HANDSHAKE_TIMEOUT,
    IDLE_TIMEOUT,
    JOINS_PER_ADDRESS,
    MAX_QUEUED,
)


class Options(usage.Options):
    synopsis = ("[--host HOST] [--port PORT] [--db FILE] [--max-per-address N] [--max-rooms N] "
                "[--rooms-per-address N] [--keep-days N] [--bot-workers N] "
                "[--tls-cert CERT.pem --tls-key KEY.pem] [--max-queued BYTES] "
                "[--handshake-timeout S] [--idle-timeout S] [--joins-per-address N] "
                "[--creates-per-address N] [--admin-socket PATH | --no-admin]")
    longdesc = ("Host a Grail War Online server. SIGTERM or Ctrl-C stops it cleanly: the "
                "clients are disconnected, the database closed. A restart on the same database "
                "restores every room, its timers with the time they had left.")
    optParameters: ClassVar[list[list[Any]]] = [
        ["host", None, "0.0.0.0", "address to listen on (0.0.0.0: all)"],
        ["port", "p", DEFAULT_PORT, "TCP port (0: any free port)", int],
        ["db", None, "grailwar.db", "SQLite file holding every room's log"],
        ["max-per-address", None, MAX_PER_ADDRESS, "connections allowed from one address", int],
        ["max-rooms", None, MAX_ROOMS, "rooms this server holds at most", int],
        ["rooms-per-address", None, ROOMS_PER_ADDRESS, "open rooms created from one address",
         int],
        ["keep-days", None, KEEP_DAYS, "days a finished game is kept after it closes (0: "
         "forever)", float],
        ["bot-workers", None, BOT_WORKERS, "processes in which hard bots search (0: they play "
         "at the normal level)", int],
        ["tls-cert", None, None, "serve TLS only, with this PEM certificate (chain)"],
        ["tls-key", None, None, "the certificate's PEM private key (no passphrase)"],
        ["max-queued", None, MAX_QUEUED, "bytes waiting for a client that does not read", int],
        ["handshake-timeout", None, HANDSHAKE_TIMEOUT, "seconds a connection has for hello",
         float],
        ["idle-timeout", None, IDLE_TIMEOUT, "seconds without a message before closing", float],
        ["joins-per-address", None, JOINS_PER_ADDRESS, "room joins per 10 s from one address",
         int],
        ["creates-per-address", None, CREATES_PER_ADDRESS, "new rooms per minute from one "
         "address", int],
        ["admin-socket", None, None, "UNIX socket for `grailwar admin` (default: <db>.admin.sock)"],
    ]
    optFlags: ClassVar[list[list[Any]]] = [["no-admin", None, "open no operator socket"]]

    def postOptions(self) -> None:
        """A wrong certificate or key stops `twist` here, with the reason, before it serves."""
        from .tls import BadCertificate, tls_options

        try:
            self["tls"] = tls_options(self["tls-cert"], self["tls-key"])
        except BadCertificate as err:
            raise usage.UsageError(str(err)) from None


def makeService(options: Options) -> Any:
    from twisted.internet import reactor

    return GrailService(reactor, options["db"], options["host"], options["port"],
                        max_per_address=options["max-per-address"],
                        max_rooms=options["max-rooms"],
                        rooms_per_address=options["rooms-per-address"],
                        keep_days=options["keep-days"], bot_workers=options["bot-workers"],
                        tls=options["tls"], max_queued=options["max-queued"],
                        handshake_timeout=options["handshake-timeout"],
                        idle_timeout=options["idle-timeout"],
                        joins_per_address=options["joins-per-address"],
                        creates_per_address=options["creates-per-address"],
                        admin_socket=None if options["no-admin"]
                        else options["admin-socket"] or default_socket(options["db"]))
