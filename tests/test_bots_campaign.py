"""The bots' fairness with the campaign on (spec 002 §4, issue 13): the hard bot rebuilds the
hidden campaign state of the other camps from its own view only. A rival's stances and
arrangements, items, funds, merit, bonds, tag, level and experience, the points it holds and
the relic it took come from a fresh contract's values or from what the seat's points revealed
(C1.11), never from the true state; and a position whose rivals' hidden campaign fields are all
changed gives the same rebuilt state and the same decision of every level, seed for seed.
"""

from __future__ import annotations

import random

import pytest
from grailwar.shared.bots import LEVELS, make_bot
from grailwar.shared.bots.determinize import state_from_view
from grailwar.shared.engine import core, legal_actions, new_game, to_text, view_for
from grailwar.shared.engine.data import CARD_KINDS, CLASSES, default_ruleset
from grailwar.shared.engine.state import GameState
from grailwar.shared.modules.campaign import campaign
from grailwar.shared.modules.campaign import state as st
from grailwar.shared.modules.campaign.data import METHODS
from grailwar.shared.modules.campaign.gear import Gear
from grailwar.shared.modules.campaign.growth import Growth
from grailwar.shared.modules.campaign.info import Information
from grailwar.shared.modules.campaign.summoning import Summoning
from grailwar.shared.modules.campaign.tags import Tags
from helpers import past_day0
from test_bots import Position, assert_rebuilt, one_per_prompt, positions

RULES = default_ruleset()
CAMPAIGN = ("campaign",)
RELIC_GAME = {"campaign": {"summoning": "relic", "tags": "random"}}


@pytest.fixture(scope="module")
def campaign_positions() -> list[Position]:
    """Positions of a relic-draft campaign game with tags and of a randomly summoned one,
    every prompt kind of both (day 0's included)."""
    out = positions(5, modules=CAMPAIGN, options=RELIC_GAME, every=3)
    out += positions(6, modules=CAMPAIGN, every=3,
                     options={"campaign": {"summoning": "random", "tags": "random"}})
    return out


# --- the rebuild ---------------------------------------------------------------------------------
def test_a_campaign_rebuild_keeps_the_seats_own_camp(campaign_positions: list[Position]) -> None:
    """With the campaign on (random summoning deals Servants on day 0, a tag adds a stroke),
    the rebuilt state still has the seat's own camp, prompt and legal actions exactly, its
    own campaign record whole, and every camp's Command Spells as the view shows them: the
    module's set-up in the rebuild draws nothing that stands in for what the view shows."""
    rng = random.Random(3)
    for p in campaign_positions[::9]:
        made = assert_rebuilt(p.state, p.seat, rng)
        assert st.record(made, p.seat) == st.record(p.state, p.seat)
        assert [c.spells for c in made.camps] == [c.spells for c in p.state.camps]


def grown_rival() -> tuple[GameState, int]:
    """A campaign game past day 0 in which camp 1 has grown, earned, bought, bonded, arranged
    and drawn its tag, none of it shown to seat 0."""
    s = past_day0(new_game(seed=4, modules=CAMPAIGN))
    item = next(iter(campaign(s).section(Gear).items))
    rec = st.record(s, 1)
    st.update(s, 1, level=4, exp=(5,) * len(METHODS), skill_points=2, merit=(7, 3), funds=41,
              items=((item, 2),), bonds=(*rec.bonds, st.Bond("servant", 2, "negative", 4)),
              stances=tuple(x._replace(name="x" + x.trait, order=x.order[::-1])
                            for x in rec.stances),
              info=tuple(i._replace(servant=(1, 2, 0, 1)) for i in rec.info))
    return s, 1


def test_a_rebuilt_rival_record_is_a_fresh_contract_not_the_true_one() -> None:
    """A rival's hidden record fields are those of a fresh contract of the camp as rebuilt
    (its funds, pool and default stances, the internal bonds), whatever the true ones."""
    s, rival = grown_rival()
    true = st.record(s, rival)
    for seed in range(4):
        made = state_from_view(view_for(s, 0), RULES, random.Random(seed))
        got = st.record(made, rival)
        fresh = st.fresh_record(made, rival, campaign(made).data)
        assert (got.level, got.exp, got.merit, got.items, got.info, got.skill_points) == (
            fresh.level, fresh.exp, fresh.merit, fresh.items, fresh.info, fresh.skill_points)
        assert (got.funds, got.stances, got.pool) == (fresh.funds, fresh.stances, fresh.pool)
        assert got.bonds == st.internal_bonds(rival, campaign(s).data.numbers.internal_bond_grade)
        assert (got.level, got.funds, got.bonds, got.stances) != (
            true.level, true.funds, true.bonds, true.stances)


