"""Which Servants a camp may be, from what one seat's view shows of it.

The public facts of a camp (its class and status: parameters, HP, movement) are the same for
every Servant of a class, so they narrow nothing beyond the class; what narrows is what the
seat learned: a Noble Phantasm seen firing (its card, kind and scale), then its investigations
(tier 1: card composition and skills; tier 2: the true name). The dossier lists these
candidates and the hard bot samples hidden Servants among them, from the same function.
"""

from __future__ import annotations

from typing import Any

from .data import Ruleset, Servant


def candidates(rules: Ruleset, camp_view: dict[str, Any]) -> tuple[Servant, ...]:
    """The roster entries of the camp's class consistent with everything `camp_view` shows;
    when none is (a module may grow a sheet past its roster values: seed 002's max HP and
    composition), those consistent with the rest (skills, a Noble Phantasm seen); else the
    whole class, so a sampling bot always has one to draw."""
    roster = rules.roster[camp_view["cls"]]
    return (tuple(s for s in roster if consistent(s, camp_view))
            or tuple(s for s in roster if consistent(s, camp_view, grown=True)) or tuple(roster))


def consistent(servant: Servant, cv: dict[str, Any], grown: bool = False) -> bool:
    """Whether `servant` could be the camp `cv` shows (`grown`: its max HP and composition
    may have moved off the sheet)."""
    if "servant" in cv:
        return servant.id == cv["servant"]
    if (servant.movement, dict(servant.ranks)) != (cv["movement"], cv["ranks"]) or (
            not grown and servant.hp != cv["max_hp"]):
        return False
    seen = cv.get("np_seen")
    if seen is not None and (servant.np.card, servant.np.kind, servant.np.scale) != (
            seen["card"], seen["kind"], seen["scale"]):
        return False
    if "cards" in cv and not grown and servant.cards != cv["cards"]:
        return False
    return "skills" not in cv or list(servant.skills) == list(cv["skills"])
