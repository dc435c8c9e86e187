"""Model → text: what each part of the screen shows, as prompt_toolkit style/text fragments.

Pure functions of the model, the UI state and the time; the layout calls them on
every redraw. Rows are shown as 1..4.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from prompt_toolkit.formatted_text import StyleAndTextTuples

from ..cards import MAX_ROW, bullheads, row_bullheads
from ..decisions import COMMIT, DRAFT, ROW, TIE
from ..words import place_text
from .controller import Controller
from .state import FORM_FIELDS, POOL_COLUMNS

__all__ = [
    "card_chip", "title_bar", "rows_panel", "players_panel", "prompt_line", "hand_line",
    "log_lines", "lobby_panel", "form_panel", "status_line", "keys_line", "help_text",
    "clock_text",
]

SUPERSCRIPT: Final = {1: "¹", 2: "²", 3: "³", 5: "⁵", 7: "⁷"}
SLOT_WIDTH: Final = 5  # " 14¹ ": a card and its gap
Frags = StyleAndTextTuples


def card_chip(card: int, extra: str = "") -> tuple[str, str]:
    """A card as text: its number and, in superscript, its bullheads; coloured by them."""
    bh = bullheads(card)
    style = f"class:card.h{bh}" + (f" {extra}" if extra else "")
    return (style, f"{card:>3}{SUPERSCRIPT.get(bh, str(bh))}")


def clock_text(seconds: float | None, hot: bool = False) -> tuple[str, str]:
    """The countdown; ``hot`` (the server's deadline warning came) or 5 s left: in red."""
    if seconds is None:
        return ("", "")
    s = int(seconds + 0.999)
    style = "class:clock.hot" if hot or seconds <= 5 else "class:clock"
    return (style, f" ⏱ {s // 60}:{s % 60:02d} ")


# ---------------------------------------------------------------- title
def title_bar(c: Controller) -> Frags:
    m = c.model
    out: Frags = [("class:title.app", " nimmt ")]
    out.append(("class:title.online", " ● ") if m.online else
               ("class:title.offline", " ○ reconnecting… "))
    if m.my_name:
        out.append(("class:title.name", m.my_name))
    if m.table is not None:
        out.append(("class:title", f" · table {m.table.table_id}"
                    + (f" “{m.table.name}”" if m.table.name else "")))
        if m.watching:
            out.append(("class:title.watch", " · watching"))
        if m.round:
            out.append(("class:title", f" · round {m.round}"))
        if m.turn:
            out.append(("class:title", f" · turn {m.turn}/10"))
    else:
        out.append(("class:title", " · lobby"))
    return out


# ---------------------------------------------------------------- rows
def rows_panel(c: Controller) -> Frags:
    m, ui = c.model, c.ui
    d = m.decision
    if m.phase == "draft" or (d is not None and d.kind == DRAFT):
        return _draft_pool(c)
    out: Frags = [("class:panel.head", "  Rows" + " " * (SLOT_WIDTH * MAX_ROW - 4)
                   + "bullheads\n")]
    if not m.rows:
        out.append(("class:dim", "\n  The rows are dealt when the round begins.\n"))
        return out
    choosing_row = d is not None and d.kind == ROW
    tie_places = d.places if d is not None and d.kind == TIE else ()
    tie_at = tie_places[ui.tie_cursor % len(tie_places)] if tie_places else None
    for i, row in enumerate(m.rows):
        legal = choosing_row and d is not None and i in d.rows
        cursor = legal and i == ui.row_cursor
        marker = "▶ " if cursor else "  "
        label_style = "class:row.choose" if cursor else ("class:row.legal" if legal
                                                         else "class:row.label")
        out.append(("class:row.cursor" if cursor else "", marker))
        out.append((label_style, f" {i + 1} " if not legal else f"[{i + 1}]"))
        out.append(("class:dim", "│ "))
        slots = 0
        if tie_at is not None and tie_at.row == i and tie_at.end == "left":
            out.append(card_chip(d.card or 0, "class:tie.cursor"))  # type: ignore[union-attr]
            out.append(("", " "))
            slots += 1
        for card in row:
            out.append(card_chip(card))
            out.append(("", " "))
            slots += 1
        if tie_at is not None and tie_at.row == i and tie_at.end == "right":
            out.append(card_chip(d.card or 0, "class:tie.cursor"))  # type: ignore[union-attr]
            out.append(("", " "))
            slots += 1
        for _ in range(slots, MAX_ROW):
            out.append(("class:row.empty", "  ·  "))
        cost = row_bullheads(row)
        out.append(("class:dim", "│"))
        out.append((_heat_style(cost), f"{cost:>3}"))
        if len(row) >= MAX_ROW:
            out.append(("class:row.full", " full!"))
        out.append(("", "\n"))
    out.extend(_table_line(c))
    return out


def _heat_style(cost: int) -> str:
    if cost >= 10:
        return "class:cost.hot"
    if cost >= 5:
        return "class:cost.warm"
    return "class:cost"


def _table_line(c: Controller) -> Frags:
    m = c.model
    out: Frags = [("", "\n")]
    if m.phase == "resolve" and m.unresolved:
        out.append(("class:dim", "  To place: "))
        for n, (seat, card) in enumerate(m.unresolved):
            if n:
                out.append(("class:dim", " → "))
            out.append(card_chip(card))
            out.append(("class:seat.me" if seat == m.seat else "", f" {m.name_of(seat)}"))
    elif m.phase == "commit":
        total = sum(1 for s in m.seats if not s.empty)
        out.append(("class:dim", f"  Committed: {len(m.committed)} of {total}"))
    elif m.phase == "scored" and m.last_round is not None:
        out.append(("class:dim", f"  Round {m.last_round.round} is over."))
    return out


def _draft_pool(c: Controller) -> Frags:
    m, ui = c.model, c.ui
    d = m.decision
    pool = m.draft_pool
    out: Frags = [("class:panel.head", f"  Draft pool: {len(pool)} cards\n")]
    mine = d is not None and d.kind == DRAFT and pool
    cursor = max(0, min(ui.pick_cursor, len(pool) - 1)) if mine else -1
    for i, card in enumerate(pool):
        if i % POOL_COLUMNS == 0:
            out.append(("", "\n  "))
        out.append(card_chip(card, "class:card.cursor" if i == cursor else ""))
        out.append(("", " "))
    out.append(("", "\n"))
    if m.draft_picks:
        seat, card = m.draft_picks[-1]
        out.append(("class:dim", f"\n  Last pick: {m.name_of(seat)} took {card}"))
    return out


# ---------------------------------------------------------------- players
def players_panel(c: Controller) -> Frags:
    m = c.model
    countdown = bool(m.options and m.options.countdown)
    head = "left" if countdown else "total"
    out: Frags = [("class:panel.head", f"  {'Players':<13}{head:>6}{'round':>6}\n")]
    for s in m.seats:
        if s.empty:
            out.append(("class:dim", f"  {s.index + 1:>2} (empty seat)\n"))
            continue
        name = (s.name or "")[:11]
        style = "class:seat.me" if s.me else ("class:seat.away" if not s.connected else "")
        out.append(("class:seat.me", "▶ " if s.me else "  "))
        out.append((style, f"{name:<11}"))
        tag = "★" if s.host else " "
        tag += "⚙" if s.kind == "bot" else " "
        out.append(("class:seat.tag", tag))
        out.append(("", f" {m.display_total(s.index):>5}"))
        pen = f"+{s.penalties}" if s.penalties else "·"
        out.append(("class:seat.pen" if s.penalties else "class:dim", f" {pen:>5}"))
        if s.deciding:
            out.append(("class:mark.wait", " ⌛"))
        elif not s.connected:
            out.append(("class:seat.away", " away"))
        elif m.phase == "commit" and s.committed:
            out.append(("class:mark.ok", " ✓"))
        elif m.phase == "commit":
            out.append(("class:dim", " …"))
        out.append(("", "\n"))
    if m.table is not None and m.table.spectators:
        out.append(("class:dim", f"\n  {m.table.spectators} watching\n"))
    if m.result is not None:
        out.append(("", "\n"))
        for seat in sorted(range(len(m.result.places)), key=lambda s: m.result.places[s]):  # type: ignore[union-attr]
            place = m.result.places[seat]
            style = "class:winner" if place == 1 else ""
            out.append((style, f"  {place}. {m.name_of(seat)} {m.display_total(seat)}\n"))
    return out


# ---------------------------------------------------------------- prompt
def prompt_line(c: Controller, now: float) -> Frags:
    """The decision bar: what you must do now, or whom the table waits for, and the clock."""
    m = c.model
    clock = clock_text(m.seconds_left(now), hot=m.hurry)
    d = m.decision
    if d is not None:
        if d.kind == COMMIT and d.committed is None:
            text = "Your move: choose a card with ←/→ and press Enter"
        elif d.kind == COMMIT:
            waiting = [s.name or "" for s in m.seats if not s.empty and not s.committed]
            tail = f" · waiting for {', '.join(waiting)}" if waiting else ""
            text = f"Committed {d.committed} · Enter on another card replaces it{tail}"
        elif d.kind == ROW:
            costs = "  ".join(f"{r + 1}:{m.row_cost(r)}" for r in sorted(d.rows))
            text = (f"Your {d.card} fits no row: press 1–4 to take one "
                    f"(bullheads {costs})")
        elif d.kind == TIE:
            options = " or ".join(place_text(p, m.rows) for p in d.places)
            text = f"Your {d.card} may go {options}: ←/→ then Enter"
        else:
            text = "Your draft pick: ←/→ ↑/↓ through the pool, Enter to take the card"
        style = "class:prompt.mine" if not (d.kind == COMMIT and d.committed) else \
            "class:prompt.done"
        return [clock, (style, f" {text} ")]
    return [clock, ("class:prompt.other", f" {_waiting_text(c)} ")]


def _waiting_text(c: Controller) -> str:
    m = c.model
    p = m.pending
    if p is not None and not p.mine:
        who = m.name_of(p.seat)
        what = {ROW: f"to choose a row for {p.card}", TIE: f"to place {p.card}",
                DRAFT: "to pick a card"}.get(p.kind, "to decide")
        return f"Waiting for {who} {what}…"
    if m.table is None:
        return "Lobby: choose a table with ↑/↓ and press Enter to join, or n for a new one"
    if m.watching:
        if m.table.status == "waiting":
            return "You are watching. Enter: take a free seat · L: back to the lobby"
        if m.phase == "over" or m.table.status == "over":
            return "You are watching: the game is over. L: back to the lobby"
        return "You are watching this game."
    if m.phase == "waiting":
        seats = m.table.seats
        if m.is_host:
            if None in seats:
                return f"{sum(s is None for s in seats)} empty seat(s): a adds a bot, " \
                       "or wait for friends · s starts when full"
            return "Everyone is seated: press s to start"
        return "Waiting for the host to start the game…"
    if m.phase == "over":
        if m.is_host:
            return "Game over. s: play again with the same seats · L: leave"
        return "Game over. Waiting for the host (L: leave)"
    if m.phase == "commit":
        return "Waiting for the next turn…" if not m.hand else "Waiting…"
    if m.phase == "resolve":
        return "Placing the cards…"
    if m.phase == "scored":
        return "Round over: the next round starts soon…"
    if m.phase in ("deal", "draft"):
        return "Dealing…" if m.phase == "deal" else "Draft in progress…"
    return ""


# ---------------------------------------------------------------- hand
def hand_line(c: Controller) -> Frags:
    m, ui = c.model, c.ui
    if m.watching:
        return [("class:dim", "  (spectator: no hand)")]
    label = "  Picks" if m.phase == "draft" else "  Hand "
    if not m.hand:
        if m.phase == "draft":
            return [("class:panel.head", label), ("class:dim", "  none yet")]
        return [("class:dim", "  (no cards)" if m.in_game else "")]
    d = m.decision
    pick = d is not None and d.kind == COMMIT
    cursor = max(0, min(ui.card_cursor, len(m.hand) - 1))
    out: Frags = [("class:panel.head", label)]
    for i, card in enumerate(m.hand):
        extra = []
        if pick and i == cursor:
            extra.append("class:card.cursor")
        if card == m.my_commit:
            extra.append("class:card.committed")
        out.append(("", " "))
        out.append(card_chip(card, " ".join(extra)))
        out.append(("class:mark.ok", "✔" if card == m.my_commit else " "))
    out.append(("class:dim", f"  {len(m.hand)} card{'s' if len(m.hand) != 1 else ''}"))
    return out


# ---------------------------------------------------------------- log
def log_lines(c: Controller) -> Frags:
    m = c.model
    lines = m.log[: len(m.log) - c.ui.log_back] if c.ui.log_back else m.log
    out: Frags = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out.append((f"class:log.{line.kind}", " " + line.text))
    return out


# ---------------------------------------------------------------- lobby
def lobby_panel(c: Controller) -> Frags:
    m, ui = c.model, c.ui
    out: Frags = [("class:panel.head",
                   f"  {'Table':<6} {'Name':<20} {'Seats':<6} {'Status':<8} Game · players\n")]
    if not m.tables:
        out.append(("class:dim", "\n  No tables yet. Press n to create one.\n"))
        return out
    cursor = max(0, min(ui.table_cursor, len(m.tables) - 1))
    for i, t in enumerate(m.tables):
        taken = sum(s is not None for s in t.seats)
        o = t.options
        variants = [name for name, on in (("tactic", o.tactic_deck), ("draft", o.draft),
                                          ("pro", o.professional), ("countdown", o.countdown))
                    if on]
        end = f"{o.point_limit} pts" if o.point_limit else ""
        if o.rounds:
            end += (" or " if end else "") + f"{o.rounds} rounds"
        variants.append(end)
        style = "class:lobby.selected" if i == cursor else ""
        status_style = {"waiting": "class:lobby.waiting", "playing": "class:lobby.playing"}
        seats = f"{taken}/{len(t.seats)}"
        out.append((style, f"{'▶' if i == cursor else ' '} {t.table_id:<6} {t.name[:20]:<20} "
                           f"{seats:<6} "))
        out.append((style or status_style.get(t.status, "class:dim"), f"{t.status:<8}"))
        out.append((style, " " + ", ".join(variants)))
        if t.spectators:
            out.append((style or "class:dim", f" · {t.spectators} watching"))
        names = ", ".join(s.name for s in t.seats if s is not None)
        if names:
            out.append((style or "class:dim", f" · {names}"))
        out.append(("", "\n"))
    return out


def form_panel(c: Controller) -> Frags:
    form = c.ui.form
    if form is None:
        return []
    out: Frags = [("class:panel.head", "  New table — ↑/↓ choose, ←/→ change, Enter create, "
                                        "Esc cancel\n\n")]
    for i, f in enumerate(FORM_FIELDS):
        value = form.values[f.key]
        if value is None:
            shown = "off"
        elif isinstance(value, bool):
            shown = "yes" if value else "no"
        elif isinstance(value, float):
            shown = f"{value:g}"
        else:
            shown = str(value)
        sel = i == form.cursor
        style = "class:form.selected" if sel else ""
        out.append((style, f"{'▶' if sel else ' '} {f.label:<24}"))
        out.append(("class:form.value" if sel else "", f" ◀ {shown:^9} ▶ "))
        out.append(("class:dim", f"  {f.help}\n"))
    return out


# ---------------------------------------------------------------- status, keys, help
def status_line(c: Controller) -> Frags:
    s = c.current_status()
    if s is None:
        return [("class:status", " ")]
    return [(f"class:status.{s.kind}", f" {s.text} ")]


def keys_line(c: Controller) -> Frags:
    m, ui = c.model, c.ui
    if ui.chat_open:
        pairs: Sequence[tuple[str, str]] = (("Enter", "send"), ("Esc", "cancel"))
    elif ui.form is not None:
        pairs = (("↑/↓", "field"), ("←/→", "change"), ("Enter", "create"), ("Esc", "cancel"))
    elif m.table is None:
        pairs = (("↑/↓", "table"), ("Enter", "join"), ("w", "watch"), ("n", "new table"),
                 ("r", "refresh"), ("c", "chat"), ("?", "help"), ("q", "quit"))
    else:
        d = m.decision
        pairs = []
        if d is not None and d.kind == COMMIT:
            pairs = [("←/→", "card"), ("Enter", "commit")]
        elif d is not None and d.kind == ROW:
            pairs = [("1–4", "take row"), ("←/→ Enter", "choose")]
        elif d is not None and d.kind in (TIE, DRAFT):
            pairs = [("←/→", "choose"), ("Enter", "confirm")]
        elif m.watching and m.table.status == "waiting":
            pairs = [("Enter", "take a seat")]
        elif not m.in_game and m.is_host:
            pairs = [("a", "add bot"), ("x", "remove bot"), ("s", "start")]
        pairs += [("c", "chat"), ("L", "leave"), ("?", "help"), ("q", "quit")]
    out: Frags = []
    for key, what in pairs:
        out.append(("class:keys.key", f" {key} "))
        out.append(("class:keys", f" {what} "))
    return out


def help_text() -> Frags:
    text = """\
 Each turn everyone commits a card face down; then the cards are revealed
 and placed lowest first, each after the row ending with the closest lower
 card. The 6th card of a row takes its 5 cards; a card lower than every row
 takes a row of its player's choice. Fewest bullheads wins.
 Small numbers are bullheads: 14¹ 15² 10³ 11⁵ 55⁷. A row marked "full!"
 holds 5 cards: the next card placed there takes them.

 ←/→ or h/l  move in your hand     Enter  commit that card (Enter on
 1 2 3 4     take that row, when          another card replaces it
             your card fits none          until the reveal)
 ←/→ Enter   choose a tied place or a draft pick (↑/↓: a line of the pool)
 c or /      chat                  PgUp/PgDn   scroll the event log
 L           leave the table       q, Ctrl-C   quit (in a game: q twice)

 Lobby  ↑/↓ table · Enter join · w watch · n new table · r refresh
 Table  a add bot · x remove bot · s start (host) · Enter sit (spectator)

 Rows are numbered 1 to 4. Press ? or Esc to close this help."""
    return [("class:help", text)]
