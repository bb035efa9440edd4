"""The campaign in the client (seed 002; spec 002 §4, §6.1): the camp screen's sheet (level,
experience by method, points, the growth of a level in its two steps, the pool and damage
points, merit and funds), gear and the shop, the stances and their editor, the bonds, the
dossier's information points, day 0's relic draft and setup, a battle's stance choice and a
stance seen through resistance, the lobby's campaign options; every string in ja, ko and en.

Every moment is a real campaign game played to it through the engine by
`client/tour_campaign.py` (real actions; what no short game gives written into the record with
the module's helpers): the view and the legal actions are the engine's own, so a screen that
reads a field or sends an action the engine does not have fails here. What a rival's record
hides comes from the engine's own redaction (`Campaign.view`)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from grailwar.client import theme as th
from grailwar.client.i18n import LANGS, Tr
from grailwar.client.model import ClientModel
from grailwar.client.modules.campaign import text as campaign_text
from grailwar.client.modules.campaign import view_data as cp
from grailwar.client.modules.campaign.tour import (
    ARCHER,
    CASTER,
    EYE_SQUARE,
    LANCER,
    SABER,
    SABER_RELIC,
    SHOTS,
    Play,
    Staged,
    arranging,
    bonded,
    drafting,
    feed_staged,
    informed,
    leveled,
    setting_up,
    setup_stances,
    shopping,
    spending,
    stance_round,
    stance_seen,
)
from grailwar.shared.engine import legal_actions
from grailwar.shared.modules.campaign import state as st
from grailwar.shared.modules.campaign.gear import Buy
from grailwar.shared.modules.campaign.state import cards
from grailwar.shared.modules.campaign.summoning import ChooseRelic
from test_screens import ActRecorder, join, record_sends, render, room_public

HIDDEN = ("level", "exp", "skill_points", "background_points", "pending_growth", "merit",
          "funds", "items", "worn", "devices", "pool", "dp", "stances", "stance_now", "info",
          "bonds", "tag", "jewels")


def model(staged: Staged, lang: str = "en", seat: int = SABER) -> ClientModel:
    m = ClientModel(lang)
    feed_staged(m, staged, seat)
    return m


def labels(app: Any) -> list[str]:
    return [label for label, _x, _y in app.current.base.labels]


def show(app: Any, staged: Staged, screen: str, page: str = "", seat: int = SABER) -> Any:
    """The staged moment on `screen` (the camp screen on `page`), drawn; its click recorder."""
    feed_staged(app.model, staged, seat)
    recorder = ActRecorder(app.model)
    app.session = recorder
    if page:
        app.view("camp").page = page
    render(app, screen)
    return recorder


def again(app: Any) -> None:
    """As if the server answered the last click with the same state: the buttons are live."""
    app.model.sent_state_id = -1
    app.current.invalidate()


def drawn(app: Any) -> list[str]:
    """The screen's labels, with no catalog key and no placeholder left among them."""
    shown = labels(app)
    assert all("campaign." not in x and "{" not in x and "verb." not in x for x in shown), \
        [x for x in shown if "campaign." in x or "{" in x or "verb." in x]
    return shown


# --- the sheet ---------------------------------------------------------------------------------
def test_the_sheet_reads_the_masters_level_experience_pool_merit_and_funds() -> None:
    """Levels 2 and 3 gained at a Turn's end; Edge (+1 dp each) and the Servant's growth (+1
    Buster tile, +1 Buster dp) chosen for the first: El Cid's BBAQQ (4, 2, 4 tiles) is now
    5, 2, 4 tiles (a Buster tile short of a card) with contract dp 2, 1, 1."""
    staged = leveled()
    sh = cp.sheet(model(staged))
    rec = st.record(staged.state, SABER)
    assert (sh["level"], sh["cap"], sh["race"], sh["per_level"]) == (3, 15, "human", 10)
    assert sh["exp"] == [("scouting", 4), ("combat", 7), ("study", 2), ("bond", 0), ("other", 1)]
    assert [(p["kind"], p["cards"], p["tiles"], p["next"]) for p in sh["pool"]] == [
        ("B", 2, 5, 1), ("A", 1, 2, 2), ("Q", 2, 4, 2)]
    assert [(p["dp"], p["dp_items"]) for p in sh["pool"]] == [(2, 0), (1, 0), (1, 0)]
    module = next(m for m in staged.state.modules if m.name == "campaign")
    assert sh["composition"] == cards(rec, module.data) == "BBAQQ"  # as the engine counts
    assert (sh["skill_points"], sh["background_points"]) == (1, 1)  # levels 2 and 3
    assert sh["merit"] == {"servant": 3, "master": 4} and sh["funds"] == 11
    assert (sh["pending"], sh["growth_stage"], sh["last_growth"]) == (1, "option", "edge")


@pytest.mark.parametrize("lang", LANGS)
def test_the_sheet_screen_shows_the_values_and_the_growth_options_as_buttons(
        app: Any, lang: str) -> None:
    """A level gained: only the growth options the engine offers are buttons (Edge, chosen
    last time, is not), each sends its own action; the sheet shows the record's numbers."""
    app.set_lang(lang)
    staged = leveled()
    recorder = show(app, staged, "camp", "sheet")
    tr, m, view = app.tr, app.model, app.current
    shown = drawn(app)
    assert tr("campaign.level", n=3, cap=15) in shown
    assert tr("campaign.points", skill=1, background=1) in shown
    for method, value in (("scouting", 4), ("combat", 7), ("other", 1)):
        assert tr(f"campaign.method.{method}") in shown and f"{value} / 10" in shown
    assert {"3", "4", "11"} <= set(shown)  # the two merit wallets and the funds
    assert tr("campaign.tag_line", tag=cp.tag_name(tr, "founding_jewels")) in shown
    assert "Tohsaka" in cp.tag_name(Tr("en"), "founding_jewels")  # tags.toml's own name
    offered = cp.actions(m, "ChooseGrowth")
    buttons = [r for r in view.regions if r.id.startswith("act:ChooseGrowth:")]
    assert len(buttons) == len(offered) == 9
    assert tr("campaign.growth.edge") not in shown
    assert tr("campaign.growth.focus", first=tr.card("B")) in shown
    assert view.click("act:ChooseGrowth:3")
    assert recorder.acts == [offered[3]]
    assert not any(v.key == "ChooseGrowth" for v in m.verbs())  # on the sheet, not the map's bar


