"""The campaign's data (`resources/campaign/`), read and validated like the base data: a
problem names the file, the field and what is wrong. Every number any section uses lives in
`rules.toml`, so the sections only read `CampaignData`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import NamedTuple

from ...engine.data import CARD_KINDS, Reader, Ruleset, read_table
from ..tactics.data import SUBTYPES

RACES = ("human", "artificial")
METHODS = ("scouting", "combat", "study", "bond", "other")  # C2.1: experience pools
SERVANT_CATEGORIES = ("encounter", "rumor", "combat", "legend")  # C1.1
MASTER_CATEGORIES = ("encounter", "rumor", "combat")  # C1.1
STANCES = ("normal", "attack", "defense", "critical")  # C5.1, in sheet order
# C5.10: trait id -> the kind of argument it takes ("" none, "kind" B/A/Q, "subtype").
TRAITS = {"none": "", "kind_damage": "kind", "lead_damage": "", "magecraft_grade": "subtype",
          "incantation_ward": "", "won_lead": "", "lost_lead": "", "guard_thorns": "",
          "extra_guard": ""}
# Every number of `rules.toml [numbers]`, with its bounds (lo, hi).
NUMBERS: dict[str, tuple[int, int]] = {
    "tiles_per_card": (1, 10), "max_pool": (1, 30), "damage_point": (0, 50),
    "grade_check": (0, 100), "grade_damage": (0, 100),
    "materialize_mp": (0, 500), "spirit_master_mp": (0, 500),
    "berserker_spirit_master_mp": (0, 500), "berserker_extra_mp": (0, 500),
    "info_max_servant": (1, 20), "info_max_master": (1, 40), "class_reveal": (1, 80),
    "master_reveal": (1, 120), "library_bonus": (0, 12), "research_target": (2, 30),
    "exp_per_level": (1, 100), "level_cap": (1, 99), "level_cap_human": (1, 99),
    "skill_point_check": (0, 100), "background_funds": (0, 100),
    "background_investigation_max": (0, 10), "magecraft_tile_check": (0, 100),
    "servant_growth_hp": (0, 100), "servant_growth_mp": (0, 100),
    "transfer_rate": (1, 10), "escape_merit": (0, 20), "fake_plus_merit": (0, 20),
    "plus_param": (0, 50), "plus_param_mp": (0, 300), "plus_param_merit": (0, 20),
    "plus_skill_mp": (0, 300), "plus_skill_merit": (0, 20), "plus_np_mp": (0, 300),
    "plus_np_merit": (0, 20), "plus_constant_mp": (0, 300), "plus_constant_merit": (0, 20),
    "plus_np_power": (0, 200),
    "stance_name_max": (1, 64), "extra_guard": (0, 100), "incantation_ward_dp": (0, 20),
    "starting_funds": (0, 1000), "funds_per_day": (0, 100), "wear_slots": (0, 10),
    "holy_shroud_master_mp": (0, 500),
    "bond_grade_max": (1, 10), "bond_max_value": (1, 20), "internal_bond_grade": (0, 10),
    "bond_exp_per_grade": (0, 20), "bond_heal_per_grade": (0, 100),
    "bond_end_damage_per_grade": (0, 200), "bond_mid_damage_per_grade": (0, 200),
    "bond_share_per_grade": (0, 200), "nemesis_battles": (1, 20),
    "binding_order_grades": (0, 10),
    "stray_upkeep": (0, 500),
    "sheath_heal": (0, 200), "jewels_mp": (0, 500), "jewels_step": (1, 100),
    "jewels_params": (0, 60), "insects_range": (0, 10), "overseer_strokes": (0, 10),
    "overseer_dragon_vein": (0, 200), "overseer_church": (0, 999),
    "strongest_revivals": (0, 99), "strongest_mp_per_revival": (0, 100),
    "gatekeeper_checks": (0, 10),
    "raid_funds": (0, 100), "raid_slayer_merit": (0, 20),
}

# `rules.toml [spells]`: the campaign's Command Spell numbers (C7.3-C7.8), each a pair for a
# human and an artificial Master, with bounds (lo, hi).
SPELL_NUMBERS: dict[str, tuple[int, int]] = {
    "attack_posture_hand": (1, 5), "np_enhancement_param": (0, 100),
    "defense_posture_over": (0, 300), "defense_posture_heal": (0, 300),
    "status_recovery_percent": (0, 300), "status_recovery_step": (1, 100),
    "forced_attack_dp": (0, 20), "absolute_defense_floor": (0, 100),
}


class Numbers(NamedTuple):
    """`rules.toml [numbers]` as attributes (one field per key of `NUMBERS`)."""

    tiles_per_card: int
    max_pool: int
    damage_point: int
    grade_check: int
    grade_damage: int
    materialize_mp: int
    spirit_master_mp: int
    berserker_spirit_master_mp: int
    berserker_extra_mp: int
    info_max_servant: int
    info_max_master: int
    class_reveal: int
    master_reveal: int
    library_bonus: int
    research_target: int
    exp_per_level: int
    level_cap: int
    level_cap_human: int
    skill_point_check: int
    background_funds: int
    background_investigation_max: int
    magecraft_tile_check: int
    servant_growth_hp: int
    servant_growth_mp: int
    transfer_rate: int
    escape_merit: int
    fake_plus_merit: int
    plus_param: int
    plus_param_mp: int
    plus_param_merit: int
    plus_skill_mp: int
    plus_skill_merit: int
    plus_np_mp: int
    plus_np_merit: int
    plus_constant_mp: int
    plus_constant_merit: int
    plus_np_power: int
    stance_name_max: int
    extra_guard: int
    incantation_ward_dp: int
    starting_funds: int
    funds_per_day: int
    wear_slots: int
    holy_shroud_master_mp: int
    bond_grade_max: int
    bond_max_value: int
    internal_bond_grade: int
    bond_exp_per_grade: int
    bond_heal_per_grade: int
    bond_end_damage_per_grade: int
    bond_mid_damage_per_grade: int
    bond_share_per_grade: int
    nemesis_battles: int
    binding_order_grades: int
    stray_upkeep: int
    sheath_heal: int
    jewels_mp: int
    jewels_step: int
    jewels_params: int
    insects_range: int
    overseer_strokes: int
    overseer_dragon_vein: int
    overseer_church: int
    strongest_revivals: int
    strongest_mp_per_revival: int
    gatekeeper_checks: int
    raid_funds: int
    raid_slayer_merit: int


assert Numbers._fields == tuple(NUMBERS), "Numbers and NUMBERS must list the same keys"


class StanceSpec(NamedTuple):
    """A stance override from `servants.toml` (C5.1): "" / None keep the default."""

    trait: str = ""
    arg: str = ""
    link: str = ""
    np: bool | None = None


@dataclass(frozen=True, slots=True)
class ServantExtras:
    """A Servant's campaign extras: fame bonus (C1.6), "+" skills and NP (C4.1), stances."""

    fame: int
    plus_skills: dict[str, int]
    np_plus: int
    stances: dict[str, StanceSpec]


