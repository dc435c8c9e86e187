"""Issue 23: group commit, a bounded write-ahead log, and what a killed server keeps.
Issue 22: a database path with ``#`` or ``?``, and files only the server's user can read."""

from __future__ import annotations

import signal
import subprocess
import sys
import sqlite3
import stat
import threading
from pathlib import Path

import pytest
import trio

import crash_driver
from nimmt import protocol as P
from nimmt.engine import Commit, Options, record_from_game
from nimmt.server import start_server
from nimmt.server.storage import AsyncStore, Store, decision_fact
from server_helpers import Player, ScriptClient, make_config, play_all, seat_players
from storage_helpers import play_game


def committed(path: Path, table_id: str) -> int:
    """Facts of the table that another connection sees: committed ones only."""
    with sqlite3.connect(path) as other:
        return sum(int(other.execute(f"SELECT count(*) FROM {log} WHERE table_id = ?",
                                     (table_id,)).fetchone()[0])
                   for log in ("facts", "recent_facts"))


async def test_writes_handed_in_together_go_in_one_transaction_each_told_once_on_disk(
        tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    astore = AsyncStore(Store.open(path))
    tables = [f"t{i}" for i in range(1, 51)]
    for table_id in tables:
        await astore.create_table(table_id, table_id, {}, {})
    # the writer is busy (a slow read) while 50 tables hand in a fact each
    busy, release = threading.Event(), threading.Event()

    def slow_read() -> None:
        busy.set()
        release.wait()

    commits = astore.commits
    seen: dict[str, int] = {}

    async def table(table_id: str, seat: int) -> None:
        assert await astore.append(table_id, decision_fact(Commit(seat % 4, 1 + seat))) is None
        seen[table_id] = committed(path, table_id)  # on disk by the time the table hears of it

    async with trio.open_nursery() as nursery:
        nursery.start_soon(astore.read, slow_read)
        await trio.to_thread.run_sync(busy.wait)
        for seat, table_id in enumerate(tables):
            nursery.start_soon(table, table_id, seat)
        await trio.testing.wait_all_tasks_blocked()
        assert seen == {} and astore.backlog == 50  # nobody told before the write
        release.set()
    assert seen == dict.fromkeys(tables, 1)
    assert astore.commits == commits + 1  # one transaction for the 50 tables
    await astore.aclose()


async def test_the_writes_of_one_step_are_handed_in_together_and_waited_for_once(
        tmp_path: Path) -> None:
    """A table's step writes a seat, its facts and a finished game with ``writes()``:
    nothing is on disk before the one wait, everything is after it, in one transaction."""
    path = tmp_path / "nimmt.db"
    astore = AsyncStore(Store.open(path))
    await astore.create_table("t1", "Friday", {}, {})
    commits = astore.commits
    writes = astore.writes()
    seat = writes.set_seat("t1", 0, "ann", "human", token="secret")
    facts = writes.append("t1", [decision_fact(Commit(0, 7)), decision_fact(Commit(1, 9))])
    game, _ = play_game(Options(players=2, rounds=1), seed=3)
    kept = writes.finish_game("t1", "Friday", 1, record_from_game(game, seats=["ann", "bob"]),
                              ["human", "bot"], 1.0, 2.0)
    writes.update_table("t1", status="over")
    assert committed(path, "t1") == 0 and astore.backlog == 4  # handed in, not written
    await writes.written()
    assert astore.commits == commits + 1
    assert seat is not None and seat.done and facts is not None and facts.result == 2
    assert committed(path, "t1") == 3  # the two decisions and the game's game_over
    game_id = astore.game_id(kept)
    await astore.aclose()
    assert game_id is not None
    with Store.open(path, read_only=True) as store:
        assert store.game(game_id).summary.table_name == "Friday"
        (table,) = store.open_tables()
        assert table.status == "over" and [seat.name for seat in table.seats] == ["ann"]


async def test_with_durability_full_writes_handed_in_during_a_transaction_go_in_the_next(
        tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    astore = AsyncStore(Store.open(path, durability="full"))
    tables = [f"t{i}" for i in range(1, 11)]
    for table_id in tables:
        await astore.create_table(table_id, table_id, {}, {})
    writing, release = threading.Event(), threading.Event()

    def slow_write(db: sqlite3.Connection) -> None:  # in the writer's thread, in a transaction
        writing.set()
        release.wait()

    commits = astore.commits
    seen: dict[str, int] = {}

    async def first() -> None:
        await astore.ladder_write(slow_write)
        seen["first"] = astore.commits - commits

    async def table(table_id: str, seat: int) -> None:
        assert await astore.append(table_id, decision_fact(Commit(seat % 4, 1 + seat))) is None
        seen[table_id] = committed(path, table_id)  # on disk by the time the table hears of it

    async with trio.open_nursery() as nursery:
        nursery.start_soon(first)
        await trio.to_thread.run_sync(writing.wait)
        for seat, table_id in enumerate(tables):
            nursery.start_soon(table, table_id, seat)
        await trio.testing.wait_all_tasks_blocked()
        assert seen == {} and astore.backlog == 11  # the first write's transaction is open
        release.set()
    # the ten tables' facts went together, after it (its caller led: it wrote them too)
    assert seen == {"first": 2, **dict.fromkeys(tables, 1)}
    assert astore.commits == commits + 2
    await astore.aclose()


async def test_a_write_waits_one_scheduler_pass_for_the_writes_of_the_tasks_that_are_ready(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The leader of a transaction gives the tasks that are ready one scheduler pass to
    hand in their writes, and no more: a write alone waits one pass, and the writes of
    tables that run in the same scheduler batch go together (``AsyncStore.PASSES``)."""
    astore = AsyncStore(Store.open(tmp_path / "nimmt.db"))
    for table_id in ("t1", "t2"):
        await astore.create_table(table_id, table_id, {}, {})
    passes: list[int] = []  # the writes queued at each of the leader's passes
    real_pass = trio.lowlevel.cancel_shielded_checkpoint

    async def counted_pass() -> None:
        if sys._getframe(1).f_code.co_name == "_lead":
            passes.append(astore.backlog)
        await real_pass()

    monkeypatch.setattr(trio.lowlevel, "cancel_shielded_checkpoint", counted_pass)
    commits = astore.commits
    assert await astore.append("t1", decision_fact(Commit(0, 5))) is None
    assert passes == [1] and astore.commits == commits + 1

    passes.clear()
    async with trio.open_nursery() as nursery:  # two tables' writes in one scheduler batch
        nursery.start_soon(astore.append, "t1", decision_fact(Commit(1, 6)))
        nursery.start_soon(astore.append, "t2", decision_fact(Commit(0, 7)))
    assert passes == [1] and astore.commits == commits + 2  # together, after one pass
    assert [f.payload for f in astore.store.facts("t2")] == [decision_fact(Commit(0, 7)).payload]
    await astore.aclose()


async def test_a_bug_in_one_write_of_a_group_reaches_only_its_caller(tmp_path: Path) -> None:
    game, facts = play_game(Options(players=2, rounds=1), seed=5)
    record = record_from_game(game, ["Ann", "Bob"])
    astore = AsyncStore(Store.open(tmp_path / "nimmt.db"))
    for table_id in ("t1", "t2"):
        await astore.create_table(table_id, table_id, {}, {})
    busy, release = threading.Event(), threading.Event()
    results: dict[str, object] = {}

    async def good(table_id: str) -> None:
        results[table_id] = await astore.append(table_id, *facts[:3])

    async def bad() -> None:
        with pytest.raises(ValueError, match="2 seats need 2 kinds"):
            await astore.finish_game("t1", "t1", 1, record, ("human",), 0.0, 1.0)
        results["bad"] = "raised"

    async with trio.open_nursery() as nursery:
        nursery.start_soon(astore.read, lambda: (busy.set(), release.wait()))
        await trio.to_thread.run_sync(busy.wait)
        nursery.start_soon(good, "t1")
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(bad)
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(good, "t2")
        await trio.testing.wait_all_tasks_blocked()
        release.set()
    assert results == {"t1": None, "t2": None, "bad": "raised"} and astore.failing is None
    await astore.aclose()
    with Store.open(tmp_path / "nimmt.db") as store:
        assert store.facts("t1") == facts[:3] and store.facts("t2") == facts[:3]


# ----------------------------------------------------------------- the write-ahead log


async def test_the_write_ahead_log_stays_small_while_bot_tables_play_at_full_speed(
        tmp_path: Path) -> None:
    """Before: two tables at full speed grew it 12 MB a second, without limit."""
    path = tmp_path / "nimmt.db"
    wal = Path(str(path) + "-wal")
    store = await AsyncStore.open(str(path))
    tables, biggest = 6, 0
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(tables_per_session=tables),
                                          store=store)
        host = await ScriptClient.tcp(port, "Host")
        for _ in range(tables):
            await host.request(P.CreateTable(options=crash_driver.options(rounds=12)))
            for _ in range(3):
                await host.request(P.AddBot(strategy="random"))
            await host.send(P.Start())
            assert isinstance(await host.request(P.Leave()), P.Left)
        with trio.fail_after(120):
            while len(await store.read(store.store.games)) < tables:
                biggest = max(biggest, wal.stat().st_size if wal.exists() else 0)
                await trio.sleep(0.02)
        await server.shutdown()
    await store.aclose()
    assert biggest > 0
    assert biggest <= Store.WAL_LIMIT + 1024 * 1024, f"the log reached {biggest:,} bytes"


async def test_a_server_keeps_its_store_up_in_a_task_of_its_own(tmp_path: Path) -> None:
    """The folds and the writer's checkpoints of a server's store are made beside the
    writes (``AsyncStore.keep_up`` in the server's nursery), not by a table's write."""
    store = await AsyncStore.open(str(tmp_path / "nimmt.db"))
    assert not store.keeping
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(), store=store)
        await trio.testing.wait_all_tasks_blocked()
        assert store.keeping
        await server.shutdown()
    assert not store.keeping
    await store.aclose()


# ----------------------------------------------------------------- a path with # or ?


@pytest.mark.parametrize("mark", ["#", "?"])
def test_databases_whose_names_differ_after_a_hash_or_question_mark_are_two_files(
        tmp_path: Path, mark: str) -> None:
    """Before: a#1.db and a#2.db both wrote a file named "a", each under its own lock."""
    config = tmp_path / "c.toml"
    config.write_text(crash_driver.CONFIG)
    first, second = tmp_path / f"a{mark}1.db", tmp_path / f"a{mark}2.db"
    servers = [crash_driver.start_server(db, config) for db in (first, second)]
    try:
        ids = []
        for _, port in servers:
            driver = crash_driver.Driver(port)
            ids.append(driver.open_game(rounds=1))
            driver.close()
    finally:
        for proc, _ in servers:
            proc.send_signal(signal.SIGKILL)
            proc.communicate()
    assert not (tmp_path / "a").exists()
    for db, table_id in zip((first, second), ids):
        with Store.open(db, read_only=True) as store:  # each its own file, its own table
            assert table_id in [t.id for t in store.open_tables()] + [g.table_id for g in store.games()]
        assert db.stat().st_size > 0


# ----------------------------------------------------------------- who can read the files


def test_the_database_its_log_its_lock_and_its_folder_are_the_users_only(tmp_path: Path) -> None:
    """They hold every hand and every commit made before its reveal."""
    path = tmp_path / "data" / "nimmt" / "nimmt.db"
    _, facts = play_game(Options(players=3, rounds=1), seed=6)
    with Store.open(path) as store:
        store.create_table("t1", "Friday", {}, {})
        store.append("t1", facts)
        files = [path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}.lock")]
        assert all(f.exists() for f in files)
        for f in files:
            assert stat.S_IMODE(f.stat().st_mode) == 0o600, f
        for folder in (path.parent, path.parent.parent):
            assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder


# ----------------------------------------------------------------- a full disk at start

FULL_DISK = """
import errno, os, sys
from nimmt.server.cli import main
def full(fd, data, offset):  # the disk is full: the first byte written fails
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
os.pwrite = full
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("where", ["new.db", "sub/folder/new.db"])
def test_a_full_disk_at_start_names_the_database_and_leaves_nothing_behind(
        tmp_path: Path, where: str) -> None:
    """Before: "cannot listen on 127.0.0.1:PORT: No space left on device", and an empty
    lock file left. The full disk is simulated: every ``os.pwrite`` fails with ENOSPC
    (the lock file's is the first write on a new database)."""
    full = tmp_path / "full"
    full.mkdir()
    db = full / where
    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK, "--host", "127.0.0.1", "--port", "0", "--db", str(db)],
        capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert f"cannot create the database {db}: No space left on device" in done.stderr, done.stderr
    assert "listen" not in done.stderr
    assert list(full.iterdir()) == []  # no lock file, no database, no folder


# ----------------------------------------------------------------- kill -9


def test_a_commit_the_player_was_told_of_is_there_after_a_sigkill(tmp_path: Path) -> None:
    db, config = tmp_path / "nimmt.db", tmp_path / "c.toml"
    config.write_text(crash_driver.CONFIG)
    proc, port = crash_driver.start_server(db, config)
    try:
        driver = crash_driver.Driver(port)
        seated = driver.request(P.CreateTable(options=P.TableOptions(
            seats=2, step_delay=0.0, turn_time=60.0, point_limit=None, rounds=3)))
        assert isinstance(seated, P.Seated)
        driver.request(P.AddBot(strategy="easy"))
        driver.send(P.Start())
        hand: tuple[int, ...] = ()
        while not isinstance(msg := driver.recv(), P.TurnStarted):
            if isinstance(msg, P.HandDealt):
                hand = msg.cards
        driver.send(P.Commit(round=1, turn=1, card=hand[-1]))
        while not isinstance(msg := driver.recv(), P.CommitAccepted):
            pass
        proc.send_signal(signal.SIGKILL)  # the moment the player heard of it
        proc.communicate()
        driver.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    again, _ = crash_driver.start_server(db, config)  # brings the table back
    try:
        with Store.open(db, read_only=True) as store:
            (table,) = store.open_tables()
            decisions = [f.payload for f in table.facts if f.kind == "decision"]
    finally:
        again.terminate()
        again.communicate()
    assert table.id == seated.table.table_id
    assert {"type": "commit", "seat": seated.seat, "card": hand[-1], "by": "player"} in decisions


# ----------------------------------------------------------------- giving up, said


async def test_players_hear_what_was_dropped_and_what_comes_next_is_saved(tmp_path: Path) -> None:
    """Before: past the backlog the queue was thrown away, yet players heard "nothing was
    lost" and nothing was saved from then on."""
    path = tmp_path / "nimmt.db"
    store = AsyncStore(Store.open(path), max_backlog=5)
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(), store=store)
        ann = await ScriptClient.tcp(port, "Ann")
        bob = await ScriptClient.tcp(port, "Bob")
        first = await seat_players(ann, [bob], P.TableOptions(seats=2, step_delay=0, rounds=2,
                                                              point_limit=None))
        await ann.send(P.Start())
        await ann.expect("turn_started")
        store.store._db.execute("PRAGMA query_only = 1")  # the file cannot be written
        results = await play_all([Player(ann), Player(bob, seed=1)])
        assert results[0].totals == results[1].totals  # the game went on in memory
        notices = [m.text for m in bob.of_type("chat_message") if m.name == "server"]
        assert any("DROPPED" in text and f"table {first}" in text for text in notices), notices
        store.store._db.execute("PRAGMA query_only = 0")
        # a new table after the drop is saved, and everyone hears what was lost
        cy = await ScriptClient.tcp(port, "Cy")
        second = await seat_players(cy, [], P.TableOptions(seats=2, step_delay=0))
        lost = await ann.expect(lambda m: isinstance(m, P.ChatMessage) and "LOST" in m.text)
        assert lost.name == "server" and f"table {first}" in lost.text
        await server.shutdown()
    await store.aclose()
    with Store.open(path, read_only=True) as kept:
        assert [t.id for t in kept.open_tables()] == [second]  # not an older position of the first


# ----------------------------------------------------------------- --durability


def test_durability_full_syncs_every_transaction_and_normal_is_the_default(tmp_path: Path) -> None:
    from nimmt.server.cli import config_from_args, parse_args
    from nimmt.server.config import ConfigError

    assert config_from_args(parse_args([])).durability == "normal"
    assert config_from_args(parse_args(["--durability", "full"])).durability == "full"
    (tmp_path / "c.toml").write_text('durability = "sometimes"\n')
    with pytest.raises(ConfigError, match='durability must be "normal" or "full"'):
        config_from_args(parse_args(["--config", str(tmp_path / "c.toml")]))
    for durability, synchronous in (("normal", 1), ("full", 2)):
        with Store.open(tmp_path / f"{durability}.db", durability=durability) as store:
            assert store._db.execute("PRAGMA synchronous").fetchone()[0] == synchronous


async def test_a_table_writes_the_inputs_it_took_in_a_row_together_and_tells_after(
        tmp_path: Path) -> None:
    """Four commits reach a table while the database is busy: the table takes them one
    after the other and waits on the disk once for all four (it used to wait for each
    in turn: four transactions; then for the first, the others held behind it: two);
    nobody hears of a commit before it is on disk."""
    path = tmp_path / "nimmt.db"
    store = await AsyncStore.open(str(path))
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(), store=store)
        clients = [await ScriptClient.tcp(port, name) for name in ("Ann", "Bob", "Cy", "Dan")]
        table_id = await seat_players(clients[0], clients[1:], crash_driver.options(rounds=1))
        await clients[0].send(P.Start())
        turns = [await client.expect("turn_started") for client in clients]
        before = committed(path, table_id)
        busy, release = threading.Event(), threading.Event()
        nursery.start_soon(store.read, lambda: (busy.set(), release.wait()))
        await trio.to_thread.run_sync(busy.wait)
        commits = store.commits
        for client, turn in zip(clients, turns):
            assert isinstance(turn, P.TurnStarted)
            await client.send(P.Commit(round=turn.round, turn=turn.turn,
                                       card=Player(client).hand[0]))
        await trio.testing.wait_all_tasks_blocked()
        assert committed(path, table_id) == before  # the writer is still busy
        release.set()
        for client in clients:
            await client.expect("revealed")
            told = [m for m in client.log if isinstance(m, P.CommitAccepted)]
            assert len(told) == 1
        assert committed(path, table_id) >= before + 4
        assert store.commits - commits == 1  # the first commit's acknowledgement waited
        for client in clients:
            await client.aclose()
        await server.shutdown()
    await store.aclose()
