"""Model → text: what each part of the screen shows, as prompt_toolkit style/text
fragments (the board is in :mod:`.board`, the pieces it is drawn with in :mod:`.frags`).

Pure functions of the model, the UI state, the time and the width they may use; the
layout calls them on every redraw. Rows are shown as 1..4. Everything that matters
is readable without colour: the card being placed is in brackets ``[33¹]``, a row
being taken says so in words, the cursor in your hand is in brackets too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from prompt_toolkit.utils import get_cwidth

from nimmt import protocol as P

from ..cards import MAX_ROW, row_bullheads
from ..decisions import COMMIT, DRAFT, ROW, TIE
from ..leaderboard import rating_text
from ..preview import preview_text
from ..words import place_text, queue_words, rules_words
from .analysis_view import ANALYSIS_KEY
from .board import players_panel, pool_columns, rows_panel
from .controller import Controller
from .frags import (
    MIN_COLUMNS,
    MIN_LINES,
    PLAYER_WIDTH,
    ROWS_WIDTH,
    Frags,
    card_chip,
    clock_text,
    frags_height,
    frags_width,
    plural,
    slot,
)
from ..model_state import UNTIMED
from .sheets import wrap
from .state import FORM_FIELDS

__all__ = [
    "card_chip", "slot", "title_bar", "rows_panel", "players_panel", "prompt_line", "hand_line",
    "log_lines", "log_title", "lobby_panel", "form_panel", "status_line", "keys_line",
    "clock_text", "too_small", "frags_height", "MIN_COLUMNS", "MIN_LINES",
    "PLAYER_WIDTH", "ROWS_WIDTH", "pool_columns",
]


# ---------------------------------------------------------------- title
def title_bar(c: Controller, width: int = 200) -> Frags:
    """Who you are, where, the rules in force, the round and turn; when narrow the
    table's name goes first, then the words are shortened, then "coach"."""
    for with_name, short, coach in ((True, False, True), (False, False, True),
                                    (False, True, True), (False, True, False)):
        title = _title(c, with_name, short, coach)
        if frags_width(title) <= width:
            break
    return title


def _title(c: Controller, with_name: bool, short: bool = False, coach: bool = True) -> Frags:
    m = c.model
    out: Frags = [("class:title.app", " nimmt ")]
    if c.replay is not None and m.table is not None:
        out.append(("class:title.watch", " replay "))
        label = f"“{m.table.name}”" if m.table.name and with_name else m.table.table_id
        out.append(("class:title", ("" if short else "of ") + label))
        if m.seat is not None:  # (--seat: as that player saw it, its hand shown)
            out.append(("class:title.name", f" · {'' if short else 'as '}{m.name_of(m.seat)}"))
    else:
        out.append(("class:title.online", " ● ") if m.online else
                   ("class:title.offline", " ○ reconnecting… "))
        name = m.name_of(m.seat) if m.seat is not None else m.my_name
        if name:
            out.append(("class:title.name", name))
    if m.table is not None:
        if c.replay is None:
            out.append(("class:title", (" · " if short else " · table ") + m.table.table_id
                        + (f" “{m.table.name}”" if m.table.name and with_name else "")))
            if m.watching:
                out.append(("class:title.watch", " · watching"))
        rules = rules_words(m.table.options)
        if coach and m.table.options.coached and c.replay is None:  # the host's (p: yours)
            rules.insert(0, "coach")
        if m.untimed and c.replay is None:  # (a record that keeps no times: a replay has none)
            rules.append("untimed")
        elif c.replay is not None and not m.untimed:  # the clock its record keeps
            rules.append(f"{m.table.options.turn_time:g} s a turn")
        if short:
            rules = [w.replace(" pts", "").replace(" rounds", "r").replace(" round", "r")
                     .replace(" s a turn", "s/turn").replace("untimed", "∞") for w in rules]
        out.append(("class:title.rules", " · " + " · ".join(rules)))
        if m.phase == "over":
            out.append(("class:title", " · game over"))
        elif m.phase == "waiting":
            out.append(("class:title", " · waiting to start"))
        elif m.round:
            out.append(("class:title", f" · {'r' if short else 'round '}{m.round}"))
            if m.turn:
                out.append(("class:title", f" · turn {m.turn}/10"))
    else:
        out.append(("class:title", " · lobby"))
    return out


