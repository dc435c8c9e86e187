"""``mcs``: the flat Monte Carlo baseline (the published kind of bot), at its strongest.

For each decision: deal the unseen cards at random, consistently with the
view, let every seat (this one included, after this decision) play the rest
of the round at random, and keep the decision with the fewest bullheads on
average. Every candidate is scored on the same deals (common random numbers:
``RandomTable``); a deal dealt in random order *is* random play, so each deal
fixes the card every seat plays at every turn and every candidate meets the
very same cards. The round is played on the cheapest loop (``play_first``,
which copies nothing). A fixed number of sampled deals (default 300) or, with
``ms``, as many as fit in that many milliseconds, less a small margin
(``deadline_after``). Shipped so that anyone can reproduce the comparison
with ``search`` (docs/ARENA.md).

>>> from nimmt.engine import Game, Options
>>> game = Game(Options(players=4), seed=3)
>>> MonteCarloStrategy(seed=1, samples=20).decide(game.view(0)) in game.legal_decisions(0)
True
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from nimmt.engine import Commit, Decision, DraftPick, Phase, View

from .montecarlo import deadline_after, monte_carlo
from .rollout import (
    DraftSituation,
    Situation,
    SortedRows,
    in_order_finisher,
    others_by_turn,
    play_first,
    random_finisher,
)
from .sampling import Unseen

__all__ = ["MonteCarloStrategy", "RandomTable", "RandomWorld"]

RandomWorld = tuple[list[list[int]], Sequence]


class RandomTable:
    """A decision of ``view``'s seat, every seat imagined playing at random.

    ``world`` deals the unseen cards with every hand in random order: the
    order each seat plays it in, this seat's hand after the candidate card
    included. ``penalties`` plays one candidate on such a world; it draws no
    random numbers, so every candidate meets exactly the same cards. A card
    to commit under base rules is played on ``play_first``, the rest by
    ``Situation.outcome`` with every hand played in order.
    """

    def __init__(self, view: View, depth: int = 10) -> None:
        assert view.seat is not None
        self.seat = view.seat
        self.situation = Situation.of(view)
        self.unseen = Unseen.of(view)
        self.commit = view.phase is Phase.COMMIT
        professional = view.options.professional
        self.start = SortedRows.of(view.rows) if self.commit and not professional else None
        self.turns = min(len(view.hand), 1 + depth)
        self.finish = in_order_finisher(professional, depth)

    def candidates(self, view: View) -> list[Decision]:
        if self.commit:
            return [Commit(self.seat, c) for c in view.hand]
        return list(view.legal)

    def world(self, rng: random.Random) -> RandomWorld:
        return self.world_of(self.unseen.deal(rng, shuffled=True))

    def world_of(self, hands: list[list[int]]) -> RandomWorld:
        """The world where every seat plays ``hands`` in their order (this
        seat: the candidate first, then the rest in order)."""
        if self.start is not None:
            return hands, others_by_turn(hands, self.seat, self.turns)
        return hands, [h[0] for h in hands] if self.commit else ()

    def penalties(self, decision: Decision, world: RandomWorld) -> list[int]:
        """Bullheads per seat from now to the round's end (or ``depth`` turns)."""
        hands, extra = world
        if self.start is not None:
            assert isinstance(decision, Commit)  # ``start`` is only for a card to commit
            return play_first(self.start, extra, hands[self.seat], self.seat, decision.card,
                              self.turns)
        return self.situation.outcome(decision, hands, extra or None, self.finish)


class MonteCarloStrategy:
    """Flat Monte Carlo: random opponents, random rollouts, common deals."""

    def __init__(self, seed: int | None = None, samples: int = 300, ms: float | None = None) -> None:
        if type(samples) is not int or samples < 1:
            raise ValueError(f"samples must be a whole number of at least 1, not {samples!r}")
        if ms is not None and (not isinstance(ms, int | float) or not 0 < ms <= 60_000):
            raise ValueError(f"ms must be a number of milliseconds, 0 < ms <= 60000, not {ms!r}")
        self.samples = samples
        self.ms = ms
        self._rng = random.Random(seed)
        self.clock = time.perf_counter  # the tests replace it

    def __repr__(self) -> str:
        budget = f"ms={self.ms!r}" if self.ms is not None else f"samples={self.samples!r}"
        return f"MonteCarloStrategy({budget})"

    def decide(self, view: View) -> Decision:
        start = self.clock()
        legal = view.legal
        if view.seat is None or not legal:
            raise ValueError("nothing to decide: view.legal is empty")
        if len(legal) == 1:
            return legal[0]
        me = view.seat
        deadline = deadline_after(start, self.ms) if self.ms is not None else None
        samples = None if deadline is not None else self.samples
        if view.phase is Phase.DRAFT:
            pro = view.options.professional
            draft = DraftSituation.of(view)
            cards = [d.card for d in legal if isinstance(d, DraftPick)]
            if samples is not None:  # a pick has up to 104 candidates: spread the deals
                samples = max(2, samples * 10 // len(cards))

            def draft_cost(card: int, world: None, seed: int) -> float:
                r = random.Random(seed)
                return draft.outcome(card, r, random_finisher(r, pro), None)[me]

            best = monte_carlo(cards, lambda rng: None, draft_cost, self._rng,
                               samples=samples, deadline=deadline, clock=self.clock).best
            return DraftPick(me, best)
        table = RandomTable(view)
        return monte_carlo(table.candidates(view), table.world,
                           lambda decision, world, seed: table.penalties(decision, world)[me],
                           self._rng, samples=samples, deadline=deadline, clock=self.clock).best
