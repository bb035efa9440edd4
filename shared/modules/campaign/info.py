"""§1 of the campaign: information points (C1.1-C1.15). They replace the base investigation
tiers: what a camp sees of a rival derives from the points it holds on it.

Each camp holds four Servant counters (Encounter, Rumor, Combat, Legend) and three Master
counters (Encounter, Rumor, Combat) on every other camp. The base views keep working from the
base tier (`Camp.known`), which this section sets from the points: tier 1 (composition and
skills) at `class_reveal` Servant points, tier 3 (true name, NP, profile, weakness) when all four
are at their maximum. What has no base tier (an NP seen fired, the Master's sheet) is in this
section's view, for the holder only. The points a camp holds are its own secret (spec §4), so no
record field here is public, and every event here is private to the camp that gains.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...engine import core, prompts, turns
from ...engine.actions import Action, DeclareInvestigate
from ...engine.data import CLASSES
from ...engine.sharing import Shared
from ...engine.state import Declaration, GameState
from . import ledger
from . import state as st
from .contract import Contract
from .data import MASTER_CATEGORIES, SERVANT_CATEGORIES
from .section import Section, section_of

# C1.10: the experience method a point becomes once the true name is known (C2.2's methods:
# scouting for Investigate, Research and devices; combat for what a battle shows).
# The source a scenario's points of each category come from (its experience method, C1.10).
CATEGORY_SOURCE = {"encounter": "encounter", "rumor": "share", "combat": "combat",
                   "legend": "research"}
SOURCE_METHOD = {"investigate": "scouting", "research": "scouting", "residual": "scouting",
                 "device": "scouting", "share": "other", "encounter": "other",
                 "combat": "combat", "np": "combat", "constant": "combat"}


@dataclass(frozen=True, slots=True)
class DeclareResearch(Action):
    """C1.14: research a class's legend (a Turn action): 2D6 + the Master's investigation
    modifier, +library_bonus on a research square; research_target or more gives a Legend
    point. The class, the roll and the result are private."""

    target_class: str




@dataclass(frozen=True, slots=True)
class ShareRumor(Action):
    """C1.13: in a negotiation, tell the partner what is said of camp `about` (once per
    negotiation): the partner gains a Servant Rumor point on it."""

    about: int


class Information(Section):
    key = "info"
    camp_keys = ("info",)

    # --- the maxima and what they reveal ---------------------------------------------------------
    def servant_max(self, s: GameState, seat: int) -> int:
        """C1.6: each Servant category's maximum on the camp at `seat` (5 + its fame)."""
        return self.data.numbers.info_max_servant + self.data.fame(s.camps[seat].servant.id)

    def at_max(self, s: GameState, holder: int, other: int, category: str) -> bool:
        """Whether `holder` has `other`'s Servant `category` at its maximum (C1.8: all of them
        after the true name), the resistance condition of C1.12."""
        info = st.info_on(s, holder, other)
        i = SERVANT_CATEGORIES.index(category)
        return info.true_name or info.servant[i] >= self.servant_max(s, other)

    def tier(self, info: st.Info) -> int:
        """The base investigation tier the points give (C1.7, C1.8)."""
        if info.true_name:
            return 3
        return 1 if sum(info.servant) >= self.data.numbers.class_reveal else 0

    def master_level(self, info: st.Info) -> int:
        """C1.11: 1 name, profile and tag (total >= master_reveal); 2 also skills and the 4th
        unlock (a category at its maximum); 3 also MP, level and race (all three at it)."""
        top = self.data.numbers.info_max_master
        if all(x >= top for x in info.master):
            return 3
        if any(x >= top for x in info.master):
            return 2
        return 1 if sum(info.master) >= self.data.numbers.master_reveal else 0

    # --- gaining points ---------------------------------------------------------------------------
    def gain(self, s: GameState, holder: int, other: int, source: str, *categories: str,
             master: tuple[str, ...] = ()) -> None:
        """+1 Servant point in each of `categories` and +1 Master point in each of `master`,
        held by `holder` on `other`, from `source`; a point over its maximum is not gained
        (C1.6), and once the true name is known a Servant point becomes experience (C1.10)."""
        if holder == other or not s.camps[holder].alive:
            return
        for category in categories:
            self._gain_one(s, holder, other, source, "servant", category)
        for category in master:
            self._gain_one(s, holder, other, source, "master", category)

    def _gain_one(self, s: GameState, holder: int, other: int, source: str, side: str,
                  category: str) -> None:
        info = st.info_on(s, holder, other)
        mine = frozenset({holder})
        if side == "servant" and info.true_name:
            self.add_exp(s, holder, SOURCE_METHOD[source], source)
            return
        names = SERVANT_CATEGORIES if side == "servant" else MASTER_CATEGORIES
        top = self.servant_max(s, other) if side == "servant" else self.data.numbers.info_max_master
        counts = list(getattr(info, side))
        i = names.index(category)
        if counts[i] >= top:
            return
        counts[i] += 1
        new = info._replace(**{side: tuple(counts)})
        core.emit(s, "InfoGained", mine, None, seat=holder, target=other, side=side,
                  category=category, amount=1, source=source)
        if SOURCE_METHOD[source] == "scouting":
            ledger.note_scouting(s, holder)
        if side == "servant":
            new = self._servant_reveals(s, holder, other, info, new)
        elif self.master_level(new) > self.master_level(info):
            core.emit(s, "MasterLearned", mine, None, seat=holder, target=other,
                      level=self.master_level(new))
        st.put_info(s, holder, other, new)

    def _servant_reveals(self, s: GameState, holder: int, other: int, old: st.Info,
                         new: st.Info) -> st.Info:
        """C1.7 the composition and skills; C1.8 the true name with everything (the base tier
        follows, so the base views show what the points revealed)."""
        mine = frozenset({holder})
        cls = s.camps[other].cls
        if all(x >= self.servant_max(s, other) for x in new.servant):
            new = new._replace(true_name=True, np_known=True)
        tier = self.tier(new)
        if tier > self.tier(old):
            event = "TrueNameRevealed" if tier == 3 else "CompositionLearned"
            core.emit(s, event, mine, None, seat=holder, target=other, cls=cls, tier=tier)
            camp = s.edit(holder)
            known = list(camp.known)
            known[CLASSES.index(cls)] = tier
            camp.known = tuple(known)
        return new

    def scenario_camp(self, s: GameState, seat: int, values: Any) -> None:
        """`info = [{on = 1, servant = {legend = 6}, master = {rumor = 1}}]`: points the camp
        gains on camp `on`, one at a time as play gives them (`gain`, from the source that
        gives each category in play): what they reveal is revealed, a point past a maximum
        is dropped, and after the true name a Servant point is experience (C1.6-C1.10)."""
        for entry in values["info"]:
            if not (isinstance(entry, dict) and set(entry) <= {"on", "servant", "master"}
                    and type(entry.get("on")) is int and 0 <= entry["on"] < len(s.camps)
                    and entry["on"] != seat):
                raise ValueError(f"info: {entry!r} is not {{on = another seat, servant = "
                                 "{category = points}, master = {category = points}}")
            for side, names in (("servant", SERVANT_CATEGORIES), ("master", MASTER_CATEGORIES)):
                points = entry.get(side, {})
                if not isinstance(points, dict) or not all(
                        k in names and type(n) is int and n >= 0 for k, n in points.items()):
                    raise ValueError(f"info: {side} = {points!r}; categories: "
                                     f"{', '.join(names)} (points >= 0)")
                for category, n in points.items():
                    for _ in range(n):
                        if side == "servant":
                            self.gain(s, seat, entry["on"], CATEGORY_SOURCE[category], category)
                        else:
                            self.gain(s, seat, entry["on"], CATEGORY_SOURCE[category],
                                      master=(category,))

    def scenario_state(self, s: GameState, values: Any) -> None:
        """`residual = [{square = 10, classes = ["saber"]}]`: residual thoughts left on those
        squares by a battle of those classes today (C1.15), as if it had been fought."""
        unknown = sorted(set(values) - {"residual"})
        if unknown:
            raise ValueError(f"campaign info module_state has no key {unknown[0]!r}; keys: "
                             "residual")
        residual = dict(st.state(s).residual)
        squares = core.city(s).width * core.city(s).height
        for entry in values.get("residual", []):
            if not (isinstance(entry, dict) and set(entry) == {"square", "classes"}
                    and type(entry["square"]) is int and 0 <= entry["square"] < squares
                    and isinstance(entry["classes"], list) and entry["classes"]
                    and all(c in CLASSES for c in entry["classes"])):
                raise ValueError(f"campaign info residual: {entry!r} is not {{square = 0.."
                                 f"{squares - 1}, classes = [class, ...]}}")
            residual[entry["square"]] = residual.get(entry["square"], frozenset()) | set(
                entry["classes"])
        st.put(s, residual=tuple(sorted(residual.items())))

    def disclose_np(self, s: GameState, holder: int, other: int) -> None:
        """C1.9: the NP (name, text, kind, card, scale) without the true name."""
        info = st.info_on(s, holder, other)
        if info.np_known or not s.camps[holder].alive:
            return
        st.put_info(s, holder, other, info._replace(np_known=True))
        core.emit(s, "NoblePhantasmDisclosed", frozenset({holder}), None, seat=holder,
                  target=other, cls=s.camps[other].cls)

    def add_exp(self, s: GameState, seat: int, method: str, source: str) -> None:
        """C1.10: +1 Master experience of `method` (§2 keeps the pools and the levels)."""
        ledger.gain_exp(s, self.data, seat, method, 1, source)

    # --- C1.2 meetings, C1.3 battles, C1.5 Legend, C1.15 residual thoughts ---------------
    def advance(self, s: GameState) -> bool:
        """Who meets whom (C1.2): the two camps of a negotiation (or an ambush), every pair of
        a battle's combatants, noted as the walk passes them."""
        groups = []
        if s.parley is not None:
            groups.append((s.parley.opener, s.parley.target))
        if s.battle is not None:
            groups.append(s.battle.seats)
        for seats in groups:
            for x in seats:
                rec = st.record(s, x)
                others = frozenset(seats) - {x}
                if not others <= rec.met_now:
                    st.update(s, x, met_now=rec.met_now | others)
        return False

    def on_np_fired(self, s: GameState, seat: int) -> None:
        """C1.5 (i), C1.9: each other combatant gains a Legend point and learns the NP."""
        b = s.battle
        if b is None or seat not in b.seats:
            return
        for x in b.seats:
            if x != seat:
                self.gain(s, x, seat, "np", "legend")
                self.disclose_np(s, x, seat)

    def on_battle_end(self, s: GameState) -> None:
        """C1.3 Combat points (once per pair per Turn), C1.5 (ii) a constant NP's Legend point
        (once per battle), C1.15 residual thoughts of every combatant on the square."""
        b = s.battle
        fighters = sorted(set(b.joined) | set(b.seats))
        for x in fighters:
            for y in fighters:
                if x == y or not s.camps[x].alive:
                    continue
                if y not in st.record(s, x).fought_now:
                    self.gain(s, x, y, "combat", "combat", master=("combat",))
                    rec = st.record(s, x)
                    st.update(s, x, fought_now=rec.fought_now | {y})
                if s.camps[y].servant.np.kind == "constant":
                    self.gain(s, x, y, "constant", "legend")
        residual = dict(st.state(s).residual)
        residual[b.square] = residual.get(b.square, frozenset()) | {
            s.camps[x].cls for x in fighters}
        st.put(s, residual=tuple(sorted(residual.items())))

    # --- C1.1 Master points are on the Master (C9.3, C9.4) ------------------------------------
    def on_contract_end(self, s: GameState, seat: int) -> None:
        """The points every other camp holds on this camp's Master leave with it (the
        vacant Master just listed last); the camp's Master counters start again at 0."""
        g = st.state(s)
        zero = st.Info().master
        known = tuple(st.info_on(s, x, seat).master if x != seat else zero
                      for x in range(len(s.camps)))
        for x in range(len(s.camps)):
            if x != seat:
                st.put_info(s, x, seat, st.info_on(s, x, seat)._replace(master=zero))
        st.put(s, vacant=(*g.vacant[:-1], g.vacant[-1]._replace(known=known)))

    def on_contract_start(self, s: GameState, seat: int) -> None:
        """The points others held on the re-contracted Master are now on this camp's; a
        holder for whom they reveal more of this camp's Master than it saw before (C1.11)
        is told so privately, as when a point crosses a threshold (`MasterLearned`)."""
        master = s.camps[seat].master.id
        vacant = next(v for v in st.state(s).vacant if v.master == master)
        for x, points in enumerate(vacant.known):
            if x == seat:
                continue
            old = st.info_on(s, x, seat)
            new = old._replace(master=points)
            st.put_info(s, x, seat, new)
            if self.master_level(new) > self.master_level(old):
                core.emit(s, "MasterLearned", frozenset({x}), None, seat=x, target=seat,
                          level=self.master_level(new))

    def on_turn_end(self, s: GameState) -> None:
        """C1.2: camps on one square at the Turn's end, neither in spirit form, have met too;
        each living camp gains an Encounter point (Servant and Master) on each camp it met."""
        contract = section_of(s, Contract)
        visible = [x for x in s.living if not contract.spirit(s, x)]
        for x in visible:
            here = frozenset(y for y in visible if y != x and s.camps[y].pos == s.camps[x].pos)
            if not here <= st.record(s, x).met_now:
                st.update(s, x, met_now=st.record(s, x).met_now | here)
        for x in s.living:
            for y in sorted(st.record(s, x).met_now):
                self.gain(s, x, y, "encounter", "encounter", master=("encounter",))
        for x in range(len(s.camps)):
            rec = st.record(s, x)
            if rec.met_now or rec.met_last_turn or rec.fought_now or rec.shared_rumor:
                st.update(s, x, met_last_turn=rec.met_now, met_now=frozenset(),
                          fought_now=frozenset(), shared_rumor=False)

    def on_day_end(self, s: GameState) -> None:
        """C1.15: residual thoughts last until the end of the day."""
        if st.state(s).residual:
            st.put(s, residual=())

    # --- C1.4 Investigate, C1.14 Research -----------------------------------------------------
    def investigate(self, s: GameState, seat: int, target: int, success: bool) -> bool:
        """C1.4: a success gives a Rumor point (Servant and Master) instead of a tier."""
        if success:
            self.gain(s, seat, target, "investigate", "rumor", master=("rumor",))
        tier = self.tier(st.info_on(s, seat, target))
        core.emit(s, "Investigated", frozenset({seat}), None, seat=seat,
                  cls=s.camps[target].cls, tier=tier, success=success)
        return True

    def research(self, s: GameState, _i: int, decl: Declaration) -> None:
        seat = decl.seat
        camp = s.camps[seat]
        mine = frozenset({seat})
        target = next((c.seat for c in s.camps if c.cls == decl.arg and c.alive), None)
        if target is None:
            core.emit(s, "ActionCancelled", mine, None, seat=seat, kind="research")
            return
        n = self.data.numbers
        residual = decl.arg in dict(st.state(s).residual).get(camp.pos, frozenset())
        if residual:  # C1.15: success without a roll
            success = True
        else:
            bonus = camp.master.investigation + core.mod(s, camp, "investigation")
            if camp.pos in self.data.research_squares.get(s.settings.map_id, ()):
                bonus += n.library_bonus
            check = core.check_2d6(s, seat, "research", bonus, special=False,
                                   target=n.research_target, private=mine)
            success = check.total >= n.research_target
        core.emit(s, "Researched", mine, None, seat=seat, cls=decl.arg, success=success,
                  residual=residual)
        if success:
            self.gain(s, seat, target, "residual" if residual else "research", "legend")

    # --- C1.13 ShareRumor ----------------------------------------------------------------------
    def share_rumor(self, s: GameState, action: ShareRumor) -> None:
        p = s.parley
        partner = p.target if action.seat == p.opener else p.opener
        st.update(s, action.seat, shared_rumor=True)
        core.emit(s, "RumorShared", frozenset({action.seat, partner}), None, seat=action.seat,
                  target=partner, about=action.about)
        self.gain(s, partner, action.about, "share", "rumor")

    # --- offering ---------------------------------------------------------------------------------
    def legal(self, s: GameState, seat: int, actions: list[Action]) -> list[Action]:
        kind = s.prompt.kind
        if kind == "declare" and not s.camps[seat].asleep:
            offered = set(actions)
            others = tuple(c.cls for c in s.camps if c.alive and c.seat != seat)
            return [*actions, *(a for a in _research_offers(seat, others)
                                if a not in offered)]
        if kind == "negotiate" and not st.record(s, seat).shared_rumor:
            pair = {s.parley.opener, s.parley.target}
            held = st.record(s, seat).info
            return [*actions, *(ShareRumor(seat, c.seat) for c in s.camps
                                if c.alive and c.seat not in pair
                                and (sum(held[c.seat].servant) + sum(held[c.seat].master) > 0
                                     or held[c.seat].true_name))]
        return actions

    # --- what leaves the engine ----------------------------------------------------------------
    def verbs(self) -> tuple[str, ...]:
        return ("DeclareResearch", "ShareRumor")

    def view(self, s: GameState, seat: int | None, shared: Shared) -> dict[str, Any]:
        """For a seat, per other camp: its points, the Servant maximum, and what the points
        revealed beyond the base tiers (C1.9 the NP; C1.11 the Master). Nothing for the
        spectator."""
        if seat is None:
            return {}
        info = st.record(s, seat).info
        return {str(x): shared.carried(("campaign.info", seat, x), self._reads(s, info[x], x),
                                       lambda x=x: self._revealed(s, info[x], x))
                for x in range(len(s.camps)) if x != seat}

    @staticmethod
    def _reads(s: GameState, info: st.Info, other: int) -> tuple[Any, ...]:
        """Everything `_revealed` reads: the points, and of the camp and its record the sheets,
        the 4th skill's unlock, the Master's MP, tag, stray and level."""
        camp, rec = s.camps[other], st.record(s, other)
        return (info, camp.servant, camp.master, camp.unlocked, camp.master_mp, rec.tag,
                rec.stray, rec.level)

    def rebuild(self, s: GameState, view: Any) -> None:
        """A bot's rebuilt state takes what the seat's points revealed of each rival's Master
        (C1.11): which Master it is (swapped with the rival that was drawn it), its tag (the
        tags section's sample adds what the tag brings), the 4th skill's unlock, its MP and
        level."""
        by_name = {m.name.en: m for m in self.rules.masters.values()}
        for x, seen in ((int(k), v) for k, v in view.items()):
            if "master_name" not in seen or st.record(s, x).stray:
                continue
            master = by_name[seen["master_name"]["en"]]
            holder = next((c.seat for c in s.camps if c.master is master), None)
            if holder is not None and holder != x:
                s.edit(holder).master = s.camps[x].master
            camp = s.edit(x)
            camp.master = master
            st.update(s, x, tag=seen["tag"])
            if "unlocked" in seen:
                camp.unlocked = seen["unlocked"]
            if "level" in seen:
                camp.master_mp = seen["master_mp"]
                st.update(s, x, level=seen["level"])

    def _revealed(self, s: GameState, info: st.Info, other: int) -> dict[str, Any]:
        camp = s.camps[other]
        out: dict[str, Any] = {"servant": list(info.servant), "master": list(info.master),
                               "max": self.servant_max(s, other), "np_known": info.np_known,
                               "true_name": info.true_name}
        np = camp.servant.np
        if info.np_known and not info.true_name:  # after the true name the base view has it
            out["np"] = {"name": _text(np.name), "text": _text(np.text), "kind": np.kind,
                         "card": np.card, "scale": np.scale}
        level = self.master_level(info)
        master = camp.master
        if level >= 1:
            out["master_name"] = _text(master.name)
            out["master_profile"] = _text(master.profile)
            out["tag"] = st.record(s, other).tag
        if level >= 2:
            out["master_skills"] = list(master.skills if camp.unlocked else master.skills[:3])
            out["unlocked"] = camp.unlocked
        if level >= 3:
            # C1.11 shows MP, level and race: the max MP the level gives (C2.5), not a necklace's
            out.update(master_mp=camp.master_mp,
                       max_master_mp=master.mp + st.level_master_mp(s, other, self.data),
                       level=st.record(s, other).level, race=st.race(s, other, self.data))
        return out


def _research_offers(seat: int, classes: tuple[str, ...]) -> tuple[Action, ...]:
    """Investigating and researching (C1.14) each of these classes."""
    return tuple(a for cls in classes for a in (DeclareInvestigate(seat, cls),
                                                DeclareResearch(seat, cls)))


def _text(text: Any) -> dict[str, str]:
    return {"ja": text.ja, "ko": text.ko, "en": text.en}


def _research(s: GameState, i: int, decl: Declaration) -> None:
    section_of(s, Information).research(s, i, decl)


turns.register_declaration(DeclareResearch, "research", _research)
prompts.extend("declare", st.NAME, {DeclareResearch: turns.declare}, ("DeclareResearch",))
prompts.extend("negotiate", st.NAME,
               {ShareRumor: lambda s, a: section_of(s, Information).share_rumor(s, a)},
               ("ShareRumor",))

__all__ = ["DeclareResearch", "Information", "ShareRumor"]
