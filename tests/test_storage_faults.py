"""Faults of the database: a second server, a damaged or foreign or newer file, a
read-only file, a full disk, and the server killed at any moment."""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from nimmt.engine import Options, Replay
from nimmt.server.storage import (
    SCHEMA_VERSION,
    AsyncStore,
    DatabaseCorrupt,
    DatabaseLocked,
    DatabaseTooNew,
    NotANimmtDatabase,
    StorageError,
    StorageWriteError,
    Store,
    rebuild_game,
)

from storage_helpers import play_game

TESTS = Path(__file__).parent
CHILD_ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}


def python(code: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", code, *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=CHILD_ENV)


HOLD = """
import sys
from nimmt.server.storage import Store, StorageError
try:
    store = Store.open(sys.argv[1])
except StorageError as e:
    print(e, file=sys.stderr)
    sys.exit(3)
print("open", flush=True)
sys.stdin.read()
"""


def filled_database(path: Path) -> None:
    _, facts = play_game(Options(players=3, rounds=1), seed=1)
    with Store.open(path) as store:
        store.create_table("t1", "Friday", {}, {})
        store.append("t1", facts)


# ----------------------------------------------------------------- two servers


def test_a_second_server_on_the_same_file_refuses_with_a_clear_message(tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    with Store.open(path):
        second = python(HOLD, str(path))
        out, err = second.communicate(timeout=30)
        assert second.returncode == 3 and out == ""
        assert f"{path} is in use by another nimmt-server (process {os.getpid()})" in err
        assert "--db PATH" in err


def test_the_file_is_free_again_once_the_server_is_killed(tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    first = python(HOLD, str(path))
    try:
        assert first.stdout is not None and first.stdout.readline() == "open\n"
        with pytest.raises(DatabaseLocked, match=rf"process {first.pid}\)"):
            Store.open(path)
    finally:
        first.send_signal(signal.SIGKILL)  # no clean stop: the kernel drops the lock
        first.communicate(timeout=30)
    with Store.open(path) as store:
        assert store.next_table_id() == "t1"


# ----------------------------------------------------------------- files refused, untouched


def assert_refused_untouched(path: Path, error: type[StorageError], words: str) -> None:
    before = path.read_bytes()
    names = sorted(p.name for p in path.parent.iterdir())
    with pytest.raises(error) as info:
        Store.open(path)
    assert str(path) in str(info.value) and words in str(info.value)
    assert "left as it is" in str(info.value)
    assert info.value.path == path
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == names  # no lock file made is left
    Store.open(path.parent / "fresh.db").close()  # and the lock was released: nothing is held


def test_a_file_that_is_not_a_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    path.write_bytes(b"my notes about last Friday\n" * 100)
    assert_refused_untouched(path, DatabaseCorrupt, "damaged or not a database")


@pytest.mark.parametrize("damage", ["page 2", "page 3", "truncated"])
def test_a_damaged_database_is_refused_untouched(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "nimmt.db"
    filled_database(path)
    data = bytearray(path.read_bytes())
    if damage == "truncated":
        del data[len(data) // 2:]
    else:
        page = int(damage.split()[1])
        data[4096 * (page - 1):4096 * (page - 1) + 200] = random.Random(page).randbytes(200)
    path.write_bytes(bytes(data))
    assert_refused_untouched(path, DatabaseCorrupt, "damaged or not a database")


def test_a_database_from_a_newer_nimmt_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    filled_database(path)
    with sqlite3.connect(path) as plain:
        plain.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    plain.close()
    assert_refused_untouched(path, DatabaseTooNew, f"database version {SCHEMA_VERSION + 1}")


def test_another_programs_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    with sqlite3.connect(path) as plain:
        plain.execute("CREATE TABLE recipes (name TEXT)")
    plain.close()
    assert_refused_untouched(path, NotANimmtDatabase, "another program's SQLite database")


# ----------------------------------------------------------------- read-only file, full disk


def test_a_read_only_file_is_read_and_every_write_says_read_only(tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    filled_database(path)
    before = path.read_bytes()
    undo = make_read_only(path)
    try:
        with Store.open(path) as store:
            (table,) = store.open_tables()  # the tables still come back
            assert rebuild_game(table.facts).game is not None
            with pytest.raises(StorageWriteError) as info:
                store.create_table("t2", "x", {}, {})
            assert info.value.reason == "read_only" and f"{path} is read-only" in str(info.value)
    finally:
        undo()
    assert path.read_bytes() == before


def make_read_only(path: Path):  # type: ignore[no-untyped-def]
    """Really read-only: chmod for a user, the immutable attribute for root."""
    if os.geteuid() != 0:
        path.chmod(0o444)
        return lambda: path.chmod(0o644)
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(path)], capture_output=True).returncode:
        pytest.fail("running as root without chattr +i: cannot make a file read-only here")
    return lambda: subprocess.run([chattr, "-i", str(path)], check=True)


def fill_the_disk(store: Store) -> None:
    """SQLite's own full-disk error (SQLITE_FULL), from a page limit at the current size."""
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")


def free_the_disk(store: Store) -> None:
    store._db.execute("PRAGMA max_page_count = 1073741823")


def test_a_full_disk_is_a_typed_error_and_nothing_is_half_written(tmp_path: Path) -> None:
    _, facts = play_game(Options(players=4, rounds=3), seed=2)
    with Store.open(tmp_path / "nimmt.db") as store:
        store.create_table("t1", "Friday", {}, {})
        store.append("t1", facts[:1])
        fill_the_disk(store)
        with pytest.raises(StorageWriteError) as info:
            store.append("t1", facts[1:])
        assert info.value.reason == "disk_full" and "is full" in str(info.value)
        free_the_disk(store)
        assert store.facts("t1") == facts[:1]  # all or nothing
        assert [f.seq for f in store.append("t1", facts[1:3])] == [2, 3]


async def test_games_go_on_while_storage_fails_and_everything_is_saved_once_it_works(
    tmp_path: Path,
) -> None:
    path = tmp_path / "nimmt.db"
    _, facts = play_game(Options(players=4, rounds=3), seed=3)
    health: list[str | None] = []
    astore = await AsyncStore.open(str(path),
                                   on_health=lambda e: health.append(None if e is None else e.reason))
    assert astore.failing is None and await astore.open_tables() == []
    table_id = astore.new_table_id()
    assert await astore.create_table(table_id, "Friday", {}, {}) is None
    assert await astore.append(table_id, *facts[:10]) is None
    fill_the_disk(astore.store)
    problem = await astore.append(table_id, *facts[10:])  # one big write: the disk is full
    assert problem is not None and problem.reason == "disk_full"
    for fact in facts[:5]:  # the table goes on; its facts wait, in order
        later = await astore.append(table_id, fact)
        assert later is not None and later.reason == "disk_full"
    assert astore.backlog == 6 and health == ["disk_full"]  # said once, loudly
    second = astore.new_table_id()
    assert second == "t2"
    free_the_disk(astore.store)
    assert await astore.retry() is None
    assert health == ["disk_full", None] and astore.backlog == 0
    await astore.aclose()
    with Store.open(path) as store:
        assert store.facts(table_id) == facts + facts[:5]
        assert [f.seq for f in store.facts(table_id)] == list(range(1, len(facts) + 6))
        assert store.next_table_id() == "t3"


async def test_a_store_that_keeps_failing_drops_its_queue_says_what_and_saves_what_comes_next(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "nimmt.db"
    _, facts = play_game(Options(players=2, rounds=1), seed=4)
    reasons: list[str | None] = []
    astore = AsyncStore(Store.open(path), max_backlog=3,
                        on_health=lambda e: reasons.append(e and str(e)))
    await astore.create_table("t1", "Friday", {}, {})
    assert await astore.append("t1", facts[0]) is None
    astore.store._db.execute("PRAGMA query_only = 1")  # SQLite's read-only error, mid-run
    for fact in facts[1:5]:
        problem = await astore.append("t1", fact)
        assert problem is not None and problem.reason == "read_only"
    assert astore.given_up and astore.dropped is not None
    assert (astore.dropped.writes, astore.dropped.tables) == (4, {"t1"})
    assert reasons[0] is not None and "is read-only" in reasons[0]
    assert reasons[-1] is not None and "gave up on 4 unsaved changes (table t1)" in reasons[-1]
    assert "DROPPED 4 unsaved changes (table t1)" in caplog.text  # loudly, in the log too
    astore.store._db.execute("PRAGMA query_only = 0")
    # what comes next is saved again: a new table and its facts
    assert await astore.create_table("t2", "Saturday", {}, {}) is None
    assert await astore.append("t2", *facts[:3]) is None
    assert reasons[-1] is None and not astore.given_up
    assert "storage works again" in caplog.text and "LOST 4 unsaved changes" in caplog.text
    assert "everything queued is saved" not in caplog.text  # it was not
    # the table whose writes were dropped is not written again (it could not be rebuilt)
    assert await astore.append("t1", facts[5]) is None
    await astore.aclose()
    with Store.open(path) as store:
        assert [t.id for t in store.open_tables()] == ["t2"]  # no older position of t1 comes back
        assert store.facts("t2") == facts[:3] and store.facts("t1") == []


async def test_reads_run_off_the_event_loop(tmp_path: Path) -> None:
    astore = AsyncStore(Store.open(tmp_path / "nimmt.db"))

    def in_trio_thread() -> bool:
        try:
            trio.lowlevel.current_trio_token()
        except RuntimeError:
            return False
        return True

    assert in_trio_thread()
    assert await astore.read(in_trio_thread) is False
    await astore.aclose()


# ----------------------------------------------------------------- killed at any moment


def test_a_process_killed_at_random_moments_loses_no_game(tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    rng = random.Random(9)
    games = 5
    kills = 0
    child = [sys.executable, str(TESTS / "storage_crash_child.py"), str(path), str(games)]
    while True:
        proc = subprocess.Popen(child, stdout=subprocess.PIPE, text=True, env=CHILD_ENV)
        assert proc.stdout is not None
        target = rng.randrange(1, 40) if kills < 3 else None
        lines = 0
        for _ in proc.stdout:
            lines += 1
            if lines == target:
                proc.send_signal(signal.SIGKILL)
                kills += 1
                break
        proc.communicate(timeout=60)
        with Store.open(path) as store:  # after every kill: consistent
            for table in store.open_tables():
                rebuild_game(table.facts)  # raises FactError if a fact did not follow
            for summary in store.games():
                kept = store.game(summary.id)
                result = Replay(kept.record).run().game.result  # type: ignore[union-attr]
                assert result is not None
                assert [p.bullheads for p in summary.players] == list(result.totals)
        if proc.returncode == 0:
            break
        assert proc.returncode == -signal.SIGKILL
    assert kills == 3
    with Store.open(path) as store:
        assert len(store.games()) == games and store.open_tables() == []
        assert len({g.table_id for g in store.games()}) == games  # no table id twice
