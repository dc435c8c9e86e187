"""The ladder desk in memory, without a server (issue 43): who a finished game rates
(and under which name), what the seats show, who is marked a bot, and the pages of the
leaderboard a client asks for (by offset, or the page holding a name). The board's
order on equal ratings: tests/test_ladder_pinned.py; with a server and a database:
tests/test_ladder_board.py."""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio

from nimmt import protocol as P
from nimmt.server.ladder.claims import ClaimBook, Verdict, new_key
from nimmt.server.ladder.desk import (
    TREND_GAMES,
    BoardRow,
    LadderDesk,
    board_key,
    is_bot,
    rank_board,
    rated_names,
    trend_of,
)
from nimmt.server.storage import AsyncStore, Store

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus"]


def _desk(*names: str) -> LadderDesk:
    desk = LadderDesk()
    for name in names:
        assert desk.claims.check(name, new_key(), 0.0).claimed
    return desk


def _seven() -> LadderDesk:
    """Seven names rated once each, in one game of seven seats: Ann first ... Gus last."""
    desk = _desk(*NAMES)
    desk.rate(NAMES, list(range(1, 8)), ["human"] * 7, [None] * 7)
    return desk


def test_the_seats_are_rated_under_their_claimed_spelling_and_bots_under_their_level():
    claims = ClaimBook()
    claims.check("Ann", new_key(), 0.0)
    assert rated_names(["ann", "Bot 1", "Bot 2"], ["human", "builtin", "builtin"],
                       [None, "easy", None], claims) == ["Ann", "bot:easy", "bot:heuristic"]
    # a bot client plays under its own (claimed) name, not its level's
    claims.check("Robo", new_key(), 0.0)
    assert rated_names(["Robo"], ["bot"], ["easy"], claims) == ["Robo"]


def test_a_game_with_one_unclaimed_name_is_not_rated_at_all(caplog: pytest.LogCaptureFixture):
    claims = ClaimBook()
    claims.check("Ann", new_key(), 0.0)
    assert rated_names(["Ann", "Bob", "Bot"], ["human", "human", "builtin"],
                       [None, None, "easy"], claims) is None
    desk = _desk("Ann")
    with caplog.at_level(logging.INFO, logger="nimmt.server"):
        assert desk.rate(["Ann", "Bob"], [1, 2], ["human", "human"], [None, None]) == []
    assert "ladder: a game of a rated table is not rated: a name is not claimed" in caplog.text
    assert desk.board() == [] and desk.seat_ratings == {} and desk.ladder.ratings == {}


def test_a_rated_game_shows_at_once_at_the_seats_and_on_the_board_best_first():
    desk = _desk("Ann", "Bob")
    changes = desk.rate(["bob", "ANN", "B"], [2, 1, 3], ["human", "human", "builtin"],
                        [None, None, None])
    assert [(c.name, c.place, c.games) for c in changes] == [
        ("Bob", 2, 1), ("Ann", 1, 1), ("bot:heuristic", 3, 1)]
    board = desk.board()
    assert [(r.rank, r.name, r.games, r.bot) for r in board] == [
        (1, "Ann", 1, False), (2, "Bob", 1, False), (3, "bot:heuristic", 1, True)]
    for row in board:
        rating = desk.ladder.get(row.name)
        assert row.rating == round(rating.ordinal, 2)
        assert (row.mu, row.sigma) == (rating.mu, rating.sigma)
        assert row.trend == round(rating.ordinal - 0.0, 2)  # since the start (rating 0)
        # the seats show it by the name's key (any case), rounded as on the board
        assert desk.seat_ratings[row.name.casefold()] == (row.rating, 1)
    assert board[0].rating > board[1].rating > board[2].rating


def test_the_trend_spans_the_last_five_games_once_there_are_six():
    desk = _desk("Ann", "Bob")
    after = []
    for _ in range(TREND_GAMES + 2):
        desk.rate(["Ann", "Bob"], [1, 2], ["human", "human"], [None, None])
        after.append(desk.ladder.get("Ann").ordinal)
        row = next(r for r in desk.board() if r.name == "Ann")
        games = len(after)
        since = 0.0 if games <= TREND_GAMES else after[games - 1 - TREND_GAMES]
        assert row.trend == round(after[-1] - since, 2), games
        assert row.games == games


