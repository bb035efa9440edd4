"""Hidden information never reaches a seat that has not revealed it (DESIGN principle 4).

Whole games are played by bots; after every step the view of every seat and of the spectator,
and every event as each of them sees it, are searched for another camp's secrets: its skills
(revealed at investigation tier 1), its Servant and Noble Phantasm (tier 2), and what no tier
reveals: its hand, its MP, its Master (id, MP, skills) and its investigations.

Ids are searched as whole strings, and as the parts of a ``prefix:id`` string (buff sources,
dice purposes), so ``"heal:herbal_tonic"`` counts as showing the skill ``herbal_tonic``.
Numbers are checked by key presence (no ``mp`` key in another camp's view, no ``mp`` in another
camp's Rested event). The violations of one whole-game audit are split by kind, one test each,
so one leak does not hide another.

With the campaign on, one audit (`CampaignAudit`: the base audit plus a check per row) has one
case per row of the spec's hidden-information table (002 §4), each with the games' proof that
the row came up and a planted leak it must catch.
"""

from __future__ import annotations

import copy
import json
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from grailwar.shared.bots import make_bot
from grailwar.shared.bots.match import run_match
from grailwar.shared.engine import core, new_game, view_for
from grailwar.shared.engine.actions import (
    AnswerIntervention,
    Attack,
    DeclareEncounter,
    DeclareInvestigate,
    DeclareRest,
    DeclareSkill,
    DeclareSoulEating,
    DeclareWait,
    React,
    UseSkill,
    Wait,
)
from grailwar.shared.engine.data import CLASSES, default_ruleset
from grailwar.shared.engine.events import Event, view_event
from grailwar.shared.engine.state import GameState
from grailwar.shared.engine.view import events_for
from grailwar.shared.modules.campaign import campaign
from grailwar.shared.modules.campaign import state as cp_state
from grailwar.shared.modules.campaign import state as st
from grailwar.shared.modules.campaign.data import SUBTYPES
from grailwar.shared.modules.campaign.info import Information
from helpers import act, duel, find, game, past_day0, place, ready_all

RULES = default_ruleset()

# What any seat sees of any camp; each tier adds its keys (view.camp_view).
PUBLIC_KEYS = frozenset({"seat", "cls", "alive", "pos", "hp", "max_hp", "ranks", "movement",
                         "spells", "hand_size", "asleep", "buffs"})
TIER_KEYS = {1: frozenset({"cards", "skills"}), 2: frozenset({"servant", "noble_phantasm"}),
             3: frozenset({"profile", "weakness"})}
# Keys of one's own camp that another camp must never show, by the kind of secret.
OWN_ONLY = {"hand": "hand", "mp": "mp", "max_mp": "mp", "master": "master",
            "master_mp": "master", "max_master_mp": "master", "master_skills": "master",
            "known": "investigation"}

# Ids every seat may see whoever owns them: table entries, classes, maps.
# Public vocabulary: ids everyone may see. The magecraft sub-types are among them (a stance's
# trait argument names one), though two Master skills share their ids ("reinforcement", "curse").
TABLE_IDS = frozenset({*RULES.command_spells, *(b.id for b in RULES.buffs),
                       *(d.id for d in RULES.debuffs), *CLASSES, *RULES.maps, *SUBTYPES})

# Private events: the fields that must be missing for every seat but the one in `seat`.
PRIVATE_FIELDS = {
    "Rested": ("mp", "master_mp"),
    "SoulsEaten": ("mp",),
    "MasterSuppliedMana": ("amount",),
    "UpkeepPaid": ("cost",),
    "UpkeepUnpaid": ("cost",),  # the cost carries hidden upkeep modifiers (skills, NP)
}
# Dice whose result is another camp's MP: faces and total hidden.
MP_DICE = ("rest_mp", "rest_master", "soul_eating", "critical_mp", "mana:")
# Events that only the acting seat may receive at all.
OWN_EVENTS = {"Investigated": "investigation", "TimeWithMaster": "master",
              "MasterSkillUnlocked": "master",
              # the campaign (seed 002 spec §4): the points a camp holds and what they revealed
              "InfoGained": "investigation", "CompositionLearned": "investigation",
              "TrueNameRevealed": "investigation", "NoblePhantasmDisclosed": "investigation",
              "MasterLearned": "investigation", "Researched": "investigation",
              "ExperienceGained": "investigation", "SpiritManaRecovered": "master",
              "BerserkerSupplyPaid": "master"}


def known_tier(state: GameState, viewer: int | None, seat: int) -> int:
    """What `viewer` knows of the camp at `seat`: 3 for its own and, once the game is over,
    for every camp; else 0 for the spectator, the seat's investigation tier for a seat."""
    if viewer == seat or state.over:
        return 3
    if viewer is None:
        return 0
    return state.camps[viewer].known[CLASSES.index(state.camps[seat].cls)]


def texts(text: Any) -> set[str]:
    return {text.ja, text.ko, text.en}


def secrets(state: GameState, tiers: dict[int, int], viewer: int | None,
            grants: dict[int, frozenset[str]] | None = None,
            public: frozenset[str] = frozenset()) -> dict[str, str]:
    """Every secret string another camp holds that `viewer` (at `tiers`) may not see, mapped
    to a description; strings that `viewer` may see for some other reason are left out.
    `grants` (the campaign's information points, `campaign_grants`) add, per camp, what the
    points revealed beyond the tiers: "np" (its NP's name and text), "master_name" (the
    Master's name and profile), "master_skills"; `public` are ids everyone may see (the
    campaign's vacant Masters, C9.3: public from the moment they are left vacant)."""
    allowed = set(TABLE_IDS) | public
    hidden: dict[str, tuple[str, list[int]]] = {}
    for camp in state.camps:
        servant, master, t = camp.servant, camp.master, tiers[camp.seat]
        given = (grants or {}).get(camp.seat, frozenset())
        own = camp.seat == viewer
        skill_names = {x for sk in servant.skills for x in texts(RULES.skills[sk].name)}
        groups = [
            (t >= 1, {**{sk: "skills" for sk in servant.skills},
                      **{x: "skills" for x in skill_names}}),
            (t >= 2, {servant.id: "servant", servant.np.id: "servant",
                      **{x: "servant" for x in texts(servant.true_name)}}),
            (t >= 2 or "np" in given,
             {x: "servant" for x in texts(servant.np.name) | texts(servant.np.text)}),
            (t >= 3, {x: "servant" for x in texts(servant.profile) | texts(servant.weakness)}),
            ("master_name" in given,
             {x: "master" for x in texts(master.name) | texts(master.profile)}),
            ("master_skills" in given, {sk: "master" for sk in master.skills}),
            (False, {master.id: "master"}),
        ]
        for shown, found in groups:
            if own or shown:
                allowed.update(found)
            else:
                for secret, kind in found.items():
                    hidden.setdefault(secret, (kind, []))[1].append(camp.seat)
    return {k: f"{kind}: {k!r} of seat {'/'.join(map(str, seats))}"
            for k, (kind, seats) in hidden.items() if k not in allowed}


