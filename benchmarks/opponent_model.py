"""How often ``search``'s opponent model takes its table for sensible players.

    python benchmarks/opponent_model.py            # prior e^5 (the default) and e^3
    python benchmarks/opponent_model.py --deals 150

One seat feeds its views to an ``OpponentModel`` over single rounds (4 players,
deals seeded 0..N-1) against three ``random`` and against three ``heuristic``
bots; per turn, the share of commits at which the model thought the table
sensible (``careless`` under 0.95, where ``search`` stops imagining random
opponents). Against random bots that share should be small, against heuristic
bots large from the third turn on.
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import nimmt.bots.opponents as opponents
from nimmt.bots import HeuristicStrategy, RandomStrategy
from nimmt.bots.sampling import Unseen
from nimmt.engine import Game, Options, Phase


def shares(prior: float, others: str, deals: int) -> dict[int, float]:
    opponents.PRIOR_LOG_ODDS = prior
    sensible: dict[int, list[bool]] = defaultdict(list)
    for deal in range(deals):
        game = Game(Options(players=4, rounds=1), seed=deal)
        model = opponents.OpponentModel()
        players = [HeuristicStrategy()] + [
            RandomStrategy(seed=deal * 10 + s) if others == "random" else HeuristicStrategy()
            for s in range(3)]
        while not game.is_over:
            for seat in sorted(game.pending.seats):
                view = game.view(seat)
                if seat == 0 and view.phase is Phase.COMMIT:
                    model.observe(view, Unseen.of(view).pool)
                    sensible[view.turn].append(model.careless < 0.95)
                game.apply(players[seat].decide(view))
    return {turn: sum(v) / len(v) for turn, v in sorted(sensible.items())}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--deals", type=int, default=150)
    args = p.parse_args()
    for prior in (5.0, 3.0):
        for others in ("random", "heuristic"):
            by_turn = shares(prior, others, args.deals)
            overall = sum(by_turn.values()) / len(by_turn)
            turns = " ".join(f"{share:4.0%}" for share in by_turn.values())
            print(f"prior e^{prior:g}  vs three {others:9s}  all turns {overall:4.0%}   by turn: {turns}")


if __name__ == "__main__":
    main()
