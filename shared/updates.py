"""A client's side of the "updates" feature: an `update` applied to the last `state` gives the
next `state`, exactly as the server would have sent it in full (docs/protocol.md, Features).

The server sends after every action up to eight views of ~2.5 KB of which most is unchanged;
the differences are what it has to encode and write, and the client still hands its screens
and bots a full `state`. A module's state goes by its entries (`module_changes`): seed 002's
view holds every camp's record, the relic list and a dossier per rival, and one of them
changing sent all of it to every seat (three quarters of such an update's bytes). With the
"compact" feature a changed legal list names the actions the client holds by their index, and
a changed map in the view (a battle's) or in a module's state (seed 002's summoning) goes
by its changed entries: a loaded server's updates were two thirds legal actions, battles sent
their whole view at every step, and day 0 its whole relic list at every camp's readiness.
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
    view = {**old, **update["view"], "camps": camps}
    if update.get("modules"):
        view["modules"] = _modules_updated(view["modules"], update["modules"])
    if "module_entries" in update:
        view["modules"] = _modules_updated(view["modules"], update["module_entries"], deep=True)
    if "entries" in update:
        _entries_updated(view, update["entries"])
    if "legal" in update:
        legal = update["legal"]
    elif "legal_ref" in update:
        legal = _legal_from(last["legal"], update["legal_ref"])
    else:
        legal = last["legal"]
    return {"t": "state", "view": view, "legal": legal, "state_id": update["state_id"],
            "deadlines": update["deadlines"]}


def map_changes(changed: dict[str, Any], old: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Of the view's `changed` parts, each that is a map with the same keys as in `old`, by
    its entries that changed (a battle's view changes its cursor and who answered, and went
    whole to every seat after every step of a battle)."""
    out = {}
    for key, part in changed.items():
        entries = _changed_entries(part, old[key])
        if entries is not None:
            out[key] = entries
    return out


def _changed_entries(new: Any, old: Any) -> dict[str, Any] | None:
    """The entries of the map `new` that differ from the map `old`'s (an entry that is the same
    object is not compared); None unless both are maps with the same keys."""
    if not (isinstance(new, dict) and isinstance(old, dict)) or new.keys() != old.keys():
        return None
    return {k: v for k, v in new.items() if v is not old[k] and v != old[k]}


def module_entries(changes: dict[str, dict[str, Any]], old: dict[str, Any]
                   ) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """`module_changes` split in two: the entries that go whole, and the entries that are maps
    with the same keys as in `old` (a view's `modules`) by their changed entries (seed
    002's relic list stood beside who is ready on day 0, and went whole with it)."""
    whole, nested = {}, {}
    for name, entries in changes.items():
        inner = map_changes(entries, old[name]["state"])
        rest = {k: v for k, v in entries.items() if k not in inner}
        if inner:
            nested[name] = inner
        if rest:
            whole[name] = rest
    return whole, nested


def _entries_updated(view: dict[str, Any], entries: Any, where: str = "the view") -> None:
    """Each part `entries` names (a map in `view`) with the entries it lists replaced."""
    if not isinstance(entries, dict):
        raise ProtocolError("bad_frame", f"update: the entries of {where} are not a map")
    for key, changed in entries.items():
        part = view.get(key)
        if not isinstance(part, dict) or not isinstance(changed, dict) or \
                changed.keys() - part.keys():
            raise ProtocolError("bad_frame", f"update: unknown entries of {where}'s {key!r}")
        view[key] = {**part, **changed}


def legal_refs(new: list[dict[str, Any]], held: list[dict[str, Any]]) -> list[Any]:
    """`new` (wire forms) with each entry the client holds already (`held`, its last list)
    named by its index there. An entry held is the same object: the server keeps one wire
    form per action (`server/feeds.py`, `wire_form`), so no entry is compared by value."""
    at = {id(entry): i for i, entry in enumerate(held)}
    return [at.get(id(entry), entry) for entry in new]


def _legal_from(held: list[dict[str, Any]], refs: Any) -> list[dict[str, Any]]:
    """The legal actions a `legal_ref` names: each entry a map, or the index of one in `held`."""
    if not isinstance(refs, list):
        raise ProtocolError("bad_frame", "update: `legal_ref` is not a list")
    out = []
    for ref in refs:
        if type(ref) is int:
            if not 0 <= ref < len(held):
                raise ProtocolError("bad_frame", f"update: `legal_ref` names entry {ref} of "
                                    f"{len(held)}")
            out.append(held[ref])
        elif isinstance(ref, dict):
            out.append(ref)
        else:
            raise ProtocolError("bad_frame", "update: a `legal_ref` entry is neither an index "
                                "nor a map")
    return out


def module_changes(new: dict[str, Any], old: dict[str, Any]) -> dict[str, dict[str, Any]] | None:
    """Per module, the entries of its state that changed from `old` to `new` (two views'
    `modules`); None when that cannot say it (another module, option or verb, a state that is
    not a map or has other entries): the whole `modules` part goes instead."""
    if new.keys() != old.keys():
        return None
    out: dict[str, dict[str, Any]] = {}
    for name, part in new.items():
        was = old[name]
        if part["options"] != was["options"] or part["verbs"] != was["verbs"]:
            return None
        changed = _changed_entries(part["state"], was["state"])
        if changed is None and part["state"] != was["state"]:
            return None
        if changed:
            out[name] = changed
    return out


def _modules_updated(modules: dict[str, Any], changes: Any, deep: bool = False
                     ) -> dict[str, Any]:
    """`modules` (a view's) with each module state `changes` names updated: the entries it
    lists replaced (`modules`), or with `deep` (`module_entries`) the entries of its map
    entries."""
    field = "module_entries" if deep else "modules"
    if not isinstance(changes, dict):
        raise ProtocolError("bad_frame", f"update: `{field}` is not a map")
    out = dict(modules)
    for name, entries in changes.items():
        state = modules[name]["state"] if name in modules else None
        if not isinstance(state, dict):
            raise ProtocolError("bad_frame", f"update: `{field}` names module {name!r}, whose "
                                "state is not a map here")
        if deep:
            state = dict(state)
            _entries_updated(state, entries, f"module {name!r}")
        elif not isinstance(entries, dict) or entries.keys() - state.keys():
            raise ProtocolError("bad_frame", f"update names unknown state entries of module "
                                f"{name!r}")
        else:
            state = {**state, **entries}
        out[name] = {**modules[name], "state": state}
    return out
