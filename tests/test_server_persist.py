"""Issue 9, "Nothing lost": the server writes its tables to the database and brings
them back after a restart; finished games are kept; the faults of a real process
(SIGKILL, a second server, a damaged or newer file, a full disk) are survived or
refused clearly."""

from __future__ import annotations

import logging
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import trio

import crash_driver
from nimmt import protocol as P
from nimmt.engine import replay
from nimmt.server import Server, start_server
from nimmt.server.storage import SCHEMA_VERSION, AsyncStore, Store
from server_helpers import (
    Player,
    ScriptClient,
    current_hand,
    make_config,
    play_all,
    seat_players,
    standard_hands,
    fixed_dealer,
)

OPTIONS = P.TableOptions(seats=2, step_delay=0, turn_time=30.0)


async def test_a_restart_brings_back_a_game_in_progress_and_the_players_find_their_seats(
        tmp_path: Path, caplog: pytest.LogCaptureFixture):
    caplog.set_level(logging.INFO, logger="nimmt.server")
    path = tmp_path / "nimmt.db"
    deal = standard_hands(2)
    # --- the first run: Ann and Bob start; Ann commits; Bob thinks... and the server stops
    store = await AsyncStore.open(str(path))
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(), store=store,
                                          dealer=fixed_dealer(deal))
        ann = await ScriptClient.tcp(port, "Ann")
        bob = await ScriptClient.tcp(port, "Bob")
        table_id = await seat_players(ann, [bob], OPTIONS)
        await ann.send(P.Start())
        await ann.expect("turn_started")
        await bob.expect("turn_started")
        accepted = await ann.request(P.Commit(round=1, turn=1, card=deal.hands[0][0]))
        assert isinstance(accepted, P.CommitAccepted)
        await bob.expect("seat_committed")
        await server.shutdown()
    await store.aclose()
    # the token is kept hashed only, and the card committed before the reveal is stored
    raw = path.read_bytes() + Path(str(path) + "-wal").read_bytes() \
        if Path(str(path) + "-wal").exists() else path.read_bytes()
    assert ann.token is not None and ann.token.encode() not in raw
    with Store.open(path, read_only=True) as peek:
        (stored,) = peek.open_tables()
        assert stored.id == table_id and [s.name for s in stored.seats] == ["Ann", "Bob"]
        assert [f.payload for f in stored.facts if f.kind == "decision"] == [
            {"type": "commit", "seat": 0, "card": deal.hands[0][0], "by": "player"}]

    # --- the second run on the same file, later: both come back with their tokens
    store = await AsyncStore.open(str(path))
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(), store=store)
        assert f"table={table_id} restored: playing, 2 player seats waiting" in caplog.text
        ann2 = await ScriptClient.tcp(port, "Ann", token=ann.token)
        assert ann2.welcome is not None and ann2.welcome.resumed
        seated = await ann2.expect("seated")
        assert (seated.seat, seated.table.table_id) == (0, table_id)
        snap = await ann2.expect("snapshot")
        # her own commit is hers to see; the deadline is given back in full
        assert (snap.round, snap.turn, snap.commit) == (1, 1, deal.hands[0][0])
        assert snap.hand == deal.hands[0] and snap.remaining == pytest.approx(30.0, abs=1.0)
        bob2 = await ScriptClient.tcp(port, "Bob", token=bob.token)
        bob_snap = await bob2.expect("snapshot")
        # Bob sees that Ann committed, never which card
        assert bob_snap.committed == (0,) and bob_snap.commit is None
        assert deal.hands[0][0] not in bob_snap.hand
        await bob2.send(P.Commit(round=1, turn=1, card=bob_snap.hand[0]))
        results = await play_all([Player(ann2), Player(bob2, seed=1)])
        assert results[0].totals == results[1].totals
        # a new table gets an id never used before
        other = await ScriptClient.tcp(port, "Cy")
        created = await other.request(P.CreateTable(options=OPTIONS))
        assert isinstance(created, P.Seated) and created.table.table_id != table_id
        await server.shutdown()
    await store.aclose()

    # the finished game is kept: its record replays to the result the players saw
    with Store.open(path, read_only=True) as kept:
        (summary,) = kept.games()
        assert summary.table_id == table_id and [p.name for p in summary.players] == ["Ann", "Bob"]
        assert tuple(p.bullheads for p in summary.players) == results[0].totals
        game = replay(kept.game(summary.id).record).run().game
        assert game is not None and game.totals == results[0].totals

    def replay_cli(*args: str) -> str:  # nimmt-replay --db PATH ...
        done = subprocess.run([sys.executable, "-m", "nimmt.server.records.replay", "--db",
                               str(path), *args], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "Ann" in replay_cli("--list") and "Bob" in replay_cli("--players")
    exported = replay_cli(str(summary.id), "--export", "-")
    assert '"format": "nimmt-record"' in exported.replace('":"', '": "')


async def test_a_restart_brings_back_the_spectators_too(tmp_path: Path,
                                                       caplog: pytest.LogCaptureFixture):
    """Sue (a spectator) and Walt (a person who watches) watch a game; Vic watched and
    left. After a restart Sue and Walt come back with their tokens to the same table
    with a snapshot, as the players do; Vic's token is unknown."""
    caplog.set_level(logging.INFO, logger="nimmt.server")
    path = tmp_path / "nimmt.db"
    store = await AsyncStore.open(str(path))
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(), store=store)
        ann = await ScriptClient.tcp(port, "Ann")
        bob = await ScriptClient.tcp(port, "Bob")
        table_id = await seat_players(ann, [bob], OPTIONS)
        watchers = {}
        for name, kind in (("Sue", "spectator"), ("Walt", "human"), ("Vic", "spectator")):
            watcher = await ScriptClient.tcp(port, name, kind)
            assert isinstance(await watcher.request(P.Watch(table_id=table_id)), P.Watching)
            watchers[name] = watcher
        assert isinstance(await watchers["Vic"].request(P.Leave()), P.Left)
        await ann.send(P.Start())
        await watchers["Sue"].expect("turn_started")
        await server.shutdown()
    await store.aclose()
    with Store.open(path, read_only=True) as peek:
        (stored,) = peek.open_tables()
        assert [(w.name, w.kind) for w in stored.spectators] == [("Sue", "spectator"),
                                                                 ("Walt", "human")]

    store = await AsyncStore.open(str(path))
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(), store=store)
        assert (f"table={table_id} restored: playing, 2 player seats waiting, 2 spectators"
                in caplog.text)
        for name, kind in (("Sue", "spectator"), ("Walt", "human")):
            back = await ScriptClient.tcp(port, name, kind, token=watchers[name].token)
            assert back.welcome is not None and back.welcome.resumed
            watching = await back.expect("watching")
            assert watching.table.table_id == table_id
            snap = await back.expect("snapshot")
            assert (snap.seat, snap.phase, snap.round, snap.turn) == (None, "commit", 1, 1)
            assert snap.hand == ()
        vic = await ScriptClient.tcp(port, "Vic", "spectator", token=watchers["Vic"].token)
        assert [e.code for e in vic.of_type("error")] == ["bad_token"]
        ann2 = await ScriptClient.tcp(port, "Ann", token=ann.token)
        assert (await ann2.expect("seated")).seat == 0  # the players are back as before
        await server.shutdown()
    await store.aclose()


