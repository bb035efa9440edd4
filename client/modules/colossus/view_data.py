"""The colossus in the client (seed 003 §5, spec 003 T7; docs/rules.md "The colossus"): what the
raid screen and the city map show, and the lines of its events, read from the module's public
view and the seat's events only. The hidden part factors and dodges are not in the view: the
screen shows the damage that got through, never a factor."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....shared.engine.data import Ruleset
from ....shared.modules.colossus.actions import COLOSSUS
from ....shared.modules.colossus.data import ColossusData, load_colossus

if TYPE_CHECKING:
    from ...model import ClientModel

STAGES = ("ground", "colossus", "climb")  # the round's three phases (T7.1), in order
SLOTS = 3  # T7.2: a climber's action slots per round
# The raid's actions whose option names a tile, a part, or a card kind.
TILE_ACTIONS = frozenset({"Mount", "ClimbTo"})
GROUND_ACTIONS = frozenset({"AttackPart", "FireAtPart"})  # a ground raider's, at a part
EVENTS = frozenset({
    "ColossusAwakened", "ColossusAdvanced", "ColossusHeld", "Trampled", "RaidOpened",
    "ColossusTelegraphed", "RaidRoundStarted", "ColossusActed", "SurfaceTilted",
    "ColossusAttacked", "ColossusStruck", "RaiderWounded", "ShakenOff", "PartAttacked",
    "PartMissed", "ColossusDodged", "PartHit", "ColossusDestroyed", "RaidRewarded", "RaidEnded",
    "LeftRaid", "ClimbDeclared", "Mounted", "Climbed", "Dismounted", "SpellOnColossus",
    "ColossusEndured"})
NOTICES = frozenset({"ColossusAwakened", "RaidOpened", "ColossusDestroyed"})
BATTLE_EVENTS = EVENTS - {"ColossusAwakened", "ColossusAdvanced", "ColossusHeld", "Trampled"}


_DATA: dict[int, tuple[Ruleset, ColossusData]] = {}


def colossus_data(rules: Ruleset) -> ColossusData:
    """The scenario's public numbers (the raid's length, the fall damage): the shipped file,
    read once per ruleset."""
    if id(rules) not in _DATA:
        _DATA[id(rules)] = (rules, load_colossus(rules))
    return _DATA[id(rules)][1]


def state_of(view: dict[str, Any] | None) -> dict[str, Any] | None:
    """The colossus module's public state, if the game has it."""
    module = (view or {}).get("modules", {}).get("colossus")
    return module["state"] if module else None


def raid_of(view: dict[str, Any] | None) -> dict[str, Any] | None:
    """The raid battle under way, if any."""
    st = state_of(view)
    return st["raid"] if st else None


def coming_round(raid: dict[str, Any]) -> int:
    """The round whose script step acts next: this round's until the colossus has acted
    (its phase ②), then the next one's (what climbers must get ready for)."""
    return raid["round"] + (1 if raid["stage"] == "climb" else 0)


def step_at(st: dict[str, Any], round_no: int) -> dict[str, Any]:
    script = st["script"]
    return script[(round_no - 1) % len(script)]


def new_tilts(raid: dict[str, Any], step: dict[str, Any]) -> dict[str, str]:
    """The surfaces a step turns, with their new tilt (only those that change)."""
    return {k: v for k, v in step["tilt"].items() if raid["tilts"].get(k) != v}


def shaken(raid: dict[str, Any], tile: dict[str, Any], step: dict[str, Any]) -> bool:
    """T7.6: the step turns this bare tile's surface away from horizontal: its climber falls."""
    turned = new_tilts(raid, step).get(tile["surface"])
    return turned is not None and turned != "horizontal" and tile["colour"] not in (
        "blue", "green")


def struck(st: dict[str, Any], raid: dict[str, Any], step: dict[str, Any]) -> list[int]:
    """Whom the step's attack reaches if nobody moves (the engine's rule, after the tilts)."""
    attack = step["attack"]
    if attack is None:
        return []
    board = {t["id"]: t for t in st["board"]}
    tiles = {int(x): t for x, t in raid["tiles"].items()
             if not shaken(raid, board[t], step)}
    seats = raid["seats"]
    if attack["targets"] == "all":
        return list(seats)
    if attack["targets"] == "ground_and_feet":
        return [x for x in seats if x not in tiles or board[tiles[x]]["surface"] == "feet"]
    back = [(board[t]["height"], -x) for x, t in tiles.items() if board[t]["surface"] == "back"]
    return [-max(back)[1]] if back else []


def step_text(tr: Any, step: dict[str, Any]) -> str:
    """What a script step does: the surfaces it turns, then its attack."""
    parts = [tr("colossus.tilts", surface=tr(f"colossus.surface.{k}"),
                tilt=tr(f"colossus.tilt.{v}")) for k, v in step["tilt"].items()]
    attack = step["attack"]
    if attack is not None:
        parts.append(tr("colossus.attack", kind=tr.card(attack["kind"]), hit=attack["hit"],
                        damage=attack["damage"].upper(),
                        targets=tr(f"colossus.targets.{attack['targets']}")))
    return " · ".join(parts) or tr("colossus.no_action")


