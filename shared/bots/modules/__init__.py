"""The bots' door to the rules modules: one `BotPart` per engine module, registered by the
module's name, holding what the bots do with that module's actions and views.

The base bots name no module. The normal bot (`heuristic.HeuristicBot`) and the hard bot's
rollout policy (`policy.py`) ask the parts of the modules switched on (`parts(names)`, in the
order of the names given: the game's, which is the engine's registry order) at fixed points,
each hook below; `grailwar simulate` asks them for their balance figures. A part holds no game
state: one instance serves every bot and every game.

The parts that ship live in this package, one file (or package) per module, and are found
without being named: every submodule is imported when this package is, and registers its part
with `@register`. A module defined elsewhere (a test's toy module) registers its own part the
same way, from wherever it is defined:

    @register
    class ToyPart(BotPart):
        name = "toy"  # the engine module's name

        def first(self, bot, view, me, legal):
            return next((a for a in legal if isinstance(a, Poke)), None)
"""

from __future__ import annotations

import importlib
import pkgutil
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    from ...engine.actions import Action
    from ...engine.data import Ruleset
    from ...engine.events import Event
    from ...engine.state import Camp, GameState


class NormalBot(Protocol):
    """What a part may use of the normal bot that asks it (`HeuristicBot`)."""

    rng: random.Random  # the bot's own generator: a part draws from it, never from `random`
    rules: Ruleset

    def distance(self, view: dict[str, Any], a: int, b: int) -> int:
        """Squares between `a` and `b` on the view's map (no diagonals)."""
        ...

    def attack_score(self, view: dict[str, Any], me: dict[str, Any], attack: Action) -> float:
        """How much the bot likes an Attack (the best one has the highest score)."""
        ...

    def reaction(self, view: dict[str, Any], me: dict[str, Any], legal: list[Action]) -> Action:
        """The bot's own Reaction to an attack, from `legal` (the parts' `reaction` asked)."""
        ...


# The normal bot's choice at one prompt: (bot, view, own camp's view, legal actions) -> action.
Choose = Callable[[NormalBot, dict[str, Any], dict[str, Any], list["Action"]], "Action"]


@dataclass(frozen=True)
class Ground:
    """How a module's battlefield bends the rollout policy's Main Action for one camp:
    `ranged`, it keeps out of melee (it never steps onto a foe's square, and steps off one
    where `held` holds it); `held`, the squares where a Move of its ends early (they cost it
    `cost` squares of walking), except those within `free(foe)` squares of the foe it heads
    for."""

    ranged: bool = False
    held: frozenset[int] = frozenset()
    cost: int = 0
    free: Callable[[Camp], int] = field(default=lambda foe: 0)


PLAIN = Ground()  # the base game's battlefield: nothing held, nobody kept out of melee


class Figures:
    """A module's balance figures over a series of games (`grailwar simulate`): one object
    per series, told every step and every game's end."""

    def step(self, state: GameState, events: list[Event]) -> None:
        """After every action of every game, with the events it set off."""

    def game_over(self, state: GameState) -> None:
        """A game of the series is over (`state` is its end)."""

    def summary(self) -> dict[str, Any]:
        """The figures, as plain data (the JSON report's `<module>` object)."""
        return {}

    @staticmethod
    def line(summary: dict[str, Any]) -> str | None:
        """The text report's line for `summary` (None: the figures are in the JSON only)."""
        return None


class BotPart:
    """The base of a module's bot part. Subclasses set `name` (the engine module's) and
    override the hooks they need; every hook of the base does nothing (None: no opinion).
    `bot` is the normal bot asking, `view` its seat's view, `me` its own camp in the view
    (`view["camps"][view["you"]]`), `legal` the seat's legal actions; an action a hook returns
    must be one of `legal`. Where several parts answer, the first in the game's module order
    that returns an action wins."""

    name: ClassVar[str] = ""
    # The war is long on healing and short on days: a fight on offer comes before the night's
    # rest, hurt rivals are prey first, and a camp too hurt to fight rests rather than idles.
    press: ClassVar[bool] = False
    # The balance figures `grailwar simulate` gathers with the module on (None: none).
    figures: ClassVar[type[Figures] | None] = None

    # --- the normal bot, from its seat's view ------------------------------------------------
    def prompts(self) -> Mapping[str, Choose]:
        """The normal bot's choice at each prompt kind this module adds: kind -> choice."""
        return {}

    def first(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
              legal: list[Action]) -> Action | None:
        """At every prompt, before anything else: a free action of this module worth taking
        now (it does not end the prompt, or it is the module's own answer to it)."""
        return None

    def declaration(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
                    legal: list[Action]) -> Action | None:
        """At a declaration, after the rest a hurt or sleepy camp takes and before its fights:
        a turn action this module calls for (or a Move toward it)."""
        return None

    def idle(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
             legal: list[Action]) -> Action | None:
        """At a declaration with nothing better to do, instead of Wait."""
        return None

    def round_start(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
                    legal: list[Action]) -> Action | None:
        """At a battle round's start, after the Command Spells that rescue a falling Servant
        and before a Noble Phantasm is declared."""
        return None

    def focus(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
              legal: list[Action]) -> Action | None:
        """At a battle round's start, after the Noble Phantasm declarations and before the
        skills."""
        return None

    def cast(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any], action: Action,
             legal: list[Action]) -> Action:
        """A skill use the bot picked at a round's start in, the action to play out (the same,
        or this module's form of it); every part's in turn."""
        return action

    def main(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
             legal: list[Action]) -> Action | None:
        """The battle's Main Action, after the rescue and a charged Noble Phantasm: this
        module's whole choice when its battlefield changes the base one."""
        return None

    def reaction(self, bot: NormalBot, view: dict[str, Any], me: dict[str, Any],
                 legal: list[Action]) -> Action | None:
        """A Reaction, after the rescue and before the counter card."""
        return None

    def pressing(self, view: dict[str, Any]) -> bool:
        """Whether this module calls every camp to a task of its own now: the other parts
        then put their errands off."""
        return False

    # --- the hard bot's rollout policy, on an imagined whole state -----------------------------
    def rollout(self, s: GameState, seat: int, legal: list[Action],
                rng: random.Random) -> Action | None:
        """At a prompt kind this module adds: the rollout's action (None: not its kind)."""
        return None

    def ground(self, s: GameState, camp: Camp) -> Ground | None:
        """The battlefield of `camp`'s Main Action in a rollout (None: the base's)."""
        return None

    def rollout_reaction(self, s: GameState, camp: Camp, legal: list[Action],
                         rng: random.Random) -> Action | None:
        """A Reaction in a rollout, before the counter card."""
        return None


PARTS: dict[str, BotPart] = {}


def register(cls: type[BotPart]) -> type[BotPart]:
    """Register a module's bot part under its module's name (a class decorator)."""
    if not cls.name or cls.name in PARTS:
        raise ValueError(f"bot part {cls.__name__}: its name {cls.name!r} is empty or taken")
    PARTS[cls.name] = cls()
    return cls


def parts(names: Iterable[str]) -> tuple[BotPart, ...]:
    """The parts of the modules `names` (a view's `modules`, a game's settings) that have one,
    in that order."""
    return tuple(PARTS[n] for n in names if n in PARTS)


for _found in pkgutil.iter_modules(__path__):  # the shipped parts, each registering itself
    importlib.import_module(f"{__name__}.{_found.name}")

__all__ = ["PARTS", "PLAIN", "BotPart", "Choose", "Figures", "Ground", "NormalBot", "parts",
           "register"]
