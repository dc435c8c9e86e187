"""A probe of the database's work in a nimmt server started by a benchmark.

    PYTHONPATH=benchmarks/store_probe python benchmarks/load.py --tables 250 \\
        --think 0.5:1.5 --duration 30 --warmup 10 --db on
    cat /tmp/nimmt-store-probe-*.txt

Python imports ``sitecustomize`` at start-up in every process on ``PYTHONPATH``; this
one acts only in a ``nimmt.server`` process. It times every transaction of the store
(``Store.write_group``: wall time, and the CPU time of the thread that made it, by the
number of writes in it), every move of the recent facts (``Store.fold``, in a worker
thread) and every checkpoint the writer makes itself (``Store.checkpoint``, when the
log outgrew its bound; the writes wait for both), counts the facts written by kind, and writes a summary when the server
exits: ``/tmp/nimmt-store-probe-PID.txt``, with each thread's CPU seconds at the end.
Beside it, ``/tmp/nimmt-store-probe-PID.waits``: a line for each moment the writes waited
on (a part of a fold, a checkpoint of the writer, a transaction over 0.5 ms): its start
and end (``time.perf_counter``, seconds) and its kind; ``benchmarks/tail_match.py``
matches them with ``load.py --reveals-out``.
It works on older nimmt too (``PYTHONPATH=OLD:benchmarks/store_probe``).
"""

from __future__ import annotations

import atexit
import glob
import os
import sys
import time
from collections import Counter
from typing import Any

_OUT = f"/tmp/nimmt-store-probe-{os.getpid()}.txt"
_transactions: list[tuple[int, float, float]] = []  # writes, wall ms, thread CPU ms
_folds: list[tuple[float, int]] = []  # wall ms, rows
_checkpoints: list[float] = []  # wall ms of each of the writer's own checkpoints
_kinds: Counter[str] = Counter()
_waits: list[tuple[float, float, str]] = []  # start, end, kind (fold, checkpoint, transaction)


def _threads_cpu() -> str:
    tick = os.sysconf("SC_CLK_TCK")
    rows = []
    for task in glob.glob("/proc/self/task/*"):
        try:
            with open(task + "/stat", encoding="ascii") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        rows.append((task.rsplit("/", 1)[1], (int(fields[11]) + int(fields[12])) / tick))
    rows.sort(key=lambda row: -row[1])
    return ", ".join(f"{tid}{' (main)' if tid == str(os.getpid()) else ''} {cpu:.2f}"
                     for tid, cpu in rows)


def _summary() -> None:
    with open(_OUT.removesuffix(".txt") + ".waits", "w", encoding="utf-8") as waits:
        waits.writelines(f"{start} {end} {kind}\n" for start, end, kind in _waits)
    with open(_OUT, "w", encoding="utf-8") as out:
        if _transactions:
            walls = sorted(t[1] for t in _transactions)
            n = len(walls)
            writes = sum(t[0] for t in _transactions)
            out.write(f"transactions {n}, writes {writes} ({writes / n:.2f} a transaction)\n")
            out.write(f"wall ms: median {walls[n // 2]:.3f}, p99 {walls[int(n * 0.99)]:.3f}, "
                      f"longest {walls[-1]:.1f}, total {sum(walls):.0f}; over 1 ms: "
                      f"{sum(1 for w in walls if w > 1)}\n")
            out.write(f"thread CPU in transactions: {sum(t[2] for t in _transactions) / 1000:.2f} s\n")
            by_size: dict[int, list[float]] = {}
            for size, _, cpu in _transactions:
                by_size.setdefault(min(size, 8), []).append(cpu)
            out.write("CPU us a transaction by its writes (8: 8 or more): " + ", ".join(
                f"{size}: {len(cpus)} x {1000 * sum(cpus) / len(cpus):.0f}"
                for size, cpus in sorted(by_size.items())) + "\n")
        if _folds:
            walls = sorted(f[0] for f in _folds)
            moved = sum(f[1] for f in _folds)  # (0: parts of folds, whose rows are not counted)
            out.write(f"folds{' (parts)' if not moved else ''} {len(walls)}: median "
                      f"{walls[len(walls) // 2]:.1f} ms, longest {walls[-1]:.1f} ms, total "
                      f"{sum(walls):.0f} ms" + (f", rows {moved}" if moved else "") + "\n")
        if _checkpoints:
            walls = sorted(_checkpoints)
            out.write(f"the writer's own checkpoints {len(walls)}: median {walls[len(walls) // 2]:.1f} "
                      f"ms, longest {walls[-1]:.1f} ms, total {sum(walls):.0f} ms (the writes wait)\n")
        if _kinds:
            out.write("written: " + ", ".join(f"{k} {v}" for k, v in _kinds.most_common()) + "\n")
        out.write(f"threads' CPU s: {_threads_cpu()}\n")


def _install() -> None:
    from nimmt.server.storage import store as store_module

    store_class: Any = store_module.Store
    write_group = store_class.write_group

    def timed_write_group(self: Any, calls: Any) -> Any:
        for method, args, _ in calls:
            if method == "append":
                for fact in args[1]:
                    _kinds[f"fact {fact.kind}"] += 1
            else:
                _kinds[method] += 1
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            return write_group(self, calls)
        finally:
            end = time.perf_counter()
            _transactions.append((len(calls), (end - wall) * 1000,
                                  (time.thread_time() - cpu) * 1000))
            if end - wall > 0.0005:
                _waits.append((wall, end, "transaction"))

    store_class.write_group = timed_write_group
    # each part of a fold since session 16 (Store.fold_part: rows not counted, 0), else
    # each whole fold
    fold_name = "fold_part" if hasattr(store_class, "fold_part") else "fold"
    fold = getattr(store_class, fold_name, None)
    if fold is not None:
        def timed_fold(self: Any) -> None:
            rows = self._recent if fold_name == "fold" else 0
            wall = time.perf_counter()
            fold(self)
            end = time.perf_counter()
            _folds.append(((end - wall) * 1000, rows))
            _waits.append((wall, end, "fold"))

        setattr(store_class, fold_name, timed_fold)
    checkpoint = store_class.checkpoint

    def timed_checkpoint(self: Any) -> None:
        wall = time.perf_counter()
        checkpoint(self)
        end = time.perf_counter()
        _checkpoints.append((end - wall) * 1000)
        _waits.append((wall, end, "checkpoint"))

    store_class.checkpoint = timed_checkpoint
    atexit.register(_summary)


if "nimmt.server" in getattr(sys, "orig_argv", ()):  # python -m nimmt.server ...
    _install()
