"""Turn parts of the database off in a nimmt server started by a benchmark, to see
what each part costs (session 16, benchmarks/README.md):

    NIMMT_DB_STUB=1 PYTHONPATH=benchmarks/db_parts python benchmarks/load.py --db on ...
    NIMMT_DB_FOLD_ROWS=1000000000 PYTHONPATH=benchmarks/db_parts python benchmarks/load.py ...
    NIMMT_DB_CHECKPOINT_INTERVAL=1000000 PYTHONPATH=benchmarks/db_parts python benchmarks/load.py ...
    NIMMT_DB_FOLD_GAP=0 PYTHONPATH=benchmarks/db_parts python benchmarks/load.py ...

- ``NIMMT_DB_STUB=1``: every transaction (``Store.write_group``) returns at once without
  SQLite; everything else of the database runs (the tables wait for their writes, the
  writer's scheduler passes, the held effects). Nothing is kept: for measuring only.
- ``NIMMT_DB_FOLD_ROWS=N``: fold the recent facts every N rows (``Store.FOLD_ROWS``;
  a huge N: no fold during the run).
- ``NIMMT_DB_FOLD_PARTS=K``: move the recent facts in K parts (``Store.FOLD_PARTS``;
  1: the whole fold in one transaction, as before session 16).
- ``NIMMT_DB_FOLD_GAP=S``: at least S seconds from one part of a fold to the next
  (``AsyncStore.FOLD_GAP``; 0: the parts one after the other, as before session 19).
- ``NIMMT_DB_PASSES=N``: a write waits N scheduler passes for company before it leads
  a transaction (``AsyncStore.PASSES``, 1; 2: as before session 22).
- ``NIMMT_DB_THREAD=1``: every transaction in a worker thread, as with ``--durability
  full`` but without its syncs (session 19: dearer than on the event loop).
- ``NIMMT_DB_ACK_WAIT=S``: a decision's acknowledgement is held at most S seconds
  for a transaction that others make (``table.ACK_WAIT``, 0.01; 0: written at once,
  as before session 21).
- ``NIMMT_DB_CHECKPOINT_INTERVAL=S``: the checkpointer thread copies the log at most
  every S seconds (``Checkpointer.INTERVAL``; a huge S: only its first copy, then the
  writer's own checkpoints once the log passes its bound).

Python imports ``sitecustomize`` at start-up in every process on ``PYTHONPATH``; this
one acts only in a ``nimmt.server`` process.
"""

from __future__ import annotations

import os
import sys
from typing import Any

if "nimmt.server" in " ".join(getattr(sys, "orig_argv", [])):
    from nimmt.server.storage import store as _store

    if os.environ.get("NIMMT_DB_STUB"):
        def _write_group(self: Any, calls: Any) -> Any:
            return [(1, None) for _ in calls], None

        _store.Store.write_group = _write_group  # type: ignore[method-assign]
    if os.environ.get("NIMMT_DB_FOLD_ROWS"):
        _store.Store.FOLD_ROWS = int(os.environ["NIMMT_DB_FOLD_ROWS"])
    if os.environ.get("NIMMT_DB_FOLD_PARTS"):
        _store.Store.FOLD_PARTS = int(os.environ["NIMMT_DB_FOLD_PARTS"])
    from nimmt.server.storage import async_store as _async_store

    if os.environ.get("NIMMT_DB_FOLD_GAP"):
        _async_store.AsyncStore.FOLD_GAP = float(os.environ["NIMMT_DB_FOLD_GAP"])
    if os.environ.get("NIMMT_DB_PASSES"):
        _async_store.AsyncStore.PASSES = int(os.environ["NIMMT_DB_PASSES"])
    if os.environ.get("NIMMT_DB_THREAD"):
        _init = _async_store.AsyncStore.__init__

        def _init_in_threads(self: Any, *args: Any, **kwargs: Any) -> None:
            _init(self, *args, **kwargs)
            self._in_loop = False

        _async_store.AsyncStore.__init__ = _init_in_threads  # type: ignore[method-assign]
    if os.environ.get("NIMMT_DB_ACK_WAIT"):
        from nimmt.server.tables import held as _held

        _held.ACK_WAIT = float(os.environ["NIMMT_DB_ACK_WAIT"])
    if os.environ.get("NIMMT_DB_CHECKPOINT_INTERVAL"):
        from nimmt.server.storage import checkpoints as _checkpoints

        _checkpoints.Checkpointer.INTERVAL = float(os.environ["NIMMT_DB_CHECKPOINT_INTERVAL"])