def test_a_name_is_marked_a_bot_by_its_last_rated_game():
    assert is_bot("bot:easy", None) and is_bot("bot:easy", "human")
    assert is_bot("Robo", "bot") and is_bot("Robo", "builtin")
    assert not is_bot("Ann", "human") and not is_bot("Ann", None) and not is_bot("robot", None)
    desk = _desk("Robo", "Ann")
    desk.rate(["Robo", "Ann"], [1, 2], ["bot", "human"], [None, None])
    assert {r.name: r.bot for r in desk.board()} == {"Robo": True, "Ann": False}
    desk.rate(["Robo", "Ann"], [1, 2], ["human", "human"], [None, None])
    assert {r.name: r.bot for r in desk.board()} == {"Robo": False, "Ann": False}


def test_the_board_key_ranks_the_shown_rating_then_more_games_then_the_name():
    assert board_key("Ann", 1.004, 3) == (-1.0, -3, "Ann")
    assert sorted([board_key("Cy", 2.0, 1), board_key("Bob", 2.001, 4), board_key("Ann", 2.0, 4),
                   board_key("Dee", 2.01, 1)]) == [
        (-2.01, -1, "Dee"), (-2.0, -4, "Ann"), (-2.0, -4, "Bob"), (-2.0, -1, "Cy")]
    assert trend_of(3.456, None) == 3.46 and trend_of(3.456, 1.0) == 2.46
    assert trend_of(-1.0, 2.0) == -3.0


def test_the_board_sorted_once_ranks_from_1_with_rounded_ratings_and_trends():
    rows = rank_board([("Bob", 25.0, 2.0, 19.004, 3, 18.0, False),
                       ("bot:easy", 20.0, 3.0, 11.0, 9, None, True),
                       ("Ann", 26.0, 2.0, 20.126, 1, None, False)])
    assert rows == [BoardRow(1, "Ann", 20.13, 1, 20.13, False, 26.0, 2.0),
                    BoardRow(2, "Bob", 19.0, 3, 1.0, False, 25.0, 2.0),
                    BoardRow(3, "bot:easy", 11.0, 9, 11.0, True, 20.0, 3.0)]


def test_a_page_by_offset_shows_the_rows_from_there_and_says_the_total():
    desk = _seven()
    page = desk.page(P.Leaderboard(limit=3, offset=2, id=9))
    assert [(r.rank, r.name) for r in page.rows] == [(3, "Cy"), (4, "Dee"), (5, "Eve")]
    assert (page.offset, page.total, page.trend_games, page.found, page.re) == (2, 7, 5, None, 9)
    row = page.rows[0]
    board = desk.row(3)
    assert (row.rating, row.games, row.trend, row.bot) == (board.rating, 1, board.trend, False)
    last = desk.page(P.Leaderboard(limit=3, offset=5))
    assert [r.rank for r in last.rows] == [6, 7] and last.offset == 5
    assert desk.page(P.Leaderboard(limit=3, offset=7)).rows == ()
    assert [r.rank for r in desk.page(P.Leaderboard(limit=20)).rows] == [1, 2, 3, 4, 5, 6, 7]


@pytest.mark.parametrize("name, found, ranks", [
    ("Ann", 1, [1, 2, 3]), ("cy", 3, [1, 2, 3]), ("DEE", 4, [4, 5, 6]), ("Fay", 6, [4, 5, 6]),
    ("gus", 7, [7])])
def test_a_page_asked_by_name_is_the_page_of_limit_rows_holding_it(name, found, ranks):
    page = _seven().page(P.Leaderboard(limit=3, offset=1, name=name))
    assert page.found == found
    assert page.offset == ranks[0] - 1
    assert [r.rank for r in page.rows] == ranks
    assert page.rows[found - ranks[0]].name.casefold() == name.casefold()


def test_a_name_without_a_rating_is_not_found_and_the_page_is_the_one_at_offset():
    page = _seven().page(P.Leaderboard(limit=2, offset=4, name="Zed"))
    assert page.found is None and page.offset == 4
    assert [r.rank for r in page.rows] == [5, 6]


def test_a_desk_without_a_database_keeps_claims_at_once_and_has_none_unsaved(
        caplog: pytest.LogCaptureFixture):
    desk = LadderDesk()
    with caplog.at_level(logging.INFO, logger="nimmt.server"):
        verdict = desk.hello("Ann", new_key(), False)
    assert verdict.claimed and verdict.new is not None
    assert "ladder: the name 'Ann' is claimed" in caplog.text
    assert desk.unsaved("Ann") is None
    assert not desk.hello("Ann", None, False).claimed


