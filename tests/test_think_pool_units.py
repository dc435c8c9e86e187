"""The think pool's exact answers (server/thinking/pool.py, worker.py): a strategy that
raises is a failure of that decision only (its worker lives on), the count of
decisions waiting is back to 0 once they are answered, the state bound is exactly
1 MiB, a table's eleventh waiting decision is refused, a worker that says something
else than ready is replaced. One worker process at most, real clock (it starts in a
few tenths of a second)."""

from __future__ import annotations

import os
import socket
import threading
from functools import partial
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


# ---------------------------------------------------------------- puppet workers
# A worker process played by the test: the pool gets a socket as from a real worker,
# and the test reads the decisions sent down it and answers them. In one process,
# so trio's MockClock rules every deadline (a real worker would take real time).


class _Puppet:
    """A worker that says it is ready at once; ``dead``: its process has ended while
    its socket stays open (a child of it holds it)."""

    def __init__(self, pid: int, ready: bool = True) -> None:
        self.pid = pid
        self.dead = False
        self.killed = False
        mine, theirs = socket.socketpair()
        self.pool_end = Connection(mine.detach())
        self.end = Connection(theirs.detach())
        if ready:
            self.end.send(("ready",))

    def poll(self) -> int | None:
        return -9 if self.dead or self.killed else None

    def kill(self) -> None:
        self.killed = True

    def wait(self, timeout: float) -> int:
        return -9

    @property
    def dropped(self) -> bool:
        """Whether the pool has let go of it (closed its socket)."""
        return self.pool_end.closed

    def asked(self) -> bool:
        """Whether a decision was sent to it and is not answered yet."""
        return not self.dropped and self.end.poll()

    def answer(self, decision: str) -> str:
        """Answer the decision sent to it with ``decision``; the view it was sent."""
        assert self.asked(), "no decision was sent to it"
        spec, seed, view, state = self.end.recv()
        self.end.send(("ok", decision, None, None))
        return view

    def close(self) -> None:
        self.end.close()


def _puppets(pool: ThinkPool, count: int, ready: bool = True) -> list[_Puppet]:
    """``pool``'s workers from now on: ``count`` puppets, pids -1, -2, ... (``ready``:
    they say so at once)."""
    puppets = [_Puppet(-1 - n, ready) for n in range(count)]
    fresh = iter(puppets)

    def spawn():  # type: ignore[no-untyped-def]
        puppet = next(fresh)
        pool._processes.add(puppet)  # type: ignore[arg-type]
        return puppet, puppet.pool_end

    pool._spawn = spawn  # type: ignore[method-assign]
    return puppets


async def _think(pool: ThinkPool, view: str, timeout: float, results: dict[str, object],
                 group: str | None = None, owner: str | None = None) -> None:
    """``pool.think`` for ``view`` (of table ``owner``; None: its own table); the answer's
    decision and worker, or the failure's type and text, in ``results[view]``."""
    try:
        thought = await pool.think("random", 1, view, timeout,  # type: ignore[arg-type]
                                   owner=owner or view, group=group)
        results[view] = (thought.decision, thought.worker)
    except ThinkFailed as e:
        results[view] = (type(e).__name__, str(e))


@pytest.mark.parametrize("late", [0.0, 0.01])
async def test_a_decision_that_waited_past_its_deadline_is_failed_and_not_run(
        autojump_clock: trio.testing.MockClock, late: float) -> None:
    pool = ThinkPool(1)
    (puppet,) = _puppets(pool, 1)
    results: dict[str, object] = {}
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        nursery.start_soon(_think, pool, "first", 10.0, results)
        await trio.testing.wait_all_tasks_blocked()
        start = trio.current_time()
        nursery.start_soon(_think, pool, "late", 1.0, results)
        await trio.sleep_until(start + 1.0 + late)  # the worker is free at its deadline, or after
        assert puppet.answer("a") == "first"
        await trio.testing.wait_all_tasks_blocked()
        assert results == {"first": ("a", -1),
                           "late": ("ThinkFailed", "no worker was free in time")}
        assert trio.current_time() == start + 1.0 + late  # at once, not later
        assert not puppet.asked() and not puppet.killed  # not sent: its worker lives on
        nursery.cancel_scope.cancel()
    puppet.close()


