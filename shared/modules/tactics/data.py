"""The tactics module's data (`resources/tactics/`), read and validated like the base data:
a problem names the file, the field and what is wrong."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from ...engine.data import CLASSES, DataError, Reader, Ruleset, read_table

SUBTYPES = ("attack", "guard", "reinforcement", "curse", "healing")  # magecraft sub-types

WEAPONS = ("polearm", "melee", "ranged", "magic")


@dataclass(frozen=True, slots=True)
class TacticsData:
    zoc_radius: dict[str, int]  # weapon class -> radius
    weapons: dict[str, str]  # servant id -> weapon class
    class_weapons: dict[str, str]  # class -> weapon class, for Servants without a line
    sight_range: int
    concentration_target: int
    concentration_uses: int
    lower_resistance_per_level: int
    master_caster_level: int
    mr_step: int
    subtypes: dict[str, str]  # magecraft skill id -> sub-type (`modules/magecraft.toml`)
    familiars: frozenset[str]  # skill ids that give sight everywhere
    incapacitating: frozenset[str]  # skill ids Concentration (2) never helps
    blocking: dict[str, frozenset[int]]  # map id -> squares that block lines of fire

    def weapon(self, servant_id: str, cls: str) -> str:
        return self.weapons.get(servant_id, self.class_weapons[cls])

    def radius(self, servant_id: str, cls: str) -> int:
        return self.zoc_radius[self.weapon(servant_id, cls)]


def load_tactics(rules: Ruleset, root: Path | None = None) -> TacticsData:
    """Read `tactics/` under `root` (default: the installed resources), checked against the
    rules it plays with (Servant, skill and map ids)."""
    base: Traversable = resources.files("grailwar.resources") if root is None else root
    doc = read_table(base, "tactics/rules.toml")
    radius_table = doc.table("zoc_radius")
    radius = {w: radius_table.integer(w, 0, 5) for w in WEAPONS}
    radius_table.finish()
    numbers = doc.table("numbers")
    values = {
        "sight_range": numbers.integer("sight_range", 0, 30),
        "concentration_target": numbers.integer("concentration_target", 2, 30),
        "concentration_uses": numbers.integer("concentration_uses", 0, 20),
        "lower_resistance_per_level": numbers.integer("lower_resistance_per_level", 0, 50),
        "master_caster_level": numbers.integer("master_caster_level", 0, 20),
    }
    numbers.finish()
    doc.finish()
    values["mr_step"], values["subtypes"] = magecraft(base)

    weapons_doc = read_table(base, "tactics/weapons.toml")
    by_class = weapons_doc.table("classes")
    class_weapons = {cls: by_class.choice(cls, WEAPONS) for cls in CLASSES}
    by_class.finish()
    by_servant = weapons_doc.table("servants")
    servant_ids = set(rules.by_id)
    weapons = {}
    for key in by_servant.ids():
        if key not in servant_ids:
            known = ", ".join(sorted(servant_ids))
            by_servant.fail(key, f"unknown Servant id (known: {known})")
        weapons[key] = by_servant.choice(key, WEAPONS)
    by_servant.finish()
    weapons_doc.finish()

    familiars = _skill_ids(read_table(base, "tactics/familiars.toml"), "skills", rules)
    spells_doc = read_table(base, "tactics/spells.toml")
    spells = spells_doc.table("spells")
    incapacitating = set()
    for key in spells.ids():
        if key not in rules.skills:
            spells.fail(key, "unknown skill id (not in skills.toml)")
        entry = spells.table(key)
        if entry.flag("incapacitating", default=False):
            incapacitating.add(key)
        entry.finish()
    spells.finish()
    spells_doc.finish()

    blocking = {}
    for map_id, city in rules.maps.items():
        try:
            terrain = read_table(base, f"tactics/terrain/{map_id}.toml")
        except DataError as err:
            if err.problem != "file missing":
                raise
            blocking[map_id] = frozenset()  # a map without terrain blocks nothing
            continue
        squares = set()
        for i, xy in enumerate(terrain.raw("blocking")):
            if (not isinstance(xy, list) or len(xy) != 2
                    or not all(type(v) is int for v in xy)
                    or not (0 <= xy[0] < city.width and 0 <= xy[1] < city.height)):
                terrain.fail(f"blocking[{i}]", f"must be [x, y] of a square on the "
                                               f"{city.width}x{city.height} map, got {xy!r}")
            squares.add(city.index(xy[0], xy[1]))
        terrain.finish()
        blocking[map_id] = frozenset(squares)
    return TacticsData(radius, weapons, class_weapons, familiars=familiars,
                       incapacitating=frozenset(incapacitating), blocking=blocking, **values)


def magecraft(base: Traversable) -> tuple[int, dict[str, str]]:
    """`modules/magecraft.toml`: the check lowered per grade of `mr` (one number the campaign's
    items and this module's resistance share, spec 002 §6, 003 T6.1) and each magecraft
    skill's sub-type (the campaign's stance traits, the colossus's immunity scope)."""
    reader = read_table(base, "modules/magecraft.toml")
    step = reader.integer("mr_step", 0, 100)
    table = reader.table("subtypes")
    subtypes = {skill: table.choice(skill, SUBTYPES) for skill in table.ids()}
    table.finish()
    reader.finish()
    return step, subtypes


def _skill_ids(doc: Reader, key: str, rules: Ruleset) -> frozenset[str]:
    ids = doc.idents(key, 0, 100)
    for i, skill_id in enumerate(ids):
        if skill_id not in rules.skills:
            doc.fail(f"{key}[{i}]", f"unknown skill {skill_id!r} (not in skills.toml)")
    doc.finish()
    return frozenset(ids)
