"""Issue 23: nobody hears of a decision that a crash could still lose, and a decision
that only has to be acknowledged waits a moment for a transaction that other tables
make instead of costing one of its own (``table.ACK_WAIT``)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import trio
import trio.testing

from nimmt import protocol as P
from nimmt.server import Server
from nimmt.server.storage import AsyncStore
from nimmt.server.tables.table import ACK_WAIT
from nimmt.server.game.translate import random_deal
from server_helpers import (
    Player,
    ScriptClient,
    make_config,
    play_all,
    seat_players,
    standard_hands,
)


class Witness(trio.abc.Stream):
    """The server's end of a memory stream: at every write the server makes, it reads
    the database file (as another process would) and notes, for each
    ``commit_accepted`` in the bytes, whether that commit was in the file already."""

    def __init__(self, inner: trio.abc.Stream, db: Path, seen: list[tuple[int, bool]]) -> None:
        self.inner, self.db, self.seen = inner, db, seen
        self.frames = P.FrameDecoder(P.SERVER)  # (the server's frames, as they go)

    def _check(self, data: bytes) -> None:
        self.frames.receive_data(data)
        accepted = []
        while isinstance(msg := self.frames.next_message(), P.Message):
            if isinstance(msg, P.CommitAccepted):
                accepted.append(msg.card)
        if not accepted:
            return
        reader = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
        try:
            payloads = [json.loads(row[0]) for row in reader.execute(
                "SELECT payload FROM recent_facts WHERE kind = 'decision' "
                "UNION ALL SELECT payload FROM facts WHERE kind = 'decision'")]
        finally:
            reader.close()
        stored = {p["card"] for p in payloads if p["type"] == "commit"}
        self.seen.extend((card, card in stored) for card in accepted)

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        self._check(bytes(data))
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        return await self.inner.receive_some(max_bytes)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_every_commit_accepted_leaves_the_server_only_once_the_commit_is_in_the_file(
        tmp_path: Path) -> None:
    db = tmp_path / "nimmt.db"
    store = await AsyncStore.open(str(db))
    seen: list[tuple[int, bool]] = []
    async with trio.open_nursery() as nursery:
        server = Server(make_config(), store=store)
        await nursery.start(server.serve)
        clients = []
        for name in ("Ann", "Bob", "Cy", "Di"):
            ours, theirs = trio.testing.memory_stream_pair()
            nursery.start_soon(server.handle_stream, Witness(theirs, db, seen))
            client = ScriptClient(ours, name)
            await client.hello()
            clients.append(client)
        await seat_players(clients[0], clients[1:],
                           P.TableOptions(seats=4, rounds=1, step_delay=0, turn_time=30.0))
        await clients[0].send(P.Start())
        await play_all([Player(client, seed=n) for n, client in enumerate(clients)])
        await server.shutdown()
    await store.aclose()
    assert len(seen) == 40  # ten turns of four commits, each one heard by its player
    assert [card for card, stored in seen if not stored] == []


async def read_on(client: ScriptClient) -> None:
    """Keep ``client.log`` up to date (the test looks at it, never reads itself)."""
    while not client.closed:
        await client._read()


def same_deal(options: Any, pending: Any, view: Any, rng: Any) -> Any:
    """Every game of two the same deal: rows 11-14, hands from 15 up (no row to choose)."""
    if pending.rows_only:
        return random_deal(options, pending, view, rng)
    return standard_hands(2)


def commit(client: ScriptClient, turn: int) -> P.Commit:
    return P.Commit(round=1, turn=turn, card=Player(client).hand[0])


async def test_an_acknowledgement_goes_with_another_tables_transaction_or_after_ack_wait(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    store = await AsyncStore.open(str(tmp_path / "nimmt.db"))
    async with trio.open_nursery() as nursery:
        server = Server(make_config(), store=store, dealer=same_deal)
        await nursery.start(server.serve)
        ann, bob, cy, dan = [await ScriptClient.memory(server, nursery, name)
                             for name in ("Ann", "Bob", "Cy", "Dan")]
        options = P.TableOptions(seats=2, rounds=1, step_delay=0, turn_time=30.0)
        await seat_players(ann, [bob], options)
        await seat_players(cy, [dan], options)
        for host in (ann, cy):
            await host.send(P.Start())
        for client in (ann, bob, cy, dan):
            await client.expect("turn_started")
            nursery.start_soon(read_on, client)
        commits = store.commits

        # Ann's commit is not her table's last: its acknowledgement waits (the clock
        # stands still here) ...
        await ann.send(commit(ann, 1))
        await trio.testing.wait_all_tasks_blocked()
        assert ann.of_type("commit_accepted") == [] and store.commits == commits
        # ... until the other table's turn ends: one transaction for all three commits
        await cy.send(commit(cy, 1))
        await dan.send(commit(dan, 1))
        await trio.testing.wait_all_tasks_blocked()
        assert store.commits == commits + 1
        assert len(ann.of_type("commit_accepted")) == 1 and bob.of_type("seat_committed")
        assert len(cy.of_type("revealed")) == 1 and len(dan.of_type("revealed")) == 1

        # alone, a commit is answered ACK_WAIT after it came, in a transaction of its own
        await cy.send(commit(cy, 2))
        await trio.testing.wait_all_tasks_blocked()
        mock_clock.jump(ACK_WAIT * 0.9)
        await trio.testing.wait_all_tasks_blocked()
        assert len(cy.of_type("commit_accepted")) == 1 and store.commits == commits + 1
        mock_clock.jump(ACK_WAIT * 0.2)
        await trio.testing.wait_all_tasks_blocked()
        assert len(cy.of_type("commit_accepted")) == 2 and store.commits == commits + 2

        # a turn's last commit is never held: the reveal comes with no time passing
        await bob.send(commit(bob, 1))
        await trio.testing.wait_all_tasks_blocked()
        assert len(ann.of_type("revealed")) == 1 and store.commits == commits + 3
        await server.shutdown()
    await store.aclose()
