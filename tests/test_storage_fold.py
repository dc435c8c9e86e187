"""The newest facts go to the end of one time-ordered log (``recent_facts``) and are
folded into each table's own log now and then: a reader never sees the difference,
the rows of closed tables go, and the recent log stays bounded."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import trio
import trio.testing

from nimmt.engine import Options
from nimmt.server.storage import AsyncStore, Store, seat_fact

from storage_helpers import play_game


def rows(path: Path, log: str, table_id: str | None = None) -> int:
    """Rows of ``log`` (of one table) that another connection sees."""
    with sqlite3.connect(path) as other:
        if table_id is None:
            count = other.execute(f"SELECT count(*) FROM {log}").fetchone()[0]
        else:
            count = other.execute(f"SELECT count(*) FROM {log} WHERE table_id = ?",
                                  (table_id,)).fetchone()[0]
    other.close()
    return int(count)


def test_facts_read_the_same_before_and_after_a_fold(tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    _, facts = play_game(Options(players=3, rounds=1), seed=5)
    with Store.open(path) as store:
        store.create_table("t1", "Friday", {}, {})
        store.create_table("t2", "Saturday", {}, {})
        store.append("t1", facts[:4])
        store.append("t2", facts[:2])
        store.append("t1", facts[4:9])
        before = (store.facts("t1"), store.facts("t2"), store.open_tables())
        assert rows(path, "recent_facts") == 11 and rows(path, "facts") == 0
        store.fold()
        assert rows(path, "recent_facts") == 0 and rows(path, "facts", "t1") == 9
        assert (store.facts("t1"), store.facts("t2"), store.open_tables()) == before
        assert [f.seq for f in store.facts("t1")] == list(range(1, 10))
        # half folded, half recent: still one log, in order, numbered on
        store.append("t1", [seat_fact(2, None)])
        assert [f.seq for f in store.facts("t1", after=7)] == [8, 9, 10]
        assert store.facts("t1")[:9] == before[0]


def test_a_table_numbers_its_facts_on_whichever_log_holds_its_last(tmp_path: Path) -> None:
    """The next seq is found in both logs when the store has not kept it (after a
    failed transaction it reads them again)."""
    with Store.open(tmp_path / "nimmt.db") as store:
        store.create_table("t1", "Friday", {}, {})
        store.append("t1", [seat_fact(0, "Ann", "human")] * 3)
        store._seqs.clear()
        assert store.append("t1", [seat_fact(0, None)])[0].seq == 4  # last one is recent
        store.fold()
        store._seqs.clear()
        assert store.append("t1", [seat_fact(0, None)])[0].seq == 5  # last one is folded


def test_a_fold_forgets_the_facts_of_closed_tables(tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    with Store.open(path) as store:
        store.create_table("t1", "Friday", {}, {})
        store.create_table("t2", "Gone soon", {}, {})
        store.append("t1", [seat_fact(0, "Ann", "human")])
        store.append("t2", [seat_fact(0, "Bob", "human")] * 5)
        store.close_table("t2")
        assert [t.id for t in store.open_tables()] == ["t1"]
        store.fold()
    assert rows(path, "recent_facts") == 0
    assert rows(path, "facts", "t2") == 0 and rows(path, "facts", "t1") == 1


def test_a_restart_folds_what_the_stopped_server_left(tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    options = Options(players=2, rounds=1)
    _, facts = play_game(options, seed=8)
    with Store.open(path) as store:
        store.create_table("t1", "Friday", {}, {})
        store.append("t1", facts)
    assert rows(path, "recent_facts") == len(facts)
    with Store.open(path) as store:
        assert rows(path, "recent_facts") == 0 and rows(path, "facts", "t1") == len(facts)
        (table,) = store.open_tables()
    assert table.facts == tuple(facts) and table.last_seq == len(facts)


def test_a_version_3_file_gets_the_recent_log_and_keeps_its_facts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file of schema 3 (every fact in ``facts``) opens with its tables whole and
    numbers their facts on."""
    import nimmt.server.storage.opening as opening
    from nimmt.server.storage.fact_log import dumps

    path = tmp_path / "nimmt.db"
    _, facts = play_game(Options(players=2, rounds=1), seed=9)
    monkeypatch.setattr(opening, "SCHEMA_VERSION", 3)
    with Store.open(path) as old:
        old.create_table("t1", "Friday", {}, {})
    with sqlite3.connect(path) as plain:  # as nimmt of schema 3 wrote them
        plain.executemany(
            "INSERT INTO facts (table_id, seq, kind, payload, at) VALUES (?, ?, ?, ?, ?)",
            [("t1", n, f.kind, dumps(f.payload), 1.0)
             for n, f in enumerate(facts, 1)])
    plain.close()
    monkeypatch.undo()
    with Store.open(path) as store:
        (table,) = store.open_tables()
        assert [f.kind for f in table.facts] == [f.kind for f in facts]
        assert store.append("t1", [seat_fact(1, None)])[0].seq == len(facts) + 1


