"""Rebuild a whole game state from ONE seat's view, sampling everything the view hides.

A search bot cannot be given the real state: that would show it every rival's hand, MP and
Master. `state_from_view(view, rules, rng)` instead builds a `GameState` the engine can play on,
in which the seat's own camp and everything public are exactly as the view says, and each
hidden value is drawn from `rng`, consistent with what the view shows:

- a rival's Servant: one of its class's roster still consistent with the view
  (`deduction.candidates`: its status, what its Noble Phantasm showed when it fired, the
  investigation tiers);
- a rival's Master: distinct Masters drawn from those the seat does not hold itself, rejecting
  draws that cannot explain what was seen with the Servant drawn (a declared turn-action skill,
  unnamed skill buffs);
- a rival's current hand: `hand_size` cards, drawn from its Servant's card composition (more than
  the composition: the composition plus random extra cards, as a critical reward gives);
- a rival's MP and its Master's MP, its Master's rested/waits/unlock progress, its
  investigation tiers, its stored Buster and Quick bonuses and the skills it used this round;
- the argument of a rival's hidden declaration (the class it investigates, the turn-action
  skill it uses) and the effect of a buff whose source the view hides ("skill", "np");
- what a rules module hides (`Module.rebuild`, `Module.sample` and `Module.rebuild_camp`:
  each module draws its own hidden values, never the true ones; docs/modules.md);
- the dice: the generator is reseeded from `rng`, so the future dice are unknown too.
"""

from __future__ import annotations

import random
from typing import Any

from ..engine import dice
from ..engine.core import skill_ids, sort_cards
from ..engine.data import CLASSES, NO_EFFECT, Effect, Master, Ruleset, Servant, Skill
from ..engine.deduction import candidates
from ..engine.modules import instances
from ..engine.state import (
    ActiveBuff,
    Battle,
    Camp,
    Declaration,
    GameState,
    Parley,
    PendingAttack,
    Prompt,
    Settings,
)
from ..engine.turns import TURN_NAMES

_MASTER_TRIES = 30


def state_from_view(view: dict[str, Any], rules: Ruleset, rng: random.Random) -> GameState:
    """A full engine state consistent with `view` (the view of one seat, never a spectator's);
    every value the view hides is sampled from `rng`."""
    me = view["you"]
    if me is None:
        raise ValueError("a determinization needs a seat's view, not the spectator's")
    servants = sample_servants(view, rules, rng)
    masters = sample_masters(view, rules, servants, rng)
    combat = {c["seat"]: c for c in view["battle"]["combatants"]} if view["battle"] else {}
    camps = [_camp(view, cv, rules, servants[cv["seat"]], masters[cv["seat"]],
                   combat.get(cv["seat"]), rng) for cv in view["camps"]]
    mods = view.get("modules", {})
    names = tuple(mods)
    options = {name: mods[name]["options"] for name in names}
    priority = view.get("priority")
    settings = Settings(view["map"], view["day_limit"], names, options, priority is not None)
    state = GameState(rules, settings, camps,
                      dice.seed_state(rng.getrandbits(64)), instances(rules, names, options))
    shown = [c.clone() for c in camps]
    for m in state.modules:  # the set-up first, then what the view shows of each module
        m.setup(state)
    # A set-up may change the camps (a module's day 0 deals classes, a tag adds a stroke):
    # they are the view's, so what the set-up drew never stands in for what the view shows.
    state.camps[:] = shown
    for m in state.modules:
        m.rebuild(state, mods[m.name]["state"])
        m.sample(state, rng.choice, me)
    for m in state.modules:
        for cv in view["camps"]:
            if cv["seat"] != me:
                m.rebuild_camp(state, cv)
    for camp, cv in zip(camps, view["camps"], strict=True):
        camp.buffs = tuple(_buff(view, state, camp, bv, rng) for bv in cv["buffs"])
    state.day = view["day"]
    state.turn = TURN_NAMES.index(view["turn"])
    state.phase = view["phase"]
    decls = [(d.get("held", False), _declaration(view, state, d, rng))
             for d in view["declarations"]]
    state.decls = tuple(d for held, d in decls if not held)
    state.held = tuple(d for held, d in decls if held)
    if priority is not None:
        state.priority = priority["open"]
        state.passed = frozenset(priority["passed"])
    state.bound = frozenset(view["bound"])
    state.agenda = tuple(tuple(step) for step in view["agenda"])
    state.fought = frozenset(view["fought"])
    state.eaten = frozenset(view["eaten"])
    state.contest = (view["contest"]["prevented"], view["contest"]["stealer"])
    state.rewards = tuple(view["rewards"])
    p = view["parley"]
    state.parley = None if p is None else Parley(p["kind"], p["opener"], p["target"],
                                                 frozenset(p["answered"]))
    if view["battle"] is not None:
        state.start_battle(_battle(view["battle"]))
    state.prompt = Prompt(view["prompt"]["kind"], frozenset(view["prompt"]["seats"]))
    state.winner = view["winner"]
    state.over = view["over"]
    state.version = view["version"]
    return state


