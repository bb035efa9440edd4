"""What the battle screen says about the latest strike and each roll, read from the events a
seat was sent: hit or miss, the damage and its parts, the Noble Phantasm that fired, and a
roll's formula with what it had to reach. Pure functions of the event list, so a spectator, a
camp outside the battle and the fighters each see exactly what their events tell."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .i18n import Tr

STRIKE_STARTS = ("Attacked", "NoblePhantasmFired")
BATTLE_BOUNDS = ("BattleOpened", "BattleStarted", "BattleEnded")


@dataclass
class Strike:
    """One attack or Noble Phantasm of the current battle, as far as it has gone."""

    attacker: int
    target: int | None = None
    card: str = ""  # the attack's kind (B/A/Q/L), or the NP's card
    nps: list[dict[str, Any]] = field(default_factory=list)  # NoblePhantasmFired (2: clash)
    hit: bool | None = None  # None: not resolved yet (the reaction is awaited)
    halved: bool = False
    amount: int | None = None
    parts: list[tuple[str, int]] = field(default_factory=list)
    clash: bool = False


def latest_strike(events: list[dict[str, Any]]) -> Strike | None:
    """The last strike since the current battle began, or None."""
    start = None
    for i in range(len(events) - 1, -1, -1):
        kind = events[i].get("type")
        if kind in BATTLE_BOUNDS:
            break
        if kind in STRIKE_STARTS:
            start = i
            break
    if start is None:
        return None
    clash = any(e.get("type") == "NoblePhantasmsClashed" for e in events[start:])
    if clash and start and events[start - 1].get("type") == "NoblePhantasmFired":
        start -= 1  # two NPs fired at each other (one step): the clash is one strike
    first = events[start]
    strike = Strike(first.get("seat", -1), first.get("target"),
                    first.get("card", "") if first["type"] == "NoblePhantasmFired" else
                    first.get("kind", ""))
    for e in events[start:]:
        kind = e.get("type")
        if kind == "NoblePhantasmFired":
            strike.nps.append(e)
        elif kind == "AttackResolved" and e.get("seat") == strike.attacker:
            strike.target, strike.hit, strike.halved = e.get("target"), e.get("hit"), \
                bool(e.get("halved"))
        elif kind == "NoblePhantasmsClashed":
            strike.clash, strike.hit = True, True
        elif kind == "DamageDealt" and strike.amount is None:
            if strike.clash:  # the stronger of the two deals the difference
                strike.attacker = e.get("seat", strike.attacker)
            strike.target, strike.amount = e.get("target"), e.get("amount")
            strike.parts = [(str(k), int(v)) for k, v in e.get("parts") or ()]
    return strike


def part_label(tr: Tr, key: str) -> str:
    """A damage part's name: a stat's bonus names the stat (筋力補正)."""
    head, _, stat = key.partition(":")
    if head == "stat":
        return tr("strike.stat", stat=tr.param(stat))
    return tr(f"strike.part_{key}") if tr.has(f"strike.part_{key}") else key


def terms(tr: Tr, parts: list[tuple[str, int]]) -> str:
    """"カード 8 + バスター 2 − 距離 7": parts in words, each with its sign."""
    out = []
    for i, (key, value) in enumerate(parts):
        sign = "−" if value < 0 else "+"
        term = f"{part_label(tr, key)} {abs(value)}"
        out.append(term if i == 0 and value >= 0 else f"{sign} {term}")
    return " ".join(out)


def damage_line(tr: Tr, amount: int, parts: list[tuple[str, int]]) -> str:
    """"12 = カード 8 + バスター 2 + 筋力補正 2": the amount and where it came from."""
    return f"{amount} = {terms(tr, parts)}" if parts else str(amount)


def np_title(tr: Tr, fired: dict[str, Any]) -> str:
    """The Noble Phantasm's name if this seat knows it, else what firing showed of it."""
    if fired.get("np"):
        return tr("strike.np_named", np=tr.np_name(fired["np"]))
    return tr("strike.np_unknown", sign=tr.np_signature(fired.get("card", ""),
                                                        fired.get("kind", ""),
                                                        fired.get("scale", "")))


def np_titles(tr: Tr, strike: Strike) -> str:
    """The banner's names: one Noble Phantasm, or the two of a clash."""
    return " × ".join(np_title(tr, fired) for fired in strike.nps)


def formula(roll: dict[str, Any], against: str = "") -> str:
    """A roll's formula and what it had to reach, as dice bots write them: "2D6+3 >= 9",
    "1D100 <= 60", "2D6+1 > 8"."""
    mod = roll.get("mod") or 0
    expr = str(roll.get("dice", "")) + (f"{mod:+d}" if mod else "")
    if roll.get("target") is not None:
        return expr + (" <= " if roll.get("dice") == "1D100" else " >= ") + str(roll["target"])
    return expr + against


def opposed_targets(rolls: list[dict[str, Any]]) -> list[str]:
    """For each roll of the list (in order), what an opposed check compares it with: a
    defense must reach the hit (ties go to the defender), a hit must beat the defense."""
    out = [""] * len(rolls)
    for i in range(1, len(rolls)):
        hit, dfn = rolls[i - 1], rolls[i]
        if hit.get("purpose") != "hit" or dfn.get("purpose") != "defense":
            continue
        if dfn.get("total") is not None and hit.get("total") is not None:
            out[i] = f" >= {hit['total']}"
            out[i - 1] = f" > {dfn['total']}"
    return out
