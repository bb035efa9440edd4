"""The message schema of `shared/protocol.py`: every message round-trips, limits are enforced
with the field named, and frames are split, joined and refused exactly at 64 KiB."""

from __future__ import annotations

import re
import struct
from pathlib import Path
from typing import Any

import msgpack
import pytest
from grailwar.shared import protocol as P
from grailwar.shared.protocol import (
    ERRORS,
    FATAL,
    MAX_FRAME,
    MESSAGES,
    FrameBuffer,
    ProtocolError,
    decode,
    encode,
    message,
    validate,
)
from hypothesis import given, settings
from hypothesis import strategies as st

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"

# One realistic example of every message, with every optional field present.
SAMPLES: dict[str, dict[str, Any]] = {
    "hello": {"version": 2, "name": "Shirou", "features": ["updates", "no_log"]},
    "ping": {},
    "list_rooms": {"offset": 100},
    "create_room": {"name": "聖杯戦争", "password": "hunter2", "seats": 5, "day_limit": 3,
                    "declare_s": 30, "main_s": 60, "reaction_s": 20, "prompt_s": 30,
                    "cls": "archer", "modules": ["tactics"],
                    "options": {"tactics": {"concentration": False}}},
    "join_room": {"room": 3, "password": "hunter2", "spectator": False, "cls": "lancer"},
    "resume": {"room": 3, "token": "x" * 32},
    "leave_room": {},
    "choose_class": {"cls": "caster"},
    "choose_servant": {"servant": "hua_mulan"},
    "add_bot": {"cls": "rider", "level": "hard"},
    "remove_bot": {"seat": 4},
    "bot_level": {"level": "hard"},
    "kick": {"seat": 2},
    "ready": {"ready": True},
    "start": {},
    "chat": {"text": "同盟を組もう", "channel": "whisper", "to": 2, "ref": 4},
    "act": {"action": {"type": "DeclareWait", "seat": 0}, "state_id": 12, "ref": 7},
    "pause_room": {},
    "resume_room": {},
    "room_paused": {"by": "Rin"},
    "room_resumed": {"by": "operator"},
    "welcome": {"version": 2, "server": "grailwar"},
    "pong": {},
    "error": {"code": "bad_field", "message": "seats: above the maximum 7", "field": "seats",
              "ref": 7},
    "rooms": {"rooms": [{"id": 1, "name": "a", "locked": True, "seats": 7, "players": 1,
                         "bots": 2, "spectators": 0, "started": False, "over": False,
                         "modules": ["tactics"], "paused": True}],
              "total": 1},
    "joined": {"room": 1, "seat": 0, "token": "abc", "spectator": False},
    "room": {"room": {"id": 1, "name": "a", "owner": 0, "seat_list": [], "modules": ["tactics"],
                      "module_options": {"tactics": {"concentration": True}}}},
    "state": {"view": {"day": 1, "camps": []}, "legal": [{"type": "DeclareWait", "seat": 0}],
              "state_id": 3, "deadlines": {"0": 299}},
    "update": {"base": 3, "state_id": 4, "patch": [[["view", "day"], 2], [["view", "camps", 0,
                                                                           "hp"], 30]],
               "deadlines": {"0": 298}},
    "events": {"events": [{"type": "DiceRolled", "seat": 0}], "log": ["#0 hit: (2D6) ＞ 7[3,4]"]},
    "ack": {"ref": 7, "state_id": 13},
    "chat_message": {"seat": 0, "name": "shirou", "channel": "whisper", "text": "2D6 hi",
                     "id": 9, "at": 1_764_590_000, "to": 2,
                     "roll": {"expr": "2D6", "terms": [], "total": 7, "secret": False}},
    "history": {"events": [{"type": "DiceRolled", "seat": 0}], "log": ["(2D6) ＞ 7[3,4]"],
                "chat": [{"seat": -1, "name": "w", "channel": "room", "text": "hi", "id": 1,
                          "at": 0, "after": 1}], "first": True},
    "warning": {"seat": 3, "seconds": 10},
    "timed_out": {"seat": 1, "action": {"type": "DeclareWait", "seat": 1}},
    "left": {"reason": "kicked"},
    "redirect": {"host": "10.0.0.2", "port": 7707, "room": 12},
    "seat_event": {"seat": 2, "what": "dropped", "name": "Rin", "seconds": 90},
    "replay": {"replay": {"format": "grailwar-replay-4", "seed": 3, "classes": ["saber", "lancer"],
                          "modules": ["tactics"], "options": {"tactics": {"concentration": True}},
                          "actions": [{"type": "DeclareWait", "seat": 0}]}},
}


