"""The tactics module in the client: zones of control shaded in their owner's colour, blocking
terrain marked, ruled-out targets shown disabled with the reason (and never sent), the
concentration verbs, uses and countdowns, the module's events, and the module in the lobby and
the room. The battle is `tactics_battle` (the tour's staged one), moved on with forced dice."""

from __future__ import annotations

import operator
from typing import Any, NamedTuple

import pytest
from grailwar.client import theme as th
from grailwar.client.gfx import text_width
from grailwar.client.i18n import LANGS, Tr
from grailwar.client.model import ClientModel
from grailwar.client.modules.tactics import HATCH, ZONE_MIX, zones
from grailwar.client.modules.tactics.tour import TACTICS_SQUARES, tactics_battle
from grailwar.client.views.common import paper
from grailwar.shared.engine import apply, events_for, legal_actions
from grailwar.shared.engine.actions import Attack, Ready
from grailwar.shared.engine.modules import MODULES
from helpers import duel, ready_all
from test_campaign_screens import overlap
from test_model import model_for, state_msg
from test_screens import ActRecorder, join, record_sends, render, room_public

CASTER, LANCER, SABER = 0, 1, 2
NEAR = 19  # next to 18


def main_prompt(squares: tuple[int, int] = (32, NEAR)) -> tuple[Any, int]:
    """The staged battle at its first Main Action (Lancer's concentration roll forced to a
    success): the actor on 18, the other two on `squares` (32 is behind the blocking 25)."""
    state = ready_all(tactics_battle()[0], dice=(6, 6))
    actor = min(state.prompt.seats)
    others = [x for x in state.battle.seats if x != actor]
    for seat, square in zip((actor, *others), (18, *squares), strict=True):
        state.edit(seat).pos = square
    return state, actor


def count(image: Any, region: Any, colour: tuple[int, int, int]) -> int:
    """Pixels of exactly `colour` inside a region (window coordinates, origin bottom-left)."""
    box = (int(region.left) + 1, th.HEIGHT - int(region.bottom + region.height) + 1,
           int(region.left + region.width) - 1, th.HEIGHT - int(region.bottom) - 1)
    return sum(1 for p in image.crop(box).getdata() if p == colour)


# --- the model ----------------------------------------------------------------------------------
def test_a_target_out_of_sight_is_a_disabled_skill_option_with_the_reason() -> None:
    """Saber stands four squares from Caster (sight 3): under Skill and Focused cast, Caster's
    hostile skill shows Saber disabled with the sight reason, next to the legal Lancer."""
    state, _ = tactics_battle()
    m = model_for(state, "en", CASTER)
    for verb in ("UseSkill", "ConcentrateCast"):
        legal = m.options(verb)
        assert {o.target for o in legal if o.target != -1} == {LANCER}
        ruled = [o for o in m.menu(verb) if o.reason]
        assert [(o.target, o.reason, o.action) for o in ruled] == [(SABER, "sight", None)]
        assert ruled[0].help == m.tr("tactics.ruled_out.sight")
        assert m.who(SABER) in ruled[0].label and "Song of the Mire" in ruled[0].label
        assert all(o.action in m.legal for o in m.menu(verb) if not o.reason)


def test_a_target_behind_blocking_terrain_is_a_disabled_attack_option() -> None:
    """A target two squares away behind the Business District is shown under Attack with the
    line-of-fire reason; the one next to the actor keeps its legal attacks."""
    state, actor = main_prompt()
    m = model_for(state, "ja", actor)
    far = next(c["seat"] for c in m.view["camps"] if c["pos"] == 32)
    near = next(c["seat"] for c in m.view["camps"] if c["pos"] == NEAR)
    menu = m.menu("Attack")
    assert {o.target for o in menu if not o.reason} == {near}
    ruled = [o for o in menu if o.reason]
    assert [(o.target, o.reason, o.action) for o in ruled] == [(far, "line", None)]
    assert ruled[0].help == Tr("ja")("tactics.ruled_out.line")


