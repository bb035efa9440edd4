"""The chat at a real table: no line lost to a refusal, dice lines in each language, whispers,
the history that fills the log, scrollback, and the log saved as text and HTML."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from arcade import key as keys
from grailwar.client.chatbook import ChatBook, line_text, stamp
from grailwar.client.i18n import Tr
from grailwar.client.logexport import log_html
from grailwar.client.model import ClientModel
from test_model import play_game, state_msg
from test_screens import join, record_sends, render, room_public

ROLL = {"expr": "2D6+3", "terms": [{"sign": 1, "count": 2, "faces": 6, "dice": [3, 4]},
                                   {"sign": 1, "count": 0, "faces": 3, "dice": []}],
        "total": 10, "secret": False}
TARGET = {"expr": "1D100<=60", "terms": [{"sign": 1, "count": 1, "faces": 100, "dice": [42]}],
          "total": 42, "secret": False, "comparison": "<=", "target": 60, "success": True}


def chat(text: str, n: int, seat: int = 0, **fields: Any) -> dict[str, Any]:
    return {"t": "chat_message", "seat": seat, "name": "衛宮" if seat == 0 else "慎二",
            "channel": "room", "text": text, "id": n, "at": 1_764_590_000 + 60 * n, **fields}


def labels(app: Any) -> list[str]:
    return [label for label, _x, _y in app.current.base.labels]


def with_two_players(app: Any) -> None:
    """Seat 0 (this player) and seat 1 (Lancer, 慎二) are players; the game runs."""
    join(app, 0)
    room = room_public(started=True)
    room["seat_list"][2].update(kind="human", name="慎二")
    app.model.handle({"t": "room", "room": room})
    state, _events = play_game(seed=8, stop=lambda s: s.day >= 2)
    app.model.handle(state_msg(state, 0))


def say(app: Any, text: str) -> None:
    view = app.current
    view.focus = "chat"
    view.type_text(text)
    view.on_key_press(keys.ENTER, 0)


def test_a_refused_line_comes_back_to_the_input_with_the_reason(app: Any) -> None:
    """A line the server rate-limits is named by its ref: its text returns to the input box
    and the chat pane says why, in the player's language."""
    with_two_players(app)
    sent = record_sends(app)
    render(app, "log")
    say(app, "いまの見た？")
    assert sent[-1]["t"] == "chat" and sent[-1]["text"] == "いまの見た？"
    assert app.current.fields["chat"].value == ""
    app.model.handle({"t": "error", "code": "rate_limited", "message": "slow", "ref":
                      sent[-1]["ref"]})
    render(app, "log")
    assert app.current.fields["chat"].value == "いまの見た？"
    assert app.tr("error.rate_limited") in labels(app)


def test_an_error_of_an_action_is_no_chat_refusal() -> None:
    book = ChatBook()
    ref = book.sending("hello", "room")
    assert not book.refused(1, "no")  # an act's ref
    assert book.draft is None and book.refused(ref, "no") and book.draft == "hello"


@pytest.mark.parametrize(("lang", "word"), [("ja", "成功"), ("ko", "성공"), ("en", "Success")])
def test_a_roll_reads_as_the_dice_bot_in_each_language(lang: str, word: str) -> None:
    tr = Tr(lang)
    step = ">" if lang == "en" else "＞"  # (issue 32: the full-width mark in ja and ko only)
    assert line_text({"text": "2D6+3 攻撃", "roll": ROLL}, tr) == \
        f"(2D6+3) {step} 7[3,4]+3 {step} 10  攻撃"
    assert line_text({"text": "1D100<=60", "roll": TARGET}, tr) == \
        f"(1D100<=60) {step} 42 {step} {word}"
    assert line_text({"text": "", "roll": {"secret": True}}, tr) == tr("chatlog.secret_roll")


def test_rolls_show_in_the_chat_and_in_the_dice_tab_in_their_place(app: Any) -> None:
    with_two_players(app)
    _state, events = play_game(seed=8, stop=lambda s: s.day >= 2)
    app.model.handle({"t": "events", "events": events[:5], "log": []})
    app.model.handle(chat("2D6+3 攻撃", 1, roll=ROLL))
    app.model.handle({"t": "events", "events": events[5:], "log": []})
    app.model.handle(chat("", 2, seat=2, roll={"secret": True}))
    app.ui.log_kind = "dice"
    render(app, "log")
    shown = labels(app)
    assert "(2D6+3) ＞ 7[3,4]+3 ＞ 10  攻撃" in shown, "in the chat pane"
    tab = [text for _kind, text in app.model.dice_tab()]
    mine = tab.index("衛宮: (2D6+3) ＞ 7[3,4]+3 ＞ 10  攻撃")
    before = [t for k, t in app.model.dice_tab()[:mine] if k != "chat"]
    expected = [t for k, t in model_with(events[:5]).dice_tab()]
    assert before == expected, "the roll sits after the events that came before it"
    assert tab[-1] == "慎二: " + app.tr("chatlog.secret_roll")


def model_with(events: list[dict]) -> ClientModel:
    m = ClientModel("ja")
    m.handle({"t": "events", "events": events, "log": []})
    return m


def test_each_line_has_its_time_and_speaker(app: Any) -> None:
    with_two_players(app)
    line = chat("よろしくお願いします", 3)
    app.model.handle(line)
    render(app, "log")
    assert stamp(line) in labels(app) and "衛宮" in labels(app)


