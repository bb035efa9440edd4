"""Pausing in the client (issue 13): the owner's Pause / Resume in the game screen, the banner
of a paused game with its clocks standing still, the lobby's paused rooms; and the local game
kept in the user's data folder: closing the window mid-game asks (Continue later / Quit /
Cancel), and the title screen offers Continue / New game, which takes the game back where it
stopped."""

from __future__ import annotations

import os
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from grailwar.client.localsave import LocalSave, SavedSeat
from grailwar.shared.engine import to_text
from test_local_game import start_local_game
from test_screens import render

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def labels(app: Any) -> list[str]:
    view = app.current
    return [text for text, _x, _y in view.base.labels + view.live.labels + view.overlay.labels]


@pytest.fixture
def kept(window: Any, reactor: Any, tmp_path: Path) -> Iterator[Any]:
    """A client whose local game is kept in `tmp_path` (as in the user's data folder)."""
    from grailwar.client.app import GrailApp

    app = GrailApp(reactor, lang="ja", name="衛宮", remember=False, window=window,
                   bot_delay=0.0, export_dir=tmp_path / "exports",
                   saves=LocalSave(tmp_path / "data"))
    yield app
    app.ui.extra.pop("close_ask", None)
    restart(app)


def restart(app: Any) -> None:
    """What quitting and starting `grailwar play` again does to the app's state."""
    if app.session is not None:
        app.session.close()
    if app.local is not None:
        app.local.stop()
        app.local = None
    app.closing = False
    app.pump(seconds=0.05, render=False)
    app.model.reset_room()
    app.model.notices.clear()


def pause(app: Any) -> None:
    app.current.click("pause")
    assert app.pump(until=lambda: app.model.paused and app.model.legal == [], timeout=10)
    app.current.invalidate()
    app.pump(seconds=0.05)
    assert app.model.connection == "connected"  # the same state again did not break the feed


def test_the_owner_pauses_and_resumes_from_the_game_screen(app: Any) -> None:
    m, tr = app.model, app.tr
    start_local_game(app)
    app.show("game")
    app.pump(seconds=0.02)
    assert app.current.region_by_id("pause") is not None
    pause(app)
    assert tr("pause.banner") in labels(app) and tr("pause.banner_owner") in labels(app)
    assert any(n.text == tr("pause.paused_by", name=app.settings["name"]) for n in m.notices)
    assert app.local.lobby.rooms[m.room_id].paused is not None
    seat = m.prompted_seats[0]
    frozen = m.seconds_left(seat, app.current.now())
    assert m.seconds_left(seat, app.current.now() + 120) == frozen  # the clocks stand still
    app.current.click("pause")  # now Resume
    assert app.pump(until=lambda: not m.paused, timeout=10)
    assert app.local.lobby.rooms[m.room_id].paused is None


def test_a_paused_room_is_shown_paused_in_the_lobby(app: Any) -> None:
    app.model.handle({"t": "rooms", "total": 1, "rooms": [
        {"id": 4, "name": "聖杯戦争・三日目", "locked": False, "seats": 7, "players": 3,
         "bots": 4, "spectators": 0, "started": True, "over": False, "paused": True}]})
    render(app, "lobby")
    assert app.tr("lobby.state_paused") in labels(app)


def test_closing_mid_game_asks_and_continue_later_keeps_the_game_paused(kept: Any) -> None:
    app, m = kept, kept.model
    start_local_game(app)
    room = m.room_id
    assert app.saves.held() is not None and app.saves.held().room == room
    app.request_close()
    app.pump(seconds=0.02)
    assert not app.closing and app.current.region_by_id("close_ok") is not None
    asking = app.local.lobby.rooms[room]  # the clocks stand still while it asks (issue 32)
    assert asking.paused is not None and asking.bot_driver.calls == {}
    left = asking.time_left()
    app.pump(seconds=1.2)
    assert asking.time_left() == left
    app.current.click("close_cancel")
    assert not app.closing and "close_ask" not in app.ui.extra
    assert asking.paused is None  # back to the game: it runs again
    app.request_close()
    app.pump(seconds=0.02)
    app.current.click("close_ok")  # Continue later
    assert app.closing
    stopped = app.local.lobby.rooms[room]
    assert stopped.paused is not None
    before, version = to_text(stopped.state), stopped.state.version
    restart(app)

    title = app.show("title")
    app.pump(seconds=0.02)
    assert title.region_by_id("continue_local") is not None
    assert app.tr("title.new_game") in labels(app)
    title.click("continue_local")
    assert app.pump(until=lambda: m.state is not None and m.paused, timeout=10)
    again = app.local.lobby.rooms[room]  # replayed from the kept log: exactly where it stopped
    assert to_text(again.state) == before and m.room_id == room and m.state_id == version
    assert app.current.name in ("game", "battle", "raid")
    app.current.click("pause")  # Resume
    assert app.pump(until=lambda: not m.paused, timeout=10)


def test_quit_gives_the_local_game_up_and_new_game_starts_afresh(kept: Any) -> None:
    app = kept
    start_local_game(app)
    app.request_close()
    app.pump(seconds=0.02)
    app.current.click("close_quit")
    assert app.closing and app.saves.held() is None
    restart(app)
    title = app.show("title")
    app.pump(seconds=0.02)
    assert title.region_by_id("continue_local") is None
    assert title.region_by_id("play_local") is not None


