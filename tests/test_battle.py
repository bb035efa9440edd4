"""Battle rules (seed 000 §Combat; docs/rules.md §5): initiative, checks, criticals and fumbles,
cards, damage, range, reactions, Noble Phantasms and clashes, disengage, flee, intervention and
the end of a battle.

Every test forces the dice it needs (`act_all` checks that the action used them all) and
computes what it expects from the data and rules.toml, so a retuned number does not break it.
The attacker's hit check (and its fumble mishap) is rolled with the Attack / UseNoblePhantasm
(`strike`, `attack`, `fire`); the React rolls the defense (none for Guard), its mishap, then the
damage only on a hit.
Most tests use `bare()` rules (no skills anywhere) so only the rule under test acts; Saber
(seat 0) against Caster (seat 1) unless said otherwise, Saber being the faster.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from grailwar.shared.engine import default_action, legal_actions, view_event, view_for
from grailwar.shared.engine.actions import (
    AnswerAmbush,
    AnswerIntervention,
    Attack,
    ChooseReward,
    DeclareAmbush,
    DeclareDisengage,
    DeclareEncounter,
    DeclareNoblePhantasm,
    DeclareRest,
    DeclareWait,
    Move,
    OfferTruce,
    React,
    Ready,
    UseCommandSpell,
    UseNoblePhantasm,
    UseSkill,
    Wait,
)
from grailwar.shared.engine.data import NO_EFFECT, Effect, Skill, Text
from grailwar.shared.engine.geometry import distance
from grailwar.shared.engine.state import ActiveBuff, GameState
from helpers import (
    act_all,
    bare,
    duel,
    faces,
    fight,
    find,
    game,
    only,
    place,
    ready_all,
    rolls,
    to_main,
    tweak,
    wait_round,
)

R = bare()
N = R.numbers
STAT = {"B": "str", "A": "end", "Q": "agi", "L": "luk"}
COUNTER = {"B": "Q", "A": "B", "Q": "A"}
PAIR = ("saber", "caster")
SQUARE = 10  # duel() square: x = 3, y = 1 on the 7 x 6 map


# --- local helpers -------------------------------------------------------------------------------
def param(s: GameState, seat: int, key: str) -> int:
    return s.camps[seat].servant.params[key]


def check_mod(s: GameState, seat: int, kind: str) -> int:
    """Stat bonus of a 2d6 check made with card kind B/A/Q or L (Luck)."""
    return param(s, seat, STAT[kind]) // (20 if kind == "L" else 10)


def dmg(total: int, count: int | None = None) -> list[int]:
    """Faces for the damage dice (rules.toml damage_dice) summing to `total`."""
    count = count or N.damage_dice.count
    out = [total // count] * count
    out[0] += total - sum(out)
    return out


def np_dice(total: int) -> list[int]:
    return dmg(total, N.np_damage_dice.count)


def base_damage(s: GameState, seat: int, kind: str, roll: int, distance: int = 0) -> int:
    """Normal damage before the defender's reductions, without the Buster pool."""
    return (roll + param(s, seat, STAT[kind]) // N.damage_stat_divisor + N.card_power[kind]
            - N.ranged_penalty * distance)


def np_base(s: GameState, seat: int, roll: int) -> int:
    """NP damage without the Buster pool and the range penalty."""
    np = s.camps[seat].servant.np
    return (roll + np.power + param(s, seat, "np") // N.np_damage_divisor
            + (N.np_buster_power if np.card == "B" else 0))


def hp_lost(before: GameState, after: GameState, seat: int) -> int:
    return before.camps[seat].hp - after.camps[seat].hp


def city(s: GameState):
    return s.rules.maps[s.settings.map_id]


def square_at(s: GameState, origin: int, k: int, avoid: tuple[int, ...] = ()) -> int:
    """Some square exactly k steps from `origin` (same row first)."""
    grid = city(s)
    x, y = origin % grid.width, origin // grid.width
    if x + k < grid.width:
        return grid.index(x + k, y)
    return next(q for q in range(len(grid.squares))
                if distance(grid, origin, q) == k and q not in avoid)


def opening(classes=("saber", "caster"), rules=None, dice=()) -> GameState:
    """fight(), checking that seat 0 has the first activation (by Agility)."""
    s = fight(classes, rules or R, dice)
    assert s.prompt.seats == {0}, f"seat 0 should be faster: order {s.battle.order}"
    return s


def strike(s: GameState, kind: str, card: str | None = None, target: int = 1, seat: int = 0,
           hit: int = 7, extra: tuple[int, ...] | list[int] = ()) -> tuple[GameState, list]:
    """`seat` attacks `target`. The hit check is rolled with the Attack itself: its natural
    is `hit`, and `extra` dice follow it (a fumble's mishap). Returns the Attack's events."""
    return act_all(s, Attack(seat, target, kind, kind if card is None else card),
                   [*faces(hit), *extra])


def attack(s: GameState, kind: str, card: str | None = None, target: int = 1, seat: int = 0,
           hit: int = 7, extra: tuple[int, ...] | list[int] = ()) -> GameState:
    """`strike`, then the defender is asked for its reaction (no critical came in between)."""
    s, _ = strike(s, kind, card, target, seat, hit, extra)
    assert s.prompt == ("reaction", {target}), s.prompt
    return s


def fire(s: GameState, target: int = 1, seat: int = 0, hit: int = 7) -> tuple[GameState, list]:
    """`seat` fires its attack Noble Phantasm; its hit check (natural `hit`) is rolled at once."""
    return act_all(s, UseNoblePhantasm(seat, target), faces(hit))


def reward(s: GameState, seat: int, choice: str = "card:A") -> GameState:
    """`seat` is asked for its critical reward and takes `choice` (a card: no dice)."""
    assert s.prompt == ("critical", {seat}), s.prompt
    s, _ = act_all(s, ChooseReward(seat, choice))
    return s


def t(name: str) -> Text:
    return Text(name, name, name)


def skill(sid: str, timing: str, *, check: int | None = None, duration: int = 1, mp: int = 0,
          trigger: str | None = None, target: str = "self", effect: Effect | None = None,
          **mods: int) -> Skill:
    return Skill(sid, t(sid), t(sid), "servant", timing, mp, check, duration, target, False,
                 trigger, effect or Effect(tuple(sorted(mods.items()))))


def with_skills(rules, cls: str, *skills: Skill):
    rules = replace(rules, skills={**rules.skills, **{k.id: k for k in skills}})
    return tweak(rules, cls, skills=tuple(k.id for k in skills))


# Saber's Noble Phantasm pinned down, so retuned data cannot change what a test means.
SABER_NP = dict(kind="attack", card="B", cards=2, charge=0, range=0, mp=70,
                self_effect=NO_EFFECT, target_effect=NO_EFFECT)
RNP = tweak(R, "saber", np=SABER_NP)


# --- initiative (§5.4) ---------------------------------------------------------------------------
@pytest.mark.parametrize("classes", [("saber", "caster"), ("caster", "saber"),
                                     ("archer", "berserker"), ("berserker", "archer")])
def test_initiative_follows_agility(classes):
    """Round 1 order is Agility descending, whatever the seats."""
    s = fight(classes)
    agi = [param(s, x, "agi") for x in (0, 1)]
    assert agi[0] != agi[1]
    assert s.battle.order == tuple(sorted((0, 1), key=lambda x: -agi[x]))


def test_initiative_tie_goes_to_higher_luck():
    """Equal Agility: the higher Luck acts first, with no roll-off."""
    sab = R.servants["saber"].params
    rules = tweak(R, "caster", params={"agi": sab["agi"], "luk": sab["luk"] + 10})
    s = duel(PAIR, rules=rules)
    s, events = act_all(s, Ready(0))
    s, events = act_all(s, Ready(1))
    assert s.battle.order == (1, 0)
    assert not rolls(events, "initiative")


@pytest.mark.parametrize(("dice", "order"), [([2, 5], (1, 0)), ([5, 2], (0, 1))])
def test_initiative_full_tie_rolls_off_1d6(dice, order):
    """Equal Agility and Luck: each rolls 1d6 and the higher goes first."""
    sab = R.servants["saber"].params
    rules = tweak(R, "caster", params={"agi": sab["agi"], "luk": sab["luk"]})
    s, _ = act_all(duel(PAIR, rules=rules), Ready(0))
    s, events = act_all(s, Ready(1), dice)
    assert s.battle.order == order
    assert [r["faces"] for r in rolls(events, "initiative")] == [[d] for d in dice]


def test_initiative_roll_off_rerolls_ties():
    """A tied 1d6 roll-off is rolled again among the tied."""
    sab = R.servants["saber"].params
    rules = tweak(R, "caster", params={"agi": sab["agi"], "luk": sab["luk"]})
    s, _ = act_all(duel(PAIR, rules=rules), Ready(0))
    s, events = act_all(s, Ready(1), [4, 4, 1, 3])
    assert s.battle.order == (1, 0)
    assert len(rolls(events, "initiative")) == 4


def test_initiative_is_recalculated_every_round_with_buffs():
    """Agility Up taken at a round start reorders that round only."""
    s = opening()
    s = wait_round(s)
    assert s.prompt.kind == "round_start"
    s, _ = act_all(s, UseCommandSpell(1, "agility_up"))
    s = ready_all(s)
    assert s.battle.order == (1, 0)
    s = ready_all(wait_round(s))
    assert s.battle.order == (0, 1)


