"""``Checkpointer``: copies the write-ahead log back into the database file on a thread
of its own, beside the writes (``Store.checkpointer`` makes one)."""

from __future__ import annotations

import sqlite3
import threading

__all__ = ["Checkpointer"]


class Checkpointer:
    """Copies the write-ahead log back into the database file beside the writes, on a
    connection and a thread of its own (PASSIVE: it never stops a writer or a reader).

    ``poke()`` after each write; at most every ``INTERVAL`` seconds the thread copies
    what the log holds. The log starts again from its beginning at the first write
    after a checkpoint that copied all of it; while writes keep coming that may not
    happen, and the writer then checkpoints itself (``Store.log_too_big``): with
    this thread's copying done already, that one has little left to copy."""

    INTERVAL = 0.25

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._db = conn
        self._db.execute("PRAGMA busy_timeout = 0")
        self._wake = threading.Condition()
        self._written = False
        self._stopping = False
        #: held while a checkpoint is made: the writer's own waits for this thread's
        self.lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="nimmt-store-checkpointer",
                                        daemon=True)
        self._thread.start()

    def poke(self) -> None:
        """Something was written (no wait: the thread copies it within ``INTERVAL``)."""
        if not self._written:
            with self._wake:
                self._written = True
                self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._written and not self._stopping:
                    self._wake.wait()
                if self._stopping:
                    break
                self._written = False
            try:
                with self.lock:
                    self._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            except sqlite3.Error:
                pass  # failing: the next one tries again
            with self._wake:
                self._wake.wait_for(lambda: self._stopping, self.INTERVAL)
        self._db.close()

    def stop(self) -> None:
        """Stop the thread and close its connection (waits for a checkpoint under way)."""
        with self._wake:
            self._stopping = True
            self._wake.notify()
        self._thread.join()
