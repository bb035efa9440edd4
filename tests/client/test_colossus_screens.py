"""The colossus in the client (seed 003 §5, spec 003 T7): the raid screen (its body as tiles,
who clings where, the coming script step and whom it shakes off or strikes, the HP and the
damage that got through, the acting climber's slots, the lit tiles that take a climb), the
colossus on the city map, its events and notices in ja, ko and en. The raids are staged by
`client/tour_colossus.py` (the tour's), played through the engine with forced dice."""

from __future__ import annotations

from typing import Any

import pytest
from grailwar.client import theme as th
from grailwar.client.i18n import LANGS, Tr
from grailwar.client.model import event_kind
from grailwar.client.modules.colossus import FIGURE as GIANT
from grailwar.client.modules.colossus import view_data as colossus
from grailwar.client.modules.colossus.raid_view import RAIDER_BAR, SHAKEN, TILE_COLOURS
from grailwar.client.modules.colossus.tour import (
    Staging,
    climbing_raid,
    felled,
    marched,
    shaken_raid,
    spelled,
    stomped,
)
from grailwar.client.tour import feed
from grailwar.shared.engine import events_for, legal_actions
from grailwar.shared.engine.actions import DeclareNoblePhantasm, Ready
from grailwar.shared.engine.data import default_ruleset
from grailwar.shared.modules.colossus.actions import COLOSSUS, Climb, EndClimb, Mount
from grailwar.shared.modules.colossus.data import load_colossus
from test_model import model_for, state_msg
from test_screens import ActRecorder, record_sends, render

LANCER, SABER, ARCHER = 0, 1, 2
DATA = load_colossus(default_ruleset())
BARE_ON_THE_BOW = {"hip_l", "hip_r", "shoulder_l", "shoulder_r"}  # white tiles it tilts


def model(staged: Staging, lang: str = "en", seat: int = LANCER) -> Any:
    m = model_for(staged.state, lang, seat)
    m.handle({"t": "events", "events": events_for(staged.events, seat), "log": []}, now=100.0)
    return m


def labels(app: Any) -> list[str]:
    return [label for label, _x, _y in app.current.base.labels]


def count(image: Any, box: tuple[float, float, float, float],
          colour: tuple[int, int, int]) -> int:
    """Pixels of exactly `colour` in a box (left, bottom, width, height; origin bottom-left)."""
    left, bottom, width, height = box
    crop = (int(left), th.HEIGHT - int(bottom + height), int(left + width),
            th.HEIGHT - int(bottom))
    return sum(1 for p in image.crop(crop).getdata() if p == colour)


def box(region: Any) -> tuple[float, float, float, float]:
    return region.left, region.bottom, region.width, region.height


# --- the model ---------------------------------------------------------------------------------
def test_the_raid_screen_reads_the_body_the_clingers_the_coming_step_and_the_slots() -> None:
    """Round 4's climbers' phase, the swat done: the bow comes next and tilts the hips and the
    shoulders, so the bare tiles there are marked and Saber on the right hip will be shaken
    off; Lancer acts with one slot left after a move and an attack."""
    r = colossus.raid_screen(model(shaken_raid()))
    tiles = {t["id"]: t for t in r["tiles"]}
    assert len(tiles) == 26 and set(tiles) == set(DATA.tiles)
    for tile in DATA.tiles.values():
        shown = tiles[tile.id]
        assert (shown["colour"], shown["height"], shown["surface"]) == (
            tile.colour, tile.height, tile.surface)
        assert "factor" not in shown
    assert tiles["back_3"]["climbers"] == [LANCER] and tiles["hip_r"]["climbers"] == [SABER]
    assert sum(len(t["climbers"]) for t in tiles.values()) == 2 and r["ground"] == [ARCHER]
    assert tiles["back_3"]["tilt"] == "vertical" and tiles["hip_r"]["tilt"] == "horizontal"
    assert (r["round"], r["rounds"], r["stage"]) == (4, 6, "climb")
    assert (r["step"]["id"], r["step_round"]) == ("bow", 5)
    assert {t for t, v in tiles.items() if v["shaken"]} == BARE_ON_THE_BOW
    assert (r["actor"], r["slots"], r["attacked"]) == (LANCER, 1, True)
    assert (r["hp"], r["hp_max"]) == (975, 1200)
    raiders = {x["seat"]: x for x in r["raiders"]}
    assert [raiders[x]["damage"] for x in (LANCER, SABER, ARCHER)] == [150, 0, 75]
    assert r["hit"]["type"] == "PartHit" and r["hit"]["seat"] == LANCER
    assert not any(x["struck"] for x in r["raiders"])  # the bow has no attack


