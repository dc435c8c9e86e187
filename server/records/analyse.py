"""``nimmt-replay analyse``: the coach's analysis of a finished game (docs/ANALYSIS.md).

The analysis itself is ``nimmt.bots.analysis`` (engine and bots only); this
mode reads the record (a file or a kept game: ``replay.main`` loads it), runs
it with a progress bar on standard error when that is a terminal, and prints
the text or, with ``--json``, one JSON object. Seats are analysed in ``--jobs``
processes (default: one a core): a seat's analysis does not depend on the
others', so the result is the same whatever the number of processes.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, wait
from typing import Any, TextIO

from nimmt.bots.analysis import GameAnalysis, SeatAnalysis, analyse
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
    seats = list(range(players)) if args.seat is None else [args.seat]
    bar = progress_bar(err) if err.isatty() else None
    jobs = max(1, min(args.jobs if args.jobs is not None else (os.cpu_count() or 1),
                      len(seats)))
    try:
        if jobs == 1:
            analysis = analyse(record, seats, samples=args.samples, seed=args.seed,
                               progress=bar)
        else:
            analysis = _in_processes(record, seats, args.samples, args.seed, jobs, bar)
    except RecordError as e:
        err.write(f"{PROG}: {label}: {e}\n")
        return 1
    if args.json:
        out.write(json.dumps(analysis_json(analysis)) + "\n")
    else:
        out.write("\n".join(analysis_lines(analysis)) + "\n")
    out.flush()
    return 0


_done: Any = None  # in a worker process: the shared count of decisions analysed


def _start_worker(done: Any) -> None:
    global _done
    _done = done


def _count(done: int, total: int) -> None:
    with _done.get_lock():
        _done.value += 1


def _one_seat(record: Record, seat: int, samples: int, seed: int) -> tuple[SeatAnalysis, int]:
    analysis = analyse(record, [seat], samples=samples, seed=seed, progress=_count)
    return analysis.seats[0], sum(len(r.decisions) for r in analysis.seats[0].rounds)


def _in_processes(record: Record, seats: list[int], samples: int, seed: int, jobs: int,
                  bar: Callable[[int, int], None] | None) -> GameAnalysis:
    """``analyse`` a seat a process, ``jobs`` at a time, the bar counting every
    decision done in any of them."""
    context = multiprocessing.get_context("spawn")  # no fork of a threaded parent
    done = context.Value("i", 0)
    total = _decisions(record, seats) if bar is not None else 0
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_start_worker,
                             initargs=(done,)) as pool:
        futures = [pool.submit(_one_seat, record, s, samples, seed) for s in seats]
        pending = set(futures)
        while pending:
            _, pending = wait(pending, timeout=_REDRAW)
            if bar is not None:
                bar(min(done.value, total - 1) if pending else total, total)
        parts = [f.result()[0] for f in futures]
    return GameAnalysis(samples, seed, tuple(parts))


def _decisions(record: Record, seats: list[int]) -> int:
    """How many decisions of ``seats`` the record holds (for the bar's total)."""
    wanted = set(seats)
    count = 0
    for rnd in record.rounds:
        for turn in rnd.turns:
            count += sum(1 for s, c in enumerate(turn.commits) if c is not None and s in wanted)
            count += sum(1 for c in turn.choices if c.seat in wanted)
    return max(1, count)
