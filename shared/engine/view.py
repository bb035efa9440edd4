"""What one seat may know: `view_for(state, seat)`; `seat=None` is the spectator's view.

Public to all: the day and turn, positions, HP, status parameters (seed 000: "disclosed from the
start"), Command Spells left, hand size, the declared kinds of priority actions and the battle,
and the public structure a bot needs to rebuild the game from one seat's view (what is still to
resolve this turn, who is bound, who fought, moves and rests, the battle's internals).
Hidden until the seat's investigations reveal them, tier by tier (tier 1: command cards and
skills; tier 2: Noble Phantasm and true name; tier 3: profile and weakness): the rest of a
rival's sheet. A rival's MP, its Master and what it investigated are never shown. Once the game
is over every seat and the spectators know every camp to tier 3 (the true names are told).
A Noble Phantasm that fired shows all its card, kind and scale (`np_seen`), not its name.
"""

from __future__ import annotations

from typing import Any

from . import core
from .data import CLASSES
from .events import Event, view_event
from .sharing import Shared
from .state import ActiveBuff, Camp, Declaration, GameState
from .turns import PRIORITY, TURN_NAMES

_PUBLIC_SOURCES = ("cs:", "debuff:", "buff:")
OWN = 4  # above every investigation tier: a camp knows all of itself, Master included
_CLASS_INDEX = {cls: i for i, cls in enumerate(CLASSES)}  # a class's place in `Camp.known`


def view_for(state: GameState, seat: int | None, shared: Shared | None = None) -> dict[str, Any]:
    """A plain dict (msgpack/JSON-ready) of everything `seat` may see now. With `shared` (of
    this state), the parts other views of it share are made once; they are read-only: a caller
    that changes a view changes a copy."""
    if shared is None:
        shared = Shared(state)
    elif shared.state is not state:
        raise ValueError("view_for: a Shared of another state")
    return {**shared.get("public", lambda: public_view(state)), **seat_view(state, seat, shared)}


def public_view(state: GameState) -> dict[str, Any]:
    """The part of every seat's view that is the same for all."""
    b = state.battle
    return {
        "version": state.version,
        "day": state.day,
        "turn": TURN_NAMES[state.turn % len(TURN_NAMES)],
        "phase": state.phase,
        "over": state.over,
        "winner": state.winner,
        "map": state.settings.map_id,
        "day_limit": state.settings.day_limit,
        "prompt": {"kind": state.prompt.kind, "seats": sorted(state.prompt.seats)},
        # The priority phase (docs/rules.md §3.3): None in a game without one; else whether
        # it is open now and who passed it (held declarations are marked in `declarations`).
        "priority": {"open": state.priority, "passed": sorted(state.passed)}
        if state.settings.priority_phase else None,
        "eaten": sorted(state.eaten),
        # Public structure of the turn (everything here was announced at the table): what is
        # still to resolve, who is bound or has fought, who moved how far and who rested today,
        # the soul-eating contest and the queue of critical rewards.
        "agenda": [list(step) for step in state.agenda],
        "bound": sorted(state.bound),
        "fought": sorted(state.fought),
        "moved": [c.moved for c in state.camps],
        "rested": [c.rested for c in state.camps],
        "contest": {"prevented": state.contest[0], "stealer": state.contest[1]},
        "rewards": list(state.rewards),
        "parley": None if state.parley is None else {
            "kind": state.parley.kind, "opener": state.parley.opener,
            "target": state.parley.target, "answered": sorted(state.parley.answered)},
        "battle": None if b is None else battle_view(state),
    }


