"""Lobby: the server's rooms with their state and seats; create a room with its options and
rules modules; join as a player or a spectator; the password prompt of a locked room."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from twisted.internet.task import LoopingCall

from ...shared.engine.data import CLASSES
from ...shared.engine.modules import MODULES, fewest_camps, normalize, room_timers
from ...shared.protocol import SECONDS, SUMMONING
from .. import theme as th
from ..gfx import Region, Scene, TextField
from ..model import check_name
from ..seats import HeldSeat
from .base import BaseView

ROW_H = 46
DAY_CHOICES = (3, 5, 7, 10, 14)
DECLARE_CHOICES = (30, 60, 120, 300, 600)
PRIORITY_CHOICES = (0, 10, 20, 30, 60)  # the priority phase (docs/rules.md §3.3); 0 = none
PACE_CHOICES = (0, 500, 1000, 1500, 2500, 4000)  # bot_pace_ms: a bots-only battle's pace
REFRESH_S = 5.0  # the room list goes stale as others create, fill and start rooms


class LobbyView(BaseView):
    name = "lobby"

    def __init__(self, app) -> None:
        super().__init__(app)
        self.fields = {
            "room_name": TextField("", max_len=32),
            "password": TextField("", max_len=64, secret=True),
            "join_password": TextField("", max_len=64, secret=True),
        }
        self.field_order = ["room_name", "password"]
        self.options: dict[str, Any] = {"seats": 7, "day_limit": 7, "declare_s": 300,
                                        "priority_s": SECONDS["priority_s"][2],
                                        "bot_pace_ms": SECONDS["bot_pace_ms"][2],
                                        "summoning": SUMMONING[0], "cls": "saber"}
        self.asking: dict[str, Any] | None = None  # the locked room whose password we ask
        self.modules: list[str] = []  # the rules modules switched on for the new room
        # the create panel's page: "room" (name, seats, timers, class) or "rules" (the modules,
        # their options and timers: as many rows as the modules bring)
        self.create_page = "room"
        # each module's options: switches, and choices stepped through
        self.module_options = {name: {k: spec.default for k, spec in cls.options.items()}
                               for name, cls in MODULES.items()}
        # the modules' own prompt timers (a day 0, a draft), in seconds
        self.timers = {key: timer.default for key, (_m, timer) in room_timers().items()}

        self.refresher: LoopingCall | None = None

    @property
    def local(self) -> bool:
        """Local play: the embedded server's lobby, only to make the room (no list)."""
        return self.app.playing_local

    def on_show_view(self) -> None:
        super().on_show_view()
        self.field_order = ["room_name"] if self.local else ["room_name", "password"]
        preset = self.app.local_modules if self.local else {}
        if self.local:  # `play --cls --summoning --modules`: chosen already
            self.options.update(cls=self.app.pending_local_class,
                                summoning=self.app.local_summoning)
        if preset.get("modules") and not self.modules:
            self.modules = [m for m in MODULES if m in preset["modules"]]
            for name, values in preset.get("options", {}).items():
                self.module_options[name].update(values)
        if not self.fields["room_name"].value:
            name = self.app.settings.get("name", "").strip() or "Grail"
            self.fields["room_name"].value = self.tr("lobby.room_name_default", name=name)[:32]
        self.stop_refreshing()
        self.refresher = LoopingCall(self.refresh)
        self.refresher.clock = self.app.reactor  # the reactor's clock: a test's task.Clock
        self.refresher.start(REFRESH_S, now=False)  # going to the lobby has just asked

    def on_hide_view(self) -> None:
        self.stop_refreshing()

    def stop_refreshing(self) -> None:
        if self.refresher is not None and self.refresher.running:
            self.refresher.stop()
        self.refresher = None

    # --- actions --------------------------------------------------------------------------------
    def refresh(self) -> None:
        self.app.list_rooms()

    def create(self) -> None:
        name = self.fields["room_name"].value.strip()
        if check_name(name, "label"):
            self.model.notify(self.tr("error.room_name_empty"))
            return
        fields: dict[str, Any] = {"name": name, "seats": self.options["seats"],
                                  "day_limit": self.options["day_limit"],
                                  "declare_s": self.options["declare_s"],
                                  "priority_s": self.options["priority_s"],
                                  "bot_pace_ms": self.options["bot_pace_ms"],
                                  "summoning": self.options["summoning"],
                                  "cls": self.options["cls"]}
        if self.fields["password"].value:
            fields["password"] = self.fields["password"].value
        if self.local:  # bots take every other seat once the room is made
            self.app.ui.extra["fill_bots"] = True
        if self.modules:
            fields["modules"] = list(self.modules)
            fields["options"] = {name: dict(self.module_options[name]) for name in self.modules}
            fields.update((key, self.timers[key]) for key, (name, _t) in room_timers().items()
                          if name in self.modules)
        self.app.session.send("create_room", **fields)

    def toggle_module(self, name: str) -> None:
        self.modules = [m for m in MODULES if (m in self.modules) != (m == name)]
        self.fit_seats()

    def seat_choices(self) -> tuple[int, ...]:
        """2 to 7 seats; from 1 for a game that needs no rivals (a cooperative room)."""
        names, options = normalize(self.modules, {m: self.module_options[m] for m in self.modules})
        return tuple(range(fewest_camps(names, options), 8))

    def fit_seats(self) -> None:
        """Back to the fewest seats the chosen modules allow (a raid room's 1 when it is not)."""
        self.options["seats"] = max(self.options["seats"], self.seat_choices()[0])

    def toggle_option(self, name: str, option: str) -> None:
        """A switch flips; an option with choices (a scenario, a day) steps to
        its next choice."""
        value = self.module_options[name][option]
        choices = MODULES[name].options[option].choices
        if isinstance(value, bool) or not choices:
            self.module_options[name][option] = not value
        else:
            self.module_options[name][option] = stepped(choices, value)
        self.fit_seats()

    def step_timer(self, key: str) -> None:
        """A module's timer steps to its next choice."""
        self.timers[key] = stepped(room_timers()[key][1].choices, self.timers[key])

    def join(self, room: dict[str, Any], spectator: bool) -> None:
        if room.get("locked"):
            self.asking = {"room": room, "spectator": spectator}
            self.fields["join_password"].value = ""
            self.focus = "join_password"
            self.invalidate()
            return
        self._send_join(room, spectator, None)

    def _send_join(self, room: dict[str, Any], spectator: bool, password: str | None) -> None:
        fields: dict[str, Any] = {"room": room["id"]}
        if spectator or room.get("started"):
            fields["spectator"] = True
        if password:
            fields["password"] = password
        self.app.session.send("join_room", **fields)

    def answer_password(self, ok: bool) -> None:
        asking, self.asking = self.asking, None
        self.focus = None
        if ok and asking is not None:
            self._send_join(asking["room"], asking["spectator"],
                            self.fields["join_password"].value)
        self.invalidate()

    def on_enter(self, field: str) -> None:
        if field == "join_password":
            self.answer_password(True)
        elif field in ("room_name", "password"):
            self.create()

    def cycle(self, key: str, choices: tuple, step: int) -> None:
        self.options[key] = stepped(choices, self.options[key], step)
        self.invalidate()

    # --- drawing --------------------------------------------------------------------------------
    def layout(self, s: Scene) -> None:
        tr = self.tr
        s.gradient(0, 0, th.WIDTH, th.HEIGHT, (18, 20, 36), (26, 24, 40))
        s.rect(0, th.HEIGHT - 64, th.WIDTH, 64, th.BG2)
        s.rect(0, th.HEIGHT - 66, th.WIDTH, 2, th.VERMILION)
        self.button(s, "back", th.WIDTH - 150, th.HEIGHT - 50, 126, 36, tr("lobby.back"),
                    self.app.go_title, style="ghost")
        if self.local:
            self.title_text(s, tr("lobby.local_title"), 28, th.HEIGHT - 44, 26)
            self.local_panel(s, 24, 40, 780, 680)
            self.create_panel(s, 828, 40, 428, 680)
            return
        self.title_text(s, tr("lobby.title"), 28, th.HEIGHT - 44, 26)
        self.server_line(s, 180, th.WIDTH - 310)
        self.button(s, "refresh", th.WIDTH - 290, th.HEIGHT - 50, 126, 36, tr("lobby.refresh"),
                    self.refresh, style="ghost")
        held = self.held_seats()
        if held:  # a seat kept from an earlier run: the first thing the player sees
            self.rejoin_banner(s, held[0], len(held), 24, 664, 780, 56)
        self.rooms_table(s, 24, 40, 780, 616 if held else 680,
                         {seat.room: seat for seat in held})
        self.create_panel(s, 828, 40, 428, 680)

    def local_panel(self, s: Scene, left: float, bottom: float, width: float,
                    height: float) -> None:
        """Local play: what the room made here will be, and what each rules module brings."""
        tr = self.tr
        self.panel(s, left, bottom, width, height, tr("lobby.local_heading"))
        t = s.text(tr("lobby.local_text"), left + 20, bottom + height - 56, 14, th.TEXT,
                   anchor_y="top", width=int(width - 40))
        y = bottom + height - 56 - t.content_height - 28
        for name in MODULES:
            on = name in self.modules
            s.text(tr.module(name), left + 20, y, 15, th.GOLD if on else th.MUTED, bold=True,
                   anchor_y="top")
            t = s.text(tr(f"module_help.{name}"), left + 20, y - 24, 12,
                       th.TEXT if on else th.MUTED, anchor_y="top", width=int(width - 40))
            y -= 24 + t.content_height + 18

    def server_line(self, s: Scene, left: float, right: float) -> None:
        """The server's address, and under it the operator's message of the day if any (the
        operator's own words: the regular face, fitted to one line)."""
        host = self.tr("lobby.server", host=self.model.host)
        if not self.model.motd:
            s.text(host, left, th.HEIGHT - 40, 14, th.MUTED)
            return
        s.text(host, left, th.HEIGHT - 30, 13, th.MUTED)
        s.text(self.tr("admin.motd", text=self.model.motd), left, th.HEIGHT - 54, 12, th.GOLD,
               max_width=right - left)

    def held_seats(self) -> list[HeldSeat]:
        """The seats kept on disk for this server (none in local play)."""
        return self.app.keeper.held() if self.app.keeper is not None else []

    def rejoin(self, seat: HeldSeat) -> None:
        if self.app.keeper is not None and self.app.keeper.rejoin(seat):
            self.model.notify(self.tr("seats.rejoining", room=seat.name or seat.room), "info")

    def rejoin_banner(self, s: Scene, seat: HeldSeat, count: int, left: float, bottom: float,
                      width: float, height: float) -> None:
        tr = self.tr
        s.box(left, bottom, width, height, th.PANEL2, th.GOLD, 2)
        which = tr("seats.seat_cls", n=seat.seat + 1, cls=tr.cls(seat.cls)) if seat.cls else \
            tr("seats.seat", n=seat.seat + 1)
        # the room's name is a player's text: the regular face, which holds every character
        s.text(tr("seats.banner", room=seat.name or f"#{seat.room}", seat=which), left + 18,
               bottom + height - 20, 15, th.GOLD, anchor_y="center", max_width=width - 240)
        more = tr("seats.banner_more", n=count - 1) if count > 1 else tr("seats.banner_help")
        s.text(more, left + 18, bottom + 15, 11, th.MUTED, anchor_y="center",
               max_width=width - 240)
        self.button(s, "rejoin", left + width - 200, bottom + 9, 184, height - 18,
                    tr("seats.rejoin"), lambda: self.rejoin(seat), style="primary", size=15,
                    help=tr("seats.rejoin_help"))

    def rooms_table(self, s: Scene, left: float, bottom: float, width: float,
                    height: float, held: dict[int, HeldSeat]) -> None:
        tr = self.tr
        self.panel(s, left, bottom, width, height,
                   tr("lobby.rooms_total", n=self.model.rooms_total))
        top = bottom + height - 48
        cols = (left + 18, left + 300, left + 410, left + 540)
        for x, key in zip(cols, ("col_room", "col_state", "col_seats", "col_watch"),
                          strict=True):
            s.text(tr(f"lobby.{key}"), x, top - 12, 12, th.MUTED)
        rooms = self.model.rooms
        if not rooms:
            s.text(tr("lobby.no_rooms"), left + width / 2, bottom + height / 2, 15, th.MUTED,
                   anchor_x="center")
            return
        first = self.scroll.get("rooms", 0)
        visible = int((height - 80) // ROW_H)
        first = min(first, max(0, len(rooms) - visible))
        self.scroll["rooms"] = first
        self.add_region("scroll:rooms", left, bottom, width, height - 60)
        y = top - 24 - ROW_H
        for i, room in enumerate(rooms[first:first + visible]):
            fill = th.PANEL2 if i % 2 == 0 else th.PANEL
            s.rect(left + 8, y, width - 16, ROW_H - 4, fill)
            name = room["name"]
            modules = room.get("modules") or []
            ny = y + 19 if modules else y + 14  # the room's rules modules go below its name
            if room.get("locked"):
                padlock(s, cols[0] + 7, y + 13)
                s.text(name, cols[0] + 24, ny, 15, th.TEXT, max_width=250)
                self.add_region(f"locked:{room['id']}", cols[0], y + 6, 18, 26,
                                help=tr("lobby.locked"))
            else:
                s.text(name, cols[0], ny, 15, th.TEXT, max_width=270)
            if modules:
                s.text(" · ".join(map(tr.module, modules)), cols[0] + 24, y + 4, 10,
                       th.SKY, max_width=250)
            state = "state_over" if room.get("over") else "state_paused" if room.get(
                "paused") else "state_playing" if room.get("started") else "state_waiting"
            colour = {"state_over": th.MUTED, "state_playing": th.GOLD,
                      "state_paused": th.SKY}.get(state, th.JADE)
            s.circle(cols[1] + 6, y + 20, 5, colour)
            s.text(tr(f"lobby.{state}"), cols[1] + 18, y + 14, 13, colour)
            filled = room["players"] + room["bots"]
            s.text(f"{filled} / {room['seats']}", cols[2], y + 21, 15, th.TEXT)
            s.text(tr("lobby.seats_value", players=room["players"], bots=room["bots"],
                      seats=room["seats"]), cols[2], y + 6, 10, th.MUTED, max_width=125)
            s.text(str(room.get("spectators", 0)), cols[3] + 16, y + 14, 13, th.MUTED,
                   anchor_x="center")
            seat = held.get(room["id"])
            if seat is not None:  # our seat: rejoin it, rather than join or watch
                s.frame(left + 8, y, width - 16, ROW_H - 4, th.GOLD, 2)
                self.button(s, f"rejoin:{room['id']}", left + width - 190, y + 5, 172, 32,
                            tr("seats.rejoin"), lambda h=seat: self.rejoin(h), style="primary",
                            size=13, help=tr("seats.rejoin_help"))
                y -= ROW_H
                continue
            full = room["players"] + room["bots"] >= room["seats"]
            can_join = not room.get("started") and not full
            self.button(s, f"join:{room['id']}", left + width - 190, y + 5, 82, 32,
                        tr("lobby.join"), lambda r=room: self.join(r, False), enabled=can_join,
                        style="primary", size=13)
            self.button(s, f"watch:{room['id']}", left + width - 100, y + 5, 82, 32,
                        tr("lobby.watch"), lambda r=room: self.join(r, True), size=13)
            y -= ROW_H

    def create_panel(self, s: Scene, left: float, bottom: float, width: float,
                     height: float) -> None:
        tr = self.tr
        self.panel(s, left, bottom, width, height, tr("lobby.create_title"))
        self.page_tabs(s, left + width - 12, bottom + height - 30)
        x = left + 20
        self.button(s, "create", x, bottom + 10, width - 40, 40, tr("lobby.create"),
                    self.create, style="primary", size=17)
        if self.create_page == "rules":
            self.module_rows(s, x, bottom + height - 84, left + width - 20)
            return
        y = bottom + height - 100
        s.text(tr("lobby.room_name"), x, y + 46, 12, th.MUTED)
        self.field(s, "room_name", x, y, width - 40)
        y -= 78
        if not self.local:  # (nobody else can join a local game)
            s.text(tr("lobby.password"), x, y + 46, 12, th.MUTED)
            self.fields["password"].placeholder = tr("lobby.password_hint")
            self.field(s, "password", x, y, width - 40)
        y -= 52
        pace, priority = self.options["bot_pace_ms"], self.options["priority_s"]
        for key, label, choices, shown in (
                ("seats", "lobby.seats", self.seat_choices(), str(self.options["seats"])),
                ("day_limit", "lobby.day_limit", DAY_CHOICES,
                 tr("lobby.days", n=self.options["day_limit"])),
                ("declare_s", "lobby.declare_s", DECLARE_CHOICES,
                 tr("lobby.seconds", n=self.options["declare_s"])),
                ("priority_s", "lobby.priority_s", PRIORITY_CHOICES,
                 tr("lobby.seconds", n=priority) if priority else tr("lobby.priority_off")),
                ("bot_pace_ms", "pace.bot_pace_ms", PACE_CHOICES,
                 tr("pace.seconds", n=f"{pace / 1000:g}") if pace else tr("pace.fastest")),
                ("summoning", "lobby.summoning", SUMMONING,
                 tr(f"lobby.summoning_{self.options['summoning']}"))):
            help_text = tr(f"{label}_help") if tr.has(f"{label}_help") else ""
            s.text(tr(label), x, y + 12, 14, th.TEXT, anchor_y="center")
            self.button(s, f"dec:{key}", left + width - 200, y, 36, 30, "◀",
                        lambda k=key, c=choices: self.cycle(k, c, -1), help=help_text,
                        style="ghost", size=12)
            s.text(shown, left + width - 112, y + 15, 15, th.GOLD, anchor_x="center",
                   anchor_y="center", max_width=100)
            self.button(s, f"inc:{key}", left + width - 58, y, 36, 30, "▶",
                        lambda k=key, c=choices: self.cycle(k, c, 1), help=help_text,
                        style="ghost", size=12)
            y -= 34
        s.text(tr("lobby.your_class"), x, y + 4, 14, th.TEXT)
        y -= 44
        for i, cls in enumerate(CLASSES):
            col, row = i % 4, i // 4
            bx = x + col * ((width - 40) / 4)
            by = y - row * 40
            chosen = self.options["cls"] == cls
            self.button(s, f"cls:{cls}", bx, by, (width - 40) / 4 - 6, 36, tr.cls(cls),
                        lambda c=cls: self._choose(c),
                        colour=th.class_colour(cls) if chosen else None,
                        style="ghost", size=12)
            if chosen:
                s.frame(bx - 2, by - 2, (width - 40) / 4 - 2, 40, th.GOLD, 2)
        if self.modules:  # what the other page switched on, named above the create button
            s.text(tr("room.modules", list=" · ".join(map(tr.module, self.modules))), x,
                   bottom + 60, 13, th.SKY, max_width=width - 40)

    def page_tabs(self, s: Scene, right: float, bottom: float) -> None:
        """The create panel's two pages, on its title line; the rules page counts the modules
        switched on."""
        tr = self.tr
        rules = tr("lobby.modules_count", n=len(self.modules)) if self.modules else tr(
            "lobby.modules")
        for page, label, w in (("rules", rules, 132), ("room", tr("lobby.page_room"), 84)):
            right -= w
            self.button(s, f"page:{page}", right, bottom, w, 26, label,
                        lambda p=page: self.show_page(p),
                        style="selected" if self.create_page == page else "ghost", size=12)
            right -= 6

    def show_page(self, page: str) -> None:
        self.create_page = page
        self.invalidate()

    def module_rows(self, s: Scene, x: float, y: float, right: float) -> None:
        """Each rules module's switch, and under a module switched on, two to a row, its
        options (a switch, or a choice stepped through) and its own prompts' timers."""
        tr = self.tr
        gap = 6
        ow = (right - x - gap) / 2
        for name in MODULES:
            on = name in self.modules
            self.button(s, f"module:{name}", x, y, right - x, 30,
                        f"{tr.module(name)} · {tr('lobby.on' if on else 'lobby.off')}",
                        lambda n=name: self.toggle_module(n), help=tr(f"module_help.{name}"),
                        style="selected" if on else "ghost", size=13)
            y -= 36
            if not on:
                continue
            shown = [(f"option:{name}.{option}",
                      f"{tr(f'option.{name}.{option}')}: "
                      f"{self.option_label(name, option, value)}",
                      lambda o=option, n=name: self.toggle_option(n, o),
                      tr(f"module_help.{name}"), value is not False)
                     for option, value in self.module_options[name].items()]
            shown += [(f"timer:{key}", f"{tr(f'timer.{key}')}: {tr.duration(self.timers[key])}",
                       lambda k=key: self.step_timer(k), tr(f"timer.{key}_help"), True)
                      for key, (module, _t) in room_timers().items() if module == name]
            for i, (rid, label, click, help_text, selected) in enumerate(shown):
                self.button(s, rid, x + (i % 2) * (ow + gap), y - 33 * (i // 2), ow, 29, label,
                            click, help=help_text, style="selected" if selected else "ghost",
                            size=12)
            y -= 33 * ((len(shown) + 1) // 2) + 8

    def option_label(self, name: str, option: str, value: Any) -> str:
        """A switch's on or off, or the choice an option holds (its name, or its number)."""
        tr = self.tr
        if isinstance(value, bool):
            return tr("lobby.on" if value else "lobby.off")
        key = f"option_value.{name}.{option}.{value}"
        return tr(key) if tr.has(key) else str(value)

    def _choose(self, cls: str) -> None:
        self.options["cls"] = cls

    def modal(self, o: Scene) -> list[Region] | None:
        if self.asking is None:
            return None
        tr = self.tr
        return self.dialog(
            o, "password", tr("lobby.password_title"),
            tr("lobby.password_prompt", room=self.asking["room"]["name"]), self.answer_password,
            tr("lobby.ok"), tr("lobby.cancel"),
            lambda left, bottom, width: self.field(o, "join_password", left + 24, bottom + 80,
                                                   width - 48))


def stepped(choices: Sequence[Any], value: Any, step: int = 1) -> Any:
    """The choice `step` places after `value`, round the end (counted from the first when
    `value` is none of them): each stepper and option button of the create panel."""
    i = choices.index(value) if value in choices else 0
    return choices[(i + step) % len(choices)]


def padlock(s: Scene, x: float, y: float) -> None:
    """A small padlock: shackle ring over a body."""
    s.ring(x, y + 12, 6, 2, th.GOLD, 20)
    s.rect(x - 8, y, 16, 12, th.GOLD)
    s.rect(x - 1, y + 3, 2, 5, th.PANEL)
