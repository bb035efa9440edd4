"""Fuzzing the frame decoder and the dispatcher (hypothesis): random bytes, valid msgpack of
wrong shapes (rooms asked with any modules and options), and oversized frames; the games are
played with every rules module on. Whatever arrives, nothing raises out of the protocol, every
reply is a declared server message, no handler fails with internal_error, a closed connection
was closed by a fatal error frame, and a room elsewhere hears nothing of it. The other way, a
client rebuilding its state from a hostile server's `update` only ever gets a state or a
bad_frame."""

from __future__ import annotations

import struct
from dataclasses import fields
from typing import Any

import msgpack
from grailwar.server.feeds import ViewFeed
from grailwar.server.seating import hash_secret
from grailwar.shared.engine import legal_actions, new_game
from grailwar.shared.engine.actions import ACTION_TYPES
from grailwar.shared.engine.modules import MODULES
from grailwar.shared.engine.sharing import Shared
from grailwar.shared.protocol import (
    FATAL,
    MAX_FRAME,
    MESSAGES,
    MODULES_FIELD,
    OPTIONS_FIELD,
    Field,
    FrameBuffer,
    ProtocolError,
    decode,
)
from grailwar.shared.updates import apply_update
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server_kit import Server, Wire

FUZZ = settings(max_examples=120, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

INT64 = st.integers(-(2**63), 2**64 - 1)  # every integer msgpack carries (issue 38 item 1)
SCALARS = st.one_of(st.none(), st.booleans(), INT64, st.floats(allow_nan=True),
                    st.text(max_size=40), st.binary(max_size=40))
KEYS = st.one_of(st.text(max_size=12), st.binary(max_size=4))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)), max_leaves=12)
LOCK = hash_secret("a password no fuzzer draws")
CLIENT_MESSAGES = sorted(n for n, m in MESSAGES.items() if m.direction == "c2s")
OPTION_NAMES = sorted({name for module in MODULES.values() for name in module.options})


@st.composite
def actions(draw: st.DrawFn) -> Any:
    """Action maps: mostly well-typed engine actions for any seat, sometimes anything."""
    if draw(st.integers(0, 9)) == 0:
        return draw(VALUES)
    name = draw(st.sampled_from(sorted(ACTION_TYPES)))
    action: dict[Any, Any] = {"type": name}
    for f in fields(ACTION_TYPES[name]):
        if draw(st.integers(0, 9)) == 0:
            continue
        kind = str(f.type)
        action[f.name] = draw(
            st.sampled_from([0, 0, 0, 1, 2, -1]) if f.name == "seat"
            else st.one_of(st.integers(-1, 40), INT64) if kind == "int"
            else st.booleans() if kind == "bool"
            else st.sampled_from(["", "B", "A", "Q", "G", "battle", "negotiate", "hp", "x"])
            if draw(st.booleans()) else VALUES)
    if draw(st.integers(0, 9)) == 0:
        action[draw(KEYS)] = draw(VALUES)
    return action


def in_limits(f: Field) -> st.SearchStrategy[Any]:
    """A value the declaration accepts (small numbers, so seats and room ids exist); inside a
    list or map, items of the declared shape (module options: real names, often)."""
    if f.choices:
        return st.sampled_from(f.choices)
    if len(f.types) > 1:
        return st.one_of([in_limits(Field(t)) for t in f.types])
    if f.items is not None and f.type is list:
        return st.lists(in_limits(f.items), max_size=f.hi if f.hi is not None else 4)
    if f.items is not None:
        keys = in_limits(f.keys) if f.keys is not None else KEYS
        if f.keys is not None and not f.keys.choices:
            keys = st.one_of(st.sampled_from(OPTION_NAMES), keys)
        return st.dictionaries(keys, in_limits(f.items), max_size=3)
    if f.type is int:  # mostly small (seats and room ids that exist), else any msgpack int
        lo = f.lo if f.lo is not None else -1
        return st.one_of(st.integers(lo, min(f.hi if f.hi is not None else lo + 12, lo + 12)),
                         INT64)
    if f.type is str:
        return st.text(min_size=f.lo or 0, max_size=min(f.hi if f.hi is not None else 40, 40))
    if f.type is bool:
        return st.booleans()
    return VALUES