async def test_a_full_queue_refuses_the_longest_groups_newest_in_the_queues_words(
        autojump_clock: trio.testing.MockClock) -> None:
    pool = ThinkPool(1, per_table=10, queue_size=3)
    (puppet,) = _puppets(pool, 1)
    results: dict[str, object] = {}
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        nursery.start_soon(_think, pool, "running", 30.0, results)
        await trio.testing.wait_all_tasks_blocked()
        assert puppet.asked()
        for n in range(3):  # one table, 3 waiting: the queue is full, the table's line not
            nursery.start_soon(_think, pool, f"a{n}", 30.0, results, None, "A")
            await trio.testing.wait_all_tasks_blocked()
        with pytest.raises(ThinkRefused) as refused:
            await pool.think("random", 1, "a3", 30.0, owner="A")  # type: ignore[arg-type]
        assert str(refused.value) == ("3 decisions wait for a worker, as many as the queue "
                                      "holds: refused at once")
        assert results == {} and pool.busy == 4
        nursery.cancel_scope.cancel()
    puppet.close()


async def test_a_full_queue_makes_room_and_says_why_to_the_decision_it_refuses(
        autojump_clock: trio.testing.MockClock) -> None:
    pool = ThinkPool(1, per_table=10, queue_size=2)
    (puppet,) = _puppets(pool, 1)
    results: dict[str, object] = {}
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        nursery.start_soon(_think, pool, "running", 30.0, results, "10.0.0.1")
        await trio.testing.wait_all_tasks_blocked()
        for view in ("a0", "a1"):
            nursery.start_soon(_think, pool, view, 30.0, results, "10.0.0.1")
            await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(_think, pool, "b0", 30.0, results, "10.0.0.2")
        await trio.testing.wait_all_tasks_blocked()
        # the first of two equally long lines gives up its newest: a0
        assert results == {"a0": ("ThinkRefused", "2 decisions wait for a worker, as many as "
                                                  "the queue holds: refused at once")}
        assert puppet.answer("r") == "running"
        await trio.testing.wait_all_tasks_blocked()
        assert puppet.answer("a") == "a1"  # both groups came in anew: in that order
        await trio.testing.wait_all_tasks_blocked()
        assert puppet.answer("b") == "b0"
        await trio.testing.wait_all_tasks_blocked()
        assert results["b0"] == ("b", -1) and results["a1"] == ("a", -1)
        assert pool.busy == 0
        nursery.cancel_scope.cancel()
    puppet.close()


async def test_a_decision_taken_by_a_worker_found_dead_goes_to_a_new_worker(
        autojump_clock: trio.testing.MockClock) -> None:
    pool = ThinkPool(1)
    first, second = _puppets(pool, 2)
    results: dict[str, object] = {}
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        await pool.warm_up()
        await trio.testing.wait_all_tasks_blocked()
        first.dead = True  # its process ended; its socket is still open
        nursery.start_soon(_think, pool, "x", 30.0, results)
        for _ in range(200):  # (not wait_all_tasks_blocked: a job bounced forever never blocks)
            await trio.lowlevel.checkpoint()
            if second.asked():
                break
        assert first.dropped and not first.asked() and second.asked()
        assert second.answer("s") == "x"
        await trio.testing.wait_all_tasks_blocked()
        assert results == {"x": ("s", -2)}
        nursery.cancel_scope.cancel()
    first.close()
    second.close()


class _Unsendable:
    def __reduce__(self):  # type: ignore[no-untyped-def]
        raise ValueError("no pickle for you")


async def test_a_decision_that_cannot_be_sent_fails_alone_and_the_pool_goes_on(
        autojump_clock: trio.testing.MockClock) -> None:
    pool = ThinkPool(1)
    first, second = _puppets(pool, 2)
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        with pytest.raises(ThinkFailed) as failed:
            await pool.think("random", 1, _Unsendable(), 30.0)  # type: ignore[arg-type]
        assert str(failed.value) == "could not send it a decision (no pickle for you)"
        assert first.killed  # replaced
        results: dict[str, object] = {}
        nursery.start_soon(_think, pool, "next", 30.0, results)
        await trio.testing.wait_all_tasks_blocked()
        assert second.answer("n") == "next"
        await trio.testing.wait_all_tasks_blocked()
        assert results == {"next": ("n", -2)}
        nursery.cancel_scope.cancel()
    first.close()
    second.close()


