"""Bots that choose from a seat's legal actions (and, for the heuristic bot, its own view only)."""

from .base import Bot, make_bot
from .heuristic import HeuristicBot
from .random_bot import RandomBot

__all__ = ["Bot", "HeuristicBot", "RandomBot", "make_bot"]
