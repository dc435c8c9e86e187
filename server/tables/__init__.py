"""nimmt.server.tables: the table actor (trio) around a sans-IO ``Match``.

- ``table.py``: ``Table``: one task a table that takes its inputs in the order
  they arrived, writes what the match decided and delivers its messages once
  their writes are on disk;
- ``effects.py``: what a table does with its match's effects that needs no task:
  the sessions linked, the writes handed to the store, the new ratings shown, the
  storage notice, the settings stored (plain functions);
- ``held.py``: ``HeldOutput``: the effects a table holds for the disk, and when
  they are ready (sans-IO);
- ``restore.py``: a table brought back from the database after a restart.
"""

from .effects import storage_notice
from .restore import RestoreError, restore_match, skip_on_restore
from .table import Table

__all__ = ["Table", "storage_notice", "RestoreError", "restore_match", "skip_on_restore"]
