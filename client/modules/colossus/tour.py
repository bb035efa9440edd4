"""The colossus's staged raids (seed 003 §5), played through the engine with forced dice, for the
tour's screenshots and the client tests: every screen shows a state the rules reached."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ....shared.engine import apply, legal_actions, new_game
from ....shared.engine.actions import Action, DeclareRest, React, Ready, UseSkill
from ....shared.engine.data import default_ruleset
from ....shared.engine.events import Event
from ....shared.engine.prompts import PROMPTS
from ....shared.engine.state import GameState
from ....shared.modules.colossus import Colossus
from ....shared.modules.colossus.actions import (
    COLOSSUS,
    AttackPart,
    Climb,
    ClimbAttack,
    ClimbMove,
    ClimbTo,
    DeclareRaid,
    EndClimb,
    Mount,
)
from ...tour import PLAYER, feed

RAID_SEED = 3
RAID_CLASSES = ("lancer", "saber", "archer")  # seat 0 (the tour's) and Saber climb
SPELL_CLASSES = ("caster", "lancer", "archer")  # seat 0 casts at the colossus
RAID_SQUARE = 40  # next to its waking square (41): in reach of every raider
HIT = (5, 5)  # a 2D6 hit check that reaches the colossus's 9 (no critical)
MISS = (1, 2)
ARCHER = 2
DAMAGE = (6, 5)  # the damage dice of a card attack


class Staging:
    """A raid being played: each step applies one action with its dice, keeping the events."""

    def __init__(self, scenario: str = "colossus", classes: tuple[str, ...] = RAID_CLASSES,
                 seed: int = RAID_SEED, masters: tuple[str, ...] | None = None) -> None:
        rules = default_ruleset()
        options = {"colossus": {"scenario": scenario, "colossus_day": 1}}
        self.state = new_game(seed=seed, classes=classes, modules=["colossus"],
                              options=options, servants=[rules.servants[c].id for c in classes],
                              masters=masters)
        self.events: list[Event] = []
        self.module = next(m for m in self.state.modules if isinstance(m, Colossus))
        for seat in range(len(classes)):
            self.state.edit(seat).pos = RAID_SQUARE

    def go(self, action: Action, dice: Iterable[int] = ()) -> Staging:
        s = self.state
        s.forced = (*s.forced, *dice)
        self.state, events = apply(s, action)
        self.events.extend(events)
        return self

    @property
    def raid(self) -> object:
        return self.module.st(self.state).raid

    def open(self) -> Staging:
        for seat in range(len(self.state.camps)):
            self.go(DeclareRaid(seat))
        return self

    def start_round(self, climb: tuple[int, ...] = ()) -> Staging:
        for seat in climb:
            self.go(Climb(seat))
        for seat in sorted(self.state.prompt.seats):
            self.go(Ready(seat))
        return self

    def guard(self) -> Staging:
        """Every target of the colossus's attack Guards (its damage dice forced low)."""
        while self.state.prompt.kind == "raid_reaction":
            self.go(React(min(self.state.prompt.seats), "G", ""), (4, 4))
        return self

    def timeout(self, until: Callable[[GameState], bool], limit: int = 400) -> Staging:
        """Every prompted seat takes what its timeout would take, until `until` holds."""
        for _ in range(limit):
            if until(self.state) or self.state.over:
                return self
            seat = min(self.state.prompt.seats)
            self.go(PROMPTS[self.state.prompt.kind].default(self.state, seat))
        raise RuntimeError(f"the staging did not reach its state: {self.state.prompt}")

    def march(self, turns: int) -> Staging:
        """The raid played out on timeouts, then `turns` turns in which every camp Rests
        (its Master stays awake) while the colossus marches at each turn's end."""
        self.timeout(lambda s: self.raid is None and s.prompt.kind == "declare")
        for _ in range(turns):
            turn = (self.state.day, self.state.turn)
            while (self.state.day, self.state.turn) == turn and not self.state.over:
                self.go(DeclareRest(min(self.state.prompt.seats)))
        return self

    def climb(self, seat: int, roll: int, to: str) -> Staging:
        return self.go(ClimbMove(seat), (roll,)).go(ClimbTo(seat, to))

    def strike(self, seat: int, part: str = "", dice: Iterable[int] = (*HIT, *DAMAGE)
               ) -> Staging:
        """The first card attack the hand allows: on `part` from the ground, or on the
        climber's own tile."""
        legal = legal_actions(self.state, seat)
        action = next(a for a in legal if isinstance(a, AttackPart) and a.part == part) if \
            part else next(a for a in legal if isinstance(a, ClimbAttack))
        return self.go(action, dice)


def stomped(scenario: str = "colossus") -> Staging:
    """Round 2's stomp on the three raiders, all on the ground (round 1 played on timeouts):
    the first of them to answer it has its Reaction to choose."""
    st = Staging(scenario).open().start_round()
    return st.timeout(lambda s: s.prompt.kind == "raid_reaction")


