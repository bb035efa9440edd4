"""Results are told on the screen the player is on, not only in the log: its investigation's
result, a timeout the server played for it, a Command Spell's effect."""

from __future__ import annotations

from typing import Any

import pytest
from grailwar.shared.engine import events_for
from test_battle_feed import has, play_until
from test_model import model_for
from test_screens import join, render, state_msg


def test_my_investigation_result_is_a_notice() -> None:
    state, every = play_until(3, has("Investigated"))
    found = next(e for e in reversed(every) if e.type == "Investigated")
    seat = found.data["seat"]
    m = model_for(state, "ja", seat)
    m.handle({"t": "events", "events": events_for(every, seat), "log": []}, now=100.0)
    notice = m.current_notice(101.0)
    cls = m.tr.cls(found.data["cls"])
    assert notice is not None and notice.text.startswith(f"{cls}の調査：")
    assert notice.text == m.event_text({"type": "Investigated", **found.data})


def test_a_command_spell_is_a_notice_with_its_effect_for_the_whole_table() -> None:
    state, every = play_until(2, has("CommandSpellUsed"))
    used = next(e for e in reversed(every) if e.type == "CommandSpellUsed")
    watcher = (used.data["seat"] + 1) % len(state.camps)
    m = model_for(state, "ko", watcher)
    m.handle({"t": "events", "events": events_for(every, watcher), "log": []}, now=100.0)
    spell = m.tr.rules.command_spells[used.data["spell"]]
    text = m.current_notice(101.0).text
    assert f"‘{spell.name.get('ko')}’" in text and text.endswith(spell.text.get("ko"))


def test_a_timeout_played_for_me_is_a_notice_and_another_seats_is_not() -> None:
    state, _ = play_until(3, has("TurnStarted"))
    m = model_for(state, "ja", 0)
    m.handle({"t": "timed_out", "seat": 1, "action": {"type": "DeclareWait", "seat": 1}},
             now=100.0)
    assert m.current_notice(101.0) is None
    m.handle({"t": "timed_out", "seat": 0, "action": {"type": "DeclareWait", "seat": 0}},
             now=100.0)
    assert m.current_notice(101.0).text == "時間切れ：あなたの代わりに「待機」を選びました。"


def test_the_notice_is_drawn_on_the_screen_the_player_is_on(app: Any) -> None:
    state, _ = play_until(3, has("TurnStarted"))
    join(app, 0)
    app.model.handle(state_msg(state, 0))
    app.model.handle({"t": "timed_out", "seat": 0, "action": {"type": "DeclareWait",
                                                              "seat": 0}})
    for screen in ("game", "dossier"):
        render(app, screen)
        labels = [label for label, _x, _y in app.current.base.labels]
        assert "時間切れ：あなたの代わりに「待機」を選びました。" in labels, screen


def test_a_saved_log_goes_to_the_documents_folder_not_the_current_one(
        tmp_path: Any, monkeypatch: Any) -> None:
    """Logs go to a folder of their own in the user's documents (the one user-dirs.dirs names
    on a Linux desktop, in its own language), never to the folder the client started from."""
    from grailwar.client import config

    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    (home / "文書").mkdir()
    (home / ".config" / "user-dirs.dirs").write_text(
        'XDG_DESKTOP_DIR="$HOME/Desktop"\nXDG_DOCUMENTS_DIR="$HOME/文書"\n', encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    for var in ("XDG_CONFIG_HOME", "XDG_DOCUMENTS_DIR", "GRAILWAR_EXPORTS"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    assert config.exports_dir() == home / "文書" / "Grail War Online"
    (home / ".config" / "user-dirs.dirs").unlink()
    assert config.exports_dir() == home / "Grail War Online"  # no Documents: the home
    (home / "Documents").mkdir()
    assert config.exports_dir() == home / "Documents" / "Grail War Online"
    monkeypatch.setenv("GRAILWAR_EXPORTS", str(tmp_path / "mine"))
    assert config.exports_dir() == tmp_path / "mine"


def test_the_saved_to_notice_stays_with_its_path_until_closed(app: Any) -> None:
    """The export's notice names the whole path and stays on screen under later notices
    until its close button is pressed (it was replaced by the next notice at once)."""
    path = app.export("log")
    assert path is not None
    now = app.current.now()
    notice = app.model.current_notice(now + 600)
    assert notice is not None and notice.sticky and str(app.export_dir) in notice.text
    app.model.notify("別の知らせ", "info", now=now + 601)
    assert app.model.current_notice(now + 602).text == "別の知らせ"
    assert app.model.current_notice(now + 700) is notice  # back once the other has gone
    render(app, "title")
    app.current.notice_shown = None
    app.model.notices.clear()
    render(app, "title")
    close = app.current.region_by_id("notice_close")
    assert close is not None and close.label == app.tr("top.close_notice")
    app.current.click("notice_close")
    assert app.model.current_notice(now + 700) is None
    render(app, "title")
    assert app.current.region_by_id("notice_close") is None


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_a_notice_covers_no_control_on_any_screen(app: Any, lang: str) -> None:
    """A notice is drawn where no button, field or card sits under it (issue 32: toasts at the
    bottom centre hid the investigation targets, the chat input, the cards and 部屋を作成)."""
    from test_model import play_game

    app.set_lang(lang)
    for stop, screens in ((lambda s: s.day == 1 and s.turn == 1, ("game", "dossier", "log")),
                          (lambda s: s.battle is not None, ("battle", "game"))):
        state, events = play_game(seed=4, stop=stop)
        join(app)
        app.model.handle({"t": "events", "events": events, "log": []})
        app.model.handle(state_msg(state, 0, {str(x): 60 for x in state.prompt.seats}))
        for screen in ("title", "lobby", *screens):
            app.model.notify(app.tr("error.name_empty") * 3, "info")
            render(app, screen)
            view = app.current
            box = view.notice_box
            assert box is not None, screen
            left, bottom, width, height = box
            under = [r.id for r in view.regions if (r.label or r.on_click is not None)
                     and r.left < left + width and left < r.left + r.width
                     and r.bottom < bottom + height and bottom < r.bottom + r.height]
            assert not under, (screen, box, under)
