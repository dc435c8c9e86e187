"""``nimmt-replay --db PATH --ladder [--json]``: the leaderboard of rated games.

One line per rated name, best first: rank, name, rating (the conservative
ordinal, ``mu - 3 sigma``, see ``ratings.py``), rated games, and the trend: the
change of the rating over the name's last ``TREND_GAMES`` rated games (the same
board the lobby answers ``leaderboard`` with: ``ladder.rank_board``)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from ..ladder.desk import TREND_GAMES, is_bot, rank_board
from ..ladder.ratings import ordinal
from ..storage import Store
from ..storage.ladder import LadderRow, ladder_rows

__all__ = ["TREND_GAMES", "leaderboard", "ladder_lines", "ladder_json"]


def leaderboard(store: Store) -> list[dict[str, Any]]:
    """The leaderboard, best first: rank, name, rating, games, trend, bot, mu, sigma.
    A database from before the ladder (schema < 3) has an empty one."""
    try:
        rows: list[LadderRow] = store.ladder_read(lambda db: ladder_rows(db, TREND_GAMES))
    except sqlite3.OperationalError:  # no ladder tables: a read-only older database
        rows = []
    board = rank_board((r.name, r.mu, r.sigma, ordinal(r.mu, r.sigma), r.games,
                        None if r.before is None else ordinal(*r.before), is_bot(r.name, r.kind))
                       for r in rows)
    return [{"rank": r.rank, "name": r.name, "rating": r.rating, "games": r.games,
             "trend": r.trend, "bot": r.bot, "mu": r.mu, "sigma": r.sigma} for r in board]


def ladder_lines(board: Sequence[dict[str, Any]]) -> list[str]:
    if not board:
        return ["no rated games yet (a table created with the rated option rates its games)"]
    width = max(4, *(len(r["name"]) for r in board))
    lines = [f"{'rank':>4}  {'name':<{width}}  {'rating':>7}  {'games':>5}  {'trend':>6}"]
    for r in board:
        lines.append(f"{r['rank']:>4}  {r['name']:<{width}}  {r['rating']:>7.2f}  "
                     f"{r['games']:>5}  {r['trend']:>+6.2f}")
    return lines


def ladder_json(board: Sequence[dict[str, Any]]) -> str:
    return json.dumps(list(board), indent=None)
