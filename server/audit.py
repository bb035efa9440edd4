"""Operator events: one structured twisted.logger event per connection, seat and room change.

Each event is logged in the namespace `grailwar.audit` with a stable `log_format` built from its
name and its field names (`join room={room} seat={seat} addr={addr} name={name}`), so the text
log reads as one line per event and `grailwar serve --log-format json` gives one JSON object per
event with the fields as keys (`event`, `room`, `seat`, `addr`, `name` …), for grep or jq.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from twisted.logger import Logger

NAMESPACE = "grailwar.audit"
_log = Logger(namespace=NAMESPACE)


@cache
def _format(event: str, names: tuple[str, ...]) -> str:
    """The same event with the same fields always has the same format string."""
    return " ".join([event, *(f"{name}={{{name}}}" for name in names)])


def audit(event: str, **fields: Any) -> None:
    """Log `event` with `fields` (plain values: str, int, float, bool, None)."""
    _log.info(_format(event, tuple(fields)), event=event, **fields)
