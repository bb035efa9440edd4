"""§8 of the campaign: bonds (C8.1-C8.10).

A bond is one-way: held by a camp's Servant or its Master toward another camp, or toward the
other half of its own camp (the internal bonds, given on day 0). It has a polarity, a grade
(0-5, or MAX) and a state (open or Fixed). Grades come from awards toward camps met the Turn
before (and one unmet bond a Turn), from time with the Master (internal bonds), and from the
five events of `campaign/events.toml`; resolving a bond pays its grade in merit to the holder's
wallet, fixes it, and sets off its effect for both camps (Positive) or against the target
(Negative), with the `share` and `split` prompts for its damage.

Bonds are secrets of the holder's camp (spec §4): no record field here is public; the holder's
camp alone sees BondSet and BondAwarded, both camps see a Reverse or a MAX, everyone sees a
resolution.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from ...engine import core, prompts
from ...engine.actions import Action, DeclareAmbush, DeclareEncounter
from ...engine.data import Reader, Text, read_table
from ...engine.events import Event
from ...engine.state import GameState, Prompt
from . import ledger
from . import state as st
from .data import METHODS
from .section import Section, section_of

HOLDERS = ("servant", "master")
POLARITIES = ("positive", "negative")
POSITIVE_EFFECTS = ("funds", "exp", "heal_hp", "heal_mp")  # C8.7
NEGATIVE_EFFECTS = ("end_damage", "mid_damage")
BATTLE_POSITIVE = ("heal_hp", "heal_mp")  # the Positive effects a battle's round start allows
EVENTS = ("betrayal", "reconciliation", "sworn", "nemesis", "heart_to_heart")  # C8.9


# --- data: the five events ------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class BondEvent:
    id: str
    merit: int
    name: Text
    text: Text


def load_events(reader: Reader) -> dict[str, BondEvent]:
    """`campaign/events.toml`: each of the five events (C8.9), its merit and words."""
    out = {}
    for event_id in reader.ids():
        if event_id not in EVENTS:
            reader.fail(event_id, f"unknown event (known: {', '.join(EVENTS)})")
        entry = reader.table(event_id)
        out[event_id] = BondEvent(event_id, entry.integer("merit", 0, 20), entry.text("name"),
                                  entry.text("text"))
        entry.finish(hint="an event takes merit, name, text")
    missing = [e for e in EVENTS if e not in out]
    if missing:
        reader.fail(missing[0], "missing: every event needs an entry")
    reader.finish()
    return out


@cache
def events() -> dict[str, BondEvent]:
    return load_events(read_table(resources.files("grailwar.resources"), "campaign/events.toml"))


# --- actions --------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SetBond(Action):
    """C8.2: a new grade-0 bond of `holder` toward a camp met in the previous Turn."""

    holder: str
    target: int
    polarity: str


@dataclass(frozen=True, slots=True)
class AwardBond(Action):
    """C8.3: +1 grade to one of `holder`'s bonds (met last Turn: each once a Turn; unmet: one
    a Turn)."""

    holder: str
    target: int




@dataclass(frozen=True, slots=True)
class ResolveBond(Action):
    """C8.6: resolve an open bond of grade 1 or more: its grade in merit, its `effect`."""

    holder: str
    target: int
    effect: str




@dataclass(frozen=True, slots=True)
class ShareBondDamage(Action):
    """C8.8: take `amount` of a bond's end-of-battle damage off the camp it strikes."""

    amount: int


@dataclass(frozen=True, slots=True)
class SplitBondDamage(Action):
    """C8.8: move `mp_part` of a bond's damage to MP (lost twice over)."""

    mp_part: int


