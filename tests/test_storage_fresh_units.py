"""Storage behaviours only a 30 s server test or nothing pinned (issue 43, session 25):
the writer's own checkpoint once the log outgrew its bound, the checkpointer's copy
after a write, a write whose caller was cancelled while it waited for a read, and a
lock file that cannot be made in a read-only folder."""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from nimmt.server.storage import AsyncStore, DatabaseUnreadable, Store
from nimmt.server.storage import files as files_module


async def test_past_its_bound_the_log_is_checkpointed_by_the_writer_every_8th_transaction(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer looks at the log's size every 8 transactions (docs/SERVER.md: past
    4 MiB it checkpoints): with a log always too big, its own checkpoints come after
    the 8th and the 16th transaction, and never while the log is small."""
    astore = AsyncStore(Store.open(tmp_path / "nimmt.db"))
    made: list[int] = []
    monkeypatch.setattr(astore.store, "checkpoint", lambda: made.append(astore.commits))
    for n in range(1, 9):
        await astore.create_table(f"t{n}", "small", {}, {})
    assert made == []  # the log is under its bound
    monkeypatch.setattr(astore.store, "log_too_big", lambda: True)
    for n in range(9, 25):
        await astore.create_table(f"t{n}", "big", {}, {})
        assert made == [c for c in (16, 24) if c <= astore.commits], n
    assert astore.commits == 24
    await astore.aclose()


class _Watched:
    """The checkpointer's connection, telling when it copied the log."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.copied = threading.Event()
        self.spans: list[tuple[float, float]] = []  # (start, end) of each copy

    def execute(self, sql: str, *args: Any) -> Any:
        start = time.monotonic()
        result = self.db.execute(sql, *args)
        if "wal_checkpoint" in sql:
            self.spans.append((start, time.monotonic()))
            self.copied.set()
        return result

    def close(self) -> None:
        self.db.close()


async def test_a_write_is_copied_into_the_database_file_by_the_checkpointer(
        tmp_path: Path) -> None:
    """Within its interval after a write, the checkpointer copies the log into the
    file itself: a copy of the .db file alone (no log beside it) holds the table."""
    path = tmp_path / "nimmt.db"
    astore = AsyncStore(Store.open(path))
    checkpointer = astore._checkpointer
    assert checkpointer is not None
    watched = _Watched(checkpointer._db)
    checkpointer._db = watched  # type: ignore[assignment]
    try:
        await astore.create_table("t1", "Friday", {}, {})
        assert await trio.to_thread.run_sync(watched.copied.wait, 20)
        with checkpointer.lock:  # (the copy under way is finished)
            shutil.copyfile(path, tmp_path / "alone.db")
        with sqlite3.connect(tmp_path / "alone.db") as alone:
            assert alone.execute("SELECT id, name FROM tables").fetchall() == [("t1", "Friday")]
    finally:
        await astore.aclose()


async def test_a_write_whose_caller_is_cancelled_while_a_read_runs_is_on_disk_after_the_read(
        tmp_path: Path) -> None:
    """A table closed (its task cancelled) while its write waits for a read: the write is
    made as soon as the read ends, not left queued until some later write."""
    astore = AsyncStore(Store.open(tmp_path / "nimmt.db"))
    busy, release = threading.Event(), threading.Event()
    outcome: list[str] = []

    async def write(scope: trio.CancelScope) -> None:
        with scope:
            await astore.create_table("t1", "Friday", {}, {})
            outcome.append("returned")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(astore.read, lambda: (busy.set(), release.wait()))
        await trio.to_thread.run_sync(busy.wait)
        scope = trio.CancelScope()
        nursery.start_soon(write, scope)
        await trio.testing.wait_all_tasks_blocked()
        scope.cancel()
        await trio.testing.wait_all_tasks_blocked()
        release.set()
    assert astore.backlog == 0
    assert [t.id for t in await astore.open_tables()] == ["t1"]
    await astore.aclose()