def test_the_coming_step_is_the_rounds_own_until_the_colossus_has_acted() -> None:
    """Before phase ② the step to come is this round's (and whom its attack reaches if nobody
    moves); in the climbers' phase it is the next round's."""
    staged = Staging().open()
    r = colossus.raid_screen(model(staged))
    assert (r["stage"], r["step"]["id"], r["step_round"]) == ("round_start", "awaken", 1)
    staged = climbing_raid()
    r = colossus.raid_screen(model(staged))
    assert (r["stage"], r["step"]["id"], r["step_round"]) == ("climb", "reach", 3)
    staged = Staging().open().start_round(climb=(LANCER,))
    staged.timeout(lambda s: s.prompt.kind == "climb")  # the ground raiders Wait
    staged.go(Mount(LANCER, "ankle_l")).go(EndClimb(LANCER))
    r = colossus.raid_screen(model(staged))
    assert (r["stage"], r["step"]["id"]) == ("round_start", "stomp")
    struck = {x["seat"] for x in r["raiders"] if x["struck"]}
    assert struck == {SABER, ARCHER}  # on the ground; Lancer's ankle is no foot


def test_the_lit_tiles_are_the_legal_climbs_and_name_their_height() -> None:
    """After Lancer's roll of 3 from its left thigh, the tiles it may end on carry their
    ClimbTo action; the options name the tile and its height, its own tile is 'stay'."""
    m = model(climbing_raid())
    r = colossus.raid_screen(m)
    lit = {t["id"] for t in r["tiles"] if t["choice"] is not None}
    legal = {a["tile"] for a in m.legal if a["type"] == "ClimbTo"}
    assert lit == legal and {"thigh_l", "hip_l", "back_1", "back_3"} <= lit
    assert "crown" not in lit and "hand_l" not in lit  # too far; a vertical bare tile
    labels = {o.action["tile"]: o.label for o in m.options("ClimbTo")}
    assert labels["thigh_l"] == "Stay on L thigh"
    assert labels["back_3"] == "Back 3 (height 8)"
    slots = colossus.raid_screen(m)
    assert (slots["slots"], slots["budget"], slots["roll"]) == (2, 3, 3)


def test_the_raid_actions_name_their_part_and_card_and_the_np_its_target() -> None:
    staged = Staging().open()
    seat = next(x for x in staged.state.prompt.seats
                if any(type(a).__name__ == "DeclareNoblePhantasm"
                       for a in legal_actions(staged.state, x)))
    np = model(staged, "ja", seat).options("DeclareNoblePhantasm")
    assert [o.label for o in np] == [Tr("ja")("option.target", target="ダイダラボッチ")]
    staged.start_round()
    m = model(staged, "ko", min(staged.state.prompt.seats))
    parts = {o.label for o in m.options("AttackPart")}
    assert f"{m.tr('colossus.part.arm')} · {m.tr.card('B')}" in parts