@dataclass(frozen=True, slots=True)
class MasterExtras:
    race: str
    plus_skills: dict[str, int]
    starting_funds: int | None


@dataclass(frozen=True, slots=True)
class CampaignData:
    numbers: Numbers
    master_mp_per_level: dict[str, int]  # race -> MP per level (C2.5)
    research_squares: dict[str, frozenset[int]]  # map id -> squares (C1.14)
    race_exp: dict[str, dict[str, int]]  # race -> method -> extra per gain (C2.10)
    servants: dict[str, ServantExtras]  # servant id -> extras
    masters: dict[str, MasterExtras]  # master id -> extras
    spells: dict[str, tuple[int, int]]  # C7.3-C7.8 numbers: (human Master, artificial Master)

    def fame(self, servant_id: str) -> int:
        return self.servants[servant_id].fame

    def funds(self, master_id: str) -> int:
        """A camp's starting funds (C6.1): the Master's override, else the rule's."""
        own = self.masters[master_id].starting_funds
        return self.numbers.starting_funds if own is None else own


def load_campaign(rules: Ruleset, root: Path | None = None) -> CampaignData:
    """Read `campaign/` under `root` (default: the installed resources), checked against the
    rules it plays with (Servant, Master, skill and map ids). Every Servant and Master of the
    rules must have an entry: a sheet added without one is a data error, not a silent zero."""
    base: Traversable = resources.files("grailwar.resources") if root is None else root
    doc = read_table(base, "campaign/rules.toml")
    table = doc.table("numbers")
    numbers = Numbers(**{k: table.integer(k, lo, hi) for k, (lo, hi) in NUMBERS.items()})
    table.finish()
    mp_table = doc.table("master_mp_per_level")
    per_level = {race: mp_table.integer(race, 0, 500) for race in RACES}
    mp_table.finish()
    squares_table = doc.table("research_squares")
    research = {}
    for map_id in squares_table.ids():
        if map_id not in rules.maps:
            squares_table.fail(map_id, f"unknown map (known: {', '.join(sorted(rules.maps))})")
        research[map_id] = _squares(squares_table, map_id, len(rules.maps[map_id].squares))
    squares_table.finish()
    race_table = doc.table("race_exp")
    race_exp = {}
    for race in race_table.ids():
        if race not in RACES:
            race_table.fail(race, f"unknown race (known: {', '.join(RACES)})")
        entry = race_table.table(race)
        race_exp[race] = {m: entry.integer(m, 0, 100) for m in METHODS if m in entry}
        entry.finish(hint=f"methods are {', '.join(METHODS)}", known=METHODS)
    race_table.finish()
    spells = _spell_numbers(doc.table("spells"))
    doc.finish()
    servants = _load_servants(read_table(base, "campaign/servants.toml"), rules)
    masters = _load_masters(read_table(base, "campaign/masters.toml"), rules)
    return CampaignData(numbers, per_level, research, race_exp, servants, masters, spells)


