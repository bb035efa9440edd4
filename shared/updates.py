"""Both sides of the "updates" feature: `diff` cuts the changes between what a member holds
and what it would be sent now; `apply_update` makes of the last `state` and an `update` the
next `state`, exactly as the server would have sent it in full (docs/protocol.md, Features).

The server sends after every action up to eight views, of which an action changes a few
entries; the changes are what it encodes and writes, and the client still hands its screens
and bots a full `state`. One form for every part of a view, a module's state and the legal
actions alike: a change is a path of map keys and list indices and the value found there now
(boardgame.io's `createPatch` of two filtered states, in a form that fits msgpack).
"""

from __future__ import annotations

from typing import Any

from .protocol import ProtocolError

Path = list[Any]


def diff(old: Any, new: Any) -> list[list[Any]]:
    """The changes that make `new` of `old`: each `[path, value]` (the value at `path` is now
    `value`) or `[path]` (the map entry at `path` is gone). Maps are compared entry by entry,
    lists of one length item by item, anything else is set whole; an entry that is the same
    object in both (a part shared from view to view) is not compared."""
    out: list[list[Any]] = []
    if old is not new and old != new:
        _changes(old, new, [], out)
    return out


def _changes(old: Any, new: Any, path: Path, out: list[list[Any]]) -> None:
    """The changes of two values known to differ."""
    if type(old) is dict and type(new) is dict:
        for key, value in new.items():
            if key not in old:
                out.append([[*path, key], value])
            elif value is not old[key] and value != old[key]:
                _changes(old[key], value, [*path, key], out)
        out.extend([[*path, key]] for key in old if key not in new)
    elif type(old) is list and type(new) is list and len(old) == len(new):
        for i, (was, value) in enumerate(zip(old, new, strict=True)):
            if value is not was and value != was:
                _changes(was, value, [*path, i], out)
    else:
        out.append([path, new])


def apply_update(last: dict[str, Any] | None, update: dict[str, Any]) -> dict[str, Any]:
    """The `state` message that `update` makes of `last` (the previous `state`, full). The
    last state is not changed: what the update leaves is shared with it."""
    if last is None or update["base"] != last["state_id"]:
        have = None if last is None else last["state_id"]
        raise ProtocolError("bad_frame", f"update of state {update['base']}, but the last "
                            f"state here is {have}")
    held = patched({"view": last["view"], "legal": last["legal"]}, update["patch"])
    view, legal = held["view"], held["legal"]
    if not isinstance(view, dict) or view.keys() != last["view"].keys():
        raise ProtocolError("bad_frame", "update: the view is not a map of the parts it had")
    if legal is not last["legal"] and not (isinstance(legal, list) and
                                           all(isinstance(a, dict) for a in legal)):
        raise ProtocolError("bad_frame", "update: the legal actions are not a list of maps")
    return {"t": "state", **held, "state_id": update["state_id"],
            "deadlines": update["deadlines"]}


def patched(root: dict[str, Any], changes: Any) -> dict[str, Any]:
    """`root` with `changes` (`diff`'s form) made, copying only the maps and lists on their
    paths; a change whose path is not in `root` is a `bad_frame`."""
    if not isinstance(changes, list):
        raise ProtocolError("bad_frame", "update: `patch` is not a list")
    out = dict(root)
    copied = {id(out)}  # the containers copied already (alive in `out`: no id is reused)
    for change in changes:
        if not isinstance(change, list) or len(change) not in (1, 2) or \
                not isinstance(change[0], list) or not change[0]:
            raise ProtocolError("bad_frame", "update: a change is not [path] or [path, value] "
                                "with a path of one entry or more")
        path = change[0]
        if not isinstance(path[0], str) or path[0] not in root or len(change) == len(path) == 1:
            raise ProtocolError("bad_frame", f"update: unknown part {path[0]!r}, or it deleted")
        parent = out
        for step in path[:-1]:
            child = _entry(parent, step, path)
            if id(child) not in copied:
                child = parent[step] = type(child)(child)
                copied.add(id(child))
            parent = child
        _change(parent, path, change)
    return out


def _entry(parent: Any, step: Any, path: Path) -> Any:
    """The map or list at `step` of `parent` on `path`."""
    if _has(parent, step) and isinstance(parent[step], dict | list):
        return parent[step]
    raise ProtocolError("bad_frame", f"update: no map or list at {path!r}")


def _change(parent: Any, path: Path, change: list[Any]) -> None:
    """Set (a map's entry, new or not, or a list's) or delete (a map's) the last entry of
    `path` in `parent`."""
    key = path[-1]
    settable = (isinstance(parent, dict) and isinstance(key, str | int)) or _has(parent, key)
    if len(change) == 2 and settable:
        parent[key] = change[1]
    elif len(change) == 1 and isinstance(parent, dict) and _has(parent, key):
        del parent[key]
    else:
        raise ProtocolError("bad_frame", f"update: cannot change {path!r}")


def _has(parent: Any, key: Any) -> bool:
    """Whether `parent` (a map or a list) has the entry `key`."""
    if isinstance(parent, dict):
        return isinstance(key, str | int) and key in parent
    return isinstance(parent, list) and type(key) is int and 0 <= key < len(parent)
