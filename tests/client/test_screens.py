"""Every screen renders headless (ARCADE_HEADLESS=1) from server messages, and shows what matters:
the hand of the view, disabled actions drawn disabled, Japanese and Korean text as glyphs."""

from __future__ import annotations

import re
from typing import Any

import pytest
from grailwar.client import theme as th
from grailwar.shared.engine import new_game
from grailwar.shared.engine.data import CLASSES
from test_model import GREYED_MASTERS, play_game, state_msg


def render(app: Any, name: str) -> Any:
    """Show a screen, draw one frame, return its pixels (PIL image, origin top-left)."""
    import arcade

    view = app.show(name)
    app.window.switch_to()
    view.on_update(0.0)
    view.on_draw()
    image = arcade.get_image(0, 0, th.WIDTH, th.HEIGHT).convert("RGB")
    app.window.flip()
    return image


def pixel(image: Any, x: float, y: float) -> tuple[int, int, int]:
    """The colour at window coordinates (origin bottom-left, as arcade draws)."""
    return image.getpixel((int(x), th.HEIGHT - 1 - int(y)))


def colours_in(image: Any, region: Any) -> int:
    box = (int(region.left), th.HEIGHT - int(region.bottom + region.height),
           int(region.left + region.width), th.HEIGHT - int(region.bottom))
    return len(set(image.crop(box).getdata()))


def join(app: Any, seat: int = 0) -> None:
    app.model.handle({"t": "welcome", "version": 2, "server": "grailwar"})
    app.model.handle({"t": "joined", "room": 1, "seat": seat, "token": "x" * 32,
                      "spectator": False})
    app.model.handle({"t": "room", "room": room_public(started=True)})


def record_sends(app: Any) -> list[dict]:
    """Replace the app's connection by one that records what the screen sends."""
    sent: list[dict] = []

    class Recorder:
        def send(self, name: str, /, **fields: Any) -> bool:
            sent.append({"t": name, **fields})
            return True

        def close(self) -> None:
            pass

    app.session = Recorder()
    return sent


def room_public(started: bool = False, seats: int = 7, summoning: str = "random") -> dict:
    seat_list = [{"seat": i, "cls": CLASSES[i], "kind": "human" if i == 0 else "bot",
                  "name": "衛宮" if i == 0 else "bot (normal)", "level": "normal",
                  "connected": True, "bot_playing": i != 0} for i in range(seats)]
    return {"id": 1, "name": "冬木の夜", "locked": False, "seats": seats, "players": 1,
            "bots": seats - 1, "spectators": 0, "started": started, "over": False, "owner": 0,
            "options": {"declare_s": 300, "main_s": 120, "reaction_s": 60, "prompt_s": 60,
                        "seats": seats, "day_limit": 7, "summoning": summoning},
            "seat_list": seat_list}


def draw_text(app: Any, text: str, font: str = "Grail Sans") -> bytes:
    """`text` drawn at 40 px in `font` (the body face unless told), as grey pixels."""
    import arcade
    from grailwar.client.gfx import Scene

    scene = Scene(app.window.ctx)
    scene.begin()
    t = scene.text(text, 20, 20, 40, th.WHITE)
    if font != "Grail Sans":
        t.label.font_name = font
    scene.end()
    app.window.switch_to()
    app.window.clear(color=(0, 0, 0))
    scene.draw()
    image = arcade.get_image(0, 0, 120, 100).convert("L")
    app.window.flip()
    return image.tobytes()


def test_japanese_and_korean_text_are_glyphs_not_boxes(app: Any) -> None:
    """pyglet draws a missing glyph as the same empty box for every character; the bundled
    font draws each character differently. (Without the font this test fails.)"""
    for a, b in (("聖", "杯"), ("령", "주"), ("ア", "ン")):
        assert draw_text(app, a) != draw_text(app, b), (a, b)
        assert len(set(draw_text(app, a))) > 2
    # the same comparison with pyglet's default font sees identical boxes: the test has teeth
    assert draw_text(app, "聖", "DejaVu Sans") == draw_text(app, "杯", "DejaVu Sans")