def strings(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(path, string) for every string value inside a plain structure."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings(item, f"{path}.{key}")
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from strings(item, f"{path}[{i}]")


def leaks(data: Any, hidden: dict[str, str]) -> Iterator[tuple[str, str]]:
    """(kind, message) for each hidden string found in `data`."""
    for path, text in strings(data):
        for token in {text, *text.split(":")}:
            if token in hidden:
                what = hidden[token]
                yield what.split(":")[0], f"{what} at {path} = {text!r}"


# --- the whole-game audit --------------------------------------------------------------------
# (bot, seed, modules switched on): the base games, and games with the tactics module or the
# colossus (the campaign's games are the folded campaign audit's, below).
GAMES = [(bot, seed, ()) for bot in ("heuristic", "random") for seed in (1, 2, 3)] + [
    ("heuristic", 5, ("tactics",)), ("random", 6, ("tactics",)),
    ("heuristic", 7, ("colossus",)), ("random", 8, ("colossus",))]
# Modules whose state is public by design: every seat sees the spectator's view of it, except
# for keys that only concern the prompted seat (tactics: the targets it cannot hit, and why).
PUBLIC_MODULES = {"tactics": {"ruled_out"}, "colossus": set()}
# The colossus's secrets (spec 003 §4): its part factors and its dodges left. No key of a view
# or an event names them, and its dodge roll reaches nobody.
COLOSSUS_SECRETS = frozenset({"factor", "factors", "dodge_left", "dodges", "dodge_uses"})


def colossus_leaks(data: Any, path: str = "") -> Iterator[str]:
    """Every key of `data` (nested) that names a colossus secret."""
    if isinstance(data, dict):
        for key, value in data.items():
            if key in COLOSSUS_SECRETS:
                yield f"{path}.{key}"
            yield from colossus_leaks(value, f"{path}.{key}")
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from colossus_leaks(value, f"{path}[{i}]")
# The campaign's reveal events (mine only): what each adds to the viewer's grants on `about`.
REVEALS: dict[str, Callable[[dict[str, Any]], set[str]]] = {
    "CompositionLearned": lambda e: set(),
    "TrueNameRevealed": lambda e: {"np"},
    "NoblePhantasmDisclosed": lambda e: {"np"},
    "MasterLearned": lambda e: {"master_name", *(("master_skills",) if e["level"] >= 2 else ())},
}


def master_keys(master: tuple[int, ...], numbers: Any) -> list[set[str]]:
    """The campaign view's keys that Master points show (C1.11), level by level."""
    top = numbers.info_max_master
    out = []
    if sum(master) >= numbers.master_reveal:
        out.append({"master_name", "master_profile", "tag"})
    if any(x >= top for x in master):
        out.append({"master_skills", "unlocked"})
    if all(x >= top for x in master):
        out.append({"master_mp", "max_master_mp", "level", "race"})
    return out


def vacant_ids(state: GameState) -> frozenset[str]:
    """The campaign's vacant Masters: their ids are public (spec 002 §4)."""
    if "campaign" not in state.settings.modules:
        return frozenset()
    return frozenset(v.master for v in cp_state.state(state).vacant)


def campaign_grants(state: GameState, viewer: int | None) -> dict[int, frozenset[str]]:
    """What the campaign's points let `viewer` see of each camp beyond the base tiers."""
    if viewer is None or "campaign" not in state.settings.modules:
        return {}
    numbers = campaign(state).data.numbers
    out = {}
    for x in range(len(state.camps)):
        if x == viewer:
            continue
        info = cp_state.info_on(state, viewer, x)
        keys = set().union(*master_keys(info.master, numbers))
        given = {"np"} if info.np_known else set()
        if "master_name" in keys:
            given.add("master_name")
        if "master_skills" in keys:
            given.add("master_skills")
        out[x] = frozenset(given)
    return out


VIEWERS_OF = lambda state: [*range(len(state.camps)), None]  # noqa: E731


class Audit:
    """Checks every view and every event of a game; records violations by kind."""

    def __init__(self) -> None:
        self.found: dict[str, list[str]] = defaultdict(list)
        self.counts: dict[str, int] = defaultdict(int)
        self.label = ""
        self.step = 0
        self.tiers_seen: dict[tuple[str, ...], set[int]] = defaultdict(set)
        self.module_views: dict[str, int] = defaultdict(int)
        self.raid_views = 0
        self.spectator: tuple[Any, Any] = (None, None)  # (state, version) -> its module views
        self.grants_seen: set[str] = set()  # what campaign points revealed beyond the tiers
        self.public: frozenset[str] = frozenset()  # ids made public this game (vacant Masters)
        self.vacated = False

    def fail(self, kind: str, viewer: int | None, message: str) -> None:
        self.counts[kind] += 1
        if len(self.found[kind]) < 8:
            self.found[kind].append(f"{self.label} step {self.step} viewer {viewer}: {message}")

    def play(self, bot: str, seed: int, modules: tuple[str, ...] = (),
             prime: Callable[[GameState], None] | None = None,
             options: dict[str, Any] | None = None, **game: Any) -> None:
        """One whole game of `bot`s, every view and event of every seat and the spectator
        checked; `game` goes to new_game (a day limit, say)."""
        state = new_game(seed=seed, modules=modules, options=options, **game)
        if prime is not None:
            prime(state)
        before = [c.known for c in state.camps]
        granted = {v: campaign_grants(state, v) for v in VIEWERS_OF(state)}
        self.label = f"{bot} seed {seed} modules {list(modules)}"
        self.step = 0

        self.public = frozenset()

        def on_step(s: GameState, events: list[Event]) -> None:
            nonlocal before, granted
            self.step += 1
            self.public = self.public | vacant_ids(s)
            self.vacated |= bool(self.public)
            self.step_events(s, events)
            for viewer in VIEWERS_OF(s):
                view, seen = view_for(s, viewer), events_for(events, viewer)
                self.check_events(s, seen, viewer, before, granted[viewer])
                self.check_view(s, viewer, view)
                self.check_rows(s, events, view, seen, viewer)
            before = [c.known for c in s.camps]
            granted = {v: campaign_grants(s, v) for v in VIEWERS_OF(s)}
            self.tiers_seen[modules].update(*before)
            for grants in granted.values():
                for given in grants.values():
                    self.grants_seen.update(given)

        bots = [make_bot(bot, seed * 31 + i) for i in range(len(state.camps))]
        run_match(state, bots, on_step=on_step, arrival_seed=seed)
        assert state.over

    def step_events(self, state: GameState, events: list[Event]) -> None:
        """Each step's events before any viewer's checks (the campaign audit counts them)."""

    def check_rows(self, state: GameState, events: list[Event], view: dict[str, Any],
                   seen: list[dict[str, Any]], viewer: int | None) -> None:
        """More checks of one viewer's view and events (the campaign audit's rows)."""

    def check_view(self, state: GameState, viewer: int | None,
                   view: dict[str, Any] | None = None) -> None:
        view = view_for(state, viewer) if view is None else view
        json.dumps(view)  # plain data, ready for the wire
        tiers = {c.seat: known_tier(state, viewer, c.seat) for c in state.camps}
        for camp in view["camps"]:
            seat = camp["seat"]
            if seat == viewer:
                continue
            allowed = PUBLIC_KEYS.union(*(TIER_KEYS[t] for t in TIER_KEYS if tiers[seat] >= t))
            if state.camps[seat].np_shown:  # it fired where all saw it: not named
                allowed |= {"np_seen"}
            for key in sorted(set(camp) - allowed):
                self.fail(OWN_ONLY.get(key, "view_keys"), viewer,
                          f"camp {seat} (tier {tiers[seat]}) shows key {key!r}")
        for kind, message in leaks(view, secrets(state, tiers, viewer,
                                                 campaign_grants(state, viewer), self.public)):
            self.fail(kind, viewer, f"view: {message}")
        self.check_campaign(state, view, viewer)
        for where in colossus_leaks(view["modules"]):
            self.fail("colossus", viewer, f"view: {where}")
        giant = view["modules"].get("colossus")
        self.raid_views += bool(giant and giant["state"]["raid"])
        self.check_public_modules(state, view, viewer)

    def check_campaign(self, state: GameState, view: dict[str, Any],
                       viewer: int | None) -> None:
        """The campaign (spec 002 §4): a rival's record shows only its public fields; the
        points and what they revealed reach their holder only, and exactly as far as the
        points go (C1.7-C1.11); the base tier a camp holds is the one its points give."""
        part = view["modules"].get("campaign")
        if part is None:
            return
        module = campaign(state)
        numbers = module.data.numbers
        cs = part["state"]
        self.module_views["campaign"] += 1
        for x, rec in enumerate(cs["camps"]):
            for key in sorted(set(rec) - module.public_fields if x != viewer else set()):
                self.fail(FIELD_ROW.get(key, "public_state"), viewer,
                          f"camp {x}'s record shows {key!r}")
        if viewer is None:
            if cs["info"]:
                self.fail("points", viewer, f"the spectator sees points: {cs['info']}")
            return
        for x in range(len(state.camps)):
            if x == viewer:
                continue
            info = cp_state.info_on(state, viewer, x)
            entry = cs["info"][str(x)]
            want = {"servant", "master", "max", "np_known", "true_name"}
            if info.np_known and not info.true_name:
                want.add("np")
            for keys in master_keys(info.master, numbers):
                want |= keys
            if set(entry) != want or entry["servant"] != list(info.servant):
                self.fail("points", viewer, f"points on camp {x} {info} show {entry}")
            tier = 3 if info.true_name else int(sum(info.servant) >= numbers.class_reveal)
            if not state.over and known_tier(state, viewer, x) != tier:
                self.fail("tier", viewer, f"camp {x} at tier "
                          f"{known_tier(state, viewer, x)}, its points {info} give {tier}")

    def check_public_modules(self, state: GameState, view: dict[str, Any],
                             viewer: int | None) -> None:
        """A public module shows every seat what the spectator sees (its per-seat keys
        aside): it has no secret a seat's view could carry."""
        key = (id(state), state.version)
        if self.spectator[0] != key:
            self.spectator = (key, view_for(state, None)["modules"])
        for name, own in PUBLIC_MODULES.items():
            if name not in view["modules"]:
                continue
            mine = public_part(view["modules"][name]["state"], own)
            theirs = public_part(self.spectator[1][name]["state"], own)
            self.module_views[name] += state.battle is not None
            if mine != theirs:
                self.fail("modules", viewer, f"module {name} shows this seat {mine}, "
                                             f"the spectator {theirs}")

    def check_events(self, state: GameState, seen: list[dict[str, Any]], viewer: int | None,
                     before: list[tuple[int, ...]],
                     granted: dict[int, frozenset[str]] | None = None) -> None:
        """`seen`: the step's events as `viewer` gets them (`events_for`)."""
        # Tiers as they stood when each event was made: the step's own Investigated event (in
        # the campaign, its reveal events) raises the investigator's tier for the events
        # after it.
        known = list(before[viewer]) if viewer is not None else [0] * len(CLASSES)
        grants = {x: set(g) for x, g in (granted or {}).items()}

        def tiers() -> dict[int, int]:
            return {c.seat: 3 if c.seat == viewer else known[CLASSES.index(c.cls)]
                    for c in state.camps}

        def hidden_now() -> dict[str, str]:
            return secrets(state, tiers(), viewer, {x: frozenset(g) for x, g in grants.items()},
                           self.public)

        hidden = hidden_now()
        for event in seen:
            etype, actor = event["type"], event.get("seat")
            mine = actor is not None and actor == viewer
            if etype == "Investigated" and mine and event["success"]:
                known[CLASSES.index(event["cls"])] = event["tier"]
                hidden = hidden_now()
                continue
            if mine and etype in REVEALS:
                if "tier" in event:
                    known[CLASSES.index(event["cls"])] = event["tier"]
                grants.setdefault(event["target"], set()).update(REVEALS[etype](event))
                hidden = hidden_now()
                continue
            if etype == "RumorShared" and viewer not in (actor, event["target"]):
                self.fail("investigation", viewer, f"another pair's RumorShared: {event}")
            for kind, message in event_leaks(event, mine, hidden, lambda a: tiers()[a]):
                self.fail(kind, viewer, f"event {etype}: {message}")
            for where in colossus_leaks(event):
                self.fail("colossus", viewer, f"event {etype}: {where}")
            if etype == "DiceRolled" and event["purpose"] == "colossus_dodge":
                self.fail("colossus", viewer, f"the colossus's dodge roll: {event}")


def public_part(module_view: Any, own: set[str]) -> Any:
    """A module's view without the keys that concern only the viewing seat."""
    if not isinstance(module_view, dict):
        return module_view
    return {k: v for k, v in module_view.items() if k not in own}


def event_leaks(event: dict[str, Any], mine: bool, hidden: dict[str, str],
                tier_of: Callable[[int], int]) -> Iterator[tuple[str, str]]:
    """Every secret one event shows to a viewer (`mine`: the event is the viewer's own camp's;
    `tier_of(seat)`: how far the viewer has investigated that camp). Shared with the audit of
    the server's messages."""
    etype, actor = event["type"], event.get("seat")
    yield from leaks(event, hidden)
    if "hand" in event:
        yield "hand", "carries a hand"
    if mine:
        return
    if etype in OWN_EVENTS:
        yield OWN_EVENTS[etype], f"another seat's {etype}: {event}"
    for key in PRIVATE_FIELDS.get(etype, ()):
        if key in event:
            yield "mp", f"seat {actor} shows {key!r}"
    if etype == "FumblePenalty" and event.get("penalty") == "mp" and "amount" in event:
        yield "mp", f"MP fumble of seat {actor} shows its amount"
    if etype == "FumblePenalty" and "card" in event:
        yield "hand", f"card fumble of seat {actor} shows the card lost"
    if etype == "DiceRolled":
        purpose = event["purpose"]
        if purpose in ("investigate", "research"):
            yield "investigation", f"investigation roll of seat {actor}"
        elif purpose.startswith(MP_DICE) and (event["faces"] or event["total"] is not None):
            yield "mp", f"MP roll {purpose} of seat {actor}: {event}"
        elif purpose == "fumble_card" and (event["faces"] or event["total"] is not None):
            yield "hand", f"the card fumble's die of seat {actor} shows where in the hand"
        elif purpose == "skill" and tier_of(actor) < 1 and (
                event["target"] is not None or event["faces"] or event["total"] is not None):
            # the check value names the skill; a face with the (public) result bounds the value
            yield "skills", f"skill check of seat {actor} shows its value or face: {event}"
    if etype == "SkillUsed" and event.get("skill") is not None and tier_of(actor) < 1:
        yield "skills", f"SkillUsed of seat {actor} names its skill"


@pytest.fixture(scope="module")
def audit() -> Audit:
    result = Audit()
    for bot, seed, modules in GAMES:
        result.play(bot, seed, modules)
    return result


def prime_campaign(state: GameState) -> None:
    """Half of the pairs of camps start one Legend point short of the true name and one point
    short of each Master maximum, so a whole game reaches the true name, the NP and the
    Master's sheet (C1.8-C1.11): the points' own reveal events and views are audited, not
    only the first reveal."""
    module = campaign(state)
    top = module.data.numbers.info_max_master
    for holder in range(len(state.camps)):
        for other in range(len(state.camps)):
            if holder == other or (holder + other) % 2:
                continue
            most = module.section(Information).servant_max(state, other)
            cp_state.put_info(state, holder, other, cp_state.Info(
                (most, most, most, most - 1), (top - 1,) * 3))
            camp = state.edit(holder)
            known = list(camp.known)
            known[CLASSES.index(state.camps[other].cls)] = 1
            camp.known = tuple(known)


# The base audit's kinds of secret (the campaign's games report them as well, row by row).
BASE_KINDS = ("skills", "servant", "master", "mp", "hand", "investigation", "view_keys",
              "modules", "colossus")


def report(audit: Audit, kind: str) -> str:
    return f"{audit.counts[kind]} leak(s) of kind {kind!r}, first ones:\n  " + "\n  ".join(
        audit.found[kind])


@pytest.mark.parametrize("kind", BASE_KINDS)
def test_whole_games_leak_nothing(audit: Audit, kind: str) -> None:
    """No view and no event of ten whole bot games (two with the tactics module on, two with
    the colossus) shows a secret of this kind to a seat (or to the spectator) that has not
    revealed it; a public module's state is the same for every seat."""
    assert not audit.counts[kind], report(audit, kind)


def test_audit_saw_every_tier(audit: Audit) -> None:
    """The games are worth auditing: with and without the tactics module, investigations
    reached tiers 1, 2 and 3, so every base hidden field and every tier-dependent part of the
    views was checked with the module on too; the tactics state was compared in battle
    (guards the audit itself; the campaign's games are guarded row by row below)."""
    assert set(audit.tiers_seen) == {modules for _, _, modules in GAMES}
    for modules, tiers in audit.tiers_seen.items():
        assert tiers >= {1, 2, 3}, f"modules {modules}: only tiers {sorted(tiers)}"
    assert audit.module_views["tactics"] > 100
    assert audit.raid_views > 100  # the colossus's raids were audited, not only its march


# --- tiers, unit by unit ---------------------------------------------------------------------
def with_tier(state: GameState, viewer: int, cls: str, tier: int) -> GameState:
    camp = state.edit(viewer)
    known = list(camp.known)
    known[CLASSES.index(cls)] = tier
    camp.known = tuple(known)
    return state


def test_tier_0_shows_public_data_only() -> None:
    """Before any investigation a rival camp shows only its public keys: class, position, HP,
    parameters (ranks), Movement, Command Spells, hand size, sleep and buffs."""
    s = game(("saber", "lancer", "archer"))
    view = view_for(s, 0)
    for camp in view["camps"][1:]:
        assert set(camp) == PUBLIC_KEYS
    assert view["camps"][1]["hand_size"] == len(s.camps[1].hand)
    assert view["camps"][1]["ranks"] == RULES.servants["lancer"].ranks


def test_own_camp_shows_everything() -> None:
    """A seat sees its own hand, MP, Master, Master skills (3 until unlocked) and results."""
    s = game()
    me = view_for(s, 0)["camps"][0]
    assert me["hand"] == RULES.servants["saber"].cards
    assert me["mp"] == RULES.servants["saber"].mp
    assert me["master"] == s.camps[0].master.id
    assert me["master_skills"] == list(s.camps[0].master.skills[:3])
    assert me["known"] == dict.fromkeys(CLASSES, 0)
    assert me["servant"] == RULES.servants["saber"].id


def test_tier_1_reveals_skills_and_card_composition() -> None:
    """Tier 1: the composition and the Servant's skills, still no Servant, NP, hand or MP."""
    s = with_tier(game(("saber", "lancer")), 0, "lancer", 1)
    lancer = RULES.servants["lancer"]
    camp = view_for(s, 0)["camps"][1]
    assert camp["cards"] == lancer.cards
    assert camp["skills"] == list(lancer.skills)
    assert set(camp) == PUBLIC_KEYS | TIER_KEYS[1]
    assert not set(leaks(camp, {lancer.id: "servant", lancer.np.id: "servant"}))


def test_tier_2_reveals_servant_and_noble_phantasm() -> None:
    """Tier 2 adds the Servant (its true name) and its Noble Phantasm."""
    s = with_tier(game(("saber", "lancer")), 0, "lancer", 2)
    camp = view_for(s, 0)["camps"][1]
    assert camp["servant"] == RULES.servants["lancer"].id
    assert camp["noble_phantasm"] == RULES.servants["lancer"].np.id
    assert set(camp) == PUBLIC_KEYS | TIER_KEYS[1] | TIER_KEYS[2]


def test_tier_3_reveals_profile_and_weakness() -> None:
    """Tier 3 adds the profile and weakness flags; the hand, MP and Master stay hidden even then
    (the engine never shows another camp's current hand, see docs/rules.md §4.3)."""
    s = with_tier(game(("saber", "lancer")), 0, "lancer", 3)
    camp = view_for(s, 0)["camps"][1]
    assert camp["profile"] is True and camp["weakness"] is True
    assert set(camp) == PUBLIC_KEYS | TIER_KEYS[1] | TIER_KEYS[2] | TIER_KEYS[3]
    assert not set(camp) & set(OWN_ONLY)


def test_tiers_are_per_viewer() -> None:
    """What seat 0 learned about Lancer, seat 2 and the spectator do not know."""
    s = with_tier(game(("saber", "lancer", "archer")), 0, "lancer", 3)
    assert "servant" in view_for(s, 0)["camps"][1]
    assert set(view_for(s, 2)["camps"][1]) == PUBLIC_KEYS
    assert set(view_for(s, None)["camps"][1]) == PUBLIC_KEYS


def test_spectator_sees_public_data_only() -> None:
    """The spectator view holds every camp's public keys and nothing else, and names no
    Servant, Noble Phantasm, skill or Master."""
    s = game(CLASSES)
    view = view_for(s, None)
    assert view["you"] is None
    for camp in view["camps"]:
        assert set(camp) == PUBLIC_KEYS
    tiers = dict.fromkeys(range(len(s.camps)), 0)
    assert not list(leaks(view, secrets(s, tiers, None)))


# --- private events --------------------------------------------------------------------------
def test_investigation_is_private() -> None:
    """An investigation's roll and result reach the investigator only; the declaration's kind
    is public, its target class is not (engine: Declared.arg is private)."""
    s = game(("saber", "lancer", "archer"))
    s, declared = act(s, DeclareInvestigate(0, "lancer"))
    assert view_event(declared[0], 0)["arg"] == "lancer"
    for other in (1, 2, None):
        assert view_event(declared[0], other) == {"type": "Declared", "seat": 0,
                                                  "kind": "investigate"}
    s, _ = act(s, DeclareWait(1))
    s, events = act(s, DeclareWait(2), dice=[6, 6])
    (investigated,) = find(events, "Investigated")
    assert view_event(investigated, 0)["tier"] == 1
    for other in (1, 2, None):
        seen = events_for(events, other)
        assert not [e for e in seen if e["type"] == "Investigated"]
        assert not [e for e in seen if e.get("purpose") == "investigate"]
    assert view_for(s, 0)["camps"][1]["skills"] == list(RULES.servants["lancer"].skills)
    assert "skills" not in view_for(s, 2)["camps"][1]


def test_rest_mp_is_private() -> None:
    """Rested shows the HP gain to all, the MP gains only to the resting camp; the MP dice show
    no faces and no total to the others."""
    s = game(("saber", "lancer"))
    s.edit(0).hp = 50
    s.edit(0).mp = 20
    s, _ = act(s, DeclareRest(0))
    s, events = act(s, DeclareWait(1))
    (rested,) = find(events, "Rested")
    assert set(view_event(rested, 0)) >= {"hp", "mp", "master_mp"}
    for other in (1, None):
        assert view_event(rested, other) == {"type": "Rested", "seat": 0,
                                             "hp": rested.data["hp"]}
        mp_dice = [e for e in events_for(events, other)
                   if e["type"] == "DiceRolled" and e["purpose"] in ("rest_mp", "rest_master")]
        assert all(e["faces"] == [] and e["total"] is None for e in mp_dice)
    assert all(e.get("total") is not None for e in events_for(events, 0)
               if e["type"] == "DiceRolled")


def test_soul_eating_mp_is_private() -> None:
    """SoulsEaten shows where the eating happened to all, the MP gained only to the eater."""
    s = game(("saber", "lancer"))
    s.edit(0).mp = 10
    s, _ = act(s, DeclareSoulEating(0))
    s, events = act(s, DeclareWait(1))
    (eaten,) = find(events, "SoulsEaten")
    assert view_event(eaten, 0)["mp"] > 0
    for other in (1, None):
        assert view_event(eaten, other) == {"type": "SoulsEaten", "seat": 0,
                                            "square": s.camps[0].pos}
        (roll,) = [e for e in events_for(events, other) if e.get("purpose") == "soul_eating"]
        assert roll["total"] is None and roll["faces"] == []


def test_private_event_redaction_rule() -> None:
    """view_event: a private event's data reaches its seats; others get `public` or nothing."""
    secret = Event("X", {"seat": 0, "mp": 5}, frozenset({0}), {"seat": 0})
    silent = Event("Y", {"seat": 0}, frozenset({0}), None)
    assert view_event(secret, 0) == {"type": "X", "seat": 0, "mp": 5}
    assert view_event(secret, 1) == {"type": "X", "seat": 0}
    assert view_event(secret, None) == {"type": "X", "seat": 0}
    assert view_event(silent, 1) is None and view_event(silent, None) is None
    assert events_for([secret, silent], None) == [{"type": "X", "seat": 0}]


# --- hidden skills and Noble Phantasms in battle -----------------------------------------------
def spectator_leaks(state: GameState, events: list[Event]) -> list[str]:
    tiers = dict.fromkeys(range(len(state.camps)), 0)
    hidden = secrets(state, tiers, None)
    return [m for _, m in leaks(events_for(events, None), hidden)]


def test_skill_check_dice_do_not_name_the_skill() -> None:
    """A Servant skill used in battle (Saber's Campeador at combat start) is seen by its effect
    only: no seat without tier 1 may read its id, not in SkillUsed and not in the dice log."""
    s = game(("saber", "lancer"))
    place(s, 0, 10)
    place(s, 1, 10)
    s, _ = act(s, DeclareEncounter(0, 1, "battle"))
    s, events = act(s, UseSkill(0, "campeador"), dice=[10])
    assert spectator_leaks(s, events) == []
    assert all(view_event(e, 1) is None or "campeador" not in json.dumps(view_event(e, 1))
               for e in events)


def test_master_skill_buff_is_not_named_at_tier_1() -> None:
    """Master skills are own-camp only (rules §7): a rival at tier 1 sees a Master-skill buff on
    Saber (Reinforcement of master 'baek') as an unnamed skill buff."""
    s = duel(("saber", "lancer"), masters=("baek", "han"))
    s, _ = act(s, UseSkill(0, "reinforcement"), dice=[10])
    assert any(b.source == "reinforcement" for b in s.camps[0].buffs)
    with_tier(s, 1, "saber", 1)
    assert [b["source"] for b in view_for(s, 1)["camps"][0]["buffs"]] == ["skill"]


def test_healing_skill_dice_do_not_name_the_skill() -> None:
    """A Master's healing skill (Healing Magecraft) rolls its HP in public, under a purpose that
    must not name the skill to those who may not know it."""
    s = duel(("saber", "lancer"), masters=("koga", "han"))
    s.edit(0).hp = 60
    s, events = act(s, UseSkill(0, "healing_magecraft"), dice=[10, 5, 5])
    assert s.camps[0].hp > 60
    assert spectator_leaks(s, events) == []


def test_turn_action_mana_dice_do_not_name_the_skill() -> None:
    """A Master's turn-action skill (Meditation of master 'han', 3D10 MP) hides its MP roll from
    the others, and must hide the skill's name with it (the roll's purpose names it)."""
    s = game(("saber", "lancer"), masters=("baek", "han"))
    s.edit(1).mp = 20
    s, _ = act(s, DeclareWait(0))
    s, events = act(s, DeclareSkill(1, "meditation"))
    assert s.camps[1].mp > 20
    rolls = [e for e in events_for(events, None) if e["type"] == "DiceRolled"]
    assert rolls and all(e["total"] is None for e in rolls)
    assert spectator_leaks(s, events) == []


def test_lethal_skill_trigger_does_not_name_the_skill() -> None:
    """An automatic lethal skill (Berserker's Last Stand) that saves its Servant is seen by its
    effect (HP back up), not by its name."""
    assert "last_stand" in RULES.servants["berserker"].skills
    s = ready_all(duel(("saber", "berserker"), masters=("baek", "han")))
    s.edit(1).hp = 1
    if s.battle.actor == 1:
        s, _ = act(s, Wait(1))
    s, _ = act(s, Attack(0, 1, "B", "B"))
    # hit 2d6 = 4+4 against a Guard, damage 2d10 = 10+10, then Last Stand's 1d100 = 1.
    s, events = act(s, React(1, "G", ""), dice=[4, 4, 10, 10, 1])
    assert s.camps[1].alive and s.camps[1].hp > 1
    assert spectator_leaks(s, events) == []


# --- skill check values and the upkeep cost ----------------------------------------------------
def skill_rolls(events: list[Event], seat: int | None) -> list[dict[str, Any]]:
    return [e for e in events_for(events, seat)
            if e["type"] == "DiceRolled" and e["purpose"] == "skill"]


def test_skill_check_value_reaches_only_those_who_know_the_skill() -> None:
    """A skill check's value (Campeador's 70 at combat start) identifies the skill as surely as
    its id, and its face bounds the value: both reach Saber's camp and a seat that investigated
    Saber to tier 1 (Archer, not in the battle); Lancer at tier 0 and the spectator see that a
    1D100 skill check was rolled and its result, which SkillFailed or the buff show anyway."""
    s = game(("saber", "lancer", "archer"))
    with_tier(s, 2, "saber", 1)
    place(s, 0, 10)
    place(s, 1, 10)
    s, _ = act(s, DeclareEncounter(0, 1, "battle"))
    s, _ = act(s, DeclareWait(2))
    s, _ = act(s, AnswerIntervention(2, False))
    s, events = act(s, UseSkill(0, "campeador"), dice=[10])
    value = RULES.skills["campeador"].check
    for seat in (0, 2):
        (roll,) = skill_rolls(events, seat)
        assert (roll["target"], roll["faces"], roll["result"]) == (value, [10], "success")
    for seat in (1, None):
        (roll,) = skill_rolls(events, seat)
        assert (roll["target"], roll["faces"], roll["total"]) == (None, [], None)
        assert (roll["dice"], roll["result"]) == ("1D100", "success")


def test_master_skill_check_value_reaches_its_own_camp_only() -> None:
    """No investigation reveals a Master skill (rules §7): even at tier 1 a rival does not see
    the value of Reinforcement's check (75)."""
    s = with_tier(duel(("saber", "lancer"), masters=("baek", "han")), 1, "saber", 3)
    s, events = act(s, UseSkill(0, "reinforcement"), dice=[10])
    assert skill_rolls(events, 0)[0]["target"] == RULES.skills["reinforcement"].check
    (roll,) = skill_rolls(events, 1)
    assert (roll["target"], roll["faces"], roll["total"]) == (None, [], None)


def test_unpaid_upkeep_cost_is_private() -> None:
    """The upkeep cost carries the camp's hidden upkeep modifiers: an unpaid one, like a paid
    one, shows its cost to its own camp only; the others see whose upkeep went unpaid."""
    s = game(("saber", "lancer", "archer"))
    s.edit(0).spells, s.edit(0).mp = 0, 1
    events: list[Event] = []
    while s.day == 1:
        s, ev = act(s, DeclareWait(min(s.prompt.seats)))
        events += ev
    (unpaid,) = find(events, "UpkeepUnpaid")
    assert view_event(unpaid, 0)["cost"] > 0
    for other in (1, None):
        assert view_event(unpaid, other) == {"type": "UpkeepUnpaid", "seat": 0}


def test_audit_flags_skill_check_values_and_upkeep_costs() -> None:
    """The audit itself: a skill check's value or face, or an upkeep cost paid or unpaid, shown
    to another camp is a leak (a skill check only to a seat below tier 1)."""
    roll = {"type": "DiceRolled", "seat": 0, "purpose": "skill", "dice": "1D100", "faces": [10],
            "mod": 0, "total": 10, "target": 70, "result": "success"}
    public = {**roll, "faces": [], "total": None, "target": None}
    kinds = lambda event, tier: [k for k, _ in event_leaks(event, False, {}, lambda _: tier)]  # noqa: E731
    assert kinds(roll, 0) == ["skills"] and kinds(roll, 1) == [] and kinds(public, 0) == []
    for etype in ("UpkeepPaid", "UpkeepUnpaid"):
        assert kinds({"type": etype, "seat": 0, "cost": 45}, 3) == ["mp"]
        assert kinds({"type": etype, "seat": 0}, 0) == []


def test_the_audit_flags_colossus_secrets() -> None:
    """Guards the colossus's part of the audit: a factor or a count of dodges anywhere in a
    view or an event is found."""
    assert list(colossus_leaks({"state": {"board": [{"id": "crown", "factor": 200}]}})) == [
        ".state.board[0].factor"]
    assert list(colossus_leaks({"raid": {"dodge_left": 1}})) == [".raid.dodge_left"]
    assert not list(colossus_leaks({"raid": {"tiles": {"0": "crown"}, "hp": 300}}))


# --- the campaign (spec 002 §4): one audit, a case per row of the hidden-information table ------
# Whole campaign bot games (relic draft, tags dealt; one game primed so the points reach the
# true name and the Master's sheet), every view and every event of every seat and of the
# spectator, checked by the base audit (its kinds are reported under the rows they belong to)
# and by each row's own checks; each row names what must have happened in the games for its
# case to count (`witness`: names of events or marks, "a|b" for either).
CAMPAIGN_OPTIONS = {"campaign": {"summoning": "relic", "tags": "random"}}


def prime_watchers(state: GameState) -> None:
    """`prime_campaign`, and every camp owns a Crystal Ball (the random bot uses it)."""
    prime_campaign(state)
    for seat in range(len(state.camps)):
        cp_state.update(state, seat, items=(("crystal_ball", 1),))


# (bot, seed, prime, options): relic drafts, and a primed game of Servants chosen on day 0 (a
# relic's summoning would start the points afresh).
CAMPAIGN_GAMES = (("heuristic", 9, None, CAMPAIGN_OPTIONS), ("random", 10, None, CAMPAIGN_OPTIONS),
                  ("random", 12, prime_watchers, None))
# A rival's record fields, by the row that hides them (the rest but the public ones: the
# public_state row's).
ROW_FIELDS = {
    "points": ("info", "met_now", "met_last_turn", "fought_now", "shared_rumor"),
    "growth": ("level", "exp", "skill_points", "background_points", "investigation_bonus",
               "last_growth", "pending_growth", "servant_growth_due", "skill_bonus",
               "scouted_turn", "growth", "pool", "dp", "race"),
    "gear": ("merit", "funds", "items", "worn", "devices", "plus_used"),
    "stances": ("stances", "stance_now"),
    "bonds": ("bonds", "awarded", "awarded_turn"),
    "tags": ("tag", "jewels", "revivals", "spell_given_turn"),
}
FIELD_ROW = {field: row for row, fields in ROW_FIELDS.items() for field in fields}
TAG_EVENTS = frozenset({"TagDealt", "JewelsUsed", "SheathHealed", "HomunculusDrank",
                        "RevivalsUpkept", "DragonVeinRested"})
RELIC_KEYS = frozenset({"id", "name", "hint", "seat", "cls"})  # what a relic shows anyone
SERVANT_WORDS = frozenset(w for sheet in RULES.by_id.values()
                          for w in (sheet.id, *texts(sheet.true_name)))
# Events and the seats that may see them (the others must not receive them at all).
Whom = Callable[[dict[str, Any]], set[int]]
OWN: Whom = lambda e: {e["seat"]}  # noqa: E731
ROW_EVENTS: dict[str, dict[str, Whom]] = {
    "growth": dict.fromkeys(("ExperienceGained", "LevelGained", "GrowthChosen", "PointSpent",
                             "Studied"), OWN),
    "gear": dict.fromkeys(("MeritChanged", "EscapeBought", "FundsChanged", "ItemBought",
                           "ItemWorn", "DevicePlaced", "DeviceReported", "DeviceDestroyed"), OWN),
    "stances": dict.fromkeys(("StanceNamed", "StanceArranged", "StanceRevealed",
                              "StanceTraitSet", "StanceLinked", "NoblePhantasmStanceSet"), OWN),
    "bonds": {"BondSet": OWN, "BondAwarded": OWN,
              "BondReversed": lambda e: {e["seat"], e["target"]},
              "BondMaxed": lambda e: {e["seat"], e["target"]},
              "EventTriggered": lambda e: set(e["camps"])},
    "tags": dict.fromkeys(TAG_EVENTS, OWN),
    "crystal_ball": dict.fromkeys(("CrystalBallUsed", "DeclarationSeen"), OWN),
}


@dataclass
class Sight:
    """One viewer at one step: the state, the raw events, the view, the campaign part of it,
    the events as the viewer gets them, and the audit (its tiers, the previous step)."""

    state: GameState
    raw: list[Event]
    view: dict[str, Any]
    seen: list[dict[str, Any]]
    viewer: int | None
    audit: CampaignAudit

    @property
    def part(self) -> dict[str, Any]:
        return self.view["modules"]["campaign"]["state"]

    def rivals(self) -> Iterator[tuple[int, dict[str, Any]]]:
        return ((x, rec) for x, rec in enumerate(self.part["camps"]) if x != self.viewer)


def record_fields(row: str) -> Callable[[Sight], Iterator[str]]:
    fields = frozenset(ROW_FIELDS[row])
    return lambda c: (f"camp {x}'s record shows {key!r}" for x, rec in c.rivals()
                      for key in sorted(fields & set(rec)))


def row_events(row: str) -> Callable[[Sight], Iterator[str]]:
    whom = ROW_EVENTS[row]
    return lambda c: (f"{e['type']} reached seat {c.viewer}: {e}" for e in c.seen
                      if e["type"] in whom and c.viewer not in whom[e["type"]](e))


def no_part(key: str) -> Callable[[Sight], Iterator[str]]:
    """The spectator gets no such part of the campaign view (it is a seat's own)."""
    return lambda c: iter([f"the spectator gets the {key} part"] if c.viewer is None
                          and key in c.part else [])


def servant_checks(c: Sight) -> Iterator[str]:
    """Below tier 1 a "+" does not name the skill; a (guard) magecraft mark names a kind of
    skill: its own camp's only."""
    for e in c.seen:
        if (e["type"] == "PlusActivated" and e["seat"] != c.viewer and e["what"].startswith(
                "skill:") and known_tier(c.state, c.viewer, e["seat"]) < 1):
            yield f"PlusActivated names a skill below tier 1: {e}"
    for what, seat in (c.part["battle"] or {}).get("marks", []):
        if what in ("magecraft", "guard_magecraft") and seat != c.viewer:
            yield f"the battle shows seat {seat}'s {what} mark"


def max_hp_public(c: Sight) -> Iterator[str]:
    for camp in c.view["camps"]:
        real = c.state.camps[camp["seat"]]
        if camp["max_hp"] != core.max_hp(c.state, real):
            yield f"camp {camp['seat']}'s max HP is not the grown one"
        elif camp["max_hp"] != real.servant.hp and camp["seat"] != c.viewer:
            c.audit.mark("grown_max_hp")


def item_use(c: Sight) -> Iterator[str]:
    """Item use is public in battle only; then every viewer sees the item and its effect."""
    in_battle = c.state.battle is not None or c.audit.was_battle
    for e in c.raw:
        if e.type == "ItemUsed" and e.private is None:
            if not in_battle:
                yield f"an ItemUsed out of battle is public: {e.data}"
            elif c.viewer != e.data["seat"]:
                c.audit.mark("ItemUsed:public")
    for e in c.seen:
        if e["type"] == "ItemUsed" and e["seat"] != c.viewer and "item" not in e:
            yield f"an item used in battle hides its item: {e}"


def stance_chosen(c: Sight) -> Iterator[str]:
    for e in c.seen:
        if e["type"] == "StanceChosen" and e["seat"] != c.viewer:
            c.audit.mark("StanceChosen:seen")
            if set(e) != {"type", "seat"}:
                yield f"StanceChosen names the stance to seat {c.viewer}: {e}"


def bond_queue(c: Sight) -> Iterator[str]:
    return (f"another seat's bond-damage step {q}" for q in c.part["bond_queue"]
            if q[1] != c.viewer)


def public_state(c: Sight) -> Iterator[str]:
    """Spirit form, stray camps and vacant Masters are the same for every viewer."""
    spectator = c.audit.spectator_part(c.state)
    for key, value in (("spirit", c.part["contract"]["spirit"]), ("vacant", c.part["vacant"])):
        if value != spectator[key]:
            yield f"{key} shows {value}, the spectator {spectator[key]}"
    for x, rec in c.rivals():
        if rec.get("stray") != spectator["stray"][x]:
            yield f"camp {x}'s stray state is not the public one"
    c.audit.mark(*(["spirit"] if spectator["spirit"] else []),
                 *(["vacant"] if spectator["vacant"] else []),
                 *(["stray"] if any(spectator["stray"]) else []))


def tags(c: Sight) -> Iterator[str]:
    """A rival's tag is in no record, section view or event, unless the viewer's points
    revealed its Master (C1.11: the points row); the tags view is the viewer's own."""
    hidden = hidden_tags(c.state, c.viewer)
    rivals = {t for x, t in hidden.items() if t and x != c.viewer}
    mine = (c.part.get("tags") or {}).get("mine")
    wanted = "" if c.viewer is None else st.record(c.state, c.viewer).tag
    if (mine or {}).get("id", "") != wanted:
        yield f"the tags view shows {mine}"
    for path, text in strings({**c.part, "events": c.seen}):
        if text in rivals:
            yield f"a rival's tag {text!r} at {path}"


def relics(c: Sight) -> Iterator[str]:
    """Relic names and hints and the drafted classes, everyone alike; which relic a camp took,
    its own (the shipped relics.toml names each relic's Servant); no relic names its Servant."""
    yield from taken_relics(c)
    draft = c.part["summoning"]
    if c.audit.drafts.get(c.viewer) == draft:  # checked as it stands
        return
    c.audit.drafts[c.viewer] = draft
    g = cp_state.state(c.state)
    drafted = {cam.cls for x, cam in enumerate(c.state.camps)
               if any(seat == x for _r, seat in g.relics)}
    for relic in draft["relics"]:
        if set(relic) != RELIC_KEYS:
            yield f"relic {relic['id']} shows {set(relic)}"
        if relic["seat"] not in (-1, c.viewer):
            yield f"relic {relic['id']} shows its taker"
        if relic["cls"] and relic["cls"] not in drafted:
            yield f"free relic {relic['id']} shows its class"
    yield from (f"the draft names a Servant at {path}: {text!r}"
                for path, text in strings(draft) if text in SERVANT_WORDS)


def taken_relics(c: Sight) -> Iterator[str]:
    """Which relic another camp took is in no view and no RelicChosen."""
    if set(c.part["relics"].values()) - {c.viewer}:
        yield f"the taken relics show {c.part['relics']}"
    for e in c.seen:
        if e["type"] == "RelicChosen" and e["seat"] != c.viewer and e["relic"]:
            yield f"another camp's relic: {e}"


@dataclass(frozen=True)
class Row:
    """One row of spec 002 §4: its checks of a viewer's step, the base audit's kinds it takes
    on, and what must have happened in the games for its case to count."""

    id: str
    information: str
    checks: tuple[Callable[[Sight], Iterator[str]], ...] = ()
    base: tuple[str, ...] = ()
    witness: tuple[str, ...] = ()


ROWS = (
    Row("points", "information points a camp holds, and what they revealed: that camp only",
        (record_fields("points"),), ("investigation", "points"),
        ("InfoGained", "CompositionLearned", "grant:master_name")),
    Row("servant", "composition, skills, NP, true name, profile, weakness: per C1.7-C1.9",
        (servant_checks,), ("skills", "servant", "tier"),
        ("tier:1", "tier:3", "grant:np", "TrueNameRevealed", "NoblePhantasmDisclosed",
         "PlusActivated")),
    Row("master", "a rival's Master: name, tag, skills, MP, level, race: per C1.11", (),
        ("master",), ("MasterLearned", "grant:master_name", "grant:master_skills")),
    Row("growth", "level, experience, skill and background points, growth choices: own camp",
        (record_fields("growth"), row_events("growth"), no_part("growth")), (),
        ("ExperienceGained", "LevelGained", "GrowthChosen", "PointSpent|Studied")),
    Row("max_hp", "max HP (it changes with growth and items): everyone", (max_hp_public,), (),
        ("grown_max_hp",)),
    Row("gear", "merit, funds, items owned and worn, device placements: own camp",
        (record_fields("gear"), row_events("gear"), no_part("gear")), (),
        ("MeritChanged", "FundsChanged", "ItemBought", "ItemWorn")),
    Row("item_use", "item use in battle (item and effect): everyone", (item_use,), (),
        ("ItemUsed:public",)),
    Row("stances", "stances: own camp; a resistant rival sees the current one at Round start",
        (record_fields("stances"), row_events("stances"), no_part("stances")), (),
        ("StanceArranged|StanceNamed", "StanceRevealed", "StanceTraitSet|StanceLinked")),
    Row("stance_chosen", "which stance was chosen this Round: own camp; everyone sees that",
        (stance_chosen,), (), ("StanceChosen:seen",)),
    Row("bonds", "bonds held, grades, awards: the holder; Reverse or MAX: both; resolution: all",
        (record_fields("bonds"), row_events("bonds"), bond_queue), (),
        ("BondAwarded", "BondResolved")),
    Row("public_state", "spirit form, stray state, vacant Masters (id, square): everyone",
        (public_state,), ("public_state",), ("spirit", "vacant", "stray")),
    Row("tags", "tags: own camp; others per C1.11",
        (record_fields("tags"), row_events("tags"), tags), (),
        ("TagDealt", "JewelsUsed|SheathHealed|RevivalsUpkept|HomunculusDrank")),
    Row("relics", "relic hints and who took which relic (the taker's own: its Servant's name)",
        (relics,), (), ("RelicChosen",)),
    Row("crystal_ball", "the declaration argument of a camp watched by a Crystal Ball: its owner",
        (row_events("crystal_ball"),), (), ("CrystalBallUsed", "DeclarationSeen")),
)


class CampaignAudit(Audit):
    """The base audit over campaign games, plus each row's checks; `marks` counts what
    happened (event types, tiers and grants reached, the rows' own marks)."""

    def __init__(self) -> None:
        super().__init__()
        self.marks: dict[str, int] = defaultdict(int)
        self.was_battle = False
        self.public_at: tuple[Any, dict[str, Any]] = (None, {})
        self.drafts: dict[int | None, Any] = {}  # the relic draft each viewer was last shown

    def mark(self, *names: str) -> None:
        for name in names:
            self.marks[name] += 1

    def step_events(self, state: GameState, events: list[Event]) -> None:
        self.mark(*(e.type for e in events))

    def saw(self, name: str) -> bool:
        """Whether the games saw `name`: an event type or a row's mark, a tier reached
        ("tier:N") or a grant of the points ("grant:np")."""
        kind, _, what = name.partition(":")
        if kind == "tier":
            return int(what) in self.tiers_seen[("campaign",)]
        if kind == "grant":
            return what in self.grants_seen
        return bool(self.marks[name])

    def check_rows(self, state: GameState, events: list[Event], view: dict[str, Any],
                   seen: list[dict[str, Any]], viewer: int | None) -> None:
        sight = Sight(state, events, view, seen, viewer, self)
        for row in ROWS:
            for message in (m for check in row.checks for m in check(sight)):
                self.fail(row.id, viewer, message)
        if viewer is None:
            self.was_battle = state.battle is not None

    def spectator_part(self, state: GameState) -> dict[str, Any]:
        """The public parts as the spectator sees them (once per step)."""
        key = (id(state), state.version)
        if self.public_at[0] != key:
            part = view_for(state, None)["modules"]["campaign"]["state"]
            self.public_at = (key, {"spirit": part["contract"]["spirit"],
                                    "vacant": part["vacant"],
                                    "stray": [rec.get("stray") for rec in part["camps"]]})
        return self.public_at[1]

    def leaks_of(self, row: Row) -> tuple[int, list[str]]:
        kinds = (row.id, *row.base)
        return (sum(self.counts[k] for k in kinds),
                [m for k in kinds for m in self.found[k]])


@pytest.fixture(scope="module")
def campaign_audit() -> CampaignAudit:
    result = CampaignAudit()
    for bot, seed, prime, options in CAMPAIGN_GAMES:
        result.play(bot, seed, ("campaign",), prime=prime, options=options)
    return result


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_campaign_games_keep_each_row_of_the_hidden_information_table(
        campaign_audit: CampaignAudit, row: Row) -> None:
    """Spec 002 §4, one row: in three whole campaign bot games (two relic drafts), no
    view and no event shows any seat or the spectator what the row hides from it, and what
    the row makes public is the same for all; the row's information really came up in the
    games (its witnesses), so the case cannot pass on games that never touched it."""
    missing = [w for w in row.witness if not any(map(campaign_audit.saw, w.split("|")))]
    assert not missing, f"row {row.id!r}: the games never saw {missing}"
    count, found = campaign_audit.leaks_of(row)
    assert not count, f"{count} leak(s) of row {row.id!r}:\n  " + "\n  ".join(found[:8])


@pytest.mark.parametrize("kind", [k for k in BASE_KINDS
                                  if all(k not in row.base for row in ROWS)])
def test_campaign_games_leak_no_base_secret(campaign_audit: CampaignAudit, kind: str) -> None:
    """The base game's secrets outside the table (hands, MP, view keys, modules) stay hidden
    with the campaign on too."""
    assert not campaign_audit.counts[kind], report(campaign_audit, kind)


def hidden_tags(s: GameState, viewer: int | None) -> dict[int, str]:
    """Each camp's tag as a secret from `viewer`: "" for its own, and for a rival whose Master
    the viewer's points revealed (C1.11, a Master total at master_reveal: the points row)."""
    info = campaign(s).section(Information)
    return {x: "" if viewer is not None and (x == viewer or info.master_level(
                cp_state.info_on(s, viewer, x)) >= 1) else cp_state.record(s, x).tag
            for x in range(len(s.camps))}


# --- the campaign audit catches what it is there to catch: a planted leak per row ---------------
def planted_game() -> GameState:
    """A campaign game on day 1 with tags: seat 1 has a tag, funds, a bond, stances."""
    return past_day0(new_game(seed=3, modules=["campaign"], options=CAMPAIGN_OPTIONS))


Plant = Callable[[GameState, dict[str, Any], list[dict[str, Any]]], None]


def _part(view: dict[str, Any]) -> dict[str, Any]:
    return view["modules"]["campaign"]["state"]


def _event(**event: Any) -> Plant:
    return lambda s, view, seen: seen.append(event)


def _rival(**fields: Any) -> Plant:
    return lambda s, view, seen: _part(view)["camps"][1].update(fields)


# Leaks of each row to seat 0 (of camp 1's secrets), planted in its view or among its events.
PLANTS: dict[str, tuple[Plant, ...]] = {
    "points": (lambda s, view, seen: _part(view)["info"]["2"].update(master_name={"en": "?"}),
               _rival(info=[]),
               _event(type="InfoGained", seat=1, target=2, category="rumor", amount=1)),
    "servant": (_event(type="PlusActivated", seat=1, what="skill:twin_blades", pay="mp"),
                lambda s, view, seen: seen.append({"type": "Moved",
                                                   "seat": s.camps[1].servant.id})),
    "master": (lambda s, view, seen: seen.append({"type": "Negotiated", "seat": 1,
                                                  "note": s.camps[1].master.id}),),
    "growth": (_rival(level=3), _event(type="LevelGained", seat=1, level=2),
               lambda s, view, seen: view.update(you=None)),  # seat 0's view as a spectator's
    "max_hp": (lambda s, view, seen: view["camps"][1].update(
        max_hp=view["camps"][1]["max_hp"] + 5),),
    "gear": (_rival(funds=16), _event(type="ItemBought", seat=1, item="nekote", price=12)),
    "item_use": (_event(type="ItemUsed", seat=1),),
    "stances": (_rival(stance_now="attack"), _event(type="StanceArranged", seat=1)),
    "stance_chosen": (_event(type="StanceChosen", seat=1, stance="attack"),),
    "bonds": (_event(type="BondAwarded", seat=1, holder="servant", target=2, grade=2),
              lambda s, view, seen: _part(view)["bond_queue"].append(["share", 1, 2, 5])),
    "public_state": (lambda s, view, seen: _part(view)["vacant"].append(
        {"master": "koga", "square": 3}),),
    "tags": (_rival(tag="overseer"),
             lambda s, view, seen: _part(view).update(note=[cp_state.record(s, 1).tag]),
             _event(type="TagDealt", seat=1, tag="overseer")),
    "relics": (lambda s, view, seen: _part(view)["relics"].update(x=1),
               lambda s, view, seen: _part(view)["summoning"]["relics"][0].update(
                   name={"en": "Odysseus"}),
               lambda s, view, seen: _part(view)["summoning"]["relics"][0].update(seat=2),
               _event(type="RelicChosen", seat=1, relic="x")),
    "crystal_ball": (_event(type="DeclarationSeen", seat=1, about=0, kind="rest", target=-1,
                            intent="", arg=""),),
}


def audited(s: GameState, plant: Plant | None, viewer: int = 0) -> CampaignAudit:
    """A campaign audit of `viewer`'s view and events of `s`, with `plant` in them."""
    audit = CampaignAudit()
    view, seen = copy.deepcopy(view_for(s, viewer)), []  # a view is read-only: plant in a copy
    if plant is not None:
        plant(s, view, seen)
    viewer = view["you"]
    audit.check_events(s, seen, viewer, [c.known for c in s.camps], campaign_grants(s, viewer))
    audit.check_view(s, viewer, view)
    audit.check_rows(s, [], view, seen, viewer)
    return audit


@pytest.mark.parametrize(("row", "n"), [(r, n) for r, found in PLANTS.items()
                                        for n in range(len(found))])
def test_the_campaign_audit_flags_a_planted_leak_of_each_row(row: str, n: int) -> None:
    """Guards each case: seat 0's clean view and events of a campaign game raise nothing;
    with one leak of the row planted, that row's case fails."""
    s = planted_game()
    assert cp_state.record(s, 1).tag  # the tags plants need a tag to leak
    (case,) = [r for r in ROWS if r.id == row]
    assert audited(s, None).leaks_of(case) == (0, [])
    assert audited(s, PLANTS[row][n]).leaks_of(case)[0], f"plant {n} of row {row} not flagged"


def test_every_row_has_a_planted_leak() -> None:
    assert set(PLANTS) == {row.id for row in ROWS}


def test_a_plus_names_a_skill_to_a_seat_at_tier_1() -> None:
    """The servant row's "+" check: below tier 1 a skill named by PlusActivated is a leak, at
    tier 1 (the skills known) it is not."""
    s = planted_game()
    plus = [{"type": "PlusActivated", "seat": 1, "what": "skill:twin_blades", "pay": "mp"}]
    flagged = lambda: list(servant_checks(  # noqa: E731
        Sight(s, [], view_for(s, 0), plus, 0, CampaignAudit())))
    assert flagged()
    with_tier(s, 0, s.camps[1].cls, 1)
    assert not flagged()


def test_the_audit_flags_campaign_record_fields_points_and_tiers() -> None:
    """Guards the campaign's part of the base audit: a rival's hidden record field, a Master's
    name shown without the points, and a base tier above what the points give are each
    flagged, under their rows (no tags: the future spirit's would give points at once)."""
    state = new_game(seed=3, modules=["campaign"], options={"campaign": {"tags": "off"}})
    audit = Audit()
    view = copy.deepcopy(view_for(state, 0))  # a view is read-only: plant in a copy
    audit.check_campaign(state, view, 0)
    assert not audit.counts
    view["modules"]["campaign"]["state"]["camps"][1]["funds"] = 16
    view["modules"]["campaign"]["state"]["info"]["2"]["master_name"] = {"en": "?"}
    audit.check_campaign(state, view, 0)
    with_tier(state, 0, state.camps[3].cls, 1)
    audit.check_campaign(state, view_for(state, 0), 0)
    assert dict(audit.counts) == {"gear": 1, "points": 1, "tier": 1}, audit.found


def test_a_magecraft_mark_is_shown_to_its_own_camp_only() -> None:
    """That a seat used a (guard) magecraft skill this Round names a kind of skill: the
    campaign's battle part shows the mark to that seat only."""
    state = new_game(seed=1, modules=["campaign"])
    st.put(state, battle=st.BattleRecord(marks=frozenset({("guard_magecraft", 0),
                                                          ("chose", 0)})))
    marks = [view_for(state, x)["modules"]["campaign"]["state"]["battle"]["marks"]
             for x in (0, 1, None)]
    assert [[list(m) for m in seen] for seen in marks] == [
        [["chose", 0], ["guard_magecraft", 0]], [["chose", 0]], [["chose", 0]]]
