"""``nimmt-arena``: strategies against each other, in process, on every core, or on a cluster.

    nimmt-arena --players 4 --seats search,heuristic,random,random --rounds 400
    nimmt-arena --players 4 --seats search:ms=20,mcs:ms=20,random,random --games 40 --draft
    nimmt-arena --seats "exec:node docs/examples/bot.js,search:ms=20,random,random" --rounds 40
    nimmt-arena --seats py:mybot:decide,search,random,random --cluster tcp://scheduler-host:8786
    nimmt-arena --seats py:mybot:decide,search,random,random --rounds 40 --expected-loss

Beside the built-in strategies, a seat may be a program (``exec:COMMAND``) or a
Python function (``py:MODULE:FUNCTION``): see ``nimmt.bots.external``.

Deals are shared: each deal is played once in every rotation of the seats, so
every strategy plays every hand from every seat, which cuts the variance of
comparisons. With ``--seatings all`` each deal is played in every distinct
arrangement of the seats instead, and a seat's random numbers depend on the
deal and the seat only: when two strategies swap seats, everyone else at the
table draws the same numbers as before ("duplicate" play, as in duplicate
bridge), so two strategies are compared on the very same hands against the
very same opponents (which, measured, narrows their difference's interval only
a little: one different card soon changes every row).
Everything random is derived from ``--seed`` and the deal's number, so the
figures (not the times) are the same whatever ``--jobs``.

Reported per strategy: mean bullheads per round with a 95% confidence
interval (deals are the independent units: the interval is over per-deal
means), the share of games won (a shared first place is split), and the mean
and worst wall time per decision. For every other strategy, the difference to
the first seat's strategy, paired by deal, with its 95% interval. With
``--expected-loss`` also the average expected loss a decision against the
coach's analysis (``nimmt.bots.arena_loss``), where the game was played.
"""

from __future__ import annotations

import argparse
import collections
import functools
import json
import logging
import math
import os
import random
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field

from nimmt.engine import GameOver, Game, InvalidOptions, Options, RoundScored

from .arena_loss import GameLosses, game_losses
from .arena_loss import DEFAULT_SAMPLES as LOSS_SAMPLES
from .external import PROGRAM_TIME, check_seat, close_kept, is_external, make_seat
from .strategies import StrategyError, parse_strategy

__all__ = ["ArenaConfig", "PlayedGame", "Report", "StrategyReport", "run_arena", "main"]

Z95 = 1.959964
#: ``--seatings all`` refuses tables with more distinct arrangements than this
MAX_ARRANGEMENTS = 720
SEATINGS = ("rotations", "all")


@dataclass(frozen=True, slots=True)
class ArenaConfig:
    """What to play: ``deals`` deals, each in every rotation of ``seats``
    (``seatings="rotations"``) or in every distinct arrangement of them (``"all"``)."""

    seats: tuple[str, ...]  # strategy spec per seat, as given
    deals: int
    options: Options
    seed: int = 1
    seatings: str = "rotations"
    program_time: float = PROGRAM_TIME  # seconds a program (exec:) has for each decision
    expected_loss: int | None = None  # analyse every decision on this many deals at first

    def __post_init__(self) -> None:
        if self.seatings not in SEATINGS:
            raise ValueError(f"seatings {self.seatings!r}: choose one of {', '.join(SEATINGS)}")

    def arrangements(self) -> list[tuple[str, ...]]:
        """The seatings each deal is played in: the strategy at each seat."""
        n = len(self.seats)
        if self.seatings == "rotations":
            return [tuple(self.seats[(seat + r) % n] for seat in range(n)) for r in range(n)]
        return _distinct_arrangements(self.seats)

    def units(self) -> list[tuple[int, int]]:
        """(deal, seating) pairs, in the order results are combined."""
        count = len(self.arrangements())
        return [(deal, seating) for deal in range(self.deals) for seating in range(count)]

    def strategy_seed(self, deal: int, seating: int, seat: int) -> int:
        """The seed of the strategy at ``seat``: with every arrangement played, the
        same whoever sits there, so that the others draw the same numbers when two
        strategies swap seats."""
        key = (f"nimmt-arena:{self.seed}:{deal}:seat:{seat}" if self.seatings == "all"
               else f"nimmt-arena:{self.seed}:{deal}:{seating}:{seat}")
        return random.Random(key).getrandbits(32)

    def analysis_seed(self, deal: int, seating: int) -> int:
        """The seed of the analysis of a game (``expected_loss``)."""
        return random.Random(f"nimmt-arena:{self.seed}:{deal}:{seating}:analysis").getrandbits(32)


