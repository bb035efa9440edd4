"""Room: seats and camps, the choice of Servant, bots added or removed by the owner, start, chat."""

from __future__ import annotations

from typing import Any

from ...shared.engine.data import CLASSES
from ...shared.engine.modules import room_timers
from .. import theme as th
from ..gfx import Scene
from .base import BaseView
from .chatpane import chat_box, scroll_key, send_chat, shown_channel
from .common import presence_tag, token
from .lobby import stepped

ROW_H = 66
CHAT_TABS = ("whisper", "room")  # before the start there is no negotiation, but whispers


LEVELS = ("easy", "normal", "hard")


class RoomView(BaseView):
    name = "room"
    level = "normal"  # the level of the bots this owner adds

    def cycle_level(self) -> None:
        """The next level, for the seated bots (the server's `bot_level`) and those added."""
        self.level = stepped(LEVELS, self.level)
        self.send("bot_level", level=self.level)

    def on_enter(self, field: str) -> None:
        if field == "chat":
            send_chat(self, shown_channel(self.app.ui, CHAT_TABS))

    def on_key(self, symbol: int, modifiers: int) -> None:
        scroll_key(self, symbol)

    @property
    def room(self) -> dict[str, Any] | None:
        return self.model.room

    def is_owner(self) -> bool:
        room = self.room
        return bool(room) and self.model.seat is not None and room["owner"] == self.model.seat

    def send(self, name: str, **fields: Any) -> None:
        if self.app.session is not None:
            self.app.session.send(name, **fields)

    def leave(self) -> None:
        self.send("leave_room")
        self.model.reset_room()
        if self.app.local is not None:
            self.app.go_title()
        else:
            self.app.go_lobby()

    def swap(self, cls: str, bot_seat: int, mine: str | None) -> None:
        """Take a bot's class: the bot leaves, we move, a bot takes our old class (the server
        handles the three messages in order)."""
        self.send("remove_bot", seat=bot_seat)
        self.send("choose_class", cls=cls)
        if mine:
            self.send("add_bot", cls=mine, level=self.level)

    def layout(self, s: Scene) -> None:
        tr = self.tr
        room = self.room
        s.gradient(0, 0, th.WIDTH, th.HEIGHT, (18, 20, 36), (28, 22, 38))
        s.rect(0, th.HEIGHT - 64, th.WIDTH, 64, th.BG2)
        s.rect(0, th.HEIGHT - 66, th.WIDTH, 2, th.VERMILION)
        if room is None:
            self.title_text(s, tr("net.starting_local"), 28, th.HEIGHT - 44, 22)
            return
        # the room's name is a player's text: the regular face, which holds every character
        label = tr("room.title", name="").rstrip(" —―-")
        t = s.text(label, 28, th.HEIGHT - 44, 24, th.GOLD, font="serif")
        s.text("— " + room["name"], 28 + t.content_width + 12, th.HEIGHT - 44, 22, th.TEXT,
               max_width=800)
        o = room["options"]
        modules = self.model.modules()
        y = th.HEIGHT - (82 if modules else 86)  # the modules get a line of their own below
        t = s.text(tr("room.options", days=o["day_limit"], declare=o["declare_s"],
                      main=o["main_s"], reaction=o["reaction_s"]), 30, y, 13, th.MUTED)
        x = 30 + t.content_width + 24
        priority = o.get("priority_s", 0)
        t = s.text(tr("room.priority", s=priority) if priority else tr("room.priority_none"), x,
                   y, 13, th.MUTED)
        self.add_region("priority", x, y - 6, t.content_width, 22,
                        help=tr("lobby.priority_s_help"))
        x += t.content_width + 24
        t = s.text(tr("room.summoning", mode=self.summoning_mode()), x, y, 13, th.GOLD)
        self.add_region("summoning", x, y - 6, t.content_width, 22,
                        help=tr("lobby.summoning_help"))
        if modules:  # the rules modules, shown to everyone; each explained on hover
            y -= 21
            t = s.text(tr("room.modules", list=" · ".join(map(tr.module, modules))), 30,
                       y, 13, th.SKY, bold=True)
            self.add_region("modules", 30, y - 6, t.content_width, 22,
                            help="\n".join(tr(f"module_help.{m}") for m in modules
                                           if tr.has(f"module_help.{m}")))
            self.module_timers(s, 30 + t.content_width + 12, y, modules, o)
        self.button(s, "leave", th.WIDTH - 150, th.HEIGHT - 50, 126, 36, tr("room.leave"),
                    self.leave, style="ghost")
        self.seats(s, 24, 40, 700, 640)
        self.servant_choice(s, 744, 280, 512, 400)
        chat_box(self, s, 744, 40, 512, 230, tabs=CHAT_TABS)

    def module_timers(self, s: Scene, x: float, y: float, modules: list[str],
                      o: dict[str, Any]) -> None:
        """The timers of the modules' own prompts (a day 0, a relic draft), after
        the modules' names, each explained on hover."""
        tr = self.tr
        timers = [key for key, (name, _t) in room_timers().items() if name in modules]
        if not timers:
            return
        t = s.text(tr("room.modules_timers", list=" · ".join(
            f"{tr(f'timer.{key}')} {tr.duration(o[key])}" for key in timers)), x, y, 13,
            th.SKY, max_width=th.WIDTH - 24 - x)
        self.add_region("module_timers", x, y - 6, t.content_width, 22,
                        help="\n".join(f"{tr(f'timer.{key}')}: {tr(f'timer.{key}_help')}"
                                       for key in timers))

    def seats(self, s: Scene, left: float, bottom: float, width: float, height: float) -> None:
        tr = self.tr
        room = self.room
        self.panel(s, left, bottom, width, height, tr("room.seat") + " · " + tr("room.camp"))
        owner = self.is_owner()
        y = bottom + height - 50 - ROW_H
        free_classes = [c for c in CLASSES
                        if c not in {x["cls"] for x in room["seat_list"] if x["kind"] != "open"}]
        for seat in room["seat_list"]:
            i = seat["seat"]
            mine = i == self.model.seat
            s.box(left + 10, y, width - 20, ROW_H - 6, th.PANEL2 if mine else th.BG2,
                  th.GOLD if mine else th.LINE, 2 if mine else 1)
            s.text(str(i + 1), left + 30, y + ROW_H / 2 - 3, 18, th.MUTED, font="serif",
                   anchor_x="center", anchor_y="center")
            cls = seat.get("cls")
            kind = seat["kind"]
            if kind != "open" and cls:
                token(s, left + 76, y + ROW_H / 2 - 3, 20, cls, tr.short(cls), mine=mine)
                servant = room.get("your_servant") if mine else None  # never another seat's
                s.text(tr.cls(cls) + (f" · {tr.short_name(servant)}" if servant else ""),
                       left + 110, y + 36, 16, th.class_colour(cls) if not mine else th.GOLD,
                       bold=True, max_width=270)
                who = seat["name"] if kind == "human" else self.model.player_name(i)
                s.text(who, left + 110, y + 14, 13, th.TEXT, max_width=260)
            else:
                s.circle(left + 76, y + ROW_H / 2 - 3, 20, (60, 62, 80))
                s.text(tr("room.open"), left + 110, y + 24, 15, th.MUTED)
            tags = []
            if i == room["owner"] and kind == "human":
                tags.append((tr("room.owner"), th.GOLD))
            if mine:
                tags.append((tr("room.you"), th.JADE))
            if kind == "human" and seat.get("ready") and not room.get("started"):
                tags.append((tr("room.is_ready"), th.JADE))
            presence = self.model.presence(i)
            if presence:
                tags.append(presence_tag(tr, presence))
            tx = left + 390
            for n, (text, colour, *help_text) in enumerate(tags):
                t = s.text(text, tx + 8, y + ROW_H / 2 - 3, 12, colour, anchor_y="center",
                           bold=True)
                s.frame(tx, y + ROW_H / 2 - 15, t.content_width + 16, 24, colour, 1)
                if help_text:
                    self.add_region(f"tag:{i}:{n}", tx, y + ROW_H / 2 - 15,
                                    t.content_width + 16, 24, help=help_text[0])
                tx += t.content_width + 24
            if owner and not room.get("started"):
                bx = left + width - 130
                if kind == "bot":
                    self.button(s, f"remove_bot:{i}", bx, y + 14, 104, 32, tr("room.remove_bot"),
                                lambda i=i: self.send("remove_bot", seat=i), style="ghost",
                                size=12)
                elif kind == "human" and not mine:
                    self.button(s, f"kick:{i}", bx, y + 14, 104, 32, tr("room.kick"),
                                lambda i=i: self.send("kick", seat=i), style="ghost", size=12)
                elif kind == "open" and free_classes:
                    cls = free_classes.pop(0)
                    self.button(s, f"add_bot:{i}", bx, y + 14, 104, 32, tr("room.add_bot"),
                                lambda c=cls: self.send("add_bot", cls=c, level=self.level),
                                size=12, help=tr.cls(cls))
            y -= ROW_H

    def servant_choice(self, s: Scene, left: float, bottom: float, width: float,
                       height: float) -> None:
        tr = self.tr
        room = self.room
        watching = self.model.spectator or self.model.seat is None
        self.panel(s, left, bottom, width, height,
                   tr("room.watching" if watching else "room.choose"))
        if watching:
            s.text(tr("room.spectating"), left + width / 2, bottom + height / 2, 15, th.MUTED,
                   anchor_x="center")
            return
        taken = {x["cls"]: x["seat"] for x in room["seat_list"] if x["kind"] != "open"}
        bots = {x["cls"]: x["seat"] for x in room["seat_list"] if x["kind"] == "bot"}
        mine = next((x["cls"] for x in room["seat_list"] if x["seat"] == self.model.seat), None)
        owner = self.is_owner()
        s.text(tr("room.choose_help"), left + 16, bottom + height - 58, 12, th.MUTED,
               max_width=width - 32)
        bw = (width - 32 - 3 * 8) / 4
        for i, cls in enumerate(CLASSES):
            col, row = i % 4, i // 4
            x = left + 16 + col * (bw + 8)
            y = bottom + height - 112 - row * 48
            free = cls not in taken or taken[cls] == self.model.seat
            swap = owner and cls in bots  # the owner may take a bot's class: it gets ours
            chosen = cls == mine
            action = None if chosen else (lambda c=cls: self.swap(c, bots[c], mine)) if swap \
                else (lambda c=cls: self.send("choose_class", cls=c))
            self.button(s, f"choose:{cls}", x, y, bw, 40, tr.cls(cls), action,
                        enabled=(free or swap) and not room.get("started"),
                        colour=th.class_colour(cls), size=15,
                        help="" if free else tr("room.taken"))
            if chosen:
                s.frame(x - 3, y - 3, bw + 6, 46, th.GOLD, 3)
        if mine is not None:
            self.servants(s, left, bottom + height - 184, width, mine)
        y = bottom + 20
        if owner and not room.get("started"):
            s.text(tr("room.bot_level"), left + 16, y + 78, 13, th.MUTED, anchor_y="center")
            self.button(s, "bot_level", left + 180, y + 64, 150, 30,
                        tr(f"room.level_{self.level}"), self.cycle_level, style="ghost", size=13,
                        help=tr("room.bot_level_help"))
        if self.is_owner():
            others = [x for x in room["seat_list"]
                      if x["kind"] == "human" and x["seat"] != self.model.seat]
            if others and not room.get("started"):  # who said they are ready (issue 32)
                ready = sum(1 for x in others if x.get("ready"))
                s.text(tr("room.ready_count", ready=ready, players=len(others)),
                       left + width - 16, y + 78, 13,
                       th.JADE if ready == len(others) else th.GOLD, anchor_x="right",
                       anchor_y="center", max_width=width - 360)
            self.button(s, "start", left + 16, y, width - 32, 52, tr("room.start"),
                        lambda: self.send("start"), style="primary", size=18,
                        help=tr("room.start_help"))
        elif not room.get("started"):
            me = next((x for x in room["seat_list"] if x["seat"] == self.model.seat), {})
            ready = bool(me.get("ready"))
            s.text(tr("room.waiting_owner"), left + width / 2, y + 64, 13, th.MUTED,
                   anchor_x="center")
            self.button(s, "ready", left + 16, y, width - 32, 52,
                        tr("room.unready" if ready else "room.ready"),
                        lambda r=not ready: self.send("ready", ready=r),
                        style="ghost" if ready else "primary", size=18)

    def summoning_mode(self) -> str:
        """How this room's Servants come, in words: a module's own summoning (a relic draft)
        by the value of its option, else the room's switch."""
        tr, by = self.tr, self.room.get("summoned_by")
        key = f"option_value.{by[0]}.{by[1]}.{by[2]}" if by else ""
        return tr(key) if by and tr.has(key) else \
            tr(f"lobby.summoning_{self.room['options']['summoning']}")

    def servants(self, s: Scene, left: float, top: float, width: float, cls: str) -> None:
        """A `choose` room: the class's roster as buttons, the seat's choice (told to it
        alone) highlighted; a `random` room: one line saying the seed summons; a module's
        summoning: one line naming it."""
        tr, room = self.tr, self.room
        if room["options"]["summoning"] != "choose":
            line = tr("room.servant_by", mode=self.summoning_mode()) \
                if room.get("summoned_by") else tr("room.servant_random")
            s.text(line, left + 16, top, 12, th.MUTED, anchor_y="top", width=int(width - 32))
            return
        chosen = room.get("your_servant")
        s.text(tr("room.servant_pick", cls=tr.cls(cls)), left + 16, top, 14, th.TEXT, bold=True,
               max_width=width - 32)
        s.text(tr("room.servant_secret" if chosen else "room.servant_none"), left + 16, top - 20,
               11, th.MUTED, max_width=width - 32)
        roster = tr.rules.roster[cls]
        bw = (width - 32 - 8 * (len(roster) - 1)) / len(roster)
        y = top - 80
        for i, servant in enumerate(roster):
            x = left + 16 + i * (bw + 8)
            mine = servant.id == chosen
            pick = None if mine else (lambda sid=servant.id: self.send("choose_servant",
                                                                       servant=sid))
            self.button(s, f"servant:{servant.id}", x, y, bw, 44, tr.short_name(servant.id),
                        pick, enabled=not room.get("started"),
                        style="selected" if mine else "normal", size=14,
                        help=tr("room.servant_help", name=tr.true_name(servant.id),
                                profile=servant.profile.get(tr.lang),
                                np=servant.np.name.get(tr.lang)))
            if mine:
                s.frame(x - 3, y - 3, bw + 6, 50, th.GOLD, 3)
