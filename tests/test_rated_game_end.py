"""Issue 41: a rated game's end is one write. The finished game and its ratings go
to the database in one transaction, so a server killed (SIGKILL) or shut down
(SIGTERM) right after that write keeps the game rated, once; the ``table_updated``
that follows ``game_over`` already shows the new ratings; and a game an older
version kept without its ratings is rated when the server starts, exactly once.

The expected ratings are computed here from openskill itself, from the places the
game ended in: Ann (seat 0) and an easy bot (seat 1), both unrated before."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import trio
from openskill.models import PlackettLuce

from nimmt import protocol as P
from nimmt.server.app import Server
from nimmt.server.storage import AsyncStore, Store
from nimmt.server.storage.ladder import ladder_rows
from crash_driver import ADDRESS, Driver
from server_helpers import Player, ScriptClient, make_config, play_all

KEY = "annkey-" + "a" * 30
RATED = P.TableOptions(seats=2, rounds=1, step_delay=0, rated=True)
CHILD = str(Path(__file__).with_name("rated_crash_child.py"))
_MODEL = PlackettLuce()


def expected(places: tuple[int, ...]) -> dict[str, tuple[float, float, float]]:
    """Each rated name's (mu, sigma, rating shown) after the game."""
    new = _MODEL.rate([[_MODEL.rating()], [_MODEL.rating()]], ranks=[float(p) for p in places])
    return {name: (r.mu, r.sigma, round(r.ordinal(), 2))
            for name, [r] in zip(("Ann", "bot:easy"), new)}


def stored(db: Path) -> tuple[list[int], list[tuple[int, str]], dict[str, tuple[float, float, int]],
                              tuple[int, ...]]:
    """The kept games' ids, the rating history's (game, name) rows, each rated name's
    (mu, sigma, games), and the places of the first game kept (by seat)."""
    with Store.open(db, read_only=True) as store:
        games = store.games()
        history = store.ladder_read(lambda db: db.execute(
            "SELECT game_id, name FROM rating_history ORDER BY game_id, name").fetchall())
        rows = {r.name: (r.mu, r.sigma, r.games) for r in store.ladder_read(ladder_rows)}
    places = tuple(p.place for p in games[0].players) if games else ()
    return [g.id for g in games], [tuple(h) for h in history], rows, places


def assert_rated_once(db: Path, game_id: int, board: list[P.LeaderboardRow]) -> None:
    """The database keeps game ``game_id`` once and its ratings once, with the values
    openskill gives for its places; ``board``, a server's leaderboard, shows them."""
    ids, history, rows, places = stored(db)
    assert ids == [game_id]
    assert history == [(game_id, "Ann"), (game_id, "bot:easy")]
    want = expected(places)
    assert sorted(rows) == ["Ann", "bot:easy"]
    for name, (mu, sigma, games) in rows.items():
        assert (mu, sigma, games) == pytest.approx((want[name][0], want[name][1], 1), abs=1e-9)
    assert sorted((r.name, r.rating, r.games) for r in board) == [
        ("Ann", want["Ann"][2], 1), ("bot:easy", want["bot:easy"][2], 1)]


class Ann(Driver):
    """A blocking client with the claimed name Ann."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.conn = P.Connection(P.CLIENT)
        self.ids = 0
        welcome = self.request(P.Hello(protocol=P.PROTOCOL_VERSION, name="Ann", kind="human",
                                       key=KEY))
        assert isinstance(welcome, P.Welcome) and welcome.claimed, welcome

    def rated_game(self) -> None:
        """Start a one-round rated game against an easy bot and leave it: the autopilot
        plays Ann's seat at once (her name stays with the seat until the game is over)."""
        options = P.TableOptions(seats=2, rounds=1, step_delay=0.0, rated=True,
                                 autoplay_when_away="immediately")
        assert isinstance(self.request(P.CreateTable(options=options)), P.Seated)
        assert isinstance(self.request(P.AddBot(strategy="easy")), P.TableUpdated)
        self.send(P.Start())
        assert isinstance(self.request(P.Leave()), P.Left)


