"""Finished games: the rows ``Store.finish_game`` keeps of one (its record, each seat's
result) and what is read back of them: every game, one with its record, each name's
totals. Plain functions over a ``sqlite3.Connection``."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from nimmt.engine import Record, record_from_json

from .fact_log import dumps
from .facts import options_to_json
from .rows import GameSummary, NoSuchGame, PlayerResult, PlayerStats, StoredGame

__all__ = ["game_inserter", "game_summaries", "stored_game", "player_stats"]


def game_inserter(table_id: str, table_name: str, game_no: int, record: Record,
                  kinds: Sequence[str], started: float,
                  ended: float) -> Callable[[sqlite3.Connection], int]:
    """The work (for one transaction) that keeps a finished game and its players'
    results, returning the game's id. ``ValueError`` at once if ``record`` does not
    claim its result or ``kinds`` (each seat's kind) does not name every seat."""
    result = record.result
    if result is None or result.totals is None or result.places is None:
        raise ValueError("the record of a finished game claims its result: record_from_game(game)")
    n = record.options.players
    if len(kinds) != n:
        raise ValueError(f"{n} seats need {n} kinds, got {len(kinds)}")
    names = [record.name(s) for s in range(n)]
    winners = set(result.winners or ())
    rounds = len(record.rounds)
    options = options_to_json(record.options)
    totals, places = result.totals, result.places

    def insert(db: sqlite3.Connection) -> int:
        cursor = db.execute(
            "INSERT INTO games (table_id, table_name, game_no, options, started, ended, rounds,"
            " record) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (table_id, table_name, game_no, dumps(options), started, ended, rounds,
             dumps(record.to_dict())))  # compact: --export writes it indented
        game_id = cursor.lastrowid
        assert game_id is not None
        db.executemany(
            "INSERT INTO game_players (game_id, seat, name, kind, bullheads, place, won) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(game_id, s, names[s], kinds[s], totals[s], places[s], s in winners)
             for s in range(n)])
        return game_id

    return insert


def _players(db: sqlite3.Connection, game_id: int) -> tuple[PlayerResult, ...]:
    return tuple(
        PlayerResult(seat, name, kind, heads, place, bool(won))
        for seat, name, kind, heads, place, won in db.execute(
            "SELECT seat, name, kind, bullheads, place, won FROM game_players "
            "WHERE game_id = ? ORDER BY seat", (game_id,)))


def _summary(db: sqlite3.Connection, row: Sequence[Any]) -> GameSummary:
    """The game of ``row`` (its first columns: id, table_id, table_name, game_no,
    started, ended, rounds) and its players."""
    game_id, table_id, table_name, game_no, started, ended, rounds = row[:7]
    return GameSummary(game_id, table_id, table_name, game_no, started, ended, rounds,
                       _players(db, game_id))


def game_summaries(db: sqlite3.Connection) -> list[GameSummary]:
    """Every finished game, oldest first."""
    rows = db.execute(
        "SELECT id, table_id, table_name, game_no, started, ended, rounds FROM games "
        "ORDER BY ended, id").fetchall()
    return [_summary(db, row) for row in rows]


def stored_game(db: sqlite3.Connection, game_id: int, where: str) -> StoredGame:
    """A finished game and its record; ``NoSuchGame`` if there is none with that id
    (``where``: the database, for the message)."""
    row = db.execute(
        "SELECT id, table_id, table_name, game_no, started, ended, rounds, record FROM games "
        "WHERE id = ?", (game_id,)).fetchone()
    if row is None:
        raise NoSuchGame(f"no finished game {game_id} in {where}")
    return StoredGame(_summary(db, row), record_from_json(row[7]))


def player_stats(db: sqlite3.Connection) -> list[PlayerStats]:
    """Per name: finished games, wins, rounds and bullheads; most games first."""
    rows = db.execute(
        "SELECT p.name, count(*), sum(p.won), sum(g.rounds), sum(p.bullheads) "
        "FROM game_players p JOIN games g ON g.id = p.game_id "
        "GROUP BY p.name ORDER BY count(*) DESC, p.name").fetchall()
    return [PlayerStats(*row) for row in rows]
