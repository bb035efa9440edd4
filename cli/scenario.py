"""`grailwar scenario FILE.toml`: set up a game, force dice, play listed actions, print the log.

This is how anyone checks a rule by hand; the format is described in docs/scenarios.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from pathlib import Path
from typing import Any

from ..shared.engine import RulesError, apply, default_action, from_dict, new_game, to_text
from ..shared.engine.modules import MODULES, Module, scenario_module
from ..shared.engine.state import GameState
from ..shared.engine.text import event_line
from ..shared.engine.view import omniscient_view

CAMP_FIELDS = {"pos": int, "hp": int, "mp": int, "master_mp": int, "spells": int, "hand": str}


class ScenarioError(Exception):
    """A scenario file that cannot be run; the message names the step and the reason."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("scenario", help="run a scenario file (setup, forced dice, actions)")
    p.add_argument("file", type=Path)
    p.add_argument("--json", action="store_true", help="print the events and state as JSON")
    p.add_argument("--lang", default="en", choices=("ja", "ko", "en"),
                   help="the dice lines' result words (default en, as the rest of the lines; ja "
                        "and ko write them as their dice bots do)")
    p.set_defaults(run=run)


def setup(spec: dict[str, Any]) -> GameState:
    """The initial state the file describes: the game (with its rules modules), then per-camp
    overrides."""
    kwargs = {k: spec[k] for k in ("seed", "classes", "day_limit", "modules", "masters")
              if k in spec}
    if "servants" in spec:  # absent: every camp summoned at random by the seed
        servants = spec["servants"]
        if not isinstance(servants, list) or not all(isinstance(x, str) for x in servants):
            raise ScenarioError('servants: a list of Servant ids, one per camp ("random": drawn)')
        kwargs["servants"] = [None if x == "random" else x for x in servants]
    if "map" in spec:
        kwargs["map_id"] = spec["map"]
    if "options" in spec:
        options = spec["options"]
        if not isinstance(options, dict) or not all(isinstance(v, dict)
                                                    for v in options.values()):
            raise ScenarioError(f"options: one table per module, e.g. [options.{_example()}]")
        kwargs["options"] = options
    if "scenario" in spec:  # the module with a scenario option, with it (docs/scenarios.md)
        found = scenario_module()
        if found is None:
            raise ScenarioError("scenario: no module has a scenario option")
        name = found[0]
        kwargs["modules"] = [*kwargs.get("modules", []), name]
        kwargs["options"] = {**kwargs.get("options", {}), name: {
            **kwargs.get("options", {}).get(name, {}), "scenario": spec["scenario"]}}
    forced = spec.get("dice", [])
    if not isinstance(forced, list) or not all(type(x) is int for x in forced):
        raise ScenarioError("dice: a list of integers, forced before the game is set up")
    state = new_game(**kwargs, forced=forced)
    module_state = spec.get("module_state", {})
    if not isinstance(module_state, dict) or not all(isinstance(v, dict)
                                                     for v in module_state.values()):
        raise ScenarioError("module_state: one table per module, e.g. "
                            f"[module_state.{_example(with_state=True)}]")
    for name, values in module_state.items():
        m = next((m for m in state.modules if m.name == name), None)
        if m is None:
            raise ScenarioError(f"module_state.{name}: that module is not switched on")
        m.scenario_state(state, values)
    for i, camp in enumerate(spec.get("camp", [])):
        _set_camp(state, i, camp)
    return state


def _set_camp(state: GameState, i: int, camp: dict[str, Any]) -> None:
    """One `[[camp]]` table: the base game's fields, then each module's keys (`camp_keys`)."""
    seat = camp.get("seat")
    if type(seat) is not int or not 0 <= seat < len(state.camps):
        raise ScenarioError(f"camp[{i}].seat: must name a seat 0..{len(state.camps) - 1}")
    owners = {key: m for m in state.modules for key in m.camp_keys}
    target = state.edit(seat)
    for key, value in camp.items():
        if key == "seat" or key in owners:
            continue
        if key not in CAMP_FIELDS or type(value) is not CAMP_FIELDS[key]:
            raise ScenarioError(f"camp[{i}].{key}: not a settable key of that type "
                                f"({', '.join([*CAMP_FIELDS, *owners])})")
        setattr(target, key, value)
    for m in state.modules:
        mine = {key: value for key, value in camp.items() if key in m.camp_keys}
        if mine:
            try:
                m.scenario_camp(state, seat, mine)
            except ValueError as err:
                raise ScenarioError(f"camp[{i}].{err}") from err


def _example(with_state: bool = False) -> str:
    """A module's name for an error's example: the first with options (`with_state`: the
    first that takes a scenario's `[module_state.<name>]`)."""
    for name, cls in MODULES.items():
        takes_state = cls.scenario_state is not Module.scenario_state
        if takes_state if with_state else cls.options:
            return name
    return "NAME"


def run_steps(state: GameState, steps: list[dict[str, Any]]) -> tuple[GameState, list[dict]]:
    """Play each step; an illegal one raises ScenarioError naming the step and the reason."""
    log: list[dict] = []
    for n, step in enumerate(steps, start=1):
        unknown = set(step) - {"dice", "action", "timeout"}
        if unknown:
            raise ScenarioError(f"step {n}: unknown key(s) {sorted(unknown)}")
        forced = step.get("dice", [])
        if not all(isinstance(x, int) for x in forced):
            raise ScenarioError(f"step {n}: dice must be a list of integers")
        state.forced = (*state.forced, *forced)
        try:
            if "timeout" in step:
                action = default_action(state, step["timeout"])
            else:
                action = from_dict(step.get("action"))
            state, events = apply(state, action)
        except RulesError as err:
            raise ScenarioError(f"step {n}: {err}") from err
        log.append({"step": n, "action": action.to_dict(),
                    "events": [{"type": e.type, **e.data} for e in events]})
    return state, log


def run(args: argparse.Namespace) -> int:
    try:
        spec = tomllib.loads(args.file.read_text(encoding="utf-8"))
        state = setup(spec)
        state, log = run_steps(state, spec.get("step", []))
    except (OSError, tomllib.TOMLDecodeError, ValueError, ScenarioError) as err:
        print(f"{args.file}: {err}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"steps": log, "state": omniscient_view(state)}, ensure_ascii=False))
        return 0
    for entry in log:
        print(f"== step {entry['step']}: {entry['action']}")
        for event in entry["events"]:
            print("  " + event_line(event, args.lang))
    print(to_text(state))
    return 0