@pytest.mark.parametrize("lang", LANGS)
def test_every_colossus_event_reads_as_a_sentence(lang: str) -> None:
    """The events of a staged raid and march (and the rarer ones, as the engine sends them)
    render from the catalog with names filled in, never a key or a placeholder; the raid's
    are battle lines of the log."""
    staged = marched()
    m = model(staged, lang)
    rare = [{"type": "ColossusDestroyed", "killer": LANCER, "top": ARCHER},
            {"type": "RaidRewarded", "seat": LANCER, "strokes": 2, "mp": 50},
            {"type": "LeftRaid", "seat": SABER}, {"type": "ColossusDodged", "seat": LANCER},
            {"type": "Dismounted", "seat": SABER, "tile": "ankle_r"},
            {"type": "ColossusAdvanced", "square": 10, "left": 0},
            {"type": "ColossusAwakened", "square": 41, "hp": 1200},
            {"type": "RaidOpened", "seats": [0, 1, 2], "square": 41},
            {"type": "SpellOnColossus", "seat": LANCER, "skill": "curse", "amount": 12,
             "hp": 900},
            {"type": "SpellOnColossus", "seat": LANCER, "skill": "kanashibari", "amount": 0,
             "hp": 900},
            {"type": "ColossusEndured", "seat": LANCER, "skill": "curse"}]
    events = [e for e in m.events if e["type"] in colossus.EVENTS] + rare
    assert {e["type"] for e in events} >= colossus.EVENTS - {"ColossusDodged"} | {"ShakenOff"}
    tr = Tr(lang)
    for e in events:
        line = m.event_text(e)
        assert line and "{" not in line and "colossus." not in line, (e, line)
        assert (event_kind(e) == "battle") == (e["type"] in colossus.BATTLE_EVENTS)
    hit = next(e for e in events if e["type"] == "PartHit")
    assert m.event_text(hit) == tr("colossus.event.PartHit", who=m.who(hit["seat"]),
                                   part=tr(f"colossus.part.{hit['part']}"),
                                   amount=hit["amount"], hp=hit["hp"])
    fall = next(e for e in events if e["type"] == "ShakenOff")
    assert tr(f"colossus.tile.{fall['tile']}") in m.event_text(fall)
    assert str(fall["damage"]) in m.event_text(fall)
    assert m.event_text(rare[5]) == tr("colossus.event.ColossusDrank", square=m.square_name(10))


@pytest.mark.parametrize("lang", LANGS)
def test_its_waking_and_a_raid_opening_are_notices(lang: str) -> None:
    m = model_for(Staging().state, lang, LANCER)
    m.notices.clear()
    woke = {"type": "ColossusAwakened", "square": 41, "hp": 1200}
    m.handle({"t": "events", "events": [woke, {"type": "Climbed", "seat": 0, "start": "a",
                                               "to": "b", "roll": 1}], "log": []}, now=5.0)
    assert [n.text for n in m.notices] == [m.tr("colossus.notice.ColossusAwakened",
                                                line=m.event_text(woke))]
    opened = {"type": "RaidOpened", "seats": [0, 2], "square": 41}
    m.handle({"t": "events", "events": [opened], "log": []}, now=6.0)
    assert m.notices[-1].text == m.tr("colossus.notice.RaidOpened", line=m.event_text(opened))
    assert m.who(0) in m.notices[-1].text and m.square_name(41) in m.notices[-1].text


def test_every_name_of_the_board_and_script_is_in_every_language() -> None:
    for lang in LANGS:
        tr = Tr(lang)
        keys = [*(f"colossus.tile.{t}" for t in DATA.tiles), *(f"colossus.part.{p}" for p in
                                                                 DATA.factors),
                *(f"colossus.surface.{x}" for x in DATA.surfaces),
                *(f"colossus.step.{x.id}" for x in DATA.script),
                *(f"colossus.tilt.{x}" for x in ("horizontal", "tilted", "vertical")),
                *(f"colossus.colour.{x}" for x in ("blue", "green", "white", "yellow")),
                *(f"colossus.targets.{x}" for x in ("ground_and_feet", "highest_on_back",
                                                    "all")),
                *(f"colossus.event.{x}" for x in colossus.EVENTS - {"ColossusStruck"}),
                *(f"colossus.ended.{x}" for x in ("destroyed", "empty", "round_limit",
                                                  "game_over")),
                *(f"prompt.{x}" for x in ("raid_offer", "raid_start", "raid_ground",
                                          "raid_reaction", "climb", "climb_step")),
                *(f"dice.{x}" for x in ("climb", "trampled", "colossus_hit",
                                        "colossus_damage", "colossus_dodge")),
                "decl.raid", "end.reason_colossus", "end.reason_colossus_destroyed"]
        assert [k for k in keys if not tr.has(k)] == [], lang


