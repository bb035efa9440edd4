"""The "updates" feature (docs/protocol.md §5.3): a client that asked for it gets one full
`state`, then `update`s; applied in order they give, at every step, exactly the `state` a
client of the base protocol is sent, and each holds nothing that `state` does not."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from grailwar.client.net import ServerConnection
from grailwar.server.feeds import ViewFeed, wire_form
from grailwar.shared.engine import legal_actions, new_game, view_for
from grailwar.shared.engine.sharing import Shared
from grailwar.shared.engine.state import GameState
from grailwar.shared.modules.campaign import state as campaign
from grailwar.shared.protocol import ProtocolError, encode, message
from grailwar.shared.updates import apply_update, diff, patched
from helpers import random_states as played
from hypothesis import given
from hypothesis import strategies as st
from server_kit import FakeMember, Server, one
from twisted.internet.testing import StringTransport

# The view invariant, for every module combination (seed, modules, priority): whatever a
# module does, the view a client rebuilds from what the server sent equals a fresh `view_for`
# (made with nothing shared: a part shared or carried wrongly shows here).
RAID = {"colossus": {"scenario": "colossus_raid"}}
GAMES = ((3, (), False), (4, (), True), (6, ("tactics",), True), (5, ("campaign",), True),
         (8, ("colossus",), True), (11, ("colossus",), True, RAID),
         (10, ("campaign", "tactics"), True), (12, ("campaign", "colossus"), True))


def full(state: GameState, seat: int | None) -> dict[str, Any]:
    legal = [wire_form(a) for a in legal_actions(state, seat)] if seat is not None else []
    return message("state", view=view_for(state, seat), legal=legal, state_id=state.version,
                   deadlines={})


def at(root: Any, path: list[Any]) -> Any:
    for step in path:
        root = root[step]
    return root


@pytest.mark.parametrize("game", GAMES, ids=lambda g: "+".join(g[1]) + "-raid" * (len(g) > 3))
def test_updates_rebuild_every_view_of_every_seat(game: tuple) -> None:
    """As a room sends them: one `Shared` per state for all its viewers, made from the one
    before; a member that missed a state gets its own difference."""
    seed, modules, priority, *options = game
    states = played(seed, modules, priority, *options)
    assert len(states) > 100
    sizes = {"state": 0, "update": 0}
    seats = (*range(len(states[0].camps)), None)
    feeds = {seat: ViewFeed(seat) for seat in seats}
    last: dict[int | None, dict[str, Any] | None] = dict.fromkeys(seats)
    without_legal, shared = dict.fromkeys(seats, 0), None
    for i, state in enumerate(states):
        shared = Shared(state, shared)
        for seat in seats:
            if seat == 2 and i % 7 == 3:
                continue
            want = full(state, seat)
            legal = legal_actions(state, seat) if seat is not None else []
            sent = feeds[seat].message(state, shared, legal, {})
            sizes["state"] += len(encode(want))
            sizes["update"] += len(encode(sent))
            if last[seat] is None:
                assert sent == want  # the first is the full state
            else:
                assert sent["t"] == "update" and sent["base"] == last[seat]["state_id"]
                body = {"view": want["view"], "legal": want["legal"]}
                for change in sent["patch"]:  # nothing the full view does not hold
                    if len(change) == 2:
                        assert at(body, change[0]) == change[1]
                without_legal[seat] += all(c[0][0] != "legal" for c in sent["patch"])
                sent = apply_update(last[seat], sent)
            assert sent == want, (seat, state.version)
            last[seat] = sent
    assert all(without_legal.values())  # unchanged legal actions are not sent again
    assert sizes["update"] * 3 < sizes["state"]  # what the feature is for


def test_an_actions_wire_form_is_kept_by_its_class_and_values(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`wire_form` gives `to_dict`, the same dict for an equal action made again, another for
    an action of another class with the same field values, and stays within its bound."""
    from grailwar.server import feeds
    from grailwar.shared.engine.actions import DeclareRest, DeclareWait, Move

    monkeypatch.setattr(feeds, "_WIRE", {})
    monkeypatch.setattr(feeds, "_WIRE_MOST", 8)
    assert wire_form(Move(1, 12)) == Move(1, 12).to_dict() == {"type": "Move", "seat": 1,
                                                               "to": 12}
    assert wire_form(Move(1, 12)) is wire_form(Move(1, 12))
    assert wire_form(DeclareWait(3)) == {"type": "DeclareWait", "seat": 3}
    assert wire_form(DeclareRest(3)) == {"type": "DeclareRest", "seat": 3}
    for to in range(20):
        assert wire_form(Move(0, to))["to"] == to
    assert len(feeds._WIRE) <= 8


def test_an_update_names_only_what_changed() -> None:
    """A camp's HP changed: the update is that one entry and the version, by their paths."""
    state = new_game(seed=1)
    feed = ViewFeed(0)
    feed.message(state, Shared(state), [], {})
    after = state.clone()
    after.edit(3).hp -= 2
    after.version += 1
    update = feed.message(after, Shared(after), [], {})
    assert sorted(update["patch"]) == [[["view", "camps", 3, "hp"], after.camps[3].hp],
                                       [["view", "version"], after.version]]


