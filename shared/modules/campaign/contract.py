"""§0 and §9 of the campaign: the contract, spirit form and upkeep (C0.1-C0.8), contract
cancellation, stray Servants, vacant Masters and re-contracts (C9.1-C9.4).

Everything here is public (spec §4: spirit form, stray state and vacant Masters are seen by
every seat), so its record fields are all `public_fields`.
"""

from __future__ import annotations

from .section import Section


class Contract(Section):
    key = "contract"
    public_fields = ("supply_on", "supply_turn", "spirit_since", "materialized_turn", "stray",
                     "cancel_turn")
