"""The campaign's staged games (seed 002), for the tour's screenshots and the client tests.

The campaign's engine sections are built in parallel with its client, so the camps' records
are written straight into a real game's campaign slot with the module's own record helpers
(`state.put_record`, `state.put`), and the actions of the spec (§4) that no section offers
yet are added to the seat's legal list, shaped as the spec names them: what a server would
send once the sections are in. A prompt kind the engine does not have yet (day 0's `relic`
and `setup`) is set in the view sent. Everything else is the engine's own view and legal
actions.
"""

from __future__ import annotations

from itertools import permutations
from typing import Any, NamedTuple

from ..shared.engine import apply, legal_actions, new_game, view_for
from ..shared.engine.actions import Action, DeclareEncounter, DeclareWait
from ..shared.engine.data import CARD_KINDS, CLASSES, default_ruleset
from ..shared.engine.events import Event
from ..shared.engine.prompts import PROMPTS
from ..shared.engine.state import GameState
from ..shared.modules.campaign import state as st

CAMPAIGN_SEED = 2
# Seat 0 (the tour's) plays Saber (El Cid); its rivals Lancer, Archer and Caster.
CAMPAIGN_CLASSES = ("saber", "lancer", "archer", "caster")
SABER, LANCER, ARCHER, CASTER = range(4)
FOREIGN_QUARTER = 13  # the shop of every mystic code (spec §3 "Shops on akatsukigahama")
MYSTIC_CODES = ("amulet_of_protection", "giants_belt", "thunderbolt_shield", "fairy_shoes",
                "nekote", "amulet_of_life", "crystal_ball", "mana_necklace", "magus_cloak",
                "rabbit_foot")
# The relics of the staged draft (`campaign.relic.<id>` in the catalogs), two already taken.
RELIC_IDS = ("antler_crest", "eggshell", "iron_club", "notched_hilt", "pike_kantele",
             "red_seal", "scratched_sax")
TAKEN = {"antler_crest": LANCER, "eggshell": ARCHER}


class Staged(NamedTuple):
    """A staged moment: the state, its events, the spec actions added to seat 0's legal list
    (with `alone`, its whole legal list) and the prompt kind the view shows ("" the
    engine's)."""

    state: GameState
    events: list[Event]
    extra: list[dict[str, Any]]
    prompt: str = ""
    alone: bool = False


def game(seed: int = CAMPAIGN_SEED) -> GameState:
    rules = default_ruleset()
    return new_game(seed=seed, classes=CAMPAIGN_CLASSES, modules=["campaign"],
                    servants=[rules.servants[c].id for c in CAMPAIGN_CLASSES])


def put(s: GameState, seat: int, **changes: Any) -> None:
    st.put_record(s, seat, st.record(s, seat)._replace(**changes))


def act(seat: int, kind: str, **fields: Any) -> dict[str, Any]:
    """A spec action as it travels (`Action.to_dict`'s shape)."""
    return {"type": kind, "seat": seat, **fields}


def state_message(staged: Staged, seat: int | None) -> dict[str, Any]:
    """The `state` message of `seat`: the engine's view and legal actions, plus the staging
    (the extra actions and the prompt kind go to seat 0 only)."""
    s = staged.state
    view = view_for(s, seat)
    own = seat == SABER and staged.alone
    legal = [] if staged.prompt or own else [a.to_dict() for a in legal_actions(s, seat)]
    seats = sorted(s.prompt.seats)
    if staged.prompt:
        view["prompt"] = {"kind": staged.prompt, "seats": seats}
    if seat == SABER:
        legal += staged.extra
    return {"t": "state", "view": view, "legal": legal, "state_id": s.version,
            "deadlines": {str(x): 60 for x in seats}}


