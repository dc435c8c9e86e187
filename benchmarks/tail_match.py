"""Which of the slowest reveals of a load run came while the writes waited (issue 23).

    PYTHONPATH=benchmarks/store_probe python benchmarks/load.py --tables 250 \\
        --think 0.5:1.5 --duration 20 --warmup 8 --db on --reveals-out reveals.txt
    python benchmarks/tail_match.py reveals.txt /tmp/nimmt-store-probe-PID.waits

The reveals (``load.py --reveals-out``: each one's end and latency) and the moments the
server's writes waited on (``benchmarks/store_probe``: a part of a fold, a checkpoint
of the writer, a transaction over 0.5 ms) are both on ``time.perf_counter``, the
machine's monotonic clock, read by two processes. Prints the reveal p50 and p99 and how
many of the slowest 1% overlapped each kind of wait.
"""

from __future__ import annotations

import argparse
from collections import Counter


def read_reveals(path: str) -> list[tuple[float, float]]:
    """(end, latency) of each reveal, slowest last."""
    with open(path, encoding="utf-8") as f:
        reveals = [(float(end), float(latency)) for end, latency in (line.split() for line in f)]
    return sorted(reveals, key=lambda reveal: reveal[1])


def read_waits(path: str) -> list[tuple[float, float, str]]:
    with open(path, encoding="utf-8") as f:
        return [(float(start), float(end), kind) for start, end, kind in (line.split() for line in f)]


def slowest_overlapping(reveals: list[tuple[float, float]], waits: list[tuple[float, float, str]],
                        share: float = 0.01) -> tuple[int, Counter[str], int]:
    """The slowest ``share`` of ``reveals``: how many, how many overlapped each kind of
    wait, and how many overlapped none."""
    slowest = reveals[int(len(reveals) * (1 - share)):]
    by_kind: Counter[str] = Counter()
    none = 0
    for end, latency in slowest:
        kinds = {kind for start, stop, kind in waits if start < end and stop > end - latency}
        by_kind.update(kinds)
        none += not kinds
    return len(slowest), by_kind, none


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reveals", help="load.py --reveals-out file")
    parser.add_argument("waits", help="the store probe's .waits file")
    args = parser.parse_args()
    reveals = read_reveals(args.reveals)
    if not reveals:
        raise SystemExit(f"{args.reveals} holds no reveal: was the run measured?")
    waits = read_waits(args.waits)
    latencies = [latency for _, latency in reveals]
    print(f"reveals {len(reveals)}: p50 {latencies[len(latencies) // 2] * 1000:.1f} ms, "
          f"p99 {latencies[int(len(latencies) * 0.99)] * 1000:.1f} ms; waits of the writes "
          + ", ".join(f"{kind} {count}" for kind, count in Counter(k for *_, k in waits).items()))
    count, by_kind, none = slowest_overlapping(reveals, waits)
    print(f"the slowest {count}: " + ", ".join(f"{n} during a {kind}" for kind, n in
                                              by_kind.most_common())
          + f"; {none} during none")


if __name__ == "__main__":
    main()
