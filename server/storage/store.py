"""``Store``: the SQLite database of a server: open tables, their facts, finished games.

Blocking calls on one ``sqlite3`` connection: use it from one thread at a time
(the server goes through ``AsyncStore``, which runs every call off the trio
event loop). Opening checks the file before anything is written to it::

    store = Store.open("nimmt.db")       # or Store.open(":memory:"), Store.open() for the default
    table_id = store.next_table_id()     # "t1", "t2", ... never repeated, across restarts
    store.create_table(table_id, "Friday", options={...}, settings={...})
    store.append(table_id, [game_started_fact(1, options), deal_fact(deal)])
    store.open_tables()                  # what a restarted server brings back

The database is in WAL mode with ``synchronous=NORMAL``: a write that has
returned survives the server being killed (``kill -9``, a crash); a power cut
may lose what was written since the last checkpoint (docs/SERVER.md,
"Durability"). Only this process writes: a lock file (``PATH.lock``,
``fcntl.flock``) is held while the store is open, so a second server on the
same file refuses to start; readers (``nimmt-replay --db``) open the file
read-only and need no lock. The file, its log and its lock are created
readable by the server's user only (0600; a folder it creates, 0700): they
hold every hand and every commit.

``write_group`` writes many calls in one transaction (``AsyncStore``'s group
commit). The writer's connection never checkpoints inside a commit: a
``Checkpointer`` copies the log back into the file beside the writes, and the
writer calls ``checkpoint`` between its transactions once the log has grown past
``WAL_LIMIT`` (``log_too_big``), so that the next one starts the log again from
its beginning and the log file is cut back to ``WAL_LIMIT`` bytes.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from nimmt.engine import Record

from .checkpoints import Checkpointer
from .errors import (
    CORRUPT,
    FULL,
    IOERR,
    DatabaseUnreadable,
    StorageWriteError,
    plain,
    sqlite_code,
    write_error,
)
from .fact_log import INSERT_FACT, dumps, last_seq, open_tables, read_facts
from .facts import Fact, game_over_fact
from .files import MEMORY, LockFile, default_path, hash_token, locked_file
from .fold import Folding
from .games import game_inserter, game_summaries, player_stats, stored_game
from .ladder import RatingChange, save_ratings
from .opening import check, check_current, connect, may_read_only, prepare
from .rows import GameSummary, PlayerStats, StoredGame, StoredTable

__all__ = ["DURABILITY", "Store"]

#: ``--durability``: what a transaction waits for (``Store.open``)
DURABILITY = ("normal", "full")

_T = TypeVar("_T")


class Store(Folding):
    """The database of one server. ``Store.open`` it; ``close`` it at the end.

    Writes raise ``StorageWriteError`` (read-only file, full disk, I/O error) and
    then have written nothing; reads of a healthy file do not fail. A file that
    could be opened only for reading gives a store with ``writable`` False whose
    ``problem`` says why (every write raises it).
    """

    #: bytes the write-ahead log file is cut back to when the log starts again
    WAL_LIMIT = 4 * 1024 * 1024

    def __init__(self, conn: sqlite3.Connection, path: Path | None, lock: LockFile | None,
                 problem: StorageWriteError | None = None) -> None:
        self._db = conn
        # the writes' own cursor: ``Connection.execute`` makes a new one each statement
        self._cursor = conn.cursor()
        self.path = path
        self._lock = lock
        self.problem = problem
        self._seqs: dict[str, int] = {}
        self._grouping = False  # inside write_group: one transaction for many calls
        self._fact_rows: list[tuple[str, int, str, str, float]] = []  # facts not yet inserted
        self._recent = 0  # rows added to recent_facts since the last fold (or more)
        self._fold_left: list[list[str]] = []  # the tables a fold under way has still to move
        self.durability = "normal"

    def __repr__(self) -> str:
        return f"Store.open({str(self.path) if self.path else MEMORY!r})"

    @property
    def writable(self) -> bool:
        return self.problem is None

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(cls, path: str | os.PathLike[str] | None = None, *, read_only: bool = False,
             durability: str = "normal") -> Store:
        """Open (or create) the database at ``path``: ``None`` for ``default_path()``,
        ``":memory:"`` for one in memory. Migrates an older schema.

        Raises ``DatabaseLocked`` (another server has it), ``DatabaseCorrupt``,
        ``DatabaseTooNew``, ``NotANimmtDatabase``, ``DatabaseUnreadable``; the file
        is then untouched. ``read_only``: for readers such as ``nimmt-replay``: no
        lock, nothing created or migrated. ``durability``: one of ``DURABILITY``:
        ``"normal"`` (``synchronous=NORMAL``: a kill loses nothing written, a power
        cut what was written since the last checkpoint) or ``"full"`` (every
        transaction synced to the disk before it returns).
        """
        if durability not in DURABILITY:
            raise ValueError(f"durability must be one of {DURABILITY}, not {durability!r}")
        if path is not None and os.fspath(path) == MEMORY:
            conn = sqlite3.connect(MEMORY, isolation_level=None, check_same_thread=False)
            store = cls(conn, None, None)
            store._setup(durability)
            return store
        db = Path(path).expanduser() if path is not None else default_path()
        if read_only:
            return cls._open_read_only(db)
        with locked_file(db) as lock:
            conn = connect(db, "rw")
            store = cls(conn, db, lock)
            check(conn, db)
            try:
                store._setup(durability)
            except sqlite3.Error as e:
                if not may_read_only(conn, e):
                    conn.close()
                    raise DatabaseUnreadable(db, f"cannot prepare {db}: {plain(e)}") from None
                conn.close()
                store = cls._open_read_only(db)
                store._lock = lock
                store.problem = write_error(db, e)
            return store

    @classmethod
    def _open_read_only(cls, db: Path) -> Store:
        if not db.exists():
            raise DatabaseUnreadable(db, f"there is no database at {db}")
        store = cls(connect(db, "ro"), db, None)
        check(store._db, db)
        check_current(store._db, db)
        store.problem = StorageWriteError(db, f"{db} is open for reading only", "read_only")
        store._db.execute("PRAGMA busy_timeout = 5000")
        return store

    def _setup(self, durability: str = "normal") -> None:
        self.durability = durability
        prepare(self._db, self.path, durability, self.WAL_LIMIT)
        self.fold()  # what a stopped server left in recent_facts: one place to read

    def close(self) -> None:
        """Close the database and release the lock (a second call does nothing)."""
        try:
            self._db.close()
        finally:
            if self._lock is not None:
                self._lock.release()
                self._lock = None

    # ------------------------------------------------------------------ checkpoints

    def log_too_big(self) -> bool:
        """Whether the write-ahead log has grown past ``WAL_LIMIT`` since it last started
        again (the file is cut back to ``WAL_LIMIT`` then): time for ``checkpoint``."""
        if self.path is None:
            return False
        try:
            return os.stat(self._wal_path()).st_size > self.WAL_LIMIT
        except OSError:
            return False

    def checkpoint(self) -> None:
        """Copy the write-ahead log back into the database file (PASSIVE: never waits for
        a reader). Made by the only writer between its transactions, it copies all of
        the log, and the next transaction starts the log again from its beginning."""
        try:
            self._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        except sqlite3.Error:
            pass  # the next one tries again; a failing disk is the writes' to report

    def checkpointer(self) -> Checkpointer | None:
        """A ``Checkpointer`` on a connection of its own (None for a database in memory
        or one that cannot be written)."""
        if self.path is None or self.problem is not None:
            return None
        return Checkpointer(connect(self.path, "rw"))

    def _wal_path(self) -> Path:
        assert self.path is not None
        return self.path.with_name(self.path.name + "-wal")

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ writing

    def _write(self, work: Callable[[sqlite3.Connection], _T], *, adds_facts: bool = False) -> _T:
        """Run ``work`` in one transaction; ``StorageWriteError`` and nothing written if it
        fails. ``adds_facts``: ``work`` only adds rows to ``_fact_rows`` (in a group, the
        facts of consecutive appends go in one ``executemany``)."""
        if self.problem is not None:
            raise self.problem
        db = self._db
        if self._grouping:  # inside write_group's transaction
            if not adds_facts:
                self._insert_facts()
            return work(db)
        cursor = self._cursor
        try:
            cursor.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as e:
            raise write_error(self.path, e) from None
        try:
            result = work(db)
            self._insert_facts()
            cursor.execute("COMMIT")
        except BaseException as e:
            self._fact_rows.clear()
            try:
                db.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # the failed COMMIT may have rolled back already
            if isinstance(e, sqlite3.OperationalError) or (
                isinstance(e, sqlite3.DatabaseError) and sqlite_code(e) in (IOERR, CORRUPT, FULL)
            ):
                raise write_error(self.path, e) from None
            raise
        return result

    def write_group(self, calls: Sequence[tuple[str, tuple[Any, ...], dict[str, Any]]],
                    ) -> tuple[list[tuple[Any, BaseException | None]], StorageWriteError | None]:
        """Make many write calls (method name, args, keyword args) in one transaction, in
        order (an ``append``'s result: the table's last ``seq``). Returns each written
        call's (result, bug) and the storage error that stopped the rest (None: all
        written). All or nothing, unless a call raises something else than a storage
        fault (a bug): that one is left out with its exception and the others are
        written one transaction each."""

        def run_all(db: sqlite3.Connection) -> list[Any]:
            self._grouping = True
            now = time.time()
            add_facts = self._add_facts
            results: list[Any] = []
            try:
                for method, args, kwargs in calls:
                    if method == "append" and len(args) == 2 and not kwargs:
                        # most writes: only the rows (the result is the table's last seq,
                        # not the stored facts ``append`` builds for its callers)
                        results.append(add_facts(args[0], args[1], now))
                    else:
                        results.append(getattr(self, method)(*args, **kwargs))
                return results
            finally:
                self._grouping = False

        try:
            return [(result, None) for result in self._write(run_all)], None
        except StorageWriteError as e:
            self._seqs.clear()  # rolled back: each table's next seq is read from the file
            return [], e
        except Exception:
            self._seqs.clear()
        done: list[tuple[Any, BaseException | None]] = []
        for method, args, kwargs in calls:
            try:
                done.append((getattr(self, method)(*args, **kwargs), None))
            except StorageWriteError as e:
                return done, e
            except Exception as e:  # a bug in this call: it is dropped, the rest goes on
                done.append((None, e))
        return done, None

    def _insert_facts(self) -> None:
        rows = self._fact_rows
        if len(rows) == 1:  # (most transactions at held load: one decision)
            self._cursor.execute(INSERT_FACT, rows[0])
        elif rows:
            self._cursor.executemany(INSERT_FACT, rows)
        self._recent += len(rows)
        rows.clear()

    def ladder_write(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        """Run a writer of ``storage.ladder`` in one transaction (``_write``)."""
        return self._write(work)

    def ladder_read(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        """Run a reader of ``storage.ladder``."""
        return work(self._db)

    def peek_next_table(self) -> int:
        """The number of the next table id, without taking it."""
        row = self._db.execute("SELECT value FROM meta WHERE key = 'next_table'").fetchone()
        return int(row[0])

    def reserve_tables(self, upto: int) -> None:
        """Record that table numbers below ``upto`` are taken (never lowers the mark)."""
        self._write(lambda db: db.execute(
            "UPDATE meta SET value = CAST(max(CAST(value AS INTEGER), ?) AS TEXT) "
            "WHERE key = 'next_table'", (upto,)))

    def next_table_id(self) -> str:
        """A new table id (``"t1"``, ``"t2"``, ...): never one handed out before by this file."""

        def take(db: sqlite3.Connection) -> int:
            number = int(db.execute("SELECT value FROM meta WHERE key = 'next_table'").fetchone()[0])
            db.execute("UPDATE meta SET value = ? WHERE key = 'next_table'", (str(number + 1),))
            return number

        return f"t{self._write(take)}"

    def create_table(self, table_id: str, name: str, options: dict[str, Any],
                     settings: dict[str, Any], status: str = "waiting",
                     at: float | None = None) -> None:
        """Store a new table (``options``, ``settings``: JSON objects)."""
        now = time.time() if at is None else at
        self._write(lambda db: db.execute(
            "INSERT INTO tables (id, name, options, settings, status, created, updated) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (table_id, name, json.dumps(options), json.dumps(settings), status, now, now)))
        self._seqs[table_id] = 0

    def update_table(self, table_id: str, *, name: str | None = None, status: str | None = None,
                     options: dict[str, Any] | None = None,
                     settings: dict[str, Any] | None = None, at: float | None = None) -> None:
        """Change what is given of a table's name, status, options and settings."""
        changes: dict[str, Any] = {"updated": time.time() if at is None else at}
        for column, value in (("name", name), ("status", status)):
            if value is not None:
                changes[column] = value
        for column, obj in (("options", options), ("settings", settings)):
            if obj is not None:
                changes[column] = json.dumps(obj)
        assignments = ", ".join(f"{column} = ?" for column in changes)
        self._write(lambda db: db.execute(
            f"UPDATE tables SET {assignments} WHERE id = ?", (*changes.values(), table_id)))

    def set_seat(self, table_id: str, seat: int, name: str, kind: str, *,
                 token: str | None = None, strategy: str | None = None) -> None:
        """Seat ``seat`` is held by ``name``; ``token``: the session's, stored hashed."""
        token_hash = hash_token(token) if token is not None else None
        self._write(lambda db: db.execute(
            "INSERT OR REPLACE INTO seats (table_id, seat, name, kind, token_hash, strategy) "
            "VALUES (?, ?, ?, ?, ?, ?)", (table_id, seat, name, kind, token_hash, strategy)))

    def free_seat(self, table_id: str, seat: int) -> None:
        self._write(lambda db: db.execute(
            "DELETE FROM seats WHERE table_id = ? AND seat = ?", (table_id, seat)))

    def watch(self, table_id: str, token_hash: str, name: str, kind: str,
              at: float | None = None) -> None:
        """The session whose token hashes to ``token_hash`` (``hash_token``) watches
        the table."""
        since = time.time() if at is None else at
        self._write(lambda db: db.execute(
            "INSERT OR REPLACE INTO spectators (table_id, token_hash, name, kind, since) "
            "VALUES (?, ?, ?, ?, ?)", (table_id, token_hash, name, kind, since)))

    def unwatch(self, table_id: str, token_hash: str) -> None:
        """The session whose token hashes to ``token_hash`` no longer watches the table."""
        self._write(lambda db: db.execute(
            "DELETE FROM spectators WHERE table_id = ? AND token_hash = ?",
            (table_id, token_hash)))

    def _next_seq(self, db: sqlite3.Connection, table_id: str) -> int:
        seq = self._seqs.get(table_id)
        if seq is None:
            seq = last_seq(db, table_id)
        return seq

    def append(self, table_id: str, facts: Sequence[Fact], at: float | None = None) -> tuple[Fact, ...]:
        """Append ``facts`` to the table's log, in one transaction; return them with
        their ``seq`` and ``at``. When this returns, they are on disk."""
        now = time.time() if at is None else at
        before = self._seqs.get(table_id)
        try:
            last = self._write(lambda db: self._add_facts(table_id, facts, now), adds_facts=True)
        except BaseException:
            if before is None:
                self._seqs.pop(table_id, None)
            else:
                self._seqs[table_id] = before
            raise
        first = last - len(facts)
        return tuple(Fact(fact.kind, fact.payload, first + n, now)
                     for n, fact in enumerate(facts, 1))

    def _add_facts(self, table_id: str, facts: Sequence[Fact], now: float) -> int:
        """Inside a transaction: the rows of ``facts`` join ``_fact_rows`` (inserted
        together by ``_insert_facts``); returns the table's last ``seq``."""
        seq = self._seqs.get(table_id)
        if seq is None:
            seq = self._next_seq(self._db, table_id)
        rows = self._fact_rows
        for fact in facts:
            seq += 1
            rows.append((table_id, seq, fact.kind, dumps(fact.payload), now))
        self._seqs[table_id] = seq
        return seq

    def finish_game(self, table_id: str, table_name: str, game_no: int, record: Record,
                    kinds: Sequence[str], started: float, ended: float | None = None,
                    ratings: Sequence[RatingChange] = ()) -> int:
        """Keep a finished game (its record, built with ``record_from_game``, names
        its seats and claims its result) and append its ``game_over`` fact, in one
        transaction; return the game's id. ``kinds``: each seat's kind. ``ratings``:
        a rated game's new ratings (``Ladder.rate``), kept in the same transaction: a
        game is never kept without them, nor they without it."""
        now = time.time() if ended is None else ended
        insert = game_inserter(table_id, table_name, game_no, record, kinds, started, now)

        def keep(db: sqlite3.Connection) -> int:
            game_id = insert(db)
            if db.execute("SELECT 1 FROM tables WHERE id = ?", (table_id,)).fetchone():
                # (inserted with this transaction's other facts, by ``_write``)
                self._add_facts(table_id, (game_over_fact(game_no, game_id),), now)
            if ratings:
                save_ratings(db, game_id, ratings, now)
            return game_id

        seqs = dict(self._seqs)
        try:
            return self._write(keep)
        except BaseException:
            self._seqs = seqs
            raise

    def close_table(self, table_id: str) -> None:
        """Forget a closed table: its seats, watchers and facts (its finished games are
        kept; its rows still in ``recent_facts`` go with the next fold)."""
        self._write(lambda db: db.execute("DELETE FROM tables WHERE id = ?", (table_id,)))
        self._seqs.pop(table_id, None)

    # ------------------------------------------------------------------ reading

    def facts(self, table_id: str, after: int = 0) -> list[Fact]:
        """The table's facts with ``seq`` above ``after``, in order."""
        return read_facts(self._db, table_id, after)

    def open_tables(self) -> list[StoredTable]:
        """Every table not closed, oldest first, with its seats and the facts needed
        to rebuild its game (``rebuild_game(table.facts)``)."""
        return open_tables(self._db)

    def games(self) -> list[GameSummary]:
        """Every finished game, oldest first."""
        return game_summaries(self._db)

    def game(self, game_id: int) -> StoredGame:
        """A finished game and its record; ``NoSuchGame`` if there is none with that id."""
        return stored_game(self._db, game_id, str(self.path or MEMORY))

    def player_stats(self) -> list[PlayerStats]:
        """Per name: finished games, wins, rounds and bullheads; most games first."""
        return player_stats(self._db)
