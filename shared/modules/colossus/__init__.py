"""The colossus scenario (seed 003 "Special Rules for Conquering the Colossus"; spec 003 T7 and
§5): Daidarabotchi wakes, walks to the city's Dragon Vein, and every camp may raid it.

The module owns the march between raids (`on_turn_end`), the Raid Turn action (a declaration
kind of the base window) and the raid battle (`raid.RaidRules`, walked by `advance`). It turns
tactics on. The colossus is never a seat: it lives in this module's slot. Its part factors and
its dodges left never leave the engine (`view` shows neither; a bot's rebuilt state draws
them, `sample`).
`docs/rules.md` "The colossus" states each rule with its seed section.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from ...engine import core, powers, prompts, turns
from ...engine.actions import (
    Action,
    AnswerIntervention,
    DeclareAmbush,
    DeclareDisengage,
    DeclareEncounter,
    DeclareNoblePhantasm,
    DeclareSoulEating,
    Move,
    React,
    Ready,
    UseCommandSpell,
    UseNoblePhantasm,
    Wait,
)
from ...engine.core import city
from ...engine.data import Ruleset, Skill
from ...engine.geometry import distance
from ...engine.modules import Module, OptionSpec, register
from ...engine.sharing import Shared
from ...engine.state import Declaration, GameState
from ..tactics import Concentrate
from .actions import (
    COLOSSUS,
    AttackPart,
    Climb,
    ClimbAttack,
    ClimbMove,
    ClimbNoblePhantasm,
    ClimbTo,
    DeclareRaid,
    Dismount,
    EndClimb,
    FireAtPart,
    Mount,
)
from .data import ColossusData, load_colossus
from .raid import RaidRules
from .state import ColossusState, Raid

SCENARIOS = ("colossus", "colossus_raid")
_WAR_ONLY = (DeclareEncounter, DeclareAmbush, DeclareSoulEating)  # not offered in a raid room
GUESS_FACTOR = 100  # what a rebuilt state holds for every hidden part factor


@register
class Colossus(RaidRules, Module):
    name = "colossus"
    requires = ("tactics",)
    options: ClassVar[dict[str, OptionSpec]] = {
        "scenario": OptionSpec("colossus", SCENARIOS,
                               doc="colossus: in a Grail War; colossus_raid: a cooperative "
                                   "room of 1-7 camps (§5.7)"),
        "colossus_day": OptionSpec(3, tuple(range(1, 11)),
                                   doc="the day it wakes, in the morning (§5.1; a raid room: 1)"),
    }

    def __init__(self, rules: Ruleset, values: dict[str, Any]) -> None:
        super().__init__(rules, values)
        self.data: ColossusData = load_colossus(rules)
        self.cooperative = values["scenario"] == "colossus_raid"
        self.wake_day = 1 if self.cooperative else values["colossus_day"]
        self.board_view = _board_view(self.data)  # static: built once, shared by every view
        self.script_view = _script_view(self.data)

    @classmethod
    def fewest_camps(cls, values: Mapping[str, Any]) -> int:
        return 1 if values.get("scenario") == "colossus_raid" else 2

    # --- state -------------------------------------------------------------------------------
    def setup(self, s: GameState) -> None:
        s.set_mod(self.name, ColossusState(factors=tuple(self.data.factors.values()),
                                           damage=(0,) * len(s.camps)))

    def path(self, s: GameState) -> tuple[int, ...]:
        return self.data.paths[s.settings.map_id]

    # --- waking and marching (§5.1, §5.6) ------------------------------------------------------
    def advance(self, s: GameState) -> bool:
        st = self.st(s)
        if st.raid is not None:
            return self.raid_step(s)
        if not st.awake and s.phase == "declare" and s.day >= self.wake_day and not s.over:
            self.wake(s)
        return False

    def wake(self, s: GameState) -> None:
        """On the Morning of its day it wakes at the path's head (a raid room: one square
        on) with hp_per_camp (a raid room: raid_room_hp_per_camp) × the camps alive; its
        square is eaten."""
        index = 1 if self.cooperative else 0
        square = self.path(s)[index]
        per_camp = self.data.raid_room_hp_per_camp if self.cooperative else self.data.hp_per_camp
        hp = per_camp * len(s.living)
        self.put(s, awake=True, square=square, path_index=index, hp=hp, hp_max=hp)
        s.eaten = s.eaten | {square}
        core.emit(s, "ColossusAwakened", square=square, hp=hp)

    def on_turn_end(self, s: GameState) -> None:
        """It advances one square a Turn unless raids cost it hold_damage HP this Turn (never
        in a raid room); the square it enters is eaten and tramples every camp on it (2D10+10,
        not an attack)."""
        st = self.st(s)
        if not st.awake or st.destroyed:
            return
        self.put(s, lost=0)
        if st.lost >= self.data.hold_damage and not self.cooperative:
            core.emit(s, "ColossusHeld", damage=st.lost)
            return
        path = self.path(s)
        index = st.path_index + 1
        square = path[index]
        self.put(s, path_index=index, square=square)
        core.emit(s, "ColossusAdvanced", square=square, left=len(path) - 1 - index)
        if index == len(path) - 1:  # §5.7: it drinks the Dragon Vein
            self.end_game(s, (), "colossus")
            return
        s.eaten = s.eaten | {square}
        for seat in s.living:
            if s.camps[seat].pos == square and not s.over:
                damage = core.roll_dice(s, self.data.eat_damage, seat, "trampled")
                core.emit(s, "Trampled", seat=seat, square=square, damage=damage)
                core.take_damage(s, seat, damage)

    # --- endings and rewards (§5.7) ---------------------------------------------------------
    def end_game(self, s: GameState, winners: tuple[int, ...], reason: str) -> None:
        s.over = True
        s.phase = "over"
        s.winner = winners[0] if len(winners) == 1 else -1
        self.put(s, winners=winners)
        core.emit(s, "GameEnded", winner=s.winner, winners=list(winners), reason=reason)

    def judge(self, s: GameState) -> bool:
        """A raid room has no Grail: it is lost when every Servant is dead."""
        if self.cooperative and not s.living and not s.over:
            self.end_game(s, (), "all_dead")
        return self.cooperative

    def destroyed(self, s: GameState, killer: int) -> None:
        """The killing blow and the most damage over all raids (ties: the lowest seat) each
        give a Command Spell stroke; every raider of this battle recovers reward_mp. A raid
        room is won by every camp with a living Servant."""
        st = self.st(s)
        top = max(range(len(st.damage)), key=lambda x: (st.damage[x], -x))
        self.put(s, destroyed=True)
        core.emit(s, "ColossusDestroyed", killer=killer, top=top)
        strokes = dict.fromkeys(self.raid(s).joined, 0)
        for seat in (killer, top):
            strokes[seat] = strokes.get(seat, 0) + self.data.reward_strokes
        for seat, gain in strokes.items():
            if not s.camps[seat].alive:
                continue
            mp = core.gain_mp(s, seat, self.data.reward_mp) if seat in self.raid(s).joined else 0
            s.edit(seat).spells += gain
            core.emit(s, "RaidRewarded", seat=seat, strokes=gain, mp=mp)
        if self.cooperative:
            self.end_game(s, tuple(s.living), "colossus_destroyed")

    # --- declarations ---------------------------------------------------------------------------
    def legal(self, s: GameState, seat: int, actions: list[Action]) -> list[Action]:
        if s.prompt.kind != "declare":
            return actions
        if self.cooperative:
            actions = [a for a in actions if not isinstance(a, _WAR_ONLY)]
        st = self.st(s)
        camp = s.camps[seat]
        if st.awake and not st.destroyed and not camp.asleep:
            reach = core.movement(s, camp) - max(camp.moved, 0)
            if distance(city(s), camp.pos, st.square) <= reach:
                actions = [*actions, DeclareRaid(seat)]
        return actions

    def on_action(self, s: GameState, action: Action) -> None:
        """Retreat takes a raider out of the raid from anywhere, a climber too (§5.5)."""
        raid = self.st(s).raid
        if (raid is not None and isinstance(action, UseCommandSpell)
                and action.seat in raid.seats
                and powers.spell_table(s)[action.spell].special == "retreat"):
            self.leave(s, action.seat, "retreat")

    def resolve_raid(self, s: GameState, i: int, decl: Declaration) -> None:
        self.open_raid(s, i, decl)

    def skill_check(self, s: GameState, seat: int, skill: Skill, target: int) -> int:
        return self.spell_check(s) if target == COLOSSUS else 0

    def skill_void(self, s: GameState, seat: int, skill: Skill, target: int) -> bool:
        return target == COLOSSUS and self.immune_to(s, skill)

    def skill_on_other(self, s: GameState, seat: int, skill: Skill, target: int) -> None:
        if target == COLOSSUS:
            self.spell_lands(s, seat, skill)

    # --- what leaves the engine -----------------------------------------------------------------
    def verbs(self) -> tuple[str, ...]:
        return ("DeclareRaid",)

    def view(self, s: GameState, seat: int | None, shared: Shared) -> dict[str, Any]:
        """Everything a table sees: the body (no factors), its HP and path, the script and
        its next step, each raid's tilts and who clings where. Never the factors or the dodges
        left. The same for every seat: made once per state."""
        return shared.get("colossus", lambda: self._view(s))

    def _view(self, s: GameState) -> dict[str, Any]:
        st = self.st(s)
        raid = st.raid
        out: dict[str, Any] = {
            "scenario": self.values["scenario"], "wake_day": self.wake_day,
            "awake": st.awake, "destroyed": st.destroyed, "square": st.square,
            "path": list(self.path(s)), "path_index": st.path_index, "hp": st.hp,
            "hp_max": st.hp_max, "damage": list(st.damage), "lost": st.lost,
            "raids": st.raids, "winners": list(st.winners),
            "board": self.board_view, "script": self.script_view,
            "next_step": self.step_of(raid.round).id if raid else self.data.script[0].id,
            "raid": None if raid is None else self.raid_view(s, raid),
        }
        return out

    def raid_view(self, s: GameState, raid: Raid) -> dict[str, Any]:
        actor = raid.order[raid.cursor] if raid.stage in ("ground", "climb") and (
            raid.cursor < len(raid.order)) else None
        return {
            "seats": list(raid.seats), "joined": list(raid.joined),
            "homes": [list(h) for h in raid.homes], "round": raid.round, "stage": raid.stage,
            "step": self.step_of(raid.round).id,
            "tilts": dict(zip(self.data.surface_names, raid.tilts, strict=True)),
            "tiles": {str(x): t for x, t in raid.tiles},
            "ready": sorted(raid.ready), "climbing": sorted(raid.climbing),
            "initiative": list(raid.initiative), "order": list(raid.order),
            "cursor": raid.cursor, "actor": actor, "slots": raid.slots,
            "attacked": raid.attacked, "budget": raid.budget, "roll_value": raid.roll_value,
            "strike": list(raid.strike), "roll": None if raid.roll is None else list(raid.roll),
            "offered": sorted(raid.offered), "seize": sorted(raid.seize), "seized": raid.seized,
            "moved": raid.moved, "endured": raid.endured,
            "np": {str(x): [s.camps[x].np_target, s.camps[x].np_round] for x in raid.joined},
        }

    def rebuild(self, s: GameState, view: dict[str, Any]) -> None:
        """The public state back; the hidden factors become a flat guess and the dodges left
        the data's full count."""
        rv = view["raid"]
        raid = None
        if rv is not None:
            raid = Raid(
                tuple(rv["seats"]), tuple(rv["joined"]), tuple(tuple(h) for h in rv["homes"]),
                tuple(rv["tilts"][x] for x in self.data.surface_names), self.data.dodge_uses,
                rv["round"], rv["stage"], frozenset(rv["ready"]), frozenset(rv["climbing"]),
                tuple(sorted((int(x), t) for x, t in rv["tiles"].items())),
                tuple(rv["initiative"]), tuple(rv["order"]), rv["cursor"], rv["slots"],
                rv["attacked"], rv["budget"], rv["roll_value"], tuple(rv["strike"]),
                None if rv["roll"] is None else tuple(rv["roll"]), frozenset(rv["offered"]),
                frozenset(rv["seize"]), rv["seized"], rv["moved"], rv["endured"])
            for x, (target, round_no) in rv["np"].items():
                camp = s.camps[int(x)]
                camp.np_target, camp.np_round = target, round_no
        s.set_mod(self.name, ColossusState(
            factors=(GUESS_FACTOR,) * len(self.data.factors), awake=view["awake"],
            destroyed=view["destroyed"], square=view["square"],
            path_index=view["path_index"], hp=view["hp"], hp_max=view["hp_max"],
            damage=tuple(view["damage"]), lost=view["lost"], raids=view["raids"],
            winners=tuple(view["winners"]), raid=raid))

    def scenario_state(self, s: GameState, values: Mapping[str, Any]) -> None:
        """A scenario may start the colossus wounded: `hp` (1 to its full HP, once awake)."""
        st = self.st(s)
        for key, value in values.items():
            if key != "hp" or type(value) is not int or not st.awake or not 0 < value <= st.hp:
                raise ValueError(f"module_state.colossus.{key}: only hp, an integer from 1 "
                                 f"to its HP ({st.hp}) once it is awake")
            self.put(s, hp=value)

    def sample(self, s: GameState, choose: Callable[[Sequence[Any]], Any],
               seat: int) -> None:
        """A rebuilt state's secrets drawn: each part's factor one of the data's factor values
        (the table knows which values exist, not where), and the dodges left."""
        values = sorted(set(self.data.factors.values()))
        st = self.st(s)
        raid = st.raid
        if raid is not None:
            raid = raid._replace(dodge_left=choose(range(self.data.dodge_uses + 1)))
        self.put(s, factors=tuple(choose(values) for _ in self.data.factors), raid=raid)

    def text(self, s: GameState) -> list[str]:
        st = self.st(s)
        if not st.awake:
            return [f"asleep until day {self.wake_day}"]
        line = (f"hp {st.hp}/{st.hp_max} @{st.square} path {st.path_index} lost {st.lost} "
                f"raids {st.raids}{' destroyed' if st.destroyed else ''}")
        raid = st.raid
        if raid is None:
            return [line]
        tiles = " ".join(f"{x}:{t}" for x, t in raid.tiles) or "-"
        return [line, f"raid {','.join(map(str, raid.seats))} r{raid.round} {raid.stage} "
                      f"tiles {tiles} slots {raid.slots} budget {raid.budget}"]


