"""Storage behaviours a sample of mutants of server/storage showed nothing pinned
(issue 43): what an operator reads when writes are dropped, the log's bound, the
leaderboard's trend read from the file, a rated game kept without its ratings and
its bots' levels, and what a failed start leaves behind."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from nimmt.engine import Options, record_from_game
from nimmt.server.storage import Dropped, Store
from nimmt.server.storage import store as store_module
from nimmt.server.storage.ladder import (RatingChange, ladder_rows, save_ratings,
                                         unrated_games)

from storage_helpers import play_game


def test_what_was_dropped_is_said_in_the_singular_and_the_plural() -> None:
    assert Dropped(1, {"t1"}, 1).describe() == "1 unsaved change (table t1; 1 finished game)"
    assert Dropped(2, {"t10", "t3"}, 2).describe() == (
        "2 unsaved changes (tables t3, t10; 2 finished games)")
    assert Dropped(0, set(), 0).describe() == "0 unsaved changes (tables none)"


def test_the_write_ahead_log_is_bounded_at_4_mib(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/SERVER.md: past 4 MiB the writer checkpoints, and the file is cut back to
    4 MiB; an in-memory store has no log to check."""
    with Store.open(tmp_path / "nimmt.db") as store:
        (limit,) = store._db.execute("PRAGMA journal_size_limit").fetchone()
        assert limit == 4 * 1024 * 1024
        real_stat = os.stat

        def sized(size: int):
            def stat(path, *args, **kwargs):
                if str(path).endswith("-wal"):
                    return os.stat_result((0o100644, 0, 0, 1, 0, 0, size, 0, 0, 0))
                return real_stat(path, *args, **kwargs)
            return stat

        monkeypatch.setattr(store_module.os, "stat", sized(4 * 1024 * 1024))
        assert not store.log_too_big()
        monkeypatch.setattr(store_module.os, "stat", sized(4 * 1024 * 1024 + 1))
        assert store.log_too_big()
    monkeypatch.undo()
    with Store.open(":memory:") as memory:
        assert not memory.log_too_big()


def test_the_leaderboard_s_trend_from_the_file_is_since_exactly_five_games_ago(
        tmp_path: Path) -> None:
    """``nimmt-replay ladder`` reads the trend from the database: Ann's rating now
    against hers after her 2nd of 7 games (5 ago), Bob's (5 games) since no history."""
    with Store.open(tmp_path / "nimmt.db") as store:
        db = store._db
        for game in range(1, 8):
            changes = [RatingChange("Ann", 20.0 + game, 8.0 - game / 10, game, 1)]
            if game <= 5:
                changes.append(RatingChange("Bob", 30.0 - game, 8.0, game, 2))
            save_ratings(db, None, changes, at=float(game))
        rows = {r.name: r for r in ladder_rows(db, trend_games=5)}
        assert (rows["Ann"].mu, rows["Ann"].games) == (27.0, 7)
        assert rows["Ann"].before == (22.0, 8.0 - 2 / 10)
        assert rows["Bob"].before is None  # five games: no rating five games before
        assert {r.name: r.before for r in ladder_rows(db, trend_games=4)}["Bob"] == (29.0, 8.0)


def test_a_rated_game_kept_without_ratings_names_its_built_in_bots_levels(
        tmp_path: Path) -> None:
    """After a crash between a rated game and its ratings (an older server), the game
    is rated at the next start from what the table's seats say: a built-in bot by its
    level ("hard"), a client bot and a human by name only."""
    with Store.open(tmp_path / "nimmt.db") as store:
        game, facts = play_game(Options(players=3, rounds=1), 7)
        store.create_table("t1", "Ladder", {}, {"table": {"rated": True}})
        for seat, name, kind, strategy in ((0, "Ann", "human", None), (1, "Hal", "builtin", "hard"),
                                           (2, "Rob", "bot", "ignored")):
            store.set_seat("t1", seat, name, kind, strategy=strategy)
        store.append("t1", facts)
        record = record_from_game(game, seats=["Ann", "Hal", "Rob"])
        game_id = store.finish_game("t1", "Ladder", 1, record, ["human", "builtin", "bot"],
                                    started=1.0, ended=2.0)
        store.create_table("t2", "Casual", {}, {"table": {"rated": False}})
        store.append("t2", facts)
        store.finish_game("t2", "Casual", 1, record, ["human"] * 3, started=3.0, ended=4.0)
        (unrated,) = unrated_games(store._db)
        assert (unrated.game_id, unrated.table_id, unrated.names, unrated.kinds,
                unrated.strategies) == (game_id, "t1", ("Ann", "Hal", "Rob"),
                                        ("human", "builtin", "bot"), (None, "hard", None))
        assert list(unrated.places) == [game.result.places[s] for s in range(3)]


