"""§12 of the campaign: the eight tags (C12.1, C12.2).

With `tags = random` each camp is dealt one tag on day 0 (after the relic draft), from the dice,
without repeats and within each tag's `classes`. A tag belongs to the Master: it is private to
its camp (a rival learns it only through Master points, C1.11) and it does nothing while the
camp is stray (its Master is vacant and carries it, C9.3). The tags' names, texts, class limits
and the future spirit's numbers are `campaign/tags.toml`; their amounts are `rules.toml`; what
each one does is written here, one method per tag.

Not offered, as the spec says: the Makiri revival insect (Masters cannot die), the Einzbern
combat maid (no NPC combatants) and the event tags (C12.2, defined nowhere): no data key and no
action exists for them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ...engine import core, prompts
from ...engine.actions import (
    Action,
    AnswerIntervention,
    DeclareAmbush,
    DeclareDisengage,
    DeclareEncounter,
    Move,
    UseCommandSpell,
)
from ...engine.data import CLASSES, PARAMS, Ruleset, Text, read_table
from ...engine.events import Event
from ...engine.geometry import distance
from ...engine.sharing import Shared
from ...engine.state import Camp, GameState
from ..colossus.actions import DeclareRaid
from . import state as st
from .contract import Contract
from .info import Information
from .section import Section, section_of
from .summoning import RELIC, as_dict

if TYPE_CHECKING:
    from . import Campaign

# C12.1 ①-⑧, in the seed's order; what each does is a method of `Tags`.
TAGS = ("holy_sword_sheath", "founding_jewels", "founding_insects", "founding_homunculus",
        "overseer", "future_spirit", "strongest_enemy", "gatekeeper")
_PARAM_KEYS = frozenset(PARAMS)
_BOUND_SPELLS = ("teleport", "retreat")  # ⑧: Command Spells that would move a gatekeeper
# ⑧: the actions a gatekeeper may take only at its start square (the rest never leave it)
_POST_BOUND = (DeclareEncounter, DeclareAmbush, DeclareRaid, AnswerIntervention)


class Tag(NamedTuple):
    """One tag of `tags.toml`: the classes it may be dealt to (empty: any), its name and text;
    `bond_grade` and `below_max` are the future spirit's (⑥) and 0 for the others."""

    id: str
    classes: tuple[str, ...]
    name: Text
    text: Text
    bond_grade: int = 0
    below_max: int = 0


def load_tags(rules: Ruleset, root: Path | None = None) -> tuple[Tag, ...]:
    """`campaign/tags.toml`: tags of C12.1 only (a table may drop one or limit its classes;
    an event tag, C12.2, or any other id is refused)."""
    base: Traversable = resources.files("grailwar.resources") if root is None else root
    doc = read_table(base, "campaign/tags.toml")
    out = []
    for tag_id in doc.ids():
        if tag_id not in TAGS:
            doc.fail(tag_id, f"unknown tag (the tags are {', '.join(TAGS)}; event tags, "
                             f"C12.2, are not played)")
        entry = doc.table(tag_id)
        classes = entry.idents("classes", 1, len(CLASSES)) if "classes" in entry else ()
        for i, cls in enumerate(classes):
            if cls not in rules.servants:
                entry.fail(f"classes[{i}]", f"unknown class {cls!r}")
        future = tag_id == "future_spirit"
        out.append(Tag(tag_id, classes, entry.text("name"), entry.text("text"),
                       entry.integer("bond_grade", 0, 5) if future else 0,
                       entry.integer("below_max", 0, 20) if future else 0))
        entry.finish(hint="a tag takes classes, name, text (future_spirit: bond_grade, "
                          "below_max)")
    doc.finish()
    return tuple(out)


@dataclass(frozen=True, slots=True)
class UseJewels(Action):
    """② The Tohsaka jewels: pour `amount` MP (steps of jewels_step) into the Servant, at any
    prompt."""

    amount: int


