"""The table's log as files a player keeps: plain text, and one self-contained HTML page (inline
CSS, no script, nothing fetched) with a coloured section per tab: log, dice, chat, negotiation,
whispers. Every text is escaped: a chat line is a player's words, not markup."""

from __future__ import annotations

import html
from typing import Any

from .chatbook import line_text, seat_label, stamp
from .model import ClientModel

COLOURS = {"events": "#9aa0c0", "dice": "#d6b060", "room": "#eae6dc",
           "negotiation": "#8cc8a0", "whisper": "#c8a0f0"}
CSS = """body{background:#141622;color:#eae6dc;font-family:sans-serif;margin:2em;}
h1{color:#d6b060;font-family:serif;}section{margin:1.5em 0;padding:.5em 1em;
border-left:6px solid var(--tab);background:#242838;}h2{color:var(--tab);margin:.2em 0 .5em;}
p{margin:.15em 0;white-space:pre-wrap;}.at{color:#686c86;margin-right:.6em;}
.who{color:var(--tab);margin-right:.6em;}"""


def sections(m: ClientModel) -> list[tuple[str, str, list[tuple[str, str, str]]]]:
    """(tab, title, lines) per tab; each line is (time, speaker, text)."""
    tr = m.tr
    events = [("", "", text) for _kind, text in m.log_lines()]
    dice = [("", "", text) for _kind, text in m.dice_tab()]
    out = [("events", tr("chatlog.events"), events), ("dice", tr("log.dice"), dice)]
    titles = {"room": tr("chat.room"), "negotiation": tr("chat.negotiation"),
              "whisper": tr("chatlog.whispers")}
    for channel, title in titles.items():
        out.append((channel, title, [chat_row(m, line) for line in m.chat[channel]
                                     if not line.get("system")]))  # a refusal stays local
    return out


def chat_row(m: ClientModel, line: dict[str, Any]) -> tuple[str, str, str]:
    name = line.get("name", "")
    if line.get("channel") == "whisper":
        name = m.tr("chatlog.whisper_head", name=name, who=seat_label(m, line.get("to")))
    return stamp(line), name, line_text(line, m.tr)


def title(m: ClientModel) -> str:
    room = (m.room or {}).get("name", "")
    return f"{m.tr('app.title')} — {room}" if room else m.tr("app.title")


def log_text(m: ClientModel) -> str:
    out = [title(m)]
    for _tab, heading, rows in sections(m):
        out += ["", f"== {heading} =="]
        out += ["  ".join(part for part in row if part) for row in rows]
    return "\n".join(out) + "\n"


def log_html(m: ClientModel) -> str:
    esc = html.escape
    body = [f"<h1>{esc(title(m))}</h1>"]
    for tab, heading, rows in sections(m):
        body.append(f'<section class="{tab}" style="--tab:{COLOURS[tab]}">'
                    f"<h2>{esc(heading)}</h2>")
        for at, who, text in rows:
            parts = [f'<span class="at">{esc(at)}</span>' if at else "",
                     f'<span class="who">{esc(who)}</span>' if who else "", esc(text)]
            body.append(f"<p>{''.join(parts)}</p>")
        body.append("</section>")
    return ("<!DOCTYPE html>\n<html lang=\"" + m.tr.lang + "\"><head><meta charset=\"utf-8\">"
            f"<title>{esc(title(m))}</title><style>{CSS}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")