@functools.cache
def _distinct_arrangements(seats: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every distinct ordering of ``seats``, sorted, without building the n! orderings
    of a table with alike seats (ten seats, nine of them random: ten, not 3,628,800).

    >>> _distinct_arrangements(("b", "a", "a"))
    [('a', 'a', 'b'), ('a', 'b', 'a'), ('b', 'a', 'a')]
    """
    counts = collections.Counter(seats)
    out: list[tuple[str, ...]] = []
    prefix: list[str] = []

    def extend() -> None:
        if len(prefix) == len(seats):
            out.append(tuple(prefix))
            return
        for spec in sorted(counts):
            if counts[spec]:
                counts[spec] -= 1
                prefix.append(spec)
                extend()
                prefix.pop()
                counts[spec] += 1

    extend()
    return out


def _count_arrangements(seats: tuple[str, ...]) -> int:
    """How many distinct orderings ``seats`` has (n! over each alike group's k!)."""
    total = math.factorial(len(seats))
    for k in collections.Counter(seats).values():
        total //= math.factorial(k)
    return total


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """One played game: seat ``i`` was played by ``specs[i]``."""

    deal: int
    seating: int  # the index in ``ArenaConfig.arrangements()``
    specs: tuple[str, ...]
    rounds: tuple[tuple[int, ...], ...]  # bullheads per seat, each round
    winners: tuple[int, ...]
    decisions: tuple[int, ...]  # per seat
    think: tuple[float, ...]  # per seat, seconds in total
    worst: tuple[float, ...]  # per seat, the slowest decision in seconds
    failures: tuple[int, ...] = ()  # per seat: decisions the seat failed (the fallback made them)
    faults: tuple[str, ...] = ()  # per seat: its last failure, "" if none
    losses: GameLosses | None = None  # the analysis of its decisions (``expected_loss``)


def play_game(config: ArenaConfig, deal: int, seating: int, keep: bool = False) -> PlayedGame:
    """Play deal ``deal`` in the seating ``config.arrangements()[seating]``. ``keep``: a
    program (``exec:``) is kept for the next game at its seat, in this process
    (``nimmt.bots.external.close_kept`` stops them); else it is stopped after the game."""
    specs = config.arrangements()[seating]
    n = len(specs)
    deck_rng = random.Random(f"nimmt-arena:{config.seed}:deal:{deal}")
    # A kept program follows its spec round the table: the k-th seat of a spec reuses
    # the k-th program of that spec, wherever the seating puts it.
    copy = [specs[:seat].count(spec) for seat, spec in enumerate(specs)]
    seats = [make_seat(spec, config.strategy_seed(deal, seating, seat), config.program_time,
                       copy[seat] if keep else None)
             for seat, spec in enumerate(specs)]
    game = Game(config.options, rng=deck_rng)
    rounds: list[tuple[int, ...]] = []
    winners: tuple[int, ...] = ()
    decisions = [0] * n
    think = [0.0] * n
    worst = [0.0] * n
    clock = time.perf_counter
    try:
        while not game.is_over:
            pending = game.pending
            assert pending is not None
            for seat in sorted(pending.seats):
                view = game.view(seat)
                start = clock()
                decision = seats[seat].decide(view)
                spent = clock() - start
                decisions[seat] += 1
                think[seat] += spent
                if spent > worst[seat]:
                    worst[seat] = spent
                for event in game.apply(decision):
                    if isinstance(event, RoundScored):
                        rounds.append(tuple(event.penalties))
                    elif isinstance(event, GameOver):
                        winners = tuple(event.result.winners)
    finally:
        for each in seats:
            each.close()
    losses = (game_losses(game, specs, config.expected_loss, config.analysis_seed(deal, seating))
              if config.expected_loss is not None else None)
    return PlayedGame(deal, seating, specs, tuple(rounds), winners, tuple(decisions),
                      tuple(think), tuple(worst), tuple(s.failures for s in seats),
                      tuple(s.last_fault or "" for s in seats), losses)


@dataclass(slots=True)
class StrategyReport:
    strategy: str
    seats: int  # seats it had at every table
    rounds: int  # rounds played, summed over its seats
    bullheads_per_round: float
    ci95: float  # half-width of the 95% interval of the mean
    win_share: float
    decisions: int
    mean_ms: float
    worst_ms: float
    difference: float | None = None  # bullheads per round minus the first strategy's
    difference_ci95: float | None = None
    failures: int = 0  # decisions it failed: the fallback (heuristic) made them
    last_fault: str | None = None
    # --expected-loss: the mean loss of its decisions with a choice, per the analysis
    expected_loss: float | None = None
    expected_loss_ci95: float | None = None
    expected_loss_decisions: int = 0  # decisions with a choice analysed
    expected_loss_not_analysed: int = 0  # Draft picks


@dataclass(slots=True)
class Report:
    players: int
    deals: int
    games: int
    rounds: int  # rounds per seat (every seat plays every round of every game)
    seed: int
    options: dict[str, object]
    jobs: int
    seconds: float
    strategies: list[StrategyReport] = field(default_factory=list)
    seatings: str = "rotations"
    cluster: str | None = None  # the Dask scheduler the games ran on (jobs: its workers)
    expected_loss_samples: int | None = None  # --expected-loss: the analysis's deals at first

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2)

    def to_text(self) -> str:
        o = self.options
        variants = [name for name in ("tactic_deck", "draft", "professional") if o[name]] or ["base"]
        duplicate = ", duplicate" if self.seatings == "all" else ""
        width = max([24, *(len(s.strategy) + 2 for s in self.strategies)])
        lines = [
            f"{self.players} players, {self.games} games ({self.deals} deals x "
            f"{self.games // max(self.deals, 1)} seatings{duplicate}), {self.rounds} rounds "
            f"a seat, rules: {', '.join(variants)}, seed {self.seed}, {self.jobs} "
            f"{'workers on ' + self.cluster if self.cluster else 'processes'}, "
            f"{self.seconds:.1f} s",
            f"{'strategy':<{width}}{'seats':>6}{'bullheads/round ±95%':>20}{'win share':>11}"
            f"{'ms/decision':>13}{'worst ms':>10}"
            + (f"{'loss/decision ±95% (n)':>28}" if self.expected_loss_samples else "")
            + "   vs first (95% CI)",
        ]
        for s in self.strategies:
            diff = (f"{s.difference:+.2f} ± {s.difference_ci95:.2f}"
                    if s.difference is not None and s.difference_ci95 is not None else "")
            loss = ""
            if self.expected_loss_samples:
                loss = (f"{s.expected_loss:>13.2f} ± {s.expected_loss_ci95:<5.2f}"
                        f"{f'({s.expected_loss_decisions})':>7}"
                        if s.expected_loss is not None and s.expected_loss_ci95 is not None
                        else f"{'-':>13}{'':15}")
            lines.append(
                f"{s.strategy:<{width}}{s.seats:>6}{s.bullheads_per_round:>12.2f} ± {s.ci95:<5.2f}"
                f"{s.win_share:>11.1%}{s.mean_ms:>13.2f}{s.worst_ms:>10.1f}{loss}   {diff}"
            )
        if self.expected_loss_samples:
            lines.append(f"loss/decision: the expected bullheads a decision with a choice gave "
                         f"away against the best, per the analysis at "
                         f"{self.expected_loss_samples} deals a choice (docs/ARENA.md)")
        for s in self.strategies:
            if s.failures:
                lines.append(f"FAILED: {s.strategy} failed {s.failures} of {s.decisions} "
                             f"decisions (the fallback, heuristic, made them; its figures "
                             f"include them); last: {s.last_fault}")
        return "\n".join(lines)


def summarize(config: ArenaConfig, results: Sequence[PlayedGame], jobs: int, seconds: float) -> Report:
    """Combine game results (in any order: they are sorted by deal and seating first)."""
    results = sorted(results, key=lambda r: (r.deal, r.seating))
    n = len(config.seats)
    order = list(dict.fromkeys(config.seats))
    per_deal: dict[str, dict[int, list[float]]] = {s: {} for s in order}
    wins = dict.fromkeys(order, 0.0)
    decisions = dict.fromkeys(order, 0)
    think = dict.fromkeys(order, 0.0)
    worst = dict.fromkeys(order, 0.0)
    failures = dict.fromkeys(order, 0)
    faults: dict[str, str | None] = dict.fromkeys(order)
    losses: dict[str, list[float]] = {s: [] for s in order}
    picks = dict.fromkeys(order, 0)
    for r in results:
        for seat, spec in enumerate(r.specs):
            if r.losses is not None:
                losses[spec].extend(r.losses.losses[seat])
                picks[spec] += r.losses.not_analysed[seat]
            if r.failures and r.failures[seat]:
                failures[spec] += r.failures[seat]
                faults[spec] = r.faults[seat]
            heads = per_deal[spec].setdefault(r.deal, [])
            heads.extend(scores[seat] for scores in r.rounds)
            decisions[spec] += r.decisions[seat]
            think[spec] += r.think[seat]
            worst[spec] = max(worst[spec], r.worst[seat])
        for seat in r.winners:
            wins[r.specs[seat]] += 1 / len(r.winners)
    deal_means = {s: {d: sum(v) / len(v) for d, v in per_deal[s].items()} for s in order}
    report = Report(
        players=n, deals=config.deals, games=len(results),
        rounds=sum(len(r.rounds) for r in results), seed=config.seed,
        options={"tactic_deck": config.options.tactic_deck, "draft": config.options.draft,
                 "professional": config.options.professional,
                 "point_limit": config.options.point_limit, "rounds": config.options.rounds},
        jobs=jobs, seconds=seconds, seatings=config.seatings,
        expected_loss_samples=config.expected_loss,
    )
    first = order[0]
    for spec in order:
        values = [h for v in per_deal[spec].values() for h in v]
        mean, ci = _mean_ci(list(deal_means[spec].values()))
        entry = StrategyReport(
            strategy=spec, seats=config.seats.count(spec), rounds=len(values),
            bullheads_per_round=sum(values) / len(values) if values else math.nan, ci95=ci,
            win_share=wins[spec] / len(results) if results else 0.0, decisions=decisions[spec],
            mean_ms=1000 * think[spec] / decisions[spec] if decisions[spec] else 0.0,
            worst_ms=1000 * worst[spec], failures=failures[spec], last_fault=faults[spec],
        )
        if config.expected_loss is not None:
            if losses[spec]:  # (each decision counted as one draw)
                entry.expected_loss, entry.expected_loss_ci95 = _mean_ci(losses[spec])
            entry.expected_loss_decisions = len(losses[spec])
            entry.expected_loss_not_analysed = picks[spec]
        if spec != first:
            diffs = [deal_means[spec][d] - deal_means[first][d] for d in deal_means[spec]]
            entry.difference, entry.difference_ci95 = _mean_ci(diffs)
        report.strategies.append(entry)
    return report


def _mean_ci(values: list[float]) -> tuple[float, float]:
    if not values:
        return math.nan, math.nan
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, math.inf
    var = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return mean, Z95 * math.sqrt(var / len(values))


def _play_unit(job: tuple[ArenaConfig, int, int]) -> PlayedGame:
    config, deal, seating = job
    return play_game(config, deal, seating)


def _play_kept(job: tuple[ArenaConfig, int, int]) -> PlayedGame:
    config, deal, seating = job
    return play_game(config, deal, seating, keep=True)


def _worker_start() -> None:
    import multiprocessing.util

    multiprocessing.util.Finalize(None, close_kept, exitpriority=10)  # at the worker's end


def play_all(config: ArenaConfig, jobs: int = 1, cluster: str | None = None) -> Iterator[PlayedGame]:
    """Every game of ``config``, as they finish: in ``jobs`` processes (1: in this one),
    or on the Dask cluster whose scheduler is at ``cluster``. Locally, a program
    (``exec:``) is kept from game to game at its seat in each process; on a cluster,
    whose workers outlive the run, each game starts its own."""
    units = [(config, deal, seating) for deal, seating in config.units()]
    if cluster is not None:
        from .cluster import play_on_cluster

        yield from play_on_cluster(_play_unit, units, cluster)
        return
    if jobs <= 1:
        try:
            yield from map(_play_kept, units)
        finally:
            close_kept()
        return
    import multiprocessing

    context = multiprocessing.get_context("spawn" if sys.platform == "darwin" else "fork")
    pool = context.Pool(jobs, initializer=_worker_start)
    try:
        yield from pool.imap_unordered(_play_kept, units, chunksize=1)
        pool.close()  # the workers end by themselves, stopping their programs
        pool.join()
    finally:
        pool.terminate()


def run_arena(
    config: ArenaConfig, jobs: int = 1,
    progress: Callable[[Iterable[PlayedGame], int], Iterable[PlayedGame]] | None = None,
    cluster: str | None = None,
) -> Report:
    """Play everything and summarize; ``progress(iterable, total)`` may wrap the results.
    ``cluster``: a Dask scheduler's address (``jobs`` is then its number of workers)."""
    start = time.perf_counter()
    results: Iterable[PlayedGame] = play_all(config, jobs, cluster)
    if progress is not None:
        results = progress(results, len(config.units()))
    collected = list(results)
    report = summarize(config, collected, jobs, time.perf_counter() - start)
    report.cluster = cluster
    return report


# ---------------------------------------------------------------------------- command line


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="nimmt-arena",
        description="Play strategies against each other and measure them. Each deal is played "
        "in every rotation of the seats (or every arrangement: --seatings all). Strategies: "
        "random, heuristic, mcs, search; parameters after a colon, as in search:ms=20 or "
        "mcs:samples=300. Your own bots: exec:COMMAND (a program speaking nimmt-bot --exec's "
        "JSON lines, e.g. exec:node docs/examples/bot.js) and py:MODULE:FUNCTION (a Python "
        "decide(view), e.g. py:mybot:decide or py:path/to/bot.py:decide).",
    )
    p.add_argument("--players", type=int, default=4, help="seats at the table, 2-10 (default 4)")
    p.add_argument("--seats", default=None, metavar="S1,S2,...",
                   help="one strategy per seat (default: search, then random at every other seat)")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--rounds", type=int, metavar="N",
                      help="play N single rounds per seat, rounded up to whole deals (default 400)")
    what.add_argument("--games", type=int, metavar="N",
                      help="play N whole games to the point limit, rounded up to whole deals")
    p.add_argument("--seatings", choices=SEATINGS, default="rotations",
                   help="play each deal in every rotation of the seats (default), or in every "
                        "distinct arrangement with each seat's random numbers kept when two "
                        "strategies swap seats (duplicate style; measured, it narrows a comparison "
                        "only a little: docs/ARENA.md)")
    p.add_argument("--point-limit", type=int, default=66, metavar="N",
                   help="with --games: a game ends after the round a total reaches N (default 66)")
    p.add_argument("--tactic-deck", action="store_true", help="Tactic deck: cards 1 to 10 x players + 4")
    p.add_argument("--draft", action="store_true", help="Draft: players pick their hands")
    p.add_argument("--professional", action="store_true",
                   help="Professional rows: cards may go before a row's first card")
    p.add_argument("--seed", type=int, default=1, help="everything random derives from it (default 1)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="processes to play in (default: one per core)")
    p.add_argument("--program-time", type=float, default=PROGRAM_TIME, metavar="SECONDS",
                   help="seconds an exec: program has for each decision; late, it is stopped "
                        f"and the fallback decides (default {PROGRAM_TIME:g})")
    p.add_argument("--cluster", metavar="ADDRESS", default=None,
                   help="play the games on the Dask cluster whose scheduler is at ADDRESS "
                        "(e.g. tcp://scheduler-host:8786; pip install 'nimmt[cluster]'); --jobs is "
                        "then ignored")
    p.add_argument("--expected-loss", type=int, nargs="?", const=LOSS_SAMPLES, default=None,
                   metavar="SAMPLES",
                   help="also analyse every decision of every seat after its game, as "
                        "nimmt-replay analyse does (SAMPLES deals a choice at first, default "
                        f"{LOSS_SAMPLES}), and report each strategy's average expected loss a "
                        "decision. Costly: about 1.3 s a seat-round at 4 players on one core "
                        f"at {LOSS_SAMPLES} (a 400-round run: about 35 minutes a core), far "
                        "more than the games of fast bots; runs where the games run (--jobs, "
                        "--cluster)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def config_from_args(args: argparse.Namespace) -> ArenaConfig:
    """The arena to play; raises ``ValueError`` with a message for the user."""
    players = args.players
    seats_text = args.seats or ",".join(["search"] + ["random"] * (players - 1))
    seats = tuple(_split_seats(seats_text))
    if len(seats) != players:
        raise ValueError(f"--seats names {len(seats)} strategies for {players} players: "
                         f"give exactly one per seat (or change --players)")
    for spec in seats:
        if not is_external(spec):
            parse_strategy(spec)
        check_seat(spec)  # a program that cannot run, values out of range: now, not in a worker
    if args.program_time <= 0:
        raise ValueError("--program-time must be more than 0 seconds")
    try:
        if args.games is not None:
            if args.games < 1:
                raise ValueError("--games must be at least 1")
            options = Options(players, args.tactic_deck, args.draft, args.professional,
                              point_limit=args.point_limit, rounds=None)
            count = args.games
        else:
            count = args.rounds if args.rounds is not None else 400
            if count < 1:
                raise ValueError("--rounds must be at least 1")
            options = Options(players, args.tactic_deck, args.draft, args.professional,
                              point_limit=None, rounds=1)
    except InvalidOptions as e:
        raise ValueError(str(e)) from None
    arrangements = (len(seats) if args.seatings == "rotations"
                    else _count_arrangements(seats))
    if arrangements > MAX_ARRANGEMENTS:
        raise ValueError(f"--seatings all: these seats have {arrangements} distinct arrangements, "
                         f"more than {MAX_ARRANGEMENTS}; use fewer distinct strategies or "
                         f"--seatings rotations")
    deals = -(-count // arrangements)
    if args.expected_loss is not None and args.expected_loss < 2:
        raise ValueError("--expected-loss: the analysis needs at least 2 deals a choice")
    return ArenaConfig(seats, deals, options, args.seed, args.seatings, args.program_time,
                       args.expected_loss)


def _split_seats(text: str) -> list[str]:
    """Split "search:ms=20,noise=1,random" into seats: a part with "=" and no
    ":" continues the strategy before it."""
    seats: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if "=" in part and ":" not in part and seats:
            seats[-1] += "," + part
        elif part:
            seats.append(part)
    return seats


def _progress_bar(title: str) -> Callable[[Iterable[PlayedGame], int], Iterable[PlayedGame]]:
    def wrap(results: Iterable[PlayedGame], total: int) -> Iterator[PlayedGame]:
        from prompt_toolkit.shortcuts import ProgressBar

        with ProgressBar(title=title) as bar:
            yield from bar(results, total=total, label="games")

    return wrap


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    # A failing program's every failure would be a line: the report counts them instead.
    logging.getLogger("nimmt.bots").setLevel(logging.ERROR)
    try:
        config = config_from_args(args)
    except (ValueError, StrategyError) as e:
        parser.error(str(e))
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    show = not args.quiet and sys.stderr.isatty() and sys.stdout.isatty()
    progress = _progress_bar(f"nimmt-arena: {', '.join(config.seats)}") if show else None
    jobs = args.jobs
    try:
        if args.cluster is not None:
            from .cluster import ClusterError, cluster_workers

            try:
                jobs = cluster_workers(args.cluster)
                report = run_arena(config, jobs, progress, cluster=args.cluster)
            except ClusterError as e:
                print(f"nimmt-arena: {e}", file=sys.stderr)
                return 1
        else:
            report = run_arena(config, jobs, progress)
    except KeyboardInterrupt:
        print("nimmt-arena: interrupted", file=sys.stderr)
        return 130
    print(report.to_json() if args.json else report.to_text())
    never = False
    for s in report.strategies:
        if s.failures:
            print(f"nimmt-arena: {s.strategy} failed {s.failures} of {s.decisions} decisions "
                  f"(the fallback made them); last: {s.last_fault}", file=sys.stderr)
            never = never or s.failures >= s.decisions
    return 1 if never else 0


if __name__ == "__main__":
    sys.exit(main())
