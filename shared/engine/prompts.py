"""Prompt kinds: what the game can wait for, each declared once.

A `PromptKind` is one record: the legal actions of a prompted seat, the handler of each action
type, the action the server issues when the seat's timer runs out, which room timer it uses,
and what a client needs to present it (its action-bar verbs, whether it is a battle prompt).
The engine walks `PROMPTS`; the server's timers, the bots and the client read the same
records. A module adds kinds with `register` and adds actions to a kind with `extend`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from . import battle, powers, turns
from .actions import (
    Action,
    AnswerAmbush,
    AnswerIntervention,
    Attack,
    ChooseReward,
    DeclareAmbush,
    DeclareDisengage,
    DeclareEncounter,
    DeclareInvestigate,
    DeclareNoblePhantasm,
    DeclareRest,
    DeclareSkill,
    DeclareSoulEating,
    DeclareWait,
    Move,
    Negotiate,
    OfferTruce,
    PassPriority,
    React,
    Ready,
    UseCommandSpell,
    UseNoblePhantasm,
    UseSkill,
    Wait,
)
from .state import GameState

Handler = Callable[[GameState, Any], None]

# Skills and Command Spells may be used at every prompt the seat is given (seed 000 §Combat 4,
# §15 "at any timing at all"); each prompt's legal list says which of them apply now.
COMMON_HANDLERS: dict[type[Action], Handler] = {
    UseSkill: powers.use_skill, UseCommandSpell: powers.use_command_spell}


@dataclass(frozen=True)
class PromptKind:
    """One kind of prompt. `default` is what a timeout issues (a forced Move when a
    disengaging camp has no other choice); `timer` names the room option with its limit in
    seconds; `verbs` are the client's action-bar buttons in display order."""

    name: str
    legal: Callable[[GameState, int], list[Action]]
    handlers: dict[type[Action], Handler]
    default: Callable[[GameState, int], Action]
    timer: str = "prompt_s"
    verbs: tuple[str, ...] = ()
    battle: bool = False
    doc: str = ""
    verb_modules: dict[str, str] = field(default_factory=dict)  # a module's verb -> its module
    _all: dict[type[Action], Handler] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._all.update(COMMON_HANDLERS)
        self._all.update(self.handlers)

    def handler(self, action: Action) -> Handler:
        return self._all[type(action)]


PROMPTS: dict[str, PromptKind] = {}


def register(kind: PromptKind) -> PromptKind:
    if kind.name in PROMPTS:
        raise ValueError(f"prompt kind {kind.name!r} is already registered")
    PROMPTS[kind.name] = kind
    return kind


def extend(name: str, module: str, handlers: dict[type[Action], Handler],
           verbs: tuple[str, ...] = (),
           default: Callable[[GameState, int], Action | None] | None = None) -> None:
    """A module's new actions at an existing prompt kind (its legal hook offers them); a client
    shows the module's `verbs` only in games where the module offers them (`Module.verbs`).
    `default`, if given, is asked first on a timeout (None: the kind's own default), for a seat
    the module puts in the prompt with only its own actions."""
    kind = PROMPTS[name]
    if default is not None:
        base = kind.default

        def first(s: GameState, seat: int) -> Action:
            return default(s, seat) or base(s, seat)

        kind = replace(kind, default=first)
    PROMPTS[name] = replace(kind, handlers={**kind.handlers, **handlers},
                            verbs=(*kind.verbs, *(v for v in verbs if v not in kind.verbs)),
                            verb_modules={**kind.verb_modules, **dict.fromkeys(verbs, module)},
                            _all={})


_DECLARATIONS = (DeclareWait, DeclareRest, DeclareInvestigate, DeclareSkill, DeclareEncounter,
                 DeclareAmbush, DeclareSoulEating)
for _kind in (
    PromptKind(
        "declare", turns.declaration_actions,
        {Move: turns.move, PassPriority: turns.pass_priority,
         **dict.fromkeys(_DECLARATIONS, turns.declare)},
        lambda s, seat: PassPriority(seat) if turns.in_priority(s, seat) else DeclareWait(seat),
        timer="declare_s",
        verbs=("Move", "DeclareWait", "DeclareRest", "DeclareInvestigate", "DeclareSkill",
               "DeclareEncounter", "DeclareAmbush", "DeclareSoulEating", "PassPriority",
               "UseCommandSpell"),
        doc="the turn's declaration window: every camp not yet declared nor bound (in its "
            "priority phase, a camp's own timer is the room's priority_s)"),
    PromptKind(
        "negotiate", turns.parley_actions, {Negotiate: turns.answer_parley},
        lambda s, seat: Negotiate(seat, False),
        verbs=("NegotiateFight", "NegotiatePart", "UseCommandSpell"),
        doc="an Encounter's two camps: fight, or part peacefully"),
    PromptKind(
        "ambush", turns.parley_actions, {AnswerAmbush: turns.answer_parley},
        lambda s, seat: AnswerAmbush(seat, False),
        verbs=("AmbushFight", "AmbushFlee", "UseCommandSpell"),
        doc="an ambushed camp: flee or fight"),
    PromptKind(
        "intervene", battle.intervention_actions,
        {AnswerIntervention: battle.answer_intervention},
        lambda s, seat: AnswerIntervention(seat, False),
        verbs=("InterveneJoin", "InterveneStay", "UseCommandSpell"), battle=True,
        doc="camps that declared Wait within reach of a battle that broke out"),
    PromptKind(
        "round_start", battle.round_start_actions,
        dict.fromkeys((Ready, DeclareNoblePhantasm, DeclareDisengage, OfferTruce),
                      battle.round_start_action),
        lambda s, seat: Ready(seat),
        verbs=("Ready", "DeclareNoblePhantasm", "DeclareDisengage", "OfferTruce", "UseSkill",
               "UseCommandSpell"), battle=True,
        doc="every combatant's round-start declarations, until all are Ready"),
    PromptKind(
        "main", battle.main_actions,
        {Move: battle.battle_move, Attack: battle.attack,
         UseNoblePhantasm: battle.use_noble_phantasm, Wait: battle.wait},
        lambda s, seat: Wait(seat), timer="main_s",
        verbs=("Attack", "UseNoblePhantasm", "Move", "Wait", "UseSkill", "UseCommandSpell"),
        battle=True, doc="the acting combatant's Main Action"),
    PromptKind(
        "reaction", battle.reaction_actions, {React: battle.react},
        lambda s, seat: React(seat, "G", ""), timer="reaction_s",
        verbs=("ReactDefend", "ReactLuck", "ReactGuard", "UseSkill", "UseCommandSpell"),
        battle=True, doc="the defender of a rolled attack"),
    PromptKind(
        "critical", battle.reward_actions, {ChooseReward: battle.choose_reward},
        lambda s, seat: ChooseReward(seat, "hp"),
        verbs=("ChooseReward", "UseCommandSpell"), battle=True,
        doc="a camp that rolled a critical chooses its reward"),
):
    register(_kind)
