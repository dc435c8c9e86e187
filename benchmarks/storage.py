"""The storage layer: how long a fact takes to reach the file, and a kill soak.

    python benchmarks/storage.py              # latency, 250 tables at once, 30 kills
    python benchmarks/storage.py --kills 100  # a longer soak
    python benchmarks/storage.py --only-tables --tables 250 --seconds 10
    python benchmarks/storage.py --only-tables --seconds 5 --profile   # where the time goes

Latency: one fact (a commit) appended per call, as a table does before it sends
a decision's effects; ``Store.append`` directly and ``AsyncStore.append`` from
trio (a worker-thread hop), medians and p99 over 2,000 appends each, both
cases in one run.

Tables at once: ``--tables`` trio tasks (250), each a table appending one fact
(a commit) per call and waiting for it, as a table does before it sends a
decision's effects, for ``--seconds``: facts per second through
``AsyncStore`` on a file, and each append's wait (median, p99). With group
commit the facts handed in while a transaction is written go in the next one.
``--profile``: cProfile in the trio thread and in every other thread (the
store's), the top functions of each by own time.

Soak: ``tests/storage_crash_child.py`` plays 3-player games through a Store and
is killed with SIGKILL after a random number of stored facts, again and again;
after every kill the file must open, every open table's facts must rebuild
into an engine game, and every kept game's record must replay to its stored
result. At the end the child plays on until all games are finished.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import trio

from nimmt.engine import Commit, Replay
from nimmt.server.storage import MEMORY, AsyncStore, Store, decision_fact, rebuild_game

TESTS = Path(__file__).resolve().parent.parent / "tests"

_T = TypeVar("_T")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def sync_latency(path: str, n: int) -> list[float]:
    with Store.open(path) as store:
        store.create_table("t1", "bench", {}, {})
        times = []
        for i in range(n):
            fact = decision_fact(Commit(i % 4, 1 + i % 104), by="player")
            start = time.perf_counter()
            store.append("t1", [fact])
            times.append(time.perf_counter() - start)
    return times


def async_latency(path: str, n: int) -> list[float]:
    async def run() -> list[float]:
        astore = AsyncStore(Store.open(path))
        await astore.create_table("t1", "bench", {}, {})
        times = []
        for i in range(n):
            fact = decision_fact(Commit(i % 4, 1 + i % 104), by="player")
            start = time.perf_counter()
            assert await astore.append("t1", fact) is None
            times.append(time.perf_counter() - start)
        await astore.aclose()
        return times

    return trio.run(run)


#: how long each fold of recent_facts (each part of one) took: a worker thread; writes wait
FOLDS: list[float] = []


def tables_at_once(path: str, tables: int, seconds: float,
                   durability: str = "normal") -> tuple[int, list[float], int]:
    """``tables`` tasks appending one fact at a time for ``seconds``: facts written, each
    append's wait, and the transactions it took (0 if the store does not count them)."""

    async def run() -> tuple[int, list[float], int]:
        store = Store.open(path, durability=durability) if durability != "normal" else Store.open(path)
        astore = AsyncStore(store)
        # (not before schema 4) each fold of recent_facts, timed: each part of one since
        # session 16 (Store.fold_part, what the async store calls), else the whole fold
        name = "fold_part" if hasattr(store, "fold_part") else "fold"
        fold = getattr(store, name, None)
        if fold is not None:
            def timed_fold() -> None:
                started = time.perf_counter()
                fold()
                FOLDS.append(time.perf_counter() - started)
            setattr(store, name, timed_fold)
        ids = [f"t{i}" for i in range(1, tables + 1)]
        for table_id in ids:
            await astore.create_table(table_id, "bench", {}, {})
        commits = getattr(astore, "commits", 0)
        waits: list[float] = []
        stop = time.perf_counter() + seconds

        async def table(table_id: str, seat: int) -> None:
            i = 0
            while time.perf_counter() < stop:
                fact = decision_fact(Commit(seat % 4, 1 + i % 104), by="player")
                start = time.perf_counter()
                assert await astore.append(table_id, fact) is None
                waits.append(time.perf_counter() - start)
                i += 1

        async with trio.open_nursery() as nursery:
            for seat, table_id in enumerate(ids):
                nursery.start_soon(table, table_id, seat)
        commits = getattr(astore, "commits", 0) - commits
        await astore.aclose()
        return len(waits), waits, commits

    return trio.run(run)


