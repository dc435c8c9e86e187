"""The think pool's exact answers (server/thinking/pool.py, worker.py): a strategy that
raises is a failure of that decision only (its worker lives on), the count of
decisions waiting is back to 0 once they are answered, the state bound is exactly
1 MiB, a table's eleventh waiting decision is refused, a worker that says something
else than ready is replaced. One worker process at most, real clock (it starts in a
few tenths of a second)."""

from __future__ import annotations

import os
import socket
from multiprocessing.connection import Connection

import pytest
import trio
import trio.testing

from nimmt.bots import RandomStrategy
from nimmt.engine import Game, Options
from nimmt.server.thinking.pool import MAX_STATE_BYTES, ThinkFailed, ThinkPool, ThinkRefused
from nimmt.server.thinking.worker import load_strategy


def test_the_state_bound_is_one_mebibyte_and_a_larger_state_is_not_loaded() -> None:
    assert MAX_STATE_BYTES == 1 << 20
    fresh, note = load_strategy("random", 1, b"x" * (MAX_STATE_BYTES + 1))
    assert isinstance(fresh, RandomStrategy)
    assert note == "its state is 1048577 bytes, more than 1048576: it starts afresh"


async def test_a_strategy_that_raises_fails_its_decision_and_its_worker_lives_on() -> None:
    view = Game(Options(players=4), seed=5).view(0)
    pool = ThinkPool(1)
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        first = await pool.think("random", 1, view, timeout=30.0)
        assert pool.busy == 0  # answered: nothing waits
        with pytest.raises(ThinkFailed) as failed:
            await pool.think("random", 1, None, timeout=30.0)  # type: ignore[arg-type]
        assert str(failed.value) == (
            "random raised AttributeError(\"'NoneType' object has no attribute 'legal'\")")
        assert pool.busy == 0
        again = await pool.think("random", 1, view, timeout=30.0)
        assert again.worker == first.worker  # the same worker: it was not replaced
        assert [p.pid for p in pool.processes] == [first.worker]
        mine = os.getpriority(os.PRIO_PROCESS, 0)  # the worker yields the cores to the server
        assert os.getpriority(os.PRIO_PROCESS, first.worker) == min(19, mine + 10)
        nursery.cancel_scope.cancel()
    assert pool.processes == []


class _FakeProcess:
    """A worker that is no worker: it says something else than ready, then nothing."""

    pid = -1

    def __init__(self) -> None:
        self.killed = False

    def poll(self) -> int | None:
        return -9 if self.killed else None

    def kill(self) -> None:
        self.killed = True

    def wait(self, timeout: float) -> int:
        return -9


async def test_a_worker_that_says_something_else_than_ready_is_replaced(
        caplog: pytest.LogCaptureFixture) -> None:
    view = Game(Options(players=4), seed=5).view(0)
    pool = ThinkPool(1)
    real_spawn = pool._spawn
    fakes: list[_FakeProcess] = []

    def spawn():  # type: ignore[no-untyped-def]
        if len(fakes) == 2:
            return real_spawn()
        fakes.append(_FakeProcess())
        mine, theirs = socket.socketpair()
        speaker = Connection(theirs.detach())
        speaker.send(("hello",))
        speaker.close()
        return fakes[-1], Connection(mine.detach())

    pool._spawn = spawn  # type: ignore[method-assign]
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        thought = await pool.think("random", 1, view, timeout=30.0)
        assert thought.worker != -1 and fakes[0].killed and fakes[1].killed
        nursery.cancel_scope.cancel()
    said = [m for m in caplog.messages if m.startswith("think worker 0 (pid -1)")]
    assert said == [  # another at once, then after RESTART_DELAY: no spin
        "think worker 0 (pid -1): it said something else than that it was ready; "
        f"starting another in {delay} s" for delay in (0, 1)]


async def test_a_table_may_have_ten_decisions_waiting_and_the_eleventh_is_refused() -> None:
    view = Game(Options(players=4), seed=5).view(0)
    pool = ThinkPool(1)
    pool._start_workers = lambda: None  # type: ignore[method-assign]  # no worker: all wait
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        for _ in range(10):
            nursery.start_soon(pool.think, "random", 1, view, 30.0, None)
        await trio.testing.wait_all_tasks_blocked()
        assert pool.busy == 10
        with pytest.raises(ThinkRefused) as refused:
            await pool.think("random", 1, view, 30.0)
        assert str(refused.value) == ("10 decisions of this table wait for a worker already, "
                                      "as many as a table may have: refused at once")
        nursery.cancel_scope.cancel()
    assert pool.busy == 0


async def test_a_decision_no_worker_takes_fails_at_its_deadline() -> None:
    view = Game(Options(players=4), seed=5).view(0)
    pool = ThinkPool(1)
    pool._start_workers = lambda: None  # type: ignore[method-assign]  # no worker: all wait
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        start = trio.current_time()
        with trio.fail_after(5), pytest.raises(ThinkFailed) as failed:
            await pool.think("random", 1, view, 0.5)
        assert str(failed.value) == "no worker was free within 0.5 s"
        assert 0.5 <= trio.current_time() - start < 2.0
        nursery.cancel_scope.cancel()
