"""The Monte Carlo loop: candidates scored over sampled worlds, by count or by clock.

Every candidate is scored on the same sampled world and the same rollout
seed (common random numbers), so differences between candidates are not
drowned by the luck of the deal. With ``prune``, a candidate whose paired
difference to the current best is clearly positive stops being simulated,
leaving the time to the close calls.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["Estimate", "monte_carlo"]

#: Sequential halving waits for this many worlds a phase: a halving on fewer
#: throws good candidates away on luck.
HALVING_WORLDS = 20

C = TypeVar("C")
W = TypeVar("W")


@dataclass(frozen=True, slots=True)
class Estimate(Generic[C]):
    best: C
    samples: int  # worlds sampled
    means: dict[C, float]  # mean cost of each candidate (lower is better), pruned ones too


def monte_carlo(
    candidates: Sequence[C],
    sample_world: Callable[[random.Random], W],
    cost: Callable[[C, W, int], float],
    rng: random.Random,
    *,
    samples: int | None = None,
    deadline: float | None = None,
    prune: bool = False,
    halve: bool = False,
    clock: Callable[[], float] = time.perf_counter,
) -> Estimate[C]:
    """The candidate of lowest mean ``cost(candidate, world, seed)``.

    Stops after ``samples`` worlds, or at ``deadline`` (a ``clock()`` time):
    a new world is begun only if a world of the mean duration so far would
    still finish in time, and a world the deadline cuts short is not counted
    (the clock is read before each simulation). With neither, one world.
    ``candidates`` must not be empty.

    ``prune``: stop simulating a candidate clearly worse than the best (see
    ``_survivors``). ``halve``: sequential halving, for a fixed budget: the
    budget (time, or else ``samples``) is cut in as many phases as halvings
    take the candidates down to two, and after each phase only the better
    half goes on.
    """
    if not candidates:
        raise ValueError("no candidates to choose from")
    alive = list(range(len(candidates)))
    values: list[list[float]] = [[] for _ in candidates]
    done = 0
    spent = 0.0  # seconds spent on complete worlds
    limit = samples if samples is not None else (None if deadline is not None else 1)
    phases = max(1, math.ceil(math.log2(len(candidates))))
    phase = 1
    opened = clock()

    def phase_over() -> bool:
        if deadline is not None:
            return clock() >= opened + (deadline - opened) * phase / phases
        return limit is not None and done >= limit * phase / phases

    while len(alive) > 1:
        if limit is not None and done >= limit:
            break
        start = clock()
        if deadline is not None and done and start + spent / done > deadline:
            break  # a typical world would not finish in time
        world = sample_world(rng)
        seed = rng.getrandbits(32)
        for i in alive:
            if deadline is not None and clock() > deadline:
                break
            values[i].append(cost(candidates[i], world, seed))
        else:
            done += 1
            spent += clock() - start
            if prune and done >= 24 and done % 4 == 0:
                alive = _survivors(alive, values)
            if halve and phase < phases and done >= HALVING_WORLDS * phase and phase_over():
                phase += 1
                alive.sort(key=lambda i: sum(values[i]))
                alive = sorted(alive[: max(2, (len(alive) + 1) // 2)])
            continue
        for i in alive:  # out of time in the middle of a world: forget it
            del values[i][done:]
        break
    means = {candidates[i]: (sum(v) / len(v) if v else math.inf) for i, v in enumerate(values)}
    best = min(alive, key=lambda i: (sum(values[i]) / len(values[i])) if values[i] else 0.0)
    return Estimate(candidates[best], done, means)


def _survivors(alive: list[int], values: list[list[float]]) -> list[int]:
    """Drop candidates worse than the best by more than 3 standard errors
    of the paired difference (all alive candidates share every world)."""
    n = len(values[alive[0]])
    leader = min(alive, key=lambda i: sum(values[i]))
    lead = values[leader]
    kept = []
    for i in alive:
        if i == leader:
            kept.append(i)
            continue
        diffs = [a - b for a, b in zip(values[i], lead)]
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        if mean > 0 and mean > 3 * math.sqrt(var / n):
            continue
        kept.append(i)
    return kept