def profiled(case: Callable[[], _T]) -> _T:
    """Run ``case`` with cProfile on in this thread and in every thread it starts;
    print the top functions of each side by own time."""
    import cProfile
    import io
    import pstats
    import threading

    others: list[cProfile.Profile] = []
    run = threading.Thread.run

    def profiled_run(thread: threading.Thread) -> None:
        profile = cProfile.Profile()
        others.append(profile)
        profile.enable()
        try:
            run(thread)
        finally:
            profile.disable()

    threading.Thread.run = profiled_run  # type: ignore[method-assign]
    main = cProfile.Profile()
    main.enable()
    try:
        result = case()
    finally:
        main.disable()
        threading.Thread.run = run  # type: ignore[method-assign]
    for name, profiles in (("the trio thread", [main]), ("the store's threads", others)):
        if not profiles:
            continue
        out = io.StringIO()
        stats = pstats.Stats(profiles[0], stream=out)
        for extra in profiles[1:]:
            stats.add(extra)
        stats.sort_stats("tottime").print_stats(12)
        print(f"\n--- {name}: top functions by own time")
        print("\n".join(line for line in out.getvalue().splitlines()[6:] if line.strip()))
    return result


def soak(folder: str, kills: int, games: int, seed: int) -> None:
    path = os.path.join(folder, "soak.db")
    rng = random.Random(seed)
    env = {**os.environ, "PYTHONPATH": str(TESTS)}
    child = [sys.executable, str(TESTS / "storage_crash_child.py"), path, str(games)]
    done = 0
    started = time.perf_counter()
    while True:
        proc = subprocess.Popen(child, stdout=subprocess.PIPE, text=True, env=env)
        assert proc.stdout is not None
        target = rng.randrange(1, 80) if done < kills else None
        for count, _ in enumerate(proc.stdout, start=1):
            if count == target:
                proc.send_signal(signal.SIGKILL)
                done += 1
                break
        proc.communicate()
        with Store.open(path) as store:
            for table in store.open_tables():
                rebuild_game(table.facts)
            for summary in store.games():
                result = Replay(store.game(summary.id).record).run().game.result  # type: ignore[union-attr]
                assert result is not None
                assert [p.bullheads for p in summary.players] == list(result.totals), summary.id
        if proc.returncode == 0:
            break
        assert proc.returncode == -signal.SIGKILL, proc.returncode
    with Store.open(path) as store:
        kept = len(store.games())
        assert kept == games and not store.open_tables()
    print(f"soak: {done} SIGKILLs, {kept} games finished, every state consistent "
          f"({time.perf_counter() - started:.1f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--appends", type=int, default=2000)
    parser.add_argument("--kills", type=int, default=30)
    parser.add_argument("--games", type=int, default=0, help="default: twice --kills")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tables", type=int, default=250, help="tables appending at once")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long they append")
    parser.add_argument("--durability", default="normal", choices=("normal", "full"),
                        help="the tables-at-once case's synchronous mode")
    parser.add_argument("--profile", action="store_true",
                        help="profile the tables-at-once case (both threads)")
    parser.add_argument("--only-tables", action="store_true",
                        help="only the tables-at-once case (no latency cases, no soak)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        if args.tables:
            def case() -> tuple[int, list[float], int]:
                return tables_at_once(os.path.join(folder, "tables.db"), args.tables,
                                      args.seconds, args.durability)

            facts, waits, commits = profiled(case) if args.profile else case()
            per = f", {facts / commits:.1f} facts a transaction" if commits else ""
            print(f"{args.tables} tables appending at once for {args.seconds:g} s "
                  f"(durability {args.durability}): "
                  f"{facts / args.seconds:,.0f} facts/s{per}; each append waited "
                  f"{statistics.median(waits) * 1e3:.2f} ms median, {pct(waits, 0.99) * 1e3:.2f} ms p99")
            if FOLDS:
                moves = "parts of folds" if hasattr(Store, "fold_part") else "folds"
                print(f"recent facts moved to their tables' logs: {len(FOLDS)} {moves}, "
                      f"{statistics.median(FOLDS) * 1e3:.1f} ms median, longest "
                      f"{max(FOLDS) * 1e3:.1f} ms (a worker thread; the writes wait)")
            if args.only_tables:
                return
        file = os.path.join(folder, "latency.db")
        cases = [
            ("Store.append, file (WAL, synchronous=NORMAL)", lambda: sync_latency(file, args.appends)),
            ("Store.append, :memory:", lambda: sync_latency(MEMORY, args.appends)),
            ("AsyncStore.append, file", lambda: async_latency(file + "2", args.appends)),
            ("AsyncStore.append, :memory:", lambda: async_latency(MEMORY, args.appends)),
        ]
        print(f"{'one fact appended':<46} {'median':>9} {'p99':>9}")
        for name, case in cases:
            times = case()
            print(f"{name:<46} {statistics.median(times) * 1e3:>7.3f}ms {pct(times, 0.99) * 1e3:>7.3f}ms")
        if args.kills:
            soak(folder, args.kills, args.games or max(2 * args.kills, 2), args.seed)


if __name__ == "__main__":
    main()
