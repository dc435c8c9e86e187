"""Worker processes for the bots that think: ``ThinkPool``.

A searching bot spends ~100 ms of CPU a decision; in the server's process that
would stop every table (CPU-bound Python holds the GIL, even in a thread). So
the table actors hand timed strategies' decisions (``nimmt.bots.TIMED``) to a
few worker processes and await the answer without blocking the event loop:

* one trio task per worker sends a job down a pipe and waits for the pipe to be
  readable (``trio.lowlevel.wait_readable``): no threads, no polling;
* the workers run at a lower priority (``os.nice``) so that the event loop wins
  the cores when it needs them;
* a job has a deadline; a worker that passes it, or dies, is killed and replaced,
  and the job fails (``ThinkFailed``): the table decides with a cheap strategy
  instead; nothing waits on a wedged worker;
* the workers start on the first job (a server whose bots never search starts
  none) and are stopped, and waited for, when ``run`` ends (server shutdown).

Only the seat's ``View`` crosses to the worker (it pickles): what the bot may know.
"""

from __future__ import annotations

import logging
import math
import multiprocessing
import os
import signal
from collections import OrderedDict
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

import trio

from nimmt.bots import Strategy, make_strategy
from nimmt.engine import Decision, View

__all__ = ["ThinkPool", "ThinkFailed", "default_workers"]

log = logging.getLogger("nimmt.server")

#: how much lower the workers' priority is than the server's (``nice``)
WORKER_NICENESS = 10
#: strategies a worker keeps between decisions (each bot's own, by spec and seed)
_KEPT = 256


class ThinkFailed(Exception):
    """A worker did not answer in time, died, or its strategy raised (``str()`` says which)."""


def default_workers() -> int:
    """One worker per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


@dataclass(eq=False)
class _Job:
    spec: str
    seed: int | None
    view: View
    deadline: float  # trio time
    done: trio.Event = field(default_factory=trio.Event)
    result: Decision | None = None
    error: str | None = None
    abandoned: bool = False


class ThinkPool:
    """Worker processes that run strategies; ``await decide(...)`` from any task.

    ``run()`` must be running (in the server's nursery) for jobs to be taken.
    """

    def __init__(self, workers: int = 0) -> None:
        self.workers = workers or default_workers()
        self._send, self._jobs = trio.open_memory_channel[_Job](math.inf)
        self._processes: set[multiprocessing.process.BaseProcess] = set()
        self._started = False
        self._waiting = 0  # decisions asked for and not answered yet
        self._nursery: trio.Nursery | None = None
        self._ctx = multiprocessing.get_context("spawn")  # no fork of a trio process

    def __repr__(self) -> str:
        return f"<ThinkPool {self.workers} workers, {len(self._processes)} running>"

    @property
    def processes(self) -> list[multiprocessing.process.BaseProcess]:
        """The worker processes alive now (tests check none is left)."""
        return [p for p in self._processes if p.is_alive()]

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

    async def decide(self, spec: str, seed: int | None, view: View, timeout: float) -> Decision:
        """``spec``'s decision (``make_strategy(spec, seed)``) for ``view``, within
        ``timeout`` seconds from now, waiting for a free worker included. Raises
        ``ThinkFailed`` if it cannot be had in time."""
        if self._nursery is None:
            raise ThinkFailed("the pool is not running")
        if not self._started:
            self._started = True
            for n in range(self.workers):
                self._nursery.start_soon(self._worker, n, name=f"think worker {n}")
        job = _Job(spec, seed, view, trio.current_time() + timeout)
        self._send.send_nowait(job)
        self._waiting += 1
        try:
            with trio.move_on_at(job.deadline + 0.05):  # the worker task fails it on time
                await job.done.wait()
        except BaseException:  # cancelled (the table closed): nobody wants the answer
            job.abandoned = True
            raise
        finally:
            self._waiting -= 1
        if not job.done.is_set():
            job.abandoned = True  # still waiting for a worker: dropped when taken
            raise ThinkFailed(f"no worker was free within {timeout:g} s")
        if job.error is not None:
            raise ThinkFailed(job.error)
        assert job.result is not None
        return job.result

    # ------------------------------------------------------------------ workers
    def _spawn(self) -> tuple[multiprocessing.process.BaseProcess, Connection]:
        mine, theirs = self._ctx.Pipe()
        process = self._ctx.Process(target=_serve, args=(theirs,), daemon=True,
                                    name="nimmt-think")
        process.start()
        theirs.close()
        self._processes.add(process)
        return process, mine

    def _kill(self, process: multiprocessing.process.BaseProcess, conn: Connection) -> None:
        conn.close()
        if process.is_alive():
            process.kill()
        process.join(1.0)
        self._processes.discard(process)

    async def _worker(self, n: int) -> None:
        process: multiprocessing.process.BaseProcess | None = None
        conn: Connection | None = None
        try:
            async for job in self._jobs:
                if job.abandoned or trio.current_time() >= job.deadline:
                    if not job.done.is_set():
                        job.error = "no worker was free in time"
                        job.done.set()
                    continue
                if process is None or conn is None or not process.is_alive():
                    if process is not None and conn is not None:
                        self._kill(process, conn)
                    process, conn = self._spawn()
                error = await self._run_job(conn, job)
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

    async def _run_job(self, conn: Connection, job: _Job) -> str | None:
        """Run ``job`` on the worker at ``conn``; its error, or None (``job.result`` set)."""
        try:
            conn.send((job.spec, job.seed, job.view))
        except (OSError, ValueError) as e:
            return f"could not send it a decision ({e})"
        with trio.move_on_at(job.deadline):
            await trio.lowlevel.wait_readable(conn.fileno())
            try:
                kind, value = conn.recv()
            except (EOFError, OSError):
                return "it died"
            if kind == "error":
                job.error = f"{job.spec} raised {value}"
                return None  # the worker is fine; its strategy failed
            job.result = value
            return None
        return f"{job.spec} took longer than its deadline"

    def _stop_all(self) -> None:
        for process in list(self._processes):
            if process.is_alive():
                process.kill()
        for process in list(self._processes):
            process.join(2.0)
        self._processes.clear()


def _serve(conn: Connection) -> None:
    """A worker process: decide every view it is sent until its pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    try:
        os.nice(WORKER_NICENESS)
    except (AttributeError, OSError):  # pragma: no cover - not allowed here
        pass
    kept: OrderedDict[tuple[str, int | None], Strategy] = OrderedDict()
    while True:
        try:
            spec, seed, view = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        try:
            strategy = kept.get((spec, seed))
            if strategy is None:
                strategy = kept[(spec, seed)] = make_strategy(spec, seed)
                if len(kept) > _KEPT:
                    kept.popitem(last=False)
            kept.move_to_end((spec, seed))
            reply: tuple[str, Any] = ("ok", strategy.decide(view))
        except Exception as e:  # a strategy's bug: the server decides another way
            reply = ("error", repr(e))
        try:
            conn.send(reply)
        except (OSError, ValueError):
            return
