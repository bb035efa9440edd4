"""§1 of the campaign: information points (C1.1-C1.15). They replace the base investigation
tiers: what a camp sees of a rival derives from the points it holds on it.

The points a camp holds are its own secret (spec §4), so no record field here is public.
"""

from __future__ import annotations

from .section import Section


class Information(Section):
    key = "info"
