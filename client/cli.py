"""``nimmt-client``: the command line of the terminal client.

    nimmt-client                       # a server found on the LAN (else localhost:6066)
    nimmt-client --find                # list the servers found on the LAN, and exit
    nimmt-client 192.168.1.20          # a server on the LAN, port 6066
    nimmt-client 192.168.1.20:7000 --name Ann --join t3
    nimmt-client --solo 3              # a private server with 3 bots, for you alone
    nimmt-client --solo 3 --level easy # ... with bots that are easy to beat
    nimmt-client --replay game.json --analyse --seat 2   # a game again, seat 2's play judged

Problems (no server, wrong version, ...) print one line and exit with code 1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import logging
import os
import shlex
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from nimmt.protocol import Welcome

from .model_state import UNTIMED
from .net import (
    DEFAULT_PORT,
    ClientConnection,
    ClientError,
    connect,
    format_address,
    parse_address,
)
from .words import BOT_LEVELS, DEFAULT_BOT_LEVEL

if TYPE_CHECKING:
    from .keep import TableKeeper
    from .tui.controller import StartPlan

__all__ = ["main", "parse_args", "parse_address", "default_name", "open_session"]

log = logging.getLogger("nimmt.client")
T = TypeVar("T")

#: A nimmt server answers ``hello`` at once: a port that accepts and stays silent
#: longer than this is not one (a clear error beats a blank screen).
HANDSHAKE_TIMEOUT = 4.0


def default_name() -> str:
    """Your login name, made fit for the protocol (1..32 printable characters)."""
    try:
        name = getpass.getuser()
    except Exception:  # noqa: BLE001 - no login name: any fallback will do
        name = ""
    name = "".join(ch for ch in name if ch.isprintable()).strip()[:32]
    return name or "player"


def _name(text: str) -> str:
    name = text.strip()
    if not 1 <= len(name) <= 32 or not name.isprintable():
        raise argparse.ArgumentTypeError("a name is 1 to 32 printable characters")
    return name


def _bots(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 9:
        raise argparse.ArgumentTypeError("the number of bots is 1 to 9")
    return int(text)


def _seconds(low: float) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = -1.0
        if not low <= value <= UNTIMED:
            raise argparse.ArgumentTypeError(f"give seconds from {low:g} to {UNTIMED:g}")
        return value
    return parse


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="nimmt-client",
        description="Play 6 nimmt! in your terminal, on a nimmt server of your LAN "
        "(see docs/CLIENT.md).")
    p.add_argument("address", nargs="?", default=None, metavar="HOST[:PORT]",
                   help="the server (default: look on the LAN for about two seconds; "
                   f"if none is found, localhost:{DEFAULT_PORT})")
    p.add_argument("--find", action="store_true",
                   help="list the servers found on the LAN (address, name, tables waiting, "
                   "players; one a line, tab-separated) and exit")
    p.add_argument("--name", type=_name, default=None,
                   help="your name at the table (default: your login name)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--join", metavar="TABLE", help="sit down at this table at once (e.g. t3)")
    g.add_argument("--watch", metavar="TABLE", help="watch this table at once")
    g.add_argument("--solo", type=_bots, nargs="?", const=3, metavar="N",
                   help="play alone against N bots (default 3) on a private server "
                   "started for you")
    p.add_argument("--level", choices=BOT_LEVELS, default=DEFAULT_BOT_LEVEL,
                   help="the bots' level: easy, normal or hard (default hard): the --solo "
                   "bots, and the bots you add at a table")
    p.add_argument("--turn-time", type=_seconds(1.0), metavar="SECONDS", default=None,
                   help="--solo: seconds for each decision, then the autopilot decides "
                   "(default: untimed)")
    p.add_argument("--time-bank", type=_seconds(0.0), metavar="SECONDS", default=0.0,
                   help="--solo: seconds of extra time for the game, drawn on when a "
                   "decision's time is up (default 0: none)")
    g.add_argument("--replay", metavar="FILE|GAME_ID",
                   help="watch a finished game step by step: a record file "
                   "(nimmt-replay --export), or a game id of --db (default: the server's "
                   "default database, as nimmt-replay reads it)")
    p.add_argument("--seat", type=int, metavar="N", default=None,
                   help="--replay: as the player at seat N saw the game (1 is the first), "
                   "with that player's hand")
    p.add_argument("--analyse", "--analyze", action="store_true",
                   help="--replay: the coach's analysis beside the steps (docs/ANALYSIS.md): "
                   "at each decision of the seat (--seat N, else the first human seat) its "
                   "choices' expected bullheads to the end of the round (± a 95%% interval), "
                   "the one played, the best, the loss and its mark; computed in the "
                   "background by nimmt-replay analyse (a few seconds a round), the replay "
                   "usable meanwhile; a hides or shows the panel")
    p.add_argument("--db", metavar="PATH",
                   help="the server's database: of --replay GAME_ID, and of the games the "
                   "lobby's history (H) lists (default: the server's default database)")
    p.add_argument("--spectator", action="store_true",
                   help="connect as a spectator: watch only, never take a seat")
    p.add_argument("--state-dir", metavar="DIR", default=None,
                   help="where your session is kept between runs, so that running "
                   "nimmt-client again returns you to your seat (default: $NIMMT_STATE_DIR, "
                   "else $XDG_STATE_HOME/nimmt, else ~/.local/state/nimmt)")
    p.add_argument("--new-session", action="store_true",
                   help="do not return to your saved session: start a new one")
    p.add_argument("--claim", action="store_true",
                   help="claim your name on this server with a secret key kept in the state "
                   "folder: nobody else may then use it, and you may play rated tables "
                   "(a name claimed before is always sent its key)")
    p.add_argument("--log", metavar="FILE", help="write a debug log to FILE")
    p.add_argument("--debug", action="store_true", help="show tracebacks of unexpected errors")
    return p


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = _parser()
    args = p.parse_args(argv)
    #: no address: look on the LAN first (localhost:6066 is the fallback)
    args.discover = args.address is None and not args.solo and args.replay is None
    if args.find and (args.address is not None or args.solo or args.replay is not None):
        p.error("--find lists the servers on the LAN: give no address, --solo or --replay")
    try:
        args.host, args.port = parse_address(args.address or "localhost")
    except ValueError as exc:
        p.error(str(exc))
    if args.name is None:
        args.name = default_name()
    if args.solo and args.spectator:
        p.error("--solo and --spectator do not go together")
    if not args.solo and (args.turn_time is not None or args.time_bank):
        p.error("--turn-time and --time-bank are for --solo (a shared table's times "
                "are set on the new-table form)")
    if args.seat is not None and (args.replay is None or not 1 <= args.seat <= 10):
        p.error("--seat N goes with --replay: the seat (1 to 10) whose hand to show")
    if args.analyse and args.replay is None:
        p.error("--analyse goes with --replay: give the game to analyse (a record file or "
                "a game id)")
    if args.replay is not None and args.replay.isdigit() and args.db is None \
            and not os.path.exists(args.replay):
        args.db = ""  # a game id: of the server's default database, as nimmt-replay reads it
    return args


def _setup_logging(path: str | None) -> None:
    log.propagate = False
    log.handlers.clear()
    if path:
        handler: logging.Handler = logging.FileHandler(path)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        log.setLevel(logging.DEBUG)
    else:
        handler = logging.NullHandler()
    log.addHandler(handler)


async def _say_if_slow(work: Awaitable[T], text: str, after: float = 0.5) -> T:
    """Await ``work``; if it takes longer than ``after`` seconds, print ``text`` (so a
    slow connection is not a blank terminal)."""
    async def say() -> None:
        await asyncio.sleep(after)
        print(text, file=sys.stderr, flush=True)

    notice = asyncio.ensure_future(say())
    try:
        return await work
    finally:
        notice.cancel()


async def _run(args: argparse.Namespace, interactive: bool = True) -> int:
    from .solo import SoloError, SoloServer
    from .tui.app import run_tui
    from .tui.controller import StartPlan

    if args.replay is not None:
        return await _replay(args, interactive)
    if args.find:
        return await _find()
    kind = "spectator" if args.spectator else "human"
    solo: SoloServer | None = None
    on_welcome = None
    keeper = None  # a solo game's log dies with its server: nothing to come back to
    try:
        if args.solo:
            solo = SoloServer(args.solo, level=args.level, turn_time=args.turn_time,
                              time_bank=args.time_bank)
            await solo.start()
            conn = await solo.connect(args.name, kind)
            plan = StartPlan(solo=True, bot_level=args.level, history_db=args.db)
        else:
            conn, plan, keeper, on_welcome = await _open_found_session(args, interactive)
        if not interactive:
            await conn.close()
            print("nimmt-client: connected, but this is a full-screen program: "
                  "run it in a terminal", file=sys.stderr)
            return 1
        outcome = await run_tui(conn, plan=plan, on_welcome=on_welcome, keeper=keeper)
    except (ClientError, SoloError) as exc:
        print(f"nimmt-client: {exc}", file=sys.stderr)
        return 1
    except _NoServer:
        return 1
    finally:
        if solo is not None:
            await solo.stop()
    try:  # the terminal may be gone (SIGHUP): nothing to tell then
        if outcome.message:
            print(f"nimmt-client: {outcome.message}",
                  file=sys.stderr if outcome.error else sys.stdout)
        if not outcome.error:
            print("Goodbye — thanks for playing!", flush=True)
    except OSError:
        pass
    return 1 if outcome.error else 0


class _NoServer(Exception):
    """No server chosen (several found without a terminal, or none typed): said."""


async def _find() -> int:
    """``--find``: the servers on the LAN, one a line; exit 1 if there is none."""
    from .choose_server import print_found
    from .discovery import find_servers

    found = await find_servers()
    print_found(found, sys.stdout)
    if not found:
        print("nimmt-client: no nimmt server found on the LAN", file=sys.stderr)
        return 1
    return 0


async def _open_found_session(args: argparse.Namespace, interactive: bool) -> tuple[
        ClientConnection, StartPlan, TableKeeper, Callable[[Welcome], None]]:
    """``open_session``, to the address given, or (none given) to a server found on
    the LAN, chosen, or typed when what was guessed cannot be reached."""
    from .choose_server import ask_address, pick_server
    from .net import ConnectFailed

    guess = False
    if args.discover:
        picked = await pick_server(interactive)
        if picked is None:
            raise _NoServer
        args.host, args.port, guess = picked
    while True:
        try:
            return await open_session(args)
        except ConnectFailed as exc:
            if not (guess and interactive):
                raise
            print(f"nimmt-client: {exc}", file=sys.stderr)
            typed = await ask_address()
            if typed is None:
                raise _NoServer from None
            args.host, args.port = typed


async def open_session(args: argparse.Namespace) -> tuple[
        ClientConnection, StartPlan, TableKeeper, Callable[[Welcome], None]]:
    """Connect to ``args``' server with the session saved for its name (``--state-dir``),
    or a new one: the connection, what to do once welcomed (the plan says why a saved
    seat was not taken back), the keeper of the screen's log, and what to call with
    each new welcome (it saves the token under the name)."""
    from .keep import TableKeeper
    from .sessions import SessionStore
    from .tui.controller import StartPlan

    kind = "spectator" if args.spectator else "human"
    store = SessionStore(args.state_dir)
    saved = None if args.new_session or args.spectator else \
        store.load(args.host, args.port, args.name)
    conn = await _say_if_slow(
        connect(args.host, args.port, args.name, kind, token=saved,
                handshake_timeout=HANDSHAKE_TIMEOUT,
                key=None if args.spectator else
                store.key(args.host, args.port, args.name, create=args.claim)),
        f"nimmt-client: connecting to {format_address(args.host, args.port)}…")
    resumed = conn.welcome is not None and conn.welcome.resumed
    keeper = TableKeeper(store.directory, args.host, args.port, args.name)
    why = None
    if args.spectator or resumed:
        pass
    elif args.new_session:
        why = "you asked for a new session (--new-session)"
    elif saved is None:
        why = f"no session was saved for {args.name} on this server (in {store.directory})"
        if store.last_error:
            why += f" ({store.last_error})"
    else:
        refusal = next((e for e in conn.handshake_errors if e.code == "bad_token"), None)
        why = "the server did not take the saved session back" + (
            f": {refusal.message} ({refusal.code})" if refusal is not None else "")
    plan = StartPlan(join=None if resumed else args.join,
                     watch=None if resumed else args.watch,
                     resumed=resumed, had_session=saved is not None, not_resumed=why,
                     bot_level=args.level, spectator=args.spectator,
                     history_db=args.db)

    def on_welcome(welcome: Welcome) -> None:
        if not args.spectator:
            store.save(args.host, args.port, args.name, welcome.token)

    if conn.welcome is not None:
        on_welcome(conn.welcome)
    return conn, plan, keeper, on_welcome


async def _replay(args: argparse.Namespace, interactive: bool) -> int:
    """``--replay FILE`` or ``--replay GAME_ID --db PATH``: a finished game, step by step."""
    from .replay import ReplayError, ReplayPlayer, load_replay
    from .tui.app import run_replay

    seat = None if args.seat is None else args.seat - 1
    try:
        messages = await asyncio.to_thread(lambda: load_replay(args.replay, args.db, seat=seat))
    except ReplayError as exc:
        why = await asyncio.to_thread(_seat_out_of_range, args) if seat is not None else None
        print(f"nimmt-client: cannot replay {args.replay}: {why or exc}", file=sys.stderr)
        return 1
    if not interactive:
        print("nimmt-client: the replay is loaded, but this is a full-screen program: "
              "run it in a terminal", file=sys.stderr)
        return 1
    player = ReplayPlayer(messages)
    if not args.analyse:
        await run_replay(player)
        return 0
    from .replay_analyser import run_analysis

    analysis = _replay_analysis(args, player)
    shown: list[Callable[[], None]] = [lambda: None]
    task = asyncio.ensure_future(run_analysis(analysis, _analyse_argv(args, analysis.seat),
                                              lambda: shown[0]()))

    def ready(c: Any, app: Any) -> None:
        who = f"{analysis.name} (seat {analysis.seat + 1})"
        c.status(f"Analysing {who}" + (", the first human seat: --seat N analyses another"
                                       if analysis.default else "") + "; a hides the panel.")
        told = ["running"]

        def changed() -> None:
            if analysis.state != told[0]:
                told[0] = analysis.state
                if analysis.state == "done":
                    c.status(f"The analysis of {who} is ready.", "ok")
                elif analysis.state == "failed":
                    c.status(f"The analysis of {who} failed: {analysis.error}", "error")
            app.invalidate()
        shown[0] = changed
        changed()

    try:
        await run_replay(player, ready=ready)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    return 0


def _replay_analysis(args: argparse.Namespace, player: Any) -> Any:
    """``--analyse``: the analysis of ``--seat`` (else the first human seat) beside
    ``player``'s steps, not yet run."""
    from .replay_analysis import ReplayAnalysis, first_human_seat

    default = args.seat is None
    seat = first_human_seat(player.messages) if default else args.seat - 1
    analysis = ReplayAnalysis(player.messages, player.steps, seat, default=default)
    argv = ["nimmt-replay", "analyse", args.replay,
            *(("--db", args.db) if args.db else ("--db",) if args.db == "" else ()),
            "--seat", str(seat)]
    analysis.advice = "To see the whole error, run: " + shlex.join(argv)
    player.analysis = analysis
    return analysis


def _analyse_argv(args: argparse.Namespace, seat: int) -> list[str]:
    from .replay_analyser import analyse_argv

    return analyse_argv(args.replay, args.db, seat)


def _seat_out_of_range(args: argparse.Namespace) -> str | None:
    """Why ``--seat`` cannot be replayed, in the client's numbers (1 the first), when
    the game has fewer seats; None if that is not why."""
    from .replay import ReplayError, load_replay
    from .replay_analysis import seat_count

    try:
        seats = seat_count(load_replay(args.replay, args.db))
    except ReplayError:
        return None
    if seats and args.seat > seats:
        return (f"--seat {args.seat}: the game has seats 1 to {seats}; give one of them "
                "(or no --seat: the replay as a spectator saw it)")
    return None


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    _setup_logging(args.log)
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    try:
        return asyncio.run(_run(args, interactive))
    except KeyboardInterrupt:
        print("nimmt-client: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - one line for the user, never a traceback
        if args.debug:
            raise
        log.exception("unexpected error")
        where = format_address(args.host, args.port)
        print(f"nimmt-client: unexpected error with {where}: {exc!r} "
              "(run with --debug for details)", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
