"""The raid battle (spec 003 §5.5, T7): its own stage machine, walked by the module's `advance`.

It opens on an offer to the camps that declared Wait nearby; then a Round runs round_start →
ground (phase ①) → colossus (phase ②, with a Reaction per target of its attack) → climb
(phase ③) → the next Round. It reuses the base game's pieces: card spending,
the damage formulas, checks, criticals and their rewards, fumbles, Guts. The colossus is not a
seat: its checks are rolled for `COLOSSUS`, and nothing of it lives in `s.camps`.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

from ...engine import battle, core, powers
from ...engine.actions import (
    Action,
    AnswerIntervention,
    DeclareDisengage,
    DeclareNoblePhantasm,
    Move,
    React,
    Ready,
    UseNoblePhantasm,
    UseSkill,
    Wait,
)
from ...engine.core import CHECK_STAT, COUNTER, city
from ...engine.data import Dice, Skill
from ...engine.geometry import distance, reachable
from ...engine.state import Declaration, GameState, Prompt
from ..tactics import Concentrate, Tactics
from ..tactics.lines import crossed, zone
from .actions import (
    COLOSSUS,
    AttackPart,
    Climb,
    ClimbAttack,
    ClimbMove,
    ClimbNoblePhantasm,
    ClimbTo,
    Dismount,
    EndClimb,
    FireAtPart,
    Mount,
)
from .data import ColossusData, Step, Tile
from .state import ColossusState, Raid

if TYPE_CHECKING:
    from ...engine.state import Camp

SLOTS = 3  # T7.2: a climber's action slots per Round
_DIE = {True: Dice(1, 6, 0), False: Dice(1, 4, 0)}  # T7.5: horizontal surface, or not


class RaidRules:
    """The raid's rules, mixed into the module, which holds the data and the state slot and
    says what the colossus's destruction does (`destroyed`: rewards, the endings)."""

    data: ColossusData
    name: str

    # --- the slot ---------------------------------------------------------------------------
    def st(self, s: GameState) -> ColossusState:
        return s.mods[self.name]

    def put(self, s: GameState, **changes: Any) -> None:
        s.set_mod(self.name, self.st(s)._replace(**changes))

    def raid(self, s: GameState) -> Raid:
        raid = self.st(s).raid
        assert raid is not None
        return raid

    def put_raid(self, s: GameState, **changes: Any) -> None:
        self.put(s, raid=self.raid(s)._replace(**changes))

    # --- the board ----------------------------------------------------------------------------
    def tilt(self, raid: Raid, tile: Tile) -> str:
        return raid.tilts[self.data.surface_names.index(tile.surface)]

    def enterable(self, raid: Raid, tile: Tile) -> bool:
        """T7.5: a tile of a horizontal surface, or a hairy (blue, green) tile."""
        return tile.hairy or self.tilt(raid, tile) == "horizontal"

    def destinations(self, raid: Raid, start: str, steps: int) -> list[str]:
        """Tiles within `steps` links of `start` over enterable tiles (Z26: each tile entered
        must be enterable now), `start` first (staying is a choice)."""
        tiles = self.data.tiles
        seen = {start: 0}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            if seen[here] == steps:
                continue
            for nxt in tiles[here].links:
                if nxt not in seen and self.enterable(raid, tiles[nxt]):
                    seen[nxt] = seen[here] + 1
                    queue.append(nxt)
        return list(seen)

    def step_of(self, round_no: int) -> Step:
        script = self.data.script
        return script[(round_no - 1) % len(script)]

    # --- opening and closing --------------------------------------------------------------
    def open_raid(self, s: GameState, i: int, decl: Declaration) -> None:
        """The first Raid declaration of the Turn resolves: every camp that declared Raid and
        has not fought yet joins and goes to the colossus's square; camps that declared Wait
        within their Movement of it are offered to join (§5.5, base §5.2)."""
        st = self.st(s)
        if not st.awake or st.destroyed or st.raid is not None:
            core.emit(s, "ActionCancelled", seat=decl.seat, kind="raid")
            return
        seats = tuple(sorted({decl.seat, *(d.seat for d in s.decls[i + 1:] if d.kind == "raid"
                                           and s.camps[d.seat].alive
                                           and d.seat not in s.fought)}))
        s.fought = s.fought | set(seats)
        offered = frozenset(
            d.seat for d in s.decls if d.kind == "wait" and s.camps[d.seat].alive
            and d.seat not in s.fought
            and distance(city(s), s.camps[d.seat].pos, st.square)
            <= core.movement(s, s.camps[d.seat]))
        tilts = tuple(self.data.surfaces.values())
        self.put(s, raids=st.raids + 1, raid=Raid((), (), (), tilts, self.data.dodge_uses,
                                                  offered=offered))
        for x in seats:
            self.enlist(s, x)
        core.emit(s, "RaidOpened", seats=list(seats), square=st.square, offered=sorted(offered))
        core.emit(s, "ColossusTelegraphed", move=self.step_of(1).id, round=1)

    def enlist(self, s: GameState, seat: int) -> None:
        """A raider goes to the colossus's square with its hand dealt, as at a battle's start."""
        raid = self.raid(s)
        self.put_raid(s, seats=(*raid.seats, seat), joined=(*raid.joined, seat),
                      homes=(*raid.homes, (seat, s.camps[seat].pos)))
        camp = s.edit(seat)
        camp.pos = self.st(s).square
        camp.hand = core.composition(s, camp)
        camp.buster = camp.quick = 0
        camp.np_target = -1
        camp.skills_used = frozenset()
        tactics = self.tactics(s)
        uses = list(tactics.st(s).uses)
        uses[seat] = tactics.data.concentration_uses  # refilled, as at a battle's start
        tactics.put(s, uses=tuple(uses))

    def tactics(self, s: GameState) -> Tactics:
        return next(m for m in s.modules if isinstance(m, Tactics))

    def concentration_left(self, s: GameState, seat: int) -> int:
        """Concentration rolls the raider may still declare (0 with the sub-option off)."""
        tactics = self.tactics(s)
        if not tactics.concentration:
            return 0
        return tactics.st(s).uses[seat] - (seat in self.raid(s).seize)

    def answer_offer(self, s: GameState, action: AnswerIntervention) -> None:
        seat = action.seat
        self.put_raid(s, offered=self.raid(s).offered - {seat})
        if action.join:
            s.fought = s.fought | {seat}
            self.enlist(s, seat)
        core.emit(s, "InterventionAnswered", seat=seat, join=action.join)

    def end_raid(self, s: GameState, reason: str) -> None:
        """Climbers come down, everyone goes home; the colossus keeps its wounds (§5.5)."""
        raid = self.raid(s)
        for x in raid.joined:
            if s.camps[x].alive:
                battle.leave_combat(s, x)
        for x, home in raid.homes:
            if s.camps[x].alive:
                s.edit(x).pos = home
        core.emit(s, "RaidEnded", reason=reason, remaining=list(raid.seats), rounds=raid.round)
        self.put(s, raid=None)

    def leave(self, s: GameState, seat: int, how: str = "disengaged") -> None:
        """A ground raider disengages (or any raider's Master calls it back with Retreat): it
        is out at once, home again (the colossus never catches anyone)."""
        raid = self.raid(s)
        home = next(h for x, h in raid.homes if x == seat)
        s.edit(seat).pos = home
        self.put_raid(s, seats=tuple(x for x in raid.seats if x != seat),
                      homes=tuple(h for h in raid.homes if h[0] != seat),
                      tiles=raid.with_tile(seat, ""))
        core.emit(s, "LeftRaid", seat=seat, how=how)

    def skills(self, s: GameState, seat: int, *timings: str) -> list[Action]:
        """A raider's skills, as at a battle prompt ("optional" and the prompt's `timings`):
        no raider is another's enemy (T3.2), so a skill aims at the raider itself, or, hostile
        magecraft, at the colossus while the raider sees it (seed 003: magic may target
        anything in sight; a climber clings to it)."""
        camp = s.camps[seat]
        sees = self.raid(s).tile_of(seat) != "" or self.tactics(s).sees_square(
            s, seat, self.st(s).square)
        out: list[Action] = []
        for timing in ("optional", *timings):
            for sk in core.skills_of(s, camp, timing):
                if not powers.usable_skill(s, camp, sk):
                    continue
                if sk.target != "enemy":
                    out.append(UseSkill(seat, sk.id, -1))
                elif sk.magecraft and sees:
                    out.append(UseSkill(seat, sk.id, COLOSSUS))
        return out

    # --- hostile magecraft on the colossus (T6, §5.6) ----------------------------------------
    def spell_check(self, s: GameState) -> int:
        """T6.1: its resistance lowers a hostile spell's check by `mr_step` per grade."""
        return -self.tactics(s).data.mr_step * self.data.mr

    def immune_to(self, s: GameState, skill: Skill) -> bool:
        """T6.2: its immunity's scope holds the spell's magecraft sub-type."""
        scope = self.data.immunity
        return "all" in scope or self.tactics(s).data.subtypes.get(skill.id) in scope

    def spell_lands(self, s: GameState, seat: int, skill: Skill) -> None:
        """The spell's check made and not resisted: its damage (rolled as for a camp, then
        its endure) is the colossus's, whole (magic strikes no part, so no part's factor
        applies); what else the spell does (a parameter, a buff, a stripped buff) has nothing
        in it to act on. The first such damage of a Round meets its endure: 2D6 +
        endure_bonus >= endure_target halves it (T4.4, rolled in the open)."""
        dice = skill.effect.damage
        if dice is None:
            core.emit(s, "SpellOnColossus", seat=seat, skill=skill.id, amount=0,
                      hp=self.st(s).hp)
            return
        amount = core.roll_dice(s, dice, seat, "effect_damage")
        if not self.raid(s).endured:
            self.put_raid(s, endured=True)
            check = core.check_2d6(s, COLOSSUS, "colossus_endure", self.data.endure_bonus,
                                   special=False, target=self.data.endure_target)
            if check.total >= self.data.endure_target:
                amount //= 2
                core.emit(s, "ColossusEndured", seat=seat, skill=skill.id)
        self.wound_colossus(s, seat, amount, "SpellOnColossus", skill=skill.id)

    def spells(self, s: GameState, seat: int, in_main: bool = False) -> list[Action]:
        """The Command Spells of a raider (§5.5: at every prompt; a raid is a battle for them),
        but Teleport: a raider stays on its square."""
        return [a for a in powers.command_spell_actions(s, seat, in_main, in_battle=True)
                if powers.spell_table(s)[a.spell].special != "teleport"]

    # --- walking -------------------------------------------------------------------------------
    def raid_step(self, s: GameState) -> bool:
        """Walk the raid until some seat must act (True) or it is over (False)."""
        while True:
            raid = self.st(s).raid
            if raid is None:
                return False
            if s.over:
                self.end_raid(s, "game_over")
                return False
            s.rewards = tuple(x for x in s.rewards if s.camps[x].alive)
            if s.rewards:  # a critical's reward first: the base prompt
                return False
            alive = tuple(x for x in raid.seats if s.camps[x].alive)
            if alive != raid.seats:
                self.put_raid(s, seats=alive, tiles=tuple(t for t in raid.tiles if t[0] in alive))
                raid = self.raid(s)
            if self.st(s).hp <= 0:
                self.end_raid(s, "destroyed")
                return False
            if not raid.seats:
                self.end_raid(s, "empty")
                return False
            if getattr(self, "_stage_" + raid.stage)(s, raid):
                return True

    def _stage_offer(self, s: GameState, raid: Raid) -> bool:
        if raid.offered:
            s.prompt = Prompt("raid_offer", raid.offered)
            return True
        self.put_raid(s, stage="round_start")
        battle.battle_start_skills(s, raid.seats)
        battle.round_upkeep(s, raid.seats)
        return False

    def _stage_round_start(self, s: GameState, raid: Raid) -> bool:
        waiting = frozenset(raid.seats) - raid.ready
        if waiting:
            s.prompt = Prompt("raid_start", waiting)
            return True
        order = tuple(sorted(raid.seats, key=lambda x: (
            -core.param(s, s.camps[x], "agi"), -core.param(s, s.camps[x], "luk"), x)))
        # T4.1, Z14: one raider's success seizes the initiative for all: climbers before it
        won = [self.tactics(s).roll(s, x, "initiative") for x in order if x in raid.seize]
        ground = tuple(x for x in order if not raid.tile_of(x) and x not in raid.climbing)
        self.put_raid(s, initiative=order, order=ground, cursor=0, stage="ground",
                      seize=frozenset(), seized=any(won))
        core.emit(s, "RaidRoundStarted", round=raid.round, order=list(order),
                  seized=any(won))
        return False

    def _stage_ground(self, s: GameState, raid: Raid) -> bool:
        if raid.cursor >= len(raid.order):
            self.next_phase(s, "ground")
        elif raid.order[raid.cursor] not in raid.seats:
            self.put_raid(s, cursor=raid.cursor + 1)
        else:
            s.prompt = Prompt("raid_ground", frozenset({raid.order[raid.cursor]}))
            return True
        return False

    def next_phase(self, s: GameState, done: str) -> None:
        """T7.1: ground, colossus, climbers; ground, climbers, colossus when a raider seized
        the initiative (T4.1)."""
        raid = self.raid(s)
        phases = ("ground", "climb", "colossus") if raid.seized else (
            "ground", "colossus", "climb")
        i = phases.index(done) + 1
        if i == len(phases):
            self.end_round(s)
        elif phases[i] == "colossus":
            self.put_raid(s, stage="colossus")
        else:
            climbers = tuple(x for x in raid.initiative if x in raid.seats
                             and (raid.tile_of(x) or x in raid.climbing))
            self.put_raid(s, stage="climb", order=climbers, cursor=0, slots=SLOTS,
                          attacked=False, budget=0)

    def _stage_colossus(self, s: GameState, raid: Raid) -> bool:
        """Phase ②: the script's step, tilts first (then shake-offs), then its attack."""
        step = self.step_of(raid.round)
        core.emit(s, "ColossusActed", move=step.id, round=raid.round)
        for surface, tilt in step.tilt:
            self.turn_surface(s, surface, tilt)
        raid = self.raid(s)
        targets = self.targets(s, raid, step) if step.attack else ()
        if step.attack:
            core.emit(s, "ColossusAttacked", move=step.id, targets=list(targets))
        self.put_raid(s, stage="reaction", strike=targets, roll=None)
        return False

    def _stage_reaction(self, s: GameState, raid: Raid) -> bool:
        strike = tuple(x for x in raid.strike if x in raid.seats)
        if not strike:
            self.put_raid(s, strike=(), roll=None)
            self.next_phase(s, "colossus")
            return False
        if raid.roll is None:
            attack = self.step_of(raid.round).attack
            check = core.check_2d6(s, COLOSSUS, "colossus_hit", attack.hit)
            self.put_raid(s, strike=strike, roll=tuple(check))
        s.prompt = Prompt("raid_reaction", frozenset({strike[0]}))
        return True

    def _stage_climb(self, s: GameState, raid: Raid) -> bool:
        if raid.cursor >= len(raid.order):
            self.next_phase(s, "climb")
            return False
        actor = raid.order[raid.cursor]
        if actor not in raid.seats or (raid.slots <= 0 and raid.budget <= 0):
            self.next_climber(s)
            return False
        s.prompt = Prompt("climb_step" if raid.budget > 0 else "climb", frozenset({actor}))
        return True

    def next_climber(self, s: GameState) -> None:
        raid = self.raid(s)
        self.put_raid(s, cursor=raid.cursor + 1, slots=SLOTS, attacked=False, budget=0)

    def end_round(self, s: GameState) -> None:
        raid = self.raid(s)
        for x in raid.seats:
            battle.tick_round(s, x, raid.round)
        if raid.round % s.rules.numbers.hand_refill_every == 0:
            core.emit(s, "HandsRefilled", round=raid.round)
        if raid.round >= self.data.raid_rounds:
            self.end_raid(s, "round_limit")
            return
        nxt = raid.round + 1
        self.put_raid(s, round=nxt, stage="round_start", ready=frozenset(),
                      climbing=frozenset(), order=(), cursor=0, endured=False)
        core.emit(s, "ColossusTelegraphed", move=self.step_of(nxt).id, round=nxt)
        battle.round_upkeep(s, raid.seats)

    # --- phase ②: tilts, shake-offs, the colossus's attack --------------------------------------
    def turn_surface(self, s: GameState, surface: str, tilt: str) -> None:
        """T7.6: when a surface stops being horizontal, climbers on its hairy tiles cling and
        those on its bare tiles are shaken off and fall (T7.7)."""
        raid = self.raid(s)
        index = self.data.surface_names.index(surface)
        if raid.tilts[index] == tilt:
            return
        tilts = list(raid.tilts)
        tilts[index] = tilt
        self.put_raid(s, tilts=tuple(tilts))
        core.emit(s, "SurfaceTilted", surface=surface, tilt=tilt)
        if tilt == "horizontal":
            return
        for seat, tile_id in raid.tiles:
            tile = self.data.tiles[tile_id]
            if tile.surface == surface and not tile.hairy:
                self.fall(s, seat, tile)

    def fall(self, s: GameState, seat: int, tile: Tile) -> None:
        """T7.7: height × fall_damage_per_tile, not an attack (no Guard, no damage-taken
        modifier, no invincibility; Guts still holds); it lands on the colossus's square."""
        raid = self.raid(s)
        self.put_raid(s, tiles=raid.with_tile(seat, ""))
        damage = tile.height * self.data.fall_damage_per_tile
        core.emit(s, "ShakenOff", seat=seat, tile=tile.id, height=tile.height, damage=damage)
        core.take_damage(s, seat, damage)

    def targets(self, s: GameState, raid: Raid, step: Step) -> tuple[int, ...]:
        tiles = self.data.tiles
        kind = step.attack.targets
        if kind == "all":
            return raid.seats
        if kind == "ground_and_feet":  # on its square: a ground raider who stepped off is safe
            square = self.st(s).square
            return tuple(x for x in raid.seats if (tiles[raid.tile_of(x)].surface == "feet"
                                                   if raid.tile_of(x)
                                                   else s.camps[x].pos == square))
        on_back = [(tiles[t].height, -x) for x, t in raid.tiles if tiles[t].surface == "back"]
        return (-max(on_back)[1],) if on_back else ()

    def react(self, s: GameState, action: React) -> None:
        """A target answers the colossus's attack as a base Reaction: a critical of the
        colossus wins (no reward), a fumble misses (no mishap table) (§5.4)."""
        raid = self.raid(s)
        seat = raid.strike[0]
        attack = self.step_of(raid.round).attack
        core.spend_card(s, seat, action.card)
        core.emit(s, "Reacted", seat=seat, kind=action.kind, card=action.card)
        a = core.Check(*raid.roll)
        halve = False
        if action.kind == "G":
            hit = not a.fumble
        else:
            dfn = s.camps[seat]
            d_mod = core.check_mod(s, dfn, CHECK_STAT[action.kind]) + core.mod(s, dfn,
                                                                                 "defense")
            d = core.check_2d6(s, seat, "defense", d_mod, battle.take_quick(s, seat))
            wins = core.attacker_wins(a, d)
            hit = wins or (action.kind == "L" and not a.fumble)
            halve = action.kind == "L" and not wins
            battle.settle_specials(s, seat, d)
        core.emit(s, "ColossusStruck", seat=seat, hit=hit, halved=halve)
        if hit and s.camps[seat].alive:
            self.wound(s, seat, core.roll_dice(s, attack.damage, seat, "colossus_damage"),
                       guard=action.kind == "G", halve=halve)
        self.put_raid(s, strike=self.raid(s).strike[1:], roll=None)

    def wound(self, s: GameState, seat: int, amount: int, guard: bool, halve: bool) -> None:
        """The base reductions of an attack on a raider: Luck halving, Guard, damage-taken
        modifiers and invincibility, the modules' say."""
        n = s.rules.numbers
        dfn = s.camps[seat]
        if halve:
            amount //= n.luck_defense_divisor
        if guard:
            amount -= core.param(s, dfn, "end") // n.guard_divisor
        amount = max(0, amount + core.mod(s, dfn, "damage_taken"))
        if core.has_flag(s, dfn, "invincible"):
            amount = 0
        amount = core.module_damage(s, seat, amount, "attack")
        core.emit(s, "RaiderWounded", seat=seat, amount=amount)
        core.take_damage(s, seat, amount)

    # --- hitting the colossus ----------------------------------------------------------------
    def strike_part(self, s: GameState, seat: int, part: str, distance: int,
                    noble_phantasm: bool, kind: str) -> None:
        """§5.5: an unopposed check, 2D6 + the base hit modifier − 2 per square of range − the
        cling penalty, against colossus_defense; the base damage × the part's hidden factor."""
        raid = self.raid(s)
        camp = s.camps[seat]
        n = s.rules.numbers
        power, crit = battle.take_pending(s, seat, raid.round)  # a support NP's bonus
        crit += battle.take_quick(s, seat)
        if noble_phantasm:
            mod = (n.np_hit_bonus + core.param(s, camp, "np") // n.np_hit_divisor
                   + core.mod(s, camp, "checks"))
            crit += n.np_quick_crit if camp.servant.np.card == "Q" else 0
        else:
            mod = core.check_mod(s, camp, CHECK_STAT[kind])
        mod += core.mod(s, camp, "hit") - n.ranged_penalty * distance
        tile = raid.tile_of(seat)
        if tile and self.tilt(raid, self.data.tiles[tile]) != "horizontal":
            mod -= self.data.cling_penalty
        target = self.data.colossus_defense
        check = core.check_2d6(s, seat, "hit", mod, crit, target=target)
        battle.settle_specials(s, seat, check)
        if check.fumble or not (check.critical or check.total >= target):
            core.emit(s, "PartMissed", seat=seat, part=part)
            return
        if part == "head" and raid.dodge_left > 0:  # §5.6: its one dodge, on the crown
            self.put_raid(s, dodge_left=raid.dodge_left - 1)
            dodge = core.check_2d6(s, COLOSSUS, "colossus_dodge", self.data.dodge_bonus,
                                   special=False, private=frozenset())
            if dodge.total >= self.data.dodge_target:
                core.emit(s, "ColossusDodged", seat=seat)
                self.wound_colossus(s, seat, 0, "PartHit", part=part)
                return
        parts = (battle.np_damage(s, seat, distance) if noble_phantasm
                 else battle.normal_damage(s, seat, kind, distance))
        factor = self.st(s).factors[list(self.data.factors).index(part)]
        total = sum(v for _k, v in parts) + power
        self.wound_colossus(s, seat, max(0, total) * factor // 100, "PartHit", part=part)

    def wound_colossus(self, s: GameState, seat: int, amount: int, event: str,
                       **data: Any) -> None:
        """`seat` deals it `amount`, told by `event` (with `data`, the amount and its HP)."""
        st = self.st(s)
        amount = min(amount, st.hp)
        damage = list(st.damage)
        damage[seat] += amount
        self.put(s, hp=st.hp - amount, damage=tuple(damage), lost=st.lost + amount)
        core.emit(s, event, seat=seat, **data, amount=amount, hp=st.hp - amount)
        if st.hp - amount <= 0:
            self.destroyed(s, seat)

    # --- round start --------------------------------------------------------------------------
    def start_actions(self, s: GameState, seat: int) -> list[Action]:
        raid = self.raid(s)
        camp = s.camps[seat]
        out: list[Action] = [Ready(seat)]
        on_ground = not raid.tile_of(seat)
        if on_ground and seat not in raid.climbing and camp.pos == self.st(s).square:
            out.append(Climb(seat))
        np = camp.servant.np
        if (np.kind != "constant" and camp.np_target < 0 and core.can_pay(camp, np.mp)
                and camp.hand.count(np.card) >= np.cards
                and not core.buff_active(camp, "np:" + np.id)):
            out.append(DeclareNoblePhantasm(seat, COLOSSUS if np.kind == "attack" else seat))
        if on_ground and seat not in raid.climbing:
            out.append(DeclareDisengage(seat))
        if seat not in raid.seize and self.concentration_left(s, seat) > 0:
            out.append(Concentrate(seat, "initiative"))
        timings = ("round_start", "combat_start") if raid.round == 1 else ("round_start",)
        return [*out, *self.skills(s, seat, *timings), *self.spells(s, seat)]

    def start_action(self, s: GameState, action: Action) -> None:
        raid = self.raid(s)
        seat = action.seat
        if isinstance(action, Ready):
            self.put_raid(s, ready=raid.ready | {seat})
        elif isinstance(action, Climb):
            self.put_raid(s, climbing=raid.climbing | {seat})
            core.emit(s, "ClimbDeclared", seat=seat)
        elif isinstance(action, Concentrate):
            self.put_raid(s, seize=raid.seize | {seat})
            core.emit(s, "ConcentrationDeclared", seat=seat, use=action.use)
        elif isinstance(action, DeclareNoblePhantasm):
            camp = s.edit(seat)
            camp.np_target = action.target
            camp.np_round = raid.round
            core.emit(s, "NoblePhantasmDeclared", seat=seat, target=action.target)
        else:
            self.leave(s, seat)

    def np_charged(self, s: GameState, camp: Camp, kind: str = "attack") -> bool:
        """Its Noble Phantasm of `kind` may fire now: declared (at the colossus, or a support
        one at itself) and charged, or War Roar; paid for in MP and cards."""
        np = camp.servant.np
        raid = self.raid(s)
        aim = COLOSSUS if kind == "attack" else camp.seat
        charged = (camp.war_roar and kind == "attack") or (
            camp.np_target == aim and raid.round >= camp.np_round + np.charge)
        return (np.kind == kind and charged and core.can_pay(camp, np.mp)
                and camp.hand.count(np.card) >= np.cards)

    def support(self, s: GameState, seat: int) -> None:
        """A support Noble Phantasm fired in a raid works as in a battle (§5.5)."""
        battle.fire_costs(s, seat)
        battle.support_np(s, seat, self.raid(s).round)

    # --- phase ①: ground raiders --------------------------------------------------------------
    def ground_moves(self, s: GameState, seat: int) -> list[int]:
        """§5.5: a ground raider's Move on the city map: the colossus's zone (radius 2, always
        active) stops it, and one started inside covers one square (T1.6, T1.7); a fellow
        raider's zone does not; no bystander's square."""
        grid = city(s)
        camp = s.camps[seat]
        square = self.st(s).square
        zoc = zone(grid.width, grid.height, square, self.data.zoc_radius)
        raid = self.raid(s)
        closed = frozenset(c.pos for c in s.camps if c.alive and c.seat not in raid.seats)
        steps = 1 if camp.pos in zoc else core.movement(s, camp)
        found = reachable(grid, camp.pos, steps, closed - {camp.pos}, zoc)
        return sorted(q for q in found if q != camp.pos)

    def ground_parts(self, s: GameState, seat: int) -> dict[str, int]:
        """The parts a ground raider can strike now, with the range they count at: all of
        `ground_parts` on its square; from 1 to 3 squares away the ranged ones at that range,
        with a clear line (T2.3: blocking terrain)."""
        grid = city(s)
        pos, square = s.camps[seat].pos, self.st(s).square
        d = distance(grid, pos, square)
        if d == 0:
            return dict(self.data.ground_parts)
        walls = self.tactics(s).data.blocking[s.settings.map_id]
        if d > s.rules.numbers.ranged_max or any(q in walls for q in crossed(grid.width, pos,
                                                                               square)):
            return {}
        return {part: d for part, reach in self.data.ground_parts.items() if reach > 0}

    def ground_actions(self, s: GameState, seat: int) -> list[Action]:
        camp = s.camps[seat]
        out: list[Action] = [Wait(seat)]
        if not self.raid(s).moved:
            out.extend(Move(seat, q) for q in self.ground_moves(s, seat))
        kinds = [k for k in "BAQ" if k in camp.hand]
        parts = self.ground_parts(s, seat)
        for part in parts:
            out.extend(AttackPart(seat, part, k, k) for k in kinds)
        if self.np_charged(s, camp):
            out.extend(FireAtPart(seat, part) for part, d in parts.items()
                       if d <= camp.servant.np.range)
        if self.np_charged(s, camp, "support"):
            out.append(UseNoblePhantasm(seat, seat))
        return [*out, *self.skills(s, seat, "own_activation"),
                *self.spells(s, seat, in_main=True)]

    def ground_action(self, s: GameState, action: Action) -> None:
        seat = action.seat
        if isinstance(action, Move):  # the Main Action's Move: the attack may follow
            s.edit(seat).pos = action.to
            core.emit(s, "Moved", seat=seat, to=action.to)
            self.put_raid(s, moved=True)
            return
        if isinstance(action, AttackPart):
            core.spend_card(s, seat, action.card)
            core.emit(s, "PartAttacked", seat=seat, part=action.part, kind=action.kind,
                      card=action.card)
            self.strike_part(s, seat, action.part, self.ground_parts(s, seat)[action.part],
                             False, action.kind)
        elif isinstance(action, FireAtPart):
            self.fire(s, seat, action.part, self.ground_parts(s, seat)[action.part])
        elif isinstance(action, UseNoblePhantasm):
            self.support(s, seat)
        else:
            core.emit(s, "Waited", seat=seat)
        raid = self.st(s).raid
        if raid is not None:
            self.put_raid(s, cursor=raid.cursor + 1, moved=False)

    def fire(self, s: GameState, seat: int, part: str, distance: int) -> None:
        battle.fire_costs(s, seat)
        core.emit(s, "PartAttacked", seat=seat, part=part, kind="np", card="")
        self.strike_part(s, seat, part, distance, True, s.camps[seat].servant.np.card)
        if s.camps[seat].alive:
            np = s.camps[seat].servant.np
            core.apply_effect(s, seat, np.self_effect, "np:" + np.id, np.duration, True)

    # --- phase ③: climbers --------------------------------------------------------------------
    def climb_actions(self, s: GameState, seat: int) -> list[Action]:
        raid = self.raid(s)
        tiles = self.data.tiles
        here = raid.tile_of(seat)
        out: list[Action] = [EndClimb(seat)]
        if not here:
            out.extend(Mount(seat, t.id) for t in tiles.values()
                       if t.mount and self.enterable(raid, t))
            return [*out, *self.skills(s, seat, "own_activation"), *self.spells(s, seat)]
        out.append(ClimbMove(seat))
        camp = s.camps[seat]
        if not raid.attacked:
            out.extend(ClimbAttack(seat, k, k) for k in "BAQ" if k in camp.hand)
            if self.np_charged(s, camp):
                out.append(ClimbNoblePhantasm(seat))
        if self.np_charged(s, camp, "support"):
            out.append(UseNoblePhantasm(seat, seat))
        if tiles[here].ground:
            out.append(Dismount(seat))
        return [*out, *self.skills(s, seat, "own_activation"), *self.spells(s, seat)]

    def step_actions(self, s: GameState, seat: int) -> list[Action]:
        raid = self.raid(s)
        return [ClimbTo(seat, t) for t in self.destinations(raid, raid.tile_of(seat),
                                                            raid.budget)]

    def climb_action(self, s: GameState, action: Action) -> None:
        raid = self.raid(s)
        seat = action.seat
        tiles = self.data.tiles
        here = raid.tile_of(seat)
        if isinstance(action, EndClimb):
            self.next_climber(s)
        elif isinstance(action, Dismount):
            self.put_raid(s, tiles=raid.with_tile(seat, ""))
            core.emit(s, "Dismounted", seat=seat, tile=here)
            self.next_climber(s)
        elif isinstance(action, Mount):
            self.put_raid(s, tiles=raid.with_tile(seat, action.tile), slots=raid.slots - 1)
            core.emit(s, "Mounted", seat=seat, tile=action.tile)
        elif isinstance(action, ClimbMove):
            horizontal = self.tilt(raid, tiles[here]) == "horizontal"
            roll = core.roll_dice(s, _DIE[horizontal], seat, "climb")
            self.put_raid(s, slots=raid.slots - 1, budget=roll, roll_value=roll)
        elif isinstance(action, UseNoblePhantasm):  # a slot, not the Round's attack
            self.put_raid(s, slots=raid.slots - 1)
            self.support(s, seat)
        elif isinstance(action, ClimbTo):
            self.put_raid(s, tiles=raid.with_tile(seat, action.tile), budget=0)
            core.emit(s, "Climbed", seat=seat, start=here, to=action.tile,
                      roll=raid.roll_value)
        else:
            self.put_raid(s, slots=raid.slots - 1, attacked=True)
            part = tiles[here].part
            if isinstance(action, ClimbNoblePhantasm):
                self.fire(s, seat, part, 0)
            else:
                core.spend_card(s, seat, action.card)
                core.emit(s, "PartAttacked", seat=seat, part=part, kind=action.kind,
                          card=action.card)
                self.strike_part(s, seat, part, 0, False, action.kind)

    # --- reactions ------------------------------------------------------------------------------
    def reaction_actions(self, s: GameState, seat: int) -> list[Action]:
        attack = self.step_of(self.raid(s).round).attack
        camp = s.camps[seat]
        cards = ("", *sorted(set(camp.hand)))
        out: list[Action] = []
        counter = COUNTER[attack.kind]
        if counter in camp.hand:
            out.append(React(seat, counter, counter))
        out.extend(React(seat, "L", c) for c in cards)
        out.extend(React(seat, "G", c) for c in cards)
        if self.concentration_left(s, seat) > 0:
            out.append(Concentrate(seat, "dodge"))
        return [*out, *self.skills(s, seat), *self.spells(s, seat)]

    def dodge(self, s: GameState, action: Concentrate) -> None:
        """T4.3 against the colossus: a success makes its attack miss this raider; a failure
        resolves as a Guard with no card."""
        if not self.tactics(s).roll(s, action.seat, "dodge"):
            self.react(s, React(action.seat, "G", ""))
            return
        core.emit(s, "ColossusStruck", seat=action.seat, hit=False, halved=False)
        self.put_raid(s, strike=self.raid(s).strike[1:], roll=None)
