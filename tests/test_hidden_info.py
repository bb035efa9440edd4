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
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterator
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
from grailwar.shared.modules.campaign.info import Information
from helpers import act, duel, find, game, place, ready_all

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
TABLE_IDS = frozenset({*RULES.command_spells, *(b.id for b in RULES.buffs),
                       *(d.id for d in RULES.debuffs), *CLASSES, *RULES.maps})

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
# (bot, seed, modules switched on): the base games, and games with the tactics module.
GAMES = [(bot, seed, ()) for bot in ("heuristic", "random") for seed in (1, 2, 3)] + [
    ("heuristic", 5, ("tactics",)), ("random", 6, ("tactics",)),
    ("heuristic", 7, ("colossus",)), ("random", 8, ("colossus",)),
    ("heuristic", 9, ("campaign",)), ("random", 10, ("campaign",))]
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
             prime: Callable[[GameState], None] | None = None) -> None:
        state = new_game(seed=seed, modules=modules)
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
            for viewer in VIEWERS_OF(s):
                self.check_events(s, events, viewer, before, granted[viewer])
                self.check_view(s, viewer)
            before = [c.known for c in s.camps]
            granted = {v: campaign_grants(s, v) for v in VIEWERS_OF(s)}
            self.tiers_seen[modules].update(*before)
            for grants in granted.values():
                for given in grants.values():
                    self.grants_seen.update(given)

        bots = [make_bot(bot, seed * 31 + i) for i in range(len(state.camps))]
        run_match(state, bots, on_step=on_step, arrival_seed=seed)
        assert state.over

    def check_view(self, state: GameState, viewer: int | None) -> None:
        view = view_for(state, viewer)
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
            extra = set(rec) - module.public_fields if x != viewer else set()
            if extra:
                self.fail("campaign", viewer, f"camp {x}'s record shows {sorted(extra)}")
        if viewer is None:
            if cs["info"]:
                self.fail("campaign", viewer, f"the spectator sees points: {cs['info']}")
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
                self.fail("campaign", viewer, f"points on camp {x} {info} show {entry}")
            tier = 3 if info.true_name else int(sum(info.servant) >= numbers.class_reveal)
            if not state.over and known_tier(state, viewer, x) != tier:
                self.fail("campaign", viewer, f"camp {x} at tier "
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

    def check_events(self, state: GameState, events: list[Event], viewer: int | None,
                     before: list[tuple[int, ...]],
                     granted: dict[int, frozenset[str]] | None = None) -> None:
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
        for event in events_for(events, viewer):
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
    result.play("random", 11, ("campaign",), prime=prime_campaign)
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


def report(audit: Audit, kind: str) -> str:
    return f"{audit.counts[kind]} leak(s) of kind {kind!r}, first ones:\n  " + "\n  ".join(
        audit.found[kind])


@pytest.mark.parametrize("kind", ["skills", "servant", "master", "mp", "hand", "investigation",
                                  "view_keys", "modules", "colossus", "campaign"])
def test_whole_games_leak_nothing(audit: Audit, kind: str) -> None:
    """No view and no event of eight whole bot games (two with the tactics module on) shows a
    secret of this kind to a seat (or to the spectator) that has not revealed it; a public
    module's state is the same for every seat."""
    assert not audit.counts[kind], report(audit, kind)


def test_audit_saw_every_tier(audit: Audit) -> None:
    """The games are worth auditing: with and without the tactics module, investigations
    reached tiers 1, 2 and 3, so every base hidden field and every tier-dependent part of the
    views was checked with the module on too; the tactics state was compared in battle; the
    campaign's points revealed the true name, an NP and the Master's sheet (guards the audit
    itself)."""
    assert set(audit.tiers_seen) == {modules for _, _, modules in GAMES}
    for modules, tiers in audit.tiers_seen.items():
        # the campaign's true name reveals tiers 2 and 3 at once (C1.8)
        wanted = {1, 3} if "campaign" in modules else {1, 2, 3}
        assert tiers >= wanted, f"modules {modules}: only tiers {sorted(tiers)}"
    assert audit.grants_seen == {"np", "master_name", "master_skills"}
    assert audit.module_views["campaign"] > 1000
    assert audit.vacated  # a campaign game left a Master vacant (C9.1, C9.3)
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


def test_the_audit_flags_campaign_leaks() -> None:
    """Guards the campaign's part of the audit: a rival's hidden record field, a Master's name
    shown without the points, and a base tier above what the points give are each flagged
    (no tags: the future spirit's would give points at once)."""
    state = new_game(seed=3, modules=["campaign"], options={"campaign": {"tags": "off"}})
    audit = Audit()
    view = view_for(state, 0)
    audit.check_campaign(state, view, 0)
    assert not audit.counts
    view["modules"]["campaign"]["state"]["camps"][1]["funds"] = 16
    view["modules"]["campaign"]["state"]["info"]["2"]["master_name"] = {"en": "?"}
    audit.check_campaign(state, view, 0)
    with_tier(state, 0, state.camps[3].cls, 1)
    audit.check_campaign(state, view_for(state, 0), 0)
    assert audit.counts["campaign"] == 3, audit.found
# --- the campaign's rows (spec 002 §4): tags, the relic draft -------------------------------------
# Tag events: only the camp dealt the tag receives them (its tag is its own secret, C12.1).
TAG_EVENTS = frozenset({"TagDealt", "JewelsUsed", "SheathHealed", "HomunculusDrank",
                        "RevivalsUpkept", "DragonVeinRested"})
TAG_FIELDS = frozenset({"tag", "jewels", "revivals"})  # a camp record's tag part
RELIC_KEYS = frozenset({"id", "name", "hint", "seat", "cls"})  # what a relic shows anyone


class CampaignAudit:
    """Whole campaign games (relic draft, tags dealt), every view and event for every seat and
    the spectator: a rival's tag is in no record, no section view and no event; the relic draft
    is the same for everyone and never names the Servant a relic calls."""

    def __init__(self) -> None:
        self.found: dict[str, list[str]] = defaultdict(list)
        self.seen: dict[str, int] = defaultdict(int)
        self.label = ""
        self.servant_words = {w for sheet in RULES.by_id.values()
                              for w in (sheet.id, *texts(sheet.true_name))}

    def fail(self, kind: str, viewer: int | None, message: str) -> None:
        if len(self.found[kind]) < 8:
            self.found[kind].append(f"{self.label} viewer {viewer}: {message}")
        self.seen[f"leak:{kind}"] += 1

    def play(self, bot: str, seed: int) -> None:
        state = new_game(seed=seed, modules=("campaign",),
                         options={"campaign": {"summoning": "relic", "tags": "random"}})
        self.label = f"{bot} seed {seed}"

        def on_step(s: GameState, events: list[Event]) -> None:
            drafted = {c.cls for x, c in enumerate(s.camps)
                       if any(seat == x for _r, seat in cp_state.state(s).relics)}
            for viewer in VIEWERS_OF(s):
                tags = hidden_tags(s, viewer)
                part = view_for(s, viewer)["modules"]["campaign"]["state"]
                self.check_tags(part, tags, viewer)
                self.check_relics(part["summoning"], viewer, drafted)
                if set(part["relics"].values()) - {viewer}:
                    self.fail("relics", viewer, f"the taken relics show {part['relics']}")
                self.check_events(events, tags, viewer)

        bots = [make_bot(bot, seed * 31 + i) for i in range(len(state.camps))]
        run_match(state, bots, on_step=on_step, arrival_seed=seed)
        assert state.over

    def check_tags(self, part: dict[str, Any], tags: dict[int, str], viewer: int | None) -> None:
        """`tags`: each camp's tag, "" where the viewer may see it (see `hidden_tags`)."""
        rivals = {t for x, t in tags.items() if t and x != viewer}
        for seat, rec in enumerate(part["camps"]):
            if seat != viewer and TAG_FIELDS & set(rec):
                self.fail("tags", viewer, f"camp {seat}'s record shows {TAG_FIELDS & set(rec)}")
        mine = part.get("tags", {}).get("mine")
        wanted = "" if viewer is None else self.own_tag(part, viewer)
        if (mine or {}).get("id", "") != wanted:
            self.fail("tags", viewer, f"the tags view shows {mine}")
        for path, text in strings(part):
            if text in rivals:
                self.fail("tags", viewer, f"a rival's tag {text!r} at {path}")
        self.seen["tag_views"] += 1

    @staticmethod
    def own_tag(part: dict[str, Any], viewer: int) -> str:
        return part["camps"][viewer]["tag"]

    def check_events(self, events: list[Event], tags: dict[int, str],
                     viewer: int | None) -> None:
        rivals = {t for x, t in tags.items() if t and x != viewer}
        for event in events_for(events, viewer):
            etype = event["type"]
            if etype in TAG_EVENTS:
                self.seen[etype] += 1
                if event.get("seat") != viewer:
                    self.fail("tags", viewer, f"another camp's {etype}: {event}")
            if etype == "RelicChosen":
                self.seen["RelicChosen"] += 1
                if event["seat"] != viewer and event["relic"]:
                    self.fail("relics", viewer, f"another camp's relic: {event}")
            if any(text in rivals for _path, text in strings(event)):
                self.fail("tags", viewer, f"event {etype} names a rival's tag: {event}")

    def check_relics(self, draft: dict[str, Any], viewer: int | None,
                     drafted: set[str]) -> None:
        """Which relic a camp took is its own (the shipped file names each relic's Servant): a
        relic shows a seat only to that seat, and a class only once it is drafted."""
        for relic in draft["relics"]:
            if set(relic) != RELIC_KEYS:
                self.fail("relics", viewer, f"relic {relic['id']} shows {set(relic)}")
            if relic["seat"] not in (-1, viewer):
                self.fail("relics", viewer, f"relic {relic['id']} shows its taker")
            if relic["cls"] and relic["cls"] not in drafted:
                self.fail("relics", viewer, f"free relic {relic['id']} shows its class")
        for path, text in strings(draft):
            if text in self.servant_words:
                self.fail("relics", viewer, f"the draft names a Servant at {path}: {text!r}")
        self.seen["relic_views"] += 1


def hidden_tags(s: GameState, viewer: int | None) -> dict[int, str]:
    """Each camp's tag as a secret from `viewer`: "" for its own, and for a rival whose Master
    the viewer's points revealed (C1.11, a Master total at master_reveal: the information
    section's reveal, not this audit's subject)."""
    from grailwar.shared.modules.campaign import state as cst
    from grailwar.shared.modules.campaign.info import Information
    from grailwar.shared.modules.campaign.section import section_of

    info = section_of(s, Information)
    return {x: "" if viewer is not None and (x == viewer or info.master_level(
                cst.info_on(s, viewer, x)) >= 1) else cst.record(s, x).tag
            for x in range(len(s.camps))}
# --- the campaign: experience, merit, funds and items (spec 002 §4) ------------------------------
# A rival's record never shows these fields (level, experience, points, growth; merit; funds,
# items owned and worn, device placements; the pool and dp, which the composition reveals only
# at tier 1 through the base view's `cards`).
CAMPAIGN_OWN_FIELDS = frozenset({
    "level", "exp", "skill_points", "background_points", "investigation_bonus", "last_growth",
    "pending_growth", "servant_growth_due", "skill_bonus", "scouted_turn", "growth", "merit",
    "funds", "items", "worn", "devices", "pool", "dp", "plus_used"})
# Events only the camp they are about may receive.
CAMPAIGN_OWN_EVENTS = frozenset({
    "ExperienceGained", "LevelGained", "GrowthChosen", "PointSpent", "Studied", "MeritChanged",
    "EscapeBought", "FundsChanged", "ItemBought", "ItemWorn", "DevicePlaced", "DeviceReported",
    "DeviceDestroyed", "CrystalBallUsed", "DeclarationSeen"})
CAMPAIGN_GAMES = (("heuristic", 13), ("random", 14))  # seeds whose games reach a level


def campaign_view_leaks(state: GameState, view: dict[str, Any],
                        viewer: int | None) -> Iterator[str]:
    """The campaign rows of a view: rivals' records without their own fields, the growth and
    gear parts for a seat only, and every camp's max HP public and the same for all."""
    part = view["modules"]["campaign"]["state"]
    for seat, record in enumerate(part["camps"]):
        if seat != viewer:
            yield from (f"camp {seat}'s record shows {key!r}"
                        for key in sorted(CAMPAIGN_OWN_FIELDS & set(record)))
    if viewer is None:
        yield from (f"the spectator gets the {key} part" for key in ("growth", "gear")
                    if key in part)
    for camp in view["camps"]:
        if camp["max_hp"] != core.max_hp(state, state.camps[camp["seat"]]):
            yield f"camp {camp['seat']}'s max HP is not the grown one"


def campaign_event_leaks(event: dict[str, Any], viewer: int | None,
                         tier_of: Callable[[int], int]) -> Iterator[str]:
    etype, actor = event["type"], event.get("seat")
    if actor == viewer:
        return
    if etype in CAMPAIGN_OWN_EVENTS:
        yield f"another camp's {etype}: {event}"
    if etype == "PlusActivated" and event["what"].startswith("skill:") and tier_of(actor) < 1:
        yield f"PlusActivated names a skill below tier 1: {event}"


class GearAudit:
    """Whole campaign bot games, every view and event of every seat and of the spectator."""

    def __init__(self) -> None:
        self.found: list[str] = []
        self.seen: dict[str, int] = defaultdict(int)

    def play(self, bot: str, seed: int) -> None:
        state = new_game(seed=seed, modules=("campaign",))

        def on_step(s: GameState, events: list[Event]) -> None:
            for viewer in VIEWERS_OF(s):
                for message in campaign_view_leaks(s, view_for(s, viewer), viewer):
                    self.found.append(f"{bot} {seed} viewer {viewer}: {message}")
                for event in events_for(events, viewer):
                    self.seen[event["type"]] += event.get("seat") == viewer
                    for message in campaign_event_leaks(
                            event, viewer, lambda a, v=viewer: known_tier(s, v, a)):
                        self.found.append(f"{bot} {seed} viewer {viewer}: {message}")

        bots = [make_bot(bot, seed * 31 + i) for i in range(len(state.camps))]
        run_match(state, bots, on_step=on_step, arrival_seed=seed)


@pytest.fixture(scope="module")
def campaign_audit() -> CampaignAudit:
    result = CampaignAudit()
    for bot, seed in (("heuristic", 9), ("random", 10)):
        result.play(bot, seed)
    return result


@pytest.mark.parametrize("kind", ["tags", "relics"])
def test_whole_campaign_games_leak_no_tag_and_no_rivals_relic(
        campaign_audit: CampaignAudit, kind: str) -> None:
    """Spec 002 §4: tags, own camp only (a rival's through C1.11, the information section's);
    relic names and hints and the drafted classes, everyone alike; which relic a camp took,
    its own (the relic names its Servant in the shipped file); no relic names its Servant."""
    assert not campaign_audit.seen[f"leak:{kind}"], "\n  ".join(campaign_audit.found[kind])


def test_the_campaign_audit_saw_the_draft_and_the_tags_at_work(
        campaign_audit: CampaignAudit) -> None:
    """(Guards the audit: the games drafted relics, dealt tags and used some.)"""
    seen = campaign_audit.seen
    assert seen["RelicChosen"] >= 2 * 7 * 8 and seen["TagDealt"] >= 2 * 7
    assert seen["tag_views"] > 1000 and seen["relic_views"] > 100
    assert seen["JewelsUsed"] + seen["SheathHealed"] + seen["RevivalsUpkept"] > 0


def test_the_campaign_audit_flags_a_rivals_tag() -> None:
    audit = CampaignAudit()
    audit.check_tags({"camps": [{"tag": ""}, {"tag": "overseer"}]}, {0: "", 1: "overseer"}, 0)
    audit.check_tags({"camps": [{"tag": ""}, {}], "info": ["gatekeeper"]},
                     {0: "", 1: "gatekeeper"}, 0)
    audit.check_relics({"relics": [{"id": "x", "name": {"en": "Odysseus"}, "hint": {},
                                    "seat": -1, "cls": "archer"}], "ready": []}, 0, set())
    audit.check_relics({"relics": [{"id": "y", "name": {}, "hint": {}, "seat": 2,
                                    "cls": "saber"}], "ready": []}, 0, {"saber"})
    assert audit.seen["leak:tags"] == 3 and audit.seen["leak:relics"] == 3
# --- the campaign's stances and bonds (spec 002 §4 rows) --------------------------------------
# Record fields that only the camp itself may see (stances: names, traits, links,
# arrangements, NP stance, the current one; bonds held, grades, awards).
CAMPAIGN_OWN = frozenset({"stances", "stance_now", "bonds", "awarded", "awarded_turn", "merit"})
# Events and the seats that may see them whole: the seat in `seat` (its own camp), or also the
# bond's target (a Reverse or a MAX), or the camps an event involves.
CAMPAIGN_EVENTS: dict[str, Callable[[dict[str, Any]], set[int]]] = {
    "StanceNamed": lambda e: {e["seat"]}, "StanceArranged": lambda e: {e["seat"]},
    "StanceTraitSet": lambda e: {e["seat"]}, "StanceLinked": lambda e: {e["seat"]},
    "NoblePhantasmStanceSet": lambda e: {e["seat"]},
    "StanceRevealed": lambda e: {e["seat"]}, "BondSet": lambda e: {e["seat"]},
    "BondAwarded": lambda e: {e["seat"]},
    "BondReversed": lambda e: {e["seat"], e["target"]},
    "BondMaxed": lambda e: {e["seat"], e["target"]},
    "EventTriggered": lambda e: set(e["camps"]),
}


def campaign_leaks(state: GameState, events: list[Event], viewer: int | None) -> Iterator[str]:
    """Every stance or bond secret one step shows `viewer` (None: the spectator)."""
    part = view_for(state, viewer)["modules"]["campaign"]["state"]
    for seat, rec in enumerate(part["camps"]):
        if seat != viewer:
            for key in sorted(CAMPAIGN_OWN & set(rec)):
                yield f"camp {seat}'s record shows {key!r}"
    if viewer is None and "stances" in part:
        yield "the spectator sees a stances part"
    for q in part["bond_queue"]:
        if q[1] != viewer:
            yield f"another seat's bond-damage step {q}"
    for what, seat in (part["battle"] or {}).get("marks", []):
        if what in ("magecraft", "guard_magecraft") and seat != viewer:
            yield f"the battle shows seat {seat}'s {what} mark (it names a skill kind)"
    for event in events_for(events, viewer):
        etype = event["type"]
        if etype in CAMPAIGN_EVENTS and viewer not in CAMPAIGN_EVENTS[etype](event):
            yield f"{etype} reached seat {viewer}: {event}"
        if etype == "StanceChosen" and event["seat"] != viewer and set(event) != {"type", "seat"}:
            yield f"StanceChosen names the stance to seat {viewer}: {event}"


@pytest.mark.parametrize("bot,seed", [("random", 12), ("heuristic", 12)])
def test_campaign_stances_and_bonds_reach_only_their_camps(bot: str, seed: int) -> None:
    """Spec 002 §4: stances, the stance chosen, bonds held, grades and awards stay with the
    holder's camp; a Reverse or a MAX reaches both camps; a resolution is public; a resistant
    rival alone learns a stance. Checked for every seat and the spectator at every step of a
    whole campaign bot game."""
    state = new_game(seed=seed, modules=["campaign"])
    found: list[str] = []
    seen: set[str] = set()

    def on_step(s: GameState, events: list[Event]) -> None:
        seen.update(e.type for e in events)
        for viewer in VIEWERS_OF(s):
            found.extend(campaign_leaks(s, events, viewer))

    bots = [make_bot(bot, seed * 31 + i) for i in range(len(state.camps))]
    run_match(state, bots, on_step=on_step, arrival_seed=seed)
    assert state.over and not found, found[:8]
    assert {"StanceChosen", "BondAwarded", "BondResolved"} <= seen  # the rows were exercised
    if bot == "random":  # the day-0 stance settings too (C14.3)
        assert {"StanceTraitSet", "StanceLinked"} <= seen


def test_the_campaign_audit_flags_a_named_stance_choice_and_a_stray_bond_event() -> None:
    """Guards the audit above: a StanceChosen with its stance, or a BondAwarded, reaching a
    rival is found."""
    state = new_game(seed=1, modules=["campaign"])
    named = Event("StanceChosen", {"seat": 0, "stance": "attack"}, None, None)
    award = Event("BondAwarded", {"seat": 0, "holder": "servant", "target": 1, "grade": 2},
                  None, None)
    assert len(list(campaign_leaks(state, [named, award], 1))) == 2
    assert not list(campaign_leaks(state, [named, award], 0))

def test_a_magecraft_mark_is_shown_to_its_own_camp_only() -> None:
    """That a seat used a (guard) magecraft skill this Round names a kind of skill: the
    campaign's battle part shows the mark to that seat only."""
    state = new_game(seed=1, modules=["campaign"])
    st.put(state, battle=st.BattleRecord(marks=frozenset({("guard_magecraft", 0), ("chose", 0)})))
    marks = [view_for(state, x)["modules"]["campaign"]["state"]["battle"]["marks"]
             for x in (0, 1, None)]
    assert [[list(m) for m in seen] for seen in marks] == [
        [["chose", 0], ["guard_magecraft", 0]], [["chose", 0]], [["chose", 0]]]


@pytest.fixture(scope="module")
def gear_audit() -> GearAudit:
    result = GearAudit()
    for bot, seed in CAMPAIGN_GAMES:
        result.play(bot, seed)
    return result


def test_campaign_games_leak_no_experience_merit_funds_or_items(
        gear_audit: GearAudit) -> None:
    """Spec 002 §4: level, experience, points and growth; merit; funds, items owned and worn
    and device placements reach their own camp only; max HP is public."""
    assert not gear_audit.found, "\n".join(gear_audit.found[:8])


def test_the_campaign_audit_saw_its_events(gear_audit: GearAudit) -> None:
    """Guards the audit: the games gave experience, levels, growth, funds and items."""
    for etype in ("ExperienceGained", "LevelGained", "GrowthChosen", "FundsChanged",
                  "ItemBought", "ItemWorn"):
        assert gear_audit.seen[etype] > 0, etype


def test_the_campaign_audit_flags_a_rivals_secrets() -> None:
    """The audit itself: a rival's funds in a view, another camp's ItemBought, a skill named
    by PlusActivated below tier 1."""
    state = new_game(seed=1, modules=("campaign",))
    view = view_for(state, 0)
    view["modules"]["campaign"]["state"]["camps"][1]["funds"] = 16
    assert list(campaign_view_leaks(state, view, 0)) == ["camp 1's record shows 'funds'"]
    bought = {"type": "ItemBought", "seat": 1, "item": "nekote", "price": 12}
    assert list(campaign_event_leaks(bought, 0, lambda _: 0))
    plus = {"type": "PlusActivated", "seat": 1, "what": "skill:twin_blades", "pay": "mp"}
    assert list(campaign_event_leaks(plus, 0, lambda _: 0))
    assert not list(campaign_event_leaks(plus, 0, lambda _: 1))
