"""Names and chat lines are shown to other players, so the server refuses what would rewrite
their screens (issue 11 item 8): control characters (NUL, ANSI escapes, line breaks) and bidi
controls anywhere; names with nothing visible; players named like the server's bots."""

from __future__ import annotations

import pytest
from grailwar.shared.protocol import PROTOCOL_VERSION
from server_kit import Server, error_of, kinds, one

BAD_NAMES = {
    "nul": "Rin\x00", "ansi": "\x1b[31mRin", "newline": "Rin\nSakura",
    "bidi override": "\u202enir", "isolate": "Rin\u2066x", "blank": "   ",
    "zero width only": "\u200b\u200d", "combining only": "\u0301\u0302",
    "a bot's name": "bot (normal)", "a bot's name, full-width bracket": "Bot（hard）",
}
GOOD_NAMES = ("衛宮士郎", "髙橋 﨑", "한지민", "Rin ♪", "👩\u200d👩\u200d👧", "robot (normal)")


def greeted(server: Server, name: str) -> list[dict]:
    return server.wire().ask("hello", version=PROTOCOL_VERSION, name=name)


@pytest.mark.parametrize("case", BAD_NAMES)
def test_a_player_name_that_would_mislead_is_refused(case: str) -> None:
    err = error_of(greeted(Server(), BAD_NAMES[case]))
    assert err["code"] == "bad_field" and err["field"] == "name", err


@pytest.mark.parametrize("name", GOOD_NAMES)
def test_names_in_every_script_are_welcome(name: str) -> None:
    assert kinds(greeted(Server(), name)) == ["welcome"]


def test_a_room_name_is_checked_too_but_may_mention_bots() -> None:
    server = Server()
    w = server.wire(name="Rin")
    err = error_of(w.ask("create_room", name="\x1b[2Jroom"))
    assert err["field"] == "name" and "control character U+001B" in err["message"]
    assert one(w.ask("create_room", name="bot (training)"), "joined")


@pytest.mark.parametrize("text", ["\x1b[31mred", "line\nbreak", "\u202etxet", "nul\x00"])
def test_a_chat_line_with_controls_is_refused_and_relayed_to_no_one(text: str) -> None:
    server = Server()
    rin = server.wire(name="Rin")
    room = one(rin.ask("create_room", name="r"), "joined")["room"]
    sakura = server.wire(name="Sakura")
    sakura.ask("join_room", room=room)
    err = error_of(rin.ask("chat", text=text))
    assert err["code"] == "bad_field" and err["field"] == "text"
    assert "chat_message" not in kinds(sakura.take())
    assert kinds(rin.ask("chat", text="こんにちは ♡")).count("chat_message") == 1
