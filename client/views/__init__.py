"""The screens of the desktop client, one arcade.View each."""

from __future__ import annotations

from ..modules import every_part
from .battle import BattleView
from .dossier import DossierView
from .end import EndView
from .game import GameView
from .help import HelpView
from .language import LanguageView
from .lobby import LobbyView
from .log import LogView
from .room import RoomView
from .title import TitleView

VIEW_CLASSES = {
    "title": TitleView, "lobby": LobbyView, "room": RoomView, "game": GameView,
    "battle": BattleView, "dossier": DossierView, "log": LogView, "end": EndView,
    "language": LanguageView, "help": HelpView,
}


def view_class(name: str) -> type:
    """A screen's class: the base's, or a module's own (its client part's `screens`)."""
    if name in VIEW_CLASSES:
        return VIEW_CLASSES[name]
    for part in every_part():
        screens = part.screens()
        if name in screens:
            return screens[name]
    raise KeyError(f"no screen {name!r}")

__all__ = ["VIEW_CLASSES", "view_class"]