@st.composite
def shaped(draw: st.DrawFn) -> Any:
    """Mostly a valid client message (engine actions for any seat, state ids near the real
    one); else one with a field of the wrong type, or an extra key, or any msgpack value."""
    mode = draw(st.sampled_from(["valid"] * 5 + ["wrong", "extra", "any"]))
    if mode == "any":
        return draw(VALUES)
    name = draw(st.sampled_from(CLIENT_MESSAGES))
    msg: dict[Any, Any] = {"t": name}
    for fname, f in MESSAGES[name].fields.items():
        if f.required or draw(st.booleans()):
            msg[fname] = draw(actions() if fname == "action" else st.integers(0, 2)
                              if fname == "state_id" else in_limits(f))
    if mode == "wrong" and MESSAGES[name].fields:
        msg[draw(st.sampled_from(sorted(MESSAGES[name].fields)))] = draw(VALUES)
    if mode == "extra":
        msg[draw(KEYS)] = draw(VALUES)
    return msg


def frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


class Scene:
    """A connection under test in one of three places, and a bystander in another room."""

    def __init__(self, where: str) -> None:
        self.server = Server()
        # Another room, locked and playing, whose two players think for ten minutes.
        self.bystander = self.server.wire("10.9.9.9", name="bystander")
        self.bystander.send("create_room", name="elsewhere", seats=2, declare_s=600)
        self.other_room = self.bystander.proto.room
        self.server.wire("10.9.9.8", name="partner").send("join_room", room=self.other_room.id)
        self.other_room.password = LOCK
        self.bystander.send("start")
        self.other_before = self.other_room.state.version
        self.w: Wire = self.server.wire(name="fuzz")
        if where in ("owner", "playing"):  # a game with every module on
            self.w.send("create_room", name="mine", seats=3, modules=list(MODULES))
            self.w.send("add_bot", cls="rider")
        if where == "playing":
            self.w.send("start")
        self.bystander.take()
        self.w.take()

    def check(self) -> None:
        got = self.w.take()  # every reply decodes and validates as a server message
        # Reading may resume a paused connection (more than the transport's buffer was sent):
        # what waited is read then, and its replies come in the next take.
        while more := self.w.take():
            got += more
        codes = [m["code"] for m in got if m["t"] == "error"]
        assert "internal_error" not in codes, got
        if self.w.closed:
            assert got and got[-1]["t"] == "error" and got[-1]["code"] in FATAL, got
        # The other room heard nothing of this connection, and its game went untouched.
        assert self.bystander.take() == []
        assert self.other_room.state.version == self.other_before


@FUZZ
@given(st.lists(st.binary(max_size=300), max_size=6))
def test_frame_decoder_random_bytes(chunks: list[bytes]) -> None:
    """Random bytes in random chunks: the frame buffer only ever returns bodies up to the limit
    or raises a ProtocolError, and decoding a body only ever raises a ProtocolError."""
    buf = FrameBuffer()
    try:
        for chunk in chunks:
            for body in buf.feed(chunk):
                assert len(body) <= MAX_FRAME
                try:
                    decode(body)
                except ProtocolError as err:
                    assert err.code == "bad_frame"
    except ProtocolError as err:
        assert err.code == "frame_too_large"


@FUZZ
@given(st.sampled_from(["lobby", "owner", "playing"]),
       st.lists(st.binary(max_size=200), max_size=5), st.booleans())
def test_dispatcher_random_bytes(where: str, chunks: list[bytes], framed: bool) -> None:
    """Random bytes, raw or each wrapped in a correct length prefix, into a connection in the
    lobby, owning a room, or playing a game."""
    scene = Scene(where)
    for chunk in chunks:
        scene.w.raw(frame(chunk) if framed else chunk)
    scene.check()


@FUZZ
@given(st.sampled_from(["lobby", "owner", "playing"]),
       st.lists(shaped(), min_size=1, max_size=8))
def test_dispatcher_wrong_shapes(where: str, msgs: list[Any]) -> None:
    """Valid msgpack of any shape, most of it maps naming real messages with fields of right
    and wrong types (and engine actions for any seat): errors only, never a crash."""
    scene = Scene(where)
    for msg in msgs:
        if scene.w.closed:
            break
        scene.w.raw(frame(msgpack.packb(msg, use_bin_type=True)))
        scene.server.advance(0.5)
    scene.check()


@FUZZ
@given(st.lists(st.tuples(actions(), st.sampled_from([0, 0, 0, -1, 1])), min_size=1,
                max_size=10))
