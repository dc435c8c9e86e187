"""The standing ``--bots`` table (issue 22, defect 5): one waits at a time; its game
closes as soon as its player has left (the bots do not play on for nobody); a new one
opens only while the server has room for one more table (``max_tables``). Real server
on 127.0.0.1."""

from __future__ import annotations

import trio

from nimmt import protocol as P
from nimmt.server import start_server
from server_helpers import Player, ScriptClient, make_config, play_until_over


async def _join_standing(port: int, name: str) -> tuple[ScriptClient, str]:
    client = await ScriptClient.tcp(port, name)
    listing = await client.request(P.ListTables())
    (table,) = [t for t in listing.tables if t.status == "waiting"]
    seated = await client.request(P.Join(table_id=table.table_id))
    assert isinstance(seated, P.Seated), seated
    return client, table.table_id


def _open(server) -> list[str]:  # noqa: ANN001 - the Server
    return [t.status for t in server.lobby.tables.values() if not t.closed]


async def test_join_then_leave_forty_times_leaves_one_waiting_table() -> None:
    """Forty players each take the standing table's seat (its game starts) and leave
    at once: each game is closed as its player leaves, and one table is left, waiting
    (there used to be 41 open, 40 of them bots playing for nobody)."""
    config = make_config(bots=2, max_tables=10, step_delay=0.0)
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, config)
        for i in range(40):
            client, table_id = await _join_standing(port, f"P{i}")
            await client.expect("turn_started")
            left = await client.request(P.Leave())
            assert isinstance(left, P.Left), left
            assert server.lobby.tables.get(table_id) is None  # closed with its player gone
            await client.aclose()
        assert _open(server) == ["waiting"]
        # and the one waiting is a standing table a newcomer can play at
        ann, _ = await _join_standing(port, "Ann")
        await ann.expect("turn_started")
        await server.shutdown()
        nursery.cancel_scope.cancel()


async def test_standing_tables_respect_max_tables() -> None:
    """Players who drop (not leave) keep their games for the grace; the standing
    tables stop at ``max_tables``; one coming back and leaving frees room, and a
    standing table waits again."""
    config = make_config(bots=1, max_tables=3, step_delay=0.0)
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, config)
        dropped = []
        for i in range(3):
            client, _ = await _join_standing(port, f"P{i}")
            await client.expect("turn_started")
            await client.aclose()  # dropped: the seat waits for the player
            dropped.append(client)
        assert _open(server) == ["playing"] * 3  # at max_tables: none waiting
        late = await ScriptClient.tcp(port, "Late")
        listing = await late.request(P.ListTables())
        assert [t.status for t in listing.tables] == ["playing"] * 3
        refused = await late.request(P.CreateTable(options=P.TableOptions()))
        assert isinstance(refused, P.Error) and refused.code == "not_allowed", refused
        back = await ScriptClient.tcp(port, "P0", token=dropped[0].token)
        await back.expect("seated")
        assert isinstance(await back.request(P.Leave()), P.Left)
        assert sorted(_open(server)) == ["playing", "playing", "waiting"]
        ann, _ = await _join_standing(port, "Ann")
        await ann.expect("turn_started")
        await server.shutdown()
        nursery.cancel_scope.cancel()


async def test_a_finished_standing_game_closes_when_its_player_leaves() -> None:
    """The game is over, its player leaves: the table closes at once (it used to stay
    open, counted against max_tables, for keep_finished)."""
    config = make_config(bots=1, rounds=1, point_limit=0, step_delay=0.0)
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, config)
        ann, table_id = await _join_standing(port, "Ann")
        await play_until_over(Player(ann))
        assert server.lobby.tables[table_id].status == "over"
        assert isinstance(await ann.request(P.Leave()), P.Left)
        assert server.lobby.tables.get(table_id) is None
        assert _open(server) == ["waiting"]
        await server.shutdown()
        nursery.cancel_scope.cancel()
