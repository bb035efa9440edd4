"""The `twist grailwar` plugin, as a host runs it: Twisted's plugin discovery finds it (with the
editable install as with a normal one) next to Twisted's own plugins, and it serves."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

TIMEOUT = 20.0


def twist() -> list[str]:
    """The `twist` beside this Python (the same environment), else `python -m twisted`."""
    script = Path(sys.executable).with_name("twist")
    return [str(script)] if script.exists() else [sys.executable, "-m", "twisted"]


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*twist(), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=TIMEOUT, stdin=subprocess.DEVNULL)


def test_twist_lists_grailwar_and_its_own_plugins(tmp_path: Path) -> None:
    """`twist --help` lists grailwar and still Twisted's own plugins (web, words): our plugin
    folder does not shadow the `twisted.plugins` package."""
    done = run(["--help"], tmp_path)
    assert done.returncode == 0, done.stderr
    names = set(re.findall(r"^    (\S+)", done.stdout, re.M))
    assert {"grailwar", "web", "words"} <= names, done.stdout


def test_twist_grailwar_help(tmp_path: Path) -> None:
    """`twist grailwar --help` shows the server's options."""
    done = run(["grailwar", "--help"], tmp_path)
    assert done.returncode == 0, done.stderr
    for option in ("--port", "--db", "--host", "--max-per-address", "--keep-days", "--tls-cert",
                   "--tls-key", "--bot-workers", "--max-queued", "--handshake-timeout",
                   "--idle-timeout"):
        assert option in done.stdout


def test_twist_grailwar_options_reach_the_service() -> None:
    """The connection limits given on the command line are the service's (and so its lobby's)."""
    from grailwar.server import tap

    options = tap.Options()
    options.parseOptions(["--max-queued", "4096", "--handshake-timeout", "3",
                          "--idle-timeout", "50", "--joins-per-address", "70",
                          "--creates-per-address", "30"])
    service = tap.makeService(options)
    given = service.lobby_options
    assert (given["max_queued"], given["handshake_timeout"], given["idle_timeout"],
            given["joins_per_address"], given["creates_per_address"]) == (4096, 3.0, 50.0, 70, 30)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM")
def test_twist_grailwar_serves_and_stops(tmp_path: Path) -> None:
    """`twist grailwar --port 0 --db FILE` listens, and SIGTERM stops it with the database
    closed."""
    log = tmp_path / "twist.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [*twist(), "--log-format", "text", "grailwar", "--host", "127.0.0.1", "--port", "0",
             "--db", str(tmp_path / "rooms.db")],
            cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
    try:
        end = time.monotonic() + TIMEOUT
        while "grailwar server on 127.0.0.1:" not in log.read_text(errors="replace"):
            assert proc.poll() is None and time.monotonic() < end, log.read_text()
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=TIMEOUT)
    assert code in (0, -signal.SIGTERM), log.read_text()  # twist re-raises the signal it got
    assert "database" in log.read_text() and "closed" in log.read_text()
    assert (tmp_path / "rooms.db").exists()
