"""Storage rules nothing pinned before (issue 43): a table whose writes were dropped
still saves its finished game and its close; a fold cuts the tables into exactly
``FOLD_PARTS`` parts (fewer only when there are fewer tables); with the keeper task
running, the write whose transaction finds the upkeep due does not wait for it."""

from __future__ import annotations

import threading
from pathlib import Path

import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.engine import Options, record_from_game
from nimmt.server.storage import AsyncStore, Store, seat_fact
from nimmt.server.storage.fold import fold_parts

from storage_helpers import play_game


# ---------------------------------------------------------------- dropped, then finished
async def test_a_table_whose_writes_were_dropped_still_saves_its_finished_game_and_close(
        tmp_path: Path) -> None:
    """t1's writes are dropped, then (storage still failing) the close the store queued
    for its stale row is dropped too, with t2's writes: once the file can be written,
    t1's row is still there. When t1's game ends and the table closes, both are kept:
    the game in the history, and no stale t1 comes back after a restart."""
    path = tmp_path / "nimmt.db"
    game, facts = play_game(Options(players=2, rounds=1), seed=4)
    record = record_from_game(game, seats=["Ann", "Bob"])
    astore = AsyncStore(Store.open(path), max_backlog=3)
    for table_id in ("t1", "t2", "t3"):
        await astore.create_table(table_id, table_id, {}, {})
    assert await astore.append("t1", facts[0]) is None
    astore.store._db.execute("PRAGMA query_only = 1")
    for table_id in ("t1", "t2"):  # past max_backlog twice: t1's, then t2's are dropped
        for fact in facts[1:5]:
            await astore.append(table_id, fact)
    assert astore.dropped is not None and astore.dropped.tables == {"t1", "t2"}
    astore.store._db.execute("PRAGMA query_only = 0")
    assert await astore.append("t3", facts[0]) is None  # storage works again
    assert [t.id for t in await astore.open_tables()] == ["t1", "t3"]  # t1's stale row
    # t1's game (played on in memory) ends and the table closes: both are kept
    writes = astore.writes()
    game_write = writes.finish_game("t1", "t1", 1, record, ["human", "human"],
                                    1_000_000.0, 1_000_900.0)
    closed = writes.close_table("t1")
    await writes.written()
    assert game_write is not None and closed is not None
    assert astore.game_id(game_write) is not None
    await astore.aclose()
    with Store.open(path) as store:
        assert [(g.table_id, g.game_no) for g in store.games()] == [("t1", 1)]
        assert store.game(store.games()[0].id).record == record
        assert [t.id for t in store.open_tables()] == ["t3"]


# ---------------------------------------------------------------- the fold's parts
TABLES = st.integers(0, 3000)


@settings(max_examples=200, deadline=None)
@given(count=st.one_of(st.sampled_from([0, 1, 7, 8, 9, 15, 16, 17, 4000, 4001]), TABLES),
       parts=st.sampled_from([1, 2, 3, 8]))
def test_the_tables_are_cut_into_exactly_the_parts_asked_for_in_order(
        count: int, parts: int) -> None:
    tables = [f"t{n:05}" for n in range(count)]
    cut = fold_parts(tables, parts)
    assert [t for part in cut for t in part] == tables
    assert all(part for part in cut)
    assert all(len(part) <= 500 for part in cut)  # (SQLite's 999 parameters)
    sizes = {len(part) for part in cut}
    if count <= 500 * parts:
        assert len(cut) == min(count, parts)
        assert max(sizes, default=0) - min(sizes, default=0) <= 1  # as even as can be
    else:
        assert len(cut) == -(-count // 500)


def test_the_parts_for_0_1_7_8_9_and_17_tables_of_eight():
    def sizes(count: int) -> list[int]:
        return [len(p) for p in fold_parts([f"t{n}" for n in range(count)], 8)]

    assert sizes(0) == []
    assert sizes(1) == [1]
    assert sizes(7) == [1] * 7
    assert sizes(8) == [1] * 8
    assert sizes(9) == [2] + [1] * 7
    assert sizes(17) == [3] + [2] * 7
    assert sizes(4000) == [500] * 8
    assert sizes(4001) == [445] * 5 + [444] * 4  # nine parts: at most 500 tables a part


def test_a_fold_of_nine_tables_in_eight_parts_takes_eight_parts(tmp_path: Path) -> None:
    with Store.open(tmp_path / "nimmt.db") as store:
        store.FOLD_ROWS, store.FOLD_PARTS = 9, 8
        for n in range(1, 10):
            store.create_table(f"t{n}", "x", {}, {})
            store.append(f"t{n}", [seat_fact(0, "ann", "human")])
        parts = 0
        while store.fold_due():
            store.fold_part()
            parts += 1
        assert parts == 8


# ---------------------------------------------------------------- the keeper's upkeep
async def _order_of_a_write_and_a_part(tmp_path: Path, keeper: bool) -> list[str]:
    """A fold is made due by a write: which comes first, that write's return to its
    caller or the end of the fold's first part (a part that waits until the write has
    returned or nothing else can run)."""
    store = Store.open(tmp_path / "nimmt.db")
    store.FOLD_ROWS, store.FOLD_PARTS = 4, 2
    astore = AsyncStore(store)
    entered, release = threading.Event(), threading.Event()
    fold_part = store.fold_part

    def slow_part() -> None:
        entered.set()
        assert release.wait(10)
        fold_part()

    store.fold_part = slow_part  # type: ignore[method-assign]
    order: list[str] = []

    async def end_the_part() -> None:
        assert await trio.to_thread.run_sync(entered.wait, 10)
        await trio.testing.wait_all_tasks_blocked()
        order.append("part")
        release.set()

    async with trio.open_nursery() as nursery:
        if keeper:
            nursery.start_soon(astore.keep_up)
        for table_id in ("t1", "t2"):
            await astore.create_table(table_id, table_id, {}, {})
        for n in range(3):
            await astore.append(("t1", "t2")[n % 2], seat_fact(0, f"p{n}", "human"))
        assert not store.fold_due()
        nursery.start_soon(end_the_part)
        await astore.append("t2", seat_fact(0, "p3", "human"))  # the fold is due now
        order.append("write")
        await trio.to_thread.run_sync(entered.wait, 10)
        # a write handed in while the part runs waits for it (the part holds the
        # store's connection), and is on disk once it is done
        await astore.append("t1", seat_fact(0, "p4", "human"))
        order.append("write during the part")
        nursery.cancel_scope.cancel()
    assert [f.payload["name"] for f in store.facts("t1")] == ["p0", "p2", "p4"]
    await astore.aclose()
    return order


async def test_with_the_keeper_running_the_write_that_finds_a_fold_due_does_not_wait_for_it(
        tmp_path: Path) -> None:
    assert await _order_of_a_write_and_a_part(tmp_path, keeper=True) == [
        "write", "part", "write during the part"]


async def test_without_the_keeper_the_writer_makes_the_part_before_it_returns(
        tmp_path: Path) -> None:
    assert await _order_of_a_write_and_a_part(tmp_path, keeper=False) == [
        "part", "write", "write during the part"]
