"""The shipped game data loads, is balanced as designed, and broken data fails loudly."""

from __future__ import annotations

import itertools
import re
import shutil
from importlib import resources
from pathlib import Path

import pytest
from grailwar.shared.engine.data import (
    CLASSES,
    MOD_KEYS,
    DataError,
    Dice,
    Effect,
    Ruleset,
    default_ruleset,
    load_ruleset,
)

# Seed 000 §15, in the seed's order (the seed's own typo 耐久口上 is written 耐久向上).
SEED_SPELLS = [
    ("hp_recovery", "HP回復"), ("mp_recovery", "MP回復"), ("fighting_spirit", "戦意向上"),
    ("defense_up", "防衛向上"), ("ability_up", "能力向上"), ("retreat", "撤退"),
    ("suicide", "自害"), ("debuff_removal", "弱体解除"), ("concentration", "精神集中"),
    ("technique_up", "技術向上"), ("strength_up", "筋力向上"), ("endurance_up", "耐久向上"),
    ("agility_up", "敏捷向上"), ("rally", "奮起"), ("unfalling", "不倒"), ("limitless", "無間"),
    ("star_eye", "星眼"), ("phantasm_surge", "幻想隆起"), ("tactical_refinement", "戦術精錬"),
    ("war_roar", "戦咆"), ("teleport", "転移"),
]


@pytest.fixture(scope="module")
def rules() -> Ruleset:
    return default_ruleset()


@pytest.fixture
def data_root(tmp_path: Path) -> Path:
    """A writable copy of the shipped resources, to break one thing at a time."""
    source = Path(str(resources.files("grailwar.resources")))
    root = tmp_path / "resources"
    shutil.copytree(source, root, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    return root


def edit(root: Path, name: str, old: str, new: str) -> None:
    """Replace the single occurrence of ``old`` in ``root/name``."""
    path = root / name
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} must occur once in {name}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def load_error(root: Path) -> DataError:
    with pytest.raises(DataError) as info:
        load_ruleset(root)
    return info.value


# --------------------------------------------------------------------------- shipped data


def test_shipped_data_loads_once_and_a_copy_loads_the_same(rules: Ruleset, data_root: Path):
    """default_ruleset() is cached, and loading from an explicit root gives equal data."""
    assert default_ruleset() is rules
    assert load_ruleset(data_root) == rules
    assert list(rules.servants) == list(CLASSES)
    assert all(s.cls == cls for cls, s in rules.servants.items())
    assert len(rules.masters) == 10


def test_servant_sheets_are_balanced(rules: Ruleset):
    """Param totals sit in a narrow band; sheets stay inside the design ranges."""
    totals = {cls: sum(s.params.values()) for cls, s in rules.servants.items()}
    assert all(220 <= t <= 240 for t in totals.values()), totals
    assert max(totals.values()) - min(totals.values()) <= 10, totals
    for s in rules.servants.values():
        assert list(s.ranks.values()).count("EX") <= 1, s.id
        assert 120 <= s.hp <= 200 and 150 <= s.mp <= 300 and 2 <= s.movement <= 4, s.id
        assert set(s.cards) == {"B", "A", "Q"}, s.id  # every servant can make each defense
        assert 2 <= len(s.skills) <= 3, s.id
    kinds = sorted(s.np.kind for s in rules.servants.values())
    assert kinds == ["attack"] * 5 + ["constant", "support"]


def test_the_roster_has_three_servants_per_class_sharing_a_public_sheet(rules: Ruleset):
    """Each class has its own sheet first and at least two more Servants; ids and Noble
    Phantasm ids are unique across the roster; within a class every Servant shows the same
    public facts (ranks, HP, movement), so class and status never name a Servant, and tier 1
    (card composition and skills) tells them apart (docs/rules.md §1.3a)."""
    ids = [s.id for entries in rules.roster.values() for s in entries]
    nps = [s.np.id for entries in rules.roster.values() for s in entries]
    assert len(ids) == len(set(ids)) >= 21 and len(nps) == len(set(nps))
    for cls, entries in rules.roster.items():
        assert entries[0] is rules.servants[cls] and len(entries) >= 3, cls
        assert all(s.cls == cls and 1 <= s.fame <= 5 for s in entries), cls
        public = {(tuple(s.ranks.items()), s.hp, s.movement) for s in entries}
        assert len(public) == 1, f"{cls}: a Servant's public sheet names it"
        tier1 = {(s.cards, s.skills) for s in entries}
        assert len(tier1) == len(entries), f"{cls}: tier 1 cannot tell two Servants apart"


