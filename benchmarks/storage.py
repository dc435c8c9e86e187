"""The storage layer: how long a fact takes to reach the file, and a kill soak.

    python benchmarks/storage.py              # latency (file and :memory:) + 30 kills
    python benchmarks/storage.py --kills 100  # a longer soak

Latency: one fact (a commit) appended per call, as a table does before it sends
a decision's effects; ``Store.append`` directly and ``AsyncStore.append`` from
trio (a worker-thread hop), medians and p99 over 2,000 appends each, both
cases in one run.

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
from pathlib import Path

import trio

from nimmt.engine import Commit, Replay
from nimmt.server.storage import MEMORY, AsyncStore, Store, decision_fact, rebuild_game

TESTS = Path(__file__).resolve().parent.parent / "tests"


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
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
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
