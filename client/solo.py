"""``nimmt-client --solo``: a private server in a subprocess, for one person and bots.

The server is started as ``python -m nimmt.server --host 127.0.0.1 --port P
--bots N`` on a free port P (found by binding 127.0.0.1:0), its output goes to
a log file, and it is stopped (SIGTERM, then SIGKILL) when the client ends. A
solo game is untimed unless asked otherwise: every decision gets the longest
time the protocol allows (an hour), so reading the help or thinking long never
loses a turn; ``--turn-time`` gives it a clock, ``--time-bank`` extra time.

However the client ends — ``q``, a crash, SIGHUP when its terminal closes, even
SIGKILL — the server ends with it: on Linux the kernel sends it SIGTERM when the
client dies (``prctl(PR_SET_PDEATHSIG)``, set in the child before it runs the
server; no server code is involved). Elsewhere only a client that ends normally
stops it.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import IO

from .model_state import UNTIMED
from .net import ClientConnection, ConnectFailed, HandshakeFailed, connect

__all__ = ["SoloServer", "SoloError", "free_port"]


_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """Run in the child between fork and exec (``preexec_fn``): ask the kernel for
    SIGTERM when the parent dies (Linux); if it already died, end now."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):  # no prctl: the client's own stop() still works
        return
    if os.getppid() != parent:  # the parent died before prctl took effect
        os.kill(os.getpid(), signal.SIGTERM)


class SoloError(Exception):
    """The private server could not be started; ``str()`` says why, in one line."""


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free a moment ago (bind to port 0, read it, close)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class SoloServer:
    """A ``nimmt-server`` subprocess on 127.0.0.1 with a table of ``bots`` bots.

    ``await start()`` launches it; ``await connect(name)`` connects to it (waiting
    until it listens); ``await stop()`` ends it. ``log_path`` has its output.
    """

    def __init__(self, bots: int = 3, *, level: str | None = None,
                 turn_time: float | None = None, time_bank: float = 0.0,
                 extra_args: Sequence[str] = (),
                 python: str = sys.executable, startup_timeout: float = 20.0) -> None:
        self.bots = bots
        self.level = level  # the bots' level (None: the server's default)
        # seconds for each decision (None: untimed, the longest the protocol allows)
        self.turn_time = turn_time
        self.time_bank = time_bank  # your extra time for the game (0: none)
        self.extra_args = tuple(extra_args)
        self.python = python
        self.startup_timeout = startup_timeout
        self.host = "127.0.0.1"
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path: str | None = None
        self._log: IO[bytes] | None = None
        self.failed = False  # keep the log for the user to read

    @property
    def command(self) -> list[str]:
        # --db :memory: - a solo game lives and dies with its client: nothing to bring
        # back, and two solo games at once must not fight over one database file
        seconds = f"{UNTIMED if self.turn_time is None else self.turn_time:g}"
        return [self.python, "-m", "nimmt.server", "--host", self.host, "--port",
                str(self.port), "--bots", str(self.bots), "--db", ":memory:",
                *(("--bot-level", self.level) if self.level else ()),
                "--turn-time", seconds, "--choice-time", seconds, "--draft-time", seconds,
                *(("--time-bank", f"{self.time_bank:g}") if self.time_bank else ()),
                *self.extra_args]

    async def start(self) -> int:
        """Launch the server; returns its port (it may not listen yet: use :meth:`connect`)."""
        self.port = free_port(self.host)
        fd, self.log_path = tempfile.mkstemp(prefix="nimmt-solo-", suffix=".log")
        self._log = os.fdopen(fd, "wb")
        try:
            parent = os.getpid()
            self.process = subprocess.Popen(
                self.command, stdin=subprocess.DEVNULL, stdout=self._log,
                stderr=subprocess.STDOUT, start_new_session=True,
                preexec_fn=lambda: die_with_parent(parent))
        except OSError as exc:
            raise SoloError(f"cannot start the nimmt server ({exc.strerror or exc})") from None
        return self.port

    async def connect(self, name: str, kind: str = "human") -> ClientConnection:
        """Connect to the server as soon as it listens."""
        deadline = time.monotonic() + self.startup_timeout
        while True:
            try:
                return await connect(self.host, self.port, name, kind, connect_timeout=2.0)
            except (ConnectFailed, HandshakeFailed) as exc:
                if self.process is not None and self.process.poll() is not None:
                    self.failed = True
                    raise SoloError("the private nimmt server stopped at once: "
                                    f"{self.last_output() or 'no output'} "
                                    f"(full output: {self.log_path})") from None
                if time.monotonic() > deadline:
                    self.failed = True
                    raise SoloError(f"the private nimmt server did not start in time ({exc}); "
                                    f"its output is in {self.log_path}") from None
            await asyncio.sleep(0.05)

    def last_output(self) -> str:
        """The last non-empty line the server wrote."""
        if self.log_path is None:
            return ""
        try:
            with open(self.log_path, "rb") as f:
                lines = f.read().decode("utf-8", "replace").strip().splitlines()
        except OSError:
            return ""
        return lines[-1].strip() if lines else ""

    async def stop(self, timeout: float = 5.0) -> None:
        """Stop the server (politely, then not) and remove its log. Safe to call twice."""
        proc = self.process
        if proc is not None and proc.poll() is None:
            proc.terminate()
            deadline = time.monotonic() + timeout
            while proc.poll() is None and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        if self._log is not None:
            self._log.close()
            self._log = None
        if self.log_path is not None and not self.failed:
            try:
                os.unlink(self.log_path)
            except OSError:
                pass
            self.log_path = None
