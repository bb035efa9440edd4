"""The "updates" feature (docs/protocol.md §5.3): a client that asked for it gets one full
`state`, then `update`s; applied in order they give, at every step, exactly the `state` a
client of the base protocol is sent, and each holds nothing that `state` does not."""

from __future__ import annotations

import re
from typing import Any

import pytest
from grailwar.client.net import ServerConnection
from grailwar.server.feeds import PublicPart, ViewFeed, wire_form
from grailwar.shared.engine import legal_actions, new_game, view_for
from grailwar.shared.engine.state import GameState
from grailwar.shared.modules.campaign import state as campaign
from grailwar.shared.protocol import ProtocolError, encode, message
from grailwar.shared.updates import (
    apply_update,
    legal_refs,
    map_changes,
    module_changes,
    module_entries,
)
from helpers import random_states as played
from server_kit import FakeMember, Server, one
from twisted.internet.testing import StringTransport

# The view invariant, for every module combination (seed, modules, priority): whatever a
# module does, the view a client rebuilds from what the server sent equals a fresh `view_for`.
RAID = {"colossus": {"scenario": "colossus_raid"}}
GAMES = ((3, (), False), (4, (), True), (6, ("tactics",), True), (5, ("campaign",), True),
         (8, ("colossus",), True), (11, ("colossus",), True, RAID),
         (10, ("campaign", "tactics"), True), (12, ("campaign", "colossus"), True))


def full(state: GameState, seat: int | None) -> dict[str, Any]:
    legal = [wire_form(a) for a in legal_actions(state, seat)] if seat is not None else []
    return message("state", view=view_for(state, seat), legal=legal, state_id=state.version,
                   deadlines={})


@pytest.mark.parametrize("compact", [False, True], ids=["updates", "compact"])
@pytest.mark.parametrize("game", GAMES, ids=lambda g: "+".join(g[1]) + "-raid" * (len(g) > 3))
def test_updates_rebuild_every_view_of_every_seat(game: tuple, compact: bool) -> None:
    seed, modules, priority, *options = game
    states = played(seed, modules, priority, *options)
    assert len(states) > 100
    sizes = {"state": 0, "update": 0}
    legal_sent = {"entries": 0, "refs": 0}
    by_entries = by_module_entries = 0
    for seat in (*range(len(states[0].camps)), None):
        feed, public, last, without_legal, modular = (ViewFeed(seat, compact), PublicPart(),
                                                      None, 0, 0)
        for i, state in enumerate(states):
            if seat == 2 and i % 7 == 3:  # a member that missed a state: its own difference
                continue
            want = full(state, seat)
            legal = legal_actions(state, seat) if seat is not None else []
            sent = feed.message(state, public.of(state), legal, {})
            sizes["state"] += len(encode(want))
            sizes["update"] += len(encode(sent))
            if last is None:
                assert sent == want  # the first is the full state
            else:
                assert sent["t"] == "update" and sent["base"] == last["state_id"]
                for key, part in sent["view"].items():  # nothing the full view does not hold
                    assert key != "camps" and part == want["view"][key]
                for name, entries in sent.get("modules", {}).items():
                    assert entries and entries.items() <= want["view"]["modules"][name][
                        "state"].items()
                modular += "modules" in sent or "module_entries" in sent
                for index, camp in sent["camps"].items():
                    assert camp == want["view"]["camps"][int(index)]
                assert ("legal_ref" if compact else "legal") not in sent or \
                    ("legal" if compact else "legal_ref") not in sent
                for key, entries in sent.get("entries", {}).items():
                    assert key not in sent["view"] and entries
                    assert entries.items() <= want["view"][key].items()
                    by_entries += 1
                for name, entries in sent.get("module_entries", {}).items():
                    state = want["view"]["modules"][name]["state"]
                    for key, inner in entries.items():
                        assert key not in sent.get("modules", {}).get(name, {}) and inner
                        assert inner.items() <= state[key].items()
                        by_module_entries += 1
                without_legal += "legal" not in sent and "legal_ref" not in sent
                for entry in sent.get("legal_ref", ()):
                    legal_sent["entries"] += 1
                    legal_sent["refs"] += type(entry) is int
                sent = apply_update(last, sent)
            assert sent == want, (seat, state.version)
            last = sent
        assert without_legal > 0  # unchanged legal actions are not sent again
        assert (modular > 0) == bool(modules)  # a module's state goes by its entries only
    assert sizes["update"] * 3 < sizes["state"]  # what the feature is for
    # compact: most of a changed list's entries are named by their index, and a battle's
    # view goes by its changed entries
    if compact:
        assert legal_sent["refs"] * 3 > legal_sent["entries"] and by_entries > 0
        if "campaign" in modules:  # its day 0's readiness, at least
            assert by_module_entries > 0
        elif not modules:
            assert by_module_entries == 0
    else:
        assert not legal_sent["entries"] and not by_entries and not by_module_entries


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


