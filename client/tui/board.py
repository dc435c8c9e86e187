"""Model → text for the board: the four rows (with the resolution step being
shown), the round's result and the ranking between rounds, the Draft's pool, and
the players with their scores, commits and plays."""

from __future__ import annotations

from typing import Final

from prompt_toolkit.utils import get_cwidth

from ..cards import MAX_ROW, row_bullheads
from ..decisions import DRAFT, ROW, TIE
from ..leaderboard import rating_text
from .controller import Controller
from .frags import PLAYER_WIDTH, Frags, card_chip, flow, frags_width, slot

__all__ = ["rows_panel", "players_panel", "pool_columns"]


# ---------------------------------------------------------------- rows
def rows_panel(c: Controller, width: int = 80, max_lines: int | None = None,
               big: bool = False) -> Frags:
    """The four rows (the resolution step marked), then this turn's plays, the commits,
    the round's result or the final ranking. ``big``: cards drawn as boxes, three
    lines a row (large terminals)."""
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
        out.extend(_row_line(c, i, width, big))
        out.append(("", "\n"))
    out.extend(_table_lines(c, width))
    return out


def _row_line(c: Controller, i: int, width: int, big: bool = False) -> Frags:
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
    out.append(("class:dim", " " if big else "│"))

    # (card, style, bracketed): what the row shows in its slots
    slots: list[tuple[int, str, bool]] = []
    low = False
    if taking and step is not None:
        old = [(card, "class:row.taken", False) for card in step.taken]
        # a sixth card is drawn after the row it takes; a card lower than every row is
        # not drawn in it (it was never part of it): the note names it
        low = step.card is not None and step.card < step.taken[0]
        new = [(step.card, "class:card.placed", True)] if step.card is not None and not low \
            else []
        slots = old + new
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
    lead = frags_width(out)
    if big:
        top, bottom = _big_slots(slots, out)
    else:
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
        if low and step.card is not None:
            note = f"◀ {who} {verb} it with [{step.card}]: +{step.bullheads}"
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
    elif cursor and d is not None and room >= 17:  # (players aside, 101-106 columns)
        out.append(("class:row.cursor", " ◀ Enter takes it"))
    elif cursor and d is not None and room >= 14:
        out.append(("class:row.cursor", " ◀ Enter: take"))
    elif cursor and d is not None and room >= 8:
        out.append(("class:row.cursor", " ◀ Enter"))
    if big:
        return [("", " " * lead), *top, ("", "\n"), *out, ("", "\n"), ("", " " * lead),
                *bottom]
    return out


def _big_slots(slots: list[tuple[int, str, bool]], middle: Frags) -> tuple[Frags, Frags]:
    """Cards as boxes, 7 columns each: the middle line goes on ``middle``; returns the
    top and bottom lines. A marked card (placed, the cursor) has a heavy box."""
    top: Frags = []
    bottom: Frags = []
    for card, style, marked in slots:
        (h, v, corners) = ("━", "┃", "┏┓┗┛") if marked else ("─", "│", "┌┐└┘")
        box = style or "class:card.box"
        top.append((box, f"{corners[0]}{h * 4}{corners[1]} "))
        middle.extend([(box, v), card_chip(card, style), (box, v + " ")])
        bottom.append((box, f"{corners[2]}{h * 4}{corners[3]} "))
    for _ in range(len(slots), MAX_ROW + 1):
        top.append(("", " " * 7))
        middle.append(("class:row.empty", "   ·   "))
        bottom.append(("", " " * 7))
    return top, bottom


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
        out.extend(flow(items, width, lead=[("class:panel.head", "  Plays: ")], sep=" · "))
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
    return flow(items, width, lead=lead, sep=" · ")


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
        won = " won" if place == 1 else ""  # (★ is the host, everywhere)
        text = f"  {place:>2}. {name[:14]:<14} {m.display_total(seat):>4}{won}"
        line = k % per_col
        cells[line].append(("class:winner" if place == 1 else
                            ("class:seat.me" if seat == m.seat else ""), f"{text:<30}"))
    for cell_line in cells:
        out.extend(cell_line)
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
    elif seats:  # each column headed, in the columns' narrower numbers
        head = f"  {'Players':<14}{'card':>5}{'left' if countdown else 'tot':>5}{'rnd':>4}"
        shown = min(cols, len(seats))
        out.append(("class:panel.head", "".join(
            f"{head:<{PLAYER_WIDTH}}" if k < shown - 1 else head for k in range(shown))
            + "\n"))
    cards = {seat: (card, state) for seat, card, state in m.plays}
    numbers = 6 if cols == 1 else 4
    entries = [_player_entry(c, s, cards, numbers) for s in seats]
    for line in range(per_col):
        x = 0
        for col in range(cols):
            k = col * per_col + line
            if k >= len(entries):
                continue
            entry = entries[k]
            if drawn_width(entry) > width - x:  # the line's end: its name gives way
                entry = _player_entry(c, seats[k], cards, numbers, room=width - x)
            out.extend(entry)
            x += drawn_width(entry)
            if col < cols - 1 and k + per_col < len(entries):
                pad = max(0, PLAYER_WIDTH - frags_width(entry))
                out.append(("", " " * pad))
                x += pad
        out.append(("", "\n"))
    banks = _banks_line(c, width)
    if banks:
        out.append(("class:dim", banks + "\n"))
    if m.table is not None and m.table.spectators:
        out.append(("class:dim", f"  {m.table.spectators} watching\n"))
    if out and out[-1][1].endswith("\n"):
        out[-1] = (out[-1][0], out[-1][1][:-1])
    return out


