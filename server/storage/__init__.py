"""nimmt.server.storage: the server's SQLite database (docs/SERVER.md, "Storage").

- ``Store``: blocking calls on one connection. ``store.py``; opening checks the
  file (lock, corruption, schema version) and migrates it (``opening.py``); a
  table's facts as stored and read back (``fact_log.py``), moved from the recent
  log into each table's by the fold (``fold.py``); finished games kept and read
  back (``games.py``); the log copied back into the file beside the writes
  (``checkpoints.py``).
- ``AsyncStore``: the same for trio code: what the tables hand in together goes
  in one transaction (group commit), made on the event loop (a commit does not
  wait for the disk), with reads and checkpoints in threads;
  writes queued and retried while the file cannot be written, dropped (and said)
  past ``MAX_BACKLOG``. ``async_store.py``; the writes handed in (``PendingWrite``,
  ``Writes``) and what it gave up on (``Dropped``): ``writes.py``.
- Facts: what happened at a table as JSON, and ``rebuild_game`` to get the
  engine ``Game`` back from them. ``facts.py``.
- The values the store returns (``rows.py``); the default path, the lock file
  and token hashing (``files.py``); the schema and its migrations (``schema.py``).
- The errors, all ``StorageError``. ``errors.py``.
"""

from .async_store import MAX_BACKLOG, AsyncStore
from .errors import (
    DatabaseCorrupt,
    DatabaseLocked,
    DatabaseTooNew,
    DatabaseUnreadable,
    NotANimmtDatabase,
    StorageError,
    StorageWriteError,
)
from .facts import (
    KINDS,
    Fact,
    FactError,
    GameRebuilder,
    deal_fact,
    deal_from,
    decision_fact,
    decision_from,
    game_over_fact,
    game_started_fact,
    left_fact,
    options_from,
    options_to_json,
    rebuild_game,
    seat_fact,
)
from .files import MEMORY, default_path, hash_token
from .rows import (
    GameSummary,
    NoSuchGame,
    PlayerResult,
    PlayerStats,
    StoredGame,
    StoredSeat,
    StoredSpectator,
    StoredTable,
)
from .schema import SCHEMA_VERSION
from .store import DURABILITY, Store
from .writes import Dropped, PendingWrite, Writes

__all__ = [
    "Store", "AsyncStore", "Dropped", "PendingWrite", "Writes", "MAX_BACKLOG", "DURABILITY", "MEMORY", "SCHEMA_VERSION", "default_path", "hash_token",
    "StoredTable", "StoredSeat", "StoredSpectator", "GameSummary", "StoredGame", "PlayerResult", "PlayerStats",
    "NoSuchGame",
    "StorageError", "DatabaseLocked", "DatabaseCorrupt", "DatabaseTooNew", "NotANimmtDatabase",
    "DatabaseUnreadable", "StorageWriteError",
    "KINDS", "Fact", "FactError", "GameRebuilder", "rebuild_game",
    "game_started_fact", "deal_fact", "decision_fact", "seat_fact", "left_fact", "game_over_fact",
    "options_to_json", "options_from", "deal_from", "decision_from",
]