@pytest.mark.parametrize("code", [errno.EROFS, errno.EACCES])
def test_a_database_whose_lock_cannot_be_made_in_a_read_only_folder_still_opens(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    """(Root may write anywhere: the refusal is made by hand.) Without its lock file the
    database is still read; a full disk at the lock file refuses to open it."""
    path = tmp_path / "nimmt.db"
    with Store.open(path) as store:
        store.create_table("t1", "Friday", {}, {})
    (tmp_path / "nimmt.db.lock").unlink()
    real_open = os.open

    def refused(errno_code: int):
        def fake(name: Any, *args: Any, **kwargs: Any) -> int:
            if str(name).endswith(".lock"):
                raise OSError(errno_code, os.strerror(errno_code))
            return real_open(name, *args, **kwargs)
        return fake

    monkeypatch.setattr(files_module.os, "open", refused(code))
    with Store.open(path) as store:
        assert [t.id for t in store.open_tables()] == ["t1"]
    monkeypatch.setattr(files_module.os, "open", refused(errno.ENOSPC))
    with pytest.raises(DatabaseUnreadable, match="cannot create the database"):
        Store.open(path)
    monkeypatch.undo()
    assert not (tmp_path / "nimmt.db.lock").exists()


def test_rated_games_kept_without_ratings_are_found_past_a_casual_game_before_them(
        tmp_path: Path) -> None:
    """At a start, every rated game without ratings is rated, oldest first, whatever
    casual games were kept between them."""
    from nimmt.engine import Options, record_from_game
    from nimmt.server.storage.ladder import unrated_games

    from storage_helpers import play_game

    game, facts = play_game(Options(players=3, rounds=1), 7)
    record = record_from_game(game, seats=["Ann", "Bob", "Cy"])
    with Store.open(tmp_path / "nimmt.db") as store:
        ids = {}
        for table_id, rated in (("t1", False), ("t2", True), ("t3", False), ("t4", True)):
            store.create_table(table_id, table_id, {}, {"table": {"rated": rated}})
            store.append(table_id, facts)
            ids[table_id] = store.finish_game(table_id, table_id, 1, record, ["human"] * 3,
                                              started=1.0, ended=2.0)
        assert [(g.game_id, g.table_id) for g in unrated_games(store._db)] == [
            (ids["t2"], "t2"), (ids["t4"], "t4")]


def test_a_stored_tie_choice_of_an_unknown_end_is_a_fact_error_that_says_so() -> None:
    """A damaged table's log names what cannot be read (``FactError``: the table is
    set aside at a start, the others come back)."""
    from nimmt.server.storage import FactError, decision_from

    with pytest.raises(FactError) as info:
        decision_from({"type": "choose_tie", "seat": 1, "place": {"row": 0, "end": "middle"}})
    assert str(info.value) == "a stored tie choice cannot be read: 'middle' is not a valid End"


def test_the_ladder_s_recent_ratings_say_who_played_each_name_s_last_game(
        tmp_path: Path) -> None:
    """The ladder marks bots by the kind of their last kept rated game: Ann a human,
    Hal a built-in bot (both after two games, their ratings oldest first), Zed None:
    his rating's game was not kept."""
    from nimmt.engine import Options, record_from_game
    from nimmt.server.storage.ladder import RatingChange, load_recent, save_ratings

    from storage_helpers import play_game

    game, facts = play_game(Options(players=3, rounds=1), 7)
    record = record_from_game(game, seats=["Ann", "Hal", "Rob"])
    with Store.open(tmp_path / "nimmt.db") as store:
        store.create_table("t1", "Ladder", {}, {"table": {"rated": True}})
        store.append("t1", facts)
        for n in (1, 2):
            game_id = store.finish_game("t1", "Ladder", n, record, ["human", "builtin", "bot"],
                                        started=float(n), ended=float(n))
            save_ratings(store._db, game_id, [RatingChange("Ann", 20.0 + n, 8.0, n, 1),
                                              RatingChange("Hal", 30.0 - n, 7.0, n, 2)],
                         at=float(n))
        save_ratings(store._db, None, [RatingChange("Zed", 25.0, 8.3, 1, 1)], at=3.0)
        recent = load_recent(store._db, 6)
    assert {name: (r.kind, r.history) for name, r in recent.items()} == {
        "Ann": ("human", ((21.0, 8.0), (22.0, 8.0))),
        "Hal": ("builtin", ((29.0, 7.0), (28.0, 7.0))),
        "Zed": (None, ((25.0, 8.3),)),
    }


class _Checked:
    """A nimmt database's connection whose quick check finds five problems."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def execute(self, sql: str, *args: Any) -> Any:
        if sql == "PRAGMA quick_check":
            return self.db.execute(
                "VALUES ('*** in database main ***'), ('row 1 missing from index a'),"
                " ('row 2 missing from index a'), ('row 3 missing from index b'),"
                " ('wrong # of entries in index c')")
        return self.db.execute(sql, *args)

    def close(self) -> None:
        self.db.close()


def test_a_damaged_file_is_refused_naming_its_first_three_problems(tmp_path: Path) -> None:
    from nimmt.server.storage import DatabaseCorrupt
    from nimmt.server.storage.opening import check

    path = tmp_path / "nimmt.db"
    Store.open(path).close()
    with pytest.raises(DatabaseCorrupt) as info:
        check(_Checked(sqlite3.connect(path)), path)  # type: ignore[arg-type]
    assert str(info.value) == (
        f"{path} is damaged or not a database (in database main ; row 1 missing from index a; "
        "row 2 missing from index a). The file was left as it is: move it away to start a "
        "new one, or use another file with --db PATH.")


def test_the_checkpointer_copies_at_most_once_in_its_interval(tmp_path: Path) -> None:
    """Writes that keep coming are copied a quarter of a second apart, not after each
    one (the copy reads the log: at full speed it would take a core)."""
    with Store.open(tmp_path / "nimmt.db") as store:
        checkpointer = store.checkpointer()
        assert checkpointer is not None
        watched = _Watched(checkpointer._db)
        checkpointer._db = watched  # type: ignore[assignment]
        try:
            for _ in range(2):
                checkpointer.poke()
                assert watched.copied.wait(20)
                watched.copied.clear()
        finally:
            checkpointer.stop()
    (_, first_end), (second_start, _) = watched.spans
    assert second_start - first_end >= 0.25  # (timed in its thread: a late look is no matter)


async def test_a_failed_checkpoint_is_tried_again_only_when_the_log_is_looked_at_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
        ) -> None:
    """A bug in the upkeep is said once and the server goes on: the checkpoint is not
    retried in a loop, but after the next 8 transactions find the log too big again."""
    astore = AsyncStore(Store.open(tmp_path / "nimmt.db"))
    tried: list[int] = []

    def broken() -> None:
        tried.append(astore.commits)
        raise RuntimeError("a bug")

    monkeypatch.setattr(astore.store, "checkpoint", broken)
    monkeypatch.setattr(astore.store, "log_too_big", lambda: True)

    async def settled() -> None:  # the upkeep under way, if any, is over
        for _ in range(3):
            await trio.testing.wait_all_tasks_blocked()
            await astore.read(lambda: None)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(astore.keep_up)
        for n in range(1, 17):
            await astore.create_table(f"t{n}", "big", {}, {})
            await settled()
            assert tried == [c for c in (8, 16) if c <= n], n
        nursery.cancel_scope.cancel()
    assert [r.getMessage() for r in caplog.records if r.levelname == "ERROR"] == [
        "the database's upkeep failed"] * 2
    await astore.aclose()