def test_a_fold_in_parts_moves_a_share_of_the_tables_at_a_time_and_reads_never_change(
        tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    with Store.open(path) as store:
        store.FOLD_ROWS, store.FOLD_PARTS = 8, 4
        tables = [f"t{n}" for n in range(1, 9)]
        for table_id in tables:
            store.create_table(table_id, table_id, {}, {})
            store.append(table_id, [seat_fact(0, f"{table_id}a", "human")])
        store.close_table("t8")  # its rows go with its part, not into facts
        assert store.fold_due()
        before = {t: [(f.seq, f.payload["name"]) for f in store.facts(t)] for t in tables}
        moved = []
        while store.fold_due():
            store.fold_part()
            moved.append(rows(path, "facts"))
            # a write between two parts: numbered on, read in order, moved later
            store.append("t1", [seat_fact(1, f"t1-{len(moved)}", "human")])
            assert [f.seq for f in store.facts("t1")] == list(range(1, len(moved) + 2))
            for table_id in tables[1:7]:
                assert [(f.seq, f.payload["name"]) for f in store.facts(table_id)] == \
                    before[table_id]
        assert moved == [2, 4, 6, 7]  # two tables a part (t8's row dropped)
        assert rows(path, "recent_facts") == 4  # t1's rows written after its part
        assert not store.fold_due()


def test_a_part_of_a_fold_names_at_most_500_tables(tmp_path: Path) -> None:
    """(SQLite before 3.32 takes at most 999 parameters in a statement.)"""
    path = tmp_path / "nimmt.db"
    with Store.open(path) as store:
        store.FOLD_ROWS, store.FOLD_PARTS = 1, 1
        for n in range(1, 1101):
            store.create_table(f"t{n}", "x", {}, {})
            store.append(f"t{n}", [seat_fact(0, "ann", "human")])
        parts = 0
        while store.fold_due():
            store.fold_part()
            parts += 1
        assert parts == 3 and rows(path, "facts") == 1100 and rows(path, "recent_facts") == 0


async def test_the_recent_log_stays_bounded_while_tables_write(tmp_path: Path) -> None:
    """The async store folds once the recent log passes its bound, in a worker thread
    between transactions; every fact stays readable, in order."""
    path = tmp_path / "nimmt.db"
    store = Store.open(path)
    store.FOLD_ROWS = 25
    astore = AsyncStore(store)
    astore.FOLD_GAP = 0  # (the parts of a fold one after the other: the bound below)
    tables = ["t1", "t2", "t3"]
    for table_id in tables:
        await astore.create_table(table_id, table_id, {}, {})
    most = 0

    async def write(table_id: str) -> None:
        nonlocal most
        for n in range(60):
            await astore.append(table_id, seat_fact(n % 4, f"p{n}", "human"))
            most = max(most, rows(path, "recent_facts"))

    async with trio.open_nursery() as nursery:
        for table_id in tables:
            nursery.start_soon(write, table_id)
    assert most <= 25 + len(tables)  # a fold is due at 25: a group's worth more at most
    assert rows(path, "facts") > 150
    for table_id in tables:
        assert [f.payload["name"] for f in store.facts(table_id)] == [f"p{n}" for n in range(60)]
        assert [f.seq for f in store.facts(table_id)] == list(range(1, 61))
    await astore.aclose()


def counted_parts(store: Store, clock: trio.testing.MockClock) -> list[float]:
    """The trio time at which each part of a fold starts, from now on."""
    parts: list[float] = []
    fold_part = store.fold_part

    def counted_part() -> None:
        parts.append(clock.current_time())
        fold_part()

    store.fold_part = counted_part  # type: ignore[method-assign]
    return parts


async def upkeep_done(astore: AsyncStore) -> None:
    """Until the upkeep that is due now has started and ended (it holds the store's
    connection while it runs: a read waits for it)."""
    await trio.testing.wait_all_tasks_blocked()
    await astore.read(lambda: None)


async def test_the_store_keeps_itself_up_beside_the_writes(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """As on a server (``keep_up`` running): a part of a fold starts once the
    transaction that found it due is on disk, the writes go on without waiting for the
    next part until ``FOLD_GAP`` has passed, and the next part comes then even when no
    write does; every fact stays readable, in order."""
    path = tmp_path / "nimmt.db"
    store = Store.open(path)
    store.FOLD_ROWS, store.FOLD_PARTS = 4, 2
    astore = AsyncStore(store)
    parts = counted_parts(store, mock_clock)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(astore.keep_up)
        for table_id in ("t1", "t2"):
            await astore.create_table(table_id, table_id, {}, {})
        for n in range(4):  # 4 recent rows: a fold is due after the fourth is on disk
            await astore.append(("t1", "t2")[n % 2], seat_fact(0, f"p{n}", "human"))
        await upkeep_done(astore)
        assert parts == [0.0] and rows(path, "facts", "t1") == 2  # p0, p2 moved
        for n in range(4, 24):  # written at once, no part in between
            await astore.append(("t1", "t2")[n % 2], seat_fact(0, f"p{n}", "human"))
        await upkeep_done(astore)
        assert parts == [0.0] and store.fold_due()
        mock_clock.jump(0.049)  # the parts go 50 ms apart (docs/SERVER.md)
        await upkeep_done(astore)
        assert parts == [0.0]
        mock_clock.jump(0.001)  # no write comes: the second part does
        await upkeep_done(astore)
        assert parts == [0.0, 0.05]
        assert rows(path, "facts", "t2") == 12 and rows(path, "recent_facts") == 10  # t1's
        nursery.cancel_scope.cancel()
    names = [f"p{n}" for n in range(24)]
    for index, table_id in enumerate(("t1", "t2")):
        assert [f.payload["name"] for f in store.facts(table_id)] == [
            name for n, name in enumerate(names) if n % 2 == index]
    await astore.aclose()


async def test_without_its_keeper_the_writer_does_the_upkeep_after_its_transaction(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """A store used without ``keep_up`` (a tool, a test) still folds: the writer makes
    the part that its transaction found due, then the next once ``FOLD_GAP`` has passed
    and a write comes; the writes between do not wait for a part."""
    path = tmp_path / "nimmt.db"
    store = Store.open(path)
    store.FOLD_ROWS, store.FOLD_PARTS = 4, 2
    astore = AsyncStore(store)
    parts = counted_parts(store, mock_clock)
    for table_id in ("t1", "t2"):
        await astore.create_table(table_id, table_id, {}, {})
    for n in range(3):
        await astore.append(("t1", "t2")[n % 2], seat_fact(0, f"p{n}", "human"))
    assert parts == [] and not store.fold_due()
    await astore.append("t2", seat_fact(0, "p3", "human"))  # this, then the first part
    assert parts == [0.0] and rows(path, "facts", "t1") == 2  # p0, p2 moved
    for n in range(4, 24):  # written at once, no part in between
        await astore.append(("t1", "t2")[n % 2], seat_fact(0, f"p{n}", "human"))
    assert parts == [0.0] and store.fold_due()
    mock_clock.jump(0.049)  # 50 ms apart (docs/SERVER.md): not yet
    await astore.append("t2", seat_fact(0, "p24", "human"))
    assert parts == [0.0]
    mock_clock.jump(0.001)
    await astore.append("t2", seat_fact(0, "p25", "human"))
    assert parts == [0.0, 0.05]
    assert rows(path, "facts", "t2") == 14  # p1 ... p23, p24 and p25, written before the part
    await astore.aclose()


def test_a_fold_on_a_full_disk_leaves_the_facts_readable_and_the_next_one_moves_them(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "nimmt.db"
    with Store.open(path) as store:
        store.FOLD_ROWS = 10
        store.create_table("t1", "Friday", {}, {})
        long = "x" * 1000  # (the moved rows need new pages of the file)
        store.append("t1", [seat_fact(n % 4, f"p{n}{long}", "human") for n in range(10)])
        assert store.fold_due()
        pages = store._db.execute("PRAGMA page_count").fetchone()[0]
        store._db.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own "disk full"
        store.fold()
        assert "could not move the recent facts" in caplog.text
        assert rows(path, "recent_facts") == 10 and rows(path, "facts") == 0
        assert not store.fold_due()  # not tried again at every write
        assert [f.payload["name"] for f in store.facts("t1")] == [f"p{n}{long}" for n in range(10)]
        store._db.execute("PRAGMA max_page_count = 1073741823")
        store.append("t1", [seat_fact(0, f"p{n}", "human") for n in range(10, 20)])
        assert store.fold_due()
        store.fold()
        assert rows(path, "recent_facts") == 0 and rows(path, "facts", "t1") == 20
        assert [f.seq for f in store.facts("t1")] == list(range(1, 21))