def test_a_whisper_goes_to_the_seat_named_and_shows_whom(app: Any) -> None:
    """`/w ランサー text` whispers to Lancer's seat; the whisper tab then speaks to it."""
    with_two_players(app)
    sent = record_sends(app)
    render(app, "log")
    say(app, "/w ランサー 組まない？")
    assert {k: sent[-1][k] for k in ("text", "channel", "to")} == {
        "text": "組まない？", "channel": "whisper", "to": 2}
    say(app, "/w セイバー hi")  # one's own seat: nobody to whisper to there
    assert sent[-1]["text"] == "組まない？"
    app.model.handle(chat("組まない？", 4, channel="whisper", to=2))
    app.ui.chat_channel = "whisper"
    render(app, "log")
    assert app.tr("chatlog.whisper_head", name="衛宮", who="ランサー 慎二") in labels(app)
    assert app.current.region_by_id("chat:whisper_to") is not None


def test_history_fills_the_log_and_the_chat(app: Any) -> None:
    """The history after joined replaces what the client held, the events and the chat."""
    with_two_players(app)
    app.model.handle(chat("old line", 1))
    _state, events = play_game(seed=8, stop=lambda s: s.day >= 2)
    app.model.handle({"t": "history", "events": events, "log": [], "first": True,
                      "chat": [{k: v for k, v in chat("昔の発言", 2).items() if k != "t"}
                               | {"after": 3}]})
    assert [line["text"] for line in app.model.chat["room"]] == ["昔の発言"]
    assert app.model.events == events
    render(app, "log")
    assert "昔の発言" in labels(app)


def test_the_chat_scrolls_back_and_marks_new_lines_below(app: Any) -> None:
    """PageUp goes back, a line arriving then leaves the view still and is marked as new
    below; End comes back to the newest."""
    with_two_players(app)
    for n in range(40):
        app.model.handle(chat(f"line {n}", n))
    render(app, "log")
    assert "line 39" in labels(app)
    app.current.on_key_press(keys.PAGEUP, 0)
    render(app, "log")
    assert "line 39" not in labels(app) and "line 34" in labels(app)
    assert app.tr("chatlog.below", n=5) in labels(app)
    app.model.handle(chat("line 40", 40))
    render(app, "log")
    assert "line 34" in labels(app) and "line 35" not in labels(app), "the view stays"
    assert app.tr("chatlog.new_below", n=1) in labels(app)
    app.current.on_mouse_scroll(1000, 300, 0, -1)  # the wheel, down one line
    render(app, "log")
    assert app.tr("chatlog.new_below", n=1) in labels(app)
    app.current.on_key_press(keys.END, 0)
    render(app, "log")
    assert "line 40" in labels(app)


class Checker(HTMLParser):
    """Checks that every opened tag is closed in order, and collects the text."""

    VOID = frozenset({"meta", "br"})

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        self.tags.append(tag)
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack.pop() == tag, f"</{tag}> closes nothing open"

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_the_log_is_saved_at_any_time_as_text_and_html(app: Any) -> None:
    """The log screen's button writes both files mid-game; the HTML is well formed, has no
    script, fetches nothing, and shows a chat line's markup as text."""
    with_two_players(app)
    _state, events = play_game(seed=8, stop=lambda s: s.day >= 2)
    app.model.handle({"t": "events", "events": events, "log": []})
    app.model.handle(chat("<script>alert('x')</script> & co", 5))
    app.model.handle(chat("2D6+3", 6, roll=ROLL))
    app.model.handle(chat("内緒の話", 7, channel="whisper", to=2))
    app.model.handle({"t": "error", "code": "rate_limited", "message": "slow",
                      "ref": app.model.chat.sending("too fast", "room")})
    render(app, "log")
    assert app.current.click("export_log")
    txt = Path(app.last_export)
    page = txt.with_suffix(".html").read_text(encoding="utf-8")
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "http" not in page and "src=" not in page
    checker = Checker()
    checker.feed(page)
    checker.close()
    assert checker.stack == [] and "script" not in checker.tags
    text = "".join(checker.text)
    assert "<script>alert('x')</script> & co" in text
    assert "(2D6+3) ＞ 7[3,4]+3 ＞ 10" in text
    assert checker.tags.count("section") == 5
    whispers = page[page.index('class="whisper"'):]
    assert "内緒の話" in whispers and "ランサー 慎二" in whispers
    assert app.tr("error.rate_limited") not in page, "a refusal is the player's own notice"
    assert "<script>alert('x')</script> & co" in txt.read_text(encoding="utf-8")
    assert app.model.notices[-1].level == "info"


def test_html_of_an_empty_table_is_well_formed() -> None:
    checker = Checker()
    checker.feed(log_html(ClientModel("ko")))
    checker.close()
    assert checker.stack == []


def test_the_room_screen_whispers_before_the_start(app: Any) -> None:
    """Before the start the room's chat has the room and whisper tabs (no negotiation yet),
    and its input whispers to the seat the whisper tab names."""
    app.model.handle({"t": "welcome", "version": 2, "server": "grailwar"})
    app.model.handle({"t": "joined", "room": 1, "seat": 0, "token": "x" * 32,
                      "spectator": False})
    room = room_public()
    room["seat_list"][2].update(kind="human", name="慎二")
    app.model.handle({"t": "room", "room": room})
    sent = record_sends(app)
    render(app, "room")
    view = app.current
    assert view.region_by_id("chat:negotiation") is None
    assert view.click("chat:whisper")
    render(app, "room")
    assert app.tr("chatlog.whisper_to", who="ランサー 慎二") in labels(app)
    say(app, "よろしく")
    assert {k: sent[-1][k] for k in ("text", "channel", "to")} == {
        "text": "よろしく", "channel": "whisper", "to": 2}
