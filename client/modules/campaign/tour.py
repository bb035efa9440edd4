"""The campaign's staged games (seed 002), for the tour's screenshots and the client tests.

Every moment is a real game played to it through the engine: the day-0 prompts answered with
their real actions, Turns declared, a battle fought by the prompts' defaults, growth chosen,
items bought and worn, stances renamed. What a moment needs and no short game would give (a
camp's experience, funds, points gathered) is written into the camp's record with the module's
own helpers (`state.update`, the information section's `gain`), as the engine's tests do. The
view and the legal actions each seat gets are the engine's own, nothing added.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from ....shared.engine import apply, default_action, legal_actions, new_game, view_for
from ....shared.engine.actions import Action, DeclareEncounter, DeclareWait
from ....shared.engine.data import default_ruleset
from ....shared.engine.events import Event
from ....shared.engine.prompts import PROMPTS
from ....shared.engine.state import GameState
from ....shared.modules.campaign import state as st
from ....shared.modules.campaign.bonds import Bonds
from ....shared.modules.campaign.contract import DeclareCancelContract, SetSupply
from ....shared.modules.campaign.data import MASTER_CATEGORIES, SERVANT_CATEGORIES
from ....shared.modules.campaign.gear import Buy, UseItem, Wear
from ....shared.modules.campaign.growth import ChooseGrowth, ChooseServantGrowth
from ....shared.modules.campaign.info import Information
from ....shared.modules.campaign.section import section_of
from ....shared.modules.campaign.stances import (
    ArrangeStance,
    ChooseStance,
    HoldNoblePhantasm,
    LinkStance,
    NameStance,
    SetStanceTrait,
)
from ....shared.modules.campaign.summoning import ChooseRelic
from ....shared.protocol import SECONDS
from ...tour import PLAYER

CAMPAIGN_SEED = 2
# Seat 0 (the tour's) plays Saber (El Cid); its rivals Lancer, Archer and Caster.
CAMPAIGN_CLASSES = ("saber", "lancer", "archer", "caster")
SABER, LANCER, ARCHER, CASTER = range(4)
FOREIGN_QUARTER = 13  # the shop of every mystic code (resources/campaign/shops)
EYE_SQUARE = 12  # the hospital, in reach of it: where the Eye of Searching is placed
# C12.1 deals the tags by the dice: the first die picks seat 0's among the tags its class may
# take (tags.toml order): 2 is the Tohsaka jewels, 5 the Overseer.
JEWELS_DIE, OVERSEER_DIE = 2, 5
# The relic draft: Lancer and Archer choose first.
RIVAL_RELICS = ((LANCER, "thousandth_sword"), (ARCHER, "great_eggshell"))
SABER_RELIC = "white_charger_bridle"


class Staged(NamedTuple):
    """A staged moment: the state and every event that led to it."""

    state: GameState
    events: list[Event]


class Play:
    """A campaign game played step by step through the engine, its events kept."""

    def __init__(self, summoning: str = "choose", tag_die: int = 0) -> None:
        rules = default_ruleset()
        options = {"summoning": summoning, "tags": "random" if tag_die else "off"}
        self.s = new_game(seed=CAMPAIGN_SEED, classes=CAMPAIGN_CLASSES, modules=["campaign"],
                          servants=[rules.servants[c].id for c in CAMPAIGN_CLASSES],
                          options={"campaign": options},
                          forced=(tag_die, 1, 1, 1) if tag_die else ())
        self.events: list[Event] = []

    def do(self, *actions: Action) -> Play:
        for action in actions:
            self.s, new = apply(self.s, action)
            self.events.extend(new)
        return self

    def defaults(self, until: Any) -> Play:
        """Each prompted seat (lowest first) takes its prompt's default until `until(s)`."""
        for _ in range(400):
            if until(self.s):
                return self
            self.do(PROMPTS[self.s.prompt.kind].default(self.s, min(self.s.prompt.seats)))
        raise RuntimeError(f"the staging never reached its moment: {self.s.prompt}")

    def day1(self) -> Play:
        """Day 0 answered with every default (the first free relic; ready as dealt)."""
        while self.s.prompt.kind in ("relic", "setup"):
            self.do(default_action(self.s, min(self.s.prompt.seats)))
        return self

    def turn(self) -> Play:
        """Every camp still to declare waits: the Turn goes by."""
        return self.do(*(DeclareWait(x) for x in sorted(self.s.prompt.seats)
                         if DeclareWait(x) in legal_actions(self.s, x)))

    def update(self, seat: int, **fields: Any) -> Play:
        st.update(self.s, seat, **fields)
        return self

    def staged(self) -> Staged:
        """The moment, with the events a section's own step emitted outside an action."""
        self.events.extend(self.s.events)
        self.s.events = []
        return Staged(self.s, self.events)


