"""The wire protocol, declared once for both sides: every message, its fields, their types and
limits, the error codes and the protocol version.

Frames are a 4-byte big-endian length followed by one msgpack map of at most 64 KiB. Every map
has `t`, the message name. `validate` checks a decoded map against its declaration and raises a
`ProtocolError` naming the field; `frame`/`unframe` do the byte work.
"""

from __future__ import annotations

import re
import struct
import unicodedata
from dataclasses import dataclass, field
from typing import Any

import msgpack

from .engine.modules import MODULES, room_timers

PROTOCOL_VERSION = 2
MAX_FRAME = 64 * 1024
DEFAULT_PORT = 7707  # a dedicated server's, and what a client tries when given none
# Seconds a server's bot waits before it answers, so that the people at the table can follow
# (a battle only bots fight in waits the room's `bot_pace_ms` instead).
BOT_DELAY = 0.2
MAX_LISTED = 100  # rooms per `rooms` reply, so the reply stays far below MAX_FRAME
_LENGTH = struct.Struct(">I")

# --- error codes -----------------------------------------------------------------------------
ERRORS = {
    "bad_frame": "the bytes are not a msgpack map (the connection is closed)",
    "frame_too_large": "a frame over 64 KiB (the connection is closed)",
    "unknown_message": "no message of that name (the connection is closed)",
    "bad_field": "a field is missing, of the wrong type or out of its limits",
    "version_mismatch": "the client speaks another protocol version (the connection is closed)",
    "hello_first": "the first message must be hello",
    "room_not_found": "no room of that id",
    "room_quarantined": "the room's stored log is damaged; it is kept for the operator",
    "room_full": "no free seat of that class in the room",
    "wrong_password": "the room's password does not match",
    "not_in_room": "the connection is in no room",
    "already_in_room": "leave the current room first",
    "not_owner": "only the room's owner may do that",
    "seat_taken": "that seat is not free",
    "bad_token": "the seat token is unknown",
    "game_started": "the game has already started",
    "game_not_started": "the game has not started",
    "spectator": "spectators cannot act",
    "not_your_turn": "the game is not waiting for this seat",
    "illegal_action": "the action is not legal now",
    "stale_state": "the action was chosen on an older state",
    "rate_limited": "too many messages; slow down",
    "too_many_connections": "too many connections from this address (the connection is closed)",
    "no_negotiation": "this seat is in no negotiation",
    "server_full": "the server holds no more rooms",
    "bad_dice": "a dice command beyond its bounds (100 dice, 1000 faces, 10 terms a roll)",
    "no_secret_roll": "/reveal with no secret roll of this seat left to reveal",
    "no_whisper": "a whisper to nobody: a spectator's, to one's own seat, or to a seat no "
                  "player holds",
    "too_slow": "the client did not read what the server sent (the connection is closed)",
    "timeout": "no hello, or no message at all, in time (the connection is closed)",
    "not_saved": "the server's database did not take the action: it did not happen, and the "
                 "room is reloaded from its log (resume the seat)",
    "room_moving": "the room's server stopped; another server adopts it within seconds: ask "
                   "again",
    "room_paused": "the game is paused: only chat until it is resumed (or: paused already)",
    "not_paused": "the game is not paused",
    "game_over": "the game is over",
    "internal_error": "the server failed on this message (it is logged); the room goes on",
}


class ProtocolError(Exception):
    """A message the server refuses; `fatal` errors close the connection."""

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        assert code in ERRORS, code
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field

    @property
    def fatal(self) -> bool:
        return self.code in FATAL


FATAL = frozenset({"bad_frame", "frame_too_large", "unknown_message", "version_mismatch",
                   "too_many_connections", "too_slow", "timeout"})


# --- field declarations ----------------------------------------------------------------------
# The widest range of any integer a client sends (a signed 32-bit integer, which every client
# language holds): each int field declares its range within it, and a value outside is
# `bad_field`, never a number the server's code or its database cannot take.
INT_MAX = 2**31 - 1

