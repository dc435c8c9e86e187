"""``search``'s careful rollouts on the copy-free loop (``nimmt.bots.careful``):
every turn careful (``CarefulTable``), or only where it costs next to nothing
(``PrefixTable``: this seat's next few cards, and opponents read careful
committing a careful card this turn)."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.bots import SearchStrategy, make_strategy
from nimmt.bots.careful import CarefulTable, PrefixTable, play_careful_prefix
from nimmt.bots.rollout import (
    SortedRows,
    careful_index,
    others_by_turn,
    play_careful_first,
    play_first,
    safe_runs,
)
from nimmt.bots.strategies import BadParameter
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


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 10), st.integers(0, 2**32))
def test_no_careful_turns_is_the_plain_method_and_all_of_them_the_careful_play(
        players: int, seed: int) -> None:
    """With no careful turns a candidate meets exactly what the plain method
    plays (``play_first``); with every later turn careful, exactly what
    ``play_careful_first`` plays with this seat careful on the same random
    numbers (both checked against the rules in tests/test_bots_rollout.py)."""
    rng, view = _view_somewhere(players, seed)
    me, turns = view.seat, len(view.hand)
    start = SortedRows.of(view.rows)
    hands = [list(view.hand) if s == me else [] for s in range(players)]
    pool = [c for c in range(1, 105) if c not in view.seen and c not in view.hand]
    rng.shuffle(pool)
    for s in range(players):
        if s != me:
            hands[s] = pool[:turns]
            del pool[:turns]
    rng.shuffle(hands[me])
    others = others_by_turn(hands, me, turns)
    draws = [rng.random() for _ in range(turns - 1)]
    for card in view.hand:
        assert play_careful_prefix(start, others, hands[me], me, card, turns, []) == play_first(
            start, others, hands[me], me, card, turns)
        stream = _Stream(draws)
        expected = play_careful_first(start, hands, me, card, turns, [me], stream)  # type: ignore[arg-type]
        assert play_careful_prefix(start, others, hands[me], me, card, turns, draws) == expected


@settings(max_examples=50, deadline=None)
@given(st.integers(3, 10), st.integers(0, 2**32))
def test_an_opponent_read_careful_commits_a_careful_card_this_turn(players: int, seed: int) -> None:
    """In every world, a seat read careful for sure commits the card a careful
    player would (one that takes no row whenever its hand has one), a seat
    read random a card of its hand; this seat's later cards are not touched."""
    rng, view = _view_somewhere(players, seed)
    me = view.seat
    careful_seat = (me + 1) % players
    chances = [(s, 1.0 if s == careful_seat else 0.0) for s in range(players)]
    table = PrefixTable(view, chances, own_turns=2)
    start = table.start
    runs = safe_runs(start.lasts, start.lengths)
    for world_seed in range(10):
        others, own, draws = table.world(random.Random(world_seed))
        assert sorted(own) == sorted(view.hand) and len(draws) == min(2, len(view.hand) - 1)
        firsts = {s: c for c, s in others[0]}
        assert len(firsts) == players - 1 and me not in firsts
        card = firsts[careful_seat]
        fits = any(low < card < high for low, high in runs)
        hand_fits = any(low < c < high for c in others_cards(others, careful_seat)
                        for low, high in runs)
        assert fits or not hand_fits


def others_cards(others: list[list[tuple[int, int]]], seat: int) -> list[int]:
    """Every card ``seat`` plays in a world: its hand."""
    return [c for turn in others for c, s in turn if s == seat]


def test_careful_index_on_the_opening_rows_is_what_a_world_commits() -> None:
    """The careful first card is ``careful_index``'s choice on the rows in view."""
    game = Game(Options(players=4, rounds=1), seed=5)
    view = game.view(0)
    table = PrefixTable(view, [(1, 1.0), (2, 0.0), (3, 0.0)], own_turns=0)
    rng = random.Random(9)
    others, own, draws = table.world(rng)
    again = random.Random(9)
    hands = table.unseen.deal(again, shuffled=True)
    again.random()
    pool = sorted(hands[1])
    start = table.start
    chosen = pool[careful_index(pool, safe_runs(start.lasts, start.lengths), start.lasts,
                                start.heads, again.random)]
    assert {s: c for c, s in others[0]}[1] == chosen and draws == []


def test_search_with_careful_prefix_takes_a_legal_card_and_repeats_itself_from_its_seed() -> None:
    """``ahead`` and ``first`` at a table read careless (the first commit):
    the same seed and number of deals give the same card."""
    game = Game(Options(players=4, rounds=1), seed=11)
    view = game.view(2)
    for spec in ("search:samples=30,ms=60000,ahead=3", "search:samples=30,ms=60000,first=1",
                 "search:samples=30,ms=60000,ahead=9,first=1"):
        picks = {make_strategy(spec, seed=4).decide(view) for _ in range(3)}
        assert len(picks) == 1 and picks <= set(game.legal_decisions(2))


@pytest.mark.parametrize("spec, message", [
    ("search:ahead=10", "ahead must be 0 to 9 turns"),
    ("search:first=2", "first must be 1 (on) or 0 (off)"),
])
def test_bad_prefix_options_say_what_is_allowed(spec: str, message: str) -> None:
    with pytest.raises(BadParameter, match=re.escape(message)):
        make_strategy(spec)
    assert "ahead=3" in repr(SearchStrategy(ahead=3))