def _banks_line(c: Controller, width: int) -> str:
    """The other players' time banks left ("  bank Bob 0:25 · Dan 0:05"), from the
    game's start, on a table with a time bank; as many as ``width`` holds."""
    m = c.model
    if (c.replay is not None or m.options is None or m.options.time_bank <= 0
            or not m.in_game or m.table is None):
        return ""
    now = c.clock()
    text = "  bank"
    for i, seat in enumerate(m.table.seats):
        if seat is None or seat.kind == "bot" or i == m.seat or i >= len(m.banks):
            continue  # (built-in bots have no bank: they decide at once)
        extra = m.extra_left(i, now)
        left = int((m.banks[i] if extra is None else extra) + 0.999)
        part = f"{' ·' if text != '  bank' else ''} {seat.name[:10]} {left // 60}:{left % 60:02d}"
        if get_cwidth(text + part) > width:
            break
        text += part
    return "" if text == "  bank" else text


#: Symbols that get_cwidth counts one cell wide and some terminals draw two cells wide
#: (an emoji font): a player's line that holds one leaves room for the second cell.
MAYBE_WIDE: Final = "⚙★"


def drawn_width(frags: Frags) -> int:
    """The cells ``frags`` may take on a terminal: wide characters count two
    (``get_cwidth``), and so do the symbols some terminals draw wide (``MAYBE_WIDE``)."""
    return frags_width(frags) + sum(t.count(ch) for _, t, *_ in frags for ch in MAYBE_WIDE)


def _player_entry(c: Controller, s: object, cards: dict[int, tuple[int, str]],
                  number_width: int = 4, room: int | None = None) -> Frags:
    """A player's line; ``room``: the cells it may take at most (its name is cut to
    fit them, never the mark at its end such as " away")."""
    from ..model import SeatView  # local: only for the type
    assert isinstance(s, SeatView)
    m = c.model
    if s.empty:
        return [("class:dim", f"  {s.index + 1:>2} (empty seat)")]
    style = "class:seat.me" if s.me else ("class:seat.away" if not s.connected else "")
    lead: Frags = [("class:seat.me", "▶ " if s.me else "  ")]
    out: Frags = []
    rated = m.options is not None and m.options.rated  # (a casual game changes none)
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
    extra = m.extra_left(s.index, c.clock()) if not s.me else None
    if extra is not None:  # on its extra time (time bank): how much it has left
        n = int(extra + 0.999)
        left = (f"{n}s" if n < 100 else f"{n // 60}m") if number_width > 4 else "⏱"
        out.append(("class:clock.hot", f" {left}"))
    elif s.deciding:
        out.append(("class:mark.wait", " ⌛"))
    elif not s.connected:
        out.append(("class:seat.away", " away"))
    elif m.phase == "commit" and s.committed:
        out.append(("class:mark.ok", " ✓"))
    elif m.phase == "commit":
        out.append(("class:dim", " …"))
    name_width = NAME_WIDTH
    if room is not None:
        name_width = max(1, min(NAME_WIDTH, room - drawn_width(lead) - drawn_width(out)))
    return lead + _name_cell(s.name or "", s.rating if rated else None, style,
                             name_width) + out


#: the cells of a player's name in its line (a longer name is cut)
NAME_WIDTH: Final = 10


def _cut(text: str, width: int) -> str:
    """``text``'s beginning that takes at most ``width`` cells (wide characters: two)."""
    out, used = "", 0
    for ch in text:
        used += get_cwidth(ch)
        if used > width:
            break
        out += ch
    return out


def _name_cell(name: str, rating: float | None, style: str, width: int = NAME_WIDTH) -> Frags:
    """The name in ``width`` cells (a wide character takes two); a rated player's
    rating beside it (the name is cut to make room: "Barth… 14.3 "), a space before
    the host's star."""
    if rating is None:
        name = _cut(name, width)
        return [(style, name + " " * (width - get_cwidth(name)))]
    shown = rating_text(rating) + " "  # (apart from the host's ★ that follows)
    room = max(1, width - len(shown) - 1)
    if get_cwidth(name) > room:
        name = _cut(name, room - 1) + "…"
    pad = max(0, width - get_cwidth(name) - len(shown))
    return [(style, name), ("class:dim", f"{' ' * pad}{shown}")]