def test_a_greyed_attack_verb_says_which_targets_are_ruled_out_and_why() -> None:
    """With both targets behind the blocking square, Attack has no legal action: its button
    is greyed and its hover text names each target with the line-of-fire reason."""
    state, actor = main_prompt((32, 32))
    m = model_for(state, "en", actor)
    attack = next(v for v in m.verbs() if v.key == "Attack")
    assert not attack.enabled and not attack.options
    for seat in state.battle.seats:
        if seat != actor:
            assert f"× {m.who(seat)} — {m.tr('tactics.ruled_out.line')}" in attack.help


def test_the_concentration_verbs_show_only_when_the_module_offers_them() -> None:
    """The engine's prompt records carry the module's verbs for every game: a game without
    tactics, or with its concentration option off, must not show them."""
    def keys(**kw: Any) -> set[str]:
        """The round-start verbs of a duel."""
        verbs = set(model_for(duel(**kw), "en", 0).verb_keys())
        assert {"Ready", "UseSkill"} <= verbs
        return verbs & {"Concentrate", "ConcentrateCast"}

    assert keys() == set()
    assert keys(modules=["tactics"], options={"tactics": {"concentration": False}}) == set()
    assert keys(modules=["tactics"]) == {"Concentrate", "ConcentrateCast"}
    m = model_for(tactics_battle()[0], "ko", CASTER)
    concentrate = next(v for v in m.verbs() if v.key == "Concentrate")
    assert concentrate.enabled and concentrate.label == "집중력"
    assert [o.label for o in concentrate.options] == [Tr("ko")("tactics.use.initiative"),
                                                      Tr("ko")("tactics.use.endure")]
    assert all(Tr("ko")("tactics.uses", n=2) in o.help for o in concentrate.options)


def test_the_battle_shows_zones_concentration_uses_and_declarations() -> None:
    """Each combatant's zone and rolls left, Lancer's declared initiative, and per square
    whose active zones cover it and whether it blocks lines of fire."""
    state, _ = tactics_battle()
    m = model_for(state, "en", CASTER)
    b = m.battle(0.0)
    fighters = {c["seat"]: c for c in b["combatants"]}
    assert [fighters[x]["uses"] for x in (CASTER, LANCER, SABER)] == [2, 2, 2]
    assert fighters[LANCER]["zone"]["radius"] == 2 and fighters[LANCER]["zone"]["active"]
    assert fighters[CASTER]["zone"]["radius"] == 0
    assert m.tr("tactics.seizing") in fighters[LANCER]["flags"]
    assert m.tr("tactics.seizing") not in fighters[SABER]["flags"]
    active, _idle, blocking = zones(m)
    assert active[TACTICS_SQUARES[CASTER]] == [LANCER]  # Caster stands in Lancer's zone
    assert active[TACTICS_SQUARES[SABER]] == [SABER]
    assert 0 not in active and 0 not in blocking
    assert {25, 12} <= blocking


@pytest.mark.parametrize("lang", LANGS)
def test_the_tactics_events_read_as_lines_in_every_language(lang: str) -> None:
    """Concentration declared and rolled (from the engine, the roll forced to a failure) and
    a resisted skill render as sentences with the camp and the use, never a raw key."""
    state, events = tactics_battle()
    state.forced = (1, 1)  # Lancer's initiative roll: 2 + MAG//10 < 10
    while state.prompt.kind == "round_start":
        state, more = apply(state, Ready(min(state.prompt.seats)))
        events += more
    m = model_for(state, lang, CASTER)
    resisted = {"type": "SkillResisted", "seat": CASTER, "target": SABER}
    m.handle({"t": "events", "events": [*events_for(events, CASTER), resisted], "log": []})
    tr = m.tr
    lines = {e["type"]: m.event_text(e) for e in m.events}
    use = tr("tactics.use.initiative")
    assert lines["ConcentrationDeclared"] == tr("event.ConcentrationDeclared",
                                                who=m.who(LANCER), use=use)
    assert lines["ConcentrationRolled"] == tr("event.ConcentrationRolled", who=m.who(LANCER),
                                              use=use, result=tr("event.concentration_ng"))
    assert lines["SkillResisted"] == tr("event.SkillResisted", who=m.who(CASTER),
                                        target=m.who(SABER))
    assert tr("dice.concentration") in m.dice_log()[-1]
    for kind in ("ConcentrationDeclared", "ConcentrationRolled", "SkillResisted"):
        assert "{" not in lines[kind] and "event." not in lines[kind]


