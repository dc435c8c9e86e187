"""How good a searching bot's single decisions are at a table of random players.

    python benchmarks/decision_regret.py --views 100 --reference 2000 --repeats 2   # about 2 min
    python benchmarks/decision_regret.py        # the defaults: 200 views, 4,000 deals, 3 repeats

A game's result mixes every decision with a great deal of luck: telling two
close versions of ``search`` apart takes thousands of rounds (an hour and a
half at 100 ms a decision). This script looks at decisions one by one.

1. It collects commit decisions of seat 0 at 4 players, at a random turn of
   a single round, with three ``random`` opponents (seat 0 plays the
   heuristic up to there).
2. For each, a *reference*: every card scored over ``--reference`` sampled
   deals with the model both bots use at such a table (every other seat
   plays its cards in a random order, this seat's later turns too: a flat
   Monte Carlo with common random numbers).
3. Each strategy decides each view, ``--repeats`` times with other seeds, at
   each budget of ``--ms``; its *regret* on a decision is the reference
   mean of the card it chose minus the lowest reference mean: how many
   bullheads worse than the best card its choice is expected to be, under
   the play-out model.

It prints the mean regret a decision with its 95% interval, and each
strategy's regret minus that of ``search:halving=1``, paired by view and seed. What it does
not say: how good the model is (a better model of the table, or of this
seat's own later play, shows only in games), and the reference's own noise
(its deals are finite) counts against every strategy alike.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics

from nimmt.bots import HeuristicStrategy, RandomStrategy, make_strategy
from nimmt.bots.montecarlo import monte_carlo
from nimmt.bots.rollout import SortedRows, play_card_first
from nimmt.bots.sampling import Unseen
from nimmt.engine import Commit, Game, Options, Phase, View


def collect_views(count: int, seed: int) -> list[View]:
    """Seat 0's commit views, one per round, at a random turn (1 to 9)."""
    rng = random.Random(seed)
    views: list[View] = []
    while len(views) < count:
        game = Game(Options(players=4, rounds=1), seed=rng.getrandbits(32))
        players = [HeuristicStrategy()] + [RandomStrategy(rng.getrandbits(32)) for _ in range(3)]
        turn = rng.randint(1, 9)
        found = None
        while found is None:
            for seat in sorted(game.pending.seats):
                view = game.view(seat)
                if seat == 0 and view.phase is Phase.COMMIT and view.turn == turn:
                    found = view
                game.apply(players[seat].decide(view))
        views.append(found)
    return views


def reference_means(view: View, deals: int, seed: int) -> dict[int, float]:
    """Every card's mean bullheads over ``deals`` deals, everyone playing at random."""
    me = view.seat
    assert me is not None
    unseen = Unseen.of(view)
    start = SortedRows.of(view.rows)
    turns = len(view.hand)

    def cost(card: int, hands: list[list[int]], rollout_seed: int) -> float:
        return play_card_first(start, hands, me, card, turns)[me]

    estimate = monte_carlo(list(view.hand), lambda rng: unseen.deal(rng, shuffled=True), cost,
                           random.Random(seed), samples=deals)
    return estimate.means


def interval(values: list[float]) -> str:
    mean = statistics.mean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.inf
    return f"{mean:.4f} ± {half:.4f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--views", type=int, default=200, help="decisions looked at (200)")
    parser.add_argument("--reference", type=int, default=4000,
                        help="deals per reference (4000)")
    parser.add_argument("--repeats", type=int, default=3, help="decisions per view and strategy (3)")
    parser.add_argument("--ms", default="20,100", help="budgets in ms, comma-separated (20,100)")
    parser.add_argument("--seed", type=int, default=12, help="seed of the views (12)")
    args = parser.parse_args()
    views = collect_views(args.views, args.seed)
    references = [reference_means(v, args.reference, 99 + i) for i, v in enumerate(views)]
    turns = statistics.mean(v.turn for v in views)
    print(f"{len(views)} decisions (mean turn {turns:.1f}), references of {args.reference} deals")
    for ms in (float(x) for x in args.ms.split(",")):
        specs = [f"mcs:ms={ms:g}", f"search:ms={ms:g}", f"search:ms={ms:g},halving=1"]
        regret: dict[str, list[float]] = {spec: [] for spec in specs}
        for repeat in range(args.repeats):
            for i, (view, reference) in enumerate(zip(views, references)):
                low = min(reference.values())
                for spec in specs:
                    decision = make_strategy(spec, seed=repeat * 100_003 + i).decide(view)
                    assert isinstance(decision, Commit)
                    regret[spec].append(reference[decision.card] - low)
        print(f"\n{ms:g} ms a decision: regret a decision (bullheads, 95% interval)")
        for spec in specs:
            line = f"  {spec:28} {interval(regret[spec])}"
            if spec != specs[-1]:
                gap = [a - b for a, b in zip(regret[spec], regret[specs[-1]])]
                line += f"   minus the last: {interval(gap)}"
            print(line)


if __name__ == "__main__":
    main()
