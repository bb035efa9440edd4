"""The priority phase (docs/rules.md §3.3, a decision on seed 000 §Turn 2 and Q17): in a game
with one, Encounter, Ambush and Soul-eating are declared only during the phase; an ordinary
declaration made in it is held and joins the order after every priority one when the phase
ends (when every camp still to declare has passed, or by its timer: PassPriority); a held camp
that becomes a target is bound, and its held declaration is withdrawn."""

from __future__ import annotations

import random

import pytest
from grailwar.shared.bots import make_bot
from grailwar.shared.bots.determinize import state_from_view
from grailwar.shared.engine import (
    IllegalActionError,
    apply,
    default_action,
    legal_actions,
    play,
    view_for,
)
from grailwar.shared.engine.actions import (
    DeclareAmbush,
    DeclareEncounter,
    DeclareRest,
    DeclareSoulEating,
    DeclareWait,
    PassPriority,
)
from grailwar.shared.engine.data import CLASSES
from helpers import find, game, place, types

PRIORITY_TYPES = (DeclareEncounter, DeclareAmbush, DeclareSoulEating)


def phased(classes=("saber", "lancer", "archer"), **kw):
    """Three camps on one square, a priority phase at the start of every turn."""
    s = game(classes, priority_phase=True, **kw)
    for seat in range(len(classes)):
        place(s, seat, 10)
    return s


def priority_legal(s, seat) -> list:
    return [a for a in legal_actions(s, seat) if isinstance(a, PRIORITY_TYPES)]


def test_an_ordinary_declaration_in_the_phase_is_held_and_closes_nothing():
    """Without a phase the first Rest closes Encounter for everyone (the race of Q17); with it,
    the Rest is held, and the other camps may still encounter."""
    race = game(("saber", "lancer", "archer"))
    for seat in range(3):
        place(race, seat, 10)
    race, _ = apply(race, DeclareRest(0))
    assert priority_legal(race, 1) == []

    s = phased()
    s, events = apply(s, DeclareRest(0))
    declared = find(events, "Declared")[0]
    assert declared.public == {"seat": 0, "kind": "rest", "held": True}
    assert s.decls == () and [d.kind for d in s.held] == ["rest"]
    assert DeclareEncounter(1, 2, "battle") in legal_actions(s, 1)
    assert 0 not in s.prompt.seats  # it has declared: it is asked nothing more this turn



def test_every_view_lists_the_held_declaration_marked_in_a_list_of_its_own():
    s = phased()
    s, _ = apply(s, DeclareRest(0))
    held = [{"seat": 0, "kind": "rest", "held": True}]
    mine = view_for(s, 0)["declarations"]
    assert mine == held
    mine.append({"seat": 9, "kind": "wait"})  # what a client may do with its copy
    assert view_for(s, 0)["declarations"] == held  # the views of a state are kept, not this
    assert view_for(s, 1)["declarations"] == held

def test_held_declarations_resolve_after_every_priority_declaration():
    """Rest arrives first but resolves after the Soul-eating declared later in the phase; the
    phase ends when the last camp to declare has passed."""
    s = phased()
    s, _ = apply(s, DeclareRest(0))
    s, _ = apply(s, DeclareSoulEating(1))
    s, _ = apply(s, PassPriority(2))
    assert not s.priority
    assert [(d.seat, d.kind) for d in s.decls] == [(1, "soul_eating"), (0, "rest")]
    assert s.prompt.seats == {2}
    s, events = apply(s, DeclareWait(2))
    closed = find(events, "DeclarationsClosed")[0]
    assert closed.data["order"] == [1, 0, 2]


def test_after_the_phase_no_priority_declaration_is_legal():
    s = phased()
    s, _ = apply(s, PassPriority(0))
    assert priority_legal(s, 0) == []  # passed: its own priority declarations are gone
    assert priority_legal(s, 1) != []  # the others' stay while the phase is open
    s, _ = apply(s, PassPriority(1))
    s, events = apply(s, PassPriority(2))
    assert "PriorityPhaseEnded" in types(events)
    for seat in range(3):
        assert priority_legal(s, seat) == []
        assert PassPriority(seat) not in legal_actions(s, seat)
    with pytest.raises(IllegalActionError):
        apply(s, DeclareEncounter(0, 1, "battle"))


