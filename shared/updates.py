"""A client's side of the "updates" feature: an `update` applied to the last `state` gives the
next `state`, exactly as the server would have sent it in full (docs/protocol.md, Features).

The server sends after every action up to eight views of ~2.5 KB of which most is unchanged;
the differences are what it has to encode and write, and the client still hands its screens
and bots a full `state`.
"""

from __future__ import annotations

from typing import Any

from .protocol import ProtocolError


def apply_update(last: dict[str, Any] | None, update: dict[str, Any]) -> dict[str, Any]:
    """The `state` message that `update` makes of `last` (the previous `state`, full)."""
    if last is None or update["base"] != last["state_id"]:
        have = None if last is None else last["state_id"]
        raise ProtocolError("bad_frame", f"update of state {update['base']}, but the last "
                            f"state here is {have}")
    old = last["view"]
    camps = list(old["camps"])
    for key, camp in update["camps"].items():
        index = int(key) if key.isdigit() else -1
        if not 0 <= index < len(camps):
            raise ProtocolError("bad_frame", f"update names camp {key!r} of {len(camps)}")
        camps[index] = camp
    unknown = update["view"].keys() - old.keys()
    if unknown:
        raise ProtocolError("bad_frame", f"update names unknown view parts {sorted(unknown)}")
    return {"t": "state", "view": {**old, **update["view"], "camps": camps},
            "legal": update.get("legal", last["legal"]), "state_id": update["state_id"],
            "deadlines": update["deadlines"]}
