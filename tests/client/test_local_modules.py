"""`grailwar play --modules`: the local game's room is created with the modules asked for."""

from __future__ import annotations

from typing import Any

from test_local_game import start_local_game


def test_the_local_room_switches_the_modules_on(app: Any) -> None:
    """The create_room the local game sends carries `local_modules` (what `grailwar play
    --modules tactics --option tactics.concentration=false` sets): the room and the game's view
    show the module with its option."""
    app.local_modules = {"modules": ["tactics"], "options": {"tactics": {"concentration": False}}}
    start_local_game(app)
    room = app.model.room
    assert room["modules"] == ["tactics"]
    assert room["module_options"] == {"tactics": {"concentration": False}}
    assert app.model.view["modules"]["tactics"]["options"] == {"concentration": False}


def test_local_play_opens_the_create_panel_and_reaches_every_module(app: Any,
                                                                    tmp_path: Any) -> None:
    """"Play locally" opens the lobby's create panel (issue 32: it went straight to a room with
    no module choice): the campaign switched on there, with its day-0 timer, reaches the room,
    bots fill every other seat, and the title then names the kept game's modules."""
    from grailwar.client.localsave import LocalSave
    from test_local_game import open_local_lobby
    from test_screens import render

    app.saves = LocalSave(tmp_path / "data")  # the local game is kept, as by `grailwar play`
    lobby = open_local_lobby(app)
    tr = app.tr
    render(app, "lobby")
    assert lobby.region_by_id("refresh") is None and lobby.region_by_id("field:password") is None
    lobby.click("page:rules")
    lobby.click("module:campaign")
    lobby.click("timer:setup_s")
    lobby.click("create")
    m = app.model
    assert app.pump(until=lambda: m.room is not None and all(
        s["kind"] != "open" for s in m.room["seat_list"]), timeout=10)
    assert m.room["modules"] == ["campaign"] and m.room["options"]["setup_s"] == 600
    assert sum(s["kind"] == "bot" for s in m.room["seat_list"]) == 6
    app.current.click("start")
    assert app.pump(until=lambda: m.state is not None, timeout=10)
    app.local.stop()  # the game is kept: the title offers it, naming its modules
    app.local = None
    held = app.saved_local_game()
    assert held is not None and held.modules == ("campaign",)
    render(app, "title")
    labels = [label for label, _x, _y in app.current.base.labels]
    assert any(tr("title.kept_modules", list=tr.module("campaign")) in label for label in labels)


def test_the_local_lobby_keeps_its_words_inside_its_panel(app: Any) -> None:
    """The local lobby's explanation and each module's help wrap inside the left panel, in
    Japanese and Korean."""
    from test_local_game import open_local_lobby
    from test_screens import render

    for lang in ("ja", "ko"):
        app.set_lang(lang)
        lobby = open_local_lobby(app)
        render(app, "lobby")
        wanted = (app.tr("lobby.local_text"), app.tr("module_help.campaign"))
        body = [t for key, items in lobby.base.pool.used.items() for t in items
                if key[0] in wanted]
        assert len(body) == 2
        for t in body:
            assert t.left >= 24 and t.right <= 24 + 780 and t.bottom >= 40, t.text
        app.go_title()
