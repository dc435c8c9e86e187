"""Sessions: who a player is across connections.

A session is created by a ``hello`` without a token and named by a secret
token (``secrets.token_urlsafe``). The seat at a table belongs to the session,
not to the connection: a dropped player's seat waits for them, and a ``hello``
with the token binds a new connection to the same session (a second connection
with the token replaces the first).

This module imports no other module of the server: what a session needs of
its connection and of its table is said by the two protocols below.
"""

from __future__ import annotations

import secrets
from typing import Any, Protocol

from .limits import ResumeMeter, TokenBucket
from ..storage import hash_token

__all__ = ["Session", "Link", "TableRef", "new_token"]


def new_token() -> str:
    """A fresh session token: 32 URL-safe characters (192 random bits)."""
    return secrets.token_urlsafe(24)


class Link(Protocol):
    """What the lobby and a table use of a connection (``server.connection.ClientConnection``)."""

    cid: int
    session: Session | None
    address: str | None  # the IP address it comes from (None: not a network socket)

    def send(self, msg: Any) -> bool: ...
    def close(self, reason: str, text: str = "") -> None: ...
    def charge(self) -> None: ...
    def count(self) -> bool: ...


class TableRef(Protocol):
    """What the lobby uses of the table a session is at (``server.table.Table``)."""

    id: str

    def request(self, session: Session, msg: Any) -> bool: ...
    def resumed(self, session: Session) -> None: ...
    def disconnected(self, session: Session) -> None: ...


class Session:
    """One player, bot or spectator, from its first ``hello`` on."""

    __slots__ = ("token", "name", "kind", "sid", "client", "table", "seat", "lost_at",
                 "chat_bucket", "restored_hash", "resume_meter", "claimed")

    def __init__(self, sid: int, token: str, name: str, kind: str) -> None:
        self.sid = sid  # a small number for the logs (never the token)
        self.token = token
        self.name = name
        self.kind = kind  # "human", "bot" (a bot client) or "spectator"
        self.client: Link | None = None  # the connection now bound, if any
        self.table: TableRef | None = None  # the table sat at or watched
        self.seat: int | None = None  # the seat at ``table``; None: watching
        self.lost_at: float | None = None  # trio time the last connection dropped
        self.chat_bucket: TokenBucket | None = None  # its chat's meter, from its first line
        self.restored_hash: str | None = None  # brought back from the database: token unknown
        self.resume_meter: ResumeMeter | None = None  # see ``resumes``
        self.claimed = False  # its name is claimed and its hello had the key (claims.py)

    def resumes(self, rate: float, burst: int, now: float) -> ResumeMeter:
        """How often it may resume (``ResumeMeter``; made at its first use)."""
        if self.resume_meter is None:
            self.resume_meter = ResumeMeter(rate, burst, now)
        return self.resume_meter

    @property
    def token_hash(self) -> str:
        """The stored form of the token (``hash_token``), also before a session brought
        back from the database has said hello with its token."""
        if not self.token and self.restored_hash is not None:
            return self.restored_hash
        return hash_token(self.token)

    def __repr__(self) -> str:
        return f"<Session {self.sid} {self.name!r}>"

    def send(self, msg: Any) -> bool:
        """Queue ``msg`` for the bound connection; False if none (or it was refused)."""
        client = self.client
        if client is None:
            return False
        return client.send(msg)
