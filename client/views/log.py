"""Log: the dice log in the dice-bot style (or every event), the chat with its tabs (room,
negotiation, whisper), and the export of it all at any time (a button, or Ctrl+S)."""

from __future__ import annotations

from .. import theme as th
from ..gfx import Scene
from .chatpane import send_chat
from .common import HEADER_H, InGameView

KIND_COLOURS = {"dice": th.TEXT, "critical": th.GOLD, "fumble": (190, 140, 240),
                "turn": th.GOLD, "battle": (240, 160, 140), "death": th.VERMILION,
                "event": th.MUTED, "seat": th.SKY, "chat": (236, 206, 130)}
LINE_H = 21


class LogView(InGameView):
    name = "log"
    background = (21, 21, 32)
    split = True
    cached = True
    tab = "log"

    def on_enter(self, field: str) -> None:
        if field == "chat":
            send_chat(self, self.app.ui.chat_channel)

    def on_key(self, symbol: int, modifiers: int) -> None:
        from arcade import key as keys

        if symbol == keys.S and modifiers & keys.MOD_CTRL:
            self.app.export("log")
            return
        super().on_key(symbol, modifiers)

    def layout(self, s: Scene) -> None:
        tr, m, ui = self.tr, self.model, self.app.ui
        self.header(s)
        top = th.HEIGHT - HEADER_H - 12
        left, bottom, width, height = 16, 16, 760, top - 16
        self.panel(s, left, bottom, width, height, tr("log.title"))
        x = left + width - 14
        for kind in ("events", "dice"):
            x -= 130
            self.button(s, f"logkind:{kind}", x, bottom + height - 36, 124, 28,
                        tr(f"log.{kind}"), lambda k=kind: setattr(ui, "log_kind", k),
                        style="selected" if ui.log_kind == kind else "ghost", size=12)
        self.button(s, "export_log", x - 166, bottom + height - 36, 156, 28,
                    tr("chatlog.export"), lambda: self.app.export("log"), size=12)
        lines = m.dice_tab() if ui.log_kind == "dice" else m.log_lines()
        area_top = bottom + height - 50
        visible = int((area_top - bottom - 12) // LINE_H)
        self.add_region("scroll:log", left, bottom, width, height - 50)
        back = self.scroll.get("log", 0)
        back = min(back, max(0, len(lines) - visible))
        self.scroll["log"] = back
        shown = lines[max(0, len(lines) - visible - back):len(lines) - back]
        if not shown:
            s.text(tr("log.empty"), left + width / 2, bottom + height / 2, 14, th.MUTED,
                   anchor_x="center")
        y = area_top - LINE_H
        for kind, text in shown:
            if kind == "turn":
                s.rect(left + 12, y - 4, width - 24, LINE_H - 2, th.PANEL2)
            s.text(text, left + 18, y + 2, 12, KIND_COLOURS.get(kind, th.TEXT),
                   max_width=width - 36)
            y -= LINE_H
        if back:
            s.text(f"▲ {back}", left + width - 20, bottom + 8, 11, th.MUTED, anchor_x="right")
        self.chat_box(s, 792, 16, th.WIDTH - 792 - 16, top - 16)
