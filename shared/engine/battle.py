"""Battles (seed 000 §Combat): intervention, rounds, activations, attacks, reactions, Noble
Phantasms and their clashes, disengage, flee, and the end of a battle.

A battle walks the stages offer → round_start → turns ⇄ main → reaction → turns …; the
critical-reward queue (`s.rewards`) interrupts it between steps.
"""

from __future__ import annotations

from functools import cache

from . import core, powers
from .actions import (
    Action,
    AnswerIntervention,
    Attack,
    ChooseReward,
    DeclareDisengage,
    DeclareNoblePhantasm,
    Move,
    OfferTruce,
    React,
    Ready,
    UseCommandSpell,
    UseNoblePhantasm,
    Wait,
)
from .core import CHECK_STAT, COUNTER, city
from .data import CommandSpell, Dice
from .geometry import distance, reachable
from .state import Battle, Camp, GameState, PendingAttack, Prompt

Part = tuple[str, int]  # one named addend of a damage total, as DamageDealt shows it
_D3 = Dice(1, 3, 0)
_D2 = Dice(1, 2, 0)
_CLASH_PENALTY = {  # (own scale, other scale) -> numbers key of the penalty the own side takes
    ("anti_personnel", "anti_army"): "clash_personnel_vs_army",
    ("anti_army", "anti_fortress"): "clash_army_vs_fortress",
    ("anti_personnel", "anti_fortress"): "clash_personnel_vs_fortress",
}


# --- opening and closing ------------------------------------------------------------------------
def open_battle(s: GameState, purpose: str, opener: int, target: int, flee: bool = False) -> None:
    """A battle breaks out; camps that declared Wait and can reach it are offered to join."""
    square = s.camps[target].pos
    b = Battle(purpose, opener, target, square)
    if purpose == "ambush":
        b.ambusher = opener
        if flee:
            s.edit(target).fleeing = True
    else:  # the encounterer goes to its partner's square and comes back afterwards
        b.homes = ((opener, s.camps[opener].pos),)
        s.edit(opener).pos = square
    s.start_battle(b)
    s.fought = s.fought | {opener, target}
    b.offered = frozenset(
        d.seat for d in s.decls
        if d.kind == "wait" and s.camps[d.seat].alive and d.seat not in s.fought
        and distance(city(s), s.camps[d.seat].pos, square)
        <= core.movement(s, s.camps[d.seat])
    )
    core.emit(s, "BattleOpened", purpose=purpose, seats=list(b.seats), square=square,
              offered=sorted(b.offered))
    if not b.offered:
        begin_battle(s)


def begin_battle(s: GameState) -> None:
    """Round 1: hands are given from each composition; battle-start automatic skills fire."""
    b = s.edit_battle()
    b.joined = b.seats
    b.stage = "round_start"
    b.round = 1
    for seat in b.seats:
        camp = s.edit(seat)
        camp.hand = core.composition(s, camp)
        camp.buster = camp.quick = 0
        camp.np_target = -1
        camp.skills_used = frozenset()
    core.emit(s, "BattleStarted", seats=list(b.seats), square=b.square)
    battle_start_skills(s, b.seats)
    for m in s.modules:
        m.on_battle_start(s)
    round_upkeep(s)


def battle_start_skills(s: GameState, seats: tuple[int, ...]) -> None:
    """The automatic skills that fire when a battle (or a raid) starts."""
    for seat in seats:
        for skill in core.skills_of(s, s.camps[seat], "automatic"):
            if skill.trigger == "battle_start" and powers.usable_skill(s, s.camps[seat], skill):
                powers.run_skill(s, seat, skill, -1)


def round_upkeep(s: GameState, seats: tuple[int, ...] | None = None) -> None:
    """Start of a round: per-round recovery from buffs and a constant Arts Noble Phantasm,
    for the battle's combatants (or `seats`: a raid's raiders)."""
    n = s.rules.numbers
    for seat in s.battle.seats if seats is None else seats:
        camp = s.camps[seat]
        if not camp.alive:
            continue
        mp = core.mod(s, camp, "mp_per_round")
        np = camp.servant.np
        if np.kind == "constant" and np.card == "A":
            mp += n.np_constant_arts
        hp = core.mod(s, camp, "hp_per_round")
        if mp > 0:
            core.gain_mp(s, seat, mp)
        elif mp < 0:  # a debuff such as Mana Leak drains
            core.lose_mp(s, seat, -mp)
        if hp > 0:
            core.heal(s, seat, hp)
        elif hp < 0 and s.camps[seat].alive:  # Bleeding
            core.take_damage(s, seat, -hp)


