"""The finished games a server kept, for the lobby's history screen (``H``).

The client imports only the protocol, never the server, so it does not read the
database itself: it runs ``python -m nimmt.server.records games [--db PATH]
--json`` in a subprocess (as a replay runs ``spectator``), which prints
one JSON object a game, and plays the game chosen with ``nimmt-client --replay
GAME_ID --db PATH`` (``replay_argv``).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass

from .replay import command_lines

__all__ = ["PastGame", "HistoryError", "history_command", "load_history", "replay_argv"]


class HistoryError(Exception):
    """The games could not be listed; ``str()`` says why in one line."""


@dataclass(frozen=True, slots=True)
class PastGame:
    """One finished game: its id in the database, its table, when it ended (Unix
    seconds), its rounds and its players as (name, bullheads, won), in seat order."""

    id: int
    table_name: str
    table_id: str
    ended: float
    rounds: int
    players: tuple[tuple[str, int, bool], ...]

    def line(self) -> str:
        """The game in one line: id, when, table, rounds, players (``*``: won)."""
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.ended))
        people = ", ".join(f"{'*' if won else ''}{name} {heads}"
                           for name, heads, won in self.players)
        rounds = f"{self.rounds} round{'s' if self.rounds != 1 else ''}"
        return f"{self.id:>4}  {when}  {self.table_name or self.table_id} · {rounds} · {people}"


def history_command(db: str | None, python: str = sys.executable) -> list[str]:
    """The command that lists the games of ``db`` (None or "": the server's default)."""
    return [python, "-m", "nimmt.server.records", "games", *(["--db", db] if db else []),
            "--json"]


def replay_argv(game_id: int, db: str | None, python: str = sys.executable) -> list[str]:
    """``nimmt-client --replay GAME_ID --db PATH``: the replay player on that game."""
    return [python, "-m", "nimmt.client", "--replay", str(game_id), "--db", db or ""]


def load_history(db: str | None, *, timeout: float = 30.0) -> list[PastGame]:
    """The finished games of ``db``, newest first."""
    games: list[PastGame] = []
    for n, line in enumerate(command_lines(history_command(db), "history", timeout,
                                           HistoryError), 1):
        try:
            g = json.loads(line)
            games.append(PastGame(
                int(g["id"]), str(g["table_name"]), str(g["table_id"]), float(g["ended"]),
                int(g["rounds"]), tuple((str(p["name"]), int(p["bullheads"]), bool(p["won"]))
                                        for p in g["players"])))
        except (ValueError, KeyError, TypeError) as exc:
            raise HistoryError(f"line {n} of the history is not a game: {exc}") from None
    return games[::-1]
