"""Sessions and seats: who a player is across connections, and where they sit.

A session is created by a ``hello`` without a token and named by a secret
token (``secrets.token_urlsafe``). The seat at a table belongs to the session,
not to the connection: a dropped player's seat waits for them, and a ``hello``
with the token binds a new connection to the same session (a second connection
with the token replaces the first).
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from nimmt.bots import Strategy, make_strategy

if TYPE_CHECKING:  # pragma: no cover
    from .connection import ClientConnection
    from .table import Table

__all__ = ["Session", "Seat", "new_token"]


def new_token() -> str:
    """A fresh session token: 32 URL-safe characters (192 random bits)."""
    return secrets.token_urlsafe(24)


class Session:
    """One player, bot or spectator, from its first ``hello`` on."""

    __slots__ = ("token", "name", "kind", "sid", "client", "table", "seat", "lost_at")

    def __init__(self, sid: int, token: str, name: str, kind: str) -> None:
        self.sid = sid  # a small number for the logs (never the token)
        self.token = token
        self.name = name
        self.kind = kind  # "human", "bot" (a bot client) or "spectator"
        self.client: ClientConnection | None = None  # the connection now bound, if any
        self.table: Table | None = None  # the table sat at or watched
        self.seat: int | None = None  # the seat at ``table``; None: watching
        self.lost_at: float | None = None  # trio time the last connection dropped

    def __repr__(self) -> str:
        return f"<Session {self.sid} {self.name!r}>"

    @property
    def connected(self) -> bool:
        return self.client is not None

    @property
    def watching(self) -> bool:
        return self.table is not None and self.seat is None

    def send(self, msg: Any) -> bool:
        """Queue ``msg`` for the bound connection; False if none (or it was refused)."""
        client = self.client
        if client is None:
            return False
        return client.send(msg)


class Seat:
    """One seat: a client's session (human or bot client) or a built-in bot."""

    __slots__ = ("index", "name", "session", "strategy_name", "strategy", "away_since", "gone")

    def __init__(self, index: int, name: str, *, session: Session | None = None,
                 strategy_name: str | None = None, seed: int | None = None) -> None:
        self.index = index
        self.name = name
        self.session = session
        self.strategy_name = strategy_name
        self.strategy: Strategy | None = (
            make_strategy(strategy_name, seed) if strategy_name is not None else None
        )
        self.away_since: float | None = None  # trio time the client's connection dropped
        self.gone = False  # the client left during the game: played for at once

    @property
    def builtin(self) -> bool:
        return self.strategy is not None

    @property
    def connected(self) -> bool:
        if self.strategy is not None:
            return True
        return self.session is not None and self.session.client is not None

    @property
    def kind(self) -> str:
        if self.strategy is not None:
            return "bot"
        if self.session is not None and self.session.kind == "bot":
            return "bot"
        return "human"
