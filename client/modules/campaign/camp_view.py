"""Campaign: the camp's character sheet in four pages (seed 002; spec 002 §4, §6.1). The sheet
(the Master's level, experience by method, points to spend, the growth to choose when a level
is gained, the Servant's pool and damage points, merit and funds), gear (worn items, things
owned, the shop of the square), the four stances (names, arrangements, traits, links, the NP
stance) and the bonds. Every button is one legal action; the arrangement editor only drafts an
order, which is sent only when the engine offers it."""

from __future__ import annotations

from functools import partial
from typing import Any

from ... import theme as th
from ...gfx import Scene, TextField, text_width
from ...views.common import HEADER_H, InGameView
from . import view_data as cp
from .text import (
    arg_label,
    bond_target,
    holder_name,
    item_name,
    short_label,
    tile_label,
    trait_text,
)

TOP = th.HEIGHT - HEADER_H - 12  # below the header
BODY_TOP = TOP - 56  # below the title row and the page tabs
ACTION_H = 30  # an action button's height
STANCE_W = 304


class CampView(InGameView):
    name = "camp"
    background = (24, 22, 34)
    split = True
    cached = True
    tab = "camp"

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        self.page = "sheet"
        self.fields = {f"stance_name:{k}": TextField("", max_len=24) for k in cp.STANCES}

    def open_page(self, page: str) -> None:
        self.page = page
        self.invalidate()

    def layout(self, s: Scene) -> None:
        tr, m = self.tr, self.model
        self.header(s)
        s.text(tr("campaign.title"), 20, TOP - 30, 20, th.GOLD, font="serif", max_width=380)
        x = 420
        for page in cp.PAGES:
            busy = cp.page_news(m, page)
            self.button(s, f"page:{page}", x, TOP - 44, 150, 34, tr(f"campaign.page.{page}"),
                        partial(self.open_page, page),
                        style="selected" if page == self.page else "ghost", size=14,
                        help=tr(f"campaign.page_help.{page}"))
            if busy and page != self.page:  # something to do on that page
                s.circle(x + 142, TOP - 14, 5, th.VERMILION)
            x += 158
        if cp.own_record(m) is None:
            s.text(tr("campaign.spectator"), th.WIDTH / 2, th.HEIGHT / 2, 16, th.MUTED,
                   anchor_x="center")
            return
        getattr(self, f"page_{self.page}")(s)

    # --- widgets -------------------------------------------------------------------------------
    def actions_grid(self, s: Scene, acts: list[dict[str, Any]], left: float, top: float,
                     width: float, per_row: int = 2, style: str = "paper",
                     height: float = ACTION_H, short: bool = False) -> float:
        """The legal actions as buttons, `per_row` to a row under `top` (40 high or more: a
        long label on two lines; `short`: the label without what the row already names);
        returns the bottom."""
        m = self.model
        gap = 6
        bw = (width - gap * (per_row - 1)) / per_row
        y = top
        for i, a in enumerate(acts):
            col = i % per_row
            if col == 0:
                y -= height + gap
            opt = m.option(a)
            label = short_label(m, a) if short else opt.label
            self.button(s, f"act:{a['type']}:{self.act_index(a)}", left + col * (bw + gap), y,
                        bw, height, label, partial(self.send, a), help=opt.help, style=style,
                        size=12)
        return y

    def act_index(self, a: dict[str, Any]) -> int:
        """An action's place among the legal ones of its type (the button's id)."""
        same = [x for x in self.model.legal if x["type"] == a["type"]]
        return same.index(a)

    def meter(self, s: Scene, label: str, value: int, top: int, left: float, y: float,
              width: float, colour: tuple[int, ...]) -> None:
        """A labelled bar of `value` out of `top`, on paper."""
        s.text(label, left, y + 8, 12, th.INK, anchor_y="center", max_width=110)
        self.bar(s, left + 116, y, width - 116, 16, value, top, colour, dark=False)
        s.text(f"{value} / {top}", left + width - 6, y + 8, 11, th.INK, bold=True,
               anchor_x="right", anchor_y="center")

    def paper_panel(self, s: Scene, left: float, bottom: float, width: float, height: float,
                    title: str) -> float:
        """A paper panel with its title; returns the y under the title's rule."""
        self.panel(s, left, bottom, width, height, title, paper=True)
        return bottom + height - 40

    # --- the sheet -----------------------------------------------------------------------------
    def page_sheet(self, s: Scene) -> None:
        m = self.model
        sh = cp.sheet(m)
        assert sh is not None
        growth_h = 200 if sh["pending"] or sh["growth_stage"] else 0
        bottom = 12 + growth_h + (12 if growth_h else 0)
        height = BODY_TOP - bottom
        self.master_panel(s, sh, 16, bottom, 408, height)
        self.servant_panel(s, sh, 436, bottom, 420, height)
        self.wallet_panel(s, sh, 868, bottom, 396, height)
        if growth_h:
            self.growth_panel(s, sh, 16, 12, th.WIDTH - 32, growth_h)

    def master_panel(self, s: Scene, sh: dict[str, Any], left: float, bottom: float,
                     width: float, height: float) -> None:
        tr, m = self.tr, self.model
        y = self.paper_panel(s, left, bottom, width, height, tr("campaign.master"))
        camp = m.my_camp or {}
        s.text(tr.master_name(camp.get("master", "")), left + 14, y - 14, 15, th.INK, bold=True,
               max_width=width - 150)
        s.text(tr("campaign.level", n=sh["level"], cap=sh["cap"]), left + width - 14, y - 14,
               18, th.VERMILION_DARK, font="serif", anchor_x="right")
        s.text(tr(f"campaign.race.{sh['race']}"), left + 14, y - 36, 11, th.INK_SOFT)
        y -= 64
        s.text(tr("campaign.experience", n=sh["per_level"]), left + 14, y, 12, th.INK_SOFT,
               bold=True, max_width=width - 28)
        for method, value in sh["exp"]:
            y -= 24
            self.meter(s, tr(f"campaign.method.{method}"), value, sh["per_level"], left + 14, y,
                       width - 28, th.GOLD_DARK)
        y -= 34
        self.bar(s, left + 14, y, width - 28, 18, sh["master_mp"], sh["max_master_mp"],
                 th.MASTER_MP, tr("panel.master_mp"), dark=False)
        y -= 30
        points = tr("campaign.points", skill=sh["skill_points"],
                    background=sh["background_points"])
        s.text(points, left + 14, y, 13, th.INK, bold=True, max_width=width - 28)
        if sh["investigation"]:
            s.text(tr("campaign.investigation", n=sh["investigation"]), left + width - 14, y,
                   11, th.INK_SOFT, anchor_x="right")
        spend = cp.actions(m, "SpendSkillPoint") + cp.actions(m, "SpendBackgroundPoint")
        y = self.actions_grid(s, spend, left + 14, y - 6, width - 28)
        if sh["tag"]:
            y = max(bottom + 12, y - 22)
            s.text(tr("campaign.tag_line", tag=cp.tag_name(tr, sh["tag"])), left + 14, y, 12,
                   th.VERMILION_DARK, max_width=width - 28)
            self.add_region("tag", left + 14, y - 6, width - 28, 22,
                            help=cp.tag_text(tr, sh["tag"]))

    def servant_panel(self, s: Scene, sh: dict[str, Any], left: float, bottom: float,
                      width: float, height: float) -> None:
        tr, m = self.tr, self.model
        y = self.paper_panel(s, left, bottom, width, height, tr("campaign.servant"))
        self.bar(s, left + 14, y - 26, width - 28, 18, sh["hp"], sh["max_hp"], th.HP,
                 tr("panel.hp"), dark=False)
        self.bar(s, left + 14, y - 50, width - 28, 18, sh["mp"], sh["max_mp"], th.MP,
                 tr("panel.mp"), dark=False)
        y -= 84
        s.text(tr("campaign.pool", n=len(sh["composition"]), top=sh["max_pool"]), left + 14, y,
               12, th.INK_SOFT, bold=True, max_width=width - 28)
        for row in sh["pool"]:
            y -= 34
            colour = th.CARD_COLOURS[row["kind"]]
            s.box(left + 14, y - 4, 26, 30, colour, th.shade(colour, 1.4), 1)
            s.text(row["kind"], left + 27, y + 11, 13, th.WHITE, bold=True, anchor_x="center",
                   anchor_y="center")
            s.text(tr("campaign.cards", n=row["cards"]), left + 50, y + 11, 13, th.INK,
                   bold=True, anchor_y="center", max_width=90)
            per = sh["per_card"]
            self.bar(s, left + 146, y + 4, 100, 14, per - row["next"], per, colour, dark=False)
            s.text(tr("campaign.tiles", n=row["tiles"], next=row["next"]), left + 146, y - 9, 10,
                   th.INK_SOFT, max_width=width - 160)
            dp = tr("campaign.dp", n=row["dp"])
            if row["dp_items"]:
                dp += " " + tr("campaign.dp_items", n=row["dp_items"])
            s.text(dp, left + width - 14, y + 11, 12, th.VERMILION_DARK, anchor_x="right",
                   anchor_y="center", max_width=width - 266)
        y -= 40
        x = left + 14
        for card in sh["composition"]:
            colour = th.CARD_COLOURS[card]
            s.box(x, y, 24, 30, colour, th.shade(colour, 1.4), 1)
            s.text(card, x + 12, y + 15, 12, th.WHITE, bold=True, anchor_x="center",
                   anchor_y="center")
            x += 28
        self.add_region("composition", left + 14, y, max(28, x - left - 14), 30,
                        help=tr("campaign.composition_help"))
        y -= 28
        state = "campaign.stray" if sh["stray"] else "campaign.spirit_form" if sh["spirit"] \
            else "campaign.supplied" if sh["supply_on"] else "campaign.materialized"
        s.text(tr(state), left + 14, y, 12, th.INK, bold=True, max_width=width - 200)
        self.actions_grid(s, cp.actions(m, "SetSupply"), left + width - 190, y + 24, 176, 1)

    def wallet_panel(self, s: Scene, sh: dict[str, Any], left: float, bottom: float,
                     width: float, height: float) -> None:
        tr, m = self.tr, self.model
        y = self.paper_panel(s, left, bottom, width, height, tr("campaign.merit_funds"))
        for i, holder in enumerate(cp.WEARERS):
            x = left + 14 + i * (width - 28) / 2
            s.text(tr("campaign.merit_of", holder=holder_name(tr, holder)), x, y - 18, 12,
                   th.INK_SOFT, max_width=(width - 40) / 2)
            s.text(str(sh["merit"][holder]), x, y - 52, 28, th.VERMILION_DARK, font="serif")
        y -= 84
        s.text(tr("campaign.transfer_title"), left + 14, y, 12, th.INK_SOFT, bold=True)
        y = self.actions_grid(s, cp.actions(m, "TransferMerit"), left + 14, y - 4, width - 28, 1)
        y -= 40
        s.text(tr("campaign.funds"), left + 14, y, 12, th.INK_SOFT)
        s.text(str(sh["funds"]), left + width - 14, y - 6, 28, th.GOLD_DARK, font="serif",
               anchor_x="right")
        if sh["jewels"] or cp.actions(m, "UseJewels"):
            y -= 40
            s.text(tr("campaign.jewels_left", n=sh["jewels"]), left + 14, y, 12, th.INK)
            self.actions_grid(s, cp.actions(m, "UseJewels"), left + 14, y - 4, width - 28, 3)
        if sh["revivals"]:
            s.text(tr("campaign.revivals", n=sh["revivals"]), left + 14, bottom + 14, 12, th.INK)

    def growth_panel(self, s: Scene, sh: dict[str, Any], left: float, bottom: float,
                     width: float, height: float) -> None:
        """C2.7 then C2.8: the option for the level, then the Servant's three gains; declaring
        waits until both are chosen."""
        tr, m = self.tr, self.model
        self.panel(s, left, bottom, width, height, tr("campaign.growth_title", n=sh["pending"]))
        s.text(tr("campaign.growth_blocks"), left + width - 14, bottom + height - 24, 12,
               th.VERMILION, anchor_x="right", bold=True, max_width=width / 2)
        stage = sh["growth_stage"]
        if not stage:
            s.text(tr("prompt.wait_declare"), left + 14, bottom + height / 2, 13, th.MUTED)
            return
        s.text(tr(f"campaign.growth_step.{stage}"), left + 14, bottom + height - 58, 13,
               th.GOLD, max_width=width - 28)
        if sh["last_growth"] and stage == "option":
            s.text(tr("campaign.not_again", option=tr(f"campaign.option.{sh['last_growth']}")),
                   left + width - 14, bottom + height - 58, 12, th.MUTED, anchor_x="right",
                   max_width=width / 2)
        if stage == "option":
            self.actions_grid(s, cp.actions(m, "ChooseGrowth"), left + 14, bottom + height - 66,
                              width - 28, 3, style="normal", height=36)
        else:
            self.servant_growth(s, left + 14, bottom + height - 70, width - 28)

    def servant_growth(self, s: Scene, left: float, top: float, width: float) -> None:
        """C2.8's three gains picked one by one (HP or MP, the damage point's kind, the tile's
        kind or magecraft skill); Confirm sends the legal action they make."""
        tr, m = self.tr, self.model
        offered = cp.actions(m, "ChooseServantGrowth")
        draft = cp.growth_draft(self.app.ui.extra, offered)
        y = top
        for field, word in (("pool", "campaign.pick_pool"), ("damage_kind", "campaign.pick_dp"),
                            ("tile", "campaign.pick_tile")):
            y -= 38
            s.text(tr(word), left, y + 16, 13, th.TEXT, anchor_y="center", max_width=170)
            x = left + 180
            values = list(dict.fromkeys(a[field] for a in offered))
            bw = min(170.0, (width - 180 - 212) / len(values) - 6)  # left of Confirm
            for value in values:
                label = tr(f"campaign.pool_gain.{value}") if field == "pool" else \
                    tile_label(tr, value)
                chosen = draft.get(field) == value
                self.button(s, f"growth:{field}:{value}", x, y, bw, 32, label,
                            partial(self.pick_growth, field, value),
                            style="selected" if chosen else "ghost", size=12)
                x += bw + 6
        chosen = next((a for a in offered if all(a[k] == v for k, v in draft.items())), None)
        self.button(s, "growth:confirm", left + width - 200, y, 200, 70,
                    tr("campaign.confirm_growth"),
                    partial(self.send, chosen) if chosen else None, enabled=chosen is not None,
                    style="primary", size=15, help=m.option(chosen).label if chosen else "")

    def pick_growth(self, field: str, value: str) -> None:
        self.app.ui.extra.setdefault("growth_draft", {})[field] = value

    # --- gear ----------------------------------------------------------------------------------
    def page_gear(self, s: Scene) -> None:
        tr, m = self.tr, self.model
        g = cp.gear(m)
        assert g is not None
        height = BODY_TOP - 12
        y = self.paper_panel(s, 16, 12, 300, height, tr("campaign.worn"))
        for holder in cp.WEARERS:
            s.text(holder_name(tr, holder), 30, y - 16, 13, th.INK, bold=True)
            y -= 24
            items = g["worn"].get(holder, [])
            for slot in range(g["slots"]):
                y -= 34
                item = items[slot] if slot < len(items) else ""
                s.box(30, y, 272, 30, th.PAPER2 if item else th.PAPER, th.PAPER_DARK, 1)
                s.text(item_name(tr, item) if item else tr("campaign.empty_slot"), 40, y + 15,
                       12, th.INK if item else th.INK_SOFT, anchor_y="center", max_width=250)
                if item:
                    self.add_region(f"worn:{holder}:{slot}", 30, y, 272, 30,
                                    help=tr(f"campaign.item_help.{item}"))
            y -= 16
        if g["devices"]:
            s.text(tr("campaign.devices"), 30, y - 10, 13, th.INK, bold=True)
            for d in g["devices"]:
                y -= 22
                s.text(tr("campaign.device", item=item_name(tr, d["item"]),
                          square=m.square_name(d["square"]),
                          left=d["turns_left"] if d["turns_left"] >= 0 else "∞"),
                       30, y, 11, th.INK, anchor_y="top", width=270, max_lines=2)
                y -= 14
        self.owned_panel(s, g, 328, 12, 336, height)
        self.shop_panel(s, g, 676, 12, 588, height)  # its texts need the room (issue 32)

    def owned_panel(self, s: Scene, g: dict[str, Any], left: float, bottom: float,
                    width: float, height: float) -> None:
        tr, m = self.tr, self.model
        y = self.paper_panel(s, left, bottom, width, height, tr("campaign.owned"))
        if not g["owned"]:
            s.text(tr("campaign.nothing_owned"), left + 14, y - 20, 12, th.INK_SOFT)
        for row in g["owned"]:
            item = row["item"]
            y -= 26
            label = item_name(tr, item) + (f" ×{row['count']}" if row["count"] > 1 else "")
            s.text(label, left + 14, y, 13, th.INK, bold=True, max_width=width - 160)
            if row["worn"]:
                s.text(tr("campaign.worn_by", who=" · ".join(holder_name(tr, w)
                                                             for w in row["worn"])),
                       left + width - 14, y, 11, th.JADE, anchor_x="right", max_width=140)
            self.add_region(f"owned:{item}", left + 8, y - 6, width - 16, 22,
                            help=tr(f"campaign.item_help.{item}"))
            acts = [a for kind in ("Wear", "UseItem", "RepairDoll")
                    for a in cp.actions(m, kind, item=item)]
            y = self.actions_grid(s, acts, left + 14, y - 4, width - 28, 3, short=True)

    def shop_panel(self, s: Scene, g: dict[str, Any], left: float, bottom: float, width: float,
                   height: float) -> None:
        tr, m = self.tr, self.model
        where = tr("campaign.catalogue") if g["day0"] else m.square_name(g["square"])
        y = self.paper_panel(s, left, bottom, width, height, tr("campaign.shop", where=where))
        s.text(tr("campaign.funds_left", n=g["funds"]), left + width - 14, bottom + height - 24,
               13, th.GOLD_DARK, anchor_x="right", bold=True)
        if not g["shop"]:
            s.text(tr("campaign.no_shop"), left + 14, y - 20, 12, th.INK_SOFT,
                   width=int(width - 28))
            return
        row_h = min(54.0, (y - bottom - 8) / len(g["shop"]))
        for i, row in enumerate(g["shop"]):  # each item with its price and what it does
            y -= row_h
            if i % 2:  # rows told apart, each text in its own
                s.rect(left + 8, y + 1, width - 16, row_h - 2, th.PAPER2)
            item, buy = row["item"], row["buy"]
            label = tr("campaign.price", item=item_name(tr, item), n=row["price"])
            rid = f"act:Buy:{self.act_index(buy)}" if buy else f"shop:{item}"
            self.button(s, rid, left + 14, y + 4, 190, row_h - 8, label,
                        partial(self.send, buy) if buy else None, enabled=buy is not None,
                        style="paper", size=12, help=m.option(buy).help if buy else
                        tr(f"campaign.item_help.{item}"), why=tr("campaign.cannot_buy"))
            text, room = tr(f"campaign.item_help.{item}"), width - 240
            if row_h > 30:  # two lines, wrapped inside the row
                s.text(text, left + 216, y + row_h / 2, 12, th.INK, anchor_y="center",
                       width=int(room), max_lines=2)
            else:  # day 0's whole catalogue: one line (whole on the button's hover)
                s.text(text, left + 216, y + row_h / 2, 11, th.INK, anchor_y="center",
                       max_width=room)

    # --- stances -------------------------------------------------------------------------------
    def page_stances(self, s: Scene) -> None:
        for i, st in enumerate(cp.stances(self.model)):
            self.stance_card(s, st, 16 + i * (STANCE_W + 12), 12, STANCE_W, BODY_TOP - 12)

    def draft(self, st: dict[str, Any]) -> str:
        """The arrangement being edited (the engine's until the seat moves a card)."""
        drafts = self.app.ui.extra.setdefault("stance_drafts", {})
        order = drafts.get(st["key"], st["order"])
        return order if sorted(order) == sorted(st["order"]) else st["order"]

    def stance_card(self, s: Scene, st: dict[str, Any], left: float, bottom: float,
                    width: float, height: float) -> None:
        tr = self.tr
        key = st["key"]
        self.panel(s, left, bottom, width, height, paper=True)
        if st["now"]:
            s.frame(left - 2, bottom - 2, width + 4, height + 4, th.GOLD, 3)
        top = bottom + height
        s.text(st["label"], left + 14, top - 26, 17, th.INK, font="serif", max_width=width - 90)
        if st["now"]:
            s.text(tr("campaign.current"), left + width - 14, top - 26, 11, th.VERMILION_DARK,
                   bold=True, anchor_x="right")
        s.rect(left + 12, top - 38, width - 24, 1, th.PAPER_DARK)
        y = top - 60
        if st["rename"]:
            field = self.fields[f"stance_name:{key}"]
            field.placeholder = st["label"]
            self.field(s, f"stance_name:{key}", left + 14, y - 10, width - 118, 32, 13)
            self.button(s, f"rename:{key}", left + width - 98, y - 10, 84, 32,
                        tr("campaign.rename"), partial(self.rename, st),
                        enabled=bool(field.value.strip()), style="paper", size=12)
            y -= 46
        s.text(tr("campaign.trait_label"), left + 14, y, 11, th.INK_SOFT)
        s.text(trait_text(tr, st["trait"], st["arg"]), left + 14, y - 18, 13, th.INK, bold=True,
               max_width=width - 28)
        if st["traits"]:  # day 0: the editor, with the picked trait's text
            y = self.trait_editor(s, st, left + 14, y - 26, width - 28) - 22
        else:
            s.text(tr(f"campaign.trait_help.{st['trait']}"), left + 14, y - 34, 10,
                   th.INK_SOFT, anchor_y="top", width=int(width - 28), max_lines=3)
            y -= 100
        s.text(tr("campaign.link", category=tr(f"campaign.category.{st['link']}")), left + 14, y,
               12, th.INK, max_width=width - 28)
        if st["links"]:
            y = self.link_row(s, st, left + 14, y - 6, width - 28) - 4
        y -= 20
        if st["hold_np"]:
            a = st["hold_np"][0]
            self.button(s, f"hold_np:{key}", left + 14, y - 8, width - 28, 26,
                        tr("campaign.hold_np"), partial(self.send, a),
                        help=self.model.option(a).help, style="paper", size=12)
            y -= 8
        else:
            s.text(tr("campaign.np_stance" if st["np"] else "campaign.no_np_stance"), left + 14,
                   y, 12, th.VERMILION_DARK if st["np"] else th.INK_SOFT, max_width=width - 28)
        y -= 30
        self.arrangement(s, st, left + 14, y, width - 28)
        if st["choose"]:  # the round start's choice (a battle prompt)
            self.actions_grid(s, st["choose"], left + 14, bottom + 52, width - 28, 1, "normal")

    def trait_editor(self, s: Scene, st: dict[str, Any], left: float, top: float,
                     width: float) -> float:
        """Day 0 (C14.3, C5.10): a trait picked among those offered, then the argument it
        takes (a card kind or a magecraft sub-type); Set sends the legal action the picks
        make. The picked trait's text shows under them. Returns the bottom."""
        tr, key = self.tr, st["key"]
        trait, arg = cp.trait_draft(self.app.ui.extra, st)
        gap = 4
        bw = (width - gap) / 2
        y = top
        for i, choice in enumerate(cp.trait_choices(st)):
            if i % 2 == 0:
                y -= 24 + gap
            shown = arg if choice == trait else cp.trait_pick(st, choice)[1]
            self.button(s, f"trait:{key}:{choice}", left + i % 2 * (bw + gap), y, bw, 24,
                        trait_text(tr, choice, shown), partial(self.pick_trait, st, choice),
                        style="selected" if choice == trait else "paper", size=11,
                        help=tr(f"campaign.trait_help.{choice}"))
        args = cp.trait_args(trait)
        for row in (args[:3], args[3:]):
            if row:
                y -= 24 + gap
                self.label_row(s, [(f"trait_arg:{key}:{v}", arg_label(tr, v),
                                    partial(self.pick_trait_arg, key, trait, v), v == arg, "")
                                   for v in row], left, y, width)
        s.text(tr(f"campaign.trait_help.{trait}"), left, y - 6, 10, th.INK_SOFT,
               anchor_y="top", width=int(width), max_lines=2)
        y -= 72
        chosen = next((a for a in st["traits"] if (a["trait"], a["arg"]) == (trait, arg)), None)
        self.button(s, f"set_trait:{key}", left, y, width, 28, tr("campaign.set_trait"),
                    partial(self.send, chosen) if chosen else None, enabled=chosen is not None,
                    style="paper", size=12, help=tr("verb_help.SetStanceTrait"),
                    why=tr("campaign.set_trait_why"))
        return y

    def link_row(self, s: Scene, st: dict[str, Any], left: float, top: float,
                 width: float) -> float:
        """Day 0 (C14.3): the four categories, the stance's own marked; another one sends
        its LinkStance (the stance that held it takes this one's). Returns the bottom."""
        tr, key = self.tr, st["key"]
        offered = {a["link"]: a for a in st["links"]}
        self.label_row(s, [(f"link:{key}:{c}", tr(f"campaign.category.{c}"),
                            partial(self.send, offered[c]) if c in offered else None,
                            c == st["link"],
                            self.model.option(offered[c]).help if c in offered else "")
                           for c in cp.SERVANT_CATEGORIES], left, top - 24, width)
        return top - 24

    def label_row(self, s: Scene, buttons: list[tuple[str, str, Any, bool, str]], left: float,
                  bottom: float, width: float) -> None:
        """Buttons (id, label, click, chosen, help) in one row, each as wide as its label
        needs and the rest shared out: a long category or sub-type name stays whole."""
        gap = 4
        needs = [text_width(label, size=11, bold=True) + 12 for _, label, *_ in buttons]
        spare = (width - gap * (len(buttons) - 1) - sum(needs)) / len(buttons)
        x = left
        for (rid, label, click, chosen, help), need in zip(buttons, needs, strict=True):
            self.button(s, rid, x, bottom, need + spare, 24, label, click,
                        style="selected" if chosen else "paper", size=11, help=help)
            x += need + spare + gap

    def pick_trait(self, st: dict[str, Any], trait: str) -> None:
        self.app.ui.extra.setdefault("trait_drafts", {})[st["key"]] = cp.trait_pick(st, trait)

    def pick_trait_arg(self, key: str, trait: str, arg: str) -> None:
        self.app.ui.extra.setdefault("trait_drafts", {})[key] = (trait, arg)

    def arrangement(self, s: Scene, st: dict[str, Any], left: float, top: float,
                    width: float) -> None:
        """The arrangement as cards, its lead set (C5.6) underlined; with ArrangeStance legal,
        a card is picked and moved, and the draft is sent only if the engine offers it."""
        tr, m, ui = self.tr, self.model, self.app.ui
        key = st["key"]
        order = self.draft(st)
        lead = cp.lead_size(m)
        s.text(tr("campaign.arrangement", n=lead), left, top, 11, th.INK_SOFT, max_width=width)
        per_row = 9
        cw = min(28.0, (width - 8 * 4) / per_row)
        y = top - 42
        picked = ui.extra.get("stance_card")
        for i, card in enumerate(order):
            x = left + (i % per_row) * (cw + 4)
            cy = y - (i // per_row) * 40
            colour = th.CARD_COLOURS.get(card, th.MUTED)
            chosen = picked == (key, i)
            s.box(x, cy, cw, 32, colour, th.GOLD if chosen else th.shade(colour, 1.4),
                  3 if chosen else 1)
            s.text(card, x + cw / 2, cy + 16, 12, th.WHITE, bold=True, anchor_x="center",
                   anchor_y="center")
            if i < lead:
                s.rect(x, cy - 5, cw, 3, th.VERMILION_DARK)
            self.add_region(f"stance_card:{key}:{i}", x, cy, cw, 32,
                            partial(self.pick, key, i) if st["arrange"] else None,
                            enabled=bool(st["arrange"]), help=tr("campaign.arrange_help"))
        if not st["arrange"]:
            return
        y -= 40 * ((len(order) - 1) // per_row) + 44
        for label, step in (("◀", -1), ("▶", 1)):
            self.button(s, f"move:{key}:{step}", left + (0 if step < 0 else 40), y, 36, 30,
                        label, partial(self.move_card, st, step),
                        enabled=picked is not None and picked[0] == key, style="paper", size=12)
        chosen = cp.arrange_action(st, order)
        self.button(s, f"arrange:{key}", left + 86, y, width - 86, 30,
                    tr("campaign.arrange_apply"),
                    partial(self.send, chosen) if chosen else None,
                    enabled=chosen is not None and order != st["order"], style="paper", size=12,
                    help=tr("campaign.arrange_rule"), why=tr("campaign.arrange_why"))

    def pick(self, key: str, i: int) -> None:
        ui = self.app.ui
        ui.extra["stance_card"] = None if ui.extra.get("stance_card") == (key, i) else (key, i)

    def move_card(self, st: dict[str, Any], step: int) -> None:
        ui = self.app.ui
        key, i = ui.extra["stance_card"]
        order = self.draft(st)
        ui.extra.setdefault("stance_drafts", {})[key] = cp.moved(order, i, step)
        if 0 <= i + step < len(order):  # the picked card moves (two alike look the same)
            ui.extra["stance_card"] = (key, i + step)

    def rename(self, st: dict[str, Any]) -> None:
        """NameStance with the typed name: the engine offers renaming the stance, and checks
        the name (1 to stance_name_max characters) when it arrives."""
        field = self.fields[f"stance_name:{st['key']}"]
        offered = cp.actions(self.model, "NameStance", stance=st["key"])
        if offered and field.value.strip():
            self.send({**offered[0], "name": field.value.strip()})
            field.value = ""

    # --- bonds ---------------------------------------------------------------------------------
    def page_bonds(self, s: Scene) -> None:
        tr, m = self.tr, self.model
        b = cp.bonds(m)
        assert b is not None
        height = BODY_TOP - 12
        width = 820
        y = self.paper_panel(s, 16, 12, width, height, tr("campaign.bonds_held"))
        heads = (tr("campaign.holder_col"), tr("campaign.target_col"), tr("campaign.grade_col"))
        for x, head in zip((30, 180, 360), heads, strict=True):
            s.text(head, x, y - 14, 12, th.INK_SOFT, bold=True)
        y -= 24
        for i, row in enumerate(b["rows"]):
            y -= 8
            y = self.bond_row(s, row, b["top"], i, 30, y, width - 28)
        if not b["rows"]:
            s.text(tr("campaign.no_bonds"), 30, y - 20, 12, th.INK_SOFT)
        y = self.paper_panel(s, 848, 12, 416, height, tr("campaign.new_bonds"))
        s.text(tr("campaign.new_bonds_help"), 862, y - 8, 11, th.INK_SOFT, anchor_y="top",
               width=388, max_lines=3)
        self.actions_grid(s, b["set"], 862, y - 56, 388, 1)

    def bond_row(self, s: Scene, row: dict[str, Any], top: int, i: int, left: float, y: float,
                 width: float) -> float:
        """One bond: holder, target, polarity and grade pips (MAX past the top), fixed; its
        award and resolution buttons. Returns the y under it."""
        tr, m = self.tr, self.model
        y -= 22
        positive = row["polarity"] == "positive"
        colour = th.JADE if positive else th.VERMILION_DARK
        s.text(holder_name(tr, row["holder"]), left, y, 13, th.INK, bold=True, max_width=140)
        s.text(bond_target(m, row["holder"], row["target"]), left + 150, y, 13, th.INK,
               max_width=170)
        x = left + 330
        s.text(tr(f"campaign.polarity.{row['polarity']}"), x, y, 12, colour, bold=True,
               max_width=80)
        x += 84
        if row["max"]:
            s.box(x, y - 4, 60, 20, colour, th.GOLD, 1)
            s.text("MAX", x + 30, y + 6, 12, th.WHITE, bold=True, anchor_x="center",
                   anchor_y="center")
        else:
            for k in range(top):
                s.circle(x + 8 + k * 18, y + 5, 7, colour if k < row["grade"] else th.PAPER_DARK)
        state = tr("campaign.fixed") if row["fixed"] else ""
        if row["internal"]:
            state = " · ".join(x for x in (tr("campaign.internal"), state) if x)
        s.text(state, left + width - 14, y, 11, th.INK_SOFT, anchor_x="right", max_width=180)
        self.add_region(f"bond:{i}", left - 6, y - 6, width, 24,
                        help=tr("campaign.bond_help", grade=row["grade"], top=top))
        y -= 6
        if row["award"]:
            y = self.actions_grid(s, row["award"], left + 150, y, width - 164, 3, short=True)
        if row["resolve"]:  # on rows of their own, headed in the holder column (the head
            # stood before an award button when both shared a row)
            s.text(tr("campaign.resolve_head"), left + 140, y - 6 - ACTION_H / 2, 11,
                   th.INK_SOFT, anchor_x="right", anchor_y="center", max_width=130)
            y = self.actions_grid(s, row["resolve"], left + 150, y, width - 164, 3, short=True)
        return y if row["award"] or row["resolve"] else y + 6
