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
cards later in the view's ``plays`` (who played which card this round), and
keeps what it learnt over the rounds of a game, a running total of the log
likelihood ratios per seat. Two ideas of the table are weighed by how well
each explains the cards seen: every seat plays alike (``careless``, the
table's chance of random play, from all the evidence), or each seat plays
its own way (only its own cards count). ``careless_of(seat)`` mixes the two
by their weight: the share of random cards a searching bot imagines that
seat playing.

>>> model = OpponentModel()
>>> round(model.careless, 3), round(model.careless_of(1), 3)
(0.993, 0.993)
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
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
#: Before any evidence, the chance that every seat of a table plays alike
#: (all random or all sensible) rather than each its own way.
ALIKE = 0.8


@dataclass(frozen=True, slots=True)
class _Turn:
    round: int
    turn: int
    rows: tuple[tuple[int, ...], ...]
    hand: tuple[int, ...]  # this seat's hand when it committed
    pools: tuple[tuple[int, ...], ...]  # per seat, what it could have held
    hand_size: int


class OpponentModel:
    """The chance that each seat of this seat's table plays at random, from
    what it has seen."""

    def __init__(self, noise: float = 0.1) -> None:
        self._noise = noise
        self._rng = random.Random(0x6E696D6D74)
        self._pending: _Turn | None = None
        # per seat, the log likelihood ratio (random : sensible) of every card it played
        self._evidence: list[float] = []
        self.cards_seen = 0

    @property
    def careless(self) -> float:
        """The chance that the table plays at random (0.993 before any evidence)."""
        return _fit(sum(self._evidence))

    def careless_of(self, seat: int) -> float:
        """The chance that ``seat`` plays at random. Two ideas of the table are
        weighed by how well each explains every card seen: all seats play
        alike (then the whole table's evidence counts for each), or each seat
        plays its own way (then only its own cards count)."""
        evidence = self._evidence
        if seat >= len(evidence):
            return self.careless
        prior = 1 / (1 + math.exp(-PRIOR_LOG_ODDS))
        alike = _fit(sum(evidence))
        own = _fit(evidence[seat])
        # each idea's likelihood of the cards seen, over the likelihood if all were sensible
        log_alike = _log_mixture(prior, sum(evidence))
        log_apart = sum(_log_mixture(prior, e) for e in evidence)
        log_odds = math.log(ALIKE / (1 - ALIKE)) + log_alike - log_apart
        weight = 1 / (1 + math.exp(-max(-50.0, min(50.0, log_odds))))
        return weight * alike + (1 - weight) * own

    def observe(self, view: View, pools: Sequence[tuple[int, ...] | None] | None = None) -> None:
        """Learn from the turn remembered before, if its cards are in view now;
        at a commit, remember this turn's rows (``pools``: per seat, the cards
        it may hold, None for this seat)."""
        if view.seat is None:
            return
        n = view.players
        if len(self._evidence) != n:
            self._evidence = [0.0] * n
        pending = self._pending
        if pending is not None and pending.round == view.round:
            start = (pending.turn - 1) * n
            chunk = view.plays[start : start + n]
            if len(chunk) == n:
                self._learn(pending, chunk, view.options.professional)
                self._pending = None
        elif pending is not None:
            self._pending = None
        if view.phase is Phase.COMMIT and pools is not None and view.hand:
            if len(view.plays) == (view.turn - 1) * n:
                self._pending = _Turn(view.round, view.turn, view.rows, view.hand,
                                      tuple(p or () for p in pools), len(view.hand))

    def _learn(self, turn: _Turn, plays: tuple[tuple[int, int], ...], professional: bool) -> None:
        h = turn.hand_size
        if h < 2:
            return
        choose = heuristic_chooser(self._rng, self._noise, [0.0] * TRIES, professional)
        rows = [list(r) for r in turn.rows]
        sample = self._rng.sample
        for seat, card in plays:
            pool = turn.pools[seat] if seat < len(turn.pools) else ()
            if card in turn.hand or card not in pool or len(pool) < h:
                continue  # this seat's own card (or a pool that does not fit)
            others = [c for c in pool if c != card]
            hands = [sorted([card, *sample(others, h - 1)]) for _ in range(TRIES)]
            chosen = sum(1 for c in choose(rows, hands) if c == card)
            sensible = AGREE * (chosen + 0.5) / (TRIES + 1) + (1 - AGREE) / h
            self._evidence[seat] += math.log((1 / h) / sensible)
            self.cards_seen += 1


def _log_mixture(prior: float, evidence: float) -> float:
    """log(prior * e**evidence + 1 - prior), without overflow."""
    if evidence > 0:
        return evidence + math.log(prior + (1 - prior) * math.exp(-evidence))
    return math.log(prior * math.exp(evidence) + 1 - prior)


def _fit(evidence: float) -> float:
    """The chance of random play, from the prior odds and the likelihood ratio
    of the evidence."""
    log_odds = max(-LIMIT, min(LIMIT, PRIOR_LOG_ODDS + evidence))
    return 1 / (1 + math.exp(-log_odds))