# --- the screens ---------------------------------------------------------------------------------
class Box(NamedTuple):
    left: float
    bottom: float
    width: float
    height: float


def show(app: Any, state: Any, seat: int) -> None:
    """The messages of `seat` joining the game at `state`, with 60 s for each prompted seat."""
    join(app, seat)
    app.model.handle(state_msg(state, seat, {str(x): 60 for x in state.prompt.seats}))


def test_zones_are_shaded_in_their_owners_colour_and_blocking_terrain_is_hatched(
        app: Any) -> None:
    """On the map and on the battle screen's zone map: a square under Lancer's active zone
    takes Lancer's colour over its paper; a square under Saber's inactive zone keeps its paper
    and gets an outline in Saber's colour; a square under no zone has neither; blocking terrain
    is hatched."""
    state, _ = tactics_battle()
    st = state.mods["tactics"]
    state.set_mod("tactics", st._replace(zoc=st.zoc - {SABER}))
    show(app, state, CASTER)
    cells = {c.index: c for c in app.model.cells()}
    lancer = th.class_colour("lancer")
    saber = th.class_colour("saber")
    shaded, idle, plain, wall = 39, 29, 0, 12  # 29: in Saber's zone only; 12: blocking

    def band(index: int, colour: tuple[int, int, int]) -> tuple[int, int, int]:
        return th.mix(paper(cells[index]), colour, ZONE_MIX)

    for screen, prefix in (("game", "cell"), ("battle", "zone")):
        image = render(app, screen)
        region = {i: app.current.region_by_id(f"{prefix}:{i}") for i in (shaded, idle, plain,
                                                                          wall)}
        area = region[shaded].width * region[shaded].height
        assert count(image, region[shaded], band(shaded, lancer)) > 0.4 * area, screen
        assert count(image, region[idle], band(idle, saber)) == 0, screen
        assert count(image, region[idle], saber) > 20, f"{screen}: the outline"
        assert count(image, region[idle], paper(cells[idle])) > 0.4 * area, screen
        assert count(image, region[plain], band(plain, lancer)) == 0, screen
        assert count(image, region[plain], band(plain, saber)) == 0, screen
        assert count(image, region[wall], HATCH) > 40, f"{screen}: the hatching"
        assert count(image, region[plain], HATCH) == 0, screen
        assert app.tr("tactics.blocking") in region[wall].help
    # the map's blocking square keeps its name legible: no hatching under the name's text
    image = render(app, "game")
    view = app.current
    name = next(t for key, items in view.base.pool.used.items() for t in items
                if key[0] == cells[wall].name)
    box = Box(name.left, name.bottom, name.content_width, name.content_height)
    assert count(image, box, HATCH) == 0, "the hatching runs through the square's name"


def test_a_ruled_out_attack_is_drawn_disabled_with_its_reason_and_never_sent(app: Any) -> None:
    """Clicking the ruled-out target under Attack sends nothing; its hover text gives the
    reason; a legal attack next to it is sent as it is."""
    state, actor = main_prompt()
    show(app, state, actor)
    app.session = recorder = ActRecorder(app.model)
    render(app, "battle")
    view = app.current
    view.click("verb:Attack")
    options = view.current_options()
    ruled = next(i for i, o in enumerate(options) if o.reason)
    image = render(app, "battle")
    region = view.region_by_id(f"opt:{ruled}")
    assert not region.enabled
    assert image.getpixel((int(region.left) + 4, th.HEIGHT - int(region.bottom) - 4)) == \
        th.DISABLED_BG
    assert app.tr("tactics.ruled_out.line") in region.help
    assert not view.click(f"opt:{ruled}") and recorder.acts == []
    legal = next(i for i, o in enumerate(options) if o.action is not None)
    assert view.click(f"opt:{legal}")
    assert recorder.acts == [options[legal].action]
    assert isinstance(options[legal].action, dict) and options[legal].action["type"] == "Attack"


