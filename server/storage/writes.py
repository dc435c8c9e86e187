"""The writes handed to an ``AsyncStore``, and what becomes of them.

``PendingWrite``: one write (a ``Store`` method and its arguments) and its outcome
once tried; ``Writes``: a table's writes of one step, handed in at once and waited
for once; ``Dropped``: what the store gave up on when storage failed for too long
(``drop_queue``), and the tables that then go on in memory only.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from nimmt.engine import Record

from .facts import Fact
from .ladder import RatingChange

__all__ = ["PendingWrite", "Writes", "Dropped", "WHOLE", "drop_queue", "calls", "table_order"]

# writes a table that lost writes still makes: a finished game's record is whole by
# itself, and the close deletes the stale row
WHOLE = frozenset({"finish_game", "close_table", "reserve_tables"})


@dataclass
class Dropped:
    """What the store threw away when it gave up: ``writes`` in all, the ``tables``
    they belonged to (those go on in memory only) and ``games`` finished games."""

    writes: int = 0
    tables: set[str] = field(default_factory=set)
    games: int = 0

    def describe(self) -> str:
        """``"12 unsaved changes (tables t1, t3; 1 finished game)"``."""
        tables = ", ".join(sorted(self.tables, key=table_order)) or "none"
        games = f"; {self.games} finished game{'' if self.games == 1 else 's'}" if self.games else ""
        return (f"{self.writes} unsaved change{'' if self.writes == 1 else 's'} "
                f"(table{'' if len(self.tables) == 1 else 's'} {tables}{games})")


def calls(batch: list[PendingWrite]) -> list[tuple[str, tuple[Any, ...], dict[str, Any]]]:
    return [(write.method, write.args, write.kwargs) for write in batch]


def table_order(table_id: str) -> tuple[int, str]:
    digits = table_id[1:]
    return (int(digits) if digits.isdigit() else 0, table_id)


class PendingWrite:
    """A write handed in (``AsyncStore.writes()``), its outcome once tried."""

    __slots__ = ("method", "args", "kwargs", "table", "result", "error", "done", "tried",
                 "on_tried")

    def __init__(self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                 table: str | None) -> None:
        self.method, self.args, self.kwargs, self.table = method, args, kwargs, table
        self.result: Any = None
        self.error: BaseException | None = None  # a bug (not a storage fault) in this write
        self.done = False  # written
        self.tried = False  # written, or failed (then still queued)
        #: called once it is tried (by whichever task wrote it; a table that does not
        #: wait for it learns so)
        self.on_tried: Callable[[], None] | None = None


class Writes:
    """Writes handed to an ``AsyncStore`` at once, in order, without waiting. Each method
    is one of ``Store``'s writes (same arguments) and returns its ``PendingWrite``, or
    None when it will not be written (its table lost writes before, or the store is
    closing); ``await written()`` waits once until all of them have been tried."""

    __slots__ = ("_submit", "_written_all", "handed")

    def __init__(self, submit: Callable[..., PendingWrite | None],
                 written_all: Callable[[Sequence[PendingWrite | None]], Awaitable[None]]) -> None:
        """``submit``, ``written_all``: the store's (``AsyncStore._submit``, ``written_all``)."""
        self._submit = submit
        self._written_all = written_all
        self.handed: list[PendingWrite | None] = []

    def _add(self, method: str, table: str | None, *args: Any, **kwargs: Any) -> PendingWrite | None:
        write = self._submit(method, table, *args, **kwargs)
        self.handed.append(write)
        return write

    async def written(self) -> None:
        """Wait until every write handed in here has been tried (``AsyncStore.written_all``)."""
        await self._written_all(self.handed)

    def append(self, table_id: str, facts: Sequence[Fact]) -> PendingWrite | None:
        return self._add("append", table_id, table_id, tuple(facts))

    def create_table(self, table_id: str, name: str, options: dict[str, Any],
                     settings: dict[str, Any], status: str = "waiting") -> PendingWrite | None:
        return self._add("create_table", table_id, table_id, name, options, settings, status)

    def update_table(self, table_id: str, **changes: Any) -> PendingWrite | None:
        return self._add("update_table", table_id, table_id, **changes)

    def set_seat(self, table_id: str, seat: int, name: str, kind: str, *,
                 token: str | None = None, strategy: str | None = None) -> PendingWrite | None:
        return self._add("set_seat", table_id, table_id, seat, name, kind, token=token,
                         strategy=strategy)

    def free_seat(self, table_id: str, seat: int) -> PendingWrite | None:
        return self._add("free_seat", table_id, table_id, seat)

    def watch(self, table_id: str, token_hash: str, name: str, kind: str) -> PendingWrite | None:
        return self._add("watch", table_id, table_id, token_hash, name, kind)

    def unwatch(self, table_id: str, token_hash: str) -> PendingWrite | None:
        return self._add("unwatch", table_id, table_id, token_hash)

    def finish_game(self, table_id: str, table_name: str, game_no: int, record: Record,
                    kinds: Sequence[str], started: float, ended: float,
                    ratings: Sequence[RatingChange] = ()) -> PendingWrite | None:
        return self._add("finish_game", table_id, table_id, table_name, game_no, record,
                         tuple(kinds), started, ended, tuple(ratings))

    def close_table(self, table_id: str) -> PendingWrite | None:
        return self._add("close_table", table_id, table_id)

    def ladder_write(self, work: Callable[[Any], Any]) -> PendingWrite | None:
        return self._add("ladder_write", None, work)


def drop_queue(queue: deque[PendingWrite], lost: set[str], dropped: Dropped,
               next_table: int) -> None:
    """Give up on ``queue``: each write is tried (not done: not on disk; its caller, if
    any, wakes) and counted in ``dropped``; the tables they were of join ``lost`` and
    ``dropped.tables``, and what is left queued deletes their stale rows (once the file
    can be written) and keeps the table mark at ``next_table``."""
    tables: set[str] = set()
    for write in queue:
        write.tried = True  # (not done: not on disk) its caller, if any, wakes
        if write.on_tried is not None:
            write.on_tried()
        dropped.writes += 1
        if write.method == "finish_game":
            dropped.games += 1
        elif write.table is not None and write.method != "close_table":
            tables.add(write.table)
    queue.clear()
    tables -= lost
    dropped.tables |= tables
    lost |= tables
    for table_id in sorted(tables, key=table_order):
        queue.append(PendingWrite("close_table", (table_id,), {}, table_id))
    queue.append(PendingWrite("reserve_tables", (next_table,), {}, None))
