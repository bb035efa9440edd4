"""Where the server's bots think (issue 11 item 2: bots must never starve the rooms).

A searching bot (the hard level) spends its whole budget on the CPU, and in a thread of the
server's process it holds the interpreter's lock against the reactor: four abandoned rooms of
hard bots once held acknowledgements elsewhere up to 2.5 s. So searches run in worker
processes (`BotPool`: `--bot-workers`, the server's cap on bot CPU, one core by default), each
room has at most one search in flight (`Room._bot_move`), and a room that no person watches
plays its searching seats at the normal level, in process, at once (`search_level`).

A decision crosses the process boundary as plain data: the bot's level, seed and budget, the
seat's view and its legal actions as dicts; the worker builds the bot and answers a dict.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

from twisted.internet.defer import Deferred, maybeDeferred
from twisted.internet.interfaces import IReactorFromThreads

from ..shared.bots import make_bot
from ..shared.bots.base import ALIASES
from ..shared.engine import from_dict

BOT_WORKERS = 1  # processes for searching bots: the cap on the bots' share of the machine


def room_bot(level: str, seed: int, budget_ms: int) -> Any:
    """A bot of the seat's level, thinking at most the room's budget per decision; a level
    this build lacks plays as the normal bot."""
    try:
        return make_bot(level, seed, budget_s=budget_ms / 1000)
    except ValueError:
        return make_bot("normal", seed)


def searches(level: str) -> bool:
    """The levels that spend their time budget searching (the others answer at once)."""
    return ALIASES.get(level, level) == "hard"


def decide(level: str, seed: int, budget_ms: int, view: dict[str, Any] | None,
           legal: list[dict[str, Any]]) -> dict[str, Any]:
    """One decision, as a worker process makes it: plain data in, an action dict out."""
    bot = room_bot(level, seed, budget_ms)
    return bot.choose(view, [from_dict(a) for a in legal]).to_dict()


class BotPool:
    """Worker processes for searching bots; `think` answers a Deferred on the reactor."""

    def __init__(self, reactor: IReactorFromThreads, workers: int = BOT_WORKERS) -> None:
        self.reactor = reactor
        # spawn, not fork: a forked child would inherit the reactor's sockets and threads
        self.executor = ProcessPoolExecutor(workers, multiprocessing.get_context("spawn"))

    def think(self, f: Callable[..., Any], *args: Any) -> Deferred:
        """`f(*args)` in a worker (`f` and the args must pickle: `decide` and plain data)."""
        done: Deferred = Deferred()
        future = self.executor.submit(f, *args)
        future.add_done_callback(lambda f: self.reactor.callFromThread(_settle, done, f))
        return done

    def stop(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)


def no_search(f: Callable[..., Any], level: str, *args: Any) -> Deferred:
    """A server without bot workers (`--bot-workers 0`): searching seats play the normal bot."""
    return maybeDeferred(f, "normal", *args)


def _settle(done: Deferred, future: Future) -> None:
    error = future.exception()
    if error is not None:
        done.errback(error)
    else:
        done.callback(future.result())