def test_a_roster_servant_reusing_an_id_is_named(data_root: Path):
    """A roster file whose Noble Phantasm id is another Servant's is refused by file."""
    edit(data_root, "servants/saber/gyebaek.toml", 'id = "hwangsanbeol_last_stand"',
         'id = "tizona"')
    err = load_error(data_root)
    assert err.field == "np.id" and "tizona" in err.problem, str(err)


def test_ranks_become_numbers(rules: Ruleset):
    """E..EX are 10..60 and a trailing + adds 5."""
    rider = rules.servants["rider"]
    assert rider.ranks["end"] == "A+" and rider.params["end"] == 55
    assert rules.servants["caster"].params["mag"] == 60
    assert rules.servants["lancer"].params["mag"] == 10


def test_every_referenced_skill_exists_with_the_right_owner(rules: Ruleset):
    for servant in rules.servants.values():
        assert all(rules.skills[i].owner == "servant" for i in servant.skills), servant.id
    for master in rules.masters.values():
        assert len(master.skills) == 4
        assert all(rules.skills[i].owner == "master" for i in master.skills), master.id
        assert 0 <= master.investigation <= 3 and master.command_spells == 3
    timings = {s.timing for s in rules.skills.values()}
    assert {"on_magecraft", "turn_action", "automatic", "constant"} <= timings
    assert any(s.magecraft for i in rules.servants["caster"].skills
               for s in [rules.skills[i]])


def test_skill_rules_hold(rules: Ruleset):
    """Triggers only on automatic skills; constant skills are free; turn actions are instant."""
    for s in rules.skills.values():
        assert (s.trigger is not None) == (s.timing == "automatic"), s.id
        if s.timing == "constant":
            assert s.mp == 0 and s.check is None, s.id
        if s.timing == "turn_action":
            assert s.duration == 0, s.id
        assert all(key in MOD_KEYS for key, _ in s.effect.mods), s.id


def test_command_spells_follow_the_seed(rules: Ruleset):
    """All the spells of seed 000 §15, in its order, with its Japanese names."""
    assert [(c.id, c.name.ja) for c in rules.command_spells.values()] == SEED_SPELLS
    spells = rules.command_spells
    assert spells["retreat"].cost == 2 and spells["retreat"].special == "retreat"
    assert spells["retreat"].when == "battle"
    assert all(c.cost == 1 for c in spells.values() if c.id != "retreat")
    assert spells["rally"].effect.mod("guts") == 30 and spells["rally"].duration == -1
    assert spells["unfalling"].effect.mod("invincible") == 1 and spells["unfalling"].duration == 1
    assert spells["limitless"].effect.mod("pierce") == 1
    assert spells["star_eye"].effect.mod("crit") == 10
    assert spells["phantasm_surge"].effect.mod("np_power") == 50
    assert spells["hp_recovery"].effect.heal_hp == Dice(0, 0, 150)
    assert spells["suicide"].effect.damage == Dice(0, 0, 500)
    assert {c.special for c in spells.values()} == {
        None, "retreat", "suicide", "teleport", "refine", "war_roar"}


def test_fumble_and_critical_tables(rules: Ruleset):
    """20 harmful debuffs of 1-3 rounds; at least 6 buffs of 10-30 MP lasting 1 round."""
    assert len(rules.debuffs) == 20
    for d in rules.debuffs:
        assert 1 <= d.duration <= 3, d.id
        assert d.effect.mods and all(
            (v > 0) if k == "damage_taken" else (v < 0) for k, v in d.effect.mods), d.id
    assert len(rules.buffs) >= 6
    assert all(10 <= b.mp <= 30 and b.duration == 1 for b in rules.buffs)


def test_city_map(rules: Ruleset):
    """Every square named once, leylines mostly none, starts spread for seven camps."""
    city = next(iter(rules.maps.values()))
    assert len(city.squares) == city.width * city.height
    assert [(s.x, s.y) for s in city.squares] == [
        (x, y) for y in range(city.height) for x in range(city.width)]
    leylines = [s.leyline for s in city.squares]
    assert leylines.count("dragon") == 1 and leylines.count("large") == 2
    assert leylines.count("none") > len(leylines) // 2
    assert set(city.starts) == set(CLASSES)
    assert min(city.distance(a, b)
               for a, b in itertools.combinations(city.starts.values(), 2)) >= 3
    assert city.distance(city.index(0, 0), city.index(6, 5)) == 11


def test_dice_and_effects():
    assert str(Dice.parse("3d10")) == "3D10"
    assert Dice.parse("2d6+4") == Dice(2, 6, 4) and str(Dice(2, 6, 4)) == "2D6+4"
    assert str(Dice.parse("1d6-1")) == "1D6-1"
    assert Dice.parse(5) == Dice(0, 0, 5) and str(Dice.parse(5)) == "5"
    for bad in ("2x6", "d6", "0d6", "1d1", True, 2.5):
        with pytest.raises(ValueError):
            Dice.parse(bad)
    effect = Effect(mods=(("hit", 2),))
    assert effect.mod("hit") == 2 and effect.mod("str") == 0


