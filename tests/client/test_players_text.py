"""What players type draws as glyphs, not boxes: the body face (Grail Sans regular) holds all
of JIS X 0213 and the cp932 extensions, every Hangul character, the symbol blocks and emoji."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from test_i18n import _has
from test_screens import draw_text, join, render, room_public

NAMES = "髙橋 﨑 德 塚 \ufa10 𠮷野家 𠮟"  # 塚 twice: U+585A and the IBM extension's U+FA10
SYMBOLS = "♪♡★※→①⑳㈱"
HANGUL_TEXT = "한글 똠방각하 ᄀᆞᇹ ㆍㅿ"
EMOJI = "😀🎲❤️👍"
LINE = f"{NAMES} {SYMBOLS} {HANGUL_TEXT} {EMOJI}"
NOT_IN_ANY_FONT = "\ue000"  # private use: draws the .notdef box


def decodable(codec: str, leads: range, trails: range, prefix: bytes = b"") -> set[str]:
    out: set[str] = set()
    for lead in leads:
        for trail in trails:
            with contextlib.suppress(UnicodeDecodeError):
                out |= set(bytes([*prefix, lead, trail]).decode(codec))
    return {c for c in out if c.isprintable() and not 0xE000 <= ord(c) <= 0xF8FF}


def test_the_body_face_has_the_sample_characters(window: Any) -> None:
    has = _has(window, "Grail Sans", False)
    missing = [c for c in LINE if c != " " and not has(c)]
    assert not missing, missing
    assert not has(NOT_IN_ANY_FONT)


@pytest.mark.parametrize(("codec", "planes"), [
    ("euc_jis_2004", (b"", b"\x8f")),  # JIS X 0213 planes 1 and 2
    ("cp932", (b"",)),                 # Shift_JIS with the NEC and IBM extensions
])
def test_the_body_face_has_every_character_a_japanese_ime_types(window: Any, codec: str,
                                                               planes: tuple[bytes, ...]) -> None:
    has = _has(window, "Grail Sans", False)
    leads, trails = (range(0xA1, 0xFF),) * 2 if codec != "cp932" else (range(0x81, 0xFD),
                                                                       range(0x40, 0xFD))
    chars = set().union(*(decodable(codec, leads, trails, p) for p in planes))
    assert len(chars) > (11000 if codec != "cp932" else 7000)
    missing = sorted(c for c in chars if not has(c))
    assert not missing, f"{len(missing)} missing: {''.join(missing[:60])}"


def test_the_body_face_has_all_of_hangul(window: Any) -> None:
    has = _has(window, "Grail Sans", False)
    spans = [(0xAC00, 0xD7A3), (0x1100, 0x11FF), (0x3131, 0x318E), (0xA960, 0xA97C),
             (0xD7B0, 0xD7C6), (0xD7CB, 0xD7FB)]  # syllables, jamo, compatibility, extensions
    missing = [hex(c) for lo, hi in spans for c in range(lo, hi + 1) if not has(chr(c))]
    assert not missing, missing[:20]


def test_a_players_line_draws_no_box(app: Any) -> None:
    """Each character of a name/chat line draws something, and never the .notdef box."""
    box = draw_text(app, NOT_IN_ANY_FONT)
    assert len(set(box)) > 1, "the box itself is drawn (the comparison has teeth)"
    for ch in LINE.replace(" ", "").replace("\ufe0f", ""):
        image = draw_text(app, ch)
        assert image != box, f"{ch} (U+{ord(ch):04X}) is drawn as a box"
        assert len(set(image)) > 1, f"{ch} (U+{ord(ch):04X}) draws nothing"
    assert draw_text(app, "\ufe0f") == draw_text(app, " "), "a variation selector is invisible"


def test_the_room_shows_a_players_name_and_chat_in_any_script(app: Any) -> None:
    join(app)
    room = room_public(started=False, seats=5)
    room["seat_list"][0]["name"] = NAMES
    app.model.handle({"t": "room", "room": room})
    app.model.handle({"t": "chat_message", "seat": 0, "name": NAMES, "channel": "room",
                      "text": f"{SYMBOLS} {HANGUL_TEXT} {EMOJI}"})
    render(app, "room")
    text = " ".join(label for label, _x, _y in app.current.base.labels)
    assert NAMES in text and HANGUL_TEXT in text
