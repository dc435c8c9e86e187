"""``nimmt-replay --db PATH --ladder [--json]``: the leaderboard of rated games.

One line per rated name, best first: rank, name, rating (the conservative
ordinal, ``mu - 3 sigma``, see ``ratings.py``), rated games, and the trend: the
change of the rating over the name's last ``TREND_GAMES`` rated games."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from .ratings import ordinal
from .storage import Store
from .storage.ladder import LadderRow, ladder_rows

__all__ = ["TREND_GAMES", "leaderboard", "ladder_lines", "ladder_json"]

#: the trend is the rating's change over this many of a name's last rated games
TREND_GAMES = 5


def leaderboard(store: Store) -> list[dict[str, Any]]:
    """The leaderboard, best first: rank, name, rating, games, trend, mu, sigma.
    A database from before the ladder (schema < 3) has an empty one."""
    try:
        rows: list[LadderRow] = store.ladder_read(lambda db: ladder_rows(db, TREND_GAMES))
    except sqlite3.OperationalError:  # no ladder tables: a read-only older database
        rows = []
    out = []
    for row in rows:
        rating = ordinal(row.mu, row.sigma)
        if row.before is None:  # fewer rated games than TREND_GAMES: since the start
            start = ordinal(25.0, 25.0 / 3)
        else:
            start = ordinal(*row.before)
        out.append({"name": row.name, "rating": round(rating, 2), "games": row.games,
                    "trend": round(rating - start, 2), "mu": row.mu, "sigma": row.sigma})
    out.sort(key=lambda r: (-r["rating"], -r["games"], r["name"]))
    for rank, r in enumerate(out, 1):
        r["rank"] = rank
    return [{"rank": r.pop("rank"), **r} for r in out]


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
