"""nimmt.bots: strategies that decide from a player's view, and the network runner.

This package's top level imports the engine only, so that the server can seat
built-in bots without loading the client. The network bot lives in submodules,
imported by name: ``nimmt.bots.runner`` (the ``nimmt-bot`` command) plays on a
server; ``nimmt.bots.sdk.play`` plays your Python ``decide(view)``;
``nimmt.bots.bridge`` lets a program in any language decide (``nimmt-bot
--exec``); ``nimmt.bots.tracker.SeatTracker`` turns what a seat receives into a
``View``. docs/BOTS.md is the guide.
"""

from .strategies import STRATEGIES, HeuristicStrategy, RandomStrategy, Strategy, make_strategy

__all__ = [
    "Strategy",
    "RandomStrategy",
    "HeuristicStrategy",
    "STRATEGIES",
    "make_strategy",
]