def test_a_camp_changed_in_place_is_not_reused() -> None:
    """The camp views are reused only for the same camp object: a camp copied on write (the
    engine's only way to change one) is viewed again."""
    state = new_game(seed=1)
    feed, public = ViewFeed(0), PublicPart()
    feed.message(state, public.of(state), [], {})
    after = state.clone()
    after.edit(3).hp -= 2
    after.version += 1
    update = feed.message(after, public.of(after), [], {})
    assert update["camps"] == {"3": view_for(after, 0)["camps"][3]}
    assert update["view"] == {"version": after.version}


def test_an_update_of_another_state_is_refused() -> None:
    state = new_game(seed=1)
    feed, public = ViewFeed(None), PublicPart()
    first = feed.message(state, public.of(state), [], {})
    after = state.clone()
    after.edit(2).hp -= 1
    after.version += 1
    update = feed.message(after, public.of(after), [], {})
    with pytest.raises(ProtocolError, match="update of state 0, but the last state here is 5"):
        apply_update({**first, "state_id": 5}, update)
    with pytest.raises(ProtocolError, match="but the last state here is None"):
        apply_update(None, update)
    with pytest.raises(ProtocolError, match="names camp '9'"):
        apply_update(first, {**update, "camps": {"9": {}}})
    with pytest.raises(ProtocolError, match=r"unknown view parts \['nonsense'\]"):
        apply_update(first, {**update, "view": {"nonsense": 1}})
    with pytest.raises(ProtocolError, match="names module 'tactics', whose state is not a map"):
        apply_update(first, {**update, "modules": {"tactics": {"terrain": 1}}})
    with pytest.raises(ProtocolError, match="`modules` is not a map"):
        apply_update(first, {**update, "modules": [1]})


def test_a_changed_map_part_goes_by_its_changed_entries() -> None:
    """`entries` names what changed in a map part of the view that kept its keys; a part that
    is not a map, or that gained or lost a key, goes whole in `view`. The client refuses an
    entry of a part it does not hold as a map, or an entry that part does not have."""
    old = {"battle": {"round": 1, "cursor": 0, "order": [1, 2]}, "phase": "declare",
           "parley": {"kind": "truce"}, "contest": None}
    new = {"battle": {"round": 1, "cursor": 1, "order": [1, 2]}, "phase": "battle",
           "parley": {"kind": "truce", "opener": 2}, "contest": {"prevented": 1}}
    changed = {k: v for k, v in new.items() if v != old[k]}
    assert map_changes(changed, old) == {"battle": {"cursor": 1}}
    last = {"t": "state", "view": {**old, "version": 4, "camps": []}, "legal": [],
            "state_id": 4, "deadlines": {}}
    update = {"t": "update", "base": 4, "state_id": 5, "view": {"version": 5}, "camps": {},
              "deadlines": {}}
    rebuilt = apply_update(last, {**update, "entries": {"battle": {"cursor": 1}}})
    assert rebuilt["view"]["battle"] == new["battle"]
    assert last["view"]["battle"] == old["battle"]  # the last state is left as it was
    for entries, why in (([1], "the entries of the view are not a map"),
                         ({"phase": {"x": 1}}, "unknown entries of the view's 'phase'"),
                         ({"nonsense": {"x": 1}}, "unknown entries of the view's 'nonsense'"),
                         ({"battle": {"winner": 1}}, "unknown entries of the view's 'battle'"),
                         ({"battle": 3}, "unknown entries of the view's 'battle'")):
        with pytest.raises(ProtocolError, match=re.escape(why)):
            apply_update(last, {**update, "entries": entries})


