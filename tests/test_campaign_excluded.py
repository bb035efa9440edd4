"""The rules spec 002 marks [c] (cannot apply) are not offered (spec §7: "every (c) has a test
that the excluded thing is not offered"; docs/rules.md "The campaign" lists them): over whole
seven-camp campaign games of the random bot (which takes every action type it is offered, with
tags dealt), every legal action of every prompted seat is collected, and no [c] thing is
ever among them, nor in the data that would offer it."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from grailwar.shared.bots import make_bot
from grailwar.shared.engine import legal_actions, new_game, play
from grailwar.shared.engine.actions import ACTION_TYPES, Action, DeclareEncounter
from grailwar.shared.engine.data import CLASSES
from grailwar.shared.modules.campaign import campaign
from grailwar.shared.modules.campaign import state as st
from grailwar.shared.modules.campaign.data import STANCES, TRAITS
from grailwar.shared.modules.campaign.section import section_of
from grailwar.shared.modules.campaign.stances import ChooseStance
from grailwar.shared.modules.campaign.tags import Tags
from helpers import game, place, run, wait_round

GAMES = 3
TAGS = ("holy_sword_sheath", "founding_jewels", "founding_insects", "founding_homunculus",
        "overseer", "future_spirit", "strongest_enemy", "gatekeeper")  # C12.1's eight
SPELLS = ("attack_posture", "np_enhancement", "defense_posture", "status_recovery",
          "forced_attack", "absolute_defense", "binding_order", "action_restriction")  # §3.3


class Seen:
    """What whole bot games offered: (prompt kind, action) pairs, every event, the tags."""

    def __init__(self) -> None:
        self.offered: set[tuple[str, Action]] = set()
        self.events: list[Any] = []
        self.tags: list[str] = []
        self.revived: list[str] = []  # the tag of each camp that revived
        self.camps = 0
        self.fighters: set[int] = set()


@cache
def seen() -> Seen:
    out = Seen()
    for g in range(GAMES):
        s = new_game(seed=40 + g, classes=CLASSES, modules=["campaign"],
                     options={"campaign": {"tags": "random"}})
        out.camps = len(s.camps)
        bots = [make_bot("random", 7 * g + i) for i in range(len(s.camps))]
        dealt = False
        while not s.over:
            for seat in s.prompt.seats:
                out.offered.update((s.prompt.kind, a) for a in legal_actions(s, seat))
            if s.battle is not None:
                out.fighters |= set(s.battle.seats)
            if not dealt and s.day >= 1:
                out.tags += [st.record(s, x).tag for x in range(len(s.camps))]
                dealt = True
            seat = min(s.prompt.seats)
            events = play(s, bots[seat].choose(None, legal_actions(s, seat)))
            out.events += events
            out.revived += [st.record(s, e.data["seat"]).tag for e in events
                            if e.type == "Revived"]
    return out


def offered(test: Callable[[str, Action], bool]) -> list[tuple[str, Action]]:
    return [(kind, a) for kind, a in seen().offered if test(kind, a)]


def name(a: Action) -> str:
    return type(a).__name__


def spell(a: Action) -> str:
    return getattr(a, "spell", "") if name(a) == "UseCommandSpell" else ""


def campaign_types() -> set[str]:
    return {n for n, t in ACTION_TYPES.items()
            if t.__module__.startswith("grailwar.shared.modules.campaign")}


# Each [c] rule: what would offer it, found nowhere among the offered actions.
CASES: dict[str, Callable[[str, Action], bool]] = {
    # C0.8: mana shared between characters whose circuits are connected (no such characters)
    "C0.8": lambda k, a: any(w in name(a) for w in ("Mana", "Circuit", "ShareMP")),
    # C3.2: merit for role-play (no GM); merit moves only by TransferMerit among the actions
    "C3.2": lambda k, a: "Merit" in name(a) and name(a) not in ("TransferMerit",
                                                                "EscapeWithMerit"),
    # C5.2: a magus's stances: every stance action is the Servant's, one of its four
    "C5.2": lambda k, a: "Stance" in name(a) and (
        getattr(a, "stance", "normal") not in STANCES
        or set(a.to_dict()) & {"holder", "character", "master"}),
    # C5.3: front and back rows
    "C5.3": lambda k, a: "Row" in name(a) or "row" in a.to_dict(),
    # C5.11: the Consecutive Attack +3 / Additional Strike +3 traits
    "C5.11": lambda k, a: name(a) == "SetStanceTrait" and a.trait not in TRAITS,
    # C7.1: Forced Summon outside battle
    "C7.1": lambda k, a: "summon" in spell(a),
    # C7.2 [c] part: the Master left alone as a target: no action targets a Master
    "C7.2": lambda k, a: "master" in {str(v) for key, v in a.to_dict().items()
                                      if key in ("target", "target_class")},
    # C7.11: Action Restriction after the Round: only ever at the declaration prompt
    "C7.11": lambda k, a: spell(a) == "action_restriction" and k != "declare",
}


@pytest.mark.parametrize("rule", sorted(CASES))
def test_a_c_rule_is_never_offered(rule: str) -> None:
    assert not offered(CASES[rule]), offered(CASES[rule])[:3]


def test_the_games_offered_what_the_cases_look_among():
    """The cases are not vacuous: stances, traits, spells and merit actions were offered."""
    kinds = {name(a) for _k, a in seen().offered}
    assert {"ChooseStance", "SetStanceTrait", "UseCommandSpell", "TransferMerit"} <= kinds
    assert offered(lambda k, a: spell(a) == "action_restriction")


def test_c3_2_merit_comes_only_from_bonds_events_and_its_own_spending():
    """C3.1/C3.2: no merit for role-play; every change names one of the sources of §3."""
    sources = {e.data["source"] for e in seen().events if e.type == "MeritChanged"}
    assert sources and sources <= {"bond", "event", "transfer", "escape", "plus"}


def test_c5_11_c12_2_the_catalogues_hold_no_excluded_trait_spell_or_tag():
    """C5.11 no Consecutive/Additional Strike trait; C7.1 no Forced Summon among the spells;
    C12.2 no event tag: the tags are the eight of C12.1."""
    assert not [t for t in TRAITS if "consecutive" in t or "additional" in t]
    s = new_game(seed=1, modules=["campaign"])
    assert tuple(campaign(s).command_spells()) == SPELLS
    assert tuple(t.id for t in section_of(s, Tags).tags) == TAGS
    assert set(seen().tags) - {""} <= set(TAGS)


def test_c12_1_no_revival_insect_and_no_combat_maid():
    """③ the Makiri revival insect and ④ the Einzbern combat maid are not played: only the
    strongest_enemy tag ever revives, and no combatant joins a battle but the camps."""
    assert {"founding_insects", "founding_homunculus"} <= set(seen().tags)
    assert set(seen().revived) <= {"strongest_enemy"}
    assert seen().fighters and seen().fighters <= set(range(seen().camps))
    assert not {n for n in campaign_types() if "Maid" in n or "Insect" in n}


def test_c5_3_a_camp_that_has_not_attacked_still_chooses_every_stance():
    """No back row: at Round 2 a camp that made no Attack (the seed's back row, "only
    Normal") is offered each of its other stances like any front-row camp."""
    s = game(("saber", "lancer"), modules=["campaign"])
    place(s, 0, 10)
    place(s, 1, 10)
    s, _ = run(s, DeclareEncounter(0, 1, "battle"))
    s = wait_round(s)
    assert (s.prompt.kind, s.battle.round) == ("round_start", 2)
    for seat in (0, 1):
        assert {a.stance for a in legal_actions(s, seat) if isinstance(a, ChooseStance)} == set(
            STANCES[1:])
