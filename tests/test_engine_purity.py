"""The rules engine is pure (DESIGN principle 1, STYLE "What we take" 1): no network, no
Twisted, no arcade, no msgpack, no clock, no global random. The rules modules
(`shared/modules/`, e.g. tactics) are part of the rules and held to the same standard.

Two checks: importing the engine in a fresh interpreter pulls in none of the forbidden
packages; and the source files of the engine and of every rules module import none of the
forbidden modules (the standard library may import `time` or `random` for itself, so only the
rules' own imports are judged).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

# Never loaded by importing the engine, directly or not.
FORBIDDEN_PACKAGES = ("twisted", "arcade", "pyglet", "msgpack", "socket", "ssl", "selectors",
                      "asyncio")
# Never imported by an engine source file: the above, plus clocks and global randomness.
FORBIDDEN_IMPORTS = (*FORBIDDEN_PACKAGES, "random", "secrets", "time", "datetime", "threading",
                     "uuid")

ENGINE = Path(str(resources.files("grailwar.shared.engine")))
MODULES = Path(str(resources.files("grailwar.shared.modules")))
SOURCES = sorted([*ENGINE.glob("*.py"), *MODULES.rglob("*.py")])


def shared_name(path: Path) -> str:
    """A source's path inside `shared/`, e.g. engine/game.py, modules/tactics/lines.py."""
    return path.relative_to(ENGINE.parent).as_posix()


def test_importing_the_engine_loads_no_network_gui_or_wire_package() -> None:
    """`import grailwar.shared.engine` in a clean interpreter adds none of the forbidden
    packages to sys.modules (and neither do the bots, which share the engine's rules)."""
    code = ("import json, sys; before = set(sys.modules); "
            "import grailwar.shared.engine, grailwar.shared.bots; "
            "print(json.dumps(sorted(set(sys.modules) - before)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    loaded = json.loads(out.stdout)
    assert {"grailwar.shared.engine.game", "grailwar.shared.modules.tactics"} <= set(loaded)
    bad = sorted(m for m in loaded if m.split(".")[0] in FORBIDDEN_PACKAGES)
    assert not bad, f"importing the engine loaded {bad}"


def imported_modules(path: Path) -> set[str]:
    """Top-level names of every module a source file imports (import, from-import, and
    importlib.import_module / __import__ with a literal name)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                found.add(node.args[0].value.split(".")[0])
    return found


def test_engine_and_module_sources_are_found() -> None:
    """The engine and the modules packages are where the test looks (guards against an empty
    parametrization)."""
    names = {shared_name(p) for p in SOURCES}
    assert {"engine/game.py", "engine/state.py", "engine/dice.py", "engine/view.py",
            "modules/tactics/__init__.py", "modules/tactics/lines.py",
            "modules/tactics/data.py"} <= names


@pytest.mark.parametrize("path", SOURCES, ids=shared_name)
def test_rules_source_imports_no_clock_random_network_or_ui(path: Path) -> None:
    """No engine or rules-module source imports random, time, datetime, socket, Twisted, arcade,
    msgpack …: dice come from the state's own generator, and time reaches the engine as
    actions."""
    bad = sorted(imported_modules(path) & set(FORBIDDEN_IMPORTS))
    assert not bad, f"{shared_name(path)} imports {bad}"