# --- the screens -------------------------------------------------------------------------------
def show(app: Any, staged: Staging, seat: int = LANCER) -> None:
    feed(app.model, staged.state, staged.events, seat, ["tactics", "colossus"])


@pytest.mark.parametrize("lang", LANGS)
def test_the_raid_screen_draws_the_tiles_the_clingers_the_step_the_hp_and_the_slots(
        app: Any, lang: str) -> None:
    app.set_lang(lang)
    staged = shaken_raid()
    show(app, staged)
    app.route({"t": "state", "state_id": staged.state.version, "view": app.model.view})
    assert app.current.name == "raid"
    image = render(app, "raid")
    view, tr = app.current, app.tr
    r = colossus.raid_screen(app.model)
    for t in r["tiles"]:
        region = view.region_by_id(f"tile:{t['id']}")
        assert region is not None, t["id"]
        colour = TILE_COLOURS[t["colour"]]
        assert count(image, box(region), colour) > 0.3 * region.width * region.height, t["id"]
        assert tr(f"colossus.tile.{t['id']}") in region.help
        frame = count(image, box(region), SHAKEN)  # the frame's inner edge
        assert frame > 100 if t["shaken"] else frame == 0, (t["id"], frame)
    lancer = th.class_colour(app.model.camp(LANCER)["cls"])
    assert count(image, box(view.region_by_id("tile:back_3")), lancer) > 40
    assert count(image, box(view.region_by_id("tile:back_4")), lancer) == 0
    shown = labels(app)
    bow = r["step"]
    assert tr("colossus.next_step", round=5, step=tr("colossus.step.bow")) in shown
    assert colossus.step_text(tr, bow) in shown
    assert f"{tr('panel.hp')}  975 / 1200" in shown
    assert shown.count(tr("colossus.slot.move")) == 1
    assert shown.count(tr("colossus.slot.attack")) == 1
    assert shown.count(tr("colossus.slot.free")) == 1
    assert any(tr.cls("saber") in x and tr("colossus.tile.hip_r") in x for x in shown
               if x.startswith(tr("colossus.warn_shaken", list="")[:3]))
    assert all("colossus." not in x and "{" not in x for x in shown)


def test_a_lit_tile_sends_its_climb_and_a_dark_one_nothing(app: Any) -> None:
    staged = climbing_raid()
    show(app, staged)
    app.session = recorder = ActRecorder(app.model)
    render(app, "raid")
    view = app.current
    view.click("tile:crown")  # out of reach: its hover text only
    assert recorder.acts == []
    assert view.click("tile:back_3")
    assert recorder.acts == [{"type": "ClimbTo", "seat": LANCER, "tile": "back_3"}]


def test_the_battle_tab_shows_the_raid_and_the_map_once_it_is_over(app: Any) -> None:
    staged = climbing_raid()
    show(app, staged, ARCHER)  # a raider waiting on the ground
    app.show("game")
    app.current.go_tab("battle")
    assert app.current.name == "raid"
    after = marched()
    app.model.handle(state_msg(after.state, ARCHER, {}))
    app.route({"t": "state", "state_id": after.state.version, "view": app.model.view})
    assert app.current.name == "game"


@pytest.mark.parametrize("lang", LANGS)
def test_a_felled_colossus_wins_the_raid_room_for_every_camp_standing(app: Any,
                                                                      lang: str) -> None:
    """The end screen says the raid room is won by all, shows each survivor, and the log has
    the killing blow and the rewards (a raider that gained nothing has no reward line)."""
    app.set_lang(lang)
    staged = felled()
    show(app, staged)
    app.route({"t": "state", "state_id": staged.state.version, "view": app.model.view})
    assert app.current.name == "end"
    render(app, "end")
    tr, m = app.tr, app.model
    shown = labels(app)
    assert tr("end.raid_won") in shown and tr("end.no_winner") not in shown
    assert any(tr("end.reason_colossus_destroyed") in x for x in shown)
    assert sum(x in (tr.short(c) for c in ("lancer", "saber", "archer")) for x in shown) >= 3
    log = [text for _kind, text in m.log_lines()]
    assert tr("colossus.event.ColossusDestroyed", killer=m.who(ARCHER), top=m.who(ARCHER)) in log
    assert tr("colossus.event.RaidRewarded", who=m.who(ARCHER), strokes=2, mp=0) in log
    assert tr("colossus.event.RaidRewarded", who=m.who(SABER), strokes=0, mp=0) not in log


