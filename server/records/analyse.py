"""``nimmt-replay analyse``: the coach's analysis of a finished game (docs/ANALYSIS.md).

The analysis itself is ``nimmt.bots.analysis`` (engine and bots only); this
mode reads the record (a file or a kept game: ``replay.main`` loads it), runs
it with a progress bar on standard error when that is a terminal, and prints
the text or, with ``--json``, one JSON object.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import TextIO

from nimmt.bots.analysis import analyse
from nimmt.bots.analysis_report import analysis_json, analysis_lines
from nimmt.engine.records import Record, RecordError

from .command import PROG

__all__ = ["run", "progress_bar"]

#: Seconds between two redraws of the bar (the last one is always drawn).
_REDRAW = 0.1


def progress_bar(err: TextIO, width: int = 30) -> Callable[[int, int], None]:
    """A ``progress(done, total)`` that redraws one line of ``err``."""
    last = [0.0]

    def show(done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - last[0] < _REDRAW:
            return
        last[0] = now
        filled = width * done // max(1, total)
        err.write(f"\ranalysing [{'#' * filled}{'.' * (width - filled)}] {done}/{total} "
                  "decisions")
        if done >= total:
            err.write("\n")
        err.flush()

    return show


def run(args: argparse.Namespace, record: Record, label: str, out: TextIO, err: TextIO) -> int:
    """Analyse ``record`` as ``args`` say; 0 done, 1 the record contradicts the rules,
    2 a seat that is not at this table."""
    players = record.options.players
    if args.seat is not None and not 0 <= args.seat < players:
        err.write(f"{PROG}: {label}: --seat {args.seat}: the seats are 0 to {players - 1}\n")
        return 2
    seats = None if args.seat is None else [args.seat]
    bar = progress_bar(err) if err.isatty() else None
    try:
        analysis = analyse(record, seats, samples=args.samples, seed=args.seed, progress=bar)
    except RecordError as e:
        err.write(f"{PROG}: {label}: {e}\n")
        return 1
    if args.json:
        out.write(json.dumps(analysis_json(analysis)) + "\n")
    else:
        out.write("\n".join(analysis_lines(analysis)) + "\n")
    out.flush()
    return 0