async def test_a_spectator_who_does_not_come_back_after_a_restart_is_forgotten(
        tmp_path: Path, caplog: pytest.LogCaptureFixture):
    caplog.set_level(logging.INFO, logger="nimmt.server")
    path = tmp_path / "nimmt.db"
    store = await AsyncStore.open(str(path))
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(), store=store)
        ann = await ScriptClient.tcp(port, "Ann")
        table_id = (await ann.request(P.CreateTable(options=OPTIONS))).table.table_id
        sue = await ScriptClient.tcp(port, "Sue", "spectator")
        assert isinstance(await sue.request(P.Watch(table_id=table_id)), P.Watching)
        await server.shutdown()
    await store.aclose()
    # the next run keeps a spectator away no time at all: Sue is removed at once
    store = await AsyncStore.open(str(path))
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(reconnect_grace=0.0),
                                          store=store)
        with trio.fail_after(10):
            while "Sue (session" not in caplog.text or "stops watching" not in caplog.text:
                await trio.sleep(0.01)
        await server.shutdown()
    await store.aclose()
    with Store.open(path, read_only=True) as peek:
        (stored,) = peek.open_tables()
        assert stored.id == table_id and stored.spectators == ()


async def test_a_full_disk_is_told_to_the_players_and_the_game_plays_on(
        tmp_path: Path, caplog: pytest.LogCaptureFixture):
    store = await AsyncStore.open(str(tmp_path / "nimmt.db"))
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(), store=store)
        ann = await ScriptClient.tcp(port, "Ann")
        bob = await ScriptClient.tcp(port, "Bob")
        await seat_players(ann, [bob], P.TableOptions(seats=2, step_delay=0, rounds=4,
                                                      point_limit=None))
        await ann.send(P.Start())
        await ann.expect("turn_started")
        await ann.send(P.Commit(round=1, turn=1, card=current_hand(ann)[0]))
        # the disk is full from now on (SQLite's own SQLITE_FULL, at the current size)
        db = store.store._db
        db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")
        results = await play_all([Player(ann), Player(bob, seed=1)])
        assert results[0].totals == results[1].totals  # the game went on in memory
        for client in (ann, bob):
            notices = [m.text for m in client.of_type("chat_message") if m.name == "server"]
            assert notices and "cannot be written (disk_full)" in notices[0], notices
        assert "storage failing" in caplog.text
        # room again: what waited is written, in order, and the players hear of it
        db.execute("PRAGMA max_page_count = 1073741823")
        assert await store.retry() is None
        notice = await ann.expect(lambda m: isinstance(m, P.ChatMessage) and "again" in m.text)
        assert notice.name == "server"
        assert len(await store.read(store.store.games)) == 1
        await server.shutdown()
    await store.aclose()


