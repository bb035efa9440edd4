"""Days, turns, the declaration window and the resolution of turn actions (seed 000 §Turn Actions).

The window is simultaneous: every camp that is neither declared nor bound is prompted; the
server orders declarations by arrival. Encounter, Ambush and Soul-eating are legal only while
every declaration so far is one of those three, or, in a game with a priority phase, only
during that phase: there an ordinary declaration is held until the phase ends, so a program
that declares at once closes nothing for the people at the table (docs/rules.md §3.3). When the
window closes, declarations resolve in order through `s.agenda`; a step that needs answers
(negotiation, flee, a battle) sets a prompt.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from . import core, powers
from .actions import (
    Action,
    AnswerAmbush,
    DeclareAmbush,
    DeclareEncounter,
    DeclareInvestigate,
    DeclareRest,
    DeclareSkill,
    DeclareSoulEating,
    DeclareWait,
    Move,
    Negotiate,
    PassPriority,
)
from .battle import open_battle
from .core import city
from .data import CLASSES
from .geometry import Size, distance, reachable
from .state import Declaration, GameState, Parley, Prompt

PRIORITY = frozenset({"encounter", "ambush", "soul_eating"})
TURN_NAMES = ("morning", "noon", "night")


def window_open(s: GameState) -> bool:
    """Priority declarations stay legal during the priority phase, or in a game without one
    while nothing else has been declared this turn."""
    if s.settings.priority_phase:
        return s.priority
    return all(d.kind in PRIORITY for d in s.decls)


def awaiting_declaration(s: GameState) -> frozenset[int]:
    declared = {d.seat for d in s.decls} | {d.seat for d in s.held}
    return frozenset(c.seat for c in s.camps if c.alive and c.seat not in declared
                     and c.seat not in s.bound)


def priority_seats(s: GameState) -> frozenset[int]:
    """The camps the priority phase waits for: still to declare, not passed, and awake (a
    sleeping Master declares only Wait or Rest); the phase ends when there are none."""
    if not s.priority:
        return frozenset()
    return frozenset(x for x in awaiting_declaration(s) - s.passed if not s.camps[x].asleep)


def in_priority(s: GameState, seat: int) -> bool:
    """The server runs the phase's clock for this seat, and its timeout passes the phase."""
    return seat in priority_seats(s)


# --- legal actions -------------------------------------------------------------------------------
def declaration_actions(s: GameState, seat: int) -> list[Action]:
    camp = s.camps[seat]
    out: list[Action] = [DeclareWait(seat), DeclareRest(seat)]
    if camp.asleep:
        return out
    grid = city(s)
    if camp.moved < 0:
        out.extend(_free_moves(Size(grid.width, grid.height), seat, camp.pos,
                               core.movement(s, camp)))
    others = [c for c in s.camps if c.alive and c.seat != seat]
    for c in others:
        if camp.known[CLASSES.index(c.cls)] < 3:
            out.append(DeclareInvestigate(seat, c.cls))
    for skill in core.skills_of(s, camp, "turn_action"):
        if core.can_pay_skills(camp, skill):
            out.append(DeclareSkill(seat, skill.id))
    if s.priority and seat not in s.passed:
        out.append(PassPriority(seat))
    if window_open(s) and seat not in s.passed:
        eaters = {d.seat for d in s.decls if d.kind == "soul_eating"}
        reach = core.movement(s, camp) - max(camp.moved, 0)
        for c in others:
            if c.seat in s.bound:
                continue
            d = distance(grid, camp.pos, c.pos)
            if d <= reach:
                intents = ("prevent", "steal") if c.seat in eaters else ("negotiate", "battle")
                out.extend(DeclareEncounter(seat, c.seat, i) for i in intents)
            if 1 <= d <= s.rules.numbers.ambush_max_range:
                out.append(DeclareAmbush(seat, c.seat))
        if camp.pos not in s.eaten:
            out.append(DeclareSoulEating(seat))
    out.extend(powers.command_spell_actions(s, seat))
    return out


@cache
def _free_moves(grid: Size, seat: int, pos: int, steps: int) -> tuple[Move, ...]:
    """Outside battle nothing blocks a move, so the reachable squares depend only on these."""
    found = reachable(grid, pos, steps, frozenset(), frozenset())
    return tuple(Move(seat, q) for q in found if q != pos)


# --- applying declarations ----------------------------------------------------------------------
def move(s: GameState, action: Move) -> None:
    camp = s.edit(action.seat)
    camp.moved = distance(city(s), camp.pos, action.to)
    camp.pos = action.to
    core.emit(s, "Moved", seat=action.seat, to=action.to)


