"""Pieces shared by the in-game screens: the header with its tabs and timer, the action bar,
the card hand, the chat box (chatpane.py) and camp tokens."""

from __future__ import annotations

from typing import Any

from .. import theme as th
from ..gfx import Region, Scene, text_width
from ..model import Cell, Option
from .base import BaseView, label_legible
from .chatpane import chat_box, scroll_key

HEADER_H = 52
TABS = ("game", "battle", "dossier", "log")
COUNTDOWN_LEFT = th.WIDTH - 16 - 150  # the header's countdown, right of the tabs and Pause
PAUSE_W = 72
PAUSE_LEFT = 500  # the pause banner starts right of every screen's title (a battle's: 20-490)
VERB_W, VERB_H, VERB_SIZE = 140, 42, 14  # a verb button at its widest, its height, its text
VERB_GAP, VERB_ROW_GAP = 6, 8  # between two verbs of a row; between two rows (the badges)
# from the action bar's top to its first row of verbs: one row, more (2 px higher, so that two
# rows leave the options below their whole row inside the panel)
VERB_TOP, VERB_ROWS_TOP = 38, 36
PAGE_W = 48  # the options' page count, when it stands left of the arrows
OPTION_H, OPTION_SIZE, OPTION_GAP = 34, 13, 6  # an option button's height and text; between two
NAV_W = 74  # the options' page arrows


def token(s: Scene, x: float, y: float, r: float, cls: str, label: str, *, mine: bool = False,
          target: bool = False, dead: bool = False, size: float | None = None) -> None:
    """A camp's token: a disc in its class colour with the class's short name."""
    colour = th.class_colour(cls) if not dead else (90, 90, 96)
    if target:
        s.ring(x, y, r + 6, 4, th.VERMILION)
    s.ring(x, y, r + 3, 1.5, (0, 0, 0))
    s.circle(x, y, r + 2, th.GOLD if mine else th.shade(colour, 1.45))
    s.circle(x, y, r, colour)
    s.circle(x, y + r * 0.35, r * 0.62, th.shade(colour, 1.12))
    s.circle(x, y, r * 0.62, colour)
    s.text(label, x, y, size or max(9, r * 0.8), th.WHITE, bold=True, anchor_x="center",
           anchor_y="center")


LEYLINE_PAPER = (th.PAPER, (226, 230, 206), (214, 228, 204), (200, 224, 200), (240, 222, 170))


PRESENCE_COLOURS = {"dropped": th.VERMILION, "bot_took_over": th.SKY}


def presence_tag(tr: Any, presence: str) -> tuple[str, tuple[int, int, int], str]:
    """An away player's seat mark: its label, colour and hover text."""
    label = tr("room.away") if presence == "dropped" else tr("seats.tag_bot")
    help_key = "seats.mark_dropped" if presence == "dropped" else "seats.mark_bot"
    return label, PRESENCE_COLOURS[presence], tr(help_key)


def presence_mark(s: Scene, x: float, y: float, presence: str) -> None:
    """A badge on a camp's token, in the colour of its player's absence."""
    s.circle(x, y, 6, th.BG2)
    s.circle(x, y, 4.5, PRESENCE_COLOURS[presence])


def presence_name(s: Scene, tr: Any, name: str, presence: str, x: float, y: float,
                  width: float) -> None:
    """An away player's name, cut to leave room for the framed tag that follows it."""
    label, colour, _help = presence_tag(tr, presence)
    tag_w = text_width(label, size=10, bold=True) + 10
    t = s.text(name, x, y, 12, th.MUTED, anchor_y="center", max_width=width - tag_w - 6)
    tx = x + min(t.content_width, width - tag_w - 6) + 6
    s.frame(tx, y - 9, tag_w, 18, colour, 1)
    s.text(label, tx + 5, y, 10, colour, anchor_y="center", bold=True)


def paper(cell: Cell) -> tuple[int, int, int]:
    """A square's paper: tinted by its leyline, washed blue when a Move reaches it."""
    tint = LEYLINE_PAPER[th.LEYLINE_DOTS.get(cell.leyline, 0)]
    return th.mix(tint, th.SKY, 0.24) if cell.move is not None else tint


