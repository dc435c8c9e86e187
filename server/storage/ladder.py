"""The ladder's rows: claimed names and ratings (schema 3). Functions over an open
``sqlite3.Connection``: ``Store.ladder_write`` runs the writers in a transaction,
``Store.ladder_read`` the readers."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["StoredClaim", "StoredRating", "RatingChange", "LadderRow", "save_claim",
           "load_claims", "save_ratings", "load_ratings", "ladder_rows"]


@dataclass(frozen=True, slots=True)
class StoredClaim:
    name: str
    salt: bytes
    digest: bytes
    at: float


@dataclass(frozen=True, slots=True)
class StoredRating:
    name: str
    mu: float
    sigma: float
    games: int


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One name's rating after a rated game (its place in it: 1 = best)."""

    name: str
    mu: float
    sigma: float
    games: int
    place: int


@dataclass(frozen=True, slots=True)
class LadderRow:
    """A leaderboard line: the rating now and the one ``trend_games`` games ago."""

    name: str
    mu: float
    sigma: float
    games: int
    before: tuple[float, float] | None  # (mu, sigma) some games ago, None: no history


def save_claim(db: sqlite3.Connection, name_key: str, claim: StoredClaim) -> None:
    db.execute("INSERT OR REPLACE INTO claims (name_key, name, salt, digest, at) "
               "VALUES (?, ?, ?, ?, ?)", (name_key, claim.name, claim.salt, claim.digest,
                                           claim.at))


def load_claims(db: sqlite3.Connection) -> list[StoredClaim]:
    return [StoredClaim(*row) for row in
            db.execute("SELECT name, salt, digest, at FROM claims ORDER BY at")]


def save_ratings(db: sqlite3.Connection, game_id: int | None, changes: Sequence[RatingChange],
                 at: float) -> None:
    for c in changes:
        db.execute("INSERT OR REPLACE INTO ratings (name, mu, sigma, games, updated) "
                   "VALUES (?, ?, ?, ?, ?)", (c.name, c.mu, c.sigma, c.games, at))
        db.execute("INSERT INTO rating_history (game_id, name, mu, sigma, place, at) "
                   "VALUES (?, ?, ?, ?, ?, ?)", (game_id, c.name, c.mu, c.sigma, c.place, at))


def load_ratings(db: sqlite3.Connection) -> list[StoredRating]:
    return [StoredRating(*row) for row in
            db.execute("SELECT name, mu, sigma, games FROM ratings ORDER BY name")]


def ladder_rows(db: sqlite3.Connection, trend_games: int = 5) -> list[LadderRow]:
    """Every rated name, with its rating ``trend_games`` rated games ago (for a trend)."""
    out = []
    for name, mu, sigma, games in db.execute("SELECT name, mu, sigma, games FROM ratings"):
        past = db.execute("SELECT mu, sigma FROM rating_history WHERE name = ? "
                          "ORDER BY at DESC, rowid DESC LIMIT 1 OFFSET ?",
                          (name, trend_games)).fetchone()
        out.append(LadderRow(name, mu, sigma, games, None if past is None else tuple(past)))
    return out