def leave_battle(s: GameState, seat: int, how: str) -> None:
    b = s.edit_battle()
    b.seats = tuple(x for x in b.seats if x != seat)
    if how in ("retreat", "teleport"):
        b.homes = tuple(h for h in b.homes if h[0] != seat)
    core.emit(s, "LeftBattle", seat=seat, how=how)


def leave_combat(s: GameState, seat: int) -> None:
    """What a battle (or a raid) leaves behind lapses: battle-only buffs, the hand's stored
    bonuses, a declared Noble Phantasm, disengaging and fleeing."""
    camp = s.edit(seat)
    camp.buffs = tuple(x for x in camp.buffs if x.rounds < 0)
    camp.buster = camp.quick = 0
    camp.np_target = -1
    camp.war_roar = camp.fleeing = camp.caught = False
    camp.disengage_round = -1
    camp.pending_power = camp.pending_crit = 0
    camp.skills_used = frozenset()


def end_battle(s: GameState, reason: str) -> None:
    """Everyone returns to turn play; battle-only buffs, hands' bonuses and NP charges lapse."""
    for m in s.modules:
        m.on_battle_end(s)
    b = s.battle
    for seat in b.joined:
        if s.camps[seat].alive:
            leave_combat(s, seat)
    for seat, home in b.homes:
        if s.camps[seat].alive:
            s.edit(seat).pos = home
    if b.purpose in ("prevent", "steal"):
        won = b.target not in b.seats and b.opener in b.seats and s.camps[b.opener].alive
        prevented, stealer = s.contest
        if won and not prevented and stealer < 0:
            s.contest = (b.purpose == "prevent", b.opener if b.purpose == "steal" else -1)
    core.emit(s, "BattleEnded", reason=reason, remaining=list(b.seats), rounds=b.round)
    s.battle = None


# --- walking the battle ----------------------------------------------------------------------
def battle_step(s: GameState) -> bool:
    """Advance the battle one step; True once a prompt is set for some seats."""
    b = s.battle
    if b.stage == "offer":
        if b.offered:
            s.prompt = Prompt("intervene", b.offered)
            return True
        begin_battle(s)
        return False
    if any(not s.camps[x].alive for x in b.seats):
        s.edit_battle().seats = tuple(x for x in b.seats if s.camps[x].alive)
        b = s.battle
    if len(b.seats) < 2:
        end_battle(s, "decided")
        return False
    if b.stage == "round_start":
        waiting = frozenset(b.seats) - b.ready
        if waiting:
            s.prompt = Prompt("round_start", waiting)
            return True
        finish_round_start(s)
        return False
    if b.stage == "turns":
        if b.cursor >= len(b.order):
            end_round(s)
        elif b.actor not in b.seats:
            s.edit_battle().cursor += 1
        else:
            start_activation(s, b.actor)
        return False
    if b.stage == "main":
        if b.actor not in b.seats:
            next_activation(s)
            return False
        s.prompt = Prompt("main", frozenset({b.actor}))
        return True
    # reaction
    p = b.pending
    if p.target not in b.seats or p.attacker not in b.seats:
        next_activation(s)
        return False
    s.prompt = Prompt("reaction", frozenset({p.target}))
    return True


def finish_round_start(s: GameState) -> None:
    b = s.battle
    if b.truce >= frozenset(b.seats):
        end_battle(s, "truce")
        return
    order = initiative(s)
    for m in s.modules:
        order = m.initiative(s, order)
    b = s.edit_battle()
    b.order = order
    b.cursor = 0
    b.stage = "turns"
    core.emit(s, "RoundStarted", round=b.round, order=list(b.order))


def initiative(s: GameState) -> tuple[int, ...]:
    """Agility descending, ties by Luck, then a 1d6 roll-off; an ambusher leads round 1."""
    b = s.battle
    keys = {x: (core.param(s, s.camps[x], "agi"), core.param(s, s.camps[x], "luk"))
            for x in b.seats}
    groups: dict[tuple[int, int], list[int]] = {}
    for seat in b.seats:
        groups.setdefault(keys[seat], []).append(seat)
    order: list[int] = []
    for key in sorted(groups, reverse=True):
        order.extend(roll_off(s, groups[key]))
    if b.round == 1 and b.ambusher in order:
        target = s.camps[b.target]
        if not core.has_flag(s, target, "first_strike"):
            order.remove(b.ambusher)
            order.insert(0, b.ambusher)
    return tuple(order)


def roll_off(s: GameState, seats: list[int]) -> list[int]:
    """Order tied seats by 1d6, rolling again among those still tied."""
    if len(seats) < 2:
        return seats
    rolls = {seat: core.roll_dice(s, Dice(1, 6, 0), seat, "initiative") for seat in seats}
    out: list[int] = []
    for value in sorted(set(rolls.values()), reverse=True):
        out.extend(roll_off(s, [x for x in seats if rolls[x] == value]))
    return out