# --- the sheet ------------------------------------------------------------------------------
def two_levels() -> Play:
    """Saber's Master (the Tohsaka jewels) reaches levels 2 and 3 at a Turn's end and takes
    Edge and the Servant's growth for the first; experience in most methods, merit in both
    wallets, funds."""
    p = Play(tag_die=JEWELS_DIE).day1()
    p.update(SABER, exp=(10, 10, 0, 0, 0)).turn()
    p.do(ChooseGrowth(SABER, "edge", "", ""), ChooseServantGrowth(SABER, "hp", "B", "B"))
    return p.update(SABER, exp=(4, 7, 2, 0, 1), merit=(3, 4), funds=11)


def leveled(stage: str = "option") -> Staged:
    """`two_levels`, the second level's growth to choose: the option (or with `stage`
    "servant", Focus Quick taken, the Servant's three gains)."""
    p = two_levels()
    if stage == "servant":
        p.do(ChooseGrowth(SABER, "focus", "Q", ""))
    return p.staged()


def spending() -> Staged:
    """`two_levels` once both growths are chosen: a skill point and a background point to
    spend, merit to share, jewels to pour, the supply switch."""
    p = two_levels().do(ChooseGrowth(SABER, "focus", "Q", ""),
                        ChooseServantGrowth(SABER, "mp", "Q", "A"))
    p.s.edit(SABER).mp -= 20  # a battle's cost: the jewels have somewhere to go
    return p.staged()


# --- gear -----------------------------------------------------------------------------------
def shopping() -> Staged:
    """Saber in the Old Foreign Quarter on day 1: it buys the Giant's Belt and the Mana
    Necklace there and wears them (Servant, Master), and places an Eye of Searching; two
    Recovery Potions and the Eye were bought before (written into its record)."""
    p = Play().day1()
    p.s.edit(SABER).pos = FOREIGN_QUARTER
    p.update(SABER, funds=30, items=(("eye_of_searching", 1), ("recovery_potion", 2)))
    p.do(Buy(SABER, "giants_belt"), Buy(SABER, "mana_necklace"),
         Wear(SABER, "giants_belt", "servant"), Wear(SABER, "mana_necklace", "master"),
         UseItem(SABER, "eye_of_searching", EYE_SQUARE, ""))
    return p.staged()


# --- stances --------------------------------------------------------------------------------
def arranging() -> Staged:
    """The Attack stance renamed Tizona (NameStance); the pool has grown a Quick card, which
    each stance places last until it is arranged (C5.7)."""
    p = Play().day1()
    p.do(NameStance(SABER, "attack", "Tizona"))
    pool = st.record(p.s, SABER).pool
    p.update(SABER, pool=(pool[0], pool[1], pool[2] + 2))
    return p.staged()


# --- bonds ----------------------------------------------------------------------------------
def bonded() -> Staged:
    """Saber's bonds on day 1: the internal ones of day 0, its Servant's positive grade-3 bond
    toward Lancer (met last Turn: it may deepen or resolve), its Master's fixed negative one
    toward Archer, its Servant's grade-5 negative one toward Archer; new bonds toward the
    camps met last Turn (Lancer, Caster)."""
    p = Play().day1()
    bonds = st.record(p.s, SABER).bonds
    p.update(SABER, met_last_turn=frozenset({LANCER, CASTER}), bonds=(
        *bonds, st.Bond("servant", LANCER, "positive", 3),
        st.Bond("master", ARCHER, "negative", 2, True),
        st.Bond("servant", ARCHER, "negative", section_of(p.s, Bonds).top(), False, 2)))
    return p.staged()


