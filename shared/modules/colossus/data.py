"""The colossus's data (`resources/scenarios/colossus.toml`), read and validated like the base
data: a problem names the file, the field and what is wrong."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from itertools import pairwise
from pathlib import Path

from ...engine.data import Dice, Reader, Ruleset, read_table
from ..tactics.data import SUBTYPES

COLOURS = ("blue", "green", "white", "yellow")
HAIRY = frozenset({"blue", "green"})  # T7.3: grippable; white and yellow are bare
TILTS = ("horizontal", "tilted", "vertical")  # tilted = 45° (Z27: only these three)
TARGETS = ("ground_and_feet", "highest_on_back", "all")
FILE = "scenarios/colossus.toml"


@dataclass(frozen=True, slots=True)
class Tile:
    id: str
    part: str
    surface: str
    colour: str
    height: int
    ground: bool
    mount: bool  # Z28: may be mounted from the ground (ground blue/green tiles, or data says)
    links: tuple[str, ...]

    @property
    def hairy(self) -> bool:
        return self.colour in HAIRY


@dataclass(frozen=True, slots=True)
class Strike:
    """A script step's attack: the base card kind, 2D6 + hit to hit, the damage, whom."""

    kind: str
    hit: int
    damage: Dice
    targets: str


@dataclass(frozen=True, slots=True)
class Step:
    id: str
    tilt: tuple[tuple[str, str], ...]  # (surface, tilt) in data order
    attack: Strike | None


@dataclass(frozen=True, slots=True)
class ColossusData:
    hp_per_camp: int
    raid_room_hp_per_camp: int
    colossus_defense: int
    cling_penalty: int
    fall_damage_per_tile: int
    raid_rounds: int
    zoc_radius: int
    hold_damage: int
    eat_damage: Dice
    dodge_uses: int
    dodge_bonus: int
    dodge_target: int
    mr: int  # magic resistance grades (T6.1)
    immunity: tuple[str, ...]  # magecraft sub-types it is immune to, or ("all",) (T6.2)
    endure_bonus: int  # its endure: the first hostile-magecraft damage of a Round is halved
    endure_target: int  # on 2D6 + endure_bonus >= endure_target (T4.4, T4.5)
    reward_strokes: int
    reward_mp: int
    paths: dict[str, tuple[int, ...]]  # map id -> squares, waking square first, vein last
    factors: dict[str, int]  # part -> % of damage that gets through (hidden)
    ground_parts: dict[str, int]  # part -> distance a ground raider strikes it from
    surfaces: dict[str, str]  # surface -> tilt at rest
    tiles: dict[str, Tile]
    script: tuple[Step, ...]

    @property
    def surface_names(self) -> tuple[str, ...]:
        return tuple(self.surfaces)


def load_colossus(rules: Ruleset, root: Path | None = None) -> ColossusData:
    """Read `scenarios/colossus.toml` under `root` (default: the installed resources), checked
    against the rules it plays with (the maps and their squares)."""
    base: Traversable = resources.files("grailwar.resources") if root is None else root
    doc = read_table(base, FILE)
    numbers = doc.table("numbers")
    values = {
        "hp_per_camp": numbers.integer("hp_per_camp", 1, 100000),
        "raid_room_hp_per_camp": numbers.integer("raid_room_hp_per_camp", 1, 100000),
        "colossus_defense": numbers.integer("colossus_defense", 2, 30),
        "cling_penalty": numbers.integer("cling_penalty", 0, 20),
        "fall_damage_per_tile": numbers.integer("fall_damage_per_tile", 0, 100),
        "raid_rounds": numbers.integer("raid_rounds", 1, 30),
        "zoc_radius": numbers.integer("zoc_radius", 0, 5),
        "hold_damage": numbers.integer("hold_damage", 0, 100000),
        "eat_damage": numbers.dice("eat_damage"),
        "dodge_uses": numbers.integer("dodge_uses", 0, 10),
        "dodge_bonus": numbers.integer("dodge_bonus", -10, 20),
        "dodge_target": numbers.integer("dodge_target", 2, 30),
        "mr": numbers.integer("mr", 0, 20),
        "immunity": _immunity(numbers),
        "endure_bonus": numbers.integer("endure_bonus", -10, 20),
        "endure_target": numbers.integer("endure_target", 2, 30),
        "reward_strokes": numbers.integer("reward_strokes", 0, 3),
        "reward_mp": numbers.integer("reward_mp", 0, 1000),
    }
    numbers.finish()
    paths = _paths(doc.table("path"), rules)
    factors = _numbers(doc.table("parts"), 0, 1000)
    ground = _numbers(doc.table("ground_parts"), 0, 3, known=factors)
    surfaces_doc = doc.table("surfaces")
    surfaces = {name: surfaces_doc.choice(name, TILTS) for name in surfaces_doc.ids()}
    surfaces_doc.finish()
    tiles = _tiles(doc, factors, surfaces)
    script = tuple(_step(r, surfaces) for r in doc.tables("step"))
    if not script:
        doc.fail("step", "the script needs at least one step")
    doc.finish()
    return ColossusData(paths=paths, factors=factors, ground_parts=ground, surfaces=surfaces,
                        tiles=tiles, script=script, **values)


