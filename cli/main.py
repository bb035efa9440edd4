"""`grailwar` command line: one sub-command per job, each in its own module."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="grailwar", description="Grail War Online")
    sub = parser.add_subparsers(dest="command", required=True)
    from . import admin, bot, client, db, scenario, serve, simulate, tournament

    # (`client` registers `play`, the desktop client or, with --text, the terminal game)
    for module in (admin, bot, client, db, scenario, serve, simulate, tournament):
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except BrokenPipeError:  # `grailwar scenario … --json | head`: the reader has had enough
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # (no error at exit)
        return 1


if __name__ == "__main__":
    sys.exit(main())
