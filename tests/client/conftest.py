"""Client tests: screens render headless (EGL, no X server); one window serves them all.

ARCADE_HEADLESS must be set before arcade is imported, so it is set here, at collection.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("ARCADE_HEADLESS", "1")
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True)
def _config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never read or write the developer's own client settings, nor its kept local game."""
    monkeypatch.setenv("GRAILWAR_CONFIG", str(tmp_path / "client.json"))
    monkeypatch.setenv("GRAILWAR_DATA", str(tmp_path / "data"))


@pytest.fixture(scope="session")
def window() -> Iterator[Any]:
    try:
        import arcade

        win = arcade.Window(1280, 800, "tests", antialiasing=False, update_rate=1 / 1000,
                            draw_rate=1 / 1000)
    except Exception as err:  # no OpenGL/EGL on this machine: the screen tests cannot run
        pytest.skip(f"no headless OpenGL window ({err.__class__.__name__}: {err}); "
                    "install libgl1 libegl1")
    yield win
    win.close()


@pytest.fixture
def reactor() -> Any:
    from twisted.internet import reactor as global_reactor

    return global_reactor


@pytest.fixture
def app(window: Any, reactor: Any, tmp_path: Path) -> Iterator[Any]:
    from grailwar.client.app import GrailApp

    application = GrailApp(reactor, lang="ja", name="衛宮", remember=False, window=window,
                           bot_delay=0.0, export_dir=tmp_path / "exports")
    yield application
    if application.session is not None:
        application.session.close()
    if application.local is not None:
        application.local.stop()
        application.local = None
    # let the closing connections finish before the next test
    application.pump(seconds=0.05, render=False)
