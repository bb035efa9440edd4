"""`--modules` and `--option` for every command and bench that sets a game up.

    --modules NAME[,NAME] --option NAME.OPTION=VALUE
    --scenario SCENARIO --option NAME.OPTION=VALUE

`--scenario SCENARIO` is the module whose options include `scenario`
(`engine.modules.scenario_module`), with that option: the same as
`--modules NAME --option NAME.scenario=SCENARIO`.

An option's value is read by the type of its default (bool: true/false, on/off, yes/no, 1/0;
int; str). The result is `engine.modules.normalize`'s (names, options), so a bad name or value
is a ValueError whose message names it.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..shared.engine.modules import MODULES, normalize, scenario_module

BOOLS = {"true": True, "on": True, "yes": True, "1": True,
         "false": False, "off": False, "no": False, "0": False}


def option_example() -> str:
    """`MODULE.OPTION=VALUE` for the first option of the registry, set off its default."""
    for name, cls in MODULES.items():
        for option, spec in cls.options.items():
            value = spec.default
            if type(value) is bool:
                return f"{name}.{option}={str(not value).lower()}"
            return f"{name}.{option}={value}"
    return "MODULE.OPTION=VALUE"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--modules", default="", metavar="NAME[,NAME]",
                        help=f"rules modules to switch on ({', '.join(MODULES) or 'none'})")
    parser.add_argument("--option", action="append", default=[], metavar="MODULE.OPTION=VALUE",
                        help=f"a module's option, e.g. {option_example()} (repeatable)")
    scenario = scenario_module()
    if scenario is not None:
        name, spec = scenario
        parser.add_argument("--scenario", default="", choices=("", *spec.choices),
                            help=f"the {name} module with its scenario option ({spec.doc}); "
                                 f"it switches the {name} module on")


def parse(modules: str, options: list[str], scenario: str = ""
          ) -> tuple[tuple[str, ...], dict[str, dict[str, Any]]]:
    """The resolved (names, options) of `--modules`, the `--option`s and `--scenario`."""
    names = [m.strip() for m in modules.split(",") if m.strip()]
    normalize(names)
    given: dict[str, dict[str, Any]] = {}
    if scenario:
        found = scenario_module()
        if found is None:
            raise ValueError(f"--scenario {scenario!r}: no module has a scenario option")
        names.append(found[0])
        given[found[0]] = {"scenario": scenario}
    for item in options:
        key, eq, text = item.partition("=")
        module, dot, name = key.strip().partition(".")
        if not (eq and dot and module and name):
            raise ValueError(f"--option {item!r}: expected MODULE.OPTION=VALUE")
        given.setdefault(module, {})[name] = _value(module, name, text.strip())
    return normalize(names, given)


def from_args(args: argparse.Namespace, command: str
              ) -> tuple[tuple[str, ...], dict[str, dict[str, Any]]] | None:
    """The command's resolved modules and options, or None once the fault is printed (the
    command then exits with status 2)."""
    try:
        return parse(args.modules, args.option, getattr(args, "scenario", ""))
    except ValueError as err:
        print(f"grailwar {command}: {err}", file=sys.stderr)
        return None


def _value(module: str, name: str, text: str) -> Any:
    """`text` as the option's type; an unknown module or option is left to `normalize`."""
    spec = MODULES[module].options.get(name) if module in MODULES else None
    if spec is None:
        return text
    kind = type(spec.default)
    if kind is bool:
        if text.lower() not in BOOLS:
            raise ValueError(f"module {module!r} option {name!r}: expected true or false, "
                             f"got {text!r}")
        return BOOLS[text.lower()]
    if kind is int:
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"module {module!r} option {name!r}: expected an integer, "
                             f"got {text!r}") from None
    return text


def describe(options: dict[str, dict[str, Any]]) -> str:
    """`name(option=value, ...)`: the modules on with their options, for a report line."""
    return " ".join(f"{name}({', '.join(f'{k}={v}' for k, v in values.items())})"
                    for name, values in options.items())