# --- ambush and flee (§4.6) ----------------------------------------------------------------------
def ambush(classes, rules=R, gap: int = 1, flee: bool = False, dice=()) -> GameState:
    """Seat 0 ambushes seat 1, `gap` squares away; the target answers flee or fight."""
    s = game(classes, rules=rules)
    place(s, 0, SQUARE)
    place(s, 1, square_at(s, SQUARE, gap))
    s, _ = act_all(s, DeclareAmbush(0, 1))
    assert s.prompt.kind == "ambush"
    s, _ = act_all(s, AnswerAmbush(1, flee), dice)
    assert s.prompt.kind == "round_start"
    return s


def test_ambusher_acts_first_in_round_one_only():
    """The ambusher leads round 1 whatever its Agility; round 2 is by Agility again."""
    s = ambush(("saber", "archer"))
    assert param(s, 1, "agi") > param(s, 0, "agi")
    s = ready_all(s)
    assert s.battle.order == (0, 1)
    s = ready_all(wait_round(s))
    assert s.battle.order == (1, 0)


def test_a_hit_check_at_range_says_where_its_modifier_came_from():
    """A hit check whose modifier has more than one part (issue 32: Saber's 2D6−1 at range,
    unexplained) carries them: the card's stat, the range's penalty; one at melee, none."""
    s = opening()
    _, events = strike(s, "B", hit=11)
    assert "parts" not in rolls(events, "hit")[0]
    s, _ = act_all(s, Move(0, square_at(s, SQUARE, 2)))
    _, events = strike(s, "B", hit=11)
    roll = rolls(events, "hit")[0]
    assert roll["parts"] == [["stat:str", check_mod(s, 0, "B")], ["range", -2 * N.ranged_penalty]]
    assert sum(v for _, v in roll["parts"]) == roll["mod"]


def test_first_strike_of_the_target_cancels_ambush_priority():
    """A target with a first_strike mod keeps the normal Agility order in round 1."""
    rules = with_skills(R, "archer", skill("t_first", "constant", first_strike=1))
    s = ready_all(ambush(("saber", "archer"), rules))
    assert s.battle.order == (1, 0)


def test_flee_reactions_take_minus_10_then_leave_at_own_round_1_activation():
    """A fleeing target reacts at -10 until its round-1 activation, where it leaves."""
    s = ready_all(ambush(("saber", "archer"), gap=1, flee=True))
    s, events = strike(s, "B")
    assert rolls(events, "hit")[0]["mod"] == check_mod(s, 0, "B") - N.ranged_penalty
    s, events = act_all(s, React(1, "Q", "Q"), [*faces(7), *dmg(10)])
    assert rolls(events, "defense")[0]["mod"] == check_mod(s, 1, "Q") + N.flee_reaction
    left = find(events, "LeftBattle")
    assert [(e.data["seat"], e.data["how"]) for e in left] == [(1, "fled")]
    assert s.battle is None
    assert find(events, "BattleEnded")