@pytest.mark.parametrize("lang", ["ja", "ko", "en"])
def test_title_renders_in_each_language(app: Any, lang: str) -> None:
    app.set_lang(lang)
    image = render(app, "title")
    view = app.current
    region = view.region_by_id("play_local")
    assert region is not None and region.enabled
    assert colours_in(image, region) > 8, "the button's label is drawn"
    assert app.tr("app.title") in [label for label, _x, _y in view.base.labels]
    names = {app.tr.cls(c) for c in CLASSES}  # the circle's class names: whole, in the window
    drawn = [t for key, items in view.base.pool.used.items() for t in items if key[0] in names]
    assert len(drawn) == 7 and all(t.left >= 0 and t.right <= 690 for t in drawn), \
        [(t.text, t.left, t.right) for t in drawn]  # (690: the title panel's left edge)
    assert not any("…" in t.text for t in drawn), [t.text for t in drawn]


def test_bad_name_and_bad_address_get_a_message_not_a_traceback(app: Any) -> None:
    app.settings["name"] = ""
    view = app.show("title")
    view.fields["name"].value = "   "
    view.click("play_local")
    assert app.model.current_notice(view.now()).text == app.tr("error.name_empty")
    view.fields["name"].value = "凛"
    view.fields["host"].value = "no such host:port"
    view.click("connect")
    assert app.model.current_notice(view.now()).text == app.tr("error.bad_host")
    render(app, "title")  # the notice is drawn


def test_lobby_lists_rooms_with_state_and_seats(app: Any) -> None:
    app.model.handle({"t": "rooms", "total": 2, "rooms": [
        {"id": 1, "name": "冬木の夜", "locked": True, "seats": 4, "players": 1, "bots": 2,
         "spectators": 0, "started": False, "over": False},
        {"id": 2, "name": "River", "locked": False, "seats": 7, "players": 0, "bots": 7,
         "spectators": 3, "started": True, "over": False}]})
    render(app, "lobby")
    view = app.current
    assert view.region_by_id("join:1").enabled
    assert not view.region_by_id("join:2").enabled, "a started game can only be watched"
    assert view.region_by_id("watch:2").enabled
    assert view.region_by_id("locked:1") is not None
    view.click("join:1")  # a locked room asks for its password
    render(app, "lobby")
    assert view.region_by_id("password_ok") is not None
    assert view.region_by_id("join:2") is None, "the dialog is modal"


def test_room_shows_seats_servant_choice_and_owner_controls(app: Any) -> None:
    join(app)
    app.model.handle({"t": "room", "room": room_public(started=False, seats=5)})
    sent = record_sends(app)
    render(app, "room")
    view = app.current
    assert view.region_by_id("start").enabled
    assert view.region_by_id("remove_bot:1") is not None
    assert view.region_by_id("choose:saber").on_click is None  # the own class is chosen
    assert view.region_by_id("choose:archer").enabled          # a bot's: the owner may swap
    view.click("choose:archer")
    assert [m["t"] for m in sent] == ["remove_bot", "choose_class", "add_bot"]
    assert view.region_by_id("choose:assassin").enabled        # a free class


def test_the_bot_strength_button_sets_the_seated_bots_and_shows_it(app: Any) -> None:
    """つよい is sent for every seated bot (`bot_level`), says so on hover, and the seats then
    read ボット・つよい (issue 32: it only fed the next add_bot, and nothing showed)."""
    join(app)
    app.model.handle({"t": "room", "room": room_public(started=False, seats=5)})
    sent = record_sends(app)
    render(app, "room")
    view, tr = app.current, app.tr
    assert tr("room.bot_level_help") == view.region_by_id("bot_level").help
    view.click("bot_level")
    assert sent[-1] == {"t": "bot_level", "level": "hard"}
    room = room_public(started=False, seats=5)
    for row in room["seat_list"][1:]:
        row.update(level="hard", name="bot (hard)")
    app.model.handle({"t": "room", "room": room})
    render(app, "room")
    shown = [label for label, _x, _y in view.base.labels]
    assert shown.count(f"{tr('room.bot')} · {tr('room.level_hard')}") == 4
    assert view.region_by_id("bot_level").label == tr("room.level_hard")


