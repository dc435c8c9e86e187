"""Where a card may go, and the autopilot's choices (RULES.md, "A turn").

>>> rows = [[12], [37], [43], [58]]
>>> places_for(rows, 14, professional=False)
(Place(row=0, end=End.RIGHT),)
>>> places_for(rows, 3, professional=False)
()
>>> places_for([[20], [30, 31], [40], [50]], 25, professional=True)
(Place(row=0, end=End.RIGHT), Place(row=1, end=End.LEFT))
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import BULLHEADS
from .moves import End, Place

__all__ = ["places_for", "cheapest_row", "first_place"]

_RIGHT = End.RIGHT
_LEFT = End.LEFT


def places_for(rows: Sequence[Sequence[int]], card: int, professional: bool) -> tuple[Place, ...]:
    """The places ``card`` must go to: one place, tied places (Professional
    rows only, in row order), or none when the card fits no row and its player
    must choose a row to take."""
    best_diff = 1000
    best: list[Place] = []
    for index, row in enumerate(rows):
        last = row[-1]
        if card > last:
            diff = card - last
            if diff < best_diff:
                best_diff, best = diff, [Place(index, _RIGHT)]
            elif diff == best_diff:
                best.append(Place(index, _RIGHT))
        elif professional and card < row[0]:
            diff = row[0] - card
            if diff < best_diff:
                best_diff, best = diff, [Place(index, _LEFT)]
            elif diff == best_diff:
                best.append(Place(index, _LEFT))
    return tuple(best)


def cheapest_row(rows: Sequence[Sequence[int]]) -> int:
    """The autopilot's row choice: fewest bullheads, lowest row number on a tie.

    >>> cheapest_row([[55], [10], [11], [3]])
    3
    >>> cheapest_row([[1], [2], [10], [3]])
    0
    """
    costs = [sum(BULLHEADS[c] for c in row) for row in rows]
    return costs.index(min(costs))


def first_place(places: Sequence[Place]) -> Place:
    """The autopilot's tie choice: the first place in row order."""
    return min(places, key=lambda p: (p.row, p.end is _RIGHT))