SECONDS = range(55, 61)  # a countdown of 60 s, a few seconds into it on a loaded machine


def shown(view: Any, texts: list[str]) -> bool:
    """One of `texts` is among the countdowns (the layer redrawn every second)."""
    return any(label in texts for label, _x, _y in view.live.labels)


def test_the_countdown_shows_while_concentration_is_offered(app: Any) -> None:
    """Concentration is offered at the round start (the header's countdown runs) and as a
    reaction (the reaction banner's countdown runs); each camp's rolls left are on its card."""
    state, _ = tactics_battle()
    show(app, state, CASTER)
    render(app, "battle")
    view = app.current
    assert view.region_by_id("verb:Concentrate").enabled
    assert shown(view, [f"{s // 60}:{s % 60:02d}" for s in SECONDS])
    labels = [label for label, _x, _y in view.base.labels]
    assert sum(app.tr("tactics.uses", n=2) in label for label in labels) == 3
    state, actor = main_prompt()
    attack = next(a for a in legal_actions(state, actor) if isinstance(a, Attack))  # at NEAR
    state.forced = (3, 4)  # a plain hit roll: no critical, no fumble
    state, _ = apply(state, attack)
    assert state.prompt.kind == "reaction"
    show(app, state, attack.target)
    render(app, "battle")
    view = app.current
    assert view.region_by_id("verb:Concentrate").enabled
    assert shown(view, [app.tr("battle.reaction_time", s=s) for s in SECONDS])


def test_the_owner_switches_tactics_on_and_the_room_shows_it(app: Any) -> None:
    """create_room carries `modules` and `options` only once the owner switched a module on;
    the room's modules are shown (with their help) to everyone in it."""
    sent = record_sends(app)
    render(app, "lobby")
    view = app.current
    view.click("create")
    assert "modules" not in sent[-1] and "options" not in sent[-1]
    view.click("page:rules")
    view.click("module:tactics")
    view.click("option:tactics.concentration")
    render(app, "lobby")
    view.click("create")
    assert sent[-1]["modules"] == ["tactics"]
    assert sent[-1]["options"] == {"tactics": {"concentration": False}}
    join(app, seat=1)
    room = room_public(started=False, seats=3)
    room["modules"] = ["tactics"]
    app.model.handle({"t": "room", "room": room})
    render(app, "room")
    region = app.current.region_by_id("modules")
    assert region is not None and region.help == app.tr("module_help.tactics")
    assert app.tr("room.modules", list=app.tr("module.tactics")) in [
        label for label, _x, _y in app.current.base.labels]
    app.model.handle({"t": "room", "room": room_public(started=False, seats=3)})
    render(app, "room")
    assert app.current.region_by_id("modules") is None


def test_every_module_and_option_has_its_names_in_every_language() -> None:
    for lang in LANGS:
        tr = Tr(lang)
        for name, cls in MODULES.items():
            assert tr.has(f"module.{name}") and tr.has(f"module_help.{name}"), (lang, name)
            for option in cls.options:
                assert tr.has(f"option.{name}.{option}"), (lang, name, option)
        for key in ("tactics.ruled_out.line", "tactics.ruled_out.sight", "tactics.use.cast",
                    *(f"tactics.use.{u}" for u in ("initiative", "endure", "dodge")),
                    *(f"tactics.use_help.{u}" for u in ("initiative", "endure", "dodge"))):
            assert tr.has(key), (lang, key)
    assert ClientModel("ja").tr.module("nonesuch") == "nonesuch"  # unknown: its id, no crash


