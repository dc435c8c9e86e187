"""Issue 27 item 4, the server's side: the ``leaderboard`` request (protocol 2) is
answered from memory with the ranks, ratings, games, trends and bot marks of the
rated names; the seats of the lobby's tables and of the table itself carry the
ratings of claimed players and built-in bots, refreshed once a rated game ends; a
version 1 connection neither sends nor hears any of it; and the leaderboard read
from the database (``nimmt-replay --ladder``) is the one the lobby shows, also
after a restart, read in two queries however many names there are."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import msgpack
import pytest
import trio

from nimmt import protocol as P
from nimmt.protocol import CLIENT, SERVER, Connection, LocalProtocolError, RemoteProtocolError
from nimmt.protocol.examples import LIMITS
from nimmt.server.ladder.claims import new_key
from nimmt.server.ladder.desk import TREND_GAMES, LadderDesk, rank_board
from nimmt.server.records.leaderboard import leaderboard
from nimmt.server.ladder.ratings import Ladder
from nimmt.server.storage import AsyncStore, Store
from nimmt.server.storage.ladder import RatingChange, ladder_rows, save_ratings
from nimmt.server import start_server
from nimmt.server.app import Server
from server_helpers import Player, ScriptClient, make_config, play_all, seat_players, serve_memory

KEY = "annkey-" + "a" * 30
RATED = P.TableOptions(seats=2, rounds=1, step_delay=0, rated=True)


async def _claimed(server, nursery, name: str, key: str = KEY) -> ScriptClient:
    client = await ScriptClient.memory(server, nursery, name, hello=False)
    welcome = await client.hello(key=key)
    assert welcome.claimed
    return client


async def test_a_rated_game_shows_on_the_leaderboard_at_its_seats_and_in_the_lobby(
        autojump_clock) -> None:
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config())
        ann = await _claimed(server, nursery, "Ann")
        bob = await ScriptClient.memory(server, nursery, "Bob")  # in the lobby, unclaimed
        empty = await bob.request(P.Leaderboard())
        assert isinstance(empty, P.LeaderboardPage)
        assert (empty.rows, empty.total, empty.trend_games) == ((), 0, TREND_GAMES)

        created = await ann.request(P.CreateTable(options=RATED))
        assert isinstance(created, P.Seated)
        table_id = created.table.table_id
        assert created.table.seats[0].claimed and created.table.seats[0].rating is None
        await ann.request(P.AddBot(strategy="easy"))
        await ann.send(P.Start())
        (over,) = await play_all([Player(ann, 3)])
        ladder = Ladder()
        ladder.rate(["Ann", "bot:easy"], over.places)
        want = {name: (round(ladder.get(name).ordinal, 2), 1) for name in ("Ann", "bot:easy")}

        # at the table: the game's end is followed by the seats with their new ratings
        updated = await ann.expect(lambda m: isinstance(m, P.TableUpdated)
                                   and m.table.seats[0].rating is not None)
        seats = updated.table.seats
        assert (seats[0].rating, seats[0].games) == want["Ann"]
        assert (seats[1].rating, seats[1].games) == want["bot:easy"]
        # in the lobby
        listed = await bob.request(P.ListTables())
        (table,) = [t for t in listed.tables if t.table_id == table_id]
        assert [(s.rating, s.games) for s in table.seats] == [want["Ann"], want["bot:easy"]]

        page = await bob.request(P.Leaderboard())
        assert isinstance(page, P.LeaderboardPage) and page.total == 2 and page.offset == 0
        best_first = sorted(want, key=lambda n: -ladder.get(n).ordinal)
        assert [r.name for r in page.rows] == best_first
        for rank, row in enumerate(page.rows, 1):
            assert (row.rank, row.rating, row.games) == (rank, *want[row.name])
            assert row.trend == row.rating  # one game: the change since the start (0)
            assert row.bot is (row.name == "bot:easy")

        # a name is found in any case: the page holding it, and its rank
        found = await bob.request(P.Leaderboard(limit=1, name="ann"))
        rank = best_first.index("Ann") + 1
        assert (found.found, found.offset, [r.name for r in found.rows]) == (
            rank, rank - 1, ["Ann"])
        missing = await bob.request(P.Leaderboard(name="Nobody", offset=1))
        assert (missing.found, missing.offset, len(missing.rows)) == (None, 1, 1)
        past_the_end = await bob.request(P.Leaderboard(offset=50))
        assert (past_the_end.rows, past_the_end.total) == ((), 2)
        # a casual table shows no rating for an unclaimed player
        casual = await bob.request(P.CreateTable(options=P.TableOptions(seats=2)))
        assert casual.table.seats[0].rating is None and casual.table.seats[0].games == 0
        nursery.cancel_scope.cancel()


async def test_a_bad_leaderboard_request_is_refused_and_the_connection_goes_on() -> None:
    """Against a real server on 127.0.0.1: out-of-range fields get an error naming the
    field, a version 1 client's leaderboard gets unknown_type; both clients go on."""
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        bob = await ScriptClient.tcp(port, "Bob")
        for bad, field in (({"limit": 0}, "limit"), ({"limit": 101}, "limit"),
                           ({"offset": -1}, "offset"), ({"name": ""}, "name")):
            frame = msgpack.packb({"type": "leaderboard", "id": 9, **bad})
            await bob.send_raw(len(frame).to_bytes(4, "big") + frame)
            error = await bob.expect(lambda m: m.re == 9)
            assert isinstance(error, P.Error) and error.field == field, (bad, error)
        assert isinstance(await bob.request(P.Leaderboard(limit=100)), P.LeaderboardPage)
        old = await ScriptClient.tcp(port, "Old", protocol=1)
        refused = await old.request(P.Leaderboard(), unchecked=True)
        assert isinstance(refused, P.Error) and refused.code == "unknown_type", refused
        assert isinstance(await old.request(P.ListTables()), P.TableList)
        await server.shutdown()