# --- the dossier ----------------------------------------------------------------------------
def informed() -> Staged:
    """Saber's points on its rivals, gained through the information section: on Lancer
    enough for its cards and its Master's name; on Archer every category full (its true
    name) and its Master wholly known; on Caster a Legend point and its NP seen fired."""
    p = Play().day1()
    info = section_of(p.s, Information)
    gains = {LANCER: (("encounter", "encounter", "rumor", "combat"),
                      ("combat", "combat", "encounter", "rumor")),
             CASTER: (("legend",), ())}
    for seat, (servant, master) in gains.items():
        for category in servant:
            info.gain(p.s, SABER, seat, "research", category)
        for category in master:
            info.gain(p.s, SABER, seat, "research", master=(category,))
    top = info.servant_max(p.s, ARCHER)
    for _ in range(top):
        info.gain(p.s, SABER, ARCHER, "research", *SERVANT_CATEGORIES)
    for _ in range(info.data.numbers.info_max_master):
        info.gain(p.s, SABER, ARCHER, "research", master=MASTER_CATEGORIES)
    info.disclose_np(p.s, SABER, CASTER)
    return p.staged()


# --- day 0 ----------------------------------------------------------------------------------
def drafting() -> Staged:
    """Day 0's relic draft: Lancer and Archer have chosen; Saber is to choose."""
    return Play("relic").do(*(ChooseRelic(x, r) for x, r in RIVAL_RELICS)).staged()


def setup_play() -> Play:
    """Day 0's setup once the draft is done: Saber took El Cid's bridle, Caster the first
    free relic, the tags are dealt (Saber: the Overseer); Caster is ready already."""
    p = Play("relic", tag_die=OVERSEER_DIE)
    p.do(*(ChooseRelic(x, r) for x, r in RIVAL_RELICS), ChooseRelic(SABER, SABER_RELIC))
    p.do(default_action(p.s, CASTER))
    p.do(default_action(p.s, CASTER))  # SetupReady
    return p


def setting_up() -> Staged:
    return setup_play().staged()


def setup_stances() -> Staged:
    """`setup_play`, Saber's stances made over at the setup prompt (C14.3): Attack renamed
    Tizona, given Quick damage and the Noble Phantasm, its Quick cards put first (any order
    on day 0); Defense linked to Legend (Critical takes its Rumor)."""
    p = setup_play()
    p.do(NameStance(SABER, "attack", "Tizona"),
         SetStanceTrait(SABER, "attack", "kind_damage", "Q"),
         HoldNoblePhantasm(SABER, "attack"), ArrangeStance(SABER, "attack", "QQBBA"),
         LinkStance(SABER, "defense", "legend"))
    return p.staged()


# --- the city map ---------------------------------------------------------------------------
def mapped(spirit: bool = True) -> Staged:
    """The map on day 1 Noon (public to every seat): Lancer has cut its supply (spirit form)
    and Archer has cancelled its contract (a stray Servant, its Master left vacant on its
    square); unless `spirit` is false: then nothing of that."""
    p = Play().day1()
    if spirit:
        p.do(SetSupply(LANCER, False), DeclareCancelContract(ARCHER))
    return p.turn().staged()


# --- a battle -------------------------------------------------------------------------------
BATTLE_SQUARE = 17


def round_two() -> Play:
    """Round 2's round start of Saber's battle with Lancer, fought by the defaults: Saber
    holds Lancer's Combat and Rumor points at their maximum, so at each Round's start it sees
    through Lancer's stance (C5.9): its Normal one in Round 1, shown in the log; Lancer has
    taken its Defense stance for Round 2, and Saber may change its own."""
    p = Play().day1()
    for seat in (SABER, LANCER):
        p.s.edit(seat).pos = BATTLE_SQUARE
    info = section_of(p.s, Information)
    for _ in range(info.servant_max(p.s, LANCER)):
        info.gain(p.s, SABER, LANCER, "research", "combat", "rumor")
    p.do(DeclareEncounter(SABER, LANCER, "battle"), DeclareWait(ARCHER), DeclareWait(CASTER))
    p.defaults(lambda s: s.battle is not None and s.battle.round >= 2
               and s.prompt.kind == "round_start")
    return p.do(ChooseStance(LANCER, "defense"))