def test_a_start_that_fails_after_creating_the_file_leaves_no_file_behind(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A disk that fills while the new database is being set up: the error names the
    file, and the database, its -wal and -shm files and the folders made are gone."""
    from nimmt.server.storage import opening

    def full(*args, **kwargs):
        conn = args[0]
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("CREATE TABLE IF NOT EXISTS x (a)")  # the file, its -wal and -shm exist
        assert {p.name for p in target.parent.iterdir()} >= {
            "nimmt.db", "nimmt.db-wal", "nimmt.db-shm"}
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(opening, "prepare", full)
    monkeypatch.setattr(store_module, "prepare", full)
    target = tmp_path / "new" / "nimmt.db"
    with pytest.raises(Exception) as e:
        Store.open(target)
    assert str(target) in str(e.value)
    assert not (tmp_path / "new").exists()


async def test_a_bug_in_the_upkeep_is_logged_and_the_next_part_comes_50_ms_later(
        tmp_path: Path, mock_clock, caplog: pytest.LogCaptureFixture) -> None:
    """The keeper task must not stop the server when a part of a fold raises: it says
    so in the log, and tries again once the parts' 50 ms have passed; the writes
    between go on."""
    import trio

    from nimmt.server.storage import AsyncStore, seat_fact
    from test_storage_fold import counted_parts, rows, upkeep_done

    path = tmp_path / "nimmt.db"
    store = Store.open(path)
    store.FOLD_ROWS, store.FOLD_PARTS = 4, 2
    astore = AsyncStore(store)
    parts = counted_parts(store, mock_clock)
    counted = store.fold_part
    failures = [RuntimeError("a bug")]

    def part() -> None:
        if failures:
            raise failures.pop()
        counted()

    store.fold_part = part  # type: ignore[method-assign]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(astore.keep_up)
        for table_id in ("t1", "t2"):
            await astore.create_table(table_id, table_id, {}, {})
        for n in range(4):  # a fold is due after the fourth: its first part fails
            await astore.append(("t1", "t2")[n % 2], seat_fact(0, f"p{n}", "human"))
        await upkeep_done(astore)
        assert parts == [] and "the database's upkeep failed" in caplog.text
        await astore.append("t1", seat_fact(0, "p4", "human"))  # writes go on
        mock_clock.jump(0.049)
        await upkeep_done(astore)
        assert parts == []
        mock_clock.jump(0.001)
        await upkeep_done(astore)
        assert parts == [0.05] and rows(path, "facts", "t1") == 3  # p0, p2, p4 moved
        nursery.cancel_scope.cancel()
    await astore.aclose()


def test_a_group_of_writes_frees_a_seat_and_appends_facts_each_as_asked(tmp_path: Path) -> None:
    """A group write runs each call as its own kind: a ``free_seat`` (two arguments,
    like an ``append``) frees the seat, it is not taken for facts."""
    from nimmt.server.storage import seat_fact
    with Store.open(tmp_path / "nimmt.db") as store:
        store.create_table("t1", "One", {}, {})
        store.set_seat("t1", 0, "Ann", "human")
        store.set_seat("t1", 1, "Bob", "human")
        results, error = store.write_group([("free_seat", ("t1", 1), {}),
                                            ("append", ("t1", [seat_fact(1, None)]), {})])
        assert (results, error) == ([(None, None), (1, None)], None)  # append: its last seq
        seats = store._db.execute("SELECT seat, name FROM seats WHERE table_id = 't1'").fetchall()
        assert seats == [(0, "Ann")]
        assert [f.payload for f in store.facts("t1")] == [
            {"seat": 1, "name": None, "kind": None, "strategy": None}]


def test_a_migration_that_fails_says_which_version_the_file_was_left_at(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from nimmt.server.storage import DatabaseUnreadable, SCHEMA_VERSION, opening
    path = tmp_path / "old.db"
    Store.open(path).close()
    with sqlite3.connect(path) as db:  # as an older nimmt left it
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION - 1}")
    db.close()
    monkeypatch.setitem(opening.MIGRATIONS, SCHEMA_VERSION, ["INSERT INTO no_such_table VALUES (1)"])
    with pytest.raises(DatabaseUnreadable) as e:
        Store.open(path)
    assert str(e.value).endswith(
        f"cannot bring {path} up to database version {SCHEMA_VERSION} (no such table: "
        f"no_such_table); it was left at version {SCHEMA_VERSION - 1}. Free some disk space, "
        "or use another file with --db PATH.")
    monkeypatch.setitem(opening.MIGRATIONS, 1, ["INSERT INTO no_such_table VALUES (1)"])
    new = tmp_path / "new.db"
    with pytest.raises(DatabaseUnreadable) as e:
        Store.open(new)
    assert str(e.value).endswith(
        f"cannot create the database {new} (no such table: no_such_table): free some disk "
        "space, or use another file with --db PATH.")
    assert not new.exists()


def test_a_file_it_may_not_write_is_opened_for_reading_with_the_problem_said(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(Root may write any file, so the refusal is made by hand.) An up-to-date file
    that cannot be written is still read: nimmt-replay shows its games."""
    path = tmp_path / "nimmt.db"
    Store.open(path).close()

    for code in (8, 14, 3):  # SQLite's READONLY, CANTOPEN, PERM
        def refused(*args, code=code, **kwargs):
            e = sqlite3.OperationalError("attempt to write a readonly database")
            e.sqlite_errorcode = code
            raise e

        monkeypatch.setattr(store_module, "prepare", refused)
        store = Store.open(path)
        try:
            assert store.problem is not None, code
            assert str(store.problem).endswith(f"cannot write to {path}: attempt to write a "
                                               "readonly database") or code == 8
        finally:
            store.close()
    def io_error(*args, **kwargs):
        e = sqlite3.OperationalError("disk I/O error")
        e.sqlite_errorcode = 10  # IOERR: not a file it may only read
        raise e

    monkeypatch.setattr(store_module, "prepare", io_error)
    with pytest.raises(Exception, match="cannot prepare"):
        Store.open(path)


def test_the_database_is_the_file_named_whatever_its_characters(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "a b%20c#d?e.db"
    Store.open(path).close()
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name, path.name + ".lock"]
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] > 0
    db.close()


