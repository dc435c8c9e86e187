"""The fold: moving the recent facts into each table's log.

A commit adds its facts to the end of ``recent_facts`` (one page for the facts of
many tables); now and then a fold moves them into ``facts``, sorted by table, so
that each table's rows land on its pages together (benchmarks/README.md, "The
recent facts"). ``Folding`` is the part of ``Store`` that does it: when it is due
(``fold_due``), all at once (``fold``) or a share of the tables at a time
(``fold_part``, what ``AsyncStore`` calls between its transactions).
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from typing import TypeVar

from .errors import StorageWriteError

__all__ = ["Folding", "recent_tables", "fold_parts", "recent_mover"]

log = logging.getLogger("nimmt.server")

_T = TypeVar("_T")

_FOLD = ("INSERT INTO facts (table_id, seq, kind, payload, at) SELECT table_id, seq, kind, "
         "payload, at FROM recent_facts WHERE table_id IN (SELECT id FROM tables){where} "
         "ORDER BY table_id, seq")


class Folding:
    """``Store``'s fold (a mixin: it moves rows with the store's own transactions)."""

    #: rows of ``recent_facts`` past which ``fold_due`` says it is time to ``fold``
    FOLD_ROWS = 4096
    #: ``fold_part`` moves the recent facts of this share of the tables at a time: the
    #: writes wait for one part, not for the whole fold (each table's rows still move
    #: together, so they land on its pages together; at held load 8 parts took 3.0 ms
    #: each (median), and had the shorter tail than 4 in two rounds of three:
    #: benchmarks/README.md, "Acknowledgements wait")
    FOLD_PARTS = 8

    # the store's (``Store.__init__``, ``Store._write``)
    _db: sqlite3.Connection
    problem: StorageWriteError | None
    _recent: int  # rows added to recent_facts since the last fold (or more)
    _fold_left: list[list[str]]  # the tables a fold under way has still to move

    def _write(self, work: Callable[[sqlite3.Connection], _T], *,
               adds_facts: bool = False) -> _T:
        raise NotImplementedError

    def fold_due(self) -> bool:
        """Whether ``recent_facts`` has grown past ``FOLD_ROWS`` rows, or a fold in parts
        is under way: time to ``fold`` (or ``fold_part``)."""
        return bool(self._fold_left) or self._recent >= self.FOLD_ROWS

    def fold(self) -> None:
        """Move ``recent_facts`` into ``facts`` in one transaction, sorted by table (each
        table's new rows land on its pages together); the rows of closed tables go.
        Never raises: a failing disk is the writes' to report (a warning in the log),
        the rows stay where they are (readers look in both tables) and the next fold,
        ``FOLD_ROWS`` rows later, moves them."""
        self._fold_left = []
        self._move_recent(None)

    def fold_part(self) -> None:
        """One part of a fold, in its own transaction: the recent facts of the next
        ``FOLD_PARTS``-th of the tables that had some when the fold began (a table's new
        rows since then go with it). ``fold_due`` stays true until the last part is
        done. Never raises (as ``fold``; a failure ends the fold under way)."""
        if self.problem is not None:
            return
        if not self._fold_left:
            try:
                tables = recent_tables(self._db)
            except sqlite3.Error as e:
                self._fold_failed(e)
                return
            self._fold_left = fold_parts(tables, self.FOLD_PARTS)
            self._recent = 0  # (the rows written from now on count towards the next fold)
            if not self._fold_left:
                return
        self._move_recent(self._fold_left.pop(0))

    def _move_recent(self, tables: list[str] | None) -> None:
        """Move the recent facts of ``tables`` (None: of every table) into ``facts``."""
        if self.problem is not None:
            return
        try:
            self._write(recent_mover(tables))
        except (StorageWriteError, sqlite3.Error) as e:
            self._fold_failed(e)
            return
        if tables is None:
            self._recent = 0

    def _fold_failed(self, e: BaseException) -> None:
        log.warning("could not move the recent facts to their tables' logs (%s); they "
                    "are read where they are and moved with the next fold", e)
        # tried again after FOLD_ROWS more rows, not at every write
        self._fold_left = []
        self._recent = 0


def recent_tables(db: sqlite3.Connection) -> list[str]:
    """The tables that have rows in ``recent_facts``, in order."""
    return [row[0] for row in db.execute(
        "SELECT DISTINCT table_id FROM recent_facts ORDER BY table_id")]


def fold_parts(tables: list[str], parts: int) -> list[list[str]]:
    """``tables`` in ``parts`` parts as even as can be (fewer when there are fewer
    tables), in order.

    >>> [len(p) for p in fold_parts([str(n) for n in range(9)], 8)]
    [2, 1, 1, 1, 1, 1, 1, 1]
    """
    # (at most 500 tables a part: SQLite before 3.32 takes 999 parameters; more parts then)
    count = max(min(parts, len(tables)), -(-len(tables) // 500))
    if count == 0:
        return []
    size, larger = divmod(len(tables), count)
    cut, start = [], 0
    for part in range(count):
        end = start + size + (part < larger)
        cut.append(tables[start:end])
        start = end
    return cut


def recent_mover(tables: list[str] | None) -> Callable[[sqlite3.Connection], None]:
    """The work (for one transaction) that moves the recent facts of ``tables`` (None:
    of every table) into ``facts``; the rows of closed tables go."""
    args: tuple[str, ...] = ()
    where = ""
    if tables is not None:
        where = f" AND table_id IN ({', '.join('?' * len(tables))})"
        args = tuple(tables)

    def move(db: sqlite3.Connection) -> None:
        db.execute(_FOLD.format(where=where), args)
        db.execute(f"DELETE FROM recent_facts WHERE 1{where}", args)

    return move