@dataclass(frozen=True)
class Field:
    """One field: its type (int, str, bool, dict, list, or a tuple of them for a value that
    may be any), whether required, its limits, and for a list or map the declaration of each
    item (a map's values) and of each key. A nested fault names its place in the message
    (`modules[1]`, `options['<module>']['<option>']`) and is an error of the top field."""

    type: type | tuple[type, ...]
    required: bool = True
    lo: int | None = None  # minimum value (int) or length (str, list, dict)
    hi: int | None = None  # maximum value (int) or length (str, list, dict)
    choices: tuple = ()
    items: Field | None = None  # each item of a list, each value of a dict
    keys: Field | None = None  # each key of a dict
    text: str = ""  # a str people read: "line" (chat), "label" (a room's name), "name" (a player's)

    @property
    def types(self) -> tuple[type, ...]:
        return self.type if isinstance(self.type, tuple) else (self.type,)

    def check(self, name: str, value: Any, at: str = "") -> None:
        """Refuse `value` of field `name` with a bad_field error; `at` is where inside the
        field a nested value sits."""
        where = name + at
        kind = type(value)
        if kind not in self.types:
            expected = " or ".join(t.__name__ for t in self.types)
            raise ProtocolError("bad_field", f"{where}: expected {expected}, "
                                f"got {kind.__name__}", name)
        size = value if kind is int else len(value) if kind in (str, list, dict) else None
        if size is not None and self.lo is not None and size < self.lo:
            raise ProtocolError("bad_field", f"{where}: below the minimum {self.lo}", name)
        if size is not None and self.hi is not None and size > self.hi:
            raise ProtocolError("bad_field", f"{where}: above the maximum {self.hi}", name)
        if self.text:
            fault = text_fault(value, self.text)
            if fault:
                raise ProtocolError("bad_field", f"{where}: {fault}", name)
        if self.choices and value not in self.choices:
            raise ProtocolError("bad_field", f"{where}: must be one of {list(self.choices)}, "
                                f"got {_shown(value)}", name)
        if kind is dict:
            for key, item in value.items():
                if self.keys is not None:
                    self.keys.check(name, key, f"{at} key {_shown(key)}")
                if self.items is not None:
                    self.items.check(name, item, f"{at}[{_shown(key)}]")
        elif kind is list and self.items is not None:
            for i, item in enumerate(value):
                self.items.check(name, item, f"{at}[{i}]")


# Characters that would rewrite what others see: the bidirectional embeddings, overrides and
# isolates (a name that reads backwards, a line that reorders the log after it).
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
RESERVED_NAME = re.compile(r"^\s*bot\s*[(（]", re.IGNORECASE)  # the bot seats' "bot (normal)"


def text_fault(text: str, kind: str) -> str:
    """What makes `text` unfit to show to other players, or "": a control character (NUL, an
    ANSI escape, a line break) or a bidi control anywhere; for a label or a name, also nothing
    visible (blank, or only zero-width and combining marks); for a player's name, also the
    names the server gives its bots."""
    for c in text:
        if unicodedata.category(c) == "Cc":
            return f"control character U+{ord(c):04X} not allowed"
        if c in BIDI_CONTROLS:
            return f"bidirectional control U+{ord(c):04X} not allowed"
    if kind in ("label", "name") and not any(unicodedata.category(c)[0] not in "ZCM"
                                             for c in text):
        return "a name needs a visible character"
    if kind == "name" and RESERVED_NAME.match(text):
        return "names beginning with 'bot (' are the server's bots'"
    return ""


