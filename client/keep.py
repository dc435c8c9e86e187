"""What the screen showed, kept on disk so that coming back wipes nothing: the event
log (with the chat), the score sheet and a finished game's ranking.

One small JSON file per server and name (``table-HOST-PORT-NAME-HASH.json``: two
names playing from one account on one server each keep their own), beside the
session token (in the same directory, mode 0700; the file mode 0600: the chat is
nobody else's business):
``{"version": 1, "name": ..., "table_id": ..., "seat_at": ..., "log": [[text, kind], ...],
"scores": [[round, penalties, totals], ...], "result": [totals, places, winners],
"evening": {...}}``
(``seat_at``: the table where the name had a seat, as the log names it, or null:
said if the next run cannot take that seat back; ``evening``: tonight's standings,
:meth:`~nimmt.client.evening.Evening.to_json`, going on if the next run comes back
to that table).
The log keeps its last :data:`KEEP_LINES` lines. A new ``nimmt-client`` for the
same server and name shows the old log again (under a line saying so), and the
score sheet and ranking of its table when it is back at that table. The server
is not involved: it keeps no log for anyone.

>>> import tempfile
>>> from nimmt.client.model import TableModel
>>> directory = tempfile.mkdtemp()
>>> before = TableModel()
>>> before._say("<Bob> gg", "chat")
>>> TableKeeper(directory, "gamebox", 6066, "Ann").save(before)
>>> after = TableModel()
>>> TableKeeper(directory, "gamebox", 6066, "Ann").restore(after)
True
>>> [line.text for line in after.log]
['<Bob> gg', '— before nimmt-client was restarted —']
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Final

from .evening import Evening
from .model_state import TableState, table_label
from .records import GameResult, LogLine, RoundResult
from .sessions import host_part, name_part, state_dir, write_private

__all__ = ["TableKeeper", "KEEP_LINES", "RESTART_LINE"]

#: The log lines kept (the file stays small: a few tens of kilobytes).
KEEP_LINES: Final = 300
RESTART_LINE: Final = "— before nimmt-client was restarted —"


def _ints(value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(type(v) is int for v in value):
        raise ValueError("not a list of whole numbers")
    return tuple(value)


class TableKeeper:
    """Saves and brings back one server's and name's log, score sheet and ranking.

    Failures (a read-only home, a broken file) are never fatal: nothing is kept or
    brought back, and ``last_error`` says why."""

    def __init__(self, directory: str | os.PathLike[str] | None, host: str, port: int,
                 name: str) -> None:
        self.directory = Path(directory) if directory is not None else state_dir()
        safe = host_part(host)
        self.path = self.directory / f"table-{safe}-{port}-{name_part(name)}.json"
        # before the name was in the file's name (read once, if its name is ours)
        self._legacy = self.directory / f"table-{safe}-{port}.json"
        self.name = name
        self.last_error: str | None = None
        self._saved_version = -1

    def save(self, model: TableState) -> None:
        """Write what ``model`` shows now (atomically), if it changed since the last save."""
        if model.version == self._saved_version and self.path.exists():
            return
        r = model.result
        data = {
            "version": 1, "name": self.name,
            "table_id": model.table.table_id if model.table is not None else None,
            "seat_at": table_label(model.table) if model.table is not None
            and model.seat is not None and not model.watching else None,
            "log": [[line.text, line.kind] for line in model.log[-KEEP_LINES:]
                    if line.text != RESTART_LINE],
            "scores": [[s.round, list(s.penalties), list(s.totals)] for s in model.scores],
            "result": [list(r.totals), list(r.places), list(r.winners)] if r else None,
            "evening": model.evening.to_json(),
        }
        try:
            write_private(self.directory, self.path, json.dumps(data))
            self._saved_version = model.version
        except OSError as exc:
            self.last_error = f"cannot keep the event log in {self.directory}: {exc}"

    def restore(self, model: TableState) -> bool:
        """Put the kept log at the start of ``model``'s, and hand it the kept score
        sheet and ranking (shown if it comes back to that table). False: nothing kept."""
        path = self.path if self.path.exists() or not self._legacy.exists() else self._legacy
        try:
            data = json.loads(path.read_text("utf-8"))
            if not isinstance(data, dict) or data.get("name") != self.name:
                return False
            log = [LogLine(str(text), str(kind)) for text, kind in data["log"]][-KEEP_LINES:]
            scores = [RoundResult(int(rnd), _ints(pen), _ints(tot))
                      for rnd, pen, tot in data["scores"]]
            result = data["result"]
            kept_result = GameResult(*(_ints(v) for v in result)) if result else None
            table_id = data["table_id"]
            seat_at = data.get("seat_at")
            evening = Evening.from_json(data["evening"]) if "evening" in data else None
        except FileNotFoundError:
            return False
        except (OSError, ValueError, TypeError, KeyError) as exc:
            self.last_error = f"cannot read the kept event log: {exc}"
            return False
        if log:
            model.log[:0] = [*log, LogLine(RESTART_LINE, "info")]
        if isinstance(table_id, str):
            model.recall(table_id, scores, kept_result)
        model.kept_seat_at = seat_at if isinstance(seat_at, str) else None
        if evening is not None:
            model.evening = evening
        return True
