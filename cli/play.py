"""`grailwar play --text`: the terminal game against bots in every other seat.

Before each of your prompts it prints a short status and where every camp stands, then the
verbs you may use now, numbered; a verb with several choices (targets, squares) asks for one
next. Everything is named as the desktop client names it (its view-model, `client/model.py`),
in the chosen language; `h` explains, `b` goes back to the verbs. `grailwar play` itself opens
the desktop client (`cli/client.py` registers it, with `connect` and `tour`).
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import TextIO

from ..client import config
from ..client.i18n import LANGS, Tr
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


def camps_line(model: ClientModel) -> str:
    """Where every living camp stands: "セイバー 西町住宅街 · アーチャー 市役所 …"."""
    return " · ".join(f"{model.tr.cls(c['cls'])} {model.square_name(c['pos'])}"
                      for c in model.view["camps"] if c["alive"])


def ask(model: ClientModel, stdin: TextIO, out: TextIO) -> dict | None:
    """The verb, then (when it has several) its option: the chosen legal action; None at the
    end of the input."""
    tr = model.tr
    verbs = [v for v in model.verbs() if v.enabled]
    while True:
        print("  " + "  ".join(f"{i + 1}: {v.label} ({len(v.options)})" if len(v.options) > 1
                               else f"{i + 1}: {v.label}" for i, v in enumerate(verbs)), file=out)
        choice = read(stdin, out, tr, len(verbs))
        if choice is None:
            return None
        if choice < 0:
            continue
        options = [o for o in verbs[choice].options if o.action is not None]
        if len(options) == 1:
            return options[0].action
        for i, option in enumerate(options):
            print(f"    {i + 1}: {option.label}", file=out)
        picked = read(stdin, out, tr, len(options))
        if picked is None:
            return None
        if picked >= 0:
            return options[picked].action


def read(stdin: TextIO, out: TextIO, tr: Tr, count: int) -> int | None:
    """A number from 1 to `count`, as an index; -1 for `b`, `h` or anything else (said why);
    None at the end of the input."""
    line = stdin.readline()
    if not line:
        return None
    text = line.strip().lower()
    if text in ("h", "help", "?"):
        print("  " + tr("text.help"), file=out)
        return -1
    if text.isdigit() and 1 <= int(text) <= count:
        return int(text) - 1
    if text != "b":
        print("  " + tr("text.pick", n=count), file=out)
    return -1


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
            print(f"\n{status(model)}\n  {camps_line(model)}\n"
                  f"{tr('prompt.' + model.prompt_kind)}", file=out)
            chosen = ask(model, stdin, out)
            if chosen is None:  # Ctrl-D mid-game: how a game is played over several evenings
                print("\n" + tr("text.not_kept"), file=out)
                return 0
            action = legal[model.legal.index(chosen)]
        else:
            bot = bots[seat]
            action = bot.choose(view_for(state, seat) if bot.needs_view else None, legal)
        for event in events_for(play(state, action), me):
            line = model.event_text(event)  # as the client's log words it ("" for none)
            if line:
                print("  " + line, file=out)
        if seat == me and verb_of(action.to_dict()) == "Move" and me in state.prompt.seats:
            print("  " + tr("text.move_free"), file=out)  # a Move costs no declaration
    winner = tr("end.winner", cls=tr.cls(state.camps[state.winner].cls)) if state.winner >= 0 \
        else tr("end.no_winner")
    print(f"\n{tr('end.title')}: {winner}", file=out)
    return 0
