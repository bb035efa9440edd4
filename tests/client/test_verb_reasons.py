"""A greyed verb says why on hover: each reason from a crafted view (the view alone decides)."""

from __future__ import annotations

from typing import Any

import pytest
from grailwar.client.model import ClientModel
from grailwar.client.tour import state_message
from grailwar.shared.engine import new_game
from grailwar.shared.engine.data import CLASSES

WAIT_REST = [{"type": "DeclareWait", "seat": 0}, {"type": "DeclareRest", "seat": 0}]


def crafted(lang: str = "en", legal: list[dict[str, Any]] | None = None,
            **camp: Any) -> ClientModel:
    """Seat 0 in a declaration window whose legal actions are only `legal` (Wait and Rest if
    not given), its own camp's view changed by `camp`."""
    state = new_game(seed=3, classes=list(CLASSES))
    msg = state_message(state, 0, {"0": 300})
    msg["legal"] = WAIT_REST if legal is None else legal
    msg["view"]["camps"][0].update(camp)
    m = ClientModel(lang)
    m.handle({"t": "joined", "room": 1, "seat": 0, "token": "t" * 32, "spectator": False})
    m.handle(msg, now=100.0)
    return m


def why(m: ClientModel, verb: str) -> str:
    return next(v.why for v in m.verbs() if v.key == verb)


def reason(m: ClientModel, key: str) -> str:
    return m.tr(f"verb_why.{key}")


def test_an_enabled_verb_gives_no_reason() -> None:
    m = crafted()
    assert why(m, "DeclareWait") == why(m, "DeclareRest") == ""


def test_priority_verbs_are_closed_once_another_declaration_was_made() -> None:
    """turns.window_open: a Wait declared this turn closes Encounter, Ambush and Soul-eating."""
    m = crafted()
    m.view["declarations"].append({"seat": 3, "kind": "wait"})
    for verb in ("DeclareEncounter", "DeclareAmbush", "DeclareSoulEating"):
        assert why(m, verb) == reason(m, "window")
    assert why(m, "DeclareInvestigate") != reason(m, "window")


def test_priority_declarations_alone_keep_the_window_open() -> None:
    m = crafted()
    m.view["declarations"].append({"seat": 3, "kind": "ambush", "target": 4, "intent": ""})
    assert why(m, "DeclareEncounter") == reason(m, "no_reach")
    assert why(m, "DeclareAmbush") == reason(m, "no_ambush")


def test_soul_eating_on_an_eaten_square() -> None:
    m = crafted()
    m.view["eaten"].append(m.my_camp["pos"])
    assert why(m, "DeclareSoulEating") == reason(m, "eaten")
    m.view["eaten"].clear()
    assert why(m, "DeclareSoulEating") == reason(m, "other")


def test_a_sleeping_master_allows_only_wait_and_rest() -> None:
    m = crafted(asleep=True)
    for v in m.verbs():
        if v.key not in ("DeclareWait", "DeclareRest"):
            assert v.why == reason(m, "asleep"), v.key
    assert why(crafted(asleep=False), "Move") == reason(m, "other")


def test_a_skill_verb_without_mp() -> None:
    m = crafted()
    sk = next(s for s in m.tr.rules.skills.values() if s.timing == "turn_action" and s.mp > 0)
    m.my_camp.update(skills=[sk.id], master_skills=[sk.id], mp=1, master_mp=sk.mp - 1)
    assert why(m, "DeclareSkill") == reason(m, "mp")
    m.my_camp.update(mp=sk.mp + 5, master_mp=sk.mp + 5)
    assert why(m, "DeclareSkill") == reason(m, "other")