def test_the_map_shows_the_colossus_its_way_to_the_vein_and_its_hp(app: Any) -> None:
    staged = marched()
    show(app, staged)
    image = render(app, "game")
    view, tr = app.current, app.tr
    st = staged.module.st(staged.state)
    path = staged.module.path(staged.state)
    here = view.region_by_id(f"cell:{st.square}")
    assert count(image, box(here), GIANT) > 300
    for square in path:
        if square != st.square:
            assert count(image, box(view.region_by_id(f"cell:{square}")), GIANT) == 0
    for square in path[st.path_index + 1:]:  # a step of its way on every square ahead
        assert count(image, box(view.region_by_id(f"cell:{square}")), th.VERMILION_DARK) > 20
    behind = view.region_by_id(f"cell:{path[0]}")
    assert count(image, box(behind), th.VERMILION_DARK) < 60  # only the eaten mark
    assert tr("colossus.map_here", hp=st.hp, hp_max=st.hp_max) in here.help
    vein = view.region_by_id(f"cell:{path[-1]}")
    assert tr("colossus.map_vein") in vein.help
    assert tr("colossus.map_ahead", n=len(path) - 1 - st.path_index) in vein.help
    status = tr("colossus.map_status", hp=st.hp, hp_max=st.hp_max,
                n=len(path) - 1 - st.path_index)
    assert status in labels(app)


def test_the_lobby_steps_through_the_colossus_scenario_and_its_day(app: Any) -> None:
    """The colossus's options are choices, not switches: each click steps to the next one,
    create_room carries them, and with both modules on no option covers the create button."""
    sent = record_sends(app)
    render(app, "lobby")
    view, tr = app.current, app.tr
    view.click("page:rules")
    view.click("module:colossus")
    view.click("module:tactics")
    render(app, "lobby")
    scenario = view.region_by_id("option:colossus.scenario")
    assert scenario.label.endswith(tr("option_value.colossus.scenario.colossus"))
    assert view.region_by_id("option:colossus.colossus_day").label.endswith(": 3")
    create = view.region_by_id("create")
    for option in ("tactics.concentration", "colossus.scenario", "colossus.colossus_day"):
        assert view.region_by_id(f"option:{option}").bottom > create.bottom + create.height
    view.click("option:colossus.scenario")
    view.click("option:colossus.colossus_day")
    render(app, "lobby")
    assert view.region_by_id("option:colossus.scenario").label.endswith(tr(
        "option_value.colossus.scenario.colossus_raid"))
    view.click("module:tactics")
    view.click("create")
    assert sent[-1]["modules"] == ["colossus"]
    assert sent[-1]["options"] == {"colossus": {"scenario": "colossus_raid", "colossus_day": 4}}


@pytest.mark.parametrize("lang", LANGS)
def test_its_strike_shows_its_hit_roll_to_the_raider_answering_and_the_raid_feed(
        app: Any, lang: str) -> None:
    """Round 2's stomp on three raiders on the ground: the step is 'now', its hit check
    against the raider answering is a badge, every raider is marked struck, and the latest
    lines of the raid's log are listed under the raiders."""
    app.set_lang(lang)
    staged = stomped()
    target = min(staged.state.prompt.seats)
    show(app, staged, target)
    render(app, "raid")
    tr, m = app.tr, app.model
    r = colossus.raid_screen(m)
    assert (r["round"], r["stage"], r["step"]["id"]) == (2, "reaction", "stomp")
    assert {x["seat"] for x in r["raiders"] if x["struck"]} == {LANCER, SABER, ARCHER}
    shown = labels(app)
    assert tr("colossus.now_step", round=2, step=tr("colossus.step.stomp")) in shown
    total = staged.module.raid(staged.state).roll[1]
    badge = tr("colossus.strike_roll", who=m.who(target), total=total)
    assert any(x.startswith(badge) for x in shown)
    newest = [text for kind, text in m.log_lines() if kind == "battle"][-1]
    assert newest in shown
    assert m.prompt_kind == "raid_reaction" and app.current.region_by_id("verb:ReactGuard")


