"""The searching bots' simulations: the fast heuristic play-out agrees with the
generic one, and a simulated decision follows the rules."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.bots.rollout import Situation, heuristic_chooser, heuristic_play_out, play_in_order
from nimmt.engine import ChooseRow, Commit, Game, Options, Phase
from nimmt.engine.fast import cheapest_row_index, play_out


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 10), st.integers(1, 10), st.integers(0, 2**32))
def test_fast_heuristic_play_out_matches_play_out(players: int, size: int, seed: int) -> None:
    """Without noise the choices are deterministic: the specialised loop must
    take the same cards and the same rows as play_out with heuristic_chooser
    (which resolves turns with resolve_turn, itself checked against Game)."""
    rng = random.Random(seed)
    cards = rng.sample(range(1, 105), players * 10 + 4)
    rows = [[c] for c in cards[-4:]]
    hands = [sorted(cards[s * 10 : s * 10 + 10]) for s in range(players)]
    grow = [0] * players
    play_out(rows, [h[: 10 - size] for h in hands], grow,  # fill the rows first, at random
             lambda rows, hands: [rng.choice(h) for h in hands])
    hands = [h[10 - size :] for h in hands]
    expected = [0] * players
    play_out([list(r) for r in rows], [list(h) for h in hands], expected,
             heuristic_chooser(random.Random(1), 0.0, 0.0))
    got = [0] * players
    heuristic_play_out(rows, [list(h) for h in hands], got, random.Random(1), 0.0, [0.0] * players)
    assert got == expected


def test_situation_outcome_follows_the_rules() -> None:
    """A row choice simulated by Situation gives what Game gives for the rest
    of that turn: seat 0 takes row 3 (1 bullhead), then 40 goes after 20."""
    game = Game.from_position(Options(players=2, rounds=1), [[55], [11], [20], [31]], [[2], [40]])
    game.apply(Commit(0, 2))
    game.apply(Commit(1, 40))
    assert game.phase is Phase.ROW_CHOICE
    situation = Situation.of(game.view(0))
    penalties = situation.outcome(ChooseRow(0, 3), [[], []], None, lambda r, h, p: None)
    game.apply(ChooseRow(0, 3))
    assert penalties == list(game.result.totals) == [1, 0]


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 10), st.integers(1, 10), st.integers(0, 2**32))
def test_play_in_order_matches_play_out(players: int, size: int, seed: int) -> None:
    """Each seat plays its hand in the order given: the same penalties as
    play_out with that choice of cards."""
    rng = random.Random(seed)
    cards = rng.sample(range(1, 105), players * 10 + 4)
    rows = [[c] for c in cards[-4:]]
    hands = [cards[s * 10 : s * 10 + size] for s in range(players)]

    def choose(rows: list[list[int]], hands: list[list[int]]) -> list[int]:
        return [h[0] for h in hands]

    expected = [0] * players
    play_out([list(r) for r in rows], [list(h) for h in hands], expected, choose)
    got = [0] * players
    left = [list(h) for h in hands]
    play_in_order(rows, left, got, 10)
    assert got == expected
    assert left == [[] for _ in range(players)]
    assert rows == [[c] for c in cards[-4:]]


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 10), st.integers(1, 10), st.integers(0, 2**32))
def test_play_in_order_takes_the_rows_it_is_told(players: int, size: int, seed: int) -> None:
    """A random player takes a random row: with ``row_picks`` (per turn, per
    seat: the place of the row in the order of last cards, -1 the cheapest),
    the fast loop takes the same rows as play_out with that row chooser."""
    rng = random.Random(seed)
    cards = rng.sample(range(1, 105), players * 10 + 4)
    rows = [[c] for c in cards[-4:]]
    hands = [cards[s * 10 : s * 10 + size] for s in range(players)]
    picks = [[rng.randrange(-1, 4) for _ in range(players)] for _ in range(size)]
    turn = [-1]

    def choose(rows: list[list[int]], hands: list[list[int]]) -> list[int]:
        turn[0] += 1
        return [h[0] for h in hands]

    def choose_row(rows: list[list[int]], card: int, seat: int) -> int:
        pick = picks[turn[0]][seat]
        if pick < 0:
            return cheapest_row_index(rows, card, seat)
        return sorted(range(4), key=lambda i: rows[i][-1])[pick]

    expected = [0] * players
    play_out([list(r) for r in rows], [list(h) for h in hands], expected, choose,
             choose_row=choose_row)
    got = [0] * players
    play_in_order(rows, [list(h) for h in hands], got, 10, picks)
    assert got == expected


def test_a_random_player_is_imagined_taking_any_row() -> None:
    """Seat 1's 2 is below every row: told to take the row with the highest
    last card (place 3: 50 to 55, 13 bullheads) it takes it, not the cheapest
    (20, 3 bullheads)."""
    rows = [[20], [31, 32, 33], [44], [50, 51, 52, 53, 55]]
    cheapest = [0, 0]
    play_in_order(rows, [[45], [2]], cheapest, 10)
    told = [0, 0]
    play_in_order(rows, [[45], [2]], told, 10, [[-1, 3]])
    assert cheapest == [0, 3]
    assert told == [0, 13]


def test_a_careless_seat_is_imagined_taking_any_row() -> None:
    """heuristic_play_out: seat 0's cards are below every row. Thought sensible
    (mix 0) it always takes the cheapest row (71: 1 bullhead); thought careless
    (mix 1) it takes any of the four, as the random bot does."""
    rows = [[33], [55], [60], [71]]  # 5, 7, 3 and 1 bullheads

    def taken(mix: float, seed: int) -> int:
        penalties = [0, 0]
        heuristic_play_out(rows, [[1, 2], [98, 99]], penalties, random.Random(seed), 1.0,
                           [mix, 0.0], turns=1)
        return penalties[0]

    assert {taken(0.0, seed) for seed in range(100)} == {1}
    assert {taken(1.0, seed) for seed in range(100)} == {1, 3, 5, 7}
