"""What the client remembers between runs: language, player name, last server, window size."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

DEFAULTS: dict[str, Any] = {"lang": "", "name": "", "host": "localhost", "width": 0, "height": 0}


def config_path() -> Path:
    override = os.environ.get("GRAILWAR_CONFIG")
    if override:
        return Path(override)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "grailwar" / "client.json"


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