def verb_grid(labels: list[str], width: float) -> tuple[int, int, float]:
    """The action bar's verbs: how many rows, how many verbs a row holds, and each button's
    width. As few rows as keep every label legible (whole words, two lines at most, at 75 %
    of its size or more): a module's round start may offer ~14 verbs, which one row would
    squeeze into broken words and ellipses."""
    n = max(1, len(labels))
    for rows in range(1, n + 1):
        per_row = -(-n // rows)  # ceiling division
        bw = min(VERB_W, (width - VERB_GAP * (per_row - 1)) / per_row)
        if rows == n or all(label_legible(x, bw, VERB_H, VERB_SIZE) for x in labels):
            break
    return rows, per_row, bw


Row = list[tuple[int, float, float]]  # an option's index, its x from the row's left, its width


def option_rows_of(labels: list[str], width: float, most: int) -> list[Row]:
    """The option buttons packed into rows of `width`: each as wide as its label needs, never
    narrower than `most` to a row would make it; a row that is full is stretched to the
    width. Even columns cut long labels ("Song of the Mire → La…": the target was lost) or,
    made wide enough for the longest, spread a short menu over pages."""
    least = (width - OPTION_GAP * (most - 1)) / most
    rows: list[list[tuple[int, float]]] = [[]]
    used = 0.0
    for i, label in enumerate(labels):
        need = min(width, max(least, text_width(label, size=OPTION_SIZE, bold=True) + 16))
        if rows[-1] and used + OPTION_GAP + need > width:
            rows.append([])
            used = 0.0
        used += need + (OPTION_GAP if len(rows[-1]) else 0)
        rows[-1].append((i, need))
    out: list[Row] = []
    for n, row in enumerate(rows):
        buttons = sum(w for _i, w in row)
        stretch = (width - OPTION_GAP * (len(row) - 1)) / buttons if n < len(rows) - 1 else 1.0
        x, placed = 0.0, []
        for i, w in row:
            placed.append((i, x, w * stretch))
            x += w * stretch + OPTION_GAP
        out.append(placed)
    return out


class InGameView(BaseView):
    """A screen of a running game: header, tabs, and (for Game and Battle) the action bar."""

    tab = "game"

    live_slots: list[tuple[Any, ...]]

    def tick(self, now: float) -> None:
        left = self.countdown_value(now)
        if left != getattr(self, "_shown_seconds", None):
            self._shown_seconds = left
            self.live_dirty = True  # only the countdowns are drawn again

    def rebuild(self) -> None:
        self.live_slots = []
        super().rebuild()

    def live_layout(self, s: Scene) -> None:
        """The timers: the header's countdown, and the slots the screen left for them."""
        tr, m = self.tr, self.model
        now = self.now()
        top = th.HEIGHT - HEADER_H
        right = th.WIDTH - 16
        if m.paused:
            self.paused_banner(s, top - 2)
        left = m.my_seconds_left(now) if m.connection == "connected" else None
        if left is not None:
            s.box(COUNTDOWN_LEFT, top + 8, right - COUNTDOWN_LEFT, 36,
                  th.VERMILION if left > 10 else (230, 60, 40),
                  th.GOLD, 1)
            s.text(f"{left // 60}:{left % 60:02d}", right - 75, top + 26, 20, th.WHITE,
                   bold=True, anchor_x="center", anchor_y="center")
        for slot in getattr(self, "live_slots", []):
            kind = slot[0]
            if kind == "deciding":
                _kind, seat, x, y = slot
                secs = m.seconds_left(seat, now)
                word = tr("panel.acting" if m.view and m.view.get("battle") else "panel.deciding")
                text = word + (f" {tr('lobby.seconds', n=secs)}" if secs is not None else "")
                s.text(text, x, y, 12, th.GOLD, anchor_x="right", anchor_y="center",
                       max_width=110)
            elif kind == "waiting":
                _kind, seat, x, y = slot
                secs = m.seconds_left(seat, now)
                if secs is not None:
                    s.box(x, y - 16, 195, 32, th.PANEL2, th.GOLD_DARK, 1)
                    s.text(tr("waiting.countdown", who=m.who(seat), s=secs), x + 97, y, 13,
                           th.GOLD, anchor_x="center", anchor_y="center", max_width=185)
            elif kind == "reaction":
                _kind, seat, x, y = slot
                secs = m.seconds_left(seat, now)
                if secs is not None:
                    s.box(x - 85, y - 24, 170, 48, th.VERMILION, th.GOLD, 1)
                    s.text(tr("battle.reaction_time", s=secs), x, y, 15, th.WHITE, bold=True,
                           anchor_x="center", anchor_y="center", max_width=160)

    def countdown_value(self, now: float) -> tuple[Any, ...]:
        m = self.model
        seats = tuple((seat, m.seconds_left(seat, now)) for seat in m.prompted_seats)
        return (seats, m.connection)

    def on_key(self, symbol: int, modifiers: int) -> None:
        from arcade import key as keys

        if scroll_key(self, symbol):
            return
        shortcuts = {keys.F1: "game", keys.F2: "battle", keys.F3: "dossier", keys.F4: "log"}
        shortcuts.update(zip((keys.F6, keys.F7, keys.F8), self.model.module_tabs(), strict=False))
        if symbol in shortcuts and shortcuts[symbol] in self.tabs():
            self.go_tab(shortcuts[symbol])
        elif symbol == keys.ESCAPE:
            self.app.ui.reset()
            self.invalidate()

    def tabs(self) -> tuple[str, ...]:
        """The header's tabs: the modules' own (a character sheet) between the battle and the
        dossier."""
        return (*TABS[:2], *self.model.module_tabs(), *TABS[2:])

    def go_tab(self, tab: str) -> None:
        m = self.model
        if tab == "battle" and not m.in_battle:
            return
        self.app.show(m.battle_screen if tab == "battle" else m.home_screen if tab == "game"
                      else tab)

    # --- header ---------------------------------------------------------------------------------
    def header(self, s: Scene) -> None:
        tr, m = self.tr, self.model
        view = m.view
        top = th.HEIGHT - HEADER_H
        s.rect(0, top, th.WIDTH, HEADER_H, th.BG2)
        s.rect(0, top - 2, th.WIDTH, 2, th.VERMILION)
        if view:
            prelude = m.home_screen != "game"  # a module's day before day 1
            day = tr("turn.day_of", day=0 if prelude else m.day, limit=view["day_limit"])
            turn = "" if prelude else view["turn"]
            s.text(day, 20, top + 17, 17, th.TEXT, font="serif")
            x = 20 + 150
            for t in ("morning", "noon", "night"):  # the three turns of a day, current lit
                lit = t == turn
                s.box(x, top + 12, 84, 28, th.GOLD if lit else th.PANEL,
                      th.GOLD if lit else th.LINE, 1)
                s.text(tr(f"turn.{t}"), x + 42, top + 26, 13, th.INK if lit else th.MUTED,
                       bold=lit, anchor_x="center", anchor_y="center", max_width=78)
                x += 88
        self.button(s, "help", 512, top + 9, 36, 34, tr("help.button"), self.toggle_help,
                    help=tr("help.open_help"), style="ghost", size=16)
        x = 560
        tabs = self.tabs()
        pausing = m.may_pause or m.may_resume
        room = COUNTDOWN_LEFT - 8 - x - (PAUSE_W + 6 if pausing else 0)
        tab_w = min(112, room / len(tabs) - 6)  # the tabs and Pause left of the countdown
        for tab in tabs:
            enabled = tab != "battle" or m.in_battle
            selected = tab == self.tab
            label = tr(f"tab.{m.home_screen}" if tab == "game" else f"tab.{tab}")
            self.button(s, f"tab:{tab}", x, top + 9, tab_w, 34, label,
                        lambda t=tab: self.go_tab(t), enabled=enabled,
                        style="selected" if selected else "ghost", size=14)
            if not selected and ((tab == "battle" and m.in_battle)
                                 or m.tab_news(tab)):
                s.circle(x + tab_w - 8, top + 38, 5, th.VERMILION)
            x += tab_w + 6
        if pausing:
            self.pause_button(s, x, top + 9)  # right of the tabs
        # connection and timer
        right = th.WIDTH - 16
        if m.connection != "connected":
            text = tr("net.reconnecting", n=m.attempt) if m.connection == "reconnecting" \
                else tr("top.offline")
            s.box(right - 250, top + 10, 250, 32, th.VERMILION_DARK, th.GOLD, 1)
            s.text(text, right - 125, top + 26, 12, th.WHITE, anchor_x="center",
                   anchor_y="center", max_width=240)
            return
        if m.spectator:  # (this seat's countdown is drawn by live_layout)
            s.text(tr("top.spectator"), right, top + 20, 14, th.MUTED, anchor_x="right")

    def pause_button(self, s: Scene, left: float, bottom: float) -> None:
        """The owner's Pause; Resume while the game is paused (docs/protocol.md)."""
        resume = self.model.paused
        message = "resume_room" if resume else "pause_room"
        self.button(s, "pause", left, bottom, PAUSE_W, 34,
                    self.tr("pause.resume" if resume else "pause.pause"),
                    lambda: self.app.session.send(message),
                    help=self.tr("pause.resume_help" if resume else "pause.pause_help"),
                    style="primary" if resume else "ghost", size=13)

    def paused_banner(self, s: Scene, top: float) -> None:
        """Under the header, right of the screen's title (a battle's name, the city's: never
        covered): the game is paused, and who may resume it."""
        tr, height, left = self.tr, 48, PAUSE_LEFT
        s.rect(left, top - height, th.WIDTH - left, height, (*th.VERMILION_DARK, 240))
        s.rect(left, top - height, th.WIDTH - left, 2, th.GOLD)
        t = s.text(tr("pause.banner"), left + 20, top - height / 2, 19, th.WHITE, font="serif",
                   anchor_y="center", max_width=240)
        hint = "pause.banner_owner" if self.model.may_resume else "pause.banner_other"
        s.text(tr(hint), left + 40 + t.content_width, top - height / 2, 14, th.TEXT,
               anchor_y="center", max_width=th.WIDTH - left - t.content_width - 56)

    # --- the action bar -------------------------------------------------------------------------
    def prompt_line(self) -> str:
        tr, m = self.tr, self.model
        if m.over:
            return tr("prompt.over")
        kind = m.prompt_kind
        parley = (m.view or {}).get("parley")
        if m.my_turn and kind == "ambush" and parley:  # who attacks decides flee or fight
            return tr("waiting.ambush", attacker=m.who(parley["opener"]))
        if m.my_turn:
            if m.in_priority_phase:
                return tr("prompt.declare_priority")
            return tr(f"prompt.{kind}") if tr.has(f"prompt.{kind}") else kind
        seats = m.prompted_seats
        if kind == "declare":
            return tr("prompt.wait_declare")
        if seats:
            return tr("prompt.wait_other", who=tr("prompt.who_sep").join(m.who(x) for x in seats))
        return tr("prompt.none")

    def action_bar(self, s: Scene, left: float, bottom: float, width: float,
                   height: float) -> None:
        """Verbs in as many rows as keep their labels whole (only legal ones enabled), the
        chosen verb's options below."""
        m, ui = self.model, self.app.ui
        self.panel(s, left, bottom, width, height)
        my_turn = m.my_turn
        line = self.prompt_line()
        warn = m.sleep_warning()
        s.text(line, left + 16, bottom + height - 26, 15,
               th.GOLD if my_turn else th.MUTED, font="serif" if my_turn else "sans",
               max_width=width / 2 - 24 if warn else width - 32)
        if warn:  # the last chance today to rest, right of the prompt line
            right = left + width - 16
            t = s.text(self.tr("prompt.sleep_warning"), right, bottom + height - 26, 13,
                       th.VERMILION, bold=True, anchor_x="right", max_width=width / 2 - 24)
            self.add_region("sleep_warning", right - t.content_width, bottom + height - 36,
                            t.content_width, 22, help=self.tr("prompt.sleep_warning_help"))
        if not my_turn and not (m.prompt_kind == "declare" and m.my_camp is not None):
            # another camp's prompt: its countdown, not its verbs drawn as if they were ours
            for i, seat in enumerate(m.prompted_seats[:4]):
                self.live_slots.append(("waiting", seat, left + 16 + i * 205,
                                        bottom + height - 66))
            return
        verbs = m.verbs()
        rows, per_row, bw = verb_grid([v.label for v in verbs], width - 32)
        top = bottom + height - (VERB_TOP if rows == 1 else VERB_ROWS_TOP)
        y = top - VERB_H
        for i, verb in enumerate(verbs):
            row, col = divmod(i, per_row)
            x = left + 16 + col * (bw + VERB_GAP)
            y = top - VERB_H - row * (VERB_H + VERB_ROW_GAP)
            selected = ui.verb == verb.key
            count = len(verb.options)
            self.button(s, f"verb:{verb.key}", x, y, bw, VERB_H, verb.label,
                        lambda v=verb.key: self.press_verb(v), enabled=verb.enabled,
                        help=verb.help, style="selected" if selected else "normal",
                        size=VERB_SIZE, why=verb.why)
            if count > 1:  # how many choices the verb opens, as a badge
                s.circle(x + bw - 4, y + 40, 10, th.GOLD_DARK)
                s.text(str(count), x + bw - 4, y + 40, 9, th.WHITE, bold=True,
                       anchor_x="center", anchor_y="center")
        options = self.current_options()
        if options:
            self.option_rows(s, options, left + 16, bottom + 8, width - 32, y - bottom - 14)

    def current_options(self) -> list[Option]:
        ui, m = self.app.ui, self.model
        if ui.card:
            return [o for o in (m.option(a) for a in m.legal) if o.card == ui.card]
        if ui.verb:
            return m.grouped(m.menu(ui.verb), ui.extra.get("group"))
        return []

    def open_group(self, group: str) -> None:
        self.app.ui.extra["group"] = group
        self.app.ui.page = 0

    def option_rows(self, s: Scene, options: list[Option], left: float, bottom: float,
                    width: float, height: float) -> None:
        ui = self.app.ui
        most = 4 if len(options) <= 8 else 5  # few options: wider buttons
        rows = max(1, int((height + 6) // 40))
        labels = [o.label for o in options]
        packed = option_rows_of(labels, width, most)
        if len(packed) > rows:  # paged: the arrows (and the page count beside them) take room
            packed = option_rows_of(labels, width - NAV_W - (0 if rows > 1 else PAGE_W), most)
        pages = max(1, -(-len(packed) // rows))
        ui.page = min(ui.page, pages - 1)
        for r, row in enumerate(packed[ui.page * rows:(ui.page + 1) * rows]):
            y = bottom + height - OPTION_H - r * 40
            for i, dx, bw in row:
                opt = options[i]
                colour = th.VERMILION_DARK if opt.danger else \
                    th.CARD_COLOURS.get(opt.card) if opt.card else None
                click = None if opt.reason else (lambda g=opt.group: self.open_group(g)) \
                    if opt.action is None else (lambda a=opt.action: self.send(a))
                self.button(s, f"opt:{i}", left + dx, y, bw, OPTION_H, opt.label, click,
                            enabled=not opt.reason, help=opt.help,
                            style="paper" if opt.action is not None else "normal",
                            size=OPTION_SIZE, colour=colour)
        if pages > 1:
            x = left + width - 70
            self.button(s, "page:prev", x, bottom + height - 34, 34, 34, "◀",
                        lambda: self.page(-1, pages), style="ghost", size=12)
            self.button(s, "page:next", x + 36, bottom + height - 34, 34, 34, "▶",
                        lambda: self.page(1, pages), style="ghost", size=12)
            page = self.tr("option.page", page=ui.page + 1, pages=pages)
            if rows > 1:
                s.text(page, x + 35, bottom + height - 56, 12, th.MUTED, anchor_x="center")
            else:
                s.text(page, x - PAGE_W / 2, bottom + height - 17, 12, th.MUTED,
                       anchor_x="center", anchor_y="center", max_width=PAGE_W - 4)

    def page(self, step: int, pages: int) -> None:
        self.app.ui.page = (self.app.ui.page + step) % pages

    def press_verb(self, verb: str) -> None:
        ui, m = self.app.ui, self.model
        options = m.options(verb)
        if not options:
            return
        ui.card = None
        ui.extra.pop("group", None)
        if len(options) == 1 and verb != "Move" and not m.ruled_out_options(verb):
            self.send(options[0].action)  # one choice: at once (unless a ruled-out one shows)
            return
        ui.verb = None if ui.verb == verb else verb
        ui.page = 0

    def press_card(self, card: str) -> None:
        ui = self.app.ui
        ui.verb = None
        ui.extra.pop("group", None)
        ui.card = None if ui.card == card else card
        ui.page = 0

    def send(self, action: dict[str, Any]) -> None:
        """A click becomes an `act` message, after a confirmation for a Command Spell or a
        Noble Phantasm; the state changes only when the server says so."""
        if self.model.confirmation(action) is not None:
            self.app.ui.extra["confirm"] = action
            return
        self.act(action)

    def act(self, action: dict[str, Any]) -> None:
        if self.app.session is not None and self.app.session.act(action):
            self.app.ui.reset()

    def answer_confirm(self, ok: bool) -> None:
        action = self.app.ui.extra.pop("confirm", None)
        if ok and action is not None:
            self.act(action)
        self.invalidate()

    def modal(self, o: Scene) -> list[Region] | None:
        """The confirmation of a chosen Command Spell or Noble Phantasm, while still legal."""
        action = self.app.ui.extra.get("confirm")
        if action is not None and action not in self.model.legal:
            del self.app.ui.extra["confirm"]  # the state moved on: nothing left to confirm
            return None
        question = None if action is None else self.model.confirmation(action)
        if question is None:
            return None
        tr = self.tr
        return self.dialog(o, "confirm", question.title, question.text, self.answer_confirm,
                           question.ok, tr("confirm.cancel"))

    # --- the hand -------------------------------------------------------------------------------
    def hand(self, s: Scene, left: float, bottom: float, width: float, height: float) -> None:
        tr, m = self.tr, self.model
        self.panel(s, left, bottom, width, height)
        cards = m.hand()
        camp = m.my_camp
        s.text(tr("panel.hand"), left + 14, bottom + height - 24, 13, th.MUTED)
        if camp is None:
            s.text(tr("panel.no_camp"), left + width / 2, bottom + height / 2, 13, th.MUTED,
                   anchor_x="center", width=int(width - 30), align="center")
            return
        if not cards:
            s.text(tr("panel.no_hand"), left + width / 2, bottom + height / 2 - 8, 14, th.MUTED,
                   anchor_x="center")
            return
        n = len(cards)
        cw = min(72, (width - 28 - 6 * (n - 1)) / n)
        ch = min(height - 46, cw * 1.45)
        x = left + 14
        y = bottom + 12
        for i, card in enumerate(cards):
            self.card(s, f"card:{i}", x, y, cw, ch, card["card"], card["name"], card["usable"],
                      card["help"], selected=self.app.ui.card == card["card"])
            x += cw + 6

    def card(self, s: Scene, rid: str, x: float, y: float, w: float, h: float, kind: str,
             name: str, usable: bool, help: str, selected: bool = False) -> None:
        colour = th.CARD_COLOURS.get(kind, th.MUTED)
        s.shadow(x, y, w, h)
        if selected:
            y += 10
        s.box(x, y, w, h, th.shade(colour, 0.55), th.GOLD if selected else th.shade(colour, 1.4),
              2)
        s.gradient(x + 4, y + 4, w - 8, h - 8, th.shade(colour, 1.15), th.shade(colour, 0.8))
        s.circle(x + w / 2, y + h * 0.58, w * 0.28, th.shade(colour, 1.35))
        s.circle(x + w / 2, y + h * 0.58, w * 0.22, th.shade(colour, 0.7))
        s.text(kind, x + w / 2, y + h * 0.58, w * 0.28, th.WHITE, bold=True, anchor_x="center",
               anchor_y="center")
        s.text(name, x + w / 2, y + 14, 11, th.WHITE, bold=True, anchor_x="center",
               max_width=w - 6)
        self.add_region(rid, x, y, w, h, (lambda k=kind: self.press_card(k)) if usable else None,
                        enabled=usable, help=help, label=kind)

    # --- chat -----------------------------------------------------------------------------------
    def chat_box(self, s: Scene, left: float, bottom: float, width: float, height: float) -> None:
        chat_box(self, s, left, bottom, width, height)
