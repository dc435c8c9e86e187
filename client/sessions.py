"""Session tokens kept on disk, one file per server and name
(``session-HOST-PORT-NAME-HASH.json``), so a new ``nimmt-client`` for the same server
with the same name returns to its seat, and two names playing from one account
(Ann and Bob on one machine) each keep theirs.

The directory is ``$NIMMT_STATE_DIR`` if set, else ``$XDG_STATE_HOME/nimmt``, else
``~/.local/state/nimmt``; it is made with mode 0700 and each file with mode 0600
(a token lets anyone who holds it play your seat). A file holds one JSON object:
``{"server": "host:port", "name": ..., "token": ...}``. The one file per server of
earlier versions (``session-HOST-PORT.json``) is read once by the name it holds,
and moved to that name's file.

Beside them, the keys of claimed names (protocol 2, docs/PROTOCOL.md "Claimed
names and ratings"): one file per server and name holding the secret key that
claimed it (``key(..., create=True)`` makes one; whoever holds it is that name).

>>> import tempfile
>>> store = SessionStore(tempfile.mkdtemp())
>>> store.save("gamebox", 6066, "Ann", "tok_0123456789abcdef")
>>> store.load("gamebox", 6066, "Ann")
'tok_0123456789abcdef'
>>> store.load("gamebox", 6066, "Bob") is None     # another name: another session
True
>>> store.save("gamebox", 6066, "Bob", "tok_fedcba9876543210")  # Bob, same account
>>> store.load("gamebox", 6066, "Ann")
'tok_0123456789abcdef'
>>> store.forget("gamebox", 6066, "Ann")
>>> store.load("gamebox", 6066, "Ann") is None
True
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
from pathlib import Path

__all__ = ["SessionStore", "state_dir", "STATE_DIR_ENV", "host_part", "name_part",
           "write_private"]

#: Environment variable naming the state directory (tests use it; so may people).
STATE_DIR_ENV = "NIMMT_STATE_DIR"


def state_dir() -> Path:
    """Where the client keeps its state (see the module doc)."""
    explicit = os.environ.get(STATE_DIR_ENV)
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_STATE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".local" / "state"
    return base / "nimmt"


def host_part(host: str) -> str:
    """``host`` as a part of a file name (the same for every file kept of a server)."""
    return re.sub(r"[^A-Za-z0-9.-]", "_", host.lower())[:100] or "_"


def name_part(name: str) -> str:
    """``name`` as a part of a file name: made safe, and a hash of it as typed ("Ann B"
    and "Ann_B" are two players, and two files)."""
    who = re.sub(r"[^A-Za-z0-9.-]", "_", name)[:32] or "_"
    return f"{who}-{hashlib.sha256(name.encode('utf-8')).hexdigest()[:8]}"


def _file_name(host: str, port: int) -> str:
    return f"session-{host_part(host)}-{port}.json"


def write_private(directory: Path, target: Path, text: str) -> None:
    """Write ``text`` to ``target`` atomically, readable by the user only (the folder
    too: 0700). Raises ``OSError``."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(directory, 0o700)
    tmp = target.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(tmp, 0o600)
    os.replace(tmp, target)


class SessionStore:
    """Reads and writes the token files (one per server and name) under ``directory``.

    Failures to read or write (a read-only home, a broken file) are never fatal:
    the client then simply starts a fresh session. ``last_error`` says what failed.
    """

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = Path(directory) if directory is not None else state_dir()
        self.last_error: str | None = None

    def path(self, host: str, port: int, name: str) -> Path:
        return self.directory / f"session-{host_part(host)}-{port}-{name_part(name)}.json"

    def legacy_path(self, host: str, port: int) -> Path:
        """The one file per server of earlier versions (it holds one name)."""
        return self.directory / _file_name(host, port)

    def load(self, host: str, port: int, name: str) -> str | None:
        """The token saved for this server and name, or ``None``."""
        token = self._read(self.path(host, port, name), name)
        if token is None and not self.path(host, port, name).exists():
            legacy = self.legacy_path(host, port)
            token = self._read(legacy, name)
            if token is not None:  # ours: it moves to our own file, once
                if self.save(host, port, name, token):
                    self._unlink(legacy)
        return token

    def _read(self, path: Path, name: str) -> str | None:
        try:
            data = json.loads(path.read_text("utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            self.last_error = f"cannot read the saved session: {exc}"
            return None
        if not isinstance(data, dict) or data.get("name") != name:
            return None
        token = data.get("token")
        return token if isinstance(token, str) and token else None

    def save(self, host: str, port: int, name: str, token: str) -> bool:
        """Write the token (atomically, readable by the user only); False if it failed."""
        try:
            write_private(self.directory, self.path(host, port, name),
                          json.dumps({"server": f"{host}:{port}", "name": name, "token": token}))
        except OSError as exc:
            self.last_error = f"cannot save the session in {self.directory}: {exc}"
            return False
        return True

    def key_path(self, host: str, port: int, name: str) -> Path:
        digest = hashlib.sha256(name.casefold().encode()).hexdigest()[:16]
        return self.directory / _file_name(host, port).replace("session-", "key-", 1).replace(
            ".json", f"-{digest}.key")

    def key(self, host: str, port: int, name: str, *, create: bool = False) -> str | None:
        """The secret key of ``name`` on this server: the saved one; else, with
        ``create``, a new one (saved, mode 0600); else None."""
        path = self.key_path(host, port, name)
        try:
            saved = path.read_text("utf-8").strip()
            if re.fullmatch(r"[A-Za-z0-9_-]{22,128}", saved):
                return saved
        except FileNotFoundError:
            pass
        except OSError as exc:
            self.last_error = f"cannot read the key of {name!r}: {exc}"
            return None
        if not create:
            return None
        key = secrets.token_urlsafe(32)
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(key + "\n")
        except FileExistsError:  # made meanwhile by another process: that one counts
            return self.key(host, port, name)
        except OSError as exc:
            self.last_error = f"cannot save the key of {name!r} in {self.directory}: {exc}"
            return None
        return key

    def forget(self, host: str, port: int, name: str) -> None:
        """Remove the saved token of ``name`` (the session is over)."""
        self._unlink(self.path(host, port, name))

    def _unlink(self, path: Path) -> None:
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            self.last_error = f"cannot remove the saved session: {exc}"
