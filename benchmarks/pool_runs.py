"""Pool several ``nimmt-arena --json`` runs of the same table into one result.

A difference of a tenth of a bullhead a round needs more rounds than one
sitting of this machine allows (6,400 rounds at 100 ms a decision take about
95 minutes and give an interval of about ±0.18). Runs of the same table on
the same code with different ``--seed`` play different deals, so they are
independent samples of the same thing and can be pooled, *if the runs and
their number were fixed before any of them was looked at* (pooling until the
interval excludes zero would be choosing the answer).

    python benchmarks/pool_runs.py run-seed5.json run-seed6.json

Each run is weighted by its number of deals, as if its deals had been played
in one long run: the pooled mean is the deal-weighted mean of the runs'
means, and its standard error combines theirs with the same weights. The
runs must agree on the players, the seats and the rules, and differ in their
seed; anything else is refused with a message saying which.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from nimmt.bots.arena import Z95  # the arena's intervals and these must agree


@dataclass(frozen=True, slots=True)
class Pooled:
    strategy: str
    rounds: int
    bullheads_per_round: float
    ci95: float
    difference: float | None  # to the first seat's strategy, as the arena reports it
    difference_ci95: float | None


class PoolError(ValueError):
    """The runs cannot be pooled (and why)."""


def pool(runs: Sequence[dict]) -> list[Pooled]:
    """Per strategy, the pooled mean and 95% interval of ``runs`` (arena JSON reports)."""
    if len(runs) < 2:
        raise PoolError("give at least two runs to pool")
    first = runs[0]
    seeds = [run["seed"] for run in runs]
    if len(set(seeds)) != len(seeds):
        raise PoolError(f"two runs have the same seed ({seeds}): they played the same deals")
    for run in runs[1:]:
        for key in ("players", "options", "seatings"):
            if run.get(key) != first.get(key):
                raise PoolError(f"the runs differ in {key}: {first.get(key)!r} and {run.get(key)!r}")
        names = [s["strategy"] for s in run["strategies"]]
        if names != [s["strategy"] for s in first["strategies"]]:
            raise PoolError(f"the runs seat different strategies: {names}")
    deals = [run["deals"] for run in runs]
    total = sum(deals)
    weights = [d / total for d in deals]
    pooled = []
    for i, head in enumerate(first["strategies"]):
        rows = [run["strategies"][i] for run in runs]
        mean, ci = _combine(weights, [r["bullheads_per_round"] for r in rows], [r["ci95"] for r in rows])
        difference = difference_ci = None
        if head.get("difference") is not None:
            difference, difference_ci = _combine(
                weights, [r["difference"] for r in rows], [r["difference_ci95"] for r in rows])
        pooled.append(Pooled(head["strategy"], sum(r["rounds"] for r in rows), mean, ci,
                             difference, difference_ci))
    return pooled


def _combine(weights: Sequence[float], means: Sequence[float], cis: Sequence[float]) -> tuple[float, float]:
    mean = sum(w * m for w, m in zip(weights, means))
    se = math.sqrt(sum((w * ci / Z95) ** 2 for w, ci in zip(weights, cis)))
    return mean, Z95 * se


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", help="files written by nimmt-arena --json")
    args = parser.parse_args(argv)
    try:
        runs = []
        for path in args.runs:
            with open(path, encoding="utf-8") as f:
                runs.append(json.load(f))
        result = pool(runs)
    except (OSError, json.JSONDecodeError, KeyError) as e:
        print(f"pool_runs: cannot read the runs: {e}", file=sys.stderr)
        return 2
    except PoolError as e:
        print(f"pool_runs: {e}", file=sys.stderr)
        return 2
    seeds = ", ".join(str(run["seed"]) for run in runs)
    print(f"{len(runs)} runs (seeds {seeds}), {sum(run['deals'] for run in runs)} deals")
    print(f"{'strategy':<28} {'rounds':>7} {'bullheads/round':>16}   vs first (95% CI)")
    for p in result:
        vs = f"{p.difference:+.2f} ± {p.difference_ci95:.2f}" if p.difference is not None else ""
        print(f"{p.strategy:<28} {p.rounds:>7} {p.bullheads_per_round:>9.2f} ± {p.ci95:.2f}   {vs}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