def test_the_servants_growth_is_picked_in_three_steps_and_confirmed_as_one_action(
        app: Any) -> None:
    """C2.8: HP or MP, the damage point's kind, the tile (a kind or a magecraft skill); the
    data default (HP, the first kind) is picked until the seat changes it; Confirm sends the
    legal action they make."""
    app.set_lang("en")
    recorder = show(app, leveled("servant"), "camp", "sheet")
    view = app.current
    assert view.region_by_id("growth:pool:hp").label == app.tr("campaign.pool_gain.hp")
    tiles = [a["tile"] for a in cp.actions(app.model, "ChooseServantGrowth")]
    assert "reinforcement" in tiles  # a magecraft skill of the camp instead of a tile
    for rid in ("growth:pool:mp", "growth:damage_kind:A", "growth:tile:reinforcement"):
        assert view.click(rid)
    assert view.click("growth:confirm")
    assert recorder.acts == [{"type": "ChooseServantGrowth", "seat": SABER, "pool": "mp",
                              "damage_kind": "A", "tile": "reinforcement"}]


def test_points_merit_and_the_supply_are_spent_through_their_legal_actions(app: Any) -> None:
    app.set_lang("en")
    staged = spending()
    recorder = show(app, staged, "camp", "sheet")
    tr, view, m = app.tr, app.current, app.model
    assert view.region_by_id("act:SpendSkillPoint:0").label == tr("campaign.skill_unlock")
    assert view.region_by_id("act:SpendBackgroundPoint:1").label == tr(
        "campaign.background.funds", n=3)
    transfer = view.region_by_id("act:TransferMerit:1")
    assert transfer.label == tr("campaign.transfer", giver=tr("campaign.holder.master"),
                                to=tr("campaign.holder.servant"), amount=2, cost=4)
    transfer_action = cp.actions(m, "TransferMerit")[1]
    assert view.click("act:TransferMerit:1")
    again(app)
    assert view.click("act:SetSupply:0")
    assert recorder.acts == [transfer_action, {"type": "SetSupply", "seat": SABER, "on": False}]
    assert cp.to_do(m)  # points to spend: the camp tab is marked


# --- gear --------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
def test_the_gear_page_shows_worn_owned_devices_and_the_squares_shop(app: Any, lang: str) -> None:
    """In the Old Foreign Quarter after buying and wearing the Giant's Belt and the Mana
    Necklace and placing the Eye: the shop lists what the square sells with prices, and only
    what the engine offers to Buy (the funds left) is a live button."""
    app.set_lang(lang)
    staged = shopping()
    recorder = show(app, staged, "camp", "gear")
    tr, view, m = app.tr, app.current, app.model
    rec = st.record(staged.state, SABER)
    shown = drawn(app)
    assert tr("campaign.shop", where=m.square_name(13)) in shown
    assert tr("campaign.funds_left", n=rec.funds) in shown
    assert view.region_by_id("worn:servant:0") and view.region_by_id("worn:master:0")
    assert view.region_by_id("worn:servant:1") is None  # the second slot is empty
    assert tr("campaign.empty_slot") in shown
    assert f"{tr('campaign.item.recovery_potion')} ×2" in shown
    assert tr("campaign.item_help.giants_belt") in view.region_by_id("owned:giants_belt").help
    assert tr("campaign.device", item=tr("campaign.item.eye_of_searching"),
              square=m.square_name(EYE_SQUARE), left=2) in shown
    on_sale = cp.state_of(m.view)["gear"]["on_sale"]
    assert len(on_sale) == 10 and [r["item"] for r in cp.gear(m)["shop"]] == on_sale
    buys = cp.actions(m, "Buy")
    assert buys and [a["item"] for a in buys] == [
        i for i in on_sale if Buy(SABER, i) in legal_actions(staged.state, SABER)]
    for row in cp.gear(m)["shop"]:
        rid = f"act:Buy:{buys.index(row['buy'])}" if row["buy"] else f"shop:{row['item']}"
        button = view.region_by_id(rid)
        assert button.enabled == (row["buy"] is not None)
        assert button.label == tr("campaign.price", item=tr(f"campaign.item.{row['item']}"),
                                  n=row["price"])
    assert tr("campaign.item_help.nekote") in shown  # each item's effect beside it
    assert not view.click("shop:nekote")  # not affordable: nothing sent
    assert view.click("act:Buy:0")
    again(app)
    assert view.click("act:Wear:0")
    assert recorder.acts == [buys[0], {"type": "Wear", "seat": SABER, "item": "giants_belt",
                                       "wearer": ""}]
    assert view.region_by_id("act:Wear:0").label == tr("campaign.take_off_short")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("stage", "smallest"), [(shopping, 9), (setting_up, 8)],
                         ids=["square", "day0"])
def test_each_shop_description_stays_in_its_row_beside_its_button(
        app: Any, lang: str, stage: Any, smallest: int) -> None:
    """Issue 32: the descriptions ran into each other (水晶玉's into the next) and drifted
    from their rows in tiny type. A square's shop: each drawn at 12 (no smaller than 9 once
    fitted) on two lines at most; day 0's whole catalogue (24 rows): one line each at 11 (no
    smaller than 8). Each right of its item's button, inside its row and the panel."""
    app.set_lang(lang)
    show(app, stage(), "camp", "gear")
    tr, view, m = app.tr, app.current, app.model
    buys = cp.actions(m, "Buy")
    for row in cp.gear(m)["shop"]:
        rid = f"act:Buy:{buys.index(row['buy'])}" if row["buy"] else f"shop:{row['item']}"
        button = view.region_by_id(rid)
        key = next(k for k in view.base.pool.used
                   if k[0] == tr(f"campaign.item_help.{row['item']}"))
        text = view.base.pool.used[key][0]
        assert text.font_size >= smallest, (row["item"], text.font_size)
        assert button.left + button.width < text.left and text.right <= th.WIDTH - 16 - 8
        top = text.bottom + text.content_height
        assert button.bottom - 4 <= text.bottom and top <= button.bottom + button.height + 4, \
            row["item"]


# --- stances -----------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
def test_the_stances_show_names_traits_links_the_np_stance_and_lead_sets(
        app: Any, lang: str) -> None:
    app.set_lang(lang)
    show(app, arranging(), "camp", "stances")
    tr = app.tr
    shown = drawn(app)
    assert "Tizona" in shown  # the renamed Attack stance
    for key in ("normal", "defense", "critical"):
        assert tr(f"campaign.stance.{key}") in shown
    assert tr("campaign.trait.kind_damage", arg=tr.card("B")) in shown
    assert tr("campaign.trait.extra_guard") in shown and tr("campaign.trait.won_lead") in shown
    assert tr("campaign.link", category=tr("campaign.category.legend")) in shown
    assert shown.count(tr("campaign.np_stance")) == 1  # Critical holds the NP
    assert tr("campaign.arrangement", n=5) in shown  # El Cid: fame 0, a lead set of 5
    assert shown.count(tr("campaign.current")) == 1


