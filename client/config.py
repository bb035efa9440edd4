"""What the client remembers between runs: language, player name, last server, window size."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

DEFAULTS: dict[str, Any] = {"lang": "", "name": "", "host": "localhost", "tls": False, "width": 0,
                            "height": 0}


def config_path() -> Path:
    override = os.environ.get("GRAILWAR_CONFIG")
    if override:
        return Path(override)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "grailwar" / "client.json"


def documents_dir() -> Path:
    """The user's documents folder: $XDG_DOCUMENTS_DIR, or the one `user-dirs.dirs` names (a
    Linux desktop, in its own language), else ~/Documents where it exists, else the home."""
    home = Path.home()
    named = os.environ.get("XDG_DOCUMENTS_DIR", "")
    if not named:
        dirs = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "user-dirs.dirs"
        try:
            lines = dirs.read_text(encoding="utf-8").splitlines()
        except OSError:
            lines = []
        for line in lines:
            key, _, value = line.partition("=")
            if key.strip() == "XDG_DOCUMENTS_DIR":
                named = value.strip().strip('"').replace("$HOME", str(home))
    if named and Path(named).is_dir():
        return Path(named)
    return home / "Documents" if (home / "Documents").is_dir() else home


def exports_dir() -> Path:
    """Where saved logs and replays go: $GRAILWAR_EXPORTS, else a folder of its own in the
    user's documents (not the folder the client was started from: a desktop shortcut's)."""
    override = os.environ.get("GRAILWAR_EXPORTS")
    return Path(override) if override else documents_dir() / "Grail War Online"


def guess_lang() -> str:
    """The system's language if it is Japanese or Korean, else "" (the client then asks)."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "")
        if value:
            code = value[:2].lower()
            return code if code in ("ja", "ko") else ""
    return ""


def stored() -> dict[str, Any]:
    """The settings as the client last saved them (none yet: empty), each of its default's
    type (a hand-edited file with a wrong one is ignored there)."""
    try:
        data = json.loads(config_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if k in DEFAULTS and type(v) is type(DEFAULTS[k])}


def load() -> dict[str, Any]:
    data = dict(DEFAULTS)
    data.update(stored())
    if data["lang"] not in ("ja", "ko", "en"):
        data["lang"] = guess_lang()  # "" when there is none to go by
    return data


def save(data: dict[str, Any]) -> None:
    """Best effort: a read-only home must not stop the game."""
    path = config_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({k: data.get(k, v) for k, v in DEFAULTS.items()},
                                   ensure_ascii=False), encoding="utf-8")
    except OSError:
        pass


def read_map(path: Path) -> dict[str, Any]:
    """A JSON object the client keeps (seats.json, pins.json): {} if missing or not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str)} if isinstance(data, dict) else {}


def write_private(path: Path, data: dict[str, Any]) -> None:
    """Write a file only its user may read (mode 0600: it holds seat tokens or pins), to a
    `.part` first, then moved over the old one, so a crash never leaves half a file."""
    part = path.with_name(path.name + ".part")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, indent=1, sort_keys=True)
    os.chmod(part, 0o600)  # a .part left by an older run may have another mode
    os.replace(part, path)
