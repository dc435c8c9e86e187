"""The two overlays: the help (the rules, the variants of this table explained, the
keys) and the score sheet (bullheads per seat per round, totals, as Board Game
Arena's score dialog). Each is a list of lines already wrapped at word boundaries
to the width the overlay has; the layout shows a window of them (↑/↓ scroll)."""

from __future__ import annotations

import textwrap
from typing import Final

from nimmt.protocol import TableOptions

from ..model_state import DEFAULT_LIMIT, UNTIMED
from .analysis_view import sheet_turning_points
from .controller import Controller
from .frags import Frags

__all__ = ["wrap", "help_lines", "score_lines", "rules_title", "HELP_KEYS"]


def wrap(text: str, width: int, indent: str = " ", more: str = " ") -> list[str]:
    """``text`` cut at word boundaries into lines of at most ``width`` columns."""
    return textwrap.wrap(text, max(10, width), initial_indent=indent,
                         subsequent_indent=more, break_on_hyphens=False) or [""]


RULES: Final = (
    "Each turn everyone chooses a card face down; then the cards are shown and placed "
    "lowest first, each after the row ending with the closest lower card. The 6th card "
    "of a row takes its 5 cards; a card lower than every row takes a row of its "
    "player's choice. Fewest bullheads win. Bullheads are the small numbers: "
    "14¹ 15² 10³ 11⁵ 55⁷.")

#: (name, explanation): the variants a table may play, as the help explains them
VARIANTS: Final = (
    ("professional", "Professional rows",
     "a card may also go before a row's first card when it is lower than it (and the "
     "row is its closest); when both places fit, you choose where it goes."),
    ("tactic_deck", "Tactic deck",
     "only the cards 1 to 10 × seats + 4 are dealt (34 with 3 players), so every card "
     "is known to be in someone's hand."),
    ("draft", "Draft",
     "before each round the players pick their hands one card at a time, in turn, from "
     "an open pool."),
    ("countdown", "Countdown",
     "scores are shown as points left (the point limit minus the bullheads taken)."),
)

HELP_KEYS: Final = (
    ("←/→  h/l", "move in your hand; Enter plays that card"),
    ("1–4", "take that row (when your card fits none)"),
    ("←/→ Enter", "a tied place, a draft pick (↑/↓: a line)"),
    ("t", "the score sheet (bullheads per round)"),
    ("Tab", "the score sheet's last page: tonight's standings at this table, once a game "
            "there is over (↑/↓ scroll it)"),
    ("A", "the analysis of your rounds, a few seconds after each: every decision, its "
          "cards' expected bullheads (▶ yours, ✓ the best), your loss and its mark; "
          "←/→ or its number: another round; Esc closes"),
    ("p", "the line under your hand: where that card goes, what it takes, how many "
          "unseen cards could get there first (where the host turned the coach on; "
          "never at a rated table)"),
    ("c  /", "chat"),
    ("PgUp/PgDn", "scroll the event log"),
    ("H", "in the lobby: the finished games (--db); Enter replays one"),
    ("F", "in the lobby: look for servers on the LAN again"),
    ("Q", "in the lobby: queue for a rated game (the new-table form's seats and rules; "
     "claimed names only); Q again leaves the queue"),
    ("R", "in the lobby: the leaderboard (rank, name, rating, rated games, trend); "
     "m: your row; r: refresh"),
    ("L", "leave the table"),
    ("q  Ctrl-C", "quit"),
    ("Lobby", "↑/↓ table · Enter join · w watch · n new table · r refresh"),
    ("Table", "a add bot · b bot level · x remove bot · s start (host; empty seats "
     "are filled with bots)"),
    ("Replay", "←/→ step · ↑/↓ round · Space play/pause · +/- speed · Home/End "
     "first/last step · a the analysis panel (--analyse) hidden or shown"),
)


def _end_words(o: TableOptions) -> str:
    parts = []
    if o.point_limit:
        parts.append(f"after the round in which someone reaches {o.point_limit} bullheads")
    if o.rounds:
        parts.append(f"after {o.rounds} round{'' if o.rounds == 1 else 's'}")
    return "The game ends " + " or ".join(parts) + "."


def _time_words(o: TableOptions) -> str:
    if min(o.turn_time, o.choice_time, o.draft_time) >= UNTIMED:
        text = "Untimed: take the time you need (no clock)."
    else:
        text = (f"Time: {o.turn_time:g} s to choose a card, {o.choice_time:g} s to choose a "
                f"row or a place" + (f", {o.draft_time:g} s a draft pick" if o.draft else "")
                + "; then the autopilot decides for you.")
    if o.time_bank > 0:
        text += (f" Time bank: {o.time_bank:g} s of extra time for the whole game, used when "
                 "a decision's time is up, before the autopilot decides.")
    return text


