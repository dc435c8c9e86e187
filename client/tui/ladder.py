"""The leaderboard screen: the lobby's ``R`` shows the server's rated players, best
first (rank, name, rating, rated games, trend), asked for afresh each time it opens
and page by page as it scrolls (protocol 2, ``leaderboard``); ``m`` goes to your
own row. The rows are the model's (:class:`~nimmt.client.leaderboard.Leaderboard`);
this is only the cursor and how the rows are drawn."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count
from typing import Final

from ..leaderboard import PAGE_ROWS, Leaderboard
from .frags import Frags

__all__ = ["LadderView", "LADDER_TITLE", "SEARCH_IDS"]

LADDER_TITLE: Final = "Leaderboard · rated players, best first"
#: request ids of the searches for your row (``m``): the screen knows which answer is
#: the search's before it is sent, so these come from a range of their own (the
#: connection numbers the other requests from 1)
SEARCH_IDS: Final = count(1 << 40)
_FIXED: Final = 32  # the columns besides the name: mark, rank, rating, games, trend


@dataclass(slots=True)
class LadderView:
    """The screen's state: the row under the cursor (rank - 1), the rows the layout
    last had room for, the pages asked for since it opened, and the id of the search
    for your row not answered yet."""

    cursor: int = 0
    height: int = 10
    asked: set[tuple[int, int | None]] = field(default_factory=set)  # (offset, total)
    finding: int | None = None

    def move(self, delta: int, board: Leaderboard) -> None:
        last = max(0, (board.total or 0) - 1)
        self.cursor = max(0, min(self.cursor + delta, last))

    def first_shown(self, board: Leaderboard, height: int) -> int:
        """The index of the first row shown: the cursor stays in the middle."""
        total = board.total or 0
        return max(0, min(self.cursor - height // 2, total - height))

    def wanted(self, board: Leaderboard) -> int | None:
        """The offset of a page to ask for (rows about to be shown are missing), once
        per size of the board (a game rated meanwhile makes the rows asked again)."""
        if not board.loaded:
            return None
        first = self.first_shown(board, self.height)
        offset = board.missing(first + 1, self.height + PAGE_ROWS // 2)
        if offset is None or (offset, board.total) in self.asked:
            return None
        self.asked.add((offset, board.total))
        return offset

    def lines(self, board: Leaderboard, me: str | None, width: int, height: int) -> Frags:
        """The header and the rows around the cursor in ``width`` × ``height``, or a
        line saying why there is none."""
        self.height = max(1, height - 1)
        if not board.loaded:
            return [("class:dim", " Asking the server for the leaderboard…")]
        if not board.total:
            return [("class:dim", " No rated games yet: the finished games of rated tables "
                     "rank their players (claimed names) here.")]
        name_w = max(6, min(24, width - _FIXED))
        out: Frags = [("class:panel.head",
                       f"  {'rank':>4}  {'name':<{name_w + 2}}{'rating':>7}{'games':>7}"
                       f"{'trend':>8}"[:width] + "\n")]
        first = self.first_shown(board, self.height)
        mine = me.casefold() if me else None
        for i in range(first, min(first + self.height, board.total)):
            row = board.rows.get(i + 1)
            mark = "▶" if i == self.cursor else " "
            if row is None:
                out += [("class:dim", f"{mark} {i + 1:>4}  …"), ("", "\n")]
                continue
            name = row.name if len(row.name) <= name_w else row.name[:name_w - 1] + "…"
            tag = "⚙ " if row.bot else "  "
            you = mine is not None and row.name.casefold() == mine
            style = "class:lobby.selected" if i == self.cursor else \
                ("class:seat.me" if you else "")
            text = (f"{mark} {row.rank:>4}  {tag}{name:<{name_w}}{row.rating:>7.2f}"
                    f"{row.games:>7}")
            out.append((style, text[:width]))
            trend_style = style or ("class:mark.ok" if row.trend > 0 else
                                    "class:seat.pen" if row.trend < 0 else "class:dim")
            out.append((trend_style, f"{row.trend:>+8.2f}"[:max(0, width - len(text))]))
            out.append(("", "\n"))
        out[-1] = ("", "")
        return out

    @staticmethod
    def title(board: Leaderboard) -> str:
        if board.trend_games:
            return f"{LADDER_TITLE} · trend: the last {board.trend_games} games"
        return LADDER_TITLE

    def foot(self, board: Leaderboard) -> str:
        where = ""
        if board.total:
            first = self.first_shown(board, self.height) + 1
            last = min(board.total, first + self.height - 1)
            where = f" · {first}–{last} of {board.total}"
        return f" ↑/↓ PgUp/PgDn · m you · r refresh · Esc closes{where}"
