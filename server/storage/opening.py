"""Opening a database file: its connection, the checks made before anything is written
to it (ours? too new? damaged?), its settings, and the migrations that bring an older
schema up to date (``schema.MIGRATIONS``, each all or nothing). Plain functions over a
``sqlite3.Connection``: ``Store.open`` calls them."""

from __future__ import annotations

import sqlite3
import urllib.parse
from pathlib import Path

from .errors import (
    BUSY,
    CANTOPEN,
    PERM,
    READONLY,
    DatabaseCorrupt,
    DatabaseTooNew,
    DatabaseUnreadable,
    NotANimmtDatabase,
    sqlite_code,
)
from .files import MEMORY
from .schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION

__all__ = ["connect", "schema_version", "check", "check_current", "may_read_only", "prepare",
           "migrate"]


def connect(db: Path, mode: str) -> sqlite3.Connection:
    """A connection to the file ``db`` (``mode``: ``"rw"`` or ``"ro"``)."""
    # quoted: a "#" or "?" in a path is part of the name, not a URI's fragment or query
    uri = f"file:{urllib.parse.quote(str(db.absolute()))}?mode={mode}"
    try:
        return sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as e:
        raise DatabaseUnreadable(db, f"cannot open {db}: {e}") from None


def schema_version(conn: sqlite3.Connection) -> int:
    version: int = conn.execute("PRAGMA user_version").fetchone()[0]
    return version


def check(conn: sqlite3.Connection, db: Path | None) -> None:
    """Refuse a file that is not ours, too new or damaged, before writing anything
    (``conn`` is closed then)."""
    try:
        app = conn.execute("PRAGMA application_id").fetchone()[0]
        version = schema_version(conn)
        objects = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
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
        problems = [row[0] for row in conn.execute("PRAGMA quick_check").fetchall()]
    except sqlite3.Error as e:
        conn.close()
        if sqlite_code(e) in (CANTOPEN, PERM, BUSY):
            raise DatabaseUnreadable(db, f"cannot read {db}: {e}") from None
        raise DatabaseCorrupt(db, _corrupt_message(db, str(e))) from None
    except (DatabaseTooNew, NotANimmtDatabase):
        conn.close()
        raise
    if problems != ["ok"]:
        conn.close()
        raise DatabaseCorrupt(db, _corrupt_message(db, "; ".join(problems[:3])))


def _corrupt_message(db: Path | None, detail: str) -> str:
    detail = " ".join(detail.replace("*", "").split())
    return (f"{db} is damaged or not a database ({detail}). The file was left as "
            "it is: move it away to start a new one, or use another file with --db PATH.")


def check_current(conn: sqlite3.Connection, db: Path) -> None:
    """A reader's check: the file is at this nimmt's schema version, or newer."""
    if schema_version(conn) < SCHEMA_VERSION:
        raise DatabaseUnreadable(
            db, f"{db} is from an older nimmt: start nimmt-server on it once to bring it up to date"
        )


def may_read_only(conn: sqlite3.Connection, e: sqlite3.Error) -> bool:
    """Whether a file that ``prepare`` could not write (``e``) can still be opened for
    reading: it cannot be written, and it needs no migration."""
    return (sqlite_code(e) in (READONLY, CANTOPEN, PERM)
            and schema_version(conn) == SCHEMA_VERSION)


def prepare(conn: sqlite3.Connection, db: Path | None, durability: str, wal_limit: int) -> None:
    """Migrate an older schema and set the connection up: WAL mode, ``synchronous`` by
    ``durability``, no checkpoint inside a commit, the log cut back to ``wal_limit``."""
    conn.execute("PRAGMA busy_timeout = 5000")
    conn.execute("PRAGMA foreign_keys = ON")
    version = schema_version(conn)
    if version < SCHEMA_VERSION:
        for number in range(version + 1, SCHEMA_VERSION + 1):
            migrate(conn, db, number)
    if conn.execute("PRAGMA journal_mode").fetchone()[0] not in ("wal", "memory"):
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(f"PRAGMA synchronous = {'FULL' if durability == 'full' else 'NORMAL'}")
    # never a checkpoint inside a commit (a Checkpointer and the writer do them between
    # transactions); a log started again is cut back to WAL_LIMIT bytes
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute(f"PRAGMA journal_size_limit = {wal_limit}")


def migrate(conn: sqlite3.Connection, db: Path | None, number: int) -> None:
    """Bring the schema to version ``number``, all or nothing."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        if number == 1:
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        for statement in MIGRATIONS[number]:
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {number}")
        conn.execute("COMMIT")
    except sqlite3.Error as e:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # SQLite rolled back already (a full disk)
        if sqlite_code(e) in (READONLY, CANTOPEN, PERM):
            raise  # Store.open: a read-only file
        conn.close()
        if number == 1:  # a new (empty) file: Store.open removes it if it made it
            raise DatabaseUnreadable(
                db, f"cannot create the database {db or MEMORY} ({e}): free "
                "some disk space, or use another file with --db PATH.") from None
        raise DatabaseUnreadable(
            db, f"cannot bring {db or MEMORY} up to database version {number} "
            f"({e}); it was left at version {number - 1}. Free some disk space, or use "
            "another file with --db PATH.",
        ) from None