def test_a_held_camp_that_is_targeted_is_bound_and_its_declaration_withdrawn():
    """Seed 000 §Turn 2: the partner's action is treated as the Encounter; the camp had only
    declared inside the phase, so its Rest never happened."""
    s = phased()
    s, _ = apply(s, DeclareRest(0))
    s, events = apply(s, DeclareEncounter(1, 0, "battle"))
    withdrawn = find(events, "DeclarationWithdrawn")
    assert [(e.data["seat"], e.data["kind"]) for e in withdrawn] == [(0, "rest")]
    assert s.held == () and 0 in s.bound
    s, _ = apply(s, DeclareWait(2))  # the last to declare: the phase ends, the window closes
    assert [(d.seat, d.kind) for d in s.decls] == [(1, "encounter"), (2, "wait")]


def test_the_timeout_in_the_phase_passes_then_waits():
    """The server's phase timer issues PassPriority; the declaration timer, Wait."""
    s = phased()
    assert default_action(s, 0) == PassPriority(0)
    s, _ = apply(s, PassPriority(0))
    assert default_action(s, 0) == DeclareWait(0)


def test_the_next_turn_opens_a_new_phase():
    s = phased()
    for seat in range(3):
        s, _ = apply(s, DeclareWait(seat))
    assert (s.day, s.turn, s.phase) == (1, 1, "declare")
    assert s.priority and s.passed == frozenset() and s.held == ()
    assert priority_legal(s, 0) != []


def test_the_view_shows_the_phase_and_held_declarations_to_every_seat():
    s = phased()
    s, _ = apply(s, DeclareRest(0))
    s, _ = apply(s, PassPriority(1))
    for viewer in (None, 0, 1, 2):
        view = view_for(s, viewer)
        assert view["priority"] == {"open": True, "passed": [1]}
        assert view["declarations"] == [{"seat": 0, "kind": "rest", "held": True}]
    assert view_for(game(), 0)["priority"] is None


def test_a_determinized_state_keeps_the_phase():
    """The hard bot rebuilds the phase, the passes and the held declarations from its view."""
    s = phased()
    s, _ = apply(s, DeclareRest(0))
    s, _ = apply(s, PassPriority(1))
    rebuilt = state_from_view(view_for(s, 2), s.rules, random.Random(1))
    assert rebuilt.priority and rebuilt.passed == {1}
    assert [(d.seat, d.kind) for d in rebuilt.held] == [(0, "rest")]
    assert set(legal_actions(rebuilt, 2)) == set(legal_actions(s, 2))


@pytest.mark.parametrize("level", ["random", "easy", "normal"])
def test_bots_play_whole_games_with_a_priority_phase(level):
    """Every bot copes with PassPriority and held declarations from day 1 to the end."""
    s = game(CLASSES, seed=4, priority_phase=True, servants=None)
    bots = [make_bot(level, seat) for seat in range(len(CLASSES))]
    held = 0
    for _ in range(20000):
        if s.over:
            break
        seat = min(s.prompt.seats)
        bot = bots[seat]
        view = view_for(s, seat) if bot.needs_view else None
        events = play(s, bot.choose(view, legal_actions(s, seat)))
        held += sum(1 for e in events if e.type == "Declared" and e.public.get("held"))
    assert s.over
    assert held > 0


def test_a_sleeping_master_does_not_hold_the_phase_open():
    """A camp whose Master sleeps may only Wait or Rest: the phase waits for the others only,
    and its timeout is the declaration's Wait."""
    s = phased()
    s.edit(2).asleep = True
    assert PassPriority(2) not in legal_actions(s, 2)
    assert default_action(s, 2) == DeclareWait(2)
    s, _ = apply(s, PassPriority(0))
    s, events = apply(s, PassPriority(1))
    assert "PriorityPhaseEnded" in types(events)
    assert s.prompt.seats == {0, 1, 2}
