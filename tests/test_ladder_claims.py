"""Issue 27 item 1: names that belong to someone. A client claims its name with a
secret key; the name is then refused without it (or with another key); the lobby
marks claimed names; unclaimed names play as before; a rated table seats only
claimed names."""

from __future__ import annotations

import select
import sqlite3
import threading
from pathlib import Path

import trio
import trio.testing

from nimmt import protocol as P
from nimmt.server import start_server
from nimmt.server.ladder.claims import ClaimBook
from nimmt.server.storage import AsyncStore
from server_helpers import ScriptClient, make_config

KEY = "k" * 40
OTHER_KEY = "o" * 40


async def refused(port: int, name: str, key: str | None) -> P.Error:
    client = await ScriptClient.tcp(port, name, hello=False)
    await client.send(P.Hello(protocol=2, name=name, kind="bot", key=key))
    error = await client.expect("error")
    assert isinstance(error, P.Error)
    goodbye = await client.wait_closed()
    assert goodbye is not None and goodbye.reason == "name_claimed"
    await client.aclose()
    return error


async def test_a_claimed_name_is_refused_without_its_key_and_marked_in_the_lobby():
    async with trio.open_nursery() as nursery:
        _, port = await start_server(nursery, make_config())
        ann = await ScriptClient.tcp(port, "Ann", key=KEY)
        assert ann.welcome is not None and ann.welcome.claimed is True
        for name, key in (("Ann", None), ("ann", None), ("ANN", OTHER_KEY)):
            error = await refused(port, name, key)
            assert (error.code, error.field, error.request) == ("name_claimed", "name", "hello")
            assert "claimed" in error.message and "key" in error.message
        # a version 1 client cannot send a key: the claimed name is refused too
        old = await ScriptClient.tcp(port, "Ann", hello=False)
        await old.send(P.Hello(protocol=1, name="Ann", kind="bot"))
        assert (await old.expect("error")).code == "name_claimed"
        await old.aclose()
        # the key holder comes back on a second connection (no token): welcomed, claimed
        again = await ScriptClient.tcp(port, "Ann", key=KEY)
        assert again.welcome is not None and again.welcome.claimed is True
        await again.aclose()

        # unclaimed names play as today, and the lobby shows which seats are claimed
        bob = await ScriptClient.tcp(port, "Bob")
        assert bob.welcome is not None and bob.welcome.claimed is False
        created = await ann.request(P.CreateTable(options=P.TableOptions(seats=3)))
        assert isinstance(created, P.Seated)
        joined = await bob.request(P.Join(table_id=created.table.table_id))
        assert isinstance(joined, P.Seated)
        await ann.request(P.AddBot(strategy="easy", name="Ann bot"))
        listed = await bob.request(P.ListTables())
        assert isinstance(listed, P.TableList)
        (table,) = listed.tables
        assert [(s.name, s.claimed) for s in table.seats if s is not None] == [
            ("Ann", True), ("Bob", False), ("Ann bot", False)]
        for client in (ann, bob):
            await client.aclose()
        nursery.cancel_scope.cancel()


async def test_a_client_is_welcomed_as_claimed_only_once_its_claim_is_on_disk(
        tmp_path: Path) -> None:
    """Before, the welcome went out first and the claim was written after it: a
    ``kill -9`` in between lost a claim its client had been told of."""
    path = tmp_path / "nimmt.db"
    store = await AsyncStore.open(str(path))
    busy, release = threading.Event(), threading.Event()

    def slow_read() -> None:  # holds the database while Ann claims her name
        busy.set()
        release.wait()

    def claims_on_disk() -> list[str]:
        with sqlite3.connect(path) as db:
            return [row[0] for row in db.execute("SELECT name FROM claims")]

    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(), store=store)
        bob = await ScriptClient.tcp(port, "Bob")
        nursery.start_soon(store.read, slow_read)
        await trio.to_thread.run_sync(busy.wait)
        try:
            ann = await ScriptClient.tcp(port, "Ann", hello=False)
            await ann.send(P.Hello(protocol=2, name="Ann", kind="human", key=KEY))
            await trio.testing.wait_all_tasks_blocked()  # the server has done all it can
            assert [s.name for s in server.lobby.sessions.values()] == ["Bob", "Ann"]
            nothing_yet = select.select([ann.stream.socket.fileno()], [], [], 0)[0] == []
            assert nothing_yet, "welcomed before the claim was written"
            assert claims_on_disk() == []
            listed = await bob.request(P.ListTables())  # the others are not held up
            assert isinstance(listed, P.TableList)
        finally:
            release.set()
        welcome = await ann.expect("welcome")
        assert isinstance(welcome, P.Welcome) and welcome.claimed
        assert claims_on_disk() == ["Ann"]
        for client in (ann, bob):
            await client.aclose()
        nursery.cancel_scope.cancel()
    await store.aclose()


async def test_a_name_in_use_by_an_unclaimed_player_cannot_be_claimed_from_under_them():
    async with trio.open_nursery() as nursery:
        _, port = await start_server(nursery, make_config())
        cy = await ScriptClient.tcp(port, "Cy")
        error = await refused(port, "Cy", KEY)
        assert "in use" in error.message
        # the casual Cy is unaffected
        listed = await cy.request(P.ListTables())
        assert isinstance(listed, P.TableList)
        await cy.aclose()
        nursery.cancel_scope.cancel()


async def test_only_claimed_names_sit_at_a_rated_table():
    async with trio.open_nursery() as nursery:
        _, port = await start_server(nursery, make_config())
        bob = await ScriptClient.tcp(port, "Bob")
        rated = P.TableOptions(seats=2, rated=True)
        refused_create = await bob.request(P.CreateTable(options=rated))
        assert isinstance(refused_create, P.Error) and refused_create.code == "not_allowed"
        assert "rated" in refused_create.message and "key" in refused_create.message
        ann = await ScriptClient.tcp(port, "Ann", key=KEY)
        created = await ann.request(P.CreateTable(options=rated))
        assert isinstance(created, P.Seated) and created.table.options.rated is True
        refused_join = await bob.request(P.Join(table_id=created.table.table_id))
        assert isinstance(refused_join, P.Error) and refused_join.code == "not_allowed"
        watching = await bob.request(P.Watch(table_id=created.table.table_id))
        assert isinstance(watching, P.Watching)  # watching is for everyone
        # nor may a spectator of the table sit down without a claimed name
        sitting = await bob.request(P.Join(table_id=created.table.table_id))
        assert isinstance(sitting, P.Error) and sitting.code == "not_allowed"
        for client in (ann, bob):
            await client.aclose()
        nursery.cancel_scope.cancel()


def test_the_book_keeps_only_a_salted_hash() -> None:
    book = ClaimBook()
    verdict = book.check("Ann", KEY, 0.0)
    assert verdict.claimed and verdict.new is not None
    claim = verdict.new
    assert KEY.encode() not in claim.digest + claim.salt and len(claim.salt) == 16
    # the same key for another name gets another salt, so another hash
    other = book.check("Bob", KEY, 0.0).new
    assert other is not None and other.digest != claim.digest
    assert ClaimBook([claim]).check("ann", KEY, 1.0).claimed
    assert ClaimBook([claim]).check("ann", OTHER_KEY, 1.0).refused
