"""The log's presenter (its lines, the dice tab, every event in words) and the end's. A
part of `ClientModel` (mixed in)."""

from __future__ import annotations

from typing import Any

from ...shared.engine.text import dice_line
from ..chatbook import line_text
from ..viewdata import (
    DICE_KINDS,
    event_kind,
)


class LogPresenter:
    """The log's lines and the game's result (mixed into `ClientModel`)."""

    # --- the log --------------------------------------------------------------------------------
    def log_lines(self, limit: int | None = None) -> list[tuple[str, str]]:
        """(kind, text) per event in this language: kind is dice, turn, battle, death or event."""
        events = self.events if limit is None else self.events[-limit:]
        out = []
        for e in events:
            line = self.event_text(e)
            if line:
                out.append((event_kind(e), line))
        return out

    def dice_tab(self) -> list[tuple[str, str]]:
        """The dice tab: the game's rolls and turns, the seats' comings and goings, and the
        chat's rolls in their places (a roll from the chat is kind `chat`)."""
        rolls = self.chat.rolls()
        out: list[tuple[str, str]] = []
        shown = 0

        def rolls_until(place: int) -> None:
            nonlocal shown
            while shown < len(rolls) and rolls[shown]["after"] <= place:
                line = rolls[shown]
                out.append(("chat", f"{line.get('name', '')}: {line_text(line, self.tr)}"))
                shown += 1

        for place, e in enumerate(self.events):
            rolls_until(place)
            kind = event_kind(e)
            text = self.event_text(e) if kind in (*DICE_KINDS, "turn", "seat") else ""
            if text:
                out.append((kind, text))
        rolls_until(len(self.events))
        return out

    def dice_log(self, limit: int | None = None) -> list[str]:
        return [t for k, t in self.log_lines(limit) if k in DICE_KINDS]

    def event_text(self, e: dict[str, Any]) -> str:
        """An event in the log's words: one line, "" for an event the log does not tell."""
        tr = self.tr
        kind = e.get("type", "")
        for part in self.parts():
            line = part.event_line(self, e)
            if line is not None:
                return line
        if any(part.hides_event(self, e) for part in self.parts()):
            return ""
        who = self.who(e.get("seat"))
        if kind == "DiceRolled":
            purpose_key = f"dice.{e.get('purpose', 'other')}"
            purpose = tr(purpose_key) if tr.has(purpose_key) else e.get("purpose", "")
            return f"{who} {purpose}: {dice_line(e, tr.lang)}"
        target = self.who(e.get("target"))
        line = self._turn_line(kind, e, who, target)
        if line is None:
            line = self._battle_line(kind, e, who, target)
        if line is not None:
            return line
        if kind == "GameEnded":
            return tr("event.GameEnded")
        if kind == "SeatEvent":
            return tr(f"seats.{e['what']}", who=self.seat_label(e["seat"], e["name"]),
                      s=e.get("seconds", 0))
        key = f"event.{kind}"
        if tr.has(key):
            return tr(key, who=who, target=target, round=e.get("round"),
                      rounds=e.get("rounds"), hp=e.get("hp"), amount=e.get("amount"))
        return ""

    def _turn_line(self, kind: str, e: dict[str, Any], who: str, target: str) -> str | None:
        """A turn's event in words (None: not one of these)."""
        tr = self.tr
        if kind == "TurnStarted":
            return tr("event.TurnStarted", day=e.get("day"), turn=tr(f"turn.{e.get('turn')}"))
        if kind == "Moved":
            return tr("event.Moved", who=who, square=self.square_name(e.get("to", 0)))
        if kind == "Declared":
            decl = tr(f"decl.{e.get('kind')}")
            if e.get("target", -1) is not None and e.get("target", -1) >= 0:
                return tr("event.DeclaredAt", who=who, kind=decl, target=target)
            return tr("event.DeclaredHeld" if e.get("held") else "event.Declared", who=who,
                      kind=decl)
        if kind in ("ActionCancelled", "DeclarationWithdrawn"):
            return tr(f"event.{kind}", who=who, kind=tr(f"decl.{e.get('kind')}"))
        if kind == "Researched":
            return tr("event.Researched_ok" if e.get("success") else "event.Researched_ng",
                      cls=tr.cls(e.get("cls")))
        if kind == "Investigated":
            result = tr("event.investigate_ok", tier=e.get("tier")) if e.get("success") else \
                tr("event.investigate_ng")
            return tr("event.Investigated", cls=tr.cls(e.get("cls")), result=result)
        if kind == "AmbushAnswered":
            return tr("event.AmbushAnswered", who=who,
                      choice=tr("event.flee" if e.get("flee") else "event.fight"))
        if kind == "BattleOpened":
            return tr("event.BattleOpened", square=self.square_name(e.get("square", 0)))
        if kind == "InterventionAnswered":
            return tr("event.InterventionAnswered", who=who,
                      choice=tr("event.joins" if e.get("join") else "event.stays"))
        return None

    def _battle_line(self, kind: str, e: dict[str, Any], who: str, target: str) -> str | None:
        """A battle's event in words (None: not one of these)."""
        tr = self.tr
        if kind in ("Attacked", "Reacted"):
            card = e.get("kind", "")
            name = {"G": tr("verb.ReactGuard")}.get(card, tr.card(card))
            return tr(f"event.{kind}", who=who, target=target, kind=name)
        if kind == "AttackResolved":
            result = "event.halved" if e.get("halved") and e.get("hit") else \
                "event.hit" if e.get("hit") else "event.miss"
            return tr(result)
        if kind == "DamageDealt":
            return tr("event.DamageDealt", target=target, amount=e.get("amount"))
        if kind == "NoblePhantasmFired":
            return tr("event.NoblePhantasmFired", who=who, np=tr.np_name(e.get("np")))
        if kind == "LeftBattle":
            how_key = f"event.how_{e.get('how')}"
            how = tr(how_key) if tr.has(how_key) else e.get("how", "")
            return tr("event.LeftBattle", who=who, how=how)
        if kind == "CommandSpellUsed":
            return tr("event.CommandSpellUsed", who=who, spell=tr.spell(e.get("spell", "")))
        if kind == "SkillUsed" and e.get("skill"):
            return tr("event.SkillUsedNamed", who=who, skill=tr.skill(e["skill"]))
        return None

    # --- the end --------------------------------------------------------------------------------
    def result(self) -> dict[str, Any] | None:
        view = self.view
        if not view or not view.get("over"):
            return None
        reason = next((e.get("reason") for e in reversed(self.events)
                       if e.get("type") == "GameEnded"), None)
        winner = view.get("winner", -1)
        return {
            "winner": winner, "cls": view["camps"][winner]["cls"] if winner >= 0 else None,
            "you": winner >= 0 and winner == self.me, "reason": reason, "day": self.day,
            "survivors": [c["seat"] for c in view["camps"] if c["alive"]],
            "all_won": False,
        } | {k: v for part in self.parts() for k, v in part.result(self, reason).items()}