def test_an_arrangement_is_drafted_and_sent_only_as_an_order_the_engine_offers(app: Any) -> None:
    """C5.7: the pool's new Quick card, placed last by the engine's view, moved left three
    places makes an order on the legal list, which Set sends; a placed card moved out of its
    order makes none, and Set stays greyed."""
    app.set_lang("en")
    recorder = show(app, arranging(), "camp", "stances")
    view = app.current
    assert [x["order"] for x in cp.stances(app.model)] == ["BBAQQQ"] * 4
    assert not view.region_by_id("arrange:attack").enabled  # nothing moved yet
    view.click("stance_card:attack:5")
    for _ in range(3):
        view.click("move:attack:-1")
    view.rebuild()
    assert view.region_by_id("arrange:attack").enabled
    assert view.click("arrange:attack")
    assert recorder.acts == [{"type": "ArrangeStance", "seat": SABER, "stance": "attack",
                              "order": "BBQAQQ"}]
    again(app)
    view.click("stance_card:defense:0")  # a placed Buster moved behind the Arts
    view.click("move:defense:1")
    view.click("move:defense:1")
    view.rebuild()
    assert view.region_by_id("arrange:defense") is not None
    assert not view.click("arrange:defense")
    assert len(recorder.acts) == 1


def test_a_stance_is_renamed_with_the_typed_name(app: Any) -> None:
    app.set_lang("ja")
    recorder = show(app, arranging(), "camp", "stances")
    view = app.current
    assert not view.region_by_id("rename:defense").enabled  # nothing typed yet
    view.click("field:stance_name:defense")
    view.type_text("鉄壁の構え")
    assert view.click("rename:defense")
    assert recorder.acts == [{"type": "NameStance", "seat": SABER, "stance": "defense",
                              "name": "鉄壁の構え"}]
    assert view.region_by_id("rename:normal") is None  # Normal keeps its name


# --- day 0's stance editor (C14.3) --------------------------------------------------------------
STANCE_EDITS = ("trait:", "trait_arg:", "set_trait:", "link:", "hold_np:")


def region_ids(app: Any) -> list[str]:
    return [r.id for r in app.current.regions]


def test_the_setup_panel_leaves_the_stances_and_gear_to_their_pages(app: Any) -> None:
    """The setup prompt offers traits, links, the NP stance, names, arrangements, buying and
    wearing: none is a button of the setup panel (the page buttons lead to them)."""
    app.set_lang("en")
    show(app, setting_up(), "day0")
    m = app.model
    paged = ("SetStanceTrait", "LinkStance", "HoldNoblePhantasm", "NameStance",
             "ArrangeStance", "Buy")
    assert all(cp.actions(m, kind) for kind in paged)  # all offered at this moment
    acts = [x for x in region_ids(app) if x.startswith("act:")]
    assert not [x for x in acts if x.split(":")[1] in (*paged, "Wear")], acts
    assert app.current.region_by_id("open:stances") is not None


@pytest.mark.parametrize("stance", ["attack", "defense", "critical"])
def test_each_trait_offered_on_day_0_is_picked_and_sent_as_its_legal_action(
        app: Any, stance: str) -> None:
    """C5.10 on day 0: every (trait, argument) the engine offers a stance is reached by
    picking the trait, then its argument, then Set; what Set sends is that legal action."""
    app.set_lang("en")
    recorder = show(app, setup_stances(), "camp", "stances")
    view, m = app.current, app.model
    offered = cp.actions(m, "SetStanceTrait", stance=stance)
    assert len(offered) == 13  # 8 traits but none, 3 kinds and 5 sub-types, less its own
    assert not view.region_by_id(f"set_trait:{stance}").enabled  # its own trait: nothing new
    for a in offered:
        assert view.click(f"trait:{stance}:{a['trait']}")
        if a["arg"]:
            assert view.click(f"trait_arg:{stance}:{a['arg']}")
        assert view.click(f"set_trait:{stance}")
        again(app)
    assert recorder.acts == offered


def test_the_picked_trait_shows_its_text_and_its_arguments(app: Any) -> None:
    app.set_lang("ko")
    show(app, setup_stances(), "camp", "stances")
    tr, view = app.tr, app.current
    view.click("trait:defense:magecraft_grade")
    view.rebuild()
    assert tr("campaign.trait_help.magecraft_grade") in labels(app)
    assert {f"trait_arg:defense:{x}" for x in cp.SUBTYPES} <= set(region_ids(app))
    assert not [x for x in region_ids(app) if x.startswith("trait_arg:critical:")]  # Momentum
    view.click("trait:defense:lead_damage")  # no argument: no argument buttons
    view.rebuild()
    assert not [x for x in region_ids(app) if x.startswith("trait_arg:defense:")]


def test_links_and_the_np_stance_are_sent_as_the_engine_offers_them(app: Any) -> None:
    """C14.3: a category other than the stance's own sends its LinkStance; its own is
    marked and sends nothing; Hold the NP is drawn where the engine offers it only (not
    on the stance that holds it, nor on Normal)."""
    app.set_lang("en")
    recorder = show(app, setup_stances(), "camp", "stances")  # Attack holds the NP
    view, legal = app.current, list(app.model.legal)
    assert view.click("link:critical:combat")
    again(app)
    view.click("link:critical:rumor")  # Critical's own (Defense took Legend): nothing sent
    assert len(recorder.acts) == 1
    assert view.click("hold_np:defense")
    assert recorder.acts == [{"type": "LinkStance", "seat": SABER, "stance": "critical",
                              "link": "combat"},
                             {"type": "HoldNoblePhantasm", "seat": SABER, "stance": "defense"}]
    assert all(a in legal for a in recorder.acts)
    ids = region_ids(app)
    assert "hold_np:attack" not in ids and "hold_np:normal" not in ids
    assert not [x for x in ids if x.startswith(("trait:normal:", "set_trait:normal"))]
    assert "link:normal:legend" in ids  # the engine links Normal too