_KIND = {
    DeclareWait: "wait", DeclareRest: "rest", DeclareInvestigate: "investigate",
    DeclareSkill: "skill", DeclareEncounter: "encounter", DeclareAmbush: "ambush",
    DeclareSoulEating: "soul_eating",
}


_ARG_FIELD: dict[type[Action], str] = {}  # a module kind's field that is its Declaration.arg


def register_declaration(action_type: type[Action], kind: str,
                         resolver: Callable[[GameState, int, Declaration], None],
                         arg: str = "") -> None:
    """A module's turn-action kind (seed 003's Raid): declared like the base kinds (it is
    an ordinary declaration, held in a priority phase) and resolved in its turn by `resolver`.
    `arg` names the action's field kept as the declaration's (private) `arg`."""
    _KIND[action_type] = kind
    _RESOLVERS[kind] = resolver
    if arg:
        _ARG_FIELD[action_type] = arg


def declaration_kind(action: Action) -> str | None:
    """The turn-action kind an action declares ("wait", "encounter", a module's kind), or None
    for an action that declares nothing (a Move, a Command Spell)."""
    return _KIND.get(type(action))


def declare(s: GameState, action: Action) -> None:
    kind = _KIND[type(action)]
    target = getattr(action, "target", -1)
    arg = getattr(action, _ARG_FIELD.get(type(action), "target_class"), "") or getattr(
        action, "skill", "")
    if kind == "soul_eating":  # the square is used up, whoever ends up eating there
        arg = str(s.camps[action.seat].pos)
    decl = Declaration(action.seat, kind, target, getattr(action, "intent", ""), arg)
    held = s.priority and kind not in PRIORITY
    if held:
        s.held = (*s.held, decl)
    else:
        s.decls = (*s.decls, decl)
    public: dict = {"seat": action.seat, "kind": kind}
    if kind in PRIORITY:
        public.update(target=target, intent=decl.intent)
    if held:
        public["held"] = True
    core.emit(s, "Declared", frozenset({action.seat}), public, **public, arg=decl.arg)
    if kind in ("encounter", "ambush"):
        s.bound = s.bound | {target}
        withdrawn = next((d for d in s.held if d.seat == target), None)
        if withdrawn is not None:  # bound: its declaration is this Encounter or Ambush now
            s.held = tuple(d for d in s.held if d.seat != target)
            core.emit(s, "DeclarationWithdrawn", seat=target, kind=withdrawn.kind)


def pass_priority(s: GameState, action: PassPriority) -> None:
    s.passed = s.passed | {action.seat}
    core.emit(s, "PriorityPassed", seat=action.seat)


def end_priority(s: GameState) -> None:
    """The priority phase is over: the held declarations join the turn's, in their order of
    arrival after every priority one, and no priority declaration is legal any more."""
    s.priority = False
    s.decls = (*s.decls, *s.held)
    s.held = ()
    core.emit(s, "PriorityPhaseEnded", order=[d.seat for d in s.decls])


def close_window(s: GameState) -> None:
    """Every camp has declared (or been given Wait): resolve in declaration order."""
    s.phase = "resolve"
    s.agenda = tuple(("decl", i) for i in range(len(s.decls)))
    core.emit(s, "DeclarationsClosed", order=[d.seat for d in s.decls])


# --- resolution ----------------------------------------------------------------------------------
def resolve_step(s: GameState) -> None:
    """Pop and resolve one agenda step; it may open a prompt or a battle."""
    step, s.agenda = s.agenda[0], s.agenda[1:]
    if step[0] == "eat":
        finish_soul_eating(s, step[1])
        return
    decl = s.decls[step[1]]
    actor = s.camps[decl.seat]
    if not actor.alive or decl.seat in s.fought:
        core.emit(s, "ActionCancelled", seat=decl.seat, kind=decl.kind)
        return
    handler = _RESOLVERS.get(decl.kind)
    if handler is not None:
        handler(s, step[1], decl)


def resolve_rest(s: GameState, _i: int, decl: Declaration) -> None:
    seat = decl.seat
    camp = s.camps[seat]
    n = s.rules.numbers
    bonus = n.leyline_bonus[city(s).squares[camp.pos].leyline]
    mine = frozenset({seat})
    hp = core.heal(s, seat, core.roll_dice(s, n.rest_servant, seat, "rest_hp") + bonus)
    mp = core.gain_mp(s, seat, core.roll_dice(s, n.rest_servant, seat, "rest_mp", mine) + bonus)
    master_roll = core.roll_dice(s, n.rest_master, seat, "rest_master", mine) + bonus
    camp = s.edit(seat)
    master_gain = min(core.max_master_mp(s, camp), camp.master_mp + master_roll) - camp.master_mp
    camp.master_mp += master_gain
    camp.rested = True
    core.emit(s, "Rested", mine, {"seat": seat, "hp": hp}, seat=seat, hp=hp, mp=mp,
              master_mp=master_gain)


