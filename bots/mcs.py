"""``mcs``: the flat Monte Carlo baseline (the published kind of bot).

For each decision: sample deals of the unseen cards that agree with the view,
let every other seat play uniformly random cards, play the round out at
random, and keep the decision with the fewest bullheads on average. A fixed
number of sampled deals (default 300) or, with ``ms``, as many as fit in that
many milliseconds. Shipped so that anyone can reproduce the comparison with
``search`` (docs/ARENA.md).

>>> from nimmt.engine import Game, Options
>>> game = Game(Options(players=4), seed=3)
>>> MonteCarloStrategy(seed=1, samples=20).decide(game.view(0)) in game.legal_decisions(0)
True
"""

from __future__ import annotations

import random
import time

from nimmt.engine import Commit, Decision, DraftPick, Phase, View

from .montecarlo import monte_carlo
from .rollout import DraftSituation, Situation, random_finisher
from .sampling import Unseen

__all__ = ["MonteCarloStrategy"]


class MonteCarloStrategy:
    """Flat Monte Carlo: random opponents, random rollouts."""

    def __init__(self, seed: int | None = None, samples: int = 300, ms: float | None = None) -> None:
        if type(samples) is not int or samples < 1:
            raise ValueError(f"samples must be a whole number of at least 1, not {samples!r}")
        if ms is not None and not ms > 0:
            raise ValueError(f"ms must be a positive number of milliseconds, not {ms!r}")
        self.samples = samples
        self.ms = ms
        self._rng = random.Random(seed)

    def __repr__(self) -> str:
        budget = f"ms={self.ms!r}" if self.ms is not None else f"samples={self.samples!r}"
        return f"MonteCarloStrategy({budget})"

    def decide(self, view: View) -> Decision:
        start = time.perf_counter()
        legal = view.legal
        if view.seat is None or not legal:
            raise ValueError("nothing to decide: view.legal is empty")
        if len(legal) == 1:
            return legal[0]
        me = view.seat
        pro = view.options.professional
        deadline = start + self.ms / 1000 * 0.85 if self.ms is not None else None
        samples = None if deadline is not None else self.samples
        if view.phase is Phase.DRAFT:
            draft = DraftSituation.of(view)
            cards = [d.card for d in legal if isinstance(d, DraftPick)]
            if samples is not None:  # a pick has up to 104 candidates: spread the deals
                samples = max(2, samples * 10 // len(cards))

            def draft_cost(card: int, world: None, seed: int) -> float:
                r = random.Random(seed)
                return draft.outcome(card, r, random_finisher(r, pro), None)[me]

            best = monte_carlo(cards, lambda rng: None, draft_cost, self._rng,
                               samples=samples, deadline=deadline).best
            return DraftPick(me, best)
        situation = Situation.of(view)
        unseen = Unseen.of(view)
        commit = view.phase is Phase.COMMIT

        def sample_world(rng: random.Random) -> tuple[list[list[int]], list[int] | None]:
            hands = unseen.deal(rng)
            return hands, ([rng.choice(h) for h in hands] if commit else None)

        def cost(decision: Decision, world: tuple[list[list[int]], list[int] | None], seed: int) -> float:
            hands, first = world
            finish = random_finisher(random.Random(seed), pro)
            return situation.outcome(decision, hands, first, finish)[me]

        candidates = [Commit(me, c) for c in view.hand] if commit else list(legal)
        best = monte_carlo(candidates, sample_world, cost, self._rng,
                           samples=samples, deadline=deadline).best
        return best