def test_day_0_arranges_a_stance_in_any_order(app: Any) -> None:
    """C14.3: on day 0 the engine offers ArrangeStance as its any-order template (the empty
    order); a placed Buster moved to the end (out of the order day 1 would keep) is sent
    with the order filled in."""
    app.set_lang("en")
    recorder = show(app, setup_stances(), "camp", "stances")
    view = app.current
    assert cp.actions(app.model, "ArrangeStance", stance="defense") == [
        {"type": "ArrangeStance", "seat": SABER, "stance": "defense", "order": ""}]
    view.click("stance_card:defense:0")
    for _ in range(4):
        view.click("move:defense:1")
    assert view.click("arrange:defense")
    assert recorder.acts == [{"type": "ArrangeStance", "seat": SABER, "stance": "defense",
                              "order": "BAQQB"}]


def test_no_day_0_stance_control_is_drawn_on_day_1(app: Any) -> None:
    app.set_lang("en")
    show(app, arranging(), "camp", "stances")
    assert not [x for x in region_ids(app) if x.startswith(STANCE_EDITS)]


# --- bonds -------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
def test_the_bonds_show_holder_target_polarity_grade_and_their_actions(app: Any,
                                                                      lang: str) -> None:
    """The internal bonds of day 0 and three toward rivals; the engine offers resolving the
    open positive ones (internal, or toward Lancer, met last Turn), none for a fixed one, and
    new bonds toward the camps met last Turn that a holder has none toward."""
    app.set_lang(lang)
    staged = bonded()
    recorder = show(app, staged, "camp", "bonds")
    tr, view, m = app.tr, app.current, app.model
    shown = drawn(app)
    b = cp.bonds(m)
    internal = st.record(staged.state, SABER).bonds[0].grade
    assert [(r["holder"], r["target"], r["grade"], r["fixed"]) for r in b["rows"]] == [
        ("servant", SABER, internal, False), ("master", SABER, internal, False),
        ("servant", LANCER, 3, False), ("master", ARCHER, 2, True),
        ("servant", ARCHER, 5, False)]
    assert shown.count(tr("campaign.internal")) == 2 and tr("campaign.fixed") in shown
    assert m.who(LANCER) in shown and m.who(ARCHER) in shown
    assert tr("campaign.holder.master") in shown  # the internal bond's target, the other half
    assert [bool(r["resolve"]) for r in b["rows"]] == [True, True, True, False, False]
    resolve = view.region_by_id("act:ResolveBond:0")
    assert resolve.label == tr("campaign.effect.funds")
    assert shown.count(tr("campaign.resolve_head")) == 3  # one head per bond it may resolve
    heads = [t for key, items in view.base.pool.used.items() for t in items
             if key[0] == tr("campaign.resolve_head")]
    for head in heads:  # each heads a row of resolutions only (issue 32: it stood before 深める)
        row = [r for r in view.regions if r.id.startswith("act:") and r.left < 848  # (bonds)
               and r.bottom <= head.y <= r.bottom + r.height]
        assert row and all(r.id.startswith("act:ResolveBond:") for r in row), \
            [r.id for r in row]
    assert [(a["holder"], a["target"]) for a in b["set"]] == [
        ("servant", CASTER)] * 2 + [("master", LANCER)] * 2 + [("master", CASTER)] * 2
    assert len([r for r in view.regions if r.id.startswith("act:SetBond:")]) == 6
    assert view.click("act:ResolveBond:0")
    again(app)
    assert view.click("act:SetBond:1")
    assert recorder.acts == [
        {"type": "ResolveBond", "seat": SABER, "holder": "servant", "target": SABER,
         "effect": "funds"},
        {"type": "SetBond", "seat": SABER, "holder": "servant", "target": CASTER,
         "polarity": "negative"}]


# --- what a rival's record hides ---------------------------------------------------------------
@pytest.mark.parametrize("staging", [leveled, shopping, bonded, informed, arranging])
def test_a_rival_sees_nothing_of_another_camps_hidden_record(app: Any, staging: Any) -> None:
    """Lancer's seat: Saber's record carries only its public fields (the engine's redaction),
    and no page of Lancer's camp screen draws Saber's level, items or stance names; Lancer's
    own sheet, bonds and points are its own."""
    staged = staging()
    m = model(staged, "en", LANCER)
    rival = cp.record(m, SABER)
    assert rival is not None and not set(HIDDEN) & set(rival)
    own = st.record(staged.state, LANCER)
    assert cp.sheet(m)["funds"] == own.funds and cp.sheet(m)["level"] == own.level
    assert sorted((r["holder"], r["target"]) for r in cp.bonds(m)["rows"]) == [
        ("master", LANCER), ("servant", LANCER)]  # its own internal bonds only
    assert cp.dossier(m)[SABER]["servant"] == [0, 0, 0, 0]
    saber = st.record(staged.state, SABER)
    secrets = [app.tr(f"campaign.item.{item}") for item, _n in saber.items]
    secrets += [x.name for x in saber.stances if x.name]
    if saber.level != own.level:
        secrets.append(app.tr("campaign.level", n=saber.level, cap=15))
    feed_staged(app.model, staged, LANCER)
    app.set_lang("en")
    for page in cp.PAGES:
        app.view("camp").page = page
        render(app, "camp")
        shown = labels(app)
        assert not [x for x in secrets if x in shown], page


def test_a_spectator_keeps_no_camp_and_sees_no_points(app: Any) -> None:
    staged = informed()
    app.model.handle({"t": "joined", "room": 1, "seat": -1, "token": "", "spectator": True})
    from grailwar.client.modules.campaign.tour import state_message

    app.model.handle(state_message(staged, None))
    assert cp.own_record(app.model) is None and cp.dossier(app.model) == {}
    assert all(set(r) <= {"supply_on", "supply_turn", "materialized_turn", "stray",
                          "cancel_turn"} for r in cp.state_of(app.model.view)["camps"])
    render(app, "camp")
    assert app.tr("campaign.spectator") in labels(app)


# --- the dossier -------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
def test_the_dossier_shows_points_by_category_against_their_maxima_and_what_they_revealed(
        app: Any, lang: str) -> None:
    """Archer (fame 1: maxima 6) all full, true name and Master known; Lancer's Master named
    at 4 Master points, its cards at 4 Servant points; Caster's NP seen fired, named."""
    app.set_lang(lang)
    show(app, informed(), "dossier")
    tr, m = app.tr, app.model
    shown = drawn(app)
    assert tr("campaign.dossier.servant") in shown and tr("dossier.tier", n=1) not in " ".join(
        shown)
    points = cp.dossier(m)
    assert points[ARCHER]["servant_rows"] == [(c, 6, 6) for c in ("encounter", "rumor",
                                                                  "combat", "legend")]
    assert points[LANCER]["servant_rows"][0] == ("encounter", 2, 6)
    assert points[CASTER]["servant_rows"][3] == ("legend", 1, 7)  # Vainamoinen: fame 2
    assert shown.count("6/6") == 4 and shown.count("10/10") == 3
    assert "2/6" in shown and "1/7" in shown
    lancer_master = points[LANCER]["master_name"][lang]
    assert any(x.startswith(lancer_master) for x in shown)
    np = points[CASTER]["np"]["name"][lang]
    assert tr("campaign.dossier.np_known", name=np) in shown
    assert tr.true_name("jumong") in shown


