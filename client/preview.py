"""Where a card of your hand would go if it were played alone now, and what that
costs: the line under your hand while you choose (issue 45, *while choosing*).

A pure function of what the player sees: the rows, their own hand and the cards
that could still come before theirs (the caller says which; see
:meth:`~nimmt.client.model.TableModel.could_come`). Rules: docs/RULES.md.

>>> rows = [[12, 14, 15, 21], [37], [43, 44, 45, 46, 50], [58]]
>>> preview_text(26, rows, could_come=frozenset({22, 23, 30}))
'→ row 1, 5th card · 2 unseen cards between 21 and 26'
>>> preview_text(51, rows, could_come=frozenset())
'→ row 3: 6th card, takes 12 · no unseen card between 50 and 51'
>>> preview_text(5, rows, could_come=frozenset({1, 2, 9}))
'→ no row fits: you take a row (the cheapest: row 2, 1 bullhead) · 2 unseen cards are lower'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cards import MAX_ROW, human_row, row_bullheads

__all__ = ["Landing", "landing", "preview_text"]

_ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}


@dataclass(frozen=True)
class Landing:
    """Where a card played alone goes: ``rows`` (wire rows: more than one is a
    Professional tie the player settles), the card it goes next to (``beside``),
    at which place in the row (``place``: 6 takes the row) and the bullheads it
    takes. ``rows == ()``: it fits no row (``beside`` is None)."""

    rows: tuple[int, ...]
    beside: int | None
    place: int
    takes: int


def landing(card: int, rows: Sequence[Sequence[int]], professional: bool = False) -> Landing:
    """Where ``card`` goes on ``rows`` if no other card comes first (rows not empty)."""
    best: list[tuple[int, int, int]] = []  # (difference, row, the card beside it)
    for i, row in enumerate(rows):
        ends = [row[-1]] + ([row[0]] if professional else [])
        for k, end in enumerate(ends):
            diff = card - end if k == 0 else end - card
            if diff <= 0:
                continue
            if not best or diff < best[0][0]:
                best = [(diff, i, end)]
            elif diff == best[0][0]:
                best.append((diff, i, end))
    if not best:
        return Landing((), None, 0, 0)
    _, first, beside = best[0]
    cards = rows[first]
    return Landing(tuple(i for _, i, _ in best), beside, len(cards) + 1,
                   row_bullheads(cards) if len(cards) >= MAX_ROW else 0)


def preview_text(card: int, rows: Sequence[Sequence[int]], could_come: frozenset[int],
                 professional: bool = False, held: bool = False) -> str:
    """The preview line for ``card``: where it goes, what it takes, and how many of
    ``could_come`` (the cards others may still play) lie between that place and it,
    any of which played this turn would get there first. ``held``: those cards are
    known to be in other hands (Draft), not unseen."""
    what = "cards others hold" if held else "unseen cards"
    one = "card another holds" if held else "unseen card"
    at = landing(card, rows, professional)
    if not at.rows:
        cheapest = min(range(len(rows)), key=lambda i: (row_bullheads(rows[i]), i))
        cost = row_bullheads(rows[cheapest])
        lower = sum(1 for c in could_come if c < card)
        count = f"{lower} {what} are lower" if lower != 1 else f"1 {one} is lower"
        return (f"→ no row fits: you take a row (the cheapest: row {human_row(cheapest)}, "
                f"{cost} bullhead{'s' if cost != 1 else ''}) · "
                + (count if lower else f"no {one} is lower"))
    names = " or ".join(f"row {human_row(r)}" for r in at.rows)
    choose = " (you choose)" if len(at.rows) > 1 else ""
    place = _ORDINALS.get(at.place, f"{at.place}th")
    if at.takes or at.place > MAX_ROW:
        where = f"→ {names}{choose}: {place} card, takes {at.takes}"
    else:
        where = f"→ {names}{choose}, {place} card"
    assert at.beside is not None
    low, high = sorted((at.beside, card))
    between = sum(1 for c in could_come if low < c < high)
    if between == 0:
        return f"{where} · no {one} between {low} and {high}"
    noun = what if between != 1 else one
    return f"{where} · {between} {noun} between {low} and {high}"
