"""``nimmt-replay``'s command line: one parser, a subcommand a mode, and the older spellings.

    nimmt-replay show FILE           nimmt-replay FILE
    nimmt-replay games [--db PATH]   nimmt-replay --db PATH --list
    nimmt-replay games --db PATH 7   nimmt-replay --db PATH 7
    nimmt-replay players ...         nimmt-replay --db PATH --players
    nimmt-replay ladder ...          nimmt-replay --db PATH --ladder
    nimmt-replay verify ...          nimmt-replay --verify ...
    nimmt-replay spectator ...       nimmt-replay --spectator ...
    nimmt-replay analyse ...         (new: no older spelling)

The older spellings (right) are rewritten into the subcommands (left) before
parsing (``modern_argv``), so both reach the same checks and the same output.
``parse`` answers the ``argparse.Namespace`` (``mode`` names the subcommand) or
the exit status once it has printed the help or said what is wrong (2); running
the mode is ``replay.main``'s.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import TextIO

from nimmt.bots.analysis import DEFAULT_SAMPLES

from ..storage import default_path

__all__ = ["PROG", "MODES", "modern_argv", "parse", "parser", "db_words"]

PROG = "nimmt-replay"

#: The subcommands, in the order the help lists them.
MODES = ("show", "games", "players", "ladder", "verify", "spectator", "analyse")

#: The older spellings' mode flags and the subcommand each is now.
_OLD_FLAGS = {"--list": "games", "--players": "players", "--ladder": "ladder",
              "--verify": "verify", "--spectator": "spectator"}

_DESCRIPTION = """\
Re-run 6 nimmt! game records (docs/RECORD.md) through the rules, and read the
finished games a nimmt-server kept in its database. One mode a command:

  show        replay a record file step by step
  games       list the finished games of a server's database, or replay one
  players     per player name: games, wins, bullheads a round
  ladder      the leaderboard of rated games
  verify      check that a finished game's deals are the ones its seed gives
  spectator   a game as the protocol messages a spectator receives (JSON lines)
  analyse     what each decision cost in expected bullheads, from the seat's view
"""

_EPILOG = """\
examples:
  nimmt-replay show game.json          replay a record file (- : standard input;
                                       --json: the events as JSON lines)
  nimmt-replay games                   list the games of the server's default database
  nimmt-replay games --db PATH         ... of the database PATH (--json: one object a game)
  nimmt-replay games --db PATH 7       replay game 7 (--json: its events as JSON lines)
  nimmt-replay games --db PATH 7 --export 7.json    write game 7's record file
  nimmt-replay players --db PATH       per name: games, wins, bullheads a round
  nimmt-replay ladder --db PATH        the leaderboard (--json: as JSON)
  nimmt-replay verify game.json        check a record's deals against its seed
  nimmt-replay verify --db PATH 7      ... game 7 of the database PATH
  nimmt-replay spectator game.json     the game as a spectator's messages
  nimmt-replay spectator --db PATH 7   ... game 7 of the database PATH
  nimmt-replay analyse game.json       every decision's choices and what it cost
                                       (--seat N, --samples N, --json; docs/ANALYSIS.md)
  nimmt-replay analyse --db PATH 7 --seat 0    ... seat 0 of game 7 of PATH

--db PATH: the database a nimmt-server --db PATH keeps. Without --db, or with
--db alone after the game id (nimmt-replay verify 7 --db), the server's
default database: {default}.
nimmt-replay MODE --help: that mode's options. Exit status: 0 done, 1 a record
that contradicts the rules (or a deal that does not verify, or no such game),
2 a usage error or a file that cannot be read.

older spellings, still accepted:
  nimmt-replay [--json] FILE           = show
  nimmt-replay --db PATH --list        = games --db PATH      (and --db PATH 7 = games --db PATH 7)
  nimmt-replay --db PATH --players     = players --db PATH
  nimmt-replay --db PATH --ladder      = ladder --db PATH
  nimmt-replay --verify FILE | --verify --db PATH 7           = verify ...
  nimmt-replay --spectator FILE | --spectator --db PATH 7     = spectator ...
"""


def _add_db(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--db", metavar="PATH", nargs="?", const="",
                   help=f"{what} (without PATH, or without --db: {default_path()})")


def parser() -> argparse.ArgumentParser:
    """``nimmt-replay``'s parser: its help lists every mode with an example."""
    return _parsers()[0]


