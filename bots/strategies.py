"""Strategies: a decision from a player's view, never from the full state.

>>> from nimmt.engine import Game, Options
>>> game = Game(Options(players=3), seed=2)
>>> decision = HeuristicStrategy().decide(game.view(1))
>>> decision in game.legal_decisions(1)
True
"""

from __future__ import annotations

import random
from typing import Protocol
from collections.abc import Callable

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

__all__ = ["Strategy", "RandomStrategy", "HeuristicStrategy", "STRATEGIES", "make_strategy"]


class Strategy(Protocol):
    def decide(self, view: View) -> Decision:
        """One of ``view.legal``; called only when ``view.legal`` is not empty."""
        ...


class RandomStrategy:
    """Any legal decision, uniformly at random (seedable)."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

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


STRATEGIES: dict[str, Callable[[int | None], Strategy]] = {
    "heuristic": lambda seed: HeuristicStrategy(),
    "random": lambda seed: RandomStrategy(seed),
}


def make_strategy(name: str, seed: int | None = None) -> Strategy:
    """A strategy by its name (see ``STRATEGIES``)."""
    try:
        return STRATEGIES[name](seed)
    except KeyError:
        raise ValueError(f"no strategy {name!r}: choose one of {sorted(STRATEGIES)}") from None