def seat_view(state: GameState, seat: int | None, shared: Shared) -> dict[str, Any]:
    """The part of `seat`'s view that depends on who looks: the camps (each made once per
    tier it is seen with), the declarations (an argument only its declarer sees) and the
    modules' state."""
    return {
        "you": seat,
        # a camp's view is made once per tier it is seen with, and taken from the state
        # before while the camp, the viewer's tiers of it and its figures are the same
        "camps": [shared.carried(("camp", camp.seat, key),
                                 (camp, key, figures(state, camp, shared)),
                                 lambda c=camp: camp_view(state, c, seat, shared))
                  for camp, key in zip(state.camps, _view_keys(state, seat), strict=True)],
        "declarations": [*(declaration_view(d, seat) for d in state.decls),
                         *({**declaration_view(d, seat), "held": True} for d in state.held)],
        # The modules switched on, their options, and what this seat may know of their state.
        "modules": {m.name: {**shared.get(("module", m.name), lambda m=m: {
            "options": dict(m.values), "verbs": list(m.verbs())}),
            "state": m.view(state, seat, shared)} for m in state.modules},
    }


def _view_keys(state: GameState, viewer: int | None) -> list[tuple[int, ...]]:
    """Per camp, everything of the viewer `camp_view` reads: its tier of the camp and of each
    buff's owner (`buff_view` names a buff by what the viewer knows of who cast it). Viewers
    with the same key of a camp see the same view of it."""
    tiers = [tier(state, viewer, camp) for camp in state.camps]
    return [(tiers[camp.seat], *(tiers[b.owner] for b in camp.buffs)) if camp.buffs
            else (tiers[camp.seat],) for camp in state.camps]


def declaration_view(d: Declaration, viewer: int | None) -> dict[str, Any]:
    """Kind for all; target and intent of priority kinds for all (they bind their target), the
    square of a soul-eating for all (eating is seen where it happens); the argument of an
    investigation or a skill (a class, a skill id) only for the camp that declared it."""
    out: dict[str, Any] = {"seat": d.seat, "kind": d.kind}
    if d.kind in PRIORITY:
        out.update(target=d.target, intent=d.intent)
    if d.kind == "soul_eating":
        out["square"] = int(d.arg)
    elif viewer == d.seat and d.arg:
        out["arg"] = d.arg
    return out


def battle_view(state: GameState) -> dict[str, Any]:
    """The battle as every seat sees it: who fights and where, the round, the initiative order
    and its cursor, the prompts answered so far, and each combatant's announced state (declared
    Noble Phantasm, War Roar, disengaging, fleeing, a support NP's bonus waiting for next round)."""
    b = state.battle
    return {
        "purpose": b.purpose, "opener": b.opener, "target": b.target,
        "seats": list(b.seats), "joined": list(b.joined), "square": b.square,
        "homes": [list(h) for h in b.homes],
        "round": b.round, "order": list(b.order), "cursor": b.cursor, "stage": b.stage,
        "actor": b.actor if b.stage in ("main", "reaction") else None,
        "pending": None if b.pending is None else b.pending._asdict(),
        "offered": sorted(b.offered), "ready": sorted(b.ready), "truce": sorted(b.truce),
        "ambusher": b.ambusher, "acted": b.acted,
        "combatants": [combatant_view(state.camps[x]) for x in b.joined],
    }


def combatant_view(camp: Camp) -> dict[str, Any]:
    """What a combatant announced in this battle (all public events)."""
    return {
        "seat": camp.seat, "np_target": camp.np_target, "np_round": camp.np_round,
        "war_roar": camp.war_roar, "disengage_round": camp.disengage_round,
        "caught": camp.caught, "fleeing": camp.fleeing, "pending_power": camp.pending_power,
        "pending_crit": camp.pending_crit, "pending_round": camp.pending_round,
    }


def tier(state: GameState, viewer: int | None, camp: Camp) -> int:
    """How much of `camp` the viewer knows: its investigation tier (0..3), OWN for its own."""
    if viewer == camp.seat:
        return OWN
    if state.over:  # the war is over: every true name is told, to the spectators too
        return 3
    if viewer is None:
        return 0
    return state.camps[viewer].known[_CLASS_INDEX[camp.cls]]


