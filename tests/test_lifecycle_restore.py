"""A restart keeps every seat: a seat whose player left the last game and that a
player or a bot took after that game ended comes back with them (issue 22, defect 4).
Real server on 127.0.0.1 with a database file, stopped and started again."""

from __future__ import annotations

import doctest
from pathlib import Path

import trio

from nimmt import protocol as P
from nimmt.server import start_server
from nimmt.server.tables import restore
from nimmt.server.storage import AsyncStore
from server_helpers import Player, ScriptClient, make_config, play_all, seat_players

OPTIONS = P.TableOptions(seats=4, rounds=1, point_limit=None, step_delay=0, turn_time=30.0)


async def test_seats_taken_after_a_game_that_their_players_left_come_back(tmp_path: Path):
    """Cy and Eve leave mid-game; the game ends; Dan takes Cy's seat and Ann puts a
    bot in Eve's; the server restarts: the seats are Ann, Bob, Dan and the bot, and
    Dan's token finds his seat (it used to get bad_token, both seats empty)."""
    path = str(tmp_path / "nimmt.db")
    store = await AsyncStore.open(path)
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(), store=store)
        ann, bob, cy, eve = [await ScriptClient.tcp(port, name)
                             for name in ("Ann", "Bob", "Cy", "Eve")]
        table_id = await seat_players(ann, [bob, cy, eve], OPTIONS)
        await ann.send(P.Start())
        for leaver in (cy, eve):
            await leaver.expect("turn_started")
            assert isinstance(await leaver.request(P.Leave()), P.Left)
        await play_all([Player(ann), Player(bob, seed=1)])
        dan = await ScriptClient.tcp(port, "Dan")
        seated = await dan.request(P.Join(table_id=table_id, seat=2))
        assert isinstance(seated, P.Seated) and seated.seat == 2, seated
        added = await ann.request(P.AddBot(strategy="easy", seat=3))
        assert isinstance(added, P.TableUpdated), added
        before = [s.name if s else None for s in added.table.seats]
        assert before == ["Ann", "Bob", "Dan", "Bot 1"]
        await server.shutdown()
        nursery.cancel_scope.cancel()
    await store.aclose()

    store = await AsyncStore.open(path)
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(), store=store)
        dan2 = await ScriptClient.tcp(port, "Dan", token=dan.token)
        assert dan2.welcome is not None and dan2.welcome.resumed
        back = await dan2.expect("seated")
        assert (back.table.table_id, back.seat) == (table_id, 2)
        assert [s.name if s else None for s in back.table.seats] == before
        assert back.table.seats[3].kind == "bot" and back.table.status == "over"
        ann2 = await ScriptClient.tcp(port, "Ann", token=ann.token)
        assert (await ann2.expect("seated")).seat == 0
        # Cy, who left, has no seat to come back to
        cy2 = await ScriptClient.tcp(port, "Cy", token=cy.token)
        assert cy2.welcome is not None and not cy2.welcome.resumed
        await server.shutdown()
        nursery.cancel_scope.cancel()
    await store.aclose()


async def test_a_standing_game_brought_back_still_closes_when_its_player_leaves(
        tmp_path: Path):
    """Ann plays at the ``--bots`` table; the server restarts; she comes back, and
    leaves: the game closes at once, as it would have before the restart (it used
    to play on for nobody until abandon_after)."""
    path = str(tmp_path / "nimmt.db")
    config = make_config(bots=2, step_delay=0.0)
    store = await AsyncStore.open(path)
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, config, store=store)
        ann = await ScriptClient.tcp(port, "Ann")
        (table,) = (await ann.request(P.ListTables())).tables
        assert isinstance(await ann.request(P.Join(table_id=table.table_id)), P.Seated)
        await ann.expect("turn_started")
        await server.shutdown()
        nursery.cancel_scope.cancel()
    await store.aclose()

    store = await AsyncStore.open(path)
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, config, store=store)
        ann2 = await ScriptClient.tcp(port, "Ann", token=ann.token)
        assert (await ann2.expect("seated")).table.table_id == table.table_id
        assert isinstance(await ann2.request(P.Leave()), P.Left)
        assert server.lobby.tables.get(table.table_id) is None
        assert [t.status for t in server.lobby.tables.values()] == ["waiting"]
        await server.shutdown()
        nursery.cancel_scope.cancel()
    await store.aclose()


def test_the_restore_examples_hold() -> None:
    assert doctest.testmod(restore).failed == 0
