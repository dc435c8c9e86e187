"""What one transaction of the store costs by itself, without trio (issue 23).

    python benchmarks/transaction.py                     # 2,000 transactions of each kind
    python benchmarks/transaction.py --between 0 1024 8192

Appends one decision fact a transaction to 20 tables in turn (``Store.append``), then
groups of five appends (``Store.write_group``), on a fresh database file in a
temporary folder, and prints the mean time of each; then one checkpoint of the log
they left. Compare with what the database costs a turn in ``benchmarks/load.py``.

``--between KIB ...``: then, for each size, one-write transactions again with KIB KiB
of other memory read between two of them (and 2,000 Python objects looked at), as a
server does between its transactions (it runs its tables, its connections, the
bots); each transaction's CPU time (``time.thread_time``) is summed. What a
transaction costs when what SQLite needs is no longer in the processor's caches.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time

from nimmt.engine import Commit
from nimmt.server.storage import Fact, Store, decision_fact

def _append(n: int) -> tuple[str, tuple[str, list[Fact]], dict[str, object]]:
    """The n-th write: one decision fact, to one of 20 tables in turn (``write_group``'s form)."""
    return ("append", (f"t{n % 20}", [decision_fact(Commit(n % 4, 1 + n % 100))]), {})


class CacheSweeper:
    """Reads memory the transactions do not use, to push theirs out of the caches."""

    def __init__(self, kib: int) -> None:
        self._memory = bytearray(os.urandom(max(kib, 1) * 1024))
        self._objects = [{f"k{i}": [i, str(i)]} for i in range(200_000)]

    def sweep(self, kib: int) -> int:
        touched = sum(self._memory[:kib * 1024:64])  # one byte of each 64-byte line
        return touched + sum(len(o) for o in random.sample(self._objects, 2000))


def cold_transactions(store: Store, kib_list: list[int], count: int) -> list[tuple[int, float]]:
    """Mean CPU seconds of a one-write transaction, by KiB read between two of them."""
    sweeper = CacheSweeper(max(kib_list))
    means = []
    for kib in kib_list:
        spent = 0.0
        for n in range(count):
            if kib:
                sweeper.sweep(kib)
            started = time.thread_time()
            store.write_group([_append(n)])
            spent += time.thread_time() - started
            if n % 400 == 399:
                store.checkpoint()  # (the log stays small, as in a server)
        means.append((kib, spent / count))
    return means


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000, help="transactions (default 2000)")
    parser.add_argument("--between", type=int, nargs="*", default=[], metavar="KIB",
                        help="also one-write transactions with KIB KiB read between two "
                             "of them (0: none), their CPU time")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "transaction.db")
        with Store.open(path) as store:
            for i in range(20):
                store.create_table(f"t{i}", f"t{i}", {}, {})
            started = time.perf_counter()
            for n in range(args.count):
                _, (table_id, facts), _ = _append(n)
                store.append(table_id, facts)
            single = (time.perf_counter() - started) / args.count
            calls = [_append(n) for n in range(5)]
            groups = max(1, args.count // 5)
            started = time.perf_counter()
            for _ in range(groups):
                store.write_group(calls)
            grouped = (time.perf_counter() - started) / groups
            log = os.path.getsize(path + "-wal")
            started = time.perf_counter()
            store.checkpoint()
            checkpoint = time.perf_counter() - started
            cold = cold_transactions(store, args.between, args.count) if args.between else []
    print(f"one fact a transaction   {single * 1e6:7.0f} us each")
    print(f"five facts a transaction {grouped * 1e6:7.0f} us each")
    print(f"checkpoint of a {log / 1e6:.1f} MB log: {checkpoint * 1e3:.1f} ms")
    for kib, mean in cold:
        print(f"one fact a transaction, {kib:6d} KiB read between two: {mean * 1e6:7.1f} us "
              "of CPU each")


if __name__ == "__main__":
    main()