def test_a_module_state_entry_that_is_a_map_goes_by_its_changed_entries() -> None:
    """For a client that asked for compact, a changed module state entry that is a map with
    the same keys goes by what changed in it (the relic list stays where it was when a camp
    is ready); the client refuses what its last state does not hold as a map."""
    relics = [{"id": "r1", "name": {"en": "a scabbard"}}]
    old = {"campaign": {"options": {}, "verbs": [], "state": {
        "summoning": {"relics": relics, "ready": [0]}, "day0": "setup"}}}
    changes = {"campaign": {"summoning": {"relics": relics, "ready": [0, 3]}, "day0": "done"}}
    whole, nested = module_entries(changes, old)
    assert whole == {"campaign": {"day0": "done"}}
    assert nested == {"campaign": {"summoning": {"ready": [0, 3]}}}
    last = {"t": "state", "view": {"version": 4, "camps": [], "modules": old}, "legal": [],
            "state_id": 4, "deadlines": {}}
    update = {"t": "update", "base": 4, "state_id": 5, "view": {"version": 5}, "camps": {},
              "deadlines": {}, "modules": whole}
    rebuilt = apply_update(last, {**update, "module_entries": nested})
    assert rebuilt["view"]["modules"]["campaign"]["state"] == {
        "summoning": {"relics": relics, "ready": [0, 3]}, "day0": "done"}
    assert old["campaign"]["state"]["summoning"]["ready"] == [0]  # the last state kept
    for nested_bad, why in (([1], "`module_entries` is not a map"),
                            ({"tactics": {}}, "names module 'tactics', whose state is not"),
                            ({"campaign": {"day0": {"x": 1}}},
                             "unknown entries of module 'campaign''s 'day0'"),
                            ({"campaign": {"summoning": {"drafted": 1}}},
                             "unknown entries of module 'campaign''s 'summoning'"),
                            ({"campaign": [1]}, "the entries of module 'campaign' are not")):
        with pytest.raises(ProtocolError, match=re.escape(why)):
            apply_update(last, {**update, "module_entries": nested_bad})


def test_legal_refs_name_the_entries_held_and_refuse_any_other() -> None:
    """An entry the client holds (the same wire form) goes as its index in the client's list,
    a new one whole; the client rebuilds the list in order, and refuses an index it does not
    have or an entry that is neither."""
    from grailwar.shared.engine.actions import DeclareRest, DeclareWait, Move

    held = [wire_form(Move(1, 12)), wire_form(DeclareWait(1)), wire_form(Move(1, 13))]
    new = [wire_form(DeclareWait(1)), wire_form(DeclareRest(1)), wire_form(Move(1, 12))]
    refs = legal_refs(new, held)
    assert refs == [1, {"type": "DeclareRest", "seat": 1}, 0]
    assert legal_refs(new, [dict(entry) for entry in held])[0] == new[0]  # equal, not the same
    last = {"t": "state", "view": {"version": 4, "camps": []}, "legal": held, "state_id": 4,
            "deadlines": {}}
    update = {"t": "update", "base": 4, "state_id": 5, "view": {}, "camps": {},
              "deadlines": {}}
    assert apply_update(last, {**update, "legal_ref": refs})["legal"] == new
    with pytest.raises(ProtocolError, match="names entry 3 of 3"):
        apply_update(last, {**update, "legal_ref": [3]})
    with pytest.raises(ProtocolError, match="names entry -1 of 3"):
        apply_update(last, {**update, "legal_ref": [-1]})
    with pytest.raises(ProtocolError, match="neither an index nor a map"):
        apply_update(last, {**update, "legal_ref": ["Move"]})
    with pytest.raises(ProtocolError, match="`legal_ref` is not a list"):
        apply_update(last, {**update, "legal_ref": {"0": 1}})


