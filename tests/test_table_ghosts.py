"""Issue 22 against a real server on 127.0.0.1: no ghost members. A session is at one
table at most, and a member is connected exactly while a connection carries its
session, whatever the database write or the paced steps in flight when the
connection drops. Each test also checks that the other players were unaffected."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trio
import trio.testing

from nimmt import protocol as P
from nimmt.server import start_server
from nimmt.server.storage import AsyncStore
from nimmt.server.game.translate import random_deal
from server_helpers import ScriptClient, make_config, seat_players, standard_hands

# (long timers: with the fake clock, time jumps while a database write runs in its
# thread, and no test here is about a ping or a deadline)
TWO = P.TableOptions(seats=2, step_delay=0, turn_time=3600.0)
#: Ann, Bob and two bots, a second between the steps: four placements after a reveal
PACED = P.TableOptions(seats=4, step_delay=1.0, turn_time=30.0)


@pytest.fixture
def db_clock() -> trio.testing.MockClock:
    """A fake clock for a server with a database: its writes run in a thread, which
    trio cannot see, so time jumps only after a tenth of a second of real idleness."""
    return trio.testing.MockClock(autojump_threshold=0.1)


@asynccontextmanager
async def serving(db: Path | None = None, **config) -> AsyncIterator[tuple[trio.Nursery, int]]:
    """A server on 127.0.0.1 (with a database file at ``db``); stopped afterwards."""
    store = await AsyncStore.open(str(db)) if db is not None else None
    try:
        async with trio.open_nursery() as nursery:
            server, port = await start_server(
                nursery, make_config(abandon_after=2.0, ping_interval=3600.0,
                                     pong_timeout=3600.0, **config), store=store,
                dealer=standard_dealer)
            if store is not None:
                nursery.start_soon(_tick)
            yield nursery, port
            await server.shutdown()
            nursery.cancel_scope.cancel()
    finally:
        if store is not None:
            await store.aclose()


async def _tick() -> None:
    """A deadline never more than half a second away: a database write slower than
    the clock's threshold moves time by that much at most (not to a read's limit)."""
    while True:
        await trio.sleep(0.5)


def standard_dealer(options, pending, view, rng):
    """Rows 11..14, seat 0 holding 15..24, seat 1 25..34, and so on (every round)."""
    if pending.rows_only:
        return random_deal(options, pending, view, rng)
    return standard_hands(options.players)


async def listing(client: ScriptClient) -> dict[str, P.TableInfo]:
    reply = await client.request(P.ListTables())
    assert isinstance(reply, P.TableList)
    return {t.table_id: t for t in reply.tables}


async def they_play_a_turn(ann: ScriptClient, bob: ScriptClient) -> None:
    """Ann (the host) and Bob, alone at a two-seat table, start and play a turn."""
    await ann.send(P.Start())
    for who in (ann, bob):
        await who.expect("turn_started")
    for who, card in ((ann, 15), (bob, 25)):
        accepted = await who.request(P.Commit(round=1, turn=1, card=card))
        assert isinstance(accepted, P.CommitAccepted), accepted
    for who in (ann, bob):
        revealed = await who.expect("revealed")
        assert sorted(card for _, card in revealed.plays) == [15, 25]


async def paced_turn_revealed(ann: ScriptClient, bob: ScriptClient) -> str:
    """Ann, Bob and two bots (``PACED``) start; Ann and Bob commit turn 1; return once
    Ann has the reveal: the four placements are still to be paced out."""
    table_id = await seat_players(ann, [bob], PACED, bots=2)
    await ann.send(P.Start())
    for who in (ann, bob):
        await who.expect("turn_started")
    await ann.send(P.Commit(round=1, turn=1, card=15))
    await bob.send(P.Commit(round=1, turn=1, card=25))
    await ann.expect("revealed")
    return table_id


async def test_a_creator_gone_before_its_table_ran_leaves_no_connected_seat(
        tmp_path: Path, db_clock):
    """Defect 1a: with a database, ``create_table`` then the socket closed at once: the
    drop reached the table before its request, was ignored, and the table stayed open
    for ever with its only seat "connected"."""
    async with serving(tmp_path / "nimmt.db") as (_, port):
        ann = await ScriptClient.tcp(port, "Ann")
        bob = await ScriptClient.tcp(port, "Bob")
        ours = await seat_players(ann, [bob], TWO)
        gus = await ScriptClient.tcp(port, "Gus")
        await gus.send(P.CreateTable(options=TWO, id=1))
        await gus.aclose()
        await trio.sleep(6.0)  # three times abandon_after
        assert list(await listing(ann)) == [ours]
        await they_play_a_turn(ann, bob)


async def test_a_joiner_gone_during_the_seat_write_is_away_and_the_table_closes(
        tmp_path: Path, db_clock):
    """Defect 1b: with a database, ``join`` then the socket closed at once: the session
    was linked to the table only after the seat was written, so its drop reached no
    table and the seat stayed "connected" for ever."""
    async with serving(tmp_path / "nimmt.db") as (_, port):
        ann = await ScriptClient.tcp(port, "Ann")
        bob = await ScriptClient.tcp(port, "Bob")
        ours = await seat_players(ann, [bob], TWO)
        hal = await ScriptClient.tcp(port, "Hal")
        seated = await hal.request(P.CreateTable(options=P.TableOptions(seats=3)))
        theirs = seated.table.table_id
        gus = await ScriptClient.tcp(port, "Gus")
        await gus.send(P.Join(table_id=theirs, id=1))
        await gus.aclose()
        await hal.expect(lambda m: isinstance(m, P.TableUpdated) and m.table.seats[1] is not None)
        await trio.sleep(1.0)
        seats = (await listing(ann))[theirs].seats
        assert seats[1] is not None and seats[1].name == "Gus" and not seats[1].connected
        await hal.request(P.Leave())
        await trio.sleep(6.0)
        assert list(await listing(ann)) == [ours]
        await they_play_a_turn(ann, bob)


async def test_a_spectator_gone_while_its_watch_waited_for_the_steps_is_no_ghost(
        autojump_clock):
    """Defect 1c: no database; ``watch`` while a turn's steps are being paced, then the
    socket closed: the spectator stayed connected, and the table, everyone else gone,
    stayed open pacing steps for nobody."""
    async with serving() as (_, port):
        olga = await ScriptClient.tcp(port, "Olga")  # in the lobby, looking
        ann = await ScriptClient.tcp(port, "Ann")
        bob = await ScriptClient.tcp(port, "Bob")
        gus = await ScriptClient.tcp(port, "Gus", "spectator")
        table_id = await paced_turn_revealed(ann, bob)
        await gus.send(P.Watch(table_id=table_id, id=1))  # the placements are paced
        await gus.aclose()
        await ann.expect("turn_started")  # the steps are out
        info = (await listing(olga))[table_id]
        assert info.spectators == 1  # Gus, away: removed after his grace
        await ann.aclose()
        await bob.aclose()
        await trio.sleep(6.0)
        assert table_id not in await listing(olga)
        # the lobby is unaffected: a new table is made and played
        cy = await ScriptClient.tcp(port, "Cy")
        await seat_players(olga, [cy], TWO)
        await they_play_a_turn(olga, cy)


async def test_a_return_and_a_drop_during_the_steps_leave_the_seat_away(autojump_clock):
    """Defect 2 end to end: Bob resumes while the steps are paced and drops again: the
    return, held behind the steps, was applied after the drop: the table reported him
    connected for ever."""
    async with serving() as (_, port):
        ann = await ScriptClient.tcp(port, "Ann")
        bob = await ScriptClient.tcp(port, "Bob")
        table_id = await paced_turn_revealed(ann, bob)
        await bob.expect("revealed")
        await bob.aclose()
        back = await ScriptClient.tcp(port, "Bob", token=bob.token)
        assert back.welcome is not None and back.welcome.resumed
        await back.aclose()
        await ann.expect("turn_started")  # the steps are out
        await trio.sleep(1.0)
        seats = (await listing(ann))[table_id].seats
        assert seats[1] is not None and seats[1].name == "Bob" and not seats[1].connected
        # Ann plays on: Bob's turn is made for him after his grace, the game goes on
        accepted = await ann.request(P.Commit(round=1, turn=2, card=16))
        assert isinstance(accepted, P.CommitAccepted)
        revealed = await ann.expect("revealed")
        assert (1, 16) not in revealed.plays and len(revealed.plays) == 4


async def test_two_joins_in_one_write_seat_the_session_at_one_table_only(
        tmp_path: Path, db_clock):
    """Defect 3: with a database, ``join t1`` and ``join t2`` in one write: the session
    sat at both, and its leave and its drop reached only one of them."""
    async with serving(tmp_path / "nimmt.db") as (_, port):
        ann = await ScriptClient.tcp(port, "Ann")
        cy = await ScriptClient.tcp(port, "Cy")
        t1 = (await ann.request(P.CreateTable(options=TWO))).table.table_id
        t2 = (await cy.request(P.CreateTable(options=TWO))).table.table_id
        bob = await ScriptClient.tcp(port, "Bob")
        await bob.send_raw(bob.conn.send(P.Join(table_id=t1, id=1))
                           + P.encode_frame(P.Join(table_id=t2, id=2)))
        replies = {}
        while len(replies) < 2:
            msg = await bob.expect(lambda m: m.re in (1, 2))
            replies[msg.re] = msg
        first, second = replies[1], replies[2]
        assert isinstance(first, P.Seated) and first.table.table_id == t1
        assert isinstance(second, P.Error) and second.code == "not_allowed"
        tables = await listing(cy)
        assert [s.name if s else None for s in tables[t2].seats] == ["Cy", None]
        # Bob's drop reaches his one table; Cy's table takes a bot and plays
        await bob.aclose()
        await ann.expect(lambda m: isinstance(m, P.TableUpdated)
                         and m.table.seats[1] is not None and not m.table.seats[1].connected)
        added = await cy.request(P.AddBot(strategy="heuristic"))
        assert isinstance(added, P.TableUpdated)
        await cy.send(P.Start())
        await cy.expect("turn_started")
        assert bob.of_type("seated") == [first]


async def test_a_spectator_who_comes_mid_game_receives_no_seats_hand(autojump_clock):
    """Limits lacked: a spectator joining mid-game gets the public game only."""
    async with serving() as (_, port):
        ann = await ScriptClient.tcp(port, "Ann")
        bob = await ScriptClient.tcp(port, "Bob")
        table_id = await seat_players(ann, [bob], TWO)
        await ann.send(P.Start())
        for who in (ann, bob):
            await who.expect("turn_started")
        await ann.request(P.Commit(round=1, turn=1, card=15))  # before Eve comes
        eve = await ScriptClient.tcp(port, "Eve", "spectator")
        watching = await eve.request(P.Watch(table_id=table_id))
        assert isinstance(watching, P.Watching)
        snapshot = await eve.expect("snapshot")
        assert snapshot.seat is None and snapshot.hand == () and snapshot.commit is None
        assert snapshot.committed == (0,)  # that Ann committed, not what
        await bob.request(P.Commit(round=1, turn=1, card=25))
        revealed = await eve.expect("revealed")
        assert sorted(revealed.plays) == [(0, 15), (1, 25)]
        await eve.expect("turn_started")
        private = {"hand_dealt", "commit_accepted", "row_choice_request", "tie_choice_request",
                   "draft_pick_request"}
        assert not [m for m in eve.log if m.TYPE in private]
