"""`grailwar play --text`: the terminal game against bots in every other seat.

It prints what your seat sees and the numbered list of your legal actions in the chosen
language, named as the desktop client names them (its view-model, `client/model.py`), and reads
your choice. `grailwar play` itself opens the desktop client (`cli/client.py` registers it, with
`connect` and `tour`).
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import TextIO

from ..client import config
from ..client.i18n import LANGS
from ..client.model import ClientModel, verb_of
from ..client.tour import state_message
from ..shared.bots import make_bot
from ..shared.engine import legal_actions, new_game, play, view_for
from ..shared.engine.data import CLASSES
from ..shared.engine.view import events_for
from . import modules as module_args


def status(model: ClientModel) -> str:
    """The seat's line: day and turn, class, HP, MP, Command Spells, hand and square."""
    tr, view, me = model.tr, model.view, model.my_camp
    hand = " ".join(tr.card(c) for c in me["hand"]) or tr("panel.no_hand")
    return " | ".join((
        f"{tr('turn.day', day=view['day'])} {tr('turn.' + view['turn'])}",
        f"{tr.cls(me['cls'])} {tr('panel.hp')} {me['hp']}/{me['max_hp']} "
        f"{tr('panel.mp')} {me['mp']}/{me['max_mp']} {tr('panel.command_spells')} {me['spells']}",
        f"{tr('panel.hand')} {hand}", tr("panel.position", square=model.square_name(me["pos"]))))


def action_line(model: ClientModel, action: dict) -> str:
    """An action as the client's button and menu name it: "移動: 市役所", "Rest"."""
    verb = model.tr(f"verb.{verb_of(action)}")
    label = model.option(action).label
    return label if label == verb else f"{verb}: {label}"


def language(args: argparse.Namespace) -> str:
    """--lang, else the language the desktop client remembers, else Japanese."""
    remembered = config.stored().get("lang")
    return args.lang or (remembered if remembered in LANGS else "ja")


def run(args: argparse.Namespace, stdin: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    classes = [args.cls, *[c for c in CLASSES if c != args.cls]]
    model = ClientModel(language(args))
    modules, options = module_args.parse(args.modules, args.option)  # checked by run_play
    state = new_game(seed=seed, classes=classes, modules=modules, options=options)
    bots = [make_bot(args.bots, seed + i) for i in range(len(classes))]
    me = 0
    tr = model.tr
    mods = tr("text.modules", modules=module_args.describe(options)) if modules else ""
    print(tr("text.intro", seed=seed, cls=tr.cls(args.cls), modules=mods), file=out)
    model.handle(state_message(state, me))  # the camps the first events name
    while not state.over:
        seats = sorted(state.prompt.seats)
        seat = me if me in seats else seats[0]
        legal = legal_actions(state, seat)
        if seat == me:
            model.handle(state_message(state, me))
            print(f"\n{status(model)} -- {tr('prompt.' + model.prompt_kind)}", file=out)
            for i, action in enumerate(model.legal):
                print(f"  {i:>3}: {action_line(model, action)}", file=out)
            line = stdin.readline()
            if not line:  # Ctrl-D mid-game: how a game is played over several evenings
                print("\n" + tr("text.not_kept"), file=out)
                return 0
            try:
                action = legal[int(line)]
            except (ValueError, IndexError):
                print("  " + tr("text.pick"), file=out)
                continue
        else:
            bot = bots[seat]
            action = bot.choose(view_for(state, seat) if bot.needs_view else None, legal)
        for event in events_for(play(state, action), me):
            line = model.event_text(event)  # as the client's log words it ("" for none)
            if line:
                print("  " + line, file=out)
    winner = tr("end.winner", cls=tr.cls(state.camps[state.winner].cls)) if state.winner >= 0 \
        else tr("end.no_winner")
    print(f"\n{tr('end.title')}: {winner}", file=out)
    return 0
