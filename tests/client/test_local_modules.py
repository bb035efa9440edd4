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
