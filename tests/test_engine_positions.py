"""Deals given as any iterables, and hand-made positions that no game can reach
(issue 7, item 5: both found by differential testing)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.engine import (
    AwaitingCommits,
    Deal,
    Game,
    InvalidDeal,
    InvalidPosition,
    Options,
    bullheads,
    Position,
)
from nimmt.engine.position import most_bullheads_in_a_round

# ----------------------------------------------------------------- deals from iterators

Shape = Callable[[Iterable[int]], Iterable[int]]
SHAPES: dict[str, Shape] = {
    "tuple": tuple,
    "list": list,
    "iterator": iter,
    "generator": lambda cards: (c for c in cards),
    "map": lambda cards: map(lambda card: card, cards),
}


@settings(max_examples=60, deadline=None)
@given(
    players=st.integers(2, 10),
    seed=st.integers(0, 2**32),
    rows_shape=st.sampled_from(sorted(SHAPES)),
    hands_shape=st.sampled_from(sorted(SHAPES)),
    hand_shape=st.sampled_from(sorted(SHAPES)),
)
def test_a_deal_of_any_iterables_plays_like_the_same_deal_of_tuples(
    players: int, seed: int, rows_shape: str, hands_shape: str, hand_shape: str
) -> None:
    options = Options(players=players, rounds=1)
    cards = random.Random(seed).sample(options.deck, 10 * players + 4)
    rows = cards[:4]
    hands = [cards[4 + 10 * s : 14 + 10 * s] for s in range(players)]
    plain, shaped = Game(options), Game(options)
    expected = plain.deal(Deal(rows=tuple(rows), hands=tuple(map(tuple, hands))))
    deal = Deal(
        rows=SHAPES[rows_shape](rows),  # type: ignore[arg-type]
        hands=SHAPES[hands_shape](SHAPES[hand_shape](h) for h in hands),  # type: ignore[arg-type]
    )
    assert shaped.deal(deal) == expected
    assert shaped.rows == tuple((c,) for c in rows) and all(shaped.rows)
    assert [shaped.view(s).hand for s in range(players)] == [tuple(sorted(h)) for h in hands]
    assert shaped.history == plain.history


def test_a_draft_deal_of_an_iterator_starts_the_rows() -> None:
    game = Game(Options(players=2, draft=True, rounds=1))
    while not isinstance(game.pending, AwaitingCommits):
        if game.view(None).draft_pool and game.pending.seats:
            (seat,) = game.pending.seats
            game.apply(game.legal_decisions(seat)[0])
        else:
            pool = game.view(None).draft_pool or tuple(
                c for c in game.options.deck if all(c not in game.view(s).hand for s in (0, 1))
            )
            game.deal(Deal(rows=iter(sorted(pool)[:4])))
    assert all(len(row) == 1 for row in game.rows) and len(game.rows) == 4


@pytest.mark.parametrize(
    "rows, hands, message",
    [
        (5, None, "rows must be"),
        ([1, 2, 3, 4], 7, "hands must be"),
        ([1, 2, 3, 4], [5, 6], "hands must be"),
    ],
)
def test_a_deal_that_is_not_cards_is_refused_clearly(rows: object, hands: object, message: str) -> None:
    with pytest.raises(InvalidDeal, match=message):
        Deal(rows=rows, hands=hands)  # type: ignore[arg-type]


# ----------------------------------------------------------------- positions no game reaches

ROWS_1 = [[10], [20], [30], [40]]


def position(options: Options, **fields: object) -> None:
    hands = fields.pop("hands", [[41 + s] for s in range(options.players)])
    rows = fields.pop("rows", ROWS_1)
    Game.from_position(options, rows, hands, **fields)  # type: ignore[arg-type]


def test_totals_are_zero_in_round_one() -> None:
    with pytest.raises(InvalidPosition, match="totals .* in round 1"):
        position(Options(players=2), totals=[0, 1])
    position(Options(players=2), totals=[0, 0])
    position(Options(players=2), totals=[0, 1], round=2)


@pytest.mark.parametrize("limit", [66, 10, 1])
def test_a_total_that_reached_the_point_limit_ended_the_game(limit: int) -> None:
    # "66 or more": a round that ends with a total at the limit is the last one.
    options = Options(players=2, point_limit=limit)
    with pytest.raises(InvalidPosition, match="reached the point limit"):
        position(options, totals=[limit, 0], round=3)
    with pytest.raises(InvalidPosition, match="reached the point limit"):
        position(options, totals=[0, limit + 5], round=3)
    position(options, totals=[limit - 1, 0], round=3)


def test_with_a_fixed_number_of_rounds_only_the_totals_are_unlimited() -> None:
    position(Options(players=2, point_limit=None, rounds=5), totals=[150, 0], round=5)
    both = Options(players=2, point_limit=66, rounds=5)
    with pytest.raises(InvalidPosition, match="reached the point limit"):
        position(both, totals=[66, 0], round=4)  # the point limit ends the game first
    with pytest.raises(InvalidPosition, match="round must be 1 to 5"):
        position(both, round=6)


def test_totals_cannot_exceed_what_the_rounds_before_handed_out() -> None:
    options = Options(players=2, point_limit=None, rounds=10)
    most = most_bullheads_in_a_round(options)
    position(options, totals=[most, 0], round=2)
    position(options, totals=[most - 10, 10], round=2)
    with pytest.raises(InvalidPosition, match="at most"):
        position(options, totals=[most, 1], round=2)
    position(options, totals=[2 * most, 0], round=3)
    with pytest.raises(InvalidPosition, match="at most"):
        position(options, totals=[2 * most + 1, 0], round=3)


def test_the_most_bullheads_of_a_round() -> None:
    # All 104 cards carry 171; 10 players take at most 100 of them (4 stay on the rows).
    assert most_bullheads_in_a_round(Options(players=10)) == 171 - 4
    assert most_bullheads_in_a_round(Options(players=10, tactic_deck=True)) == 171 - 4
    # Tactic deck with 3 players: cards 1..34 hold 55 bullheads; the 4 lightest carry 1 each.
    assert sum(bullheads(c) for c in range(1, 35)) == 55
    assert most_bullheads_in_a_round(Options(players=3, tactic_deck=True)) == 55 - 4


def test_penalties_cannot_exceed_the_cards_gone_from_play() -> None:
    options = Options(players=2)
    full_hands = [list(range(41, 51)), list(range(51, 61))]
    # Turn 1: nothing has been played, so nobody has taken anything.
    with pytest.raises(InvalidPosition, match="penalties"):
        position(options, hands=full_hands, penalties=[1, 0])
    position(options, hands=full_hands, penalties=[0, 0])
    # Turn 10 with 1 card each: 4 + 2 * 9 cards seen, 4 still on the rows, 18 taken.
    gone = sorted((bullheads(c) for c in options.deck if c not in {10, 20, 30, 40, 41, 42}), reverse=True)
    most = sum(gone[:18])
    position(options, penalties=[most, 0])
    with pytest.raises(InvalidPosition, match="penalties .* at most"):
        position(options, penalties=[most, 1])
    with pytest.raises(InvalidPosition, match="penalties .* at most"):
        position(options, penalties=[172, 0])


def test_rows_cannot_hold_more_cards_than_were_played() -> None:
    options = Options(players=2)
    full_hands = [list(range(41, 51)), list(range(51, 61))]
    with pytest.raises(InvalidPosition, match="rows hold 5 cards"):
        position(options, rows=[[10, 11], [20], [30], [40]], hands=full_hands)
    position(options, rows=[[10, 11], [20], [30], [40]], hands=[h[1:] for h in full_hands])


def test_position_check_names_the_fault() -> None:
    with pytest.raises(InvalidPosition) as info:
        Position.of(ROWS_1, [[41], [42]], totals=[70, 0], round=2).check(Options(players=2))
    assert "70" in str(info.value) and "66" in str(info.value)


# ----------------------------------------------------------------- every position play reaches


@settings(max_examples=40, deadline=None)
@given(
    players=st.integers(2, 10),
    tactic=st.booleans(),
    draft=st.booleans(),
    professional=st.booleans(),
    limit=st.sampled_from([None, 1, 20, 66]),
    seed=st.integers(0, 2**32),
)
def test_every_commit_step_of_a_played_game_passes_the_check(
    players: int, tactic: bool, draft: bool, professional: bool, limit: int | None, seed: int
) -> None:
    options = Options(
        players=players,
        tactic_deck=tactic,
        draft=draft,
        professional=professional,
        point_limit=limit,
        rounds=None if limit is not None else 4,
    )
    game = Game(options, seed=seed)
    rnd = random.Random(seed)
    checked = 0
    while not game.is_over:
        pending = game.pending
        if isinstance(pending, AwaitingCommits) and not pending.committed:
            here = Position.of(
                game.rows,
                [game.view(s).hand for s in range(players)],
                game.totals,
                game.view(None).penalties,
                game.round,
                game.turn,
            )
            here.check(options)  # raises InvalidPosition if the check is too strict
            Game.from_position(
                options, here.rows, here.hands, totals=here.totals, penalties=here.penalties,
                round=here.round, turn=here.turn,
            )
            checked += 1
        seat = min(pending.seats)
        game.apply(rnd.choice(game.legal_decisions(seat)))
    assert checked >= 10
