"""The bots' module door (`shared/bots/modules`, issue 31): every rules module reaches the bots
and `grailwar simulate` through the `BotPart` registered under its name, and the base bots and
the commands name none. A module a test defines registers its own part from here and is asked
at every hook: by the normal bot, by the hard bot's rollouts, by `simulate` for its figures."""

from __future__ import annotations

import argparse
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from grailwar.cli import modules as module_args
from grailwar.cli import simulate as simulate_cli
from grailwar.shared.bots import HardBot, HeuristicBot
from grailwar.shared.bots import modules as bot_door
from grailwar.shared.bots.match import run_match
from grailwar.shared.bots.policy import rollout_action
from grailwar.shared.engine import legal_actions, new_game, view_for
from grailwar.shared.engine.actions import Action, DeclareWait
from grailwar.shared.engine.events import Event
from grailwar.shared.engine.modules import MODULES, Module, scenario_module
from grailwar.shared.engine.state import GameState
from helpers import duel, ready_all

ROOT = Path(__file__).resolve().parent.parent
PROBE = "probe"
CLASSES = ("saber", "lancer", "archer")


class Probe(Module):
    """A rules module without a rule: its games play as the base game's."""

    name = PROBE


class Tally(bot_door.Figures):
    """The probe's figures: games and steps seen."""

    def __init__(self) -> None:
        self.games = self.steps = 0

    def step(self, state: GameState, events: list[Event]) -> None:
        self.steps += 1

    def game_over(self, state: GameState) -> None:
        self.games += 1

    def summary(self) -> dict[str, Any]:
        return {"games": self.games, "steps": self.steps}

    @staticmethod
    def line(summary: dict[str, Any]) -> str | None:
        return f"probe games {summary['games']}"


def counted(hook: str) -> Any:
    """A hook that counts being asked and has no opinion."""
    def ask(self: ProbePart, *args: Any) -> None:
        self.asked[hook] += 1

    return ask


class ProbePart(bot_door.BotPart):
    """Counts every hook it is asked; with `waits`, every declaration is a Wait."""

    name = PROBE
    figures = Tally
    declaration = counted("declaration")
    round_start = counted("round_start")
    focus = counted("focus")
    main = counted("main")
    reaction = counted("reaction")
    ground = counted("ground")

    def __init__(self) -> None:
        self.asked: Counter[str] = Counter()
        self.waits = False

    def first(self, bot: bot_door.NormalBot, view: dict[str, Any], me: dict[str, Any],
              legal: list[Action]) -> Action | None:
        self.asked["first"] += 1
        wait = DeclareWait(me["seat"])
        return wait if self.waits and wait in legal else None


@pytest.fixture
def probe(monkeypatch: pytest.MonkeyPatch) -> ProbePart:
    """The probe module and its bot part, registered for one test only."""
    monkeypatch.setitem(MODULES, PROBE, Probe)
    monkeypatch.setattr(bot_door, "PARTS", dict(bot_door.PARTS))
    bot_door.register(ProbePart)
    part = bot_door.PARTS[PROBE]
    assert isinstance(part, ProbePart)
    return part


def test_the_shipped_parts_are_found_without_being_named() -> None:
    """Every shipped module has its part, registered by importing the package; the door's own
    file names none of them."""
    assert set(MODULES) <= set(bot_door.PARTS)
    assert all(part.name == name for name, part in bot_door.PARTS.items())
    door = (ROOT / "shared" / "bots" / "modules" / "__init__.py").read_text(encoding="utf-8")
    assert not re.search("|".join(MODULES), door, re.IGNORECASE)


def test_a_second_part_of_one_module_is_refused(probe: ProbePart) -> None:
    with pytest.raises(ValueError, match="taken"):
        bot_door.register(ProbePart)


def test_the_normal_bot_asks_a_test_module_s_part_at_every_hook(probe: ProbePart) -> None:
    """A whole game of normal bots with the probe on: its part is asked first at every prompt,
    at each declaration, at each round's start and Main Action, and before a Reaction."""
    s = new_game(seed=3, classes=CLASSES, modules=[PROBE])
    result = run_match(s, [HeuristicBot(i) for i in range(len(CLASSES))], arrival_seed=3)
    assert result.steps == probe.asked["first"]
    for hook in ("declaration", "round_start", "focus", "main", "reaction"):
        assert probe.asked[hook] > 0, hook


def test_a_part_s_action_is_the_bot_s(probe: ProbePart) -> None:
    """The probe's part makes every declaration a Wait: nobody ever fights, the war ends at
    its day limit with nobody's win; without the part's say the same game has battles."""
    def play(part_waits: bool) -> tuple[int, list[int]]:
        probe.waits = part_waits
        s = new_game(seed=3, classes=CLASSES, modules=[PROBE])
        result = run_match(s, [HeuristicBot(i) for i in range(len(CLASSES))], arrival_seed=3)
        return result.winner, result.battle_rounds

    assert play(True) == (-1, [])
    assert play(False)[1]


def test_the_rollout_policy_and_the_hard_bot_ask_the_part(probe: ProbePart) -> None:
    """The rollout policy asks the part for the battlefield of a Main Action; so do the hard
    bot's playouts, whose choice stays a legal one."""
    s = ready_all(duel(("saber", "lancer"), modules=[PROBE]))
    seat = min(s.prompt.seats)
    rng = random.Random(0)
    assert s.prompt.kind == "main"
    assert rollout_action(s, seat, legal_actions(s, seat), rng) in legal_actions(s, seat)
    assert probe.asked["ground"] == 1
    legal = legal_actions(s, seat)
    assert HardBot(1, iterations=4).choose(view_for(s, seat), legal) in legal
    assert probe.asked["ground"] > 1


def test_simulate_reports_a_part_s_figures(probe: ProbePart,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """`simulate` gathers each module's figures under its name, and prints their line."""
    out = simulate_cli.simulate(2, 0, ["normal"], ["saber", "lancer"], modules=[PROBE])
    assert out["modules"] == [PROBE] and out["errors"] == 0
    assert out[PROBE]["games"] == 2 and out[PROBE]["steps"] > 0
    parser = argparse.ArgumentParser()
    simulate_cli.register(parser.add_subparsers())
    args = parser.parse_args(["simulate", "--games", "1", "--classes", "saber,lancer",
                              "--modules", PROBE])
    assert args.run(args) == 0
    assert "probe games 1" in capsys.readouterr().out.splitlines()


def test_scenario_is_the_module_with_a_scenario_option() -> None:
    """`--scenario X` is `--modules M --option M.scenario=X` for the module M whose options
    include `scenario`, for every value it takes."""
    found = scenario_module()
    assert found is not None
    name, spec = found
    assert "scenario" in MODULES[name].options
    for value in spec.choices:
        assert module_args.parse("", [], value) == module_args.parse(
            name, [f"{name}.scenario={value}"])
