"""The values a ``Store`` returns: stored tables and seats, finished games, player totals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nimmt.engine import Record

from .facts import Fact

__all__ = [
    "StoredSeat",
    "StoredSpectator",
    "StoredTable",
    "PlayerResult",
    "GameSummary",
    "StoredGame",
    "PlayerStats",
    "NoSuchGame",
]


@dataclass(frozen=True, slots=True)
class StoredSeat:
    seat: int
    name: str
    kind: str  # "human", "bot" (a bot client) or "builtin"
    token_hash: str | None  # hash_token(session token); None for a built-in bot
    strategy: str | None  # a built-in bot's strategy name


@dataclass(frozen=True, slots=True)
class StoredSpectator:
    """Someone watching the table (a spectator's session, or a person's or a bot
    client's that watches instead of playing), oldest first."""

    name: str
    kind: str  # the session's kind: "spectator", "human" or "bot"
    token_hash: str  # hash_token(session token)


@dataclass(frozen=True, slots=True)
class StoredTable:
    """An open table as stored. ``facts``: from its last ``game_started`` on
    (all of them if no game has started), enough to rebuild the game."""

    id: str
    name: str
    options: dict[str, Any]
    settings: dict[str, Any]
    status: str
    created: float
    updated: float
    seats: tuple[StoredSeat, ...]
    facts: tuple[Fact, ...]
    last_seq: int
    spectators: tuple[StoredSpectator, ...] = ()


@dataclass(frozen=True, slots=True)
class PlayerResult:
    seat: int
    name: str
    kind: str
    bullheads: int
    place: int
    won: bool


@dataclass(frozen=True, slots=True)
class GameSummary:
    """A finished game, without its record."""

    id: int
    table_id: str
    table_name: str
    game_no: int
    started: float
    ended: float
    rounds: int
    players: tuple[PlayerResult, ...]


@dataclass(frozen=True, slots=True)
class StoredGame:
    summary: GameSummary
    record: Record


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """One name's finished games: ``wins`` counts shared first places too."""

    name: str
    games: int
    wins: int
    rounds: int
    bullheads: int

    @property
    def mean_per_round(self) -> float:
        """Mean bullheads taken per round played."""
        return self.bullheads / self.rounds if self.rounds else 0.0


class NoSuchGame(LookupError):
    """No finished game has that id."""