# --- Servants and Masters -------------------------------------------------------------------
def sample_servants(view: dict[str, Any], rules: Ruleset, rng: random.Random) -> list[Servant]:
    """Each camp's Servant: the seat's own, and for a rival one of its candidates."""
    return [rules.by_id[cv["servant"]] if "servant" in cv else rng.choice(candidates(rules, cv))
            for cv in view["camps"]]


def sample_masters(view: dict[str, Any], rules: Ruleset, servants: list[Servant],
                   rng: random.Random) -> list[Master]:
    """One Master per camp: the seat's own, and distinct others drawn from the rest of the pool;
    a draw that cannot explain a rival's hidden skill use is drawn again."""
    me = view["you"]
    own = view["camps"][me]["master"]
    pool = [m for m in rules.masters if m != own]
    seats = [c["seat"] for c in view["camps"] if c["seat"] != me]
    chosen: list[str] = []
    for _ in range(_MASTER_TRIES):
        chosen = rng.sample(pool, len(seats)) if len(pool) >= len(seats) else [
            rng.choice(pool) for _ in seats]
        if all(_explains(view, rules, seat, servants[seat], rules.masters[m])
               for seat, m in zip(seats, chosen, strict=True)):
            break
    out: dict[int, Master] = dict(zip(seats, (rules.masters[m] for m in chosen), strict=True))
    out[me] = rules.masters[own]
    return [out[c["seat"]] for c in view["camps"]]


def _explains(view: dict[str, Any], rules: Ruleset, seat: int, servant: Servant,
              master: Master) -> bool:
    """Whether `master` with `servant` on camp `seat` could have produced what the view shows
    of it."""
    cv = view["camps"][seat]
    own_skills = [rules.skills[x] for x in (*servant.skills, *master.skills)]
    if any(d["seat"] == seat and d["kind"] == "skill" for d in view["declarations"]) and not any(
            sk.timing == "turn_action" for sk in own_skills):
        return False
    unnamed_self = sum(1 for b in cv["buffs"] if b["source"] == "skill" and not b["debuff"])
    return unnamed_self <= len(_self_buff_skills(cv, rules, servant, master))


def _self_buff_skills(cv: dict[str, Any], rules: Ruleset, servant: Servant,
                      master: Master) -> list[Skill]:
    """Skills of the camp that could leave an unnamed buff on itself: its Master's always (no
    investigation names them), its Servant's only if the viewer does not know them (tier 0)."""
    ids = list(master.skills)
    if "skills" not in cv:
        ids += servant.skills
    skills = [rules.skills[x] for x in ids]
    return [sk for sk in skills if sk.target == "self" and sk.effect.mods and sk.duration != 0
            and sk.timing != "constant"]