def test_data_error_message():
    err = DataError("servants/saber.toml", "np.card", 'must be one of B, A, Q, got "X"')
    assert str(err) == 'servants/saber.toml: np.card: must be one of B, A, Q, got "X"'
    assert (err.file, err.field) == ("servants/saber.toml", "np.card")


# --------------------------------------------------------------------------- broken data


def skill_index(skill_id: str) -> int:
    return list(default_ruleset().skills).index(skill_id)


BROKEN = [
    pytest.param("servants/saber.toml", 'scale = "anti_personnel"',
                 'scale = "anti_personnel"\npwoer = 1',
                 "servants/saber.toml", "np.pwoer", 'unknown key (did you mean "power"?)',
                 id="unknown-key"),
    pytest.param("servants/saber.toml", 'str = "A"', 'str = "S"',
                 "servants/saber.toml", "ranks.str", "must be a rank", id="bad-rank"),
    pytest.param("servants/rider.toml", 'end = "A+"', 'end = "A++"',
                 "servants/rider.toml", "ranks.end", "must be a rank", id="bad-rank-plus"),
    pytest.param("rules.toml", '\ndamage_dice = "2d10"', '\ndamage_dice = "2x10"',
                 "rules.toml", "damage_dice", "must be dice", id="bad-dice"),
    pytest.param("skills.toml", 'heals 2D10 HP." }\neffect = { heal_hp = "2d10" }',
                 'heals 2D10 HP." }\neffect = { heal_hp = "2d" }',
                 "skills.toml", f"skill[{skill_index('healing_magecraft')}].effect.heal_hp",
                 "must be dice", id="bad-dice-in-effect"),
    pytest.param("command_spells.toml", 'ko = "HP 회복", ', "",
                 "command_spells.toml", "spell[0].name.ko", "missing", id="missing-ko"),
    pytest.param("masters/han.toml", 'ko = "한도진"', 'ko = " "',
                 "masters/han.toml", "name.ko", "non-empty string", id="blank-ko"),
    pytest.param("servants/archer.toml", '"divine_archery",', '"divine_archer",',
                 "servants/archer.toml", "skills[0]", 'unknown skill "divine_archer"',
                 id="dangling-skill"),
    pytest.param("masters/baek.toml", '["reinforcement",', '["campeador",',
                 "masters/baek.toml", "skills[0]", "is a servant skill", id="wrong-owner"),
    pytest.param("skills.toml", 'id = "twin_blades"', 'id = "campeador"',
                 "skills.toml", f"skill[{skill_index('twin_blades')}].id",
                 'duplicate id "campeador"', id="duplicate-skill"),
    pytest.param("maps/akatsukigahama.toml", "lancer = [6, 2]\n", "",
                 "maps/akatsukigahama.toml", "starts.lancer", "missing", id="start-missing"),
    pytest.param("maps/akatsukigahama.toml", "berserker = [3, 5]", "berserker = [7, 5]",
                 "maps/akatsukigahama.toml", "starts.berserker", "must be [x, y]",
                 id="start-off-map"),
    pytest.param("maps/akatsukigahama.toml", "x = 6\ny = 5", "x = 5\ny = 5",
                 "maps/akatsukigahama.toml", "square[41]", "duplicate square (5, 5)",
                 id="square-duplicated"),
    pytest.param("servants/saber.toml", "hp = 165", 'hp = "165"',
                 "servants/saber.toml", "hp", "must be an integer", id="wrong-type"),
    pytest.param("servants/saber.toml", "cards = 2", "cards = 5",
                 "servants/saber.toml", "np.cards", "must be between 1 and 3", id="out-of-range"),
    pytest.param("servants/saber.toml", 'card = "B"', 'card = "X"',
                 "servants/saber.toml", "np.card", 'must be one of B, A, Q, got "X"',
                 id="bad-choice"),
    pytest.param("servants/lancer.toml", 'cards = "BAQQQ"', 'cards = "BAQQ"',
                 "servants/lancer.toml", "cards", "must be 5 of the letters", id="bad-hand"),
    pytest.param("skills.toml", 'effect = { hit = 2, damage_dealt = 5 }',
                 'effect = { hit = 2, damage_delt = 5 }',
                 "skills.toml", f"skill[{skill_index('campeador')}].effect.damage_delt",
                 "unknown key", id="unknown-effect-key"),
    pytest.param("skills.toml", 'timing = "combat_start"\nmp = 20\ncheck = 70\nduration = 3',
                 'timing = "combat_strat"\nmp = 20\ncheck = 70\nduration = 3',
                 "skills.toml", f"skill[{skill_index('campeador')}].timing",
                 "must be one of constant", id="bad-timing"),
    pytest.param("skills.toml", 'id = "divine_archery"\nowner = "servant"\ntiming = "constant"',
                 'id = "divine_archery"\nowner = "servant"\ntiming = "constant"\ncheck = 50',
                 "skills.toml", f"skill[{skill_index('divine_archery')}].check",
                 "they have no check", id="constant-with-check"),
    pytest.param("skills.toml", 'id = "meditation"\nowner = "master"\ntiming = "turn_action"',
                 'id = "meditation"\nowner = "master"\ntiming = "turn_action"\nduration = 1',
                 "skills.toml", f"skill[{skill_index('meditation')}].duration",
                 "duration must be 0", id="turn-action-with-duration"),
    pytest.param("servants/lancer.toml", 'kind = "constant"', 'kind = "constant"\nmp = 40',
                 "servants/lancer.toml", "np.mp", "never fired", id="constant-np-with-mp"),
    pytest.param("servants/saber.toml", 'true_name = { ja = "エル・シッド',
                 'true_name = "El Cid"\nx = { ja = "エル・シッド',
                 "servants/saber.toml", "true_name", "must be a table", id="text-not-table"),
    pytest.param("command_spells.toml", "effect = { invincible = 1 }",
                 "effect = { invincible = 2 }", "command_spells.toml",
                 "spell[14].effect.invincible", "must be 1", id="flag-not-one"),
    pytest.param("servants/caster.toml", 'class = "caster"', 'class = "archer"',
                 "servants/caster.toml", "class", "must hold the caster", id="class-mismatch"),
    pytest.param("servants/saber/gyebaek.toml", 'id = "gyebaek"', 'id = "gye_baek"',
                 "servants/saber/gyebaek.toml", "id", 'must match the file name ("gyebaek")',
                 id="roster-id-mismatch"),
    pytest.param("servants/lancer/benkei.toml", 'class = "lancer"', 'class = "saber"',
                 "servants/lancer/benkei.toml", "class", "must hold the lancer",
                 id="roster-class-mismatch"),
    pytest.param("servants/saber.toml", "fame = 3", "fame = 6",
                 "servants/saber.toml", "fame", "must be between 1 and 5", id="fame-range"),
    pytest.param("masters/koga.toml", 'id = "koga"', 'id = "kouga"',
                 "masters/koga.toml", "id", 'must match the file name ("koga")',
                 id="master-id-mismatch"),
]


