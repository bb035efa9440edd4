"""The first start: the system's language when it is Japanese or Korean, else the client asks
(日本語 / 한국어 / English) before the title, and remembers the answer."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
from grailwar.client import config
from grailwar.client.i18n import Tr
from test_screens import colours_in, render


@pytest.fixture
def system_lang(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Set the system's locale as LANG alone (no LC_ALL, no LC_MESSAGES)."""
    for var in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    yield lambda value: monkeypatch.setenv("LANG", value)


def start(window: Any, reactor: Any) -> Any:
    """The client as `grailwar play` starts it: remembering, no --lang."""
    from grailwar.client.app import GrailApp

    return GrailApp(reactor, remember=True, window=window)


@pytest.mark.parametrize(("locale", "expected"), [
    ("ja_JP.UTF-8", "ja"), ("ko_KR.UTF-8", "ko"), ("en_US.UTF-8", ""), ("C", ""), ("", ""),
])
def test_only_japanese_and_korean_systems_give_the_language(system_lang: Any, locale: str,
                                                          expected: str) -> None:
    system_lang(locale)
    assert config.guess_lang() == expected


def test_a_japanese_system_starts_in_japanese_without_asking(window: Any, reactor: Any,
                                                              system_lang: Any) -> None:
    system_lang("ja_JP.UTF-8")
    assert not config.config_path().exists()
    app = start(window, reactor)
    assert app.current.name == "title"
    assert app.tr.lang == "ja"


def test_another_system_asks_first_and_the_answer_is_remembered(window: Any, reactor: Any,
                                                                 system_lang: Any) -> None:
    system_lang("C")
    app = start(window, reactor)
    assert app.current.name == "language"
    app.save_settings()  # what playing or connecting saves before any answer
    assert start(window, reactor).current.name == "language", "no answer yet: asked again"
    image = render(app, "language")
    view = app.current
    labels = [label for label, _x, _y in view.base.labels]
    for lang in ("ja", "ko", "en"):
        assert Tr(lang)("language.choose") in labels, lang
        region = view.region_by_id(f"lang:{lang}")
        assert region is not None and region.enabled
        assert colours_in(image, region) > 8, "the button's label is drawn"
    assert view.click("lang:ko")
    assert app.current.name == "title" and app.tr.lang == "ko"
    assert json.loads(config.config_path().read_text(encoding="utf-8"))["lang"] == "ko"
    again = start(window, reactor)
    assert again.current.name == "title" and again.tr.lang == "ko"
    assert os.environ["LANG"] == "C"  # still a system the client cannot go by


def test_a_name_on_the_command_line_waits_for_the_language_answer(window: Any, reactor: Any,
                                                                  system_lang: Any) -> None:
    """`connect HOST --name N` (or `play --name N`) on a first start: the language is asked
    first, and what the command line asked for runs once it is answered (issue 32: it
    skipped the question)."""
    from grailwar.client.app import GrailApp

    system_lang("C")
    app = GrailApp(reactor, remember=True, window=window, name="Rin")
    done: list[str] = []
    app.start_when_ready(done.append, "connected")
    assert app.current.name == "language" and done == []
    app.current.click("lang:ja")
    assert done == ["connected"] and app.tr.lang == "ja"
