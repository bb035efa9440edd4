"""The module door: rules modules switched on per game, hooked in at fixed points.

A module (seeds 002 and 003) is a `Module` subclass
registered by name. A game switches modules on with `new_game(modules=[...], options={...})`;
the names and resolved options travel in `Settings`, so replays, scenario files and the room
log rebuild the same game. Each module owns one slot of `GameState.mods` (plain, immutable
data replaced through `GameState.set_mod`, so clones share it until one side writes) and
overrides the hooks it needs; every hook of the base class does nothing, and with no module on
the engine never calls one. `docs/modules.md` describes each hook and when it runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from .sharing import Shared

if TYPE_CHECKING:
    from .actions import Action
    from .core import Check
    from .data import CommandSpell, Ruleset, Skill
    from .events import Event
    from .state import Camp, GameState


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option of a module: its type, default, and the values it may take."""

    default: Any
    choices: tuple[Any, ...] = ()
    doc: str = ""

    def check(self, module: str, name: str, value: Any) -> Any:
        kind = type(self.default)
        if type(value) is not kind:
            raise ValueError(f"module {module!r} option {name!r}: expected {kind.__name__}, "
                             f"got {value!r}")
        if self.choices and value not in self.choices:
            raise ValueError(f"module {module!r} option {name!r}: must be one of "
                             f"{', '.join(map(repr, self.choices))}, got {value!r}")
        return value


@dataclass(frozen=True, slots=True)
class RoomTimer:
    """A room timer a module adds (a room setting in seconds, like `declare_s`): for a prompt a
    person must read and plan, which no base timer fits. A module's `PromptKind.timer` names
    it; `choices` are the steps the lobby offers."""

    lo: int
    hi: int
    default: int
    choices: tuple[int, ...]
    doc: str = ""


