"""How carelessly the other seats play, learnt from every card they played.

Each card an opponent played is weighed as evidence: how likely was that
card under random play, and how likely under sensible play (the heuristic's
idea, as the rollouts imagine it)? A random player plays each card of its
``h``-card hand with chance ``1/h``. For a sensible player,
``OpponentModel`` deals the card with ``h - 1`` others drawn from what that
opponent could have held, many times, and counts how often the rollouts'
heuristic would have chosen it. A card the heuristic would rarely choose is
strong evidence of careless play; a card it would choose is strong evidence
of sensible play. One turn of three cards usually tells random bots from
sensible ones.

The model remembers the rows each time its seat commits, finds that turn's
cards later in the view's ``seen`` (the cards of a turn are seen together),
and keeps what it learnt over the rounds of a game. It does not tell seats
apart (a view does not say who played which card of an earlier turn): it
weighs one question, "does this table play at random?", adding up the log
likelihood ratio of every card seen to the prior odds. The result,
``careless``, is that chance: the share of random cards a searching bot
imagines everyone playing.

>>> model = OpponentModel()
>>> round(model.careless, 3)
0.993
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from nimmt.engine import Phase, View

from .rollout import heuristic_chooser

__all__ = ["OpponentModel"]

#: Deals of an opponent's hand tried per observed card.
TRIES = 32
#: A sensible player is imagined to play the heuristic's card this often (and
#: any card otherwise): people and search bots do not always agree with it.
AGREE = 0.8
#: Before any evidence the table is thought random (odds e**5, 0.993): the
#: first turn is searched as ``mcs`` would. One turn of sensible cards usually
#: overturns it (against three heuristic bots: 92% of second-turn commits),
#: and random cards that happen to look sensible rarely do (against three
#: random bots: 1% of commits, where odds of e**3 gave 5%, 19% at turn 2).
#: ``python benchmarks/opponent_model.py`` (150 single rounds each).
PRIOR_LOG_ODDS = 5.0
#: The model never becomes surer than odds of e**6 (0.9975) either way.
LIMIT = 6.0


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
    """The chance that this seat's table plays at random, from what it has seen."""

    def __init__(self, noise: float = 0.1) -> None:
        self._noise = noise
        self._rng = random.Random(0x6E696D6D74)
        self._pending: _Turn | None = None
        # the log likelihood ratio (random : sensible) of every card seen, summed
        self._evidence = 0.0
        self.cards_seen = 0
        self._careless = 1 / (1 + math.exp(-PRIOR_LOG_ODDS))

    @property
    def careless(self) -> float:
        """The chance that the others play at random (0.993 before any evidence)."""
        return self._careless

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
        h = turn.hand_size
        if h < 2 or len(turn.pool) < h:
            return
        choose = heuristic_chooser(self._rng, self._noise, [0.0] * TRIES, professional)
        rows = [list(r) for r in turn.rows]
        sample = self._rng.sample
        for card in cards:
            if card in turn.hand or card not in turn.pool:
                continue  # this seat's own card (or a pool that does not fit)
            others = [c for c in turn.pool if c != card]
            hands = [sorted([card, *sample(others, h - 1)]) for _ in range(TRIES)]
            chosen = sum(1 for c in choose(rows, hands) if c == card)
            sensible = AGREE * (chosen + 0.5) / (TRIES + 1) + (1 - AGREE) / h
            self._evidence += math.log((1 / h) / sensible)
            self.cards_seen += 1
        self._careless = self._fit()

    def _fit(self) -> float:
        """The chance that the table plays at random, from the prior odds and
        the likelihood ratio of every card seen."""
        log_odds = max(-LIMIT, min(LIMIT, PRIOR_LOG_ODDS + self._evidence))
        return 1 / (1 + math.exp(-log_odds))