def test_a_verb_with_one_legal_option_and_a_ruled_out_one_opens_its_menu(app: Any) -> None:
    """One choice is usually sent at the verb's click; with a ruled-out target beside it the
    menu opens instead, so the player sees why the other target is not offered."""
    state, actor = main_prompt((32, 16))  # 16: two squares from 18, the line clear
    state.edit(actor).hand = "B"  # one ranged attack: Buster at the camp on 16
    show(app, state, actor)
    app.session = recorder = ActRecorder(app.model)
    render(app, "battle")
    assert len(app.model.options("Attack")) == 1
    app.current.click("verb:Attack")
    assert recorder.acts == [] and app.ui.verb == "Attack"
    assert [o.reason for o in app.current.current_options()] == ["", "line"]


@pytest.mark.parametrize("lang", LANGS)
def test_a_menu_of_long_options_draws_every_label_whole_on_its_pages(app: Any, lang: str) -> None:
    """The Skill menu of the tactics battle: a skill with its target and a Master skill joined
    to it ("Song of the Mire → Lancer + Echo of the Kantele"). Each option button is as wide
    as its label needs: every label drawn whole (no ellipsis), every option on exactly one
    page, no two buttons overlapping, all inside the action bar beside the page arrows."""
    from grailwar.client.views.battle import BAR

    app.set_lang(lang)
    state, _ = tactics_battle()
    show(app, state, CASTER)
    render(app, "battle")
    view = app.current
    view.click("verb:UseSkill")
    options = view.current_options()
    left, bottom, width, _height = BAR
    # a label wider than four even columns of the bar would leave it
    assert max(text_width(o.label, size=13, bold=True) for o in options) > (width - 32) / 4
    pages: list[list[int]] = []
    while len(pages) <= len(options):
        render(app, "battle")
        shown = [r for r in view.regions if r.id.startswith("opt:")]
        ids = [int(r.id[4:]) for r in shown]
        if pages and ids == pages[0]:
            break  # the arrows went round to the first page
        pages.append(ids)
        texts = {(t.x, t.y): t.text for key, items in view.base.pool.used.items()
                 for t in items if key[0] in {r.label for r in shown}}
        arrows = [r for r in view.regions if r.id.startswith("page:")]
        for i, region in enumerate(shown):
            assert texts[region.center] == region.label, (region.label, texts[region.center])
            assert left <= region.left and region.left + region.width <= left + width
            assert bottom <= region.bottom
            assert not any(overlap(region, other) for other in shown[i + 1:] + arrows)
        if not view.click("page:next"):
            break
    assert sorted(i for page in pages for i in page) == list(range(len(options)))


def ink_rows(image: Any, region: Any) -> tuple[int, int]:
    """The first and last pixel rows (from the top of the screen) of a button's label: the
    pixels near the text colour in the middle half of the button (away from its badge)."""
    top = th.HEIGHT - int(region.bottom + region.height)
    left = int(region.left + region.width / 4)
    rows = [y for y in range(top + 2, top + int(region.height) - 2)
            if any(sum(map(abs, map(operator.sub, image.getpixel((x, y)), th.TEXT))) < 90
                   for x in range(left, left + int(region.width / 2)))]
    return rows[0] - top, top + int(region.height) - 1 - rows[-1]


def test_a_two_line_verb_label_sits_in_the_middle_of_its_button(app: Any) -> None:
    """The tactics round start's "Focused cast" takes two lines: the room above its ink and
    below it differ by 2 px at most, and the second line keeps off the button's edge (it sat
    3.5 px low, on the edge). A one-line label is centred as a box: its room below is the
    font's descent, 4 px less than above."""
    app.set_lang("en")
    state, _ = tactics_battle()
    show(app, state, CASTER)
    image = render(app, "battle")
    view = app.current
    two = view.region_by_id("verb:ConcentrateCast")
    assert "\n" in next(t.text for k, items in view.base.pool.used.items() for t in items
                        if k[0] == two.label)
    above, below = ink_rows(image, two)
    assert abs(above - below) <= 2 and below >= 3, (above, below)
    above, below = ink_rows(image, view.region_by_id("verb:Concentrate"))
    assert above - below == 4