def test_game_shows_the_hand_and_draws_disabled_actions_disabled(app: Any) -> None:
    join(app)
    state = new_game(seed=3, classes=list(CLASSES), masters=GREYED_MASTERS)
    app.model.handle(state_msg(state, 0, {str(s): 300 for s in state.prompt.seats}))
    image = render(app, "game")
    view = app.current
    hand = app.model.my_camp["hand"]
    cards = sorted((r for r in view.regions if r.id.startswith("card:")), key=lambda r: r.left)
    assert [r.label for r in cards] == list(hand)
    verbs = {r.id[5:]: r for r in view.regions if r.id.startswith("verb:")}
    enabled = {v.key for v in app.model.verbs() if v.enabled}
    assert {k for k, r in verbs.items() if r.enabled} == enabled
    disabled = [r for k, r in verbs.items() if not r.enabled]
    assert disabled, "something is always greyed in a declaration window"
    for r in disabled:
        assert pixel(image, r.left + 6, r.bottom + 6) == th.DISABLED_BG
    live = next(r for k, r in verbs.items() if r.enabled)
    assert pixel(image, live.left + 6, live.bottom + 6) != th.DISABLED_BG
    # movement range: every square a legal Move reaches is lit and clickable
    lit = {int(r.id[5:]) for r in view.regions if r.id.startswith("cell:") and r.on_click}
    assert lit == {a["to"] for a in app.model.legal if a["type"] == "Move"}
    # a hover shows the card's details
    view.point_at(cards[0])
    assert view.hover is not None and view.hover.help


def test_battle_screen_shows_order_round_combatants_and_dice(app: Any) -> None:
    state, events = play_game(seed=4, stop=lambda s: s.battle is not None
                              and s.prompt.kind == "reaction")
    target = min(state.prompt.seats)
    join(app, target)
    app.model.handle({"t": "events", "events": events, "log": []})
    at = app.view("battle").now()
    app.view("battle").now = lambda: at  # the countdown read at the message's arrival
    app.model.handle(state_msg(state, target, {str(target): 60}), now=at)
    render(app, "battle")
    view = app.current
    seats = {int(r.id.split(":")[1]) for r in view.regions if r.id.startswith("combatant:")}
    assert seats >= set(state.battle.seats)
    assert any(r.id.startswith("roll:") for r in view.regions)
    labels = [label for label, _x, _y in view.base.labels]
    assert app.tr("battle.round", n=state.battle.round) in labels
    b = app.model.battle(view.now())
    assert b["pending"]["mine"], "the reaction prompt is this seat's"
    live = [label for label, _x, _y in view.live.labels]  # the countdown, redrawn each second
    assert app.tr("battle.reaction_time", s=60) in live
    assert view.region_by_id("verb:ReactGuard").enabled


def test_dossier_log_and_end_render(app: Any) -> None:
    state, events = play_game(seed=8)
    join(app, 0)
    camp = state.edit(0)
    camp.known = tuple(3 if c == "archer" else 1 for c in CLASSES)
    app.model.handle({"t": "events", "events": events, "log": []})
    app.model.handle({"t": "chat_message", "seat": 0, "name": "衛宮", "channel": "room",
                      "text": "よろしくお願いします"})
    app.model.handle(state_msg(state, 0))
    render(app, "dossier")
    assert app.current.region_by_id("profile:archer") is not None
    render(app, "log")
    labels = [label for label, _x, _y in app.current.base.labels]
    assert any("＞" in label for label in labels), "dice-bot lines"
    assert "よろしくお願いします" in labels
    render(app, "end")
    assert app.current.region_by_id("export_replay").enabled
    path = app.export("log")
    assert path is not None
    with open(path, encoding="utf-8") as f:
        assert f.read().startswith(app.tr("app.title"))