# --- the sheet ------------------------------------------------------------------------------
def leveled(stage: str = "option") -> Staged:
    """Saber's Master at level 3 on day 2, experience in every method, a level just gained
    (its growth pending: the option, or with `stage` "servant" the Servant's three gains),
    Edge chosen last time; merit in both wallets, funds, the Tohsaka jewels."""
    s = game()
    put(s, SABER, level=3, exp=(4, 7, 2, 0, 1), skill_points=1, background_points=1,
        pending_growth=1, last_growth="edge", merit=(3, 4), funds=11, pool=(6, 3, 5),
        dp=((1, 0, 2), (1, 0, 0)), tag="founding_jewels", jewels=30)
    if stage == "option":
        extra = [act(SABER, "ChooseGrowth", option=o, first=a, second=b)
                 for o, a, b in growth_options() if o != "edge"]
    else:
        extra = [act(SABER, "ChooseServantGrowth", pool=p, damage_kind=d, tile=t)
                 for p in ("hp", "mp") for d in CARD_KINDS for t in (*CARD_KINDS, "reinforcement")]
    return Staged(s, [], extra, alone=True)  # only the growth while it is pending (spec §4)


def growth_options() -> list[tuple[str, str, str]]:
    """C2.7's options with their kinds: focus(k), spread and stock (k1, k2), edge."""
    pairs = [(a, b) for i, a in enumerate(CARD_KINDS) for b in CARD_KINDS[i + 1:]]
    return [*(("focus", k, "") for k in CARD_KINDS), *(("spread", a, b) for a, b in pairs),
            *(("stock", a, b) for a, b in pairs), ("edge", "", "")]


def spending() -> Staged:
    """The same camp once its growth is chosen: a skill point and a background point to
    spend, merit to share."""
    s = leveled().state
    put(s, SABER, pending_growth=0, last_growth="focus")
    master = s.camps[SABER].master
    extra = [act(SABER, "SpendSkillPoint", arg="unlock"),
             *(act(SABER, "SpendSkillPoint", arg=k) for k in master.skills[:3]),
             act(SABER, "SpendBackgroundPoint", arg="investigation"),
             act(SABER, "SpendBackgroundPoint", arg="funds"),
             act(SABER, "TransferMerit", to="servant", amount=1),
             act(SABER, "TransferMerit", to="servant", amount=2),
             act(SABER, "TransferMerit", to="master", amount=1),
             *(act(SABER, "UseJewels", amount=n) for n in (10, 20, 30))]
    return Staged(s, [], extra)


# --- gear -----------------------------------------------------------------------------------
def shopping() -> Staged:
    """Saber in the Old Foreign Quarter with 11 funds: the Giant's Belt on its Servant, the
    Mana Necklace on its Master, two Recovery Potions and an Eye of Searching placed."""
    s = game()
    s.edit(SABER).pos = FOREIGN_QUARTER
    put(s, SABER, funds=11,
        items=(("eye_of_searching", 1), ("giants_belt", 1), ("mana_necklace", 1),
               ("recovery_potion", 2)),
        worn=(("giants_belt", "servant"), ("mana_necklace", "master")),
        devices=(st.Device("eye_of_searching", 16, 2),))
    extra = [*(act(SABER, "Buy", item=i) for i in MYSTIC_CODES[:6]),
             act(SABER, "Wear", item="giants_belt", wearer=""),
             act(SABER, "Wear", item="mana_necklace", wearer=""),
             act(SABER, "Wear", item="mana_necklace", wearer="servant"),
             act(SABER, "UseItem", item="recovery_potion", target=SABER, arg="")]
    return Staged(s, [], extra)