def test_a_spectator_watches_the_raid_without_actions(app: Any) -> None:
    """No seat: the raid screen draws the body and the clingers, and offers nothing to do."""
    staged = shaken_raid()
    app.model.handle({"t": "joined", "room": 1, "seat": -1, "token": "", "spectator": True})
    app.model.handle(state_msg(staged.state, None, {}))
    render(app, "raid")
    view = app.current
    r = colossus.raid_screen(app.model)
    assert {t["id"] for t in r["tiles"] if t["climbers"]} == {"back_3", "hip_r"}
    assert all(t["choice"] is None for t in r["tiles"]) and not app.model.legal
    assert not any(reg.id.startswith("verb:") and reg.enabled for reg in view.regions)


def test_at_a_round_start_the_raiders_who_are_ready_say_so(app: Any) -> None:
    app.set_lang("en")  # its "ready" is not the Ready button's
    staged = Staging().open().go(Climb(SABER)).go(Ready(SABER))
    show(app, staged, LANCER)
    render(app, "raid")
    tr = app.tr
    shown = labels(app)
    assert shown.count(tr("battle.ready")) == 1
    assert tr("colossus.climbing") in shown  # Saber climbs this round
    assert tr("colossus.stage.round_start") in shown


def test_a_noble_phantasm_fired_at_a_part_asks_first_and_names_the_part(app: Any) -> None:
    """Archer's Noble Phantasm, declared at the colossus, fires at a part from the ground only
    after the player confirms, as every Noble Phantasm does."""
    app.set_lang("en")
    staged = Staging().open().go(DeclareNoblePhantasm(ARCHER, COLOSSUS)).start_round()
    staged.timeout(lambda s: s.prompt.seats == {ARCHER})  # Lancer Waits
    show(app, staged, ARCHER)
    app.session = recorder = ActRecorder(app.model)
    render(app, "raid")
    m, tr = app.model, app.tr
    fire = {o.action["part"]: o for o in m.options("FireAtPart")}
    assert fire["arm"].label == tr("option.target", target=tr("colossus.part.arm"))
    question = m.confirmation(fire["arm"].action)
    assert question.title == tr("confirm.UseNoblePhantasm")
    assert tr.np_name(m.my_camp["noble_phantasm"]) in question.text
    app.current.send(fire["arm"].action)
    assert recorder.acts == []  # the dialog asks first
    app.current.answer_confirm(True)
    assert recorder.acts == [fire["arm"].action]


def test_a_ground_raider_sees_the_parts_its_attack_reaches_and_a_click_opens_them(
        app: Any) -> None:
    """Archer's ground phase: the feet, shins and arms are framed in gold (the chest has no
    tile), the back is not; a click on a framed tile opens the part attacks."""
    app.set_lang("ko")
    staged = Staging().open().start_round()
    staged.timeout(lambda s: s.prompt.seats == {ARCHER})  # Lancer Waits
    show(app, staged, ARCHER)
    image = render(app, "raid")
    view = app.current
    r = colossus.raid_screen(app.model)
    reach = {t["id"] for t in r["tiles"] if t["reach"]}
    assert reach == {t.id for t in DATA.tiles.values() if t.part in ("feet", "shin", "arm")}
    assert count(image, box(view.region_by_id("tile:back_1")), th.GOLD) == 0
    assert app.tr("colossus.reach") in view.region_by_id("tile:hand_l").help
    assert view.click("tile:foot_l") and app.ui.verb == "AttackPart"
    assert {o.action["part"] for o in view.current_options()} >= {"feet", "shin", "arm"}