def test_samples_cover_every_message() -> None:
    """The round-trip samples name every declared message, no more, no less."""
    assert set(SAMPLES) == set(MESSAGES)


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_message_round_trip(name: str) -> None:
    """encode → frame split → decode → validate gives back the same message, for each one."""
    msg = message(name, **SAMPLES[name])
    frame = encode(msg)
    assert struct.unpack(">I", frame[:4])[0] == len(frame) - 4
    (body,) = FrameBuffer().feed(frame)
    back = decode(body)
    assert back == msg
    assert validate(back, MESSAGES[name].direction).name == name


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_message_with_only_required_fields_is_valid(name: str) -> None:
    """Optional fields may be left out; required ones may not (the error names the field)."""
    spec = MESSAGES[name]
    required = {k: v for k, v in SAMPLES[name].items() if spec.fields[k].required}
    validate({"t": name, **required}, spec.direction)
    for field in required:
        partial = {"t": name, **{k: v for k, v in required.items() if k != field}}
        with pytest.raises(ProtocolError) as err:
            validate(partial, spec.direction)
        assert (err.value.code, err.value.field) == ("bad_field", field)


def test_direction_is_part_of_the_name() -> None:
    """A server message sent by a client is unknown to the server, and the other way round."""
    with pytest.raises(ProtocolError) as err:
        validate({"t": "welcome", "version": 2, "server": "x"}, "c2s")
    assert err.value.code == "unknown_message"
    with pytest.raises(ProtocolError):
        validate({"t": "ping"}, "s2c")


@pytest.mark.parametrize(("msg", "field"), [
    ({"t": "hello", "version": "1", "name": "a"}, "version"),
    ({"t": "hello", "version": 2, "name": ""}, "name"),
    ({"t": "hello", "version": 2, "name": "a" * 33}, "name"),
    ({"t": "hello", "version": -1, "name": "a"}, "version"),
    ({"t": "create_room", "name": "r", "seats": 8}, "seats"),
    ({"t": "create_room", "name": "r", "seats": 0}, "seats"),
    ({"t": "create_room", "name": "r", "declare_s": 29}, "declare_s"),
    ({"t": "create_room", "name": "r", "declare_s": 601}, "declare_s"),
    ({"t": "create_room", "name": "r", "day_limit": True}, "day_limit"),
    ({"t": "create_room", "name": "r", "cls": "shielder"}, "cls"),
    ({"t": "create_room", "name": "r", "password": "p" * 65}, "password"),
    ({"t": "join_room", "room": 0}, "room"),
    ({"t": "join_room", "room": 1, "spectator": 1}, "spectator"),
    ({"t": "resume", "room": 1, "token": "short"}, "token"),
    ({"t": "chat", "text": "x" * 301}, "text"),
    ({"t": "chat", "text": "hi", "channel": "global"}, "channel"),
    ({"t": "act", "action": [], "state_id": 0}, "action"),
    ({"t": "act", "action": {}, "state_id": 0, "ref": -1}, "ref"),
    ({"t": "act", "action": {}, "state_id": 0.5}, "state_id"),
    ({"t": "add_bot", "cls": "saber", "level": "godlike"}, "level"),
    ({"t": "create_room", "name": "r", "modules": "tactics"}, "modules"),
    ({"t": "create_room", "name": "r", "modules": ["tactics", "nonesuch"]}, "modules"),
    ({"t": "create_room", "name": "r", "modules": [3]}, "modules"),
    ({"t": "create_room", "name": "r", "options": {"nonesuch": {}}}, "options"),
    ({"t": "create_room", "name": "r", "options": {"tactics": True}}, "options"),
    ({"t": "create_room", "name": "r", "options": {"tactics": {"concentration": 0.5}}},
     "options"),
    ({"t": "create_room", "name": "r", "options": {"tactics": {"": True}}}, "options"),
    ({"t": "create_room", "name": "r", "options": []}, "options"),
    ({"t": "kick", "seat": 7}, "seat"),
    ({"t": "ping", "extra": 1}, "extra"),
    ({"t": "ping", b"raw": 1}, "b'raw'"),
    ({"t": "ping", b"raw": 1, "text": 2}, "b'raw'"),
])
def test_wrong_field_is_named(msg: dict[str, Any], field: str) -> None:
    """A known message with a wrong, missing, out-of-range or extra field is a bad_field error
    naming that field (bool is not an int; bytes keys are named by their repr)."""
    with pytest.raises(ProtocolError) as err:
        validate(msg)
    assert (err.value.code, err.value.field) == ("bad_field", field)
    assert not err.value.fatal


