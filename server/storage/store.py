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

import errno
import json
import logging
import os
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from nimmt.engine import Record, record_from_json

from .errors import (
    DatabaseCorrupt,
    DatabaseTooNew,
    DatabaseUnreadable,
    NotANimmtDatabase,
    StorageWriteError,
)
from .facts import Fact, game_over_fact, options_to_json
from .files import LockFile, Made, create_private, default_path, hash_token, make_folders
from .ladder import RatingChange, save_ratings
from .rows import (
    GameSummary,
    NoSuchGame,
    PlayerResult,
    PlayerStats,
    StoredGame,
    StoredSeat,
    StoredSpectator,
    StoredTable,
)
from .schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION

__all__ = ["DURABILITY", "MEMORY", "Store"]

log = logging.getLogger("nimmt.server")

#: ``--db :memory:``: a database in memory only, gone when the server stops.
MEMORY = ":memory:"

#: ``--durability``: what a transaction waits for (``Store.open``)
DURABILITY = ("normal", "full")

_T = TypeVar("_T")

# SQLite's primary result codes (sqlite3.Error.sqlite_errorcode & 0xFF)
_READONLY, _IOERR, _CORRUPT, _CANTOPEN, _FULL, _NOTADB, _BUSY, _PERM = 8, 10, 11, 14, 13, 26, 5, 3


# a table's facts are in ``facts`` (sorted by table) and, the newest, in ``recent_facts``
# (in the order written) until ``fold`` moves them: a reader looks in both
_INSERT_FACT = "INSERT INTO recent_facts (table_id, seq, kind, payload, at) VALUES (?, ?, ?, ?, ?)"
_FOLD = ("INSERT INTO facts (table_id, seq, kind, payload, at) SELECT table_id, seq, kind, "
         "payload, at FROM recent_facts WHERE table_id IN (SELECT id FROM tables){where} "
         "ORDER BY table_id, seq")
_LAST_SEQ = ("SELECT max(seq) FROM (SELECT max(seq) AS seq FROM facts WHERE table_id = ?1 "
             "UNION ALL SELECT max(seq) FROM recent_facts WHERE table_id = ?1)")
_LAST_GAME_STARTED = (
    "SELECT max(seq) FROM (SELECT max(seq) AS seq FROM facts WHERE table_id = ?1 AND "
    "kind = 'game_started' UNION ALL SELECT max(seq) FROM recent_facts WHERE table_id = ?1 "
    "AND kind = 'game_started')")
_FACTS_AFTER = (
    "SELECT seq, kind, payload, at FROM facts WHERE table_id = ?1 AND seq > ?2 UNION ALL "
    "SELECT seq, kind, payload, at FROM recent_facts WHERE table_id = ?1 AND seq > ?2 "
    "ORDER BY seq")


