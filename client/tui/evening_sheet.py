"""The score sheet's last page: tonight's standings at this table (issue 45, "the
evening"; the model is :mod:`nimmt.client.evening`). It exists once a game at the
table is over; Tab turns the sheet's page, ↑/↓ scroll this one when it is longer
than the room there is (at 80×24 ten players fit without scrolling).

The sheet's first page is :func:`~nimmt.client.tui.sheets.score_lines`; the layout
asks this module for whichever page is open (:func:`sheet_lines`, :func:`sheet_body`)."""

from __future__ import annotations

from typing import Final

from ..evening import Best, Standing
from .controller import Controller
from .frags import Frags
from .sheets import score_lines, wrap

__all__ = ["TONIGHT", "TONIGHT_TITLE", "has_tonight", "turn_page", "scroll", "sheet_lines",
           "sheet_body", "sheet_title", "sheet_foot", "tonight_lines"]

#: The sheet's pages: the game's rounds (0), tonight's standings (the last).
TONIGHT: Final = 1
TONIGHT_TITLE: Final = "Tonight: the standings at this table"
NAME_WIDTH: Final = 10
Line = tuple[str, str]  # (style, text): a line of the tonight page
TIES: Final = ("A first place shared by a tie is a win for each player in it. "
               "Per round: the bullheads a round, this game's rounds too.")


def has_tonight(c: Controller) -> bool:
    """Whether the sheet has the tonight page: at the table of the evening, once one
    of its games is over."""
    m = c.model
    return (m.table is not None and m.table.table_id == m.evening.table_id
            and m.evening.games_over > 0)


def _on_tonight(c: Controller) -> bool:
    return c.ui.sheet_page == TONIGHT and has_tonight(c)


def turn_page(c: Controller) -> None:
    """Tab: the sheet's other page (opening the sheet if it is closed)."""
    if not has_tonight(c):
        c.status("The sheet's last page, tonight's standings, comes once a game at this "
                 "table is over.", "info")
        return
    c.ui.sheet_page = 0 if c.ui.sheet_page == TONIGHT else TONIGHT
    c.ui.sheet_scroll = 0
    c.ui.sheet_open = True
    c.ui.sheet_auto = False


def scroll(c: Controller, delta: int) -> bool:
    """↑/↓ on the tonight page (the screen clamps it); False: that page is not open."""
    if not (c.ui.sheet_open and _on_tonight(c)):
        return False
    c.ui.sheet_scroll = max(0, c.ui.sheet_scroll + delta)
    return True


def _best(b: Best | None) -> str:
    return "—" if b is None else f"{b.bullheads} (game {b.game}, round {b.round})"


def _row(mark: str, name: str, games: str, won: str, average: str, best: str,
         left: str = "") -> str:
    return (f"{mark}{name:<{NAME_WIDTH}} {games:>5} {won:>4} {average:>10}  {best:<19}"
            f"{left}").rstrip()


def _standing(s: Standing, me: str | None) -> Line:
    mine = s.name == me
    average = "—" if s.average is None else f"{s.average:.2f}"
    text = _row(" ▶  " if mine else "    ", ("you" if mine else s.name)[:NAME_WIDTH],
                str(s.games), str(s.won), average, _best(s.best), "" if s.here else "  left")
    return ("class:seat.me" if mine else "" if s.here else "class:dim", text)


def _loss_words(c: Controller) -> str:
    loss = c.model.evening.loss_so_far()
    if loss.average is None:
        text = "Your expected loss a decision: —"
        why = [f"{loss.waiting} round{'s' if loss.waiting != 1 else ''} being analysed"
               if loss.waiting else "",
               f"the analysis failed for {loss.failed} round{'s' if loss.failed != 1 else ''}"
               if loss.failed else ""]
        why = [w for w in why if w] or ["no round of yours analysed"]
        return f"{text} ({'; '.join(why)})."
    rounds = f"{loss.rounds} round{'s' if loss.rounds != 1 else ''}"
    more = "".join([f"; {loss.failed} not analysed (it failed)" if loss.failed else "",
                    f"; {loss.waiting} being analysed" if loss.waiting else ""])
    return (f"Your expected loss a decision: {loss.average:.2f} bullheads ({loss.decisions} "
            f"decisions in {rounds}{more}).")


def tonight_lines(c: Controller, width: int) -> list[Line]:
    """The tonight page, a (style, text) a line, at most ``width`` columns."""
    e = c.model.evening
    games = e.games_over
    under_way = e.games and e.games[-1].state == "running" and e.games[-1].scored > 0
    head = f"{games} game{'s' if games != 1 else ''} played at this table"
    if under_way:
        head += f", game {len(e.games)} under way"
    out: list[Line] = [("", line) for line in wrap(f"{head}.", width)]
    out.append(("class:panel.head", _row("    ", "player", "games", "won", "per round",
                                         "best round")))
    out += [_standing(s, c.model.my_name) for s in e.standings()]
    out.append(("", ""))
    out += [("", line) for line in wrap(_loss_words(c), width, more="   ")]
    out += [("class:dim", line) for line in wrap(TIES, width)]
    return out


def sheet_lines(c: Controller, width: int) -> Frags:
    """The sheet's open page, whole (the score sheet's rounds, or tonight's)."""
    if not _on_tonight(c):
        return score_lines(c, width)
    lines = tonight_lines(c, width)
    out: Frags = []
    for k, (style, text) in enumerate(lines):
        out.append((style, text + ("\n" if k < len(lines) - 1 else "")))
    return out


def sheet_body(c: Controller, width: int, height: int) -> Frags:
    """The sheet's open page in ``height`` lines: the tonight page from its scroll
    position (clamped here)."""
    if not _on_tonight(c):
        return score_lines(c, width)
    lines = tonight_lines(c, width)
    c.ui.sheet_scroll = top = max(0, min(c.ui.sheet_scroll, len(lines) - height))
    shown = lines[top:top + height]
    return [(style, text + ("\n" if k < len(shown) - 1 else ""))
            for k, (style, text) in enumerate(shown)]


def sheet_title(c: Controller, first: str) -> str:
    """The frame's title: ``first`` (the rounds page's), or the tonight page's."""
    return TONIGHT_TITLE if _on_tonight(c) else first


def sheet_foot(c: Controller, width: int, height: int) -> str:
    """The line under the sheet: how it closes, Tab, the lines shown of a long page."""
    more = " (so does your next move)" if c.ui.sheet_auto else ""
    foot = f" t or Esc closes{more}"
    if not has_tonight(c):
        return foot
    if not _on_tonight(c):
        return foot + " · Tab: tonight"
    lines = len(tonight_lines(c, width))
    if lines > height:
        first = c.ui.sheet_scroll + 1
        foot += f" · ↑/↓ lines {first}–{first + height - 1} of {lines}"
    return foot + " · Tab: this game"
