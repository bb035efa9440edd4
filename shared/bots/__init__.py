"""Bots for every seat: random, easy, normal (heuristic) and hard (search), deciding from their
own seat's view and the legal actions only."""

from .base import LEVELS, Bot, make_bot
from .hard import HardBot
from .heuristic import EasyBot, HeuristicBot
from .random_bot import RandomBot

__all__ = ["LEVELS", "Bot", "EasyBot", "HardBot", "HeuristicBot", "RandomBot", "make_bot"]