def _compact_encoder() -> Callable[[Any], str]:
    """``json.dumps`` without spaces (the log is written often), its encoder made once:
    ``JSONEncoder.encode`` makes a new one each call, half the time of encoding a
    decision's payload (1.7 against 0.9 us). No check for cycles: payloads are trees."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # an interpreter without json's C speedups
        return json.JSONEncoder(separators=(",", ":")).encode
    chunks = make(None, json.JSONEncoder().default, json.encoder.encode_basestring_ascii,
                  None, ":", ",", False, False, True)
    return lambda value: "".join(chunks(value, 0))


_dumps = _compact_encoder()


def _code(e: sqlite3.Error) -> int:
    return (getattr(e, "sqlite_errorcode", 0) or 0) & 0xFF


def _write_error(path: Path | None, e: sqlite3.Error | OSError) -> StorageWriteError:
    where = str(path) if path is not None else "the in-memory database"
    code = _code(e) if isinstance(e, sqlite3.Error) else 0
    if code == _READONLY or (isinstance(e, OSError) and e.errno in (errno.EROFS, errno.EACCES)):
        return StorageWriteError(path, f"{where} is read-only: nothing more can be saved", "read_only")
    if code == _FULL or (isinstance(e, OSError) and e.errno == errno.ENOSPC):
        return StorageWriteError(path, f"the disk of {where} is full: nothing more can be saved", "disk_full")
    return StorageWriteError(path, f"cannot write to {where}: {e}", "io")


class Store:
    """The database of one server. ``Store.open`` it; ``close`` it at the end.

    Writes raise ``StorageWriteError`` (read-only file, full disk, I/O error) and
    then have written nothing; reads of a healthy file do not fail. A file that
    could be opened only for reading gives a store with ``writable`` False whose
    ``problem`` says why (every write raises it).
    """

    #: bytes the write-ahead log file is cut back to when the log starts again
    WAL_LIMIT = 4 * 1024 * 1024

    #: rows of ``recent_facts`` past which ``fold_due`` says it is time to ``fold``
    FOLD_ROWS = 4096
    #: ``fold_part`` moves the recent facts of this share of the tables at a time: the
    #: writes wait for one part, not for the whole fold (each table's rows still move
    #: together, so they land on its pages together; at held load 8 parts took 3.0 ms
    #: each (median), and had the shorter tail than 4 in two rounds of three:
    #: benchmarks/README.md, "Acknowledgements wait")
    FOLD_PARTS = 8

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
        made = Made()  # what this call created: removed again if the file cannot be opened
        lock: LockFile | None = None
        try:
            make_folders(db, made)
            lock = LockFile(db)
            made.lock = lock.created
            if not db.exists():
                made.files = True
                create_private(db)
            conn = cls._connect(db, "rw")
            store = cls(conn, db, lock)
            store._check()
            try:
                store._setup(durability)
            except sqlite3.Error as e:
                if _code(e) not in (_READONLY, _CANTOPEN, _PERM) or store._version() != SCHEMA_VERSION:
                    conn.close()
                    raise DatabaseUnreadable(db, f"cannot prepare {db}: {_plain(e)}") from None
                conn.close()
                store = cls._open_read_only(db)
                store._lock = lock
                store.problem = _write_error(db, e)
            return store
        except BaseException as e:
            made.remove(db)  # before the lock goes: nobody takes a lock file about to vanish
            if lock is not None:
                lock.release()
            if isinstance(e, OSError):  # a full disk, no room for the lock: name the file
                raise DatabaseUnreadable(
                    db, f"cannot create the database {db}: {e.strerror or e}. Free some space "
                    "or give another file with --db PATH",
                ) from None
            raise

    @classmethod
    def _open_read_only(cls, db: Path) -> Store:
        if not db.exists():
            raise DatabaseUnreadable(db, f"there is no database at {db}")
        store = cls(cls._connect(db, "ro"), db, None)
        store._check()
        if store._version() < SCHEMA_VERSION:
            raise DatabaseUnreadable(
                db, f"{db} is from an older nimmt: start nimmt-server on it once to bring it up to date"
            )
        store.problem = StorageWriteError(db, f"{db} is open for reading only", "read_only")
        store._db.execute("PRAGMA busy_timeout = 5000")
        return store

    @staticmethod
    def _connect(db: Path, mode: str) -> sqlite3.Connection:
        # quoted: a "#" or "?" in a path is part of the name, not a URI's fragment or query
        uri = f"file:{urllib.parse.quote(str(db.absolute()))}?mode={mode}"
        try:
            return sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as e:
            raise DatabaseUnreadable(db, f"cannot open {db}: {e}") from None

    def _version(self) -> int:
        version: int = self._db.execute("PRAGMA user_version").fetchone()[0]
        return version

    def _check(self) -> None:
        """Refuse a file that is not ours, too new or damaged, before writing anything."""
        db = self.path
        try:
            app = self._db.execute("PRAGMA application_id").fetchone()[0]
            version = self._version()
            objects = self._db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise DatabaseTooNew(
                    db, f"{db} was written by a newer nimmt (database version {version}; this "
                    f"nimmt knows up to {SCHEMA_VERSION}): upgrade nimmt, or use another file "
                    "with --db PATH. The file was left as it is.", version,
                )
            if app != APPLICATION_ID and (app != 0 or objects > 0):
                raise NotANimmtDatabase(
                    db, f"{db} is another program's SQLite database: nimmt will not write into "
                    "it. Use another file with --db PATH. The file was left as it is.",
                )
            problems = [row[0] for row in self._db.execute("PRAGMA quick_check").fetchall()]
        except sqlite3.Error as e:
            self._db.close()
            if _code(e) in (_CANTOPEN, _PERM, _BUSY):
                raise DatabaseUnreadable(db, f"cannot read {db}: {e}") from None
            raise DatabaseCorrupt(db, self._corrupt_message(str(e))) from None
        except (DatabaseTooNew, NotANimmtDatabase):
            self._db.close()
            raise
        if problems != ["ok"]:
            self._db.close()
            raise DatabaseCorrupt(db, self._corrupt_message("; ".join(problems[:3])))

    def _corrupt_message(self, detail: str) -> str:
        detail = " ".join(detail.replace("*", "").split())
        return (f"{self.path} is damaged or not a database ({detail}). The file was left as "
                "it is: move it away to start a new one, or use another file with --db PATH.")

    def _setup(self, durability: str = "normal") -> None:
        db = self._db
        self.durability = durability
        db.execute("PRAGMA busy_timeout = 5000")
        db.execute("PRAGMA foreign_keys = ON")
        version = self._version()
        if version < SCHEMA_VERSION:
            for number in range(version + 1, SCHEMA_VERSION + 1):
                self._migrate(number)
        if db.execute("PRAGMA journal_mode").fetchone()[0] not in ("wal", "memory"):
            db.execute("PRAGMA journal_mode = WAL")
        db.execute(f"PRAGMA synchronous = {'FULL' if durability == 'full' else 'NORMAL'}")
        # never a checkpoint inside a commit (a Checkpointer and the writer do them between
        # transactions); a log started again is cut back to WAL_LIMIT bytes
        db.execute("PRAGMA wal_autocheckpoint = 0")
        db.execute(f"PRAGMA journal_size_limit = {self.WAL_LIMIT}")
        self.fold()  # what a stopped server left in recent_facts: one place to read

    def _migrate(self, number: int) -> None:
        """Bring the schema to version ``number``, all or nothing."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            if number == 1:
                db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            for statement in MIGRATIONS[number]:
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {number}")
            db.execute("COMMIT")
        except sqlite3.Error as e:
            try:
                db.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # SQLite rolled back already (a full disk)
            if _code(e) in (_READONLY, _CANTOPEN, _PERM):
                raise  # Store.open: a read-only file
            db.close()
            if number == 1:  # a new (empty) file: Store.open removes it if it made it
                raise DatabaseUnreadable(
                    self.path, f"cannot create the database {self.path or MEMORY} ({e}): free "
                    "some disk space, or use another file with --db PATH.") from None
            raise DatabaseUnreadable(
                self.path, f"cannot bring {self.path or MEMORY} up to database version {number} "
                f"({e}); it was left at version {number - 1}. Free some disk space, or use "
                "another file with --db PATH.",
            ) from None

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
        return Checkpointer(self._connect(self.path, "rw"))

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
            raise _write_error(self.path, e) from None
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
                isinstance(e, sqlite3.DatabaseError) and _code(e) in (_IOERR, _CORRUPT, _FULL)
            ):
                raise _write_error(self.path, e) from None
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
            self._cursor.execute(_INSERT_FACT, rows[0])
        elif rows:
            self._cursor.executemany(_INSERT_FACT, rows)
        self._recent += len(rows)
        rows.clear()

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
                tables = [row[0] for row in self._db.execute(
                    "SELECT DISTINCT table_id FROM recent_facts ORDER BY table_id")]
            except sqlite3.Error as e:
                self._fold_failed(e)
                return
            # (at most 500 tables a part: SQLite before 3.32 takes 999 parameters)
            size = min(500, max(1, -(-len(tables) // self.FOLD_PARTS)))
            self._fold_left = [tables[i:i + size] for i in range(0, len(tables), size)]
            self._recent = 0  # (the rows written from now on count towards the next fold)
            if not self._fold_left:
                return
        self._move_recent(self._fold_left.pop(0))

    def _move_recent(self, tables: list[str] | None) -> None:
        """Move the recent facts of ``tables`` (None: of every table) into ``facts``."""
        if self.problem is not None:
            return
        args: tuple[str, ...] = ()
        where = ""
        if tables is not None:
            where = f" AND table_id IN ({', '.join('?' * len(tables))})"
            args = tuple(tables)

        def move(db: sqlite3.Connection) -> None:
            db.execute(_FOLD.format(where=where), args)
            db.execute(f"DELETE FROM recent_facts WHERE 1{where}", args)

        try:
            self._write(move)
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
            seq = db.execute(_LAST_SEQ, (table_id,)).fetchone()[0] or 0
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
            rows.append((table_id, seq, fact.kind, _dumps(fact.payload), now))
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
        result = record.result
        if result is None or result.totals is None or result.places is None:
            raise ValueError("the record of a finished game claims its result: record_from_game(game)")
        n = record.options.players
        if len(kinds) != n:
            raise ValueError(f"{n} seats need {n} kinds, got {len(kinds)}")
        names = [record.name(s) for s in range(n)]
        winners = set(result.winners or ())
        rounds = len(record.rounds)
        options = options_to_json(record.options)
        now = time.time() if ended is None else ended
        totals, places = result.totals, result.places

        def keep(db: sqlite3.Connection) -> int:
            cursor = db.execute(
                "INSERT INTO games (table_id, table_name, game_no, options, started, ended, rounds,"
                " record) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (table_id, table_name, game_no, _dumps(options), started, now, rounds,
                 _dumps(record.to_dict())))  # compact: --export writes it indented
            game_id = cursor.lastrowid
            assert game_id is not None
            db.executemany(
                "INSERT INTO game_players (game_id, seat, name, kind, bullheads, place, won) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(game_id, s, names[s], kinds[s], totals[s], places[s], s in winners)
                 for s in range(n)])
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
        """Forget a closed table: its seats and facts (its finished games are kept)."""
        self._write(lambda db: db.execute("DELETE FROM tables WHERE id = ?", (table_id,)))
        self._seqs.pop(table_id, None)

    # ------------------------------------------------------------------ reading

    def facts(self, table_id: str, after: int = 0) -> list[Fact]:
        """The table's facts with ``seq`` above ``after``, in order."""
        rows = self._db.execute(_FACTS_AFTER, (table_id, after)).fetchall()
        return [Fact(kind, json.loads(payload), seq, at) for seq, kind, payload, at in rows]

    def open_tables(self) -> list[StoredTable]:
        """Every table not closed, oldest first, with its seats and the facts needed
        to rebuild its game (``rebuild_game(table.facts)``)."""
        tables = []
        rows = self._db.execute(
            "SELECT id, name, options, settings, status, created, updated FROM tables "
            "ORDER BY created, id").fetchall()
        for table_id, name, options, settings, status, created, updated in rows:
            seats = tuple(
                StoredSeat(*row) for row in self._db.execute(
                    "SELECT seat, name, kind, token_hash, strategy FROM seats WHERE table_id = ? "
                    "ORDER BY seat", (table_id,)))
            start = self._db.execute(_LAST_GAME_STARTED, (table_id,)).fetchone()[0]
            facts = self.facts(table_id, (start or 1) - 1)
            last = self._db.execute(_LAST_SEQ, (table_id,)).fetchone()[0] or 0
            spectators = tuple(
                StoredSpectator(*row) for row in self._db.execute(
                    "SELECT name, kind, token_hash FROM spectators WHERE table_id = ? "
                    "ORDER BY since, token_hash", (table_id,)))
            tables.append(StoredTable(table_id, name, json.loads(options), json.loads(settings),
                                      status, created, updated, seats, tuple(facts), last,
                                      spectators))
        return tables

    def _players(self, game_id: int) -> tuple[PlayerResult, ...]:
        return tuple(
            PlayerResult(seat, name, kind, heads, place, bool(won))
            for seat, name, kind, heads, place, won in self._db.execute(
                "SELECT seat, name, kind, bullheads, place, won FROM game_players "
                "WHERE game_id = ? ORDER BY seat", (game_id,)))

    def games(self) -> list[GameSummary]:
        """Every finished game, oldest first."""
        rows = self._db.execute(
            "SELECT id, table_id, table_name, game_no, started, ended, rounds FROM games "
            "ORDER BY ended, id").fetchall()
        return [self._summary(row) for row in rows]

    def game(self, game_id: int) -> StoredGame:
        """A finished game and its record; ``NoSuchGame`` if there is none with that id."""
        row = self._db.execute(
            "SELECT id, table_id, table_name, game_no, started, ended, rounds, record FROM games "
            "WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise NoSuchGame(f"no finished game {game_id} in {self.path or MEMORY}")
        return StoredGame(self._summary(row), record_from_json(row[7]))

    def _summary(self, row: Sequence[Any]) -> GameSummary:
        """The game of ``row`` (its first columns: id, table_id, table_name, game_no,
        started, ended, rounds) and its players."""
        game_id, table_id, table_name, game_no, started, ended, rounds = row[:7]
        return GameSummary(game_id, table_id, table_name, game_no, started, ended, rounds,
                           self._players(game_id))

    def player_stats(self) -> list[PlayerStats]:
        """Per name: finished games, wins, rounds and bullheads; most games first."""
        rows = self._db.execute(
            "SELECT p.name, count(*), sum(p.won), sum(g.rounds), sum(p.bullheads) "
            "FROM game_players p JOIN games g ON g.id = p.game_id "
            "GROUP BY p.name ORDER BY count(*) DESC, p.name").fetchall()
        return [PlayerStats(*row) for row in rows]


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


def _plain(e: sqlite3.Error) -> str:
    return str(e) or type(e).__name__
