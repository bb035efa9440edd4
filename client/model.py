"""The client's view-model: what to draw, computed from the last messages of the server.

Pure Python, no OpenGL and no network: `ClientModel.handle(msg, now)` takes each server message;
the other methods answer what a screen needs (which actions are enabled, their labels and hover
texts, the hand, the map cells, the battle, the dossier, the log). Nothing here decides
legality: the `legal` list of the last `state` message is the only source of enabled actions,
and a click only ever becomes an `act` message carrying one of those action dicts.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..shared.engine.data import CLASSES, Servant
from ..shared.engine.deduction import candidates
from ..shared.engine.prompts import PROMPTS
from ..shared.engine.text import dice_line
from ..shared.engine.turns import PRIORITY
from ..shared.protocol import CLOSED_BY_OPERATOR, LEFT_PAUSED, text_fault
from . import campaign, campaign_text, colossus
from .battle_feed import formula, latest_strike, opposed_targets
from .chatbook import ChatBook, line_text
from .i18n import Tr

MAX_EVENTS = 3000
DICE_KINDS = ("dice", "critical", "fumble")
# The `left` reasons the client explains, each with its catalog key.
LEFT_TEXTS = {"left": "error.left_left", "kicked": "error.left_kicked",
              "resumed elsewhere": "error.left_resumed", CLOSED_BY_OPERATOR: "admin.left_closed",
              LEFT_PAUSED: "error.left_paused"}

# The verbs a rules module adds to the shared prompt records, with the module and the option
# that switch them on: `PROMPTS` is the same for every game, so a game without the module must
# not show them (not even greyed).
# The verbs whose targets a tactics line of fire or sight may rule out (the `what` of each
# `ruled_out` entry of the module's view).
RULED_OUT_VERBS = {"Attack": "attack", "UseSkill": "skill", "ConcentrateCast": "skill"}

# Why a verb without a legal action is greyed (`ClientModel.why_disabled`'s table of rules):
# these sets echo the engine's rules, read from the seat's view only.
PRIORITY_VERBS = frozenset({"DeclareEncounter", "DeclareAmbush", "DeclareSoulEating"})
SKILL_TIMINGS = {"DeclareSkill": ("turn_action",),
                 "UseSkill": ("combat_start", "optional", "own_activation")}
SLEEP_VERBS = frozenset({"DeclareWait", "DeclareRest"})

# Actions that spend what a camp has once (a Command Spell's strokes, the Noble Phantasm's
# charge and MP): the screen asks before it sends them, even with one choice only.
CONFIRM_KINDS = frozenset({"UseCommandSpell", "DeclareNoblePhantasm", "UseNoblePhantasm",
                           "FireAtPart", "ClimbNoblePhantasm"})
# The question a confirmation asks, where another action's says it (the colossus's firings).
CONFIRM_TITLES = {"FireAtPart": "UseNoblePhantasm", "ClimbNoblePhantasm": "UseNoblePhantasm"}


# The action bar of each prompt kind, in display order, comes from its record (`PROMPTS`). A
# verb is enabled when at least one legal action maps to it (`verb_of`).
def verb_of(action: dict[str, Any]) -> str:
    """The action-bar button an action belongs to."""
    kind = action.get("type", "")
    if kind == "Negotiate":
        return "NegotiateFight" if action.get("fight") else "NegotiatePart"
    if kind == "AnswerAmbush":
        return "AmbushFlee" if action.get("flee") else "AmbushFight"
    if kind == "AnswerIntervention":
        return "InterveneJoin" if action.get("join") else "InterveneStay"
    if kind == "React":
        return {"G": "ReactGuard", "L": "ReactLuck"}.get(action.get("kind", ""), "ReactDefend")
    return kind


def card_of(action: dict[str, Any]) -> str:
    """The card an Attack or React spends ("" for none)."""
    return action.get("card", "") if action.get("type") in ("Attack", "React") else ""


@dataclass
class Option:
    """One concrete legal action under a verb, with its label and hover text."""

    label: str
    action: dict[str, Any] | None  # None: a heading that opens `group`'s options
    help: str = ""
    card: str = ""
    target: int = -1
    square: int = -1
    group: str = ""  # options of one Command Spell share a group (its id)
    reason: str = ""  # why it cannot be chosen (a ruled-out target): shown, never sent
    danger: bool = False  # it cannot be undone and costs the camp its Servant (Suicide)


@dataclass
class Verb:
    key: str
    label: str
    help: str
    enabled: bool
    options: list[Option] = field(default_factory=list)
    why: str = ""  # a greyed verb's reason, in words


class Question(NamedTuple):
    """What a confirmation dialog asks before an action is sent, and its OK button's label."""

    title: str
    text: str
    ok: str


@dataclass
class Notice:
    text: str
    level: str = "error"  # error | info
    at: float = 0.0
    sticky: bool = False  # shown until closed (a file saved: where), under later notices


@dataclass
class Cell:
    """One square of the city map."""

    index: int
    x: int
    y: int
    name: str
    leyline: str
    camps: list[dict[str, Any]]
    move: dict[str, Any] | None = None  # the legal Move action to this square, if any
    target: bool = False  # a camp here is a valid target of a legal action
    battle: bool = False
    eaten: bool = False
    mine: bool = False
    zoc: tuple[int, ...] = ()  # seats whose active zone of control covers it (tactics)
    zoc_idle: tuple[int, ...] = ()  # seats whose inactive zone covers it
    blocking: bool = False  # it blocks lines of fire (tactics terrain)