# --- camps ----------------------------------------------------------------------------------
def _camp(view: dict[str, Any], cv: dict[str, Any], rules: Ruleset, servant: Servant,
          master: Master, combat: dict[str, Any] | None, rng: random.Random) -> Camp:
    seat = cv["seat"]
    camp = Camp(seat, servant, master, cv["pos"])
    camp.hp = cv["hp"]
    camp.alive = cv["alive"]
    camp.spells = cv["spells"]
    camp.asleep = cv["asleep"]
    camp.np_shown = "np_seen" in cv
    camp.moved = view["moved"][seat]
    camp.rested = view["rested"][seat]
    if seat == view["you"]:
        camp.hand = cv["hand"]
        camp.mp = cv["mp"]
        camp.master_mp = cv["master_mp"]
        camp.known = tuple(cv["known"][c] for c in CLASSES)
        camp.waits = cv["waits"]
        camp.unlocked = cv["unlocked"]
        camp.buster = cv["buster"]
        camp.quick = cv["quick"]
        camp.skills_used = frozenset(cv["skills_used"])
    else:
        camp.hand = sample_hand(cv.get("cards", servant.cards), cv["hand_size"], rng)
        camp.mp = _pool(servant.mp, rng) if camp.alive else 0
        camp.master_mp = _pool(master.mp, rng)
        in_game = {c["cls"] for c in view["camps"]} - {cv["cls"]}
        camp.known = tuple(rng.choice((0, 0, 0, 1, 1, 2)) if c in in_game else 0
                           for c in CLASSES)
        unlock = rules.numbers.master_wait_unlock
        camp.waits = rng.randint(0, unlock)
        camp.unlocked = camp.waits >= unlock
    if combat is not None:
        camp.np_target = combat["np_target"]
        camp.np_round = combat["np_round"]
        camp.war_roar = combat["war_roar"]
        camp.disengage_round = combat["disengage_round"]
        camp.caught = combat["caught"]
        camp.fleeing = combat["fleeing"]
        camp.pending_power = combat["pending_power"]
        camp.pending_crit = combat["pending_crit"]
        camp.pending_round = combat["pending_round"]
    return camp


def _pool(maximum: int, rng: random.Random) -> int:
    """A hidden MP pool: most camps keep theirs well filled (rest, upkeep); never empty."""
    return max(1, round(maximum * rng.uniform(0.35, 1.0)))


def sample_hand(composition: str, size: int, rng: random.Random) -> str:
    """`size` cards drawn from a card composition (the extra ones beyond it at random)."""
    cards = list(composition)
    if size <= len(cards):
        return sort_cards("".join(rng.sample(cards, size)))
    return sort_cards(composition + "".join(rng.choice("BAQ") for _ in range(size - len(cards))))


# --- buffs ----------------------------------------------------------------------------------
def _buff(view: dict[str, Any], state: GameState, camp: Camp, bv: dict[str, Any],
          rng: random.Random) -> ActiveBuff:
    rules = state.rules
    source, rounds, debuff = bv["source"], bv["rounds"], bv["debuff"]
    seat = camp.seat
    kind, _, ident = source.partition(":")
    if kind == "cs" and ident in rules.command_spells:
        return ActiveBuff(source, rules.command_spells[ident].effect, rounds, False, False, seat)
    if kind == "debuff":
        found = next((d for d in rules.debuffs if d.id == ident), None)
        return ActiveBuff(source, found.effect if found else NO_EFFECT, rounds, True, True, seat)
    if kind == "buff":
        found = next((b for b in rules.buffs if b.id == ident), None)
        return ActiveBuff(source, found.effect if found else NO_EFFECT, rounds, True, False, seat)
    if kind == "np":
        if ident:  # named: whose NP it is follows from the id
            owner = next((c for c in state.camps if c.servant.np.id == ident), camp)
        else:
            owner = camp if not debuff else _np_owner(view, state, camp, rng)
        np = owner.servant.np
        effect = np.target_effect if debuff else np.self_effect
        return ActiveBuff("np:" + np.id, effect, rounds, True, debuff, owner.seat)
    if source in rules.skills:  # a named skill
        skill = rules.skills[source]
        owner = seat
        if debuff:  # named: the viewer's own skill, or a Servant skill of a rival it knows
            me = view["you"]
            holders = [c.seat for c in state.camps if c.seat != seat and source in skill_ids(c)
                       and (c.seat == me or "skills" in view["camps"][c.seat])]
            owner = min(holders, key=lambda x: (x != me, x), default=seat)
        return ActiveBuff(source, skill.effect, rounds, True, debuff, owner)
    return _unnamed_skill_buff(view, state, camp, rounds, debuff, rng)