class Bonds(Section):
    key = "bonds"

    # --- reading -------------------------------------------------------------------------------
    def top(self) -> int:
        return self.data.numbers.bond_grade_max

    def bond(self, s: GameState, seat: int, holder: str, target: int) -> st.Bond | None:
        return next((b for b in st.record(s, seat).bonds
                     if b.holder == holder and b.target == target), None)

    def is_max(self, bond: st.Bond) -> bool:
        return bond.grade == self.data.numbers.bond_max_value

    def _put(self, s: GameState, seat: int, bond: st.Bond) -> None:
        rest = tuple(b for b in st.record(s, seat).bonds
                     if (b.holder, b.target) != (bond.holder, bond.target))
        st.update(s, seat, bonds=tuple(sorted((*rest, bond), key=lambda b: (b.holder, b.target))))

    def _both(self, seat: int, target: int) -> frozenset[int]:
        return frozenset({seat, target})

    def fighting(self, s: GameState, seat: int, target: int) -> bool:
        """Both camps fight in the battle now (C8.6's round-start condition)."""
        return (s.battle is not None and s.prompt.kind == "round_start"
                and seat in s.battle.seats and target in s.battle.seats and seat != target)

    # --- C8.2 internal bonds ------------------------------------------------------------------
    # --- offering -------------------------------------------------------------------------------
    def legal(self, s: GameState, seat: int, actions: list[Action]) -> list[Action]:
        kind = s.prompt.kind
        if kind == "declare":
            return [*actions, *self._declare_offers(s, seat)]
        if kind == "round_start" and s.battle is not None:
            return [*actions, *self._resolutions(s, seat)]
        if kind == "share":  # (what other sections offer here is kept: a "+" at a split, C4.3)
            return [*actions, *self._share_actions(s, seat)]
        if kind == "split":
            return [*actions, *self._split_actions(s, seat)]
        return actions

    def _declare_offers(self, s: GameState, seat: int) -> list[Action]:
        rec = st.record(s, seat)
        met = sorted(rec.met_last_turn & frozenset(x for x in s.living if x != seat))
        held = {(b.holder, b.target) for b in rec.bonds}  # what `bond` finds
        out: list[Action] = []
        for holder in HOLDERS:
            out.extend(SetBond(seat, holder, t, p) for t in met
                       if (holder, t) not in held for p in POLARITIES)
            out.extend(AwardBond(seat, holder, b.target) for b in rec.bonds
                       if b.holder == holder and self._awardable(s, seat, b))
        return [*out, *self._resolutions(s, seat)]

    def _awards(self, s: GameState, seat: int) -> frozenset[tuple[str, int]]:
        rec = st.record(s, seat)
        return rec.awarded if rec.awarded_turn == st.turn_key(s) else frozenset()

    def _awardable(self, s: GameState, seat: int, bond: st.Bond) -> bool:
        """C8.3: an open bond below 5 not yet awarded this Turn; met last Turn, or the one
        unmet award of this holder this Turn."""
        if bond.fixed or bond.grade >= self.top():
            return False
        done = self._awards(s, seat)
        if (bond.holder, bond.target) in done:
            return False
        met = st.record(s, seat).met_last_turn
        if bond.target in met:
            return True
        return not any(h == bond.holder and t not in met for h, t in done)

    def _resolutions(self, s: GameState, seat: int) -> list[Action]:
        """C8.6: where each open bond of grade 1+ may be resolved, and with which effects."""
        out: list[Action] = []
        met = st.record(s, seat).met_last_turn
        declare = s.prompt.kind == "declare"
        for b in st.record(s, seat).bonds:
            if b.fixed or b.grade < 1 or not s.camps[b.target].alive:
                continue
            internal = b.target == seat
            if b.polarity == "positive":
                if declare and (internal or b.target in met):
                    effects = POSITIVE_EFFECTS
                elif not declare and (internal or self.fighting(s, seat, b.target)):
                    effects = BATTLE_POSITIVE
                else:
                    effects = ()
            else:
                ok = not declare and not internal and self.fighting(s, seat, b.target)
                effects = NEGATIVE_EFFECTS if ok else ()
            out.extend(ResolveBond(seat, b.holder, b.target, e) for e in effects)
        return out

    def _share_actions(self, s: GameState, seat: int) -> list[Action]:
        _step, _seat, victim, amount = st.state(s).bond_queue[0]
        step = self.data.numbers.bond_share_per_grade
        most = min(amount, self._share_cap(s, seat, victim))
        return [ShareBondDamage(seat, n) for n in range(0, most + 1, step)]

    def _share_cap(self, s: GameState, seat: int, victim: int) -> int:
        """C8.8: a sharer takes at most 5 x the grade of its best Positive bond to the victim."""
        grades = [b.grade for b in st.record(s, seat).bonds
                  if b.target == victim and b.polarity == "positive" and not b.fixed]
        return self.data.numbers.bond_share_per_grade * max(grades, default=0)

    def _split_actions(self, s: GameState, seat: int) -> list[Action]:
        amount = st.state(s).bond_queue[0][3]
        step = self.data.numbers.bond_share_per_grade
        return [SplitBondDamage(seat, n) for n in range(0, amount + 1, step)]

    # --- C8.2, C8.3 setting and awarding --------------------------------------------------------
    def set_bond(self, s: GameState, action: SetBond) -> None:
        seat = action.seat
        self._put(s, seat, st.Bond(action.holder, action.target, action.polarity, 0))
        core.emit(s, "BondSet", frozenset({seat}), None, seat=seat, holder=action.holder,
                  target=action.target, polarity=action.polarity)

    def award(self, s: GameState, action: AwardBond) -> None:
        seat = action.seat
        done = self._awards(s, seat) | {(action.holder, action.target)}
        st.update(s, seat, awarded=done, awarded_turn=st.turn_key(s))
        self.raise_grade(s, seat, action.holder, action.target, 1, "award")

    def raise_grade(self, s: GameState, seat: int, holder: str, target: int, grades: int,
                    source: str) -> None:
        """+`grades` to an open bond, never past 5 (C8.4), then the events a grade sets off."""
        bond = self.bond(s, seat, holder, target)
        if bond is None or bond.fixed or bond.grade >= self.top():
            return
        new = bond._replace(grade=min(self.top(), bond.grade + grades))
        self._put(s, seat, new)
        core.emit(s, "BondAwarded", frozenset({seat}), None, seat=seat, holder=holder,
                  target=target, grade=new.grade, source=source)
        self._grade_events(s, seat, new)

    # --- C8.6, C8.7 resolution ------------------------------------------------------------------
    def resolve(self, s: GameState, action: ResolveBond) -> None:
        seat, target, effect = action.seat, action.target, action.effect
        bond = self.bond(s, seat, action.holder, target)
        self._put(s, seat, bond._replace(fixed=True))
        ledger.add_merit(s, seat, action.holder, bond.grade, "bond")
        core.emit(s, "BondResolved", seat=seat, holder=action.holder, target=target,
                  polarity=bond.polarity, effect=effect, grade=bond.grade)
        n = self.data.numbers
        camps = sorted({seat, target})
        g = bond.grade
        if effect == "funds":
            for x in camps:
                st.update(s, x, funds=st.record(s, x).funds + g)
                core.emit(s, "FundsChanged", frozenset({x}), None, seat=x, amount=g,
                          funds=st.record(s, x).funds)
        elif effect == "exp":
            for x in camps:
                self._exp(s, x, n.bond_exp_per_grade * g)
        elif effect == "heal_hp":
            for x in camps:
                core.heal(s, x, n.bond_heal_per_grade * g)
        elif effect == "heal_mp":
            for x in camps:
                core.gain_mp(s, x, n.bond_heal_per_grade * g)
        elif effect == "end_damage":
            b = st.state(s).battle
            st.put(s, battle=b._replace(bond_damage=(
                *b.bond_damage, (seat, target, n.bond_end_damage_per_grade * g))))
        else:  # mid_damage: the victim splits it between HP and MP now
            self._queue(s, ("split", target, target, n.bond_mid_damage_per_grade * g))

    def _exp(self, s: GameState, seat: int, amount: int) -> None:
        exp = list(st.record(s, seat).exp)
        exp[METHODS.index("bond")] += amount
        st.update(s, seat, exp=tuple(exp))
        core.emit(s, "ExperienceGained", frozenset({seat}), None, seat=seat, method="bond",
                  amount=amount, source="bond")

    # --- C8.8 shares and splits ---------------------------------------------------------------
    def _queue(self, s: GameState, *steps: tuple[str, int, int, int]) -> None:
        st.put(s, bond_queue=(*st.state(s).bond_queue, *steps))

    def on_contract_start(self, s: GameState, seat: int) -> None:
        """C9.4: the re-contracted pair's internal bonds start again, Positive at
        internal_bond_grade, in place of any bond either half held toward the camp (the
        Servant's toward the Master that left); the Master's other bonds stay with it."""
        grade = self.data.numbers.internal_bond_grade
        internal = tuple(st.Bond(holder, seat, "positive", grade)
                         for holder in ("servant", "master"))
        kept = tuple(b for b in st.record(s, seat).bonds if b.target != seat)
        st.update(s, seat, bonds=(*internal, *kept))

    def on_battle_end(self, s: GameState) -> None:
        """End-of-battle bond damage: each Positive holder toward the victim may share it,
        then the victim takes the rest; and the battles counted for nemesis."""
        b = st.state(s).battle
        for holder, victim, amount in b.bond_damage:
            if s.camps[holder].alive and s.camps[victim].alive:
                sharers = [x for x in s.living if x != victim and self._share_cap(s, x, victim)]
                self._queue(s, *(("share", x, victim, amount) for x in sharers),
                            ("end", victim, victim, amount))
        self._count_battles(s)

    def advance(self, s: GameState) -> bool:
        while st.state(s).bond_queue:
            step, seat, victim, amount = st.state(s).bond_queue[0]
            if step == "end" or not s.camps[seat].alive or not s.camps[victim].alive:
                st.put(s, bond_queue=st.state(s).bond_queue[1:])
                if step == "end" and s.camps[victim].alive and amount > 0:
                    self._hurt(s, victim, amount, 0)
                continue
            s.prompt = Prompt(step, frozenset({seat}))
            return True
        return False

    def share(self, s: GameState, action: ShareBondDamage) -> None:
        queue = st.state(s).bond_queue
        _step, seat, victim, _amount = queue[0]
        rest = [(q[0], q[1], q[2], q[3] - action.amount) if q[2] == victim and q[0] in (
            "share", "end") else q for q in queue[1:]]
        st.put(s, bond_queue=tuple(rest))
        core.emit(s, "BondDamageShared", seat=seat, victim=victim, amount=action.amount)
        if action.amount:
            self._hurt(s, seat, action.amount, 0)

    def split(self, s: GameState, action: SplitBondDamage) -> None:
        _step, seat, _victim, amount = st.state(s).bond_queue[0]
        st.put(s, bond_queue=st.state(s).bond_queue[1:])
        self._hurt(s, seat, amount - action.mp_part, action.mp_part)

    def _hurt(self, s: GameState, seat: int, hp: int, mp: int) -> None:
        """Damage outside attacks (no Guard, no Invincibility); MP is lost at double rate."""
        core.emit(s, "BondDamageTaken", seat=seat, hp=hp, mp=2 * mp)
        if mp:
            core.lose_mp(s, seat, 2 * mp)
        if hp and s.camps[seat].alive:
            core.take_damage(s, seat, hp)

    # --- C8.9 events, C8.10 time with the Master -------------------------------------------------
    def _event(self, s: GameState, event_id: str, changes: list[tuple[int, st.Bond]]) -> None:
        """Apply an event's bond changes, +merit to each holder involved; the two camps of
        each bond see it."""
        merit = events()[event_id].merit
        involved: set[int] = set()
        for seat, new in changes:
            old = self.bond(s, seat, new.holder, new.target)
            self._put(s, seat, new)
            involved |= {seat, new.target}
            both = self._both(seat, new.target)
            kind = "BondMaxed" if self.is_max(new) else "BondReversed"
            core.emit(s, kind, both, None, seat=seat, holder=new.holder, target=new.target,
                      polarity=new.polarity, grade=new.grade, was=old.polarity)
            if merit:
                ledger.add_merit(s, seat, new.holder, merit, "event")
        core.emit(s, "EventTriggered", frozenset(involved), None, event=event_id,
                  camps=sorted(involved))

    def _open(self, s: GameState, seat: int, target: int, polarity: str,
              grade: int | None = None) -> list[st.Bond]:
        return [b for b in st.record(s, seat).bonds if b.target == target and not b.fixed
                and b.polarity == polarity and (grade is None or b.grade == grade)]

    def on_action(self, s: GameState, action: Action) -> None:
        """Betrayal: a battle Encounter or an Ambush against a camp one holds a Positive open
        bond toward reverses that bond."""
        if s.prompt.kind != "declare":
            return
        if isinstance(action, DeclareAmbush) or (
                isinstance(action, DeclareEncounter) and action.intent == "battle"):
            seat = action.seat
            betrayed = self._open(s, seat, action.target, "positive")
            if betrayed:
                self._event(s, "betrayal", [(seat, b._replace(polarity="negative"))
                                            for b in betrayed])

    def after_action(self, s: GameState, action: Action, evs: list[Event]) -> None:
        for e in list(evs):
            if e.type == "NegotiationEnded":
                self._parted(s, e.data["seat"], e.data["target"])
            elif e.type == "TimeWithMaster" and not st.record(s, e.data["seat"]).stray:
                for holder in HOLDERS:  # (C9.2: a stray has no Master to spend it with)
                    self.raise_grade(s, e.data["seat"], holder, e.data["seat"], 1, "wait")

    def _parted(self, s: GameState, a: int, b: int) -> None:
        """Reconciliation (Negative both ways: both Reversed) and sworn (Positive grade 5 both
        ways: both MAX) when a negotiation ends by parting."""
        mine, theirs = self._open(s, a, b, "negative"), self._open(s, b, a, "negative")
        if mine and theirs:
            self._event(s, "reconciliation",
                        [(x, bd._replace(polarity="positive")) for x, bonds in
                         ((a, mine), (b, theirs)) for bd in bonds])
        top = self.top()
        mine, theirs = (self._open(s, a, b, "positive", top), self._open(s, b, a, "positive", top))
        if mine and theirs:
            value = self.data.numbers.bond_max_value
            self._event(s, "sworn", [(x, bd._replace(grade=value)) for x, bonds in
                                     ((a, mine), (b, theirs)) for bd in bonds])

    def _grade_events(self, s: GameState, seat: int, bond: st.Bond) -> None:
        """Nemesis and heart to heart, checked whenever a bond reaches grade 5."""
        if bond.grade != self.top() or bond.fixed:
            return
        value = self.data.numbers.bond_max_value
        if (bond.polarity == "negative" and bond.target != seat
                and bond.battles >= self.data.numbers.nemesis_battles):
            self._event(s, "nemesis", [(seat, bond._replace(grade=value))])
        elif (bond.target == seat and s.camps[seat].unlocked and bond.polarity == "positive"
              and not st.record(s, seat).stray):  # a stray's "unlocked" only means no 4th skill
            self._event(s, "heart_to_heart", [(seat, bond._replace(grade=value))])

    def _count_battles(self, s: GameState) -> None:
        """Each bond whose holder and target both fought this battle counts one more battle."""
        joined = frozenset(s.battle.joined)
        for seat in joined:
            for bond in st.record(s, seat).bonds:
                if bond.target in joined and bond.target != seat:
                    new = bond._replace(battles=bond.battles + 1)
                    self._put(s, seat, new)
                    self._grade_events(s, seat, new)

    # --- what leaves the engine -----------------------------------------------------------------
    def scenario_state(self, s: GameState, values: Any) -> None:
        """`[[module_state.campaign.bonds.bond]]` tables: seat, holder, target, polarity,
        grade (0-5, or bond_max_value) and optionally fixed and battles, each a bond the camp
        at `seat` starts with (replacing one of the same holder and target)."""
        unknown = sorted(set(values) - {"bond"})
        if unknown:
            raise ValueError(f"campaign bonds module_state has no key {unknown[0]!r}; keys: bond")
        n = self.data.numbers
        for spec in values.get("bond", []):
            fields = {"seat", "holder", "target", "polarity", "grade", "fixed", "battles"}
            if not isinstance(spec, dict) or set(spec) - fields:
                raise ValueError(f"campaign bond {spec!r}: keys are {', '.join(sorted(fields))}")
            seat, target = spec.get("seat"), spec.get("target")
            grade = spec.get("grade")
            ok = (all(type(x) is int and 0 <= x < len(s.camps) for x in (seat, target))
                  and spec.get("holder") in HOLDERS and spec.get("polarity") in POLARITIES
                  and type(grade) is int and (0 <= grade <= n.bond_grade_max
                                              or grade == n.bond_max_value))
            if not ok:
                raise ValueError(f"campaign bond {spec!r}: seat and target are seats, holder "
                                 f"one of {HOLDERS}, polarity one of {POLARITIES}, grade 0-"
                                 f"{n.bond_grade_max} or {n.bond_max_value}")
            self._put(s, seat, st.Bond(spec["holder"], target, spec["polarity"], grade,
                                       bool(spec.get("fixed", False)),
                                       int(spec.get("battles", 0))))

    def verbs(self) -> tuple[str, ...]:
        return ("SetBond", "AwardBond", "ResolveBond")

    def text(self, s: GameState) -> list[str]:
        queue = st.state(s).bond_queue
        return [f"bond_queue {queue}"] if queue else []


def _handler(method: str) -> Any:
    return lambda s, a: getattr(section_of(s, Bonds), method)(s, a)


prompts.extend("declare", st.NAME,
               {SetBond: _handler("set_bond"), AwardBond: _handler("award"),
                ResolveBond: _handler("resolve")}, ("SetBond", "AwardBond", "ResolveBond"))
prompts.extend("round_start", st.NAME, {ResolveBond: _handler("resolve")}, ("ResolveBond",))
prompts.register(prompts.PromptKind(
    "share", lambda s, seat: [], {ShareBondDamage: _handler("share")},
    lambda s, seat: ShareBondDamage(seat, 0), verbs=("ShareBondDamage",),
    doc="C8.8: a camp with a Positive bond toward a bond's victim may take some of its damage"))
prompts.register(prompts.PromptKind(
    "split", lambda s, seat: [], {SplitBondDamage: _handler("split")},
    lambda s, seat: SplitBondDamage(seat, 0), verbs=("SplitBondDamage",), battle=True,
    doc="C8.8: a bond's victim moves part of the damage to MP, lost twice over"))

__all__ = ["AwardBond", "Bonds", "ResolveBond", "SetBond", "ShareBondDamage", "SplitBondDamage"]
