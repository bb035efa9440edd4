"""Game data: servant and master sheets, skills, tables, maps and tunable numbers.

Everything a table may want to house-rule lives in ``grailwar.resources`` as TOML. This module
reads it into frozen dataclasses and validates it strictly, because a typo in a data file must
fail loudly at load time (naming the file and the field) instead of silently changing a game.
The layout and the field meanings are described in ``docs/data.md``.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, fields
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, NoReturn

CLASSES = ("saber", "archer", "lancer", "rider", "caster", "assassin", "berserker")
PARAMS = ("str", "end", "agi", "mag", "luk", "np")
RANKS = {"E": 10, "D": 20, "C": 30, "B": 40, "A": 50, "EX": 60}  # a trailing "+" adds 5
CARD_KINDS = ("B", "A", "Q")
# The vocabularies below are lists because modules extend them (`extend_vocabulary`) before
# any data is loaded: a module's skills, mods and Command Spells validate like the base game's.
TIMINGS = ["constant", "combat_start", "round_start", "own_activation", "automatic",
           "on_magecraft", "optional", "turn_action"]
TRIGGERS = ("battle_start", "lethal")  # for timing = "automatic" only
ERAS = ("age_of_gods", "ancient", "medieval", "modern")
LEYLINES = ("none", "small", "medium", "large", "dragon")
NP_KINDS = ("attack", "support", "constant")
NP_SCALES = ("anti_personnel", "anti_army", "anti_fortress")
MOD_KEYS = ["str", "end", "agi", "mag", "luk", "np", "hit", "defense", "checks", "skill_check",
            "damage_dealt", "damage_taken", "np_power", "crit", "movement", "guts",
            "mp_per_round", "hp_per_round", "investigation", "upkeep",
            "invincible", "pierce", "first_strike"]
FLAG_KEYS = ["invincible", "pierce", "first_strike"]  # mod keys whose only value is 1
SKILL_OWNERS = ("servant", "master")
TARGETS = ("self", "enemy")
SPELL_WHEN = ("any", "battle")
SPELL_SPECIALS = ["retreat", "suicide", "teleport", "refine", "war_roar"]
_VOCABULARIES = {"timings": TIMINGS, "mod_keys": MOD_KEYS, "flag_keys": FLAG_KEYS,
                 "spell_specials": SPELL_SPECIALS}


def extend_vocabulary(name: str, *values: str) -> None:
    """Add words a module's data may use (`timings`, `mod_keys`, `flag_keys` — which are mod
    keys too — or `spell_specials`); adding a known word is a no-op."""
    vocabulary = _VOCABULARIES[name]
    for value in values:
        if value not in vocabulary:
            vocabulary.append(value)
        if name == "flag_keys" and value not in MOD_KEYS:
            MOD_KEYS.append(value)


LANGS = ("ja", "ko", "en")

_ID = re.compile(r"[a-z][a-z0-9_]*")
_DICE = re.compile(r"(\d+)[dD](\d+)(?:([+-])(\d+))?")
_RANK = re.compile(r"(EX|[A-E])(\+?)")
_MOD_LIMIT = 1000  # no modifier in a sane house rule goes beyond this


# --------------------------------------------------------------------------- dataclasses


@dataclass(frozen=True, slots=True)
class Text:
    """One player-visible text in every supported language."""

    ja: str
    ko: str
    en: str

    def get(self, lang: str) -> str:
        """The text in ``lang`` (one of LANGS), English for anything else."""
        return getattr(self, lang) if lang in LANGS else self.en


@dataclass(frozen=True, slots=True)
class Dice:
    """A dice expression such as 3D10 or 2D6+4; a plain number is Dice(0, 0, n)."""

    count: int
    sides: int
    bonus: int

    @classmethod
    def parse(cls, value: object) -> Dice:
        """Read ``"3d10"``, ``"2d6+4"``, ``"1d6-1"`` or an int; ValueError on anything else."""
        if isinstance(value, int) and not isinstance(value, bool):
            return cls(0, 0, value)
        match = _DICE.fullmatch(value) if isinstance(value, str) else None
        if match is None:
            raise ValueError(f'must be dice like "2d6+4" or an integer, got {_show(value)}')
        count, sides = int(match[1]), int(match[2])
        bonus = int(match[4] or 0) * (-1 if match[3] == "-" else 1)
        if not 1 <= count <= 100 or not 2 <= sides <= 1000:
            raise ValueError(f"needs 1..100 dice of 2..1000 sides, got {_show(value)}")
        return cls(count, sides, bonus)

    def __str__(self) -> str:
        if self.count == 0:
            return str(self.bonus)
        bonus = f"{self.bonus:+d}" if self.bonus else ""
        return f"{self.count}D{self.sides}{bonus}"


@dataclass(frozen=True, slots=True)
class Effect:
    """What a skill, spell, buff or debuff does: lasting mods plus instant effects."""

    mods: tuple[tuple[str, int], ...]
    heal_hp: Dice | None = None
    heal_mp: Dice | None = None
    gain_cards: str = ""
    remove_debuffs: bool = False
    strip_buffs: bool = False
    damage: Dice | None = None

    def mod(self, key: str) -> int:
        """The modifier for ``key`` (one of MOD_KEYS), 0 when the effect has none."""
        return dict(self.mods).get(key, 0)


NO_EFFECT = Effect(mods=())


@dataclass(frozen=True, slots=True)
class Skill:
    """A servant or master skill from the catalogue in skills.toml."""

    id: str
    name: Text
    text: Text
    owner: str
    timing: str
    mp: int
    check: int | None  # 1d100 <= check succeeds; None = no check
    duration: int  # rounds; 0 = instant effects only; ignored for constant skills
    target: str
    magecraft: bool
    trigger: str | None  # only for timing "automatic"
    effect: Effect


@dataclass(frozen=True, slots=True)
class NoblePhantasm:
    """A servant's Noble Phantasm, with what firing it costs and how hard it hits."""

    id: str
    name: Text
    text: Text
    kind: str
    scale: str
    card: str
    cards: int
    mp: int
    charge: int  # rounds between declaration and firing
    range: int
    power: int
    duration: int
    self_effect: Effect
    target_effect: Effect


