"""Worker processes for the bots that think: ``ThinkPool``.

A searching bot spends ~100 ms of CPU a decision; in the server's process that
would stop every table (CPU-bound Python holds the GIL, even in a thread). So
the table actors hand timed strategies' decisions (``nimmt.bots.TIMED``) to a
few worker processes and await the answer without blocking the event loop:

* one trio task per worker sends a job down a pipe and waits for the pipe to be
  readable (``trio.lowlevel.wait_readable``): no threads, no polling;
* the workers run at a lower priority (``os.nice``) so that the event loop wins
  the cores when it needs them;
* the decisions waiting for a worker queue per table, the tables grouped by the
  client address that caused them (``group``), and the addresses take turns, then
  each address's tables (``queue.ThinkQueue``): one table's bots, or one client's
  many tables, cannot make another client's bot wait behind all of theirs; and
  while another address is about, one that holds a worker may not take the last
  free ones, so the other's bot that asks finds a worker free (``queue``). The
  queue is bounded (per table and in all): a decision past the bound fails at
  once (``ThinkRefused``) and its table decides it with the cheap fallback, on time;
* a job has a deadline; a worker that passes it, or dies, is killed and replaced,
  and the job fails (``ThinkFailed``): the table decides with a cheap strategy
  instead; nothing waits on a wedged worker;
* the workers start on the first job (a server whose bots never search starts
  none), and a replacement at once; a worker takes jobs only once it has said
  it is ready, so its start-up (a few tenths of a second) counts against no
  job's deadline: a job that cannot wait that long fails, the worker lives on;
  the workers are stopped, and waited for, when ``run`` ends (server shutdown);
* a worker is ``python -m nimmt.server.thinking.worker FD PID``, talking over a socket
  pair: a plain new interpreter, not a fork of the server (trio and its threads stay
  behind) nor multiprocessing's spawn (which re-runs the main script of whatever
  program embeds the server). A worker dies with its server (``PID``), even in the
  middle of a decision and even if the server was killed (``think_worker.die_with``).

Only the seat's ``View`` (what the bot may know) and the bot's own state cross to
the worker. A worker keeps nothing between decisions: ``think`` takes the
strategy's state pickled after the bot's previous decision and answers with the
state after this one (``Thought.state``); the caller keeps it for the bot's next
decision (``table.Table`` does, per seat). So a searching bot learns over a game
whichever worker decides, and a worker killed or replaced loses nothing but the
decision it was thinking about.
"""

from __future__ import annotations

import logging
import math
import os
import socket
import subprocess
import sys
from collections.abc import Hashable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

import trio

from nimmt.engine import Decision, View

from .queue import ThinkQueue

__all__ = ["ThinkPool", "ThinkFailed", "ThinkRefused", "PoolStopped", "Thought",
           "default_workers", "MAX_STATE_BYTES", "QUEUE_PER_TABLE", "QUEUE_PER_WORKER",
           "SERVER_GROUP"]

log = logging.getLogger("nimmt.server")

#: the largest strategy state kept between a bot's decisions; a larger one is dropped
#: and the bot starts afresh (a searching bot's grows by a few bytes a card it sees).
#: (Here, not in think_worker: the worker runs as ``-m``, it must not be imported first.)
MAX_STATE_BYTES = 1 << 20
#: a new worker must say it is ready within this many seconds, or another is started
#: (at once, and after ``RESTART_DELAY`` seconds if that one fails too, so that a
#: worker that cannot start does not spin)
STARTUP_TIMEOUT = 30.0
RESTART_DELAY = 1.0
#: decisions of one table waiting for a worker, at most (a table asks for one per
#: seat at a time: a full table of searching bots is never refused on its own)
QUEUE_PER_TABLE = 10
#: decisions waiting in all, at most, per worker (a searching bot's decision takes
#: ~0.1 s: the last of a full queue is taken within a few seconds)
QUEUE_PER_WORKER = 32
#: the group (the "client") of the tables the server opens itself (``--bots N``): no
#: address caused them, they share one turn (an address is a string like "10.0.0.1")
SERVER_GROUP = "(the server)"
#: set to "0" in the server's environment: no worker is kept free for another
#: address (issue 42's turns alone; benchmarks/think_fairness.py compares the two)
KEEP_FREE_ENV = "NIMMT_THINK_KEEP_FREE"