@pytest.mark.parametrize(("name", "old", "new", "file", "field", "problem"), BROKEN)
def test_broken_data_names_file_and_field(data_root: Path, name: str, old: str, new: str,
                                          file: str, field: str, problem: str):
    edit(data_root, name, old, new)
    err = load_error(data_root)
    assert (err.file, err.field) == (file, field), str(err)
    assert problem in err.problem
    assert str(err).startswith(f"{file}: {field}: ")


def test_missing_square_is_named(data_root: Path):
    path = data_root / "maps/akatsukigahama.toml"
    text = path.read_text(encoding="utf-8")
    block = re.search(r"\[\[square\]\]\nx = 3\ny = 1\n.*?\n\n", text, re.S)
    assert block is not None
    path.write_text(text.replace(block[0], ""), encoding="utf-8")
    err = load_error(data_root)
    assert (err.file, err.field) == ("maps/akatsukigahama.toml", "square")
    assert "x = 3, y = 1" in err.problem


def test_debuff_table_needs_twenty_entries(data_root: Path):
    path = data_root / "tables.toml"
    text = path.read_text(encoding="utf-8")
    first = text.index("[[debuff]]")
    path.write_text(text[:first] + text[text.index("[[debuff]]", first + 1):], encoding="utf-8")
    err = load_error(data_root)
    assert (err.file, err.field) == ("tables.toml", "debuff")
    assert "exactly 20" in err.problem


def test_missing_and_stray_files(data_root: Path):
    (data_root / "servants/lancer.toml").rename(data_root / "servants/lancer.toml.bak")
    err = load_error(data_root)
    assert (err.file, err.field, err.problem) == ("servants/lancer.toml", "", "file missing")
    assert str(err) == "servants/lancer.toml: file missing"

    (data_root / "servants/lancer.toml.bak").rename(data_root / "servants/shielder.toml")
    err = load_error(data_root)
    assert err.file == "servants/shielder.toml"


def test_invalid_toml_is_a_data_error(data_root: Path):
    edit(data_root, "rules.toml", "turns_per_day = 3", "turns_per_day = = 3")
    err = load_error(data_root)
    assert err.file == "rules.toml" and "not valid TOML" in err.problem
