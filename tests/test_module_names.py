"""Issue 31's search, kept: no base file of the product names a rules module. A module reaches
the table through its own folders only (`shared/modules/<name>/`, `client/modules/<name>/`,
`shared/bots/modules/<name>.py`), through the door each layer loops over
(docs/modules.md)."""

from __future__ import annotations

import re
from pathlib import Path

from grailwar.shared.engine.modules import MODULES

ROOT = Path(__file__).parent.parent
BASE = ("client", "server", "cli", "shared")
MODULE_FOLDERS = ("shared/modules/", "client/modules/", "shared/bots/modules/")


def test_no_base_file_names_a_module() -> None:
    """Comments and docstrings included: what a base file says of "the campaign" goes stale
    the day a module changes, and tells the next engineer the base knows it."""
    names = re.compile("|".join(MODULES), re.IGNORECASE)
    files = [p for folder in BASE for p in (ROOT / folder).rglob("*.py")
             if not str(p.relative_to(ROOT)).startswith(MODULE_FOLDERS)]
    assert len(files) > 100
    named = [f"{p.relative_to(ROOT)}:{n}" for p in files
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if names.search(line)]
    assert not named, named
