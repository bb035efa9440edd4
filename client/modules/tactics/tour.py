"""The tactics module's tour: a staged battle (`tactics_battle`) fed to the client as the
server's messages, with no server: the map with the zones of control and blocking terrain, the
battle with a ruled-out target's reason, the concentration options."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ....shared.engine import apply, events_for, new_game
from ....shared.engine.actions import AnswerIntervention, DeclareEncounter, DeclareWait
from ....shared.engine.data import default_ruleset
from ....shared.engine.events import Event
from ....shared.engine.state import GameState
from ....shared.modules.tactics import Concentrate
from ....shared.protocol import PROTOCOL_VERSION
from ...tour import PLAYER, state_message

TACTICS_SEED = 20240611  # the staged tactics battle's (its screens and tests rely on it)

# The staged tactics battle on Akatsukigahama: Caster on 18 (x4 y2), Lancer two squares below on
# 32 behind the blocking Business District (25), Saber four squares away on 22, out of sight.
TACTICS_CLASSES = ("caster", "lancer", "saber")
TACTICS_SQUARES = (18, 32, 22)


def tactics_battle(seed: int = TACTICS_SEED) -> tuple[GameState, list[Event]]:
    """A tactics battle at the round start of round 1, staged so that every mark shows: Caster
    (seat 0) meets Lancer, Saber joins, then the three stand on TACTICS_SQUARES, where a blocking
    square cuts Caster's line of fire to Lancer and Saber is out of Caster's sight; Lancer has
    declared a concentration roll for the initiative. Returns the state and its events."""
    own = [default_ruleset().servants[c].id for c in TACTICS_CLASSES]  # the staging needs them
    s = new_game(seed=seed, classes=TACTICS_CLASSES, modules=["tactics"], servants=own)
    for seat, square in enumerate((17, 17, 18)):  # Saber near enough to join
        s.edit(seat).pos = square
    events: list[Event] = []
    for action in (DeclareEncounter(0, 1, "battle"), DeclareWait(2), AnswerIntervention(2, True),
                   Concentrate(1, "initiative")):
        s, new = apply(s, action)
        events.extend(new)
    for seat, square in enumerate(TACTICS_SQUARES):
        s.edit(seat).pos = square
    return s, events


def screens(tour: Any, scenario: str = "") -> list[Path]:
    """Its screens: the map with the zones of control and blocking terrain,
    the battle with a ruled-out target's reason, the concentration options."""
    app, m = tour.app, tour.app.model
    state, events = tactics_battle()
    seat = 0
    names = [PLAYER.get(tour.lang, "Ayaka"), "", ""]
    m.handle({"t": "welcome", "version": PROTOCOL_VERSION, "server": "tour"})
    m.handle({"t": "joined", "room": 1, "seat": seat, "token": "", "spectator": False})
    m.handle({"t": "room", "room": {"modules": ["tactics"], "seat_list": [
        {"seat": i, "kind": "bot" if i else "human", "name": name, "level": "normal"}
        for i, name in enumerate(names)]}})
    m.handle({"t": "events", "events": events_for(events, seat), "log": []})
    m.handle(state_message(state, seat, {str(x): 60 for x in state.prompt.seats}))
    app.show("game")
    tour.hover("cell:34")  # blocking terrain under Lancer's zone (its tooltip hides little)
    tour.shot("tactics_map")
    app.show("battle")
    app.current.click("verb:UseSkill")
    ruled_out = next(i for i, o in enumerate(app.current.current_options()) if o.reason)
    tour.hover(f"opt:{ruled_out}")
    tour.shot("tactics_battle")
    app.ui.reset()
    app.current.click("verb:Concentrate")
    tour.hover("opt:0")
    tour.shot("tactics_concentrate")
    return tour.files