def _coach_words(o: TableOptions) -> str:
    if o.coached:
        return ("✓ Coach: while you choose, the line under your hand says where the card "
                "under the cursor would go, what it would take and how many unseen cards "
                "could get there first (p hides it for you).")
    if o.rated:
        return "No coach: a rated table never has one."
    return "No coach: the host has not turned it on at this table."


def rules_title(o: TableOptions) -> str:
    """The variants in force, in words, for the help's first line."""
    on = [name for key, name, _ in VARIANTS if getattr(o, key) and key != "countdown"]
    return ", ".join(on) if on else "the standard game (no variant)"


def help_lines(c: Controller, width: int) -> list[str]:
    """The help, wrapped to ``width``: the rules, this table's variants, the keys."""
    out: list[str] = []
    opts = c.model.options
    if opts is not None:
        out += wrap(f"This table: {rules_title(opts)}.", width)
        for key, name, text in VARIANTS:
            if getattr(opts, key):
                out += wrap(f"✓ {name}: {text}", width, more="   ")
        out += wrap(_end_words(opts), width)
        out += wrap(_time_words(opts), width)
        if c.replay is None:  # (a record keeps no coach: a replay shows no hand line)
            out += wrap(_coach_words(opts), width, more="   " if opts.coached else " ")
        off = [name for key, name, _ in VARIANTS if not getattr(opts, key)]
        if off:
            out += wrap("Not played here: " + ", ".join(off) + " (each is explained "
                        "below).", width)
        out.append("")
    out += wrap(RULES, width)
    out.append("")
    out += wrap("Variants (the new-table form sets them):", width)
    for _, name, text in VARIANTS:
        out += wrap(f"· {name}: {text}", width, more="   ")
    out += wrap(f"· Point limit / rounds: the game ends after the round in which someone "
                f"reaches the limit ({DEFAULT_LIMIT} by default), or after a number of "
                "rounds.", width, more="   ")
    out.append("")
    key_width = max(len(k) for k, _ in HELP_KEYS) + 2
    for key, what in HELP_KEYS:
        out += wrap(f"{key:<{key_width}}{what}", width, more=" " * (key_width + 1))
    return out


def score_lines(c: Controller, width: int) -> Frags:
    """The score sheet: one line per seat, its bullheads in each round, its total
    (with countdown: the points left), best first once the game is over."""
    m = c.model
    rounds = m.scores
    names = [s.name or f"seat {s.index + 1}" for s in m.seats]
    if not names:
        return [("class:dim", " No table.")]
    if not rounds and m.result is None:
        return [("class:dim", "\n".join(wrap("No round has been scored yet: the sheet fills "
                                             "in at the end of each round.", width - 1)))]
    name_w = min(10, max(3, max(len(n) for n in names)))
    total_w = 6
    fit = max(1, (width - name_w - 6 - total_w - 2) // 4)
    shown = rounds[-fit:]
    countdown = bool(m.options and m.options.countdown)
    lead = ("…" if len(shown) < len(rounds) else "").ljust(name_w + 5)
    head = lead + "".join(f"{'R' + str(r.round):>4}" for r in shown)
    out: Frags = [("class:panel.head", head + f"{'left' if countdown else 'total':>{total_w}}\n")]
    order = list(range(len(names)))
    if (result := m.result) is not None:
        order.sort(key=lambda s: (result.places[s] if s < len(result.places) else 99, s))
    final = rounds[-1].totals if rounds else m.result.totals if m.result else ()
    for k, seat in enumerate(order):
        me = seat == m.seat
        name = ("you" if me else names[seat])[:name_w]
        mark = " ▶  " if me else "    "
        if m.result is not None and seat < len(m.result.places):
            mark = f"{m.result.places[seat]:>2}. "[:4]
        cells = "".join(f"{r.penalties[seat] if seat < len(r.penalties) else 0:>4}"
                        for r in shown)
        total = final[seat] if seat < len(final) else 0
        shown_total = m.point_limit - total if countdown else total
        style = "class:seat.me" if me else ""
        out.append((style, f"{mark}{name:<{name_w}} {cells}"))
        out.append(("class:winner" if m.result is not None and seat in m.result.winners
                    else style, f"{shown_total:>{total_w}}"))
        if k < len(order) - 1:
            out.append(("", "\n"))
    if not rounds:
        note = "Only the totals: the rounds were scored before this client came back."
        out.append(("class:dim", "\n" + "\n".join(wrap(note, width - 1))))
    points = sheet_turning_points(m.analysed, [r.round for r in shown], width - 1)
    if points:  # (each round's, once analysed: issue 45)
        out.append(("", "\n" + "\n".join(points)))
    return out