# --- day 0 -------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
def test_the_relic_draft_shows_each_drafted_class_and_a_choice_for_each_free_relic(
        app: Any, lang: str) -> None:
    """Lancer and Archer have drafted: every relic of those classes shows its class (which
    one each took stays hidden), every other relic has a Choose button that sends its
    ChooseRelic; names and hints are relics.toml's, as the summoning section's view gives
    them."""
    app.set_lang(lang)
    staged = drafting()
    feed_staged(app.model, staged)
    app.session = recorder = ActRecorder(app.model)
    app.show("game")
    app.route({"t": "state", "state_id": staged.state.version, "view": app.model.view})
    assert app.current.name == "day0"  # day 0 is the game's home screen while it lasts
    render(app, "day0")
    tr, view = app.tr, app.current
    shown = drawn(app)
    rows = cp.relics(app.model)
    assert len(rows) == 21 and all(r["seat"] == -1 for r in rows)
    drafted = {r["id"] for r in rows if r["cls"]}
    assert {r["cls"] for r in rows if r["cls"]} == {"lancer", "archer"} and len(drafted) == 6
    for row in rows:
        assert row["name"][lang] in shown and row["hint"][lang] in shown
        assert (view.region_by_id(f"choose:{row['id']}") is None) == (row["id"] in drafted)
    assert shown.count(tr("campaign.day0.drafted")) == 6
    assert "thousandth_sword" in drafted  # Lancer's, shown like the other Lancer relics
    assert tr("prompt.relic") in shown
    assert view.click(f"choose:{SABER_RELIC}")
    assert recorder.acts == [{"type": "ChooseRelic", "seat": SABER, "relic": SABER_RELIC}]


def test_a_rivals_relic_in_the_log_names_its_class_not_the_relic() -> None:
    m = model(drafting())
    lines = [m.event_text(e) for e in m.events if e["type"] == "RelicChosen"]
    assert lines == [m.tr("event.RelicChosen", who=m.who(x)) for x in (LANCER, ARCHER)]
    assert m.who(LANCER) == m.tr.cls("lancer")  # the class drafted is public, named


def test_the_setup_offers_ready_and_leads_to_the_stance_and_gear_pages(app: Any) -> None:
    app.set_lang("ko")
    staged = setting_up()
    recorder = show(app, staged, "day0")
    tr, view, m = app.tr, app.current, app.model
    shown = drawn(app)
    assert tr("campaign.tag_line", tag=cp.tag_name(tr, "overseer")) in shown
    assert view.region_by_id("tag").help == cp.tag_text(tr, "overseer")
    assert tr("campaign.day0.yours") in shown
    assert [r["id"] for r in cp.relics(m) if r["seat"] == SABER] == [SABER_RELIC]
    assert tr("campaign.day0.waiting", n=2) in shown  # Caster is ready: Lancer and Archer
    assert view.click("ready")
    assert recorder.acts == [{"type": "SetupReady", "seat": SABER}]
    again(app)
    view.click("open:gear")
    assert app.current.name == "camp" and app.current.page == "gear"
    render(app, "camp")
    assert tr("campaign.shop", where=tr("campaign.catalogue")) in labels(app)
    shop = cp.gear(m)["shop"]  # day 0: the whole catalogue, bought as the engine offers
    assert [r["item"] for r in shop] == list(cp.tables(tr.rules).items)
    assert [r["buy"] for r in shop if r["buy"]] == cp.actions(m, "Buy")


def test_the_setup_shows_what_else_the_engine_offers_there(app: Any) -> None:
    """The setup prompt's other actions: a camp page whose actions are offered gets its own
    button (here the Tohsaka jewels, offered at every prompt while the Servant's MP is not
    full, are on the sheet)."""
    app.set_lang("en")
    p = Play("relic", tag_die=2)
    p.do(*(ChooseRelic(x, r) for x, r in ((LANCER, "thousandth_sword"), (SABER, SABER_RELIC),
                                          (ARCHER, "great_eggshell"), (CASTER, "pike_bone_harp"))))
    p.s.edit(SABER).mp -= 20  # below its maximum: the jewels have somewhere to go
    show(app, p.staged(), "day0")
    view = app.current
    assert cp.actions(app.model, "UseJewels")
    assert view.region_by_id("open:sheet") is not None
    assert view.region_by_id("open:bonds") is None  # nothing offered there on day 0
    view.click("open:sheet")
    assert app.current.name == "camp" and app.current.page == "sheet"


def test_the_header_says_day_0_and_its_first_tab_leads_back_there(app: Any) -> None:
    app.set_lang("en")
    show(app, setting_up(), "camp")
    assert app.tr("turn.day_of", day=0, limit=7) in labels(app)
    assert app.current.region_by_id("tab:game").label == app.tr("tab.day0")
    app.current.click("tab:game")
    assert app.current.name == "day0"


# --- a battle ----------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
def test_a_battles_round_start_offers_the_stances_and_the_log_shows_the_one_seen_through(
        app: Any, lang: str) -> None:
    """Round 2's round start: ChooseStance for each stance but the current one, the own
    stance on Saber's card, and Lancer's Round-1 stance as StanceRevealed showed it at that
    Round's start (Saber holds Lancer's Combat points at their maximum), on Lancer's card
    until the next Round starts and in the log."""
    app.set_lang(lang)
    recorder = show(app, stance_round(), "battle")
    tr, m, view = app.tr, app.model, app.current
    options = m.options("ChooseStance")
    assert [o.label for o in options] == [tr(f"campaign.stance.{k}") for k in st.STANCES[1:]]
    assert any(v.key == "ChooseStance" and v.enabled for v in m.verbs())
    b = m.battle(0.0)
    flags = {c["seat"]: c["flags"] for c in b["combatants"]}
    assert tr("campaign.stance_now", stance=tr("campaign.stance.normal")) in flags[SABER]
    seen = tr("campaign.stance_seen", stance=tr("campaign.stance.normal"),
              trait=tr("campaign.trait.none"), lead="B A Q")
    assert flags[LANCER] == [seen]
    log = [text for _kind, text in m.log_lines()]
    assert any(tr("campaign.stance.normal") in x and tr("campaign.trait.none") in x
               for x in log)
    view.click("verb:ChooseStance")
    assert view.click("opt:1")
    assert recorder.acts == [{"type": "ChooseStance", "seat": SABER, "stance": "defense"}]


