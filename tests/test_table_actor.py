"""The table actor's rules nothing pinned before (issue 43), on the real ``Lobby`` and
``Table``: the per-connection cap on waiting requests is exact (16 wait and are
answered, the 17th is refused ``rate_limited`` and counted against the sender's rate);
a spectator who leaves and watches the same table again is watching (and kept in the
database as such); a game started while other inputs wait is stored as playing, and a
restart brings it back playing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import trio

from nimmt import protocol as P
from nimmt.server.app import Server
from nimmt.server.lobby.lobby import Lobby
from nimmt.server.storage import AsyncStore, Store
from server_helpers import make_config

TWO = P.TableOptions(seats=2, rounds=1, point_limit=None, step_delay=0.0, turn_time=60.0)


class Link:
    """A connection as the lobby and the tables see it: what it is sent, kept."""

    def __init__(self, cid: int) -> None:
        self.cid = cid
        self.session: Any = None
        self.address = "127.0.0.1"
        self.got: list[Any] = []
        self.counted = 0  # messages counted against its rate
        self.arrived = trio.Event()

    def send(self, msg: Any) -> bool:
        self.got.append(msg)
        self.arrived.set()
        return True

    def close(self, reason: str, text: str = "") -> None:
        self.send(P.Goodbye(reason=reason, message=text[:500]))

    def charge(self) -> None:
        pass

    def count(self) -> bool:
        self.counted += 1
        return True

    def of(self, tag: str) -> list[Any]:
        return [m for m in self.got if m.TYPE == tag]

    async def expect(self, ok: Callable[[Any], bool]) -> Any:
        """The first message (since the start) for which ``ok`` holds, once it came."""
        with trio.fail_after(10):
            while True:
                found = [m for m in self.got if ok(m)]
                if found:
                    return found[0]
                self.arrived = trio.Event()
                await self.arrived.wait()


def connect(lobby: Lobby, cid: int, name: str, kind: str = "human",
            token: str | None = None) -> Link:
    link = Link(cid)
    hello = P.Hello(protocol=P.PROTOCOL_VERSION, name=name, kind=kind, token=token)
    assert lobby.hello(link, hello) is not None  # type: ignore[arg-type]
    return link


def still_lobby() -> Lobby:
    """A lobby whose tables' tasks never run: each table is stepped by the test."""
    nursery = SimpleNamespace(start_soon=lambda *a, **k: None,
                              cancel_scope=SimpleNamespace(cancel_called=False))
    return Lobby(make_config(), nursery)  # type: ignore[arg-type]


def run_sync(coro: Any) -> None:
    """Run a coroutine that never waits (a table without a database never does)."""
    try:
        coro.send(None)
    except StopIteration:
        return
    raise AssertionError("a table without a database awaited something")


def catch_up(table: Any) -> None:
    while table._inputs:
        run_sync(table.step(table.next_input()))


# ---------------------------------------------------------------- the cap, exactly
async def test_sixteen_requests_of_one_connection_wait_the_seventeenth_is_refused():
    lobby = still_lobby()
    ann, bob = connect(lobby, 1, "Ann"), connect(lobby, 2, "Bob")
    lobby.request(ann, P.CreateTable(options=TWO, id=1))  # type: ignore[arg-type]
    (table,) = lobby.tables.values()
    run_sync(table.step(None, wake=True))
    catch_up(table)
    assert [m.seat for m in ann.of("seated")] == [0]
    lobby.request(bob, P.Join(table_id=table.id, id=1))  # type: ignore[arg-type]
    catch_up(table)
    counted = ann.counted
    # 17 requests sent before the table takes any (a pause with no game: each is
    # answered with an error of its own; chats are rate-limited by the lobby first)
    for n in range(1, 18):
        lobby.request(ann, P.Pause(id=100 + n))  # type: ignore[arg-type]
    assert [(e.code, e.re) for e in ann.of("error")] == [("rate_limited", 117)]
    assert ann.of("error")[0].message == \
        "16 of your requests wait for this table already: send fewer"
    assert ann.counted == counted + 1  # the refusal counts against Ann's rate
    # Bob's requests have a cap of their own: his is taken
    lobby.request(bob, P.Pause(id=200))  # type: ignore[arg-type]
    catch_up(table)
    answers = [(e.code, e.re) for e in ann.of("error")]
    assert answers == [("rate_limited", 117)] + [("not_allowed", 100 + n) for n in range(1, 17)]
    assert [(e.code, e.re) for e in bob.of("error")] == [("not_allowed", 200)]
    # once they were taken, sixteen may wait again
    for n in range(1, 17):
        lobby.request(ann, P.Pause(id=300 + n))  # type: ignore[arg-type]
    catch_up(table)
    assert [e.re for e in ann.of("error")][17:] == [300 + n for n in range(1, 17)]
    assert [e.code for e in ann.of("error")].count("rate_limited") == 1