def stance_round() -> Staged:
    return round_two().staged()


def stance_seen() -> Staged:
    """Round 2 under way: Saber took its Attack stance, every combatant was Ready, and
    Saber's resistance showed it Lancer's Defense stance."""
    p = round_two().do(ChooseStance(SABER, "attack"))
    return p.defaults(lambda s: s.prompt.kind != "round_start").staged()


def state_message(staged: Staged, seat: int | None) -> dict[str, Any]:
    """The `state` message of `seat`: the engine's view and legal actions, each prompted
    seat's clock at its prompt kind's room default (day 0's 5 minutes, a battle's 2)."""
    s = staged.state
    left = SECONDS[PROMPTS[s.prompt.kind].timer][2]
    return {"t": "state", "view": view_for(s, seat),
            "legal": [a.to_dict() for a in legal_actions(s, seat)] if seat is not None else [],
            "state_id": s.version, "deadlines": {str(x): left for x in sorted(s.prompt.seats)}}


def feed_staged(m: Any, staged: Staged, seat: int = SABER, player: str = "Ayaka") -> None:
    """The messages of `seat` at a staged moment (bots elsewhere), given to the model `m`."""
    from ....shared.engine import events_for
    from ....shared.protocol import PROTOCOL_VERSION

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
         ("campaign_setup_stances", setup_stances, "camp", "stances"),
         ("campaign_battle", stance_round, "battle", ""),
         ("campaign_seen", stance_seen, "battle", ""),
         ("campaign_map", mapped, "game", ""))

__all__ = [
    "CAMPAIGN_CLASSES",
    "SHOTS",
    "Play",
    "Staged",
    "arranging",
    "bonded",
    "drafting",
    "feed_staged",
    "informed",
    "leveled",
    "mapped",
    "screens",
    "setting_up",
    "setup_play",
    "setup_stances",
    "shopping",
    "spending",
    "stance_round",
    "stance_seen",
    "state_message",
]


def screens(tour: Any, scenario: str = "") -> list[Path]:
    """The campaign's screens, each at a staged moment (`tour_campaign`): the sheet with a
    level's growth to choose (both steps) and points to spend, gear and the shop, the
    stances with an arrangement being edited, the bonds, the dossier's points, day 0's
    relic draft and setup (and its stance editor), a battle's stance choice and a stance
    seen through; then the lobby's campaign options."""
    app = tour.app
    player = PLAYER.get(tour.lang, "Ayaka")
    for name, stage, screen, page in SHOTS:
        app.ui.reset()
        app.ui.extra.clear()  # no draft of one moment's stances carried into the next
        feed_staged(app.model, stage(), player=player)
        if page:
            app.view(screen).page = page
        app.show(screen)
        view = app.current
        if name == "campaign_stances":  # the new Quick card picked and moved left
            view.click("stance_card:attack:5")
            for _ in range(3):
                view.click("move:attack:-1")
        if name == "campaign_setup_stances":  # a magecraft trait being picked for Defense
            view.click("trait:defense:magecraft_grade")
            view.click("trait_arg:defense:curse")
        if name == "campaign_battle":
            view.click("verb:ChooseStance")
        view.on_mouse_motion(0, 0, 0, 0)
        if name == "campaign_map":  # the spirit-form camp's square, its hover text
            tour.hover(f"cell:{app.model.camp(1)['pos']}")
        tour.shot(name)
    app.model.reset_room()
    app.show("lobby")
    lobby = app.current
    lobby.stop_refreshing()  # no server to ask for rooms
    lobby.click("page:rules")
    lobby.click("module:campaign")
    lobby.on_mouse_motion(0, 0, 0, 0)
    tour.shot("campaign_lobby")
    return tour.files