@pytest.mark.parametrize("lang", LANGS)
def test_a_stance_seen_through_shows_on_the_rivals_card_for_that_round(
        app: Any, lang: str) -> None:
    """C5.9: once every combatant is Ready in Round 2, Saber (Lancer's Rumor points at
    their maximum) sees Lancer's Defense stance: its trait and lead kinds on Lancer's card;
    Lancer's own seat sees nothing of Saber's."""
    app.set_lang(lang)
    staged = stance_seen()
    show(app, staged, "battle")
    tr, m = app.tr, app.model
    shown = next(e for e in reversed(staged.events) if e.type == "StanceRevealed").data
    assert (shown["about"], shown["stance"]) == (LANCER, "defense")
    seen = tr("campaign.stance_seen", stance=tr("campaign.stance.defense"),
              trait=tr("campaign.trait.extra_guard"), lead=" ".join(shown["lead"]))
    flags = {c["seat"]: c["flags"] for c in m.battle(0.0)["combatants"]}
    assert seen in flags[LANCER] and seen in labels(app)
    assert tr("campaign.stance_now", stance=tr("campaign.stance.attack")) in flags[SABER]
    rival = model(staged, lang, LANCER)
    rival_flags = {c["seat"]: c["flags"] for c in rival.battle(0.0)["combatants"]}
    assert rival_flags[SABER] == []


def overlap(a: Any, b: Any) -> bool:
    return (a.left < b.left + b.width and b.left < a.left + a.width
            and a.bottom < b.bottom + b.height and b.bottom < a.bottom + a.height)


@pytest.mark.parametrize("lang", LANGS)
def test_the_crowded_verb_bar_keeps_every_label_whole_and_every_button_in_the_panel(
        app: Any, lang: str) -> None:
    """The campaign's round start offers ~14 verbs, too many for one legible row: each label
    is drawn without an ellipsis, its words (en, ko: they break at spaces) whole on at most
    two lines, and no verb button overlaps another, the stance options below, or leaves the
    action bar's panel."""
    from grailwar.client.views.battle import BAR

    app.set_lang(lang)
    show(app, stance_round(), "battle")
    view = app.current
    view.click("verb:ChooseStance")
    again(app)
    render(app, "battle")
    verbs = [r for r in view.regions if r.id.startswith("verb:")]
    options = [r for r in view.regions if r.id.startswith("opt:")]
    assert len(verbs) >= 12 and options
    drawn = [(key[0], text) for key, items in view.base.pool.used.items() for text in items]
    for region in verbs:
        text = next(t for content, t in drawn
                    if content == region.label and t.x == region.center[0]
                    and region.bottom < t.y < region.bottom + region.height)
        lines = text.text.split("\n")
        assert "…" not in text.text and len(lines) <= 2, (region.label, text.text)
        if lang != "ja":
            assert [w for line in lines for w in line.split()] == region.label.split(), \
                (region.label, text.text)
    left, bottom, width, height = BAR
    for i, region in enumerate(verbs):
        assert left <= region.left and region.left + region.width <= left + width
        assert bottom <= region.bottom and region.bottom + region.height <= bottom + height
        assert not any(overlap(region, other) for other in verbs[i + 1:] + options), region.id
    for region in options:
        assert bottom <= region.bottom and region.left + region.width <= left + width


def test_under_two_rows_of_verbs_a_paged_menu_keeps_its_page_count_in_the_panel(
        app: Any) -> None:
    """The Command Spell's menu in the crowded bar: one row of options is left under the two
    rows of verbs, so the page count stands left of the arrows, inside the action bar."""
    from grailwar.client.views.battle import BAR

    app.set_lang("en")
    show(app, stance_round(), "battle")
    view = app.current
    view.click("verb:UseCommandSpell")
    again(app)
    render(app, "battle")
    left, bottom, width, _height = BAR
    paging = [r for r in view.regions if r.id.startswith("page:")]
    assert paging
    for region in paging + [r for r in view.regions if r.id.startswith("opt:")]:
        assert left <= region.left and region.left + region.width <= left + width
        assert bottom <= region.bottom, region.id
    count = next((x, y) for text, x, y in view.base.labels if re.fullmatch(r"\d+/\d+", text))
    assert left < count[0] < paging[0].left and bottom < count[1] - 6


# --- words -------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
def test_every_campaign_event_reads_as_a_sentence(lang: str) -> None:
    m = model(bonded(), lang)
    fields = {"seat": SABER, "about": LANCER, "target": LANCER, "amount": 2, "level": 3,
              "mp": 30, "master_mp": 10, "cls": "lancer", "square": 13, "method": "combat",
              "holder": "servant", "item": "nekote", "wearer": "servant", "option": "spread",
              "first": "B", "second": "A", "master": "hayase", "relic": "great_eggshell",
              "tag": "overseer", "what": "param:str", "event": "sworn", "side": "servant",
              "category": "legend", "polarity": "positive", "effect": "exp", "grade": 4,
              "stance": "attack", "trait": "kind_damage", "arg": "Q", "lead": "BQ",
              "success": True, "on": True}
    for kind in campaign_text.EVENTS:
        line = m.event_text({"type": kind, **fields})
        assert line and "{" not in line and "campaign." not in line and "None" not in line, \
            (kind, line)
    assert m.event_text({"type": "SupplySet", "seat": LANCER, "on": False}) == m.tr(
        "campaign.event.SupplySet_off", who=m.who(LANCER))


@pytest.mark.parametrize("lang", LANGS)
def test_every_campaign_action_has_a_label_and_a_verb(lang: str) -> None:
    tr = Tr(lang)
    m = model(leveled(), lang)
    for kind in (*campaign_text.OPTION_LABELS, "DeclareStudy", "DeclareCancelContract",
                 "GiveCommandSpell", "EscapeWithMerit", "SetupReady"):
        assert tr.has(f"verb.{kind}") and tr.has(f"verb_help.{kind}"), kind
    growth = m.option({"type": "ChooseGrowth", "seat": 0, "option": "stock", "first": "B",
                       "second": "Q"})
    assert growth.label == tr("campaign.growth.stock", first=tr.card("B"), second=tr.card("Q"),
                              third=tr.card("A"))
    plus = m.option({"type": "ActivatePlus", "seat": 0, "what": "np", "pay": "merit"})
    assert plus.label == tr("campaign.plus", what=tr("panel.np"), pay=tr("campaign.pay.merit"))
    for prompt in ("relic", "setup", "share", "split"):
        assert tr.has(f"prompt.{prompt}")


