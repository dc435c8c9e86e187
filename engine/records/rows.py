"""Following the rows through the engine's events, as a table would: building a
record, replaying one and narrating one all keep such a copy of the rows.

>>> from nimmt.engine import CardPlaced, RowsDealt, RowTaken
>>> rows: list[list[int]] = []
>>> for event in [RowsDealt((12, 37, 43, 58)), CardPlaced(0, 14, 0), RowTaken(1, 1, (37,), 1),
...               CardPlaced(1, 3, 1)]:
...     follow_rows(rows, event)
>>> freeze_rows(rows)
((12, 14), (3,), (43,), (58,))
"""

from __future__ import annotations

from ..events import CardPlaced, Event, RowsDealt, RowTaken
from ..moves import End

__all__ = ["follow_rows", "freeze_rows"]


def follow_rows(rows: list[list[int]], event: Event) -> None:
    """Update ``rows`` (a list of 4 lists) by one event, as the table would."""
    if isinstance(event, RowsDealt):
        rows[:] = [[c] for c in event.rows]
    elif isinstance(event, RowTaken):
        rows[event.row] = []
    elif isinstance(event, CardPlaced):
        if event.end is End.LEFT:
            rows[event.row].insert(0, event.card)
        else:
            rows[event.row].append(event.card)


def freeze_rows(rows: list[list[int]]) -> tuple[tuple[int, ...], ...]:
    """``rows`` as tuples, as a record holds them."""
    return tuple(tuple(r) for r in rows)
