"""The tactics module (seed 003, rules T1-T6 of `shared/modules/003-tactics-colossus.md`):
zones of control, lines of fire, sight for hostile skills, concentration, magic resistance.

Everything it adds to a game is public (zones, concentration uses and declarations are seen at
the table), so its view is the same for every seat. `docs/rules.md` "Tactics" states each rule
with its seed section; `docs/modules.md` walks through this file as the worked example.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

from ...engine import battle, core, powers, prompts
from ...engine.actions import (
    Action,
    Attack,
    DeclareDisengage,
    React,
    UseNoblePhantasm,
    UseSkill,
)
from ...engine.core import city
from ...engine.data import Ruleset, Skill, extend_vocabulary
from ...engine.geometry import distance
from ...engine.modules import Module, OptionSpec, register
from ...engine.sharing import Shared
from ...engine.state import Camp, GameState
from .data import TacticsData, load_tactics
from .lines import crossed, zone

extend_vocabulary("mod_keys", "mr")  # T6.1: magic resistance, in grades
_AIMED = frozenset({Attack, UseNoblePhantasm, UseSkill})  # what lines and sight can rule out


@dataclass(frozen=True, slots=True)
class Concentrate(Action):
    """Concentration (集中力ロール, T4): "initiative" or "endure" at a round start, "dodge" as
    a Reaction."""

    use: str


@dataclass(frozen=True, slots=True)
class ConcentrateCast(Action):
    """A hostile magecraft skill used with a concentration roll first (T4.2): on a success its
    check value against the target gets +5 per caster level."""

    skill: str
    target: int
    extra: str = ""


class TacticsState(NamedTuple):
    """Per battle: whose zone is active, whose activation has dropped it so far, concentration
    uses left (by seat), the round's declared initiative and endure, and the cast bonus of a
    ConcentrateCast being resolved. For the whole game: the magic resistance grades and the
    immunity a scenario file gave camps (`camp_keys`; no camp has them in play)."""

    zoc: frozenset[int] = frozenset()
    dropped: frozenset[int] = frozenset()
    uses: tuple[int, ...] = ()
    seize: frozenset[int] = frozenset()
    endure: frozenset[int] = frozenset()
    boost: tuple[int, int, int] = (-1, -1, 0)  # (caster, target, bonus)
    mr: tuple[tuple[int, int], ...] = ()  # (seat, grades) given by a scenario
    immune: frozenset[int] = frozenset()  # seats a scenario made immune to hostile magecraft


@register
class Tactics(Module):
    name = "tactics"
    camp_keys = ("mr", "immune")
    options: ClassVar[dict[str, OptionSpec]] = {
        "concentration": OptionSpec(True, doc="T4: concentration rolls are offered")}

    def __init__(self, rules: Ruleset, values: dict[str, Any]) -> None:
        super().__init__(rules, values)
        self.data: TacticsData = load_tactics(rules)
        self.concentration = bool(values["concentration"]) and self.data.concentration_uses > 0

    # --- state -------------------------------------------------------------------------------
    def setup(self, s: GameState) -> None:
        s.set_mod(self.name, TacticsState(uses=(0,) * len(s.camps)))

    def st(self, s: GameState) -> TacticsState:
        return s.mods[self.name]

    def put(self, s: GameState, **changes: Any) -> None:
        s.set_mod(self.name, self.st(s)._replace(**changes))

    def radius(self, camp: Camp) -> int:
        return self.data.radius(camp.servant.id, camp.cls)

    # --- T1 zones of control --------------------------------------------------------------------
    def on_battle_start(self, s: GameState) -> None:
        """T1.3: every combatant with a zone starts with it active; concentration is refilled."""
        seats = s.battle.seats
        uses = tuple(self.data.concentration_uses if seat in seats else 0
                     for seat in range(len(s.camps)))
        s.set_mod(self.name, self.st(s)._replace(
            zoc=frozenset(x for x in seats if self.radius(s.camps[x]) > 0), uses=uses))

    def on_battle_end(self, s: GameState) -> None:
        """Zones and declarations end with the battle; the uses left stay until the next."""
        st = self.st(s)
        s.set_mod(self.name, TacticsState(uses=st.uses, mr=st.mr, immune=st.immune))

    def controlled(self, s: GameState, seat: int) -> frozenset[int]:
        """The squares under an active zone of a combatant hostile to `seat` (T1.2, T1.8)."""
        grid = city(s)
        out: frozenset[int] = frozenset()
        for x in self.st(s).zoc:
            if x != seat and x in s.battle.seats:
                camp = s.camps[x]
                out |= zone(grid.width, grid.height, camp.pos, self.radius(camp))
        return out

    def battle_move(self, s: GameState, seat: int) -> tuple[frozenset[int], int | None]:
        """T1.6: entering a controlled square ends the Move; T1.7: a Move that starts in one
        covers one square."""
        stops = self.controlled(s, seat)
        return stops, 1 if s.camps[seat].pos in stops else None

    def on_action(self, s: GameState, action: Action) -> None:
        """T1.4: what the Main Action does to the actor's zone, noted now and settled when its
        activation ends; declaring Disengage drops it at once."""
        b = s.battle
        if b is None:
            return
        seat = action.seat
        st = self.st(s)
        if isinstance(action, DeclareDisengage):
            self.put(s, zoc=st.zoc - {seat}, dropped=st.dropped | {seat})
        elif s.prompt.kind == "main" and self._drops(s, action):
            self.put(s, dropped=st.dropped | {seat})

    def _drops(self, s: GameState, action: Action) -> bool:
        camp = s.camps[action.seat]
        if isinstance(action, Attack | UseNoblePhantasm):  # at range, or a support NP
            support = isinstance(action, UseNoblePhantasm) and camp.servant.np.kind == "support"
            return support or distance(city(s), camp.pos, s.camps[action.target].pos) >= 1
        if isinstance(action, UseSkill | ConcentrateCast):  # any skill of the Servant's own
            return any(sid and self.rules.skills[sid].owner == "servant"
                       for sid in (action.skill, action.extra))
        return False

    def on_activation_end(self, s: GameState, seat: int) -> None:
        st = self.st(s)
        active = seat not in st.dropped and self.radius(s.camps[seat]) > 0
        self.put(s, zoc=st.zoc | {seat} if active else st.zoc - {seat},
                 dropped=st.dropped - {seat})

    # --- T2 lines of fire and sight; T4 concentration offered ------------------------------
    def line_clear(self, s: GameState, seat: int, target: int) -> bool:
        """T2.3, T2.5: no blocking square and no other combatant on the way."""
        grid = city(s)
        a, b = s.camps[seat].pos, s.camps[target].pos
        if distance(grid, a, b) <= 1:
            return True
        walls = self.data.blocking[s.settings.map_id]
        bodies = {s.camps[x].pos for x in s.battle.seats if x not in (seat, target)}
        return not any(q in walls or q in bodies for q in crossed(grid.width, a, b))

    def sees(self, s: GameState, seat: int, target: int) -> bool:
        """T2.1 for the camp at `target`."""
        return self.sees_square(s, seat, s.camps[target].pos)

    def sees_square(self, s: GameState, seat: int, there: int) -> bool:
        """T2.1: within sight range, anywhere through a familiar, or on a square another
        module's items watch (the campaign's scouting devices and Crystal Ball)."""
        camp = s.camps[seat]
        if any(sid in self.data.familiars for sid in core.skill_ids(camp)):
            return True
        if distance(city(s), camp.pos, there) <= self.data.sight_range:
            return True
        return any(there in m.sight(s, seat) for m in s.modules)

    def caster_level(self, s: GameState, seat: int, skill: Skill) -> int:
        """T4.2's caster level: MAG // 10 for a Servant skill; for a Master skill the Master's
        campaign level when the campaign is on (its slot holds it), else master_caster_level."""
        if skill.owner == "servant":
            return core.param(s, s.camps[seat], "mag") // 10
        campaign = s.mods.get("campaign")
        return self.data.master_caster_level if campaign is None else campaign.camps[seat].level

    def legal(self, s: GameState, seat: int, actions: list[Action]) -> list[Action]:
        b = s.battle
        if b is None or seat not in b.seats:
            return actions
        kind = s.prompt.kind
        out = [a for a in actions if type(a) not in _AIMED or self._allowed(s, a)]
        if not self.concentration or kind not in ("round_start", "main", "reaction"):
            return out
        st = self.st(s)
        free = st.uses[seat] - (seat in st.seize) - (seat in st.endure)
        if free <= 0:
            return out
        if kind == "round_start":
            out.extend(Concentrate(seat, use) for use, taken in (
                ("initiative", st.seize), ("endure", st.endure)) if seat not in taken)
        elif kind == "reaction" and not b.pending.noble_phantasm:  # T4.3: Attacks only
            out.append(Concentrate(seat, "dodge"))
        out.extend(ConcentrateCast(seat, a.skill, a.target, a.extra) for a in out
                   if type(a) is UseSkill and a.target >= 0 and self._castable(a.skill))
        return out

    def _allowed(self, s: GameState, action: Action) -> bool:
        t = type(action)
        if t is Attack or t is UseNoblePhantasm:
            return action.target == action.seat or self.line_clear(s, action.seat,
                                                                   action.target)
        if t is UseSkill and action.target in s.battle.seats:  # (a module's own target: its own)
            return self.sees(s, action.seat, action.target)
        return True

    def _castable(self, skill_id: str) -> bool:
        skill = self.rules.skills[skill_id]
        return skill.magecraft and skill_id not in self.data.incapacitating

    def ruled_out(self, s: GameState, seat: int) -> list[dict[str, Any]]:
        """Targets in reach that a line of fire or sight rules out, with the reason, so a client
        can show them disabled (T2.2-T2.4)."""
        b = s.battle
        out = []
        reach = s.rules.numbers.ranged_max
        for t in b.seats:
            if t == seat:
                continue
            d = distance(city(s), s.camps[seat].pos, s.camps[t].pos)
            if 2 <= d <= reach and not self.line_clear(s, seat, t):
                out.append({"target": t, "what": "attack", "reason": "line"})
            if not self.sees(s, seat, t):
                out.append({"target": t, "what": "skill", "reason": "sight"})
        return out

    # --- T4 concentration resolved ----------------------------------------------------------------
    def roll(self, s: GameState, seat: int, use: str) -> bool:
        """One concentration roll (2D6 + MAG // 10 + check mods; never critical nor fumble),
        which uses one of the camp's rolls whatever its result."""
        st = self.st(s)
        uses = list(st.uses)
        uses[seat] -= 1
        self.put(s, uses=tuple(uses))
        camp = s.camps[seat]
        bonus = core.param(s, camp, "mag") // 10 + core.mod(s, camp, "checks")
        target = self.data.concentration_target
        check = core.check_2d6(s, seat, "concentration", bonus, special=False, target=target)
        core.emit(s, "ConcentrationRolled", seat=seat, use=use, success=check.total >= target)
        return check.total >= target

    def concentrate(self, s: GameState, action: Concentrate) -> None:
        seat = action.seat
        st = self.st(s)
        if action.use == "dodge":  # T4.3: a success negates the attack; a failure is a Guard
            if self.roll(s, seat, "dodge"):
                battle.land_attack(s, hit=False, halve=False, guard=False)
            else:
                battle.react(s, React(seat, "G", ""))
            return
        if action.use == "initiative":
            self.put(s, seize=st.seize | {seat})
        else:
            self.put(s, endure=st.endure | {seat})
        core.emit(s, "ConcentrationDeclared", seat=seat, use=action.use)

    def cast(self, s: GameState, action: ConcentrateCast) -> None:
        """T4.2: the roll first; on a success the hostile skill's check value rises by
        lower_resistance_per_level × caster level against its target."""
        seat, skill = action.seat, self.rules.skills[action.skill]
        if self.roll(s, seat, "cast"):
            level = self.caster_level(s, seat, skill)
            self.put(s, boost=(seat, action.target,
                               level * self.data.lower_resistance_per_level))
        powers.use_skill(s, UseSkill(seat, action.skill, action.target, action.extra))
        self.put(s, boost=(-1, -1, 0))

    def initiative(self, s: GameState, order: tuple[int, ...]) -> tuple[int, ...]:
        """T4.1: camps that succeed act before every camp that did not, keeping the base order
        among themselves; a round-1 ambusher still leads."""
        st = self.st(s)
        declared = [x for x in order if x in st.seize]
        if not declared:
            return order
        won = {x for x in declared if self.roll(s, x, "initiative")}
        self.put(s, seize=frozenset())
        b = s.battle
        lead = order[:1] if b.round == 1 and order[0] == b.ambusher else ()
        rest = [x for x in order if x not in lead]
        return (*lead, *(x for x in rest if x in won), *(x for x in rest if x not in won))

    def damage(self, s: GameState, seat: int, amount: int, source: str) -> int:
        """T4.4: the first hostile-magecraft damage of the round after Endure, halved on a
        success."""
        st = self.st(s)
        if source != "magecraft" or seat not in st.endure or amount <= 0:
            return amount
        self.put(s, endure=st.endure - {seat})
        return amount // 2 if self.roll(s, seat, "endure") else amount

    def on_round_end(self, s: GameState) -> None:
        self.put(s, endure=frozenset(), seize=frozenset())

    # --- T6 resistance ---------------------------------------------------------------------------
    def skill_check(self, s: GameState, seat: int, skill: Skill, target: int) -> int:
        if not 0 <= target < len(s.camps) or not skill.magecraft or skill.target != "enemy":
            return 0
        st = self.st(s)
        caster, aimed, bonus = st.boost
        boost = bonus if (caster, aimed) == (seat, target) else 0
        grades = core.mod(s, s.camps[target], "mr") + dict(st.mr).get(target, 0)
        return boost - self.data.mr_step * grades

    def skill_void(self, s: GameState, seat: int, skill: Skill, target: int) -> bool:
        """T6.2-T6.4: hostile magecraft on an immune camp (a scenario's) does nothing."""
        return (0 <= target < len(s.camps) and skill.magecraft and skill.target == "enemy"
                and target in self.st(s).immune)

    def scenario_camp(self, s: GameState, seat: int, values: Mapping[str, Any]) -> None:
        """`mr = grades` (T6.1, added to what its skills give) and `immune = true` (T6.2)."""
        st = self.st(s)
        if "mr" in values:
            if type(values["mr"]) is not int or not 0 <= values["mr"] <= 10:
                raise ValueError(f"mr: {values['mr']!r} is not an integer 0..10 (grades)")
            self.put(s, mr=tuple(sorted({**dict(st.mr), seat: values["mr"]}.items())))
        if "immune" in values:
            if type(values["immune"]) is not bool:
                raise ValueError(f"immune: {values['immune']!r} is not true or false")
            self.put(s, immune=st.immune | {seat} if values["immune"] else st.immune - {seat})

    # --- what leaves the engine -----------------------------------------------------------------
    def verbs(self) -> tuple[str, ...]:
        return ("Concentrate", "ConcentrateCast") if self.concentration else ()

    def view(self, s: GameState, seat: int | None, shared: Shared) -> dict[str, Any]:
        """The zones, concentration and uses, the same for every seat (made once per state);
        to a seat prompted in the battle, the targets its zones rule out."""
        out = shared.get("tactics", lambda: self._public(s))
        b = s.battle
        if b is not None and seat is not None and seat in s.prompt.seats and seat in b.seats:
            out = {**out, "ruled_out": self.ruled_out(s, seat)}
        return out

    def _public(self, s: GameState) -> dict[str, Any]:
        b = s.battle
        out: dict[str, Any] = {"blocking": sorted(self.data.blocking[s.settings.map_id]),
                               "zoc": [], "uses": list(self.st(s).uses)}
        if b is None:
            return out
        st = self.st(s)
        grid = city(s)
        for x in b.seats:
            camp = s.camps[x]
            r = self.radius(camp)
            out["zoc"].append({"seat": x, "radius": r, "active": x in st.zoc,
                               "squares": sorted(zone(grid.width, grid.height, camp.pos, r))})
        out["dropping"] = sorted(st.dropped)  # zones that go when the activation ends (T1.4)
        out["seize"] = sorted(st.seize)
        out["endure"] = sorted(st.endure)
        return out

    def rebuild(self, s: GameState, view: dict[str, Any]) -> None:
        self.put(s, zoc=frozenset(z["seat"] for z in view["zoc"] if z["active"]),
                 dropped=frozenset(view.get("dropping", ())), uses=tuple(view["uses"]),
                 seize=frozenset(view.get("seize", ())), endure=frozenset(view.get("endure", ())))

    def text(self, s: GameState) -> list[str]:
        st = self.st(s)
        given = [f"mr {' '.join(f'#{x}:{n}' for x, n in st.mr) or '-'} immune "
                 f"{','.join(map(str, sorted(st.immune))) or '-'}"] if st.mr or st.immune else []
        if s.battle is None:
            return given
        return [*given, f"zoc {','.join(map(str, sorted(st.zoc))) or '-'} "
                f"dropping {','.join(map(str, sorted(st.dropped))) or '-'} "
                f"uses {''.join(map(str, st.uses))} seize {sorted(st.seize) or '-'} "
                f"endure {sorted(st.endure) or '-'}"]


def _tactics(s: GameState) -> Tactics:
    return next(m for m in s.modules if isinstance(m, Tactics))


for _kind in ("round_start", "reaction"):
    prompts.extend(_kind, Tactics.name,
                   {Concentrate: lambda s, a: _tactics(s).concentrate(s, a)}, ("Concentrate",))
for _kind in ("round_start", "main", "reaction"):
    prompts.extend(_kind, Tactics.name,
                   {ConcentrateCast: lambda s, a: _tactics(s).cast(s, a)}, ("ConcentrateCast",))

__all__ = ["Concentrate", "ConcentrateCast", "Tactics", "TacticsState"]