class Module:
    """The base of every rules module. Subclasses set `name`, `options`, `requires` and
    override hooks; one instance serves every game with the same options (it holds no game
    state: that lives in the game's module slot)."""

    name: ClassVar[str] = ""
    options: ClassVar[Mapping[str, OptionSpec]] = {}
    requires: ClassVar[tuple[str, ...]] = ()  # modules this one turns on
    timers: ClassVar[Mapping[str, RoomTimer]] = {}  # room timers its prompt kinds name
    summoning_option: ClassVar[str] = ""  # the option whose value `summons` goes by
    camp_keys: ClassVar[tuple[str, ...]] = ()  # a scenario's `[[camp]]` keys it sets up

    def __init__(self, rules: Ruleset, values: Mapping[str, Any]) -> None:
        self.rules = rules
        self.values = dict(values)

    def option(self, name: str) -> Any:
        return self.values[name]

    @classmethod
    def fewest_camps(cls, values: Mapping[str, Any]) -> int:
        """The fewest camps a game with this module and these option values may seat (the
        base: 2, a Grail War needs rivals)."""
        return 2

    @classmethod
    def summons(cls, values: Mapping[str, Any]) -> str:
        """How a game with this module and these option values summons its Servants itself,
        said as the end of a sentence ("the module deals them at random"); "" when it does
        not (the room's own summoning switch, random or chosen, applies)."""
        return ""

    # --- set-up -------------------------------------------------------------------------------
    def setup(self, s: GameState) -> None:
        """Put the module's initial state in its slot (new_game, before the first prompt)."""

    # --- legal actions ----------------------------------------------------------------------------
    def legal(self, s: GameState, seat: int, actions: list[Action]) -> list[Action]:
        """The seat's legal actions at `s.prompt.kind` after this module: add and filter."""
        return actions

    def battle_move(self, s: GameState, seat: int) -> tuple[frozenset[int], int | None]:
        """Squares where a battle Move must end, and the most squares it may cover (None: no
        limit). Applies to Disengage runs too."""
        return frozenset(), None

    # --- modifiers ----------------------------------------------------------------------------
    def modifier(self, s: GameState, camp: Camp, key: str) -> int:
        """An addition to every modifier lookup of `key` for `camp` (mods, params, checks)."""
        return 0

    def skill_check(self, s: GameState, seat: int, skill: Skill, target: int) -> int:
        """An addition to a skill's 1d100 check value when `seat` uses it on `target` (-1:
        itself)."""
        return 0

    def skill_void(self, s: GameState, seat: int, skill: Skill, target: int) -> bool:
        """True when the skill's effect does nothing to `target` whatever the check (immunity)."""
        return False

    def skill_on_other(self, s: GameState, seat: int, skill: Skill, target: int) -> None:
        """A skill's effect, its check made, on a `target` that is no seat (a number past the
        seats that a module offers as a target of its own): that module applies it; every
        other module ignores it."""

    def sight(self, s: GameState, seat: int) -> frozenset[int]:
        """Squares `seat` watches from afar through this module's items (seed 003's
        sight, T2.1 "through an item"; seed 002's scouting devices)."""
        return frozenset()

    def composition(self, s: GameState, seat: int, cards: str) -> str:
        """The cards a hand is filled from (battle start, each refill, a raid's start): the
        sheet's composition in, the cards out (seed 002's pool)."""
        return cards

    def default(self, s: GameState, seat: int, action: Action) -> Action:
        """What a timeout issues for `seat` after this module: the prompt kind's default in
        (a module whose own actions must come first names one of them)."""
        return action

    def damage(self, s: GameState, seat: int, amount: int, source: str) -> int:
        """Damage `seat` is about to take from `source` ("attack", "np", "magecraft"), after
        every base reduction."""
        return amount

    def initiative(self, s: GameState, order: tuple[int, ...]) -> tuple[int, ...]:
        """The round's initiative order after this module."""
        return order

    def upkeep(self, s: GameState, seat: int, cost: int) -> int | None:
        """The daily upkeep `seat` pays at the end of the day after this module (the base
        formula's result in, a cost out); None: this camp pays no daily upkeep at all (no
        UpkeepPaid either: seed 002's stray Servant pays by the Turn instead)."""
        return cost

    def opposed(self, s: GameState, att: int, dfn: int, reaction: str, att_check: Check,
                dfn_check: Check, wins: bool) -> bool:
        """Whether the attacker `att` wins the opposed check against `dfn`'s `reaction` ("L" or
        a card's counter kind), the base's answer `wins` in."""
        return wins

    def reductions(self, s: GameState, att: int, seat: int, halve: bool, guard: bool,
                   taken: bool) -> tuple[bool, bool, bool]:
        """Which of the defender's reductions apply to damage `att` deals `seat`: Luck
        halving, the Guard, the damage-taken modifiers (the base's answer in)."""
        return halve, guard, taken

    def declare_seats(self, s: GameState, seats: frozenset[int]) -> frozenset[int]:
        """The seats the declaration prompt asks, `seats` (those still to declare) in: a
        module may keep declared camps in it with its own actions (seed 002's Action
        Restriction). Only asked while some camp is still to declare."""
        return seats

    def command_spells(self) -> Mapping[str, CommandSpell]:
        """Command Spells this module adds to the base table (`powers.spell_table`)."""
        return {}

    def investigate(self, s: GameState, seat: int, target: int, success: bool) -> bool:
        """An Investigate of camp `target` by `seat` has been rolled; True when this module
        settles what it reveals instead of the base tier step (and emits its own events)."""
        return False

    def rescue(self, s: GameState, seat: int) -> bool:
        """Damage would kill `seat`'s Servant after Guts and lethal skills (never Suicide's);
        True when this module held it up (and set its HP itself)."""
        return False

    # --- steps and listeners ------------------------------------------------------------------
    def advance(self, s: GameState) -> bool:
        """Called at each step of the engine's walk before the base; True once it set a prompt
        (a module with a stage machine of its own walks it here)."""
        return False

    def on_action(self, s: GameState, action: Action) -> None:
        """Before an accepted action is handled."""

    def after_action(self, s: GameState, action: Action, events: list[Event]) -> None:
        """After an action and everything it set off: an event listener."""

    def on_battle_start(self, s: GameState) -> None:
        """Round 1 of a battle is about to begin (hands given, before round-start prompts)."""

    def on_join(self, s: GameState, seat: int) -> None:
        """A camp intervened in the battle."""

    def on_activation_end(self, s: GameState, seat: int) -> None:
        """`seat`'s activation (its Main Action) is over."""

    def on_np_fired(self, s: GameState, seat: int) -> None:
        """`seat` has just fired its Noble Phantasm (its costs paid; in a battle or a raid)."""

    def on_round_end(self, s: GameState) -> None:
        """The battle round is over (before the next one or the end of the battle)."""

    def on_battle_end(self, s: GameState) -> None:
        """The battle is over; `s.battle` is still set."""

    def on_turn_end(self, s: GameState) -> None:
        """The turn's actions are resolved, before the next turn (or day) begins."""

    def on_day_end(self, s: GameState) -> None:
        """The day's last turn is over, before upkeep and the Masters' sleep check."""

    def judge(self, s: GameState) -> bool:
        """True when this module judges the game's end instead of the base last-Servant rule
        (it then ends the game itself when it must)."""
        return False

    # --- what leaves the engine -----------------------------------------------------------------
    def verbs(self) -> tuple[str, ...]:
        """The action-bar verbs (`prompts.extend`) this module's games may offer."""
        return ()

    def view(self, s: GameState, seat: int | None, shared: Shared) -> Any:
        """What `seat` (None: a spectator) may know of the module's state; plain data."""
        return None

    def rebuild(self, s: GameState, view: Any) -> None:
        """Set the module's state from its `view` (a bot rebuilding a game from one seat's view),
        sampling nothing: hidden parts stay at their set-up values."""

    def rebuild_camp(self, s: GameState, shown: Mapping[str, Any]) -> None:
        """After `sample`: make what a rival camp's view `shown` tells of it (its max HP, its
        cards) true of the rebuilt camp, where the module's hidden state makes those figures."""

    def sample(self, s: GameState, choose: Callable[[Sequence[Any]], Any], seat: int) -> None:
        """After `rebuild`, draw each value the view of `seat` hides with `choose` (one of the
        given values; `bots.determinize` passes its random generator's choice); `seat`'s own
        values are known, not drawn."""

    def text(self, s: GameState) -> list[str]:
        """Lines of the canonical text form (`to_text`)."""
        return []

    def scenario_state(self, s: GameState, values: Mapping[str, Any]) -> None:
        """A scenario file's `[module_state.<name>]` set-up (docs/scenarios.md): raise
        ValueError naming a key it does not take."""
        if values:
            raise ValueError(f"module {self.name!r} takes no module_state")

    def scenario_camp(self, s: GameState, seat: int, values: Mapping[str, Any]) -> None:
        """A scenario file's `[[camp]]` keys of this module (`camp_keys`, every one present in
        `values`) for the camp at `seat`, applied as play would have brought them about: raise
        ValueError naming the key and what it allows when a value is wrong."""