class ClientModel:
    """Everything the client knows, rebuilt from server messages only."""

    def __init__(self, lang: str = "en", tr: Tr | None = None) -> None:
        self.tr = tr or Tr(lang)
        self.server_version: int | None = None
        self.server_name = ""
        self.rooms: list[dict[str, Any]] = []
        self.rooms_total = 0
        self.room: dict[str, Any] | None = None
        self.replay: dict[str, Any] | None = None  # the server's, once the game is over
        self.room_id: int | None = None
        self.seat: int | None = None
        self.token = ""
        self.spectator = False
        self.state: dict[str, Any] | None = None
        self.state_at = 0.0
        self.events: list[dict[str, Any]] = []
        self.chat = ChatBook()
        self.notices: list[Notice] = []
        self.pinned: Notice | None = None  # a sticky notice not closed yet
        self.warning: dict[str, Any] | None = None
        self.connection = "offline"  # offline | connecting | connected | reconnecting
        self.attempt = 0
        self.host = ""
        self.motd = ""  # the server operator's message of the day, from `welcome`
        self.left_reason = ""
        self.sent_state_id = -1  # the state an action was sent on (buttons wait for the next)
        self.revision = 0  # bumped on every change that a screen must redraw for

    # --- messages ------------------------------------------------------------------------------
    def handle(self, msg: dict[str, Any], now: float | None = None) -> str:
        """Take one server message; returns its name (screens redraw on any)."""
        now = time.monotonic() if now is None else now
        kind = msg.get("t", "")
        handler = getattr(self, "_on_" + kind, None)
        if handler is not None:
            handler(msg, now)
        self.revision += 1
        return kind

    def _on_welcome(self, msg: dict[str, Any], now: float) -> None:
        self.server_version = msg.get("version")
        self.server_name = msg.get("server", "")
        self.motd = msg.get("motd", "")
        self.connection = "connected"
        self.attempt = 0

    def _on_rooms(self, msg: dict[str, Any], now: float) -> None:
        self.rooms = list(msg.get("rooms", []))
        self.rooms_total = msg.get("total", len(self.rooms))

    def _on_joined(self, msg: dict[str, Any], now: float) -> None:
        self.room_id = msg["room"]
        self.seat = msg["seat"] if msg["seat"] >= 0 else None
        self.spectator = bool(msg.get("spectator"))
        if msg.get("token"):
            self.token = msg["token"]
        self.left_reason = ""

    def _on_replay(self, msg: dict[str, Any], now: float) -> None:
        self.replay = msg["replay"]

    def _on_room(self, msg: dict[str, Any], now: float) -> None:
        self.room = msg["room"]

    def _on_state(self, msg: dict[str, Any], now: float) -> None:
        self.state = msg
        self.state_at = now
        if self.sent_state_id != -1 and msg["state_id"] != self.sent_state_id:
            self.sent_state_id = -1

    def _keep_events(self, events: list[dict[str, Any]]) -> None:
        """Events kept, the oldest past MAX_EVENTS gone."""
        self.events.extend(events)
        del self.events[:-MAX_EVENTS]

    def _on_events(self, msg: dict[str, Any], now: float) -> None:
        self._keep_events(msg.get("events", []))
        for e in msg.get("events", []):
            text = self.notice_text(e)
            if text:
                self.notify(text, "info", now)

    def _on_timed_out(self, msg: dict[str, Any], now: float) -> None:
        if msg.get("seat") == self.me and self.view is not None:
            self.notify(self.tr("notice.timed_out", action=self.option(msg["action"]).label),
                        "info", now)

    def notice_text(self, e: dict[str, Any]) -> str:
        """The results a player must see on the screen it is on, not only in the log: its own
        investigation's, and a Command Spell's effect (anyone's: the table sees it cast)."""
        kind = e.get("type")
        if kind == "Investigated" and e.get("seat") == self.me:
            return self.event_text(e)
        if kind == "CommandSpellUsed":
            spell = e.get("spell", "")
            return self.tr("notice.command_spell", who=self.who(e.get("seat")),
                           spell=self.tr.spell(spell), effect=self.tr.spell_text(spell))
        return colossus.notice(self, e) or campaign_text.notice(self, e)

    def _on_chat_message(self, msg: dict[str, Any], now: float) -> None:
        self.chat.add({k: v for k, v in msg.items() if k != "t"}, len(self.events))

    def _on_history(self, msg: dict[str, Any], now: float) -> None:
        """The game so far (after joined): the first part replaces the log and the chat."""
        if msg.get("first"):
            self.events.clear()
        self._keep_events(msg.get("events", []))
        self.chat.load(msg.get("chat", []), bool(msg.get("first")))

    def _on_warning(self, msg: dict[str, Any], now: float) -> None:
        self.warning = {**msg, "at": now}
        if msg.get("seat") == self.me and self.state is not None:
            self.notify(self.tr("top.countdown", s=msg.get("seconds")), "info", now)

    def _on_ack(self, msg: dict[str, Any], now: float) -> None:
        pass

    def _on_seat_event(self, msg: dict[str, Any], now: float) -> None:
        """A player dropped, a bot took over, the player came back …: a line in the log (kept
        with the game's events, in order) and a notice on whatever screen is up."""
        event = {"type": "SeatEvent", "seat": msg["seat"], "what": msg["what"],
                 "name": msg["name"], "seconds": msg.get("seconds", 0)}
        self._keep_events([event])
        self.notify(self.event_text(event), "info", now)

    def _on_room_paused(self, msg: dict[str, Any], now: float) -> None:
        self.notify(self.tr("pause.paused_by", name=self.by_name(msg["by"])), "info", now)

    def _on_room_resumed(self, msg: dict[str, Any], now: float) -> None:
        self.notify(self.tr("pause.resumed_by", name=self.by_name(msg["by"])), "info", now)

    def by_name(self, by: str) -> str:
        """Who paused or resumed: a player's name, or the server's operator."""
        return self.tr("pause.operator") if by == "operator" else by

    @property
    def paused(self) -> bool:
        return bool(self.room and self.room.get("paused"))

    @property
    def is_owner(self) -> bool:
        return bool(self.room) and self.seat is not None and \
            self.room.get("owner") == self.seat

    @property
    def may_pause(self) -> bool:
        """The owner, in a started game not over and not paused (the server checks it too)."""
        return self.is_owner and self.state is not None and not self.over and not self.paused

    @property
    def may_resume(self) -> bool:
        """The owner, or any seated player while the owner's seat has nobody connected."""
        if not self.paused or self.seat is None:
            return False
        owner = next((s for s in self.room.get("seat_list", [])
                      if s.get("seat") == self.room.get("owner")), None)
        return self.is_owner or owner is None or not owner.get("connected")

    def _on_error(self, msg: dict[str, Any], now: float) -> None:
        if self.chat.refused(msg.get("ref"), self.error_text(msg)):
            return  # the chat pane says it, and the line's text is back in the input
        if "ref" in msg or msg.get("code") in ("stale_state", "illegal_action", "not_your_turn",
                                                "rate_limited"):
            self.sent_state_id = -1  # the action was refused: its buttons are live again
        self.notify(self.error_text(msg), now=now)

    def _on_left(self, msg: dict[str, Any], now: float) -> None:
        reason = msg.get("reason", "left")
        self.left_reason = reason
        self.room = None
        self.room_id = None
        self.seat = None
        self.token = ""
        self.state = None
        key = LEFT_TEXTS.get(reason or "left")
        if key is not None:
            self.notify(self.tr(key), "info" if reason in ("left", LEFT_PAUSED) else "error",
                        now)

    def error_text(self, msg: dict[str, Any]) -> str:
        code = msg.get("code", "")
        if code == "version_mismatch":
            return self.version_text(msg.get("message", ""))
        key = error_key(self.tr, code)
        if not self.tr.has(key):
            return msg.get("message", code)
        return self.tr(key, detail=msg.get("field") or msg.get("message", ""))

    def version_text(self, message: str) -> str:
        """The server's version_mismatch says which version it speaks: older or newer?"""
        from ..shared.protocol import PROTOCOL_VERSION

        digits = [int(w) for w in message.replace(",", " ").split() if w.isdigit()]
        if digits:
            server = digits[0]
            key = "error.server_old" if server < PROTOCOL_VERSION else "error.server_new"
            return self.tr(key, server=server, client=PROTOCOL_VERSION)
        return self.tr("error.version_mismatch")

    def notify(self, text: str, level: str = "error", now: float | None = None,
               sticky: bool = False) -> None:
        notice = Notice(text, level, time.monotonic() if now is None else now, sticky)
        self.notices.append(notice)
        del self.notices[:-5]
        if sticky:
            self.pinned = notice
        self.revision += 1

    def current_notice(self, now: float, ttl: float = 6.0) -> Notice | None:
        """The latest notice for `ttl` seconds; then the pinned one until it is closed."""
        if self.notices and now - self.notices[-1].at < ttl:
            return self.notices[-1]
        return self.pinned

    def close_notice(self) -> None:
        self.pinned = None
        self.revision += 1

    def reset_room(self) -> None:
        self.room = self.room_id = self.seat = self.state = None
        self.token = ""
        self.events.clear()
        self.chat.clear()

    # --- the game state --------------------------------------------------------------------------
    @property
    def view(self) -> dict[str, Any] | None:
        return self.state["view"] if self.state else None

    @property
    def legal(self) -> list[dict[str, Any]]:
        if not self.state or self.sent_state_id == self.state["state_id"]:
            return []  # an action is on its way for this state: nothing more until the answer
        return self.state["legal"]

    @property
    def state_id(self) -> int:
        return self.state["state_id"] if self.state else -1

    @property
    def me(self) -> int | None:
        view = self.view
        return view.get("you") if view else self.seat

    @property
    def my_camp(self) -> dict[str, Any] | None:
        view, me = self.view, self.me
        if view is None or me is None or not 0 <= me < len(view["camps"]):
            return None
        return view["camps"][me]

    @property
    def prompt_kind(self) -> str:
        return self.view["prompt"]["kind"] if self.view else "none"

    @property
    def prompted_seats(self) -> list[int]:
        return list(self.view["prompt"]["seats"]) if self.view else []

    @property
    def my_turn(self) -> bool:
        return bool(self.legal)

    @property
    def in_battle(self) -> bool:
        """A battle or a colossus raid is on (anyone may watch it on the battle tab)."""
        return bool(self.view and (self.view.get("battle") or colossus.raid_of(self.view)))

    @property
    def battle_screen(self) -> str:
        """The screen of the battle tab: the raid's while one is on."""
        return "raid" if colossus.raid_of(self.view) else "battle"

    @property
    def home_screen(self) -> str:
        """The screen a running game comes back to: day 0's while it lasts, else the map."""
        return "day0" if campaign.day0_phase(self.view) else "game"

    @property
    def over(self) -> bool:
        return bool(self.view and self.view.get("over"))

    @property
    def day(self) -> int:
        """The day to show: a game stopped by the day limit is over on the day after the
        last, which it did not play."""
        return min(self.view["day"], self.view["day_limit"]) if self.view else 0

    def modules(self) -> list[str]:
        """The rules modules of this game: the view's once it runs, the room's before."""
        if self.view is not None:
            return list(self.view.get("modules", {}))
        return list((self.room or {}).get("modules") or [])

    def module_option(self, name: str, option: str) -> Any:
        """A module's option in the running game; None when the module is off."""
        module = (self.view or {}).get("modules", {}).get(name)
        return None if module is None else module.get("options", {}).get(option)

    def tactics(self) -> dict[str, Any] | None:
        """The tactics module's public state (zones, blocking squares, concentration), if on."""
        module = (self.view or {}).get("modules", {}).get("tactics")
        return module["state"] if module else None

    def camp(self, seat: int) -> dict[str, Any]:
        return self.view["camps"][seat]

    def who(self, seat: int | None) -> str:
        """A camp as players name it: its class (and the player's name from the room)."""
        if seat == colossus.COLOSSUS:
            return self.tr("colossus.name")
        if seat is None or seat < 0 or not self.view or seat >= len(self.view["camps"]):
            return "—"
        return self.tr.cls(self.camp(seat)["cls"])

    def player_name(self, seat: int) -> str:
        if not self.room:
            return ""
        for s in self.room.get("seat_list", []):
            if s["seat"] == seat:
                if s.get("kind") == "bot":
                    level = s.get("level", "normal")
                    key = f"room.level_{level}"
                    return self.tr("room.bot") + (
                        f" · {self.tr(key)}" if self.tr.has(key) else "")
                return s["name"]
        return ""

    def seat_row(self, seat: int) -> dict[str, Any]:
        """The seat as the room's last `seat_list` shows it ({} before any)."""
        rows = (self.room or {}).get("seat_list", [])
        return next((row for row in rows if row.get("seat") == seat), {})

    def presence(self, seat: int) -> str:
        """Where a human seat's player is: "" at the table, "dropped" while the seat is kept for
        it, "bot_took_over" while a bot plays for it (the seat_event names)."""
        row = self.seat_row(seat)
        if row.get("kind") != "human":
            return ""
        if row.get("bot_playing"):
            return "bot_took_over"
        return "" if row.get("connected", True) else "dropped"

    def seat_label(self, seat: int, name: str) -> str:
        """A seat's class and its player's name, for the seat events' lines."""
        cls = self.seat_row(seat).get("cls")
        if cls is None and self.view and 0 <= seat < len(self.view["camps"]):
            cls = self.camp(seat)["cls"]
        return self.tr("seats.who", cls=self.tr.cls(cls), name=name)

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
        hidden = campaign.hidden_verbs(self)  # on the campaign screen instead
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
        """Targets in reach that a line of fire or sight rules out (tactics T2), as options
        shown disabled with the reason. They carry no action: nothing can send them."""
        what = RULED_OUT_VERBS.get(verb)
        entries = [r for r in (self.tactics() or {}).get("ruled_out", []) if r["what"] == what]
        if not entries or not self.legal:
            return []
        tr = self.tr
        if what == "attack":
            aims = [(self.who(r["target"]), r) for r in entries]
        else:  # every skill the seat may aim at another camp now, at each unseen target
            skills = dict.fromkeys(a["skill"] for a in self.legal if a["type"] == verb
                                   and a.get("target", -1) >= 0 and a["target"] != self.me)
            aims = [(self.aimed(skill, r["target"]), r) for skill in skills for r in entries]
        return [Option(f"× {label}", None, tr(f"tactics.ruled_out.{r['reason']}"),
                       target=r["target"], reason=r["reason"]) for label, r in aims]

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
        tr = self.tr
        kind = a["type"]
        me = self.me
        target = a.get("target", -1)

        def whom(seat: int) -> str:
            return tr("option.self") if seat == me else self.who(seat)

        help_text = tr(f"verb_help.{verb_of(a)}")
        raid_label = colossus.option_label(self, a)
        if raid_label is not None:
            return Option(raid_label, a, help_text, card=a.get("card", ""))
        camp_label = campaign_text.option_label(self, a)
        if camp_label is not None:
            return Option(camp_label, a, campaign_text.option_help(self, a), target=target)
        if kind == "Move":
            name = tr.square(self.view["map"], a["to"])
            return Option(name, a, help_text, square=a["to"])
        if kind == "DeclareEncounter":
            label = f"{whom(target)} · {tr('intent.' + a['intent'])}"
            return Option(label, a, help_text, target=target)
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
        if kind in ("UseSkill", "ConcentrateCast"):
            label = self.aimed(a["skill"], a.get("target", -1))
            if a.get("extra"):
                label += " + " + tr.skill(a["extra"])
            text = tr.skill_text(a["skill"])
            if kind == "ConcentrateCast":
                text = "\n".join((help_text, self.uses_left(), text))
            return Option(label, a, text, target=a.get("target", -1))
        if kind == "Concentrate":
            use = a["use"]
            return Option(tr(f"tactics.use.{use}"), a,
                          "\n".join((tr(f"tactics.use_help.{use}"), self.uses_left())))
        if kind == "Attack":
            card = a["card"]
            kind_name = tr.card(a["kind"])
            if a["kind"] == "L":
                how = tr("option.with_card", kind=kind_name, card=tr.card(card)) if card else \
                    tr("option.no_card", kind=kind_name)
            else:
                how = kind_name
            return Option(f"{whom(target)} · {how}", a, help_text, card=card, target=target)
        if kind == "React":
            card = a["card"]
            verb = tr(f"verb.{verb_of(a)}")
            label = tr("option.with_card", kind=verb, card=tr.card(card)) if card else \
                tr("option.no_card", kind=verb)
            return Option(label, a, help_text, card=card)
        if kind == "ChooseReward":
            return Option(self.reward_label(a["reward"]), a, help_text)
        if kind == "UseCommandSpell":
            spell = a["spell"]
            name = tr("option.spell", name=tr.spell(spell), cost=tr.spell_cost(spell))
            arg = a.get("arg", "")
            if arg:
                shown = tr.square(self.view["map"], int(arg)) if arg.isdigit() else \
                    "".join(tr.card(c)[:1] for c in arg)
                name = tr("option.spell_arg", name=name, arg=shown)
            square = int(arg) if arg.isdigit() else -1
            return Option(name, a, tr.spell_text(spell), square=square, group=spell,
                          danger=self.is_suicide(a))
        return Option(tr(f"verb.{verb_of(a)}"), a, help_text)

    def confirmation(self, action: dict[str, Any]) -> Question | None:
        """The question to ask before sending `action`; None: send it at once. The text names
        the Command Spell (cost, square or cards, what it does) or the Noble Phantasm and its
        target; Suicide asks in its own words, and its OK button says what it does."""
        kind = action["type"]
        if kind not in CONFIRM_KINDS:
            return None
        tr, option = self.tr, self.option(action)
        if self.is_suicide(action):
            return Question(tr("suicide.title"), "\n".join(
                (option.label, tr.spell_text(action["spell"]), tr("suicide.warning"))),
                tr("suicide.ok"))
        if kind == "UseCommandSpell":
            text = f"{option.label}\n{tr.spell_text(action['spell'])}"
        else:
            text = f"{tr.np_name((self.my_camp or {}).get('noble_phantasm'))} {option.label}"
        return Question(tr(f"confirm.{CONFIRM_TITLES.get(kind, kind)}"), text, tr("confirm.ok"))

    def is_suicide(self, action: dict[str, Any]) -> bool:
        """A Command Spell that kills one's own Servant (the `suicide` special)."""
        spell = self.tr.rules.command_spells.get(action.get("spell", "")) if \
            action["type"] == "UseCommandSpell" else None
        return spell is not None and spell.special == "suicide"

    def uses_left(self) -> str:
        """This seat's concentration rolls left in the battle."""
        uses = (self.tactics() or {}).get("uses", [])
        me = self.me
        return self.tr("tactics.uses", n=uses[me] if me is not None and me < len(uses) else 0)

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

    # --- the map --------------------------------------------------------------------------------
    def cells(self) -> list[Cell]:
        view = self.view
        if not view:
            return []
        grid = self.tr.rules.maps[view["map"]]
        moves = self.move_actions()
        targets = self.target_seats()
        battle = view.get("battle")
        battle_squares = set()
        if battle:
            battle_squares.add(battle["square"])
            battle_squares.update(self.camp(s)["pos"] for s in battle["seats"])
        eaten = set(view.get("eaten", []))
        tactics = self.tactics() or {}
        blocking = set(tactics.get("blocking", ()))
        zones: dict[bool, dict[int, list[int]]] = {True: {}, False: {}}
        for z in tactics.get("zoc", ()):  # listed during a battle only
            for q in z["squares"]:
                zones[z["active"]].setdefault(q, []).append(z["seat"])
        me = self.me
        out = []
        for i, sq in enumerate(grid.squares):
            camps = [c for c in view["camps"] if c["pos"] == i and c["alive"]]
            out.append(Cell(
                i, sq.x, sq.y, sq.name.get(self.tr.lang), sq.leyline, camps, moves.get(i),
                any(c["seat"] in targets for c in camps), i in battle_squares, i in eaten,
                any(c["seat"] == me for c in camps), tuple(zones[True].get(i, ())),
                tuple(zones[False].get(i, ())), i in blocking))
        return out

    def cell_help(self, cell: Cell) -> list[str]:
        """The tactics lines of a square's hover text: whose zones cover it, whether it blocks."""
        tr = self.tr
        lines = []
        for key, seats in (("tactics.zone_of", cell.zoc), ("tactics.zone_idle_of", cell.zoc_idle)):
            if seats:
                lines.append(tr(key, list=", ".join(self.who(x) for x in seats)))
        if cell.blocking:
            lines.append(tr("tactics.blocking"))
        return lines

    def grid_size(self) -> tuple[int, int]:
        grid = self.tr.rules.maps[self.view["map"]] if self.view else None
        return (grid.width, grid.height) if grid else (7, 6)

    def square_name(self, index: int) -> str:
        return self.tr.square(self.view["map"], index) if self.view else str(index)

    # --- the battle -----------------------------------------------------------------------------
    def battle(self, now: float) -> dict[str, Any] | None:
        view = self.view
        if not view or not view.get("battle"):
            return None
        b = view["battle"]
        tr = self.tr
        n = tr.rules.numbers
        refill_round = ((max(b["round"], 1) - 1) // n.hand_refill_every + 1) * n.hand_refill_every
        order = list(b["order"]) or list(b["seats"])
        actor = b.get("actor")
        tactics = self.tactics()
        zones = {z["seat"]: z for z in (tactics or {}).get("zoc", ())}
        combatants = []
        for c in b["combatants"]:
            seat = c["seat"]
            camp = self.camp(seat)
            np_status = ""
            if c["np_target"] >= 0:
                total = self.np_charge(seat)
                elapsed = max(0, b["round"] - c["np_round"])
                np_status = tr("battle.np_declared", target=self.who(c["np_target"]))
                if total is not None:
                    np_status += " · " + (tr("battle.np_ready") if elapsed >= total else
                                          tr("battle.np_charge", n=elapsed, total=total))
            flags = []
            if c["disengage_round"] >= 0:
                flags.append(tr("battle.disengaging"))
            if c["fleeing"]:
                flags.append(tr("battle.fleeing"))
            if c["war_roar"]:
                flags.append(tr("battle.war_roar"))
            if seat in b.get("truce", []):
                flags.append(tr("battle.truce"))
            if b["stage"] == "round_start" and seat in b.get("ready", []):
                flags.append(tr("battle.ready"))
            flags.extend(campaign_text.stance_flags(self, seat))
            uses = None
            if tactics is not None:
                flags.extend(tr(key) for key, part in (("tactics.seizing", "seize"),
                                                       ("tactics.enduring", "endure"))
                             if seat in tactics.get(part, ()))
                if self.module_option("tactics", "concentration"):
                    uses = tactics["uses"][seat]
            combatants.append({
                "seat": seat, "cls": camp["cls"], "hp": camp["hp"], "max_hp": camp["max_hp"],
                "alive": camp["alive"], "in": seat in b["seats"], "acting": seat == actor,
                "np": np_status, "flags": flags, "pos": camp["pos"], "mine": seat == self.me,
                "hand_size": camp["hand_size"], "buffs": camp.get("buffs", []),
                "spells": camp["spells"], "uses": uses, "zone": zones.get(seat),
            })
        pending = b.get("pending")
        reaction = None
        if pending:
            kind = tr("battle.np_attack") if pending.get("noble_phantasm") else \
                tr.card(pending.get("kind", ""))
            reaction = {
                "attacker": pending["attacker"], "target": pending["target"], "kind": kind,
                "total": pending.get("total"), "critical": pending.get("critical"),
                "fumble": pending.get("fumble"),
                "mine": pending["target"] == self.me and self.prompt_kind == "reaction",
                "seconds": self.seconds_left(pending["target"], now)
                if self.prompt_kind == "reaction" else None,
            }
        return {
            "purpose": b["purpose"], "square": self.fighters_square(b), "round": b["round"],
            "refill_round": refill_round, "refill_now": b["round"] == refill_round,
            "order": order, "cursor": b["cursor"], "actor": actor, "stage": b["stage"],
            "combatants": combatants, "pending": reaction, "seats": list(b["seats"]),
            "tactics": tactics is not None, "strike": latest_strike(self.events),
        }

    def fighters_square(self, b: dict[str, Any]) -> int:
        """Where the battle is now: the square most of its fighters stand on (they move in
        battle), the square it broke out on while it holds as many."""
        squares = [self.camp(x)["pos"] for x in b["seats"]] or [b["square"]]
        return max(dict.fromkeys([b["square"], *squares]), key=squares.count)

    def np_charge(self, seat: int) -> int | None:
        """Rounds a Noble Phantasm needs to charge, if this seat knows which one it is."""
        camp = self.camp(seat)
        np_id = camp.get("noble_phantasm")  # one's own camp, or a rival known to tier 2
        np = self.tr.np_by_id(np_id) if np_id else None
        return np.charge if np else None

    def dice(self, limit: int = 6, seats: Iterable[int] | None = None) -> list[dict[str, Any]]:
        """The latest dice rolls (of `seats`, if given), newest last, for the dice tray."""
        wanted = set(seats) if seats is not None else None
        every = [e for e in self.events if e.get("type") == "DiceRolled"]
        against = opposed_targets(every)
        rolls = [(e, vs) for e, vs in zip(every, against, strict=True)
                 if wanted is None or e.get("seat") in wanted]
        out = []
        for e, vs in rolls[-limit:]:
            out.append({
                "seat": e.get("seat", -1), "who": self.who(e.get("seat")),
                "purpose": self.tr(f"dice.{e.get('purpose', 'other')}")
                if self.tr.has(f"dice.{e.get('purpose', 'other')}") else e.get("purpose", ""),
                "dice": e.get("dice", ""), "faces": list(e.get("faces") or []),
                "total": e.get("total"), "mod": e.get("mod", 0),
                "result": e.get("result") or "",
                "line": dice_line(e, self.tr.lang), "formula": formula(e, vs),
            })
        return out

    # --- the dossier ----------------------------------------------------------------------------
    def dossier(self) -> list[dict[str, Any]]:
        """For every other class: the tier your investigations reached, what it revealed, and
        the roster Servants it may still be (`candidates`), which narrow as the seat learns."""
        camp = self.my_camp
        view = self.view
        if not view or not camp:
            return []
        tr = self.tr
        known = camp.get("known", {})
        points = campaign.dossier(self)
        rows = []
        for other in view["camps"]:
            if other["seat"] == self.me:
                continue
            cls = other["cls"]
            tier = known.get(cls, 0)
            found = candidates(tr.rules, other)
            row: dict[str, Any] = {
                "seat": other["seat"], "cls": cls, "tier": tier, "alive": other["alive"],
                "ranks": other["ranks"], "roster": len(tr.rules.roster[cls]),
                "candidates": [tr.short_name(s.id) for s in found],
                "candidates_help": "\n".join(self.candidate_line(s) for s in found)}
            if len(found) == 1 and "servant" not in other:
                row["deduced"] = tr.true_name(found[0].id)
            seen = other.get("np_seen")
            if seen:
                row["np_seen"] = tr.np_signature(seen["card"], seen["kind"], seen["scale"])
            if "cards" in other:
                row["cards"] = other["cards"]
                row["skills"] = list(other.get("skills", []))  # ids: the view names them
            if "servant" in other:
                row["true_name"] = tr.true_name(other["servant"])
                row["np"] = tr.np_name(other.get("noble_phantasm"))
            if other.get("profile"):
                servant = tr.servant_by_id(other.get("servant", ""))
                if servant is not None:
                    row["profile"] = servant.profile.get(tr.lang)
                    row["weakness"] = servant.weakness.get(tr.lang)
            if other["seat"] in points:
                row["campaign"] = points[other["seat"]]
            rows.append(row)
        rows.sort(key=lambda r: CLASSES.index(r["cls"]))
        return rows

    def candidate_line(self, servant: Servant) -> str:
        """What would tell a candidate apart: its cards and its Noble Phantasm when it fires."""
        tr, np = self.tr, servant.np
        return tr("dossier.candidate_line", name=tr.true_name(servant.id), cards=servant.cards,
                  np=tr.np_signature(np.card, np.kind, np.scale))

    # --- the log --------------------------------------------------------------------------------
    def log_lines(self, limit: int | None = None) -> list[tuple[str, str]]:
        """(kind, text) per event in this language: kind is dice, turn, battle, death or event."""
        events = self.events if limit is None else self.events[-limit:]
        out = []
        for e in events:
            line = self.event_text(e)
            if line:
                out.append((event_kind(e), line))
        return out

    def dice_tab(self) -> list[tuple[str, str]]:
        """The dice tab: the game's rolls and turns, the seats' comings and goings, and the
        chat's rolls in their places (a roll from the chat is kind `chat`)."""
        rolls = self.chat.rolls()
        out: list[tuple[str, str]] = []
        shown = 0

        def rolls_until(place: int) -> None:
            nonlocal shown
            while shown < len(rolls) and rolls[shown]["after"] <= place:
                line = rolls[shown]
                out.append(("chat", f"{line.get('name', '')}: {line_text(line, self.tr)}"))
                shown += 1

        for place, e in enumerate(self.events):
            rolls_until(place)
            kind = event_kind(e)
            text = self.event_text(e) if kind in (*DICE_KINDS, "turn", "seat") else ""
            if text:
                out.append((kind, text))
        rolls_until(len(self.events))
        return out

    def dice_log(self, limit: int | None = None) -> list[str]:
        return [t for k, t in self.log_lines(limit) if k in DICE_KINDS]

    def event_text(self, e: dict[str, Any]) -> str:
        tr = self.tr
        kind = e.get("type", "")
        if kind in colossus.EVENTS:
            return colossus.event_line(self, e)
        if kind in campaign_text.EVENTS:
            return campaign_text.event_line(self, e)
        who = self.who(e.get("seat"))
        if kind == "DiceRolled":
            purpose_key = f"dice.{e.get('purpose', 'other')}"
            purpose = tr(purpose_key) if tr.has(purpose_key) else e.get("purpose", "")
            return f"{who} {purpose}: {dice_line(e, tr.lang)}"
        target = self.who(e.get("target"))
        if kind == "TurnStarted":
            return tr("event.TurnStarted", day=e.get("day"), turn=tr(f"turn.{e.get('turn')}"))
        if kind == "Moved":
            return tr("event.Moved", who=who, square=self.square_name(e.get("to", 0)))
        if kind == "Declared":
            decl = tr(f"decl.{e.get('kind')}")
            if e.get("target", -1) is not None and e.get("target", -1) >= 0:
                return tr("event.DeclaredAt", who=who, kind=decl, target=target)
            return tr("event.DeclaredHeld" if e.get("held") else "event.Declared", who=who,
                      kind=decl)
        if kind in ("ActionCancelled", "DeclarationWithdrawn"):
            if colossus.raided(self.events, e):
                return ""  # its Raid was spent: it fought in the raid another one opened
            key = "event.cancelled_spirit_form" if e.get("reason") == "spirit_form" else \
                f"event.{kind}"
            return tr(key, who=who, kind=tr(f"decl.{e.get('kind')}"))
        if kind == "SupplySet":  # the campaign's spirit form (seed 002 §0)
            return tr("event.SupplySet_on" if e.get("on") else "event.SupplySet_off", who=who)
        if kind == "Researched":
            return tr("event.Researched_ok" if e.get("success") else "event.Researched_ng",
                      cls=tr.cls(e.get("cls")))
        if kind == "Investigated":
            result = tr("event.investigate_ok", tier=e.get("tier")) if e.get("success") else \
                tr("event.investigate_ng")
            return tr("event.Investigated", cls=tr.cls(e.get("cls")), result=result)
        if kind == "AmbushAnswered":
            return tr("event.AmbushAnswered", who=who,
                      choice=tr("event.flee" if e.get("flee") else "event.fight"))
        if kind == "BattleOpened":
            return tr("event.BattleOpened", square=self.square_name(e.get("square", 0)))
        if kind == "InterventionAnswered":
            return tr("event.InterventionAnswered", who=who,
                      choice=tr("event.joins" if e.get("join") else "event.stays"))
        if kind in ("Attacked", "Reacted"):
            card = e.get("kind", "")
            name = {"G": tr("verb.ReactGuard")}.get(card, tr.card(card))
            return tr(f"event.{kind}", who=who, target=target, kind=name)
        if kind == "AttackResolved":
            result = "event.halved" if e.get("halved") and e.get("hit") else \
                "event.hit" if e.get("hit") else "event.miss"
            return tr(result)
        if kind == "DamageDealt":
            return tr("event.DamageDealt", target=target, amount=e.get("amount"))
        if kind == "NoblePhantasmFired":
            return tr("event.NoblePhantasmFired", who=who, np=tr.np_name(e.get("np")))
        if kind == "LeftBattle":
            how_key = f"event.how_{e.get('how')}"
            how = tr(how_key) if tr.has(how_key) else e.get("how", "")
            return tr("event.LeftBattle", who=who, how=how)
        if kind == "CommandSpellUsed":
            return tr("event.CommandSpellUsed", who=who, spell=tr.spell(e.get("spell", "")))
        if kind in ("ConcentrationDeclared", "ConcentrationRolled"):
            result = tr("event.concentration_ok" if e.get("success") else
                        "event.concentration_ng")
            return tr(f"event.{kind}", who=who, use=tr(f"tactics.use.{e.get('use')}"),
                      result=result)
        if kind == "SkillUsed" and e.get("skill"):
            return tr("event.SkillUsedNamed", who=who, skill=tr.skill(e["skill"]))
        if kind == "GameEnded":
            return tr("event.GameEnded")
        if kind == "SeatEvent":
            return tr(f"seats.{e['what']}", who=self.seat_label(e["seat"], e["name"]),
                      s=e.get("seconds", 0))
        key = f"event.{kind}"
        if tr.has(key):
            return tr(key, who=who, target=target, round=e.get("round"),
                      rounds=e.get("rounds"), hp=e.get("hp"), amount=e.get("amount"))
        return ""

    # --- the end --------------------------------------------------------------------------------
    def result(self) -> dict[str, Any] | None:
        view = self.view
        if not view or not view.get("over"):
            return None
        reason = next((e.get("reason") for e in reversed(self.events)
                       if e.get("type") == "GameEnded"), None)
        winner = view.get("winner", -1)
        return {
            "winner": winner, "cls": view["camps"][winner]["cls"] if winner >= 0 else None,
            "you": winner >= 0 and winner == self.me, "reason": reason, "day": self.day,
            "survivors": [c["seat"] for c in view["camps"] if c["alive"]],
            "raid_won": reason == "colossus_destroyed",
        }


def error_key(tr: Tr, code: str) -> str:
    """The catalog key of an error code's text: `error.<code>`, or for the chat's own errors
    `chatlog.error_<code>` (kept with the chat's texts)."""
    key = f"error.{code}"
    return key if tr.has(key) else f"chatlog.error_{code}"


def event_kind(e: dict[str, Any]) -> str:
    kind = e.get("type", "")
    if kind == "DiceRolled":
        return {"critical": "critical", "fumble": "fumble"}.get(e.get("result") or "", "dice")
    if kind == "TurnStarted":
        return "turn"
    if kind in ("ServantDied", "GameEnded"):
        return "death"
    if kind == "SeatEvent":
        return "seat"
    if kind in ("BattleOpened", "BattleStarted", "BattleEnded", "RoundStarted", "Attacked",
                "Reacted", "AttackResolved", "DamageDealt", "NoblePhantasmFired",
                "NoblePhantasmDeclared", "LeftBattle", "ConcentrationDeclared",
                "ConcentrationRolled", "SkillResisted") or kind in colossus.BATTLE_EVENTS \
            or kind in campaign_text.BATTLE_EVENTS:
        return "battle"
    return "event"


def parse_host(text: str, default_port: int) -> tuple[str, int] | None:
    """`host`, `host:port` or `[v6]:port` -> (host, port); None if it is not an address."""
    text = text.strip()
    if not text or any(c.isspace() for c in text):
        return None
    host, port = text, default_port
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            return None
        host, rest = text[1:end], text[end + 1:]
        if rest:
            if not rest.startswith(":") or not rest[1:].isdigit():
                return None
            port = int(rest[1:])
    elif text.count(":") == 1:
        host, _, port_text = text.partition(":")
        if not port_text.isdigit():
            return None
        port = int(port_text)
    if not host or not 0 < port < 65536:
        return None
    return host, port


def check_name(name: str, kind: str = "name") -> str | None:
    """The catalog key of what is wrong with a player's name (or a room's: `kind` "label"),
    or None; the server refuses the same (`protocol.text_fault`)."""
    name = name.strip()
    if not name:
        return "error.name_empty"
    if len(name) > 32:
        return "error.name_long"
    if text_fault(name, kind):
        return "error.name_bad"
    return None


def classes_in(seats: Iterable[dict[str, Any]]) -> set[str]:
    return {s["cls"] for s in seats if s.get("cls") and s.get("kind") != "open"}
