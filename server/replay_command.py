"""``nimmt-replay FILE``: re-run a game record through the engine and show each step.

Prints the game readably (or, with ``--json``, one JSON object per event and
line); a record that contradicts the rules is rejected with an error naming
the round, turn and seat. Exit status: 0 when the record replays (to its end or
to where it stops), 1 when the record is invalid or contradicts the rules, 2 for
a usage error or a file that cannot be read. Run as
``python -m nimmt.server.replay_command`` as well. The record format is
described in docs/RECORD.md.

``nimmt-replay --verify FILE`` (or ``--verify --db [PATH] GAME_ID``, a game the
server kept) checks that every deal of a finished game is the one derived from
the seed it committed to and the players' contributions (docs/PROTOCOL.md,
"Verifiable deals"), and that the record replays: exit status 0 when it does,
1 when a deal, the seed or the record is wrong.

The replaying and the words are the engine's (``nimmt.engine.records``); this
module reads the file and writes to the terminal. It lives in the server package,
which owns the games' storage this command is to read from as well.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from nimmt.engine import UnfairDeal, verify_deals
from nimmt.engine.records import (
    Narrator,
    Record,
    RecordError,
    Replay,
    Start,
    event_to_json,
    position_set_json,
    record_from_bytes,
    record_stopped_json,
    step_lines,
)

from .history_command import main as history_main
from .history_command import wants_history
from .storage import NoSuchGame, StorageError, Store, default_path

__all__ = ["main"]

PROG = "nimmt-replay"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Re-run a 6 nimmt! game record (docs/RECORD.md) through the rules engine "
        "and show each step. Exit status 1 if the record contradicts the rules.",
    )
    parser.add_argument("file", metavar="FILE", help="the record (JSON); - reads standard input")
    parser.add_argument(
        "--json", action="store_true", help="print the events as JSON lines instead of text"
    )
    return parser


def _read_or_status(path: str, label: str, err: TextIO) -> Record | int:
    """The record in ``path``, or the exit status after saying why it cannot be read
    (2: unreadable, 1: not a record)."""
    try:
        return _read(path)
    except OSError as e:
        err.write(f"{PROG}: {label}: cannot read: {e.strerror or e}\n")
        return 2
    except RecordError as e:
        err.write(f"{PROG}: {label}: {e}\n")
        return 1


def _read(path: str) -> Record:
    """The record in file ``path`` (``-``: standard input). ``OSError`` if unreadable."""
    if path == "-":
        return record_from_bytes(sys.stdin.buffer.read())
    with open(path, "rb") as f:
        return record_from_bytes(f.read())


def _verify_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"{PROG} --verify",
        description="Check that every deal of a finished game is the one derived from the "
        "seed the server committed to and the players' contributions "
        "(docs/PROTOCOL.md, Verifiable deals). Exit status 1 if one is not.",
    )
    parser.add_argument("--verify", action="store_true", required=True)
    parser.add_argument("source", metavar="FILE | GAME_ID",
                        help="the record (JSON; - reads standard input), or with --db the "
                        "id of a game the server kept (nimmt-replay --db PATH --list)")
    parser.add_argument("--db", metavar="PATH", nargs="?", const="",
                        help=f"read the game from the server's database (without PATH: "
                        f"{default_path()})")
    return parser


def verify_main(argv: Sequence[str]) -> int:
    """``nimmt-replay --verify``: 0 every deal checks, 1 one does not, 2 usage or unreadable."""
    try:
        args = _verify_parser().parse_args(argv)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 2
    out, err = sys.stdout, sys.stderr
    if args.db is not None:
        label = f"game {args.source}"
        try:
            game_id = int(args.source)
        except ValueError:
            err.write(f"{PROG}: with --db give a GAME_ID (a number), not {args.source!r}\n")
            return 2
        try:
            with Store.open(args.db or None, read_only=True) as store:
                record = store.game(game_id).record
        except StorageError as e:
            err.write(f"{PROG}: {e}\n")
            return 2
        except NoSuchGame as e:
            err.write(f"{PROG}: {e} (nimmt-replay --db {args.db} --list shows them)\n")
            return 1
    else:
        label = args.source if args.source != "-" else "<stdin>"
        read = _read_or_status(args.source, label, err)
        if isinstance(read, int):
            return read
        record = read
    try:
        deals = verify_deals(record)
        Replay(record).run()
    except (UnfairDeal, RecordError) as e:
        err.write(f"{PROG}: {label}: NOT VERIFIED: {e}\n")
        return 1
    claim = record.fair_deal
    assert claim is not None
    out.write(f"{label}: verified: the seed matches the commitment {claim.commitment} and "
              f"all {deals} deals are the ones it gives with the players' contributions\n")
    return 0


def _emit(out: TextIO, line: str) -> None:
    out.write(line + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``nimmt-replay``; return the exit status (0 ok, 1 bad record, 2 usage or unreadable)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if "--verify" in args_list:
        return verify_main(args_list)
    if wants_history(args_list):
        return history_main(args_list)
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:  # argparse has printed the usage or the help
        return e.code if isinstance(e.code, int) else 2
    out, err = sys.stdout, sys.stderr
    label = args.file if args.file != "-" else "<stdin>"
    read = _read_or_status(args.file, label, err)
    if isinstance(read, int):
        return read
    record = read
    names = [record.name(s) for s in range(record.options.players)]
    narrator = Narrator(names)
    run = Replay(record)
    try:
        try:
            for step in run:
                if args.json:
                    if isinstance(step.action, Start):
                        _emit(out, json.dumps(position_set_json(step.action, step.turn)))
                    for event in step.events:
                        _emit(out, json.dumps(event_to_json(event)))
                else:
                    for line in step_lines(narrator, step):
                        _emit(out, line)
        except RecordError as e:
            out.flush()
            err.write(f"{PROG}: {label}: {e}\n")
            return 1
        if run.stopped is not None:
            if args.json:
                _emit(out, json.dumps(record_stopped_json(run)))
            else:
                stopped = run.stopped
                _emit(out, stopped[0].upper() + stopped[1:] + ".")
        out.flush()
    except BrokenPipeError:  # e.g. piped into head: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that flushing stdout at exit does not fail
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
