"""``nimmt-replay games|players|ladder``: the finished games a ``nimmt-server`` kept.

    nimmt-replay games --db PATH                # every finished game, oldest first
    nimmt-replay games --db PATH --json         # ... one JSON object a game (list_json)
    nimmt-replay games --db PATH 7              # replay game 7 step by step
    nimmt-replay games --db PATH 7 --export 7.json   # write its record (docs/RECORD.md)
    nimmt-replay players --db PATH              # games, wins, bullheads a round, per name
    nimmt-replay ladder --db PATH [--json]      # the leaderboard of rated games

(The older spellings ``nimmt-replay --db PATH --list | 7 | --players | --ladder``
are the same commands: ``command.py``.) Without ``--db``, or ``--db`` without a
path, the server's default database. The file is opened read-only: it may be
read while the server runs. Exit status: 0 ok, 1 no such game or a record that
does not replay, 2 a usage error or a database that cannot be read.

``nimmt.server.records.replay`` (the ``nimmt-replay`` command) parses the command
line and hands these modes to ``run`` here.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from typing import TextIO

from nimmt.engine import RecordError, Replay, RecordStart
from nimmt.engine.records import Narrator, event_to_json, step_lines, table_line

from .command import PROG, db_words
from .leaderboard import ladder_json, ladder_lines, leaderboard
from ..storage import GameSummary, NoSuchGame, PlayerStats, StorageError, Store

__all__ = ["run", "list_lines", "list_json", "player_lines", "open_store"]


def _when(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


def _players_text(game: GameSummary) -> str:
    return ", ".join(f"{'*' if p.won else ''}{p.name} {p.bullheads}" for p in game.players)


def list_lines(games: Sequence[GameSummary]) -> list[str]:
    """The ``--list`` table: one line per game; ``*`` marks the winners.

    >>> from nimmt.server.storage import PlayerResult
    >>> game = GameSummary(3, "t2", "Friday", 1, 0.0, 60.0, 4, (
    ...     PlayerResult(0, "Ann", "human", 12, 1, True), PlayerResult(1, "Bob", "bot", 70, 2, False)))
    >>> line = list_lines([game])[1]  # line[6:22]: when it ended, in local time
    >>> line[:5], line[24:]
    ('    3', 'Friday (t2)               4  *Ann 12, Bob 70')
    """
    if not games:
        return ["No finished games yet."]
    lines = [f"{'id':>5} {'ended':<16}  {'table':<20} {'rounds':>6}  players (bullheads, * won)"]
    for g in games:
        table = f"{g.table_name} ({g.table_id})"
        lines.append(f"{g.id:>5} {_when(g.ended):<16}  {table:<20} {g.rounds:>6}  {_players_text(g)}")
    return lines


def list_json(games: Sequence[GameSummary]) -> list[str]:
    """``--list --json``: one JSON object a game, oldest first: its ``id``, ``table_id``,
    ``table_name``, ``started`` and ``ended`` (Unix seconds), ``rounds`` and its
    ``players`` in seat order (``name``, ``kind``, ``bullheads``, ``place``, ``won``).

    >>> from nimmt.server.storage import PlayerResult
    >>> game = GameSummary(3, "t2", "Friday", 1, 0.0, 60.0, 4, (
    ...     PlayerResult(0, "Ann", "human", 12, 1, True),))
    >>> json.loads(list_json([game])[0])["players"]
    [{'name': 'Ann', 'kind': 'human', 'bullheads': 12, 'place': 1, 'won': True}]
    """
    return [json.dumps({"id": g.id, "table_id": g.table_id, "table_name": g.table_name,
                        "started": g.started, "ended": g.ended, "rounds": g.rounds,
                        "players": [{"name": p.name, "kind": p.kind, "bullheads": p.bullheads,
                                     "place": p.place, "won": p.won} for p in g.players]})
            for g in games]


def player_lines(stats: Sequence[PlayerStats]) -> list[str]:
    """The ``--players`` table.

    >>> print("\\n".join(player_lines([PlayerStats("Ann", 3, 2, 9, 40)])))
    name                  games   wins  rounds  bullheads/round
    Ann                       3      2       9             4.44
    """
    if not stats:
        return ["No finished games yet."]
    lines = [f"{'name':<20} {'games':>6} {'wins':>6} {'rounds':>7}  bullheads/round"]
    for s in stats:
        lines.append(f"{s.name:<20} {s.games:>6} {s.wins:>6} {s.rounds:>7} {s.mean_per_round:>16.2f}")
    return lines


def _replay(store: Store, game_id: int, as_json: bool, out: TextIO, err: TextIO) -> int:
    stored = store.game(game_id)
    s = stored.summary
    record = stored.record
    if not as_json:
        out.write(f"Game {s.id}: table {s.table_name} ({s.table_id}), its game {s.game_no}, "
                  f"{_when(s.started)} to {_when(s.ended)}\n")
        if record.table is not None:
            out.write(table_line(record.table) + "\n")
    narrator = Narrator([record.name(seat) for seat in range(record.options.players)])
    try:
        for step in Replay(record):
            if as_json:
                for event in step.events:
                    out.write(json.dumps(event_to_json(event)) + "\n")
            elif not isinstance(step.action, RecordStart):
                for line in step_lines(narrator, step):
                    out.write(line + "\n")
    except RecordError as e:
        out.flush()
        err.write(f"{PROG}: game {game_id} does not replay: {e}\n")
        return 1
    return 0


def _export(store: Store, game_id: int, target: str, out: TextIO) -> None:
    text = store.game(game_id).record.to_json()
    if target == "-":
        out.write(text)
    else:
        with open(target, "w", encoding="utf-8") as f:
            f.write(text)


def open_store(db: str, err: TextIO) -> Store | None:
    """The database ``db`` ("": the default one) opened read-only, or None once the
    reason was written to ``err``."""
    try:
        return Store.open(db or None, read_only=True)
    except StorageError as e:
        hint = ""
        if str(e).startswith("there is no database"):
            hint = (" (give the file a nimmt-server --db PATH keeps its games in: --db PATH)"
                    if db else " (the server's default database; a nimmt-server started "
                    "with --db PATH keeps its games there: give it with --db PATH)")
        err.write(f"{PROG}: {e}{hint}\n")
        return None


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``nimmt-replay games``, ``players`` or ``ladder`` (``args.mode``), parsed
    and checked by ``command.parse``; return the exit status."""
    game = int(args.game) if args.mode == "games" and args.game is not None else None
    store = open_store(args.db or "", err)
    if store is None:
        return 2
    try:
        if args.mode == "players":
            out.write("\n".join(player_lines(store.player_stats())) + "\n")
        elif args.mode == "ladder":
            board = leaderboard(store)
            out.write((ladder_json(board) if args.json else "\n".join(ladder_lines(board)))
                      + "\n")
        elif game is None and args.json:
            out.writelines(line + "\n" for line in list_json(store.games()))
        elif game is None:
            out.write("\n".join(list_lines(store.games())) + "\n")
        elif args.export:
            _export(store, game, args.export, out)
        else:
            return _replay(store, game, args.json, out, err)
    except NoSuchGame as e:
        err.write(f"{PROG}: {e} ({PROG} games{db_words(args.db)} --list shows them)\n")
        return 1
    except BrokenPipeError:  # piped into head: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that flushing stdout at exit does not fail
        return 0
    except OSError as e:
        err.write(f"{PROG}: cannot write {args.export}: {e.strerror or e}\n")
        return 2
    finally:
        store.close()
    out.flush()
    return 0
