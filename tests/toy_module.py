"""A toy rules module, registered only through the module door (docs/modules.md): the proof
that a module needs no change outside its own files. Lanterns: at the declaration prompt a camp
may light its lantern once a day (a free action, the verb "LightLantern"); every lantern it has
lit adds `glow` (an option) to its Servant's max HP (a modifier); each camp keeps a secret
wish that only it sees. Its client part names the verb and the event, marks the squares of
camps with lanterns lit, and its bot part lights whenever it may.

`install()` registers the rules, the table's prompt, the client part and the bot part, and
returns the function that takes them all away again (the tests' fixture calls both)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

from grailwar.shared.engine import core, prompts
from grailwar.shared.engine.actions import ACTION_TYPES, Action
from grailwar.shared.engine.modules import MODULES, Module, OptionSpec, register
from grailwar.shared.engine.sharing import Shared
from grailwar.shared.engine.state import Camp, GameState

NAME = "toy"
LANTERN = (250, 200, 60)  # its mark on the map
WISHES = ("grail", "glory", "home", "peace")


class ToyState(NamedTuple):
    lit: tuple[int, ...]  # lanterns lit per camp (public)
    day: tuple[int, ...]  # the day each camp last lit one (public)
    wish: tuple[str, ...]  # each camp's wish (its own only)


def install() -> Callable[[], None]:
    """Register the toy module's four parts; returns the undo."""
    from grailwar.client import modules as client_door
    from grailwar.shared.bots import modules as bot_door

    prompts_before = dict(prompts.PROMPTS)

    @dataclass(frozen=True, slots=True)
    class LightLantern(Action):
        """Light the camp's lantern: free, at the declaration prompt, once a day."""

    @register
    class Toy(Module):
        name = NAME
        options: ClassVar[dict[str, OptionSpec]] = {
            "glow": OptionSpec(5, (0, 5, 10), "max HP per lantern lit")}

        def setup(self, s: GameState) -> None:
            n = len(s.camps)
            wishes = tuple(WISHES[k - 1] for k in core.roll(s, n, len(WISHES)))
            s.set_mod(NAME, ToyState((0,) * n, (0,) * n, wishes))

        def legal(self, s: GameState, seat: int, actions: list[Action]) -> list[Action]:
            st = s.mods[NAME]
            if s.prompt.kind == "declare" and st.day[seat] != s.day and s.camps[seat].alive:
                return [*actions, LightLantern(seat)]
            return actions

        def modifier(self, s: GameState, camp: Camp, key: str) -> int:
            glow = s.settings.options[NAME]["glow"]
            return glow * s.mods[NAME].lit[camp.seat] if key == "max_hp" else 0

        def verbs(self) -> tuple[str, ...]:
            return ("LightLantern",)

        def view(self, s: GameState, seat: int | None, shared: Shared) -> Any:
            st = s.mods[NAME]
            return {"lit": list(st.lit), "wish": st.wish[seat] if seat is not None else ""}

    def light(s: GameState, action: LightLantern) -> None:
        st = s.mods[NAME]
        seat = action.seat
        lit = tuple(n + (i == seat) for i, n in enumerate(st.lit))
        day = tuple(s.day if i == seat else d for i, d in enumerate(st.day))
        s.set_mod(NAME, st._replace(lit=lit, day=day))
        core.emit(s, "LanternLit", seat=seat, lit=lit[seat])

    prompts.extend("declare", NAME, {LightLantern: light}, ("LightLantern",))

    class ToyClientPart(client_door.ClientPart):
        name = NAME

        def strings(self, lang: str) -> dict[str, str]:
            return {"verb.LightLantern": {"ja": "灯をともす", "ko": "등불 켜기"}.get(
                        lang, "Light lantern"),
                    "verb_help.LightLantern": "+max HP"}

        def event_line(self, m: Any, e: dict[str, Any]) -> str | None:
            if e.get("type") != "LanternLit":
                return None
            return f"{m.who(e.get('seat'))}: lantern {e.get('lit')}"

        def square_marks(self, s: Any, m: Any, cell: Any, x: float, y: float, w: float,
                         h: float, paper: tuple[int, int, int]) -> bool:
            lit = (m.module_state(NAME) or {}).get("lit", [])
            if any(lit[c["seat"]] for c in cell.camps):
                s.circle(x + w - 14, y + h - 14, 8, LANTERN)
            return False

    class ToyBotPart(bot_door.BotPart):
        name = NAME

        def first(self, bot: Any, view: dict[str, Any], me: dict[str, Any],
                  legal: list[Action]) -> Action | None:
            return next((a for a in legal if isinstance(a, LightLantern)), None)

    client_door.register(ToyClientPart())
    bot_door.register(ToyBotPart)

    def uninstall() -> None:
        MODULES.pop(NAME, None)
        ACTION_TYPES.pop("LightLantern", None)
        prompts.PROMPTS.clear()
        prompts.PROMPTS.update(prompts_before)
        client_door.unregister(NAME)
        bot_door.PARTS.pop(NAME, None)

    return uninstall