# ---------------------------------------------------------------- prompt
def prompt_line(c: Controller, now: float, width: int = 200) -> Frags:
    """The decision bar: what you must do now, or whom the table waits for, and the clock."""
    m = c.model
    others_extra = any(m.extra_left(s, now) is not None for s in m.awaited())
    clock = clock_text(None if m.untimed or c.replay is not None else m.seconds_left(now),
                       hot=m.hurry or others_extra, unknown=m.clock_unknown and not m.untimed,
                       extra=(m.extra_time and m.hurry) or others_extra,
                       paused=m.paused_since is not None)
    clock = (clock[0], clock[1] + _bank_text(c))
    d = m.decision
    if c.replay is not None:
        return [("class:prompt.other", _after(f"{c.replay.text()} · {_waiting_text(c)}",
                                              width, 0))]
    if d is not None:
        if d.kind == COMMIT and d.committed is None:
            text = "Your move: choose a card with ←/→ and press Enter"
        elif d.kind == COMMIT:
            waiting = [s.name or "" for s in m.seats if not s.empty and not s.committed]
            tail = f" · waiting for {', '.join(waiting)}" if waiting else ""
            text = f"Committed {d.committed} · Enter on another card replaces it{tail}"
        elif d.kind == ROW:
            costs = " · ".join(f"{r + 1}:\u00a0{plural(m.row_cost(r), 'bullhead')}"
                               .replace(" ", "\u00a0") for r in sorted(d.rows))  # unbroken
            text = f"Your {d.card} fits no row: press 1–4 to take one ({costs})"
        elif d.kind == TIE:
            options = " or ".join(_tie_place_text(c, p) for p in d.places)
            text = f"Your {d.card} may go {options}: ←/→ then Enter"
        else:
            text = "Your draft pick: ←/→ ↑/↓ choose, Enter takes the card"
        style = "class:prompt.mine" if not (d.kind == COMMIT and d.committed) else \
            "class:prompt.done"
        return [clock, (style, _after(text, width, get_cwidth(clock[1])))]
    return [clock, ("class:prompt.other", _after(_waiting_text(c), width, get_cwidth(clock[1])))]


def _bank_text(c: Controller) -> str:
    """Your time bank left, beside the clock (once your extra time runs, the clock
    itself is the bank: nothing more is said)."""
    m = c.model
    opts = m.options
    if (c.replay is not None or opts is None or opts.time_bank <= 0 or m.seat is None
            or m.watching or not m.in_game or m.extra_time or m.seat >= len(m.banks)):
        return ""
    s = int(m.banks[m.seat] + 0.999)
    return f"bank {s // 60}:{s % 60:02d} "


def _after(text: str, width: int, used: int) -> str:
    """`` text`` wrapped at word boundaries to ``width``, its first line starting after
    ``used`` columns (the clock)."""
    lines = wrap(text, width - 1, indent=" " * (used + 1), more=" ")
    return "\n".join([lines[0][used:], *lines[1:]]) + " "


def _tie_place_text(c: Controller, place: P.Place) -> str:
    """A tied place and what it costs: the sixth card of a row takes its five."""
    m = c.model
    row = m.rows[place.row] if place.row < len(m.rows) else []
    cost = f"takes {row_bullheads(row)} bullheads" if len(row) >= MAX_ROW else "free"
    return f"{place_text(place, m.rows)} ({cost})"


