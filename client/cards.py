"""Card facts a client needs to show the game (no engine import: see RULES.md).

>>> bullheads(55), bullheads(11), bullheads(20), bullheads(15), bullheads(14)
(7, 5, 3, 2, 1)
>>> row_bullheads([12, 14, 15, 21, 26])
6
>>> human_row(0)
1
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["bullheads", "row_bullheads", "human_row", "wire_row", "MAX_ROW", "ROWS"]

#: A row holds at most this many cards; the next one takes it.
MAX_ROW = 5
#: Number of rows on the table.
ROWS = 4


def bullheads(card: int) -> int:
    """The penalty points printed on ``card`` (RULES.md, "Cards")."""
    if card == 55:
        return 7
    if card % 11 == 0:
        return 5
    if card % 10 == 0:
        return 3
    if card % 5 == 0:
        return 2
    return 1


def row_bullheads(cards: Iterable[int]) -> int:
    """Total bullheads of a row (what taking it costs)."""
    return sum(bullheads(c) for c in cards)


def human_row(row: int) -> int:
    """The row number people see (1..4) for a wire row (0..3)."""
    return row + 1


def wire_row(number: int) -> int:
    """The wire row (0..3) for the row number people see (1..4)."""
    return number - 1
