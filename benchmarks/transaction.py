"""What one transaction of the store costs by itself, without trio (issue 23).

    python benchmarks/transaction.py            # 2,000 transactions of each kind

Appends one decision fact a transaction to 20 tables in turn (``Store.append``), then
groups of five appends (``Store.write_group``), on a fresh database file in a
temporary folder, and prints the mean time of each; then one checkpoint of the log
they left. Compare with what the database costs a turn in ``benchmarks/load.py``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from nimmt.engine import Commit
from nimmt.server.storage import Store, decision_fact


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000, help="transactions (default 2000)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "transaction.db")
        with Store.open(path) as store:
            for i in range(20):
                store.create_table(f"t{i}", f"t{i}", {}, {})
            started = time.perf_counter()
            for n in range(args.count):
                store.append(f"t{n % 20}", [decision_fact(Commit(n % 4, 1 + n % 100))])
            single = (time.perf_counter() - started) / args.count
            calls = [("append", (f"t{n % 20}", [decision_fact(Commit(n % 4, 1 + n % 100))]), {})
                     for n in range(5)]
            groups = max(1, args.count // 5)
            started = time.perf_counter()
            for _ in range(groups):
                store.write_group(calls)
            grouped = (time.perf_counter() - started) / groups
            log = os.path.getsize(path + "-wal")
            started = time.perf_counter()
            store.checkpoint()
            checkpoint = time.perf_counter() - started
    print(f"one fact a transaction   {single * 1e6:7.0f} us each")
    print(f"five facts a transaction {grouped * 1e6:7.0f} us each")
    print(f"checkpoint of a {log / 1e6:.1f} MB log: {checkpoint * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