def test_a_module_state_goes_by_its_changed_entries() -> None:
    """A seat's own campaign record changing sends that one entry of the module's state, not
    the relic list, the dossiers and every other section's part with it; a module whose
    shape changed (here an option) goes whole."""
    state = new_game(seed=5, modules=("campaign",))
    feed, public = ViewFeed(0), PublicPart()
    first = feed.message(state, public.of(state), [], {})
    after = state.clone()
    campaign.update(after, 0, funds=campaign.record(after, 0).funds + 7)
    after.version += 1
    update = feed.message(after, public.of(after), [], {})
    assert "modules" not in update["view"]
    assert update["modules"] == {"campaign": {"camps": full(after, 0)["view"]["modules"][
        "campaign"]["state"]["camps"]}}
    assert apply_update(first, update)["view"] == full(after, 0)["view"]


def test_a_module_whose_shape_changed_goes_whole() -> None:
    def modules(state: object, options: dict | None = None) -> dict:
        return {"m": {"options": options or {}, "verbs": ["V"], "state": state}}

    assert module_changes(modules({"a": 1, "b": [2]}), modules({"a": 1, "b": [3]})) == {
        "m": {"b": [2]}}
    assert module_changes(modules({"a": 1}), modules({"a": 1})) == {}
    assert module_changes(modules({"a": 1}), modules({"a": 1, "b": 2})) is None  # an entry less
    assert module_changes(modules({"a": 1}), modules({"a": 1}, {"o": 1})) is None  # an option
    assert module_changes(modules(None), modules(None)) == {}  # a state that is not a map
    assert module_changes(modules([1]), modules(None)) is None
    assert module_changes(modules({"a": 1}), {}) is None  # another module


def started_room(server: Server, *members: FakeMember) -> Any:
    room = server.lobby.create("r", {"declare_s": 30}, None)
    for member, cls in zip(members, ("saber", "archer", "lancer"), strict=False):
        room.join_player(member, cls)
    room.start()
    return room


def test_a_room_sends_updates_and_no_log_lines_only_to_who_asked() -> None:
    server = Server()
    plain = FakeMember("plain")
    compact = FakeMember("compact", ("updates", "no_log", "compact"))
    lists = FakeMember("lists", ("updates",))  # its legal actions always whole
    room = started_room(server, plain, compact, lists)
    watcher = FakeMember("watcher", ("updates",))
    room.join_spectator(watcher)
    for _ in range(40):  # all declare, turn after turn
        if room.state.over:
            break
        for member, seat in ((plain, 0), (compact, 1), (lists, 2)):
            legal = legal_actions(room.state, seat)
            if legal:
                room.act(member, wire_form(legal[0]), room.state.version, lambda _v: None)
        server.clock.advance(31)
    assert not plain.updates and plain.of("state")
    assert len(compact.updates) > 20 and len(compact.of("state")) == len(compact.updates) + 1
    assert all("log" in m for m in plain.of("events"))
    assert compact.of("events") and not any("log" in m for m in compact.of("events"))
    assert any("legal_ref" in m for m in compact.updates)
    assert any("legal" in m for m in lists.updates)
    assert not any("legal_ref" in m for m in lists.updates)
    # the rebuilt views are the full views of the same seat at the same moments
    assert compact.last("state")["view"] == view_for(room.state, 1)
    assert plain.last("state")["view"] == view_for(room.state, 0)
    assert lists.last("state")["view"] == view_for(room.state, 2)
    for member, seat in ((compact, 1), (lists, 2)):
        assert member.last("state")["legal"] == [wire_form(a)
                                                 for a in legal_actions(room.state, seat)]
    assert watcher.last("state")["view"] == view_for(room.state, None)
    assert len(watcher.updates) == len(compact.updates)


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
    feed, public = ViewFeed(0), PublicPart()
    sent = [feed.message(s, public.of(s), [], {}) for s in states]
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
    real = feeds.seat_view

    def counted(state: GameState, seat: int | None, camps: Any = None) -> dict[str, Any]:
        viewed.append(seat)
        return real(state, seat, camps)

    monkeypatch.setattr(feeds, "seat_view", counted)
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
