"""The campaign's views are made once per object they are made of (`campaign/memo.py`): a
record a change left alone is not encoded again, and the memo stays bounded."""

from __future__ import annotations

from grailwar.shared.engine import view_for
from grailwar.shared.engine.game import new_game
from grailwar.shared.modules.campaign import campaign
from grailwar.shared.modules.campaign import state as st
from grailwar.shared.modules.campaign.memo import IdentityMemo


def test_the_memo_makes_again_only_for_another_object() -> None:
    memo, made = IdentityMemo(), []
    first, equal = tuple([1, 2]), tuple([1, 2])
    assert first is not equal

    def make(tag: str) -> str:
        made.append(tag)
        return tag

    assert memo.get((first,), lambda: make("a")) == "a"
    assert memo.get((first,), lambda: make("b")) == "a"  # the same object: kept
    assert memo.get((equal,), lambda: make("c")) == "c"  # an equal one is another object
    assert made == ["a", "c"]


def test_the_memo_keeps_what_is_used_and_drops_what_is_not() -> None:
    memo = IdentityMemo(most=2)
    used, dropped = ("used",), ("dropped",)
    objects = [(f"x{i}",) for i in range(6)]
    memo.get((used,), lambda: 1)
    memo.get((dropped,), lambda: 2)
    for i, obj in enumerate(objects):  # two generations pass; `used` is asked in each
        memo.get((obj,), lambda i=i: 10 + i)
        assert memo.get((used,), lambda: -1) == 1
    assert memo.get((dropped,), lambda: -2) == -2
    assert sum(len(g) for g in (memo._young, memo._old)) <= 2 * memo.most


def test_a_record_left_alone_keeps_its_encoding_in_the_next_state() -> None:
    s = new_game(seed=4, modules=["campaign"])
    before = view_for(s, 0)["modules"]["campaign"]["state"]["camps"]
    after = s.clone()
    st.update(after, 2, supply_on=not st.record(after, 2).supply_on)  # a public field
    camps = view_for(after, 0)["modules"]["campaign"]["state"]["camps"]
    assert camps[2] is not before[2] and camps[2] != before[2]  # a rival's record changed
    assert all(camps[x] is before[x] for x in range(len(camps)) if x != 2)
    assert view_for(after, 0)["modules"]["campaign"]["state"]["camps"] is camps


def _info_part(s, seat: int) -> dict:
    return view_for(s, seat)["modules"]["campaign"]["state"]["info"]


def test_the_information_part_is_made_again_when_the_points_or_what_they_reveal_change() -> None:
    s = new_game(seed=4, modules=["campaign"])
    before = _info_part(s, 0)
    assert _info_part(s.clone(), 0) is before  # nothing it reads changed: the same part
    most = campaign(s).data.numbers.info_max_master
    top = st.Info(master=(most,) * len(st.Info().master))  # every Master category at its top
    known = s.clone()
    st.put_info(known, 0, 3, top)
    shown = _info_part(known, 0)
    assert shown is not before and shown["3"]["level"] == st.record(known, 3).level
    assert shown["3"]["master_mp"] == known.camps[3].master_mp
    spent = known.clone()
    spent.edit(3).master_mp -= 1  # a fact the points reveal, not the points
    assert _info_part(spent, 0)["3"]["master_mp"] == known.camps[3].master_mp - 1
    assert _info_part(spent, 1) == _info_part(known, 1)  # a seat with no points on it: same

