"""Model → text: what each part of the screen shows, as prompt_toolkit style/text fragments.

Pure functions of the model, the UI state, the time and the width they may use; the
layout calls them on every redraw. Rows are shown as 1..4. Everything that matters
is readable without colour: the card being placed is in brackets ``[33¹]``, a row
being taken says so in words, the cursor in your hand is in brackets too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.utils import get_cwidth

from ..cards import MAX_ROW, bullheads, row_bullheads
from ..decisions import COMMIT, DRAFT, ROW, TIE
from nimmt import protocol as P

from ..words import place_text
from .controller import Controller
from .state import FORM_FIELDS

__all__ = [
    "card_chip", "slot", "title_bar", "rows_panel", "players_panel", "prompt_line", "hand_line",
    "log_lines", "log_title", "lobby_panel", "form_panel", "status_line", "keys_line",
    "help_text", "clock_text", "too_small", "frags_height", "MIN_COLUMNS", "MIN_LINES",
    "PLAYER_WIDTH", "ROWS_WIDTH", "pool_columns",
]

SUPERSCRIPT: Final = {1: "¹", 2: "²", 3: "³", 5: "⁵", 7: "⁷"}
#: The smallest terminal the table is laid out for (docs/CLIENT.md says so too).
MIN_COLUMNS: Final = 60
MIN_LINES: Final = 20
#: Width of one player's entry in the players panel.
PLAYER_WIDTH: Final = 30
#: Width of the rows (label, 6 card slots, cost): the rest of a line is for notes.
ROWS_WIDTH: Final = 46
Frags = StyleAndTextTuples


def card_chip(card: int, extra: str = "") -> tuple[str, str]:
    """A card as text: its number and, in superscript, its bullheads; coloured by them."""
    bh = bullheads(card)
    style = f"class:card.h{bh}" + (f" {extra}" if extra else "")
    return (style, f"{card:>3}{SUPERSCRIPT.get(bh, str(bh))}")


def slot(card: int, style: str = "", marked: bool = False, after: str = " ") -> Frags:
    """A card in a 6-wide slot: `` 22⁵ `` or, ``marked``, `` [22⁵]`` (no colour needed).
    ``after``: the last character when not marked (e.g. ``✔``)."""
    chip_style, text = card_chip(card, style)
    if not marked:
        return [(style, " "), (chip_style, text), (style if after == " " else "class:mark.ok",
                                                   after)]
    core = text.strip()
    return [("", " " * (4 - len(core))), (style, "["), (chip_style, core), (style, "]")]


def clock_text(seconds: float | None, hot: bool = False, unknown: bool = False
               ) -> tuple[str, str]:
    """The countdown; ``hot`` (the server's deadline warning came) or 5 s left: in red;
    ``unknown``: the link is down, the server's clock cannot be read."""
    if unknown:
        return ("class:clock", " ⏱ ?:?? paused ")
    if seconds is None:
        return ("", "")
    s = int(seconds + 0.999)
    style = "class:clock.hot" if hot or seconds <= 5 else "class:clock"
    return (style, f" ⏱ {s // 60}:{s % 60:02d} ")


def frags_width(frags: Frags) -> int:
    return sum(get_cwidth(t) for _, t, *_ in frags)


def frags_height(frags: Frags, width: int) -> int:
    """Lines ``frags`` take in a window ``width`` wide that wraps long lines."""
    width = max(1, width)
    text = "".join(t for _, t, *_ in frags)
    return sum(max(1, -(-get_cwidth(line) // width)) for line in text.split("\n"))


def _flow(items: Sequence[Frags], width: int, *, lead: Frags = (), sep: str = "  ",
          indent: int = 2) -> Frags:
    """``items`` one after another, a new line (indented) when the next one would not fit:
    nothing is cut off, whatever the width."""
    out: Frags = list(lead)
    x = frags_width(out)
    for i, item in enumerate(items):
        w = frags_width(item)
        if i and x + len(sep) + w > width:
            out.append(("", "\n" + " " * indent))
            x = indent
        elif i:
            out.append(("class:dim", sep))
            x += len(sep)
        out.extend(item)
        x += w
    return out


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# ---------------------------------------------------------------- title
def title_bar(c: Controller, width: int = 200) -> Frags:
    """Who you are, where, the round and turn; the table's name goes when narrow."""
    full = _title(c, with_name=True)
    return full if frags_width(full) <= width else _title(c, with_name=False)


def _title(c: Controller, with_name: bool) -> Frags:
    m = c.model
    out: Frags = [("class:title.app", " nimmt ")]
    out.append(("class:title.online", " ● ") if m.online else
               ("class:title.offline", " ○ reconnecting… "))
    name = m.name_of(m.seat) if m.seat is not None else m.my_name
    if name:
        out.append(("class:title.name", name))
    if m.table is not None:
        out.append(("class:title", f" · table {m.table.table_id}"
                    + (f" “{m.table.name}”" if m.table.name and with_name else "")))
        if m.watching:
            out.append(("class:title.watch", " · watching"))
        if m.phase == "over":
            out.append(("class:title", " · game over"))
        elif m.phase == "waiting":
            out.append(("class:title", " · waiting to start"))
        elif m.round:
            out.append(("class:title", f" · round {m.round}"))
            if m.turn:
                out.append(("class:title", f" · turn {m.turn}/10"))
    else:
        out.append(("class:title", " · lobby"))
    return out


# ---------------------------------------------------------------- rows
def rows_panel(c: Controller, width: int = 80, max_lines: int | None = None) -> Frags:
    """The four rows (the resolution step marked), then this turn's plays, the commits,
    the round's result or the final ranking."""
    m = c.model
    d = m.decision
    if m.phase == "draft" or (d is not None and d.kind == DRAFT):
        return _draft_pool(c, width, max_lines)
    if m.phase == "over" and m.result is not None:
        return _ranking(c, width)
    if not m.rows:
        return [("class:dim", "  The rows are dealt when the round begins.\n")]
    out: Frags = []
    for i in range(len(m.rows)):
        out.extend(_row_line(c, i, width))
        out.append(("", "\n"))
    out.extend(_table_lines(c, width))
    return out


def _row_line(c: Controller, i: int, width: int) -> Frags:
    m, ui = c.model, c.ui
    d = m.decision
    step = m.step
    choosing_row = d is not None and d.kind == ROW
    tie_places = d.places if d is not None and d.kind == TIE else ()
    tie_at = tie_places[ui.tie_cursor % len(tie_places)] if tie_places else None
    legal = choosing_row and d is not None and i in d.rows
    cursor = legal and i == ui.row_cursor
    taking = step is not None and step.row == i and bool(step.taken)

    out: Frags = []
    label_style = "class:row.choose" if cursor else ("class:row.legal" if legal
                                                     else "class:row.label")
    out.append(("class:row.cursor" if cursor else "", "▶" if cursor else " "))
    out.append((label_style, f"[{i + 1}]" if legal else f" {i + 1} "))
    out.append(("class:dim", "│"))

    # (card, style, bracketed): what the row shows in its slots
    slots: list[tuple[int, str, bool]] = []
    if taking and step is not None:
        old = [(card, "class:row.taken", False) for card in step.taken]
        new = [(step.card, "class:card.placed", True)] if step.card is not None else []
        # a card lower than every row goes before the row it takes; a sixth card after it
        slots = new + old if step.card is not None and step.card < step.taken[0] else old + new
        cost = step.bullheads
    else:
        row = m.rows[i]
        for card in row:
            placed = step is not None and step.row == i and step.card == card
            slots.append((card, "class:card.placed" if placed else "", placed))
        if tie_at is not None and tie_at.row == i and d is not None and d.card is not None:
            ghost = (d.card, "class:tie.cursor", True)
            slots.insert(0, ghost) if tie_at.end == "left" else slots.append(ghost)
        cost = row_bullheads(row)
    for card, style, bracketed in slots:
        out.extend(slot(card, style, bracketed))
    for _ in range(len(slots), MAX_ROW + 1):
        out.append(("class:row.empty", "   ·  "))
    out.append(("class:dim", "│"))
    out.append((_heat_style(cost), f"{cost:>3}"))
    room = width - frags_width(out) - 2
    if taking and step is not None:
        who = m.words.subject(step.seat)
        verb = m.words.verb(step.seat, "takes", "take")
        note = f"◀ {who} {verb} it: +{step.bullheads}"
        if get_cwidth(note) > room:
            note = f"◀ {who[:max(3, room - 8)]} +{step.bullheads}"
        out.append(("class:row.takenote", " " + note))
    elif tie_at is not None and tie_at.row == i and len(m.rows[i]) >= MAX_ROW and room >= 8:
        note = f" ◀ here you take it: +{cost}"
        out.append(("class:row.takenote", note if len(note) <= room else f" ◀ +{cost}"))
    elif len(m.rows[i]) >= MAX_ROW and room >= 6:
        out.append(("class:row.full", " full!" if room < 26 else
                    " full! the next card here takes it"))
    elif cursor and d is not None and room >= 23:
        out.append(("class:row.cursor", " ◀ Enter takes this row"))
    elif cursor and d is not None and room >= 8:
        out.append(("class:row.cursor", " ◀ Enter"))
    return out


def _heat_style(cost: int) -> str:
    if cost >= 10:
        return "class:cost.hot"
    if cost >= 5:
        return "class:cost.warm"
    return "class:cost"


def _table_lines(c: Controller, width: int) -> Frags:
    """Below the rows: this turn's plays, the commits so far, or the round's result."""
    m = c.model
    out: Frags = []
    if m.phase == "resolve" and m.revealed:
        items: list[Frags] = []
        for seat, card, state in m.plays:
            name = m.name_of(seat) if seat != m.seat else "you"
            who = ("class:seat.me" if seat == m.seat else "", f" {name}")
            chip = card_chip(card, "class:dim" if state == "placed" else "")
            chip = (chip[0], chip[1].strip())
            if state == "now":
                items.append([("class:card.placed", "["), (chip[0] + " class:card.placed", chip[1]),
                              (who[0] + " class:card.placed", who[1]),
                              ("class:card.placed", "]")])
            elif state == "placed":
                items.append([chip, (who[0] or "class:dim", who[1]), ("class:mark.ok", " ✓")])
            else:
                items.append([chip, who])
        out.extend(_flow(items, width, lead=[("class:panel.head", "  Plays: ")], sep=" · "))
    elif _round_moment(c):
        out.extend(_round_result(c, width))
    elif m.phase == "commit":
        total = sum(1 for s in m.seats if not s.empty)
        out.append(("class:dim", f"  Cards chosen: {len(m.committed)} of {total}"))
    return out


def _round_moment(c: Controller) -> bool:
    """The end-of-round moment: from the round's score until your first decision of
    the next round is made (your first commit, or the first turn's reveal)."""
    m = c.model
    r = m.last_round
    if r is None:
        return False
    if m.phase == "scored":
        return r.round == m.round
    if r.round != m.round - 1:
        return False
    if m.phase in ("deal", "draft"):
        return True
    return m.phase == "commit" and m.turn == 1 and m.my_commit is None

def _round_result(c: Controller, width: int) -> Frags:
    """The end-of-round moment: who took what this round, the totals, best first."""
    m = c.model
    r = m.last_round
    assert r is not None
    countdown = bool(m.options and m.options.countdown)
    order = sorted(range(len(r.totals)), key=lambda s: (r.totals[s], s))
    items: list[Frags] = []
    for seat in order:
        if m.table is not None and seat < len(m.table.seats) and m.table.seats[seat] is None:
            continue
        name = "you" if seat == m.seat else m.name_of(seat)
        shown = m.display_total(seat)
        items.append([("class:seat.me" if seat == m.seat else "", name),
                      ("class:seat.pen" if r.penalties[seat] else "class:dim",
                       f" +{r.penalties[seat]}"), ("", f" → {shown}")])
    rule = "points left, more is better" if countdown else "fewer is better"
    lead: Frags = [("class:log.round", f"  Round {r.round} over ({rule}): ")]
    return _flow(items, width, lead=lead, sep=" · ")


def _ranking(c: Controller, width: int) -> Frags:
    m = c.model
    res = m.result
    assert res is not None
    countdown = bool(m.options and m.options.countdown)
    unit = "points left" if countdown else "bullheads"
    out: Frags = [("class:log.round", f"  Game over — final ranking ({unit}):\n")]
    order = sorted(range(len(res.places)), key=lambda s: (res.places[s], s))
    cols = max(1, min(2, width // 30)) if len(order) > 5 else 1
    per_col = -(-len(order) // cols)
    cells: list[list[tuple[str, str]]] = [[] for _ in range(per_col)]
    for k, seat in enumerate(order):
        place = res.places[seat]
        name = ("you" if seat == m.seat else m.name_of(seat))[:16]
        mark = "★" if place == 1 else " "
        text = f"  {mark}{place:>2}. {name:<16} {m.display_total(seat):>4}"
        line = k % per_col
        cells[line].append(("class:winner" if place == 1 else
                            ("class:seat.me" if seat == m.seat else ""), f"{text:<30}"))
    for line in cells:
        out.extend(line)
        out.append(("", "\n"))
    return out


def pool_columns(width: int) -> int:
    """Cards per line of the draft pool in a panel ``width`` wide (6 per card)."""
    return max(4, min(16, (width - 2) // 6))


def _draft_pool(c: Controller, width: int, max_lines: int | None) -> Frags:
    """The open pool, ``pool_columns(width)`` cards a line; if it has more lines than
    ``max_lines`` allows, only those around the cursor, with a note of the rest."""
    m, ui = c.model, c.ui
    d = m.decision
    pool = m.draft_pool
    cols = pool_columns(width)
    mine = d is not None and d.kind == DRAFT and pool
    cursor = max(0, min(ui.pick_cursor, len(pool) - 1)) if mine else -1
    lines = [pool[i:i + cols] for i in range(0, len(pool), cols)]
    room = len(lines) if max_lines is None else max(1, max_lines - 2)
    first = 0
    if len(lines) > room:
        at = cursor // cols if cursor >= 0 else 0
        first = max(0, min(at - room // 2, len(lines) - room))
    shown = range(first, min(len(lines), first + room))
    head = f"  Draft pool: {len(pool)} cards"
    if len(shown) < len(lines):
        head += f" (lines {first + 1}–{shown[-1] + 1} of {len(lines)}: ↑/↓ scroll)"
    out: Frags = [("class:panel.head", head)]
    for k in shown:
        out.append(("", "\n "))
        for j, card in enumerate(lines[k]):
            sel = k * cols + j == cursor
            out.extend(slot(card, "class:card.cursor" if sel else "", sel))
    if m.draft_picks:
        seat, card = m.draft_picks[-1]
        out.append(("class:dim", f"\n  Last pick: {m.name_of(seat)} took {card}"))
    return out


# ---------------------------------------------------------------- players
def players_panel(c: Controller, width: int = 40) -> Frags:
    """Seats with totals and this round's bullheads; during the resolution each
    player's revealed card beside the name. Several columns when there is room."""
    m = c.model
    seats = m.seats
    cols = max(1, width // PLAYER_WIDTH)
    per_col = -(-len(seats) // cols) if seats else 0
    countdown = bool(m.options and m.options.countdown)
    out: Frags = []
    if cols == 1:
        head = "left" if countdown else "total"
        out.append(("class:panel.head", f"  {'Players':<12}{'card':>6}{head:>6}{'round':>6}\n"))
    cards = {seat: (card, state) for seat, card, state in m.plays}
    entries = [_player_entry(c, s, cards, 6 if cols == 1 else 4) for s in seats]
    for line in range(per_col):
        for col in range(cols):
            k = col * per_col + line
            if k >= len(entries):
                continue
            entry = entries[k]
            out.extend(entry)
            if col < cols - 1 and k + per_col < len(entries):
                out.append(("", " " * max(0, PLAYER_WIDTH - frags_width(entry))))
        out.append(("", "\n"))
    if m.table is not None and m.table.spectators:
        out.append(("class:dim", f"  {m.table.spectators} watching\n"))
    if out and out[-1][1].endswith("\n"):
        out[-1] = (out[-1][0], out[-1][1][:-1])
    return out


def _player_entry(c: Controller, s: object, cards: dict[int, tuple[int, str]],
                  number_width: int = 4) -> Frags:
    from ..model import SeatView  # local: only for the type
    assert isinstance(s, SeatView)
    m = c.model
    if s.empty:
        return [("class:dim", f"  {s.index + 1:>2} (empty seat)")]
    style = "class:seat.me" if s.me else ("class:seat.away" if not s.connected else "")
    out: Frags = [("class:seat.me", "▶ " if s.me else "  ")]
    out.append((style, f"{(s.name or '')[:10]:<10}"))
    tag = ("★" if s.host else " ") + ("⚙" if s.kind == "bot" else " ")
    out.append(("class:seat.tag", tag))
    played = cards.get(s.index)
    if played is not None:
        card, state = played
        out.extend(slot(card, "class:card.placed" if state == "now" else
                        ("class:dim" if state == "placed" else ""), state == "now"))
    else:
        out.append(("", "      "))
    n = number_width
    out.append(("", f"{m.display_total(s.index):>{n}}"))
    pen = f"+{s.penalties}" if s.penalties else "·"
    out.append(("class:seat.pen" if s.penalties else "class:dim", f"{pen:>{n}}"))
    if s.deciding:
        out.append(("class:mark.wait", " ⌛"))
    elif not s.connected:
        out.append(("class:seat.away", " away"))
    elif m.phase == "commit" and s.committed:
        out.append(("class:mark.ok", " ✓"))
    elif m.phase == "commit":
        out.append(("class:dim", " …"))
    return out


# ---------------------------------------------------------------- prompt
def prompt_line(c: Controller, now: float, width: int = 200) -> Frags:
    """The decision bar: what you must do now, or whom the table waits for, and the clock."""
    m = c.model
    clock = clock_text(m.seconds_left(now), hot=m.hurry, unknown=m.clock_unknown)
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
            text = f"Your {d.card} fits no row: press 1–4 to take one"
            if width >= 90:
                text += f" (bullheads {costs})"
        elif d.kind == TIE:
            options = " or ".join(_tie_place_text(c, p) for p in d.places)
            text = f"Your {d.card} may go {options}: ←/→ then Enter"
        else:
            text = "Your draft pick: ←/→ ↑/↓ choose, Enter takes the card"
        style = "class:prompt.mine" if not (d.kind == COMMIT and d.committed) else \
            "class:prompt.done"
        return [clock, (style, f" {text} ")]
    return [clock, ("class:prompt.other", f" {_waiting_text(c)} ")]


def _tie_place_text(c: Controller, place: P.Place) -> str:
    """A tied place and what it costs: the sixth card of a row takes its five."""
    m = c.model
    row = m.rows[place.row] if place.row < len(m.rows) else []
    cost = f"takes {row_bullheads(row)} bullheads" if len(row) >= MAX_ROW else "free"
    return f"{place_text(place, m.rows)} ({cost})"


def _waiting_text(c: Controller) -> str:
    m = c.model
    if not m.online and m.table is not None:
        return "Connection lost: reconnecting… (your seat and cards are kept)"
    p = m.pending
    if p is not None and not p.mine:
        who = m.name_of(p.seat)
        what = {ROW: f"to choose a row for {p.card}", TIE: f"to place {p.card}",
                DRAFT: "to pick a card"}.get(p.kind, "to decide")
        return f"Waiting for {who} {what}…"
    if m.table is None:
        return "Lobby: ↑/↓ choose a table · Enter join · n new table"
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
def hand_line(c: Controller, width: int = 80) -> Frags:
    """Your hand: the card under the cursor in brackets, your commit marked ✔."""
    m, ui = c.model, c.ui
    if m.watching:
        return [("class:dim", "  (spectator: no hand)")]
    label = "Picks " if m.phase == "draft" else "Hand "
    if not m.hand:
        if m.phase == "draft":
            return [("class:panel.head", " " + label), ("class:dim", " none yet")]
        return [("class:dim", "  (no cards)" if m.in_game else "")]
    d = m.decision
    pick = d is not None and d.kind == COMMIT
    cursor = max(0, min(ui.card_cursor, len(m.hand) - 1))
    chips: Frags = []
    for i, card in enumerate(m.hand):
        sel = pick and i == cursor
        extra = []
        if sel:
            extra.append("class:card.cursor")
        if card == m.my_commit:
            extra.append("class:card.committed")
        chips.extend(slot(card, " ".join(extra), sel,
                          after="✔" if card == m.my_commit else " "))
    count = f"  {_plural(len(m.hand), 'card')}"
    used = frags_width(chips)
    out: Frags = []
    if used + len(label) + 1 <= width:
        out.append(("class:panel.head", " " + label))
        used += len(label) + 1
    out.extend(chips)
    if used + len(count) <= width:
        out.append(("class:dim", count))
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


def log_title(c: Controller, width: int = 80) -> Frags:
    """The rule above the event log; says when PgUp has scrolled it back."""
    back = c.ui.log_back
    head = " Events "
    if back:
        head += f"— ↑ {back} older lines shown back (PgDn: newer) "
    return [("class:frame.border", "─"), ("class:frame.label" if not back else "class:log.warn",
                                          head),
            ("class:frame.border", "─" * max(0, width - 1 - get_cwidth(head)))]


# ---------------------------------------------------------------- lobby
def lobby_panel(c: Controller) -> Frags:
    m, ui = c.model, c.ui
    id_width = max([5] + [len(t.table_id) for t in m.tables])  # ids grow: kqzd1 ... kqzd1234
    out: Frags = [("class:panel.head",
                   f"  {'Table':<{id_width}} {'Name':<20} {'Seats':<6} {'Status':<8} "
                   "Game · players\n")]
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
        out.append((style, f"{'▶' if i == cursor else ' '} {t.table_id:<{id_width}} {t.name[:20]:<20} "
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
    out: Frags = []
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
        out.append(("class:dim", f"  {f.help}" + ("\n" if i < len(FORM_FIELDS) - 1 else "")))
    return out


# ---------------------------------------------------------------- status, keys, help
def status_line(c: Controller) -> Frags:
    """The last confirmation or refusal ([] when there is none: the line goes away)."""
    s = c.current_status()
    if s is None:
        return []
    return [(f"class:status.{s.kind}", f" {s.text} ")]


#: Key hints left out first when the line is too narrow ("? help" and "q quit" stay).
_OPTIONAL_KEYS: Final = ("chat", "refresh", "leave", "bot level", "remove bot", "watch",
                         "cancel")


def keys_line(c: Controller, width: int = 200) -> Frags:
    """The key hints, on one line: the less needed ones go when it is narrow."""
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
            pairs = [("a", f"add {c.bot_level} bot"), ("b", "bot level"), ("x", "remove bot"),
                     ("s", "start")]
        pairs += [("c", "chat"), ("L", "leave"), ("?", "help"), ("q", "quit")]
    pairs = list(pairs)
    for what in _OPTIONAL_KEYS:
        if sum(len(k) + len(w) + 4 for k, w in pairs) <= width:
            break
        pairs = [(k, w) for k, w in pairs if w != what]
    out: Frags = []
    for key, what in pairs:
        out.append(("class:keys.key", f" {key} "))
        out.append(("class:keys", f" {what} "))
    return out


HELP: Final = """\
 Each turn everyone chooses a card face down; then the
 cards are shown and placed lowest first, each after the
 row ending with the closest lower card. The 6th card of
 a row takes its 5 cards; a card lower than every row
 takes a row of its player's choice. Fewest bullheads win.
 Bullheads are the small numbers: 14¹ 15² 10³ 11⁵ 55⁷.

 ←/→  h/l   move in your hand   Enter  play that card
 1–4        take that row (when your card fits none)
 ←/→ Enter  a tied place, a draft pick (↑/↓: a line)
 c  /       chat                PgUp/PgDn  event log
 L          leave the table     q  Ctrl-C  quit
 Lobby:  ↑/↓ table · Enter join · w watch · n new
         table · r refresh
 Table:  a add bot · b bot level (easy, normal, hard)
         x remove bot · s start (host)

 ? or Esc closes this help."""


def help_text() -> Frags:
    return [("class:help", HELP)]


def too_small(c: Controller, columns: int, lines: int, missing: int = 0) -> Frags:
    """The whole screen when the terminal cannot show the table (``missing``: lines
    this table lacks at this size, when the terminal is above the minimum)."""
    if columns >= MIN_COLUMNS and lines >= MIN_LINES and missing > 0:
        text = (f" This table needs {_plural(missing, 'more line')} than this "
                f"{columns}×{lines} terminal has. ")
    else:
        text = (f" This terminal is {columns}×{lines}: nimmt needs at least "
                f"{MIN_COLUMNS}×{MIN_LINES}. ")
    return [("class:status.error", text),
            ("", "\n\n Make the window larger to go on playing (nothing is\n"
                 " played meanwhile; the autopilot plays at the deadline).\n\n q: quit\n\n"),
            *status_line(c)]