def _handshake(version: int) -> tuple[Connection, Connection]:
    client, server = Connection(CLIENT), Connection(SERVER)
    server.receive_data(client.send(P.Hello(protocol=version, name="Ann", kind="human")))
    server.next_message()
    client.receive_data(server.send(P.Welcome(protocol=version, server="s", name="Ann",
                                              token="t" * 32, resumed=False, limits=LIMITS)))
    assert isinstance(client.next_message(), P.Welcome)
    return client, server


def test_version_1_has_no_leaderboard_and_no_ratings_at_the_seats() -> None:
    client, server = _handshake(1)
    with pytest.raises(LocalProtocolError, match="protocol 1"):
        client.send(P.Leaderboard())
    server.receive_data(P.encode_frame(P.Leaderboard(id=4)))
    with pytest.raises(RemoteProtocolError) as refused:
        server.next_message()
    assert (refused.value.code, refused.value.re, refused.value.fatal) == (
        "unknown_type", 4, False)
    with pytest.raises(LocalProtocolError, match="protocol 1"):
        server.send(P.LeaderboardPage(rows=(), offset=0, total=0, trend_games=5))
    rated_seat = P.SeatInfo(name="Ann", kind="human", connected=True, total=0, penalties=0,
                            claimed=True, rating=3.5, games=4)
    table = P.TableInfo(table_id="t1", name="", options=P.TableOptions(seats=2),
                        seats=(rated_seat, None), host=0, status="waiting", spectators=0)
    wire = msgpack.unpackb(server.send(P.TableUpdated(table=table))[4:])
    assert set(wire["table"]["seats"][0]) == {"name", "kind", "connected", "total",
                                              "penalties", "strategy"}
    # version 2 has them all
    client, server = _handshake(2)
    server.receive_data(client.send(P.Leaderboard(name="ann")))
    assert server.next_message() == P.Leaderboard(name="ann")
    client.receive_data(server.send(P.TableUpdated(table=table)))
    got = client.next_message()
    assert (got.table.seats[0].rating, got.table.seats[0].games) == (3.5, 4)


async def test_the_trend_spans_the_last_five_games_and_a_restart_keeps_the_board(
        tmp_path: Path) -> None:
    path = str(tmp_path / "nimmt.db")
    store = await AsyncStore.open(path)
    desk = LadderDesk()
    await desk.load(store)
    for name, key in (("Ann", KEY), ("Bob", new_key())):
        assert desk.claims.check(name, key, 0.0).claimed
    ordinals = []
    for game in range(7):
        places = [2, 1] if game < 2 else [1, 2]
        await desk.game_finished(["Ann", "Bob"], places, ["human", "human"], [None, None],
                                 None)
        ordinals.append(desk.ladder.get("Ann").ordinal)
    board = desk.board()
    ann = next(r for r in board if r.name == "Ann")
    assert ann.trend == round(ordinals[-1] - ordinals[-1 - TREND_GAMES], 2)
    assert ann.trend > 0 and ann.games == 7 and not ann.bot
    await store.aclose()

    # after a restart the board read back from the database is the same
    again = LadderDesk()
    store = await AsyncStore.open(path)
    await again.load(store)
    assert again.board() == board
    await store.aclose()
    # and so is the one nimmt-replay --ladder prints
    reader = Store.open(path, read_only=True)
    printed = leaderboard(reader)
    reader.close()
    assert [(r["rank"], r["name"], r["rating"], r["games"], r["trend"], r["bot"])
            for r in printed] == [(r.rank, r.name, r.rating, r.games, r.trend, r.bot)
                                  for r in board]