# --- the tabs, the lobby, the tour --------------------------------------------------------------
def test_a_campaign_room_has_the_camp_tab_and_a_base_room_none(app: Any) -> None:
    from arcade import key as keys
    from grailwar.client.modules.tactics.tour import tactics_battle
    from test_model import model_for

    show(app, leveled(), "game")
    assert app.current.region_by_id("tab:camp") is not None
    app.current.on_key_press(keys.F6, 0)
    assert app.current.name == "camp"
    state, _events = tactics_battle()
    app.model = model_for(state, "en", 0)
    render(app, "game")
    assert app.current.region_by_id("tab:camp") is None


@pytest.mark.parametrize("lang", LANGS)
def test_the_lobby_offers_the_campaign_and_steps_through_its_options(app: Any, lang: str) -> None:
    app.set_lang(lang)
    sent = record_sends(app)
    render(app, "lobby")
    view, tr = app.current, app.tr
    view.click("page:rules")
    view.click("module:campaign")
    render(app, "lobby")
    summoning = view.region_by_id("option:campaign.summoning")
    assert summoning.label == f"{tr('option.campaign.summoning')}: " \
                              f"{tr('option_value.campaign.summoning.choose')}"
    view.click("option:campaign.summoning")
    view.click("option:campaign.summoning")
    view.click("option:campaign.tags")
    render(app, "lobby")
    assert view.region_by_id("option:campaign.tags").label.endswith(
        tr("option_value.campaign.tags.off"))
    create = view.region_by_id("create")
    assert view.region_by_id("option:campaign.tags").bottom > create.bottom + create.height
    view.click("timer:setup_s")  # day 0's own clock (issue 32): 5 minutes -> 10
    render(app, "lobby")
    assert view.region_by_id("timer:setup_s").label == \
        f"{tr('timer.setup_s')}: {tr('lobby.minutes', n=10)}"
    assert view.region_by_id("timer:draft_s").label == \
        f"{tr('timer.draft_s')}: {tr('lobby.minutes', n=2)}"
    inside_its_button(view, ("timer:setup_s", "timer:draft_s", "option:campaign.tags"))
    assert view.region_by_id("timer:draft_s").bottom > create.bottom + create.height
    view.click("create")
    assert sent[-1]["modules"] == ["campaign"]
    assert sent[-1]["options"] == {"campaign": {"summoning": "relic", "tags": "off"}}
    assert (sent[-1]["setup_s"], sent[-1]["draft_s"]) == (600, 120)
    view.click("page:room")  # the room's page names the modules switched on
    render(app, "lobby")
    assert tr("room.modules", list=tr.module("campaign")) in labels(app)


def inside_its_button(view: Any, ids: tuple[str, ...]) -> None:
    """Each button's label drawn whole (no ellipsis) and within the button's box."""
    drawn = [(key[0], text) for key, items in view.base.pool.used.items() for text in items]
    for rid in ids:
        region = view.region_by_id(rid)
        text = next(t for content, t in drawn if content == region.label
                    and region.bottom < t.y < region.bottom + region.height
                    and region.left < t.x < region.left + region.width)
        assert "…" not in text.text, text.text
        assert region.left <= text.left and text.right <= region.left + region.width, rid
        assert region.bottom <= text.bottom and text.top <= region.bottom + region.height, rid


@pytest.mark.parametrize("lang", LANGS)
def test_a_campaign_room_shows_its_day_0_and_draft_timers(app: Any, lang: str) -> None:
    """The room's header names the campaign's own timers beside the modules, within the
    window, and says on hover what each is for; its summoning is the relic draft's."""
    app.set_lang(lang)
    join(app)
    room = room_public(started=False, seats=7)
    room.update(modules=["campaign"], module_options={"campaign": {"summoning": "relic"}},
                summoned_by=["campaign", "summoning", "relic"])
    room["options"].update(setup_s=600, draft_s=90)
    app.model.handle({"t": "room", "room": room})
    render(app, "room")
    view, tr = app.current, app.tr  # the header names the relic draft, not 召喚：ランダム
    assert tr("room.summoning", mode=tr("option_value.campaign.summoning.relic")) in labels(app)
    relic = tr("room.servant_by", mode=tr("option_value.campaign.summoning.relic"))
    assert relic in labels(app) and tr("room.servant_random") not in labels(app)  # its panel
    region = view.region_by_id("module_timers")
    assert tr("timer.setup_s") in region.help and tr("timer.draft_s") in region.help
    drawn = [text for items in view.base.pool.used.values() for text in items
             if tr("timer.setup_s") in text.text]
    assert len(drawn) == 1 and tr.duration(600) in drawn[0].text
    assert tr.duration(90) in drawn[0].text and "…" not in drawn[0].text
    assert drawn[0].right <= th.WIDTH and region.left + region.width <= th.WIDTH


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("shot", SHOTS, ids=[s[0] for s in SHOTS])
def test_every_campaign_screen_renders_its_words_in_every_language(
        app: Any, lang: str, shot: tuple[Any, ...]) -> None:
    _name, stage, screen, page = shot
    app.set_lang(lang)
    show(app, stage(), screen, page)
    shown = drawn(app)
    assert len(shown) > 20


def test_the_tour_renders_the_campaign_screens(app: Any, tmp_path: Any) -> None:
    from grailwar.client.modules import part
    from grailwar.client.tour import Tour

    files = part("campaign").tour(Tour(tmp_path, "en", app=app), "")
    assert [f.name for f in files] == [f"{s[0]}.png" for s in SHOTS] + ["campaign_lobby.png"]
    assert all(f.stat().st_size > 10000 for f in files)