def test_a_rebuilt_rival_has_the_max_hp_and_cards_its_view_shows() -> None:
    """A rival's max HP and cards are public though its growth, items and pool are not
    (spec §4): the rebuilt rival has the figures shown, taken as contract growth over the
    fresh record, and its hand is drawn from the cards shown, not from its sheet's."""
    s, rival = grown_rival()
    per = campaign(s).data.numbers.tiles_per_card
    campaign(s).section(Growth).add_growth(s, rival, (2 * per, 0, 0), (0, 0, 0), {"max_hp": 6})
    cls = CLASSES.index(s.camps[rival].cls)
    s.edit(0).known = tuple(1 if i == cls else k for i, k in enumerate(s.camps[0].known))
    cards = core.composition(s, s.camps[rival])
    assert cards != s.camps[rival].servant.cards
    for seed in range(4):
        made = state_from_view(view_for(s, 0), RULES, random.Random(seed))
        camp = made.camps[rival]
        assert core.max_hp(made, camp) == core.max_hp(s, s.camps[rival])
        assert core.composition(made, camp) == cards
        assert dict(st.record(made, rival).growth)["max_hp"] == 6
        assert all(camp.hand.count(k) <= cards.count(k) for k in CARD_KINDS)
        assert len(camp.hand) == len(s.camps[rival].hand)


def test_a_rivals_tag_is_drawn_unless_the_points_revealed_it() -> None:
    """Hidden, a rival's tag is drawn among those its class may take that the seat does not
    know to be dealt (never its own); revealed by Master points (C1.11), it is the true one,
    with the true Master, and at all three maxima its level and Master MP too."""
    s, rival = grown_rival()
    mine = st.record(s, 0).tag
    tags = campaign(s).section(Tags).tags
    drawn = {st.record(state_from_view(view_for(s, 0), RULES, random.Random(n)), rival).tag
             for n in range(12)}
    assert len(drawn) > 1 and mine not in drawn
    assert drawn <= {t.id for t in tags if not t.classes or s.camps[rival].cls in t.classes}
    top = campaign(s).data.numbers.info_max_master
    st.put_info(s, 0, rival, st.Info(master=(top,) * 3))
    s.edit(rival).master_mp = 33
    for n in range(4):
        made = state_from_view(view_for(s, 0), RULES, random.Random(n))
        assert st.record(made, rival).tag == st.record(s, rival).tag
        assert made.camps[rival].master is s.camps[rival].master
        assert (st.record(made, rival).level, made.camps[rival].master_mp) == (4, 33)
        assert len({c.master.id for c in made.camps}) == len(made.camps)


def test_a_rival_off_its_start_square_is_never_drawn_the_gatekeeper() -> None:
    """⑧ A gatekeeper never leaves its start square (nor disengages), so a rival seen
    elsewhere is not drawn it (a sampled battle would leave it nothing legal to play); at
    home it may be."""
    s, _ = grown_rival()
    n = len(s.camps)

    def drawn() -> set[int]:
        return {x for k in range(30) for x in range(1, n) if st.record(
            state_from_view(view_for(s, 0), RULES, random.Random(k)), x).tag == "gatekeeper"}

    assert drawn()
    home = [campaign(s).section(Tags).start_square(s, x) for x in range(n)]
    for x in range(1, n):
        s.edit(x).pos = home[x % (n - 1) + 1]  # another camp's start square
    assert not drawn()


# --- fairness: the same decisions whatever the rivals' hidden campaign fields ------------------
def campaign_disguise(state: GameState, viewer: int, rng: random.Random) -> GameState:
    """The same position with every rival's hidden campaign fields changed to other plausible
    values: level, experience and points (unless the viewer's points show the level), merit,
    funds, items owned, damage points, bonds (one more toward a third camp), stance names and
    arrangements, the points it holds on the others, its tag and tag counters (unless
    revealed), which relic of its class it took, and the dice."""
    s = state.clone()
    module = campaign(s)
    info, summoning = module.section(Information), module.section(Summoning)
    items = sorted(module.section(Gear).items)
    tags = module.section(Tags).tags
    n = len(s.camps)
    rivals = [x for x in range(n) if x != viewer]
    dealt = {st.record(s, x).tag for x in range(n)}
    for x in rivals:
        rec = st.record(s, x)
        level = info.master_level(st.info_on(s, viewer, x))
        third = [z for z in range(n) if z not in (x, viewer)]
        change = {
            "exp": tuple(rng.randint(0, 9) for _ in METHODS), "merit": (rng.randint(0, 9),) * 2,
            "funds": rng.randint(0, 80), "items": ((rng.choice(items), rng.randint(1, 3)),),
            "dp": (tuple(rng.randint(0, 2) for _ in CARD_KINDS), rec.dp[1]),
            "bonds": (*rec.bonds, *(st.Bond("master", rng.choice(third), "positive",
                                            rng.randint(1, 4)) for _ in third[:1])),
            "stances": tuple(x_._replace(name=f"s{rng.randint(0, 99)}",
                                         order="".join(rng.sample(x_.order, len(x_.order))))
                             for x_ in rec.stances),
            "info": tuple(i._replace(servant=tuple(min(v + 1, info.servant_max(s, z) - 1)
                                                   for v in i.servant)) if z != x else i
                          for z, i in enumerate(rec.info)),
            "skill_points": rng.randint(0, 3), "background_points": rng.randint(0, 3)}
        if level < 3:
            change["level"] = rng.randint(1, 5)
        if level < 1 and rec.tag:
            free = [t.id for t in tags if t.id not in dealt
                    and (not t.classes or s.camps[x].cls in t.classes)]
            if free:
                dealt.add(change.setdefault("tag", rng.choice(free)))
            change.update(jewels=rng.randint(0, 50), revivals=rng.randint(0, 11))
        st.update(s, x, **change)
    relics = list(st.state(s).relics)
    for i, (relic, x) in enumerate(relics):
        cls = summoning.relic_class(summoning.relic_by_id[relic])
        taken = {r for r, _ in relics}
        free = [r.id for r in summoning.relics if summoning.relic_class(r) == cls
                and r.id not in taken]
        if x != viewer and free:
            relics[i] = (rng.choice(free), x)
    st.put(s, relics=tuple(relics))
    s.rng = rng.getrandbits(64)
    return s


