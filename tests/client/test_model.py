"""The view-model without OpenGL: what the screens draw, computed from server messages only."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from grailwar.client.i18n import Tr
from grailwar.client.logexport import log_text
from grailwar.client.model import ClientModel, check_name, parse_host, verb_of
from grailwar.client.tour import state_message
from grailwar.shared.bots import make_bot
from grailwar.shared.engine import events_for, legal_actions, new_game, play, view_for
from grailwar.shared.engine.data import CLASSES
from grailwar.shared.protocol import PROTOCOL_VERSION

SEAT = 0


state_msg = state_message  # the `state` message the server sends a seat


def model_for(state: Any, lang: str = "en", seat: int = SEAT) -> ClientModel:
    m = ClientModel(lang)
    m.handle({"t": "joined", "room": 1, "seat": seat, "token": "t" * 32, "spectator": False})
    m.handle(state_msg(state, seat, {str(s): 300 for s in state.prompt.seats}), now=100.0)
    return m


def test_the_model_needs_no_opengl() -> None:
    """model.py and i18n.py import neither arcade nor pyglet (they run in tests without GL)."""
    code = ("import sys, grailwar.client.model, grailwar.client.session; "
            "print(any(m.split('.')[0] in ('arcade', 'pyglet') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# Seat 0's Master (takizawa) has no turn-action skill, so its declaration greys Use Skill; the
# Masters are named because a seed's draw changes whenever a Master sheet is added.
GREYED_MASTERS = ("takizawa", "hayase", "han", "mashiba", "seo", "baek", "koga")


def test_enabled_verbs_are_exactly_those_with_a_legal_action() -> None:
    state = new_game(seed=3, classes=list(CLASSES), masters=GREYED_MASTERS)
    m = model_for(state)
    legal_verbs = {verb_of(a) for a in m.legal}
    verbs = m.verbs()
    assert {v.key for v in verbs if v.enabled} == legal_verbs
    assert any(not v.enabled for v in verbs), "a declaration window always greys something"
    for v in verbs:
        assert sorted(o.action["type"] for o in v.options) == sorted(
            a["type"] for a in m.legal if verb_of(a) == v.key)
        assert v.label and v.help


def test_every_option_is_a_legal_action_with_a_label() -> None:
    state = new_game(seed=5, classes=list(CLASSES))
    m = model_for(state, "ja")
    for v in m.verbs():
        for option in v.options:
            assert option.action in m.legal
            assert option.label and "{" not in option.label


def test_the_hand_shows_the_cards_of_the_view() -> None:
    state = new_game(seed=1, classes=["saber", "lancer"])
    m = model_for(state)
    assert [c["card"] for c in m.hand()] == list(m.my_camp["hand"])
    assert all(c["help"] for c in m.hand())


def test_map_cells_show_camps_moves_and_leylines() -> None:
    state = new_game(seed=2, classes=list(CLASSES))
    m = model_for(state)
    cells = m.cells()
    w, h = m.grid_size()
    assert len(cells) == w * h
    me = m.my_camp
    assert any(c.mine and c.index == me["pos"] for c in cells)
    moves = {c.index for c in cells if c.move is not None}
    assert moves == {a["to"] for a in m.legal if a["type"] == "Move"}
    assert {c.leyline for c in cells} > {"none"}
    assert sum(len(c.camps) for c in cells) == len(CLASSES)


def test_an_action_on_its_way_disables_the_buttons_until_the_answer() -> None:
    state = new_game(seed=2, classes=["saber", "archer"])
    m = model_for(state)
    assert m.legal
    m.sent_state_id = m.state_id
    assert m.legal == [] and not any(v.enabled for v in m.verbs())
    m.handle({"t": "error", "code": "stale_state", "message": "old", "ref": 1})
    assert m.legal, "a refused action gives the buttons back"


def test_countdown_and_who_is_still_deciding() -> None:
    state = new_game(seed=2, classes=["saber", "archer", "lancer"])
    m = model_for(state)
    assert m.my_seconds_left(100.0) == 300
    assert m.my_seconds_left(100.9) == 300  # a clock's countdown: a second goes when it is over
    assert m.my_seconds_left(130.4) == 270
    assert m.my_seconds_left(399.9) == 1 and m.my_seconds_left(400.0) == 0
    statuses = {seat: status for seat, status, _ in m.deciding(100.0)}
    assert statuses == {0: "deciding", 1: "deciding", 2: "deciding"}


def play_game(seed: int = 11, classes: list[str] | None = None, seat: int = SEAT,
              stop: Any = None) -> tuple[Any, list[dict]]:
    """A whole bot game in-process; returns the last state and every event `seat` saw."""
    classes = classes or list(CLASSES)
    state = new_game(seed=seed, classes=classes)
    bots = [make_bot("normal", seed + i) for i in range(len(classes))]
    seen: list[dict] = []
    while not state.over:
        if stop is not None and stop(state):
            break
        s = min(state.prompt.seats)
        bot = bots[s]
        action = bot.choose(view_for(state, s) if bot.needs_view else None,
                            legal_actions(state, s))
        seen.extend(events_for(play(state, action), seat))
    return state, seen


def test_every_event_reads_as_a_line_in_every_language() -> None:
    state, events = play_game()
    for lang in ("ja", "ko", "en"):
        m = model_for(state, lang)
        m.handle({"t": "events", "events": events, "log": []})
        lines = m.log_lines()
        assert len(lines) > 100
        assert all(text and "{" not in text for _kind, text in lines)
        dice = m.dice_log()
        step = " > " if lang == "en" else " ＞ "  # the dice bot's mark (issue 32)
        assert dice and all(step in line for line in dice)
    assert any(e["type"] == "DiceRolled" and e.get("result") == "critical" for e in events)


def test_a_battle_has_order_round_refill_and_combatants() -> None:
    state, _ = play_game(seed=4, stop=lambda s: s.battle is not None and s.battle.round >= 1
                         and s.battle.stage in ("main", "reaction"))
    assert state.battle is not None
    seat = state.battle.seats[0]
    m = model_for(state, "en", seat)
    b = m.battle(100.0)
    assert b["round"] >= 1 and b["refill_round"] % 3 == 0
    assert {c["seat"] for c in b["combatants"]} >= set(state.battle.seats)
    assert set(b["order"]) <= set(state.battle.joined)
    assert all(c["max_hp"] > 0 for c in b["combatants"])


def test_the_dossier_shows_only_what_investigation_revealed() -> None:
    state = new_game(seed=2, classes=["saber", "archer", "lancer"])
    camp = state.edit(SEAT)
    camp.known = tuple(2 if c == "archer" else 3 if c == "lancer" else 0 for c in CLASSES)
    m = model_for(state, "en")
    rows = {r["cls"]: r for r in m.dossier()}
    assert rows["archer"]["tier"] == 2 and "true_name" in rows["archer"]
    assert "profile" not in rows["archer"]
    assert rows["lancer"]["profile"] and rows["lancer"]["weakness"]
    assert "saber" not in rows  # one's own camp is not in the dossier


def test_the_dossier_narrows_a_rivals_candidates_as_the_seat_learns() -> None:
    """Each rival row lists the roster Servants still consistent with this seat's view: at
    tier 0 the whole class (who exists), fewer once its Noble Phantasm is seen firing (what
    was seen is shown), one at tier 1 (deduced, by its full true name), and at tier 2 the true
    name itself, no longer a deduction."""
    state = new_game(seed=2, classes=["saber", "archer", "lancer"],
                     servants=[None, "jumong", "benkei"])

    def rows() -> dict[str, dict]:
        return {r["cls"]: r for r in model_for(state, "en").dossier()}

    archer = rows()["archer"]
    assert archer["candidates"] == ["Jumong", "Odysseus", "Tawara Tōda"]
    assert archer["roster"] == 3 and "deduced" not in archer and "np_seen" not in archer
    assert "Odysseus — cards BAQQQ" in archer["candidates_help"]
    state.edit(1).np_shown = True
    archer = rows()["archer"]
    assert archer["candidates"] == ["Jumong", "Odysseus"]
    assert archer["np_seen"] == "Quick · Attack · Anti-Army"
    assert "Tawara" not in archer["candidates_help"]
    state.edit(SEAT).known = (0, 1, 0, 0, 0, 0, 0)
    archer = rows()["archer"]
    assert archer["candidates"] == ["Jumong"] and archer["deduced"] == "Jumong (King Dongmyeong)"
    assert "true_name" not in archer
    state.edit(SEAT).known = (0, 2, 0, 0, 0, 0, 0)
    archer = rows()["archer"]
    assert archer["true_name"] == "Jumong (King Dongmyeong)" and "deduced" not in archer
    assert rows()["lancer"]["candidates"] == ["Honda Tadakatsu", "Musashibō Benkei", "Zhang Fei"]


def test_the_end_shows_the_winner() -> None:
    state, events = play_game(seed=8)
    m = model_for(state)
    m.handle({"t": "events", "events": events, "log": []})
    result = m.result()
    assert result is not None and result["day"] >= 1
    assert result["winner"] == state.winner
    assert "Grail War Online" in log_text(m)


def test_a_game_stopped_by_the_day_limit_shows_its_last_day() -> None:
    """The engine ends such a game on the day after the limit; the header and the end screen
    show the last day played, not "day 4 of 3"."""
    state = new_game(seed=1, classes=["saber", "lancer"], day_limit=3)
    state.day, state.over, state.winner = 4, True, -1
    m = model_for(state)
    assert m.day == 3 and m.result()["day"] == 3


def test_bots_are_named_in_the_language_of_the_client() -> None:
    m = ClientModel("ja")
    m.handle({"t": "room", "room": {"seat_list": [
        {"seat": 0, "kind": "human", "name": "Rin", "level": "normal"},
        {"seat": 1, "kind": "bot", "name": "bot (normal)", "level": "normal"}]}})
    assert m.player_name(0) == "Rin"
    assert m.player_name(1) == "ボット · ふつう"


@pytest.mark.parametrize(("text", "expected"), [
    ("localhost", ("localhost", 7707)), ("10.0.0.5:9000", ("10.0.0.5", 9000)),
    ("[::1]:7000", ("::1", 7000)), ("grail.example.org", ("grail.example.org", 7707)),
    ("", None), ("host:", None), ("host:99999", None), ("a b", None), ("host:port", None)])
def test_server_addresses(text: str, expected: Any) -> None:
    assert parse_host(text, 7707) == expected


def test_names_and_versions_give_clear_messages() -> None:
    assert check_name("  ") == "error.name_empty"
    assert check_name("x" * 33) == "error.name_long"
    assert check_name("凛") is None
    assert check_name("\x1b[31mRin") == check_name("bot (normal)") == "error.name_bad"
    assert check_name("bot (training)", "label") is None  # a room may be named so
    m = ClientModel("en")
    newer = m.version_text(f"this server speaks protocol version {PROTOCOL_VERSION + 1}, "
                           f"the client {PROTOCOL_VERSION}")
    older = m.version_text(f"this server speaks protocol version {PROTOCOL_VERSION - 1}, "
                           f"the client {PROTOCOL_VERSION}")
    assert "newer" in newer and "older" in older
    m.handle({"t": "error", "code": "wrong_password", "message": "wrong password"}, now=5.0)
    assert m.current_notice(6.0).text == Tr("en")("error.wrong_password")


def test_the_command_spell_menu_opens_in_two_steps() -> None:
    """Dozens of Command Spell actions (a square per teleport, a set of cards per refine) show
    as one heading per spell, then that spell's choices."""
    state = new_game(seed=3, classes=list(CLASSES))
    m = model_for(state, "ja")
    spells = m.options("UseCommandSpell")
    assert len(spells) > 20
    heads = m.grouped(spells, None)
    assert len(heads) == len({o.action["spell"] for o in spells})
    teleport = next(h for h in heads if h.group == "teleport")
    assert teleport.action is None and "…" in teleport.label
    squares = m.grouped(spells, "teleport")
    assert len(squares) > 1 and all(o.square >= 0 for o in squares)


def test_the_servers_replay_is_kept_for_the_export() -> None:
    """The replay the server sends once the game is over is what the End screen exports."""
    model = ClientModel("en")
    assert model.replay is None
    replay = {"format": "grailwar-replay-1", "seed": 1, "classes": ["saber", "lancer"],
              "actions": []}
    model.handle({"t": "replay", "replay": replay})
    assert model.replay == replay
