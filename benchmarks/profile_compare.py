"""Compare two cProfile files of the server per turn played: calls and own time.

    python benchmarks/load.py --tables 20 --think 0 --duration 20 --warmup 5 --db off \\
        --profile --profile-out before.prof          # on one version of the server
    python benchmarks/load.py ... --profile --profile-out after.prof   # on the other
    python benchmarks/profile_compare.py before.prof after.prof

A turn is four accepted commits (calls of the engine's ``Game._commit`` / 4). The
number of calls a turn does not depend on how busy the machine was, unlike the
times: compare calls first. The two profiles include the start-up and the warm-up;
with ``--think 0`` their share is small.
"""

from __future__ import annotations

import argparse
import pstats
import re

FOLDERS = re.compile(r"^.*/(engine|protocol|server|client|bots|trio|msgpack|json)/")


def per_function(path: str) -> dict[str, list[float]]:
    """function -> [calls, own seconds, cumulative seconds] (files named by folder)."""
    out: dict[str, list[float]] = {}
    for (filename, _line, name), (_cc, calls, own, cumulative, _callers) in \
            pstats.Stats(path).stats.items():  # type: ignore[attr-defined]
        key = FOLDERS.sub(r"\1/", filename) + ":" + name
        row = out.setdefault(key, [0, 0.0, 0.0])
        row[0] += calls
        row[1] += own
        row[2] += cumulative
    return out


def turns(functions: dict[str, list[float]]) -> float:
    commits = sum(row[0] for key, row in functions.items() if key == "engine/game.py:_commit")
    if not commits:
        raise SystemExit("no engine/game.py:_commit in this profile: no turn was played")
    return commits / 4


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--top", type=int, default=30, help="functions listed (default 30)")
    args = parser.parse_args()
    a, b = per_function(args.before), per_function(args.after)
    ta, tb = turns(a), turns(b)
    zero = [0, 0.0, 0.0]
    print(f"turns: {ta:,.0f} before, {tb:,.0f} after")
    print(f"calls a turn: {sum(r[0] for r in a.values()) / ta:,.1f} before, "
          f"{sum(r[0] for r in b.values()) / tb:,.1f} after")
    print(f"own time a turn: {sum(r[1] for r in a.values()) / ta * 1e6:,.0f} us before, "
          f"{sum(r[1] for r in b.values()) / tb * 1e6:,.0f} us after (times depend on the "
          "machine's load)")
    changed = sorted(set(a) | set(b),
                     key=lambda k: -abs(b.get(k, zero)[0] / tb - a.get(k, zero)[0] / ta))
    print(f"\n{'calls a turn before':>20} {'after':>8} {'own us before':>14} {'after':>8}  function")
    for key in changed[:args.top]:
        x, y = a.get(key, zero), b.get(key, zero)
        print(f"{x[0] / ta:20.1f} {y[0] / tb:8.1f} {x[1] / ta * 1e6:14.1f} "
              f"{y[1] / tb * 1e6:8.1f}  {key}")


if __name__ == "__main__":
    main()