# ---------------------------------------------------------------- watching again
async def test_a_spectator_who_leaves_and_watches_again_watches_and_is_kept_as_one(
        tmp_path: Path):
    path = str(tmp_path / "nimmt.db")
    store = await AsyncStore.open(path)
    async with trio.open_nursery() as nursery:
        server = Server(make_config(), store=store)
        await nursery.start(server.serve)
        lobby = server._lobby
        ann, sue = connect(lobby, 1, "Ann"), connect(lobby, 2, "Sue", "spectator")
        lobby.request(ann, P.CreateTable(options=TWO, id=1))
        table_id = (await ann.expect(lambda m: m.TYPE == "seated")).table.table_id
        table = lobby.tables[table_id]
        for n, msg in enumerate((P.Watch(table_id=table_id), P.Leave(),
                                 P.Watch(table_id=table_id)), 1):
            lobby.request(sue, replace(msg, id=n))
            await sue.expect(lambda m, n=n: getattr(m, "re", None) == n)
        assert [(m.TYPE, m.re) for m in sue.got if m.TYPE in ("watching", "left", "error")] \
            == [("watching", 1), ("left", 2), ("watching", 3)]
        assert sue.session.table is table
        # she hears the table again
        lobby.request(ann, P.Chat(text="hi Sue", id=2))
        await sue.expect(lambda m: m.TYPE == "chat_message" and m.text == "hi Sue")
        await store.written_all([])
        (stored,) = await store.open_tables()
        assert [(w.name, w.kind) for w in stored.spectators] == [("Sue", "spectator")]
        # and once she leaves again, she is no spectator of it any more
        lobby.request(sue, P.Leave(id=4))
        await sue.expect(lambda m: getattr(m, "re", None) == 4)
        lobby.request(ann, P.Chat(text="bye", id=3))
        await ann.expect(lambda m: m.TYPE == "chat_message" and m.text == "bye")
        assert not [m for m in sue.got if m.TYPE == "chat_message" and m.text == "bye"]
        (stored,) = await store.open_tables()
        assert stored.spectators == ()
        nursery.cancel_scope.cancel()
    await store.aclose()


# ---------------------------------------------------------------- started, while inputs wait
async def test_a_game_started_while_other_inputs_wait_is_stored_as_playing(tmp_path: Path):
    """Ann's start and three more requests reach the table before it takes any: the
    start is not held with them; the table's row says playing, and a restart brings
    the game back playing."""
    path = str(tmp_path / "nimmt.db")
    store = await AsyncStore.open(path)
    async with trio.open_nursery() as nursery:
        server = Server(make_config(), store=store)
        await nursery.start(server.serve)
        lobby = server._lobby
        ann, bob = connect(lobby, 1, "Ann"), connect(lobby, 2, "Bob")
        lobby.request(ann, P.CreateTable(options=TWO, id=1))
        table_id = (await ann.expect(lambda m: m.TYPE == "seated")).table.table_id
        lobby.request(bob, P.Join(table_id=table_id, id=1))
        await bob.expect(lambda m: m.TYPE == "seated")
        lobby.request(ann, P.Start(id=2))
        lobby.request(ann, P.Chat(text="good luck", id=3))
        lobby.request(bob, P.Chat(text="you too", id=2))
        lobby.request(bob, P.Pause(id=3))
        table = lobby.tables[table_id]
        assert len(table._inputs) == 4  # nothing taken yet
        await bob.expect(lambda m: getattr(m, "re", None) == 3)
        await ann.expect(lambda m: m.TYPE == "chat_message" and m.text == "you too")
        (stored,) = await store.open_tables()
        assert (stored.id, stored.status) == (table_id, "playing")
        await server.shutdown()
        nursery.cancel_scope.cancel()
    await store.aclose()
    with Store.open(path, read_only=True) as peek:
        assert [(t.id, t.status) for t in peek.open_tables()] == [(table_id, "playing")]

    store = await AsyncStore.open(path)
    async with trio.open_nursery() as nursery:
        server = Server(make_config(), store=store)
        await nursery.start(server.serve)
        assert [(t.id, t.status) for t in server._lobby.tables.values()] == [
            (table_id, "playing")]
        await server.shutdown()
        nursery.cancel_scope.cancel()
    await store.aclose()
