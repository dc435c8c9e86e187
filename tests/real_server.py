"""Start a real nimmt-server in a child process on 127.0.0.1, port 0, for end-to-end tests
of clients that run on asyncio or in other processes (the trio server tests run it
in-process instead).

The server's log (warnings and up) is kept: a test that fails prints it, and a test
whose server logged a traceback (a bug of the server's, e.g. "the table is closed"
after an internal error) fails even if the client side looked fine."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

ADDRESS = re.compile(r"listening on 127\.0\.0\.1:(\d+)")


@contextmanager
def running_server(*args: str) -> Iterator[int]:
    """Yield the port of a fresh server (keeping nothing on disk; a later ``--db PATH``
    in ``args`` wins); stop it (SIGTERM, then kill) afterwards."""
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "nimmt.server", "--host", "127.0.0.1", "--port", "0",
             "--log-level", "warning", "--db", ":memory:", *args],
            stdout=subprocess.PIPE, stderr=log, text=True,
        )
        passed = False
        try:
            assert server.stdout is not None
            line = server.stdout.readline()
            match = ADDRESS.search(line)
            assert match, f"the server did not say where it listens: {line!r}"
            yield int(match.group(1))
            passed = True
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            log.seek(0)
            text = log.read()
            if not passed and text:
                print(f"--- the server's log ---\n{text}", file=sys.stderr)
        assert "Traceback" not in text, f"the server logged a traceback:\n{text}"
