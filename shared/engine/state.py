"""The game state: plain data, copied cheaply and changed only through `edit` / `edit_battle`.

`GameState.clone()` copies the top level and shares every camp and the battle with the original;
the first `edit(seat)` after a clone copies that one camp (copy-on-write). So a search bot pays
for the camps an action touches, not for the whole table, and `apply` can never change the state
it was given.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from .data import CLASSES, Effect, Master, Ruleset, Servant

if TYPE_CHECKING:
    from .modules import Module


@dataclass(frozen=True, slots=True)
class Settings:
    """Room options the engine needs (timers stay on the server): the map, the day limit, the
    modules switched on with their resolved options (`modules.normalize`), and whether each
    turn opens with a priority phase (docs/rules.md §3.3; its length is the server's)."""

    map_id: str
    day_limit: int
    modules: tuple[str, ...] = ()
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    priority_phase: bool = False


class Prompt(NamedTuple):
    """What the game waits for: a kind and the set of seats that may act now."""

    kind: str
    seats: frozenset[int]


NO_PROMPT = Prompt("none", frozenset())


class ActiveBuff(NamedTuple):
    """A buff or debuff on a Servant. rounds -1 = until used up; removable False for spells.
    `owner` is the seat whose skill or Noble Phantasm it came from (hidden information)."""

    source: str
    effect: Effect
    rounds: int
    removable: bool
    debuff: bool
    owner: int


class Parley(NamedTuple):
    """An encounter's negotiation, or an ambush waiting for flee-or-fight."""

    kind: str
    opener: int
    target: int
    answered: frozenset[int] = frozenset()


class Declaration(NamedTuple):
    """One declaration of the turn, in arrival order. `intent` only for encounters."""

    seat: int
    kind: str
    target: int = -1
    intent: str = ""
    arg: str = ""


class PendingAttack(NamedTuple):
    """An attack whose hit check is rolled, waiting for the defender's reaction."""

    attacker: int
    target: int
    kind: str
    distance: int
    noble_phantasm: bool
    natural: int
    total: int
    critical: bool
    fumble: bool
    power: int


def slot_copier(cls: type) -> Callable[[Any], Any]:
    """A function that copies every slot of a `cls` object into a new one, written out as one
    assignment per slot (what dataclasses does for __init__): search bots clone states by the
    million, and a getattr/setattr loop over the slots cost a third of each clone."""
    lines = [f"    new.{name} = old.{name}" for name in cls.__slots__]
    source = "def copy(old):\n    new = make(cls)\n" + "\n".join(lines) + "\n    return new\n"
    scope: dict[str, Any] = {"make": object.__new__, "cls": cls}
    exec(source, scope)
    return scope["copy"]


class Camp:
    """A Servant and its Master, played by one seat."""

    __slots__ = (
        "alive", "asleep", "buffs", "buster", "caught", "cls", "disengage_round", "draw_open",
        "fleeing",
        "hand", "hp", "known", "master", "master_mp", "moved", "mp", "np_round", "np_shown",
        "np_target",
        "pending_crit", "pending_power", "pending_round", "pos", "quick", "rested", "seat",
        "servant", "skills_used", "spells", "unlocked", "waits", "war_roar",
    )

    def __init__(self, seat: int, servant: Servant, master: Master, pos: int) -> None:
        self.seat = seat
        self.cls = servant.cls
        self.servant = servant
        self.master = master
        self.hp = servant.hp
        self.mp = servant.mp
        self.master_mp = master.mp
        self.spells = master.command_spells
        # Whether the Servant may draw on its Master's MP at all (base §2.4); only a module
        # closes it (seed 002's spirit form and stray Servants, seed 002 §0, §9).
        self.draw_open = True
        self.pos = pos
        self.alive = True
        self.hand = servant.cards
        self.buffs: tuple[ActiveBuff, ...] = ()
        self.buster = 0
        self.quick = 0
        self.np_target = -1
        self.np_round = 0
        self.np_shown = False  # fired once: its card, kind and scale were seen by all
        self.war_roar = False
        self.pending_power = 0
        self.pending_crit = 0
        self.pending_round = 0
        self.skills_used: frozenset[str] = frozenset()
        self.known = (0,) * len(CLASSES)
        self.waits = 0
        self.unlocked = False
        self.rested = False
        self.asleep = False
        self.moved = -1
        self.disengage_round = -1
        self.caught = False
        self.fleeing = False

    def clone(self) -> Camp:
        return _copy_camp(self)

    def mod(self, key: str) -> int:
        """The sum of one modifier over active buffs (constant sources are added by the caller)."""
        total = 0
        for b in self.buffs:  # (most camps have none: no generator made for them)
            total += b.effect.mod(key)
        return total


class Battle:
    """One battle: who fights, the round, the initiative order and what it waits for."""

    __slots__ = (
        "acted", "ambusher", "cursor", "homes", "joined", "offered", "opener", "order", "pending",
        "purpose", "ready", "round", "seats", "square", "stage", "target", "truce",
    )

    def __init__(self, purpose: str, opener: int, target: int, square: int) -> None:
        self.purpose = purpose
        self.opener = opener
        self.target = target
        self.square = square
        self.seats: tuple[int, ...] = (opener, target)
        self.joined: tuple[int, ...] = self.seats
        self.homes: tuple[tuple[int, int], ...] = ()
        self.round = 0
        self.order: tuple[int, ...] = ()
        self.cursor = 0
        self.stage = "offer"
        self.offered: frozenset[int] = frozenset()
        self.ready: frozenset[int] = frozenset()
        self.truce: frozenset[int] = frozenset()
        self.ambusher = -1
        self.acted = False
        self.pending: PendingAttack | None = None

    def clone(self) -> Battle:
        return _copy_battle(self)

    @property
    def actor(self) -> int:
        return self.order[self.cursor]


class GameState:
    """Everything a game is: replayable from (seed, actions), never touched by a clock."""

    __slots__ = (
        "_battle_owned", "_legal", "_mods_owned", "_owned", "agenda", "battle", "bound", "camps",
        "contest", "day", "decls", "eaten", "events", "forced", "fought", "held", "mods",
        "modules", "over", "parley", "passed", "phase", "priority", "prompt", "rewards", "rng",
        "rules", "settings", "turn", "version", "winner",
    )

    def __init__(self, rules: Ruleset, settings: Settings, camps: list[Camp], rng: int,
                 modules: tuple[Module, ...] = ()) -> None:
        self.rules = rules
        self.settings = settings
        self.modules = modules
        self.mods: dict[str, Any] = {}
        self._mods_owned = True
        self.camps = camps
        self.rng = rng
        self.forced: tuple[int, ...] = ()
        self.day = 1
        self.turn = 0
        self.phase = "declare"
        self.decls: tuple[Declaration, ...] = ()
        # The priority phase (docs/rules.md §3.3): open, who passed it, and the ordinary
        # declarations held until it ends (they join `decls` then, after the priority ones).
        self.priority = settings.priority_phase
        self.passed: frozenset[int] = frozenset()
        self.held: tuple[Declaration, ...] = ()
        self.bound: frozenset[int] = frozenset()
        self.agenda: tuple[tuple, ...] = ()
        self.battle: Battle | None = None
        self.parley: Parley | None = None
        self.fought: frozenset[int] = frozenset()
        self.eaten: frozenset[int] = frozenset()
        self.contest: tuple[bool, int] = (False, -1)
        self.rewards: tuple[int, ...] = ()
        self.prompt = NO_PROMPT
        self.winner = -1
        self.over = False
        self.version = 0
        self.events: list = []
        self._owned: set[int] = set(range(len(camps)))
        self._battle_owned = True
        self._legal: dict[int, list] = {}

    def clone(self) -> GameState:
        new = _copy_state(self)
        new.camps = list(self.camps)
        new.events = []
        new._legal = {}
        new._owned = set()
        new._battle_owned = new._mods_owned = False
        # Both sides now share camps, battle and module slots: neither may write them without
        # copying.
        self._owned = set()
        self._battle_owned = self._mods_owned = False
        return new

    def set_mod(self, name: str, value: Any) -> None:
        """Replace a module's state (its values are immutable; the slot table is copied first
        if shared with another state)."""
        self._legal.clear()
        if not self._mods_owned:
            self.mods = dict(self.mods)
            self._mods_owned = True
        self.mods[name] = value

    def edit(self, seat: int) -> Camp:
        """The camp at `seat`, safe to change (copied first if shared with another state)."""
        self._legal.clear()
        if seat not in self._owned:
            self.camps[seat] = self.camps[seat].clone()
            self._owned.add(seat)
        return self.camps[seat]

    def edit_battle(self) -> Battle:
        """The current battle, safe to change."""
        assert self.battle is not None
        self._legal.clear()
        if not self._battle_owned:
            self.battle = self.battle.clone()
            self._battle_owned = True
        return self.battle

    def start_battle(self, battle: Battle) -> None:
        self.battle = battle
        self._battle_owned = True

    @property
    def living(self) -> list[int]:
        return [c.seat for c in self.camps if c.alive]


_copy_camp = slot_copier(Camp)
_copy_battle = slot_copier(Battle)
_copy_state = slot_copier(GameState)