def _numbers(table: Reader, lo: int, hi: int, known: dict[str, int] | None = None
             ) -> dict[str, int]:
    out = {}
    for key in table.ids():
        if known is not None and key not in known:
            table.fail(key, "unknown part (not in [parts])")
        out[key] = table.integer(key, lo, hi)
    table.finish()
    return out


def _paths(table: Reader, rules: Ruleset) -> dict[str, tuple[int, ...]]:
    out = {}
    for map_id in table.ids():
        if map_id not in rules.maps:
            table.fail(map_id, f"unknown map (maps: {', '.join(rules.maps)})")
        city = rules.maps[map_id]
        squares = table.raw(map_id)
        if not isinstance(squares, list) or len(squares) < 3 or not all(
                type(q) is int and 0 <= q < len(city.squares) for q in squares):
            table.fail(map_id, f"must be a list of 3 or more squares of the map "
                               f"(0 to {len(city.squares) - 1}), got {squares!r}")
        for i, (a, b) in enumerate(pairwise(squares)):
            if city.distance(a, b) != 1:
                table.fail(f"{map_id}[{i + 1}]", f"square {b} is not next to square {a}")
        out[map_id] = tuple(squares)
    missing = [m for m in rules.maps if m not in out]
    if missing:
        table.fail(missing[0], "missing: every map needs the colossus's path")
    table.finish()
    return out


def _tiles(doc: Reader, factors: dict[str, int], surfaces: dict[str, str]) -> dict[str, Tile]:
    readers = doc.tables("tile")
    tiles: dict[str, Tile] = {}
    for r in readers:
        tile_id = r.ident("id")
        if tile_id in tiles:
            r.fail("id", f"duplicate tile id {tile_id!r}")
        part = r.ident("part")
        if part not in factors:
            r.fail("part", f"unknown part {part!r} (not in [parts])")
        surface = r.ident("surface")
        if surface not in surfaces:
            r.fail("surface", f"unknown surface {surface!r} (not in [surfaces])")
        colour = r.choice("colour", COLOURS)
        ground = r.flag("ground", default=False)
        mount = r.flag("mount", default=ground and colour in HAIRY)
        if mount and not ground:
            r.fail("mount", "only a tile that touches the ground can be mounted")
        tiles[tile_id] = Tile(tile_id, part, surface, colour, r.integer("height", 0, 100),
                              ground, mount, r.idents("links", 1, 10))
        r.finish()
    for i, r in enumerate(readers):
        tile = list(tiles.values())[i]
        for j, link in enumerate(tile.links):
            if link not in tiles:
                r.fail(f"links[{j}]", f"unknown tile {link!r}")
            if tile.id not in tiles[link].links:
                r.fail(f"links[{j}]", f"{link!r} does not link back to {tile.id!r}")
    if not any(t.mount for t in tiles.values()):
        doc.fail("tile", "no tile can be mounted from the ground")
    return tiles


def _step(r: Reader, surfaces: dict[str, str]) -> Step:
    step_id = r.ident("id")
    tilt: tuple[tuple[str, str], ...] = ()
    if "tilt" in r:
        table = r.table("tilt")
        for surface in table.ids():
            if surface not in surfaces:
                table.fail(surface, "unknown surface (not in [surfaces])")
        tilt = tuple((surface, table.choice(surface, TILTS)) for surface in table.ids())
        table.finish()
    attack = None
    if "attack" in r:
        a = r.table("attack")
        attack = Strike(a.choice("kind", ("B", "A", "Q")), a.integer("hit", -10, 30),
                        a.dice("damage"), a.choice("targets", TARGETS))
        a.finish()
    r.finish()
    return Step(step_id, tilt, attack)


def _immunity(numbers: Reader) -> tuple[str, ...]:
    """`immunity`: "all", or magecraft sub-types (`modules/magecraft.toml`)."""
    if numbers.raw("immunity") == "all":
        return ("all",)
    scope = numbers.idents("immunity", 0, len(SUBTYPES))
    for i, subtype in enumerate(scope):
        if subtype not in SUBTYPES:
            numbers.fail(f"immunity[{i}]", f"{subtype!r} is not a magecraft sub-type "
                                           f"({', '.join(SUBTYPES)}), nor is the list \"all\"")
    return scope