def test_giving_up_counts_each_finished_game_once_and_a_closed_table_is_not_lost() -> None:
    """What the operator is told when the store gives up: every write in the queue,
    each finished game once, and the tables whose writes were dropped (a table whose
    only write was its close is not lost: nothing of it is left to rebuild); the queue
    then holds the close of each lost table and the table mark."""
    from collections import deque

    from nimmt.server.storage.writes import PendingWrite, drop_queue
    queue = deque([PendingWrite("append", ("t1", ()), {}, "t1"),
                   PendingWrite("finish_game", ("t1",), {}, "t1"),
                   PendingWrite("close_table", ("t2",), {}, "t2"),
                   PendingWrite("append", ("t3", ()), {}, "t3"),
                   PendingWrite("set_seat", ("t4", 0, "Ann", "human"), {}, "t4"),
                   PendingWrite("reserve_tables", (9,), {}, None)])
    tried = list(queue)
    dropped = Dropped()
    lost = {"t3"}
    drop_queue(queue, lost, dropped, 7)
    assert all(w.tried and not w.done for w in tried)
    assert (dropped.writes, dropped.tables, dropped.games) == (6, {"t1", "t4"}, 1)
    assert dropped.describe() == "6 unsaved changes (tables t1, t4; 1 finished game)"
    assert lost == {"t1", "t3", "t4"}
    assert [(w.method, w.args) for w in queue] == [("close_table", ("t1",)),
                                                   ("close_table", ("t4",)),
                                                   ("reserve_tables", (7,))]


def test_a_game_that_is_not_there_is_said_with_the_file_it_was_looked_for_in(
        tmp_path: Path) -> None:
    from nimmt.server.storage import NoSuchGame
    path = tmp_path / "nimmt.db"
    with Store.open(path) as store, pytest.raises(NoSuchGame) as e:
        store.game(99)
    assert str(e.value) == f"no finished game 99 in {path}"
    with Store.open(":memory:") as memory, pytest.raises(NoSuchGame) as e:
        memory.game(99)
    assert str(e.value) == "no finished game 99 in :memory:"