def _board_view(data: ColossusData) -> list[dict[str, Any]]:
    """The tiles as a table sees them: everything but the hidden factor."""
    return [{"id": t.id, "part": t.part, "surface": t.surface, "colour": t.colour,
             "height": t.height, "ground": t.ground, "mount": t.mount, "links": list(t.links)}
            for t in data.tiles.values()]


def _script_view(data: ColossusData) -> list[dict[str, Any]]:
    return [{"id": step.id, "tilt": dict(step.tilt), "attack": None if step.attack is None
             else {"kind": step.attack.kind, "hit": step.attack.hit,
                   "damage": str(step.attack.damage), "targets": step.attack.targets}}
            for step in data.script]


def _colossus(s: GameState) -> Colossus:
    return next(m for m in s.modules if isinstance(m, Colossus))


turns.register_declaration(DeclareRaid, "raid",
                           lambda s, i, decl: _colossus(s).resolve_raid(s, i, decl))
prompts.extend("declare", Colossus.name, {DeclareRaid: turns.declare}, ("DeclareRaid",))
for _kind in (
    prompts.PromptKind(
        "raid_offer", lambda s, seat: [AnswerIntervention(seat, True),
                                       AnswerIntervention(seat, False)],
        {AnswerIntervention: lambda s, a: _colossus(s).answer_offer(s, a)},
        lambda s, seat: AnswerIntervention(seat, False),
        verbs=("InterveneJoin", "InterveneStay"), battle=True,
        doc="camps that declared Wait within reach of a raid that opened"),
    prompts.PromptKind(
        "raid_start", lambda s, seat: _colossus(s).start_actions(s, seat),
        dict.fromkeys((Ready, Climb, DeclareNoblePhantasm, DeclareDisengage, Concentrate),
                      lambda s, a: _colossus(s).start_action(s, a)),
        lambda s, seat: Ready(seat),
        verbs=("Ready", "Climb", "DeclareNoblePhantasm", "DeclareDisengage", "Concentrate",
               "UseSkill", "UseCommandSpell"),
        battle=True, doc="a raid Round's start: every raider, until all are Ready"),
    prompts.PromptKind(
        "raid_ground", lambda s, seat: _colossus(s).ground_actions(s, seat),
        dict.fromkeys((AttackPart, FireAtPart, UseNoblePhantasm, Move, Wait),
                      lambda s, a: _colossus(s).ground_action(s, a)),
        lambda s, seat: Wait(seat), timer="main_s",
        verbs=("AttackPart", "FireAtPart", "UseNoblePhantasm", "Move", "Wait", "UseSkill",
               "UseCommandSpell"),
        battle=True,
        doc="phase 1: a ground raider's Main Action against the colossus"),
    prompts.PromptKind(
        "raid_reaction", lambda s, seat: _colossus(s).reaction_actions(s, seat),
        {React: lambda s, a: _colossus(s).react(s, a),
         Concentrate: lambda s, a: _colossus(s).dodge(s, a)},
        lambda s, seat: React(seat, "G", ""), timer="reaction_s",
        verbs=("ReactDefend", "ReactLuck", "ReactGuard", "Concentrate", "UseSkill",
               "UseCommandSpell"),
        battle=True,
        doc="phase 2: a target of the colossus's attack"),
    prompts.PromptKind(
        "climb", lambda s, seat: _colossus(s).climb_actions(s, seat),
        dict.fromkeys((Mount, ClimbMove, ClimbAttack, ClimbNoblePhantasm, UseNoblePhantasm,
                       Dismount, EndClimb),
                      lambda s, a: _colossus(s).climb_action(s, a)),
        lambda s, seat: EndClimb(seat), timer="main_s",
        verbs=("Mount", "ClimbMove", "ClimbAttack", "ClimbNoblePhantasm", "Dismount",
               "EndClimb", "UseNoblePhantasm", "UseSkill", "UseCommandSpell"), battle=True,
        doc="phase 3: a climber's next slot (three a Round, one attack)"),
    prompts.PromptKind(
        "climb_step", lambda s, seat: _colossus(s).step_actions(s, seat),
        {ClimbTo: lambda s, a: _colossus(s).climb_action(s, a)},
        lambda s, seat: ClimbTo(seat, _colossus(s).raid(s).tile_of(seat)), timer="main_s",
        verbs=("ClimbTo",), battle=True,
        doc="phase 3: where a climber goes after its ClimbMove roll"),
):
    prompts.register(_kind)

__all__ = ["COLOSSUS", "SCENARIOS", "Colossus", "ColossusState", "DeclareRaid", "Raid"]
