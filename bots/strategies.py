"""Strategies by name: ``make_strategy("search:ms=20")``.

A strategy decides from a player's view, never from the full state. A name
may carry parameters after a colon, ``name:key=value,key=value``:

>>> make_strategy("search:ms=20", seed=1)
SearchStrategy(ms=20.0, noise=1.0)
>>> make_strategy("mcs:samples=50")
MonteCarloStrategy(samples=50)
>>> make_strategy("search:budget=5")
Traceback (most recent call last):
...
nimmt.bots.strategies.UnknownParameter: search has no parameter 'budget': it takes ms, samples, noise, mix, depth, halving, careful, later, ahead, first, seed
>>> make_strategy("search:ms=fast")
Traceback (most recent call last):
...
nimmt.bots.strategies.BadParameter: search:ms must be a number, not 'fast'

A level, the name a person chooses a bot by, stands for a strategy with its
parameters (``LEVELS``): ``make_strategy("hard")`` is ``make_strategy("search:ms=100")``.

>>> parse_strategy("normal")
('search', {'ms': 30.0})
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .basic import HeuristicStrategy, RandomStrategy, Strategy
from .mcs import MonteCarloStrategy
from .search import SearchStrategy

__all__ = [
    "Strategy",
    "StrategyError",
    "UnknownStrategy",
    "UnknownParameter",
    "BadParameter",
    "StrategyInfo",
    "STRATEGIES",
    "LEVELS",
    "DEFAULT_LEVEL",
    "TIMED",
    "level_spec",
    "make_strategy",
    "parse_strategy",
]


class StrategyError(ValueError):
    """A strategy name or parameter that cannot be used (the message says why)."""


class UnknownStrategy(StrategyError):
    pass


class UnknownParameter(StrategyError):
    pass


class BadParameter(StrategyError):
    pass


def _number(text: str) -> float:
    return float(text)


def _whole(text: str) -> int:
    return int(text)


_TYPE_NAMES: dict[Callable[[str], Any], str] = {_number: "a number", _whole: "a whole number"}


@dataclass(frozen=True, slots=True)
class StrategyInfo:
    """How to build one strategy: its class, its parameters and what it is."""

    factory: Callable[..., Strategy]
    parameters: dict[str, Callable[[str], Any]]
    summary: str

    def __call__(self, seed: int | None = None, **parameters: Any) -> Strategy:
        return self.factory(seed=seed, **parameters)


STRATEGIES: dict[str, StrategyInfo] = {
    "random": StrategyInfo(RandomStrategy, {}, "any legal decision, at random"),
    "heuristic": StrategyInfo(HeuristicStrategy, {}, "the card least likely to take a row now"),
    "mcs": StrategyInfo(
        MonteCarloStrategy, {"samples": _whole, "ms": _number},
        "flat Monte Carlo: random rollouts, 300 deals (samples=N) or ms=N milliseconds",
    ),
    "search": StrategyInfo(
        SearchStrategy,
        {"ms": _number, "samples": _whole, "noise": _number, "mix": _number, "depth": _whole,
         "halving": _whole, "careful": _whole, "later": _whole, "ahead": _whole, "first": _whole},
        "Monte Carlo search against modelled opponents, ms=100 milliseconds a decision",
    ),
}


#: The levels a person chooses a bot by, weakest first: each a strategy spec.
#: The budgets keep a table of nine searching bots pleasant on a 2-core machine
#: (they think in parallel in the server's worker processes; docs/BOTS.md).
LEVELS: dict[str, str] = {
    "easy": "heuristic",
    "normal": "search:ms=30",
    "hard": "search:ms=100",
}
#: The level of a bot nobody chose a level for: the strongest that keeps the game pleasant.
DEFAULT_LEVEL = "hard"
#: Strategies that think for a while (the server runs them in worker processes);
#: the others decide in microseconds.
TIMED = frozenset({"search", "mcs"})


def level_spec(name: str) -> str:
    """The strategy spec a level stands for; any other name unchanged.

    >>> level_spec("easy"), level_spec("mcs:samples=50")
    ('heuristic', 'mcs:samples=50')
    """
    return LEVELS.get(name.strip(), name) if isinstance(name, str) else name


def parse_strategy(spec: str) -> tuple[str, dict[str, Any]]:
    """``"search:ms=20,seed=3"`` -> ``("search", {"ms": 20.0, "seed": 3})``; a level
    (``"hard"``) is read as the spec it stands for."""
    if not isinstance(spec, str):
        raise UnknownStrategy(f"a strategy is named by a string, not {spec!r}")
    name, _, rest = level_spec(spec).strip().partition(":")
    info = STRATEGIES.get(name)
    if info is None:
        raise UnknownStrategy(
            f"no strategy {name!r}: choose a level ({', '.join(LEVELS)}) or a strategy "
            f"({', '.join(sorted(STRATEGIES))})"
        )
    accepted = {**info.parameters, "seed": _whole}
    values: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, text = item.partition("=")
        key = key.strip()
        if key not in accepted:
            raise UnknownParameter(
                f"{name} has no parameter {key!r}: it takes {', '.join(accepted)}"
            )
        if not eq:
            raise BadParameter(f"{name}:{key} needs a value, as in {name}:{key}=VALUE")
        kind = accepted[key]
        try:
            values[key] = kind(text.strip())
        except ValueError:
            raise BadParameter(
                f"{name}:{key} must be {_TYPE_NAMES[kind]}, not {text.strip()!r}"
            ) from None
    return name, values


def make_strategy(spec: str, seed: int | None = None) -> Strategy:
    """A strategy by name, with optional parameters (``"search:ms=20"``).

    ``seed`` seeds its randomness unless the spec sets ``seed=``. Raises a
    ``StrategyError`` (a ``ValueError``) for an unknown name or parameter, or
    a value out of range.
    """
    name, values = parse_strategy(spec)
    values.setdefault("seed", seed)
    try:
        return STRATEGIES[name](**values)
    except ValueError as e:
        raise BadParameter(f"{name}: {e}") from None
