"""The fast path resolves turns exactly as the Game state machine does."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.engine import Commit, Game, Options, Phase
from nimmt.engine.fast import play_out, random_round, resolve_turn


def play_turn_with_game(options: Options, rows, hands, plays) -> tuple[list[list[int]], list[int]]:
    """One turn through Game, taking RULES.md's default for every choice."""
    game = Game.from_position(options, rows, hands)
    for card, seat in plays:
        game.apply(Commit(seat, card))
    while game.phase in (Phase.ROW_CHOICE, Phase.TIE_CHOICE):
        seat = next(iter(game.pending.seats))
        game.apply(game.autopilot(seat))
    return [list(r) for r in game.rows], list(game.view(None).penalties)


@st.composite
def positions(draw):
    players = draw(st.integers(2, 10))
    professional = draw(st.booleans())
    rng = random.Random(draw(st.integers(0, 2**32)))
    cards = rng.sample(range(1, 105), 4 * 5 + players * 2)
    rows = []
    for _ in range(4):
        length = draw(st.integers(1, 5))
        rows.append(sorted(cards.pop() for _ in range(length)))
    hands = [sorted(cards.pop() for _ in range(2)) for _ in range(players)]
    plays = [(rng.choice(hand), seat) for seat, hand in enumerate(hands)]
    return Options(players=players, professional=professional, rounds=1), rows, hands, plays


@settings(max_examples=300, deadline=None)
@given(positions())
def test_fast_path_matches_game(position) -> None:
    options, rows, hands, plays = position
    expected_rows, expected_penalties = play_turn_with_game(options, rows, hands, plays)
    fast_rows = [list(r) for r in rows]
    penalties = [0] * options.players
    resolve_turn(fast_rows, plays, penalties, professional=options.professional)
    assert fast_rows == expected_rows
    assert penalties == expected_penalties


def test_random_round_is_seeded() -> None:
    assert [random_round(random.Random(9), 5, True) for _ in range(3)] == [
        random_round(random.Random(9), 5, True) for _ in range(3)
    ]


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 10), st.booleans(), st.integers(0, 2**32))
def test_random_round_plays_like_resolve_turn(players: int, professional: bool, seed: int) -> None:
    """random_round's own bookkeeping gives what resolve_turn gives for the same deal."""
    cards = random.Random(seed).sample(range(1, 105), players * 10 + 4)
    rows = [[c] for c in cards[-4:]]
    expected = [0] * players
    for turn in range(10):
        plays = [(cards[seat * 10 + turn], seat) for seat in range(players)]
        resolve_turn(rows, plays, expected, professional)
    deck = tuple(range(1, 105))
    assert random_round(random.Random(seed), players, professional, deck) == expected


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 10), st.booleans(), st.integers(0, 2**32))
def test_play_out_plays_a_round_like_game(players: int, professional: bool, seed: int) -> None:
    """play_out with a fixed policy (each seat plays its lowest card, or its
    highest on odd seats) gives Game's rows and penalties, every choice by
    RULES.md's default."""
    options = Options(players=players, professional=professional, rounds=1)
    rng = random.Random(seed)
    cards = rng.sample(range(1, 105), players * 10 + 4)
    size = rng.randint(1, 10)
    rows = [[c] for c in cards[-4:]]
    hands = [sorted(cards[s * 10 : s * 10 + size]) for s in range(players)]

    def pick(seat: int, hand) -> int:
        return min(hand) if seat % 2 == 0 else max(hand)

    game = Game.from_position(options, rows, hands)
    while not game.is_over:
        if game.phase is Phase.COMMIT:
            for seat in range(players):
                game.apply(Commit(seat, pick(seat, game.view(seat).hand)))
        else:
            seat = next(iter(game.pending.seats))
            game.apply(game.autopilot(seat))
    fast_rows = [list(r) for r in rows]
    fast_hands = [list(h) for h in hands]
    penalties = [0] * players
    play_out(fast_rows, fast_hands, penalties,
             lambda rows, hands: [pick(s, h) for s, h in enumerate(hands)], professional)
    assert penalties == list(game.result.totals)
    assert fast_hands == [[] for _ in range(players)]