def test_random_actions_in_a_game(moves: list[tuple[Any, int]]) -> None:
    """Engine actions of every type with arbitrary numbers and strings, for this seat and
    others, on the current state id (or one off): each is acknowledged or refused with a
    protocol error, never an internal error, and a refused one leaves the state as it was."""
    scene = Scene("playing")
    room = scene.w.proto.room
    for ref, (action, offset) in enumerate(moves):
        before = room.state.version
        scene.w.send_dict({"t": "act", "action": action, "state_id": before + offset,
                           "ref": ref})
        got = scene.w.take()
        while more := scene.w.take():  # a connection paused by flow control (see check)
            got += more
        scene.w.log.extend(got)
        replies = [m for m in got if m["t"] in ("ack", "error")]
        assert len(replies) == 1 and replies[0].get("ref") == ref, got
        if replies[0]["t"] == "error":
            assert replies[0]["code"] != "internal_error", replies[0]
            assert room.state.version == before
        scene.server.advance(0.3)
    scene.check()


@FUZZ
@given(st.one_of(st.none(), in_limits(MODULES_FIELD), VALUES),
       st.one_of(st.none(), in_limits(OPTIONS_FIELD), VALUES))
def test_create_room_with_any_modules_and_options(modules: Any, options: Any) -> None:
    """create_room with modules and options of the declared shape (real names and options,
    often), or of any shape: the room is made with the modules asked for, or refused with a
    bad_field error naming one of the two fields, and then no room exists."""
    server = Server()
    w = server.wire(name="fuzz")
    msg = {"t": "create_room", "name": "r", "modules": modules, "options": options}
    w.send_dict({k: v for k, v in msg.items() if v is not None})
    got = w.take()
    if got[0]["t"] == "error":
        assert got[0]["code"] == "bad_field" and got[0]["field"] in ("modules", "options"), got
        assert server.lobby.rooms == {} and server.store.load_rooms() == []
    else:
        assert [m["t"] for m in got] == ["joined", "history", "room"], got
        assert set(got[2]["room"]["modules"]) >= set(modules or ())


@FUZZ
@given(st.integers(MAX_FRAME + 1, 2**32 - 1), st.binary(max_size=100), st.booleans())
def test_oversized_frames(size: int, tail: bytes, after_hello: bool) -> None:
    """A frame announced over 64 KiB is refused from its header (frame_too_large), the
    connection closes, and nothing after it is read."""
    server = Server()
    w = server.wire(name="x") if after_hello else server.wire()
    w.raw(struct.pack(">I", size) + tail)
    got = w.take()
    assert [m.get("code") for m in got] == ["frame_too_large"] and w.closed
    w.raw(frame(msgpack.packb({"t": "ping"})))
    assert w.take() == []


def _campaign_state() -> dict[str, Any]:
    """A seat's full `state` of a campaign game (a module state of maps, legal actions)."""
    game = new_game(seed=3, modules=("campaign",))
    seat = sorted(game.prompt.seats)[0]
    return ViewFeed(seat).message(game, Shared(game), legal_actions(game, seat), {})


LAST = _campaign_state()
# path steps a server would send (the view's parts, the campaign state's, indices of a camp
# list and the legal list, and ones just outside them) or anything
STEPS = st.one_of(st.sampled_from(["view", "legal", "modules", "campaign", "state"]),
                  st.sampled_from(sorted(LAST["view"])),
                  st.sampled_from(sorted(LAST["view"]["modules"]["campaign"]["state"])),
                  st.integers(-1, len(LAST["legal"])), st.sampled_from([2**31, -(2**63)]),
                  KEYS, VALUES)
CHANGES = st.lists(st.one_of(st.tuples(st.lists(STEPS, max_size=6), VALUES).map(list),
                             st.lists(STEPS, max_size=6).map(lambda p: [p]), VALUES),
                   max_size=4)


@FUZZ
@given(st.one_of(CHANGES, VALUES))
def test_a_hostile_update_gives_a_state_or_bad_frame(patch: Any) -> None:
    """Any `patch`, near-valid (real parts, module state keys and indices) or not: the client
    gets a state whose view has the parts it had and whose legal list is of maps, or a
    bad_frame; the last state it held is left as it was."""
    update = {"t": "update", "base": LAST["state_id"], "state_id": LAST["state_id"] + 1,
              "patch": patch, "deadlines": {}}
    before = msgpack.packb(LAST)
    try:
        state = apply_update(LAST, update)
    except ProtocolError as err:
        assert err.code == "bad_frame"
    else:
        assert all(isinstance(a, dict) for a in state["legal"])
        assert state["view"].keys() == LAST["view"].keys()
    assert msgpack.packb(LAST) == before
