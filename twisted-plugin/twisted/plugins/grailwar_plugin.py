"""`twist grailwar --port 7707 --db grailwar.db`: the Grail War Online server under Twisted's own
runner (logging, signals, reactor choice: `twist --help`).

This module is found by Twisted's plugin discovery (`twisted.plugins`). It is no package of the
distribution: the build backend (`_backend/grailwar_backend.py`) copies it into a wheel, where
it lands beside Twisted's own plugins, and makes an editable install put its folder
`twisted-plugin/` on sys.path. There is no `twisted/__init__.py` here, so Twisted's own package
is never shadowed. Nothing heavy is imported: `grailwar.server.tap` loads only when used.
"""

from twisted.application.service import ServiceMaker

grailwar = ServiceMaker(
    "Grail War Online server",
    "grailwar.server.tap",
    "A dedicated Grail War Online server: rooms, timers and bots, every room's log in SQLite",
    "grailwar",
)