@pytest.mark.parametrize(("setting", "running"), [(None, 1), ("1", 1), ("0", 2)])
async def test_a_worker_is_kept_free_for_another_address_unless_switched_off(
        autojump_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch,
        setting: str | None, running: int) -> None:
    if setting is None:
        monkeypatch.delenv("NIMMT_THINK_KEEP_FREE", raising=False)
    else:
        monkeypatch.setenv("NIMMT_THINK_KEEP_FREE", setting)
    pool = ThinkPool(2)
    puppets = _puppets(pool, 2)
    results: dict[str, object] = {}
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        await pool.warm_up()
        nursery.start_soon(_think, pool, "v1", 30.0, results, "10.0.0.2")  # the victim asks
        await trio.testing.wait_all_tasks_blocked()
        (asked,) = [p for p in puppets if p.asked()]
        asked.answer("v")
        await trio.testing.wait_all_tasks_blocked()
        for n in range(3):  # then another address floods
            nursery.start_soon(_think, pool, f"f{n}", 30.0, results, "10.0.0.1")
        await trio.testing.wait_all_tasks_blocked()
        assert len([p for p in puppets if p.asked()]) == running
        assert len(pool.thinking) == running
        nursery.cancel_scope.cancel()
    for puppet in puppets:
        puppet.close()


async def test_a_worker_that_dies_while_starting_is_replaced_at_once(
        autojump_clock: trio.testing.MockClock, caplog: pytest.LogCaptureFixture) -> None:
    pool = ThinkPool(1)
    first, second = _puppets(pool, 2, ready=False)
    first.end.close()  # ended before it said ready: its socket is at its end
    second.end.send(("ready",))
    results: dict[str, object] = {}
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        start = trio.current_time()
        nursery.start_soon(_think, pool, "x", 30.0, results)
        await trio.testing.wait_all_tasks_blocked()
        assert first.dropped and second.answer("s") == "x"
        await trio.testing.wait_all_tasks_blocked()
        assert results == {"x": ("s", -2)} and trio.current_time() == start
        nursery.cancel_scope.cancel()
    second.close()
    assert [m for m in caplog.messages if m.startswith("think worker")] == [
        "think worker 0 (pid -1): it died while starting; starting another in 0 s"]


async def test_warm_up_returns_once_every_worker_has_said_it_is_ready(
        autojump_clock: trio.testing.MockClock) -> None:
    pool = ThinkPool(2)
    puppets = _puppets(pool, 2, ready=False)
    warm: list[float] = []

    async def warm_up() -> None:
        await pool.warm_up()
        warm.append(trio.current_time())

    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        nursery.start_soon(warm_up)
        await trio.testing.wait_all_tasks_blocked()
        start = trio.current_time()
        puppets[0].end.send(("ready",))
        await trio.testing.wait_all_tasks_blocked()
        assert warm == []  # one of two is ready: not yet
        await trio.sleep(2.0)
        puppets[1].end.send(("ready",))
        await trio.testing.wait_all_tasks_blocked()
        assert warm == [start + 2.0]  # the second's ready, at once
        nursery.cancel_scope.cancel()
    for puppet in puppets:
        puppet.close()


@pytest.mark.parametrize(("workers", "holds"), [(1, 32), (2, 64)])
async def test_the_queue_holds_32_decisions_a_worker_and_refuses_the_next(
        workers: int, holds: int) -> None:
    pool = ThinkPool(workers)
    pool._start_workers = lambda: None  # type: ignore[method-assign]  # no worker: all wait
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        for n in range(holds):  # each of its own table
            nursery.start_soon(partial(pool.think, "random", 1, None, 30.0, owner=n))
        await trio.testing.wait_all_tasks_blocked()
        assert pool.busy == holds
        with pytest.raises(ThinkRefused) as refused:
            await pool.think("random", 1, None, 30.0)  # type: ignore[arg-type]
        assert str(refused.value) == (f"{holds} decisions wait for a worker, as many as the "
                                      "queue holds: refused at once")
        nursery.cancel_scope.cancel()