def figures(state: GameState, camp: Camp, shared: Shared) -> tuple[int, str, int, int]:
    """The camp's max HP, cards, max MP and Master max MP, which every module's hooks may
    change: figured once per state for all the viewers."""
    return shared.get(("figures", camp.seat), lambda: (
        core.max_hp(state, camp), core.composition(state, camp), core.max_mp(state, camp),
        core.max_master_mp(state, camp)))


def camp_view(state: GameState, camp: Camp, viewer: int | None,
              shared: Shared | None = None) -> dict[str, Any]:
    """What `viewer` sees of `camp`: made of the camp, the viewer's tiers (`_view_keys`) and
    the camp's `figures`."""
    if shared is None:
        shared = Shared(state)
    max_hp, cards, max_mp, max_master_mp = figures(state, camp, shared)
    servant = camp.servant
    level = tier(state, viewer, camp)
    out: dict[str, Any] = {
        "seat": camp.seat,
        "cls": camp.cls,
        "alive": camp.alive,
        "pos": camp.pos,
        "hp": camp.hp,
        "max_hp": max_hp,
        "ranks": dict(servant.ranks),
        "movement": servant.movement,
        "spells": camp.spells,
        "hand_size": len(camp.hand),
        "asleep": camp.asleep,
        "buffs": [buff_view(state, b, viewer) for b in camp.buffs],
    }
    if camp.np_shown:  # seen when it fired: not its name, but what it was
        out["np_seen"] = {"card": servant.np.card, "kind": servant.np.kind,
                          "scale": servant.np.scale}
    if level >= 1:
        out["cards"] = cards
        out["skills"] = list(servant.skills)
    if level >= 2:
        out["servant"] = servant.id
        out["noble_phantasm"] = servant.np.id
    if level >= 3:
        out["profile"] = True
        out["weakness"] = True
    if viewer == camp.seat:
        out.update(
            hand=camp.hand, mp=camp.mp, max_mp=max_mp, master=camp.master.id,
            master_mp=camp.master_mp, max_master_mp=max_master_mp,
            known=dict(zip(CLASSES, camp.known, strict=True)),
            waits=camp.waits, unlocked=camp.unlocked, rested=camp.rested,
            buster=camp.buster, quick=camp.quick, np_target=camp.np_target,
            war_roar=camp.war_roar, disengaging=camp.disengage_round,
            skills_used=sorted(camp.skills_used),
            master_skills=list(camp.master.skills if camp.unlocked else camp.master.skills[:3]),
        )
    return out


def buff_view(state: GameState, buff: ActiveBuff, viewer: int | None) -> dict[str, Any]:
    """Command Spell, table buffs and debuffs are seen by all; the name of a skill or Noble
    Phantasm only by those who know its owner well enough (tier 1 Servant skills, tier 2 NP);
    a Master's skills only by its own camp (no investigation reveals them)."""
    source = buff.source
    is_np = source.startswith("np:")
    skill = state.rules.skills.get(source)
    needed = 2 if is_np else OWN if skill is not None and skill.owner == "master" else 1
    if source.startswith(_PUBLIC_SOURCES) or tier(state, viewer, state.camps[buff.owner]) >= needed:
        return {"source": source, "rounds": buff.rounds, "debuff": buff.debuff}
    return {"source": "np" if is_np else "skill", "rounds": buff.rounds, "debuff": buff.debuff}


def events_for(events: list[Event], seat: int | None) -> list[dict[str, Any]]:
    """The events as `seat` may see them, in order, dropping the ones it may not see at all."""
    out = []
    for event in events:
        seen = view_event(event, seat)
        if seen is not None:
            out.append(seen)
    return out


def omniscient_view(state: GameState) -> dict[str, Any]:
    """The spectator view with each camp as it sees itself, for scenario output and debugging
    (never sent to a seat). Not everything: buffs keep `buff_view`'s names per carrying camp and
    declarations their public form (docs/scenarios.md, Output)."""
    out = view_for(state, None)
    out["camps"] = [camp_view(state, c, c.seat) for c in state.camps]
    return out
