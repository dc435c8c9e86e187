"""What can go wrong with the database, as narrow ``StorageError`` subclasses.

Two families, because the server treats them differently:

- **At start** (``Store.open``): ``DatabaseLocked``, ``DatabaseCorrupt``,
  ``DatabaseTooNew``, ``NotANimmtDatabase``, ``DatabaseUnreadable``. The server
  refuses to start and prints the message (it names the file and says what to
  do); the file is left exactly as it was.
- **While running** (a write fails): ``StorageWriteError`` (``read_only`` or
  ``disk_full`` or ``io``). The games go on in memory; the caller shows the
  message loudly and the facts not written wait to be retried (``AsyncStore``).

``sqlite_code`` and ``write_error`` tell SQLite's errors apart (the ``Store`` raises
them as these).
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

__all__ = [
    "StorageError",
    "DatabaseLocked",
    "DatabaseCorrupt",
    "DatabaseTooNew",
    "NotANimmtDatabase",
    "DatabaseUnreadable",
    "StorageWriteError",
]


class StorageError(Exception):
    """A problem with the database file ``path`` (``None`` for ``:memory:``)."""

    def __init__(self, path: Path | None, message: str) -> None:
        self.path = path
        super().__init__(message)


class DatabaseLocked(StorageError):
    """Another process (a second ``nimmt-server``) holds the database."""


class DatabaseCorrupt(StorageError):
    """The file is not a readable SQLite database, or fails SQLite's integrity check."""


class DatabaseTooNew(StorageError):
    """The file was written by a newer nimmt (a schema version this one does not know)."""

    def __init__(self, path: Path | None, message: str, version: int) -> None:
        super().__init__(path, message)
        self.version = version


class NotANimmtDatabase(StorageError):
    """A SQLite database, but another program's: nimmt will not write into it."""


class DatabaseUnreadable(StorageError):
    """The file or its folder cannot be opened or created (permissions, missing folder)."""


class StorageWriteError(StorageError):
    """A write failed while the server runs. ``reason``: ``"read_only"``,
    ``"disk_full"`` or ``"io"``. Nothing of the failed call was written."""

    def __init__(self, path: Path | None, message: str, reason: str) -> None:
        super().__init__(path, message)
        self.reason = reason


# SQLite's primary result codes (sqlite3.Error.sqlite_errorcode & 0xFF)
READONLY, IOERR, CORRUPT, CANTOPEN, FULL, BUSY, PERM = 8, 10, 11, 14, 13, 5, 3


def sqlite_code(e: sqlite3.Error) -> int:
    """The primary result code of ``e`` (0: none given)."""
    return (getattr(e, "sqlite_errorcode", 0) or 0) & 0xFF


def write_error(path: Path | None, e: sqlite3.Error | OSError) -> StorageWriteError:
    """The ``StorageWriteError`` a failed write raises: read-only, disk full, or I/O."""
    where = str(path) if path is not None else "the in-memory database"
    code = sqlite_code(e) if isinstance(e, sqlite3.Error) else 0
    if code == READONLY or (isinstance(e, OSError) and e.errno in (errno.EROFS, errno.EACCES)):
        return StorageWriteError(path, f"{where} is read-only: nothing more can be saved", "read_only")
    if code == FULL or (isinstance(e, OSError) and e.errno == errno.ENOSPC):
        return StorageWriteError(path, f"the disk of {where} is full: nothing more can be saved", "disk_full")
    return StorageWriteError(path, f"cannot write to {where}: {e}", "io")


def plain(e: sqlite3.Error) -> str:
    return str(e) or type(e).__name__
