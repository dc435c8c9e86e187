"""nimmt.bots: strategies that decide from a player's view, and the network runner.

``nimmt.bots.runner`` (the ``nimmt-bot`` command) plays a strategy on a server;
``SeatTracker`` turns what a seat receives into the ``View`` strategies take.
"""

from .strategies import STRATEGIES, HeuristicStrategy, RandomStrategy, Strategy, make_strategy
from .tracker import SeatTracker, options_from_wire

__all__ = [
    "Strategy",
    "RandomStrategy",
    "HeuristicStrategy",
    "STRATEGIES",
    "make_strategy",
    "SeatTracker",
    "options_from_wire",
]