def start(db: Path, *first: str) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [sys.executable, *first, "--host", "127.0.0.1", "--port", "0", "--log-level", "error",
         "--db", str(db), "--step-delay", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    found = ADDRESS.search(line)
    if not found:
        proc.kill()
        raise AssertionError(f"the server did not start: {line!r} {proc.communicate()[1]}")
    return proc, int(found.group(1))


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGTERM], ids=["kill", "terminate"])
def test_a_server_stopped_right_after_a_rated_game_was_written_keeps_it_rated_once(
        stop: signal.Signals, tmp_path: Path) -> None:
    db = tmp_path / "nimmt.db"
    proc, port = start(db, CHILD)
    try:
        ann = Ann(port)
        ann.rated_game()
        assert proc.stdout is not None
        kept = proc.stdout.readline()  # the game's write is on disk; the table waits there
        assert kept.startswith("kept "), (kept, proc.stderr.read() if proc.stderr else "")
        game_id = int(kept.split()[1])
        os.kill(proc.pid, stop)
        assert proc.wait(timeout=10) == (0 if stop == signal.SIGTERM else -signal.SIGKILL)
        ann.close()
    finally:
        proc.kill()
        proc.communicate()

    proc, port = start(db, "-m", "nimmt.server")  # the server as it is, restarted
    try:
        reader = Driver(port)
        page = reader.request(P.Leaderboard())
        assert isinstance(page, P.LeaderboardPage), page
        reader.close()
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    assert "Traceback" not in err, err
    assert_rated_once(db, game_id, list(page.rows))


async def _serve(path: str) -> tuple[AsyncStore, Server]:
    store = await AsyncStore.open(path)
    return store, Server(make_config(), store=store)


async def test_the_table_updated_right_after_game_over_carries_the_new_ratings(
        tmp_path: Path) -> None:
    store, server = await _serve(str(tmp_path / "nimmt.db"))
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        ann = await ScriptClient.memory(server, nursery, "Ann", hello=False)
        assert (await ann.hello(key=KEY)).claimed
        created = await ann.request(P.CreateTable(options=RATED))
        assert isinstance(created, P.Seated)
        assert created.table.seats[0].rating is None  # (unrated before)
        await ann.request(P.AddBot(strategy="easy"))
        await ann.send(P.Start())
        (over,) = await play_all([Player(ann, 3)])
        after = await ann.recv()  # the very next message
        assert isinstance(after, P.TableUpdated), after
        want = expected(over.places)
        assert [(s.rating, s.games) for s in after.table.seats if s is not None] == [
            (want["Ann"][2], 1), (want["bot:easy"][2], 1)]
        assert after.table.status == "over"
        nursery.cancel_scope.cancel()
    await store.aclose()


async def test_a_rated_game_kept_without_its_ratings_is_rated_once_when_restored(
        tmp_path: Path) -> None:
    path = str(tmp_path / "nimmt.db")
    store, server = await _serve(path)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        ann = await ScriptClient.memory(server, nursery, "Ann", hello=False)
        assert (await ann.hello(key=KEY)).claimed
        created = await ann.request(P.CreateTable(options=RATED))
        assert isinstance(created, P.Seated)
        await ann.request(P.AddBot(strategy="easy"))
        await ann.send(P.Start())
        await play_all([Player(ann, 3)])
        nursery.cancel_scope.cancel()  # the server stops; the table, over, stays open
    await store.aclose()
    (game_id,), history, _, _ = stored(Path(path))
    assert len(history) == 2
    # what an older version left when killed between the game's write and its ratings'
    db = sqlite3.connect(path)
    with db:
        db.execute("DELETE FROM ratings")
        db.execute("DELETE FROM rating_history")
    db.close()

    for _ in range(2):  # restored twice: rated the first time only
        store, server = await _serve(path)
        async with trio.open_nursery() as nursery:
            await nursery.start(server.serve)
            bob = await ScriptClient.memory(server, nursery, "Bob")
            page = await bob.request(P.Leaderboard())
            assert isinstance(page, P.LeaderboardPage)
            listed = await bob.request(P.ListTables())
            assert isinstance(listed, P.TableList)
            (table,) = listed.tables
            assert table.table_id == created.table.table_id and table.status == "over"
            seats = {s.name: (s.rating, s.games) for s in table.seats if s is not None}
            nursery.cancel_scope.cancel()
        await store.aclose()
        assert_rated_once(Path(path), game_id, list(page.rows))
        assert seats["Ann"] == ({r.name: r.rating for r in page.rows}["Ann"], 1)
