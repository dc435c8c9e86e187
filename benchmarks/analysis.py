"""The coach's analysis (``nimmt-replay analyse``, issue 45): its time and its precision.

    python benchmarks/analysis.py                  # all three targets, about 3 minutes
    python benchmarks/analysis.py --only round     # one of: round, game, agreement

The games analysed are played here, reproducibly, at 4 seats by
``search:samples=100``, ``heuristic``, ``mcs:samples=100`` and ``random`` (the
analysis does not care who played). Three targets:

1. *round*: one seat's round (10 decisions, 4 players) in at most 5 s on one
   core, with the loss of the choice made known to +-0.3 bullheads (95%)
   where it is not itself the best; ``--rounds`` seat-rounds are timed.
2. *game*: every seat of a whole 4-player game to 66 points in at most 60 s.
3. *agreement*: the analysis rerun with 10 times the deals names the same best
   choice in at least 95% of the decisions where, in the longer run, the two
   best differ by more than 0.5 bullheads.
"""

from __future__ import annotations

import argparse
import statistics
import time

from nimmt.bots import make_strategy
from nimmt.bots.analysis import DEFAULT_SAMPLES, analyse
from nimmt.engine import Game, Options, record_from_game
from nimmt.engine.records import Record

SEATS = ("search:samples=100", "heuristic", "mcs:samples=100", "random")


def played(seed: int, options: Options) -> Record:
    game = Game(options, seed=seed)
    bots = [make_strategy(spec, seed=seed * 10 + i) for i, spec in enumerate(SEATS)]
    while not game.is_over:
        for seat in sorted(game.pending.seats):
            game.apply(bots[seat].decide(game.view(seat)))
    return record_from_game(game, list(SEATS))


def bench_round(rounds: int, samples: int) -> None:
    times, cpu, widths, seat_rounds = [], [], [], 0
    for k in range(rounds):
        record = played(100 + k, Options(players=4, rounds=1))
        seat = k % 4
        begin, begin_cpu = time.perf_counter(), time.process_time()
        analysis = analyse(record, seats=[seat], samples=samples)
        times.append(time.perf_counter() - begin)
        cpu.append(time.process_time() - begin_cpu)
        seat_rounds += 1
        for d in analysis.seats[0].rounds[0].decisions:
            if d.made is not d.best:
                widths.append(d.made.loss_ci95)
    within = sum(w <= 0.3 for w in widths)
    print(f"round: {seat_rounds} seat-rounds of 10 decisions at 4 players, {samples} deals first")
    print(f"  time a seat-round: mean {statistics.mean(times):.2f} s, max {max(times):.2f} s "
          f"(CPU time: mean {statistics.mean(cpu):.2f} s, max {max(cpu):.2f} s)")
    print(f"  loss of the choice made (where not the best, {len(widths)} decisions): 95% "
          f"interval median +-{statistics.median(widths):.2f}, max +-{max(widths):.2f}, "
          f"{within} of {len(widths)} within +-0.3")


def bench_game(games: int, samples: int) -> None:
    for k in range(games):
        record = played(200 + k, Options(players=4, point_limit=66))
        begin, begin_cpu = time.perf_counter(), time.process_time()
        analysis = analyse(record, samples=samples)
        took, took_cpu = time.perf_counter() - begin, time.process_time() - begin_cpu
        decisions = sum(len(r.decisions) for s in analysis.seats for r in s.rounds)
        print(f"game: {len(record.rounds)} rounds to 66 points, every seat ({decisions} "
              f"decisions) in one process: {took:.1f} s (CPU time {took_cpu:.1f} s)")


def bench_agreement(rounds: int, samples: int) -> None:
    clear = agree = 0
    for k in range(rounds):
        record = played(300 + k, Options(players=4, rounds=1))
        seat = k % 4
        short = analyse(record, seats=[seat], samples=samples, seed=1).seats[0].rounds[0]
        long = analyse(record, seats=[seat], samples=samples * 10, seed=2).seats[0].rounds[0]
        for a, b in zip(short.decisions, long.decisions):
            if len(b.options) < 2 or b.options[1].loss <= 0.5:
                continue
            clear += 1
            agree += a.best.decision == b.best.decision
    print(f"agreement: {rounds} seat-rounds, {samples} against {samples * 10} deals first: "
          f"the same best choice in {agree} of {clear} decisions whose two best differ by "
          f"more than 0.5 ({agree / max(1, clear):.1%})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=("round", "game", "agreement"))
    parser.add_argument("--samples", type=int, default=DEFAULT_SAMPLES,
                        help=f"deals a choice at first ({DEFAULT_SAMPLES})")
    parser.add_argument("--rounds", type=int, default=12, help="seat-rounds timed (12)")
    parser.add_argument("--games", type=int, default=2, help="whole games timed (2)")
    parser.add_argument("--agreement-rounds", type=int, default=8,
                        help="seat-rounds compared with 10x the deals (8)")
    args = parser.parse_args()
    if args.only in (None, "round"):
        bench_round(args.rounds, args.samples)
    if args.only in (None, "game"):
        bench_game(args.games, args.samples)
    if args.only in (None, "agreement"):
        bench_agreement(args.agreement_rounds, args.samples)


if __name__ == "__main__":
    main()