MODULES: dict[str, type[Module]] = {}


def register(cls: type[Module]) -> type[Module]:
    """Make a module known by its name (a class decorator)."""
    if not cls.name or cls.name in MODULES:
        raise TypeError(f"module name {cls.name!r} is empty or taken")
    MODULES[cls.name] = cls
    return cls


def scenario_module() -> tuple[str, OptionSpec] | None:
    """The module whose options include `scenario`, and that option (None: no module has
    one): what `--scenario` and a scenario file's `scenario` key switch on."""
    return next(((name, cls.options["scenario"]) for name, cls in MODULES.items()
                 if "scenario" in cls.options), None)


def room_timers() -> dict[str, tuple[str, RoomTimer]]:
    """Every registered module's room timers: option name -> (module, timer)."""
    out: dict[str, tuple[str, RoomTimer]] = {}
    for name, cls in MODULES.items():
        for key, timer in cls.timers.items():
            if key in out:
                raise TypeError(f"room timer {key!r} of {name!r} is {out[key][0]!r}'s too")
            out[key] = (name, timer)
    return out


def fewest_camps(names: Sequence[str], options: Mapping[str, Mapping[str, Any]]) -> int:
    """The fewest camps a game of these modules (normalized) may seat: a Grail War needs two;
    a module may allow fewer (seed 003's raid room, one)."""
    return min((MODULES[n].fewest_camps(options[n]) for n in names), default=2)


