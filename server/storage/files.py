"""Where the database is by default (or ``MEMORY``), the lock that keeps a second server off it,
the stored form of a session token, and the files and folders made readable by
the server's user only (they hold every hand), removed again if opening fails."""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import DatabaseLocked, DatabaseUnreadable

__all__ = ["MEMORY", "default_path", "hash_token", "LockFile", "Made", "make_folders",
           "create_private", "locked_file"]

#: ``--db :memory:``: a database in memory only, gone when the server stops.
MEMORY = ":memory:"


def default_path() -> Path:
    """``$XDG_DATA_HOME/nimmt/nimmt.db``, else ``~/.local/share/nimmt/nimmt.db``."""
    data = os.environ.get("XDG_DATA_HOME", "")
    base = Path(data) if data and Path(data).is_absolute() else Path.home() / ".local" / "share"
    return base / "nimmt" / "nimmt.db"


def hash_token(token: str) -> str:
    """The stored form of a session token: its SHA-256, in hex.

    No salt: a salt protects guessable secrets (passwords) against precomputed
    tables and shared guesses. A token is 192 random bits, unique and never
    chosen by a person, so nothing can be precomputed or guessed (finding a
    token from its hash is a 2**192 search), and the unsalted hash lets a
    returning client's token be looked up directly.

    >>> hash_token("abc")[:16]
    'ba7816bf8f01cfea'
    """
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class LockFile:
    """An exclusive ``flock`` on ``PATH.lock`` (readable by this user only), held until
    ``release``. ``created``: whether this call made the file."""

    def __init__(self, db: Path) -> None:
        self.path = db.with_name(db.name + ".lock")
        self.created = not self.path.exists()
        try:
            self.fd: int | None = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as e:
            self.fd = None  # a read-only folder: nobody can write the database there either
            self.created = False
            if e.errno == errno.ENOSPC:
                raise
            return
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            holder = os.pread(self.fd, 32, 0).decode("ascii", "replace").strip()
            os.close(self.fd)
            self.fd = None
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                who = f"process {holder}" if holder.isdigit() else "another process"
                raise DatabaseLocked(
                    db, f"{db} is in use by another nimmt-server ({who}): stop that one first, "
                    "or give this one another file with --db PATH",
                ) from None
            raise DatabaseUnreadable(db, f"cannot lock {self.path}: {e.strerror or e}") from None
        try:
            os.ftruncate(self.fd, 0)
            os.pwrite(self.fd, str(os.getpid()).encode("ascii"), 0)
        except OSError:  # a full disk: Store.open names the file; nothing is left behind
            if self.created:
                self.path.unlink(missing_ok=True)
            self.release()
            raise

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing the descriptor releases the flock
            self.fd = None


class Made:
    """What ``Store.open`` created, removed again when opening fails (a full disk)."""

    def __init__(self) -> None:
        self.folders: list[Path] = []  # outermost first
        self.lock = False
        self.files = False

    def remove(self, db: Path) -> None:
        paths = [db.with_name(db.name + ".lock")] if self.lock else []
        if self.files:
            paths += [db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")]
        for path in paths:
            try:
                path.unlink()
            except OSError:
                pass
        for folder in reversed(self.folders):
            try:
                folder.rmdir()
            except OSError:
                pass


def make_folders(db: Path, made: Made) -> None:
    """Create the database's missing folders, readable by this user only; each one
    made is noted in ``made`` (removed again by ``made.remove`` if opening fails)."""
    missing = []
    folder = db.parent
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=0o700)
        except OSError as e:
            raise DatabaseUnreadable(
                db, f"cannot create the folder {db.parent}: {e.strerror or e}") from None
        made.folders.append(folder)


def create_private(db: Path) -> None:
    """Create an empty database file readable by this user only: SQLite gives its log
    (``-wal``, ``-shm``) the same permissions."""
    try:
        os.close(os.open(db, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass


@contextmanager
def locked_file(db: Path) -> Iterator[LockFile]:
    """Hold the lock of ``db`` for the block, the file (and its folders) made first if
    missing. If the block fails, what this made is removed again and the lock released
    (a full disk, no room for the lock: ``DatabaseUnreadable`` naming the file)."""
    made = Made()  # what this call created: removed again if the file cannot be opened
    lock: LockFile | None = None
    try:
        make_folders(db, made)
        lock = LockFile(db)
        made.lock = lock.created
        if not db.exists():
            made.files = True
            create_private(db)
        yield lock
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