def test_a_battle_skill_already_used_this_round() -> None:
    state = new_game(seed=3, classes=list(CLASSES))
    msg = state_message(state, 0, {"0": 300})
    msg["view"]["prompt"] = {"kind": "main", "seats": [0]}
    msg["legal"] = [{"type": "Wait", "seat": 0}]
    m = ClientModel("en")
    m.handle({"t": "joined", "room": 1, "seat": 0, "token": "t" * 32, "spectator": False})
    m.handle(msg, now=100.0)
    sk = next(s for s in m.tr.rules.skills.values() if s.timing == "optional")
    m.my_camp.update(skills=[sk.id], master_skills=[], skills_used=[sk.id])
    assert why(m, "UseSkill") == reason(m, "used")
    assert why(m, "Attack") == reason(m, "other")


@pytest.mark.parametrize("lang", ["ja", "ko", "en"])
def test_reasons_are_in_the_language(lang: str) -> None:
    m = crafted(lang, asleep=True)
    text = why(m, "DeclareEncounter")
    assert text == m.tr("verb_why.asleep") and "{" not in text
    assert {"ja": "マスター", "ko": "마스터", "en": "Master"}[lang] in text


def test_not_ones_turn_gives_the_generic_reason() -> None:
    m = crafted(legal=[], asleep=True)
    assert all(v.why == reason(m, "other") for v in m.verbs())


def test_the_sleep_warning_comes_at_night_to_a_master_who_has_not_rested() -> None:
    """turns.end_day: a Master not rested by the day's end sleeps (one asleep today wakes)."""
    m = crafted()
    assert m.view["turn"] == "morning" and not m.sleep_warning()
    m.view["turn"] = "night"
    assert m.sleep_warning()
    m.view["rested"][0] = True
    assert not m.sleep_warning()
    m.view["rested"][0] = False
    m.my_camp["asleep"] = True
    assert not m.sleep_warning()
    m.my_camp["asleep"] = False
    m.view["rested"][1] = True  # another seat's rest is not one's own
    assert m.sleep_warning()


def phased(**priority: Any) -> ClientModel:
    """`crafted` in a game with a priority phase (view `priority`), open unless told."""
    m = crafted()
    m.view["priority"] = {"open": True, "passed": [], **priority}
    return m


def test_in_the_priority_phase_a_held_declaration_closes_nothing() -> None:
    """docs/rules.md §3.3: an ordinary declaration in the phase is held; the priority verbs
    stay open, and the prompt says the phase is on."""
    m = phased()
    m.view["declarations"].append({"seat": 3, "kind": "wait", "held": True})
    assert why(m, "DeclareEncounter") == reason(m, "no_reach")
    assert m.in_priority_phase


def test_after_the_phase_or_a_pass_the_priority_verbs_say_so() -> None:
    m = phased(open=False)
    for verb in ("DeclareEncounter", "DeclareAmbush", "DeclareSoulEating"):
        assert why(m, verb) == reason(m, "phase_over")
    assert not m.in_priority_phase
    m = phased(passed=[0])
    assert why(m, "DeclareAmbush") == reason(m, "passed")
    assert not m.in_priority_phase


def test_the_pass_verb_is_on_the_declaration_bar_with_its_help() -> None:
    m = phased()
    m.state["legal"] = [*WAIT_REST, {"type": "PassPriority", "seat": 0}]
    verb = next(v for v in m.verbs() if v.key == "PassPriority")
    assert verb.enabled and verb.label == m.tr("verb.PassPriority")
    assert "Ambush" in verb.help


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_each_encounter_intent_explains_itself(lang: str) -> None:
    """Prevent and Steal (and negotiate, battle) each say what they do on hover, not the
    Encounter's generic help (issue 32)."""
    from test_model import model_for

    m = model_for(new_game(seed=1), lang, 0)
    tr = m.tr
    helps = {intent: m.option({"type": "DeclareEncounter", "seat": 0, "target": 1,
                               "intent": intent}).help
             for intent in ("negotiate", "battle", "prevent", "steal")}
    assert helps == {intent: tr(f"intent_help.{intent}") for intent in helps}
    assert len(set(helps.values())) == 4 and tr("verb_help.DeclareEncounter") not in helps.values()
