"""nimmt.bots: strategies that decide from a player's view, the arena, and the network runner.

This package's top level imports the engine only, so that the server can seat
built-in bots without loading the client. Strategies by name:
``make_strategy("search:ms=20")`` (see ``STRATEGIES``). The arena
(``nimmt.bots.arena``, the ``nimmt-arena`` command) plays them against each
other. The network bot lives in submodules, imported by name:
``nimmt.bots.runner`` (the ``nimmt-bot`` command) plays on a server;
``nimmt.bots.sdk.play`` plays your Python ``decide(view)``; ``nimmt.bots.bridge``
lets a program in any language decide (``nimmt-bot --exec``);
``nimmt.bots.tracker.SeatTracker`` turns what a seat receives into a ``View``;
``nimmt.bots.session`` rides out lost links, server restarts and tables that do
not start. The arena seats programs and Python functions too
(``nimmt.bots.external``) and runs on a Dask cluster (``nimmt.bots.cluster``).
docs/BOTS.md and docs/ARENA.md are the guides.
"""

from .basic import HeuristicStrategy, RandomStrategy, Strategy
from .mcs import MonteCarloStrategy
from .search import SearchStrategy
from .strategies import (
    DEFAULT_LEVEL,
    LEVELS,
    STRATEGIES,
    TIMED,
    BadParameter,
    StrategyError,
    UnknownParameter,
    UnknownStrategy,
    level_spec,
    make_strategy,
    parse_strategy,
)

__all__ = [
    "Strategy",
    "RandomStrategy",
    "HeuristicStrategy",
    "MonteCarloStrategy",
    "SearchStrategy",
    "STRATEGIES",
    "LEVELS",
    "DEFAULT_LEVEL",
    "TIMED",
    "level_spec",
    "make_strategy",
    "parse_strategy",
    "StrategyError",
    "UnknownStrategy",
    "UnknownParameter",
    "BadParameter",
]
