"""What the client's screens are made of, below the model and its presenters: the verbs, options,
questions, notices and map cells a screen draws, how an action maps to its verb, and the
sets the greyed verbs' reasons and the confirmations read."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..shared.protocol import CLOSED_BY_OPERATOR, LEFT_PAUSED
from .i18n import Tr
from .modules import every_part

MAX_EVENTS = 3000
DICE_KINDS = ("dice", "critical", "fumble")
# The `left` reasons the client explains, each with its catalog key.
LEFT_TEXTS = {"left": "error.left_left", "kicked": "error.left_kicked",
              "resumed elsewhere": "error.left_resumed", CLOSED_BY_OPERATOR: "admin.left_closed",
              LEFT_PAUSED: "error.left_paused"}

# The verbs a rules module adds to the shared prompt records, with the module and the option
# that switch them on: `PROMPTS` is the same for every game, so a game without the module must
# not show them (not even greyed).

# Why a verb without a legal action is greyed (`ClientModel.why_disabled`'s table of rules):
# these sets echo the engine's rules, read from the seat's view only.
PRIORITY_VERBS = frozenset({"DeclareEncounter", "DeclareAmbush", "DeclareSoulEating"})
SKILL_TIMINGS = {"DeclareSkill": ("turn_action",),
                 "UseSkill": ("combat_start", "optional", "own_activation")}
SLEEP_VERBS = frozenset({"DeclareWait", "DeclareRest"})

# Actions that spend what a camp has once (a Command Spell's strokes, the Noble Phantasm's
# charge and MP): the screen asks before it sends them, even with one choice only.
# A module's actions that fire a Noble Phantasm are its part's `np_firings`.
CONFIRM_KINDS = frozenset({"UseCommandSpell", "DeclareNoblePhantasm", "UseNoblePhantasm"})


# The action bar of each prompt kind, in display order, comes from its record (`PROMPTS`). A
# verb is enabled when at least one legal action maps to it (`verb_of`).
def verb_of(action: dict[str, Any]) -> str:
    """The action-bar button an action belongs to."""
    kind = action.get("type", "")
    if kind == "Negotiate":
        return "NegotiateFight" if action.get("fight") else "NegotiatePart"
    if kind == "AnswerAmbush":
        return "AmbushFlee" if action.get("flee") else "AmbushFight"
    if kind == "AnswerIntervention":
        return "InterveneJoin" if action.get("join") else "InterveneStay"
    if kind == "React":
        return {"G": "ReactGuard", "L": "ReactLuck"}.get(action.get("kind", ""), "ReactDefend")
    return kind


def card_of(action: dict[str, Any]) -> str:
    """The card an Attack or React spends ("" for none)."""
    return action.get("card", "") if action.get("type") in ("Attack", "React") else ""


@dataclass
class Option:
    """One concrete legal action under a verb, with its label and hover text."""

    label: str
    action: dict[str, Any] | None  # None: a heading that opens `group`'s options
    help: str = ""
    card: str = ""
    target: int = -1
    square: int = -1
    group: str = ""  # options of one Command Spell share a group (its id)
    reason: str = ""  # why it cannot be chosen (a ruled-out target): shown, never sent
    danger: bool = False  # it cannot be undone and costs the camp its Servant (Suicide)


@dataclass
class Verb:
    key: str
    label: str
    help: str
    enabled: bool
    options: list[Option] = field(default_factory=list)
    why: str = ""  # a greyed verb's reason, in words


class Question(NamedTuple):
    """What a confirmation dialog asks before an action is sent, and its OK button's label."""

    title: str
    text: str
    ok: str


@dataclass
class Notice:
    text: str
    level: str = "error"  # error | info
    at: float = 0.0
    sticky: bool = False  # shown until closed (a file saved: where), under later notices


@dataclass
class Cell:
    """One square of the city map."""

    index: int
    x: int
    y: int
    name: str
    leyline: str
    camps: list[dict[str, Any]]
    move: dict[str, Any] | None = None  # the legal Move action to this square, if any
    target: bool = False  # a camp here is a valid target of a legal action
    battle: bool = False
    eaten: bool = False
    mine: bool = False


def event_kind(e: dict[str, Any]) -> str:
    kind = e.get("type", "")
    if kind == "DiceRolled":
        return {"critical": "critical", "fumble": "fumble"}.get(e.get("result") or "", "dice")
    if kind == "TurnStarted":
        return "turn"
    if kind in ("ServantDied", "GameEnded"):
        return "death"
    if kind == "SeatEvent":
        return "seat"
    if kind in ("BattleOpened", "BattleStarted", "BattleEnded", "RoundStarted", "Attacked",
                "Reacted", "AttackResolved", "DamageDealt", "NoblePhantasmFired",
                "NoblePhantasmDeclared", "LeftBattle", "ConcentrationDeclared",
                "ConcentrationRolled", "SkillResisted") \
            or any(kind in part.battle_events for part in every_part()):
        return "battle"
    return "event"


def classes_in(seats: Iterable[dict[str, Any]]) -> set[str]:
    return {s["cls"] for s in seats if s.get("cls") and s.get("kind") != "open"}


def error_key(tr: Tr, code: str) -> str:
    """The catalog key of an error code's text: `error.<code>`, or for the chat's own errors
    `chatlog.error_<code>` (kept with the chat's texts)."""
    key = f"error.{code}"
    return key if tr.has(key) else f"chatlog.error_{code}"