def _waiting_text(c: Controller) -> str:
    m = c.model
    if not m.online and m.table is not None and m.server_stopped:
        kept = "" if m.seat is None or m.watching else \
            " (your game is kept)" if m.in_game else " (your seat is kept)"
        return f"The server stopped: waiting for it to be started again{kept}"
    if not m.online and m.table is not None:
        return "Connection lost: reconnecting… (your seat and cards are kept)"
    if c.replay is not None:
        return {"resolve": "placing the cards", "scored": "the round is over",
                "over": "the game is over", "commit": "the players choose"}.get(
                    m.phase, "dealing")
    p = m.pending
    if p is not None and not p.mine:
        who = m.name_of(p.seat)
        what = {ROW: f"to choose a row for {p.card}", TIE: f"to place {p.card}",
                DRAFT: "to pick a card"}.get(p.kind, "to decide")
        return f"Waiting for {who} {what}…"
    if m.table is None:
        if c.plan.spectator:
            return "Lobby (spectator): ↑/↓ choose a table · Enter watch · R leaderboard"
        return "Lobby: ↑/↓ choose a table · Enter join · n new table · R leaderboard"
    if m.watching:
        if m.table.status == "waiting" and c.plan.spectator:
            return "You are watching: the game has not started. L: back to the lobby"
        if m.table.status == "waiting":
            return "You are watching. Enter: take a free seat · L: back to the lobby"
        if m.phase == "over" or m.table.status == "over":
            return "You are watching: the game is over. L: back to the lobby"
        return "You are watching this game."
    if m.phase == "waiting":
        seats = m.table.seats
        if m.is_host:
            if None in seats:
                empty = sum(s is None for s in seats)
                return (f"{'1 empty seat' if empty == 1 else f'{empty} empty seats'}: wait "
                        "for friends, or s fills them with bots and starts")
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
def hand_line(c: Controller, width: int = 80, preview: bool = True) -> Frags:
    """Your hand: the card under the cursor in brackets, your commit marked ✔; under
    it, unless ``preview`` is False (no room), where that card would go."""
    m, ui = c.model, c.ui
    if c.replay is not None:
        return [("class:dim", "  (a replay shows the cards as they are played)")]
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
    count = f"  {plural(len(m.hand), 'card')}"
    used = frags_width(chips)
    out: Frags = []
    if used + len(label) + 1 <= width:
        out.append(("class:panel.head", " " + label))
        used += len(label) + 1
    out.extend(chips)
    if used + len(count) <= width:
        out.append(("class:dim", count))
    if preview and pick and c.ui.preview and m.rows and all(m.rows) and m.options and m.options.coached:
        opts = m.options
        text = preview_text(m.hand[cursor], m.rows, m.could_come(),
                            professional=bool(opts and opts.professional),
                            held=bool(opts and opts.draft))
        out.append(("class:dim", "\n" + "\n".join(wrap(text, width - 1, indent="  ",
                                                        more="    "))))
    return out


# ---------------------------------------------------------------- log
def log_lines(c: Controller, width: int = 200) -> Frags:
    """The event log (up to where PgUp scrolled it), each line wrapped at word
    boundaries to ``width``, its continuation indented."""
    m = c.model
    lines = m.log[: len(m.log) - c.ui.log_back] if c.ui.log_back else m.log
    out: Frags = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out.append((f"class:log.{line.kind}",
                    "\n".join(wrap(line.text, width - 1, indent=" ", more="   "))))
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
def lobby_panel(c: Controller, width: int = 200) -> Frags:
    """The tables, one line each; the game and players column is abbreviated on
    purpose to the width left ("Bob, Bot 1 +2 more")."""
    m, ui = c.model, c.ui
    id_width = max([5] + [len(t.table_id) for t in m.tables])  # ids grow: kqzd1 ... kqzd1234
    name_w = 20 if width >= 76 else 12  # the name column gives way to the players
    head = (f"  {'Table':<{id_width}} {'Name':<{name_w}} {'Seats':<6} {'Status':<8} "
            "Game · players")
    out: Frags = []
    if m.queued is not None:  # what the queue last said, its countdown running on
        text = f"In the queue: {queue_words(m.queued, m.clock() - m.queued_at)}."
        out.append(("class:lobby.waiting",
                    "\n".join(wrap(text, width, indent="  ", more="    ")) + "\n"))
    out.append(("class:panel.head", head[:width] + "\n"))
    if not m.tables:
        out.append(("class:dim", "\n  No tables yet. Press n to create one.\n"))
        return out
    cursor = max(0, min(ui.table_cursor, len(m.tables) - 1))
    for i, t in enumerate(m.tables):
        taken = sum(s is not None for s in t.seats)
        o = t.options
        variants = [name for name, on in (("rated", o.rated), ("tactic", o.tactic_deck),
                                          ("draft", o.draft), ("pro", o.professional),
                                          ("countdown", o.countdown)) if on]
        end = f"{o.point_limit} pts" if o.point_limit else ""
        if o.rounds:
            end += (" or " if end else "") + f"{o.rounds} rounds"
        variants.append(end)
        style = "class:lobby.selected" if i == cursor else ""
        status_style = {"waiting": "class:lobby.waiting", "playing": "class:lobby.playing"}
        seats = f"{taken}/{len(t.seats)}"
        name = t.name if len(t.name) <= name_w else t.name[:name_w - 1] + "…"
        head = f"{'▶' if i == cursor else ' '} {t.table_id:<{id_width}} {name:<{name_w}} {seats:<6} "
        out.append((style, head))
        out.append((style or status_style.get(t.status, "class:dim"), f"{t.status:<8}"))
        room = width - len(head) - 8
        game = " " + ", ".join(v for v in variants if v)
        if t.spectators:
            game += f" · {t.spectators} watching"
        players = _players_text(t, room - len(game))
        if not players and any(t.seats) and room >= 17:  # the players matter more
            game = game[:room - 13] + "…"
            players = _players_text(t, room - len(game))
        out.append((style, game[:room]))
        out.append((style or "class:dim", players))
        out.append(("", "\n"))
    return out


