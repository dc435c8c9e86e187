"""A bot's worker process dies with its server, even a server killed (SIGKILL) while
the worker is in the middle of a long decision. Real server process on 127.0.0.1."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from nimmt import protocol as P
from pty_helpers import alive, children
from real_server import ADDRESS
from server_helpers import ScriptClient

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="finds the worker in /proc")


def _cpu_seconds(pid: int) -> float:
    """The CPU time ``pid`` has used (user and system), 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _workers(server: int) -> list[int]:
    found = []
    for pid in children(server):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"nimmt.server.thinking.worker" in cmdline:
            found.append(pid)
    return found


async def _until(what: str, test, timeout: float = 30.0):  # noqa: ANN001 - a predicate
    with trio.move_on_after(timeout):
        while not (value := test()):
            await trio.sleep(0.02)
        return value
    raise AssertionError(f"waited {timeout:g} s for {what}")


async def test_a_worker_thinking_dies_with_its_killed_server() -> None:
    """The bot's decision would take 51 s; the server is SIGKILLed while its worker
    thinks: the worker is gone within 5 s (it used to think on for the whole 51 s)."""
    server = subprocess.Popen(
        [sys.executable, "-m", "nimmt.server", "--host", "127.0.0.1", "--port", "0",
         "--log-level", "warning", "--db", ":memory:", "--bots", "1",
         "--bot-level", "search:ms=60000", "--bot-workers", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    workers: list[int] = []
    try:
        assert server.stdout is not None
        found = ADDRESS.search(server.stdout.readline())
        assert found, "the server did not say where it listens"
        ann = await ScriptClient.tcp(int(found.group(1)), "Ann")
        listing = await ann.request(P.ListTables())
        (table,) = listing.tables
        assert isinstance(await ann.request(P.Join(table_id=table.table_id)), P.Seated)
        await ann.expect("turn_started")
        (worker,) = workers = await _until("a worker", lambda: _workers(server.pid))
        # a worker's start-up takes about 0.5 s of CPU: past 1.5 s it is thinking
        await _until("the worker thinking", lambda: _cpu_seconds(worker) > 1.5, timeout=50.0)
        server.kill()
        server.wait(timeout=10)
        await _until("the worker gone", lambda: not alive(worker), timeout=5.0)
        await ann.aclose()
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        for pid in workers:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)