@dataclass(frozen=True, slots=True)
class Servant:
    """A servant sheet: one per class."""

    id: str
    cls: str
    true_name: Text
    params: dict[str, int]
    ranks: dict[str, str]
    hp: int
    mp: int
    movement: int
    cards: str
    era: str
    skills: tuple[str, ...]
    np: NoblePhantasm
    profile: Text
    weakness: Text
    fame: int  # 1 (obscure) .. 5 (known to everyone): seed 002's renown


@dataclass(frozen=True, slots=True)
class Master:
    """An NPC master sheet; the 4th skill is locked until the master interaction unlocks it."""

    id: str
    name: Text
    mp: int
    investigation: int
    command_spells: int
    skills: tuple[str, ...]
    profile: Text


@dataclass(frozen=True, slots=True)
class CommandSpell:
    """One kind of Command Spell (seed 000 §15)."""

    id: str
    name: Text
    text: Text
    cost: int  # strokes
    when: str
    duration: int  # rounds; 0 = instant; -1 = until used up
    special: str | None
    effect: Effect


@dataclass(frozen=True, slots=True)
class Debuff:
    """An entry of the 1d20 fumble debuff table."""

    id: str
    name: Text
    text: Text
    duration: int
    effect: Effect


@dataclass(frozen=True, slots=True)
class Buff:
    """A buff a critical may grant (costing at most 30 MP, lasting 1 round)."""

    id: str
    name: Text
    text: Text
    mp: int
    duration: int
    effect: Effect


@dataclass(frozen=True, slots=True)
class Square:
    """One named area of a city map."""

    x: int
    y: int
    name: Text
    leyline: str


