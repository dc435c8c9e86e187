"""benchmarks/decision_regret.py: where the noise of comparing two cards on one deal comes from."""

from __future__ import annotations

import random

from nimmt.bots import RandomStrategy
from nimmt.engine import Game, Options, Phase, View

from bench_helpers import load_benchmark

decision_regret = load_benchmark("decision_regret")


def _commit_view(turn: int, seed: int) -> View:
    game = Game(Options(players=4, rounds=1), seed=seed)
    players = [RandomStrategy(seed + s) for s in range(4)]
    while True:
        for seat in sorted(game.pending.seats):
            view = game.view(seat)
            if seat == 0 and view.phase is Phase.COMMIT and view.turn == turn:
                return view
            game.apply(players[seat].decide(view))


def test_with_two_cards_left_the_order_of_play_adds_no_noise() -> None:
    # after this turn every seat has one card left: no order to draw
    view = _commit_view(9, seed=5)
    assert len(view.hand) == 2
    best = random.Random(1).choice(view.hand)
    parts = decision_regret.noise_parts(view, best, groups=60, seed=3)
    assert parts.order == 0.0
    assert parts.total > 0


def test_early_in_a_round_the_order_of_play_is_part_of_the_noise() -> None:
    view = _commit_view(2, seed=5)
    parts = decision_regret.noise_parts(view, view.hand[0], groups=60, seed=3)
    # nine more turns of random play: most of the noise (benchmarks/README.md, session 14)
    assert parts.order > parts.this_turn + parts.rest_of_deal
