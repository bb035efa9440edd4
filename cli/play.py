"""`grailwar play --text`: the terminal game against bots in every other seat.

It prints what your seat sees and the numbered list of your legal actions, and reads your
choice. `grailwar play` itself opens the desktop client (`cli/client.py` registers it, with
`connect` and `tour`).
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import TextIO

from ..shared.bots import make_bot
from ..shared.engine import legal_actions, new_game, play, view_for
from ..shared.engine.data import CLASSES
from ..shared.engine.text import event_line
from ..shared.engine.view import events_for
from . import modules as module_args


def register(sub: argparse._SubParsersAction) -> None:
    """`play` (the client, or this terminal game with --text), `connect` and `tour`."""
    from . import client

    client.register(sub)


def status(view: dict) -> str:
    me = view["camps"][view["you"]]
    return (f"day {view['day']} {view['turn']} | {me['cls']} HP {me['hp']}/{me['max_hp']} "
            f"MP {me['mp']}/{me['max_mp']} CS {me['spells']} hand {me['hand'] or '-'} "
            f"@{me['pos']}")


def run(args: argparse.Namespace, stdin: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    classes = [args.cls, *[c for c in CLASSES if c != args.cls]]
    lang = getattr(args, "lang", None) or "ja"
    modules, options = module_args.parse(args.modules, args.option)  # checked by run_play
    state = new_game(seed=seed, classes=classes, modules=modules, options=options)
    bots = [make_bot(args.bots, seed + i) for i in range(len(classes))]
    me = 0
    print(f"Grail War (seed {seed}): you are seat 0, {args.cls}"
          f"{', modules ' + module_args.describe(options) if modules else ''}. Ctrl-D quits.",
          file=out)
    while not state.over:
        seats = sorted(state.prompt.seats)
        seat = me if me in seats else seats[0]
        legal = legal_actions(state, seat)
        if seat == me:
            view = view_for(state, me)
            print(f"\n{status(view)} -- {view['prompt']['kind']}", file=out)
            for i, action in enumerate(legal):
                print(f"  {i:>3}: {action}", file=out)
            line = stdin.readline()
            if not line:
                return 0
            try:
                action = legal[int(line)]
            except (ValueError, IndexError):
                print("  (type one of the numbers above)", file=out)
                continue
        else:
            bot = bots[seat]
            action = bot.choose(view_for(state, seat) if bot.needs_view else None, legal)
        for event in events_for(play(state, action), me):
            print("  " + event_line(event, lang), file=out)
    print(f"\nGame over. Winner: {state.camps[state.winner].cls if state.winner >= 0 else 'none'}",
          file=out)
    return 0