def _players_text(t: P.TableInfo, room: int) -> str:
    """" · Bob (14.2), Bot 1, Cat" or, in ``room`` columns, " · Bob (14.2), Bot 1 +2
    more": a rated player's rating beside the name (claimed names and built-in bots)."""
    names = [s.name if s.rating is None else f"{s.name} ({rating_text(s.rating)})"
             for s in t.seats if s is not None]
    for shown in range(len(names), 0, -1):
        more = len(names) - shown
        text = " · " + ", ".join(names[:shown]) + (f" +{more} more" if more else "")
        if len(text) <= room:
            return text
    return f" · {len(names)} seated" if names and room >= 12 else ""


def form_panel(c: Controller, width: int = 80, height: int | None = None) -> Frags:
    """The new-table form: one line per option (label, value), then what the option
    under the cursor means, wrapped at word boundaries. In fewer than ``height``
    lines the options scroll with the cursor (↑/↓ in the first column: more there)."""
    form = c.ui.form
    if form is None:
        return []
    text = FORM_FIELDS[form.cursor].help
    if form.for_queue and FORM_FIELDS[form.cursor].key == "rated":
        text = "a game the queue forms is always rated: it changes the players' ratings"
    elif form.coach_fixed and FORM_FIELDS[form.cursor].key == "coach":
        text = "a rated game has no coach: its players' ratings must not depend on a helper"
    help_lines = wrap(text[0].upper() + text[1:] + ".", width - 2, indent="  ", more="  ")
    count = len(FORM_FIELDS)
    rows = count if height is None else max(1, min(count, height - len(help_lines)))
    first = min(max(0, form.cursor - rows // 2), count - rows)
    last = first + rows - 1
    out: Frags = []
    for i in range(first, last + 1):
        f = FORM_FIELDS[i]
        value = form.values[f.key]
        if value is None:
            value_text = "off"
        elif isinstance(value, bool):
            value_text = "yes" if value else "no"
        elif isinstance(value, float):
            value_text = "untimed" if f.key == "turn_time" and value >= UNTIMED else f"{value:g}"
        else:
            value_text = str(value)
        sel = i == form.cursor
        mark = "▶" if sel else "↑" if i == first > 0 else "↓" if i == last < count - 1 else " "
        style = "class:form.selected" if sel else ""
        out.append((style, f"{mark} {f.label:<24}"))
        if form.for_queue and f.key == "rated":  # fixed: no arrows to change it
            out.append(("class:form.value" if sel else "", f"   {'yes':^9}  \n"))
            continue
        if form.coach_fixed and f.key == "coach":  # off at a rated game, fixed
            out.append(("class:form.value" if sel else "", f"   {'no':^9}  \n"))
            continue
        out.append(("class:form.value" if sel else "", f" ◀ {value_text:^9} ▶\n"))
    out.append(("class:dim", "\n".join(help_lines)))
    return out


# ---------------------------------------------------------------- status, keys, help
def status_line(c: Controller, width: int = 200) -> Frags:
    """The last confirmation or refusal ([] when there is none: the line goes away),
    wrapped at word boundaries."""
    s = c.current_status()
    if s is None:
        return []
    return [(f"class:status.{s.kind}", "\n".join(wrap(s.text, width - 1)))]


#: Key hints left out first when the line is too narrow ("? help" and "q quit" stay).
_OPTIONAL_KEYS: Final = ("queue", "refresh", "history", "analysis", "leave", "bot level", "remove bot",
                         "watch", "cancel", "round", "start/end", "scores", "chat", "ranks")


def keys_line(c: Controller, width: int = 200) -> Frags:
    """The key hints, on one line: the less needed ones go when it is narrow."""
    m, ui = c.model, c.ui
    if c.replay is not None:
        pairs: Sequence[tuple[str, str]] = (
            ("←/→", "step"), ("↑/↓", "round"), ("Space", "play/pause"), ("+/-", "speed"),
            ("Home/End", "start/end"), ("t", "scores"),
            *((("a", "hide analysis" if c.replay.analysis.shown else "show analysis"),)
              if getattr(c.replay, "analysis", None) is not None else ()),
            ("?", "help"), ("q", "quit"))
    elif ui.chat_open:
        pairs = (("Enter", "send"), ("Esc", "cancel"))
    elif ui.analysis is not None and m.table is not None and not ui.help_open:
        pairs = (("←/→", "round"), ("↑/↓", "scroll"), ("Esc", "close"), ("?", "help"))
    elif ui.history is not None:
        pairs = (("↑/↓", "game"), ("Enter", "replay"), ("Esc", "close"), ("q", "quit"))
    elif ui.ladder is not None and m.table is None:
        pairs = (("↑/↓", "scroll"), ("m", "your row"), ("r", "refresh"), ("Esc", "close"),
                 ("q", "quit"))
    elif ui.form is not None:
        pairs = (("↑/↓", "field"), ("←/→", "change"), ("Enter", "create"), ("Q", "queue"),
                 ("Esc", "cancel"))
    elif m.table is None and c.plan.spectator:
        pairs = (("↑/↓", "table"), ("Enter", "watch"), ("r", "refresh"), ("R", "ranks"),
                 ("c", "chat"), ("?", "help"), ("q", "quit"))
    elif m.table is None and m.queued is not None:
        pairs = (("Q", "leave the queue"), ("r", "refresh"), ("R", "ranks"), ("H", "history"),
                 ("c", "chat"), ("?", "help"), ("q", "quit"))
    elif m.table is None:
        pairs = (("↑/↓", "table"), ("Enter", "join"), ("w", "watch"), ("n", "new table"),
                 ("Q", "queue"), ("r", "refresh"), ("R", "ranks"), ("H", "history"),
                 ("c", "chat"), ("?", "help"), ("q", "quit"))
    else:
        d = m.decision
        pairs = []
        if d is not None and d.kind == COMMIT:
            pairs = [("←/→", "card"), ("Enter", "commit")]
        elif d is not None and d.kind == ROW:
            pairs = [("1–4", "take row"), ("←/→ Enter", "choose")]
        elif d is not None and d.kind in (TIE, DRAFT):
            pairs = [("←/→", "choose"), ("Enter", "confirm")]
        elif m.watching and m.table.status == "waiting" and not c.plan.spectator:
            pairs = [("Enter", "take a seat")]
        elif not m.in_game and m.is_host:
            pairs = [("a", f"add {c.bot_level} bot"), ("b", "bot level"), ("x", "remove bot"),
                     ("s", "start")]
        if m.analysed:
            pairs.append((ANALYSIS_KEY, "analysis"))
        pairs += [("c", "chat"), ("t", "scores"), ("L", "leave"), ("?", "help"),
                  ("q", "quit")]
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


def too_small(c: Controller, columns: int, lines: int, missing: int = 0) -> Frags:
    """The whole screen when the terminal cannot show the table (``missing``: lines
    this table lacks at this size, when the terminal is above the minimum)."""
    if columns >= MIN_COLUMNS and lines >= MIN_LINES and missing > 0:
        text = (f"This table needs {plural(missing, 'more line')} than this "
                f"{columns}×{lines} terminal has.")
    else:
        text = (f"This terminal is {columns}×{lines}: nimmt needs at least "
                f"{MIN_COLUMNS}×{MIN_LINES}.")
    m = c.model
    out: Frags = []
    d = m.decision
    if d is not None and not (d.kind == COMMIT and d.committed is not None):
        # what matters most fits in any window: it is your turn, and the time left
        left = None if m.untimed else m.seconds_left(c.clock())
        clock = clock_text(left, hot=m.hurry, extra=m.extra_time and m.hurry)
        out += [("class:prompt.mine", "Your turn!" if columns < 20 else " Your turn!"), clock,
                ("", "\n")]
    later = (" (the autopilot plays at the deadline)" if m.in_game and not m.untimed
             else "")
    out += [("class:status.error", "\n".join(wrap(text, columns - 1))),
            ("", "\n\n" + "\n".join(wrap("Make the window larger to go on playing; "
                                          f"nothing is played meanwhile{later}.", columns - 1))
             + "\n\n q: quit\n\n"),
            *status_line(c, columns)]
    return out
