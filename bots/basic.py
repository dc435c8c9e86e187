"""The two simple strategies: ``random`` and ``heuristic`` (the autopilot).

>>> from nimmt.engine import Game, Options
>>> game = Game(Options(players=3), seed=2)
>>> decision = HeuristicStrategy().decide(game.view(1))
>>> decision in game.legal_decisions(1)
True
"""

from __future__ import annotations

import random
from typing import Protocol

from nimmt.engine import (
    BULLHEADS,
    ROW_LIMIT,
    ChooseRow,
    ChooseTie,
    Commit,
    Decision,
    DraftPick,
    Phase,
    View,
    cheapest_row,
    places_for,
    row_bullheads,
)

__all__ = ["Strategy", "RandomStrategy", "HeuristicStrategy"]


class Strategy(Protocol):
    def decide(self, view: View) -> Decision:
        """One of ``view.legal``; called only when ``view.legal`` is not empty."""
        ...


class RandomStrategy:
    """Any legal decision, uniformly at random (seedable)."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def __repr__(self) -> str:
        return "RandomStrategy()"

    def decide(self, view: View) -> Decision:
        if not view.legal:
            raise ValueError("nothing to decide: view.legal is empty")
        return self._rng.choice(view.legal)


class HeuristicStrategy:
    """The simple built-in heuristic, also the server's autopilot.

    Cards: the one least likely to take a row now (a sixth card or a card that
    fits nowhere costs that row's bullheads; otherwise a fuller row and a larger
    gap cost a little). Rows: the cheapest. Ties: a row that is not full. Draft:
    the card with the fewest bullheads, middle cards first.
    """

    def __init__(self, seed: int | None = None) -> None:
        pass  # deterministic: the seed is accepted for a uniform constructor

    def __repr__(self) -> str:
        return "HeuristicStrategy()"

    def decide(self, view: View) -> Decision:
        seat = view.seat
        if seat is None or not view.legal:
            raise ValueError("nothing to decide: view.legal is empty")
        phase = view.phase
        if phase is Phase.COMMIT:
            return Commit(seat, min(view.hand, key=lambda c: self._card_cost(view, c)))
        if phase is Phase.ROW_CHOICE:
            return ChooseRow(seat, cheapest_row(view.rows))
        if phase is Phase.TIE_CHOICE:
            choices = [d for d in view.legal if isinstance(d, ChooseTie)]
            return min(choices, key=lambda d: (len(view.rows[d.place.row]) >= ROW_LIMIT,
                                               row_bullheads(view.rows[d.place.row])))
        if phase is Phase.DRAFT:
            picks = [d for d in view.legal if isinstance(d, DraftPick)]
            middle = (len(view.options.deck) + 1) / 2
            return min(picks, key=lambda d: (BULLHEADS[d.card], abs(d.card - middle)))
        return view.legal[0]

    @staticmethod
    def _card_cost(view: View, card: int) -> float:
        places = places_for(view.rows, card, view.options.professional)
        if not places:
            return min(row_bullheads(r) for r in view.rows) + 0.5
        row = view.rows[places[0].row]
        if len(row) >= ROW_LIMIT:
            return row_bullheads(row) + 0.5
        gap = abs(card - (row[-1] if card > row[-1] else row[0]))
        return (len(row) / ROW_LIMIT) ** 2 * row_bullheads(row) * 0.5 + gap / 200
