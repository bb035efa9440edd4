"""Searching bots think in worker processes (server/thinking.py, issue 11 item 2): a decision
crosses as plain data and comes back as a legal action; without workers they play normal."""

from __future__ import annotations

from typing import Any

from grailwar.server.thinking import BotPool, decide, no_search, searches
from grailwar.shared.engine import legal_actions, new_game, view_for


class CallsAtOnce:
    """A reactor stand-in whose callFromThread runs the call in the calling thread."""

    def callFromThread(self, f: Any, *args: Any) -> None:
        f(*args)


def first_decision() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    state = new_game(seed=3)
    return view_for(state, 0), [a.to_dict() for a in legal_actions(state, 0)]


def test_a_worker_process_decides_a_legal_action() -> None:
    view, legal = first_decision()
    pool = BotPool(CallsAtOnce(), workers=1)
    got: list[Any] = []
    pool.think(decide, "hard", 1, 50, view, legal).addBoth(got.append)
    pool.executor.shutdown(wait=True)  # the decision is made, and its answer delivered
    assert got and got[0] in legal, got


def test_without_workers_a_searching_seat_plays_the_normal_bot_at_once() -> None:
    view, legal = first_decision()
    got: list[Any] = []
    no_search(decide, "hard", 1, 50, view, legal).addCallback(got.append)
    assert got == [decide("normal", 1, 50, view, legal)]
    assert searches("hard") and not searches("normal") and not searches("heuristic")
