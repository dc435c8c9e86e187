"""Engine speed: random rounds per second, fast path vs the full event API.

    python benchmarks/engine.py            # all cases, 5 repeats, medians
    python benchmarks/engine.py --quick    # fewer rounds, for a smoke run

Each figure is the median of several timed repeats on one core. The
"reference" line is a plain, straightforward list-based implementation of the
same rules, timed in the same run, so the ratio to it is meaningful even on a
noisy machine.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from nimmt.engine import BULLHEADS, Commit, Game, Options, Phase
from nimmt.engine.fast import random_round


def reference_round(rng: random.Random, players: int) -> list[int]:
    """A straightforward implementation: shuffle, deal, pick random cards."""
    deck = list(range(1, 105))
    rng.shuffle(deck)
    hands = [sorted(deck[i * 10 : (i + 1) * 10]) for i in range(players)]
    rows = [[c] for c in deck[players * 10 : players * 10 + 4]]
    penalties = [0] * players
    for _ in range(10):
        plays = []
        for seat in range(players):
            card = rng.choice(hands[seat])
            hands[seat].remove(card)
            plays.append((card, seat))
        plays.sort()
        for card, seat in plays:
            candidates = [i for i in range(4) if rows[i][-1] < card]
            if not candidates:
                costs = [sum(BULLHEADS[c] for c in row) for row in rows]
                index = costs.index(min(costs))
                penalties[seat] += costs[index]
                rows[index] = [card]
                continue
            index = max(candidates, key=lambda i: rows[i][-1])
            if len(rows[index]) == 5:
                penalties[seat] += sum(BULLHEADS[c] for c in rows[index])
                rows[index] = [card]
            else:
                rows[index].append(card)
    return penalties


def full_api_round(rng: random.Random, players: int, professional: bool) -> None:
    """One round through Game: events, views' legal decisions, validation."""
    game = Game(Options(players=players, professional=professional, rounds=1), rng=rng)
    while not game.is_over:
        pending = game.pending
        assert pending is not None
        if game.phase is Phase.COMMIT:
            for seat in sorted(pending.seats):
                hand = game.view(seat).hand
                game.apply(Commit(seat, rng.choice(hand)))
        else:
            seat = next(iter(pending.seats))
            game.apply(rng.choice(game.legal_decisions(seat)))


def rounds_per_second(play: Callable[[random.Random], object], rounds: int, repeats: int) -> float:
    rates = []
    for repeat in range(repeats):
        rng = random.Random(repeat)
        start = time.perf_counter()
        for _ in range(rounds):
            play(rng)
        rates.append(rounds / (time.perf_counter() - start))
    return statistics.median(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds per repeat")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    fast_rounds = 2_000 if args.quick else 20_000
    full_rounds = 200 if args.quick else 2_000

    cases: list[tuple[str, Callable[[random.Random], object], int]] = [
        ("reference, 4 players, base", lambda rng: reference_round(rng, 4), fast_rounds),
    ]
    for players in (4, 10):
        for professional in (False, True):
            label = f"{players} players, {'Professional' if professional else 'base'}"
            cases.append(
                (f"fast path, {label}",
                 lambda rng, p=players, pro=professional: random_round(rng, p, pro), fast_rounds)
            )
            cases.append(
                (f"full API,  {label}",
                 lambda rng, p=players, pro=professional: full_api_round(rng, p, pro), full_rounds)
            )
    results: dict[str, float] = {}
    for label, play, rounds in cases:
        results[label] = rate = rounds_per_second(play, rounds, args.repeats)
        print(f"{label:<42} {rate:>10,.0f} rounds/s")
    reference = results["reference, 4 players, base"]
    fast = results["fast path, 4 players, base"]
    print(f"fast path / reference at 4 players, base: {fast / reference:.2f}x")


if __name__ == "__main__":
    main()