def picked(campaign_positions: list[Position]) -> list[Position]:
    found = one_per_prompt(campaign_positions, per_kind=2)
    assert {p.state.prompt.kind for p in found} >= {"relic", "setup", "declare", "main"}
    return found


def test_the_campaign_disguise_changes_hidden_values_only(
        campaign_positions: list[Position]) -> None:
    """The variants differ from the real state in rivals' hidden campaign fields, and the
    viewer's view of them is unchanged (what the fairness test below relies on)."""
    rng = random.Random(5)
    for p in picked(campaign_positions):
        other = campaign_disguise(p.state, p.seat, rng)
        assert view_for(other, p.seat) == view_for(p.state, p.seat), p.state.prompt.kind
        assert [st.record(other, x) for x in range(len(other.camps)) if x != p.seat] != [
            st.record(p.state, x) for x in range(len(other.camps)) if x != p.seat]


def rebuilt_text(state: GameState, seat: int, seed: int) -> str:
    return to_text(state_from_view(view_for(state, seat), RULES, random.Random(seed)))


def assert_campaign_fair(found: list[Position], seed: int) -> None:
    """From each position and from two variants of it whose rivals' hidden campaign fields
    differ (`campaign_disguise`), the rebuilt state (same seed) is the same, and each level
    (the hard bot with a fixed search size) chooses the same action; the hard bot really
    searched most of them, every playout without an error."""
    rng = random.Random(seed)
    searched = 0
    for n, p in enumerate(found):
        variants = [campaign_disguise(p.state, p.seat, rng) for _ in range(2)]
        text = rebuilt_text(p.state, p.seat, n)
        for v in variants:
            kind = p.state.prompt.kind
            assert rebuilt_text(v, p.seat, n) == text, f"rebuilt state differs at {kind}"
        legal = legal_actions(p.state, p.seat)
        for level in LEVELS:
            bot = make_bot(level, n, iterations=24)
            real = bot.choose(view_for(p.state, p.seat), legal)
            if level == "hard":
                searched += bot.last["candidates"] > 1
                assert not bot.last["errors"], bot.last
            for v in variants:
                got = make_bot(level, n, iterations=24).choose(view_for(v, p.seat),
                                                               legal_actions(v, p.seat))
                assert got == real, (level, p.state.prompt.kind, real, got)
    assert searched >= len(found) // 2


def test_campaign_decisions_do_not_depend_on_rivals_hidden_campaign_fields(
        campaign_positions: list[Position]) -> None:
    """No rebuilt state and no level's choice changes when every rival's hidden campaign
    fields change, at positions of every prompt kind of two campaign games."""
    assert_campaign_fair(picked(campaign_positions), 13)


def test_the_fairness_test_catches_a_rivals_funds_leaking_into_the_rebuild(
        campaign_positions: list[Position], monkeypatch: pytest.MonkeyPatch) -> None:
    """Guards the test above: with a planted leak (a rival's funds and merit in every seat's
    view, so the rebuild copies them), the rebuilt states of the variants differ."""
    found = [p for p in picked(campaign_positions) if p.state.prompt.kind == "declare"][:1]
    module = campaign(found[0].state)
    monkeypatch.setattr(module, "public_fields", module.public_fields | {"funds", "merit"})
    with pytest.raises(AssertionError, match="rebuilt state differs at declare"):
        assert_campaign_fair(found, 13)
