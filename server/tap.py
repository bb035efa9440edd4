"""The `twist grailwar` plugin's options and service (the plugin itself is
`twisted-plugin/twisted/plugins/grailwar_plugin.py`). The same service as `grailwar serve`."""

from __future__ import annotations

from typing import Any, ClassVar

from twisted.python import usage

from .app import GrailService
from .settings import NO_ADMIN, SETTINGS, service_arguments


class Options(usage.Options):
    synopsis = " ".join(f"[--{s.name} {s.kind.__name__.upper()}]" for s in SETTINGS) + (
        " [--no-admin]")
    longdesc = ("Host a Grail War Online server. SIGTERM or Ctrl-C stops it cleanly: the "
                "clients are disconnected, the database closed. A restart on the same database "
                "restores every room, its timers with the time they had left.")
    optParameters: ClassVar[list[list[Any]]] = [
        [s.name, "p" if s.name == "port" else None, s.default, s.help,
         *([s.kind] if s.kind is not str else [])] for s in SETTINGS]
    optFlags: ClassVar[list[list[Any]]] = [["no-admin", None, NO_ADMIN]]

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
                        tls=options["tls"],
                        **service_arguments(options.__getitem__, options["no-admin"]))
