"""A think worker process as the pool sees it (server/thinking/worker.py, pool.py): it
says ready, answers, and ends quietly when its socket closes; one started for a server
that has gone ends at once, whether the kernel (prctl) or the watching thread (not
Linux) tells it; stopping the pool while a worker starts leaves no process behind.
Real processes (python -m nimmt.server.thinking.worker FD PID), a few tenths of a
second each."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import types
from multiprocessing.connection import Connection

import pytest
import trio
import trio.testing

from nimmt.engine import Decision, Game, Options
from nimmt.server.thinking.pool import ThinkPool


def _worker(parent: int) -> tuple[subprocess.Popen[bytes], Connection]:
    """A worker started as the pool starts one, for the server ``parent``; stderr piped."""
    mine, theirs = socket.socketpair()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "nimmt.server.thinking.worker", str(theirs.fileno()),
             str(parent)], pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
            stderr=subprocess.PIPE)
    finally:
        theirs.close()
    return process, Connection(mine.detach())


def test_a_worker_answers_then_ends_quietly_when_its_socket_closes() -> None:
    process, conn = _worker(os.getpid())
    try:
        assert conn.poll(30) and conn.recv() == ("ready",)
        if sys.platform.startswith("linux"):  # the kernel watches its server: no thread polls
            assert os.listdir(f"/proc/{process.pid}/task") == [str(process.pid)]
        view = Game(Options(players=4), seed=5).view(0)
        conn.send(("random", 1, view, None))
        assert conn.poll(30)
        kind, decision, state, note = conn.recv()
        assert kind == "ok" and isinstance(decision, Decision) and note is None
        assert isinstance(state, bytes) and 0 < len(state) < 1 << 20
        conn.close()  # the server let go of it
        assert process.wait(30) == 0
        assert process.stderr is not None and process.stderr.read() == b""  # no traceback
    finally:
        process.kill()
        process.wait()
        process.stderr.close()  # type: ignore[union-attr]


def test_a_worker_started_for_a_server_that_has_gone_ends_at_once() -> None:
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    process, conn = _worker(ended.pid)  # its parent is not that server
    try:
        assert conn.poll(30)
        try:
            said = conn.recv()
        except EOFError:
            said = None
        assert said is None  # it never said ready: no job is sent to it
        assert process.wait(30) == 1
        assert process.stderr is not None and process.stderr.read() == b""
    finally:
        conn.close()
        process.kill()
        process.wait()
        process.stderr.close()  # type: ignore[union-attr]


_WATCHED = """
import ctypes, os, sys, time
from nimmt.server.thinking import worker
how = sys.argv[3]
if how == "not linux":
    sys.platform = "darwin"
elif how == "no prctl":
    ctypes.CDLL = lambda *args, **kwargs: object()  # a libc without it: AttributeError
else:
    def no_libc(*args, **kwargs):
        raise OSError("no libc")
    ctypes.CDLL = no_libc
worker._PARENT_POLL = 0.01
worker.die_with(int(sys.argv[1]))
time.sleep(float(sys.argv[2]))
print("alive", flush=True)
"""


@pytest.mark.parametrize("how", ["not linux", "no prctl", "no libc"])
def test_without_prctl_a_thread_ends_the_worker_once_its_server_has_gone(how: str) -> None:
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    gone = subprocess.run([sys.executable, "-c", _WATCHED, str(ended.pid), "5", how],
                          capture_output=True, timeout=20)
    assert (gone.returncode, gone.stdout, gone.stderr) == (1, b"", b"")
    # while its server lives, the thread lets it be
    alive = subprocess.run([sys.executable, "-c", _WATCHED, str(os.getpid()), "0.1", how],
                           capture_output=True, timeout=20)
    assert (alive.returncode, alive.stdout, alive.stderr) == (0, b"alive\n", b"")


_ORPHANED = """
import ctypes, os, signal, socket, subprocess, sys, time
from multiprocessing.connection import Connection
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: orphans are ours
told, tell = os.pipe()
server = os.fork()
if server == 0:  # the server: it starts a worker, then is killed
    mine, theirs = socket.socketpair()
    worker = subprocess.Popen(
        [sys.executable, "-m", "nimmt.server.thinking.worker", str(theirs.fileno()),
         str(os.getpid())], pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL)
    conn = Connection(mine.detach())
    assert conn.recv() == ("ready",)
    os.write(tell, str(worker.pid).encode())
    time.sleep(60)
    os._exit(0)
os.close(tell)
worker = int(os.read(told, 100))
os.kill(server, signal.SIGKILL)
os.waitpid(server, 0)
_, status = os.waitpid(worker, 0)  # it came to us when its server died
print("signal", os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
      "exit", os.WEXITSTATUS(status) if os.WIFEXITED(status) else None)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_a_worker_is_killed_by_the_kernel_the_moment_its_server_is_killed() -> None:
    run = subprocess.run([sys.executable, "-c", _ORPHANED], capture_output=True, timeout=40)
    assert (run.returncode, run.stdout, run.stderr) == (0, b"signal 9 exit None\n", b"")


async def test_stopping_the_pool_while_a_worker_starts_leaves_no_process() -> None:
    pool = ThinkPool(1)
    started: list[subprocess.Popen[bytes]] = []
    real_spawn = pool._spawn

    def spawn():  # type: ignore[no-untyped-def]
        process, conn = real_spawn()
        started.append(process)
        return process, conn

    pool._spawn = spawn  # type: ignore[method-assign]
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(pool.run)
            nursery.start_soon(pool.warm_up)
            await trio.testing.wait_all_tasks_blocked()  # spawned, not ready yet
            assert len(started) == 1 and started[0].poll() is None
            nursery.cancel_scope.cancel()
        assert started[0].poll() is not None  # killed, and waited for
    finally:
        for process in started:
            process.kill()
            process.wait()


class _PointerOnArrival:
    """Pickles fine here, and arrives in the worker as a ctypes pointer: a decision
    made of it cannot be pickled back (ValueError)."""

    def __reduce__(self):  # type: ignore[no-untyped-def]
        # built where it arrives: a c_int pickled here fails once another test has
        # imported multiprocessing.sharedctypes (its reducer refuses outside a spawn)
        return (eval, ("__import__('ctypes').pointer(__import__('ctypes').c_int(7))",))


def test_a_worker_whose_answer_cannot_be_sent_back_ends_without_a_traceback() -> None:
    process, conn = _worker(os.getpid())
    try:
        assert conn.poll(30) and conn.recv() == ("ready",)
        conn.send(("random", 1, types.SimpleNamespace(legal=[_PointerOnArrival()]), None))
        assert conn.poll(30)
        try:
            said = conn.recv()
        except EOFError:
            said = None
        assert said is None  # no answer: the pool sees it died, and replaces it
        assert process.wait(30) == 0
        assert process.stderr is not None and process.stderr.read() == b""
    finally:
        conn.close()
        process.kill()
        process.wait()
        process.stderr.close()  # type: ignore[union-attr]
