"""``nimmt-replay FILE``: re-run a game record through the engine and show each step.

Prints the game readably (or, with ``--json``, one JSON object per event and
line); a record that contradicts the rules is rejected with an error naming
the round, turn and seat. Exit status: 0 when the record replays (to its end or
to where it stops), 1 when the record is invalid or contradicts the rules, 2 for
a usage error or a file that cannot be read. Run as
``python -m nimmt.server.records.replay`` as well. The record format is
described in docs/RECORD.md.

With ``--spectator`` (a record file, or ``--db PATH GAME_ID``) it prints the
game as the protocol messages a spectator of its table would have received, one
JSON object a line (``watching`` first, each with its ``seq``): what
``nimmt-client --replay`` plays on its board (the client imports only the
protocol, so it runs this command rather than the engine).

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

from nimmt import protocol as P
from nimmt.engine import (
    CommitAccepted,
    HandDealt,
    RoundStarted,
    TurnStarted,
    UnfairDeal,
    verify_deals,
)
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

from ..game import translate
from .history import main as history_main
from .history import open_store, wants_history
from ..game.events import messages_for

__all__ = ["main", "spectator_messages", "verify_main"]

#: The decisions' times a replayed table announces: the longest (clients show no clock).
_UNTIMED = P.MAX_DECISION_TIME

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


def _read(path: str) -> Record:
    """The record in file ``path`` (``-``: standard input). ``OSError`` if unreadable."""
    if path == "-":
        return record_from_bytes(sys.stdin.buffer.read())
    with open(path, "rb") as f:
        return record_from_bytes(f.read())


def _read_or_say(path: str, err: TextIO) -> Record | int:
    """The record in ``path``, or the exit status once ``err`` was told why not (2:
    unreadable, 1: not a valid record)."""
    label = path if path != "-" else "<stdin>"
    try:
        return _read(path)
    except OSError as e:
        err.write(f"{PROG}: {label}: cannot read: {e.strerror or e}\n")
        return 2
    except RecordError as e:
        err.write(f"{PROG}: {label}: {e}\n")
        return 1


def _emit(out: TextIO, line: str) -> None:
    out.write(line + "\n")


def spectator_messages(record: Record, table_id: str = "replay",
                       table_name: str = "") -> list[P.Message]:
    """The game of ``record`` as a spectator of its table receives it: ``watching``,
    then the game's messages (a record that starts from a position: a ``snapshot``
    of it). Raises ``RecordError`` where the record contradicts the rules."""
    o = record.options
    options = P.TableOptions(
        seats=o.players, tactic_deck=o.tactic_deck, draft=o.draft, professional=o.professional,
        point_limit=o.point_limit, rounds=o.rounds, turn_time=_UNTIMED, choice_time=_UNTIMED,
        draft_time=_UNTIMED, step_delay=0.0)
    seats = tuple(P.SeatInfo(name=record.name(s)[:32] or f"seat {s + 1}", kind="human",
                             connected=True, total=0, penalties=0) for s in range(o.players))
    info = P.TableInfo(table_id=table_id, name=table_name[:40], options=options, seats=seats,
                       host=None, status="playing", spectators=0)
    out: list[P.Message] = [P.Watching(table=info)]
    run = Replay(record)
    shown = (0, 0)
    for step in run:
        game = run.game
        assert game is not None
        if isinstance(step.action, Start):
            out.append(translate.snapshot(game.view(None), info, None, None))
            shown = (game.round, game.turn)
            continue
        for event in step.events:
            if isinstance(event, (CommitAccepted, HandDealt)):
                continue  # told to one seat only
            if isinstance(event, RoundStarted):
                shown = (event.round, 0)
            elif isinstance(event, TurnStarted):
                shown = (event.round, event.turn)
            for seat, msg in messages_for(event, game.options, game.view, shown, (0.0, 0.0)):
                if seat is None:
                    out.append(msg)
    return out


class _Loaded:
    """A record read from a file or the database, with what to call it."""

    def __init__(self, record: Record, label: str, table_id: str, name: str) -> None:
        self.record, self.label, self.table_id, self.name = record, label, table_id, name


def _mode_parser(mode: str, description: str) -> argparse.ArgumentParser:
    """The arguments of ``--spectator`` and ``--verify``: a record file or a kept game."""
    parser = argparse.ArgumentParser(prog=f"{PROG} --{mode}", description=description)
    parser.add_argument(f"--{mode}", action="store_true", required=True)
    parser.add_argument("game", metavar="FILE|GAME_ID",
                        help="a record file (- : standard input), or with --db the id of a "
                        "game the server kept (nimmt-replay --db PATH --list)")
    parser.add_argument("--db", metavar="PATH", nargs="?", const="",
                        help="read game GAME_ID from the server's database (without PATH: "
                        "the default one)")
    return parser


def _load(game: str, db: str | None, err: TextIO) -> _Loaded | int:
    """The record named by ``game`` (a file, or with ``db`` a game id), or the exit
    status once ``err`` was told why not (2: usage or unreadable, 1: no such game or
    not a record)."""
    if db is None:
        record = _read_or_say(game, err)
        if isinstance(record, int):
            return record
        name = os.path.splitext(os.path.basename(game))[0] if game != "-" else ""
        return _Loaded(record, game if game != "-" else "<stdin>", "replay", name)
    from ..storage import NoSuchGame

    if not game.isdigit():
        err.write(f"{PROG}: with --db give a game id (a number), not {game!r}\n")
        return 2
    store = open_store(db, err)
    if store is None:
        return 2
    try:
        stored = store.game(int(game))
    except NoSuchGame as e:
        err.write(f"{PROG}: {e} (nimmt-replay --db {db} --list shows them)\n")
        return 1
    finally:
        store.close()
    summary = stored.summary
    return _Loaded(stored.record, f"game {game}", summary.table_id or "replay",
                   f"{summary.table_name}, game {summary.game_no}")


def _spectator_main(argv: Sequence[str]) -> int:
    """``nimmt-replay --spectator FILE`` or ``--spectator --db PATH GAME_ID``."""
    parser = _mode_parser("spectator", "Print a finished game as the protocol messages a "
                          "spectator receives (JSON lines), for nimmt-client --replay.")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 2
    err = sys.stderr
    loaded = _load(args.game, args.db, err)
    if isinstance(loaded, int):
        return loaded
    try:
        messages = spectator_messages(loaded.record, loaded.table_id, loaded.name)
    except RecordError as e:
        err.write(f"{PROG}: {loaded.label}: {e}\n")
        return 1
    out = sys.stdout
    try:
        for seq, msg in enumerate(messages, 1):
            out.write(json.dumps({**msg.to_wire(), "seq": seq}) + "\n")
        out.flush()
    except BrokenPipeError:  # e.g. piped into head: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def verify_main(argv: Sequence[str]) -> int:
    """``nimmt-replay --verify``: 0 every deal checks, 1 one does not, 2 usage or unreadable."""
    parser = _mode_parser("verify", "Check that every deal of a finished game is the one "
                          "derived from the seed the server committed to and the players' "
                          "contributions (docs/PROTOCOL.md, Verifiable deals). Exit status 1 "
                          "if one is not.")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 2
    out, err = sys.stdout, sys.stderr
    loaded = _load(args.game, args.db, err)
    if isinstance(loaded, int):
        return loaded
    record, label = loaded.record, loaded.label
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``nimmt-replay``; return the exit status (0 ok, 1 bad record, 2 usage or unreadable)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if "--spectator" in args_list:
        return _spectator_main(args_list)
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
    record = _read_or_say(args.file, err)
    if isinstance(record, int):
        return record
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
