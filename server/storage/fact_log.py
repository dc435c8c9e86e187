"""A table's facts as stored, and what a restarted server reads back of its tables.

A table's facts are in ``facts`` (sorted by table) and, the newest, in
``recent_facts`` (in the order written: a commit adds its rows to the end of one
table) until a fold (``fold.py``) moves them: a reader looks in both. The statements
that write and read them, as plain functions over a ``sqlite3.Connection``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

from .facts import Fact
from .rows import StoredSeat, StoredSpectator, StoredTable

__all__ = ["dumps", "INSERT_FACT", "last_seq", "read_facts", "open_tables"]

INSERT_FACT = "INSERT INTO recent_facts (table_id, seq, kind, payload, at) VALUES (?, ?, ?, ?, ?)"
_LAST_SEQ = ("SELECT max(seq) FROM (SELECT max(seq) AS seq FROM facts WHERE table_id = ?1 "
             "UNION ALL SELECT max(seq) FROM recent_facts WHERE table_id = ?1)")
_LAST_GAME_STARTED = (
    "SELECT max(seq) FROM (SELECT max(seq) AS seq FROM facts WHERE table_id = ?1 AND "
    "kind = 'game_started' UNION ALL SELECT max(seq) FROM recent_facts WHERE table_id = ?1 "
    "AND kind = 'game_started')")
_FACTS_AFTER = (
    "SELECT seq, kind, payload, at FROM facts WHERE table_id = ?1 AND seq > ?2 UNION ALL "
    "SELECT seq, kind, payload, at FROM recent_facts WHERE table_id = ?1 AND seq > ?2 "
    "ORDER BY seq")


def _compact_encoder() -> Callable[[Any], str]:
    """``json.dumps`` without spaces (the log is written often), its encoder made once:
    ``JSONEncoder.encode`` makes a new one each call, half the time of encoding a
    decision's payload (1.7 against 0.9 us). No check for cycles: payloads are trees."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # an interpreter without json's C speedups
        return json.JSONEncoder(separators=(",", ":")).encode
    chunks = make(None, json.JSONEncoder().default, json.encoder.encode_basestring_ascii,
                  None, ":", ",", False, False, True)
    return lambda value: "".join(chunks(value, 0))


#: a fact's payload (or a finished game's record) as the database keeps it: compact JSON
dumps = _compact_encoder()


def last_seq(db: sqlite3.Connection, table_id: str) -> int:
    """The ``seq`` of the table's last fact (0: none)."""
    seq: int = db.execute(_LAST_SEQ, (table_id,)).fetchone()[0] or 0
    return seq


def read_facts(db: sqlite3.Connection, table_id: str, after: int = 0) -> list[Fact]:
    """The table's facts with ``seq`` above ``after``, in order."""
    rows = db.execute(_FACTS_AFTER, (table_id, after)).fetchall()
    return [Fact(kind, json.loads(payload), seq, at) for seq, kind, payload, at in rows]


def open_tables(db: sqlite3.Connection) -> list[StoredTable]:
    """Every table not closed, oldest first, with its seats and the facts needed
    to rebuild its game (``rebuild_game(table.facts)``)."""
    tables = []
    rows = db.execute(
        "SELECT id, name, options, settings, status, created, updated FROM tables "
        "ORDER BY created, id").fetchall()
    for table_id, name, options, settings, status, created, updated in rows:
        seats = tuple(
            StoredSeat(*row) for row in db.execute(
                "SELECT seat, name, kind, token_hash, strategy FROM seats WHERE table_id = ? "
                "ORDER BY seat", (table_id,)))
        start = db.execute(_LAST_GAME_STARTED, (table_id,)).fetchone()[0]
        facts = read_facts(db, table_id, (start or 1) - 1)
        last = last_seq(db, table_id)
        spectators = tuple(
            StoredSpectator(*row) for row in db.execute(
                "SELECT name, kind, token_hash FROM spectators WHERE table_id = ? "
                "ORDER BY since, token_hash", (table_id,)))
        tables.append(StoredTable(table_id, name, json.loads(options), json.loads(settings),
                                  status, created, updated, seats, tuple(facts), last,
                                  spectators))
    return tables