def start_activation(s: GameState, seat: int) -> None:
    """Flee and disengage are settled when the camp's own activation comes round."""
    b = s.battle
    camp = s.camps[seat]
    if camp.fleeing and b.round == 1:
        leave_battle(s, seat, "fled")
        s.edit_battle().cursor += 1
        return
    if 0 <= camp.disengage_round < b.round:
        hostile_here = any(s.camps[x].pos == camp.pos for x in b.seats if x != seat)
        if camp.caught or hostile_here:
            camp = s.edit(seat)
            camp.disengage_round = -1
            camp.caught = False
            core.emit(s, "DisengageFailed", seat=seat)
        else:
            leave_battle(s, seat, "disengaged")
            s.edit_battle().cursor += 1
            return
    if camp.disengage_round == b.round and not battle_moves(s, seat):
        s.edit(seat).disengage_round = -1  # no square to run to: caught at once (Q16)
        core.emit(s, "DisengageFailed", seat=seat)
    b = s.edit_battle()
    b.stage = "main"
    b.acted = False


def next_activation(s: GameState) -> None:
    """End the actor's activation; a Noble Phantasm that was due and did not fire lapses."""
    b = s.edit_battle()
    if b.order and b.cursor < len(b.order):
        for m in s.modules:
            m.on_activation_end(s, b.actor)
        b = s.edit_battle()
        camp = s.camps[b.actor]
        np = camp.servant.np
        if camp.war_roar:
            s.edit(b.actor).war_roar = False
        if camp.alive and camp.np_target >= 0 and b.round >= camp.np_round + np.charge:
            s.edit(b.actor).np_target = -1
            core.emit(s, "NoblePhantasmLapsed", seat=b.actor)
    b.pending = None
    b.cursor += 1
    b.stage = "turns"
    b.acted = False


def end_round(s: GameState) -> None:
    """Buffs count down; after every third round all hands return to their composition."""
    for m in s.modules:
        m.on_round_end(s)
    b = s.edit_battle()
    n = s.rules.numbers
    for seat in b.seats:
        tick_round(s, seat, b.round)
    if b.round % n.hand_refill_every == 0:
        core.emit(s, "HandsRefilled", round=b.round)
    if b.round >= n.max_battle_rounds:
        end_battle(s, "round_limit")
        return
    b.round += 1
    b.stage = "round_start"
    b.ready = b.truce = frozenset()
    round_upkeep(s)


def tick_round(s: GameState, seat: int, round_no: int) -> None:
    """A combatant's round is over: its buffs count down, its once-a-round skills come back,
    and after every third round its hand returns to its composition."""
    camp = s.edit(seat)
    camp.buffs = tuple(x._replace(rounds=x.rounds - 1) for x in camp.buffs if x.rounds != 1)
    camp.skills_used = frozenset()
    if round_no % s.rules.numbers.hand_refill_every == 0:
        camp.hand = core.composition(s, camp)


# --- legal actions -------------------------------------------------------------------------------
def intervention_actions(s: GameState, seat: int) -> list[Action]:
    return [AnswerIntervention(seat, True), AnswerIntervention(seat, False),
            *powers.command_spell_actions(s, seat)]


def np_ready(s: GameState, camp: Camp) -> bool:
    """Declared and charged (or War Roar), and the cost in MP and cards can be paid."""
    np = camp.servant.np
    if np.kind == "constant":
        return False
    b = s.battle
    charged = camp.war_roar or (camp.np_target >= 0 and b.round >= camp.np_round + np.charge)
    return (charged and core.can_pay(camp, np.mp) and camp.hand.count(np.card) >= np.cards
            and not (np.kind == "support" and core.buff_active(camp, "np:" + np.id)))


def round_start_actions(s: GameState, seat: int) -> list[Action]:
    b = s.battle
    camp = s.camps[seat]
    out: list[Action] = [Ready(seat)]
    np = camp.servant.np
    if (np.kind != "constant" and camp.np_target < 0 and core.can_pay(camp, np.mp)
            and camp.hand.count(np.card) >= np.cards
            and not core.buff_active(camp, "np:" + np.id)):
        targets = [seat] if np.kind == "support" else [x for x in b.seats if x != seat]
        out.extend(DeclareNoblePhantasm(seat, t) for t in targets)
    if camp.disengage_round != b.round and not camp.fleeing:
        out.append(DeclareDisengage(seat))
    if seat not in b.truce:
        out.append(OfferTruce(seat))
    out.extend(powers.skill_actions(s, seat, "round_start",
                                    *(("combat_start",) if b.round == 1 else ())))
    out.extend(powers.command_spell_actions(s, seat))
    return out