def test_a_seats_own_record_changing_sends_that_record_entry() -> None:
    """The campaign's state is a map like any part of the view: a seat's own funds changing
    sends that field of its record, not the relic list and the dossiers with it."""
    state = new_game(seed=5, modules=("campaign",))
    feed = ViewFeed(0)
    first = feed.message(state, Shared(state), [], {})
    after = state.clone()
    campaign.update(after, 0, funds=campaign.record(after, 0).funds + 7)
    after.version += 1
    update = feed.message(after, Shared(after), [], {})
    assert sorted(update["patch"]) == [
        [["view", "modules", "campaign", "state", "camps", 0, "funds"],
         campaign.record(after, 0).funds], [["view", "version"], after.version]]
    assert apply_update(first, update)["view"] == full(after, 0)["view"]


def test_a_shared_part_is_bound_to_its_state_and_its_source() -> None:
    """A `Shared` of one state refuses a view of another; a carried part is made again when
    its source is another value, taken when it is equal, and a key names one source."""
    state = new_game(seed=1)
    with pytest.raises(ValueError, match="another state"):
        view_for(state.clone(), 0, Shared(state))
    made: list[int] = []
    first = Shared(state)
    assert first.carried("k", (1, 2), lambda: made.append(1) or "a") == "a"
    second = Shared(state, first)
    assert second.carried("k", (1, 2), lambda: made.append(2) or "b") == "a"  # equal: taken
    third = Shared(state, second)
    assert third.carried("k", (1, 3), lambda: made.append(3) or "c") == "c"  # another: made
    assert Shared(state, third).carried("gone", (1, 2), lambda: "d") == "d"
    assert made == [1, 3]
    with pytest.raises(ValueError, match="names another object"):
        third.carried("k", (9,), lambda: "e")


JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=2),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.sampled_from("abcd"), inner, max_size=4), max_leaves=20)


@given(JSON, JSON)
def test_a_diff_patched_in_gives_the_new_value_and_leaves_the_old(old: Any, new: Any) -> None:
    """Any two views (maps, lists, scalars nested): patching the old one with their `diff`
    gives the new one, and the old one is as it was."""
    root, want = {"view": old}, {"view": new}
    before = copy.deepcopy(old)
    assert patched(root, diff(root, want)) == want
    assert old == before


def test_a_list_of_another_length_goes_whole_and_a_gone_entry_is_deleted() -> None:
    old = {"view": {"a": [1, 2], "b": {"c": 1, "d": 2}}, "legal": [{"type": "X"}]}
    new = {"view": {"a": [1, 2, 3], "b": {"c": 1}}, "legal": [{"type": "X"}]}
    assert diff(old, new) == [[["view", "a"], [1, 2, 3]], [["view", "b", "d"]]]
    assert diff(old, old) == []


def test_an_update_of_another_state_or_path_is_refused() -> None:
    state = new_game(seed=1)
    feed = ViewFeed(None)
    first = feed.message(state, Shared(state), [], {})
    after = state.clone()
    after.edit(2).hp -= 1
    after.version += 1
    update = feed.message(after, Shared(after), [], {})
    with pytest.raises(ProtocolError, match="update of state 0, but the last state here is 5"):
        apply_update({**first, "state_id": 5}, update)
    with pytest.raises(ProtocolError, match="but the last state here is None"):
        apply_update(None, update)
    for patch, why in (({"a": 1}, "`patch` is not a list"),
                       ([[["view", "camps", 9, "hp"], 1]], "no map or list at"),
                       ([[["view", "camps", 9], 1]], "cannot change"),
                       ([[["view", "camps", "0"], 1]], "cannot change"),
                       ([[["nonsense"], 1]], "unknown part 'nonsense'"),
                       ([[["legal"]]], "unknown part 'legal', or it deleted"),
                       ([[[["view"]], 1]], "unknown part"),
                       ([[["view", "version", "x"], 1]], "no map or list at"),
                       ([[["view", "camps", 0]]], "cannot change"),  # a list entry deleted
                       ([[["view", "nothing"]]], "cannot change"),
                       ([[["view", "camps", 0, "hp", 1], 1]], "no map or list at"),
                       ([[[], 1]], "a path of one entry or more"),
                       ([[["view"], 1, 2]], "not [path] or [path, value]"),
                       ([[["view"], 1]], "the view is not a map"),
                       ([[["view", "nothing"], 1]], "the view is not a map of the parts"),
                       ([[["view", "camps"]]], "the view is not a map of the parts"),
                       ([[["legal"], {}]], "legal actions are not a list of maps"),
                       ([[["legal"], [1]]], "legal actions are not a list of maps")):
        with pytest.raises(ProtocolError, match=re.escape(why)):
            apply_update(first, {**update, "patch": patch})


