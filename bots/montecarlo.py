"""The Monte Carlo loop: candidates scored over sampled worlds, by count or by clock.

Every candidate is scored on the same sampled world and the same rollout
seed (common random numbers), so differences between candidates are not
drowned by the luck of the deal.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["Estimate", "monte_carlo"]

C = TypeVar("C")
W = TypeVar("W")


@dataclass(frozen=True, slots=True)
class Estimate(Generic[C]):
    best: C
    samples: int  # worlds sampled
    means: dict[C, float]  # mean cost of each candidate (lower is better)


def monte_carlo(
    candidates: Sequence[C],
    sample_world: Callable[[random.Random], W],
    cost: Callable[[C, W, int], float],
    rng: random.Random,
    *,
    samples: int | None = None,
    deadline: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Estimate[C]:
    """The candidate of lowest mean ``cost(candidate, world, seed)``.

    Stops after ``samples`` worlds, or at ``deadline`` (a ``clock()`` time):
    a new world is begun only if a world of the mean duration so far would
    still finish in time, and a world the deadline cuts short is not counted
    (the clock is read before each simulation). With neither, one world.
    ``candidates`` must not be empty.
    """
    if not candidates:
        raise ValueError("no candidates to choose from")
    every = range(len(candidates))
    values: list[list[float]] = [[] for _ in candidates]
    done = 0
    spent = 0.0  # seconds spent on complete worlds
    limit = samples if samples is not None else (None if deadline is not None else 1)
    while len(candidates) > 1:
        if limit is not None and done >= limit:
            break
        start = clock()
        if deadline is not None and done and start + spent / done > deadline:
            break  # a typical world would not finish in time
        world = sample_world(rng)
        seed = rng.getrandbits(32)
        for i in every:
            if deadline is not None and clock() > deadline:
                break
            values[i].append(cost(candidates[i], world, seed))
        else:
            done += 1
            spent += clock() - start
            continue
        for i in every:  # out of time in the middle of a world: forget it
            del values[i][done:]
        break
    means = {candidates[i]: (sum(v) / len(v) if v else math.inf) for i, v in enumerate(values)}
    best = min(every, key=lambda i: (sum(values[i]) / len(values[i])) if values[i] else 0.0)
    return Estimate(candidates[best], done, means)