def battle_moves(s: GameState, seat: int) -> dict[int, int]:
    """Squares a combatant may move to: not into a bystander's square, not past a combatant,
    and within the stops and limits of the modules switched on (seed 003's zones of control)."""
    b = s.battle
    camp = s.camps[seat]
    occupied = {c.pos for c in s.camps if c.alive and c.seat not in b.seats}
    stops = frozenset(s.camps[x].pos for x in b.seats if x != seat)
    steps = core.movement(s, camp)
    for m in s.modules:
        more, limit = m.battle_move(s, seat)
        stops |= more
        if limit is not None:
            steps = min(steps, limit)
    if steps <= 0:
        return {}
    found = reachable(city(s), camp.pos, steps, frozenset(occupied), stops)
    del found[camp.pos]
    return found


def main_actions(s: GameState, seat: int) -> list[Action]:
    b = s.battle
    camp = s.camps[seat]
    out: list[Action] = []
    if camp.disengage_round == b.round:  # it must run as far as it can (Q16)
        moves = battle_moves(s, seat)
        far = max(moves.values())
        out.extend(Move(seat, q) for q, d in moves.items() if d == far)
        return [*out, *powers.command_spell_actions(s, seat, in_main=True)]
    out.append(Wait(seat))
    if not b.acted:
        out.extend(Move(seat, q) for q in battle_moves(s, seat))
    grid = city(s)
    np = camp.servant.np
    fire = np_ready(s, camp)
    for t in b.seats:
        if t == seat:
            continue
        d = distance(grid, camp.pos, s.camps[t].pos)
        if d == 0:
            out.extend(Attack(seat, t, k, k) for k in "BAQ" if k in camp.hand)
            out.extend(Attack(seat, t, "L", c) for c in ("", *sorted(set(camp.hand))))
        elif d <= s.rules.numbers.ranged_max:
            out.extend(Attack(seat, t, k, k) for k in "BAQ" if k in camp.hand)
        if fire and np.kind == "attack" and d <= np.range and (
                camp.war_roar or camp.np_target == t):
            out.append(UseNoblePhantasm(seat, t))
    if fire and np.kind == "support":
        out.append(UseNoblePhantasm(seat, seat))
    out.extend(powers.skill_actions(s, seat, *(() if b.acted else ("own_activation",))))
    out.extend(powers.command_spell_actions(s, seat, in_main=True))
    return out


def reaction_actions(s: GameState, seat: int) -> list[Action]:
    p = s.battle.pending
    camp = s.camps[seat]
    cards = ("", *sorted(set(camp.hand)))
    out: list[Action] = []
    counter = COUNTER.get(p.kind, "")
    if counter and counter in camp.hand:
        out.append(React(seat, counter, counter))
    if not p.noble_phantasm:
        out.extend(React(seat, "L", c) for c in cards)
    out.extend(React(seat, "G", c) for c in cards)
    out.extend(powers.skill_actions(s, seat))
    out.extend(powers.command_spell_actions(s, seat))
    return out


def reward_actions(s: GameState, seat: int) -> list[Action]:
    camp = s.camps[seat]
    out: list[Action] = [ChooseReward(seat, r) for r in ("hp", "mp", "card:B", "card:A",
                                                          "card:Q")]
    out.extend(ChooseReward(seat, "buff:" + buff.id) for buff in s.rules.buffs
               if not core.buff_active(camp, "buff:" + buff.id))
    out.extend(powers.command_spell_actions(s, seat))
    return out


# --- applying battle actions ---------------------------------------------------------------------
def answer_intervention(s: GameState, action: AnswerIntervention) -> None:
    b = s.edit_battle()
    b.offered = b.offered - {action.seat}
    if action.join:
        b.seats = (*b.seats, action.seat)
        s.fought = s.fought | {action.seat}
    core.emit(s, "InterventionAnswered", seat=action.seat, join=action.join)
    if action.join:
        for m in s.modules:
            m.on_join(s, action.seat)


def round_start_action(s: GameState, action: Action) -> None:
    b = s.edit_battle()
    seat = action.seat
    if isinstance(action, Ready):
        b.ready = b.ready | {seat}
    elif isinstance(action, DeclareNoblePhantasm):
        camp = s.edit(seat)
        camp.np_target = action.target
        camp.np_round = b.round
        core.emit(s, "NoblePhantasmDeclared", seat=seat, target=action.target)
    elif isinstance(action, DeclareDisengage):
        camp = s.edit(seat)
        camp.disengage_round = b.round
        camp.caught = False
        core.emit(s, "DisengageDeclared", seat=seat)
    elif isinstance(action, OfferTruce):
        b.truce = b.truce | {seat}
        core.emit(s, "TruceOffered", seat=seat)