def started_room(server: Server, *members: FakeMember) -> Any:
    room = server.lobby.create("r", {"declare_s": 30}, None)
    for member, cls in zip(members, ("saber", "archer", "lancer"), strict=False):
        room.join_player(member, cls)
    room.start()
    return room


def test_a_room_sends_updates_and_no_log_lines_only_to_who_asked() -> None:
    server = Server()
    plain = FakeMember("plain")
    nolog = FakeMember("nolog", ("updates", "no_log"))
    lists = FakeMember("lists", ("updates",))
    room = started_room(server, plain, nolog, lists)
    watcher = FakeMember("watcher", ("updates",))
    room.join_spectator(watcher)
    for _ in range(40):  # all declare, turn after turn
        if room.state.over:
            break
        for member, seat in ((plain, 0), (nolog, 1), (lists, 2)):
            legal = legal_actions(room.state, seat)
            if legal:
                room.act(member, wire_form(legal[0]), room.state.version, lambda _v: None)
        server.clock.advance(31)
    assert not plain.updates and plain.of("state")
    assert len(nolog.updates) > 20 and len(nolog.of("state")) == len(nolog.updates) + 1
    assert all("log" in m for m in plain.of("events"))
    assert nolog.of("events") and not any("log" in m for m in nolog.of("events"))
    assert any(c[0] == ["legal"] for m in nolog.updates for c in m["patch"])
    assert all("log" in m for m in lists.of("events"))
    # the rebuilt views are the full views of the same seat at the same moments
    assert nolog.last("state")["view"] == view_for(room.state, 1)
    assert plain.last("state")["view"] == view_for(room.state, 0)
    assert lists.last("state")["view"] == view_for(room.state, 2)
    for member, seat in ((nolog, 1), (lists, 2)):
        assert member.last("state")["legal"] == [wire_form(a)
                                                 for a in legal_actions(room.state, seat)]
    assert watcher.last("state")["view"] == view_for(room.state, None)
    assert len(watcher.updates) == len(nolog.updates)


def test_resuming_starts_again_from_a_full_state() -> None:
    server = Server()
    first = FakeMember("rin", ("updates",))
    room = started_room(server, first, FakeMember("b"))
    token = one(first.got, "joined")["token"]
    room.disconnect(first)
    again = FakeMember("rin", ("updates",))
    room.resume(again, token)
    assert [m["t"] for m in again.got if m["t"] in ("state", "update")] == ["state"]
    room.act(again, wire_form(legal_actions(room.state, 0)[0]), room.state.version,
             lambda _v: None)
    assert len(again.updates) == 1
    assert again.last("state")["view"] == view_for(room.state, 0)


def frames(*msgs: dict[str, Any]) -> bytes:
    return b"".join(encode(m) for m in msgs)


def test_the_client_connection_hands_on_full_states() -> None:
    got: list[dict[str, Any]] = []
    conn = ServerConnection("c", got.append)
    transport = StringTransport()
    conn.makeConnection(transport)
    states = played(2, (), False, steps=30)
    feed = ViewFeed(0)
    sent = [feed.message(s, Shared(s), [], {}) for s in states]
    assert sent[1]["t"] == "update"
    conn.dataReceived(frames(*sent))
    assert [m["view"] for m in got] == [view_for(s, 0) for s in states]
    conn.dataReceived(frames(sent[5]))  # an update of a state it no longer has
    assert conn.fault is not None and conn.fault.code == "bad_frame"
    assert transport.disconnecting


def test_the_spectators_share_one_view_of_each_change(monkeypatch: pytest.MonkeyPatch) -> None:
    """Five spectators taking updates cost one view of each change, not five; one joining
    later gets the whole view they are at, and the updates after it rebuild every view."""
    import grailwar.server.feeds as feeds

    viewed: list[int | None] = []
    real = feeds.view_for

    def counted(state: GameState, seat: int | None, shared: Any = None) -> dict[str, Any]:
        viewed.append(seat)
        return real(state, seat, shared)

    monkeypatch.setattr(feeds, "view_for", counted)
    server = Server()
    players = FakeMember("a"), FakeMember("b")
    room = started_room(server, *players)
    watchers = [FakeMember(f"w{i}", ("updates",)) for i in range(5)]
    for watcher in watchers:
        room.join_spectator(watcher)
    viewed.clear()
    for turn in range(6):
        for member, seat in zip(players, (0, 1), strict=True):
            legal = legal_actions(room.state, seat)
            if legal:
                room.act(member, wire_form(legal[0]), room.state.version, lambda _v: None)
        server.clock.advance(31)  # and what the timers answer
        if turn == 2:
            late = FakeMember("late", ("updates",))
            room.join_spectator(late)
            watchers.append(late)
    changes = len(watchers[0].updates)
    assert changes >= 10 and viewed.count(None) == changes
    want = view_for(room.state, None)
    for watcher in watchers:
        assert watcher.last("state")["view"] == want
    assert late.got[[m["t"] for m in late.got].index("state")]["state_id"] < room.state.version