def resolve_investigate(s: GameState, _i: int, decl: Declaration) -> None:
    seat = decl.seat
    camp = s.camps[seat]
    target = next((c for c in s.camps if c.cls == decl.arg and c.alive), None)
    mine = frozenset({seat})
    if target is None:
        core.emit(s, "ActionCancelled", mine, None, seat=seat, kind="investigate")
        return
    n = s.rules.numbers
    bonus = camp.master.investigation + core.mod(s, camp, "investigation")
    check = core.check_2d6(s, seat, "investigate", bonus, special=False,
                           target=n.investigation_target, private=mine)
    success = check.total >= n.investigation_target
    if any(m.investigate(s, seat, target.seat, success) for m in s.modules):
        return
    tier = camp.known[CLASSES.index(decl.arg)]
    if success:
        camp = s.edit(seat)
        known = list(camp.known)
        tier = known[CLASSES.index(decl.arg)] = min(3, tier + 1)
        camp.known = tuple(known)
    core.emit(s, "Investigated", mine, None, seat=seat, cls=decl.arg, tier=tier, success=success)


def resolve_skill(s: GameState, _i: int, decl: Declaration) -> None:
    skill = s.rules.skills[decl.arg]
    if core.can_pay_skills(s.camps[decl.seat], skill):
        powers.run_skill(s, decl.seat, skill, -1)
    else:
        core.emit(s, "ActionCancelled", seat=decl.seat, kind="skill")


def resolve_encounter(s: GameState, i: int, decl: Declaration) -> None:
    if not s.camps[decl.target].alive:
        core.emit(s, "ActionCancelled", seat=decl.seat, kind="encounter")
        return
    if decl.intent == "negotiate":
        s.parley = Parley("negotiate", decl.seat, decl.target)
        core.emit(s, "NegotiationOpened", seat=decl.seat, target=decl.target)
        return
    open_battle(s, decl.intent, decl.seat, decl.target)


def resolve_ambush(s: GameState, _i: int, decl: Declaration) -> None:
    if not s.camps[decl.target].alive:
        core.emit(s, "ActionCancelled", seat=decl.seat, kind="ambush")
        return
    s.parley = Parley("ambush", decl.seat, decl.target)
    core.emit(s, "AmbushLaunched", seat=decl.seat, target=decl.target)


def resolve_soul_eating(s: GameState, i: int, decl: Declaration) -> None:
    """Prevent / Steal encounters against this eater come first, then the eating itself."""
    contests = tuple(("decl", j) for j, d in enumerate(s.decls)
                     if d.kind == "encounter" and d.target == decl.seat
                     and d.intent in ("prevent", "steal") and ("decl", j) in s.agenda)
    rest = tuple(step for step in s.agenda if step not in contests)
    s.contest = (False, -1)
    s.agenda = (*contests, ("eat", i), *rest)


def finish_soul_eating(s: GameState, i: int) -> None:
    decl = s.decls[i]
    square = int(decl.arg)
    prevented, stealer = s.contest
    eater = stealer if stealer >= 0 else decl.seat
    if prevented or not s.camps[eater].alive or square in s.eaten:
        core.emit(s, "SoulEatingFailed", seat=decl.seat, prevented=prevented)
        return
    s.eaten = s.eaten | {square}
    gain = core.gain_mp(s, eater, core.roll_dice(s, s.rules.numbers.soul_eating, eater,
                                                 "soul_eating", frozenset({eater})))
    core.emit(s, "SoulsEaten", frozenset({eater}), {"seat": eater, "square": square},
              seat=eater, square=square, mp=gain, stolen_from=decl.seat if stealer >= 0 else -1)


def resolve_wait(s: GameState, _i: int, decl: Declaration) -> None:
    """Nothing happens now; time with the Master is counted at the end of the turn."""


_RESOLVERS = {
    "rest": resolve_rest, "investigate": resolve_investigate, "skill": resolve_skill,
    "encounter": resolve_encounter, "ambush": resolve_ambush,
    "soul_eating": resolve_soul_eating, "wait": resolve_wait,
}