def test_a_server_killed_at_random_moments_loses_no_game(tmp_path: Path):
    """A few kills within seconds (benchmarks/crash.py kills tens of times)."""
    db = tmp_path / "nimmt.db"
    run = crash_driver.run(db, kills=3, tables=4, max_delay=0.3, rounds=10, seed=9)
    assert sum(run.cut) > 0, "no kill landed in the middle of a game"
    assert crash_driver.check(db, run.started) == len(run.started) == 12


def _server(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nimmt.server", "--host", "127.0.0.1",
                           "--port", "0", *args], capture_output=True, text=True, timeout=60)


def test_a_second_server_on_the_same_file_refuses_to_start(tmp_path: Path):
    db = tmp_path / "nimmt.db"
    config = tmp_path / "c.toml"
    config.write_text("")
    first, _ = crash_driver.start_server(db, config)
    try:
        second = _server("--db", str(db))
        assert second.returncode == 1 and "listening" not in second.stdout
        assert (f"nimmt-server: {db} is in use by another nimmt-server (process {first.pid})"
                in second.stderr)
        assert first.poll() is None  # the first one goes on
    finally:
        first.kill()
        first.wait()


@pytest.mark.parametrize("damage", ["not a database", "newer"])
def test_a_damaged_or_newer_file_is_refused_and_left_untouched(tmp_path: Path, damage: str):
    db = tmp_path / "nimmt.db"
    if damage == "newer":
        Store.open(db).close()
        with sqlite3.connect(db) as plain:
            plain.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        plain.close()
    else:
        db.write_bytes(b"my notes about last Friday\n" * 100)
    before = db.read_bytes()
    refused = _server("--db", str(db))
    assert refused.returncode == 1 and "listening" not in refused.stdout
    assert refused.stderr.startswith(f"nimmt-server: {db}") and "left as it is" in refused.stderr
    assert db.read_bytes() == before


async def test_in_process_servers_keep_nothing_unless_given_a_store():
    async with trio.open_nursery() as nursery:
        server = Server(make_config())
        await nursery.start(server.serve)
        assert server.lobby.store is None
        ann = await ScriptClient.memory(server, nursery, "Ann")
        seated = await ann.request(P.CreateTable(options=OPTIONS))
        assert isinstance(seated, P.Seated) and not seated.table.table_id.startswith("t1")
        assert current_hand(ann) == []
        await server.shutdown()


def test_a_read_only_database_is_said_loudly_and_the_games_run(tmp_path: Path):
    from test_storage_faults import make_read_only

    db = tmp_path / "nimmt.db"
    Store.open(db).close()
    undo = make_read_only(db)
    try:
        proc = subprocess.Popen([sys.executable, "-m", "nimmt.server", "--host", "127.0.0.1",
                                 "--port", "0", "--db", str(db)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert proc.stdout is not None
            port = int(crash_driver.ADDRESS.search(proc.stdout.readline()).group(1))
            driver = crash_driver.Driver(port)
            quick = P.TableOptions(seats=2, step_delay=0, rounds=1, point_limit=None,
                                   turn_time=0.1, choice_time=0.1)
            seated = driver.request(P.CreateTable(options=quick))
            assert isinstance(seated, P.Seated)
            notice = driver.recv()
            while not isinstance(notice, P.ChatMessage):
                notice = driver.recv()
            assert notice.name == "server" and "cannot be written (read_only)" in notice.text
            driver.request(P.AddBot(strategy="easy"))
            driver.send(P.Start())
            while not isinstance(driver.recv(), P.GameOver):  # the deadlines play for us
                pass
            driver.close()
        finally:
            proc.terminate()
            _, err = proc.communicate(timeout=10)
        assert f"ERROR storage failing: {db} is read-only" in err, err
    finally:
        undo()


def test_a_bot_client_finds_its_seat_again_after_a_killed_server_restarts(tmp_path: Path):
    """The client library reconnects by itself with its token: the restarted server
    knows the token (by its hash) and gives the seat back, mid-game."""
    import asyncio

    from nimmt.bots.runner import play_bot
    from test_bots_network import _start_server

    db = str(tmp_path / "nimmt.db")
    servers = [_start_server(0, "--db", db)]
    port = servers[0][1]

    def decide(view):  # the first decision: the server is killed and started again
        if len(servers) == 1:
            servers[0][0].kill()
            servers[0][0].wait()
            servers.append(_start_server(port, "--db", db))
        return view.legal[0]

    options = P.TableOptions(seats=4, rounds=1, point_limit=None, step_delay=0.0)
    try:
        result = asyncio.run(asyncio.wait_for(
            play_bot("127.0.0.1", port, decide, name="Phoenix", create=options, add_bots=3),
            timeout=60))
    finally:
        for server, _ in servers:
            server.kill()
            server.wait()
    assert len(servers) == 2
    assert result.games == 1 and result.rejoins == 0 and result.stopped is None
    assert not any(e.startswith("bad_token") for e in result.errors), result.errors
    with Store.open(db, read_only=True) as kept:
        (game,) = kept.games()
        assert "Phoenix" in [p.name for p in game.players]
