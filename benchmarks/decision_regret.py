"""How good a searching bot's single decisions are at a table of random players.

    python benchmarks/decision_regret.py --views 100 --reference 2000 --repeats 2   # about 2 min
    python benchmarks/decision_regret.py        # the defaults: 200 views, 4,000 deals, 3 repeats
    python benchmarks/decision_regret.py --noise 100 --groups 400   # where the noise comes from

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
(its deals are finite) counts against every strategy alike. The regret is
also given by the turn of the decision (1-3, 4-6, 7-9).

``--noise N`` asks instead where the noise of a comparison comes from, on N
such views: for every card against the reference's best, the variance of
the difference of their bullheads on one deal, split (nested deals, see
``noise_parts``) into what this turn's cards of the others explain, what the
rest of the deal (who holds which later cards) adds, and what the order the
hands are played in (the random play) adds. Dealing this turn's cards in
strata, or any control variate of them, can remove at most the first share.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
from dataclasses import dataclass

from nimmt.bots import HeuristicStrategy, RandomStrategy, make_strategy
from nimmt.bots.montecarlo import monte_carlo
from nimmt.bots.rollout import SortedRows, others_by_turn, play_card_first, play_first
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


@dataclass(frozen=True, slots=True)
class NoiseParts:
    """Variance of a two-card difference on one deal (bullheads squared),
    summed over the ``pairs`` of cards looked at, split three ways."""

    pairs: int
    total: float
    this_turn: float  # explained by the others' cards this turn
    rest_of_deal: float  # by who holds which later cards, this turn's fixed
    order: float  # by the order the hands are played in, the deal fixed


def noise_parts(view: View, best: int, groups: int, seed: int) -> NoiseParts:
    """For each card of ``view``'s hand but ``best``: its bullheads minus
    ``best``'s on the same deal, everyone playing at random. ``groups`` times:
    the others' cards of this turn are drawn; on them two deals of the rest;
    each played in two orders (this seat's later cards too). The nested
    differences estimate each part (a two-level analysis of variance).
    Needs every other hand unknown (not a Draft round)."""
    me = view.seat
    assert me is not None
    unseen = Unseen.of(view)
    if sum(h is None for h in unseen.hands) != view.players - 1:
        raise ValueError("every other seat's hand must be unknown (not a Draft round)")
    start = SortedRows.of(view.rows)
    turns = len(view.hand)
    size = unseen.hand_size
    others = [s for s in range(view.players) if s != me]
    cards = [c for c in view.hand if c != best]
    rng = random.Random(seed)

    def differences(hands: list[list[int]]) -> list[int]:
        by_turn = others_by_turn(hands, me, turns)
        base = play_first(start, by_turn, hands[me], me, best, turns)[me]
        return [play_first(start, by_turn, hands[me], me, c, turns)[me] - base for c in cards]

    def reordered(hands: list[list[int]]) -> list[list[int]]:
        out = [list(h) for h in hands]
        for s, hand in enumerate(out):
            rest = hand[1:] if s != me else hand
            rng.shuffle(rest)
            out[s] = [hand[0], *rest] if s != me else rest
        return out

    values: list[list[list[list[int]]]] = []  # [group][deal][order][card]
    for _ in range(groups):
        firsts = rng.sample(unseen.pool, len(others))
        left = [c for c in unseen.pool if c not in firsts]
        group = []
        for _ in range(2):
            dealt = rng.sample(left, len(others) * (size - 1))
            hands = [list(view.hand)] * view.players
            for i, s in enumerate(others):
                hands[s] = [firsts[i], *dealt[i * (size - 1):(i + 1) * (size - 1)]]
            group.append([differences(reordered(hands)) for _ in range(2)])
        values.append(group)
    total = this_turn = rest = order = 0.0
    for k in range(len(cards)):
        flat = [d[o][k] for g in values for d in g for o in range(2)]
        var = statistics.pvariance(flat)
        within_deal = statistics.mean((d[0][k] - d[1][k]) ** 2 / 2 for g in values for d in g)
        deal_means = [[(d[0][k] + d[1][k]) / 2 for d in g] for g in values]
        # the spread of a deal's mean within a group: the rest of the deal plus half the order
        within_group = statistics.mean((a - b) ** 2 / 2 for a, b in deal_means)
        rest_k = within_group - within_deal / 2  # estimates: either may come out below 0
        total += var
        order += within_deal
        rest += rest_k
        this_turn += var - within_deal - rest_k
    return NoiseParts(len(cards), total, this_turn, rest, order)


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
    parser.add_argument("--noise", type=int, default=0, metavar="N",
                        help="instead: where the noise of a comparison comes from, on N views")
    parser.add_argument("--groups", type=int, default=400,
                        help="with --noise: draws of this turn's cards a view (400)")
    args = parser.parse_args()
    if args.noise:
        print_noise(args.noise, args.reference, args.groups, args.seed)
        return
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
        for low in (1, 4, 7):
            picked = [i for i in range(len(regret[specs[0]])) if low <= views[i % len(views)].turn <= low + 2]
            line = "   ".join(f"{interval([regret[spec][i] for i in picked])}" for spec in specs)
            print(f"  turns {low}-{low + 2} ({len(picked)} decisions): {line}")


def print_noise(count: int, reference: int, groups: int, seed: int) -> None:
    views = collect_views(count, seed)
    sums = [0.0, 0.0, 0.0, 0.0]
    pairs = 0
    for i, view in enumerate(views):
        means = reference_means(view, reference, 99 + i)
        parts = noise_parts(view, min(means, key=means.__getitem__), groups, 7 + i)
        pairs += parts.pairs
        sums = [a + b for a, b in zip(sums, (parts.total, parts.this_turn, parts.rest_of_deal,
                                              parts.order))]
    total = sums[0]
    print(f"{count} decisions, each card against the best of a {reference}-deal reference, "
          f"{groups} draws of this turn's cards each")
    print(f"variance of a card's bullheads minus the best card's on one deal: {total / pairs:.1f} "
          f"(mean over {pairs} cards); its shares:")
    print(f"  the others' cards this turn   {sums[1] / total:.1%}")
    print(f"  who holds which later cards   {sums[2] / total:.1%}")
    print(f"  the order of play (random)    {sums[3] / total:.1%}")


if __name__ == "__main__":
    main()
