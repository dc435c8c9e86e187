"""``nimmt-server`` that stops right where a finished game was just written, to be
killed there (tests/test_rated_game_end.py).

    python rated_crash_child.py SERVER-ARGS...

It runs the real server (``nimmt.server.cli.main``) with one change: once a table's
write of a finished game is on disk (``Writes.written`` of the writes that hold a
``finish_game``), it prints ``kept GAME-ID`` and that table's task waits there for
good, before it does anything else: no message about the game's end goes out, and
nothing the table would do after that write happens. The test then SIGKILLs the
process, or sends SIGTERM (a clean shutdown, which cancels the waiting table).
"""

from __future__ import annotations

import sys

import trio

from nimmt.server.cli import main
from nimmt.server.storage.writes import Writes

_written = Writes.written


async def _written_then_stop(self: Writes) -> None:
    await _written(self)
    for write in self.handed:
        if write is not None and write.method == "finish_game" and write.done:
            print(f"kept {write.result}", flush=True)
            await trio.sleep_forever()


Writes.written = _written_then_stop  # type: ignore[method-assign]

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
