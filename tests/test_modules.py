"""The module door (shared/engine/modules.py): switching rules modules on by name with options,
the module state slot, module actions on the wire, what leaves the engine, and the tactics
module's data errors.

Recorded base games replaying unchanged with no module on is tests/test_recorded.py; the engine
purity test (tests/test_engine_purity.py) covers shared/modules/ too.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest
from grailwar.shared import protocol
from grailwar.shared.bots import make_bot
from grailwar.shared.engine import apply, from_dict, legal_actions, new_game, to_text, view_for
from grailwar.shared.engine import modules as door
from grailwar.shared.engine.actions import ACTION_TYPES, Attack, React, UseSkill
from grailwar.shared.engine.data import DataError, default_ruleset
from grailwar.shared.engine.errors import MalformedActionError
from grailwar.shared.modules import campaign, colossus  # noqa: F401 (their action types)
from grailwar.shared.modules.tactics import Concentrate, ConcentrateCast
from grailwar.shared.modules.tactics.data import load_tactics
from helpers import act_all, battle_at, find, rolls, to_main

RULES = default_ruleset()
TACTICS_DATA = Path(__file__).parent.parent / "resources" / "tactics"
# the tactics module's actions (the colossus's have their round trips in test_colossus.py)
MODULE_ACTIONS = {cls for cls in ACTION_TYPES.values()
                  if cls.__module__.startswith("grailwar.shared.modules.tactics")}


# --- switching modules on -----------------------------------------------------------------------
@pytest.mark.parametrize(("modules", "options", "named"), [
    (["nope"], None, "'nope'"),
    ([], {"nope": {}}, "'nope'"),
    (["tactics"], {"tactics": {"zoc": True}}, "'zoc'"),
    (["tactics"], {"tactics": {"concentration": 1}}, "'concentration'"),
    (["tactics"], {"tactics": {"concentration": "no"}}, "'concentration'"),
    ([], {"tactics": {"concentration": False}}, "'tactics', which is not switched on"),
    ("tactics", None, "list of names"),
])
def test_a_bad_module_or_option_is_refused_by_name(modules, options, named):
    """new_game raises ValueError naming the unknown module, the unknown option, the option
    with a value of the wrong type, or the module given options without being switched on."""
    with pytest.raises(ValueError, match=named):
        new_game(seed=1, modules=modules, options=options)


def test_options_default_and_travel_in_the_settings():
    """Switched on without options, every option takes its default; the names and the resolved
    options are in the state's settings and in every seat's view; a given option is kept."""
    s = new_game(seed=1, modules=["tactics", "tactics"])
    assert s.settings.modules == ("tactics",)
    assert s.settings.options == {"tactics": {"concentration": True}}
    assert view_for(s, 0)["modules"]["tactics"]["options"] == {"concentration": True}
    off = new_game(seed=1, modules=["tactics"], options={"tactics": {"concentration": False}})
    assert off.settings.options == {"tactics": {"concentration": False}}


def test_with_no_module_nothing_of_a_module_shows():
    """No module on: no module state, an empty `modules` in every view, no module line in the
    text form; with tactics on, its slot, view and text line are there."""
    plain = new_game(seed=2)
    assert plain.modules == () and plain.mods == {}
    assert all(view_for(plain, seat)["modules"] == {} for seat in (0, 1, None))
    s = battle_at(("saber", "lancer"), [(3, 3), (3, 3)], modules=["tactics"])
    assert set(s.mods) == {"tactics"} and set(view_for(s, None)["modules"]) == {"tactics"}
    assert "tactics" not in to_text(battle_at(("saber", "lancer"), [(3, 3), (3, 3)]))
    assert any(line.startswith("tactics zoc") for line in to_text(s).splitlines())


# --- the module state slot ------------------------------------------------------------------------
def test_apply_never_changes_the_module_state_it_was_given():
    """Through two rounds of actions that change the tactics state (Concentrate declarations,
    the initiative roll, Moves, Attacks, ends of activations), every state given to apply keeps
    its slot table and its values."""
    s = battle_at(("saber", "lancer"), [(3, 3), (3, 3)], modules=["tactics"])
    bot = make_bot("random", 1)
    kept = []
    for action in (Concentrate(0, "initiative"), Concentrate(1, "endure"), None):
        while action is None and s.battle is not None and s.battle.round < 3:
            kept.append((s, s.mods, dict(s.mods)))
            s, _ = apply(s, bot.choose(None, legal_actions(s, min(s.prompt.seats))))
        if action is not None:
            kept.append((s, s.mods, dict(s.mods)))
            s, _ = apply(s, action)
    assert len({id(values["tactics"]) for _, _, values in kept}) > 3, "no module state change"
    for state, table, values in kept:
        assert state.mods is table and state.mods == values


def test_a_clone_writes_its_own_module_slot():
    """set_mod on a clone leaves the original's slot alone, and the other way round."""
    s = battle_at(("saber", "lancer"), [(3, 3), (3, 3)], modules=["tactics"])
    value = s.mods["tactics"]
    clone = s.clone()
    clone.set_mod("tactics", value._replace(uses=(9, 9)))
    assert s.mods["tactics"] is value and clone.mods["tactics"].uses == (9, 9)
    s.set_mod("tactics", value._replace(uses=(5, 5)))
    assert clone.mods["tactics"].uses == (9, 9) and s.mods["tactics"].uses == (5, 5)


