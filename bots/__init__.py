"""nimmt.bots: strategies that decide from a player's view, and the network runner.

This package's top level imports the engine only, so that the server can seat
built-in bots without loading the client. The network bot lives in submodules:
``nimmt.bots.runner`` (the ``nimmt-bot`` command) plays a strategy on a server;
``nimmt.bots.tracker.SeatTracker`` turns what a seat receives into a ``View``.
"""

from .strategies import STRATEGIES, HeuristicStrategy, RandomStrategy, Strategy, make_strategy

__all__ = [
    "Strategy",
    "RandomStrategy",
    "HeuristicStrategy",
    "STRATEGIES",
    "make_strategy",
]
