"""How strong the strategies are: arena runs with seats rotated over shared deals.

    python benchmarks/strength.py                      # every case (long: ~40 min of CPU)
    python benchmarks/strength.py --cases vs-random    # cases whose name contains this
    python benchmarks/strength.py --rounds 100 --quick # a smoke run
    python benchmarks/strength.py --timing 300         # time a decision takes (no games scored)
    python benchmarks/strength.py --costs              # what one rollout of each kind costs
    python benchmarks/strength.py --deals 8            # deals a decision at a round's first commit
    python benchmarks/strength.py --careful-of 30      # how careful search reads mcs and random seats

Each case is one ``nimmt-arena`` run (the command is printed with it, so a
figure can be reproduced alone); a Markdown row per strategy is printed,
ready for benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass

from nimmt.bots import make_strategy
from nimmt.bots.arena import ArenaConfig, run_arena
from nimmt.engine import Game, Options


@dataclass(frozen=True)
class Case:
    name: str
    seats: tuple[str, ...]
    rounds: int  # rounds per seat, before --scale


def cases(ms: int, equal_ms: int) -> list[Case]:
    search, mcs = f"search:ms={ms}", f"mcs:ms={ms}"
    out = []
    for player in ("heuristic", mcs, search):
        out.append(Case(f"4p {player} vs-random x3", (player, "random", "random", "random"), 400))
    for player in ("random", mcs, search):
        out.append(Case(f"4p {player} vs-heuristic x3", (player, "heuristic", "heuristic", "heuristic"), 400))
    for player in ("heuristic", mcs, search):
        out.append(Case(f"10p {player} vs-random x9", (player,) + ("random",) * 9, 200))
    pair = (f"search:ms={equal_ms}", f"mcs:ms={equal_ms}")
    out.append(Case(f"4p equal-time {equal_ms}ms +random x2", pair + ("random", "random"), 600))
    out.append(Case(f"4p equal-time {equal_ms}ms +heuristic x2", pair + ("heuristic", "heuristic"), 600))
    return out


def decision_times(spec: str, decisions: int, seed: int) -> list[float]:
    """Wall milliseconds of ``spec``'s decisions that have a choice (the last
    card of a round has none), at seat 0 of 4-player rounds against three
    ``random`` bots, in this process."""
    rng = random.Random(seed)
    times: list[float] = []
    game_seed = seed
    while len(times) < decisions:
        game = Game(Options(4, point_limit=None, rounds=1), seed=game_seed)
        bot = make_strategy(spec, seed=game_seed)
        game_seed += 1
        while not game.is_over and len(times) < decisions:
            pending = game.pending
            assert pending is not None
            for seat in sorted(pending.seats):
                view = game.view(seat)
                if seat != 0:
                    game.apply(rng.choice(view.legal))
                    continue
                start = time.perf_counter()
                decision = bot.decide(view)
                spent = (time.perf_counter() - start) * 1000
                if len(view.legal) > 1:
                    times.append(spent)
                game.apply(decision)
    return times


def rollout_costs(deals: int, seed: int) -> dict[str, float]:
    """CPU microseconds of one candidate's rollout of each kind ``search`` and
    ``mcs`` use, at the first commit of 4-player rounds: ``plain`` (every seat
    at random, ``play_first``), ``careful`` (this seat and each opponent with
    chance 1/2 careful, ``play_careful_first``), the same on the loop
    ``search:careful=1`` uses (``careful.CarefulTable``: ``careful fast``) and
    ``modelled`` (every seat's later turns by noisy heuristic and random mix,
    ``search:later=1``)."""
    from nimmt.bots.careful import CarefulTable
    from nimmt.bots.mcs import RandomTable
    from nimmt.bots.rollout import (
        SortedRows,
        Situation,
        heuristic_chooser,
        heuristic_finisher,
        play_careful_first,
    )
    from nimmt.bots.sampling import Unseen
    from nimmt.engine import Commit

    rng = random.Random(seed)
    mixes = [0.3, 0.0, 0.0, 1.0]
    spent = dict.fromkeys(("plain", "careful", "careful fast", "modelled"), 0.0)
    count = 0
    for d in range(deals):
        view = Game(Options(4, point_limit=None, rounds=1), seed=seed + d).view(0)
        table, unseen, situation = RandomTable(view), Unseen.of(view), Situation.of(view)
        start = SortedRows.of(view.rows)
        world = table.world(rng)
        hands = world[0]
        careful = [0, *(s for s in (1, 2, 3) if rng.random() < 0.5)]
        sorted_hands = unseen.deal(rng)
        firsts = heuristic_chooser(rng, 1.0, mixes)([list(r) for r in view.rows], sorted_hands)
        fast = CarefulTable(view, [(s, 1.0 if s in careful else 0.0) for s in (1, 2, 3)])
        fast_world = fast.world(rng)
        candidates = [Commit(0, c) for c in view.hand]
        t0 = time.process_time()
        for c in candidates:
            table.penalties(c, world)
        t1 = time.process_time()
        for c in candidates:
            play_careful_first(start, hands, 0, c.card, 10, careful, random.Random(c.card))
        t2 = time.process_time()
        for c in candidates:
            situation.outcome(c, sorted_hands, firsts,
                              heuristic_finisher(random.Random(c.card), 1.0, mixes, False))
        t3 = time.process_time()
        for c in candidates:
            fast.penalties(c.card, fast_world)
        t4 = time.process_time()
        spent["careful fast"] += t4 - t3
        spent["plain"] += t1 - t0
        spent["careful"] += t2 - t1
        spent["modelled"] += t3 - t2
        count += len(candidates)
    return {kind: 1e6 * t / count for kind, t in spent.items()}


def deals_a_decision(spec: str, decisions: int, seed: int) -> list[int]:
    """Deals ``spec`` sampled for each of ``decisions`` first commits of
    4-player rounds (seeds ``seed``, ``seed + 1``, ...), by the clock: what
    ``monte_carlo`` reports, read by wrapping it where ``mcs`` and ``search``
    call it (so the same command runs on older code too)."""
    import nimmt.bots.mcs as mcs_module
    import nimmt.bots.search as search_module

    counts: list[int] = []
    originals = {m: m.monte_carlo for m in (mcs_module, search_module)}

    def counting(original):  # noqa: ANN001, ANN202
        def wrapped(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            estimate = original(*args, **kwargs)
            counts.append(estimate.samples)
            return estimate
        return wrapped

    try:
        for module, original in originals.items():
            module.monte_carlo = counting(original)
        for d in range(decisions):
            game = Game(Options(4, point_limit=None, rounds=1), seed=seed + d)
            make_strategy(spec, seed=seed + d).decide(game.view(0))
    finally:
        for module, original in originals.items():
            module.monte_carlo = original
    return counts


def careful_reading(rounds: int, turn: int, seed: int) -> dict[str, list[float]]:
    """What ``search``'s opponent model makes of ``mcs`` and ``random`` seats:
    ``careful_of`` at ``turn`` of single 4-player rounds with ``search``
    (deal-counted, so the machine's speed does not matter), ``mcs`` and two
    ``random`` at the table, per strategy of the seat read."""
    from nimmt.bots import SearchStrategy
    from nimmt.engine import Phase

    readings: dict[str, list[float]] = {"mcs": [], "random": []}
    for r in range(rounds):
        game = Game(Options(4, point_limit=None, rounds=1), seed=seed + r)
        search = SearchStrategy(seed=seed + r, samples=40, ms=60_000)
        players = [search, make_strategy("mcs:samples=60", seed=seed + r),
                   make_strategy("random", seed=seed + r + 1), make_strategy("random", seed=seed + r + 2)]
        while game.pending is not None and game.pending.seats:
            for seat in sorted(game.pending.seats):
                view = game.view(seat)
                decision = players[seat].decide(view)
                if seat == 0 and view.phase is Phase.COMMIT and view.turn == turn:
                    readings["mcs"].append(search.opponents.careful_of(1))
                    readings["random"] += [search.opponents.careful_of(2), search.opponents.careful_of(3)]
                game.apply(decision)
    return readings


def print_timing(specs: list[str], ms: int, decisions: int, seed: int) -> None:
    print("| strategy | decisions | mean ms | median | 99th percentile | worst | mean / budget |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for spec in specs:
        t = sorted(decision_times(spec, decisions, seed))
        p99 = t[min(len(t) - 1, int(0.99 * len(t)))]
        print(f"| `{spec}` | {len(t)} | {statistics.mean(t):.1f} | {statistics.median(t):.1f} "
              f"| {p99:.1f} | {t[-1]:.1f} | {statistics.mean(t) / ms:.1%} |")
        sys.stdout.flush()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", default="", help="run only cases whose name contains this text")
    p.add_argument("--ms", type=int, default=100, help="search's budget in the main cases (default 100)")
    p.add_argument("--equal-ms", type=int, default=None,
                   help="budget of both search and mcs in the equal-time cases (default: --ms)")
    p.add_argument("--rounds", type=int, default=None, help="rounds per seat for every case")
    p.add_argument("--scale", type=float, default=1.0, help="multiply every case's rounds")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--quick", action="store_true", help="search and mcs at 5 ms: a smoke run")
    p.add_argument("--timing", type=int, metavar="N", default=None,
                   help="instead: time N decisions with a choice of search and of mcs at --ms")
    p.add_argument("--deals", type=int, metavar="N", default=None,
                   help="instead: deals a decision of search and mcs at --ms, N first commits")
    p.add_argument("--spec", action="append", default=None,
                   help="with --deals or --timing: this strategy (repeatable) instead of search and mcs")
    p.add_argument("--costs", action="store_true",
                   help="instead: CPU time of one rollout of each kind search and mcs use")
    p.add_argument("--careful-of", type=int, metavar="N", default=None,
                   help="instead: how careful search reads mcs and random seats at turn 5, N rounds")
    args = p.parse_args()
    if args.careful_of is not None:
        for kind, values in careful_reading(args.careful_of, 5, args.seed).items():
            q = statistics.quantiles(values, n=10)
            print(f"{kind}: careful_of at turn 5, {len(values)} seats: mean {statistics.mean(values):.2f}, "
                  f"median {statistics.median(values):.2f}, 10th-90th percentile {q[0]:.2f}-{q[-1]:.2f}")
        return 0
    if args.costs:
        costs = rollout_costs(300, args.seed)
        for kind, us in costs.items():
            print(f"{kind:>12}: {us:6.1f} µs a rollout, {us / costs['plain']:.1f}x plain")
        return 0
    if args.deals is not None:
        for spec in args.spec or (f"search:ms={args.ms}", f"mcs:ms={args.ms}"):
            counts = deals_a_decision(spec, args.deals, args.seed)
            print(f"{spec}: deals a decision, median {statistics.median(counts):.0f} "
                  f"(min {min(counts)}, max {max(counts)}) over {len(counts)} first commits")
        return 0
    if args.timing is not None:
        print_timing(args.spec or [f"search:ms={args.ms}", f"mcs:ms={args.ms}"], args.ms,
                     args.timing, args.seed)
        return 0
    ms, equal_ms = (5, 5) if args.quick else (args.ms, args.equal_ms or args.ms)
    print("| case | strategy | bullheads/round (95% CI) | vs first seat (95% CI) | win share "
          "| ms/decision mean | worst |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for case in cases(ms, equal_ms):
        if args.cases not in case.name:
            continue
        players = len(case.seats)
        rounds = args.rounds if args.rounds is not None else max(players, int(case.rounds * args.scale))
        config = ArenaConfig(case.seats, -(-rounds // players),
                             Options(players, point_limit=None, rounds=1), args.seed)
        report = run_arena(config, args.jobs)
        seats = ",".join(case.seats)
        print(f"<!-- nimmt-arena --players {players} --seats {seats} --rounds {rounds} "
              f"--seed {args.seed}  ({report.seconds:.0f} s, {report.jobs} processes) -->")
        for s in report.strategies:
            diff = (f"{s.difference:+.2f} ± {s.difference_ci95:.2f}"
                    if s.difference is not None and s.difference_ci95 is not None else "")
            print(f"| {case.name} | {s.strategy} x{s.seats} | {s.bullheads_per_round:.2f} ± {s.ci95:.2f} "
                  f"| {diff} | {s.win_share:.1%} | {s.mean_ms:.2f} | {s.worst_ms:.1f} |")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
