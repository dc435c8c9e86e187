"""How well ``search``'s opponent model tells random players from sensible ones.

    python benchmarks/opponent_model.py              # the defaults
    python benchmarks/opponent_model.py --deals 150 --grid

One seat (a heuristic bot) feeds its views to an ``OpponentModel`` over single
rounds (4 players, deals seeded 0..N-1) at three tables: three ``random``
bots, three ``heuristic`` bots, and one ``heuristic`` with two ``random``.
Per turn it prints the share of commits at which the model reads the seats
right: a seat counts as read "sensible" when its ``careless_of`` is under
0.95 (where ``search`` stops imagining it random).

- against three random bots: the share of commits with every seat read random;
- against three heuristic bots: every seat read sensible;
- mixed: the heuristic seat read sensible and both random seats random.

``--grid`` repeats it for other priors and shares of the table's evidence.
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import nimmt.bots.opponents as opponents
from nimmt.bots import HeuristicStrategy, RandomStrategy
from nimmt.bots.sampling import Unseen
from nimmt.engine import Game, Options, Phase

TABLES = {
    "three random": ("random", "random", "random"),
    "three heuristic": ("heuristic", "heuristic", "heuristic"),
    "heuristic + two random": ("heuristic", "random", "random"),
}


def right_shares(kinds: tuple[str, ...], deals: int) -> dict[int, float]:
    right: dict[int, list[bool]] = defaultdict(list)
    for deal in range(deals):
        game = Game(Options(players=4, rounds=1), seed=deal)
        model = opponents.OpponentModel()
        players = [HeuristicStrategy()] + [
            RandomStrategy(seed=deal * 10 + s) if kind == "random" else HeuristicStrategy()
            for s, kind in enumerate(kinds)]
        while not game.is_over:
            for seat in sorted(game.pending.seats):
                view = game.view(seat)
                if seat == 0 and view.phase is Phase.COMMIT:
                    pool = Unseen.of(view).pool
                    model.observe(view, [None, pool, pool, pool])
                    right[view.turn].append(all(
                        (model.careless_of(s + 1) < 0.95) == (kind == "heuristic")
                        for s, kind in enumerate(kinds)))
                game.apply(players[seat].decide(view))
    return {turn: sum(v) / len(v) for turn, v in sorted(right.items())}


def report(deals: int) -> None:
    for name, kinds in TABLES.items():
        by_turn = right_shares(kinds, deals)
        overall = sum(by_turn.values()) / len(by_turn)
        turns = " ".join(f"{share:4.0%}" for share in by_turn.values())
        print(f"  {name:23s} read right at {overall:4.0%} of commits;  by turn: {turns}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--deals", type=int, default=150)
    p.add_argument("--grid", action="store_true", help="also other priors and shares")
    args = p.parse_args()
    settings = [(opponents.PRIOR_LOG_ODDS, opponents.ALIKE)]
    if args.grid:
        settings += [(prior, shared) for prior in (4.0, 5.0) for shared in (0.5, 0.8, 0.95)
                     if (prior, shared) != settings[0]]
    for prior, shared in settings:
        opponents.PRIOR_LOG_ODDS, opponents.ALIKE = prior, shared
        print(f"prior e^{prior:g}, chance that a table plays alike {shared:g}")
        report(args.deals)


if __name__ == "__main__":
    main()