async def test_a_worker_kept_free_is_released_when_the_other_address_has_been_quiet_5_s(
        autojump_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NIMMT_THINK_KEEP_FREE", raising=False)
    pool = ThinkPool(2)
    puppets = _puppets(pool, 2)
    results: dict[str, object] = {}
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        await pool.warm_up()
        nursery.start_soon(_think, pool, "v1", 30.0, results, "10.0.0.2")
        await trio.testing.wait_all_tasks_blocked()
        (asked,) = [p for p in puppets if p.asked()]
        asked.answer("v")
        answered = trio.current_time()
        await trio.testing.wait_all_tasks_blocked()
        for n in range(3):
            nursery.start_soon(_think, pool, f"f{n}", 30.0, results, "10.0.0.1")
        await trio.sleep_until(answered + 4.999)
        assert len([p for p in puppets if p.asked()]) == 1  # one kept free for 10.0.0.2
        await trio.sleep_until(answered + 5.0)
        await trio.testing.wait_all_tasks_blocked()
        assert len([p for p in puppets if p.asked()]) == 2  # it went quiet: released
        nursery.cancel_scope.cancel()
    for puppet in puppets:
        puppet.close()


@pytest.mark.parametrize("read", [False, True])
async def test_a_worker_that_dies_over_its_decision_fails_it_and_is_replaced(
        autojump_clock: trio.testing.MockClock, caplog: pytest.LogCaptureFixture,
        read: bool) -> None:
    pool = ThinkPool(1)
    first, second = _puppets(pool, 2)
    results: dict[str, object] = {}
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        nursery.start_soon(_think, pool, "x", 30.0, results)
        await trio.testing.wait_all_tasks_blocked()
        assert first.asked()
        if read:  # it read its decision, then died: its socket is at its end
            first.end.recv()
        first.end.close()  # (or died with the decision unread: its socket is reset)
        await trio.testing.wait_all_tasks_blocked()
        assert results == {"x": ("ThinkFailed", "it died")} and first.dropped
        nursery.start_soon(_think, pool, "y", 30.0, results)
        await trio.testing.wait_all_tasks_blocked()
        assert second.answer("s") == "y"
        await trio.testing.wait_all_tasks_blocked()
        assert results["y"] == ("s", -2)
        nursery.cancel_scope.cancel()
    second.close()
    assert [m for m in caplog.messages if m.startswith("think worker")] == [
        "think worker 0 (pid -1): it died; replacing it"]


async def test_a_bots_state_of_up_to_one_mebibyte_goes_to_the_worker_and_a_larger_is_refused(
        ) -> None:  # (the real clock: a thread plays the worker, in real time)
    pool = ThinkPool(1)
    (puppet,) = _puppets(pool, 1)
    got: list[object] = []

    def serve_one() -> None:  # a thread: the pool writes a large state in one blocking send
        got.append(puppet.end.recv()[3])
        puppet.end.send(("ok", "d", None, None))

    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        for state in (b"s" * 10, b"m" * MAX_STATE_BYTES):
            reader = threading.Thread(target=serve_one, daemon=True)
            reader.start()
            thought = await pool.think("random", 1, "v", 30.0, state)  # type: ignore[arg-type]
            reader.join(30)
            assert thought.decision == "d"
        assert got == [b"s" * 10, b"m" * MAX_STATE_BYTES]
        with pytest.raises(ValueError) as refused:
            await pool.think("random", 1, "v", 30.0, b"l" * (MAX_STATE_BYTES + 1))  # type: ignore[arg-type]
        assert str(refused.value) == ("a strategy state of 1048577 bytes: at most 1048576 "
                                      "are sent to a worker")
        assert not puppet.asked() and pool.busy == 0
        nursery.cancel_scope.cancel()
    puppet.close()
