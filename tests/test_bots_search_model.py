"""``search``'s careful rollouts on the copy-free loop (``nimmt.bots.careful``)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.bots import SearchStrategy
from nimmt.bots.careful import CarefulTable
from nimmt.bots.rollout import SortedRows, play_careful_first
from nimmt.engine import Game, Options


class _Stream:
    """A random stream that plays back given numbers (as ``random.Random`` would
    hand them out), counting how many were drawn."""

    def __init__(self, numbers: list[float]) -> None:
        self.numbers = numbers
        self.used = 0

    def random(self) -> float:
        self.used += 1
        return self.numbers[self.used - 1]


def _view_somewhere(players: int, seed: int):  # noqa: ANN202 - (Random, View)
    """A view of a random seat at a random turn of a round played at random."""
    rng = random.Random(seed)
    game = Game(Options(players=players, rounds=1), seed=seed)
    seat = rng.randrange(players)
    while game.view(seat).turn < rng.randint(1, 9):
        for s in sorted(game.pending.seats):
            game.apply(rng.choice(game.legal_decisions(s)))
    return rng, game.view(seat)


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 10), st.integers(0, 2**32))
def test_a_careful_world_scores_every_card_as_the_turn_by_turn_careful_play(
        players: int, seed: int) -> None:
    """The fast careful loop gives, for every candidate card, the bullheads of
    ``play_careful_first`` (checked against the rules turn by turn in
    tests/test_bots_rollout.py) on the same hands, careful seats and random
    numbers, whichever seat decides, and changes nothing in the world it is
    given."""
    rng, view = _view_somewhere(players, seed)
    me = view.seat
    chances = [(s, rng.random()) for s in range(players)]
    table = CarefulTable(view, chances)
    world_seed = rng.getrandbits(32)
    world = table.world(random.Random(world_seed))
    frozen = repr(world)
    again = random.Random(world_seed)  # the same deal and draws, rebuilt by hand
    hands = table.unseen.deal(again, shuffled=True)
    drawn = sorted({s for s, p in chances if s != me and again.random() < p})
    draws = world[3]
    for card in view.hand:
        stream = _Stream(draws)
        expected = play_careful_first(SortedRows.of(view.rows), hands, me, card, len(view.hand),
                                      [me, *drawn], stream)  # type: ignore[arg-type]
        assert table.penalties(card, world) == expected
        assert stream.used <= len(draws)
    assert repr(world) == frozen


def test_careful_search_takes_a_legal_card_and_repeats_itself_from_its_seed() -> None:
    """``careful=1`` at a table read careless (the first commit): the same
    seed and number of deals give the same card (the clock, 60 s, never
    stops it first)."""
    game = Game(Options(players=5, rounds=1), seed=11)
    view = game.view(2)
    picks = {SearchStrategy(seed=4, samples=30, ms=60_000, careful=1).decide(view) for _ in range(3)}
    assert len(picks) == 1 and picks <= set(game.legal_decisions(2))
