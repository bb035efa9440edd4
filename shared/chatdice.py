"""Dice commands typed in the chat, in the dice-bot (BCDice) style of tabletop players.

`parse("2D6+3 攻撃")` reads a command (`2D6`, `D6`, `3D6-1>=10`, `S1D100<=50` for a secret
roll; any case, full-width forms such as `２Ｄ６` too, a comment after a space) or returns None
for ordinary chat. `roll` throws the dice with a generator the caller gives (the server uses
`random.SystemRandom`: chat dice are never the game's seeded dice) and returns plain data for
the wire; `roll_line` writes it back as the dice bot would: `(2D6+3) ＞ 7[3,4]+3 ＞ 10`.
"""

from __future__ import annotations

import random
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from .engine.text import dice_arrow

MAX_DICE = 100  # per term
MAX_FACES = 1000
MAX_TERMS = 10
MAX_NUMBER = 1_000_000  # a constant term or a target
_TERM = re.compile(r"([+-]?)(?:(\d*)D(\d+)|(\d+))")
_COMMAND = re.compile(r"(S?)((?:[+-]?(?:\d*D\d+|\d+))+)(?:(<=|>=|<>|<|>|=)([+-]?\d+))?")


class DiceError(ValueError):
    """A dice command out of its bounds; `key` names the reason (`chatlog.dice_<key>`)."""

    def __init__(self, key: str, limit: int) -> None:
        super().__init__(f"{key} (limit {limit})")
        self.key = key
        self.limit = limit


@dataclass(frozen=True)
class Term:
    sign: int  # +1 or -1
    count: int  # 0 for a constant
    faces: int  # the constant's value when count is 0


@dataclass(frozen=True)
class Command:
    secret: bool
    terms: tuple[Term, ...]
    comparison: str | None
    target: int | None
    comment: str

    @property
    def expression(self) -> str:
        """The command as the bot echoes it: `1D6` for `d6`, the target after it."""
        text = ""
        for i, term in enumerate(self.terms):
            if i or term.sign < 0:
                text += "+" if term.sign > 0 else "-"
            text += f"{term.count}D{term.faces}" if term.count else str(term.faces)
        return text + (f"{self.comparison}{self.target}" if self.comparison else "")


def parse(text: str) -> Command | None:
    """The dice command `text` begins with, None when it is plain chat; DiceError when it is
    a command beyond the bounds (more than MAX_DICE dice or MAX_FACES faces in a term...)."""
    normal = unicodedata.normalize("NFKC", text).strip()
    head, _, comment = normal.partition(" ")
    match = _COMMAND.fullmatch(head.upper())
    if match is None or "D" not in match.group(2):
        return None
    terms = tuple(_term(m) for m in _TERM.finditer(match.group(2)))
    if len(terms) > MAX_TERMS:
        raise DiceError("terms", MAX_TERMS)
    comparison, target = match.group(3), match.group(4)
    if target is not None and abs(int(target)) > MAX_NUMBER:
        raise DiceError("number", MAX_NUMBER)
    return Command(bool(match.group(1)), terms, comparison,
                   int(target) if target is not None else None, comment.strip())


def _term(m: re.Match[str]) -> Term:
    sign = -1 if m.group(1) == "-" else 1
    if m.group(4) is not None:
        value = int(m.group(4))
        if value > MAX_NUMBER:
            raise DiceError("number", MAX_NUMBER)
        return Term(sign, 0, value)
    count, faces = int(m.group(2) or 1), int(m.group(3))
    if not 1 <= count <= MAX_DICE:
        raise DiceError("dice", MAX_DICE)
    if not 1 <= faces <= MAX_FACES:
        raise DiceError("faces", MAX_FACES)
    return Term(sign, count, faces)


def roll(command: Command, rng: random.Random) -> dict[str, Any]:
    """Throw the command's dice: every term with its faces, the total, and against a target
    whether it succeeded. Plain data, as the wire carries it."""
    terms = []
    total = 0
    for term in command.terms:
        dice = [rng.randint(1, term.faces) for _ in range(term.count)]
        value = sum(dice) if term.count else term.faces
        total += term.sign * value
        terms.append({"sign": term.sign, "count": term.count, "faces": term.faces,
                      "dice": dice})
    out: dict[str, Any] = {"expr": command.expression, "terms": terms, "total": total,
                           "secret": command.secret}
    if command.comparison is not None:
        out.update(comparison=command.comparison, target=command.target,
                   success=succeeds(total, command.comparison, command.target or 0))
    return out


def succeeds(total: int, comparison: str, target: int) -> bool:
    return {"<=": total <= target, ">=": total >= target, "<>": total != target,
            "<": total < target, ">": total > target, "=": total == target}[comparison]


def roll_line(data: dict[str, Any], success: str, failure: str, lang: str = "ja") -> str:
    """The roll as the dice bot prints it; `success`/`failure` are the words of `lang`."""
    steps = ""
    for i, term in enumerate(data["terms"]):
        if i or term["sign"] < 0:
            steps += "+" if term["sign"] > 0 else "-"
        dice = term["dice"]
        if not term["count"]:
            steps += str(term["faces"])
        elif len(dice) == 1:
            steps += str(dice[0])
        else:
            steps += f"{sum(dice)}[{','.join(map(str, dice))}]"
    parts = [f"({data['expr']})", steps]
    if steps != str(data["total"]):
        parts.append(str(data["total"]))
    if "success" in data:
        parts.append(success if data["success"] else failure)
    return dice_arrow(lang).join(parts)