def test_a_spectator_sees_every_screen_without_a_camp(app: Any) -> None:
    state, events = play_game(seed=4, stop=lambda s: s.battle is not None)
    app.model.handle({"t": "joined", "room": 1, "seat": -1, "token": "", "spectator": True})
    app.model.handle({"t": "room", "room": room_public(started=True)})
    app.model.handle({"t": "events", "events": events, "log": []})
    app.model.handle(state_msg(state, None))
    for name in ("game", "battle", "dossier", "log"):
        render(app, name)
        assert not any(r.enabled and r.id.startswith("verb:") for r in app.current.regions)
    assert app.model.hand() == [] and app.model.dossier() == []


def test_the_language_is_remembered(window: Any, reactor: Any) -> None:
    from grailwar.client.app import GrailApp

    first = GrailApp(reactor, window=window, name="凛")
    first.view("title").click("lang:ko")
    assert first.tr.lang == "ko"
    again = GrailApp(reactor, window=window)
    assert again.tr.lang == "ko" and again.settings["name"] == "凛"


def game_with_recorder(app: Any) -> tuple[dict, ActRecorder]:
    """Seat 0's map screen of a fresh seven-camp game, its clicks recorded: the state message
    shown and the recorder."""
    join(app)
    msg = state_msg(new_game(seed=3, classes=list(CLASSES)), 0, {"0": 300})
    app.model.handle(msg)
    app.session = recorder = ActRecorder(app.model)
    render(app, "game")
    return msg, recorder