# --- module actions on the wire -------------------------------------------------------------------
def module_actions_offered() -> list:
    """The module actions a tactics battle offers: at round start, as Caster's Reaction to a
    hit, and at Caster's main prompt (Bog Song)."""
    s = battle_at(("saber", "caster"), [(3, 3), (3, 3)], modules=["tactics"])
    seen = [*legal_actions(s, 0), *legal_actions(s, 1)]
    s = to_main(s, 0)
    s, _ = act_all(s, Attack(0, 1, "B", "B"), [4, 3])
    seen += legal_actions(s, 1)
    s, _ = act_all(s, React(1, "G", ""), [5, 5])
    seen += legal_actions(s, 1)
    return [a for a in seen if type(a) in MODULE_ACTIONS]


OFFERED = module_actions_offered()


def test_the_offered_module_actions_cover_every_module_action_type():
    """The sample below holds every action type a module defines, and every concentration
    use, so the round trips are not vacuous."""
    assert {type(a) for a in OFFERED} == MODULE_ACTIONS == {Concentrate, ConcentrateCast}
    assert {a.use for a in OFFERED if isinstance(a, Concentrate)} == {"initiative", "endure",
                                                                       "dodge"}


@pytest.mark.parametrize("action", OFFERED, ids=str)
def test_a_module_action_round_trips_as_a_dict_and_inside_an_act_message(action):
    """to_dict / from_dict give the same action, and so does an `act` message through
    encode, framing, decode and validation (shared/protocol.py)."""
    assert from_dict(action.to_dict()) == action
    msg = protocol.message("act", action=action.to_dict(), state_id=12, ref=7)
    (body,) = protocol.FrameBuffer().feed(protocol.encode(msg))
    back = protocol.decode(body)
    assert protocol.validate(back, "c2s").name == "act"
    assert from_dict(back["action"]) == action


@pytest.mark.parametrize(("data", "named"), [
    ({"type": "Concentrate", "seat": 0}, "missing field 'use'"),
    ({"type": "Concentrate", "seat": 0, "use": 1}, "Concentrate.use: expected str"),
    ({"type": "ConcentrateCast", "seat": 0, "skill": "x", "target": "1"},
     "ConcentrateCast.target: expected int"),
    ({"type": "ConcentrateCast", "seat": 0, "skill": "x", "target": 1, "to": 3}, "'to'"),
])
def test_a_malformed_module_action_is_refused_by_field(data, named):
    """from_dict names the missing, mistyped or unknown field of a module action."""
    with pytest.raises(MalformedActionError, match=named):
        from_dict(data)


