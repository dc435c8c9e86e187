"""nimmt.bots: strategies that decide from a player's view."""

from .strategies import STRATEGIES, HeuristicStrategy, RandomStrategy, Strategy, make_strategy

__all__ = ["Strategy", "RandomStrategy", "HeuristicStrategy", "STRATEGIES", "make_strategy"]