class ActRecorder:
    """Stands in for the session: records the `act` messages clicks produce."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.ref = 0
        self.acts: list[dict] = []

    def act(self, action: dict) -> bool:
        self.ref += 1
        self.acts.append(action)
        self.model.sent_state_id = self.model.state_id
        return True

    def send(self, *_a: Any, **_k: Any) -> bool:
        return True

    def close(self) -> None:
        pass


def test_clicks_become_act_messages_of_legal_actions(app: Any) -> None:
    """Every click that acts sends one of the server's legal actions, on the state shown; the
    model is not edited (the next state comes from the server)."""
    from grailwar.client.driver import click_action

    msg, recorder = game_with_recorder(app)
    teleport = next(a for a in msg["legal"] if a["type"] == "UseCommandSpell"
                    and a["spell"] == "teleport")
    investigate = next(a for a in msg["legal"] if a["type"] == "DeclareInvestigate")
    move = next(a for a in msg["legal"] if a["type"] == "Move")
    for action in (teleport, investigate, move):
        app.model.sent_state_id = -1
        assert click_action(app, action), action
        assert recorder.acts[-1] == action
    assert app.model.view == msg["view"], "a click never edits the state"


def test_the_frame_clock_runs_at_60_hz_on_the_reactor(app: Any, reactor: Any) -> None:
    """The client's loop (approach 1): the reactor is the main loop, frames come from it at
    60 Hz (events and updates); a frame draws only when the screen changed, here once a
    tenth of a second (a hover, every other frame being idle)."""
    import time

    view = app.show("title")
    app.frame()
    targets = [r for r in view.regions if r.on_click is not None][:2]
    frames, draws = app.frames, app.draws
    app.start_loop()
    start = last = time.monotonic()
    moves = 0
    while time.monotonic() - start < 0.5:
        reactor.iterate(0.002)
        if time.monotonic() - last >= 0.1:
            last, moves = time.monotonic(), moves + 1
            view.point_at(targets[moves % 2])
    app.stop_loop()
    assert 24 <= app.frames - frames <= 32
    assert moves >= 3 and moves - 1 <= app.draws - draws <= moves  # the last may be undrawn


def test_a_guest_in_the_room_says_it_is_ready(app: Any) -> None:
    """A player who is not the owner gets a Ready button (not Start); its seat shows the ready
    tag once the server says so, and the button then takes the readiness back."""
    join(app, seat=1)
    room = room_public(started=False, seats=3)
    room["seat_list"][1].update(kind="human", name="凛", bot_playing=False, ready=False)
    app.model.handle({"t": "room", "room": room})
    sent = record_sends(app)
    render(app, "room")
    view = app.current
    assert view.region_by_id("start") is None
    view.click("ready")
    assert sent == [{"t": "ready", "ready": True}]
    room["seat_list"][1]["ready"] = True
    app.model.handle({"t": "room", "room": room})
    render(app, "room")
    assert app.current.region_by_id("ready").label == app.tr("room.unready")
    app.current.click("ready")
    assert sent[-1] == {"t": "ready", "ready": False}


def test_the_owner_sees_how_many_players_are_ready(app: Any) -> None:
    """Beside the Start button the owner reads how many of the other players said they are
    ready (issue 32: a guest's 準備完了 changed nothing the owner could see)."""
    join(app, seat=0)
    room = room_public(started=False, seats=3)
    room["seat_list"][1].update(kind="human", name="凛", bot_playing=False, ready=True)
    room["seat_list"][2].update(kind="human", name="桜", bot_playing=False, ready=False)
    app.model.handle({"t": "room", "room": room})
    render(app, "room")
    tr = app.tr
    shown = [label for label, _x, _y in app.current.base.labels]
    assert tr("room.ready_count", ready=1, players=2) in shown
    room["seat_list"][2]["ready"] = True
    app.model.handle({"t": "room", "room": room})
    render(app, "room")
    shown = [label for label, _x, _y in app.current.base.labels]
    assert tr("room.ready_count", ready=2, players=2) in shown


def test_the_korean_battle_banner_reads_with_the_right_particles(app: Any) -> None:
    """The reaction banner picks 이/가 and 으로/로 by the word before them, no "이(가)"."""
    state, events = play_game(seed=4, stop=lambda s: s.battle is not None
                              and s.prompt.kind == "reaction")
    target = min(state.prompt.seats)
    app.set_lang("ko")
    join(app, target)
    app.model.handle({"t": "events", "events": events, "log": []})
    app.model.handle(state_msg(state, target, {str(target): 60}))
    render(app, "battle")
    labels = [label for label, _x, _y in app.current.base.labels]
    assert "세이버가 보구로 공격해 왔다!" in labels  # Saber attacks with its Noble Phantasm


@pytest.mark.parametrize(("lang", "names"), [("ja", "筋力 耐久 敏捷 魔力 幸運 宝具"),
                                             ("ko", "근력 내구 민첩 마력 행운 보구")])
def test_servant_parameters_are_named_in_the_language(app: Any, lang: str, names: str) -> None:
    """The dossier rows and the tooltips of the own camp, the camps and the combatants name the
    parameters in the players' words (筋力, 근력), never STR/END/AGI."""
    state, events = play_game(seed=4, stop=lambda s: s.battle is not None)
    app.set_lang(lang)
    join(app, min(state.battle.seats))
    app.model.handle({"t": "events", "events": events, "log": []})
    app.model.handle(state_msg(state, min(state.battle.seats)))
    abbreviations = re.compile(r"\b(STR|END|AGI|MAG|LUK|NP)\b")
    render(app, "dossier")
    rows = [label for label, _x, _y in app.current.base.labels if names.split()[0] in label]
    assert rows, "the dossier rows draw the parameter names"
    for row in rows:
        assert all(name in row for name in names.split()) and not abbreviations.search(row)
    for screen, prefix in (("dossier", "dossier:"), ("game", "camp:"), ("game", "own_servant"),
                           ("battle", "combatant:")):
        render(app, screen)
        helps = [r.help for r in app.current.regions if r.id.startswith(prefix)]
        assert helps and all(names.split()[0] in h and not abbreviations.search(h)
                             for h in helps), screen


@pytest.mark.parametrize("lang", ["ja", "ko", "en"])
def test_a_base_battles_few_verbs_keep_their_one_row(app: Any, lang: str) -> None:
    """A base game's round start offers few verbs: one row of them, each as wide as the bar
    shares out (140 at most), as before the bar learned to take more rows."""
    from grailwar.client.views.battle import BAR

    state, events = play_game(seed=4, stop=lambda s: s.battle is not None
                              and s.prompt.kind == "round_start")
    seat = min(state.battle.seats)
    app.set_lang(lang)
    join(app, seat)
    app.model.handle({"t": "events", "events": events, "log": []})
    app.model.handle(state_msg(state, seat))
    render(app, "battle")
    verbs = [r for r in app.current.regions if r.id.startswith("verb:")]
    n = len(verbs)
    assert n >= 5 and {r.bottom for r in verbs} == {BAR[1] + BAR[3] - 80}
    assert all(r.width == min(140, (BAR[2] - 32 - 6 * (n - 1)) / n) for r in verbs)


def test_hovering_a_known_skill_shows_its_text_cost_and_check(app: Any) -> None:
    """The own camp's skills and a rival's skills revealed at tier 1 show, on hover, the skill's
    text in the language with its MP cost and its 1D100 check."""
    from grailwar.client.i18n import Tr

    state, events = play_game(seed=8)
    camp = state.edit(0)
    camp.known = tuple(1 for _ in CLASSES)
    app.set_lang("ko")
    join(app, 0)
    app.model.handle({"t": "events", "events": events, "log": []})
    app.model.handle(state_msg(state, 0))
    rules = Tr("ko").rules
    camps = app.model.view["camps"]
    assert camps[1]["skills"], "tier 1 reveals a rival's skills"
    for screen, skills in (("game", camps[0]["skills"]), ("dossier", camps[1]["skills"])):
        render(app, screen)
        view = app.current
        for sk in skills:
            region = view.region_by_id(f"skill:{sk}")
            assert region is not None, (screen, sk)
            view.point_at(region)
            assert view.hover is region
            skill = rules.skills[sk]
            assert skill.text.get("ko") in region.help
            assert (f"소비 MP {skill.mp}" in region.help) == bool(skill.mp)
            if skill.check is not None:
                assert f"1D100에서 {skill.check} 이하" in region.help


def test_the_lobby_asks_for_the_rooms_every_five_seconds_while_shown(app: Any) -> None:
    """Over the reactor's clock: a list_rooms each 5 s in the lobby, none once it is left."""
    from twisted.internet.task import Clock

    reactor, app.reactor = app.reactor, Clock()
    try:
        clock = app.reactor
        sent = record_sends(app)
        app.show("lobby")
        clock.advance(4.9)
        assert sent == []
        clock.advance(0.1)
        assert [m["t"] for m in sent] == ["list_rooms"]
        clock.pump([5, 5])
        assert [m["t"] for m in sent] == ["list_rooms"] * 3
        app.show("title")
        clock.advance(30)
        assert len(sent) == 3 and not clock.getDelayedCalls(), "leaving the lobby stops it"
        app.show("lobby")  # and coming back starts it again
        clock.advance(5)
        assert len(sent) == 4
        app.show("title")
    finally:
        app.reactor = reactor  # the fixture's teardown pumps the real one


def test_a_spectators_room_panel_says_it_watches(app: Any) -> None:
    """A spectator's side panel is titled as watching, not 'Choose your Servant' (issue 32)."""
    app.model.handle({"t": "welcome", "version": 2, "server": "grailwar"})
    app.model.handle({"t": "joined", "room": 1, "seat": -1, "token": "", "spectator": True})
    app.model.handle({"t": "room", "room": room_public(started=False)})
    render(app, "room")
    labels = [label for label, _x, _y in app.current.base.labels]
    assert app.tr("room.watching") in labels and app.tr("room.choose") not in labels


def test_the_dossiers_last_row_keeps_clear_of_the_sheets_edge(app: Any) -> None:
    """Issue 32: at 1024x640 the last row's bottom line (an NP seen fired) touched the sheet's
    edge. Every text of the sheet stays a margin above it."""
    state, events = play_game(seed=4, stop=lambda s: s.day >= 3)  # (events as seat 0 saw)
    join(app, 0)
    app.model.handle({"t": "events", "events": events, "log": []})
    app.model.handle(state_msg(state, 0))
    render(app, "dossier")
    sheet_bottom = 12
    lowest = min(t[0].bottom for t in app.current.base.pool.used.values())
    assert lowest >= sheet_bottom + 6
