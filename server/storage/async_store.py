"""``AsyncStore``: the ``Store`` for trio code, with group commit.

A write joins a queue and its caller waits. The first write of a moment leads:
it lets every other task that is ready run first (their writes join the
queue), then writes everything queued in one transaction, in order, and wakes
every caller of it. Writes handed in while a transaction is being written wait
and go together in the next one (group commit): a table still hears that its
facts are on disk only once they are, but a busy server pays one commit for
many tables instead of one each.

With ``durability="normal"`` (``synchronous=NORMAL`` in WAL mode) a commit
only hands SQLite's log pages to the operating system — no sync to the disk —
so the transaction runs on the event loop itself: a hand-over of every write
to a thread and back cost the trio thread more than that (benchmarks/README.md,
"The writes on the event loop"). What can wait on the disk runs in threads: the
copies of the log back into the file (a ``Checkpointer`` beside the writes;
the writer's own ``checkpoint`` once the log grew past its bound), reads, and
every transaction with ``durability="full"`` (each one synced).

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
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import trio

from nimmt.engine import Record

from .checkpoints import Checkpointer
from .errors import StorageWriteError
from .facts import Fact
from .ladder import RatingChange
from .rows import StoredTable
from .store import Store
from .writes import WHOLE, Dropped, PendingWrite, Writes, calls, drop_queue

__all__ = ["AsyncStore", "MAX_BACKLOG"]

log = logging.getLogger("nimmt.server")

_T = TypeVar("_T")

#: Writes kept waiting for a failing database before the store gives up on them.
MAX_BACKLOG = 100_000

_UNSET: Any = object()

class AsyncStore:
    """Wrap an open ``Store`` for use from trio tasks (it owns and closes it)."""

    #: seconds (trio's clock) from one part of a fold (``Store.fold_part``) to the next:
    #: the writes wait for one part (a few ms), then what was held up is written and the
    #: writes go on, instead of waiting at once for the next part (benchmarks/README.md,
    #: "The parts of a fold now go apart")
    FOLD_GAP = 0.05
    #: scheduler passes a write waits at most before it leads a transaction, for the
    #: writes of the tasks that are ready to join it; a pass that brought no write ends
    #: the wait. One: with two, a saturated server made 27% fewer transactions but fewer
    #: turns too, its tables waiting longer for their reveals (benchmarks/README.md,
    #: "The upkeep beside the writes, one pass for company")
    PASSES = 1

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
        self._queue: deque[PendingWrite] = deque()  # handed in, not yet on disk, in order
        self._wanted = False  # new writes (or a retry) since the leader last took the queue
        self._leading = False  # a task is writing the queue: later writes wait for it
        # set after each transaction and when the leader lets go: the callers of the
        # writes wait on it, one event for all of them, and look whether theirs was tried
        self._round = trio.Event()
        self._round_awaited = False  # (no new event when nobody waited on this one)
        self._connection = trio.Lock()  # the writes and the reads take turns on it
        self._in_loop = store.durability != "full"
        self._stopping = False
        self._next_table = store.peek_next_table()
        self._checkpointer: Checkpointer | None = store.checkpointer()
        self._fold_after = float("-inf")  # (trio time) no part of a fold before then
        self._checkpoint_due = False  # the log has outgrown its bound: the writer checkpoints
        self._keeping = False  # ``keep_up`` runs: the leader leaves the upkeep to it
        self._upkeep_wanted = trio.Event()  # (set when a transaction finds upkeep due)
        self._closed = False

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
    def keeping(self) -> bool:
        """Whether ``keep_up`` runs (then the upkeep is made beside the writes, and the
        writes of the transaction that found it due never wait for it)."""
        return self._keeping

    @property
    def given_up(self) -> bool:
        """Whether writes were dropped since storage last worked."""
        return self.dropped is not None

    # ------------------------------------------------------------------ the writer

    async def _lead(self) -> None:
        """Write the queue until no write waits (never cancelled: the callers wait for it)."""
        self._leading = True
        try:
            # every task that is ready runs first, and those it wakes: their writes join
            # this group (PASSES)
            for _ in range(self.PASSES):
                queued = len(self._queue)  # (only grows while this task leads)
                await trio.lowlevel.cancel_shielded_checkpoint()
                if len(self._queue) == queued:  # nobody came (a write alone): no second pass
                    break
            while True:
                if self._wanted and self._in_loop and not self._connection.locked():
                    # most transactions: no read and no upkeep under way, so nothing to
                    # wait for: no other task runs until the queue is written
                    self._write_queue()
                if self._wanted:
                    with trio.CancelScope(shield=True):
                        async with self._connection:
                            while self._wanted:
                                if self._in_loop:
                                    self._write_queue()
                                else:  # every transaction synced: the wait is on the disk
                                    self._wanted = False
                                    batch = list(self._queue)
                                    outcome = await trio.to_thread.run_sync(
                                        self._write_group, calls(batch))
                                    self._settle(batch, *outcome)
                if self._keeping or not self._upkeep_now():
                    break
                # nobody keeps the store up (``keep_up`` is not running): the leader does,
                # after the writes it found; then it writes what came meanwhile
                await self._upkeep()
                if not self._wanted:
                    break
        finally:
            self._leading = False
            self._next_round()

    # ------------------------------------------------------------------ the upkeep

    async def keep_up(self) -> None:
        """Keep the store up beside the writes, until cancelled (the server runs this in
        its nursery): a part of a fold when one is due (``FOLD_GAP`` apart), the writer's
        own checkpoint when the log has outgrown its bound. Each waits for the
        transaction under way and holds up only the writes handed in while it runs: the
        writes that found it due are on disk first. Without this task the writer does
        the upkeep itself, after the transaction that found it due."""
        self._keeping = True
        try:
            while not self._closed:
                if self.failing is None and self._upkeep_now():
                    try:
                        await self._upkeep()
                    except Exception:  # a bug here must not stop the server: said, and on
                        log.exception("the database's upkeep failed")
                        self._checkpoint_due = False
                        self._fold_after = trio.current_time() + self.FOLD_GAP
                elif self.failing is None and self.store.fold_due():
                    await trio.sleep_until(self._fold_after)  # the next part of this fold
                else:  # until a transaction finds some due
                    self._upkeep_wanted = trio.Event()
                    await self._upkeep_wanted.wait()
        finally:
            self._keeping = False

    def _upkeep_now(self) -> bool:
        """Whether a checkpoint of the writer, or the next part of a fold, is due now."""
        return self._checkpoint_due or self._fold_now()

    async def _upkeep(self) -> None:
        """Between two transactions (the writes handed in meanwhile wait): the writer's
        own checkpoint if due, then the next part of a fold if due, each in a thread."""
        with trio.CancelScope(shield=True):
            async with self._connection:
                if self._closed:
                    return
                if self._checkpoint_due:
                    self._checkpoint_due = False
                    await trio.to_thread.run_sync(self._checkpoint)
                if self._fold_now():  # (a few ms: one part of the tables at a time)
                    await trio.to_thread.run_sync(self.store.fold_part)
                    self._fold_after = trio.current_time() + self.FOLD_GAP

    def _fold_now(self) -> bool:
        """Whether the next part of a fold is due now (``Store.fold_due``, ``FOLD_GAP`` after
        the last part)."""
        return self.store.fold_due() and trio.current_time() >= self._fold_after

    def _write_queue(self) -> None:
        """One transaction of everything queued, on the event loop."""
        self._wanted = False
        batch = list(self._queue)
        self._settle(batch, *self._write_group(calls(batch)))

    async def _try_queue(self) -> None:
        """Until every write queued now has been tried once more."""
        self._wanted = True
        if not self._leading:
            await self._lead()
        while self._leading:  # the leader tries the whole queue before it lets go
            self._round_awaited = True
            await self._round.wait()

    def _checkpoint(self) -> None:
        """Worker thread: the writer's own checkpoint, between its transactions (after
        the checkpointer's, if one is under way: two at once, one would fail busy)."""
        if self._checkpointer is None:
            self.store.checkpoint()
        else:
            with self._checkpointer.lock:
                self.store.checkpoint()

    def _write_group(self, calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]],
                     ) -> tuple[list[tuple[Any, BaseException | None]], StorageWriteError | None]:
        try:
            return self.store.write_group(calls)
        except BaseException:  # a bug here must not stop the writes: said, and on
            log.exception("the database writer failed on %d writes", len(calls))
            return [], None

    def _settle(self, batch: list[PendingWrite], done: list[tuple[Any, BaseException | None]],
                error: StorageWriteError | None) -> None:
        """After a transaction: what it wrote leaves the queue and every caller wakes."""
        queue = self._queue
        for write, (result, bug) in zip(batch, done):
            write.result, write.error, write.done = result, bug, True
            queue.popleft()
        if done:
            self.commits += 1
            if self._checkpointer is not None:
                self._checkpointer.poke()
            # (a look at the log's size every few transactions: it grows by a few pages
            # a transaction, the bound is 4 MiB)
            if self.commits % 8 == 0 and self.store.log_too_big():
                self._checkpoint_due = True
            if self._checkpoint_due or self.store.fold_due():
                self._upkeep_wanted.set()
        dropped = self._drop() if error is not None and len(self._queue) > self.max_backlog else None
        self._health(error, dropped)
        for write in batch:
            write.tried = True
            if write.on_tried is not None:
                write.on_tried()
        self._next_round()

    def _next_round(self) -> None:
        """Wake every caller waiting for a transaction: theirs was tried, or they wait on."""
        if self._round_awaited:
            self._round_awaited = False
            self._round.set()
            self._round = trio.Event()

    def _drop(self) -> Dropped:
        """Give up on the queue; tables whose writes go
        are not written again, and their stale rows are deleted once the file can be."""
        dropped = self.dropped or Dropped()
        drop_queue(self._queue, self.lost_tables, dropped, self._next_table)
        self.dropped = dropped
        return dropped

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

    def _hand_in(self, write: PendingWrite) -> None:
        self._queue.append(write)
        self._wanted = True

    def _submit(self, method: str, table: str | None, *args: Any, **kwargs: Any) -> PendingWrite | None:
        """Hand in the write ``method(*args, **kwargs)`` of ``table`` (one of ``Store``'s
        writes; ``Writes`` names them) without waiting for it; ``await written(it)`` waits
        until it and every write handed in before it have been tried. None: it will not
        be written (the table lost writes before, or the store is closing)."""
        if table is not None and table in self.lost_tables and method not in WHOLE:
            return None  # this table is in memory only since writes of it were dropped
        if self._stopping:
            log.warning("not saved: %s of table %s after the database was closed", method, table)
            return None
        write = PendingWrite(method, args, kwargs, table)
        self._hand_in(write)
        return write

    async def written(self, write: PendingWrite | None) -> Any:
        """Wait until ``write`` (from ``Writes``) has been tried; its result (the
        store's), or ``_UNSET`` if it is not on disk (storage fails: it stays queued)."""
        if write is None:
            return _UNSET
        while not write.tried:
            if self._leading:  # (with durability "full" it may go in the next transaction)
                self._round_awaited = True
                await self._round.wait()
            else:  # the leader tries the whole queue, this write included
                await self._lead()
        if write.error is not None:
            raise write.error
        return write.result if write.done else _UNSET

    async def written_all(self, writes: Sequence[PendingWrite | None]) -> None:
        """Wait once until every one of ``writes`` (from ``Writes``, in the order handed
        in) has been tried; raise the first one's bug, if one had a bug."""
        last = None
        for write in writes:  # (the writes before the last went in its transaction or earlier)
            if write is not None:
                last = write
        try:
            await self.written(last)
        except Exception:
            pass  # its bug: raised below, unless an earlier write had one
        for write in writes:
            if write is not None and write.error is not None:
                raise write.error

    def game_id(self, write: PendingWrite | None) -> int | None:
        """The id of the game kept by a tried ``finish_game`` write (None: not on disk)."""
        return int(write.result) if write is not None and write.done else None

    async def read(self, method: Callable[..., _T], *args: Any) -> _T:
        """Run a read (``store.games``, ``store.open_tables``, ...) in a worker thread,
        between the transactions (answered even while they fail)."""
        async with self._connection:
            return await trio.to_thread.run_sync(method, *args)

    async def retry(self) -> StorageWriteError | None:
        """Try the queued writes again; return the error if storage still fails."""
        if self._queue:
            await self._try_queue()
        return self.failing

    async def aclose(self) -> None:
        """Write what can be written and close the store."""
        self._stopping = True  # later writes are refused (said in the log)
        if self._queue or self._leading:
            await self._try_queue()
        async with self._connection:
            self._closed = True
            self._upkeep_wanted.set()  # (``keep_up`` ends)
            if self._checkpointer is not None:
                await trio.to_thread.run_sync(self._checkpointer.stop)
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
        self._hand_in(PendingWrite("reserve_tables", (self._next_table,), {}, None))
        return f"t{number}"

    async def _one(self, write: PendingWrite | None) -> StorageWriteError | None:
        """Wait for one write; None if it is on disk, else the storage error."""
        await self.written(write)
        return self.failing

    def writes(self) -> Writes:
        """Writes to hand in now and wait for once: ``w = store.writes(); w.append(...);
        w.set_seat(...); await w.written()`` (a table's writes of one step)."""
        return Writes(self._submit, self.written_all)

    async def append(self, table_id: str, *facts: Fact) -> StorageWriteError | None:
        """Append facts to a table's log. None: they are on disk. Else the error
        (the facts are queued and will be written, in order, once storage works)."""
        return await self._one(self.writes().append(table_id, facts))

    async def create_table(self, table_id: str, name: str, options: dict[str, Any],
                           settings: dict[str, Any], status: str = "waiting") -> StorageWriteError | None:
        return await self._one(self.writes().create_table(table_id, name, options, settings,
                                                          status))

    async def update_table(self, table_id: str, **changes: Any) -> StorageWriteError | None:
        return await self._one(self.writes().update_table(table_id, **changes))

    async def set_seat(self, table_id: str, seat: int, name: str, kind: str, *,
                       token: str | None = None, strategy: str | None = None) -> StorageWriteError | None:
        return await self._one(self.writes().set_seat(table_id, seat, name, kind, token=token,
                                                      strategy=strategy))

    async def free_seat(self, table_id: str, seat: int) -> StorageWriteError | None:
        return await self._one(self.writes().free_seat(table_id, seat))

    async def watch(self, table_id: str, token_hash: str, name: str,
                    kind: str) -> StorageWriteError | None:
        return await self._one(self.writes().watch(table_id, token_hash, name, kind))

    async def unwatch(self, table_id: str, token_hash: str) -> StorageWriteError | None:
        return await self._one(self.writes().unwatch(table_id, token_hash))

    async def finish_game(self, table_id: str, table_name: str, game_no: int, record: Record,
                          kinds: Sequence[str], started: float, ended: float,
                          ratings: Sequence[RatingChange] = ()) -> int | None:
        """Keep a finished game (with its ``ratings``, if rated); its id, or None while
        storage fails (it is queued)."""
        write = self.writes().finish_game(table_id, table_name, game_no, record, kinds,
                                          started, ended, ratings)
        await self.written(write)
        return self.game_id(write)

    async def ladder_write(self, work: Callable[[Any], Any]) -> StorageWriteError | None:
        """A writer of ``storage.ladder`` (a claim, ratings), queued like every write."""
        return await self._one(self.writes().ladder_write(work))

    async def ladder_read(self, work: Callable[[Any], _T]) -> _T:
        return await self.read(self.store.ladder_read, work)

    async def close_table(self, table_id: str) -> StorageWriteError | None:
        return await self._one(self.writes().close_table(table_id))
