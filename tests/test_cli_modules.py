"""`--modules` and `--option` of the commands that set games up (`simulate`, `tournament`,
`play --text`): read into the engine's (names, options), passed to every game, reported in the
JSON, and a bad name or value refused with exit status 2 and a message naming it."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from grailwar.cli import modules as module_args
from grailwar.cli import simulate as simulate_cli
from grailwar.cli.main import build_parser, main
from grailwar.shared.bots import tournament
from grailwar.shared.engine import GameState, dice, new_game

OFF = {"tactics": {"concentration": False}}


@pytest.mark.parametrize(("modules", "options", "expected"), [
    ("", [], ((), {})),
    ("tactics", [], (("tactics",), {"tactics": {"concentration": True}})),
    (" tactics ,", ["tactics.concentration=off"], (("tactics",), OFF)),
    ("tactics", ["tactics.concentration=FALSE", "tactics.concentration=yes"],
     (("tactics",), {"tactics": {"concentration": True}})),
])
def test_parse_reads_values_by_the_options_type(modules: str, options: list[str],
                                                expected: tuple) -> None:
    """Comma list of names; each option's text read as its default's type (the last one of a
    repeated option wins); every other option filled with its default."""
    assert module_args.parse(modules, options) == expected


@pytest.mark.parametrize(("modules", "options", "says"), [
    ("tactic", [], "unknown module 'tactic'"),
    ("tactics", ["tactics.zoc=1"], "has no option 'zoc'"),
    ("tactics", ["tactics.concentration=maybe"], "expected true or false, got 'maybe'"),
    ("", ["tactics.concentration=false"], "not switched on"),
    ("tactics", ["concentration=false"], "expected MODULE.OPTION=VALUE"),
    ("tactics", ["tactics.concentration"], "expected MODULE.OPTION=VALUE"),
])
def test_parse_refuses_with_a_message_naming_the_fault(modules: str, options: list[str],
                                                       says: str) -> None:
    """An unknown module or option, a value the option's type cannot read, an option of a
    module not switched on, or a malformed --option: a ValueError that names it."""
    with pytest.raises(ValueError, match=says):
        module_args.parse(modules, options)


def recording_new_game(monkeypatch: pytest.MonkeyPatch, where: Any) -> list[GameState]:
    """Replace `where.new_game` by one that keeps every game it makes."""
    made: list[GameState] = []

    def keep(*args: Any, **kwargs: Any) -> GameState:
        made.append(new_game(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(where, "new_game", keep)
    return made


def test_simulate_plays_every_game_with_the_modules(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """`simulate --modules tactics --option tactics.concentration=false --json`: each game
    has the module with that option, and the JSON names them."""
    made = recording_new_game(monkeypatch, simulate_cli)
    code = main(["simulate", "--games", "2", "--classes", "saber,lancer", "--modules",
                 "tactics", "--option", "tactics.concentration=false", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["errors"] == 0
    assert (data["modules"], data["options"]) == (["tactics"], OFF)
    assert len(made) == 2
    assert all((s.settings.modules, s.settings.options) == (("tactics",), OFF) for s in made)


def test_simulate_plays_with_a_priority_phase_when_asked(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    """`simulate --priority-phase`: every game opens its turns with the phase (as a room's
    do, docs/rules.md §3.3), and the JSON says so; without the flag none does."""
    made = recording_new_game(monkeypatch, simulate_cli)
    code = main(["simulate", "--games", "2", "--priority-phase", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["errors"] == 0 and data["priority_phase"] is True
    assert [s.settings.priority_phase for s in made] == [True, True]
    main(["simulate", "--games", "1", "--json"])
    assert json.loads(capsys.readouterr().out)["priority_phase"] is False
    assert not made[-1].settings.priority_phase


def test_simulate_plays_each_game_on_a_hashed_seed(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Seeds s and s + 1 roll the same dice one roll apart (SplitMix64's states of the two are
    one step of each other's stream), so a series of games on consecutive seeds measured
    balance on correlated dice. `simulate --seed 7` plays its games on `series_seed(7, g)`,
    whose streams share no roll."""
    def rolls(seed: int, n: int = 40) -> list[int]:
        state, out = dice.seed_state(seed), []
        for _ in range(n):
            state, x = dice.next_u64(state)
            out.append(x)
        return out

    assert rolls(8)[:-1] == rolls(7)[1:]  # the fault: consecutive seeds, one roll apart
    seeds: list[int] = []
    monkeypatch.setattr(simulate_cli, "new_game",
                        lambda **kw: seeds.append(kw["seed"]) or new_game(**kw))
    assert main(["simulate", "--games", "3", "--seed", "7", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["errors"] == 0
    assert seeds == [dice.series_seed(7, g) for g in range(3)]
    streams = [set(rolls(dice.series_seed(7, g))) for g in range(200)]
    assert sum(len(s) for s in streams) == len(set().union(*streams))


def test_tournament_plays_every_game_with_the_modules(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    """`tournament --modules tactics --json`: every duel has the module, and the JSON says
    so."""
    made = recording_new_game(monkeypatch, tournament)
    code = main(["tournament", "--games", "2", "--levels", "random,easy", "--modules",
                 "tactics", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["games"] == 2 and data["modules"] == ["tactics"]
    assert len(made) == 2 and all(s.settings.modules == ("tactics",) for s in made)


@pytest.mark.parametrize("command", [
    ["simulate", "--games", "1"], ["tournament", "--games", "2", "--levels", "random,easy"],
    ["play", "--text"]])
def test_unknown_module_exits_2_naming_it(command: list[str],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Every command refuses an unknown module before playing: exit 2, one line on stderr
    naming the command and the module, nothing on stdout."""
    assert main([*command, "--modules", "tactic"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (f"grailwar {command[0]}: unknown module 'tactic'; "
                   "modules: tactics, colossus, campaign\n")


def test_text_play_starts_the_game_with_the_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    """`play --text --modules tactics`: the terminal game is set up with the module (it says
    so in its first line)."""
    from grailwar.cli import play as text_play

    made = recording_new_game(monkeypatch, text_play)
    args = build_parser().parse_args(["play", "--text", "--lang", "en", "--seed", "3",
                                      "--modules", "tactics", "--option",
                                      "tactics.concentration=0"])
    out = io.StringIO()
    assert text_play.run(args, io.StringIO(""), out) == 0
    assert made[0].settings.options == OFF
    assert "modules tactics(concentration=False)" in out.getvalue().splitlines()[0]
