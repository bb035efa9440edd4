"""`grailwar scenario FILE.toml [--json]` runs the example scenarios of tests/scenarios/ and
refuses bad files with exit status 2 and a message naming the step (or field) and the reason.

The format is documented in docs/scenarios.md; a test keeps that page's list of actions in step
with shared/engine/actions.py.
"""

from __future__ import annotations

import json
import re
from dataclasses import MISSING, fields
from pathlib import Path

import pytest
from grailwar.cli.main import main
from grailwar.shared.engine.actions import ACTION_TYPES

HERE = Path(__file__).parent / "scenarios"
DOC = Path(__file__).parent.parent / "docs" / "scenarios.md"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["scenario", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "s.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


# --- the example scenarios -------------------------------------------------------------------
def test_encounter_battle_with_forced_critical(capsys: pytest.CaptureFixture[str]) -> None:
    """The Encounter opens a battle; the forced 6+6 is a critical in the dice-bot log (English
    by default, as the other lines are); the reward card comes back to the attacker's hand; the
    timeout is a Wait."""
    code, out, err = run(capsys, str(HERE / "encounter_critical.toml"))
    assert (code, err) == (0, "")
    steps = re.findall(r"^== step (\d+): (.*)$", out, flags=re.M)
    assert [int(n) for n, _ in steps] == list(range(1, 8))
    assert "BattleStarted seats=[0, 1] square=10" in out
    assert re.search(r"#0 hit: \(2D6[+-]\d+\) > 12\[6,6\][+-]\d+ > \d+ > Critical", out)
    assert "#0 damage: (2D10) > 10[5,5]" in out
    assert "CriticalReward seat=0 reward=card:B" in out
    assert steps[-1][1] == "{'type': 'Wait', 'seat': 1}"
    final = out[out.index("\nday "):].strip().splitlines()
    assert final[0].startswith("day 1 morning resolve | round_start 0,1")
    assert final[1].startswith("#0 lancer/honda_tadakatsu alive @10 ")
    assert " hand BAQQQ " in final[1]
    assert final[2].startswith("#1 caster/vainamoinen alive @10 ") and " hand BAAA " in final[2]
    assert final[-1].startswith("battle battle 0,1 r2 round_start")


def test_encounter_critical_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    """--json gives one object: per step the action dict and the full events, then the
    omniscient view of the final state."""
    code, out, err = run(capsys, str(HERE / "encounter_critical.toml"), "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert [s["step"] for s in data["steps"]] == list(range(1, 8))
    assert data["steps"][0]["action"] == {"type": "DeclareEncounter", "seat": 0, "target": 1,
                                          "intent": "battle"}
    attack, react = data["steps"][3], data["steps"][5]
    hit = next(e for e in attack["events"] if e["type"] == "DiceRolled"
               and e["purpose"] == "hit")
    assert hit["faces"] == [6, 6] and hit["result"] == "critical"
    (damage,) = [e for e in react["events"] if e["type"] == "DamageDealt"]
    caster = data["state"]["camps"][1]
    assert caster["hp"] == 120 - damage["amount"]
    assert data["state"]["camps"][0]["hand"] == "BAQQQ"
    assert data["state"]["prompt"] == {"kind": "round_start", "seats": [0, 1]}
    assert data["steps"][-1]["action"] == {"type": "Wait", "seat": 1}


def test_ambush_with_flee(capsys: pytest.CaptureFixture[str]) -> None:
    """The ambushed camp flees: the ambusher shoots first, the timed-out reaction is a Guard
    with no card, the fleeing camp leaves at its own activation and the battle ends."""
    code, out, err = run(capsys, str(HERE / "ambush_flee.toml"), "--lang", "en")
    assert (code, err) == (0, "")
    assert "AmbushAnswered seat=1 flee=True" in out
    assert "RoundStarted round=1 order=[0, 1]" in out
    assert "Attacked seat=0 target=1 kind=B card=B distance=2" in out
    assert "== step 6: {'type': 'React', 'seat': 1, 'kind': 'G', 'card': ''}" in out
    assert "LeftBattle seat=1 how=fled" in out
    assert "BattleEnded reason=decided remaining=[0]" in out
    assert "day 1 noon declare | declare 0,1" in out


def test_ambush_with_flee_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    """The JSON run ends with both camps where they stood, back in the declaration window."""
    code, out, _ = run(capsys, str(HERE / "ambush_flee.toml"), "--json")
    assert code == 0
    data = json.loads(out)
    types = [e["type"] for e in data["steps"][-1]["events"]]
    assert types.index("LeftBattle") < types.index("BattleEnded")
    assert [c["pos"] for c in data["state"]["camps"]] == [10, 12]
    assert data["state"]["battle"] is None and data["state"]["turn"] == "noon"


@pytest.mark.parametrize("json_flag", [(), ("--json",)], ids=["text", "json"])
def test_illegal_step_exits_2_naming_step_and_reason(capsys: pytest.CaptureFixture[str],
                                                     json_flag: tuple[str, ...]) -> None:
    """Step 2 (an Ambush after a Wait closed the priority phase) stops the run: exit 2, nothing
    on stdout, one line on stderr with the file, the step and why."""
    path = str(HERE / "illegal_step.toml")
    code, out, err = run(capsys, path, *json_flag)
    assert code == 2 and out == ""
    assert err.startswith(f"{path}: step 2: DeclareAmbush(seat=1, target=0) is not legal")
    assert "no DeclareAmbush is legal in the declare prompt" in err
    assert err.count("\n") == 1


# --- rules modules -------------------------------------------------------------------------------
def test_tactics_scenario_seizes_the_initiative(capsys: pytest.CaptureFixture[str]) -> None:
    """With the tactics module on, Caster's successful concentration roll (forced 5+4) puts it
    first in round 1 though Lancer is faster, and the final text shows Lancer's zone."""
    code, out, err = run(capsys, str(HERE / "tactics_initiative.toml"), "--lang", "en")
    assert (code, err) == (0, "")
    assert "ConcentrationDeclared seat=1 use=initiative" in out
    assert "#1 concentration: (2D6+6>=10) > 9[5,4]+6 > 15 > Success" in out
    assert "RoundStarted round=1 order=[1, 0]" in out
    assert out.rstrip().splitlines()[-1].startswith("tactics zoc 0 ")


def test_tactics_scenario_with_concentration_off(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    """The module's options travel with the game: `concentration = false` takes the
    Concentrate action away, so the same file stops at step 2 (exit 2); without the module the
    action is not legal either."""
    text = (HERE / "tactics_initiative.toml").read_text(encoding="utf-8")
    for variant in (text.replace("concentration = true", "concentration = false"),
                    text.replace('modules = ["tactics"]', "").replace(
                        "[options.tactics]\nconcentration = true\n", "")):
        path = write(tmp_path, variant)
        code, out, err = run(capsys, path)
        assert code == 2 and out == ""
        assert err.startswith(f"{path}: step 2: Concentrate(seat=1, use='initiative') is not "
                              "legal"), err


# --- other bad files ----------------------------------------------------------------------------
TACTICS = 'classes = ["saber", "lancer"]\nmodules = ["tactics"]\n'
CAMPAIGN = 'classes = ["saber", "lancer"]\nmodules = ["campaign", "tactics"]\n'
BAD = {
    "not_prompted": ('classes = ["saber", "lancer"]\n[[step]]\naction = {type = "DeclareWait", '
                     'seat = 0}\n[[step]]\naction = {type = "DeclareWait", seat = 0}\n',
                     "step 2: seat 0 is not asked to act now"),
    "missing_field": ('classes = ["saber", "lancer"]\n[[step]]\naction = {type = "Attack", '
                      'seat = 0, target = 1, kind = "B"}\n',
                      "step 1: Attack: missing field 'card'"),
    "wrong_type": ('[[step]]\naction = {type = "DeclareWait", seat = "0"}\n',
                   "step 1: DeclareWait.seat: expected int, got str"),
    "unknown_type": ('[[step]]\naction = {type = "Fly", seat = 0}\n',
                     "step 1: unknown action type 'Fly'"),
    "unknown_step_key": ('[[step]]\nwhen = 3\n', "step 1: unknown key(s) ['when']"),
    "no_action": ('[[step]]\ndice = [1]\n', "step 1: an action is a table/map"),
    "bad_die": ('classes = ["saber", "lancer"]\n[[step]]\ndice = [7, 7]\n'
                'action = {type = "DeclareInvestigate", seat = 0, target_class = "lancer"}\n'
                '[[step]]\naction = {type = "DeclareWait", seat = 1}\n',
                "step 2: forced die 7 does not fit a d6"),
    "camp_field": ('classes = ["saber", "lancer"]\n[[camp]]\nseat = 0\nhp = 50.0\n',
                   "camp[0].hp: not a settable key of that type"),
    "camp_key_of_a_module_off": ('classes = ["saber", "lancer"]\n[[camp]]\nseat = 0\nmr = 1\n',
                                 "camp[0].mr: not a settable key of that type (pos, hp, mp, "
                                 "master_mp, spells, hand)"),
    "camp_keys_of_the_modules_on": (CAMPAIGN + '[[camp]]\nseat = 0\nfame = 1\n',
                                    "(pos, hp, mp, master_mp, spells, hand, mr, immune, stray, "
                                    "info, merit, funds, items, worn, tag, race)"),
    "mr": (TACTICS + '[[camp]]\nseat = 0\nmr = 11\n', "camp[0].mr: 11 is not an integer 0..10"),
    "immune": (TACTICS + '[[camp]]\nseat = 0\nimmune = 1\n',
               "camp[0].immune: 1 is not true or false"),
    "tag": (CAMPAIGN + '[[camp]]\nseat = 0\ntag = "pirate"\n',
            "camp[0].tag: 'pirate' is not a tag; tags: holy_sword_sheath, "),
    "tag_off": (CAMPAIGN + '[options.campaign]\ntags = "off"\n[[camp]]\nseat = 0\n'
                'tag = "overseer"\n', 'camp[0].tag: needs [options.campaign] tags = "random"'),
    "tag_of_another_class": (CAMPAIGN + '[[camp]]\nseat = 0\ntag = "strongest_enemy"\n',
                             "camp[0].tag: strongest_enemy is for berserker only"),
    "funds": (CAMPAIGN + '[[camp]]\nseat = 0\nfunds = -1\n',
              "camp[0].funds: -1 is not an integer >= 0"),
    "merit": (CAMPAIGN + '[[camp]]\nseat = 0\nmerit = [1]\n',
              "camp[0].merit: [1] is not [servant, master], two integers >= 0"),
    "items": (CAMPAIGN + '[[camp]]\nseat = 0\nitems = { sword = 1 }\n',
              "camp[0].items: {'sword': 1} is not a table of item id = count >= 1"),
    "worn_not_owned": (CAMPAIGN + '[[camp]]\nseat = 0\nworn = [["magus_cloak", "servant"]]\n',
                       "camp[0].worn: ['magus_cloak', 'servant'] is not [item, wearer] that camp "
                       "may put on (it owns {}, wears [])"),
    "worn_by_the_wrong_wearer": (CAMPAIGN + '[[camp]]\nseat = 0\nitems = { nekote = 1 }\n'
                                 'worn = [["nekote", "master"]]\n',
                                 "camp[0].worn: ['nekote', 'master'] is not [item, wearer]"),
    "info_on_itself": (CAMPAIGN + '[[camp]]\nseat = 0\ninfo = [{ on = 0 }]\n',
                       "camp[0].info: {'on': 0} is not {on = another seat, "),
    "info_category": (CAMPAIGN + '[[camp]]\nseat = 0\ninfo = [{ on = 1, servant = { fame = 1 } '
                      '}]\n', "camp[0].info: servant = {'fame': 1}; categories: encounter, "
                      "rumor, combat, legend (points >= 0)"),
    "race": (CAMPAIGN + '[[camp]]\nseat = 0\nrace = "elf"\n',
             "camp[0].race: 'elf' is not a race; races: human, artificial"),
    "stray_false": (CAMPAIGN + '[[camp]]\nseat = 0\nstray = false\n',
                    "camp[0].stray: False; only true"),
    "stray_twice": (CAMPAIGN + '[[camp]]\nseat = 0\nstray = true\n[[camp]]\nseat = 0\n'
                    'stray = true\n', "camp[1].stray: the camp is already stray"),
    "residual": (CAMPAIGN + '[module_state.campaign.info]\nresidual = [{ square = 10, classes = '
                 '["pirate"] }]\n', "campaign info residual: {'square': 10, 'classes': "
                 "['pirate']} is not {square = 0.."),
    "dice": ('dice = [1, "2"]\n', "dice: a list of integers, forced before the game is set up"),
    "camp_seat": ('classes = ["saber", "lancer"]\n[[camp]]\nseat = 2\n',
                  "camp[0].seat: must name a seat 0..1"),
    "classes": ('classes = ["saber", "saber"]\n', "need 2 to 7 distinct classes"),
    "toml": ('seed = \n', ""),
    "unknown_map": ('map = "nowhere"\n', "nowhere"),
    "unknown_class": ('classes = ["saber", "pirate"]\n', "pirate"),
    "servant_of_another_class": ('classes = ["saber", "lancer"]\n'
                                 'servants = ["el_cid", "grettir"]\n',
                                 "unknown lancer Servant 'grettir'; choose from honda_tadakatsu"),
    "servants_not_ids": ('servants = [1, 2]\n', "servants: a list of Servant ids"),
    "seed_type": ('seed = "seven"\n', "seed"),
    "unknown_module": ('modules = ["tactic"]\n',
                       "unknown module 'tactic'; modules: tactics, colossus, campaign"),
    "modules_not_a_list": ('modules = "tactics"\n', "modules must be a list of names"),
    "unknown_option": ('modules = ["tactics"]\n[options.tactics]\nzoc = false\n',
                       "module 'tactics' has no option 'zoc'; options: concentration"),
    "option_type": ('modules = ["tactics"]\n[options.tactics]\nconcentration = "no"\n',
                    "option 'concentration': expected bool, got 'no'"),
    "options_module_off": ('[options.tactics]\nconcentration = false\n',
                           "options given for module 'tactics', which is not switched on"),
    "options_not_tables": ('modules = ["tactics"]\noptions = { tactics = 1 }\n',
                           "options: one table per module"),
}


@pytest.mark.parametrize("name", BAD)
def test_bad_file_exits_2_with_a_message(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                         name: str) -> None:
    """Every kind of bad file gives exit status 2 and one line naming what is wrong (never a
    traceback)."""
    text, message = BAD[name]
    path = write(tmp_path, text)
    try:
        code, out, err = run(capsys, path)
    except Exception as exc:  # a crash is the failure this test is about
        pytest.fail(f"the scenario command crashed: {exc!r}")
    assert code == 2 and out == ""
    assert err.startswith(f"{path}: ") and message in err, err


def test_forced_dice_carry_over_to_later_steps(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    """Forced faces not used by their own step are used by the next rolls."""
    path = write(tmp_path, 'classes = ["saber", "lancer"]\n[[step]]\ndice = [1, 2, 3]\n'
                           'action = {type = "DeclareRest", seat = 0}\n[[step]]\n'
                           'action = {type = "DeclareRest", seat = 1}\n')
    code, out, _ = run(capsys, path, "--json")
    assert code == 0
    data = json.loads(out)
    (rest_hp, *_) = [e for e in data["steps"][1]["events"] if e["type"] == "DiceRolled"]
    assert rest_hp["seat"] == 0 and rest_hp["faces"] == [1, 2, 3]


def test_timeout_wins_over_action(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A step with both keys plays the timeout default (documented in docs/scenarios.md)."""
    path = write(tmp_path, 'classes = ["saber", "lancer"]\n[[step]]\ntimeout = 1\n'
                           'action = {type = "DeclareRest", seat = 0}\n')
    code, out, _ = run(capsys, path, "--json")
    assert code == 0
    assert json.loads(out)["steps"][0]["action"] == {"type": "DeclareWait", "seat": 1}


# --- the documentation --------------------------------------------------------------------------
HIDDEN_IN_STATE = (
    'classes = ["saber", "caster"]\nservants = ["el_cid", "vainamoinen"]\n'
    '[[camp]]\nseat = 0\npos = 10\n[[camp]]\nseat = 1\npos = 10\n'
    '[[step]]\naction = {type = "DeclareEncounter", seat = 0, target = 1, intent = "battle"}\n'
    '[[step]]\ndice = [1]\naction = {type = "UseSkill", seat = 1, skill = "bog_song", target = 0}\n'
    '[[step]]\ndice = [1]\naction = {type = "UseSkill", seat = 0, skill = "campeador"}\n')


def test_json_state_is_each_camp_as_it_sees_itself(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    """The --json `state` is what docs/scenarios.md says, not all-seeing: Caster's Bog Song on
    Saber reads "skill" in Saber's buffs (Saber has not investigated Caster) while the events and
    the text output name it; Saber's own Campeador is named."""
    path = write(tmp_path, HIDDEN_IN_STATE)
    code, out, _ = run(capsys, path, "--json")
    assert code == 0
    data = json.loads(out)
    assert [b["source"] for b in data["state"]["camps"][0]["buffs"]] == ["skill", "campeador"]
    assert {"type": "SkillUsed", "seat": 1, "skill": "bog_song", "target": 0} in (
        data["steps"][1]["events"])
    code, out, _ = run(capsys, path)
    assert code == 0 and "buffs bog_song/1,campeador/3" in out
    doc = DOC.read_text(encoding="utf-8")
    assert "It is not all-seeing" in doc and "reads `\"skill\"` or `\"np\"`" in doc


def test_docs_list_every_action_type_with_its_fields() -> None:
    """docs/scenarios.md has a table row for every action type naming each of its fields, and
    the defaults of optional fields."""
    doc = DOC.read_text(encoding="utf-8")
    for name, cls in ACTION_TYPES.items():
        row = re.search(rf"^\| `{name}` \| (.*?) \|", doc, flags=re.M)
        assert row, f"docs/scenarios.md has no row for {name}"
        for f in fields(cls):
            assert f"`{f.name}`" in row.group(1), f"{name}: field {f.name} not documented"
            if f.default is not MISSING:
                assert f"default `{json.dumps(f.default)}`" in row.group(1), (
                    f"{name}.{f.name}: default {f.default!r} not documented")


@pytest.mark.parametrize(("block", "name"), [(1, "encounter_critical.toml"),
                                           (2, "tactics_initiative.toml")])
def test_docs_examples_are_the_example_scenarios(block: int, name: str) -> None:
    """The examples of docs/scenarios.md (at the top, and for the rules modules) are the
    example scenarios of tests/scenarios/ (their setup and steps, comments aside)."""
    doc = DOC.read_text(encoding="utf-8")
    example = doc.split("```toml\n")[block].split("```", 1)[0]

    def code_lines(text: str) -> list[str]:
        return [line.split("#", 1)[0].strip() for line in text.splitlines()
                if line.split("#", 1)[0].strip()]

    assert code_lines(example) == code_lines((HERE / name).read_text(encoding="utf-8"))
