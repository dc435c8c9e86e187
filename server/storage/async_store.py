"""``AsyncStore``: the ``Store`` for trio code, with group commit.

One writer thread owns the connection; trio code never touches it. A write
joins a queue and its caller waits; the writer takes everything queued, writes
it in one transaction, in order, and then wakes every caller of that
transaction at once (one hop back to trio for the whole group). Writes handed
in while a transaction is being written wait and go together in the next one
(group commit): a table still hears that its facts are on disk only once they
are, but a busy server pays one commit for many tables instead of one each.

Writes never raise for a storage fault. When a transaction fails (a read-only
file, a full disk), its writes and every later one stay queued and their
callers get the ``StorageWriteError``: the games go on in memory, and every
later write first retries the queue (``retry()`` does so without writing
anything new). ``on_health(error)`` is called when storage starts failing and
``on_health(None)`` when the queue is written again.

Past ``max_backlog`` queued writes the store gives up on what is queued: it is
dropped, said loudly (``dropped`` says how much, which tables and how many
finished games; ``on_health`` is called with it) and saving goes on for what
comes next. A table whose writes were dropped cannot be rebuilt from the file
any more: its row is deleted (once the file can be written) and it is not
written again, so a restart never brings back an older position of it.

Reads (``read``) go through the writer thread too, beside the queue, so they
are answered even while writes fail.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import trio

from nimmt.engine import Record

from .errors import StorageWriteError
from .facts import Fact
from .rows import StoredTable
from .store import Store

__all__ = ["AsyncStore", "Dropped", "MAX_BACKLOG"]

log = logging.getLogger("nimmt.server")

_T = TypeVar("_T")

#: Writes kept waiting for a failing database before the store gives up on them.
MAX_BACKLOG = 100_000

_UNSET: Any = object()

# writes a table that lost writes still makes: a finished game's record is whole by
# itself, and the close deletes the stale row
_WHOLE = frozenset({"finish_game", "close_table", "reserve_tables"})


@dataclass
class Dropped:
    """What the store threw away when it gave up: ``writes`` in all, the ``tables``
    they belonged to (those go on in memory only) and ``games`` finished games."""

    writes: int = 0
    tables: set[str] = field(default_factory=set)
    games: int = 0

    def describe(self) -> str:
        """``"12 unsaved changes (tables t1, t3; 1 finished game)"``."""
        tables = ", ".join(sorted(self.tables, key=_table_order)) or "none"
        games = f"; {self.games} finished game{'' if self.games == 1 else 's'}" if self.games else ""
        return (f"{self.writes} unsaved change{'' if self.writes == 1 else 's'} "
                f"(table{'' if len(self.tables) == 1 else 's'} {tables}{games})")


def _table_order(table_id: str) -> tuple[int, str]:
    digits = table_id[1:]
    return (int(digits) if digits.isdigit() else 0, table_id)


class _Write:
    __slots__ = ("method", "args", "kwargs", "table", "result", "error", "done", "event", "token")

    def __init__(self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                 table: str | None) -> None:
        self.method, self.args, self.kwargs, self.table = method, args, kwargs, table
        self.result: Any = None
        self.error: BaseException | None = None  # a bug (not a storage fault) in this write
        self.done = False
        self.event: trio.Event | None = None
        self.token: trio.lowlevel.TrioToken | None = None


class _Read:
    __slots__ = ("method", "args", "result", "error", "event", "token")

    def __init__(self, method: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.method, self.args = method, args
        self.result: Any = None
        self.error: BaseException | None = None
        self.event = trio.Event()
        self.token = trio.lowlevel.current_trio_token()


class AsyncStore:
    """Wrap an open ``Store`` for use from trio tasks (it owns and closes it)."""

    def __init__(self, store: Store, *, max_backlog: int = MAX_BACKLOG,
                 on_health: Callable[[StorageWriteError | None], None] | None = None) -> None:
        self.store = store
        self.max_backlog = max_backlog
        self.on_health = on_health
        self.failing: StorageWriteError | None = store.problem
        #: what was dropped since storage last worked (None: nothing)
        self.dropped: Dropped | None = None
        #: tables whose writes were dropped: they are not written again
        self.lost_tables: set[str] = set()
        #: transactions written (each one a group of writes), for tests and benchmarks
        self.commits = 0
        self._queue: deque[_Write] = deque()  # handed in, not yet on disk, in order
        self._reads: deque[_Read] = deque()
        self._wake = threading.Condition()
        self._wanted = False  # new work (or a retry) since the writer last looked
        self._stopping = False
        self._next_table = store.peek_next_table()
        self._token: trio.lowlevel.TrioToken | None = None  # the trio run to report health to
        self._thread = threading.Thread(target=self._run, name="nimmt-store-writer", daemon=True)
        self._thread.start()

    @classmethod
    async def open(cls, path: str | None = None, *, durability: str = "normal",
                   **kwargs: Any) -> AsyncStore:
        """``Store.open(path, durability=...)`` in a worker thread, wrapped (``kwargs``:
        ``on_health``, ``max_backlog``). Raises what ``Store.open`` raises: the server
        should refuse to start. A store that opened read-only has ``failing`` set already."""
        return await trio.to_thread.run_sync(
            lambda: cls(Store.open(path, durability=durability), **kwargs))

    @property
    def backlog(self) -> int:
        """Writes waiting to be written (or retried)."""
        return len(self._queue)

    @property
    def given_up(self) -> bool:
        """Whether writes were dropped since storage last worked."""
        return self.dropped is not None

    # ------------------------------------------------------------------ the writer thread

    def _run(self) -> None:
        store = self.store
        while True:
            with self._wake:
                if not self._wanted and not self._reads and not self._stopping:
                    self._wake.wait(store.checkpoint_wait())
                wanted, self._wanted = self._wanted, False
                batch = list(self._queue) if wanted else []
                reads = list(self._reads)
                self._reads.clear()
                stopping = self._stopping
            if batch:
                try:
                    self._write_batch(batch)
                except BaseException:  # a bug here must not stop the writer: said, and on
                    log.exception("the database writer failed on %d writes", len(batch))
                    for write in batch:
                        if write.token is not None and write.event is not None:
                            _wake_up(write.token, write.event)
            for read in reads:
                try:
                    read.result = read.method(*read.args)
                except BaseException as e:  # handed back to its caller
                    read.error = e
                _wake_up(read.token, read.event)
            # the log is copied back into the file when nobody waits (or it has grown
            # too big): the next transaction then starts it again from its beginning
            store.maybe_checkpoint(busy=self._wanted)
            if stopping:
                return

    def _write_batch(self, batch: list[_Write]) -> None:
        """Writer thread: write ``batch`` (the head of the queue) in one transaction."""
        done, error = self.store.write_group([(w.method, w.args, w.kwargs) for w in batch])
        for write, (result, bug) in zip(batch, done):
            write.result, write.error, write.done = result, bug, True
        dropped: Dropped | None = None
        with self._wake:
            for _ in done:
                self._queue.popleft()
            self.commits += 1 if done else 0
            if error is not None and len(self._queue) > self.max_backlog:
                dropped = self._drop()
        tokens: dict[trio.lowlevel.TrioToken, list[_Write]] = {}
        for write in batch:
            if write.token is not None:
                tokens.setdefault(write.token, []).append(write)
        if not tokens and self._token is not None:
            tokens[self._token] = []  # no caller waits (the drop's own writes): health still said
        for token, writes in tokens.items():
            try:
                token.run_sync_soon(self._after_batch, writes, error, dropped)
            except trio.RunFinishedError:
                pass  # nobody is waiting any more

    def _drop(self) -> Dropped:
        """Writer thread, holding ``_wake``: give up on the queue; tables whose writes go
        are not written again, and their stale rows are deleted once the file can be."""
        dropped = self.dropped or Dropped()
        tables: set[str] = set()
        for write in self._queue:
            dropped.writes += 1
            if write.method == "finish_game":
                dropped.games += 1
            elif write.table is not None and write.method != "close_table":
                tables.add(write.table)
        self._queue.clear()
        tables -= self.lost_tables
        dropped.tables |= tables
        self.lost_tables |= tables
        for table_id in sorted(tables, key=_table_order):
            self._queue.append(_Write("close_table", (table_id,), {}, table_id))
        self._queue.append(_Write("reserve_tables", (self._next_table,), {}, None))
        self.dropped = dropped
        return dropped

    # ------------------------------------------------------------------ back in trio

    def _after_batch(self, writes: list[_Write], error: StorageWriteError | None,
                     dropped: Dropped | None) -> None:
        """Trio thread: the group's callers wake; a change of health is said once."""
        self._health(error, dropped)
        for write in writes:
            if write.event is not None:
                write.event.set()

    def _health(self, error: StorageWriteError | None, dropped: Dropped | None) -> None:
        was = self.failing
        if dropped is not None:
            self.dropped = dropped  # (a success told late must not forget it)
        if dropped is not None and error is not None:
            error = StorageWriteError(
                error.path, f"{error} — gave up on {dropped.describe()}: those tables go on in "
                "memory only; saving goes on for what comes next", error.reason)
            log.error("storage failing for too long: DROPPED %s. Those tables will not come "
                      "back after a restart; what comes next is saved once the file can be "
                      "written", dropped.describe())
        self.failing = error
        if (error is None) == (was is None) and dropped is None:
            return
        if error is not None:
            if dropped is None:
                log.error("storage failing: %s — the games go on in memory", error)
        elif self.dropped is not None:
            log.warning("storage works again: everything queued since the drop is saved; "
                        "LOST %s", self.dropped.describe())
        else:
            log.warning("storage works again: everything queued is saved")
        if self.on_health is not None:
            try:
                self.on_health(error)
            except Exception:  # a bug in the notice must not stop the writes
                log.exception("storage health notice failed")
        if error is None:
            self.dropped = None

    # ------------------------------------------------------------------ plumbing

    def _hand_in(self, write: _Write) -> None:
        with self._wake:
            self._queue.append(write)
            self._wanted = True
            self._wake.notify()

    async def _write(self, method: str, table: str | None, *args: Any, **kwargs: Any) -> Any:
        if table is not None and table in self.lost_tables and method not in _WHOLE:
            return _UNSET  # this table is in memory only since writes of it were dropped
        if self._stopping:
            log.warning("not saved: %s of table %s after the database was closed", method, table)
            return _UNSET
        write = _Write(method, args, kwargs, table)
        write.event = trio.Event()
        write.token = self._token = trio.lowlevel.current_trio_token()
        self._hand_in(write)
        await write.event.wait()
        if write.error is not None:
            raise write.error
        return write.result if write.done else _UNSET

    async def read(self, method: Callable[..., _T], *args: Any) -> _T:
        """Run a read (``store.games``, ``store.open_tables``, ...) in the writer thread,
        beside the writes (answered even while they fail)."""
        read = _Read(method, args)
        with self._wake:
            self._reads.append(read)
            self._wake.notify()
        await read.event.wait()
        if read.error is not None:
            raise read.error
        result: _T = read.result
        return result

    async def retry(self) -> StorageWriteError | None:
        """Try the queued writes again; return the error if storage still fails."""
        if self._queue:
            with self._wake:
                self._wanted = True
            await self.read(lambda: None)  # answered once the writer has tried the queue
        return self.failing

    async def aclose(self) -> None:
        """Write what can be written and close the store."""
        with self._wake:
            self._stopping = True
            self._wanted = True
            self._wake.notify()
        await trio.to_thread.run_sync(self._thread.join)
        await trio.to_thread.run_sync(self.store.close)

    async def open_tables(self) -> list[StoredTable]:
        """What a restarted server brings back (``Store.open_tables``)."""
        return await self.read(self.store.open_tables)

    # ------------------------------------------------------------------ the writes

    def new_table_id(self) -> str:
        """A table id never handed out before by this database; no wait (the mark is
        saved with the next transaction)."""
        number = self._next_table
        self._next_table += 1
        write = _Write("reserve_tables", (self._next_table,), {}, None)
        try:
            write.token = self._token = trio.lowlevel.current_trio_token()
        except RuntimeError:
            pass  # outside trio: written with the next transaction, nobody told
        self._hand_in(write)
        return f"t{number}"

    async def append(self, table_id: str, *facts: Fact) -> StorageWriteError | None:
        """Append facts to a table's log. None: they are on disk. Else the error
        (the facts are queued and will be written, in order, once storage works)."""
        await self._write("append", table_id, table_id, facts)
        return self.failing

    async def create_table(self, table_id: str, name: str, options: dict[str, Any],
                           settings: dict[str, Any], status: str = "waiting") -> StorageWriteError | None:
        await self._write("create_table", table_id, table_id, name, options, settings, status)
        return self.failing

    async def update_table(self, table_id: str, **changes: Any) -> StorageWriteError | None:
        await self._write("update_table", table_id, table_id, **changes)
        return self.failing

    async def set_seat(self, table_id: str, seat: int, name: str, kind: str, *,
                       token: str | None = None, strategy: str | None = None) -> StorageWriteError | None:
        await self._write("set_seat", table_id, table_id, seat, name, kind, token=token,
                          strategy=strategy)
        return self.failing

    async def free_seat(self, table_id: str, seat: int) -> StorageWriteError | None:
        await self._write("free_seat", table_id, table_id, seat)
        return self.failing

    async def watch(self, table_id: str, token_hash: str, name: str,
                    kind: str) -> StorageWriteError | None:
        await self._write("watch", table_id, table_id, token_hash, name, kind)
        return self.failing

    async def unwatch(self, table_id: str, token_hash: str) -> StorageWriteError | None:
        await self._write("unwatch", table_id, table_id, token_hash)
        return self.failing

    async def finish_game(self, table_id: str, table_name: str, game_no: int, record: Record,
                          kinds: Sequence[str], started: float, ended: float) -> int | None:
        """Keep a finished game; its id, or None while storage fails (it is queued)."""
        result = await self._write("finish_game", table_id, table_id, table_name, game_no,
                                   record, tuple(kinds), started, ended)
        return None if result is _UNSET else int(result)

    async def ladder_write(self, work: Callable[[Any], Any]) -> StorageWriteError | None:
        """A writer of ``storage.ladder`` (a claim, ratings), queued like every write."""
        await self._write("ladder_write", None, work)
        return self.failing

    async def ladder_read(self, work: Callable[[Any], _T]) -> _T:
        return await self.read(self.store.ladder_read, work)

    async def close_table(self, table_id: str) -> StorageWriteError | None:
        await self._write("close_table", table_id, table_id)
        return self.failing


def _wake_up(token: trio.lowlevel.TrioToken, event: trio.Event) -> None:
    try:
        token.run_sync_soon(event.set)
    except trio.RunFinishedError:
        pass
