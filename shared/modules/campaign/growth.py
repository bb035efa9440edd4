"""§2 of the campaign: experience and levels (C2.1-C2.10), and the pool and damage points of
the §0 mapping that growth (and items, `gear.py`) change.

A camp's *pool* counts tiles per card kind; `tiles_per_card` tiles make one card of the
composition a hand is filled from (`composition`, capped at `max_pool`). Damage points (dp) per
kind are added to that kind's normal attacks, `damage_point` HP each (the module-only mod key
`attack_damage:<kind>`). The Master gains experience per method, levels at the end of a Turn
(one per method), and each level asks the seat for a growth choice (G1-G4, then the Servant's)
before it may declare again. Everything here is the camp's own secret (spec §4), so no record
field is public and every event is private; only max HP, which growth raises, is public (the
base view shows it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...engine import core, prompts, turns
from ...engine.actions import Action, Attack, UseNoblePhantasm
from ...engine.data import CARD_KINDS, Skill
from ...engine.sharing import Shared
from ...engine.state import Camp, Declaration, GameState
from . import ledger
from . import state as st
from .data import METHODS, RACES, CampaignData
from .section import Section, section_of

GROWTH_OPTIONS = ("focus", "spread", "stock", "edge")  # C2.7: G1-G4
SERVANT_POOLS = ("hp", "mp")  # C2.8: which maximum a level raises
SKILL_UNLOCK = "unlock"  # SpendSkillPoint: the Master's 4th skill


@dataclass(frozen=True, slots=True)
class DeclareStudy(Action):
    """C2.3: the Turn is spent studying: +1 `study` experience, nothing else."""




@dataclass(frozen=True, slots=True)
class ChooseGrowth(Action):
    """C2.7: a level's growth of the Servant's Physical cards. `focus`: +1 tile of `first`,
    +2 dp on it; `spread`: +1 tile each of `first` and `second`, +1 dp on the third kind;
    `stock`: +1 tile each of `first` and `second`, +2 tiles of the third; `edge`: +1 dp on each
    kind (`first` and `second` ""). Never the option of the previous level."""

    option: str
    first: str
    second: str


@dataclass(frozen=True, slots=True)
class ChooseServantGrowth(Action):
    """C2.8: what a contracted Master's level gives its Servant: +5 max HP or MP (`pool`), +1 dp
    on `damage_kind`, and +1 tile of `tile` (a kind) or +5 check on `tile` (a magecraft skill
    id of the camp)."""

    pool: str
    damage_kind: str
    tile: str


@dataclass(frozen=True, slots=True)
class SpendSkillPoint(Action):
    """C2.6: a skill point unlocks the 4th Master skill (`arg` "unlock") or adds
    skill_point_check to a Master skill with a check (`arg` its id)."""

    arg: str


@dataclass(frozen=True, slots=True)
class SpendBackgroundPoint(Action):
    """C2.6: a background point adds +1 to the Master's investigation modifier (at most
    background_investigation_max) or buys background_funds funds."""

    arg: str


def most_cards(rec: st.CampRecord, data: CampaignData) -> str:
    """The kind with the most cards in the pool's composition (ties: B, A, Q order)."""
    cards = st.cards(rec, data)
    return max(CARD_KINDS, key=cards.count)


def _add(pairs: tuple[tuple[str, int], ...], key: str, amount: int) -> tuple[tuple[str, int], ...]:
    """A sorted (key, amount) table with `amount` added to `key` (an entry at 0 is dropped)."""
    table = dict(pairs)
    table[key] = table.get(key, 0) + amount
    return tuple(sorted((k, v) for k, v in table.items() if v))


def _kinds(*changes: tuple[str, int]) -> tuple[int, ...]:
    """Per-kind amounts (CARD_KINDS order) from (kind, amount) changes."""
    return tuple(sum(n for k, n in changes if k == kind) for kind in CARD_KINDS)