def test_flee_guard_is_not_penalised():
    """Guard has no check: a fleeing target's Guard reduces damage as usual."""
    s = ready_all(ambush(("saber", "archer"), gap=1, flee=True))
    s = attack(s, "B")
    after, events = act_all(s, React(1, "G", ""), dmg(10))
    expected = (base_damage(s, 0, "B", 10, 1) + N.buster_bonus
                - param(s, 1, "end") // N.guard_divisor)
    assert hp_lost(s, after, 1) == expected
    assert not rolls(events, "defense")


def test_flee_choice_timeout_is_fight():
    """The ambushed camp's timeout answer is fight, not flee."""
    s = game(("saber", "archer"), rules=R)
    place(s, 0, SQUARE)
    place(s, 1, SQUARE + 1)
    s, _ = act_all(s, DeclareAmbush(0, 1))
    assert default_action(s, 1) == AnswerAmbush(1, False)


# --- checks (§5.9) -------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", "BAQ")
def test_hit_and_defense_checks_add_stat_over_10(kind):
    """Hit check 2d6 + STAT//10 of the attack card; the counter defense 2d6 + its STAT//10."""
    s, events = strike(opening(), kind)
    assert rolls(events, "hit")[0]["mod"] == check_mod(s, 0, kind)
    defense = COUNTER[kind]
    _, events = act_all(s, React(1, defense, defense), [*faces(5), *dmg(10)])
    assert rolls(events, "defense")[0]["mod"] == check_mod(s, 1, defense)


def test_luck_checks_add_luck_over_20():
    """A Luck attack and a Luck defense add LUK//20."""
    s, events = strike(opening(), "L", "")
    assert rolls(events, "hit")[0]["mod"] == param(s, 0, "luk") // 20
    _, events = act_all(s, React(1, "L", ""), [*faces(5), *dmg(10)])
    assert rolls(events, "defense")[0]["mod"] == param(s, 1, "luk") // 20


@pytest.mark.parametrize(("margin", "hit"), [(1, True), (0, False), (-1, False)])
def test_hit_must_exceed_defense_ties_go_to_defender(margin, hit):
    """The attack hits only when its total exceeds the defense total."""
    a_nat = 7
    s = attack(opening(), "B", hit=a_nat)
    d_nat = a_nat + check_mod(s, 0, "B") - check_mod(s, 1, "Q") - margin
    assert 3 <= d_nat <= 11
    dice = faces(d_nat) + (dmg(10) if hit else [])  # damage dice only on a hit
    after, events = act_all(s, React(1, "Q", "Q"), dice)
    assert find(events, "AttackResolved")[0].data["hit"] is hit
    assert (hp_lost(s, after, 1) > 0) is hit


def test_attack_hit_roll_is_shown_before_the_reaction_is_chosen():
    """The attacker rolls its hit check with the Attack; the target sees it, then reacts (§5.8):
    the React rolls the defense check only, then the damage on a hit."""
    after, events = strike(opening(), "B", hit=8)
    assert after.prompt == ("reaction", {1})
    assert [(r["seat"], r["faces"]) for r in rolls(events, "hit")] == [(0, faces(8))]
    assert not rolls(events, "defense") and not rolls(events, "damage")
    assert not find(events, "AttackResolved")
    _, events = act_all(after, React(1, "Q", "Q"), [*faces(3), *dmg(10)])
    assert not rolls(events, "hit")
    assert [(r["seat"], r["faces"]) for r in rolls(events, "defense")] == [(1, faces(3))]
    assert [r["faces"] for r in rolls(events, "damage")] == [dmg(10)]


@pytest.mark.parametrize(("natural", "critical", "fumble"),
                         [(8, False, False), (12, True, False), (2, False, True)])
def test_pending_attack_shows_the_hit_roll_before_the_reaction(natural, critical, fumble):
    """At the reaction prompt the battle view shows the rolled hit check (natural, total,
    critical, fumble) to the defender, the attacker and spectators alike."""
    s, _ = strike(opening(), "B", hit=natural, extra=[2, 1] if fumble else [])
    if critical:
        s = reward(s, 0)
    assert s.prompt == ("reaction", {1})
    total = natural + check_mod(s, 0, "B")
    for viewer in (1, 0, None):
        pending = view_for(s, viewer)["battle"]["pending"]
        assert (pending["attacker"], pending["target"], pending["kind"]) == (0, 1, "B")
        assert (pending["natural"], pending["total"], pending["critical"],
                pending["fumble"]) == (natural, total, critical, fumble)


# --- criticals and fumbles (§5.11) ---------------------------------------------------------------
# The Caster defends at +15 (Saber stays the faster).
SHIELD = tweak(tweak(R, "caster", params={"agi": 150, "end": 150, "str": 150}), "saber",
               params={"agi": 160})


def test_natural_12_wins_the_check_whatever_the_totals():
    """A natural 12 hit beats a higher defense total (and earns a reward, taken first)."""
    s = opening(rules=SHIELD)
    d = faces(10)
    assert 12 + check_mod(s, 0, "B") < 10 + check_mod(s, 1, "Q")
    crit, _ = strike(s, "B", hit=12)
    _, events = act_all(reward(crit, 0), React(1, "Q", "Q"), [*d, *dmg(10)])
    assert find(events, "AttackResolved")[0].data["hit"]
    plain = attack(s, "B", hit=11)
    _, events = act_all(plain, React(1, "Q", "Q"), d)
    assert not find(events, "AttackResolved")[0].data["hit"]


def test_attacker_critical_reward_comes_before_the_reaction():
    """An attacker's critical hit check queues its reward prompt ahead of the reaction prompt;
    the attack is resolved only after the defender then reacts."""
    s, events = strike(opening(), "B", hit=12)
    assert rolls(events, "hit")[0]["result"] == "critical"
    assert s.prompt == ("critical", {0}) and s.battle.pending.critical
    assert not find(events, "AttackResolved") and not only(s, 1, React)
    hand = s.camps[0].hand
    s = reward(s, 0, "card:Q")
    assert s.camps[0].hand.count("Q") == hand.count("Q") + 1
    assert s.prompt == ("reaction", {1})
    after, events = act_all(s, React(1, "G", ""), dmg(10))
    assert find(events, "AttackResolved")[0].data["hit"]
    assert after.prompt.kind != "critical"  # the reward is not given a second time


def test_defender_natural_12_beats_a_higher_hit_total():
    """A natural 12 defense wins against a higher hit total, and the defender is rewarded."""
    s = attack(opening(), "B", hit=11)
    assert 11 + check_mod(s, 0, "B") > 12 + check_mod(s, 1, "Q")
    after, events = act_all(s, React(1, "Q", "Q"), [6, 6])
    assert not find(events, "AttackResolved")[0].data["hit"]
    assert after.prompt == ("critical", {1})


@pytest.mark.parametrize(("kind", "critical"), [("Q", True), ("B", False)])
def test_quick_card_widens_its_own_check_critical_range(kind, critical):
    """A spent Quick card makes a natural 11 critical on the check it pays for."""
    after, events = strike(opening(), kind, hit=11)
    assert (rolls(events, "hit")[0]["result"] == "critical") is critical
    assert after.prompt == (("critical", {0}) if critical else ("reaction", {1}))


def test_quick_stored_by_a_guard_is_used_by_the_next_check():
    """A Quick card spent on a Guard (no check) widens the spender's next 2d6 check."""
    s = attack(opening(), "L", "")
    for card, result in (("Q", "critical"), ("", "")):  # a Guard with no card stores nothing
        after, _ = act_all(s, React(1, "G", card), dmg(10))
        assert after.prompt == ("main", {1})
        _, events = strike(after, "B", seat=1, target=0, hit=11)
        assert rolls(events, "hit")[0]["result"] == result


def test_quick_widening_from_cards_is_capped():
    """Stored Quick widening stops at quick_crit_cap: with four Quick spends only the cap counts."""
    s = fight(("saber", "assassin"))  # the Assassin acts first and banks Quick on Guards
    assert s.prompt.seats == {1}
    cap = N.quick_crit_cap
    for _ in range(cap):
        s = to_main(s, 0)
        s = attack(s, "L", "")
        s, _ = act_all(s, React(1, "G", "Q"), dmg(2))
    s = to_main(s, 1)
    assert "Q" in s.camps[1].hand
    _, events = strike(s, "Q", seat=1, target=0, hit=12 - cap)
    assert rolls(events, "hit")[0]["result"] == "critical"
    _, events = strike(s, "Q", seat=1, target=0, hit=11 - cap)
    assert rolls(events, "hit")[0]["result"] == ""


def test_natural_2_fumbles_even_with_a_critical_range_down_to_2():
    """With Star Eye (+10 widening) a natural 2 is still a fumble, and the attack misses."""
    s = opening()
    s, _ = act_all(s, UseCommandSpell(0, "star_eye"))
    # the mishap (1d3 = 1: 1d2 = 1: HP, then 1d10 = 4 damage) is rolled at once, with the attack
    fumbled, events = strike(s, "B", hit=2, extra=[1, 1, 4])
    assert rolls(events, "hit")[0]["result"] == "fumble"
    assert fumbled.prompt == ("reaction", {1}) and hp_lost(s, fumbled, 0) == 4
    after, events = act_all(fumbled, React(1, "Q", "Q"), faces(3))
    assert not find(events, "AttackResolved")[0].data["hit"]
    assert hp_lost(s, after, 0) == 4 and hp_lost(s, after, 1) == 0
    assert after.prompt.kind != "critical"


def test_defender_fumble_loses_whatever_the_totals():
    """A defender's natural 2 loses the check even with the higher total."""
    s = attack(opening(rules=SHIELD), "B", hit=3)
    assert 3 + check_mod(s, 0, "B") < 2 + check_mod(s, 1, "Q")
    # the defender's mishap (1d3 = 1: to HP, 4 damage) comes before the damage dice
    _, events = act_all(s, React(1, "Q", "Q"), [1, 1, 1, 1, 4, *dmg(10)])
    assert find(events, "AttackResolved")[0].data["hit"]
    assert [e.data["seat"] for e in find(events, "FumblePenalty")] == [1]


@pytest.mark.parametrize(("extra", "hit"), [(1, True), (0, False)])
def test_two_criticals_compare_totals_ties_to_defender(extra, hit):
    """Critical against critical: the higher total wins; a tie goes to the defender."""
    sab = R.servants["saber"].params
    # the Caster's Quick defense bonus equals Saber's Buster hit bonus minus `extra`
    rules = tweak(tweak(R, "caster", params={"agi": (sab["str"] // 10 - extra) * 10}), "saber",
                  params={"agi": 100})
    s, _ = strike(opening(rules=rules), "B", hit=12)
    s = reward(s, 0)  # both are rewarded: the attacker before the reaction
    after, events = act_all(s, React(1, "Q", "Q"), [6, 6] + (dmg(10) if hit else []))
    assert find(events, "AttackResolved")[0].data["hit"] is hit
    after = reward(after, 1)  # the defender after it
    assert after.prompt.kind != "critical"


def test_two_fumbles_compare_totals():
    """Fumble against fumble: the higher total wins; both roll their mishaps, each at its own
    check (the attacker's with the Attack, the defender's with the React)."""
    # each fumble: 1d3 = 2 (lose a card), card 1
    s, events = strike(opening(), "B", hit=2, extra=[2, 1])
    assert check_mod(s, 0, "B") > check_mod(s, 1, "Q")
    assert [e.data["seat"] for e in find(events, "FumblePenalty")] == [0]
    _, events = act_all(s, React(1, "Q", "Q"), [1, 1, 2, 1, *dmg(10)])
    assert find(events, "AttackResolved")[0].data["hit"]
    assert [e.data["seat"] for e in find(events, "FumblePenalty")] == [1]


# --- critical rewards (§5.11) --------------------------------------------------------------------
def critical(s: GameState | None = None) -> GameState:
    """Saber rolls a natural 12 on a no-card Luck attack: its reward prompt (before the
    Caster's reaction)."""
    s, _ = strike(s or opening(), "L", "", hit=12)
    assert s.prompt == ("critical", {0})
    return s


def guarded(s: GameState, roll: int = 2) -> GameState:
    """The Caster, at its reaction prompt, Guards with no card; the damage roll is `roll`."""
    assert s.prompt == ("reaction", {1}), s.prompt
    s, _ = act_all(s, React(1, "G", ""), dmg(roll))
    return s


def test_critical_reward_choices():
    """The reward is 1d10 HP, 1d10 MP, one card of any kind, or one listed buff."""
    s = critical()
    offered = {a.reward for a in only(s, 0, ChooseReward)}
    assert offered == {"hp", "mp", "card:B", "card:A", "card:Q",
                       *("buff:" + b.id for b in R.buffs)}
    assert all(b.mp <= 30 and b.duration == 1 for b in R.buffs)


@pytest.mark.parametrize(("pool", "missing", "roll", "gain"),
                         [("hp", 15, 7, 7), ("hp", 3, 7, 3), ("mp", 15, 7, 7), ("mp", 3, 9, 3)])
def test_critical_reward_recovers_1d10_capped(pool, missing, roll, gain):
    """The HP / MP reward recovers 1d10, never beyond the maximum."""
    s = critical()
    camp = s.edit(0)
    setattr(camp, pool, getattr(camp.servant, pool) - missing)
    after, _ = act_all(s, ChooseReward(0, pool), [roll])
    assert getattr(after.camps[0], pool) - getattr(s.camps[0], pool) == gain


def test_critical_reward_card_may_exceed_composition_until_refill():
    """A rewarded card is added beyond the composition and is gone at the next refill."""
    s = critical()
    s, _ = act_all(s, ChooseReward(0, "card:B"))
    s = guarded(s)
    comp = s.camps[0].servant.cards
    assert len(s.camps[0].hand) == len(comp) + 1
    assert s.camps[0].hand.count("B") == comp.count("B") + 1
    while s.battle.round <= N.hand_refill_every:
        s = wait_round(s)
    assert s.camps[0].hand == comp


def test_critical_reward_buff_is_free_and_lasts_the_round():
    """A rewarded buff costs no MP and ends with the round."""
    buff = R.buffs[0]
    s = critical()
    after, _ = act_all(s, ChooseReward(0, "buff:" + buff.id))
    camp = after.camps[0]
    assert camp.mp == s.camps[0].mp
    for key, value in buff.effect.mods:
        assert camp.mod(key) == value
    after = wait_round(guarded(after))
    assert not after.camps[0].buffs


def test_critical_reward_timeout_recovers_hp():
    """The timeout choice of a critical reward is HP."""
    s = critical()
    assert default_action(s, 0) == ChooseReward(0, "hp")


# --- fumble mishaps (§5.11) ----------------------------------------------------------------------
def fumbling(mishap: list[int], hand: str | None = None):
    """Saber rolls a natural 2 on a no-card Luck attack; the `mishap` dice follow at once, with
    the Attack. The Caster then Guards: no damage is rolled. Returns the state before the
    attack, the state after the reaction and the Attack's events."""
    s = opening()
    if hand is not None:
        s.edit(0).hand = hand
    fumbled, events = strike(s, "L", "", hit=2, extra=mishap)
    assert rolls(events, "hit")[0]["result"] == "fumble"
    assert fumbled.prompt == ("reaction", {1})
    after, reacted = act_all(fumbled, React(1, "G", ""))
    assert not find(reacted, "AttackResolved")[0].data["hit"]
    assert not rolls(reacted, "damage") and not find(reacted, "FumblePenalty")
    return s, after, events


@pytest.mark.parametrize(("pool", "side"), [("hp", 1), ("mp", 2)])
def test_fumble_1_deals_1d10_to_hp_or_mp(pool, side):
    """Mishap 1: 1d2 picks the pool (1 HP, 2 MP), then 1d10 damage to it."""
    s, after, _ = fumbling([1, side, 6])
    other = "mp" if pool == "hp" else "hp"
    assert getattr(s.camps[0], pool) - getattr(after.camps[0], pool) == 6
    assert getattr(s.camps[0], other) == getattr(after.camps[0], other)


@pytest.mark.parametrize("position", [1, 2, 3, 4])
def test_fumble_2_loses_the_card_at_1d_hand_position(position):
    """Mishap 2: the card at 1d[hand size] of the B, A, Q sorted hand is lost."""
    s, after, events = fumbling([2, position])
    hand = s.camps[0].hand
    assert hand == "".join(sorted(hand, key="BAQ".index))
    assert after.camps[0].hand == hand[:position - 1] + hand[position:]
    penalty = find(events, "FumblePenalty")[0]
    assert penalty.data["card"] == hand[position - 1]
    # the hand is hidden: the other camp sees a card lost, neither which nor the die's face
    assert view_event(penalty, 1) == {"type": "FumblePenalty", "seat": 0, "penalty": "card"}
    die = next(e for e in events if e.type == "DiceRolled" and e.data["purpose"] == "fumble_card")
    seen = view_event(die, 1)
    assert seen["faces"] == [] and seen["total"] is None


def test_fumble_2_with_an_empty_hand_loses_nothing():
    """Mishap 2 with no cards: nothing is lost and no die is rolled."""
    _, after, events = fumbling([2], hand="")
    assert after.camps[0].hand == ""
    assert not find(events, "FumblePenalty")


@pytest.mark.parametrize("roll", [1, 7, 20])
def test_fumble_3_gives_the_1d20_debuff_for_its_duration(roll):
    """Mishap 3: the 1d20-th debuff of the table, for the duration it gives."""
    _, after, _ = fumbling([3, roll])
    debuff = R.debuffs[roll - 1]
    [buff] = after.camps[0].buffs
    assert (buff.source, buff.rounds, buff.debuff) == ("debuff:" + debuff.id, debuff.duration,
                                                       True)


# --- cards (§5.12) -------------------------------------------------------------------------------
def test_arts_card_gives_3_mp_at_once():
    """Spending an Arts card, to attack or to defend, gives +3 MP at once."""
    s = opening()
    s.edit(0).mp -= 10
    s.edit(1).mp -= 10
    after = attack(s, "A")
    assert after.camps[0].mp - s.camps[0].mp == N.arts_mp
    s = attack(s, "Q", hit=3)
    after, _ = act_all(s, React(1, "A", "A"), faces(11))
    assert after.camps[1].mp - s.camps[1].mp == N.arts_mp


def test_buster_pool_is_capped_at_15():
    """Buster bonuses stack to buster_cap: a fourth Buster spend adds nothing more."""
    s = fight(("berserker", "caster"))
    assert s.prompt.seats == {0}
    spends = N.buster_cap // N.buster_bonus
    for _ in range(spends):  # the Caster's Arts attacks, parried with Buster cards
        s = to_main(s, 1)
        s = attack(s, "A", seat=1, target=0, hit=3)
        s, _ = act_all(s, React(0, "B", "B"), faces(11))  # the Caster misses
    assert s.camps[0].buster == N.buster_cap
    s = to_main(s, 0)
    s = attack(s, "B", hit=11)
    after, _ = act_all(s, React(1, "G", ""), dmg(10))
    expected = (base_damage(s, 0, "B", 10) + N.buster_cap
                - param(s, 1, "end") // N.guard_divisor)
    assert hp_lost(s, after, 1) == expected


def test_buster_pool_is_kept_when_the_attack_misses():
    """The stored Buster bonus is used up by the next attack that hits, not by a miss."""
    s = attack(opening(), "B", hit=3)
    s, events = act_all(s, React(1, "Q", "Q"), faces(10))
    assert not find(events, "AttackResolved")[0].data["hit"]
    assert s.prompt == ("main", {1}) and s.camps[0].buster == N.buster_bonus
    s = to_main(s, 0)
    s = attack(s, "A", hit=11)
    after, _ = act_all(s, React(1, "G", ""), dmg(10))
    guard = param(s, 1, "end") // N.guard_divisor
    assert hp_lost(s, after, 1) == base_damage(s, 0, "A", 10) + N.buster_bonus - guard
    # the hit used it up: the next attack has no pool
    s = attack(to_main(after, 0), "Q", hit=10)
    after, _ = act_all(s, React(1, "G", ""), dmg(10))
    assert hp_lost(s, after, 1) == base_damage(s, 0, "Q", 10) - guard


def test_buster_card_spent_on_a_guard_powers_the_next_attack():
    """A Buster card spent on a Guard stores +5 for the spender's next attack."""
    s = attack(opening(), "L", "")
    s, _ = act_all(s, React(1, "G", "B"), dmg(10))
    s = attack(s, "Q", seat=1, target=0)
    after, _ = act_all(s, React(0, "G", ""), dmg(10))
    expected = (base_damage(s, 1, "Q", 10) + N.buster_bonus
                - param(s, 0, "end") // N.guard_divisor)
    assert hp_lost(s, after, 0) == expected


# --- damage (§5.13) ------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", "BAQL")
def test_normal_damage_formula(kind):
    """Damage = damage dice + STAT//2 + card power + Buster pool (the paying Buster card)."""
    s = attack(opening(), kind, "" if kind == "L" else None, hit=10)
    after, events = act_all(s, React(1, "L", ""), [*faces(3), *dmg(9)])
    assert find(events, "AttackResolved")[0].data == {"seat": 0, "target": 1, "hit": True,
                                                      "halved": False}
    expected = base_damage(s, 0, kind, 9) + (N.buster_bonus if kind == "B" else 0)
    assert hp_lost(s, after, 1) == expected
    assert find(events, "DamageDealt")[0].data["amount"] == expected


def test_damage_dealt_names_its_parts_and_they_sum_to_the_amount():
    """DamageDealt shows the table where a hit's damage came from: the roll, the card, the
    stat, the Buster pool and the Guard, each as a part, summing to the amount."""
    s = attack(opening(), "B", hit=10)
    _, events = act_all(s, React(1, "G", ""), dmg(9))
    data = find(events, "DamageDealt")[0].data
    assert data["parts"] == [["roll", 9], ["card", N.card_power["B"]],
                             ["stat:str", param(s, 0, "str") // N.damage_stat_divisor],
                             ["buster", N.buster_bonus],
                             ["guard", -(param(s, 1, "end") // N.guard_divisor)]]
    assert sum(v for _k, v in data["parts"]) == data["amount"]


def test_luck_attack_has_luck_power_whatever_card_pays():
    """A Luck attack paid with a Buster card has Luck card power, plus that card's +5."""
    s = attack(opening(), "L", "B", hit=11)
    after, _ = act_all(s, React(1, "L", ""), [*faces(3), *dmg(9)])
    assert hp_lost(s, after, 1) == base_damage(s, 0, "L", 9) + N.buster_bonus


# --- range (§5.7, §5.9) --------------------------------------------------------------------------
@pytest.mark.parametrize("gap", [1, 2, 3])
def test_ranged_attack_loses_2_per_square_to_hit_and_damage(gap):
    """At range r the hit check and the damage both lose ranged_penalty x r."""
    s = opening()
    s, _ = act_all(s, Move(0, square_at(s, SQUARE, gap)))
    s, events = strike(s, "B", hit=11)
    assert rolls(events, "hit")[0]["mod"] == check_mod(s, 0, "B") - N.ranged_penalty * gap
    after, _ = act_all(s, React(1, "G", ""), dmg(10))
    expected = (base_damage(s, 0, "B", 10, gap) + N.buster_bonus
                - param(s, 1, "end") // N.guard_divisor)
    assert hp_lost(s, after, 1) == expected


def test_attack_reach_melee_same_square_ranged_1_to_3_no_ranged_luck():
    """Same square: B/A/Q/Luck attacks; 1..3 squares: B/A/Q only; 4 squares: none."""
    s = opening()
    kinds = {a.kind for a in only(s, 0, Attack)}
    assert kinds == {"B", "A", "Q", "L"}
    for gap in range(1, N.ranged_max + 1):
        t1, _ = act_all(s, Move(0, square_at(s, SQUARE, gap)))
        assert {a.kind for a in only(t1, 0, Attack)} == {"B", "A", "Q"}
    s, _ = act_all(s, Move(0, square_at(s, SQUARE, N.ranged_max)))
    s, _ = act_all(s, Wait(0))
    s = to_main(s, 0)
    far = next(q for q in range(len(city(s).squares))
               if distance(city(s), SQUARE, q) == N.ranged_max + 1
               and distance(city(s), s.camps[0].pos, q) == 1)
    s, _ = act_all(s, Move(0, far))
    assert only(s, 0, Attack) == []


# --- reactions (§5.8) ----------------------------------------------------------------------------
@pytest.mark.parametrize("kind", "BAQL")
def test_reactions_offered_counter_luck_or_guard(kind):
    """Reactions: the triangle counter only, Luck or Guard with any card; none more vs Luck."""
    s = attack(opening(), kind, "" if kind == "L" else None)
    hand = sorted(set(s.camps[1].hand))
    assert set(hand) == {"B", "A", "Q"}
    expected = {("L", c) for c in ["", *hand]} | {("G", c) for c in ["", *hand]}
    if kind != "L":
        expected.add((COUNTER[kind], COUNTER[kind]))
    assert {(a.kind, a.card) for a in only(s, 1, React)} == expected


def test_normal_defense_needs_the_counter_card():
    """Without the counter card in hand there is no Normal Defense."""
    s = attack(opening(), "B")
    s.edit(1).hand = s.camps[1].hand.replace("Q", "")
    assert not [a for a in only(s, 1, React) if a.kind == "Q"]


@pytest.mark.parametrize(("margin", "halved"), [(1, True), (0, True), (-1, False)])
def test_luck_defense_halves_damage_when_it_wins_or_ties(margin, halved):
    """A Luck defense that beats or ties the hit halves the damage; otherwise full damage."""
    a_nat = 7
    s = attack(opening(), "B", hit=a_nat)
    d_nat = a_nat + check_mod(s, 0, "B") - check_mod(s, 1, "L") + margin
    assert 3 <= d_nat <= 11
    after, events = act_all(s, React(1, "L", ""), [*faces(d_nat), *dmg(11)])
    full = base_damage(s, 0, "B", 11) + N.buster_bonus
    assert find(events, "AttackResolved")[0].data["halved"] is halved
    assert hp_lost(s, after, 1) == (full // N.luck_defense_divisor if halved else full)


def test_guard_subtracts_end_over_10_with_no_check():
    """Guard: no defense roll, the attack lands, damage minus END//10."""
    s = attack(opening(), "B", hit=3)
    after, events = act_all(s, React(1, "G", ""), dmg(10))
    assert find(events, "AttackResolved")[0].data["hit"]
    assert not rolls(events, "defense")
    full = base_damage(s, 0, "B", 10) + N.buster_bonus
    assert hp_lost(s, after, 1) == full - param(s, 1, "end") // N.guard_divisor


def test_guard_attacker_fumble_still_misses():
    """Against a Guard an attacker's natural 2 misses."""
    _, after, _ = fumbling([3, 1])
    assert after.camps[1].hp == after.camps[1].servant.hp


# --- timeouts (§5.20) ----------------------------------------------------------------------------
def test_timeout_defaults_in_battle():
    """Round start: Ready; main: Wait; reaction: Guard with no card; disengaging: a move."""
    s = duel(PAIR, rules=R)
    assert default_action(s, 0) == Ready(0)
    s = opening()
    assert default_action(s, 0) == Wait(0)
    s = attack(s, "B")
    assert default_action(s, 1) == React(1, "G", "")
    s, _ = act_all(duel(PAIR, rules=R), DeclareDisengage(0))
    s = ready_all(s)
    assert isinstance(default_action(s, 0), Move)


# --- hands (§5.3 ⑦, §5.12) -----------------------------------------------------------------------
def test_hands_refilled_to_composition_after_every_third_round():
    """Spent cards stay spent until the end of a round that is a multiple of 3."""
    s = attack(opening(), "B")
    s, _ = act_all(s, React(1, "G", "Q"), dmg(2))
    spent = (s.camps[0].hand, s.camps[1].hand)
    every = N.hand_refill_every
    for _ in range(1, every):
        s = wait_round(s)
        assert (s.camps[0].hand, s.camps[1].hand) == spent
    s = wait_round(s)
    assert s.battle.round == every + 1
    assert [c.hand for c in s.camps] == [c.servant.cards for c in s.camps]


# --- Noble Phantasms (§5.14) ---------------------------------------------------------------------
def declared(rules=RNP, classes=("saber", "caster"), target: int = 1) -> GameState:
    """Seat 0 declares its Noble Phantasm at the round-1 start."""
    s = duel(classes, rules=rules)
    s, _ = act_all(s, DeclareNoblePhantasm(0, target))
    s = ready_all(s)
    assert s.prompt.seats == {0}
    return s


def test_np_declared_fires_at_own_activation_paying_cards_and_mp():
    """A declared charge-0 NP fires at the own activation, pays, rolls its hit check at once;
    answer: counter or Guard."""
    s = duel(PAIR, rules=RNP)
    assert DeclareNoblePhantasm(0, 1) in legal_actions(s, 0)
    assert UseNoblePhantasm(0, 1) not in legal_actions(opening(rules=RNP), 0)
    s = declared()
    assert UseNoblePhantasm(0, 1) in legal_actions(s, 0)
    after, events = fire(s)
    assert [r["seat"] for r in rolls(events, "hit")] == [0]
    assert after.prompt == ("reaction", {1}) and after.battle.pending.noble_phantasm
    np = s.camps[0].servant.np
    assert s.camps[0].mp - after.camps[0].mp == np.mp
    assert after.camps[0].hand == s.camps[0].hand.replace(np.card, "", np.cards)
    reactions = {(a.kind, a.card) for a in only(after, 1, React)}
    hand = sorted(set(after.camps[1].hand))
    assert reactions == {(COUNTER[np.card], COUNTER[np.card])} | {("G", c) for c in ["", *hand]}
    _, events = act_all(after, React(1, "G", ""), np_dice(8))
    assert not find(events, "NoblePhantasmLapsed"), "a fired NP lapses"


def test_np_with_charge_1_fires_in_the_next_round():
    """charge = 1: not in the declaring round (where it is not due, so it does not lapse), at
    the own activation of the next one."""
    s = declared(tweak(RNP, "saber", np={"charge": 1}))
    assert not only(s, 0, UseNoblePhantasm)
    s, events = act_all(s, Wait(0))
    assert not find(events, "NoblePhantasmLapsed")
    s = to_main(s, 0)
    assert s.battle.round == 2
    assert only(s, 0, UseNoblePhantasm) == [UseNoblePhantasm(0, 1)]


def test_np_hit_check_is_2d6_plus_20_plus_np_over_10():
    """NP hit check: 2d6 + np_hit_bonus + NP//np_hit_divisor, rolled when it is fired."""
    s, events = fire(declared())
    assert rolls(events, "hit")[0]["mod"] == N.np_hit_bonus + param(s, 0, "np") // N.np_hit_divisor


@pytest.mark.parametrize("natural", [12, 2])
def test_reaction_to_an_np_never_criticals_or_fumbles(natural):
    """The defense check against an NP has no critical and no fumble."""
    s, _ = fire(declared())
    after, events = act_all(s, React(1, "Q", "Q"), [*faces(natural), *np_dice(10)])
    assert rolls(events, "defense")[0]["result"] == ""
    assert find(events, "AttackResolved")[0].data["hit"]
    assert not find(events, "FumblePenalty")
    assert after.prompt.kind != "critical"


def test_buster_np_damage_formula():
    """Buster NP damage: dice + power + NP//divisor + np_buster_power + Buster pool − Guard."""
    s, _ = fire(declared())
    after, _ = act_all(s, React(1, "G", ""), np_dice(8))
    pool = min(SABER_NP["cards"] * N.buster_bonus, N.buster_cap)
    expected = np_base(s, 0, 8) + pool - param(s, 1, "end") // N.guard_divisor
    assert hp_lost(s, after, 1) == expected


def test_np_damage_parts_fold_its_power_into_one_part():
    """A Noble Phantasm's DamageDealt parts: roll, the NP's power (with its Buster type
    bonus), the NP rank bonus, the Buster pool and the Guard; they sum to the amount."""
    s, _ = fire(declared())
    _, events = act_all(s, React(1, "G", ""), np_dice(8))
    data = find(events, "DamageDealt")[0].data
    parts = dict(data["parts"])
    assert parts["roll"] == 8
    assert parts["np"] == s.camps[0].servant.np.power + N.np_buster_power
    assert parts["np_rank"] == param(s, 0, "np") // N.np_damage_divisor
    assert parts["guard"] == -(param(s, 1, "end") // N.guard_divisor)
    assert sum(parts.values()) == data["amount"] == np_base(s, 0, 8) + parts["buster"] + \
        parts["guard"]


def test_np_damage_parts_never_tell_its_power_apart_from_the_modifiers():
    """A hidden skill's np_power bonus and the NP's own power are one part: a rival that sees
    the parts learns no more of the NP than the amount tells it."""
    s, _ = fire(declared())
    s.edit(0).buffs = (ActiveBuff("mana_burst", Effect((("np_power", 7),)), 2, True, False, 0),)
    _, events = act_all(s, React(1, "G", ""), np_dice(8))
    parts = dict(find(events, "DamageDealt")[0].data["parts"])
    assert parts["np"] == s.camps[0].servant.np.power + N.np_buster_power + 7
    assert set(parts) == {"roll", "np", "np_rank", "buster", "guard"}


def test_arts_np_gives_20_mp_on_firing_and_no_power_bonus():
    """Arts NP: +np_arts_mp MP when fired (besides each Arts card's MP); no +20 power."""
    rules = tweak(R, "saber", np={**SABER_NP, "card": "A", "cards": 1, "mp": 50})
    s = declared(rules)
    after, _ = fire(s)
    assert after.camps[0].mp - s.camps[0].mp == -50 + N.arts_mp + N.np_arts_mp
    after, _ = act_all(after, React(1, "G", ""), np_dice(8))
    np = s.camps[0].servant.np
    expected = (8 + np.power + param(s, 0, "np") // N.np_damage_divisor
                - param(s, 1, "end") // N.guard_divisor)
    assert hp_lost(s, after, 1) == expected


def test_quick_np_widens_its_hit_check_by_3():
    """Quick NP: np_quick_crit widening on its hit check, on top of the paying Quick card."""
    rules = tweak(R, "saber", np={**SABER_NP, "card": "Q", "cards": 1})
    s = declared(rules)
    lowest = 12 - (1 + N.np_quick_crit)
    after, events = fire(s, hit=lowest)
    assert rolls(events, "hit")[0]["result"] == "critical"
    assert after.prompt == ("critical", {0})
    after, events = fire(s, hit=lowest - 1)
    assert rolls(events, "hit")[0]["result"] == ""
    assert after.prompt == ("reaction", {1})


def np_at_range(gap: int = 2):
    """Saber fires its NP (range `gap`) from `gap` squares away; the Caster Guards."""
    rules = tweak(R, "saber", np={**SABER_NP, "range": gap})
    s = declared(rules)
    s, _ = act_all(s, Move(0, square_at(s, SQUARE, gap)))
    s, fired = fire(s)
    after, _ = act_all(s, React(1, "G", ""), np_dice(8))
    return s, after, fired


def test_np_at_range_loses_2_damage_per_square():
    """An NP fired at range r deals ranged_penalty x r less damage."""
    s, after, _ = np_at_range(2)
    pool = min(SABER_NP["cards"] * N.buster_bonus, N.buster_cap)
    expected = (np_base(s, 0, 8) + pool - N.ranged_penalty * 2
                - param(s, 1, "end") // N.guard_divisor)
    assert hp_lost(s, after, 1) == expected


def test_np_at_range_loses_2_hit_per_square():
    """An NP fired at range r has ranged_penalty x r less on its hit check (§5.9)."""
    s, _, events = np_at_range(2)
    expected = N.np_hit_bonus + param(s, 0, "np") // N.np_hit_divisor - N.ranged_penalty * 2
    assert rolls(events, "hit")[0]["mod"] == expected


def test_np_declaration_lapses_when_it_cannot_be_paid():
    """An NP declaration unpaid at its activation lapses at the end of that activation
    (NoblePhantasmLapsed); there is no later undeclared firing."""
    s = duel(("saber", "archer"), rules=tweak(RNP, "archer", skills=()))
    s, _ = act_all(s, DeclareNoblePhantasm(0, 1))
    s = ready_all(s)
    assert s.prompt.seats == {1}
    s = attack(s, "A", seat=1, target=0, hit=3)
    s, _ = act_all(s, React(0, "B", "B"), faces(11))  # Saber is left one Buster card short
    assert s.prompt.seats == {0} and not only(s, 0, UseNoblePhantasm)
    s, events = act_all(s, Wait(0))
    assert [e.data["seat"] for e in find(events, "NoblePhantasmLapsed")] == [0]
    while s.battle.round <= N.hand_refill_every:
        s = wait_round(s)
    assert s.camps[0].hand == s.camps[0].servant.cards
    assert DeclareNoblePhantasm(0, 1) in legal_actions(s, 0), "the lapsed NP cannot be declared"
    s = to_main(s, 0)
    assert not only(s, 0, UseNoblePhantasm), "the lapsed NP fires without a declaration"


def test_np_not_fired_when_due_lapses_and_can_be_declared_again():
    """A due NP that its user chooses not to fire lapses at the end of that activation
    (NoblePhantasmLapsed): not due any more next round, but declarable again."""
    s = declared()
    assert only(s, 0, UseNoblePhantasm) == [UseNoblePhantasm(0, 1)]
    s, events = act_all(s, Wait(0))
    assert [e.data["seat"] for e in find(events, "NoblePhantasmLapsed")] == [0]
    s = wait_round(s)
    assert s.prompt.kind == "round_start" and s.battle.round == 2
    assert DeclareNoblePhantasm(0, 1) in legal_actions(s, 0)
    undeclared = to_main(s, 0)
    assert not only(undeclared, 0, UseNoblePhantasm)
    s, _ = act_all(s, DeclareNoblePhantasm(0, 1))
    s = to_main(s, 0)
    assert only(s, 0, UseNoblePhantasm) == [UseNoblePhantasm(0, 1)]


SUPPORT = {**SABER_NP, "kind": "support", "cards": 1}


def test_support_quick_np_widens_the_first_attack_of_next_round():
    """A Quick support NP gives np_quick_crit to its user's first attack of the next round."""
    s = declared(tweak(R, "saber", np={**SUPPORT, "card": "Q"}), target=0)
    s, _ = act_all(s, UseNoblePhantasm(0, 0))
    s = to_main(s, 0)
    assert s.battle.round == 2
    lowest = 12 - (1 + N.np_quick_crit)  # the paying Quick card is still stored
    _, events = strike(s, "B", hit=lowest)
    assert rolls(events, "hit")[0]["result"] == "critical"
    _, events = strike(s, "B", hit=lowest - 1)
    assert rolls(events, "hit")[0]["result"] == ""


def test_support_buster_np_powers_the_first_attack_of_next_round():
    """A Buster support NP gives +np_buster_power to its user's first attack next round."""
    s = declared(tweak(R, "saber", np={**SUPPORT, "card": "B"}), target=0)
    s, _ = act_all(s, UseNoblePhantasm(0, 0))
    s = to_main(s, 0)
    s = attack(s, "Q")
    after, _ = act_all(s, React(1, "G", ""), dmg(8))
    expected = (base_damage(s, 0, "Q", 8) + N.buster_bonus + N.np_buster_power
                - param(s, 1, "end") // N.guard_divisor)
    assert hp_lost(s, after, 1) == expected


def test_support_np_bonus_is_used_by_the_first_attack_even_if_it_misses():
    """The next-round bonus of a support NP goes with the first attack, hit or miss; the
    stored Buster pool (its paying card) is kept over the miss."""
    s = declared(tweak(R, "saber", np={**SUPPORT, "card": "B"}), target=0)
    s, _ = act_all(s, UseNoblePhantasm(0, 0))
    s = attack(to_main(s, 0), "Q", hit=3)
    s, events = act_all(s, React(1, "A", "A"), faces(11))
    assert not find(events, "AttackResolved")[0].data["hit"]
    s = attack(to_main(s, 0), "Q")
    assert s.battle.round == 3
    after, _ = act_all(s, React(1, "G", ""), dmg(8))
    expected = (base_damage(s, 0, "Q", 8) + N.buster_bonus
                - param(s, 1, "end") // N.guard_divisor)
    assert hp_lost(s, after, 1) == expected


def test_support_np_cannot_be_declared_again_while_its_buff_lasts():
    """A support NP is not declarable while its own buff is on; once it ends, it is again."""
    np = {**SUPPORT, "self_effect": Effect((("hit", 1),)), "duration": 2}
    s = declared(tweak(R, "saber", np=np), target=0)
    s, _ = act_all(s, UseNoblePhantasm(0, 0))
    assert s.camps[0].mod("hit") == 1
    s = wait_round(s)
    assert s.battle.round == 2 and s.camps[0].mod("hit") == 1
    assert not only(s, 0, DeclareNoblePhantasm)
    s = wait_round(ready_all(s))
    assert s.battle.round == 3 and s.camps[0].mod("hit") == 0
    assert only(s, 0, DeclareNoblePhantasm) == [DeclareNoblePhantasm(0, 0)]


CONSTANT = dict(kind="constant", cards=0, mp=0, charge=0, self_effect=NO_EFFECT)


def test_constant_quick_np_widens_every_check_by_1():
    """A constant Quick NP: natural 11 is critical even without a Quick card."""
    s = opening(rules=tweak(R, "saber", np={**CONSTANT, "card": "Q"}))
    after, events = strike(s, "B", hit=12 - N.np_constant_quick)
    assert rolls(events, "hit")[0]["result"] == "critical"
    assert after.prompt == ("critical", {0})
    assert not only(s, 0, UseNoblePhantasm)


def test_constant_buster_np_adds_2_to_normal_attacks():
    """A constant Buster NP adds np_constant_buster to every normal attack."""
    s = attack(opening(rules=tweak(R, "saber", np={**CONSTANT, "card": "B"})), "Q")
    after, _ = act_all(s, React(1, "G", ""), dmg(8))
    expected = (base_damage(s, 0, "Q", 8) + N.np_constant_buster
                - param(s, 1, "end") // N.guard_divisor)
    assert hp_lost(s, after, 1) == expected


def test_constant_arts_np_gives_2_mp_every_round_start():
    """A constant Arts NP gives np_constant_arts MP at every round start."""
    s = opening(rules=tweak(R, "saber", np={**CONSTANT, "card": "A"}))
    s.edit(0).mp -= 20
    after = wait_round(s)
    assert after.camps[0].mp - s.camps[0].mp == N.np_constant_arts
    assert after.camps[1].mp == s.camps[1].mp


# --- clashes (§5.15) -----------------------------------------------------------------------------
CASTER_NP = dict(kind="attack", card="A", cards=2, charge=0, range=0, mp=60,
                 self_effect=NO_EFFECT, target_effect=NO_EFFECT)


def clash_rules(saber: dict | None = None, caster: dict | None = None):
    """Saber's Buster NP against Caster's Arts NP, both anti-army unless said otherwise."""
    rules = tweak(R, "saber", np={**SABER_NP, "scale": "anti_army", **(saber or {})})
    return tweak(rules, "caster", np={**CASTER_NP, "scale": "anti_army", **(caster or {})})


def both_declared(rules) -> GameState:
    s = duel(PAIR, rules=rules)
    s, _ = act_all(s, DeclareNoblePhantasm(0, 1))
    s, _ = act_all(s, DeclareNoblePhantasm(1, 0))
    s = ready_all(s)
    assert s.prompt.seats == {0}
    return s


def clash_values(s: GameState, rolls_: tuple[int, int], gap: int = 0) -> list[int]:
    """Both sides' NP damage before scale penalties."""
    pool = min(SABER_NP["cards"] * N.buster_bonus, N.buster_cap)
    return [np_base(s, 0, rolls_[0]) + pool - N.ranged_penalty * gap,
            np_base(s, 1, rolls_[1]) - N.ranged_penalty * gap]


def test_clash_has_no_checks_and_the_winner_deals_the_difference():
    """Clash: both paid, no checks, loser takes the difference, riders apply either way."""
    rider = Effect((("agi", -20),))
    rules = clash_rules(caster={"target_effect": rider, "duration": 1})
    s = both_declared(rules)
    after, events = act_all(s, UseNoblePhantasm(0, 1), [*np_dice(18), *np_dice(4)])
    assert not [e for e in events if e.type == "DiceRolled" and e.data["dice"] == "2D6"]
    values = clash_values(s, (18, 4))
    assert find(events, "NoblePhantasmsClashed")[0].data["damage"] == values
    assert values[0] > values[1]
    assert hp_lost(s, after, 1) == values[0] - values[1]
    assert hp_lost(s, after, 0) == 0
    assert s.camps[1].mp - after.camps[1].mp == (CASTER_NP["mp"] - 2 * N.arts_mp
                                                 - N.np_arts_mp)
    assert after.camps[1].hand == s.camps[1].hand.replace("A", "", 2)
    assert after.camps[0].mod("agi") == -20
    assert after.prompt.seats == {1} and not only(after, 1, UseNoblePhantasm)


@pytest.mark.parametrize(("scales", "key", "side"), [
    (("anti_personnel", "anti_army"), "clash_personnel_vs_army", 0),
    (("anti_army", "anti_fortress"), "clash_army_vs_fortress", 0),
    (("anti_personnel", "anti_fortress"), "clash_personnel_vs_fortress", 0),
    (("anti_army", "anti_personnel"), "clash_personnel_vs_army", 1),
    (("anti_fortress", "anti_army"), "clash_army_vs_fortress", 1),
    (("anti_army", "anti_army"), None, None),
])
def test_clash_scale_penalties(scales, key, side):
    """Clash scale penalty goes to the smaller scale: P-A 20, A-F 20, P-F 40, equal none."""
    rules = clash_rules({"scale": scales[0]}, {"scale": scales[1]})
    s = both_declared(rules)
    _, events = act_all(s, UseNoblePhantasm(0, 1), [*np_dice(10), *np_dice(10)])
    values = clash_values(s, (10, 10))
    if key:
        values[side] -= getattr(N, key)
    assert find(events, "NoblePhantasmsClashed")[0].data["damage"] == values


def test_clash_tie_cancels_both():
    """Equal clash damage: nobody takes any."""
    s = both_declared(clash_rules())
    base = clash_values(s, (0, 0))  # the Caster's power is raised to even the bases out
    rules = clash_rules(caster={"power": s.camps[1].servant.np.power + base[0] - base[1]})
    s = both_declared(rules)
    after, events = act_all(s, UseNoblePhantasm(0, 1), [*np_dice(10), *np_dice(10)])
    values = find(events, "NoblePhantasmsClashed")[0].data["damage"]
    assert values[0] == values[1]
    assert hp_lost(s, after, 0) == 0 and hp_lost(s, after, 1) == 0


def test_clash_winner_out_of_range_deals_nothing():
    """A clash winner whose NP range does not reach the loser deals no damage."""
    rules = clash_rules({"range": 1}, {"range": 0, "power": 100})
    s = both_declared(rules)
    s, _ = act_all(s, Move(0, square_at(s, SQUARE, 1)))
    after, events = act_all(s, UseNoblePhantasm(0, 1), [*np_dice(4), *np_dice(18)])
    values = find(events, "NoblePhantasmsClashed")[0].data["damage"]
    assert values == clash_values(s, (4, 18), gap=1) and values[1] > values[0]
    assert hp_lost(s, after, 0) == 0 and hp_lost(s, after, 1) == 0


def test_no_clash_when_the_other_np_is_not_due_this_round():
    """An NP whose target's NP is still charging is an ordinary NP attack."""
    s = both_declared(clash_rules(caster={"charge": 1}))
    after, events = fire(s)
    assert not find(events, "NoblePhantasmsClashed")
    assert after.prompt == ("reaction", {1})


# --- disengage (§5.17) ---------------------------------------------------------------------------
def disengaging(classes=("saber", "caster"), rules=R) -> GameState:
    s, _ = act_all(duel(classes, rules=rules), DeclareDisengage(0))
    return ready_all(s)


def test_disengage_main_action_is_a_farthest_move_at_movement_minus_2():
    """The disengager may only Move, as far as it can: Movement + disengage_movement."""
    s = disengaging()
    assert s.prompt.seats == {0}
    reach = s.camps[0].servant.movement + N.disengage_movement
    moves = only(s, 0, Move)
    assert moves and {distance(city(s), SQUARE, m.to) for m in moves} == {reach}
    assert {type(a) for a in legal_actions(s, 0)} <= {Move, UseCommandSpell}


def test_disengage_minus_10_to_checks_then_escape_at_next_activation():
    """That round its checks take -10; not caught, it leaves at its next activation."""
    s = disengaging()
    s, _ = act_all(s, Move(0, square_at(s, SQUARE, 1)))
    s = attack(s, "B", seat=1, target=0)
    s, events = act_all(s, React(0, "Q", "Q"), [*faces(7), *dmg(2)])
    assert rolls(events, "defense")[0]["mod"] == check_mod(s, 0, "Q") + N.disengage_checks
    s, events = act_all(s, Ready(0))
    s, events = act_all(s, Ready(1))
    assert [(e.data["seat"], e.data["how"]) for e in find(events, "LeftBattle")] == [
        (0, "disengaged")]
    assert s.battle is None


def test_disengage_fails_when_a_hostile_enters_its_square():
    """A hostile in the disengager's square before its next activation catches it."""
    s = disengaging()
    to = square_at(s, SQUARE, 1)
    s, _ = act_all(s, Move(0, to))
    s, _ = act_all(s, Move(1, to))
    s, _ = act_all(s, Wait(1))
    s = ready_all(s)
    assert s.battle is not None and s.prompt == ("main", {0})
    assert only(s, 0, Attack)


def test_disengage_with_no_movement_left_is_caught_at_once():
    """Movement 0 after the -2: no square to run to when its activation starts, so it is caught
    at once (DisengageFailed) and takes a normal main action, without the -10 (§5.17)."""
    rules = tweak(R, "caster", movement=-N.disengage_movement)
    s, _ = act_all(duel(("lancer", "caster"), rules=rules), DeclareDisengage(1))
    s = ready_all(s)
    assert s.prompt.seats == {0}
    s, _ = act_all(s, Move(0, square_at(s, SQUARE, 1)))  # the hostile walks away
    s, events = act_all(s, Wait(0))
    assert [e.data["seat"] for e in find(events, "DisengageFailed")] == [1]
    assert s.prompt == ("main", {1}) and Wait(1) in legal_actions(s, 1)
    assert only(s, 1, Attack) and only(s, 1, Move)  # a normal main action, full Movement
    _, events = strike(s, "B", seat=1, target=0)
    assert rolls(events, "hit")[0]["mod"] == check_mod(s, 1, "B") - N.ranged_penalty
    s, _ = act_all(s, Wait(1))
    s = to_main(ready_all(s), 0)
    s, events = act_all(s, Wait(0))
    assert s.battle is not None and 1 in s.battle.seats, "escaped though caught at once"
    assert not find(events, "LeftBattle")


# --- intervention (§5.2) -------------------------------------------------------------------------
def trio(gap: int, third=DeclareWait) -> GameState:
    """Seat 0 encounters seat 1 for battle on one square; seat 2, `gap` away, declares `third`."""
    s = game(("saber", "caster", "archer"), rules=R)
    place(s, 0, SQUARE)
    place(s, 1, SQUARE)
    place(s, 2, square_at(s, SQUARE, gap))
    s, _ = act_all(s, DeclareEncounter(0, 1, "battle"))
    s, _ = act_all(s, third(2))
    return s


def test_waiting_camp_within_movement_may_join():
    """A waiting camp within its Movement may join, from its square, in Agility order."""
    gap = R.servants["archer"].movement
    s = trio(gap)
    assert s.prompt == ("intervene", {2})
    s, _ = act_all(s, AnswerIntervention(2, True))
    assert s.prompt == ("round_start", {0, 1, 2})
    assert s.camps[2].pos == square_at(s, SQUARE, gap)
    s = ready_all(s)
    agi = {x: param(s, x, "agi") for x in (0, 1, 2)}
    assert s.battle.order == tuple(sorted(agi, key=lambda x: -agi[x]))
    s = to_main(s, 0)
    assert {a.target for a in only(s, 0, Attack)} == {1, 2}


@pytest.mark.parametrize(("extra", "third"), [(1, DeclareWait), (0, DeclareRest)])
def test_camp_out_of_reach_or_not_waiting_is_not_offered(extra, third):
    """No offer beyond Movement, nor to a camp that did not declare Wait."""
    s = trio(R.servants["archer"].movement + extra, third)
    assert s.prompt == ("round_start", {0, 1})


def test_ambush_intervention_reach_is_measured_to_the_target_square():
    """For an Ambush, a waiting camp is offered if it can reach the target's square."""
    s = game(("saber", "caster", "archer"), rules=R)
    reach = R.servants["archer"].movement
    target = square_at(s, SQUARE, N.ambush_max_range)
    near_target = next(q for q in range(len(city(s).squares))
                       if distance(city(s), q, target) == reach
                       and distance(city(s), q, SQUARE) > reach)
    for seat, q in enumerate((SQUARE, target, near_target)):
        place(s, seat, q)
    s, _ = act_all(s, DeclareAmbush(0, 1))
    s, _ = act_all(s, DeclareWait(2))
    s, _ = act_all(s, AnswerAmbush(1, False))
    assert s.prompt == ("intervene", {2})


def test_intervention_timeout_declines():
    """The timeout answer to an intervention offer is decline."""
    s = trio(1)
    assert default_action(s, 2) == AnswerIntervention(2, False)
    s, _ = act_all(s, AnswerIntervention(2, False))
    assert s.battle.seats == (0, 1)


# --- end of battle (§5.19) -----------------------------------------------------------------------
@pytest.mark.parametrize("offers", [(0, 1), (0,)])
def test_truce_ends_the_battle_only_when_all_offer(offers):
    """The battle ends in a truce only if every combatant offers it at the same round start."""
    s = duel(PAIR, rules=R)
    for seat in offers:
        s, _ = act_all(s, OfferTruce(seat))
    s, _ = act_all(s, Ready(0))
    s, events = act_all(s, Ready(1))
    if len(offers) == 2:
        assert s.battle is None
        assert find(events, "BattleEnded")[0].data["reason"] == "truce"
    else:
        assert s.battle is not None and s.prompt.kind == "main"


def test_battle_end_clears_stored_bonuses_and_next_battle_starts_with_full_hands():
    """Battle end clears stored bonuses and buffs; the next battle deals full hands."""
    s = attack(opening(), "L", "")
    s, _ = act_all(s, React(1, "G", "B"), dmg(2))
    s, _ = act_all(s, Wait(1))
    assert s.camps[1].hand != s.camps[1].servant.cards and s.camps[1].buster
    s, _ = act_all(s, UseCommandSpell(1, "concentration"))  # a 1-round buff, at round 2 start
    assert s.camps[1].buffs
    for seat in (0, 1):
        s, _ = act_all(s, OfferTruce(seat))
    s = ready_all(s)
    assert s.battle is None
    assert (s.camps[1].buster, s.camps[1].quick, s.camps[1].buffs) == (0, 0, ())
    assert s.prompt.kind == "declare"
    s, _ = act_all(s, DeclareEncounter(0, 1, "battle"))
    assert s.prompt.kind == "round_start"
    assert [c.hand for c in s.camps] == [c.servant.cards for c in s.camps]


def test_battle_ends_after_max_battle_rounds():
    """After round max_battle_rounds the battle ends."""
    s = duel(PAIR, rules=R)
    ended = []
    while s.battle is not None:
        assert s.battle.round <= N.max_battle_rounds
        seat = min(s.prompt.seats)
        s, events = act_all(s, Ready(seat) if s.prompt.kind == "round_start" else Wait(seat))
        ended += find(events, "BattleEnded")
    assert [(e.data["reason"], e.data["rounds"]) for e in ended] == [
        ("round_limit", N.max_battle_rounds)]


@pytest.mark.parametrize("spare", [0, 1])
def test_servant_dies_at_zero_hp(spare):
    """HP 0 or less kills the Servant (and in a duel, ends the game); HP 1 survives."""
    s = attack(opening(), "B")
    amount = (base_damage(s, 0, "B", 10) + N.buster_bonus
              - param(s, 1, "end") // N.guard_divisor)
    s.edit(1).hp = amount + spare
    after, events = act_all(s, React(1, "G", ""), dmg(10))
    assert after.camps[1].alive is bool(spare)
    assert bool(find(events, "ServantDied")) is not spare
    if not spare:
        assert after.over and after.winner == 0 and after.battle is None
        assert [e.data["reason"] for e in find(events, "BattleEnded")] == ["game_over"]


GUTS = skill("t_guts", "automatic", trigger="lethal", check=50, mp=10, guts=20)


@pytest.mark.parametrize(("roll", "lives"), [(50, True), (51, False)])
def test_lethal_skill_gives_guts_on_success(roll, lives):
    """A lethal-trigger skill: on a successful 1d100 the Servant stays at its Guts HP."""
    s = attack(opening(rules=with_skills(R, "caster", GUTS)), "B")
    s.edit(1).hp = 1
    after, _ = act_all(s, React(1, "G", ""), [*dmg(10), roll])
    assert after.camps[1].alive is lives
    if lives:
        assert after.camps[1].hp == GUTS.effect.mod("guts")


def test_lethal_skill_pays_its_mp():
    """A lethal-trigger skill costs its MP like any skill use (§4.2: paid even on a failure)."""
    s = attack(opening(rules=with_skills(R, "caster", GUTS)), "B")
    s.edit(1).hp = 1
    after, _ = act_all(s, React(1, "G", ""), [*dmg(10), 50])
    assert s.camps[1].mp - after.camps[1].mp == GUTS.mp


# --- skills in battle (§5.6) ---------------------------------------------------------------------
START = skill("t_start", "combat_start", duration=3, hit=1)
OWN = skill("t_own", "own_activation", check=50, damage_dealt=1)
ROUND = skill("t_round", "round_start", defense=1)
OPTIONAL = skill("t_opt", "optional", duration=2, defense=1)
SKILLED = with_skills(R, "saber", START, OWN, ROUND, OPTIONAL)


def skills_offered(s: GameState, seat: int = 0) -> set[str]:
    return {a.skill for a in only(s, seat, UseSkill)}


def test_skill_timings_at_each_prompt():
    """Skill timings: combat_start R1 start, round_start, own_activation, optional."""
    s = duel(PAIR, rules=SKILLED)
    assert skills_offered(s) == {"t_start", "t_round", "t_opt"}
    s = ready_all(s)
    assert skills_offered(s) == {"t_own", "t_opt"}
    s = wait_round(s)
    assert s.battle.round == 2
    assert skills_offered(s) == {"t_round", "t_opt"}


def test_own_activation_skill_not_after_acting():
    """An own-activation skill is gone once the activation has acted (a Move)."""
    s = ready_all(duel(PAIR, rules=SKILLED))
    s, _ = act_all(s, Move(0, square_at(s, SQUARE, 1)))
    assert "t_own" not in skills_offered(s)


def test_skill_once_per_round_even_if_it_failed():
    """A skill used this round (its check failed) is not offered again until the next round."""
    s = ready_all(duel(PAIR, rules=SKILLED))
    s, events = act_all(s, UseSkill(0, "t_own"), [100])
    assert find(events, "SkillFailed")
    assert s.prompt == ("main", {0}) and "t_own" not in skills_offered(s)
    s = to_main(wait_round(s), 0)
    assert "t_own" in skills_offered(s)


def test_skill_not_reused_while_its_buff_is_active():
    """A 2-round skill used in round 1 is not offered in round 2, and is again in round 3."""
    s = duel(PAIR, rules=SKILLED)
    s, _ = act_all(s, UseSkill(0, "t_opt"))
    assert "t_opt" not in skills_offered(s)
    s = wait_round(ready_all(s))
    assert s.battle.round == 2 and "t_opt" not in skills_offered(s)
    s = wait_round(ready_all(s))
    assert s.battle.round == 3 and "t_opt" in skills_offered(s)


COSTLY = skill("t_costly", "optional", mp=20, hit=1)


@pytest.mark.parametrize(("short", "spells", "master_mp", "offered"), [
    (0, 0, 100, False),  # left at 0 MP; without a Command Spell the Master cannot top it up
    (-1, 0, 0, True),  # left at 1 MP
    (0, 1, 1, True),  # left at 0 MP, and the Master tops it up
    (5, 1, 5, False),  # the Master pays the last 5 and has nothing left to top it up with
    (5, 1, 6, True),
])
def test_a_cost_that_would_leave_the_servant_at_0_mp_is_not_offered(short, spells, master_mp,
                                                                      offered):
    """A skill or NP cost is offered only if paying it leaves the Servant alive: MP > 0 left,
    or a Master holding a Command Spell with MP left to top it up (§2.4)."""
    rules = with_skills(RNP, "saber", COSTLY)
    for cost, action in ((COSTLY.mp, UseSkill(0, "t_costly")),
                         (SABER_NP["mp"], DeclareNoblePhantasm(0, 1))):
        s = duel(PAIR, rules=rules)
        camp = s.edit(0)
        camp.mp, camp.spells, camp.master_mp = cost - short, spells, master_mp
        assert (action in legal_actions(s, 0)) is offered, action
    if offered:  # paying it keeps the Servant
        s.edit(0).mp = COSTLY.mp - short
        after, _ = act_all(s, UseSkill(0, "t_costly"))
        assert after.camps[0].alive and after.camps[0].mp > 0
