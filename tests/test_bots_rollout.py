"""The searching bots' simulations: the fast heuristic play-out agrees with the
generic one, and a simulated decision follows the rules."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.bots.rollout import (
    Situation,
    SortedRows,
    heuristic_chooser,
    heuristic_play_out,
    in_order_finisher,
    play_card_first,
    play_careful_first,
    play_in_order,
)
from nimmt.bots.sampling import Unseen
from nimmt.engine import BULLHEADS, ChooseRow, Commit, Game, Options, Phase, View
from nimmt.engine.fast import play_out, resolve_turn


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


def _somewhere_in_a_round(players: int, seed: int) -> tuple[random.Random, View]:
    """Seat 0's view at a random turn of a round played at random, and the
    random stream that chose it (to deal the hidden hands from)."""
    rng = random.Random(seed)
    game = Game(Options(players=players, rounds=1), seed=seed)
    while game.view(0).turn < rng.randint(1, 9):
        for s in sorted(game.pending.seats):
            game.apply(rng.choice(game.legal_decisions(s)))
    return rng, game.view(0)


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 10), st.integers(0, 2**32))
def test_play_card_first_scores_a_commit_as_situation_outcome_does(players: int, seed: int) -> None:
    """What search does at a careless table: each candidate card first, then
    the rest of the seat's hand in the sampled order, on sequences it does not
    copy. The same bullheads, for every card, as ``Situation.outcome`` with
    the in-order finisher (itself checked against play_out above)."""
    rng, view = _somewhere_in_a_round(players, seed)
    situation = Situation.of(view)
    hands = Unseen.of(view).deal(rng, shuffled=True)
    before = [list(h) for h in hands]
    start = SortedRows.of(view.rows)
    for card in view.hand:
        expected = situation.outcome(Commit(0, card), hands, [h[0] for h in hands],
                                     in_order_finisher(False))
        assert play_card_first(start, hands, 0, card, len(view.hand)) == expected
    assert hands == before


def _careful_reference(rows: list[list[int]], pool: list[int], rng: random.Random) -> int:
    """A careful card read straight from the rules, on plain rows: a card that
    goes on a row of fewer than five cards, at random; else the card whose row
    costs least (a card below every row takes the cheapest row). Among the
    safe cards, in ascending order, one ``rng.random()`` draw chooses."""
    def target(card: int) -> list[int] | None:
        below = [r for r in rows if r[-1] < card]
        return max(below, key=lambda r: r[-1]) if below else None

    pool = sorted(pool)
    safe = [c for c in pool if (row := target(c)) is not None and len(row) < 5]
    if safe:
        return safe[int(rng.random() * len(safe))]
    cheapest = min(sum(BULLHEADS[c] for c in r) for r in rows)

    def cost(card: int) -> int:
        row = target(card)
        return cheapest if row is None else sum(BULLHEADS[c] for c in row)

    return min(pool, key=cost)


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 10), st.integers(0, 2**32))
def test_play_careful_first_plays_careful_cards_by_the_rules(players: int, seed: int) -> None:
    """What search does at a careless table with ``careful`` on: the seats
    drawn careful never take a row while a card of theirs fits a short row.
    Checked against a turn-by-turn play with ``resolve_turn`` (itself checked
    against Game) and careful cards read from the plain rows, on the same
    random stream, for every candidate card."""
    rng, view = _somewhere_in_a_round(players, seed)
    hands = Unseen.of(view).deal(rng, shuffled=True)
    before = [list(h) for h in hands]
    careful = [0, *(s for s in range(1, players) if rng.random() < 0.5)]
    start = SortedRows.of(view.rows)
    for card in view.hand:
        rows = [list(r) for r in view.rows]
        sequences = [list(h) for h in hands]
        sequences[0] = [card, *(c for c in hands[0] if c != card)]
        pools = {s: list(sequences[s][1:] if s == 0 else sequences[s]) for s in careful}
        stream = random.Random(seed + card)
        expected = [0] * players
        for t in range(len(view.hand)):
            plays = []
            for s in range(players):
                if s in pools and not (s == 0 and t == 0):
                    c = _careful_reference(rows, pools[s], stream)
                    pools[s].remove(c)
                else:
                    c = sequences[s][t]
                plays.append((c, s))
            resolve_turn(rows, plays, expected)
        got = play_careful_first(start, hands, 0, card, len(view.hand), careful,
                                 random.Random(seed + card))
        assert got == expected
    assert hands == before


def test_a_careful_seat_keeps_out_of_a_full_row_when_it_can() -> None:
    """One turn for two seats, a full row ending 50 (13 bullheads):
    the careful seat 1 holds 51 and 30 and plays 30 (on the short row), so only
    the careless seat 0 that plays 52 takes the full row."""
    rows = [[10, 11, 12, 13, 50], [20], [60], [70]]
    start = SortedRows.of(rows)
    hands = [[52], [51, 30]]
    for seed in range(20):
        got = play_careful_first(start, hands, 0, 52, 1, [1], random.Random(seed))
        assert got == [sum(BULLHEADS[c] for c in rows[0]), 0]
