"""The normal bot's campaign war habits (issue 13): a war of seven days with the campaign's
healing ended in a draw more often than not, because the bot idled when it should fight."""

from __future__ import annotations

from grailwar.shared.bots.heuristic import FIT, HeuristicBot
from grailwar.shared.bots.modules.campaign import _shop
from grailwar.shared.engine import apply, legal_actions, turns, view_for
from grailwar.shared.engine.actions import (
    Action,
    DeclareAmbush,
    DeclareEncounter,
    DeclareRest,
    Move,
)
from grailwar.shared.engine.state import GameState
from grailwar.shared.modules.campaign import state as st
from helpers import game, place

FIGHTS = (DeclareEncounter, DeclareAmbush)


def war(campaign: bool, day: int = 1, night: bool = False, apart: bool = False,
        hp: float = 1.0) -> GameState:
    """Saber (seat 0, at `hp` of its HP) and a hurt Lancer (seat 1) on one square, or far
    apart; the Lancer is the weaker by public HP, so the Saber's rule for prey picks it."""
    s = game(("saber", "lancer"), modules=["campaign"] if campaign else [])
    place(s, 0, 0)
    place(s, 1, 48 if apart else 0)
    s.edit(0).hp = int(s.camps[0].hp * hp)
    s.edit(1).hp = s.camps[1].hp // 4
    s.day, s.turn = day, 2 if night else 0
    return s


def declaration(s: GameState, seed: int = 1) -> Action:
    """The bot's declaration, after the free campaign actions (bonds, merit) it takes first."""
    bot = HeuristicBot(seed)
    for _ in range(40):
        action = bot.choose(view_for(s, 0), legal_actions(s, 0))
        if turns.declaration_kind(action) is not None:
            return action
        s, _ = apply(s, action)
    raise AssertionError("no declaration in 40 actions")


def test_at_night_the_campaign_bot_fights_before_it_rests():
    """Unrested at night with weaker prey on its square: the base bot rests (its rule), the
    campaign bot fights."""
    base = [declaration(war(False, night=True), x) for x in range(10)]
    camp = [declaration(war(True, night=True), x) for x in range(10)]
    assert all(isinstance(a, DeclareRest) for a in base)
    assert all(isinstance(a, FIGHTS) for a in camp)


def test_a_campaign_camp_too_hurt_to_fight_rests_instead_of_idling():
    """Between half and FIT of its HP, with nobody in reach, the base bot idles (it rests
    only below half); the campaign bot rests, so it is fit to fight sooner."""
    for seed in range(6):
        assert not isinstance(declaration(war(False, apart=True, hp=FIT - 0.05), seed),
                              DeclareRest)
        assert isinstance(declaration(war(True, apart=True, hp=FIT - 0.05), seed), DeclareRest)


def test_on_the_last_days_the_campaign_bot_lets_no_fight_pass():
    """From day_limit - 2 any rival will do; the base bot still skips one fight in five, the
    campaign bot none (a draw wins nobody the Grail; it skips none on other days either, see
    the night test)."""
    late = war(True).settings.day_limit
    base = [isinstance(declaration(war(False, day=late), x), FIGHTS) for x in range(20)]
    camp = [isinstance(declaration(war(True, day=late), x), FIGHTS) for x in range(20)]
    assert not all(base) and all(camp)


def test_the_walk_to_a_shop_waits_while_a_fight_is_on_offer():
    """With funds and nothing worn the bot walks to a shop, unless a rival is in reach: the
    walk would spend the reach the battle needs."""
    def shop_step(s: GameState):
        st.update(s, 0, funds=20, worn=())
        view = view_for(s, 0)
        return _shop(view, view["camps"][0], legal_actions(s, 0),
                     lambda a, b: HeuristicBot(1).distance(view, a, b))
    assert isinstance(shop_step(war(True, apart=True)), Move)
    assert shop_step(war(True)) is None


def three(campaign: bool, hp: dict[int, int]) -> GameState:
    """Saber, Caster (max 185) and Berserker (max 150) on one square, at the HP given."""
    s = game(("saber", "caster", "berserker"), modules=["campaign"] if campaign else [])
    for seat in range(3):
        place(s, seat, 0)
    for seat, value in hp.items():
        s.edit(seat).hp = value
    return s


def targets(campaign: bool, hp: dict[int, int]) -> set[int]:
    found = [declaration(three(campaign, hp), x) for x in range(10)]
    return {a.target for a in found if isinstance(a, FIGHTS)}


def test_the_campaign_bot_picks_the_most_hurt_rival_by_share_of_hp():
    """Caster 125/185 (68%) and Berserker 120/150 (80%): the base bot goes for the least HP
    (the Berserker), the campaign bot for the most hurt (the Caster)."""
    assert targets(False, {1: 125, 2: 120}) == {2}
    assert targets(True, {1: 125, 2: 120}) == {1}


def test_a_rival_more_hurt_than_itself_is_campaign_prey_even_with_more_hp():
    """Saber at 105/165 (64%), Caster at 116/185 (63%), Berserker whole: the Caster has more
    HP than 1.1 x the Saber's and more than half its own, so the base bot lets it be; in the
    campaign it is more hurt than the Saber, so it is prey."""
    assert targets(False, {0: 105, 1: 116}) == set()
    assert targets(True, {0: 105, 1: 116}) == {1}
