"""The think pool is fair between tables (issue 22, defect 5): the decisions waiting
for a worker take turns by table, and the queue is bounded, per table and in all, so
that one client's many searching bots cannot make every other table's bots wait
behind theirs. Orders are asserted, never durations."""

from __future__ import annotations

import doctest
from typing import Any

import pytest
import trio
import trio.testing

from nimmt import protocol as P
from nimmt.engine import Game, Options
from nimmt.server.app import start_server
from nimmt.server.thinking import queue as think_queue
from nimmt.server.thinking.queue import ThinkQueue
from nimmt.server.thinking.pool import ThinkPool, ThinkRefused
from server_helpers import ScriptClient, make_config


def test_the_queue_takes_the_tables_in_turns() -> None:
    """Table A asked for 16 decisions, then B for one: B's is taken second (in the
    order they were asked, it was the 17th)."""
    queue = ThinkQueue[str](per_owner=16, total=100)
    for n in range(16):
        assert queue.push("A", f"a{n}") is None
    assert queue.push("B", "b0") is None
    assert queue.push("C", "c0") is None
    assert queue.push("B", "b1") is None
    taken = [queue.pop() for _ in range(len(queue))]
    assert taken[:6] == ["a0", "b0", "c0", "a1", "b1", "a2"]
    assert taken[6:] == [f"a{n}" for n in range(3, 16)] and queue.pop() is None


def test_the_queues_example_holds() -> None:
    assert doctest.testmod(think_queue).failed == 0


def test_the_queue_keeps_its_bounds_at_the_expense_of_the_longest_line() -> None:
    queue = ThinkQueue[str](per_owner=3, total=5)
    assert [queue.push("A", f"a{n}") for n in range(4)] == [None, None, None, "a3"]
    assert queue.push("B", "b0") is None and queue.push("B", "b1") is None
    # full (5): C's first decision takes the place of A's newest
    assert queue.push("C", "c0") == "a2"
    # B (2 waiting) is now as long as the longest: its third is refused, not A's
    assert queue.push("B", "b2") == "b2"
    assert queue.remove("A", "a1") and not queue.remove("A", "a1")
    assert [queue.pop() for _ in range(5)] == ["a0", "b0", "c0", "b1", None]
    queue.push_front("B", "b9")  # given back by a worker that died: first again
    assert queue.waiting("B") == 1 and queue.pop() == "b9"


async def test_a_table_flooding_the_pool_neither_starves_another_nor_queues_unbounded():
    """One worker; table A asks for 16 decisions at once, then table B for one. Ten of
    A's wait (a table's share) and six are refused at once; B's is answered second,
    right after the one A's worker took first."""
    view = Game(Options(players=2), seed=1).view(0)
    answered: list[str] = []
    refused: list[str] = []

    async def ask(pool: ThinkPool, owner: str) -> None:
        try:
            await pool.decide("random", 1, view, 60.0, owner=owner)
        except ThinkRefused:
            refused.append(owner)
        else:
            answered.append(owner)

    async with trio.open_nursery() as nursery:
        pool = ThinkPool(1)
        await nursery.start(pool.run)
        async with trio.open_nursery() as asking:
            for _ in range(16):
                asking.start_soon(ask, pool, "A")
            await trio.testing.wait_all_tasks_blocked()
            assert refused == ["A"] * 6  # at once: no worker has even started
            asking.start_soon(ask, pool, "B")
        nursery.cancel_scope.cancel()
    assert answered == ["A", "B"] + ["A"] * 9


async def test_another_tables_bot_is_answered_in_its_turn_while_two_tables_flood(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Real server, one worker. Two players each start a standing table of 9 bots that
    search 300 ms a card (18 decisions queued); then Bob's table with one bot starts:
    its bot's decision is answered after at most 3 of theirs (the one being thought,
    and one of each flooding table), not after all of them, and Bob's game goes on."""
    config = make_config(bots=9, bot_level="search:ms=300", bot_workers=1, step_delay=0.0)
    events: list[tuple[str, int]] = []
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, config)
        real = server.thinker.think

        async def think(spec: str, seed: Any, view: Any, timeout: float, *args: Any,
                        **kwargs: Any) -> Any:
            events.append(("asked", view.players))
            try:
                return await real(spec, seed, view, timeout, *args, **kwargs)
            finally:
                events.append(("answered", view.players))

        monkeypatch.setattr(server.thinker, "think", think)
        flooders = []
        for name in ("F1", "F2"):
            flooder = await ScriptClient.tcp(port, name)
            listing = await flooder.request(P.ListTables())
            (table,) = [t for t in listing.tables if t.status == "waiting"]
            assert isinstance(await flooder.request(P.Join(table_id=table.table_id)),
                              P.Seated)
            await flooder.expect("turn_started")
            flooders.append(flooder)
        with trio.fail_after(30):
            while events.count(("asked", 10)) < 18:
                await trio.sleep(0.01)
        bob = await ScriptClient.tcp(port, "Bob")
        created = await bob.request(P.CreateTable(options=P.TableOptions(seats=2,
                                                                       step_delay=0)))
        assert isinstance(created, P.Seated), created
        assert isinstance(await bob.request(P.AddBot(strategy="hard")), P.TableUpdated)
        await bob.send(P.Start())
        committed = await bob.expect("seat_committed")
        assert committed.seat == 1
        asked, answered = events.index(("asked", 2)), events.index(("answered", 2))
        before = events[asked:answered].count(("answered", 10))
        assert before <= 3, (before, events)
        hand = bob.of_type("hand_dealt")[-1].cards
        assert isinstance(await bob.request(P.Commit(round=1, turn=1, card=min(hand))),
                          P.CommitAccepted)
        await bob.expect("revealed")
        await server.shutdown()
        nursery.cancel_scope.cancel()
