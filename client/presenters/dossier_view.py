"""The dossier's presenter: what this seat knows of every rival, and which Servants each
may still be. A part of `ClientModel` (mixed in)."""

from __future__ import annotations

from typing import Any

from ...shared.engine.data import CLASSES, Servant
from ...shared.engine.deduction import candidates


class Dossier:
    """What this seat knows of its rivals (mixed into `ClientModel`)."""

    # --- the dossier ----------------------------------------------------------------------------
    def dossier(self) -> list[dict[str, Any]]:
        """For every other class: the tier your investigations reached, what it revealed, and
        the roster Servants it may still be (`candidates`), which narrow as the seat learns."""
        camp = self.my_camp
        view = self.view
        if not view or not camp:
            return []
        tr = self.tr
        known = camp.get("known", {})
        extra = [(part.name, part.dossier(self)) for part in self.parts()]
        rows = []
        for other in view["camps"]:
            if other["seat"] == self.me:
                continue
            cls = other["cls"]
            tier = known.get(cls, 0)
            found = candidates(tr.rules, other)
            row: dict[str, Any] = {
                "seat": other["seat"], "cls": cls, "tier": tier, "alive": other["alive"],
                "ranks": other["ranks"], "roster": len(tr.rules.roster[cls]),
                "candidates": [tr.short_name(s.id) for s in found],
                "candidates_help": "\n".join(self.candidate_line(s) for s in found)}
            if len(found) == 1 and "servant" not in other:
                row["deduced"] = tr.true_name(found[0].id)
            seen = other.get("np_seen")
            if seen:
                row["np_seen"] = tr.np_signature(seen["card"], seen["kind"], seen["scale"])
            if "cards" in other:
                row["cards"] = other["cards"]
                row["skills"] = list(other.get("skills", []))  # ids: the view names them
            if "servant" in other:
                row["true_name"] = tr.true_name(other["servant"])
                row["np"] = tr.np_name(other.get("noble_phantasm"))
            if other.get("profile"):
                servant = tr.servant_by_id(other.get("servant", ""))
                if servant is not None:
                    row["profile"] = servant.profile.get(tr.lang)
                    row["weakness"] = servant.weakness.get(tr.lang)
            row.update((name, rows[other["seat"]]) for name, rows in extra
                       if other["seat"] in rows)
            rows.append(row)
        rows.sort(key=lambda r: CLASSES.index(r["cls"]))
        return rows

    def candidate_line(self, servant: Servant) -> str:
        """What would tell a candidate apart: its cards and its Noble Phantasm when it fires."""
        tr, np = self.tr, servant.np
        return tr("dossier.candidate_line", name=tr.true_name(servant.id), cards=servant.cards,
                  np=tr.np_signature(np.card, np.kind, np.scale))