def _np_owner(view: dict[str, Any], state: GameState, camp: Camp, rng: random.Random) -> Camp:
    """An unnamed NP debuff came from a rival whose NP the viewer has not identified: one
    whose sampled NP has a debuff if any (else any such rival: the view stays the same)."""
    unknown = [c for c in state.camps if c.seat not in (camp.seat, view["you"])
               and "noble_phantasm" not in view["camps"][c.seat]]
    rivals = [c for c in unknown if c.servant.np.target_effect.mods] or unknown
    return rng.choice(rivals) if rivals else camp


def _unnamed_skill_buff(view: dict[str, Any], state: GameState, camp: Camp, rounds: int,
                        debuff: bool, rng: random.Random) -> ActiveBuff:
    """A buff shown only as "skill": a self-buff of the camp's own (Master's, or unidentified
    Servant's) skills, or a debuff from an enemy-targeted skill of some rival."""
    rules = state.rules
    used = {b.source for b in camp.buffs}
    options: list[tuple[Skill, int]] = []
    if not debuff:
        cv = view["camps"][camp.seat]
        options = [(sk, camp.seat)
                   for sk in _self_buff_skills(cv, rules, camp.servant, camp.master)]
    else:
        for rival in state.camps:
            if rival.seat in (camp.seat, view["you"]):  # the viewer's own would be named
                continue
            known = "skills" in view["camps"][rival.seat] or rival.seat == view["you"]
            ids = rival.master.skills if known else skill_ids(rival)
            options += [(rules.skills[x], rival.seat) for x in ids
                        if rules.skills[x].target == "enemy" and rules.skills[x].effect.mods]
    fitting = [(sk, o) for sk, o in options if sk.id not in used and sk.duration >= rounds]
    if not fitting:
        return ActiveBuff("skill", Effect(()), rounds, True, debuff, camp.seat)
    skill, owner = rng.choice(fitting)
    return ActiveBuff(skill.id, skill.effect, rounds, True, debuff, owner)


# --- declarations and battle ----------------------------------------------------------------
def _declaration(view: dict[str, Any], state: GameState, d: dict[str, Any],
                 rng: random.Random) -> Declaration:
    seat, kind = d["seat"], d["kind"]
    arg = d.get("arg", "")
    if kind == "soul_eating":
        arg = str(d["square"])
    elif kind == "investigate" and not arg:
        others = [c.cls for c in state.camps if c.seat != seat and c.alive] or [
            c.cls for c in state.camps if c.seat != seat]
        arg = rng.choice(others)
    elif kind == "skill" and not arg:
        camp = state.camps[seat]
        skills = [x for x in skill_ids(camp) if state.rules.skills[x].timing == "turn_action"]
        if not skills:  # a Master that cannot explain it slipped through: any turn-action skill
            skills = [x for x, sk in state.rules.skills.items() if sk.timing == "turn_action"]
        arg = rng.choice(skills)
    return Declaration(seat, kind, d.get("target", -1), d.get("intent", ""), arg)


def _battle(bv: dict[str, Any]) -> Battle:
    b = Battle(bv["purpose"], bv["opener"], bv["target"], bv["square"])
    b.seats = tuple(bv["seats"])
    b.joined = tuple(bv["joined"])
    b.homes = tuple((h[0], h[1]) for h in bv["homes"])
    b.round = bv["round"]
    b.order = tuple(bv["order"])
    b.cursor = bv["cursor"]
    b.stage = bv["stage"]
    b.offered = frozenset(bv["offered"])
    b.ready = frozenset(bv["ready"])
    b.truce = frozenset(bv["truce"])
    b.ambusher = bv["ambusher"]
    b.acted = bv["acted"]
    b.pending = None if bv["pending"] is None else PendingAttack(**bv["pending"])
    return b