@dataclass(frozen=True, slots=True)
class GiveCommandSpell(Action):
    """⑤ The Overseer hands one of its strokes to its negotiation partner (once a
    negotiation)."""


class Tags(Section):
    key = "tags"
    modifier_keys = _PARAM_KEYS | {"checks"}  # ② the parameters, ⑧ every check
    camp_keys = ("tag",)

    def __init__(self, module: Campaign) -> None:
        super().__init__(module)
        self.tags = load_tags(module.rules)
        self.tag_by_id = {t.id: t for t in self.tags}
        # each tag's part of its holder's view, one object: a view's next has the same one
        self.parts = {t.id: {"mine": {"id": t.id, "name": as_dict(t.name), "text": as_dict(t.text)}}
                      for t in self.tags}

    # --- reading
    def is_overseer(self, s: GameState, seat: int) -> bool:
        """⑤ stands in for "Ruler" (the Ruler-only items, C6.15, C6.17)."""
        return st.tag(s, seat) == "overseer"

    def start_square(self, s: GameState, seat: int) -> int:
        return core.city(s).starts[s.camps[seat].cls]

    # --- C12.1 the deal -----------------------------------------------------------------------
    def deal(self, s: GameState) -> None:
        """Each seat in turn draws one tag not dealt yet that its class may take (none when
        a house-ruled file leaves none)."""
        if self.option("tags") != "random":
            return
        dealt: set[str] = set()
        for seat in range(len(s.camps)):
            cls = s.camps[seat].cls
            fits = [t for t in self.tags if t.id not in dealt and (not t.classes
                                                                    or cls in t.classes)]
            if not fits:
                continue
            tag = fits[core.roll(s, 1, len(fits))[0] - 1]
            dealt.add(tag.id)
            self.give(s, seat, tag)

    def give(self, s: GameState, seat: int, tag: Tag) -> None:
        """The tag and what it brings on day 0."""
        st.update(s, seat, tag=tag.id, **self.counters(tag.id))
        extra: dict[str, Any] = {}
        if tag.id == "overseer":
            s.edit(seat).spells += self.data.numbers.overseer_strokes
        elif tag.id == "future_spirit":
            extra["target"] = self.foresee(s, seat, tag)
        core.emit(s, "TagDealt", frozenset({seat}), None, seat=seat, tag=tag.id, **extra)

    def scenario_camp(self, s: GameState, seat: int, values: Any) -> None:
        """`tag = "id"`: the camp's tag instead of the one dealt, with what it brings on day 0
        (`give`); a camp holding it already gets the one this camp held, so no tag is dealt
        twice."""
        tag = self.tag_by_id.get(values["tag"]) if isinstance(values["tag"], str) else None
        if tag is None:
            raise ValueError(f"tag: {values['tag']!r} is not a tag; tags: "
                             f"{', '.join(self.tag_by_id)}")
        if self.option("tags") != "random" or st.state(s).day0 == RELIC:
            raise ValueError("tag: needs [options.campaign] tags = \"random\" and a summoning "
                             "that deals them at set-up (a relic draft deals them after it: "
                             "force its dice instead)")
        if tag.classes and s.camps[seat].cls not in tag.classes:
            raise ValueError(f"tag: {tag.id} is for {', '.join(tag.classes)} only")
        old = st.record(s, seat).tag
        if old == tag.id:
            return
        holder = next((c.seat for c in s.camps if st.record(s, c.seat).tag == tag.id), None)
        self._take_back(s, seat)
        if holder is not None:
            self._take_back(s, holder)
            if old:
                self.give(s, holder, self.tag_by_id[old])
        self.give(s, seat, tag)

    def _take_back(self, s: GameState, seat: int) -> None:
        """Undo what `give` brought the camp (a scenario re-dealing tags)."""
        if st.record(s, seat).tag == "overseer":
            s.edit(seat).spells -= self.data.numbers.overseer_strokes
        st.update(s, seat, tag="", jewels=0, revivals=0)

    def counters(self, tag: str) -> dict[str, int]:
        """The record's tag counters as day 0 sets them (② the jewels, ⑦ the revivals)."""
        n = self.data.numbers
        return {"jewels": n.jewels_mp if tag == "founding_jewels" else 0,
                "revivals": n.strongest_revivals if tag == "strongest_enemy" else 0}

    def sample(self, s: GameState, choose: Callable[[Sequence[Any]], Any], seat: int) -> None:
        """A bot's rebuilt state: each contracted rival whose Master `seat`'s points have not
        revealed (C1.11) draws one tag its class may take, none that is known to be dealt
        (`seat`'s own, the revealed ones) and none that what all see rules out (a gatekeeper
        never leaves its start square, ⑧); every rival's counters are day 0's (how many it
        spent is hidden)."""
        if self.option("tags") != "random" or st.state(s).day0 == RELIC:
            return
        info = section_of(s, Information)
        rivals = [x for x in range(len(s.camps)) if x != seat and not st.record(s, x).stray]
        hidden = [x for x in rivals if info.master_level(st.info_on(s, seat, x)) < 1]
        dealt = {st.record(s, x).tag for x in range(len(s.camps)) if x not in hidden}
        for x in rivals:
            tag = st.record(s, x).tag
            if x in hidden:
                fits = [t.id for t in self.tags if t.id not in dealt
                        and (not t.classes or s.camps[x].cls in t.classes)
                        and (t.id != "gatekeeper" or self._at_post(s, x))]
                tag = choose(fits) if fits else ""
                dealt.add(tag)
            st.update(s, x, tag=tag, **self.counters(tag))

    def foresee(self, s: GameState, seat: int, tag: Tag) -> int:
        """⑥ A rival drawn from the dice: every Servant category on it at its maximum less
        `below_max` (what that reveals, it reveals), and a Negative bond of `bond_grade` from
        this camp's Servant toward it."""
        rivals = [x for x in range(len(s.camps)) if x != seat]
        target = rivals[core.roll(s, 1, len(rivals))[0] - 1]
        info = section_of(s, Information)
        top = max(0, info.servant_max(s, target) - tag.below_max)
        old = st.info_on(s, seat, target)
        new = old._replace(servant=(top,) * len(old.servant))
        st.put_info(s, seat, target, info._servant_reveals(s, seat, target, old, new))
        bond = st.Bond("servant", target, "negative", tag.bond_grade)
        st.update(s, seat, bonds=(*st.record(s, seat).bonds, bond))
        return target

    # --- offering
    def legal(self, s: GameState, seat: int, actions: list[Action]) -> list[Action]:
        tag = st.tag(s, seat)
        if tag == "founding_jewels":
            return [*actions, *self._jewels(s, seat)]
        if tag == "gatekeeper":
            return [a for a in actions if not self._leaves_post(s, seat, a)]
        if tag == "overseer" and self._may_give(s, seat):
            return [*actions, GiveCommandSpell(seat)]
        return actions

    def _jewels(self, s: GameState, seat: int) -> list[UseJewels]:
        """② Amounts in steps up to what the jewels hold, while the Servant's MP is not full
        (jewels poured into a full Servant would be lost)."""
        step, left = self.data.numbers.jewels_step, st.record(s, seat).jewels
        camp = s.camps[seat]
        if camp.mp >= camp.servant.mp or UseJewels not in _HANDLED.get(s.prompt.kind, ()):
            return []
        return [UseJewels(seat, amount) for amount in range(step, left + 1, step)]

    def _at_post(self, s: GameState, seat: int) -> bool:
        """Whether the camp could be a gatekeeper: on its start square, not disengaging."""
        camp = s.camps[seat]
        return camp.pos == self.start_square(s, seat) and camp.disengage_round < 0

    def _leaves_post(self, s: GameState, seat: int, action: Action) -> bool:
        """⑧ What a gatekeeper may not do: move (Turn or battle), Teleport or Retreat,
        Disengage, and Encounter, Ambush or intervention away from its start square."""
        kind = type(action)
        if kind in (Move, DeclareDisengage):
            return True
        if kind is UseCommandSpell:
            spell = self.rules.command_spells.get(action.spell)
            return spell is not None and spell.special in _BOUND_SPELLS
        if kind not in _POST_BOUND:
            return False
        post = self.start_square(s, seat)
        if kind in (DeclareEncounter, DeclareAmbush):
            return s.camps[seat].pos != post or s.camps[action.target].pos != post
        if kind is DeclareRaid or (kind is AnswerIntervention and action.join
                                   and s.prompt.kind == "raid_offer"):
            return s.mods["colossus"].square != post  # a raid is fought on its square
        if kind is AnswerIntervention and action.join:
            return s.battle is not None and s.battle.square != post
        return False

    def _may_give(self, s: GameState, seat: int) -> bool:
        """⑤ In a negotiation it is part of, once a negotiation, keeping one stroke for its
        own Servant (with none left the Master's MP closes, base §6)."""
        p = s.parley
        return (s.prompt.kind == "negotiate" and p is not None and seat in (p.opener, p.target)
                and s.camps[seat].spells >= 2
                and st.record(s, seat).spell_given_turn != st.turn_key(s))

    # --- the actions
    def use_jewels(self, s: GameState, action: UseJewels) -> None:
        seat = action.seat
        st.update(s, seat, jewels=st.record(s, seat).jewels - action.amount)
        mp = core.gain_mp(s, seat, action.amount)
        core.emit(s, "JewelsUsed", frozenset({seat}), None, seat=seat, amount=action.amount,
                  mp=mp)

    def give_spell(self, s: GameState, action: GiveCommandSpell) -> None:
        seat = action.seat
        p = s.parley
        partner = p.target if p.opener == seat else p.opener
        s.edit(seat).spells -= 1
        s.edit(partner).spells += 1
        st.update(s, seat, spell_given_turn=st.turn_key(s))
        core.emit(s, "CommandSpellGiven", seat=seat, target=partner)

    # --- the effects
    def modifier(self, s: GameState, camp: Camp, key: str) -> int:
        """② +jewels_params on the six parameters while contracted; ⑧ +gatekeeper_checks
        on every check while on its start square."""
        tag = st.tag(s, camp.seat)
        if tag == "founding_jewels" and key in _PARAM_KEYS:
            return self.data.numbers.jewels_params
        if tag == "gatekeeper" and key == "checks" and camp.pos == self.start_square(s, camp.seat):
            return self.data.numbers.gatekeeper_checks
        return 0

    def rescue(self, s: GameState, seat: int) -> bool:
        """⑦ A blow that would kill the Servant after Guts and lethal skills (Suicide is no
        blow): its HP returns to its maximum and one revival is spent."""
        rec = st.record(s, seat)
        if st.tag(s, seat) != "strongest_enemy" or rec.revivals <= 0:
            return False
        st.update(s, seat, revivals=rec.revivals - 1)
        camp = s.edit(seat)
        camp.hp = camp.servant.hp
        core.emit(s, "Revived", seat=seat, hp=camp.hp)
        return True

    def on_turn_end(self, s: GameState) -> None:
        for seat in s.living:
            tag = st.tag(s, seat)
            if tag == "holy_sword_sheath":
                healed = core.heal(s, seat, self.data.numbers.sheath_heal)
                core.emit(s, "SheathHealed", frozenset({seat}), None, seat=seat, hp=healed)
            elif tag == "founding_insects":
                self._insects(s, seat)
            elif tag == "strongest_enemy":
                self._revival_upkeep(s, seat)

    def _insects(self, s: GameState, seat: int) -> None:
        """③ A Servant Rumor point on each other materialized Servant within insects_range
        squares of the Master (a scouting device's point)."""
        contract, info = section_of(s, Contract), section_of(s, Information)
        grid, here = core.city(s), s.camps[seat].pos
        for other in s.living:
            if other != seat and not contract.spirit(s, other) and distance(
                    grid, here, s.camps[other].pos) <= self.data.numbers.insects_range:
                info.gain(s, seat, other, "device", "rumor")

    def _revival_upkeep(self, s: GameState, seat: int) -> None:
        """⑦ The Master pays strongest_mp_per_revival per revival left; what it cannot pay
        for is lost (A43)."""
        per = self.data.numbers.strongest_mp_per_revival
        left = st.record(s, seat).revivals
        if per == 0 or left == 0:
            return
        camp = s.edit(seat)
        kept = min(left, camp.master_mp // per)
        camp.master_mp -= kept * per
        st.update(s, seat, revivals=kept)
        core.emit(s, "RevivalsUpkept", frozenset({seat}), None, seat=seat, amount=kept * per,
                  revivals=kept)

    def after_action(self, s: GameState, action: Action, events: list[Event]) -> None:
        """④ A homunculus Master drinks the MP of every other Servant that dies or vanishes;
        ⑤ an Overseer resting on the church has the Dragon Vein's bonus."""
        for event in events:
            if event.type == "ServantDied":
                self._drink(s, event.data["seat"])
            elif event.type == "Rested" and self.is_overseer(s, event.data["seat"]):
                self._dragon_vein(s, event.data["seat"])

    def _drink(self, s: GameState, dead: int) -> None:
        mp = max(0, s.camps[dead].mp)
        for seat in s.living:
            if seat != dead and st.tag(s, seat) == st.HOMUNCULUS:
                camp = s.edit(seat)
                gain = min(mp, camp.master.mp - camp.master_mp)
                camp.master_mp += gain
                core.emit(s, "HomunculusDrank", frozenset({seat}), None, seat=seat,
                          target=dead, amount=gain)

    def _dragon_vein(self, s: GameState, seat: int) -> None:
        """The Rest on overseer_church had its square's own leyline bonus: the rest of
        overseer_dragon_vein is added to each of its three recoveries (capped as a Rest)."""
        camp = s.camps[seat]
        grid = core.city(s)
        n = self.data.numbers
        if camp.pos != n.overseer_church or n.overseer_church >= len(grid.squares):
            return
        extra = n.overseer_dragon_vein - s.rules.numbers.leyline_bonus[
            grid.squares[camp.pos].leyline]
        if extra <= 0:
            return
        hp = core.heal(s, seat, extra)
        mp = core.gain_mp(s, seat, extra)
        camp = s.edit(seat)
        master_mp = min(camp.master.mp - camp.master_mp, extra)
        camp.master_mp += master_mp
        core.emit(s, "DragonVeinRested", frozenset({seat}), None, seat=seat, hp=hp, mp=mp,
                  master_mp=master_mp)

    # --- what leaves the engine
    def verbs(self) -> tuple[str, ...]:
        return ("UseJewels", "GiveCommandSpell")

    def view(self, s: GameState, seat: int | None, shared: Shared) -> dict[str, Any] | None:
        """The viewer's own tag with its name and text (the record holds only its id); a
        rival's tag is in no view (C1.11's reveal is the information section's)."""
        if seat is None or not st.record(s, seat).tag:
            return None
        return self.parts[st.record(s, seat).tag]


def _tags(s: GameState) -> Tags:
    return section_of(s, Tags)


# ② at every prompt kind there is (the day-0 kinds too: summoning.py is imported above);
# ⑤ in a negotiation.
_HANDLED: dict[str, tuple[type[Action], ...]] = {}
for _name in list(prompts.PROMPTS):
    prompts.extend(_name, st.NAME, {UseJewels: lambda s, a: _tags(s).use_jewels(s, a)},
                   ("UseJewels",))
    _HANDLED[_name] = (UseJewels,)
prompts.extend("negotiate", st.NAME, {GiveCommandSpell: lambda s, a: _tags(s).give_spell(s, a)},
               ("GiveCommandSpell",))

__all__ = ["TAGS", "GiveCommandSpell", "Tag", "Tags", "UseJewels", "load_tags"]
