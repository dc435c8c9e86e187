"""The leaderboard as the server sent it (protocol 2, ``leaderboard_page``): rows by
rank, filled in page by page as they are asked for. Pure: the screen asks for the
pages it is missing (:meth:`Leaderboard.missing`), the model stores what comes."""

from __future__ import annotations

from nimmt import protocol as P

__all__ = ["Leaderboard", "PAGE_ROWS", "rating_text"]

#: rows asked for at a time
PAGE_ROWS = 50


def rating_text(rating: float) -> str:
    """A rating as lists show it: one decimal (the leaderboard shows two)."""
    return f"{rating:.1f}"


class Leaderboard:
    """The rated names the server listed: ``rows`` by rank (1 = best), ``total``
    (None until a page came), ``trend_games`` (the games a trend spans), ``found``
    (the rank of the name a request last found)."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        """Forget the rows (the board is asked for again: ratings change)."""
        self.rows: dict[int, P.LeaderboardRow] = {}
        self.total: int | None = None
        self.trend_games: int | None = None
        self.found: int | None = None

    @property
    def loaded(self) -> bool:
        return self.total is not None

    def apply(self, page: P.LeaderboardPage) -> None:
        """A page came."""
        if self.total is not None and page.total != self.total:
            self.rows.clear()  # a game was rated meanwhile: the other pages are stale
        for row in page.rows:
            self.rows[row.rank] = row
        self.total, self.trend_games = page.total, page.trend_games
        if page.found is not None:
            self.found = page.found

    def missing(self, first: int, count: int) -> int | None:
        """The offset to ask for so that ranks ``first`` .. ``first + count - 1`` are
        shown (None: they are all here, or beyond the last rated name)."""
        last = first + count - 1
        if self.total is not None:
            last = min(last, self.total)
        for rank in range(max(1, first), last + 1):
            if rank not in self.rows:
                return rank - 1
        return None
