"""Ladder rules nothing pinned before (issue 43): a name at two seats of one game
records its best place; the trend at exactly ``TREND_GAMES`` games; the leaderboard's
order on equal ratings (as shown, rounded), against hand-written lists, both as the
lobby keeps it sorted game by game and as ``nimmt-replay --ladder`` sorts it. The
queue's choices: tests/test_ladder_queue_choice.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from nimmt import protocol as P
from nimmt.server.ladder.claims import new_key
from nimmt.server.ladder.desk import TREND_GAMES, LadderDesk
from nimmt.server.ladder.ratings import Ladder, bot_name, withheld_last
from nimmt.server.records.leaderboard import leaderboard
from nimmt.server.storage import Store
from nimmt.server.storage.ladder import RatingChange, StoredRating, save_ratings


# ---------------------------------------------------------------- two seats, one name
def test_a_name_at_two_seats_records_its_best_place_and_the_mean_of_its_two_results():
    ladder = Ladder()
    changes = {c.name: c for c in ladder.outcome(["Ann", "bot:easy", "bot:easy"], [2, 3, 1])}
    assert {n: (c.place, c.games) for n, c in changes.items()} == {
        "Ann": (2, 1), "bot:easy": (1, 1)}
    model = PlackettLuce()
    ann, low, high = model.rate([[model.rating()], [model.rating()], [model.rating()]],
                                ranks=[2.0, 3.0, 1.0])
    bot = changes["bot:easy"]
    assert (bot.mu, bot.sigma) == pytest.approx(((low[0].mu + high[0].mu) / 2,
                                                 (low[0].sigma + high[0].sigma) / 2), abs=1e-12)
    assert changes["Ann"].mu == pytest.approx(ann[0].mu, abs=1e-12)


async def test_the_desk_records_a_bot_level_seated_twice_at_its_best_place():
    desk = LadderDesk()
    assert desk.claims.check("Ann", new_key(), 0.0).claimed
    changes = await desk.game_finished(["Ann", "Bot 1", "Bot 2"], [3, 1, 2],
                                       ["human", "builtin", "builtin"], [None, "easy", "easy"],
                                       None)
    assert sorted((c.name, c.place, c.games) for c in changes) == [
        ("Ann", 3, 1), ("bot:easy", 1, 1)]


def test_an_outcome_changes_nothing_until_applied_and_counts_on_from_the_stored_games():
    ladder = Ladder([StoredRating("Ann", 30.0, 5.0, 3), StoredRating("Bob", 20.0, 6.0, 7)])
    changes = ladder.outcome(["Bob", "Ann", "Cy"], [1, 2, 3])
    assert (ladder.get("Ann").mu, ladder.get("Ann").games) == (30.0, 3)  # not yet
    assert ladder.get("Cy").games == 0 and "Cy" not in ladder.ratings
    assert [(c.name, c.games, c.place) for c in changes] == [
        ("Bob", 8, 1), ("Ann", 4, 2), ("Cy", 1, 3)]
    model = PlackettLuce()
    bob, ann, cy = model.rate([[model.rating(mu=20.0, sigma=6.0)],
                               [model.rating(mu=30.0, sigma=5.0)], [model.rating()]],
                              ranks=[1.0, 2.0, 3.0])
    assert [x for c in changes for x in (c.mu, c.sigma)] == pytest.approx(
        [bob[0].mu, bob[0].sigma, ann[0].mu, ann[0].sigma, cy[0].mu, cy[0].sigma], abs=1e-12)
    ladder.apply(changes)
    assert (ladder.get("Ann").mu, ladder.get("Ann").games) == (changes[1].mu, 4)
    assert ladder.get("Bob").ordinal == pytest.approx(bob[0].mu - 3 * bob[0].sigma)


@pytest.mark.parametrize("names,places", [(["Ann"], [1]), (["Ann", "Bob"], [1]),
                                          (["Ann", "Bob"], [1, 2, 3]), ([], [])])
def test_a_game_without_a_name_and_place_for_each_of_two_seats_is_not_rated(names, places):
    ladder = Ladder()
    with pytest.raises(ValueError, match="a name and a place for each of 2"):
        ladder.outcome(names, places)
    assert ladder.ratings == {}


def test_built_in_bots_are_rated_under_their_strategy_s_name_alone():
    assert [bot_name(s) for s in ("easy", "search:ms=50", " hard :x", "mcs")] == [
        "bot:easy", "bot:search", "bot:hard", "bot:mcs"]


def test_a_seat_that_withheld_its_reveal_is_rated_below_every_seat_that_did_not():
    assert withheld_last([1, 2, 3], [0]) == [4, 2, 3]
    assert withheld_last([2, 1, 2, 4], [1, 3]) == [2, 5, 2, 5]  # two withheld: tied last
    assert withheld_last([1, 1], []) == [1, 1]
    # rated so: the winner who withheld loses as much as a plain last place would
    plain, withheld = Ladder(), Ladder()
    plain.rate(["Ann", "Bob", "Cy"], [3, 1, 2])
    withheld.rate(["Ann", "Bob", "Cy"], withheld_last([1, 1, 2], [0]))
    assert withheld.get("Ann") == plain.get("Ann")


# ---------------------------------------------------------------- the trend's window
async def test_the_trend_at_exactly_trend_games_games_is_since_the_start_then_it_slides():
    assert TREND_GAMES == 5  # the protocol's leaderboard_page says so (trend_games)
    desk = LadderDesk()
    for name in ("Ann", "Bob"):
        assert desk.claims.check(name, new_key(), 0.0).claimed
    ordinals = []
    for game in range(TREND_GAMES + 2):
        await desk.game_finished(["Ann", "Bob"], [1, 2] if game % 3 else [2, 1],
                                 ["human", "human"], [None, None], None)
        ordinals.append(desk.ladder.get("Ann").ordinal)
        ann = next(r for r in desk.board() if r.name == "Ann")
        if game + 1 <= TREND_GAMES:  # since the start: the model's first rating, 0
            assert ann.trend == round(ordinals[-1] - 0.0, 2), game
        else:  # since the rating before the last five games
            assert ann.trend == round(ordinals[-1] - ordinals[game - TREND_GAMES], 2), game
        page = desk.page(P.Leaderboard(name="Ann"))
        assert [r.trend for r in page.rows if r.name == "Ann"] == [ann.trend]
    assert len({round(o, 2) for o in ordinals}) == len(ordinals)  # each step tells


# ---------------------------------------------------------------- leaderboard order
#: (name, mu, sigma=1: the rating shown is mu - 3, games)
RATED = [
    ("Fay", 3.0, 9),      # 0.00: last
    ("Dee", 23.004, 1),   # 20.004, shown 20.00: equal to Ann's and Cy's, fewer games
    ("Cy", 23.0, 3),      # 20.00, 3 games: after Ann (the name)
    ("Bob", 23.0, 5),     # 20.00, 5 games: before those with 3
    ("Ann", 23.0, 3),     # 20.00, 3 games
    ("Eve", 23.006, 1),   # 20.006, shown 20.01: first, whatever its games
]
ORDER = ["Eve", "Bob", "Ann", "Cy", "Dee", "Fay"]


def _changes(rows) -> list[RatingChange]:
    return [RatingChange(name, mu, 1.0, games, 1) for name, mu, games in rows]


def test_the_lobby_s_board_orders_equal_ratings_by_games_then_name():
    desk = LadderDesk()
    moved = [("Bob", 10.0, 4) if r[0] == "Bob" else r for r in RATED]
    desk._apply(_changes(moved), {})
    assert [r.name for r in desk.board()] == ["Eve", "Ann", "Cy", "Dee", "Bob", "Fay"]
    desk._apply(_changes([("Bob", 23.0, 5)]), {})  # Bob's next game moves him up
    board = desk.board()
    assert [r.name for r in board] == ORDER
    assert [(r.rank, r.rating, r.games) for r in board] == [
        (1, 20.01, 1), (2, 20.0, 5), (3, 20.0, 3), (4, 20.0, 3), (5, 20.0, 1), (6, 0.0, 9)]
    page = desk.page(P.Leaderboard(limit=2, name="cy"))
    assert (page.found, page.offset, [r.name for r in page.rows]) == (4, 2, ["Ann", "Cy"])
    page = desk.page(P.Leaderboard(limit=4, offset=4))
    assert [(r.rank, r.name) for r in page.rows] == [(5, "Dee"), (6, "Fay")]


def test_nimmt_replay_s_board_orders_equal_ratings_by_games_then_name(tmp_path: Path):
    store = Store.open(str(tmp_path / "nimmt.db"))
    store.ladder_write(lambda db: save_ratings(db, None, _changes(RATED), 0.0))
    board = leaderboard(store)
    store.close()
    assert [(r["rank"], r["name"], r["rating"], r["games"]) for r in board] == [
        (1, "Eve", 20.01, 1), (2, "Bob", 20.0, 5), (3, "Ann", 20.0, 3), (4, "Cy", 20.0, 3),
        (5, "Dee", 20.0, 1), (6, "Fay", 0.0, 9)]


NAMES = st.lists(st.text("abcABC", min_size=1, max_size=3), min_size=1, max_size=12,
                 unique_by=str.casefold)
#: ratings that tie, nearly tie and round to a tie (as shown)
MUS = st.sampled_from([23.0, 23.004, 22.996, 23.006, 23.01, 13.0, 13.0049])


@settings(max_examples=60, deadline=None)
@given(names=NAMES, data=st.data())
def test_the_board_is_best_first_then_more_games_then_the_name_however_it_was_built(
        names: list[str], data: st.DataObject):
    """Whatever the ratings and the order they came in (a name rated again moves), the
    board is sorted by the rating shown (2 decimals), then games, then the name; and a
    search by the name in any case finds its rank."""
    desk = LadderDesk()
    final: dict[str, tuple[float, int]] = {}
    for _ in range(data.draw(st.integers(1, 3))):
        batch = data.draw(st.lists(st.sampled_from(names), min_size=1, unique=True))
        rows = [(n, data.draw(MUS), data.draw(st.integers(1, 3))) for n in batch]
        desk._apply(_changes(rows), {})
        final.update({n: (mu - 3.0, games) for n, mu, games in rows})
    board = desk.board()
    assert [r.rank for r in board] == list(range(1, len(final) + 1))
    assert sorted(r.name for r in board) == sorted(final)
    for above, below in zip(board, board[1:]):
        a, b = round(final[above.name][0], 2), round(final[below.name][0], 2)
        assert a >= b
        if a == b:
            assert above.games >= below.games
            if above.games == below.games:
                assert above.name < below.name
    for row in board:
        for spelling in (row.name.upper(), row.name.lower(), row.name.swapcase()):
            assert desk.page(P.Leaderboard(limit=5, name=spelling)).found == row.rank