def battle_move(s: GameState, action: Move) -> None:
    b = s.edit_battle()
    seat = action.seat
    camp = s.edit(seat)
    camp.pos = action.to
    core.emit(s, "Moved", seat=seat, to=action.to)
    catch(s, seat, action.to)
    if camp.disengage_round == b.round:
        camp.caught = any(s.camps[x].pos == action.to for x in b.seats if x != seat)
        next_activation(s)
    else:
        b.acted = True


def catch(s: GameState, seat: int, square: int) -> None:
    """A combatant arriving in a disengaging foe's square has caught up with it."""
    for x in s.battle.seats:
        other = s.camps[x]
        if x != seat and other.pos == square and other.disengage_round >= 0:
            s.edit(x).caught = True


def attack(s: GameState, action: Attack) -> None:
    b = s.edit_battle()
    b.acted = True
    core.spend_card(s, action.seat, action.card)
    d = distance(city(s), s.camps[action.seat].pos, s.camps[action.target].pos)
    core.emit(s, "Attacked", seat=action.seat, target=action.target, kind=action.kind,
              card=action.card, distance=d)
    roll_hit(s, action.seat, action.target, action.kind, d, noble_phantasm=False)


def roll_hit(s: GameState, att: int, target: int, kind: str, d: int,
             noble_phantasm: bool) -> None:
    """The attacker's hit check is rolled first; the defender then chooses its reaction
    knowing the result (Main Action, then Reaction: seed 000 §Combat 3)."""
    n = s.rules.numbers
    attacker = s.camps[att]
    power, crit = take_pending(s, att)
    if noble_phantasm:
        np = attacker.servant.np
        base = ("np_hit", n.np_hit_bonus + core.param(s, attacker, "np") // n.np_hit_divisor)
        a_mod = base[1] + core.mod(s, attacker, "checks") + core.mod(s, attacker, "hit")
        if attacker.disengage_round == s.battle.round:
            a_mod += n.disengage_checks
        crit += n.np_quick_crit if np.card == "Q" else 0
    else:
        stat = CHECK_STAT[kind]
        base = (f"stat:{stat}", core.stat_bonus(s, attacker, stat))
        a_mod = core.check_mod(s, attacker, stat) + core.mod(s, attacker, "hit")
    parts = [base, ("mods", a_mod - base[1]), ("range", -n.ranged_penalty * d)]
    a_mod -= n.ranged_penalty * d
    a = core.check_2d6(s, att, "hit", a_mod, take_quick(s, att) + crit,
                       parts=[p for p in parts if p[1]])
    b = s.edit_battle()
    b.pending = PendingAttack(att, target, kind, d, noble_phantasm, *a, power)
    b.stage = "reaction"
    settle_specials(s, att, a)


def wait(s: GameState, action: Wait) -> None:
    core.emit(s, "Waited", seat=action.seat)
    next_activation(s)


def fire_costs(s: GameState, seat: int) -> None:
    """Pay the Noble Phantasm's MP and cards; the type bonus of an Arts NP comes at once."""
    camp = s.camps[seat]
    np = camp.servant.np
    core.pay_mp(s, seat, np.mp)
    for _ in range(np.cards):
        core.spend_card(s, seat, np.card)
    camp = s.edit(seat)
    camp.np_target = -1
    camp.war_roar = False
    camp.np_shown = True
    if np.card == "A":
        core.gain_mp(s, seat, s.rules.numbers.np_arts_mp)
    viewers = core.knowers(s, seat, 2)  # a Noble Phantasm's name is revealed at tier 2
    base = {"seat": seat, "card": np.card, "kind": np.kind, "scale": np.scale}
    core.emit(s, "NoblePhantasmFired", viewers, {**base, "np": None}, **base, np=np.id)
    for m in s.modules:
        m.on_np_fired(s, seat)


def use_noble_phantasm(s: GameState, action: UseNoblePhantasm) -> None:
    seat, target = action.seat, action.target
    b = s.edit_battle()
    b.acted = True
    np = s.camps[seat].servant.np
    fire_costs(s, seat)
    if np.kind == "support":
        support_np(s, seat, b.round)
        next_activation(s)
        return
    d = distance(city(s), s.camps[seat].pos, s.camps[target].pos)
    other = s.camps[target]
    if (other.np_target == seat and other.servant.np.kind == "attack" and np_ready(s, other)):
        clash(s, seat, target, d)
        next_activation(s)
        return
    roll_hit(s, seat, target, np.card, d, noble_phantasm=True)


def support_np(s: GameState, seat: int, round_no: int) -> None:
    """A fired support NP: its buff, and for a Buster or Quick one a bonus to the first attack
    of the next round."""
    np = s.camps[seat].servant.np
    n = s.rules.numbers
    core.apply_effect(s, seat, np.self_effect, "np:" + np.id, np.duration, removable=True)
    if np.card in "BQ":
        camp = s.edit(seat)
        camp.pending_round = round_no + 1
        if np.card == "B":
            camp.pending_power += n.np_buster_power
        else:
            camp.pending_crit += n.np_quick_crit


def np_damage(s: GameState, seat: int, d: int) -> list[Part]:
    """Damage roll + NP power (+ the Buster type bonus) + NP rank / divisor + stored Buster
    + modifiers − range, as the parts the table is shown (`deal_damage`). The power and the
    modifiers are one part: a rival who does not know the NP must not learn its power."""
    camp = s.camps[seat]
    np = camp.servant.np
    n = s.rules.numbers
    roll = core.roll_dice(s, n.np_damage_dice, seat, "np_damage")
    base = camp.servant.params["np"] // n.np_damage_divisor
    power = (np.power + core.param(s, camp, "np") // n.np_damage_divisor - base
             + core.mod(s, camp, "np_power") + (n.np_buster_power if np.card == "B" else 0)
             + core.mod(s, camp, "damage_dealt"))
    return [("roll", roll), ("np", power), ("np_rank", base), ("buster", take_buster(s, seat)),
            ("range", -n.ranged_penalty * d)]


def clash(s: GameState, a: int, b: int, d: int) -> None:
    """Two attack NPs fired at each other in one round: no checks, damage against damage."""
    fire_costs(s, b)
    scales = (s.camps[a].servant.np.scale, s.camps[b].servant.np.scale)
    n = s.rules.numbers
    parts: dict[int, list[Part]] = {}
    for me, mine, theirs in ((a, scales[0], scales[1]), (b, scales[1], scales[0])):
        key = _CLASH_PENALTY.get((mine, theirs))
        parts[me] = [*np_damage(s, me, d), ("scale", -getattr(n, key) if key else 0)]
    dmg = {me: sum(value for _key, value in p) for me, p in parts.items()}
    core.emit(s, "NoblePhantasmsClashed", seats=[a, b], damage=[dmg[a], dmg[b]])
    if dmg[a] != dmg[b]:
        win, lose = (a, b) if dmg[a] > dmg[b] else (b, a)
        if d <= s.camps[win].servant.np.range:
            deal_damage(s, win, lose, [*parts[win], ("clash", -dmg[lose])], guard=False,
                        halve=False, source="np")
    for me, them in ((a, b), (b, a)):
        np = s.camps[me].servant.np
        if s.camps[me].alive:
            core.apply_effect(s, me, np.self_effect, "np:" + np.id, np.duration, True)
        if s.camps[them].alive:
            core.apply_effect(s, them, np.target_effect, "np:" + np.id, np.duration, True,
                              debuff=True, owner=me)


def take_buster(s: GameState, seat: int) -> int:
    """The stored Buster bonus is used up by the attack it powers."""
    camp = s.camps[seat]
    if not camp.buster:
        return 0
    value = camp.buster
    s.edit(seat).buster = 0
    return value


def take_pending(s: GameState, seat: int, round_no: int | None = None) -> tuple[int, int]:
    """A non-attack NP's bonus for the first attack of the next round (power, crit); an
    attack made later than that round finds it gone. `round_no`: the round now (default: the
    battle's; a raid gives its own)."""
    camp = s.camps[seat]
    now = s.battle.round if round_no is None else round_no
    if not (camp.pending_power or camp.pending_crit) or now < camp.pending_round:
        return 0, 0
    camp = s.edit(seat)
    out = camp.pending_power, camp.pending_crit
    camp.pending_power = camp.pending_crit = 0
    return out if now == camp.pending_round else (0, 0)


def take_quick(s: GameState, seat: int) -> int:
    camp = s.camps[seat]
    value = camp.quick
    if value:
        s.edit(seat).quick = 0
    np = camp.servant.np
    if np.kind == "constant" and np.card == "Q":
        value += s.rules.numbers.np_constant_quick
    return value + core.mod(s, camp, "crit")


def react(s: GameState, action: React) -> None:
    """Resolve the pending attack against the chosen reaction."""
    p = s.battle.pending
    n = s.rules.numbers
    seat = p.target
    core.spend_card(s, seat, action.card)
    core.emit(s, "Reacted", seat=seat, kind=action.kind, card=action.card)
    a = core.Check(p.natural, p.total, p.critical, p.fumble)
    if action.kind == "G":
        hit, halve = not a.fumble, False
    else:
        dfn = s.camps[seat]
        d_mod = core.check_mod(s, dfn, CHECK_STAT[action.kind]) + core.mod(s, dfn, "defense")
        if dfn.fleeing:
            d_mod += n.flee_reaction
        d = core.check_2d6(s, seat, "defense", d_mod, take_quick(s, seat),
                           special=not p.noble_phantasm)
        wins = core.attacker_wins(a, d)
        for m in s.modules:
            wins = m.opposed(s, p.attacker, seat, action.kind, a, d, wins)
        if action.kind == "L":  # Luck defense only halves, but a fumbled attack still misses
            hit, halve = wins or not a.fumble, not wins
        else:
            hit, halve = wins, False
        settle_specials(s, seat, d)
    land_attack(s, hit, halve, guard=action.kind == "G")


def land_attack(s: GameState, hit: bool, halve: bool, guard: bool) -> None:
    """The pending attack's outcome: its damage and Noble Phantasm riders, then the next
    activation."""
    p = s.battle.pending
    seat, att = p.target, p.attacker
    core.emit(s, "AttackResolved", seat=att, target=seat, hit=hit, halved=halve)
    attacker = s.camps[att]
    if hit and attacker.alive and s.camps[seat].alive:
        if p.noble_phantasm:
            parts = np_damage(s, att, p.distance)
        else:
            parts = normal_damage(s, att, p.kind, p.distance)
        deal_damage(s, att, seat, [*parts, ("pending", p.power)], guard=guard, halve=halve,
                    source="np" if p.noble_phantasm else "attack")
        if p.noble_phantasm and s.camps[seat].alive:
            np = attacker.servant.np
            core.apply_effect(s, seat, np.target_effect, "np:" + np.id, np.duration, True,
                              debuff=True, owner=att)
    if p.noble_phantasm and s.camps[att].alive:
        np = attacker.servant.np
        core.apply_effect(s, att, np.self_effect, "np:" + np.id, np.duration, True)
    next_activation(s)


def normal_damage(s: GameState, seat: int, kind: str, d: int) -> list[Part]:
    """Damage roll + stat / 2 + card power + stored Buster + modifiers − 2 per square of range,
    as the parts the table is shown (`deal_damage`)."""
    camp = s.camps[seat]
    n = s.rules.numbers
    stat = CHECK_STAT[kind]
    roll = core.roll_dice(s, n.damage_dice, seat, "damage")
    base = camp.servant.params[stat] // n.damage_stat_divisor
    # `attack_damage:<kind>` is a module-only mod key (seed 002's damage points per kind).
    mods = (core.param(s, camp, stat) // n.damage_stat_divisor - base
            + core.mod(s, camp, "damage_dealt") + core.mod(s, camp, "attack_damage:" + kind))
    np = camp.servant.np
    if np.kind == "constant" and np.card == "B":
        mods += n.np_constant_buster  # a constant NP is never seen: it counts as a modifier
    return [("roll", roll), ("card", n.card_power[kind]), (f"stat:{stat}", base),
            ("buster", take_buster(s, seat)), ("mods", mods), ("range", -n.ranged_penalty * d)]


def deal_damage(s: GameState, att: int, seat: int, parts: list[Part], guard: bool,
                halve: bool, source: str) -> None:
    """The defender's reductions in order: Luck halving, Guard END/10, damage-taken mods,
    the modules' say. The event carries every non-zero step as a part (they sum to the
    amount); each is public or, like a hidden skill's modifier, folded into one it is not
    told apart from (`mods`, `np`, `taken`)."""
    dfn = s.camps[seat]
    n = s.rules.numbers
    steps = list(parts)
    amount = sum(value for _key, value in steps)

    def step(key: str, after: int) -> int:
        steps.append((key, after - amount))
        return after

    mods = True
    for m in s.modules:
        halve, guard, mods = m.reductions(s, att, seat, halve, guard, mods)
    if halve:
        amount = step("halved", amount // n.luck_defense_divisor)
    if guard:
        amount = step("guard", amount - core.param(s, dfn, "end") // n.guard_divisor)
    taken = max(0, amount + (core.mod(s, dfn, "damage_taken") if mods else 0))
    if core.has_flag(s, dfn, "invincible") and not core.has_flag(s, s.camps[att], "pierce"):
        taken = 0  # one part with the damage-taken modifiers: either may come of a hidden skill
    amount = step("taken", taken)
    amount = step("module", core.module_damage(s, seat, amount, source))
    core.emit(s, "DamageDealt", seat=att, target=seat, amount=amount,
              parts=[[key, value] for key, value in steps if value])
    core.take_damage(s, seat, amount)


def settle_specials(s: GameState, seat: int, check: core.Check) -> None:
    """A critical earns a reward (chosen later); a fumble rolls on the 1d3 table now."""
    if check.critical:
        s.rewards = (*s.rewards, seat)
    elif check.fumble:
        fumble(s, seat)


def fumble(s: GameState, seat: int) -> None:
    n = s.rules.numbers
    what = core.roll_dice(s, _D3, seat, "fumble")
    if what == 1:  # the pool first, so an MP loss can be rolled where only its camp sees it
        if core.roll_dice(s, _D2, seat, "fumble_pool") == 1:
            amount = core.roll_dice(s, n.fumble_damage, seat, "fumble_damage")
            core.emit(s, "FumblePenalty", seat=seat, penalty="hp", amount=amount)
            core.take_damage(s, seat, amount)
        else:
            mine = frozenset({seat})
            amount = core.roll_dice(s, n.fumble_damage, seat, "fumble_damage", mine)
            core.emit(s, "FumblePenalty", mine, {"seat": seat, "penalty": "mp"},
                      seat=seat, penalty="mp", amount=amount)
            core.lose_mp(s, seat, amount)
    elif what == 2:
        hand = s.camps[seat].hand
        if hand:  # the hand is hidden, and so is which card went: the die and the card
            mine = frozenset({seat})
            i = core.roll_dice(s, Dice(1, len(hand), 0), seat, "fumble_card", mine) - 1
            s.edit(seat).hand = hand[:i] + hand[i + 1:]
            core.emit(s, "FumblePenalty", mine, {"seat": seat, "penalty": "card"}, seat=seat,
                      penalty="card", card=hand[i])
    else:
        debuff = s.rules.debuffs[core.roll_dice(s, Dice(1, 20, 0), seat, "fumble_debuff") - 1]
        core.emit(s, "FumblePenalty", seat=seat, penalty="debuff", debuff=debuff.id)
        core.apply_effect(s, seat, debuff.effect, "debuff:" + debuff.id, debuff.duration,
                          removable=True, debuff=True)


def choose_reward(s: GameState, action: ChooseReward) -> None:
    seat = action.seat
    s.rewards = s.rewards[1:]
    n = s.rules.numbers
    kind, _, arg = action.reward.partition(":")
    core.emit(s, "CriticalReward", seat=seat, reward=action.reward)
    if kind == "hp":
        core.heal(s, seat, core.roll_dice(s, n.critical_recover, seat, "critical_hp"))
    elif kind == "mp":
        core.gain_mp(s, seat, core.roll_dice(s, n.critical_recover, seat, "critical_mp",
                                             frozenset({seat})))
    elif kind == "card":
        camp = s.edit(seat)
        camp.hand = core.sort_cards(camp.hand + arg)
    else:
        buff = next(x for x in s.rules.buffs if x.id == arg)
        core.apply_effect(s, seat, buff.effect, "buff:" + buff.id, buff.duration, True)


# --- Command Spells that move a camp ----------------------------------------------------------
def _square_spells(s: GameState, seat: int, spell: CommandSpell,
                   _in_main: bool) -> tuple[UseCommandSpell, ...]:
    """Teleport (anywhere else) and Retreat (anywhere, its own square too)."""
    skip = -1 if spell.special == "retreat" else s.camps[seat].pos
    return _square_args(seat, spell.id, len(city(s).squares), skip)


@cache
def _square_args(seat: int, spell: str, squares: int, skip: int) -> tuple[UseCommandSpell, ...]:
    """Every square but `skip`, built once per (seat, spell, map size, square left out)."""
    return tuple(UseCommandSpell(seat, spell, str(q)) for q in range(squares)
                 if q != skip)


def _cast_square_spell(s: GameState, action: UseCommandSpell, spell: CommandSpell) -> None:
    """Retreat leaves the battle; a Teleport in battle only moves (battles use the city map)."""
    seat = action.seat
    if spell.special == "retreat" and s.battle is not None and seat in s.battle.seats:
        leave_battle(s, seat, "retreat")  # (a raid's module takes its raider out itself)
    camp = s.edit(seat)
    camp.pos = int(action.arg)
    core.emit(s, "Moved", seat=seat, to=camp.pos)
    if s.battle is not None and seat in s.battle.seats:
        catch(s, seat, camp.pos)


for _special in ("retreat", "teleport"):
    powers.register_special(_special, powers.SpellSpecial(_square_spells, _cast_square_spell))