@pytest.mark.parametrize(("fields", "text"), [
    ({"modules": [3]}, "modules[0]: expected str, got int"),
    ({"modules": ["nonesuch"]},
     "modules[0]: must be one of ['tactics', 'colossus', 'campaign'], got 'nonesuch'"),
    ({"options": {"nonesuch": {}}},
     "options key 'nonesuch': must be one of ['tactics', 'colossus', 'campaign'], "
     "got 'nonesuch'"),
    ({"options": {"tactics": {"concentration": [True]}}},
     "options['tactics']['concentration']: expected bool or int or str, got list"),
    ({"options": {"tactics": {"x" * 33: True}}},
     "options['tactics'] key '" + "x" * 33 + "': above the maximum 32"),
    ({"options": {"x" * 60_000: {}}}, "options key 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...: "
     "must be one of ['tactics', 'colossus', 'campaign'], "
     "got 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx..."),
])
def test_nested_fault_names_its_place(fields: dict[str, Any], text: str) -> None:
    """A fault inside a list or a map is an error of the top field whose message says where
    inside it the fault is (the item's index, the key), a long key or value cut short."""
    with pytest.raises(ProtocolError) as err:
        validate({"t": "create_room", "name": "r", **fields})
    assert err.value.field == next(iter(fields)) and err.value.message == text


@pytest.mark.parametrize("extra", [{"k" * 65_000: 1}, {str(i): 0 for i in range(10_000)}])
def test_unknown_fields_get_an_error_that_fits_a_frame(extra: dict[str, int]) -> None:
    """A frame's worth of unknown field names (one huge, or thousands) is refused with an
    error the server can send: names cut short, the first few only."""
    msg = {"t": "ping", **extra}
    assert len(msgpack.packb(msg)) <= MAX_FRAME
    with pytest.raises(ProtocolError) as err:
        validate(msg)
    reply = message("error", code=err.value.code, message=err.value.message,
                    field=err.value.field)
    assert err.value.code == "bad_field" and len(encode(reply)) < 1000
    assert err.value.field == min(extra)[:64]


@pytest.mark.parametrize("msg", [[], 3, "hello", None, {"t": 3}, {"t": "nope"}, {}, {"x": 1}])
def test_not_a_message(msg: Any) -> None:
    """Something that is not a map, or names no message, is fatal (bad_frame/unknown_message)."""
    with pytest.raises(ProtocolError) as err:
        validate(msg)
    assert err.value.code in ("bad_frame", "unknown_message")
    assert err.value.fatal


def test_message_builder_refuses_undeclared_fields() -> None:
    """`message()` fails on a typo at the sender, not at the other end."""
    with pytest.raises(AssertionError):
        message("hello", version=2, nmae="x")


def test_error_codes_are_declared_and_fatal_ones_known() -> None:
    """Every fatal code is a declared code, and each code has a description."""
    assert set(FATAL) <= set(ERRORS)
    assert all(ERRORS.values())
    with pytest.raises(AssertionError):
        ProtocolError("no_such_code", "x")


# --- framing ----------------------------------------------------------------------------------
def test_frames_split_and_joined() -> None:
    """A stream cut anywhere gives back the same frames, in order, and keeps the remainder."""
    frames = [encode(message("ping")), encode(message("hello", version=2, name="x" * 20)),
              encode(message("chat", text="ü" * 300))]
    stream = b"".join(frames)
    for cut in range(len(stream) + 1):
        buf = FrameBuffer()
        got = buf.feed(stream[:cut]) + buf.feed(stream[cut:])
        assert [decode(b) for b in got] == [decode(f[4:]) for f in frames]
        assert not buf.buffer
    byte_by_byte = FrameBuffer()
    assert len([b for i in range(len(stream)) for b in byte_by_byte.feed(stream[i:i + 1])]) == 3


def test_frame_limit_is_64_kib_exactly() -> None:
    """A frame of exactly 64 KiB is read; one byte more is refused from its header alone,
    before its body arrives."""
    assert MAX_FRAME == 65536
    overhead = len(msgpack.packb({"t": "chat", "text": "x" * 1000})) - 1000
    body = msgpack.packb({"t": "chat", "text": "x" * (MAX_FRAME - overhead)})
    assert len(body) == MAX_FRAME
    assert FrameBuffer().feed(struct.pack(">I", len(body)) + body) == [body]
    with pytest.raises(ProtocolError) as err:
        FrameBuffer().feed(struct.pack(">I", MAX_FRAME + 1))
    assert err.value.code == "frame_too_large" and err.value.fatal
    with pytest.raises(ValueError):
        encode({"t": "chat", "text": "x" * MAX_FRAME})