@pytest.mark.parametrize("lang", ["ja", "ko", "en"])
def test_screenshots_of_the_paused_game_and_the_continue_prompt(kept: Any, lang: str,
                                                                tmp_path: Path) -> None:
    """The screens the docs show, in each language: the paused game with its banner and the
    owner's Resume, the close dialog, and the title's Continue / New game."""
    app, tr = kept, kept.tr
    app.set_lang(lang)
    tr = app.tr
    start_local_game(app)
    app.show("game")
    pause(app)
    assert tr("pause.banner") in labels(app) and tr("pause.resume") in labels(app)
    shots = {"game_paused": app.capture(tmp_path / "game_paused.png")}
    app.request_close()
    app.pump(seconds=0.02)
    assert {tr("close.later"), tr("close.quit"), tr("close.cancel")} <= set(labels(app))
    shots["close_ask"] = app.capture(tmp_path / "close_ask.png")
    app.current.click("close_ok")
    restart(app)
    app.show("title")
    app.pump(seconds=0.02)
    assert {tr("title.continue"), tr("title.new_game")} <= set(labels(app))
    shots["title_continue"] = app.capture(tmp_path / "title_continue.png")
    for name, path in shots.items():
        assert path.stat().st_size > 20_000, name  # a drawn screen, not a blank one
        if os.environ.get("GRAILWAR_WRITE_SHOTS"):  # the docs' copy, made by the same run
            (SHOTS / lang / f"{name}.png").write_bytes(path.read_bytes())


def room_msg(owner_connected: bool, paused: bool) -> dict[str, Any]:
    return {"t": "room", "room": {"id": 1, "owner": 0, "paused": paused, "started": True,
                                  "seat_list": [{"seat": 0, "connected": owner_connected},
                                                {"seat": 1, "connected": True}]}}


@pytest.mark.parametrize("seat", [0, 1])
def test_pause_is_the_owners_and_resume_a_players_while_the_owner_is_away(seat: int) -> None:
    from grailwar.client.model import ClientModel

    m = ClientModel("en")
    m.handle({"t": "joined", "room": 1, "seat": seat, "token": "x" * 32, "spectator": False})
    m.handle(room_msg(True, False))
    m.handle({"t": "state", "view": {"over": False}, "legal": [], "state_id": 1,
              "deadlines": {"1": 30}})
    assert m.may_pause is (seat == 0) and not m.may_resume
    m.handle(room_msg(True, True))
    assert not m.may_pause and m.may_resume is (seat == 0)
    assert m.seconds_left(1, m.state_at + 600) == 30  # frozen
    m.handle(room_msg(False, True))  # the owner is away: any seated player may resume
    assert m.may_resume


def test_a_new_game_never_wipes_the_log_another_client_is_playing_on(tmp_path: Path) -> None:
    """A second `grailwar play` choosing New game while the first plays: refused, the first's
    files untouched (the server's lock on the log says it is in use)."""
    import fcntl

    save = LocalSave(tmp_path)
    save.start_afresh()
    save.db.write_bytes(b"the first client's game")
    save.keep(3, "t" * 32)
    fd = os.open(save.db, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as the running server holds it
        with pytest.raises(OSError, match="another grailwar play"):
            save.start_afresh()
        assert save.held() == SavedSeat(3, "t" * 32)
    finally:
        os.close(fd)
    save.start_afresh()
    assert save.held() is None and not save.db.exists()


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_the_pause_banner_leaves_the_battles_title_in_sight(app: Any, lang: str) -> None:
    """The pause banner runs right of the screen's title: a battle's name stays readable
    (issue 32: the banner covered it)."""
    from grailwar.client.views.common import PAUSE_LEFT
    from test_model import play_game
    from test_screens import join, render, room_public, state_msg

    app.set_lang(lang)
    state, events = play_game(seed=4, stop=lambda s: s.battle is not None)
    join(app)
    app.model.handle({"t": "events", "events": events, "log": []})
    app.model.handle(state_msg(state, 0, {str(x): 60 for x in state.prompt.seats}))
    app.model.handle({"t": "room", "room": {**room_public(started=True), "paused": True}})
    render(app, "battle")
    view, tr = app.current, app.tr
    banner = [t for key, items in view.live.pool.used.items() for t in items
              if key[0] == tr("pause.banner")]
    name = tr("battle.title", square=app.model.square_name(app.model.view["battle"]["square"]))
    title = [t for key, items in view.base.pool.used.items() for t in items
             if key[0].startswith(name)]
    assert banner and banner[0].left >= PAUSE_LEFT
    assert title and all(t.right <= PAUSE_LEFT for t in title), [t.text for t in title]


@pytest.mark.parametrize("lang", ["ja", "ko", "en"])
def test_five_tabs_and_pause_keep_left_of_the_countdown(app: Any, lang: str) -> None:
    """Issue 32: in a campaign room (five tabs) the owner's Pause ran under the countdown.
    The tabs share what is left of the header: each whole, none over another or the clock."""
    from grailwar.client.views.common import COUNTDOWN_LEFT
    from grailwar.shared.engine import new_game
    from test_screens import join, render, room_public, state_msg

    app.set_lang(lang)
    state = new_game(seed=2, modules=["campaign"])
    join(app)
    app.model.handle({"t": "room", "room": {**room_public(started=True), "modules": ["campaign"]}})
    app.model.handle(state_msg(state, 0, {str(x): 300 for x in state.prompt.seats}))
    render(app, app.model.home_screen)
    view = app.current
    boxes = [view.region_by_id(f"tab:{t}") for t in view.tabs()] + [view.region_by_id("pause")]
    assert len(boxes) == 6 and all(boxes)
    for a, b in pairwise(boxes):
        assert a.left + a.width <= b.left
    assert boxes[-1].left + boxes[-1].width <= COUNTDOWN_LEFT
    labels = [t for key, items in view.base.pool.used.items() for t in items
              if any(key[0] == r.label for r in boxes)]
    assert labels and all("…" not in t.text for t in labels)
