"""The Monte Carlo loop: candidates scored over sampled worlds, by count or by clock.

Every candidate is scored on the same sampled world and the same rollout
seed (common random numbers), so differences between candidates are not
drowned by the luck of the deal.

With ``halving=True`` the budget is spent in phases (sequential halving): the
worlds or the time are split evenly over ``ceil(log2(candidates))`` phases,
and after each phase the worse half of the candidates still in the race (by
their mean over every world they were scored on) drops out. The candidates
that stay are the close ones, and they are scored on several times the worlds
a flat split would give them in the same time. Candidates still in the race
have always been scored on exactly the same worlds.

>>> costs = {"a": 3.0, "b": 1.0, "c": 2.0}
>>> monte_carlo(list(costs), lambda rng: None, lambda c, w, s: costs[c],
...             random.Random(1), samples=8, halving=True).best
'b'
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["Estimate", "monte_carlo", "deadline_after", "MARGIN_MS"]

#: Milliseconds a timed strategy keeps back from its budget: what it does after
#: the clock stops it (the last candidate's rollout, the result), and the
#: arena's or the network bot's own work around ``decide``, with room to spare
#: (benchmarks/README.md, "Strength", measures the time a decision really takes).
MARGIN_MS = 1.5


def deadline_after(start: float, ms: float) -> float:
    """The clock time at which a decision begun at ``start`` with a budget of
    ``ms`` milliseconds stops sampling: the budget less ``MARGIN_MS`` (less at
    most half the budget, for tiny budgets)."""
    return start + max(ms / 2, ms - MARGIN_MS) / 1000


C = TypeVar("C")
W = TypeVar("W")


@dataclass(frozen=True, slots=True)
class Estimate(Generic[C]):
    best: C
    samples: int  # worlds sampled
    means: dict[C, float]  # mean cost of each candidate over the worlds it was scored on


def monte_carlo(
    candidates: Sequence[C],
    sample_world: Callable[[random.Random], W],
    cost: Callable[[C, W, int], float],
    rng: random.Random,
    *,
    samples: int | None = None,
    deadline: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
    halving: bool = False,
) -> Estimate[C]:
    """The candidate of lowest mean ``cost(candidate, world, seed)``.

    Stops after ``samples`` worlds, or at ``deadline`` (a ``clock()`` time):
    a new world is begun only if a world of the mean duration so far would
    still finish in time, and a world the deadline cuts short is not counted
    (the clock is read before each simulation). With neither, one world.
    ``halving``: spend the budget in phases, dropping the worse half of the
    candidates after each (see the module's doc). ``candidates`` must not be
    empty.
    """
    if not candidates:
        raise ValueError("no candidates to choose from")
    count = len(candidates)
    sums = [0.0] * count
    seen = [0] * count  # worlds each candidate was scored on
    alive = list(range(count))
    done = 0
    spent = 0.0  # seconds spent on complete worlds
    scored = 0  # candidate simulations in complete worlds
    limit = samples if samples is not None else (None if deadline is not None else 1)
    phases = max(1, math.ceil(math.log2(count))) if halving and count > 2 else 1
    begin = clock()
    for phase in range(1, phases + 1):
        if phase == phases:
            phase_limit, phase_end = limit, deadline
        else:
            phase_limit = None if limit is None else math.ceil(limit * phase / phases)
            phase_end = None if deadline is None else begin + (deadline - begin) * phase / phases
        while len(alive) > 1:
            if phase_limit is not None and done >= phase_limit:
                break
            start = clock()
            if phase_end is not None and phase < phases and start >= phase_end:
                break
            if deadline is not None and done and start + spent / scored * len(alive) > deadline:
                break  # a typical world would not finish in time
            world = sample_world(rng)
            seed = rng.getrandbits(32)
            values = []
            for i in alive:
                if deadline is not None and clock() > deadline:
                    break
                values.append(cost(candidates[i], world, seed))
            else:
                for i, value in zip(alive, values):
                    sums[i] += value
                    seen[i] += 1
                done += 1
                scored += len(alive)
                spent += clock() - start
                continue
            break  # out of time in the middle of a world: forget it
        if phase < phases and done and len(alive) > 1:
            alive.sort(key=lambda i: sums[i] / seen[i])
            alive = alive[: (len(alive) + 1) // 2]
        if deadline is not None and clock() > deadline:
            break
    means = {candidates[i]: (sums[i] / seen[i] if seen[i] else math.inf) for i in range(count)}
    best = min(alive, key=lambda i: sums[i] / seen[i] if seen[i] else 0.0)
    return Estimate(candidates[best], done, means)
