"""The battle screen's presenter: combatants, the round, the strike under way, the dice.
A part of `ClientModel` (mixed in)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...shared.engine.text import dice_line
from ..battle_feed import formula, latest_strike, opposed_targets, terms


class BattlePresenter:
    """The battle under way (mixed into `ClientModel`)."""

    # --- the battle -----------------------------------------------------------------------------
    def battle(self, now: float) -> dict[str, Any] | None:
        """The battle under way as the battle screen draws it (None: no battle)."""
        view = self.view
        if not view or not view.get("battle"):
            return None
        b = view["battle"]
        tr = self.tr
        n = tr.rules.numbers
        refill_round = ((max(b["round"], 1) - 1) // n.hand_refill_every + 1) * n.hand_refill_every
        order = list(b["order"]) or list(b["seats"])
        actor = b.get("actor")
        combatants = []
        for c in b["combatants"]:
            seat = c["seat"]
            camp = self.camp(seat)
            np_status = self.np_status(b, c)
            own = [part.combatant(self, b, seat) for part in self.parts()]
            combatants.append({
                **{k: v for fields in own for k, v in fields.items()},
                "seat": seat, "cls": camp["cls"], "hp": camp["hp"], "max_hp": camp["max_hp"],
                "alive": camp["alive"], "in": seat in b["seats"], "acting": seat == actor,
                "np": np_status, "pos": camp["pos"], "mine": seat == self.me,
                "flags": self.combat_flags(b, seat) + [f for x in own for f in x.get("flags", ())],
                "hand_size": camp["hand_size"], "buffs": camp.get("buffs", []),
                "spells": camp["spells"],
            })
        pending = b.get("pending")
        reaction = None
        if pending:
            kind = tr("battle.np_attack") if pending.get("noble_phantasm") else \
                tr.card(pending.get("kind", ""))
            reaction = {
                "attacker": pending["attacker"], "target": pending["target"], "kind": kind,
                "total": pending.get("total"), "critical": pending.get("critical"),
                "fumble": pending.get("fumble"),
                "mine": pending["target"] == self.me and self.prompt_kind == "reaction",
                "seconds": self.seconds_left(pending["target"], now)
                if self.prompt_kind == "reaction" else None,
            }
        return {
            "purpose": b["purpose"], "square": self.fighters_square(b), "round": b["round"],
            "refill_round": refill_round, "refill_now": b["round"] == refill_round,
            "order": order, "cursor": b["cursor"], "actor": actor, "stage": b["stage"],
            "combatants": combatants, "pending": reaction, "seats": list(b["seats"]),
            "strike": latest_strike(self.events),
        }

    def np_status(self, b: dict[str, Any], c: dict[str, Any]) -> str:
        """A combatant's declared Noble Phantasm: at whom, and its charge or readiness."""
        if c["np_target"] < 0:
            return ""
        tr = self.tr
        total = self.np_charge(c["seat"])
        elapsed = max(0, b["round"] - c["np_round"])
        status = tr("battle.np_declared", target=self.who(c["np_target"]))
        if total is not None:
            status += " · " + (tr("battle.np_ready") if elapsed >= total else
                               tr("battle.np_charge", n=elapsed, total=total))
        return status

    def combat_flags(self, b: dict[str, Any], seat: int) -> list[str]:
        """A combatant's marks: disengaging, fleeing, truce, ready (the modules' own are their
        parts' `combatant` "flags")."""
        tr = self.tr
        c = next(x for x in b["combatants"] if x["seat"] == seat)
        flags = [tr(key) for key, on in (
            ("battle.disengaging", c["disengage_round"] >= 0), ("battle.fleeing", c["fleeing"]),
            ("battle.war_roar", c["war_roar"]), ("battle.truce", seat in b.get("truce", [])),
            ("battle.ready", b["stage"] == "round_start" and seat in b.get("ready", [])))
            if on]
        return flags

    def fighters_square(self, b: dict[str, Any]) -> int:
        """Where the battle is now: the square most of its fighters stand on (they move in
        battle), the square it broke out on while it holds as many."""
        squares = [self.camp(x)["pos"] for x in b["seats"]] or [b["square"]]
        return max(dict.fromkeys([b["square"], *squares]), key=squares.count)

    def np_charge(self, seat: int) -> int | None:
        """Rounds a Noble Phantasm needs to charge, if this seat knows which one it is."""
        camp = self.camp(seat)
        np_id = camp.get("noble_phantasm")  # one's own camp, or a rival known to tier 2
        np = self.tr.np_by_id(np_id) if np_id else None
        return np.charge if np else None

    def dice(self, limit: int = 6, seats: Iterable[int] | None = None) -> list[dict[str, Any]]:
        """The latest dice rolls (of `seats`, if given), newest last, for the dice tray."""
        wanted = set(seats) if seats is not None else None
        every = [e for e in self.events if e.get("type") == "DiceRolled"]
        against = opposed_targets(every)
        rolls = [(e, vs) for e, vs in zip(every, against, strict=True)
                 if wanted is None or e.get("seat") in wanted]
        out = []
        for e, vs in rolls[-limit:]:
            out.append({
                "seat": e.get("seat", -1), "who": self.who(e.get("seat")),
                "purpose": self.tr(f"dice.{e.get('purpose', 'other')}")
                if self.tr.has(f"dice.{e.get('purpose', 'other')}") else e.get("purpose", ""),
                "dice": e.get("dice", ""), "faces": list(e.get("faces") or []),
                "total": e.get("total"), "mod": e.get("mod", 0),
                "result": e.get("result") or "",
                "line": dice_line(e, self.tr.lang), "formula": formula(e, vs),
                "parts": terms(self.tr, [(str(k), int(v)) for k, v in e.get("parts") or ()]),
            })
        return out
