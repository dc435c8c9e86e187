"""What can go wrong with the database, as narrow ``StorageError`` subclasses.

Two families, because the server treats them differently:

- **At start** (``Store.open``): ``DatabaseLocked``, ``DatabaseCorrupt``,
  ``DatabaseTooNew``, ``NotANimmtDatabase``, ``DatabaseUnreadable``. The server
  refuses to start and prints the message (it names the file and says what to
  do); the file is left exactly as it was.
- **While running** (a write fails): ``StorageWriteError`` (``read_only`` or
  ``disk_full`` or ``io``). The games go on in memory; the caller shows the
  message loudly and the facts not written wait to be retried (``AsyncStore``).
"""

from __future__ import annotations

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
