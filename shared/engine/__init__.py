"""The pure rules engine of the base game (seed 000): no sockets, no clock, no global random.

    state = new_game(seed=1)
    for seat in state.prompt.seats: legal_actions(state, seat)
    state, events = apply(state, action)     # or raises a RulesError, state unchanged
    view_for(state, seat)                    # what that seat may know
"""

from .actions import Action, from_dict
from .errors import (
    GameOverError,
    IllegalActionError,
    MalformedActionError,
    NotPromptedError,
    RulesError,
)
from .events import Event, view_event
from .game import apply, default_action, from_replay, legal_actions, new_game, play
from .state import GameState
from .text import to_text
from .view import events_for, view_for

__all__ = [
    "Action", "Event", "GameOverError", "GameState", "IllegalActionError",
    "MalformedActionError", "NotPromptedError", "RulesError", "apply", "default_action",
    "events_for", "from_dict", "from_replay", "legal_actions", "new_game", "play", "to_text",
    "view_event", "view_for",
]

from .. import modules as _shipped_modules  # noqa: F401  (registers the shipped modules)