def _parsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top parser and each mode's."""
    top = argparse.ArgumentParser(prog=PROG, usage=f"{PROG} MODE ... (or: {PROG} FILE)",
                                  description=_DESCRIPTION,
                                  epilog=_EPILOG.format(default=default_path()),
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    # The modes are listed in the description, aligned with their examples in the epilog.
    sub = top.add_subparsers(dest="mode", metavar="MODE", help=argparse.SUPPRESS)

    show = sub.add_parser("show", prog=f"{PROG} show",
                          description="Re-run a 6 nimmt! game record (docs/RECORD.md) through "
                          "the rules engine and show each step. Exit status 1 if the record "
                          "contradicts the rules.")
    show.add_argument("file", metavar="FILE", help="the record (JSON); - reads standard input")
    show.add_argument("--json", action="store_true",
                      help="print the events as JSON lines instead of text")

    games = sub.add_parser("games", prog=f"{PROG} games",
                           description="Without GAME_ID: list the finished games of a "
                           "nimmt-server's database, oldest first. With GAME_ID: replay that "
                           "game step by step.")
    _add_db(games, "the server's database")
    games.add_argument("game", metavar="GAME_ID", nargs="?",
                       help="replay this finished game step by step (the list shows the ids)")
    games.add_argument("--list", action="store_true", help="list the games (the default)")
    games.add_argument("--export", metavar="FILE",
                       help="with GAME_ID: write its record (docs/RECORD.md) to FILE (- : stdout)")
    games.add_argument("--json", action="store_true",
                       help="the list as one JSON object a game (what nimmt-client's history "
                       "shows); with GAME_ID: the events as JSON lines")

    players = sub.add_parser("players", prog=f"{PROG} players",
                             description="Per player name: games, wins, rounds and the mean "
                             "bullheads a round, over the finished games of a database.")
    _add_db(players, "the server's database")

    ladder = sub.add_parser("ladder", prog=f"{PROG} ladder",
                            description="The leaderboard of rated games: rank, name, rating, "
                            "games, trend.")
    _add_db(ladder, "the server's database")
    ladder.add_argument("--json", action="store_true", help="the leaderboard as JSON")

    for mode, text in (
        ("verify", "Check that every deal of a finished game is the one derived from the seed "
         "the server committed to and the players' contributions (docs/PROTOCOL.md, Verifiable "
         "deals), and that the record replays. Exit status 1 if not."),
        ("spectator", "Print a finished game as the protocol messages a spectator receives "
         "(JSON lines), for nimmt-client --replay."),
    ):
        p = sub.add_parser(mode, prog=f"{PROG} {mode}", description=text,
                           epilog=f"examples: {PROG} {mode} game.json | {PROG} {mode} --db PATH 7"
                           f" | {PROG} {mode} 7 --db (the default database)")
        p.add_argument("game", metavar="FILE|GAME_ID", nargs="?",
                       help="a record file (- : standard input), or with --db the id of a "
                       f"game the server kept ({PROG} games --db PATH lists them)")
        _add_db(p, "read game GAME_ID from the server's database")
    sub.choices["spectator"].add_argument(
        "--seat", type=int, metavar="N",
        help="as the player at seat N saw it (0 is the first): seated there, with its hands")
    analyse = sub.add_parser(
        "analyse", prog=f"{PROG} analyse",
        description="For each decision of a seat: every legal choice's expected bullheads to "
        "the end of the round, from that seat's view at the time (the search bot's sampled "
        "deals, a fixed count: reproducible), with a 95% interval; the choice made, its loss "
        "against the best, a mark (inaccuracy, mistake, blunder); per round the decision that "
        "cost most, and in hindsight what the cards really cost. docs/ANALYSIS.md explains "
        "the numbers.",
        epilog=f"examples: {PROG} analyse game.json | {PROG} analyse --db PATH 7 --seat 0 | "
        f"{PROG} analyse 7 --db --json")
    analyse.add_argument("game", metavar="FILE|GAME_ID", nargs="?",
                         help="a record file (- : standard input), or with --db the id of a "
                         f"game the server kept ({PROG} games --db PATH lists them)")
    _add_db(analyse, "read game GAME_ID from the server's database")
    analyse.add_argument("--seat", type=int, metavar="N",
                         help="analyse seat N only (0 is the first; default: every seat)")
    analyse.add_argument("--samples", type=_samples, default=DEFAULT_SAMPLES, metavar="N",
                         help=f"sampled deals a choice, at first (default {DEFAULT_SAMPLES}; "
                         "more: narrower intervals, slower)")
    analyse.add_argument("--seed", type=int, default=0, help="the deals' seed (default 0)")
    analyse.add_argument("--json", action="store_true", help="one JSON object (docs/ANALYSIS.md)")
    analyse.add_argument("--jobs", type=int, metavar="N",
                         help="analyse seats in N processes at once (default: one a core; "
                         "the same result whatever N)")
    return top, {mode: sub.choices[mode] for mode in MODES}


def _samples(text: str) -> int:
    if not text.isdigit() or int(text) < 2:
        raise argparse.ArgumentTypeError(f"a whole number of at least 2, not {text!r}")
    return int(text)


def modern_argv(argv: Sequence[str]) -> list[str] | str:
    """``argv`` with an older spelling rewritten into its subcommand, or what is
    wrong with it (two modes at once)."""
    args = list(argv)
    if not args or args[0] in MODES or args[0] in ("-h", "--help"):
        return args
    flags = sorted({a for a in args if a in _OLD_FLAGS}, key=args.index)
    if len(flags) > 1:
        return (f"{' and '.join(flags)} are two modes: give one ({PROG} --help lists them)")
    if flags:
        mode = _OLD_FLAGS[flags[0]]
        return [mode, *(a for a in args if a != flags[0] or mode == "games")]
    if any(a == "--db" or a.startswith("--db=") for a in args):
        return ["games", *args]
    return ["show", *args]


def db_words(db: str | None) -> str:
    """``--db PATH`` as typed again in a hint ("" for the default database)."""
    return f" --db {db}" if db else ""


def _looks_like_game_id(mode: str, db: str) -> str:
    return (f"--db {db}: {db} looks like a game id, not a database (there is no file {db}). "
            f"Give the database before the id: {PROG} {mode} --db PATH {db}; for the "
            f"server's default database ({default_path()}) "
            + (f"leave --db out: {PROG} {mode} {db}" if mode == "games" else
               f"put --db alone after the id: {PROG} {mode} {db} --db"))


def _mistake(args: argparse.Namespace) -> str | None:
    """What is wrong with a command line argparse took, or None."""
    mode, db = args.mode, getattr(args, "db", None)
    game = getattr(args, "game", None)
    if mode in ("games", "verify", "spectator", "analyse") and game is None and db is not None:
        if db.isdigit() and not os.path.exists(db) and not (mode == "games" and args.list):
            return _looks_like_game_id(mode, db)
    if mode == "games":
        if game is not None and not game.isdigit():
            return (f"GAME_ID is a number ({PROG} games{db_words(db)} lists them), not {game!r}"
                    f"; to replay a record file: {PROG} show {game}")
        if game is not None and args.list:
            return f"give --list or a GAME_ID, not both ({PROG} games --help)"
        if args.export and game is None:
            return (f"--export needs a GAME_ID: {PROG} games{db_words(db)} GAME_ID --export "
                    f"FILE ({PROG} games{db_words(db)} lists the ids)")
    if mode in ("verify", "spectator", "analyse"):
        if game is None:
            return (f"give a record file ({PROG} {mode} FILE) or a game the server kept "
                    f"({PROG} {mode} --db PATH GAME_ID)")
        if db is not None and not game.isdigit():
            return f"with --db give a game id (a number), not {game!r}"
    return None


def parse(argv: Sequence[str], err: TextIO) -> argparse.Namespace | int:
    """The command line ``argv`` parsed, or the exit status once the help was
    printed (0) or ``err`` was told what is wrong and what to do (2)."""
    top, modes = _parsers()
    args = modern_argv(argv)
    if isinstance(args, str):
        top.print_usage(err)
        err.write(f"{PROG}: {args}\n")
        return 2
    if not args:
        top.print_usage(err)
        err.write(f"{PROG}: give a record file ({PROG} show FILE) or a mode; "
                  f"{PROG} --help lists them with an example each\n")
        return 2
    try:
        parsed = top.parse_args(args)
    except SystemExit as e:  # argparse has printed the help, or the usage and the error
        return e.code if isinstance(e.code, int) else 2
    wrong = _mistake(parsed)
    if wrong is not None:
        modes[parsed.mode].print_usage(err)
        err.write(f"{PROG}: {wrong}\n")
        return 2
    return parsed
