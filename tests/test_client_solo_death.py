"""``nimmt-client --solo``'s private server ends with the client, however the client
ends: killed by SIGHUP (its terminal closed) or by SIGKILL.

The client runs as a real process on a pseudo-terminal; its server child is found
in /proc; whatever happens, everything started here is killed at the end.
"""

from __future__ import annotations

import os
import signal
import sys
import time

import pytest
from pty_helpers import PtyProcess, alive, children, client_argv

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the server's death with its client uses Linux prctl")


def _server_of(client: PtyProcess, timeout: float = 20.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for pid in children(client.pid):
            try:
                cmdline = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
            except OSError:
                continue
            if b"nimmt.server" in cmdline:
                return pid
        time.sleep(0.05)
    raise AssertionError(f"no server child of the client; screen:\n{client.text()}")


def _gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGKILL], ids=["SIGHUP", "SIGKILL"])
def test_the_solo_server_ends_when_its_client_is_killed(tmp_path, sig: int) -> None:
    client = PtyProcess(client_argv("--solo", "2", "--name", "Tess"), 80, 24,
                        env={"NIMMT_STATE_DIR": str(tmp_path)})
    server = None
    try:
        server = _server_of(client)
        client.wait_for(lambda text: "turn 1/10" in text, "the solo game to start")
        os.kill(client.pid, sig)
        client.proc.wait(timeout=10)
        assert _gone(server), f"the private server {server} outlived its client ({sig!r})"
    finally:
        if server is not None and alive(server):
            os.kill(server, signal.SIGKILL)
        client.close()
