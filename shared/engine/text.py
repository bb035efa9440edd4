"""Text forms: a short canonical form of a state (for tests, logs and bug reports) and the dice
log in the dice-bot style Japanese tables know: `(2D6+4) ＞ 11[5,6]+4 ＞ 15 ＞ 成功`."""

from __future__ import annotations

from typing import Any

from .state import GameState
from .turns import TURN_NAMES

RESULT_WORDS = {
    "ja": {"success": "成功", "failure": "失敗", "critical": "クリティカル",
           "fumble": "ファンブル"},
    "ko": {"success": "성공", "failure": "실패", "critical": "크리티컬", "fumble": "펌블"},
    "en": {"success": "Success", "failure": "Failure", "critical": "Critical",
           "fumble": "Fumble"},
}


def to_text(s: GameState) -> str:
    """One header line, one line per camp, then declarations and the battle, if any."""
    head = (f"day {s.day} {TURN_NAMES[s.turn % 3]} {s.phase} | {s.prompt.kind} "
            f"{','.join(map(str, sorted(s.prompt.seats))) or '-'} | v{s.version} rng {s.rng:x}")
    lines = [head]
    for c in s.camps:
        buffs = ",".join(f"{b.source}/{b.rounds}" for b in c.buffs) or "-"
        flags = "".join(flag for flag, on in (
            ("D", c.disengage_round >= 0), ("F", c.fleeing), ("S", c.asleep),
            ("R", c.rested), ("U", c.unlocked), ("W", c.war_roar)) if on)
        lines.append(
            f"#{c.seat} {c.cls}/{c.servant.id} {'alive' if c.alive else 'dead'} @{c.pos} "
            f"HP{c.hp} MP{c.mp} "
            f"M{c.master_mp} CS{c.spells} hand {c.hand or '-'} b{c.buster} q{c.quick} "
            f"np{c.np_target}/{c.np_round} known {''.join(map(str, c.known))} "
            f"waits {c.waits} moved {c.moved} buffs {buffs} {flags or '-'}"
        )
    for label, decls in (("decls", s.decls), ("held", s.held)):
        if decls:
            lines.append(f"{label} " + " ".join(
                f"{d.seat}:{d.kind}" + (f">{d.target}" if d.target >= 0 else "")
                + (f"({d.intent or d.arg})" if d.intent or d.arg else "") for d in decls))
    if s.priority:
        lines.append("priority phase, passed " + (",".join(map(str, sorted(s.passed))) or "-"))
    if s.battle is not None:
        b = s.battle
        lines.append(f"battle {b.purpose} {','.join(map(str, b.seats))} r{b.round} {b.stage} "
                     f"order {','.join(map(str, b.order)) or '-'} cursor {b.cursor}")
    for m in s.modules:
        lines.extend(f"{m.name} {line}" for line in m.text(s))
    if s.over:
        lines.append(f"over winner {s.winner}")
    return "\n".join(lines)


def dice_arrow(lang: str) -> str:
    """The dice bot's step mark: full-width ＞ in Japanese and Korean (as BCDice writes it),
    > in English."""
    return " > " if lang == "en" else " ＞ "


def dice_line(event: dict[str, Any], lang: str = "ja") -> str:
    """A DiceRolled event as a dice-bot line; hidden faces (another camp's MP) show as ?."""
    expr = event["dice"] + (f"{event['mod']:+d}" if event["mod"] else "")
    if event.get("target") is not None:
        expr += ("<=" if event["dice"] == "1D100" else ">=") + str(event["target"])
    if event.get("total") is None:
        return f"({expr}){dice_arrow(lang)}?"
    faces = event["faces"]
    natural = sum(faces)
    parts = [f"({expr})", f"{natural}[{','.join(map(str, faces))}]"
             + (f"{event['mod']:+d}" if event["mod"] else "")]
    if event["mod"]:
        parts.append(str(event["total"]))
    word = RESULT_WORDS[lang].get(event.get("result") or "")
    if word:
        parts.append(word)
    return dice_arrow(lang).join(parts)


def event_line(event: dict[str, Any], lang: str = "ja") -> str:
    """One event (as a seat sees it) as one line of the game log."""
    if event["type"] == "DiceRolled":
        return f"#{event['seat']} {event['purpose']}: {dice_line(event, lang)}"
    fields = " ".join(f"{k}={v}" for k, v in event.items() if k != "type")
    return f"{event['type']} {fields}".rstrip()