def last_hit(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The latest blow on the colossus in this raid: a hit (with what got through), a miss, a
    dodge or a spell."""
    for e in reversed(events):
        kind = e.get("type")
        if kind == "RaidOpened":
            return None
        if kind in ("PartHit", "PartMissed", "ColossusDodged", "SpellOnColossus"):
            return e
    return None


def raid_screen(m: ClientModel) -> dict[str, Any] | None:
    """Everything the raid screen draws, or None when no raid is on."""
    view = m.view
    st = state_of(view)
    raid = st["raid"] if st else None
    if raid is None:
        return None
    data = colossus_data(m.tr.rules)
    coming = coming_round(raid)
    step = step_at(st, coming) if coming <= data.raid_rounds else None
    on = {int(x): t for x, t in raid["tiles"].items()}
    choices = {a["tile"]: a for a in m.legal if a["type"] in TILE_ACTIONS}
    reach = {a["part"] for a in m.legal if a["type"] in GROUND_ACTIONS}
    targets = set(struck(st, raid, step)) if step else set()
    tiles = []
    for t in st["board"]:
        tiles.append({**t, "tilt": raid["tilts"][t["surface"]],
                      "climbers": sorted(x for x, tile in on.items() if tile == t["id"]),
                      "choice": choices.get(t["id"]), "reach": t["part"] in reach,
                      "shaken": step is not None and shaken(raid, t, step)})
    actor = raid["actor"]
    climbing = raid["stage"] == "climb" and actor is not None
    raiders = []
    for seat in raid["joined"]:
        camp = m.camp(seat)
        raiders.append({
            "seat": seat, "cls": camp["cls"], "hp": camp["hp"], "max_hp": camp["max_hp"],
            "alive": camp["alive"], "in": seat in raid["seats"], "tile": on.get(seat, ""),
            "climbing": seat in raid["climbing"], "ready": seat in raid["ready"],
            "acting": seat == actor or (seat in m.prompted_seats
                                        and raid["stage"] != "round_start"),
            "np": raid["np"].get(str(seat), [-1, 0])[0] == COLOSSUS,
            "damage": st["damage"][seat], "struck": seat in targets, "mine": seat == m.me})
    return {
        "round": raid["round"], "rounds": data.raid_rounds, "stage": raid["stage"],
        "square": st["square"], "hp": st["hp"], "hp_max": st["hp_max"], "tiles": tiles,
        "ground": [x for x in raid["seats"] if x not in on], "raiders": raiders,
        "actor": actor if climbing else None, "slots": raid["slots"],
        "attacked": raid["attacked"], "budget": raid["budget"], "roll": raid["roll_value"],
        "step": step, "step_round": coming, "script": st["script"],
        "hit": last_hit(m.events), "fall": data.fall_damage_per_tile,
        "strike": list(raid["strike"]), "hit_roll": raid["roll"],
    }


def raided(events: list[dict[str, Any]], e: dict[str, Any]) -> bool:
    """A Raid declaration cancelled because its camp already fought in this turn's raid (the
    first Raid declared opens it for every camp that declared one)."""
    place = next((i for i, x in enumerate(events) if x is e), None)
    if e.get("kind") != "raid" or place is None:
        return False
    for x in reversed(events[:place]):
        if x.get("type") == "TurnStarted":
            return False
        if x.get("type") == "RaidOpened":
            return e.get("seat") in x.get("seats", [])
    return False


def asleep_until(view: dict[str, Any] | None) -> int | None:
    """The day the colossus wakes, while it still sleeps (None: awake, or no colossus)."""
    st = state_of(view)
    return st["wake_day"] if st is not None and not st["awake"] and not st["destroyed"] \
        else None


def map_marks(view: dict[str, Any] | None) -> dict[str, Any] | None:
    """The colossus on the city map: its square, the squares it has still to walk (the Dragon
    Vein last) and its HP, once awake and until destroyed."""
    st = state_of(view)
    if st is None or not st["awake"] or st["destroyed"]:
        return None
    path = st["path"]
    return {"square": st["square"], "ahead": path[st["path_index"] + 1:], "vein": path[-1],
            "hp": st["hp"], "hp_max": st["hp_max"], "raid": st["raid"] is not None}


# --- words --------------------------------------------------------------------------------------
def listing(tr: Any, items: list[str]) -> str:
    """Names in a sentence: ・ between them in Japanese, commas otherwise."""
    return ("・" if tr.lang == "ja" else ", ").join(items) or "—"


def tile_name(tr: Any, tile: str) -> str:
    return tr(f"colossus.tile.{tile}")


def part_name(tr: Any, part: str) -> str:
    return tr(f"colossus.part.{part}")


def option_label(m: ClientModel, a: dict[str, Any]) -> str | None:
    """The option label of a raid action that names a tile, a part or a card (None: the
    verb's name is enough)."""
    tr, kind = m.tr, a["type"]
    if kind in TILE_ACTIONS:
        st = state_of(m.view) or {"board": []}
        tile = next((t for t in st["board"] if t["id"] == a["tile"]), None)
        here = (raid_of(m.view) or {}).get("tiles", {}).get(str(a["seat"]))
        if a["tile"] == here:
            return tr("colossus.stay", tile=tile_name(tr, a["tile"]))
        height = tile["height"] if tile else "?"
        return tr("colossus.tile_option", tile=tile_name(tr, a["tile"]), height=height)
    if kind == "AttackPart":
        return f"{part_name(tr, a['part'])} · {tr.card(a['kind'])}"
    if kind == "FireAtPart":
        return tr("option.target", target=part_name(tr, a["part"]))
    if kind == "ClimbNoblePhantasm":  # at its own tile's part
        st = state_of(m.view) or {"board": []}
        here = (raid_of(m.view) or {}).get("tiles", {}).get(str(a["seat"]))
        part = next((t["part"] for t in st["board"] if t["id"] == here), "")
        return tr("option.target", target=part_name(tr, part))
    if kind == "ClimbAttack":
        return tr.card(a["kind"])
    return None


def event_line(m: ClientModel, e: dict[str, Any]) -> str:
    """One colossus event as a sentence of the log."""
    tr, kind = m.tr, e["type"]
    who = m.who(e.get("seat"))
    st = state_of(m.view)

    def square(key: str = "square") -> str:
        return m.square_name(e.get(key, 0))

    def seats(key: str) -> str:
        return listing(tr, [m.who(x) for x in e.get(key, [])])

    def step(key: str = "move") -> str:
        return tr(f"colossus.step.{e.get(key)}")

    if kind == "RaidRewarded" and not (e.get("strokes") or e.get("mp")):
        return ""  # a raider of the felling battle that gained nothing (its MP was full)
    if kind == "ColossusAdvanced" and e.get("left") == 0:
        return tr("colossus.event.ColossusDrank", square=square())
    if kind == "ColossusTelegraphed" and st is not None:
        found = next((x for x in st["script"] if x["id"] == e.get("move")), None)
        what = step_text(tr, found) if found else ""
        return tr("colossus.event.ColossusTelegraphed", round=e.get("round"), step=step(),
                  what=what)
    if kind == "ColossusStruck":
        result = "halved" if e.get("halved") and e.get("hit") else "hit" if e.get("hit") \
            else "miss"
        return tr(f"colossus.event.struck_{result}", who=who)
    if kind == "PartAttacked":
        how = tr("battle.np_attack") if e.get("kind") == "np" else tr.card(e.get("kind", ""))
        return tr("colossus.event.PartAttacked", who=who, part=part_name(tr, e.get("part", "")),
                  kind=how)
    if kind in ("SpellOnColossus", "ColossusEndured"):
        key = "SpellNoEffect" if kind == "SpellOnColossus" and not e.get("amount") else kind
        return tr(f"colossus.event.{key}", who=who, skill=tr.skill(e.get("skill", "")),
                  amount=e.get("amount"), hp=e.get("hp"))
    if kind == "RaidEnded":
        return tr("colossus.event.RaidEnded", rounds=e.get("rounds"),
                  reason=tr(f"colossus.ended.{e.get('reason')}"))
    if kind == "Climbed" and e.get("start") == e.get("to"):
        return tr("colossus.event.Stayed", who=who, tile=tile_name(tr, e.get("to", "")),
                  roll=e.get("roll"))
    return tr(f"colossus.event.{kind}", who=who, square=square(), hp=e.get("hp"),
              left=e.get("left"), damage=e.get("damage"), seats=seats("seats"),
              round=e.get("round"), step=step(), surface=tr(f"colossus.surface.{e.get('surface')}"),
              tilt=tr(f"colossus.tilt.{e.get('tilt')}"), targets=seats("targets"),
              amount=e.get("amount"), tile=tile_name(tr, e.get("tile", "")),
              height=e.get("height"), part=part_name(tr, e.get("part", "")),
              killer=m.who(e.get("killer")), top=m.who(e.get("top")),
              strokes=e.get("strokes"), mp=e.get("mp"),
              start=tile_name(tr, e.get("start", "")), to=tile_name(tr, e.get("to", "")),
              roll=e.get("roll"))


def notice(m: ClientModel, e: dict[str, Any]) -> str:
    """The colossus's news every seat must see on whatever screen it is on: it wakes, a raid
    opens, it falls."""
    if e.get("type") not in NOTICES:
        return ""
    return m.tr(f"colossus.notice.{e['type']}", line=event_line(m, e))