@dataclass(frozen=True, slots=True)
class CityMap:
    """A square grid of named areas; squares are row-major (index = y * width + x)."""

    id: str
    name: Text
    width: int
    height: int
    squares: tuple[Square, ...]
    starts: dict[str, int]  # class -> square index

    def index(self, x: int, y: int) -> int:
        """The square index of column ``x``, row ``y``."""
        return y * self.width + x

    def distance(self, a: int, b: int) -> int:
        """Manhattan distance between two square indices."""
        return abs(a % self.width - b % self.width) + abs(a // self.width - b // self.width)


@dataclass(frozen=True, slots=True)
class Numbers:
    """Every tunable number of the rules (resources/rules.toml)."""

    turns_per_day: int
    hand_refill_every: int
    day_limit: int
    upkeep_base: int
    upkeep_np_divisor: int
    era_upkeep: dict[str, int]
    rest_servant: Dice
    rest_master: Dice
    leyline_bonus: dict[str, int]
    investigation_target: int
    soul_eating: Dice
    ranged_max: int
    ranged_penalty: int
    ambush_max_range: int
    disengage_movement: int
    disengage_checks: int
    flee_reaction: int
    quick_crit_cap: int
    buster_bonus: int
    buster_cap: int
    arts_mp: int
    np_hit_bonus: int
    np_hit_divisor: int
    np_buster_power: int
    np_arts_mp: int
    np_quick_crit: int
    np_constant_buster: int
    np_constant_arts: int
    np_constant_quick: int
    clash_personnel_vs_army: int
    clash_army_vs_fortress: int
    clash_personnel_vs_fortress: int
    damage_dice: Dice
    damage_stat_divisor: int
    card_power: dict[str, int]
    np_damage_dice: Dice
    np_damage_divisor: int
    guard_divisor: int
    luck_defense_divisor: int
    max_battle_rounds: int
    master_wait_unlock: int
    master_transfer: int
    critical_recover: Dice
    fumble_damage: Dice
    skill_die: int


@dataclass(frozen=True, slots=True)
class Ruleset:
    """All game data, loaded and cross-checked."""

    numbers: Numbers
    servants: dict[str, Servant]  # by class: the class's own sheet (servants/<class>.toml)
    masters: dict[str, Master]
    skills: dict[str, Skill]
    command_spells: dict[str, CommandSpell]  # in seed order
    debuffs: tuple[Debuff, ...]
    buffs: tuple[Buff, ...]
    maps: dict[str, CityMap]
    # Every Servant of each class, its own sheet first, then servants/<class>/<id>.toml.
    roster: dict[str, tuple[Servant, ...]] = dataclasses.field(default_factory=dict)
    by_id: dict[str, Servant] = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # The class's own sheet always heads its roster, so a copy of the rules with a changed
        # sheet (`dataclasses.replace(rules, servants=...)`) plays that sheet everywhere.
        roster = {cls: (own, *(s for s in self.roster.get(cls, ()) if s.id != own.id))
                  for cls, own in self.servants.items()}
        object.__setattr__(self, "roster", roster)
        object.__setattr__(self, "by_id", {s.id: s for entries in roster.values()
                                           for s in entries})


class DataError(Exception):
    """A problem in a data file, located by file and dotted field path."""

    def __init__(self, file: str, field: str, problem: str) -> None:
        self.file = file
        self.field = field
        self.problem = problem
        super().__init__(f"{file}: {field}: {problem}" if field else f"{file}: {problem}")


# --------------------------------------------------------------------------- field readers


def _show(value: object) -> str:
    """A value as it would be written in TOML, for error messages."""
    return f'"{value}"' if isinstance(value, str) else repr(value)


class Reader:
    """One TOML table with typed accessors; remembers used keys so leftovers count as unknown."""

    __slots__ = ("_data", "_used", "file", "path")

    def __init__(self, file: str, path: str, data: dict[str, Any]) -> None:
        self.file = file
        self.path = path
        self._data = data
        self._used: set[str] = set()

    def at(self, key: str) -> str:
        """The dotted path of ``key`` inside this table."""
        return f"{self.path}.{key}" if self.path else key

    def fail(self, key: str, problem: str) -> NoReturn:
        raise DataError(self.file, self.at(key), problem)

    def __contains__(self, key: str) -> bool:
        return key in self._data

    def ids(self) -> list[str]:
        """The table's keys, for tables keyed by ids."""
        return list(self._data)

    def raw(self, key: str) -> Any:
        """The value of a required key, unchecked (the caller validates its shape)."""
        return self._take(key)

    def _take(self, key: str, default: object = None) -> Any:
        """The raw value of ``key``; a default of None means the key is required."""
        self._used.add(key)
        if key in self._data:
            return self._data[key]
        if default is None:
            self.fail(key, "missing")
        return default

    def integer(self, key: str, lo: int, hi: int, default: int | None = None) -> int:
        value = self._take(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(key, f"must be an integer, got {_show(value)}")
        if not lo <= value <= hi:
            bounds = str(lo) if lo == hi else f"between {lo} and {hi}"
            self.fail(key, f"must be {bounds}, got {value}")
        return value

    def string(self, key: str, default: str | None = None) -> str:
        value = self._take(key, default)
        if not isinstance(value, str) or not value.strip():
            self.fail(key, f"must be a non-empty string, got {_show(value)}")
        return value

    def ident(self, key: str) -> str:
        value = self.string(key)
        if not _ID.fullmatch(value):
            self.fail(key, f"must be a lower-case id (a-z, 0-9, _), got {_show(value)}")
        return value

    def choice(self, key: str, options: Sequence[str], default: str | None = None) -> str:
        value = self._take(key, default)
        if value not in options:
            self.fail(key, f"must be one of {', '.join(options)}, got {_show(value)}")
        return value

    def flag(self, key: str, default: bool | None = None) -> bool:
        value = self._take(key, default)
        if not isinstance(value, bool):
            self.fail(key, f"must be true or false, got {_show(value)}")
        return value

    def dice(self, key: str) -> Dice:
        try:
            return Dice.parse(self._take(key))
        except ValueError as err:
            self.fail(key, str(err))

    def rank(self, key: str) -> str:
        value = self._take(key)
        if not isinstance(value, str) or not _RANK.fullmatch(value):
            self.fail(key, f"must be a rank E, D, C, B, A or EX (with an optional +), "
                           f"got {_show(value)}")
        return value

    def cards(self, key: str, lo: int, hi: int, default: str | None = None) -> str:
        value = self._take(key, default)
        if not isinstance(value, str) or not lo <= len(value) <= hi or (
                set(value) - set(CARD_KINDS)):
            count = str(lo) if lo == hi else f"{lo} to {hi}"
            self.fail(key, f"must be {count} of the letters B, A, Q, got {_show(value)}")
        return value

    def table(self, key: str) -> Reader:
        value = self._take(key)
        if not isinstance(value, dict):
            self.fail(key, f"must be a table, got {_show(value)}")
        return Reader(self.file, self.at(key), value)

    def tables(self, key: str) -> list[Reader]:
        """An array of tables (``[[key]]``); entry i is reported as ``key[i]``, counted from 0."""
        value = self._take(key)
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            self.fail(key, f"must be an array of tables ([[{key}]]), got {_show(value)}")
        return [Reader(self.file, f"{self.at(key)}[{i}]", v) for i, v in enumerate(value)]

    def idents(self, key: str, lo: int, hi: int) -> tuple[str, ...]:
        value = self._take(key)
        if not isinstance(value, list) or not lo <= len(value) <= hi:
            count = str(lo) if lo == hi else f"{lo} to {hi}"
            self.fail(key, f"must be a list of {count} ids, got {_show(value)}")
        for i, item in enumerate(value):
            if not isinstance(item, str) or not _ID.fullmatch(item):
                self.fail(f"{key}[{i}]", f"must be a lower-case id, got {_show(item)}")
            if item in value[:i]:
                self.fail(f"{key}[{i}]", f"duplicate id {_show(item)}")
        return tuple(value)

    def text(self, key: str) -> Text:
        if not isinstance(self._take(key), dict):
            self.fail(key, f'must be a table {{ja = "...", ko = "...", en = "..."}}, '
                           f"got {_show(self._data[key])}")
        sub = self.table(key)
        text = Text(*(sub.string(lang) for lang in LANGS))
        sub.finish()
        return text

    def effect(self, key: str, *, required: bool = True) -> Effect:
        if not required and key not in self:
            return NO_EFFECT
        sub = self.table(key)
        mods = []
        for name in sorted(sub._data):
            if name in FLAG_KEYS:
                mods.append((name, sub.integer(name, 1, 1)))
            elif name in MOD_KEYS:
                mods.append((name, sub.integer(name, -_MOD_LIMIT, _MOD_LIMIT)))
        effect = Effect(
            mods=tuple(mods),
            heal_hp=sub.dice("heal_hp") if "heal_hp" in sub else None,
            heal_mp=sub.dice("heal_mp") if "heal_mp" in sub else None,
            gain_cards=sub.cards("gain_cards", 0, 10, default=""),
            remove_debuffs=sub.flag("remove_debuffs", default=False),
            strip_buffs=sub.flag("strip_buffs", default=False),
            damage=sub.dice("damage") if "damage" in sub else None,
        )
        sub.finish(hint="an effect takes mod keys and heal_hp, heal_mp, damage, gain_cards, "
                        "remove_debuffs, strip_buffs", known=MOD_KEYS)
        return effect

    def finish(self, hint: str = "", known: Sequence[str] = ()) -> None:
        """Reject keys nobody read: they are typos or fields this version does not know."""
        for key in self._data:
            if key not in self._used:
                close = difflib.get_close_matches(key, [*self._used, *known], n=1)
                guess = f' (did you mean "{close[0]}"?)' if close else ""
                self.fail(key, f"unknown key{guess}" + (f"; {hint}" if hint else ""))


# --------------------------------------------------------------------------- files


def read_table(root: Traversable, name: str) -> Reader:
    """Parse ``root/name`` (a posix relative path) into a reader for its top-level table."""
    node = root
    for part in name.split("/"):
        node = node.joinpath(part)
    try:
        data = tomllib.loads(node.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(name, "", "file missing") from None
    except UnicodeDecodeError:
        raise DataError(name, "", "not UTF-8 text") from None
    except tomllib.TOMLDecodeError as err:
        raise DataError(name, "", f"not valid TOML: {err}") from None
    return Reader(name, "", data)


def _toml_names(root: Traversable, folder: str) -> list[str]:
    """The .toml files of a folder, sorted, so load order (and thus errors) is stable."""
    try:
        return sorted(p.name for p in root.joinpath(folder).iterdir() if p.name.endswith(".toml"))
    except (FileNotFoundError, NotADirectoryError):
        raise DataError(f"{folder}/", "", "folder missing") from None


def _unique(readers: list[Reader], values: list[str], key: str = "id") -> None:
    """Fail on the second occurrence of a value across entries read from one file."""
    seen: dict[str, str] = {}
    for reader, value in zip(readers, values, strict=True):
        if value in seen:
            reader.fail(key, f"duplicate id {_show(value)} (also {seen[value]})")
        seen[value] = reader.path


# --------------------------------------------------------------------------- loaders

_NUMBER_TABLE_KEYS = {"era_upkeep": ERAS, "leyline_bonus": LEYLINES,
                      "card_power": ("B", "A", "Q", "L")}
_NUMBER_BOUNDS = {
    "turns_per_day": (1, 10), "hand_refill_every": (1, 100), "day_limit": (1, 100),
    "era_upkeep": (-100, 100), "disengage_movement": (-10, 0), "disengage_checks": (-100, 0),
    "flee_reaction": (-100, 0), "max_battle_rounds": (1, 100), "master_wait_unlock": (1, 100),
    "skill_die": (2, 1000),
    **{name: (1, 100) for name in ("upkeep_np_divisor", "np_hit_divisor",
                                   "damage_stat_divisor", "np_damage_divisor",
                                   "guard_divisor", "luck_defense_divisor")},
}


def _load_numbers(doc: Reader) -> Numbers:
    values: dict[str, Any] = {}
    for f in fields(Numbers):
        lo, hi = _NUMBER_BOUNDS.get(f.name, (0, _MOD_LIMIT))
        if f.name in _NUMBER_TABLE_KEYS:
            sub = doc.table(f.name)
            values[f.name] = {k: sub.integer(k, lo, hi) for k in _NUMBER_TABLE_KEYS[f.name]}
            sub.finish()
        elif f.type == "Dice":
            values[f.name] = doc.dice(f.name)
        else:
            values[f.name] = doc.integer(f.name, lo, hi)
    doc.finish()
    return Numbers(**values)


def _load_skill(r: Reader) -> Skill:
    timing = r.choice("timing", TIMINGS)
    if timing == "automatic":
        trigger: str | None = r.choice("trigger", TRIGGERS)
    elif "trigger" in r:
        r.fail("trigger", 'only skills with timing "automatic" have a trigger')
    else:
        trigger = None
    if timing == "constant" and "check" in r:
        r.fail("check", "constant skills are always on: they have no check")
    if timing == "constant" and r.integer("mp", 0, 500, default=0):
        r.fail("mp", "constant skills are always on: they cost no MP")
    if timing == "turn_action" and r.integer("duration", 0, 10, default=0):
        r.fail("duration", "turn_action skills have instant effects only: duration must be 0")
    skill = Skill(
        id=r.ident("id"),
        name=r.text("name"),
        text=r.text("text"),
        owner=r.choice("owner", SKILL_OWNERS),
        timing=timing,
        mp=r.integer("mp", 0, 500, default=0),
        check=r.integer("check", 1, 100) if "check" in r else None,
        duration=r.integer("duration", 0, 10, default=0),
        target=r.choice("target", TARGETS, default="self"),
        magecraft=r.flag("magecraft", default=False),
        trigger=trigger,
        effect=r.effect("effect"),
    )
    r.finish()
    return skill


def _load_skills(doc: Reader) -> dict[str, Skill]:
    entries = doc.tables("skill")
    doc.finish()
    skills = [_load_skill(r) for r in entries]
    _unique(entries, [s.id for s in skills])
    return {s.id: s for s in skills}


def _check_skill_refs(r: Reader, ids: tuple[str, ...], owner: str,
                      skills: dict[str, Skill]) -> None:
    """Every id names a skill of skills.toml that belongs to ``owner``."""
    for i, skill_id in enumerate(ids):
        skill = skills.get(skill_id)
        if skill is None:
            r.fail(f"skills[{i}]", f"unknown skill {_show(skill_id)} (not in skills.toml)")
        if skill.owner != owner:
            r.fail(f"skills[{i}]", f"skill {_show(skill_id)} is a {skill.owner} skill, "
                                   f"expected a {owner} skill")


def _load_np(r: Reader) -> NoblePhantasm:
    kind = r.choice("kind", NP_KINDS)
    fired = kind != "constant"
    if not fired:
        for key in ("cards", "mp", "charge"):
            if r.integer(key, 0, 500, default=0):
                r.fail(key, "a constant Noble Phantasm is always on and never fired: "
                            "it has no cards, mp or charge")
    np = NoblePhantasm(
        id=r.ident("id"),
        name=r.text("name"),
        text=r.text("text"),
        kind=kind,
        scale=r.choice("scale", NP_SCALES),
        card=r.choice("card", CARD_KINDS),
        cards=r.integer("cards", 1, 3) if fired else 0,
        mp=r.integer("mp", 0, 500) if fired else 0,
        charge=r.integer("charge", 0, 2) if fired else 0,
        range=r.integer("range", 0, 3, default=0),
        power=r.integer("power", 0, 100, default=None if kind == "attack" else 0),
        duration=r.integer("duration", 0, 10, default=0),
        self_effect=r.effect("self_effect", required=False),
        target_effect=r.effect("target_effect", required=False),
    )
    r.finish()
    return np


def _load_servant(doc: Reader, cls: str, skills: dict[str, Skill]) -> Servant:
    sheet_cls = doc.choice("class", CLASSES)
    if sheet_cls != cls:
        doc.fail("class", f'the file {cls}.toml must hold the {cls}, got "{sheet_cls}"')
    rank_table = doc.table("ranks")
    ranks = {p: rank_table.rank(p) for p in PARAMS}
    rank_table.finish()
    servant = Servant(
        id=doc.ident("id"),
        cls=cls,
        true_name=doc.text("true_name"),
        params={p: RANKS[r.rstrip("+")] + (5 if r.endswith("+") else 0) for p, r in ranks.items()},
        ranks=ranks,
        hp=doc.integer("hp", 1, 2000),
        mp=doc.integer("mp", 1, 2000),
        movement=doc.integer("movement", 1, 10),
        cards=doc.cards("cards", 5, 5),
        era=doc.choice("era", ERAS),
        skills=doc.idents("skills", 2, 4),
        np=_load_np(doc.table("np")),
        profile=doc.text("profile"),
        weakness=doc.text("weakness"),
        fame=doc.integer("fame", 1, 5),
    )
    doc.finish()
    _check_skill_refs(doc, servant.skills, "servant", skills)
    return servant


def _load_master(doc: Reader, master_id: str, skills: dict[str, Skill]) -> Master:
    if doc.ident("id") != master_id:
        doc.fail("id", f"must match the file name ({_show(master_id)})")
    master = Master(
        id=master_id,
        name=doc.text("name"),
        mp=doc.integer("mp", 0, 2000),
        investigation=doc.integer("investigation", 0, 3),
        command_spells=doc.integer("command_spells", 0, 10),
        skills=doc.idents("skills", 4, 4),
        profile=doc.text("profile"),
    )
    doc.finish()
    _check_skill_refs(doc, master.skills, "master", skills)
    return master


def _load_spells(doc: Reader) -> dict[str, CommandSpell]:
    entries = doc.tables("spell")
    doc.finish()
    spells = []
    for r in entries:
        spells.append(CommandSpell(
            id=r.ident("id"),
            name=r.text("name"),
            text=r.text("text"),
            cost=r.integer("cost", 1, 3),
            when=r.choice("when", SPELL_WHEN),
            duration=r.integer("duration", -1, 10),
            special=r.choice("special", SPELL_SPECIALS) if "special" in r else None,
            effect=r.effect("effect"),
        ))
        r.finish()
    _unique(entries, [s.id for s in spells])
    return {s.id: s for s in spells}


def _load_tables(doc: Reader) -> tuple[tuple[Debuff, ...], tuple[Buff, ...]]:
    debuff_entries, buff_entries = doc.tables("debuff"), doc.tables("buff")
    doc.finish()
    if len(debuff_entries) != 20:
        doc.fail("debuff", f"the 1d20 table needs exactly 20 entries, got {len(debuff_entries)}")
    if not buff_entries:
        doc.fail("buff", "needs at least one entry")
    debuffs, buffs = [], []
    for r in debuff_entries:
        debuffs.append(Debuff(r.ident("id"), r.text("name"), r.text("text"),
                              r.integer("duration", 1, 10), r.effect("effect")))
        r.finish()
    for r in buff_entries:
        buffs.append(Buff(r.ident("id"), r.text("name"), r.text("text"), r.integer("mp", 0, 30),
                          r.integer("duration", 1, 1), r.effect("effect")))
        r.finish()
    _unique(debuff_entries, [d.id for d in debuffs])
    _unique(buff_entries, [b.id for b in buffs])
    return tuple(debuffs), tuple(buffs)


def _load_map(doc: Reader, map_id: str) -> CityMap:
    if doc.ident("id") != map_id:
        doc.fail("id", f"must match the file name ({_show(map_id)})")
    name = doc.text("name")
    width, height = doc.integer("width", 2, 30), doc.integer("height", 2, 30)
    grid: dict[tuple[int, int], tuple[Square, str]] = {}
    for r in doc.tables("square"):
        square = Square(r.integer("x", 0, width - 1), r.integer("y", 0, height - 1),
                        r.text("name"), r.choice("leyline", LEYLINES))
        r.finish()
        if (square.x, square.y) in grid:
            doc.fail(r.path, f"duplicate square ({square.x}, {square.y}), "
                             f"also {grid[square.x, square.y][1]}")
        grid[square.x, square.y] = (square, r.path)
    for y in range(height):
        for x in range(width):
            if (x, y) not in grid:
                doc.fail("square", f"no [[square]] for x = {x}, y = {y}")
    starts_table = doc.table("starts")
    starts = {}
    for cls in CLASSES:
        value = starts_table._take(cls)
        if (not isinstance(value, list) or len(value) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
                or not (0 <= value[0] < width and 0 <= value[1] < height)):
            starts_table.fail(cls, f"must be [x, y] of a square on the {width}x{height} map, "
                                   f"got {_show(value)}")
        starts[cls] = value[1] * width + value[0]
    starts_table.finish()
    doc.finish()
    squares = tuple(grid[x, y][0] for y in range(height) for x in range(width))
    return CityMap(map_id, name, width, height, squares, starts)


def _check_unique_across(items: list[tuple[str, str, str]]) -> None:
    """Ids that must be unique across files: (file, field, id) triples."""
    seen: dict[str, str] = {}
    for file, field, item_id in items:
        if item_id in seen:
            raise DataError(file, field, f"duplicate id {_show(item_id)} (also in {seen[item_id]})")
        seen[item_id] = file


def load_ruleset(root: Path | None = None) -> Ruleset:
    """Load and validate every data file under ``root`` (default: the installed resources).

    Raises DataError for the first problem found, naming the file and the field.
    """
    base: Traversable = resources.files("grailwar.resources") if root is None else root
    numbers = _load_numbers(read_table(base, "rules.toml"))
    skills = _load_skills(read_table(base, "skills.toml"))

    for name in _toml_names(base, "servants"):
        if name.removesuffix(".toml") not in CLASSES:
            raise DataError(f"servants/{name}", "",
                            f"servant files are named after their class ({', '.join(CLASSES)})")
    servants = {cls: _load_servant(read_table(base, f"servants/{cls}.toml"), cls, skills)
                for cls in CLASSES}
    roster = {cls: (servants[cls], *_load_roster(base, cls, skills)) for cls in CLASSES}
    files = [(f"servants/{s.cls}.toml" if s is servants[s.cls] else
              f"servants/{s.cls}/{s.id}.toml", s) for entries in roster.values() for s in entries]
    _check_unique_across([(file, "id", s.id) for file, s in files])
    _check_unique_across([(file, "np.id", s.np.id) for file, s in files])

    master_files = _toml_names(base, "masters")
    if len(master_files) < len(CLASSES):
        raise DataError("masters/", "", f"needs at least {len(CLASSES)} masters (one per camp), "
                                        f"got {len(master_files)}")
    masters = {}
    for name in master_files:
        master_id = name.removesuffix(".toml")
        masters[master_id] = _load_master(read_table(base, f"masters/{name}"), master_id, skills)

    command_spells = _load_spells(read_table(base, "command_spells.toml"))
    debuffs, buffs = _load_tables(read_table(base, "tables.toml"))

    map_files = _toml_names(base, "maps")
    if not map_files:
        raise DataError("maps/", "", "needs at least one map")
    maps = {}
    for name in map_files:
        map_id = name.removesuffix(".toml")
        maps[map_id] = _load_map(read_table(base, f"maps/{name}"), map_id)

    return Ruleset(numbers, servants, masters, skills, command_spells, debuffs, buffs, maps,
                   roster)


def _load_roster(base: Traversable, cls: str, skills: dict[str, Skill]) -> list[Servant]:
    """The other Servants of a class, one file each (`servants/<class>/<id>.toml`, optional)."""
    try:
        names = _toml_names(base, f"servants/{cls}")
    except DataError:
        return []
    out = []
    for name in names:
        doc = read_table(base, f"servants/{cls}/{name}")
        servant = _load_servant(doc, cls, skills)
        if servant.id != name.removesuffix(".toml"):
            doc.fail("id", f"must match the file name ({_show(name.removesuffix('.toml'))})")
        out.append(servant)
    return out


@functools.cache
def default_ruleset() -> Ruleset:
    """The shipped ruleset, loaded once per process (it is immutable)."""
    return load_ruleset()
