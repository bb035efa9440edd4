"""The action bar's presenter: the verbs of the prompt, their options, why a verb is
greyed, the confirmations, and the hand. A part of `ClientModel` (mixed in): it reads the
state the model keeps and never decides legality (the `legal` list does)."""

from __future__ import annotations

import math
from typing import Any

from ...shared.engine.prompts import PROMPTS
from ...shared.engine.turns import PRIORITY
from ..viewdata import (
    CONFIRM_KINDS,
    PRIORITY_VERBS,
    SKILL_TIMINGS,
    SLEEP_VERBS,
    Option,
    Question,
    Verb,
    card_of,
    verb_of,
)


class Actions:
    """The prompt's clocks and status, the verbs and their options (mixed into `ClientModel`)."""

    def seconds_left(self, seat: int, now: float) -> int | None:
        """Whole seconds left, counted down as a clock does: 60 until a whole second has
        passed, 0 only when the time is up."""
        if not self.state:
            return None
        left = self.state["deadlines"].get(str(seat))
        if left is None:
            return None
        if self.paused:  # the clocks stand still
            return max(0, math.ceil(left))
        return max(0, math.ceil(left - (now - self.state_at)))

    def my_seconds_left(self, now: float) -> int | None:
        me = self.me
        if me is None or me not in self.prompted_seats:
            return None
        return self.seconds_left(me, now)

    def deciding(self, now: float) -> list[tuple[int, str, int | None]]:
        """Every living camp in the declaration window: (seat, status, seconds left).
        status: deciding | declared | bound | dead."""
        view = self.view
        if not view:
            return []
        declared = {d["seat"] for d in view["declarations"]}
        bound = set(view.get("bound", []))
        prompted = set(self.prompted_seats)
        out = []
        for camp in view["camps"]:
            seat = camp["seat"]
            if not camp["alive"]:
                status = "dead"
            elif seat in prompted:
                status = "deciding"
            elif seat in declared:
                status = "declared"
            elif seat in bound:
                status = "bound"
            else:
                status = "declared" if view["prompt"]["kind"] == "declare" else "waiting"
            out.append((seat, status, self.seconds_left(seat, now) if seat in prompted else None))
        return out

    @property
    def in_priority_phase(self) -> bool:
        """This seat may still make a priority declaration in the turn's priority phase (its
        countdown is the phase's)."""
        phase = (self.view or {}).get("priority")
        return bool(phase and phase["open"] and self.me not in phase["passed"]
                    and self.prompt_kind == "declare" and self.my_turn)

    def sleep_warning(self) -> bool:
        """At the day's last declaration, a Master that has not rested today falls asleep at
        the day's end (turns.end_day; one asleep today wakes whatever it does)."""
        view, camp, me = self.view, self.my_camp, self.me
        return bool(view and camp and camp["alive"] and not camp["asleep"]
                    and self.prompt_kind == "declare" and view["turn"] == "night"
                    and not view["rested"][me])

    # --- actions --------------------------------------------------------------------------------
    def verb_keys(self) -> tuple[str, ...]:
        """The prompt's verbs in order (a module's only where its game offers them), then any
        other verb a legal action has."""
        kind = self.prompt_kind
        record = PROMPTS.get(kind) or PROMPTS["main" if self.in_battle else "declare"]
        offered = {v for m in (self.view or {}).get("modules", {}).values()
                   for v in m.get("verbs", ())}
        hidden = frozenset().union(*(p.hidden_verbs(self) for p in self.parts()))
        keys = tuple(k for k in record.verbs if (k not in record.verb_modules or k in offered)
                     and k not in hidden)
        extra = tuple(dict.fromkeys(verb_of(a) for a in self.legal
                                    if verb_of(a) not in keys and verb_of(a) not in hidden))
        return keys + extra

    def verbs(self) -> list[Verb]:
        """The action bar: every verb of this prompt, enabled only if some legal action has it."""
        grouped: dict[str, list[dict[str, Any]]] = {}
        for action in self.legal:
            grouped.setdefault(verb_of(action), []).append(action)
        out = []
        for key in self.verb_keys():
            actions = grouped.get(key, [])
            help_text = self.tr(f"verb_help.{key}")
            if not actions:  # a greyed verb says which targets are ruled out, and why
                help_text = "\n".join([help_text, *(f"{o.label} — {o.help}"
                                                    for o in self.ruled_out_options(key))])
            out.append(Verb(key, self.tr(f"verb.{key}"), help_text, bool(actions),
                            [self.option(a) for a in actions],
                            "" if actions else self.tr(f"verb_why.{self.why_disabled(key)}")))
        return out

    def why_disabled(self, verb: str) -> str:
        """The `verb_why` key of why a verb has no legal action, read from the view alone."""
        view, camp = self.view, self.my_camp
        if not view or not camp or not self.state or not self.state["legal"]:
            return "other"
        declare = self.prompt_kind == "declare"
        skills = self.skills_for(verb) if verb in SKILL_TIMINGS else []
        phase = view.get("priority")  # turns.window_open: the phase, or the race without one
        rules = (
            ("asleep", declare and camp["asleep"] and verb not in SLEEP_VERBS),
            ("passed", verb in PRIORITY_VERBS and phase is not None
             and self.me in phase["passed"]),
            ("phase_over", verb in PRIORITY_VERBS and phase is not None and not phase["open"]),
            ("window", verb in PRIORITY_VERBS and phase is None
             and any(d["kind"] not in PRIORITY for d in view["declarations"])),
            ("eaten", verb == "DeclareSoulEating" and camp["pos"] in view["eaten"]),
            ("no_reach", verb == "DeclareEncounter"),
            ("no_ambush", verb == "DeclareAmbush"),
            ("used", skills and all(sk.id in camp.get("skills_used", ()) for sk in skills)),
            ("mp", skills and all(not self.can_afford(sk.owner, sk.mp) for sk in skills)),
        )
        return next((key for key, applies in rules if applies), "other")

    def skills_for(self, verb: str) -> list[Any]:
        """The own camp's skills (Servant's and Master's) that a skill verb may use."""
        camp = self.my_camp or {}
        table = self.tr.rules.skills
        ids = [*camp.get("skills", ()), *camp.get("master_skills", ())]
        return [table[i] for i in ids if i in table and table[i].timing in SKILL_TIMINGS[verb]]

    def can_afford(self, owner: str, mp: int) -> bool:
        """A Master's skill is paid from the Master's MP; a Servant's from both (core.can_pay)."""
        camp = self.my_camp or {}
        master_mp = camp.get("master_mp", 0)
        return mp <= master_mp if owner == "master" else mp < camp.get("mp", 0) + master_mp

    def options(self, verb: str, card: str | None = None) -> list[Option]:
        opts = [self.option(a) for a in self.legal if verb_of(a) == verb]
        if card is not None:
            opts = [o for o in opts if o.card == card]
        return opts

    def menu(self, verb: str) -> list[Option]:
        """A verb's options as its menu shows them: the legal ones, then the ruled-out ones."""
        return self.options(verb) + self.ruled_out_options(verb)

    def ruled_out_options(self, verb: str) -> list[Option]:
        """Targets in reach that a module's rules rule out, as options shown disabled with the
        reason. They carry no action: nothing can send them."""
        return [o for part in self.parts() for o in part.ruled_out(self, verb)]

    def aimed(self, skill: str, target: int) -> str:
        """A skill and its target as an option names them."""
        label = self.tr.skill(skill)
        if target >= 0 and target != self.me:
            label += " " + self.tr("option.target", target=self.who(target))
        return label

    def grouped(self, options: list[Option], group: str | None) -> list[Option]:
        """A long menu in two steps: one heading per group (a Command Spell with its many
        squares or card sets), then that group's options."""
        if group:
            return [o for o in options if o.group == group]
        groups: dict[str, list[Option]] = {}
        for o in options:
            groups.setdefault(o.group, []).append(o)
        if len(groups) <= 1 or "" in groups or len(options) <= 10:
            return options
        tr = self.tr
        heads = []
        for key, opts in groups.items():
            if len(opts) == 1:
                heads.append(opts[0])
            else:
                heads.append(Option(tr("option.spell", name=tr.spell(key),
                                       cost=tr.spell_cost(key)) + " …", None,
                                    tr.spell_text(key), group=key))
        return heads

    def option(self, a: dict[str, Any]) -> Option:
        """One legal action as its menu shows it: a label, a hover text, and what it points at
        (a target, a square, a card)."""
        tr = self.tr
        kind = a["type"]
        me = self.me
        target = a.get("target", -1)

        def whom(seat: int) -> str:
            return tr("option.self") if seat == me else self.who(seat)

        help_text = tr(f"verb_help.{verb_of(a)}")
        for part in self.parts():
            own = part.option(self, a, help_text)
            if own is not None:
                return own
        if kind == "Move":
            name = tr.square(self.view["map"], a["to"])
            return Option(name, a, help_text, square=a["to"])
        if kind == "DeclareEncounter":
            label = f"{whom(target)} · {tr('intent.' + a['intent'])}"
            key = f"intent_help.{a['intent']}"  # each intent says what it does (issue 32)
            return Option(label, a, tr(key) if tr.has(key) else help_text, target=target)
        if kind in ("DeclareAmbush", "DeclareNoblePhantasm", "UseNoblePhantasm"):
            return Option(tr("option.target", target=whom(target)), a, help_text, target=target)
        if kind == "DeclareInvestigate":
            cls = a["target_class"]
            seat = next((c["seat"] for c in self.view["camps"] if c["cls"] == cls), -1)
            tier = (self.my_camp or {}).get("known", {}).get(cls, 0)
            return Option(f"{tr.cls(cls)} ({tr('dossier.tier', n=tier)})", a, help_text,
                          target=seat)
        if kind == "DeclareSkill":
            return Option(tr.skill(a["skill"]), a, tr.skill_text(a["skill"]))
        if kind == "UseSkill":
            label = self.aimed(a["skill"], a.get("target", -1))
            if a.get("extra"):
                label += " + " + tr.skill(a["extra"])
            return Option(label, a, tr.skill_text(a["skill"]), target=a.get("target", -1))
        if kind in ("Attack", "React"):
            return self.card_option(a, help_text, whom(target))
        if kind == "ChooseReward":
            return Option(self.reward_label(a["reward"]), a, help_text)
        if kind == "UseCommandSpell":
            return self.spell_option(a)
        return Option(tr(f"verb.{verb_of(a)}"), a, help_text)

    def card_option(self, a: dict[str, Any], help_text: str, whom: str) -> Option:
        """An Attack (its target, and its card kind: Luck with or without a card) or a React
        (its reaction, with its card or none)."""
        tr, card = self.tr, a["card"]
        if a["type"] == "Attack":
            kind_name = tr.card(a["kind"])
            if a["kind"] == "L":
                how = tr("option.with_card", kind=kind_name, card=tr.card(card)) if card else \
                    tr("option.no_card", kind=kind_name)
            else:
                how = kind_name
            return Option(f"{whom} · {how}", a, help_text, card=card, target=a["target"])
        verb = tr(f"verb.{verb_of(a)}")
        label = tr("option.with_card", kind=verb, card=tr.card(card)) if card else \
            tr("option.no_card", kind=verb)
        return Option(label, a, help_text, card=card)

    def spell_option(self, a: dict[str, Any]) -> Option:
        """A Command Spell: its name and cost, and its argument (a square, or cards)."""
        tr, spell = self.tr, a["spell"]
        name = tr("option.spell", name=tr.spell(spell), cost=tr.spell_cost(spell))
        arg = a.get("arg", "")
        if arg:
            shown = tr.square(self.view["map"], int(arg)) if arg.isdigit() else \
                "".join(tr.card(c)[:1] for c in arg)
            name = tr("option.spell_arg", name=name, arg=shown)
        square = int(arg) if arg.isdigit() else -1
        return Option(name, a, tr.spell_text(spell), square=square, group=spell,
                      danger=self.is_suicide(a))

    def confirmation(self, action: dict[str, Any]) -> Question | None:
        """The question to ask before sending `action`; None: send it at once. The text names
        the Command Spell (cost, square or cards, what it does) or the Noble Phantasm and its
        target; Suicide asks in its own words, and its OK button says what it does."""
        kind = action["type"]
        if any(kind in part.np_firings for part in self.parts()):
            kind = "UseNoblePhantasm"  # a module's firing asks the same question
        if kind not in CONFIRM_KINDS:
            return None
        tr, option = self.tr, self.option(action)
        if self.is_suicide(action):
            return Question(tr("suicide.title"), "\n".join(
                (option.label, tr.spell_text(action["spell"]), tr("suicide.warning"))),
                tr("suicide.ok"))
        if kind == "UseCommandSpell":
            text = f"{option.label}\n{tr.spell_text(action['spell'])}"
        else:  # a Noble Phantasm: and what firing it spends (issue 32: said nowhere)
            np_id = (self.my_camp or {}).get("noble_phantasm")
            text = f"{tr.np_name(np_id)} {option.label}"
            np = tr.np_by_id(np_id) if np_id else None
            if np is not None:
                text += "\n" + tr("confirm.np_cost", cards=f"{tr.card(np.card)}×{np.cards}",
                                  mp=np.mp)
        return Question(tr(f"confirm.{kind}"), text, tr("confirm.ok"))

    def is_suicide(self, action: dict[str, Any]) -> bool:
        """A Command Spell that kills one's own Servant (the `suicide` special)."""
        spell = self.tr.rules.command_spells.get(action.get("spell", "")) if \
            action["type"] == "UseCommandSpell" else None
        return spell is not None and spell.special == "suicide"

    def reward_label(self, reward: str) -> str:
        tr = self.tr
        head, _, rest = reward.partition(":")
        if head == "card":
            return tr("reward.card", card=tr.card(rest))
        if head == "buff":
            return tr("reward.buff", name=tr.buff(rest))
        return tr(f"reward.{head}")

    def move_actions(self) -> dict[int, dict[str, Any]]:
        """Square -> the legal Move action to it (free move, battle move)."""
        return {a["to"]: a for a in self.legal if a["type"] == "Move"}

    def target_seats(self, verb: str | None = None) -> set[int]:
        """Camps that some legal action (of `verb`, if given) targets, not counting oneself."""
        out = set()
        me = self.me
        for a in self.legal:
            if verb is not None and verb_of(a) != verb:
                continue
            t = a.get("target", -1)
            if isinstance(t, int) and t >= 0 and t != me:
                out.add(t)
            if a["type"] == "DeclareInvestigate" and self.view:
                out.update(c["seat"] for c in self.view["camps"] if c["cls"] == a["target_class"])
        return out

    # --- hand -----------------------------------------------------------------------------------
    def hand(self) -> list[dict[str, Any]]:
        """The own hand, each card with whether clicking it can do something now."""
        camp = self.my_camp
        if not camp or not camp.get("hand"):
            return []
        usable = {card_of(a) for a in self.legal if a["type"] in ("Attack", "React")}
        return [{"card": c, "name": self.tr.card(c), "usable": c in usable,
                 "help": self.card_help(c)} for c in camp["hand"]]

    def card_help(self, card: str) -> str:
        tr = self.tr
        text = tr(f"card_help.{card}")
        camp = self.my_camp
        if camp:
            stat = {"B": "str", "A": "end", "Q": "agi"}.get(card)
            if stat:
                rank = camp["ranks"].get(stat, "")
                text += "\n" + tr("card_help.stat", stat=tr.param(stat), value=rank)
        return text
