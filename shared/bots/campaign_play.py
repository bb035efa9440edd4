"""The campaign's stance and bond choices of the normal bot (mixed into `HeuristicBot`), by
simple rules: award every bond it may and open one toward each camp it met, resolve a bond
once it is worth it, fight in the stance that holds its NP when the NP is ready, else attack
while healthy and defend when hurt, and take bond damage where it hurts least."""

from __future__ import annotations

from typing import Any

from ..engine.actions import Action
from ..engine.data import Ruleset
from ..modules.campaign.bonds import (
    AwardBond,
    ResolveBond,
    SetBond,
    ShareBondDamage,
    SplitBondDamage,
)
from ..modules.campaign.spells import KeepDeclaration
from ..modules.campaign.stances import ChooseStance

RESOLVE_AT = 3  # a bond is resolved once its grade reaches this
HURT = 0.5  # below this share of max HP: defend, heal


def _ratio(me: dict[str, Any]) -> float:
    return me["hp"] / max(1, me["max_hp"])


def _own(view: dict[str, Any]) -> dict[str, Any]:
    """The bot's own campaign record in its view."""
    return view["modules"]["campaign"]["state"]["camps"][view["you"]]


class CampaignPlay:
    """Free campaign actions before the bot's own choice at a prompt (None: none wanted)."""

    rules: Ruleset

    def campaign_declare(self, view: dict[str, Any], me: dict[str, Any],
                         legal: list[Action]) -> Action | None:
        keep = [a for a in legal if isinstance(a, KeepDeclaration)]
        if keep:  # declared already: it keeps its action (no Action Restriction)
            return keep[0]
        awards = [a for a in legal if isinstance(a, AwardBond)]
        if awards:
            return awards[0]
        resolve = [a for a in legal if isinstance(a, ResolveBond)]
        ripe = self._ripe(view, me, resolve)
        if ripe is not None:
            return ripe
        bonds = [a for a in legal if isinstance(a, SetBond) and a.polarity == "positive"
                 and a.holder == "servant"]
        return bonds[0] if bonds else None

    def _ripe(self, view: dict[str, Any], me: dict[str, Any],
              resolve: list[ResolveBond]) -> Action | None:
        """A bond at RESOLVE_AT or more: heal when hurt, else experience (else funds)."""
        if not resolve:
            return None
        grade = {(b["holder"], b["target"]): b["grade"] for b in _own(view)["bonds"]}
        want = ("heal_hp", "mid_damage") if _ratio(me) < HURT else ("exp", "mid_damage", "funds")
        for effect in want:
            for a in resolve:
                if a.effect == effect and grade.get((a.holder, a.target), 0) >= RESOLVE_AT:
                    return a
        return None

    def campaign_round_start(self, view: dict[str, Any], me: dict[str, Any],
                             legal: list[Action]) -> Action | None:
        ripe = self._ripe(view, me, [a for a in legal if isinstance(a, ResolveBond)])
        if ripe is not None:
            return ripe
        stances = {a.stance: a for a in legal if isinstance(a, ChooseStance)}
        if not stances:
            return None
        np = self.rules.by_id[me["servant"]].np
        ready = np.kind != "constant" and me["mp"] >= np.mp
        want = "critical" if ready else ("defense" if _ratio(me) < HURT else "attack")
        return stances.get(want)

    def stance_choice(self, view: dict[str, Any], me: dict[str, Any],
                      legal: list[Action]) -> Action | None:
        """In a raid, as at a battle's round start: the NP's stance when it can pay for it."""
        if not any(isinstance(a, ChooseStance) for a in legal):
            return None
        return self.campaign_round_start(view, me, legal)

    def _share(self, view: dict[str, Any], me: dict[str, Any], legal: list[Action]) -> Action:
        """Take a share only while healthy."""
        shares = [a for a in legal if isinstance(a, ShareBondDamage)]
        return max(shares, key=lambda a: a.amount) if _ratio(me) > 0.7 else shares[0]

    def _split(self, view: dict[str, Any], me: dict[str, Any], legal: list[Action]) -> Action:
        """Into MP when HP is the scarcer, and MP can pay twice over."""
        splits = [a for a in legal if isinstance(a, SplitBondDamage)]
        if _ratio(me) < HURT:
            affordable = [a for a in splits if 2 * a.mp_part < me["mp"]]
            if affordable:
                return max(affordable, key=lambda a: a.mp_part)
        return splits[0]
