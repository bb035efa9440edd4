"""The battle screen shows every result where it happens: a HIT / MISS marker on the attack,
the damage with its parts, the Noble Phantasm's name in a banner when one fires (to those who
know it), and each die card's formula with what it had to reach."""

from __future__ import annotations

from typing import Any

from grailwar.client.battle_feed import damage_line, formula, latest_strike, opposed_targets
from grailwar.client.i18n import Tr
from grailwar.shared.bots import make_bot
from grailwar.shared.engine import events_for, legal_actions, new_game, play, view_for
from grailwar.shared.engine.data import CLASSES
from test_model import state_msg
from test_screens import join, render


def play_until(seed: int, until: Any) -> tuple[Any, list[Any]]:
    """A bot game of seven, stopped right after the step whose engine events satisfy
    `until`; returns the state and every engine event so far (to be viewed per seat)."""
    state = new_game(seed=seed, classes=list(CLASSES))
    bots = [make_bot("normal", seed + i) for i in range(len(CLASSES))]
    every: list[Any] = []
    while not state.over:
        seat = min(state.prompt.seats)
        bot = bots[seat]
        new = play(state, bot.choose(view_for(state, seat) if bot.needs_view else None,
                                     legal_actions(state, seat)))
        every.extend(new)
        if until(new):
            return state, every
    raise AssertionError(f"seed {seed}: the game ended first")


def has(event_type: str, /, **data: Any) -> Any:
    """A test of one step's events: one of `event_type` with these data."""
    return lambda events: any(
        e.type == event_type and all(e.data.get(k) == v for k, v in data.items())
        for e in events)


def show(app: Any, state: Any, every: list[Any], seat: int | None,
         lang: str = "ja") -> list[str]:
    """The battle screen as `seat` (None: a spectator) sees it; returns the labels drawn."""
    app.set_lang(lang)
    join(app, -1 if seat is None else seat)
    app.model.handle({"t": "events", "events": events_for(every, seat), "log": []})
    app.model.handle(state_msg(state, seat))
    render(app, "battle")
    return [label for label, _x, _y in app.current.base.labels]


def test_a_hit_shows_its_marker_and_where_the_damage_came_from(app: Any) -> None:
    state, every = play_until(6, has("DamageDealt"))
    dealt = next(e for e in reversed(every) if e.type == "DamageDealt")
    labels = show(app, state, every, dealt.data["target"])
    tr = app.tr
    line = damage_line(tr, dealt.data["amount"], [tuple(p) for p in dealt.data["parts"]])
    assert line in labels
    assert line.startswith(f"{dealt.data['amount']} = ダイス ")
    assert tr("strike.hit") in labels  # the banner's marker
    assert f"{tr('strike.hit')} −{dealt.data['amount']}" in labels  # on the struck combatant


def test_a_miss_shows_its_marker_and_no_damage(app: Any) -> None:
    state, every = play_until(6, has("AttackResolved", hit=False))
    labels = show(app, state, every, None, lang="ko")  # a spectator
    assert "회피" in labels and "피해 없음" in labels
    assert not any(label.startswith("명중") for label in labels)


def test_the_np_banner_names_it_for_its_own_camp_and_not_for_a_stranger(app: Any) -> None:
    state, every = play_until(5, has("NoblePhantasmFired", kind="attack"))
    fired = next(e for e in reversed(every) if e.type == "NoblePhantasmFired")
    owner = fired.data["seat"]
    labels = show(app, state, every, owner)
    np = next(s.np for s in app.tr.rules.by_id.values() if s.np.id == fired.data["np"])
    assert any(f"宝具『{np.name.get('ja')}』" in label for label in labels)
    stranger = next(x for x in range(len(CLASSES)) if x != owner
                    and state.camps[x].known[CLASSES.index(state.camps[owner].cls)] < 2)
    labels = show(app, state, every, stranger, lang="ko")
    assert not any(np.name.get("ko") in label for label in labels)
    assert any(label.startswith("보구 (") for label in labels)


def test_damage_line_names_each_part_with_its_sign() -> None:
    tr = Tr("ja")
    parts = [("roll", 7), ("card", 10), ("stat:str", 25), ("range", -2), ("guard", -3)]
    assert damage_line(tr, 37, parts) == \
        "37 = ダイス 7 + カード 10 + 筋力補正 25 − 距離 2 − 防御 3"
    assert damage_line(Tr("en"), 5, []) == "5"


def test_a_strike_is_read_from_the_events_up_to_its_damage() -> None:
    events = [{"type": "BattleStarted"},
              {"type": "Attacked", "seat": 1, "target": 2, "kind": "B", "card": "B"},
              {"type": "DiceRolled", "seat": 1, "purpose": "hit"},
              {"type": "AttackResolved", "seat": 1, "target": 2, "hit": True, "halved": True},
              {"type": "DamageDealt", "seat": 1, "target": 2, "amount": 9,
               "parts": [["roll", 6], ["card", 3]]},
              {"type": "Waited", "seat": 2}]
    k = latest_strike(events)
    assert (k.attacker, k.target, k.card, k.hit, k.halved, k.amount, k.parts) == \
        (1, 2, "B", True, True, 9, [("roll", 6), ("card", 3)])
    assert latest_strike(events[:2]).hit is None  # the reaction is awaited
    assert latest_strike([*events, {"type": "BattleEnded"}, {"type": "BattleStarted"}]) is None