def _shown(value: Any) -> str:
    """A value named in an error message, cut short (a reply must stay far below MAX_FRAME)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True)
class Message:
    name: str
    direction: str  # "c2s" (client to server) or "s2c"
    fields: dict[str, Field] = field(default_factory=dict)
    doc: str = ""


def _opt(t: type, **kw: Any) -> Field:
    return Field(t, required=False, **kw)


NAME = Field(str, lo=1, hi=32, text="name")  # a player's
ROOM_NAME = Field(str, lo=1, hi=32, text="label")
MOTD = _opt(str, lo=1, hi=300, text="line")  # the operator's message of the day (issue 11)
CLOSED_BY_OPERATOR = "closed by the operator"  # the `left` reason of a room the operator ended
LEFT_PAUSED = "left_paused"  # the `left` reason of a player leaving a paused game: seat kept
CLASS_NAMES = ("saber", "archer", "lancer", "rider", "caster", "assassin", "berserker")
LEVELS = ("easy", "normal", "hard", "random")
CHANNELS = ("room", "negotiation", "whisper")
SUMMONING = ("random", "choose")  # how a room's Servants are summoned (issue 9)
# What became of a seat's player, told to every member (`seat_event`, issue 10)
SEAT_EVENTS = ("dropped", "bot_took_over", "returned", "left", "kicked")
# Room timings: name -> (min, max, default). The prompts' limits in seconds; `bot_ms` is the
# time a hard bot may think per decision, `bot_pace_ms` the pause of a bot in a battle no human
# fights in (so that those watching can follow it; 0: no pause), in milliseconds.
# priority_s: the priority phase that opens each turn (docs/rules.md §3.3); 0 = none.
# The modules add the timers of their own prompts (`Module.timers`: seed 002's day 0 and
# relic draft), room settings like the rest in every room.
SECONDS = {"declare_s": (30, 600, 300), "priority_s": (0, 120, 20), "main_s": (10, 600, 120),
           "reaction_s": (5, 300, 60), "prompt_s": (5, 300, 60), "bot_ms": (50, 5000, 1000),
           "bot_pace_ms": (0, 10000, 1500),
           **{k: (t.lo, t.hi, t.default) for k, (_m, t) in room_timers().items()}}
# The rules modules a room may switch on (`engine.modules.MODULES`, filled when the engine is
# imported), and the shape of their options: module -> {option: value}. The values are
# checked by `engine.modules.normalize` when the room is created.
MODULE_NAMES = tuple(MODULES)
MODULES_FIELD = Field(list, required=False, hi=len(MODULE_NAMES),
                      items=Field(str, choices=MODULE_NAMES))
OPTIONS_FIELD = Field(dict, required=False, hi=len(MODULE_NAMES),
                      keys=Field(str, choices=MODULE_NAMES),
                      items=Field(dict, hi=32, keys=Field(str, lo=1, hi=32),
                                  items=Field((bool, int, str), lo=-INT_MAX, hi=INT_MAX)))

# What a client may ask for in its hello (docs/protocol.md, Features): "updates", after the
# first full `state`, only what changed (`update`); "no_log", `events` without the dice-bot
# log lines (a client that writes its own log in its own language).
FEATURES = ("updates", "no_log")

_MESSAGES = [
    # --- client to server ---
    Message("hello", "c2s", {"version": Field(int, lo=0, hi=INT_MAX), "name": NAME,
                             "features": _opt(list, hi=len(FEATURES),
                                              items=Field(str, choices=FEATURES))},
            "first message; the server answers welcome or version_mismatch; `features`: "
            "what this client can take besides the base protocol (FEATURES)"),
    Message("ping", "c2s", {}, "the server answers pong"),
    Message("list_rooms", "c2s", {"offset": _opt(int, lo=0, hi=INT_MAX)},
            "the server answers rooms: at most MAX_LISTED rooms from `offset` (default 0)"),
    Message("create_room", "c2s", {
        "name": ROOM_NAME, "password": _opt(str, hi=64), "seats": _opt(int, lo=1, hi=7),
        "day_limit": _opt(int, lo=1, hi=30),
        **{k: _opt(int, lo=lo, hi=hi) for k, (lo, hi, _d) in SECONDS.items()},
        "cls": _opt(str, choices=CLASS_NAMES),
        "summoning": _opt(str, choices=SUMMONING),
        "modules": MODULES_FIELD, "options": OPTIONS_FIELD,
    }, "create a room and join it as its owner in the seat of `cls` (default saber), with "
       "the rules `modules` switched on and their `options`; `summoning` random (default: "
       "each Servant drawn from its class's roster by the seed) or choose"),
    Message("join_room", "c2s", {
        "room": Field(int, lo=1, hi=INT_MAX), "password": _opt(str, hi=64),
        "spectator": _opt(bool), "cls": _opt(str, choices=CLASS_NAMES),
    }, "join as a player (in a free seat, of `cls` if given) or as a spectator"),
    Message("resume", "c2s", {"room": Field(int, lo=1, hi=INT_MAX),
                              "token": Field(str, lo=8, hi=64)},
            "take back a seat with its token; answers joined, history, then a full resync"),
    Message("leave_room", "c2s", {}, "leave the room (a player's seat goes to a bot)"),
    Message("choose_class", "c2s", {"cls": Field(str, choices=CLASS_NAMES)},
            "before the start: move to the free seat of another class"),
    Message("choose_servant", "c2s", {"servant": Field(str, lo=1, hi=40)},
            "before the start, in a choose room: summon this Servant of your seat's class "
            "(only you are told which: `your_servant` in your room message)"),
    Message("add_bot", "c2s", {"cls": Field(str, choices=CLASS_NAMES),
                               "level": _opt(str, choices=LEVELS)}, "owner: a bot seat"),
    Message("remove_bot", "c2s", {"seat": Field(int, lo=0, hi=6)}, "owner: free a bot seat"),
    Message("bot_level", "c2s", {"level": Field(str, choices=LEVELS)},
            "owner, before the start: every bot seat plays at this level (and add_bot's default)"),
    Message("kick", "c2s", {"seat": Field(int, lo=0, hi=6)},
            "owner: remove a player; a bot takes the seat"),
    Message("ready", "c2s", {"ready": Field(bool)},
            "before the start: a player says it is ready (or no longer); shown to all"),
    Message("start", "c2s", {}, "owner: start the game; empty seats get bots"),
    Message("chat", "c2s", {"text": Field(str, lo=1, hi=300, text="line"),
                            "channel": _opt(str, choices=CHANNELS),
                            "to": _opt(int, lo=0, hi=6), "ref": _opt(int, lo=0, hi=INT_MAX)},
            "say something in the room, in the negotiation of your current Encounter, or "
            "whisper to the seat `to`; a dice command (`2D6+3`, `S1D100<=50`) is rolled by "
            "the server, `/reveal` shows your last secret roll; an error names `ref`"),
    Message("pause_room", "c2s", {},
            "owner: pause the started game (every timer keeps the time it had left, bots "
            "stop, only chat goes on; members may leave and keep their seats); everyone gets "
            "room_paused"),
    Message("resume_room", "c2s", {},
            "the owner, or any seated player while the owner is away: resume the paused "
            "game; everyone gets room_resumed"),
    Message("act", "c2s", {"action": Field(dict), "state_id": Field(int, lo=0, hi=INT_MAX),
                           "ref": _opt(int, lo=0, hi=INT_MAX)},
            "an action (the engine's dict form) chosen on state `state_id`; answered by ack"),
    # --- server to client ---
    Message("welcome", "s2c", {"version": Field(int), "server": Field(str), "motd": MOTD},
            "the handshake's answer; `motd`: the operator's message of the day, if any"),
    Message("pong", "s2c", {}),
    Message("error", "s2c", {"code": Field(str, choices=tuple(ERRORS)), "message": Field(str),
                             "field": _opt(str), "ref": _opt(int)}),
    Message("rooms", "s2c", {"rooms": Field(list, hi=MAX_LISTED), "total": Field(int)},
            "each: id, name, locked, seats, players, bots, spectators, started, over, "
            "modules, summoning, paused; `total` rooms exist (ask again with an offset for the "
            "rest)"),
    Message("joined", "s2c", {"room": Field(int), "seat": Field(int), "token": Field(str),
                              "spectator": Field(bool)}, "seat -1 for a spectator"),
    Message("room", "s2c", {"room": Field(dict)},
            "the room's public state: name, owner seat, options, modules and their options, "
            "seats, started"),
    Message("state", "s2c", {"view": Field(dict), "legal": Field(list),
                             "state_id": Field(int), "deadlines": Field(dict)},
            "this seat's view, its legal actions, and seconds left per prompted seat"),
    Message("update", "s2c", {"base": Field(int), "state_id": Field(int),
                              "patch": Field(list), "deadlines": Field(dict)},
            "to a client that asked for updates: what changed since the `state` (or update) "
            "of state `base`, as `patch` changes of its view and legal actions (each [path, "
            "value] or [path]), and every deadline"),
    Message("events", "s2c", {"events": Field(list), "log": _opt(list)},
            "what happened, as this seat may see it, and the dice-bot log lines"),
    Message("ack", "s2c", {"ref": Field(int), "state_id": Field(int)},
            "the action was accepted and written to the room's log"),
    Message("chat_message", "s2c", {"seat": Field(int), "name": Field(str),
                                    "channel": Field(str), "text": Field(str),
                                    "id": Field(int), "at": Field(int), "to": _opt(int),
                                    "roll": _opt(dict)},
            "a chat line: `id` counts the room's lines, `at` is the server's time (seconds "
            "since 1970); a whisper names its seat `to`; a dice command its `roll`"),
    Message("history", "s2c", {"events": Field(list), "log": Field(list),
                               "chat": Field(list), "first": Field(bool)},
            "after joined: the game's events and log lines so far as this member may see "
            "them, and the kept chat lines it may read (each a chat_message's fields and "
            "`after`, the number of those events before it); long histories come in several "
            "messages, the first with `first`"),
    Message("warning", "s2c", {"seat": Field(int), "seconds": Field(int)},
            "a prompted seat has this many seconds left"),
    Message("timed_out", "s2c", {"seat": Field(int), "action": Field(dict)},
            "to the seat's own player: its time ran out and the server played `action` for it"),
    Message("left", "s2c", {"reason": Field(str)}, "you are no longer in the room (kicked …)"),
    Message("redirect", "s2c", {"host": Field(str, lo=1, hi=255), "port": Field(int, lo=1,
                                                                               hi=65535),
                                "room": Field(int, lo=0)},
            "the room (0: a new room) lives on another server of the cluster: connect there, "
            "and send the same request again"),
    Message("seat_event", "s2c", {"seat": Field(int), "what": Field(str, choices=SEAT_EVENTS),
                                  "name": Field(str), "seconds": _opt(int, lo=0)},
            "a seat's player dropped (kept `seconds`), a bot took the seat over, the player "
            "returned, left or was kicked"),
    Message("room_paused", "s2c", {"by": Field(str)},
            "the game is paused (by the owner's name, or `operator`): the state that follows "
            "has no legal actions and the frozen time left of each prompted seat"),
    Message("room_resumed", "s2c", {"by": Field(str)},
            "the game goes on: the timers run again from the time they had left"),
    Message("replay", "s2c", {"replay": Field(dict)},
            "once the game is over: seed, classes, Masters, day limit, modules and their options,"
            " and every action"),
]
MESSAGES: dict[str, Message] = {m.name: m for m in _MESSAGES}


def validate(msg: Any, direction: str = "c2s") -> Message:
    """Check a decoded message against its declaration; return the declaration."""
    if not isinstance(msg, dict):
        raise ProtocolError("bad_frame", f"a message is a map, got {type(msg).__name__}")
    name = msg.get("t")
    spec = MESSAGES.get(name) if isinstance(name, str) else None
    if spec is None or spec.direction != direction:
        raise ProtocolError("unknown_message", f"unknown message {name!r}")
    for fname, f in spec.fields.items():
        if fname in msg:
            f.check(fname, msg[fname])
        elif f.required:
            raise ProtocolError("bad_field", f"{fname}: missing", fname)
    # A key msgpack may decode as bytes is named by its repr, so mixed keys still sort.
    extra = sorted(k if isinstance(k, str) else repr(k)
                   for k in msg if k != "t" and k not in spec.fields)
    if extra:
        names = ", ".join(_shown(k) for k in extra[:5]) + (", ..." if len(extra) > 5 else "")
        raise ProtocolError("bad_field", f"unknown field(s) {names}", extra[0][:64])
    return spec


# --- framing -----------------------------------------------------------------------------------
def no_delay(transport: Any) -> None:
    """Turn Nagle's algorithm off on a TCP transport (under TLS the wrapper passes it on): it
    would hold a small message written after another (a view after the ack, a second action)
    until the peer's delayed ACK, 40 ms on Linux. Transports without it (tests) are left."""
    turn_off = getattr(transport, "setTcpNoDelay", None)
    if turn_off is not None:
        turn_off(True)


