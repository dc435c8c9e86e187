"""How carelessly the other seats play, learnt from the cards they played.

A sensible player (a person, the heuristic, a search bot) rarely plays a card
that takes a row when it holds one that does not; a careless (random) player
does so as often as such cards are in its hand. ``OpponentModel`` remembers
the rows each time its seat commits, finds that turn's cards later in the
view's ``seen`` (the cards of a turn are seen together), and updates the odds
that the opponents are careless with each card they played: a card that took
a row is evidence for careless play, a safe one for sensible play. The
result, ``careless``, is the share of random cards a searching bot imagines
its opponents playing. The model sees only the view; it does not tell seats
apart (a view does not say who played which card of an earlier turn).

>>> model = OpponentModel()
>>> model.careless
0.5
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from nimmt.engine import BULLHEADS, Phase, View

__all__ = ["OpponentModel"]

#: The model never becomes surer than this (people change their play).
MOST, LEAST = 0.95, 0.05
_LIMIT = math.log(MOST / (1 - MOST))


@dataclass(frozen=True, slots=True)
class _Turn:
    round: int
    turn: int
    rows: tuple[tuple[int, ...], ...]
    hand: tuple[int, ...]  # this seat's hand when it committed
    pool: tuple[int, ...]  # what an opponent could have held
    hand_size: int
    offset: int  # where this turn's cards start in ``seen``


class OpponentModel:
    """The odds that this seat's opponents play at random, from what it has seen."""

    def __init__(self) -> None:
        self._log_odds = 0.0
        self._pending: _Turn | None = None

    @property
    def careless(self) -> float:
        """The estimated share of random plays, between 0.05 and 0.95."""
        return 1 / (1 + math.exp(-self._log_odds))

    def observe(self, view: View, pool: tuple[int, ...] | None = None) -> None:
        """Learn from the turn remembered before, if its cards are in view now;
        at a commit, remember this turn's rows (``pool``: cards an opponent may
        hold, if known)."""
        if view.seat is None:
            return
        n = view.players
        pending = self._pending
        if pending is not None and pending.round == view.round:
            start = pending.offset + (pending.turn - 1) * n
            chunk = view.seen[start : start + n]
            if len(chunk) == n:
                self._learn(pending, chunk, view.options.professional)
                self._pending = None
        elif pending is not None:
            self._pending = None
        if view.phase is Phase.COMMIT and pool is not None and view.hand:
            offset = len(view.draft_picks) + 4
            if len(view.seen) == offset + (view.turn - 1) * n:
                self._pending = _Turn(view.round, view.turn, view.rows, view.hand, pool,
                                      len(view.hand), offset)

    def _learn(self, turn: _Turn, cards: tuple[int, ...], professional: bool) -> None:
        if not turn.pool or turn.hand_size < 2:
            return
        takers = sum(1 for c in turn.pool if _takes_a_row(turn.rows, c, professional))
        q = min(max(takers / len(turn.pool), 0.02), 0.98)
        # a sensible player takes a row only when every card it holds would
        q_sensible = max(q ** turn.hand_size, 0.02)
        for card in cards:
            if card in turn.hand:
                continue  # this seat's own card
            if _takes_a_row(turn.rows, card, professional):
                self._log_odds += math.log(q / q_sensible)
            else:
                self._log_odds += math.log((1 - q) / (1 - q_sensible))
        self._log_odds = max(-_LIMIT, min(_LIMIT, self._log_odds))


def _takes_a_row(rows: tuple[tuple[int, ...], ...], card: int, professional: bool) -> bool:
    """Whether ``card`` alone on these rows would take one (a sixth card, or no place)."""
    target, gap = -1, 1000
    for i, row in enumerate(rows):
        d = card - row[-1]
        if d < 0 and professional:
            d = row[0] - card
        if 0 < d < gap:
            target, gap = i, d
    if target < 0:
        return min(sum(BULLHEADS[c] for c in row) for row in rows) > 0
    return len(rows[target]) >= 5
