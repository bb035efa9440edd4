"""Every action a seat can send, as a small frozen record named as a command.

Actions are plain data: `to_dict` / `from_dict` give the wire and scenario form
(`{"type": "Attack", "seat": 0, ...}`); equality makes `action in legal_actions(...)` the
single legality test.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from functools import cache
from typing import Any

from .errors import MalformedActionError

ACTION_TYPES: dict[str, type[Action]] = {}


@dataclass(frozen=True, slots=True)
class Action:
    """Every subclass is registered by its name as it is defined, so a module's actions decode
    (`from_dict`) exactly like the base game's."""

    seat: int

    def __init_subclass__(cls) -> None:
        if "__slots__" not in cls.__dict__:  # the first, slot-less pass of @dataclass(slots=True)
            return
        known = ACTION_TYPES.get(cls.__name__)
        if known is not None and known.__module__ != cls.__module__:
            raise TypeError(f"action type {cls.__name__} is defined twice "
                            f"({known.__module__} and {cls.__module__})")
        ACTION_TYPES[cls.__name__] = cls

    def template(self, state: Any) -> Action | None:
        """For an action with a free-text field (a stance's name): the same action with that
        field empty, as `legal_actions` offers it, when the text is acceptable in `state`;
        None for every other action (its exact form must be legal)."""
        return None

    def to_dict(self) -> dict[str, Any]:
        """The wire form; a plain loop over the field names (dataclasses.asdict deep-copies,
        and the server turns hundreds of legal actions into dicts on every change)."""
        cls = type(self)
        return {"type": cls.__name__, **{name: getattr(self, name) for name in _field_names(cls)}}


# --- declaration window -------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Move(Action):
    """Move to a square (free in the declaration window, once; a main action part in battle)."""

    to: int


@dataclass(frozen=True, slots=True)
class PassPriority(Action):
    """Pass the priority phase: no Encounter, Ambush or Soul-eating from this camp this turn,
    so the phase may end before its time (the camp still declares its turn action)."""


@dataclass(frozen=True, slots=True)
class DeclareWait(Action):
    """Standby (待機): may intervene in this turn's battles; otherwise time with the Master."""


@dataclass(frozen=True, slots=True)
class DeclareRest(Action):
    """Rest (休息): the Servant recovers HP and MP, the Master MP; counts as the Master's rest."""


@dataclass(frozen=True, slots=True)
class DeclareInvestigate(Action):
    """Investigate (調査) one class."""

    target_class: str


@dataclass(frozen=True, slots=True)
class DeclareSkill(Action):
    """Use a skill of the kind that consumes the turn action."""

    skill: str


@dataclass(frozen=True, slots=True)
class DeclareEncounter(Action):
    """Encounter (邂逅); intent is negotiate, battle, or prevent / steal against a soul-eater."""

    target: int
    intent: str


@dataclass(frozen=True, slots=True)
class DeclareAmbush(Action):
    """Ambush (不意打ち) a camp 1 to 3 squares away."""

    target: int


@dataclass(frozen=True, slots=True)
class DeclareSoulEating(Action):
    """Soul-eating (魂喰い) in the camp's square."""


# --- encounter, ambush and intervention answers -------------------------------------------
@dataclass(frozen=True, slots=True)
class Negotiate(Action):
    """A camp's answer in a negotiation: fight (start the battle) or part peacefully."""

    fight: bool


@dataclass(frozen=True, slots=True)
class AnswerAmbush(Action):
    """The ambushed camp flees (逃亡) or fights."""

    flee: bool


@dataclass(frozen=True, slots=True)
class AnswerIntervention(Action):
    """A waiting camp joins (介入) the battle that has just broken out, or stays out."""

    join: bool


# --- battle ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class DeclareNoblePhantasm(Action):
    """Round start: announce the Noble Phantasm and its target."""

    target: int


@dataclass(frozen=True, slots=True)
class DeclareDisengage(Action):
    """Round start: try to leave the battle (離脱)."""


@dataclass(frozen=True, slots=True)
class OfferTruce(Action):
    """Round start: lose the will to fight; the battle ends if every camp left offers it."""


@dataclass(frozen=True, slots=True)
class Ready(Action):
    """Round start: done declaring for this round."""


@dataclass(frozen=True, slots=True)
class Attack(Action):
    """Attack with a card kind B/A/Q, or L (Luck) paying any card or none (card "")."""

    target: int
    kind: str
    card: str


@dataclass(frozen=True, slots=True)
class UseNoblePhantasm(Action):
    """Fire the declared (and charged) Noble Phantasm, or any after War Roar."""

    target: int


@dataclass(frozen=True, slots=True)
class Wait(Action):
    """Main action Standby: end the activation, saving cards."""


@dataclass(frozen=True, slots=True)
class React(Action):
    """Reaction: kind B/A/Q (normal defense), L (Luck defense) or G (Guard); card "" = none."""

    kind: str
    card: str


@dataclass(frozen=True, slots=True)
class ChooseReward(Action):
    """Critical reward: "hp", "mp", "card:B|A|Q" or "buff:<id>"."""

    reward: str


# --- available whenever the seat is prompted ------------------------------------------------
@dataclass(frozen=True, slots=True)
class UseSkill(Action):
    """Use a skill now (target -1 = self); `extra` names an on-magecraft skill used with it."""

    skill: str
    target: int = -1
    extra: str = ""


@dataclass(frozen=True, slots=True)
class UseCommandSpell(Action):
    """Spend Command Spell strokes (令呪); `arg`: a square (teleport, retreat) or cards (refine)."""

    spell: str
    arg: str = ""


@cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


@cache
def _schema(cls: type) -> tuple[tuple[tuple[str, type, bool], ...], frozenset[str]]:
    """Each field's name, type and whether it may be left out, and every key the wire form may
    hold (the server decodes every action it is sent, a network bot every legal list)."""
    kinds = {"int": int, "str": str, "bool": bool}
    return (tuple((f.name, kinds[str(f.type)], f.default is not MISSING) for f in fields(cls)),
            frozenset(("type", *_field_names(cls))))


def from_dict(data: Any) -> Action:
    """Decode the wire / scenario form, raising MalformedActionError with the precise reason."""
    if not isinstance(data, dict):
        raise MalformedActionError(f"an action is a table/map, got {type(data).__name__}")
    name = data.get("type")
    cls = ACTION_TYPES.get(name) if isinstance(name, str) else None
    if cls is None:
        raise MalformedActionError(f"unknown action type {name!r}")
    schema, keys = _schema(cls)
    kwargs = {}
    for field_name, expected, optional in schema:
        if field_name not in data:
            if optional:
                continue
            raise MalformedActionError(f"{name}: missing field {field_name!r}")
        value = data[field_name]
        if type(value) is not expected:
            raise MalformedActionError(
                f"{name}.{field_name}: expected {expected.__name__}, got {type(value).__name__}"
            )
        kwargs[field_name] = value
    if not keys.issuperset(data):
        names = sorted(set(data) - keys, key=repr)  # keys of mixed types cannot be compared
        raise MalformedActionError(f"{name}: unknown field(s) {names}")
    return cls(**kwargs)