def test_the_tour_renders_the_colossus_screens(app: Any, tmp_path: Any) -> None:
    """`grailwar tour --scenario colossus` (and colossus_raid): each screen saved as a PNG."""
    from grailwar.client.modules import part
    from grailwar.client.tour import Tour, run_tour

    files = part("colossus").tour(Tour(tmp_path, "en", app=app), "colossus")
    assert [f.name for f in files] == ["colossus_reaction.png", "colossus_climb.png",
                                       "colossus_raid.png", "colossus_map.png"]
    room = part("colossus").tour(Tour(tmp_path, "en", app=app), "colossus_raid")
    assert [f.name for f in room] == ["raid_room_raid.png", "raid_room_spell.png",
                                      "raid_room_end.png"]
    assert all(f.stat().st_size > 10000 for f in files + room)
    with pytest.raises(ValueError, match="no screens for scenario"):
        run_tour(tmp_path, scenario="nonesuch")


def test_a_raid_declaration_spent_in_the_raid_is_no_cancellation_in_the_log() -> None:
    """Every camp that declared Raid fights in the one raid; the engine then cancels their
    own declarations, which the log does not call cancelled. A Raid cancelled because the
    colossus was already felled still reads as cancelled."""
    m = model(marched())
    tr = m.tr
    cancelled = [e for e in m.events if e["type"] == "ActionCancelled"]
    assert {e["seat"] for e in cancelled} == {SABER, ARCHER}
    assert all(m.event_text(e) == "" for e in cancelled)
    late = {"type": "ActionCancelled", "seat": SABER, "kind": "raid"}
    m.handle({"t": "events", "events": [{"type": "TurnStarted", "day": 2, "turn": "noon"},
                                        late], "log": []})
    assert m.event_text(m.events[-1]) == tr("event.ActionCancelled", who=m.who(SABER),
                                            kind=tr("decl.raid"))


@pytest.mark.parametrize("lang", LANGS)
def test_before_it_wakes_the_map_says_when(app: Any, lang: str) -> None:
    """A Grail War whose colossus wakes on day 3: the map's title row says so, and nothing of
    it is drawn on the city yet."""
    from grailwar.shared.engine import new_game

    app.set_lang(lang)
    rules = default_ruleset()
    classes = ("saber", "lancer")
    state = new_game(seed=1, classes=classes, modules=["colossus"],
                     servants=[rules.servants[c].id for c in classes])
    feed(app.model, state, [], 0, ["tactics", "colossus"])
    image = render(app, "game")
    assert app.tr("colossus.map_asleep", day=3) in labels(app)
    assert sum(count(image, box(app.current.region_by_id(f"cell:{q}")), GIANT)
               for q in DATA.paths["akatsukigahama"]) == 0


def test_a_camp_waiting_nearby_is_offered_the_raid_on_its_screen(app: Any) -> None:
    """Archer declared Wait next to the colossus while the others raid: the raid screen opens
    for it with the question and its Join and Stay buttons."""
    from grailwar.shared.engine.actions import DeclareWait
    from grailwar.shared.modules.colossus.actions import DeclareRaid

    app.set_lang("en")
    staged = Staging().go(DeclareRaid(LANCER)).go(DeclareRaid(SABER)).go(DeclareWait(ARCHER))
    assert staged.state.prompt.kind == "raid_offer" and staged.state.prompt.seats == {ARCHER}
    show(app, staged, ARCHER)
    app.route({"t": "state", "state_id": staged.state.version, "view": app.model.view})
    assert app.current.name == "raid"
    render(app, "raid")
    view = app.current
    assert app.tr("prompt.raid_offer") in labels(app)
    assert view.region_by_id("verb:InterveneJoin").enabled
    assert view.region_by_id("verb:InterveneStay").enabled
    assert {x["seat"] for x in colossus.raid_screen(app.model)["raiders"]} == {LANCER, SABER}