class ThinkFailed(Exception):
    """A worker did not answer in time, died, or its strategy raised (``str()`` says which)."""


class ThinkRefused(ThinkFailed):
    """The queue had no room for the decision (its table's share, or the whole
    queue, is full): it failed at once, without waiting."""


class PoolStopped(ThinkFailed):
    """The pool is not running (the server is stopping): nothing went wrong."""


def default_workers() -> int:
    """One worker per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True, slots=True)
class Thought:
    """A worker's answer: the ``decision``; the strategy's ``state`` after it (pickled,
    for the bot's next decision; None: start afresh next time); ``note``: why the
    state was not used or not kept (None: all went well), for the log; ``worker``:
    the pid of the worker process that decided."""

    decision: Decision
    state: bytes | None
    note: str | None
    worker: int


@dataclass(eq=False)
class _Job:
    owner: Hashable  # the table that asked: the queue is fair between tables
    group: Hashable  # the client (address) its table counts for: fair between those first
    spec: str
    seed: int | None
    view: View
    state: bytes | None
    deadline: float  # trio time
    done: trio.Event = field(default_factory=trio.Event)
    result: Thought | None = None
    error: str | None = None
    abandoned: bool = False
    refused: bool = False  # no room in the queue: failed at once


class ThinkPool:
    """Worker processes that run strategies; ``await decide(...)`` from any task.

    ``run()`` must be running (in the server's nursery) for jobs to be taken.
    ``per_table``: decisions of one table (``owner``) that may wait for a worker;
    ``queue_size``: that may wait in all (0: ``QUEUE_PER_WORKER`` per worker).
    """

    def __init__(self, workers: int = 0, *, per_table: int = QUEUE_PER_TABLE,
                 queue_size: int = 0) -> None:
        self.workers = workers or default_workers()
        keep = os.environ.get(KEEP_FREE_ENV, "1") != "0"
        self._queue = ThinkQueue[_Job](per_table, queue_size or QUEUE_PER_WORKER * self.workers,
                                       self.workers if keep else None)
        self._queued = trio.lowlevel.ParkingLot()  # idle workers wait here for a job
        self._processes: set[subprocess.Popen[bytes]] = set()
        self._thinking: set[int] = set()  # pids of the workers deciding now
        self._started = False
        self._ready: set[int] = set()  # the worker numbers that have said ready once
        self._all_ready = trio.Event()
        self._waiting = 0  # decisions asked for and not answered yet
        self._nursery: trio.Nursery | None = None

    def __repr__(self) -> str:
        return f"<ThinkPool {self.workers} workers, {len(self._processes)} running>"

    @property
    def processes(self) -> list[subprocess.Popen[bytes]]:
        """The worker processes alive now (tests check none is left)."""
        return [p for p in self._processes if p.poll() is None]

    @property
    def thinking(self) -> list[int]:
        """The pids of the workers that have a decision to make now."""
        return sorted(self._thinking)

    @property
    def busy(self) -> int:
        """Decisions asked for and not answered yet (queued or being thought)."""
        return self._waiting

    async def run(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Own the workers until cancelled; then stop them and wait for them."""
        try:
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                task_status.started()
                await trio.sleep_forever()
        finally:
            self._nursery = None
            self._stop_all()

    async def decide(self, spec: str, seed: int | None, view: View, timeout: float, *,
                     owner: Hashable = None, group: Hashable = None) -> Decision:
        """``spec``'s decision (a fresh ``make_strategy(spec, seed)``) for ``view``; see
        ``think``."""
        return (await self.think(spec, seed, view, timeout, owner=owner,
                                 group=group)).decision

    async def think(self, spec: str, seed: int | None, view: View, timeout: float,
                    state: bytes | None = None, *, owner: Hashable = None,
                    group: Hashable = None) -> Thought:
        """``spec``'s decision for ``view`` by the strategy pickled in ``state`` (the
        ``Thought.state`` of the bot's previous decision; None, or one that cannot be
        loaded: ``make_strategy(spec, seed)``), and the strategy's state after it,
        within ``timeout`` seconds from now, waiting for a free worker included.
        ``owner``: the table asking; ``group``: the client it counts for (its address;
        None: a group of its own): the groups take turns for the workers, then the
        tables of each.
        Raises ``ThinkFailed`` if it cannot be had in time (``state`` is then still
        the bot's state); ``ThinkRefused`` at once if the queue has no room for it."""
        if self._nursery is None:
            raise PoolStopped("the pool is not running")
        if state is not None and len(state) > MAX_STATE_BYTES:
            raise ValueError(f"a strategy state of {len(state)} bytes: at most "
                             f"{MAX_STATE_BYTES} are sent to a worker")
        self._start_workers()
        job = _Job(owner, group, spec, seed, view, state, trio.current_time() + timeout)
        refused = self._queue.push(owner, job, group, trio.current_time())
        if refused is job:
            raise ThinkRefused(self._refusal(owner))
        if refused is not None:  # a longer line's newest made room for this one
            refused.error = self._queue_full()
            refused.refused = True
            refused.done.set()
        self._queued.unpark()
        self._waiting += 1
        try:
            with trio.move_on_at(job.deadline + 0.05):  # the worker task fails it on time
                await job.done.wait()
        except BaseException:  # cancelled (the table closed): nobody wants the answer
            self._abandon(job)
            raise
        finally:
            self._waiting -= 1
        if not job.done.is_set():
            self._abandon(job)
            raise ThinkFailed(f"no worker was free within {timeout:g} s")
        if job.error is not None:
            raise (ThinkRefused if job.refused else ThinkFailed)(job.error)
        assert job.result is not None
        return job.result

    def _abandon(self, job: _Job) -> None:
        """Nobody wants ``job``'s answer: out of the queue (if it still waits there)."""
        job.abandoned = True
        self._queue.remove(job.owner, job)

    def _refusal(self, owner: Hashable) -> str:
        """Why a decision of ``owner`` found no room in the queue."""
        mine = self._queue.waiting(owner)
        if mine >= self._queue.per_owner:
            return (f"{mine} decisions of this table wait for a worker already, as many as "
                    "a table may have: refused at once")
        return self._queue_full()

    def _queue_full(self) -> str:
        return (f"{len(self._queue)} decisions wait for a worker, as many as the queue "
                "holds: refused at once")

    async def warm_up(self) -> None:
        """Start the workers now (otherwise the first decision starts them) and
        return once every one has said it is ready."""
        if self._nursery is None:
            raise PoolStopped("the pool is not running")
        self._start_workers()
        await self._all_ready.wait()

    # ------------------------------------------------------------------ workers
    def _start_workers(self) -> None:
        assert self._nursery is not None
        if not self._started:
            self._started = True
            for n in range(self.workers):
                self._nursery.start_soon(self._worker, n, name=f"think worker {n}")

    def _spawn(self) -> tuple[subprocess.Popen[bytes], Connection]:
        mine, theirs = socket.socketpair()
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", "nimmt.server.thinking.worker", str(theirs.fileno()),
                 str(os.getpid())],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL)
        finally:
            theirs.close()
        self._processes.add(process)
        return process, Connection(mine.detach())

    def _kill(self, process: subprocess.Popen[bytes], conn: Connection) -> None:
        conn.close()
        if process.poll() is None:
            process.kill()
        try:
            process.wait(1.0)
        except subprocess.TimeoutExpired:  # pragma: no cover - a kill takes microseconds
            log.warning("think worker pid %s did not end", process.pid)
        self._processes.discard(process)

    async def _start(self, n: int) -> tuple[subprocess.Popen[bytes], Connection]:
        """A new worker, once it says it is ready (a new interpreter takes a few
        tenths of a second to import the strategies: that time is no job's)."""
        failures = 0
        while True:
            process, conn = self._spawn()
            problem = f"it did not start within {STARTUP_TIMEOUT:g} s"
            with trio.move_on_after(STARTUP_TIMEOUT):
                await trio.lowlevel.wait_readable(conn.fileno())
                try:
                    if conn.recv() == ("ready",):
                        return process, conn
                    problem = "it said something else than that it was ready"
                except (EOFError, OSError):
                    problem = "it died while starting"
            delay = RESTART_DELAY if failures else 0.0  # again at once, then not in a spin
            log.warning("think worker %d (pid %s): %s; starting another in %g s", n,
                        process.pid, problem, delay)
            self._kill(process, conn)
            failures += 1
            await trio.sleep(delay)

    async def _worker(self, n: int) -> None:
        process: subprocess.Popen[bytes] | None = None
        conn: Connection | None = None
        try:
            while True:
                if process is None or conn is None or process.poll() is not None:
                    if process is not None and conn is not None:
                        self._kill(process, conn)
                    process = conn = None
                    process, conn = await self._start(n)
                    self._ready.add(n)
                    if len(self._ready) == self.workers:
                        self._all_ready.set()
                job = await self._next_job(conn)
                if job is None:  # it died (or spoke) while idle: replace it now
                    log.warning("think worker %d (pid %s) ended while idle; replacing it",
                                n, process.pid)
                    self._kill(process, conn)
                    process = conn = None
                    continue
                try:
                    if job.abandoned or trio.current_time() >= job.deadline:
                        if not job.done.is_set():
                            job.error = "no worker was free in time"
                            job.done.set()
                        continue
                    if process.poll() is not None:  # it died while idle: give the job back
                        self._queue.finished(job, trio.current_time())
                        self._queue.push_front(job.owner, job, job.group)
                        self._queued.unpark()
                        continue
                    self._thinking.add(process.pid)
                    try:
                        error = await self._run_job(conn, job, process.pid)
                    finally:
                        self._thinking.discard(process.pid)
                finally:  # this worker is free (the queue keeps workers free by it)
                    self._queue.finished(job, trio.current_time())
                if error is not None:
                    log.warning("think worker %d (pid %s): %s; replacing it", n, process.pid,
                                error)
                    self._kill(process, conn)
                    process = conn = None
                    job.error = error
                job.done.set()
        finally:
            if process is not None and conn is not None:
                self._kill(process, conn)

    async def _next_job(self, conn: Connection) -> _Job | None:
        """The next job, or None if the idle worker at ``conn`` became readable
        first (it has nothing to say between jobs: it died, or it is broken)."""
        job: _Job | None = None
        async with trio.open_nursery() as nursery:

            async def take() -> None:
                nonlocal job
                while (job := self._queue.pop(trio.current_time())) is None:
                    # a worker kept free for another address is released at wake_at
                    wake = self._queue.wake_at() if len(self._queue) else None
                    with trio.move_on_at(math.inf if wake is None else wake):
                        await self._queued.park()
                nursery.cancel_scope.cancel()

            async def watch() -> None:
                await trio.lowlevel.wait_readable(conn.fileno())
                nursery.cancel_scope.cancel()

            nursery.start_soon(take)
            nursery.start_soon(watch)
        return job

    async def _run_job(self, conn: Connection, job: _Job, pid: int) -> str | None:
        """Run ``job`` on the worker ``pid`` at ``conn``; its error, or None
        (``job.result`` set)."""
        try:
            conn.send((job.spec, job.seed, job.view, job.state))
        except (OSError, ValueError) as e:
            return f"could not send it a decision ({e})"
        with trio.move_on_at(job.deadline):
            await trio.lowlevel.wait_readable(conn.fileno())
            try:
                kind, *answer = conn.recv()
            except (EOFError, OSError):
                return "it died"
            if kind == "error":
                job.error = f"{job.spec} raised {answer[0]}"
                return None  # the worker is fine; its strategy failed
            decision, state, note = answer
            job.result = Thought(decision, state, note, pid)
            return None
        return f"{job.spec} took longer than its deadline"

    def _stop_all(self) -> None:
        for process in list(self._processes):
            if process.poll() is None:
                process.kill()
        for process in list(self._processes):
            try:
                process.wait(2.0)
            except subprocess.TimeoutExpired:  # pragma: no cover
                log.warning("think worker pid %s did not end", process.pid)
        self._processes.clear()