def _growth_effect(option: str, a: str, b: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """C2.7: the tiles and dp per kind that G1-G4 give (`a`, `b` the kinds chosen)."""
    third = next((k for k in CARD_KINDS if k not in (a, b)), "")
    if option == "focus":
        return _kinds((a, 1)), _kinds((a, 2))
    if option == "spread":
        return _kinds((a, 1), (b, 1)), _kinds((third, 1))
    if option == "stock":
        return _kinds((a, 1), (b, 1), (third, 2)), _kinds()
    return _kinds(), _kinds(*((k, 1) for k in CARD_KINDS))


class Growth(Section):
    key = "growth"
    camp_keys = ("race",)
    modifier_keys = frozenset({"max_hp", "max_mp", "max_master_mp", "investigation",
                               *(f"attack_damage:{k}" for k in CARD_KINDS)})

    # --- the pool and damage points ---------------------------------------------------------------
    def composition(self, s: GameState, seat: int, cards: str) -> str:
        """§0 mapping: in campaign rooms a hand is filled from the pool."""
        return st.cards(st.record(s, seat), self.data)

    def modifier(self, s: GameState, camp: Camp, key: str) -> int:
        if key.startswith("attack_damage:"):
            kind = key[-1]
            if kind not in CARD_KINDS:
                return 0  # a Luck attack is not Physical
            dp = st.record(s, camp.seat).dp
            i = CARD_KINDS.index(kind)
            return (dp[0][i] + dp[1][i]) * self.data.numbers.damage_point
        if key in ("max_hp", "max_mp"):
            return dict(st.record(s, camp.seat).growth).get(key, 0)
        if key == "max_master_mp":  # C2.5: every level past the first
            return st.level_master_mp(s, camp.seat, self.data)
        if key == "investigation":
            return st.record(s, camp.seat).investigation_bonus
        return 0

    def skill_check(self, s: GameState, seat: int, skill: Skill, target: int) -> int:
        """C2.6 a skill point on a Master skill; C2.8 the magecraft alternative to a tile."""
        rec = st.record(s, seat)
        return dict(rec.skill_bonus).get(skill.id, 0) + dict(rec.growth).get(
            "check:" + skill.id, 0)

    def add_growth(self, s: GameState, seat: int, tiles: tuple[int, ...],
                   dp: tuple[int, ...], more: dict[str, int] | None = None) -> None:
        """Contract gains (C2.7, C2.8): dp into the contract half of `dp`, tiles into the pool
        and noted in `growth` with the rest (max HP/MP, checks), so that C2.9 can undo them."""
        rec = st.record(s, seat)
        growth = rec.growth
        for kind, n in zip(CARD_KINDS, tiles, strict=True):
            growth = _add(growth, "tile:" + kind, n)
        for key, n in (more or {}).items():
            growth = _add(growth, key, n)
        st.update(s, seat, growth=growth,
                  pool=tuple(a + b for a, b in zip(rec.pool, tiles, strict=True)),
                  dp=(tuple(a + b for a, b in zip(rec.dp[0], dp, strict=True)), rec.dp[1]))

    def assume(self, s: GameState, seat: int, max_hp: int, cards: str | None) -> None:
        """A rebuilt rival's growth (a bot's belief): what its max HP and its cards (when
        shown) are beyond the record's, as contract growth (C2.7, C2.8)."""
        rec = st.record(s, seat)
        per = self.data.numbers.tiles_per_card
        tiles = (0,) * len(CARD_KINDS) if cards is None or cards == st.cards(rec, self.data) \
            else tuple(cards.count(k) * per - n for k, n in zip(CARD_KINDS, rec.pool, strict=True))
        gap = max_hp - core.max_hp(s, s.camps[seat])
        if gap or any(tiles):
            self.add_growth(s, seat, tiles, (0,) * len(CARD_KINDS), {"max_hp": gap} if gap else {})

    def on_contract_end(self, s: GameState, seat: int) -> None:
        """C2.9, C9.2 (at §9's contract end): the Servant loses every contract gain of C2.7
        and C2.8; its HP and MP are capped at the lowered maxima. A new contract grows from
        zero."""
        rec = st.record(s, seat)
        gained = dict(rec.growth)
        tiles = tuple(gained.get("tile:" + k, 0) for k in CARD_KINDS)
        st.update(s, seat, growth=(), last_growth="", pending_growth=0,
                  servant_growth_due=False,
                  pool=tuple(a - b for a, b in zip(rec.pool, tiles, strict=True)),
                  dp=((0,) * len(CARD_KINDS), rec.dp[1]))
        camp = s.camps[seat]
        hp, mp = core.max_hp(s, camp), core.max_mp(s, camp)
        if camp.hp > hp or camp.mp > mp:
            edit = s.edit(seat)
            edit.hp, edit.mp = min(edit.hp, hp), min(edit.mp, mp)

    # --- experience ------------------------------------------------------------------------------
    def on_action(self, s: GameState, action: Action) -> None:
        """C2.2 front row: a combatant that attacked or fired its NP."""
        g = st.state(s)
        if (g.battle is not None and isinstance(action, Attack | UseNoblePhantasm)
                and action.seat not in g.battle.front):
            st.put(s, battle=g.battle._replace(front=g.battle.front | {action.seat}))

    def on_battle_end(self, s: GameState) -> None:
        """C2.2 `combat`: +1 for taking part, +1 more for the front row, +1 for winning (the
        only combatant left: the base's `decided`, or the last blow of the war)."""
        b = s.battle
        front = st.state(s).battle.front
        left = [x for x in b.seats if s.camps[x].alive]
        won = left[0] if len(left) == 1 else -1
        for x in sorted(set(b.joined) | set(b.seats)):
            ledger.gain_exp(s, self.data, x, "combat", 1, "battle")
            if x in front:
                ledger.gain_exp(s, self.data, x, "combat", 1, "front_row")
            if x == won:
                ledger.gain_exp(s, self.data, x, "combat", 1, "win")

    def study(self, s: GameState, _i: int, decl: Declaration) -> None:
        core.emit(s, "Studied", frozenset({decl.seat}), None, seat=decl.seat)
        ledger.gain_exp(s, self.data, decl.seat, "study", 1, "study")

    # --- C2.4, C2.5 levels at the end of each Turn --------------------------------------------
    def on_turn_end(self, s: GameState) -> None:
        n = self.data.numbers
        for seat in s.living:
            if st.record(s, seat).scouted_turn == st.turn_key(s):
                ledger.gain_exp(s, self.data, seat, "scouting", 1, "scouting")
            rec = st.record(s, seat)
            for i, method in enumerate(METHODS):
                if rec.exp[i] < n.exp_per_level:
                    continue
                exp = list(rec.exp)
                exp[i] = 0  # the surplus is discarded
                rec = st.update(s, seat, exp=tuple(exp))
                if rec.level < ledger.level_cap(s, seat, self.data) and not rec.stray:
                    rec = self.level_up(s, seat, method)

    def level_up(self, s: GameState, seat: int, method: str) -> st.CampRecord:
        level = st.record(s, seat).level + 1
        even = level % 2 == 0
        rec = st.record(s, seat)
        rec = st.update(s, seat, level=level, pending_growth=rec.pending_growth + 1,
                        skill_points=rec.skill_points + even,
                        background_points=rec.background_points + (not even))
        camp = s.camps[seat]
        mp = self.data.master_mp_per_level[st.race(s, seat, self.data)]
        s.edit(seat).master_mp = min(camp.master_mp + mp, core.max_master_mp(s, camp))
        core.emit(s, "LevelGained", frozenset({seat}), None, seat=seat, level=level,
                  method=method, master_mp=mp, point="skill" if even else "background")
        return rec

    # --- C2.6, C2.7, C2.8 choices at the declaration prompt -------------------------------------
    def growth_actions(self, s: GameState, seat: int) -> list[Action]:
        rec = st.record(s, seat)
        if rec.servant_growth_due:
            tiles = [*CARD_KINDS, *self.magecraft(s, seat)]
            return [ChooseServantGrowth(seat, p, k, t) for p in SERVANT_POOLS
                    for k in CARD_KINDS for t in tiles]
        out: list[Action] = []
        for option in GROWTH_OPTIONS:
            if option == rec.last_growth:
                continue
            if option == "edge":
                out.append(ChooseGrowth(seat, option, "", ""))
            elif option == "focus":
                out.extend(ChooseGrowth(seat, option, k, "") for k in CARD_KINDS)
            else:
                out.extend(ChooseGrowth(seat, option, a, b) for i, a in enumerate(CARD_KINDS)
                           for b in CARD_KINDS[i + 1:])
        return out

    def magecraft(self, s: GameState, seat: int) -> list[str]:
        """The camp's magecraft skills (C2.8's alternative to a tile)."""
        return [sid for sid in core.skill_ids(s.camps[seat]) if self.rules.skills[sid].magecraft]

    def point_actions(self, s: GameState, seat: int) -> list[Action]:
        rec = st.record(s, seat)
        camp = s.camps[seat]
        out: list[Action] = []
        if rec.skill_points:
            if not camp.unlocked:
                out.append(SpendSkillPoint(seat, SKILL_UNLOCK))
            out.extend(SpendSkillPoint(seat, sid) for sid in core.skill_ids(camp)
                       if self.rules.skills[sid].owner == "master"
                       and self.rules.skills[sid].check is not None)
        if rec.background_points:
            if rec.investigation_bonus < self.data.numbers.background_investigation_max:
                out.append(SpendBackgroundPoint(seat, "investigation"))
            out.append(SpendBackgroundPoint(seat, "funds"))
        return out

    def legal(self, s: GameState, seat: int, actions: list[Action]) -> list[Action]:
        if s.prompt.kind != "declare" or st.declared(s, seat) is not None:
            return actions  # a declared camp still asked is the Spells section's (C7.10)
        rec = st.record(s, seat)
        if rec.pending_growth:  # C2.7: nothing else until the level's growth is chosen
            return self.growth_actions(s, seat)
        return [*actions, *self.point_actions(s, seat),
                *([DeclareStudy(seat)] if not s.camps[seat].asleep else [])]

    def default(self, s: GameState, seat: int, action: Action) -> Action:
        """C2.7, C2.8 on timeout: G4, or G1 on the kind with the most cards after a G4; then
        HP, with the dp and the tile on the kind with the most cards."""
        if s.prompt.kind != "declare" or not st.record(s, seat).pending_growth:
            return action
        rec = st.record(s, seat)
        most = most_cards(rec, self.data)
        if rec.servant_growth_due:
            return ChooseServantGrowth(seat, "hp", most, most)
        if rec.last_growth == "edge":
            return ChooseGrowth(seat, "focus", most, "")
        return ChooseGrowth(seat, "edge", "", "")

    def choose_growth(self, s: GameState, action: ChooseGrowth) -> None:
        tiles, dp = _growth_effect(action.option, action.first, action.second)
        self.add_growth(s, action.seat, tiles, dp)
        st.update(s, action.seat, last_growth=action.option, servant_growth_due=True)
        core.emit(s, "GrowthChosen", frozenset({action.seat}), None, seat=action.seat,
                  option=action.option, first=action.first, second=action.second)

    def choose_servant_growth(self, s: GameState, action: ChooseServantGrowth) -> None:
        seat = action.seat
        n = self.data.numbers
        more = ({"max_hp": n.servant_growth_hp} if action.pool == "hp"
                else {"max_mp": n.servant_growth_mp})
        tile = action.tile
        if tile in CARD_KINDS:
            tiles = _kinds((tile, 1))
        else:
            tiles = (0, 0, 0)
            more["check:" + tile] = n.magecraft_tile_check
        self.add_growth(s, seat, tiles, _kinds((action.damage_kind, 1)), more)
        edit = s.edit(seat)  # the current value rises with the maximum
        if action.pool == "hp":
            edit.hp += n.servant_growth_hp
        else:
            edit.mp += n.servant_growth_mp
        rec = st.record(s, seat)
        st.update(s, seat, servant_growth_due=False, pending_growth=rec.pending_growth - 1)
        core.emit(s, "GrowthChosen", frozenset({seat}), None, seat=seat, option="servant",
                  first=action.pool, second=action.damage_kind, tile=tile)

    def spend_skill_point(self, s: GameState, action: SpendSkillPoint) -> None:
        seat = action.seat
        rec = st.record(s, seat)
        if action.arg == SKILL_UNLOCK:
            s.edit(seat).unlocked = True
            st.update(s, seat, skill_points=rec.skill_points - 1)
        else:
            st.update(s, seat, skill_points=rec.skill_points - 1, skill_bonus=_add(
                rec.skill_bonus, action.arg, self.data.numbers.skill_point_check))
        core.emit(s, "PointSpent", frozenset({seat}), None, seat=seat, point="skill",
                  arg=action.arg)

    def spend_background_point(self, s: GameState, action: SpendBackgroundPoint) -> None:
        seat = action.seat
        rec = st.record(s, seat)
        if action.arg == "investigation":
            st.update(s, seat, background_points=rec.background_points - 1,
                      investigation_bonus=rec.investigation_bonus + 1)
        else:
            st.update(s, seat, background_points=rec.background_points - 1)
            ledger.gain_funds(s, seat, self.data.numbers.background_funds,
                                           "background")
        core.emit(s, "PointSpent", frozenset({seat}), None, seat=seat, point="background",
                  arg=action.arg)

    def scenario_state(self, s: GameState, values: Mapping[str, Any]) -> None:
        """`[module_state.campaign.growth."<seat>"]`: a camp's `level` (1 to its cap) and `exp`
        (a table method -> 0 to 999), so a scenario can start just short of a level."""
        for seat_key, table in values.items():
            where = f"module_state.campaign.growth.{seat_key}"
            if not seat_key.isdigit() or int(seat_key) >= len(s.camps) or not isinstance(
                    table, Mapping):
                raise ValueError(f"{where}: a seat number 0 to {len(s.camps) - 1}, with a table")
            seat = int(seat_key)
            cap = ledger.level_cap(s, seat, self.data)
            for key, value in table.items():
                if key == "level" and type(value) is int and 1 <= value <= cap:
                    st.update(s, seat, level=value)
                elif key == "exp" and isinstance(value, Mapping) and all(
                        m in METHODS and type(n) is int and 0 <= n <= 999
                        for m, n in value.items()):
                    st.update(s, seat, exp=tuple(value.get(m, 0) for m in METHODS))
                else:
                    raise ValueError(f"{where}.{key}: level (1 to {cap}) or exp "
                                     f"(methods {', '.join(METHODS)}: 0 to 999)")

    def scenario_camp(self, s: GameState, seat: int, values: Mapping[str, Any]) -> None:
        """`race = "artificial"`: the Master's race instead of its data's (C2.4, C2.5; the
        Einzbern tag still makes it artificial)."""
        if values["race"] not in RACES:
            raise ValueError(f"race: {values['race']!r} is not a race; races: "
                             f"{', '.join(RACES)}")
        st.update(s, seat, race=values["race"])

    # --- what leaves the engine ---------------------------------------------------------------
    def verbs(self) -> tuple[str, ...]:
        return VERBS

    def view(self, s: GameState, seat: int | None, shared: Shared) -> dict[str, Any] | None:
        """For the seat itself: its composition, dp per kind, what the level asks, and its
        Master's race and level cap (the tag's race, C12.1 ④, which the data does not know)."""
        if seat is None:
            return None
        # made of the record and the Master (the race is the tag's or the Master's)
        return shared.carried(("campaign.growth", seat), (st.record(s, seat),
                                                          s.camps[seat].master),
                              lambda: self._view(s, seat))

    def _view(self, s: GameState, seat: int) -> dict[str, Any]:
        rec = st.record(s, seat)
        return {"cards": st.cards(rec, self.data), "race": st.race(s, seat, self.data),
                "cap": ledger.level_cap(s, seat, self.data),
                "dp": [a + b for a, b in zip(rec.dp[0], rec.dp[1], strict=True)],
                "choice": ("servant" if rec.servant_growth_due
                           else "growth" if rec.pending_growth else "")}


VERBS = ("DeclareStudy", "ChooseGrowth", "ChooseServantGrowth", "SpendSkillPoint",
         "SpendBackgroundPoint")


def _study(s: GameState, i: int, decl: Declaration) -> None:
    section_of(s, Growth).study(s, i, decl)


turns.register_declaration(DeclareStudy, "study", _study)
prompts.extend("declare", st.NAME, {
    DeclareStudy: turns.declare,
    ChooseGrowth: lambda s, a: section_of(s, Growth).choose_growth(s, a),
    ChooseServantGrowth: lambda s, a: section_of(s, Growth).choose_servant_growth(s, a),
    SpendSkillPoint: lambda s, a: section_of(s, Growth).spend_skill_point(s, a),
    SpendBackgroundPoint: lambda s, a: section_of(s, Growth).spend_background_point(s, a),
}, VERBS)

__all__ = ["ChooseGrowth", "ChooseServantGrowth", "DeclareStudy", "Growth", "SpendBackgroundPoint",
           "SpendSkillPoint"]