def summoned_by(names: Sequence[str], options: Mapping[str, Mapping[str, Any]]
                ) -> tuple[str, list[Any] | None]:
    """How the modules of a game (normalized) summon its Servants: the `Module.summons`
    phrase, and [module, option, value] for a client to name that value (its
    `option_value.<module>.<option>.<value>` text; None without a `summoning_option`); ("",
    None) when the room's own switch summons them."""
    for n in names:
        cls = MODULES[n]
        how = cls.summons(options[n])
        if how:
            option = cls.summoning_option
            return how, [n, option, options[n][option]] if option else None
    return "", None


def normalize(modules: Sequence[str] = (),
              options: Mapping[str, Mapping[str, Any]] | None = None
              ) -> tuple[tuple[str, ...], dict[str, dict[str, Any]]]:
    """The canonical (names, options) of a game: required modules added, registry order,
    every option filled with its default. Raises ValueError naming an unknown module or
    option, or a value of the wrong type."""
    if isinstance(modules, str) or not isinstance(modules, Sequence) or not all(
            isinstance(m, str) for m in modules):
        raise ValueError(f"modules must be a list of names, got {modules!r}")
    options = options or {}
    if not isinstance(options, Mapping) or not all(
            isinstance(v, Mapping) for v in options.values()):
        raise ValueError(f"options must map each module to a table of its options, "
                         f"got {options!r}")
    wanted = set(modules)
    for name in [*wanted, *options]:
        if name not in MODULES:
            known = ", ".join(MODULES) or "none"
            raise ValueError(f"unknown module {name!r}; modules: {known}")
    for name in list(options):
        if name not in wanted:
            raise ValueError(f"options given for module {name!r}, which is not switched on")
    pending = list(wanted)
    while pending:
        for need in MODULES[pending.pop()].requires:
            if need not in wanted:
                wanted.add(need)
                pending.append(need)
    names = tuple(n for n in MODULES if n in wanted)
    resolved: dict[str, dict[str, Any]] = {}
    for name in names:
        given = dict(options.get(name, {}))
        specs = MODULES[name].options
        unknown = sorted(set(given) - set(specs))
        if unknown:
            choices = ", ".join(specs) or "none"
            raise ValueError(f"module {name!r} has no option {unknown[0]!r}; options: {choices}")
        resolved[name] = {k: spec.check(name, k, given.get(k, spec.default))
                          for k, spec in specs.items()}
    return names, resolved


_INSTANCES: dict[tuple, tuple[Ruleset, Module]] = {}


def instances(rules: Ruleset, names: tuple[str, ...],
              options: Mapping[str, Mapping[str, Any]]) -> tuple[Module, ...]:
    """The module objects of a game (shared by every game with the same rules and options, so
    their data is loaded once)."""
    out = []
    for name in names:
        values = options.get(name, {})
        key = (id(rules), name, tuple(sorted(values.items())))
        hit = _INSTANCES.get(key)
        if hit is None:
            hit = _INSTANCES[key] = (rules, MODULES[name](rules, values))
        out.append(hit[1])
    return tuple(out)