# --- negotiation and ambush answers ------------------------------------------------------------
def parley_prompt(s: GameState) -> Prompt:
    p = s.parley
    if p.kind == "ambush":
        return Prompt("ambush", frozenset({p.target}))
    return Prompt("negotiate", frozenset({p.opener, p.target}) - p.answered)


def parley_actions(s: GameState, seat: int) -> list[Action]:
    if s.prompt.kind == "ambush":
        return [AnswerAmbush(seat, True), AnswerAmbush(seat, False),
                *powers.command_spell_actions(s, seat)]
    return [Negotiate(seat, True), Negotiate(seat, False), *powers.command_spell_actions(s, seat)]


def answer_parley(s: GameState, action: Action) -> None:
    _kind, opener, target, answered = s.parley
    if isinstance(action, AnswerAmbush):
        s.parley = None
        core.emit(s, "AmbushAnswered", seat=target, flee=action.flee)
        open_battle(s, "ambush", opener, target, flee=action.flee)
        return
    core.emit(s, "NegotiationAnswered", frozenset({opener, target}), None,
              seat=action.seat, fight=action.fight)
    if action.fight:
        s.parley = None
        core.emit(s, "NegotiationBroke", seat=action.seat)
        open_battle(s, "encounter", opener, target)
        return
    answered = answered | {action.seat}
    if answered >= {opener, target}:
        s.parley = None
        s.fought = s.fought | {opener, target}
        core.emit(s, "NegotiationEnded", seat=opener, target=target)
    else:
        s.parley = s.parley._replace(answered=answered)


# --- end of turn and day -------------------------------------------------------------------------
def end_turn(s: GameState) -> None:
    """Count time with the Master, then move to the next turn (or close the day)."""
    for m in s.modules:
        m.on_turn_end(s)
    if s.over:  # a module ended the game (seed 003's giant reached the Dragon Vein)
        return
    n = s.rules.numbers
    for d in s.decls:
        camp = s.camps[d.seat]
        if d.kind == "wait" and camp.alive and d.seat not in s.fought and not camp.asleep:
            camp = s.edit(d.seat)
            camp.waits += 1
            core.emit(s, "TimeWithMaster", frozenset({d.seat}), None, seat=d.seat,
                      count=camp.waits)
            if camp.waits == n.master_wait_unlock and not camp.unlocked:
                camp.unlocked = True
                core.emit(s, "MasterSkillUnlocked", frozenset({d.seat}), None, seat=d.seat,
                          skill=camp.master.skills[3])
    s.decls = ()
    s.priority = s.settings.priority_phase
    s.passed = frozenset()
    s.bound = frozenset()
    s.fought = frozenset()
    s.agenda = ()
    for c in s.camps:
        if c.moved >= 0:
            s.edit(c.seat).moved = -1
    s.turn += 1
    if s.turn == n.turns_per_day:
        end_day(s)
    if not s.over:
        s.phase = "declare"
        core.emit(s, "TurnStarted", day=s.day, turn=TURN_NAMES[s.turn])


def end_day(s: GameState) -> None:
    """Upkeep (seed 000 §1), then the Master's rest check (§16), then the day limit."""
    for m in s.modules:
        m.on_day_end(s)
    n = s.rules.numbers
    unpaid = []
    for seat in s.living:
        camp = s.camps[seat]
        cost = max(0, n.upkeep_base + camp.servant.params["np"] // n.upkeep_np_divisor
                   + n.era_upkeep[camp.servant.era] + core.mod(s, camp, "upkeep"))
        for m in s.modules:
            cost = m.upkeep(s, seat, cost)
            if cost is None:
                break
        if cost is None:
            continue
        if core.can_pay(camp, cost):
            core.pay_mp(s, seat, cost)
            core.emit(s, "UpkeepPaid", frozenset({seat}), {"seat": seat}, seat=seat, cost=cost)
        else:
            core.emit(s, "UpkeepUnpaid", frozenset({seat}), {"seat": seat}, seat=seat, cost=cost)
            unpaid.append(seat)
    for seat in unpaid:  # they vanish together: the victory check comes after all of them
        core.kill(s, seat, "vanished", judge=False)
    core.judge_victory(s)
    if s.over:
        return
    for seat in s.living:
        camp = s.edit(seat)
        camp.asleep = not camp.rested and not camp.asleep
        camp.rested = False
        if camp.asleep:
            core.emit(s, "MasterAsleep", seat=seat)
    s.day += 1
    s.turn = 0
    if s.day > s.settings.day_limit:
        s.over = True
        s.phase = "over"
        core.emit(s, "GameEnded", winner=-1, reason="day_limit")
