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

A second question is asked of the same cards, for the seats read as random:
does the seat play *carefully* (a card that takes no row, as ``search``
imagines good players: ``careful_index``) or truly at random? A good searching
bot such as ``mcs`` agrees with the heuristic little more often than a random
one, but it rarely takes an expensive row. Its likelihood is a soft one: a card
is chosen with weight ``exp(-cost)``, the cost being the bullheads of the row it
would take now, or else a little for a long row and a wide gap; measured on the
cards of ``mcs`` and ``random`` seats, that told them apart a little better
per card than the other weights tried (benchmarks/README.md, session 10).
``careful_of(seat)`` starts at one half.

>>> model = OpponentModel()
>>> round(model.careless, 3), round(model.careless_of(1), 3), model.careful_of(1)
(0.993, 0.993, 0.5)
"""

from __future__ import annotations

import math
import random
from bisect import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from nimmt.engine import Phase, View

from .rollout import SortedRows, heuristic_chooser

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
#: A careful player is imagined to play by the soft rule this often (and any
#: card otherwise); the rule's weights are exp(-cost / CAREFUL_TEMPERATURE).
CAREFUL_AGREE = 0.8
CAREFUL_TEMPERATURE = 1.0


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
        # per seat, the log likelihood ratio (random : careful) of every card it played
        self._careful: list[float] = []
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

    def careful_of(self, seat: int) -> float:
        """The chance that ``seat``, if it is not a sensible player, plays
        carefully rather than at random (one half before any evidence)."""
        if seat >= len(self._careful):
            return 0.5
        return 1 / (1 + math.exp(max(-LIMIT, min(LIMIT, self._careful[seat]))))

    def observe(self, view: View, pools: Sequence[tuple[int, ...] | None] | None = None) -> None:
        """Learn from the turn remembered before, if its cards are in view now;
        at a commit, remember this turn's rows (``pools``: per seat, the cards
        it may hold, None for this seat)."""
        if view.seat is None:
            return
        n = view.players
        if len(self._evidence) != n:
            self._evidence = [0.0] * n
            self._careful = [0.0] * n
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
        sorted_rows = None if professional else SortedRows.of(turn.rows)
        weights: dict[int, float] = {}
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
            if sorted_rows is not None:
                for c in pool:  # a card's weight depends on the rows only: once a turn
                    if c not in weights:
                        weights[c] = _careful_weight(sorted_rows, c)
                chance = sum(weights[card] / sum(weights[c] for c in hand)
                             for hand in hands) / TRIES
                careful = CAREFUL_AGREE * chance + (1 - CAREFUL_AGREE) / h
                self._careful[seat] += math.log((1 / h) / careful)
            self.cards_seen += 1


def _careful_weight(rows: SortedRows, card: int) -> float:
    """How much a careful player (as the model weighs it) likes ``card``: less
    the more the row it would take now costs, a little less on a longer row
    and after a wider gap."""
    lasts = rows.lasts
    if card < lasts[0]:
        cost = float(min(rows.heads))
    else:
        i = bisect(lasts, card) - 1
        if rows.lengths[i] == 5:
            cost = float(rows.heads[i])
        else:
            cost = 0.3 * rows.lengths[i] + 0.01 * (card - lasts[i])
    return math.exp(-cost / CAREFUL_TEMPERATURE)


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
