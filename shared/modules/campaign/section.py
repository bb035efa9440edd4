"""The base of the campaign's sections: one spec section (or a few close ones) per file, each a
`Section` with the hooks of `engine.modules.Module` it needs. The `Campaign` module walks its
`SECTIONS` in order (`__init__.py` says how each hook composes), so a new section is a new file
and one entry in `SECTIONS`.

A section holds no game state (it lives in the slot, `state.py`); it holds the module, and
through it the loaded data and the room's options.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from ...engine.sharing import Shared

if TYPE_CHECKING:
    from ...engine.actions import Action
    from ...engine.core import Check
    from ...engine.data import CommandSpell, Ruleset, Skill
    from ...engine.events import Event
    from ...engine.state import Camp, GameState
    from . import Campaign
    from .data import CampaignData

S = TypeVar("S", bound="Section")


class Section:
    """One part of the campaign's rules. `key` names its part of the module's view (and of a
    scenario file's `[module_state.campaign]`); `public_fields` are the `CampRecord` fields it
    owns that every seat may see of a rival (the rest of a rival's record is redacted)."""

    key: ClassVar[str] = ""
    public_fields: ClassVar[tuple[str, ...]] = ()
    # The `modifier` keys the section answers (None: any); the module asks a key only of the
    # sections that name it: `movement` alone is read for every declaration offer, and most
    # keys are answered by one section or none.
    modifier_keys: ClassVar[frozenset[str] | None] = None
    camp_keys: ClassVar[tuple[str, ...]] = ()  # a scenario's `[[camp]]` keys it sets up

    def __init__(self, module: Campaign) -> None:
        self.module = module

    @property
    def data(self) -> CampaignData:
        return self.module.data

    @property
    def rules(self) -> Ruleset:
        return self.module.rules

    def option(self, name: str) -> Any:
        return self.module.option(name)

    # The hooks: each one does nothing, with the meaning and signature of the Module hook of
    # the same name (docs/modules.md).
    def setup(self, s: GameState) -> None:
        """After the slot holds every camp's fresh record."""

    def legal(self, s: GameState, seat: int, actions: list[Action]) -> list[Action]:
        return actions

    def battle_move(self, s: GameState, seat: int) -> tuple[frozenset[int], int | None]:
        return frozenset(), None

    def modifier(self, s: GameState, camp: Camp, key: str) -> int:
        return 0

    def skill_check(self, s: GameState, seat: int, skill: Skill, target: int) -> int:
        return 0

    def skill_void(self, s: GameState, seat: int, skill: Skill, target: int) -> bool:
        return False

    def sight(self, s: GameState, seat: int) -> frozenset[int]:
        return frozenset()

    def composition(self, s: GameState, seat: int, cards: str) -> str:
        return cards

    def default(self, s: GameState, seat: int, action: Action) -> Action:
        return action

    def damage(self, s: GameState, seat: int, amount: int, source: str) -> int:
        return amount

    def initiative(self, s: GameState, order: tuple[int, ...]) -> tuple[int, ...]:
        return order

    def upkeep(self, s: GameState, seat: int, cost: int) -> int | None:
        return cost

    def opposed(self, s: GameState, att: int, dfn: int, reaction: str, att_check: Check,
                dfn_check: Check, wins: bool) -> bool:
        return wins

    def reductions(self, s: GameState, att: int, seat: int, halve: bool, guard: bool,
                   taken: bool) -> tuple[bool, bool, bool]:
        return halve, guard, taken

    def declare_seats(self, s: GameState, seats: frozenset[int]) -> frozenset[int]:
        return seats

    def command_spells(self) -> Mapping[str, CommandSpell]:
        """The Command Spells this section brings (the campaign's own table, C7.0)."""
        return {}

    def investigate(self, s: GameState, seat: int, target: int, success: bool) -> bool:
        return False

    def rescue(self, s: GameState, seat: int) -> bool:
        return False

    def advance(self, s: GameState) -> bool:
        return False

    def on_action(self, s: GameState, action: Action) -> None: ...

    def after_action(self, s: GameState, action: Action, events: list[Event]) -> None: ...

    def on_battle_start(self, s: GameState) -> None: ...

    def on_join(self, s: GameState, seat: int) -> None: ...

    def on_activation_end(self, s: GameState, seat: int) -> None: ...

    def on_np_fired(self, s: GameState, seat: int) -> None: ...

    def on_round_end(self, s: GameState) -> None: ...

    def on_battle_end(self, s: GameState) -> None: ...

    def on_turn_end(self, s: GameState) -> None: ...

    def on_day_end(self, s: GameState) -> None: ...

    # The campaign's own steps (no Module hook): `contract.py` calls them on every section.
    def on_contract_end(self, s: GameState, seat: int) -> None:
        """`seat`'s contract has just ended (C9.1 cancelled, C9.3 its Servant died); its
        Master's part of the record has gone with the vacant Master (C2.9 undoes growth here)."""

    def on_contract_start(self, s: GameState, seat: int) -> None:
        """`seat` has just re-contracted a vacant Master, still listed in the vacant ones
        (C9.4: new internal bonds here)."""

    def judge(self, s: GameState) -> bool:
        return False

    def verbs(self) -> tuple[str, ...]:
        return ()

    def view(self, s: GameState, seat: int | None, shared: Shared) -> Any:
        """This section's own part of the view (beyond the records), under `key`; None: none."""
        return None

    def rebuild(self, s: GameState, view: Any) -> None:
        """Its part back from `view[key]` (called only when the view has that key)."""

    def sample(self, s: GameState, choose: Callable[[Sequence[Any]], Any],
               seat: int) -> None: ...

    def text(self, s: GameState) -> list[str]:
        return []

    def scenario_state(self, s: GameState, values: Mapping[str, Any]) -> None:
        raise ValueError(f"campaign section {self.key!r} takes no module_state")

    def scenario_camp(self, s: GameState, seat: int, values: Mapping[str, Any]) -> None:
        """Its `camp_keys` of a scenario's `[[camp]]` (`Module.scenario_camp`)."""


def section_of(s: GameState, cls: type[S]) -> S:
    """The running game's instance of a section class (for action handlers, which get only the
    state)."""
    for module in s.modules:
        if module.name == "campaign":
            return module.section(cls)
    raise LookupError("the campaign module is not on in this game")