def _spell_numbers(table: Reader) -> dict[str, tuple[int, int]]:
    """`[spells]`: each of `SPELL_NUMBERS` as [human Master's, artificial Master's]."""
    out = {}
    for key, (lo, hi) in SPELL_NUMBERS.items():
        value = table.raw(key)
        if not (isinstance(value, list) and len(value) == 2
                and all(type(v) is int and lo <= v <= hi for v in value)):
            table.fail(key, f"must be [human, artificial], two integers {lo} to {hi}, "
                            f"got {value!r}")
        out[key] = (value[0], value[1])
    table.finish(hint=f"keys are {', '.join(SPELL_NUMBERS)}", known=tuple(SPELL_NUMBERS))
    return out


def _squares(table: Reader, key: str, count: int) -> frozenset[int]:
    value = table.raw(key)
    if not isinstance(value, list) or not all(type(v) is int and 0 <= v < count for v in value):
        table.fail(key, f"must be a list of square indices 0 to {count - 1}, got {value!r}")
    return frozenset(value)


def _plus_skills(entry: Reader, known: Mapping[str, object]) -> dict[str, int]:
    """`plus_skills = { skill = n }`: skill ids of skills.toml, 1 or 2 "+" each (not checked
    against the sheet: a table may play a sheet with other skills, and a "+" it lacks is
    simply never used)."""
    if "plus_skills" not in entry:
        return {}
    table = entry.table("plus_skills")
    out = {}
    for skill_id in table.ids():
        if skill_id not in known:
            table.fail(skill_id, "unknown skill id (not in skills.toml)")
        out[skill_id] = table.integer(skill_id, 1, 2)
    table.finish()
    return out


def _load_servants(doc: Reader, rules: Ruleset) -> dict[str, ServantExtras]:
    out = {}
    for servant_id in doc.ids():
        sheet = rules.by_id.get(servant_id)
        if sheet is None:
            doc.fail(servant_id, f"unknown Servant id (known: {', '.join(sorted(rules.by_id))})")
        entry = doc.table(servant_id)
        stances = {}
        if "stances" in entry:
            table = entry.table("stances")
            for name in table.ids():
                if name not in STANCES[1:]:
                    table.fail(name, f"must be one of {', '.join(STANCES[1:])}")
                stances[name] = _stance(table.table(name))
            table.finish()
        out[servant_id] = ServantExtras(
            fame=entry.integer("fame", 0, 2),
            plus_skills=_plus_skills(entry, rules.skills),
            np_plus=entry.integer("np_plus", 0, 2, default=0), stances=stances)
        entry.finish(hint="a Servant takes fame, plus_skills, np_plus, stances")
    missing = sorted(set(rules.by_id) - set(out))
    if missing:
        doc.fail(missing[0], "missing: every Servant of the roster needs an entry")
    doc.finish()
    return out


def _stance(r: Reader) -> StanceSpec:
    trait = r.choice("trait", tuple(TRAITS)) if "trait" in r else ""
    arg = ""
    if trait and TRAITS[trait]:
        arg = r.choice("arg", CARD_KINDS if TRAITS[trait] == "kind" else SUBTYPES)
    link = r.choice("link", SERVANT_CATEGORIES) if "link" in r else ""
    np = r.flag("np") if "np" in r else None
    r.finish(hint="a stance takes trait, arg, link, np")
    return StanceSpec(trait, arg, link, np)


def _load_masters(doc: Reader, rules: Ruleset) -> dict[str, MasterExtras]:
    out = {}
    for master_id in doc.ids():
        sheet = rules.masters.get(master_id)
        if sheet is None:
            doc.fail(master_id, f"unknown Master id (known: {', '.join(sorted(rules.masters))})")
        entry = doc.table(master_id)
        funds = entry.integer("starting_funds", 0, 1000) if "starting_funds" in entry else None
        out[master_id] = MasterExtras(
            race=entry.choice("race", RACES),
            plus_skills=_plus_skills(entry, rules.skills),
            starting_funds=funds)
        entry.finish(hint="a Master takes race, plus_skills, starting_funds")
    missing = sorted(set(rules.masters) - set(out))
    if missing:
        doc.fail(missing[0], "missing: every Master needs an entry")
    doc.finish()
    return out
