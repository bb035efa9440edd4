"""The roster on screen (issue 9): the dossier's candidates as a deduction aid, the summoning
option of a new room, the Servant choice of a `choose` room, all from server messages."""

from __future__ import annotations

from typing import Any

import pytest
from grailwar.shared.engine import new_game
from grailwar.shared.engine.data import CLASSES
from test_model import state_msg
from test_screens import join, record_sends, render, room_public


def labels(app: Any) -> list[str]:
    return [label for label, _x, _y in app.current.base.labels]


def listing(shown: list[str], ids: list[str], tr: Any) -> bool:
    """Some label lists exactly these Servants, dot-separated, its lines broken only between
    two names (never inside one)."""
    names = [tr.short_name(i) for i in ids]
    return any([part for line in label.split("\n") for part in line.split(" · ")] == names
               for label in shown)


@pytest.mark.parametrize("lang", ["ja", "ko", "en"])
def test_the_dossier_shows_each_rivals_candidates(app: Any, lang: str) -> None:
    """Archer's Noble Phantasm was seen firing (two candidates left, and what was seen),
    Lancer is known to tier 1 (deduced), Rider to tier 2 (its true name), Caster to none
    (its whole roster): each row says so in the client's language."""
    app.set_lang(lang)
    tr = app.tr
    join(app, 0)
    state = new_game(seed=2, classes=list(CLASSES),
                     servants=["el_cid", "jumong", "benkei", "rostam", None, None, None])
    state.edit(1).np_shown = True
    state.edit(0).known = (0, 0, 1, 2, 0, 0, 0)
    app.model.handle(state_msg(state, 0))
    render(app, "dossier")
    shown = labels(app)
    assert tr("dossier.candidates", n=2, total=3) in shown
    assert listing(shown, ["jumong", "odysseus"], tr)
    assert tr("dossier.np_seen", what=tr.np_signature("Q", "attack", "anti_army")) in shown
    assert tr("dossier.deduced") in shown and tr.true_name("benkei") in shown
    assert tr.true_name("rostam") in shown
    assert listing(shown, [s.id for s in tr.rules.roster["caster"]], tr)
    help_text = app.current.region_by_id("candidates:archer").help
    assert tr.true_name("odysseus") in help_text and tr.true_name("tawara_toda") not in help_text
    assert app.current.region_by_id("candidates:rider") is None, "known: no candidates"


def test_the_lobby_creates_a_room_with_the_summoning_chosen(app: Any) -> None:
    """The create panel's summoning is random by default; its arrows cycle it to choose, which
    the panel shows and the create_room message carries."""
    sent = record_sends(app)
    render(app, "lobby")
    view = app.current
    assert app.tr("lobby.summoning_random") in labels(app)
    view.click("create")
    assert sent[-1]["t"] == "create_room" and sent[-1]["summoning"] == "random"
    view.click("inc:summoning")
    render(app, "lobby")
    assert app.tr("lobby.summoning_choose") in labels(app)
    view.click("create")
    assert sent[-1]["summoning"] == "choose"


def servant_names(app: Any, classes: Any) -> set[str]:
    """Every way the screens may name a Servant of these classes."""
    tr = app.tr
    return {name for cls in classes for s in tr.rules.roster[cls]
            for name in (tr.true_name(s.id), tr.short_name(s.id))}


def drawn_text(app: Any) -> str:
    return "\n".join(labels(app))


@pytest.mark.parametrize("lang", ["ja", "ko", "en"])
def test_a_choose_room_offers_the_seats_roster_and_shows_the_choice(app: Any,
                                                                  lang: str) -> None:
    """In a choose room the seat's class's roster is a row of buttons (hover: the profile);
    a click sends choose_servant; once the room says `your_servant` that button is the chosen
    one and the own seat names it. No other seat ever shows a Servant, only its class."""
    app.set_lang(lang)
    tr = app.tr
    join(app)
    room = room_public(started=False, summoning="choose")
    app.model.handle({"t": "room", "room": room})
    sent = record_sends(app)
    render(app, "room")
    view = app.current
    assert tr("room.summoning", mode=tr("lobby.summoning_choose")) in labels(app)
    buttons = [r for r in view.regions if r.id.startswith("servant:")]
    assert [r.id[8:] for r in buttons] == [s.id for s in tr.rules.roster["saber"]]
    assert all(r.enabled and r.on_click for r in buttons)
    hua_mulan = tr.servant_by_id("hua_mulan")
    assert hua_mulan.profile.get(lang) in view.region_by_id("servant:hua_mulan").help
    assert tr("room.servant_none") in labels(app)
    view.click("servant:hua_mulan")
    assert sent == [{"t": "choose_servant", "servant": "hua_mulan"}]
    app.model.handle({"t": "room", "room": {**room, "your_servant": "hua_mulan"}})
    render(app, "room")
    assert app.current.region_by_id("servant:hua_mulan").on_click is None  # the chosen one
    assert app.current.region_by_id("servant:el_cid").on_click is not None
    assert f"{tr.cls('saber')} · {tr.short_name('hua_mulan')}" in labels(app)
    assert tr("room.servant_secret") in labels(app)
    others = servant_names(app, CLASSES[1:])
    assert not [name for name in others if name in drawn_text(app)]


def test_a_random_room_says_the_seed_summons(app: Any) -> None:
    """A random room has no Servant buttons, one line saying the seed summons, and names no
    Servant anywhere (not even the seat's own: it is drawn at the start)."""
    join(app)
    app.model.handle({"t": "room", "room": room_public(started=False)})
    render(app, "room")
    tr = app.tr
    assert tr("room.summoning", mode=tr("lobby.summoning_random")) in labels(app)
    assert tr("room.servant_random") in labels(app)
    assert not any(r.id.startswith("servant:") for r in app.current.regions)
    assert not [name for name in servant_names(app, CLASSES) if name in drawn_text(app)]


@pytest.mark.parametrize("lang", ["ja", "ko", "en"])
def test_three_candidates_and_a_noble_phantasm_seen_do_not_overlap(app: Any,
                                                                    lang: str) -> None:
    """A Caster row with all three candidates (two lines of names) and its Noble Phantasm
    seen (all three Casters share it): the names end above the line that says what was
    seen."""
    app.set_lang(lang)
    tr = app.tr
    join(app, 0)
    state = new_game(seed=2, classes=list(CLASSES))
    state.edit(4).np_shown = True
    app.model.handle(state_msg(state, 0))
    render(app, "dossier")
    texts = {t.text.replace("\n", " "): t for t in app.current.base.pool.texts()}
    names = next(t for text, t in texts.items()
                 if tr.short_name(tr.rules.roster["caster"][0].id) in text)
    seen = texts[tr("dossier.np_seen", what=tr.np_signature("A", "attack", "anti_army"))]
    assert "\n" in names.text, "three names take two lines"
    assert seen.top < names.bottom, (seen.top, names.bottom)
