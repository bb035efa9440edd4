"""Typed errors raised by `apply`; the state they were raised on is never changed."""

from __future__ import annotations


class RulesError(ValueError):
    """Base of every error the engine raises for an action it refuses."""


class GameOverError(RulesError):
    """The game has ended; no action is accepted."""


class NotPromptedError(RulesError):
    """The seat is not among the seats the game is waiting for."""


class IllegalActionError(RulesError):
    """The seat may act, but not this action (wrong card, out of range, wrong phase …)."""


class MalformedActionError(RulesError):
    """The action could not be decoded (unknown type, missing or mistyped field)."""