# ------------------------------------------------------------------ with a database
def _with_store(path: Path, work: Any) -> Any:
    async def main() -> Any:
        astore = AsyncStore(Store.open(path))
        try:
            return await work(astore)
        finally:
            await astore.aclose()

    return trio.run(main)


def test_a_claim_kept_on_disk_holds_after_a_restart(tmp_path: Path):
    path = tmp_path / "nimmt.db"
    key = new_key()

    async def first(astore: AsyncStore) -> None:
        desk = LadderDesk()
        await desk.load(astore)
        verdict = desk.hello("Ann", key, False)
        assert verdict.new is not None
        assert await desk.keep_claim(verdict.new) is True
        assert desk.unsaved("Ann") is None

    async def second(astore: AsyncStore) -> None:
        desk = LadderDesk()
        await desk.load(astore)
        assert desk.hello("ann", key, False) == Verdict(claimed=True, name="Ann")
        assert desk.hello("Ann", None, False).refused
        assert desk.claims.names == {"ann"}

    _with_store(path, first)
    _with_store(path, second)


def test_a_claim_storage_did_not_take_stays_counted_and_is_kept_when_it_works_again(
        tmp_path: Path, caplog: pytest.LogCaptureFixture):
    key = new_key()

    async def work(astore: AsyncStore) -> None:
        desk = LadderDesk()
        await desk.load(astore)
        verdict = desk.hello("Ann", key, False)
        assert verdict.new is not None
        astore.store._db.execute("PRAGMA query_only = 1")
        with caplog.at_level(logging.WARNING, logger="nimmt.server"):
            assert await desk.keep_claim(verdict.new) is False
        assert "ladder: the claim of 'Ann' is not on disk (storage fails)" in caplog.text
        assert desk.unsaved("ANN") == verdict.new  # by the name's skeleton
        assert desk.unsaved("Bob") is None
        assert desk.hello("Ann", None, False).refused  # nobody else takes it meanwhile
        astore.store._db.execute("PRAGMA query_only = 0")
        await astore.retry()
        assert await desk.keep_claim(verdict.new) is True
        assert desk.unsaved("Ann") is None

    _with_store(tmp_path / "nimmt.db", work)


def test_a_restart_brings_back_the_board_and_its_trends(tmp_path: Path):
    path = tmp_path / "nimmt.db"
    seen: dict[str, Any] = {}

    async def first(astore: AsyncStore) -> None:
        desk = LadderDesk()
        await desk.load(astore)
        for name in ("Ann", "Robo"):
            assert desk.claims.check(name, new_key(), 0.0).claimed
        for game in range(TREND_GAMES + 2):
            places = [1, 2, 3] if game % 3 else [3, 1, 2]
            changes = await desk.game_finished(["Ann", "Robo", "B"], places,
                                               ["human", "bot", "builtin"], [None, None, "easy"],
                                               None)
            assert [c.name for c in changes] == ["Ann", "Robo", "bot:easy"]
        seen["board"] = desk.board()
        seen["seats"] = dict(desk.seat_ratings)

    async def second(astore: AsyncStore) -> None:
        desk = LadderDesk()
        await desk.load(astore)
        # (who played a name's last game is read from the game's row, which a game rated
        # without one has not: the bot marks after a restart, tests/test_ladder_board.py)
        assert [replace(r, bot=r.name.startswith("bot:")) for r in desk.board()] == [
            replace(r, bot=r.name.startswith("bot:")) for r in seen["board"]]
        assert desk.seat_ratings == seen["seats"]
        assert [r.games for r in desk.board()] == [TREND_GAMES + 2] * 3

    _with_store(path, first)
    _with_store(path, second)


def test_a_game_with_an_unclaimed_name_saves_no_rating(tmp_path: Path):
    path = tmp_path / "nimmt.db"

    async def first(astore: AsyncStore) -> None:
        desk = LadderDesk()
        await desk.load(astore)
        desk.claims.check("Ann", new_key(), 0.0)
        assert await desk.game_finished(["Ann", "Bob"], [1, 2], ["human", "human"],
                                        [None, None], None) == []

    async def second(astore: AsyncStore) -> None:
        desk = LadderDesk()
        await desk.load(astore)
        assert desk.board() == [] and desk.ladder.ratings == {}

    _with_store(path, first)
    _with_store(path, second)


