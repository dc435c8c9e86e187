"""``record_from_game`` refuses a start that is not the game's own: the history from
that start must lead to the game's state, its totals as well as its result
(engine/records/build.py; issue 43)."""

from __future__ import annotations

import random

import pytest

from nimmt.engine import Game, Options
from nimmt.engine.records import Start, record_from_game

ROWS, HANDS = [[12], [37], [43], [58]], [[14, 26, 3], [15, 30, 68], [44, 21, 9]]
REFUSED = r"^the game's history does not lead to its state: was start taken from this game\?$"


def first_decisions(game: Game, count: int) -> None:
    for _ in range(count):
        seat = min(game.pending.seats)  # type: ignore[union-attr]
        game.apply(game.legal_decisions(seat)[0])


def start_with(totals: tuple[int, ...]) -> Start:
    return Start(rows=tuple(map(tuple, ROWS)), hands=tuple(map(tuple, HANDS)), totals=totals,
                 round=2)


def test_a_start_with_other_totals_is_refused_before_the_game_is_over():
    game = Game.from_position(Options(players=3, rounds=3), ROWS, HANDS, totals=[4, 0, 7],
                              round=2, rng=random.Random(3))
    first_decisions(game, 3)  # one turn: no result yet on either side
    assert game.result is None
    assert record_from_game(game, start=start_with((4, 0, 7))).start == start_with((4, 0, 7))
    with pytest.raises(ValueError, match=REFUSED):
        record_from_game(game, start=start_with((4, 1, 7)))


def test_a_start_with_other_totals_is_refused_after_the_game_is_over():
    game = Game.from_position(Options(players=3, rounds=2), ROWS, HANDS, totals=[4, 0, 7],
                              round=2, rng=random.Random(3))
    while not game.is_over:
        first_decisions(game, 1)
    with pytest.raises(ValueError, match=REFUSED):
        record_from_game(game, start=start_with((40, 0, 7)))


def test_a_start_whose_hands_could_not_have_played_the_game_is_refused_saying_so():
    game = Game.from_position(Options(players=3, rounds=3), ROWS, HANDS, totals=[4, 0, 7],
                              round=2, rng=random.Random(3))
    first_decisions(game, 3)
    played = [c for c in game.history if hasattr(c, "card")][0].card  # type: ignore[attr-defined]
    other = [list(h) for h in HANDS]
    for hand in other:  # the card seat 0 played is not in its hand at this start
        if played in hand:
            hand[hand.index(played)] = 99
    start = Start(rows=tuple(map(tuple, ROWS)), hands=tuple(map(tuple, other)),
                  totals=(4, 0, 7), round=2)
    with pytest.raises(ValueError) as refused:
        record_from_game(game, start=start)
    assert str(refused.value).startswith("the game's history does not follow from its start: ")