def test_a_raid_room_may_be_made_for_one_camp_and_a_grail_war_not(app: Any) -> None:
    """The seat count steps down to 1 only while the raid room is chosen; choosing a Grail
    War again puts it back to 2, the fewest the server takes for it."""
    sent = record_sends(app)
    render(app, "lobby")
    view = app.current
    view.options["seats"] = 2
    view.click("dec:seats")
    assert view.options["seats"] == 7  # 2 is the fewest: it wraps
    view.click("page:rules")
    view.click("module:colossus")
    view.click("option:colossus.scenario")  # the raid room
    view.click("page:room")
    view.options["seats"] = 2
    view.click("dec:seats")
    assert view.options["seats"] == 1
    view.click("create")
    assert sent[-1]["seats"] == 1
    view.click("page:rules")
    view.click("option:colossus.scenario")  # a Grail War with the colossus again
    assert view.options["seats"] == 2


@pytest.mark.parametrize("lang", LANGS)
def test_a_spell_at_the_colossus_is_offered_by_name_and_its_blow_reads_in_the_panel(
        app: Any, lang: str) -> None:
    """Seed 003: magic may aim at anything in sight. Caster's menu names the colossus as the
    target of Kang's Curse; Bog Song's halved blow is the panel's last blow, drawn whole,
    right of the colossus's name and inside the window; the log tells its endure."""
    app.set_lang(lang)
    staged = spelled()
    show(app, staged, 0)
    render(app, "raid")
    m, tr, view = app.model, app.tr, app.current
    curse = next(o for o in m.options("UseSkill") if o.action["skill"] == "curse")
    assert curse.action["target"] == COLOSSUS
    assert curse.label == f"{tr.skill('curse')} {tr('option.target', target=tr('colossus.name'))}"
    blow = tr("colossus.last.SpellOnColossus", who=m.who(0), skill=tr.skill("bog_song"),
              amount=5)
    drawn = {text.text: text for items in view.base.pool.used.values() for text in items}
    assert blow in drawn, sorted(drawn)
    name = drawn[tr("colossus.name")]
    assert name.right + 8 <= drawn[blow].left and drawn[blow].right <= th.WIDTH
    lines = [m.event_text(e) for e in m.events]
    assert tr("colossus.event.ColossusEndured", who=m.who(0), skill=tr.skill("bog_song")) in lines
    assert tr("colossus.event.SpellOnColossus", who=m.who(0), skill=tr.skill("bog_song"),
              amount=5, hp=module_hp(staged)) in lines


def module_hp(staged: Staging) -> int:
    return staged.module.st(staged.state).hp


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("classes", [
    ("caster", "lancer", "rider", "berserker", "archer"),
    ("saber", "archer", "lancer", "rider", "caster", "assassin", "berserker")],
    ids=["five", "seven"])
def test_the_ground_strip_keeps_every_raider_inside_it(app: Any, lang: str,
                                                       classes: tuple[str, ...]) -> None:
    """Found in the real window: five raiders on the ground ran the last name past the
    strip's edge. Every token and name drawn there stays inside the strip (names give way to
    the tokens alone when it is crowded), and its hover names them all; in the raiders'
    list, each name stops short of its HP bar."""
    app.set_lang(lang)
    staged = Staging("colossus_raid", classes=classes).open()
    show(app, staged, 0)
    render(app, "raid")
    view, tr = app.current, app.tr
    strip = view.region_by_id("ground")
    assert all(tr.cls(c) in strip.help for c in classes)
    inside = [text for items in view.base.pool.used.values() for text in items
              if strip.bottom < text.y < strip.bottom + strip.height
              and strip.left <= text.x <= strip.left + strip.width]
    shorts = [x for x in inside if x.text in {tr.short(c) for c in classes}]
    assert len(shorts) == len(classes)
    for text in inside:
        assert strip.left <= text.left and text.right <= strip.left + strip.width, text.text
        assert "…" not in text.text, text.text
    for seat, cls in enumerate(classes):  # each raider's name stops before its HP bar
        row = view.region_by_id(f"raider:{seat}")
        name = next(text for items in view.base.pool.used.values() for text in items
                    if text.text == tr.cls(cls) and row.bottom < text.y < row.bottom + row.height)
        assert name.right <= row.left - 6 + RAIDER_BAR - 4, cls
