"""The campaign's views carry from one state's views to the next (`Shared.carried`) what is
made of objects the next state still holds: a record a change left alone is not encoded again,
and a part whose sources changed is made again (the view invariant of
tests/server/test_updates.py checks every carried part against a view made from nothing)."""

from __future__ import annotations

from typing import Any

from grailwar.shared.engine import view_for
from grailwar.shared.engine.game import new_game
from grailwar.shared.engine.sharing import Shared
from grailwar.shared.engine.state import GameState
from grailwar.shared.modules.campaign import campaign
from grailwar.shared.modules.campaign import state as st


def _state_part(s: GameState, seat: int, shared: Shared) -> dict[str, Any]:
    return view_for(s, seat, shared)["modules"]["campaign"]["state"]


def test_a_record_left_alone_keeps_its_encoding_in_the_next_state() -> None:
    s = new_game(seed=4, modules=["campaign"])
    first = Shared(s)
    before = _state_part(s, 0, first)["camps"]
    after = s.clone()
    st.update(after, 2, supply_on=not st.record(after, 2).supply_on)  # a public field
    shared = Shared(after, first)
    camps = _state_part(after, 0, shared)["camps"]
    assert camps[2] is not before[2] and camps[2] != before[2]  # a rival's record changed
    assert all(camps[x] is before[x] for x in range(len(camps)) if x != 2)
    rivals = _state_part(after, 1, shared)["camps"][0], _state_part(after, 3, shared)["camps"][0]
    assert rivals[0] is rivals[1] and rivals[0] != camps[0]  # a rival's, one for all rivals
    assert camps == _state_part(after, 0, Shared(after))["camps"]  # as made from nothing


def test_the_information_part_is_made_again_when_the_points_or_what_they_reveal_change() -> None:
    s = new_game(seed=4, modules=["campaign"])
    first = Shared(s)
    before = _state_part(s, 0, first)["info"]
    again = s.clone()
    assert _state_part(again, 0, Shared(again, first))["info"]["3"] is before["3"]
    most = campaign(s).data.numbers.info_max_master
    top = st.Info(master=(most,) * len(st.Info().master))  # every Master category at its top
    known = s.clone()
    st.put_info(known, 0, 3, top)
    shared = Shared(known, first)
    shown = _state_part(known, 0, shared)["info"]
    assert shown["3"] is not before["3"] and shown["3"]["level"] == st.record(known, 3).level
    assert shown["3"]["master_mp"] == known.camps[3].master_mp
    assert shown["4"] is before["4"]  # its points on another rival: carried
    spent = known.clone()
    spent.edit(3).master_mp -= 1  # a fact the points reveal, not the points
    later = Shared(spent, shared)
    assert _state_part(spent, 0, later)["info"]["3"]["master_mp"] == known.camps[3].master_mp - 1
    assert _state_part(spent, 1, later)["info"] == _state_part(known, 1, Shared(known))["info"]
