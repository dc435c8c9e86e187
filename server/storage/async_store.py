"""``AsyncStore``: the ``Store`` for trio code. Every database call runs in a
worker thread (``trio.to_thread.run_sync``), never on the event loop.

One connection, one call at a time: a ``trio.Lock`` (which is fair: first come,
first served) lets one call at a time into a worker thread, so writes reach
the file in the order they were asked for.

Writes never raise for a storage fault. Each one joins a queue; the queue is
written in order, each write in its own transaction. When a write fails (a
read-only file, a full disk), it and every later write stay queued and the call
returns the ``StorageWriteError``: the games go on in memory, and every later
write first retries the queue (``retry()`` does so without writing anything
new). ``on_health(error)`` is called when storage starts failing and
``on_health(None)`` when the queue is written again. Past ``max_backlog``
queued writes the store gives up (``given_up``): what is queued is dropped and
nothing more is written; the games stay in memory only.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import trio

from nimmt.engine import Record

from .errors import StorageWriteError
from .facts import Fact
from .rows import StoredTable
from .store import Store

__all__ = ["AsyncStore", "MAX_BACKLOG"]

log = logging.getLogger("nimmt.server")

_T = TypeVar("_T")

#: Writes kept waiting for a failing database before the store gives up.
MAX_BACKLOG = 100_000

_UNSET: Any = object()


class _Write:
    __slots__ = ("method", "args", "kwargs", "result", "error", "done")

    def __init__(self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.method, self.args, self.kwargs = method, args, kwargs
        self.result: Any = None
        self.error: BaseException | None = None  # a bug (not a storage fault) in this write
        self.done = False


class AsyncStore:
    """Wrap an open ``Store`` for use from trio tasks (it owns and closes it)."""

    def __init__(self, store: Store, *, max_backlog: int = MAX_BACKLOG,
                 on_health: Callable[[StorageWriteError | None], None] | None = None) -> None:
        self.store = store
        self.max_backlog = max_backlog
        self.on_health = on_health
        self.failing: StorageWriteError | None = store.problem
        self.given_up = False
        self._queue: deque[_Write] = deque()
        self._lock = trio.Lock()
        self._next_table = store.peek_next_table()

    @classmethod
    async def open(cls, path: str | None = None, **kwargs: Any) -> AsyncStore:
        """``Store.open(path)`` in a worker thread, wrapped (``kwargs``: ``on_health``,
        ``max_backlog``). Raises what ``Store.open`` raises: the server should refuse
        to start. A store that opened read-only has ``failing`` set already."""
        return await trio.to_thread.run_sync(lambda: cls(Store.open(path), **kwargs))

    @property
    def backlog(self) -> int:
        """Writes waiting to be retried."""
        return len(self._queue)

    # ------------------------------------------------------------------ plumbing

    async def read(self, method: Callable[..., _T], *args: Any) -> _T:
        """Run a read (``store.games``, ``store.open_tables``, ...) in a worker thread."""
        async with self._lock:
            return await trio.to_thread.run_sync(method, *args)

    def _flush(self) -> StorageWriteError | None:
        """Worker thread: write the queue in order until it is empty or a write fails."""
        store = self.store
        while self._queue:
            write = self._queue[0]
            try:
                write.result = getattr(store, write.method)(*write.args, **write.kwargs)
            except StorageWriteError as e:
                return e
            except Exception as e:  # a bug in this write: it is dropped, the rest goes on
                write.error = e
            write.done = True
            self._queue.popleft()
        return None

    async def _write(self, method: str, *args: Any, **kwargs: Any) -> Any:
        if self.given_up:
            return _UNSET
        write = _Write(method, args, kwargs)
        self._queue.append(write)
        async with self._lock:
            if not write.done:
                error = await trio.to_thread.run_sync(self._flush)
                self._health(error)
        if write.error is not None:
            raise write.error
        return write.result if write.done else _UNSET

    def _health(self, error: StorageWriteError | None) -> None:
        was = self.failing
        if error is not None and len(self._queue) > self.max_backlog:
            self.given_up = True
            self._queue.clear()
            error = StorageWriteError(
                error.path, f"{error} — gave up after {self.max_backlog} unsaved writes: "
                "the games go on in memory only", error.reason)
        self.failing = error
        if (error is None) != (was is None) or (self.given_up and error is not None):
            if error is not None:
                log.error("storage failing: %s — the games go on in memory", error)
            else:
                log.warning("storage works again: everything queued is saved")
            if self.on_health is not None:
                self.on_health(error)

    async def retry(self) -> StorageWriteError | None:
        """Try the queued writes again; return the error if storage still fails."""
        if self._queue:
            async with self._lock:
                self._health(await trio.to_thread.run_sync(self._flush))
        return self.failing

    async def aclose(self) -> None:
        """Write what can be written and close the store."""
        async with self._lock:
            if self._queue and not self.given_up:
                await trio.to_thread.run_sync(self._flush)
            await trio.to_thread.run_sync(self.store.close)

    async def open_tables(self) -> list[StoredTable]:
        """What a restarted server brings back (``Store.open_tables``)."""
        return await self.read(self.store.open_tables)

    # ------------------------------------------------------------------ the writes

    def new_table_id(self) -> str:
        """A table id never handed out before by this database; no wait (the mark is
        saved in the background of the next write)."""
        number = self._next_table
        self._next_table += 1
        if not self.given_up:
            self._queue.append(_Write("reserve_tables", (self._next_table,), {}))
        return f"t{number}"

    async def append(self, table_id: str, *facts: Fact) -> StorageWriteError | None:
        """Append facts to a table's log. None: they are on disk. Else the error
        (the facts are queued and will be written, in order, once storage works)."""
        await self._write("append", table_id, facts)
        return self.failing

    async def create_table(self, table_id: str, name: str, options: dict[str, Any],
                           settings: dict[str, Any], status: str = "waiting") -> StorageWriteError | None:
        await self._write("create_table", table_id, name, options, settings, status)
        return self.failing

    async def update_table(self, table_id: str, **changes: Any) -> StorageWriteError | None:
        await self._write("update_table", table_id, **changes)
        return self.failing

    async def set_seat(self, table_id: str, seat: int, name: str, kind: str, *,
                       token: str | None = None, strategy: str | None = None) -> StorageWriteError | None:
        await self._write("set_seat", table_id, seat, name, kind, token=token, strategy=strategy)
        return self.failing

    async def free_seat(self, table_id: str, seat: int) -> StorageWriteError | None:
        await self._write("free_seat", table_id, seat)
        return self.failing

    async def watch(self, table_id: str, token_hash: str, name: str,
                    kind: str) -> StorageWriteError | None:
        await self._write("watch", table_id, token_hash, name, kind)
        return self.failing

    async def unwatch(self, table_id: str, token_hash: str) -> StorageWriteError | None:
        await self._write("unwatch", table_id, token_hash)
        return self.failing

    async def finish_game(self, table_id: str, table_name: str, game_no: int, record: Record,
                          kinds: Sequence[str], started: float, ended: float) -> int | None:
        """Keep a finished game; its id, or None while storage fails (it is queued)."""
        result = await self._write("finish_game", table_id, table_name, game_no, record,
                                   tuple(kinds), started, ended)
        return None if result is _UNSET else int(result)

    async def ladder_write(self, work: Callable[[Any], Any]) -> StorageWriteError | None:
        """A writer of ``storage.ladder`` (a claim, ratings), queued like every write."""
        await self._write("ladder_write", work)
        return self.failing

    async def ladder_read(self, work: Callable[[Any], _T]) -> _T:
        return await self.read(self.store.ladder_read, work)

    async def close_table(self, table_id: str) -> StorageWriteError | None:
        await self._write("close_table", table_id)
        return self.failing
