"""``nimmt-replay``: re-run a game record through the engine and show each step.

The command line (its modes, the older spellings) is ``command.py``'s; this
module runs the modes on records: ``show`` prints the game readably (or, with
``--json``, one JSON object per event and line); a record that contradicts the
rules is rejected with an error naming the round, turn and seat. Exit status: 0
when the record replays (to its end or to where it stops), 1 when the record is
invalid or contradicts the rules, 2 for a usage error or a file that cannot be
read. The record format is described in docs/RECORD.md. The modes on a server's
database (``games``, ``players``, ``ladder``) are ``history.py``'s.

``spectator`` (a record file, or ``--db PATH GAME_ID``) prints the game as the
protocol messages a spectator of its table would have received, one JSON object
a line (``watching`` first, each with its ``seq``): what ``nimmt-client
--replay`` plays on its board (the client imports only the protocol, so it runs
this command rather than the engine).

``verify FILE`` (or ``verify --db PATH GAME_ID``, a game the server kept) checks
that every deal of a finished game is the one derived from the seed it committed
to and the players' contributions (docs/PROTOCOL.md, "Verifiable deals"), and
that the record replays: exit status 0 when it does, 1 when a deal, the seed or
the record is wrong.

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
    FairDealClaim,
    Narrator,
    Record,
    RecordError,
    Replay,
    Start,
    TableFacts,
    event_to_json,
    position_set_json,
    record_from_bytes,
    record_stopped_json,
    step_lines,
    table_line,
)

from ..game import translate
from ..game.events import messages_for
from . import analyse, history
from .command import PROG, db_words, parse
from .history import open_store

__all__ = ["main", "spectator_messages"]

#: The decisions' times a replayed table announces when its record keeps no clock: the
#: longest (clients show no clock).
_UNTIMED = P.MAX_DECISION_TIME


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
        # a bare word that is no file was more likely meant as a mode (nimmt-replay list)
        hint = (f" (not a record file, nor a mode: {PROG} --help lists them)"
                if isinstance(e, FileNotFoundError) and "." not in path and os.sep not in path
                else "")
        err.write(f"{PROG}: {label}: cannot read: {e.strerror or e}{hint}\n")
        return 2
    except RecordError as e:
        err.write(f"{PROG}: {label}: {e}\n")
        return 1


def _emit(out: TextIO, line: str) -> None:
    out.write(line + "\n")


def _clock(seconds: float | None) -> float:
    """A decision's time as a table announces it (a record's own: any number of seconds)."""
    return _UNTIMED if seconds is None else min(max(seconds, 0.1), _UNTIMED)


def spectator_messages(record: Record, table_id: str = "replay",
                       table_name: str = "", *, seat: int | None = None,
                       kinds: Sequence[str] | None = None) -> list[P.Message]:
    """The game of ``record`` as a spectator of its table receives it: ``watching``,
    then the game's messages (a record that starts from a position: a ``snapshot``
    of it). From ``seat``: ``seated`` there instead, and that seat's hands too (its
    requests are left out: nothing is asked of a replay). ``kinds``: each seat's
    ("bot" or "human", as the server kept them; default human). Raises
    ``RecordError`` where the record contradicts the rules."""
    o = record.options
    if seat is not None and not 0 <= seat < o.players:
        raise RecordError(f"--seat {seat}: the game has seats 0 to {o.players - 1}")
    t = record.table or TableFacts()  # (a record that keeps no table: untimed, not rated)
    options = P.TableOptions(
        seats=o.players, tactic_deck=o.tactic_deck, draft=o.draft, professional=o.professional,
        point_limit=o.point_limit, rounds=o.rounds, turn_time=_clock(t.turn_time),
        choice_time=_clock(t.choice_time), draft_time=_clock(t.draft_time), step_delay=0.0,
        time_bank=min(t.time_bank, P.MAX_DECISION_TIME), rated=t.rated)
    seats = tuple(P.SeatInfo(name=record.name(s)[:32] or f"seat {s + 1}",
                             kind=kinds[s] if kinds and s < len(kinds) and kinds[s] in ("bot", "human")
                             else "human", connected=True, total=0, penalties=0)
                  for s in range(o.players))
    info = P.TableInfo(table_id=table_id, name=table_name[:40], options=options, seats=seats,
                       host=None, status="playing", spectators=0)
    out: list[P.Message] = [P.Watching(table=info) if seat is None
                            else P.Seated(table=info, seat=seat)]
    run = Replay(record)
    shown = (0, 0)
    for step in run:
        game = run.game
        assert game is not None
        if isinstance(step.action, Start):
            out.append(translate.snapshot(game.view(seat), info, None, None))
            shown = (game.round, game.turn)
            continue
        for event in step.events:
            if isinstance(event, HandDealt) and seat is not None:
                out += [msg for to, msg in messages_for(event, game.options, game.view, shown,
                                                        (0.0, 0.0))
                        if to == seat and isinstance(msg, P.HandDealt)]
                continue
            if isinstance(event, (CommitAccepted, HandDealt)):
                continue  # told to one seat only
            if isinstance(event, RoundStarted):
                shown = (event.round, 0)
            elif isinstance(event, TurnStarted):
                shown = (event.round, event.turn)
            for to, msg in messages_for(event, game.options, game.view, shown, (0.0, 0.0)):
                if to is None:
                    out.append(msg)
    return out


class _Loaded:
    """A record read from a file or the database, with what to call it (and, from the
    database, each seat's kind)."""

    def __init__(self, record: Record, label: str, table_id: str, name: str,
                 kinds: Sequence[str] | None = None) -> None:
        self.record, self.label, self.table_id, self.name = record, label, table_id, name
        self.kinds = kinds


def _load(game: str, db: str | None, err: TextIO) -> _Loaded | int:
    """The record named by ``game`` (a file, or with ``db`` a game id: ``command``
    checked it is a number), or the exit status once ``err`` was told why not (2:
    unreadable, 1: no such game or not a record)."""
    if db is None:
        record = _read_or_say(game, err)
        if isinstance(record, int):
            return record
        name = (record.table.name if record.table is not None and record.table.name
                else os.path.splitext(os.path.basename(game))[0] if game != "-" else "")
        return _Loaded(record, game if game != "-" else "<stdin>", "replay", name)
    from ..storage import NoSuchGame

    store = open_store(db, err)
    if store is None:
        return 2
    try:
        stored = store.game(int(game))
    except NoSuchGame as e:
        err.write(f"{PROG}: {e} ({PROG} games{db_words(db)} --list shows them)\n")
        return 1
    finally:
        store.close()
    summary = stored.summary
    kinds = [p.kind for p in sorted(summary.players, key=lambda p: p.seat)]
    return _Loaded(stored.record, f"game {game}", summary.table_id or "replay",
                   f"{summary.table_name}, game {summary.game_no}", kinds)


def _spectator(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``nimmt-replay spectator FILE`` or ``spectator --db PATH GAME_ID``."""
    loaded = _load(args.game, args.db, err)
    if isinstance(loaded, int):
        return loaded
    try:
        messages = spectator_messages(loaded.record, loaded.table_id, loaded.name,
                                      seat=getattr(args, "seat", None), kinds=loaded.kinds)
    except RecordError as e:
        err.write(f"{PROG}: {loaded.label}: {e}\n")
        return 1
    try:
        for seq, msg in enumerate(messages, 1):
            out.write(json.dumps({**msg.to_wire(), "seq": seq}) + "\n")
        out.flush()
    except BrokenPipeError:  # e.g. piped into head: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _verify(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``nimmt-replay verify``: 0 every deal checks, 1 one does not, 2 unreadable."""
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
              f"all {deals} deals are the ones it gives with the players' contributions"
              f"{_reveals(claim)}\n")
    return 0


def _reveals(claim: FairDealClaim) -> str:
    """What ``verify`` says of the seats that committed to a hash (protocol 3)."""
    if not claim.hashes:
        return ""
    revealed = [s for s, h in enumerate(claim.hashes) if h and s not in claim.withheld]
    text = f"; {len(revealed)} reveal{'' if len(revealed) == 1 else 's'} match their hashes"
    if claim.withheld:
        seats = ", ".join(map(str, claim.withheld))
        text += (f"; seat{'s' if len(claim.withheld) > 1 else ''} {seats} withheld "
                 "its reveal (contributed nothing)")
    return text


def _show(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``nimmt-replay show [--json] FILE``: the record step by step."""
    label = args.file if args.file != "-" else "<stdin>"
    record = _read_or_say(args.file, err)
    if isinstance(record, int):
        return record
    names = [record.name(s) for s in range(record.options.players)]
    narrator = Narrator(names)
    run = Replay(record)
    if record.table is not None and not args.json:  # (--json: the events only)
        _emit(out, table_line(record.table))
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``nimmt-replay``; return the exit status (0 ok, 1 bad record or no such
    game, 2 usage or unreadable)."""
    out, err = sys.stdout, sys.stderr
    args = parse(sys.argv[1:] if argv is None else argv, err)
    if isinstance(args, int):
        return args
    if args.mode == "show":
        return _show(args, out, err)
    if args.mode == "verify":
        return _verify(args, out, err)
    if args.mode == "spectator":
        return _spectator(args, out, err)
    if args.mode == "analyse":
        loaded = _load(args.game, args.db, err)
        if isinstance(loaded, int):
            return loaded
        return analyse.run(args, loaded.record, loaded.label, out, err)
    return history.run(args, out, err)


if __name__ == "__main__":
    sys.exit(main())
