"""The build backend: setuptools' own, plus the `twist grailwar` plugin in each wheel.

Twisted finds plugins in every `twisted/plugins` folder on sys.path, and Twisted's own
`twisted.plugins` package must stay the one imported: so the plugin is never a package of this
distribution (setuptools knows nothing of it: no `twisted` mapping in its editable finder, no
`twisted/__init__.py` or `twisted/plugins/__init__.py` installed). Instead:

- a wheel (`pip install .`) gets the lone file `twisted/plugins/grailwar_plugin.py`, which
  lands in site-packages beside Twisted's own plugins;
- an editable wheel (`pip install -e .`) gets `grailwar_twisted_plugin.pth`, which puts the
  project's `twisted-plugin/` folder on sys.path. That folder holds only
  `twisted/plugins/grailwar_plugin.py`, without `__init__.py` files: no module of the project
  becomes importable at the top level, and a folder without `__init__.py` never takes the
  place of the installed `twisted` package.
"""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  (every other hook as setuptools has it)

PLUGIN_FOLDER = "twisted-plugin"
PLUGIN = "twisted/plugins/grailwar_plugin.py"
PTH_NAME = "grailwar_twisted_plugin.pth"


def _folder() -> Path:
    return (Path.cwd() / PLUGIN_FOLDER).resolve()  # PEP 517 runs hooks in the source tree


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
    _add_file(Path(wheel_directory) / name, PLUGIN, (_folder() / PLUGIN).read_bytes())
    return name


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    name = _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
    _add_file(Path(wheel_directory) / name, PTH_NAME, f"{_folder()}\n".encode())
    return name


def _add_file(wheel: Path, arcname: str, data: bytes) -> None:
    """Rewrite `wheel` with `arcname` (added, or replacing a stale copy), listed in RECORD."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    partial = wheel.with_name(wheel.name + ".part")
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as dst:
        record = next(n for n in src.namelist() if n.endswith(".dist-info/RECORD"))
        for item in src.infolist():
            if item.filename not in (record, arcname):
                dst.writestr(item, src.read(item.filename))
        dst.writestr(arcname, data)
        lines = [line for line in src.read(record).decode().splitlines()
                 if line and not line.startswith(f"{arcname},")]
        dst.writestr(record, "\n".join([*lines, f"{arcname},sha256={digest},{len(data)}", ""]))
    partial.replace(wheel)
