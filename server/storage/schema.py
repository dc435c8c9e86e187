"""The database schema, its version (``PRAGMA user_version``) and its migrations.

Version N of the schema is made by running ``MIGRATIONS[1]`` ... ``MIGRATIONS[N]``
in order, each in one transaction that also sets ``user_version``. To change
the schema, append a migration; never edit one that has shipped.
"""

from __future__ import annotations

__all__ = ["APPLICATION_ID", "SCHEMA_VERSION", "MIGRATIONS"]

#: ``PRAGMA application_id`` of a nimmt database ("nimt" in ASCII): another
#: program's SQLite file is recognised and left alone.
APPLICATION_ID = 0x6E696D74

MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: (
        # next_table: the number of the next table id (t1, t2, ...), never reused
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "INSERT INTO meta (key, value) VALUES ('next_table', '1')",
        # one row per open table; options and settings are JSON objects
        """CREATE TABLE tables (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            options TEXT NOT NULL,
            settings TEXT NOT NULL,
            status TEXT NOT NULL,
            created REAL NOT NULL,
            updated REAL NOT NULL)""",
        # who sits where; token_hash: sha256 of the session token (hex), never the token
        """CREATE TABLE seats (
            table_id TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            name TEXT NOT NULL,
            kind TEXT NOT NULL,
            token_hash TEXT,
            strategy TEXT,
            PRIMARY KEY (table_id, seat))""",
        "CREATE INDEX seats_by_token ON seats (token_hash)",
        # the append-only log of what happened at each open table (facts.py)
        """CREATE TABLE facts (
            table_id TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            kind TEXT NOT NULL,
            payload TEXT NOT NULL,
            at REAL NOT NULL,
            PRIMARY KEY (table_id, seq)) WITHOUT ROWID""",
        # finished games, kept when their table closes; record: docs/RECORD.md JSON
        """CREATE TABLE games (
            id INTEGER PRIMARY KEY,
            table_id TEXT NOT NULL,
            table_name TEXT NOT NULL,
            game_no INTEGER NOT NULL,
            options TEXT NOT NULL,
            started REAL NOT NULL,
            ended REAL NOT NULL,
            rounds INTEGER NOT NULL,
            record TEXT NOT NULL)""",
        """CREATE TABLE game_players (
            game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            name TEXT NOT NULL,
            kind TEXT NOT NULL,
            bullheads INTEGER NOT NULL,
            place INTEGER NOT NULL,
            won INTEGER NOT NULL,
            PRIMARY KEY (game_id, seat))""",
        "CREATE INDEX game_players_by_name ON game_players (name)",
    ),
    2: (
        # who watches an open table: found again by their token after a restart
        """CREATE TABLE spectators (
            table_id TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
            token_hash TEXT NOT NULL,
            name TEXT NOT NULL,
            kind TEXT NOT NULL,
            since REAL NOT NULL,
            PRIMARY KEY (table_id, token_hash)) WITHOUT ROWID""",
    ),
    3: (
        # claimed names (server/ladder/claims.py): name_key is the casefolded name; digest:
        # sha256(salt || key), never the key
        """CREATE TABLE claims (
            name_key TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            salt BLOB NOT NULL,
            digest BLOB NOT NULL,
            at REAL NOT NULL) WITHOUT ROWID""",
        # the ladder (server/ladder/ratings.py): each rated name's rating now ...
        """CREATE TABLE ratings (
            name TEXT PRIMARY KEY,
            mu REAL NOT NULL,
            sigma REAL NOT NULL,
            games INTEGER NOT NULL,
            updated REAL NOT NULL) WITHOUT ROWID""",
        # ... and after each rated game
        """CREATE TABLE rating_history (
            game_id INTEGER,
            name TEXT NOT NULL,
            mu REAL NOT NULL,
            sigma REAL NOT NULL,
            place INTEGER NOT NULL,
            at REAL NOT NULL)""",
        "CREATE INDEX rating_history_by_name ON rating_history (name, at)",
    ),
    4: (
        # the newest facts, in the order they were written: a commit adds its rows to the
        # end of this one table (one page for the facts of many tables) instead of to each
        # table's own place in ``facts``; ``Store.fold`` moves them there now and then,
        # sorted, each table's rows together (benchmarks/README.md, "The recent facts")
        """CREATE TABLE recent_facts (
            id INTEGER PRIMARY KEY,
            table_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            kind TEXT NOT NULL,
            payload TEXT NOT NULL,
            at REAL NOT NULL)""",
    ),
}

SCHEMA_VERSION = max(MIGRATIONS)