def climbing_raid(scenario: str = "colossus") -> Staging:
    """Round 2, the climbers' phase: Lancer (seat 0) on its left thigh, has just rolled 3 to
    climb (the tiles it may end on are lit); Saber clings to the right hip; Archer below has
    struck an arm and Guarded the stomp. Lancer's spear and Archer's arrows got through."""
    st = Staging(scenario).open().start_round(climb=(0, 1))
    st.strike(2, "arm")  # round 1 (awaken): no attack
    st.go(Mount(0, "ankle_l")).climb(0, 4, "thigh_l").strike(0)
    st.go(Mount(1, "ankle_r")).climb(1, 2, "thigh_r").go(EndClimb(1))
    st.start_round().strike(2, "shin", MISS).guard()  # round 2: stomp
    return st.go(ClimbMove(0), (3,))


def shaken_raid(scenario: str = "colossus") -> Staging:
    """Round 4's climbers' phase (the swat done), the bow coming next: it tilts the hips and
    the shoulders, so Saber on its bare right hip will be shaken off; Lancer, acting, has
    climbed and struck (one slot left) on its back."""
    st = climbing_raid(scenario).go(ClimbTo(0, "back_1")).strike(0).go(EndClimb(0))
    st.climb(1, 1, "hip_r").go(EndClimb(1))
    st.start_round().strike(2, "arm")  # round 3: reach
    st.climb(0, 2, "back_5").go(EndClimb(0)).go(EndClimb(1))
    st.start_round().strike(2, "chest").guard()  # round 4: swat
    return st.climb(0, 1, "back_3").strike(0)


def marched(scenario: str = "colossus") -> Staging:
    """After the raid of `shaken_raid` played out (the colossus keeps its wounds), the turns
    that follow: it walks toward the Dragon Vein, eating the squares it enters."""
    return shaken_raid(scenario).march(2)


def felled(scenario: str = "colossus_raid", hp: int = 40) -> Staging:
    """The colossus woken wounded to `hp` (as a scenario file may start it), then felled in
    round 1 by Archer's arrow at its arm: a raid room is won by every camp still standing."""
    st = Staging(scenario)
    st.module.scenario_state(st.state, {"hp": hp})
    st.open().start_round().timeout(lambda s: s.prompt.seats == {ARCHER})  # Lancer Waits
    return st.strike(ARCHER, "arm")


def spelled(scenario: str = "colossus_raid") -> Staging:
    """Round 1's start in a raid room: Caster (Väinämöinen, seat 0; its Master Kang) has sung
    Bog Song at the colossus (the check made, 2D10 = 10, its endure rolled 7 + 3 and halved
    it) and may still cast Kang's Curse at it (a curse: it is immune, though nobody knows it
    yet)."""
    st = Staging(scenario, classes=SPELL_CLASSES, masters=("kang", "koga", "han")).open()
    return st.go(UseSkill(0, "bog_song", COLOSSUS), (1, 5, 5, 5, 2))


__all__ = ["RAID_CLASSES", "SPELL_CLASSES", "Staging", "climbing_raid", "felled", "marched",
           "screens", "shaken_raid", "spelled", "stomped"]


def screens(tour: Any, scenario: str = "colossus") -> list[Path]:
    """The colossus's screens. In a Grail War: its stomp with the hit roll a raider
    answers, a climber choosing where to climb (the tiles it may end on lit), the raid a
    round later with a climber the next step will shake off, and the city map with its way
    to the Dragon Vein after the raid. In the raid room: that raid, a Caster's spells at it,
    and the room won when it falls."""
    app = tour.app
    war = scenario == "colossus"
    prefix = "colossus" if war else "raid_room"
    modules = ["tactics", "colossus"]
    player = PLAYER.get(tour.lang, "Ayaka")

    def show(staged: Any, screen: str, seat: int = 0) -> None:
        feed(app.model, staged.state, staged.events, seat, modules, player)
        app.show(screen)

    if war:
        staged = stomped(scenario)
        show(staged, "raid", min(staged.state.prompt.seats))  # the raider answering
        tour.shot(f"{prefix}_reaction")
        show(climbing_raid(scenario), "raid")
        app.current.click("verb:ClimbTo")  # the tiles it may end on, as the menu lists
        app.current.on_mouse_motion(0, 0, 0, 0)  # the click's hover would hide the prompt
        tour.shot(f"{prefix}_climb")
    show(shaken_raid(scenario), "raid")
    tour.shot(f"{prefix}_raid")
    if war:
        show(marched(scenario), "game")
        tour.hover("verb:DeclareRaid")
        tour.shot(f"{prefix}_map")
    else:  # a spell at it, then its win: every camp left standing
        show(spelled(scenario), "raid")
        app.current.click("verb:UseSkill")  # the spells that may still aim at it
        app.current.on_mouse_motion(0, 0, 0, 0)
        tour.shot(f"{prefix}_spell")
        show(felled(scenario), "end")
        tour.shot(f"{prefix}_end")
    return tour.files