def test_a_restart_then_more_games_keeps_the_trend_to_the_last_five(tmp_path: Path):
    path = tmp_path / "nimmt.db"
    after: list[float] = []

    async def play(desk: LadderDesk, games: int) -> None:
        for _ in range(games):
            await desk.game_finished(["Ann", "Bob"], [1, 2], ["human", "human"], [None, None],
                                     None)
            after.append(desk.ladder.get("Ann").ordinal)

    async def first(astore: AsyncStore) -> None:
        desk = LadderDesk()
        await desk.load(astore)
        for name in ("Ann", "Bob"):
            desk.claims.check(name, new_key(), 0.0)
        await play(desk, TREND_GAMES + 1)

    async def second(astore: AsyncStore) -> None:
        desk = LadderDesk()
        await desk.load(astore)
        for name in ("Ann", "Bob"):
            desk.claims.check(name, new_key(), 0.0)
        await play(desk, 3)
        ann = next(r for r in desk.board() if r.name == "Ann")
        assert ann.games == TREND_GAMES + 4
        assert ann.trend == round(after[-1] - after[-1 - TREND_GAMES], 2)

    _with_store(path, first)
    _with_store(path, second)


def _unrated_game(path: Path, rated: bool = True) -> None:
    """A finished game of an open table, kept without its ratings (by an older version)."""
    with Store.open(path) as store:
        db = store._db
        settings = json.dumps({"table": {"rated": rated}})
        db.execute("INSERT INTO tables VALUES ('t1', 'Friday', '{}', ?, 'waiting', 0, 0)",
                   (settings,))
        db.execute("INSERT INTO seats VALUES ('t1', 0, 'ann', 'human', NULL, NULL)")
        db.execute("INSERT INTO seats VALUES ('t1', 1, 'Bot 1', 'builtin', NULL, 'easy')")
        db.execute("INSERT INTO games VALUES (1, 't1', 'Friday', 1, '{}', 0, 1, 1, '{}')")
        db.execute("INSERT INTO game_players VALUES (1, 0, 'ann', 'human', 3, 2, 0)")
        db.execute("INSERT INTO game_players VALUES (1, 1, 'Bot 1', 'builtin', 0, 1, 1)")
        if db.in_transaction:
            db.commit()


def test_a_game_kept_without_its_ratings_is_rated_at_start_once(
        tmp_path: Path, caplog: pytest.LogCaptureFixture):
    path = tmp_path / "nimmt.db"
    key = new_key()

    async def claim(astore: AsyncStore) -> None:
        desk = LadderDesk()
        await desk.load(astore)
        verdict = desk.hello("Ann", key, False)
        assert verdict.new is not None and await desk.keep_claim(verdict.new)

    _with_store(path, claim)
    _unrated_game(path)
    boards = []

    async def start(astore: AsyncStore) -> None:
        desk = LadderDesk()
        await desk.load(astore)
        boards.append([(r.name, r.games, r.bot) for r in desk.board()])

    with caplog.at_level(logging.INFO, logger="nimmt.server"):
        _with_store(path, start)
    assert boards[0] == [("bot:easy", 1, True), ("Ann", 1, False)]  # rated under its claim
    assert "ladder: game 1 of table t1 was kept without its ratings: rated now" in caplog.text
    _with_store(path, start)  # a second start rates it no more
    assert boards[1] == boards[0]


def test_a_game_of_a_table_that_is_not_rated_is_left_unrated_at_start(tmp_path: Path):
    path = tmp_path / "nimmt.db"

    async def claim(astore: AsyncStore) -> None:
        desk = LadderDesk()
        await desk.load(astore)
        assert desk.hello("Ann", new_key(), False).new is not None

    _with_store(path, claim)
    _unrated_game(path, rated=False)

    async def start(astore: AsyncStore) -> None:
        desk = LadderDesk()
        await desk.load(astore)
        assert desk.board() == []

    _with_store(path, start)


def test_without_a_database_a_claim_is_kept_at_once():
    async def main() -> None:
        desk = LadderDesk()
        verdict = desk.hello("Ann", new_key(), False)
        assert verdict.new is not None
        assert await desk.keep_claim(verdict.new) is True

    trio.run(main)


def test_equal_ratings_rank_more_games_first_then_by_name():
    rows = rank_board([("Cy", 25.0, 2.0, 10.0, 3, None, False),
                       ("Ann", 27.0, 1.0, 10.001, 3, None, True),
                       ("Bob", 26.0, 3.0, 9.996, 5, None, False)])
    assert [(r.rank, r.name) for r in rows] == [(1, "Bob"), (2, "Ann"), (3, "Cy")]