@pytest.mark.parametrize("lang", LANGS)
def test_the_map_shows_spirit_form_stray_servants_and_vacant_masters_to_everyone(
        app: Any, lang: str) -> None:
    """Spec §4: spirit form, the stray state and vacant Masters (id, square) are public: a
    pale ring on a spirit-form camp's token, a mark for a Master left on its square, and each
    in the square's hover text, for a rival's seat too."""
    from grailwar.client import theme as th
    from grailwar.client.modules.campaign.tour import mapped
    from test_colossus_screens import box, count

    app.set_lang(lang)
    staged = mapped()
    left = st.state(staged.state).vacant[0]  # Archer's Master, on its square
    spare = left.master
    show(app, staged, "game", seat=CASTER)
    tr, m, view = app.tr, app.model, app.current
    lancer = view.region_by_id(f"cell:{m.camp(LANCER)['pos']}")
    assert tr("campaign.map.spirit", who=m.who(LANCER)) in lancer.help
    archer = view.region_by_id(f"cell:{m.camp(ARCHER)['pos']}")
    assert tr("campaign.map.stray", who=m.who(ARCHER)) in archer.help
    vacant = view.region_by_id(f"cell:{left.square}")
    assert tr("campaign.map.vacant", master=tr.master_name(spare)) in vacant.help
    image = render(app, "game")
    show(app, mapped(spirit=False), "game", seat=CASTER)  # Lancer supplied, no Master left
    plain = render(app, "game")
    assert count(image, box(lancer), th.SKY) > count(plain, box(lancer), th.SKY) + 30
    assert count(image, box(vacant), th.INK_SOFT) > count(plain, box(vacant), th.INK_SOFT) + 20
    assert tr("campaign.map.spirit", who=m.who(LANCER)) not in \
        app.current.region_by_id(f"cell:{m.camp(LANCER)['pos']}").help


def test_a_level_gained_is_a_notice_for_its_own_seat_only() -> None:
    m = model(leveled(), "ko")
    m.notices.clear()
    gained = {"type": "LevelGained", "seat": SABER, "level": 4}
    m.handle({"t": "events", "events": [gained], "log": []}, now=5.0)
    assert [n.text for n in m.notices] == [m.tr("campaign.event.LevelGained", level=4)]
    other = model(leveled(), "ko", LANCER)
    other.notices.clear()
    other.handle({"t": "events", "events": [gained], "log": []}, now=5.0)
    assert other.notices == []


def test_a_camp_page_is_marked_only_when_something_waits_there() -> None:
    """Points to spend mark the sheet, new cards to place the stances, a bond to set the
    bonds; what is offered nearly always (the supply switch, renaming, deepening and
    resolving the internal bonds) marks nothing."""
    quiet = model(informed())
    assert cp.actions(quiet, "SetSupply") and cp.actions(quiet, "NameStance")
    assert cp.actions(quiet, "ResolveBond") and cp.actions(quiet, "AwardBond")
    assert not any(cp.page_news(quiet, page) for page in cp.PAGES)
    assert cp.page_news(model(spending()), "sheet")
    assert cp.page_news(model(arranging()), "stances")
    assert cp.page_news(model(bonded()), "bonds")


def test_the_engines_own_events_read_with_their_own_fields() -> None:
    """Lines of events as the engine sends them (not a hand-made field set): an information
    point names the camp it is on (`target`), the Servant's growth its three gains."""
    m = model(informed())
    tr = m.tr
    first: dict[str, str] = {}  # each type's first line (Lancer's points come first)
    for e in m.events:
        first.setdefault(e["type"], m.event_text(e))
    assert first["InfoGained"] == tr("campaign.event.InfoGained", about=m.who(LANCER),
                                     side=tr("campaign.holder.servant"),
                                     category=tr("campaign.category.encounter"), amount=1)
    assert first["TrueNameRevealed"] == tr("campaign.event.TrueNameRevealed",
                                           about=m.who(ARCHER))
    m = model(spending())
    servant = [m.event_text(e) for e in m.events if e.get("option") == "servant"]
    assert servant == [tr("campaign.event.GrowthChosen", option=tr(
        "campaign.servant_growth", pool=tr(f"campaign.pool_gain.{pool}"), dp=tr.card(dp),
        tile=tr.card(tile))) for pool, dp, tile in (("hp", "B", "B"), ("mp", "Q", "A"))]


def test_the_sheet_tells_spirit_form_as_the_contract_section_counts_it(app: Any) -> None:
    """The supply cut (SetSupply): the contract section's view lists the camp in spirit
    form, the sheet says so, and no switch is offered again this Turn (C0.2: once a Turn)."""
    from grailwar.shared.modules.campaign.contract import SetSupply

    app.set_lang("en")
    p = Play().day1()
    show(app, p.staged(), "camp", "sheet")
    assert app.tr("campaign.supplied") in labels(app)
    show(app, p.do(SetSupply(SABER, False)).staged(), "camp", "sheet")
    tr, view = app.tr, app.current
    assert cp.spirit_seats(app.model.view) == {SABER} and cp.sheet(app.model)["spirit"]
    assert tr("campaign.spirit_form") in drawn(app)
    assert view.region_by_id("act:SetSupply:0") is None


def test_a_device_is_placed_on_a_square_named_on_its_button(app: Any) -> None:
    """An Eye of Searching owned: the engine offers it on each square in reach (C6.18); each
    button names its square, the option label too, and sends that placement."""
    app.set_lang("ja")
    p = Play().day1().update(SABER, items=(("eye_of_searching", 1),))
    recorder = show(app, p.staged(), "camp", "gear")
    m, view = app.model, app.current
    offered = cp.actions(m, "UseItem", item="eye_of_searching")
    assert len(offered) > 1 and all(a["target"] != -1 for a in offered)
    for a in offered:
        button = view.region_by_id(f"act:UseItem:{cp.actions(m, 'UseItem').index(a)}")
        assert button.label == m.square_name(a["target"])
        assert m.option(a).label == m.tr("campaign.use_on",
                                         item=m.tr("campaign.item.eye_of_searching"),
                                         target=m.square_name(a["target"]))
    assert view.click(f"act:UseItem:{cp.actions(m, 'UseItem').index(offered[-1])}")
    assert recorder.acts == [offered[-1]]


@pytest.mark.parametrize("lang", LANGS)
def test_with_every_module_on_the_lobby_keeps_each_option_above_the_create_button(
        app: Any, lang: str) -> None:
    """Every module switched on: each option and timer button is whole, inside the panel and
    clear of the create button and of every other button."""
    from grailwar.shared.engine.modules import MODULES

    app.set_lang(lang)
    render(app, "lobby")
    view = app.current
    view.click("page:rules")
    for name in MODULES:
        if name not in view.modules:
            view.click(f"module:{name}")
    render(app, "lobby")
    rows = [r for r in view.regions if r.id.startswith(("option:", "timer:", "module:", "page:"))]
    assert len(rows) == len(MODULES) + 7 + 2
    create = view.region_by_id("create")
    for i, region in enumerate(rows):
        assert region.bottom > create.bottom + create.height, region.id
        assert not any(overlap(region, other) for other in rows[i + 1:]), region.id
    inside_its_button(view, tuple(r.id for r in rows))
