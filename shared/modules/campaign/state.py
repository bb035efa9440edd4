"""The campaign's slot of the game state (spec 002 §6.1): plain, immutable data replaced as a
whole, like every module slot. A section never edits a record in place: it reads one with
`record(s, seat)` and writes a new one with `put_record(s, seat, rec._replace(...))`, so a cloned
state shares the slot until one side writes (copy-on-write, as for a `Camp`).

Every field of §6.1 is defined here with its initial value, so that the sections only add
rules; the section that owns a field is named in the comment beside it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

from ...engine.data import CARD_KINDS
from .data import MASTER_CATEGORIES, METHODS, SERVANT_CATEGORIES, STANCES, TRAITS

if TYPE_CHECKING:
    from ...engine.data import Servant
    from ...engine.state import Declaration, GameState
    from .data import CampaignData
    from .raids import RaidRecord

NAME = "campaign"
DAY0_PHASES = ("relic", "setup", "done")  # §14: the day-0 stages, "done" once day 1 opened
HOMUNCULUS = "founding_homunculus"  # C12.1 ④: the tag that makes its Master artificial
LEAD = ("open", "won", "lost")  # a camp's lead exchange this Round (§0 mapping)


class Info(NamedTuple):
    """One camp's information points on another (C1.1): Servant counters in
    `SERVANT_CATEGORIES` order, Master counters in `MASTER_CATEGORIES` order; whether the NP was
    disclosed (C1.9) and the true name revealed (C1.8)."""

    servant: tuple[int, ...] = (0,) * len(SERVANT_CATEGORIES)
    master: tuple[int, ...] = (0,) * len(MASTER_CATEGORIES)
    np_known: bool = False
    true_name: bool = False


class Stance(NamedTuple):
    """One of a Servant's four stances (C5.1): name ("" = its default name), arrangement (the
    whole pool as card letters, in order), trait and its argument, linked category, NP flag."""

    name: str
    order: str
    trait: str
    arg: str
    link: str
    np: bool


class Bond(NamedTuple):
    """A one-way bond (C8.1): held by `holder` ("servant" or "master") of the record's camp
    toward camp `target` (the camp itself: the internal bond toward its other half)."""

    holder: str
    target: int
    polarity: str  # "positive" | "negative"
    grade: int  # 0-5, or bond_max_value for MAX
    fixed: bool = False
    battles: int = 0  # battles fought against the target (C8.9 nemesis)


class Device(NamedTuple):
    """A placed scouting device (C6.18, C6.20, C6.21, C6.26)."""

    item: str
    square: int
    turns_left: int  # -1: until it finds someone
    damaged: bool = False


class CampRecord(NamedTuple):
    """Everything the campaign keeps per camp (§6.1). Kind-indexed tuples follow `CARD_KINDS`
    (B, A, Q); `exp` follows `METHODS`; `info` has one entry per seat (its own is unused)."""

    # §0 / §9 contract (contract.py)
    supply_on: bool = True
    supply_turn: int = -1  # turn_key of the last SetSupply (one change per Turn, C0.2)
    materialized_turn: int = -1  # turn_key of the Turn it materialized in (C0.3)
    stray: bool = False  # no Master: after C9.1, or once a dead Servant's Master left (C9.3)
    cancel_turn: int = -1  # turn_key of a DeclareCancelContract (C9.1, C9.4)
    recontract: str = ""  # the vacant Master a DeclareRecontract claimed this Turn (C9.4)
    # §2 experience and levels (growth.py)
    level: int = 1
    exp: tuple[int, ...] = (0,) * len(METHODS)
    skill_points: int = 0
    background_points: int = 0
    investigation_bonus: int = 0  # background points spent on investigation (C2.6)
    last_growth: str = ""
    pending_growth: int = 0  # levels whose growth choice is still to be made (C2.7)
    servant_growth_due: bool = False  # the level's ChooseGrowth made, ChooseServantGrowth next
    skill_bonus: tuple[tuple[str, int], ...] = ()  # Master skill id -> check bought (C2.6)
    scouted_turn: int = -1  # turn_key of the last Turn an info point came by scouting (C2.2)
    growth: tuple[tuple[str, int], ...] = ()  # contract gains (what, amount), undone at C2.9
    # §3 merit (merit.py)
    merit: tuple[int, int] = (0, 0)  # (servant, master)
    # §6 funds and items (gear.py)
    funds: int = 0
    items: tuple[tuple[str, int], ...] = ()  # item id -> owned count, sorted
    worn: tuple[tuple[str, str], ...] = ()  # (item id, wearer "servant" | "master"), sorted
    devices: tuple[Device, ...] = ()
    # the pool and damage points (growth.py, gear.py; read by stances.py and the hand-fill)
    pool: tuple[int, ...] = (0,) * len(CARD_KINDS)  # tiles per kind; cards = tiles // per card
    dp: tuple[tuple[int, ...], tuple[int, ...]] = ((0,) * len(CARD_KINDS),) * 2  # contract, items
    # §5 stances (stances.py)
    stances: tuple[Stance, ...] = ()
    stance_now: str = "normal"
    plus_used: frozenset[str] = frozenset()  # "+" activated this Round (C4.3)
    # §7 Command Spells (spells.py)
    kept_turn: int = -1  # turn_key of a KeepDeclaration: no Action Restriction (C7.10)
    # §1 information points (info.py)
    info: tuple[Info, ...] = ()
    met_now: frozenset[int] = frozenset()  # camps met this Turn (C1.2), cleared at its end
    met_last_turn: frozenset[int] = frozenset()  # read by bonds (C8.2, C8.3)
    fought_now: frozenset[int] = frozenset()  # camps given a Combat point this Turn (C1.3)
    shared_rumor: bool = False  # ShareRumor sent in the current negotiation (C1.13)
    # §8 bonds (bonds.py)
    bonds: tuple[Bond, ...] = ()
    awarded: frozenset[tuple[str, int]] = frozenset()  # (holder, target) awarded this Turn
    awarded_turn: int = -1  # turn_key the awards were made in (C8.3)
    # §12 tags (tags.py)
    tag: str = ""
    jewels: int = 0
    race: str = ""  # the Master's race when a scenario sets it ("": its data's)
    revivals: int = 0
    spell_given_turn: int = -1  # turn_key of the Overseer's last GiveCommandSpell (⑤)


class VacantMaster(NamedTuple):
    """A Master without a Servant (C9.1, C9.3): it stands on `square` and carries its MP,
    strokes and its part of the record (`master_part`: level, experience, its merit wallet,
    the bonds it holds, what it wears, its tag) until a stray camp re-contracts it (C9.4)."""

    master: str
    square: int
    master_mp: int
    spells: int
    record: CampRecord
    known: tuple[tuple[int, ...], ...] = ()  # per seat, its Master points on this Master (C1.1)


class BattleRecord(NamedTuple):
    """Per battle (§6.1): each seat's lead exchange this Round (`LEAD`), the Absolute Defense
    protected instance (seat, amount waived), end-of-battle bond damage (holder seat, target
    seat, amount); `marks`, (what, seat) pairs of the battle's short-lived facts (a stance
    chosen this Round, a Command Spell waiting for its moment: stances.py, spells.py); the
    exchange being resolved (attacker, defender, reaction kind, an NP's), or empty."""

    lead: tuple[str, ...] = ()
    front: frozenset[int] = frozenset()  # seats that attacked or fired their NP (C2.2 front row)
    protected: tuple[tuple[int, int], ...] = ()
    bond_damage: tuple[tuple[int, int, int], ...] = ()
    marks: frozenset[tuple[str, int]] = frozenset()
    exchange: tuple[int, int, str, bool] | tuple[()] = ()


class CampaignState(NamedTuple):
    """The whole slot: one record per seat, then the global part (§6.1)."""

    camps: tuple[CampRecord, ...]
    vacant: tuple[VacantMaster, ...] = ()
    residual: tuple[tuple[int, frozenset[str]], ...] = ()  # square -> classes (C1.15)
    relics: tuple[tuple[str, int], ...] = ()  # relic id -> the seat that took it (C14.2)
    day0: str = "done"
    day0_ready: frozenset[int] = frozenset()  # seats that sent SetupReady (C14.3, summoning.py)
    battle: BattleRecord | None = None
    # C8.8: bond damage still to settle, in order: (step, seat asked, victim, amount); steps
    # "share" and "split" are prompts, "end" deals what the shares left (bonds.py).
    bond_queue: tuple[tuple[str, int, int, int], ...] = ()
    raid: RaidRecord | None = None  # the colossus's open raid, as the campaign sees it (raids.py)


# --- initial values -------------------------------------------------------------------------------
def default_stances(sheet: Servant, data: CampaignData) -> tuple[Stance, ...]:
    """The four stances of a fresh contract (§3 "Stance defaults"): normal (none, Combat),
    attack (kind_damage on the kind with the most cards, Encounter), defense (extra_guard,
    Rumor), critical (won_lead, Legend, holds the NP); every arrangement the sheet's order;
    then the Servant's `servants.toml` overrides."""
    most = max(CARD_KINDS, key=sheet.cards.count)  # ties: the first in B, A, Q order
    base = {"normal": ("none", "", "combat", False),
            "attack": ("kind_damage", most, "encounter", False),
            "defense": ("extra_guard", "", "rumor", False),
            "critical": ("won_lead", "", "legend", True)}
    own = data.servants[sheet.id].stances
    out = []
    for name in STANCES:
        trait, arg, link, np = base[name]
        spec = own.get(name)
        if spec is not None:
            if spec.trait:
                trait, arg = spec.trait, spec.arg if TRAITS[spec.trait] else ""
            link = spec.link or link
            np = np if spec.np is None else spec.np
        out.append(Stance("", sheet.cards, trait, arg, link, np))
    return tuple(out)


def fresh_record(s: GameState, seat: int, data: CampaignData) -> CampRecord:
    """A camp's record on day 0 (§6.1): level 1, empty pools and wallets, its funds, the
    Servant's composition as its pool, default stances, no information on anyone."""
    camp = s.camps[seat]
    per_card = data.numbers.tiles_per_card
    return CampRecord(
        funds=data.funds(camp.master.id),
        pool=tuple(camp.servant.cards.count(k) * per_card for k in CARD_KINDS),
        stances=default_stances(camp.servant, data),
        info=(Info(),) * len(s.camps))


def internal_bonds(seat: int, grade: int) -> tuple[Bond, ...]:
    """A camp's Servant and Master toward each other at Positive `grade` (C8.2, dealt on
    day 0)."""
    return tuple(Bond(holder, seat, "positive", grade) for holder in ("servant", "master"))


def fresh_state(s: GameState, data: CampaignData) -> CampaignState:
    return CampaignState(camps=tuple(fresh_record(s, x, data) for x in range(len(s.camps))))


# --- a contract's two halves (C9.3, C9.4, spec A42: what a character holds stays with it) -------
# Record fields that belong to the Master whole; merit, bonds and worn items are split by holder.
MASTER_FIELDS = ("level", "exp", "skill_points", "background_points", "investigation_bonus",
                 "skill_bonus", "last_growth", "pending_growth", "tag", "jewels", "revivals",
                 "race")


def master_part(rec: CampRecord) -> tuple[CampRecord, CampRecord]:
    """(the camp's record without its Master, the Master's part as a record of its own)."""
    bare = CampRecord()
    part = bare._replace(
        **{k: getattr(rec, k) for k in MASTER_FIELDS}, merit=(0, rec.merit[1]),
        bonds=tuple(b for b in rec.bonds if b.holder == "master"),
        worn=tuple(w for w in rec.worn if w[1] == "master"))
    rest = rec._replace(
        **{k: getattr(bare, k) for k in MASTER_FIELDS}, merit=(rec.merit[0], 0),
        bonds=tuple(b for b in rec.bonds if b.holder != "master"),
        worn=tuple(w for w in rec.worn if w[1] != "master"))
    return rest, part


def with_master(rec: CampRecord, part: CampRecord) -> CampRecord:
    """`rec` joined by a Master's part (`master_part`'s second value)."""
    return rec._replace(
        **{k: getattr(part, k) for k in MASTER_FIELDS}, merit=(rec.merit[0], part.merit[1]),
        bonds=(*rec.bonds, *part.bonds), worn=tuple(sorted((*rec.worn, *part.worn))))


# --- reading and writing -----------------------------------------------------------------------
def state(s: GameState) -> CampaignState:
    return s.mods[NAME]


def put(s: GameState, **changes: Any) -> None:
    """Replace global fields of the slot."""
    s.set_mod(NAME, state(s)._replace(**changes))


def record(s: GameState, seat: int) -> CampRecord:
    return s.mods[NAME].camps[seat]


def put_record(s: GameState, seat: int, rec: CampRecord) -> None:
    """Replace one camp's record (the others are shared, not copied)."""
    camps = state(s).camps
    put(s, camps=(*camps[:seat], rec, *camps[seat + 1:]))


def update(s: GameState, seat: int, **changes: Any) -> CampRecord:
    """Replace fields of one camp's record; returns the new record."""
    rec = record(s, seat)._replace(**changes)
    put_record(s, seat, rec)
    return rec


def info_on(s: GameState, seat: int, other: int) -> Info:
    """What `seat` holds on `other`."""
    return record(s, seat).info[other]


def put_info(s: GameState, seat: int, other: int, info: Info) -> None:
    held = record(s, seat).info
    update(s, seat, info=(*held[:other], info, *held[other + 1:]))


def turn_key(s: GameState) -> int:
    """A number for the current Turn, growing through the game (day 0 is below day 1's)."""
    return s.day * 3 + s.turn


def tag(s: GameState, seat: int) -> str:
    """The camp's tag in force (C12.1): "" with none, or while it is stray (the tag is its
    Master's)."""
    rec = record(s, seat)
    return "" if rec.stray else rec.tag


def race(s: GameState, seat: int, data: CampaignData) -> str:
    """The camp's Master's race: `artificial` with the Einzbern tag in force (C12.1 ④), else
    its data's. Every rule and view that reads a Master's race reads it here, so the tag
    counts everywhere (Command Spells, level cap, MP per level, C2.10 experience, C1.11)."""
    if tag(s, seat) == HOMUNCULUS:
        return "artificial"
    return record(s, seat).race or data.masters[s.camps[seat].master.id].race


def level_master_mp(s: GameState, seat: int, data: CampaignData) -> int:
    """C2.5: the Master's max MP gained with its levels (every level past the first, by race):
    public once C1.11 shows its level and race, unlike a necklace's (the camp's gear)."""
    return (record(s, seat).level - 1) * data.master_mp_per_level[race(s, seat, data)]


def cards(rec: CampRecord, data: CampaignData) -> str:
    """The composition the pool gives (C0 mapping: tiles_per_card tiles make a card, capped at
    max_pool cards, kinds in B, A, Q order; the cap drops the last kinds first)."""
    return _composition(rec.pool, data.numbers.tiles_per_card, data.numbers.max_pool)


@lru_cache(maxsize=1024)
def _composition(pool: tuple[int, ...], per: int, cap: int) -> str:
    """`cards` of the plain numbers, cached: a few pools are read on every step."""
    return "".join(k * (n // per) for k, n in zip(CARD_KINDS, pool, strict=True))[:cap]


def declared(s: GameState, seat: int) -> Declaration | None:
    """The camp's declaration of this Turn (held or not), if it has made one."""
    for decls in (s.decls, s.held):
        for d in decls:
            if d.seat == seat:
                return d
    return None
