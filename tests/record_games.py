"""Record the games that tests/test_recorded.py replays: `python tests/record_games.py`.

Each game is played by heuristic bots from a fixed seed with a day limit of 2, and stored in
tests/recorded/<name>.json: the seed, classes, Masters, Servants (summoned at random by the
seed) and day limit; every step's action
(`Action.to_dict()`) with the events it produced (type, data, and who may see them); the final
`to_text`. Rerun this script when a rule changes on purpose, and review the diff.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from grailwar.shared.bots import make_bot
from grailwar.shared.bots.match import run_match
from grailwar.shared.engine import Action, Event, new_game, to_text

HERE = Path(__file__).parent / "recorded"
DAY_LIMIT = 2
GAMES = {  # name: (seed, classes)
    "duel_saber_berserker": (101, ("saber", "berserker")),
    "three_archer_caster_rider": (202, ("archer", "caster", "rider")),
    "three_lancer_assassin_berserker": (303, ("lancer", "assassin", "berserker")),
}


def event_record(event: Event) -> dict[str, Any]:
    """An event as stored: type, data, the seats that see the data, what the others see."""
    return {"type": event.type, "data": event.data,
            "private": None if event.private is None else sorted(event.private),
            "public": event.public}


class Recorder:
    """Wraps a bot and writes down every action it chooses."""

    def __init__(self, bot: Any, actions: list[Action]) -> None:
        self.bot, self.actions = bot, actions
        self.name, self.needs_view = bot.name, bot.needs_view

    def choose(self, view: dict[str, Any] | None, legal: list[Action]) -> Action:
        action = self.bot.choose(view, legal)
        self.actions.append(action)
        return action


def record(seed: int, classes: tuple[str, ...]) -> dict[str, Any]:
    state = new_game(seed=seed, classes=classes, day_limit=DAY_LIMIT)
    masters = [c.master.id for c in state.camps]
    servants = [c.servant.id for c in state.camps]
    actions: list[Action] = []
    steps: list[list[Event]] = []
    bots = [Recorder(make_bot("heuristic", seed * 31 + i), actions) for i in range(len(classes))]
    run_match(state, bots, on_step=lambda _s, events: steps.append(events), arrival_seed=seed)
    return {
        "seed": seed, "classes": list(classes), "masters": masters, "servants": servants,
        "day_limit": DAY_LIMIT,
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


def main() -> int:
    HERE.mkdir(exist_ok=True)
    for name, (seed, classes) in GAMES.items():
        game = record(seed, classes)
        path = HERE / f"{name}.json"
        path.write_text(dump(game), encoding="utf-8")
        print(f"{path}: {len(game['steps'])} steps, {path.stat().st_size // 1024} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
