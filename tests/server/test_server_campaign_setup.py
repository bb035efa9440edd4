"""The campaign's room options in rooms (seed 002 §14; docs/rules.md "Summoning and day 0"):
`summoning` and `tags` reach the game from create_room, the campaign's summoning and the room's
own switch agree, the day-0 prompts run on the room's timers, and a campaign room restarts into
the same game and replays it."""

from __future__ import annotations

import pytest
from grailwar.server.protocol import ProtocolError
from grailwar.shared.engine import from_replay, to_text
from grailwar.shared.modules.campaign import state as st
from server_kit import FakeMember, Server, restarted, tick
from test_server_game import Table


def campaign(summoning: str, tags: str = "random") -> dict:
    return {"modules": ["campaign"],
            "options": {"campaign": {"summoning": summoning, "tags": tags}}}


def test_the_campaign_options_reach_the_room_list_the_store_and_the_game() -> None:
    server = Server()
    owner = server.wire(name="Rin")
    owner.ask("create_room", name="Fuyuki", seats=2, summoning="choose", **campaign("relic"))
    (rooms,) = server.wire("10.0.0.2", name="x").ask("list_rooms")
    listed = rooms["rooms"][0]
    assert listed["modules"] == ["campaign"] and listed["summoning"] == "random"
    room = owner.proto.room
    assert room.public()["module_options"] == {"campaign": {"summoning": "relic",
                                                            "tags": "random"}}
    assert room.public()["summoned_by"] == ["campaign", "summoning", "relic"]  # for the header
    owner.send("add_bot", cls="lancer")
    owner.send("start")
    assert room.state.settings.options == {"campaign": {"summoning": "relic", "tags": "random"}}
    assert room.state.prompt.kind == "relic" and room.state.day == 0


@pytest.mark.parametrize(("summoning", "says"), [("relic", "drafts them by relics on day 0"),
                                                 ("random", "deals them at random")])
def test_a_campaign_that_deals_the_servants_leaves_the_room_nothing_to_choose(
        summoning: str, says: str) -> None:
    """With the campaign's random or relic summoning the room's own switch is `random` (asked
    `choose` or not) and choose_servant is refused, naming why."""
    t = Table(("saber", "lancer"), humans=1, summoning="choose", **campaign(summoning))
    assert t.room.options["summoning"] == "random"
    with pytest.raises(ProtocolError, match=says):
        t.room.choose_servant(t.members[0], "gyebaek")


def test_with_the_campaigns_choose_the_rooms_own_switch_picks_the_servant() -> None:
    """Campaign `choose` is the base lobby: the seat's class, and its Servant of choice."""
    t = Table(("saber", "lancer"), humans=1, summoning="choose", **campaign("choose", "off"))
    t.room.choose_servant(t.members[0], "gyebaek")
    t.start()
    assert t.state.camps[0].servant.id == "gyebaek"
    assert t.state.prompt.kind == "setup"


def test_the_relic_draft_times_out_to_the_first_free_relic_then_setup_waits_setup_s() -> None:
    """Two silent players: at draft_s each gets the first free relic in file order (the
    second: the first of another class); the setup prompt then waits setup_s (the room's
    other timers play no part)."""
    t = Table(("saber", "lancer"), humans=2, draft_s=20, setup_s=100, prompt_s=5,
              declare_s=30, **campaign("relic", "off")).start()
    t.tick(19)
    assert t.state.prompt.kind == "relic"
    t.tick(2)
    assert dict(st.state(t.state).relics) == {"white_charger_bridle": 0, "great_eggshell": 1}
    assert [c.cls for c in t.state.camps] == ["saber", "archer"]
    assert t.state.prompt.kind == "setup"
    t.tick(98)
    assert t.state.prompt.kind == "setup"
    t.tick(3)
    assert t.state.day == 1 and t.state.prompt.kind == "declare"


@pytest.mark.parametrize("summoning", ["random", "relic"])
def test_a_campaign_room_that_deals_replays_mid_game_and_restarts(summoning: str) -> None:
    """The classes and Servants dealt (not the lobby's) come back from the seed: a replay of
    the game so far and a restart rebuild the same state."""
    t = Table(("saber", "lancer", "rider"), humans=0, **campaign(summoning)).start()
    t.tick(60)
    if summoning == "random":  # this seed deals other classes than the lobby's
        assert [c.cls for c in t.state.camps] == ["rider", "berserker", "assassin"]
    assert t.state.day >= 1
    assert to_text(from_replay(t.room.replay())) == to_text(t.state)
    before = to_text(t.state)
    t.room.stop()
    _clock, lobby = restarted(t.store, t.clock.seconds())
    assert to_text(lobby.rooms[1].state) == before
    lobby.stop()


def test_a_relic_campaign_room_restarts_into_the_same_game_and_replays_it() -> None:
    """Bots draft, ready and play; a restart from the store rebuilds the same state (relics,
    tags, classes); played to its end, the replay rebuilds the final state."""
    t = Table(("saber", "lancer", "rider"), humans=0, **campaign("relic")).start()
    for _ in range(400):
        if t.state.day >= 2:
            break
        t.tick(1)
    assert t.state.day >= 2 and len(st.state(t.state).relics) == 3
    g = st.state(t.state)  # a tag is its Master's: a dead Servant's Master keeps it, vacant
    assert len([r for r in (*g.camps, *(v.record for v in g.vacant)) if r.tag]) == 3
    before = to_text(t.state)
    t.room.stop()

    clock, lobby = restarted(t.store, t.clock.seconds())
    room = lobby.rooms[1]
    assert to_text(room.state) == before
    watcher = FakeMember("w")
    room.join_spectator(watcher)
    for _ in range(3000):
        if room.state.over:
            break
        tick(clock, 5)
    assert room.state.over
    replay = watcher.last("replay")["replay"]
    assert replay["options"] == {"campaign": {"summoning": "relic", "tags": "random"}}
    assert to_text(from_replay(replay)) == to_text(room.state)
    lobby.stop()