async def test_a_bot_client_is_marked_a_bot_on_the_board_also_after_a_restart(
        tmp_path: Path) -> None:
    path = str(tmp_path / "nimmt.db")
    for run in range(2):
        store = await AsyncStore.open(path)
        async with trio.open_nursery() as nursery:
            server = Server(make_config(), store=store)
            await nursery.start(server.serve)
            ann = await _claimed(server, nursery, "Ann")
            if run == 0:
                robo = await ScriptClient.memory(server, nursery, "Robo", "bot", hello=False)
                assert (await robo.hello(key=new_key())).claimed
                table_id = await seat_players(ann, [robo], RATED)
                await ann.send(P.Start())
                await play_all([Player(ann, 1), Player(robo, 2)])
                await ann.expect(lambda m, t=table_id: isinstance(m, P.TableUpdated)
                                 and m.table.table_id == t
                                 and m.table.seats[1].rating is not None)
            page = await ann.request(P.Leaderboard())
            assert {(r.name, r.games, r.bot) for r in page.rows} == {
                ("Ann", 1, False), ("Robo", 1, True)}, run
            nursery.cancel_scope.cancel()
        await store.aclose()


async def test_the_board_kept_sorted_game_by_game_is_the_one_sorted_from_scratch() -> None:
    desk = LadderDesk()
    names = [f"p{i}" for i in range(30)]
    for name in names:
        desk.claims.check(name, new_key(), 0.0)
    rng = random.Random(7)
    for _ in range(300):
        seated = rng.sample(names, rng.randint(2, 6))
        places = sorted(rng.randint(1, len(seated)) for _ in seated)  # ties too
        await desk.game_finished(seated, places, ["human"] * len(seated),
                                 [None] * len(seated), None)
    fresh = rank_board(
        (n, r.mu, r.sigma, r.ordinal, r.games,
         desk.recent[n][0] if len(desk.recent[n]) > TREND_GAMES else None, False)
        for n, r in desk.ladder.ratings.items())
    assert desk.board() == fresh
    # both paths sort by board_key: the order itself is checked without it (and against
    # hand-written lists in tests/test_ladder_pinned.py)
    shown = {n: (round(r.ordinal, 2), r.games) for n, r in desk.ladder.ratings.items()}
    assert sorted(r.name for r in fresh) == sorted(shown)
    for above, below in zip(fresh, fresh[1:]):
        (a, a_games), (b, b_games) = shown[above.name], shown[below.name]
        assert a > b or (a == b and (a_games > b_games
                                     or (a_games == b_games and above.name < below.name)))
    for row in fresh:
        page = desk.page(P.Leaderboard(limit=7, name=row.name.upper()))
        assert page.found == row.rank and page.offset == (row.rank - 1) // 7 * 7
        assert row.name in [r.name for r in page.rows]


def test_ladder_rows_reads_any_number_of_names_in_two_queries(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "nimmt.db"))
    store_close = store.close
    changes = [RatingChange(f"p{i:03}", 25.0 + i / 10, 8.0, 1, 1) for i in range(60)]
    for game in range(3):
        store.ladder_write(lambda db, g=game: save_ratings(
            db, None, [RatingChange(c.name, c.mu + g, c.sigma, g + 1, 1) for c in changes],
            float(g)))
    statements: list[str] = []

    def rows(db: sqlite3.Connection) -> list:
        db.set_trace_callback(statements.append)
        try:
            return ladder_rows(db, trend_games=2)
        finally:
            db.set_trace_callback(None)

    got = store.ladder_read(rows)
    assert len(got) == 60 and len(statements) == 2, statements
    first = next(r for r in got if r.name == "p000")
    assert (first.mu, first.games, first.before) == (27.0, 3, (25.0, 8.0))
    few = store.ladder_read(lambda db: ladder_rows(db, trend_games=3))
    assert all(r.before is None for r in few)  # 3 games: no rating 3 games before the last
    store_close()
