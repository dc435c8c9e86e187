"""The ladder's rows: claimed names and ratings (schema 3). Functions over an open
``sqlite3.Connection``: ``Store.ladder_write`` runs the writers in a transaction,
``Store.ladder_read`` the readers. A rated game's ratings are written with the game
itself (``Store.finish_game``); ``unrated_games`` finds a game kept without them (by
an older version, which rated in a later transaction), ``save_ratings_once`` rates it."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["StoredClaim", "StoredRating", "RatingChange", "LadderRow", "RecentRatings",
           "UnratedGame", "save_claim", "load_claims", "save_ratings", "save_ratings_once",
           "unrated_games", "load_ratings", "load_recent", "ladder_rows"]


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
    kind: str | None = None  # who played its last rated game (``RecentRatings.kind``)


@dataclass(frozen=True, slots=True)
class RecentRatings:
    """A rated name's last ratings, ``(mu, sigma)`` after each of its last rated games
    (oldest first), and who played the last one: ``"human"``, ``"bot"`` (a client
    bot), ``"builtin"``, or None (the game was not kept)."""

    name: str
    history: tuple[tuple[float, float], ...]
    kind: str | None


@dataclass(frozen=True, slots=True)
class UnratedGame:
    """A finished game of an open rated table kept without its ratings: each seat's
    name, place, kind and (a built-in bot's) strategy, as its table's seats say."""

    game_id: int
    table_id: str
    names: tuple[str, ...]
    places: tuple[int, ...]
    kinds: tuple[str, ...]
    strategies: tuple[str | None, ...]


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


def save_ratings_once(db: sqlite3.Connection, game_id: int, changes: Sequence[RatingChange],
                      at: float) -> bool:
    """``save_ratings`` unless the game ``game_id`` is rated already; whether it saved
    (a game is never rated twice)."""
    if db.execute("SELECT 1 FROM rating_history WHERE game_id = ? LIMIT 1",
                  (game_id,)).fetchone():
        return False
    save_ratings(db, game_id, changes, at)
    return True


def unrated_games(db: sqlite3.Connection) -> list[UnratedGame]:
    """The finished games of the open rated tables that have no ratings, oldest first
    (a closed table's games are not looked at: its row, and whether it was rated, is
    gone)."""
    out = []
    for game_id, table_id, settings in db.execute(
            "SELECT g.id, g.table_id, t.settings FROM games AS g JOIN tables AS t"
            " ON t.id = g.table_id WHERE g.id NOT IN"
            " (SELECT game_id FROM rating_history WHERE game_id IS NOT NULL)"
            " ORDER BY g.id").fetchall():
        if not json.loads(settings).get("table", {}).get("rated"):
            continue
        players = db.execute(
            "SELECT p.name, p.place, p.kind, s.strategy FROM game_players AS p"
            " LEFT JOIN seats AS s ON s.table_id = ? AND s.seat = p.seat"
            " WHERE p.game_id = ? ORDER BY p.seat", (table_id, game_id)).fetchall()
        out.append(UnratedGame(game_id, table_id, tuple(p[0] for p in players),
                               tuple(p[1] for p in players), tuple(p[2] for p in players),
                               tuple(p[3] if p[2] == "builtin" else None for p in players)))
    return out


def load_ratings(db: sqlite3.Connection) -> list[StoredRating]:
    return [StoredRating(*row) for row in
            db.execute("SELECT name, mu, sigma, games FROM ratings ORDER BY name")]


def load_recent(db: sqlite3.Connection, games: int) -> dict[str, RecentRatings]:
    """Each rated name's ratings after its last ``games`` rated games (one query)."""
    history: dict[str, list[tuple[float, float]]] = {}
    kinds: dict[str, str | None] = {}
    for name, mu, sigma, n, kind in db.execute(
            "SELECT h.name, h.mu, h.sigma, h.n, p.kind FROM ("
            "  SELECT name, mu, sigma, game_id, ROW_NUMBER() OVER ("
            "    PARTITION BY name ORDER BY at DESC, rowid DESC) AS n FROM rating_history"
            ") AS h LEFT JOIN game_players AS p"
            "  ON h.n = 1 AND p.game_id = h.game_id AND p.name = h.name COLLATE NOCASE"
            " WHERE h.n <= ? ORDER BY h.name, h.n DESC", (games,)):
        history.setdefault(name, []).append((mu, sigma))
        if n == 1:
            kinds[name] = kind
    return {name: RecentRatings(name, tuple(past), kinds.get(name))
            for name, past in history.items()}


def ladder_rows(db: sqlite3.Connection, trend_games: int = 5) -> list[LadderRow]:
    """Every rated name, with its rating ``trend_games`` rated games ago (for a trend)
    and who played its last one: two queries, whatever the number of names."""
    recent = load_recent(db, trend_games + 1)
    out = []
    for r in load_ratings(db):
        past = recent.get(r.name)
        before = past.history[0] if past is not None and len(past.history) > trend_games \
            else None
        out.append(LadderRow(r.name, r.mu, r.sigma, r.games, before,
                             past.kind if past is not None else None))
    return out