def test_a_die_card_shows_the_formula_and_the_target() -> None:
    assert formula({"dice": "2D6", "mod": 3, "target": 9}) == "2D6+3 >= 9"
    assert formula({"dice": "1D100", "mod": 0, "target": 60}) == "1D100 <= 60"
    hit = {"purpose": "hit", "dice": "2D6", "mod": 2, "total": 9, "target": None}
    dfn = {"purpose": "defense", "dice": "2D6", "mod": -1, "total": 8, "target": None}
    assert opposed_targets([hit, dfn]) == [" > 8", " >= 9"]
    assert formula(dfn, " >= 9") == "2D6-1 >= 9"


def test_a_clash_is_one_strike_and_an_earlier_support_np_is_not_part_of_the_next() -> None:
    support = {"type": "NoblePhantasmFired", "seat": 3, "card": "Q", "kind": "support",
               "scale": "anti_personnel", "np": None}
    fired = {"type": "NoblePhantasmFired", "seat": 1, "card": "B", "kind": "attack",
             "scale": "anti_army", "np": None}
    answer = {**fired, "seat": 3}
    k = latest_strike([{"type": "BattleStarted"}, support, fired])
    assert [e["seat"] for e in k.nps] == [1] and k.attacker == 1
    clash = [{"type": "BattleStarted"}, fired, answer,
             {"type": "NoblePhantasmsClashed", "seats": [1, 3], "damage": [40, 50]},
             {"type": "DamageDealt", "seat": 3, "target": 1, "amount": 10,
              "parts": [["np", 50], ["clash", -40]]}]
    k = latest_strike(clash)
    assert [e["seat"] for e in k.nps] == [1, 3]
    assert (k.clash, k.attacker, k.target, k.amount) == (True, 3, 1, 10)


def test_the_lobby_shows_the_bot_battle_pace_and_sends_the_chosen_one(app: Any) -> None:
    """The create panel shows bot_pace_ms (default 1.5 s), its ▶ steps it, and create_room
    carries it."""
    from test_screens import record_sends

    app.model.handle({"t": "rooms", "total": 0, "rooms": []})
    sent = record_sends(app)
    render(app, "lobby")
    view = app.current
    labels = [label for label, _x, _y in view.base.labels]
    assert "ボット戦の速さ" in labels and "1.5秒" in labels
    assert view.click("inc:bot_pace_ms")
    render(app, "lobby")
    assert "2.5秒" in [label for label, _x, _y in view.base.labels]
    view.fields["room_name"].value = "観戦卓"
    view.create()
    assert sent[-1]["t"] == "create_room" and sent[-1]["bot_pace_ms"] == 2500


def test_the_battle_header_names_the_square_once_and_follows_the_fighters(app: Any) -> None:
    state, every = play_until(6, has("BattleStarted"))
    seats = list(state.battle.seats)
    tr = app.tr
    here = tr.square(state.settings.map_id, state.battle.square)
    labels = show(app, state, every, seats[0])
    assert sum(here in label for label in labels) == 1, "the header alone names it"
    assert any(label.startswith(tr("battle.title", square=here)) for label in labels)
    away = next(q for q in range(len(app.tr.rules.maps[state.settings.map_id].squares))
                if q != state.battle.square)
    for seat in seats:  # the fighters moved on (battle Moves): the header goes with them
        state.edit(seat).pos = away
    labels = show(app, state, every, seats[0])
    there = tr.square(state.settings.map_id, away)
    assert any(label.startswith(tr("battle.title", square=there)) for label in labels)
    assert not any(here in label for label in labels)
    state.edit(seats[0]).pos = state.battle.square  # as many on each: the header keeps the
    labels = show(app, state, every, seats[0])      # first square, the card of the other says
    assert sum(here in label for label in labels) == 1  # where it stands
    assert any(label.startswith(tr("battle.title", square=here)) for label in labels)
    assert there in labels


def test_a_hit_check_at_range_shows_its_parts_on_its_die_card(app: Any) -> None:
    """Issue 32: 2D6−1 at range read as a stat's bonus less the range's penalty, inside the
    die card's row."""
    from grailwar.shared.engine.actions import Move
    from helpers import act_all
    from test_battle import SQUARE, opening, square_at, strike

    s = opening()
    s, _ = act_all(s, Move(0, square_at(s, SQUARE, 2)))
    s, events = strike(s, "B", hit=11)
    labels = show(app, s, events, 0)
    hit = next(e for e in events if e.type == "DiceRolled" and e.data["purpose"] == "hit")
    stat, penalty = (v for _, v in hit.data["parts"])
    line = f"筋力補正 {stat} − 距離 {-penalty}"
    assert line in labels
    text = next(t[0] for key, t in app.current.base.pool.used.items() if key[0] == line)
    row = next(r for r in app.current.regions if r.id.startswith("roll:"))
    assert row.left <= text.left and text.right <= row.left + row.width
    top = text.bottom + text.content_height
    assert row.bottom <= text.bottom and top <= row.bottom + row.height