def encode(msg: dict[str, Any]) -> bytes:
    """One message as a frame: length prefix + msgpack."""
    body = msgpack.packb(msg, use_bin_type=True)
    if len(body) > MAX_FRAME:
        raise ValueError(f"message {msg.get('t')!r} is {len(body)} bytes, over {MAX_FRAME}")
    return _LENGTH.pack(len(body)) + body


def decode(body: bytes) -> Any:
    """The message in one frame body; any msgpack fault is a bad_frame ProtocolError."""
    try:
        return msgpack.unpackb(body, raw=False, strict_map_key=True)
    except Exception as err:  # msgpack raises several unrelated types
        raise ProtocolError("bad_frame", f"not msgpack: {err.__class__.__name__}") from err


class FrameBuffer:
    """Splits a byte stream into frame bodies; refuses a frame over MAX_FRAME at its header."""

    def __init__(self) -> None:
        self.buffer = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        self.buffer += data
        out = []
        while len(self.buffer) >= 4:
            (size,) = _LENGTH.unpack_from(self.buffer)
            if size > MAX_FRAME:
                raise ProtocolError("frame_too_large", f"frame of {size} bytes")
            if len(self.buffer) < 4 + size:
                break
            out.append(bytes(self.buffer[4:4 + size]))
            del self.buffer[:4 + size]
        return out


def message(msg_name: str, /, **fields: Any) -> dict[str, Any]:
    """Build a message (declared fields only: a typo fails here, not on the other side)."""
    spec = MESSAGES[msg_name]
    unknown = set(fields) - set(spec.fields)
    assert not unknown, f"{msg_name}: undeclared field(s) {unknown}"
    return {"t": msg_name, **fields}
