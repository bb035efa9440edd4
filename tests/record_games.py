"""Record what tests/test_recorded.py replays: `python tests/record_games.py`.

Each game is played by normal bots (`make_bot("normal", ...)`) in every seat from a fixed seed
with a short day limit, and stored in tests/recorded/<name>.json: the seed, classes, Masters,
Servants (summoned at random by the seed) and day limit; for a game with rules modules, the
`modules` and `options` given to `new_game` (and `priority_phase` when on); every step's action
(`Action.to_dict()`) with the events it produced (type, data, and who may see them); the final
`to_text`. GAMES: three base games (no module), one with the priority phase, one or two per
rules module (tactics, the Colossus in a Grail War, the raid room), the campaign alone and with
tactics.

It also stores in tests/recorded/simulate/<name>.txt what `grailwar simulate` prints for a
few small runs (SIMULATIONS), so "simulate output unchanged" is a test too.

Rerun this script when a rule changes on purpose, and review the diff of tests/recorded/.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grailwar.cli.main import main as cli_main
from grailwar.shared.bots import make_bot
from grailwar.shared.bots.match import run_match
from grailwar.shared.engine import Action, Event, new_game, to_text

HERE = Path(__file__).parent / "recorded"
SIMULATED = HERE / "simulate"


@dataclass(frozen=True)
class Setup:
    """What a recorded game gives `new_game` (besides the seed's own draws)."""
    seed: int
    classes: tuple[str, ...]
    day_limit: int = 2
    modules: tuple[str, ...] = ()
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    priority_phase: bool = False

    def new_game_args(self) -> dict[str, Any]:
        return {"seed": self.seed, "classes": self.classes, "day_limit": self.day_limit,
                "modules": self.modules, "options": self.options,
                "priority_phase": self.priority_phase}


GAMES = {
    # the base game, no module
    "duel_saber_berserker": Setup(101, ("saber", "berserker")),
    "three_archer_caster_rider": Setup(202, ("archer", "caster", "rider")),
    "three_lancer_assassin_berserker": Setup(303, ("lancer", "assassin", "berserker")),
    # the base game with each turn opening on a priority phase (a room with priority_s > 0)
    "priority_phase_saber_archer_lancer": Setup(909, ("saber", "archer", "lancer"),
                                                priority_phase=True),
    # one game per module (colossus brings tactics), and the campaign with tactics
    "tactics_saber_lancer_caster": Setup(404, ("saber", "lancer", "caster"),
                                         modules=("tactics",)),
    # the Colossus in a Grail War, woken on day 1 so that a 3-day game sees its raids
    "colossus_war_archer_rider_berserker": Setup(
        505, ("archer", "rider", "berserker"), day_limit=3, modules=("colossus",),
        options={"colossus": {"colossus_day": 1}}),
    # the raid room (§5.7): two camps fell the Colossus; one camp alone does not
    "colossus_raid_saber_caster": Setup(
        609, ("saber", "caster"), modules=("colossus",),
        options={"colossus": {"scenario": "colossus_raid"}}),
    "colossus_raid_solo_saber": Setup(
        606, ("saber",), modules=("colossus",),
        options={"colossus": {"scenario": "colossus_raid"}}),
    "campaign_saber_archer_assassin": Setup(709, ("saber", "archer", "assassin"),
                                            modules=("campaign",)),
    # the campaign with tactics, its Servants summoned by the relic draft (C14.1)
    "campaign_tactics_relic_lancer_rider_caster": Setup(
        808, ("lancer", "rider", "caster"), modules=("campaign", "tactics"),
        options={"campaign": {"summoning": "relic"}}),
}

# name: the arguments of `grailwar simulate` whose printout tests/recorded/simulate/<name>.txt
# keeps (a few games each, so the test runs in seconds)
SIMULATIONS = {
    "base": ("--games", "3", "--seed", "1"),
    "tactics": ("--games", "3", "--seed", "1", "--modules", "tactics"),
    "colossus": ("--games", "2", "--seed", "1", "--modules", "colossus"),
    "colossus_raid": ("--games", "3", "--seed", "1", "--scenario", "colossus_raid"),
    "campaign": ("--games", "3", "--seed", "1", "--modules", "campaign"),
    "campaign_tactics": ("--games", "2", "--seed", "1", "--modules", "campaign,tactics"),
}


def event_record(event: Event) -> dict[str, Any]:
    """An event as stored: type, data, the seats that see the data, what the others see."""
    return {"type": event.type, "data": event.data,
            "private": None if event.private is None else sorted(event.private),
            "public": event.public}


def setup_of(game: dict[str, Any]) -> Setup:
    """The set-up a stored game was recorded from (a base game stores no `modules`)."""
    return Setup(game["seed"], tuple(game["classes"]), game["day_limit"],
                 tuple(game.get("modules", ())), game.get("options", {}),
                 game.get("priority_phase", False))


class Recorder:
    """Wraps a bot and writes down every action it chooses."""

    def __init__(self, bot: Any, actions: list[Action]) -> None:
        self.bot, self.actions = bot, actions
        self.name, self.needs_view = bot.name, bot.needs_view

    def choose(self, view: dict[str, Any] | None, legal: list[Action]) -> Action:
        action = self.bot.choose(view, legal)
        self.actions.append(action)
        return action


def record(setup: Setup) -> dict[str, Any]:
    state = new_game(**setup.new_game_args())
    masters = [c.master.id for c in state.camps]
    servants = [c.servant.id for c in state.camps]
    actions: list[Action] = []
    steps: list[list[Event]] = []
    bots = [Recorder(make_bot("normal", setup.seed * 31 + i), actions)
            for i in range(len(setup.classes))]
    run_match(state, bots, on_step=lambda _s, events: steps.append(events),
              arrival_seed=setup.seed)
    head: dict[str, Any] = {
        "seed": setup.seed, "classes": list(setup.classes), "masters": masters,
        "servants": servants, "day_limit": setup.day_limit}
    if setup.modules:  # a base game's file stays as it was before modules
        head |= {"modules": list(setup.modules), "options": setup.options}
    if setup.priority_phase:
        head["priority_phase"] = True
    return head | {
        "steps": [{"action": a.to_dict(), "events": [event_record(e) for e in events]}
                  for a, events in zip(actions, steps, strict=True)],
        "final": to_text(state),
    }


def dump(game: dict[str, Any]) -> str:
    """JSON with one step per line, so a rule change shows as a readable diff."""
    head = {k: v for k, v in game.items() if k != "steps"}
    lines = [json.dumps(step, ensure_ascii=False, separators=(",", ":"))
             for step in game["steps"]]
    body = json.dumps(head, ensure_ascii=False, indent=1)[:-2]
    return body + ',\n "steps": [\n' + ",\n".join(lines) + "\n ]\n}\n"


def simulate(args: tuple[str, ...]) -> tuple[int, str, str]:
    """`grailwar simulate ARGS` run in this process: exit status, stdout, stderr (not a
    terminal, so no progress bar)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(["simulate", *args])
    return code, out.getvalue(), err.getvalue()


def main() -> int:
    HERE.mkdir(exist_ok=True)
    for name, setup in GAMES.items():
        game = record(setup)
        path = HERE / f"{name}.json"
        path.write_text(dump(game), encoding="utf-8")
        print(f"{path}: {len(game['steps'])} steps, {path.stat().st_size // 1024} KiB")
    SIMULATED.mkdir(exist_ok=True)
    for name, args in SIMULATIONS.items():
        code, out, err = simulate(args)
        if code != 0 or err:
            print(f"grailwar simulate {' '.join(args)}: exit {code}\n{err}", file=sys.stderr)
            return 1
        path = SIMULATED / f"{name}.txt"
        path.write_text(out, encoding="utf-8")
        print(f"{path}: grailwar simulate {' '.join(args)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