# --- stances --------------------------------------------------------------------------------
def arranging() -> Staged:
    """The pool grew a Quick card (appended to every arrangement); the Attack stance is
    renamed, and the new card may go anywhere in each non-normal stance (C5.7)."""
    s = game()
    rec = st.record(s, SABER)
    grown = tuple(x._replace(order=x.order + "Q") for x in rec.stances)
    grown = (grown[0], grown[1]._replace(name="Tizona"), *grown[2:])
    put(s, SABER, pool=(rec.pool[0], rec.pool[1], rec.pool[2] + 2), stances=grown)
    extra = []
    for stance in grown[1:]:
        key = st.STANCES[grown.index(stance)]
        extra.append(act(SABER, "NameStance", stance=key, name=""))
        old = stance.order[:-1]
        for i in range(len(old) + 1):
            order = old[:i] + "Q" + old[i:]
            if order != stance.order or i == len(old):
                extra.append(act(SABER, "ArrangeStance", stance=key, order=order))
    return Staged(s, [], dedupe(extra))


def dedupe(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for a in actions:
        if a not in out:
            out.append(a)
    return out


# --- bonds ----------------------------------------------------------------------------------
def bonded() -> Staged:
    """Saber's bonds on day 3: the internal ones, its Servant's positive grade-3 bond toward
    Lancer (met last turn: it may deepen or resolve), its Master's fixed negative one toward
    Archer, and a new bond it may set toward Caster."""
    s = game()
    put(s, SABER, met_last_turn=frozenset({LANCER, CASTER}), bonds=(
        st.Bond("servant", SABER, "positive", 2), st.Bond("master", SABER, "positive", 1),
        st.Bond("servant", LANCER, "positive", 3), st.Bond("master", ARCHER, "negative", 2, True),
        st.Bond("servant", ARCHER, "negative", 5, False, 2)))
    extra = [act(SABER, "AwardBond", holder="servant", target=LANCER),
             *(act(SABER, "ResolveBond", holder="servant", target=LANCER, effect=e)
               for e in ("funds", "exp", "heal_hp", "heal_mp")),
             act(SABER, "AwardBond", holder="servant", target=SABER),
             *(act(SABER, "SetBond", holder=h, target=CASTER, polarity=p)
               for h in ("servant", "master") for p in ("positive", "negative"))]
    return Staged(s, [], extra)


# --- the dossier ----------------------------------------------------------------------------
def informed() -> Staged:
    """Saber's points on its three rivals: Lancer known to its composition and its Master's
    name, Archer's true name (every category full) and its Master wholly known, Caster's NP
    seen fired with few points."""
    s = game()
    held = list(st.record(s, SABER).info)
    held[LANCER] = st.Info((2, 1, 1, 0), (2, 1, 1))
    held[ARCHER] = st.Info((6, 6, 6, 6), (10, 10, 10), np_known=True, true_name=True)
    held[CASTER] = st.Info((1, 0, 0, 1), (0, 0, 0), np_known=True)
    put(s, SABER, info=tuple(held))
    known = list(s.camps[SABER].known)
    known[CLASSES.index("lancer")] = 1
    known[CLASSES.index("archer")] = 3
    s.edit(SABER).known = tuple(known)
    return Staged(s, [], [])


# --- day 0 ----------------------------------------------------------------------------------
def drafting() -> Staged:
    """Day 0's relic draft: Lancer and Archer have chosen; every free relic is offered."""
    s = game()
    st.put(s, day0="relic", relics=tuple(TAKEN.items()))
    extra = [act(SABER, "ChooseRelic", relic=r) for r in RELIC_IDS if r not in TAKEN]
    return Staged(s, [], extra, "relic")


def setting_up() -> Staged:
    """Day 0's setup once the draft is done: Saber took the notched hilt, its tag dealt;
    Ready and the day-0 actions (the whole catalogue, free arrangements) are offered."""
    s = game()
    st.put(s, day0="setup", relics=(*TAKEN.items(), ("notched_hilt", SABER),
                                     ("pike_kantele", CASTER)))
    put(s, SABER, tag="overseer")
    order = st.record(s, SABER).stances[1].order
    extra = [act(SABER, "SetupReady"),
             *(act(SABER, "Buy", item=i) for i in MYSTIC_CODES),
             *(act(SABER, "ArrangeStance", stance="attack", order="".join(p))
               for p in sorted(set(permutations(order))))]
    return Staged(s, [], extra, "setup")


# --- the city map ---------------------------------------------------------------------------
VACANT_SQUARE = 30


def mapped(spirit: bool = True) -> Staged:
    """The map on day 1 as Caster's seat sees it: Lancer's Servant in spirit form (unless
    `spirit` is false), Archer's gone stray, a Master left on square VACANT_SQUARE."""
    s = game()
    put(s, LANCER, supply_on=not spirit)
    put(s, ARCHER, stray=True)
    if spirit:
        spare = next(x for x in default_ruleset().masters
                     if x not in {c.master.id for c in s.camps})
        st.put(s, vacant=(st.VacantMaster(spare, VACANT_SQUARE, 100, 3, st.CampRecord()),))
    return Staged(s, [], [])


# --- a battle -------------------------------------------------------------------------------
def stance_round() -> Staged:
    """Round 2's round start of Saber's battle with Lancer: Saber may change its stance, and
    its resistance to Lancer's current stance has shown it (StanceRevealed)."""
    s = game()
    for seat in (SABER, LANCER):
        s.edit(seat).pos = 17
    events: list[Event] = []

    def go(action: Action) -> None:
        nonlocal s
        s, new = apply(s, action)
        events.extend(new)

    go(DeclareEncounter(SABER, LANCER, "battle"))
    for seat in (ARCHER, CASTER):
        go(DeclareWait(seat))
    for _ in range(200):
        battle = s.battle
        if battle is not None and battle.round >= 2 and s.prompt.kind == "round_start":
            break
        go(PROMPTS[s.prompt.kind].default(s, min(s.prompt.seats)))
    put(s, LANCER, stance_now="defense")
    events.append(Event("StanceRevealed", {"seat": SABER, "about": LANCER, "stance": "defense",
                                           "name": "", "trait": "extra_guard", "arg": "",
                                           "lead": "BAAQQ"}, frozenset({SABER})))
    extra = [act(SABER, "ChooseStance", stance=k) for k in st.STANCES]
    return Staged(s, events, extra)


def feed_staged(m: Any, staged: Staged, seat: int = SABER, player: str = "Ayaka") -> None:
    """The messages of `seat` at a staged moment (bots elsewhere), given to the model `m`."""
    from ..shared.engine import events_for
    from ..shared.protocol import PROTOCOL_VERSION

    s = staged.state
    m.handle({"t": "welcome", "version": PROTOCOL_VERSION, "server": "tour"})
    m.handle({"t": "joined", "room": 1, "seat": seat, "token": "", "spectator": False})
    m.handle({"t": "room", "room": {"modules": ["campaign"], "seat_list": [
        {"seat": i, "kind": "human" if i == seat else "bot",
         "name": player if i == seat else "", "level": "normal"}
        for i in range(len(s.camps))]}})
    m.handle({"t": "history", "first": True, "events": events_for(staged.events, seat),
              "log": [], "chat": []})
    m.handle(state_message(staged, seat))


# The tour's campaign screenshots: (file name, staging, screen, page of the camp screen).
SHOTS = (("campaign_sheet", leveled, "camp", "sheet"),
         ("campaign_growth", lambda: leveled("servant"), "camp", "sheet"),
         ("campaign_points", spending, "camp", "sheet"),
         ("campaign_gear", shopping, "camp", "gear"),
         ("campaign_stances", arranging, "camp", "stances"),
         ("campaign_bonds", bonded, "camp", "bonds"),
         ("campaign_dossier", informed, "dossier", ""),
         ("campaign_relic", drafting, "day0", ""),
         ("campaign_setup", setting_up, "day0", ""),
         ("campaign_battle", stance_round, "battle", ""),
         ("campaign_map", mapped, "game", ""))


__all__ = ["CAMPAIGN_CLASSES", "SHOTS", "Staged", "arranging", "bonded", "drafting",
           "feed_staged", "informed", "leveled", "setting_up", "shopping", "spending",
           "stance_round", "state_message"]