# --- the hooks --------------------------------------------------------------------------------
class Warded(door.Module):
    """A test module: every hostile skill's effect does nothing (seed 003 T6.3's immunity)."""

    name: ClassVar[str] = "warded"

    def skill_void(self, s, seat, skill, target) -> bool:
        return target >= 0


def test_a_voided_skill_rolls_its_check_and_does_nothing(monkeypatch):
    """T6.3 through the door's skill_void hook: the caster's check is rolled as usual, the
    effect does nothing (no damage roll, no HP lost) and the event is SkillResisted."""
    monkeypatch.setitem(door.MODULES, Warded.name, Warded)
    monkeypatch.setattr(door, "_INSTANCES", {})
    s = to_main(battle_at(("saber", "caster"), [(3, 3), (3, 3)], modules=["warded"]), 1)
    hp = s.camps[0].hp
    s, events = act_all(s, UseSkill(1, "bog_song", 0), [1])
    assert rolls(events, "skill")[0]["result"] == "success"
    assert find(events, "SkillResisted") and not rolls(events, "effect_damage")
    assert s.camps[0].hp == hp


# --- the tactics module's data --------------------------------------------------------------------
def edit(name: str, old: str | None, new: str) -> Callable[[Path], None]:
    """A change to one file of a copied tactics folder: `old` replaced by `new` (None: `new`
    appended)."""
    def change(root: Path) -> None:
        path = root / "tactics" / name
        text = path.read_text(encoding="utf-8")
        assert old is None or old in text, f"{name} no longer holds {old!r}"
        path.write_text(text + new if old is None else text.replace(old, new, 1),
                        encoding="utf-8")
    return change


@pytest.mark.parametrize(("change", "file", "field"), [
    (edit("weapons.toml", 'saber = "melee"', 'saber = "spear"'), "weapons.toml",
     "classes.saber"),
    (edit("weapons.toml", None, 'nobody = "melee"\n'), "weapons.toml", "servants.nobody"),
    (edit("terrain/akatsukigahama.toml", "[5, 1]", "[7, 1]"), "terrain/akatsukigahama.toml",
     "blocking[0]"),
    (edit("spells.toml", None, "[spells.no_such_skill]\nincapacitating = true\n"), "spells.toml",
     "spells.no_such_skill"),
    (edit("familiars.toml", '"familiar_scouting"', '"no_such_skill"'), "familiars.toml",
     "skills[0]"),
    (edit("rules.toml", "sight_range = 3", "sight_range = -1"), "rules.toml",
     "numbers.sight_range"),
    (edit("rules.toml", "polearm = 2", "polearm = 2.5"), "rules.toml", "zoc_radius.polearm"),
], ids=["weapon", "servant", "square", "spell", "familiar", "number", "radius"])
def test_a_tactics_data_error_names_the_file_and_the_field(tmp_path, change, file, field):
    """load_tactics refuses one bad value per case, naming its file and field: an unknown
    weapon class, an unknown Servant id, a blocking square off the map, an unknown skill in
    spells.toml or familiars.toml, a number out of range or not an integer."""
    shutil.copytree(TACTICS_DATA, tmp_path / "tactics")
    shutil.copytree(TACTICS_DATA.parent / "modules", tmp_path / "modules")  # mr_step's file
    load_tactics(RULES, root=tmp_path)  # the copy loads as shipped
    change(tmp_path)
    with pytest.raises(DataError) as err:
        load_tactics(RULES, root=tmp_path)
    assert (err.value.file, err.value.field) == (f"tactics/{file}", field)


@pytest.mark.parametrize(("modules", "options"), [
    ("tactics", None), (3, None), (["tactics"], 3), (["tactics"], {"tactics": 3}),
    (["tactics"], {"tactics": ["concentration"]}),
])
def test_badly_shaped_modules_or_options_are_a_value_error(modules: Any, options: Any) -> None:
    """A list that is not a list of names, or options that are not a table of tables, is a
    ValueError saying what it must be (never a TypeError from deep inside)."""
    with pytest.raises(ValueError, match=r"must be a list of names|must map each module"):
        door.normalize(modules, options)
