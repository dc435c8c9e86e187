"""``search``: the strongest built-in player, thinking for a fixed time per decision.

Determinized Monte Carlo with a model of the opponents, on the engine's fast
path. For each decision it repeatedly

1. deals the cards it cannot see to the opponents, consistently with the view
   (``Unseen``: its own hand, every card seen this round, and in a Draft round
   the opponents' exact hands, which their public picks reveal);
2. lets every opponent commit this turn's card the way a sensible player
   would (the heuristic's preference with noise), or at random as often as
   that seat is thought to play at random (``OpponentModel``, learnt from
   the cards each seat played; before any, every seat is thought random);
3. plays each candidate decision on that same deal, and the rest of the round
   as follows. When every seat is thought random (0.95 or more: so it is
   before any card is seen), this is the plain method, ``mcs``'s own
   (``RandomTable``): the deal fixes the order in which every seat plays its
   hand, so each candidate meets exactly the same cards, on the cheapest loop.
   Otherwise, for a card to commit under base rules (``later=0``, the
   default), the opponents' cards of step 2 are played this turn and every
   later card, this seat's included, in a random order fixed for the deal,
   on the same loop. With ``later=1`` (and for row choices and Professional
   rules) every seat plays every later turn by its mix of noisy heuristic and
   random cards (its own: the others' on average), on one random seed shared
   by the candidates: about five times the cost of a deal, which measured
   worse at equal time (benchmarks/README.md, issue 25). With ``careful=1``
   (off by default since issue 25), a card to commit at a careless table is
   played instead with this seat's later cards, and those of each opponent
   drawn careful for the deal (with the chance ``OpponentModel.careful_of``
   gives it), chosen as a careful player would (``careful_index``: random,
   but never into a full row or under every row while another card fits):
   better at an equal number of deals, worse at equal time. ``ahead=K`` and
   ``first=1`` keep the plain loop at a careless table and add only careful
   choices that cost little (``PrefixTable``): this seat's next ``K`` cards,
   and a careful card this turn from each opponent drawn careful (one choice
   a deal); off by default, not better than the plain method in screens;

and keeps the decision with the lowest mean cost. With ``halving=1`` the time
is spent in phases (sequential halving): after each, the worse half of the
candidates drops out, so the close ones are scored on several times the
deals; measured, it did no better than the flat search (benchmarks/README.md),
so it is off by default.
Row choices and Professional ties are searched the same way,
with this turn's revealed cards still to be placed in view; Draft picks
simulate the rest of the draft and the round. Without ``samples`` it stops
on the clock: it samples until ``ms`` milliseconds (default 100) less a small
margin (``deadline_after``), and falls back on the heuristic if not even one
deal could be played in that time. With ``samples=N`` no clock stops it: it
plays exactly N deals (``ms`` is then not read), which makes it reproducible
from its seed whatever the machine's speed or load; its time is bounded by the
work of N deals instead (each candidate played to the round's end once a deal).

``problem(view)`` is the search of one decision as a Monte Carlo problem (the
candidates, the deal sampler, the cost of a candidate on a deal): the coach's
analysis (``nimmt.bots.analysis``) scores every candidate on it.

In a game of several rounds, near its end (the last round, or a total close to
the point limit) the cost of a result also counts finishing behind the leader.

>>> from nimmt.engine import Game, Options
>>> game = Game(Options(players=4), seed=3)
>>> SearchStrategy(seed=1, ms=20).decide(game.view(0)) in game.legal_decisions(0)
True
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from nimmt.engine import Commit, Decision, DraftPick, Phase, View

from .basic import HeuristicStrategy
from .careful import CarefulTable, PrefixTable
from .mcs import RandomTable, RandomWorld
from .montecarlo import deadline_after, monte_carlo
from .opponents import OpponentModel
from .rollout import (
    DraftSituation,
    Situation,
    draft_key,
    heuristic_chooser,
    heuristic_finisher,
)
from .sampling import InconsistentView, Unseen

__all__ = ["SearchStrategy", "Problem"]

#: Near a game's end, finishing behind the leader costs this many bullheads.
BEHIND_COST = 8.0
#: A total this close to the point limit makes the round possibly the last.
NEAR_LIMIT = 20
#: Draft: picks searched (the heuristic's favourites, and the lowest and highest card).
DRAFT_CANDIDATES = 6
#: Opponents imagined this careless or more play at random: each sampled world
#: then fixes the order they play their cards in, shared by every candidate.
ALL_RANDOM = 0.95


@dataclass(frozen=True, slots=True)
class Problem:
    """One decision as ``search`` scores it: ``cost(candidate, sample_world(rng),
    seed)`` is what that candidate costs on one sampled deal (the same deal and
    seed for every candidate: common random numbers)."""

    candidates: Sequence[Any]
    sample_world: Callable[[random.Random], Any]
    cost: Callable[[Any, Any, int], float]


class SearchStrategy:
    """Monte Carlo search against modelled opponents, within ``ms`` per decision."""

    def __init__(
        self,
        seed: int | None = None,
        ms: float = 100.0,
        noise: float = 1.0,
        mix: float | None = None,
        samples: int | None = None,
        depth: int = 10,
        halving: bool | int = False,
        careful: bool | int = False,
        later: bool | int = False,
        ahead: int = 0,
        first: bool | int = False,
    ) -> None:
        if not isinstance(ms, int | float) or not 0 < ms <= 60_000:
            raise ValueError(f"ms must be a number of milliseconds, 0 < ms <= 60000, not {ms!r}")
        if not isinstance(noise, int | float) or not 0 <= noise <= 100:
            raise ValueError(f"noise must be 0 to 100 bullheads, not {noise!r}")
        if mix is not None and (not isinstance(mix, int | float) or not 0 <= mix <= 1):
            raise ValueError(f"mix must be a probability, 0 to 1, not {mix!r}")
        if samples is not None and (type(samples) is not int or samples < 1):
            raise ValueError(f"samples must be a whole number of at least 1, not {samples!r}")
        if type(depth) is not int or not 1 <= depth <= 10:
            raise ValueError(f"depth must be 1 to 10 turns, not {depth!r}")
        if halving not in (0, 1):
            raise ValueError(f"halving must be 1 (on) or 0 (off), not {halving!r}")
        if careful not in (0, 1):
            raise ValueError(f"careful must be 1 (on) or 0 (off), not {careful!r}")
        if later not in (0, 1):
            raise ValueError(f"later must be 1 (on) or 0 (off), not {later!r}")
        if type(ahead) is not int or not 0 <= ahead <= 9:
            raise ValueError(f"ahead must be 0 to 9 turns, not {ahead!r}")
        if first not in (0, 1):
            raise ValueError(f"first must be 1 (on) or 0 (off), not {first!r}")
        self.ahead = ahead
        self.first = bool(first)
        self.careful = bool(careful)
        self.later = bool(later)
        self.samples = samples
        self.depth = depth
        self.halving = bool(halving)
        self.ms = float(ms)
        self.noise = float(noise)
        self.mix = float(mix) if mix is not None else None
        self.opponents = OpponentModel()
        self._rng = random.Random(seed)
        self._fallback = HeuristicStrategy()
        self.clock = time.perf_counter  # the tests replace it

    def __repr__(self) -> str:
        extra = f", mix={self.mix!r}" if self.mix is not None else ""
        extra += f", samples={self.samples!r}" if self.samples is not None else ""
        extra += f", depth={self.depth!r}" if self.depth != 10 else ""
        extra += ", halving=True" if self.halving else ""
        extra += ", careful=True" if self.careful else ""
        extra += ", later=True" if self.later else ""
        extra += f", ahead={self.ahead!r}" if self.ahead else ""
        extra += ", first=True" if self.first else ""
        return f"SearchStrategy(ms={self.ms!r}, noise={self.noise!r}{extra})"

    def decide(self, view: View) -> Decision:
        start = self.clock()
        legal = view.legal
        if view.seat is None or not legal:
            raise ValueError("nothing to decide: view.legal is empty")
        if len(legal) == 1:
            if view.phase is Phase.COMMIT:  # still learn from the turn before
                try:
                    self._observe(view, Unseen.of(view))
                except InconsistentView:
                    pass
            return legal[0]
        # keep a margin for the caller's own overhead and this machine's noise;
        # a sample count is never cut short by the clock (it would not be reproducible)
        deadline = deadline_after(start, self.ms) if self.samples is None else None
        try:
            if view.phase is Phase.DRAFT:
                choice = self._draft(view, deadline)
            else:
                choice = self._play(view, deadline)
        except InconsistentView:
            choice = None
        return choice if choice is not None else self._fallback.decide(view)

    def _mixes(self, view: View) -> list[float]:
        """Per seat, how often it is imagined to play a random card: as ``mix``
        says, or as learnt from that seat's play (``OpponentModel``). This
        seat's own later turns are imagined like the others' on average:
        measured, that judged better than imagining itself always sensible
        (at a careless table with ``careful``, its later cards are careful
        cards instead: ``_play``)."""
        n, me = view.players, view.seat
        assert me is not None
        if self.mix is not None:
            return [self.mix] * n
        mixes = [self.opponents.careless_of(s) for s in range(n)]
        others = [m for s, m in enumerate(mixes) if s != me]
        mixes[me] = sum(others) / len(others)
        return mixes

    def _observe(self, view: View, unseen: Unseen) -> None:
        """Let the opponent model learn from the cards in view."""
        pools = [None if s == view.seat else (h if h is not None else unseen.pool)
                 for s, h in enumerate(unseen.hands)]
        self.opponents.observe(view, pools)

    def _play(self, view: View, deadline: float | None) -> Decision | None:
        problem = self.problem(view)
        estimate = monte_carlo(problem.candidates, problem.sample_world, problem.cost, self._rng,
                               deadline=deadline, samples=self.samples, halving=self.halving,
                               clock=self.clock)
        return estimate.best if estimate.samples else None

    def problem(self, view: View, score: Callable[[list[int]], float] | None = None) -> Problem:
        """The decision of ``view`` (a commit, row or tie choice) as this search
        scores it. The opponent model learns from ``view`` first, as ``decide``
        has it do. ``score``: what a simulated round's bullheads per seat cost
        this seat (default: ``decide``'s, which near a game's end counts
        finishing behind the leader). ``InconsistentView`` if no deal fits."""
        me = view.seat
        assert me is not None
        unseen = Unseen.of(view)
        self._observe(view, unseen)
        commit = view.phase is Phase.COMMIT
        pro = view.options.professional
        cost_of = score if score is not None else _cost_function(view)
        mixes = self._mixes(view)
        commits = [Commit(me, c) for c in view.hand]
        candidates: list[Decision] = list(commits) if commit else list(view.legal)

        careless = min(mixes) >= ALL_RANDOM
        if careless and commit and not pro and self.careful:
            # this seat's later cards and those of the seats drawn careful for
            # the world are careful cards; the others play the deal's order
            chances = [(s, self.opponents.careful_of(s)) for s in range(view.players) if s != me]
            careful = CarefulTable(view, chances, self.depth)
            return Problem(commits, careful.world, lambda decision, world, seed: cost_of(
                careful.penalties(decision.card, world)))
        if careless and commit and not pro and (self.ahead or self.first):
            # the plain method, but this seat's next ``ahead`` cards careful and,
            # with ``first``, the opponents drawn careful commit a careful card now
            chances = [(s, self.opponents.careful_of(s) if self.first else 0.0)
                       for s in range(view.players)]
            prefix = PrefixTable(view, chances, self.ahead, self.depth)
            return Problem(commits, prefix.world, lambda decision, world, seed: cost_of(
                prefix.penalties(decision.card, world)))
        if careless:  # random play is a random order, fixed for every candidate
            table = RandomTable(view, self.depth)
            return Problem(candidates, table.world,
                       lambda decision, world, seed: cost_of(table.penalties(decision, world)))

        situation_rows = [list(r) for r in view.rows]
        opponents = heuristic_chooser(self._rng, self.noise, mixes, pro)
        if commit and not pro and not self.later:
            # the opponents' cards this turn as the model expects them; every
            # later card, its own included, in a random order fixed for the world
            table = RandomTable(view, self.depth)

            def first_world(rng: random.Random) -> RandomWorld:
                hands = unseen.deal(rng)
                firsts = opponents(situation_rows, hands)
                for s, hand in enumerate(hands):
                    if s != me:
                        hand.remove(firsts[s])
                    rng.shuffle(hand)
                    if s != me:
                        hand.insert(0, firsts[s])
                return table.world_of(hands)

            return Problem(candidates, first_world,
                       lambda decision, world, seed: cost_of(table.penalties(decision, world)))

        situation = Situation.of(view)

        def sample_world(rng: random.Random) -> tuple[list[list[int]], list[int] | None]:
            hands = unseen.deal(rng)
            return hands, (opponents(situation_rows, hands) if commit else None)

        def cost(decision: Decision, world: tuple[list[list[int]], list[int] | None], seed: int) -> float:
            hands, first = world
            finish = heuristic_finisher(random.Random(seed), self.noise, mixes, pro, self.depth)
            return cost_of(situation.outcome(decision, hands, first, finish))

        return Problem(candidates, sample_world, cost)

    def _draft(self, view: View, deadline: float | None) -> Decision | None:
        me = view.seat
        assert me is not None
        draft = DraftSituation.of(view)
        pool = sorted(d.card for d in view.legal if isinstance(d, DraftPick))
        favourites = sorted(pool, key=draft_key(len(view.options.deck)))[:DRAFT_CANDIDATES]
        cards = list(dict.fromkeys(favourites + [pool[0], pool[-1]]))
        pro = view.options.professional
        mixes = self._mixes(view)

        def cost(card: int, world: None, seed: int) -> float:
            r = random.Random(seed)
            return draft.outcome(card, r, heuristic_finisher(r, self.noise, mixes, pro), 0.3)[me]

        estimate = monte_carlo(cards, lambda rng: None, cost, self._rng, deadline=deadline,
                               samples=self.samples, halving=self.halving, clock=self.clock)
        return DraftPick(me, estimate.best) if estimate.samples else None


def _cost_function(view: View):  # noqa: ANN202 - Callable[[list[int]], float]
    """What a simulated result costs this seat: its bullheads from now on, and,
    near the end of a game of several rounds, finishing behind the leader."""
    me = view.seat
    assert me is not None
    options = view.options
    so_far = [t + p for t, p in zip(view.totals, view.penalties)]
    several_rounds = view.round > 1 or any(view.totals)
    last = (options.rounds is not None and view.round >= options.rounds) or (
        options.point_limit is not None and max(so_far) + NEAR_LIMIT >= options.point_limit
    )
    if not (several_rounds and last):
        return lambda penalties: penalties[me]

    def cost(penalties: list[int]) -> float:
        mine = so_far[me] + penalties[me]
        others = min(so_far[s] + penalties[s] for s in range(len(penalties)) if s != me)
        return penalties[me] + (BEHIND_COST if mine > others else 0.0)

    return cost
