"""The screens of the desktop client, one arcade.View each."""

from __future__ import annotations

from .battle import BattleView
from .camp import CampView
from .day0 import Day0View
from .dossier import DossierView
from .end import EndView
from .game import GameView
from .help import HelpView
from .language import LanguageView
from .lobby import LobbyView
from .log import LogView
from .raid import RaidView
from .room import RoomView
from .title import TitleView

VIEW_CLASSES = {
    "title": TitleView, "lobby": LobbyView, "room": RoomView, "game": GameView,
    "battle": BattleView, "raid": RaidView, "dossier": DossierView, "log": LogView, "end": EndView,
    "language": LanguageView, "help": HelpView, "camp": CampView, "day0": Day0View,
}

__all__ = ["VIEW_CLASSES"]