@pytest.mark.parametrize("body", [b"\xc1", b"\x92\x01", b"\x81\x01\x02", b"\x80\x80",
                                  b"", b"\xd9\x05ab"])
def test_decode_faults_are_bad_frames(body: bytes) -> None:
    """Not msgpack (reserved byte, truncated, int map key, trailing data, empty) is bad_frame;
    `[1]`-like valid msgpack that is not a map fails later, in validate."""
    try:
        msg = decode(body)
    except ProtocolError as err:
        assert err.code == "bad_frame"
    else:
        with pytest.raises(ProtocolError):
            validate(msg)


# --- properties of the declarations -------------------------------------------------------------
def values(f: P.Field) -> st.SearchStrategy[Any]:
    """Values within a field's declared limits (nested ones too)."""
    if f.choices:
        return st.sampled_from(f.choices)
    if len(f.types) > 1:
        return st.one_of([values(P.Field(t, lo=f.lo, hi=f.hi)) for t in f.types])
    if f.type is int:
        return st.integers(f.lo if f.lo is not None else -(2**31),
                           f.hi if f.hi is not None else 2**31)
    if f.type is str:  # a text people read is valid only without what text_fault refuses
        text = st.text(min_size=max(f.lo or 0, 0),  # (a length: a negative bound is an int's)
                       max_size=min(f.hi if f.hi is not None else 40, 300))
        return text.filter(lambda v: not P.text_fault(v, f.text)) if f.text else text
    if f.type is bool:
        return st.booleans()
    size = {"min_size": f.lo or 0, "max_size": f.hi if f.hi is not None else 5}
    if f.type is list:
        return st.lists(values(f.items) if f.items else st.integers(-(2**63), 2**63 - 1), **size)
    return st.dictionaries(values(f.keys) if f.keys else st.text(max_size=5),
                           values(f.items) if f.items else st.integers(-(2**63), 2**63 - 1),
                           **size)


@st.composite
def valid_messages(draw: st.DrawFn) -> dict[str, Any]:
    spec = draw(st.sampled_from(list(MESSAGES.values())))
    msg = {"t": spec.name}
    for name, f in spec.fields.items():
        if f.required or draw(st.booleans()):
            msg[name] = draw(values(f))
    return msg


@settings(max_examples=300, deadline=None)
@given(valid_messages())
def test_any_declared_message_round_trips(msg: dict[str, Any]) -> None:
    """Any message whose fields are within their limits survives the wire and validates."""
    back = decode(FrameBuffer().feed(encode(msg))[0])
    assert back == msg
    validate(back, MESSAGES[msg["t"]].direction)


# --- the document -------------------------------------------------------------------------------
def test_protocol_document_names_every_message_and_error() -> None:
    """docs/protocol.md describes the version, every message with each of its fields, and
    every error code, so another client can be written from it."""
    text = DOC.read_text(encoding="utf-8")
    assert f"version {P.PROTOCOL_VERSION}" in text.lower()
    for name, spec in MESSAGES.items():
        heading = re.search(rf"^#+ .*`{name}`", text, re.M)
        assert heading, f"no heading for message {name!r}"
        section = text[heading.end():]
        nxt = re.search(r"^#+ ", section, re.M)
        section = section[:nxt.start()] if nxt else section
        for field in spec.fields:
            assert f"`{field}`" in section, f"{name}: field {field!r} undocumented"
    for code in ERRORS:
        assert f"`{code}`" in text, f"error code {code!r} undocumented"


def _int_fields(f: P.Field, at: str) -> list[tuple[str, P.Field]]:
    """Every declaration under `f` (itself, its items, its keys) that takes an int."""
    out = [(at, f)] if int in f.types else []
    for sub, where in ((f.items, at + "[]"), (f.keys, at + "{}")):
        if sub is not None:
            out += _int_fields(sub, where)
    return out


def test_every_integer_a_client_sends_has_a_range_within_int_max() -> None:
    """Issue 38 item 1: no client int is unbounded; each range lies within +-INT_MAX, so no
    value reaches code or a database that cannot take it."""
    found = [pair for m in P.MESSAGES.values() if m.direction == "c2s"
             for name, f in m.fields.items() for pair in _int_fields(f, f"{m.name}.{name}")]
    assert len(found) > 10
    for where, f in found:
        assert f.lo is not None and f.hi is not None, where
        assert -P.INT_MAX <= f.lo <= f.hi <= P.INT_MAX, where
