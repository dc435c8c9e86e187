"""Play over the network: ``nimmt-bot HOST[:PORT]``.

    nimmt-bot 192.168.1.20                 # join the first table with a free seat
    nimmt-bot localhost --join t3          # join table t3
    nimmt-bot localhost --create --seats 4 --add-bots 3 --games 2
    nimmt-bot localhost --strategy random --name Rando
    nimmt-bot localhost --exec "node my_bot.js"   # a program decides (docs/BOTS.md)
    nimmt-bot localhost --ladder --name Ann       # rated games from the queue, until stopped
    nimmt-bot --find                       # the server found on the LAN (if only one)

The bot sees only what the server sends to its seat (``SeatTracker`` turns it
into a ``View``) and asks its player (a strategy, a Python function, a program)
for every decision the server requests. Deciding runs beside the connection, so
pings are answered while the player thinks.

Reconnection: when the link drops, the client library resumes the session; the
bot then sends again the answer it had for the decision still open (the first
one may have been lost with the link). A server that shuts down (its goodbye) or
cannot be reached is tried again for ``--reconnect-for`` seconds; a restarted
server with its database gives the seat back. If the server no longer knows the
session (``bad_token``, a restart without a database), the bot takes a seat again
as it did at the start (join, create, or find); if that fails it stops and says
why. The session's logic is ``nimmt.bots.session.BotSession``.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import shlex
import signal
import sys
from collections.abc import Sequence
from typing import Any

from nimmt import protocol as wire
from nimmt.client.net import DEFAULT_PORT, ClientError, connect, parse_address
from nimmt.client.sessions import SessionStore

from .bridge import ProgramError, ProgramPlayer
from .players import as_player
from .session import FILL_AFTER, RECONNECT_FOR, TABLE_WAIT, BotResult, BotSession, LadderAsk
from .strategies import STRATEGIES, make_strategy

__all__ = ["BotResult", "play_bot", "main"]

log = logging.getLogger("nimmt.bots")


async def play_bot(
    host: str,
    port: int,
    strategy: Any,
    *,
    name: str = "bot",
    join: str | None = None,
    create: wire.TableOptions | None = None,
    add_bots: int = 0,
    games: int = 1,
    new_table: wire.TableOptions | None = None,
    bot_level: str = "hard",
    table_wait: float = TABLE_WAIT,
    reconnect_for: float = RECONNECT_FOR,
    key: str | None = None,
    ladder: LadderAsk | None = None,
) -> BotResult:
    """Connect, take a seat, and play ``games`` games.

    ``strategy``: a strategy (``decide(view) -> Decision``), a function
    ``decide(view)`` (see ``nimmt.bots.players.to_decision``) or a ``Player``.
    ``join``: a table id; ``create``: the options of a table to create (the bot
    is its host, fills ``add_bots`` seats with built-in bots of ``bot_level`` and
    starts when the table is full); neither: join a waiting table or create one
    with ``new_table``. ``table_wait``: seconds at a table that does not start
    before the bot fills it (as host) or leaves it for one of its own (0: wait for
    ever). ``reconnect_for``: seconds to keep trying a server that shut down or
    cannot be reached (0: stop at once). ``key``: the name's secret key
    (``nimmt.client.sessions.SessionStore.key``). ``ladder``: queue for rated games
    instead of taking a seat, and again after each game (``games`` 0: until
    stopped; the name must be claimed: ``key``). See ``nimmt.bots.session.BotSession``.
    """
    conn = await connect(host, port, name, "bot", key=key)
    bot = BotSession(conn, as_player(strategy), name=name, join=join, create=create,
                     add_bots=add_bots, games=games, new_table=new_table, bot_level=bot_level,
                     table_wait=table_wait, reconnect_for=reconnect_for, ladder=ladder)
    try:
        return await bot.run()
    finally:
        await conn.close()


async def _play_program(player: ProgramPlayer, host: str, port: int, **options: Any) -> BotResult:
    await player.start()
    try:
        return await play_bot(host, port, player, **options)
    finally:
        await player.aclose()


class _Terminated(KeyboardInterrupt):
    """SIGTERM: stop as Ctrl-C does (goodbye to the server, the program stopped)."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise _Terminated()  # before the event loop runs: nothing to clean up yet


async def _until_sigterm(run: Any) -> BotResult:
    """Await ``run``; a SIGTERM meanwhile cancels it as Ctrl-C does (its cleanup says
    goodbye and stops the program) and then raises ``_Terminated``. Raising from the
    signal handler instead would interrupt whichever task happened to run."""
    loop = asyncio.get_running_loop()
    main = asyncio.current_task()
    assert main is not None
    terminated = False

    def on_sigterm() -> None:
        nonlocal terminated
        terminated = True
        main.cancel()

    loop.add_signal_handler(signal.SIGTERM, on_sigterm)
    try:
        return await run
    except asyncio.CancelledError:
        if terminated:
            raise _Terminated() from None
        raise
    finally:
        loop.remove_signal_handler(signal.SIGTERM)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nimmt-bot", description="Play a built-in strategy, or your own program (--exec), "
        "on a nimmt server. Ctrl-C (SIGINT) or SIGTERM stops it: it says goodbye to the "
        "server (the server's autopilot plays the seat) and stops the program.")
    parser.add_argument("address", nargs="?", default=None,
                        help=f"HOST[:PORT] of the server (default localhost:{DEFAULT_PORT})")
    parser.add_argument("--find", action="store_true",
                        help="look for servers on the LAN (about two seconds) and join the "
                        "only one found; several: list them and stop")
    parser.add_argument("--strategy", default="heuristic",
                        help=f"a built-in strategy: {', '.join(sorted(STRATEGIES))} "
                             "(default heuristic)")
    parser.add_argument("--exec", dest="command", metavar="COMMAND",
                        help='a program that decides, e.g. "node bot.js": one JSON object a line '
                             "on its stdin and stdout (docs/BOTS.md)")
    parser.add_argument("--name", default=None, help="the bot's name (default: the strategy's, "
                        "or the program's)")
    parser.add_argument("--join", metavar="TABLE", help="join this table id")
    parser.add_argument("--create", action="store_true", help="create a table and host it")
    parser.add_argument("--seats", type=int, default=4,
                        help="seats of a table the bot creates (default 4)")
    parser.add_argument("--rounds", type=int, default=None,
                        help="a created table ends after this many rounds (default: at the "
                             "point limit)")
    parser.add_argument("--point-limit", type=int, default=None, metavar="N",
                        help="a created table ends after the round a total reaches N "
                             "(default 66; none with --rounds)")
    parser.add_argument("--step-delay", type=float, default=0.0,
                        help="seconds between resolution steps at a created table (default 0)")
    parser.add_argument("--turn-time", type=float, default=None,
                        help="seconds to commit a card at a created table (default 30)")
    parser.add_argument("--choice-time", type=float, default=None,
                        help="seconds to choose a row or a tied place at a created table "
                             "(default 20)")
    for variant, text in (("tactic-deck", "the Tactic deck (cards 1 to 10 x seats + 4)"),
                          ("draft", "Draft: players pick their hands from an open pool"),
                          ("professional", "Professional rows: cards may go before a row")):
        parser.add_argument(f"--{variant}", action="store_true",
                            help=f"a created table plays with {text}")
    parser.add_argument("--add-bots", type=int, default=0, metavar="N",
                        help="fill N seats of a created table with the server's built-in bots")
    parser.add_argument("--bot-level", default="hard", metavar="LEVEL",
                        help="level of the built-in bots it adds: easy, normal, hard (default) "
                             "or a strategy name")
    parser.add_argument("--games", type=int, default=None,
                        help="games to play before leaving (default 1; with --ladder: until "
                             "stopped)")
    parser.add_argument("--ladder", action="store_true",
                        help="play rated games from the server's queue: queue for a game of "
                             "--seats players with the table options given here, play it, "
                             "queue again, until --games are played or it is stopped; "
                             "claims the bot's name (as --claim) since only claimed names "
                             "are rated")
    parser.add_argument("--fill-after", type=_fill_after, default=FILL_AFTER, metavar="SECONDS",
                        help="with --ladder: after this long in the queue the server fills the "
                             "table with built-in bots of --bot-level (default "
                             f"{FILL_AFTER:g}; 'never': wait for players)")
    parser.add_argument("--table-wait", type=float, default=TABLE_WAIT, metavar="SECONDS",
                        help="at a table that does not start: after this long, fill it with "
                             "built-in bots and start (as its host) or leave it for a table of "
                             f"its own (default {TABLE_WAIT:g}; 0: wait for ever)")
    parser.add_argument("--reconnect-for", type=float, default=RECONNECT_FOR, metavar="SECONDS",
                        help="when the server shuts down or cannot be reached, keep trying to "
                             f"reconnect this long (default {RECONNECT_FOR:g}; 0: stop at once)")
    parser.add_argument("--seed", type=int, default=None, help="seed of a random strategy")
    parser.add_argument("--claim", action="store_true",
                        help="claim the bot's name with a key kept in the state folder "
                        "(a name claimed before is always sent its key)")
    return parser


def _find_one() -> tuple[str, int] | None:
    """``--find``: the only server on the LAN (said, with its address), else None (the
    servers found are listed, or it is said that there are none)."""
    from nimmt.client.discovery import find_servers

    found = asyncio.run(find_servers())
    if len(found) == 1:
        print(f"nimmt-bot: found {found[0].describe()}: joining {found[0].address}",
              file=sys.stderr, flush=True)
        return found[0].host, found[0].port
    if not found:
        print("nimmt-bot: no nimmt server found on the LAN", file=sys.stderr)
        return None
    for server in found:
        print(f"  {server.describe()}", file=sys.stderr)
    print(f"nimmt-bot: {len(found)} servers found: give one as HOST:PORT", file=sys.stderr)
    return None


def _fill_after(text: str) -> float | None:
    if text.strip().lower() in ("never", "none"):
        return None
    seconds = float(text)
    if not 0 <= seconds <= wire.MAX_FILL_AFTER:
        raise argparse.ArgumentTypeError(f"{text}: from 0 to {wire.MAX_FILL_AFTER:g} seconds, "
                                         "or never")
    return seconds


def _table_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> wire.TableOptions:
    """The options of a table the bot creates (with --create, or when it finds none)."""
    if args.add_bots < 0 or args.add_bots > args.seats - 1:
        parser.error(f"--add-bots {args.add_bots}: a {args.seats}-seat table has "
                     f"{args.seats - 1} seat(s) besides the bot's; use --add-bots 0 to "
                     f"{args.seats - 1}, or more --seats (2 to 10)")
    extra: dict[str, Any] = {}
    if args.turn_time is not None:
        extra["turn_time"] = args.turn_time
    if args.choice_time is not None:
        extra["choice_time"] = args.choice_time
    limit = args.point_limit if args.point_limit is not None else None if args.rounds else 66
    try:
        make_strategy(args.bot_level)
    except ValueError as exc:
        parser.error(f"--bot-level {args.bot_level}: {exc}")
    try:
        return wire.TableOptions(seats=args.seats, rounds=args.rounds, step_delay=args.step_delay,
                                 draft=args.draft, tactic_deck=args.tactic_deck,
                                 professional=args.professional, point_limit=limit, **extra)
    except wire.LocalProtocolError as exc:
        parser.error(f"bad table options: {exc}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="nimmt-bot: %(message)s")
    if args.find and args.address is not None:
        parser.error("--find looks for the server: give no address")
    try:
        host, port = parse_address(args.address or "localhost")
    except ValueError as exc:
        parser.error(str(exc))
    if args.find:
        found = _find_one()
        if found is None:
            return 1
        host, port = found
    table = _table_options(parser, args)
    if args.ladder and (args.join or args.create or args.add_bots):
        parser.error("--ladder: the server forms the table; leave out --join, --create and "
                     "--add-bots")
    games = args.games if args.games is not None else 0 if args.ladder else 1
    if games < 0 or (games == 0 and not args.ladder):
        parser.error(f"--games {games}: at least 1 (0, until stopped, only with --ladder)")
    ladder = LadderAsk(args.seats, table, args.fill_after, args.bot_level) \
        if args.ladder else None
    claim = args.claim or args.ladder
    options: dict[str, Any] = {
        "join": args.join, "create": table if args.create else None, "new_table": table,
        "add_bots": args.add_bots, "games": games, "bot_level": args.bot_level,
        "table_wait": args.table_wait, "reconnect_for": args.reconnect_for, "ladder": ladder}
    program: ProgramPlayer | None = None
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        if args.command is not None:
            words = shlex.split(args.command)
            name = args.name or (words[-1].rsplit("/", 1)[-1] if words else "program")[:32]
            program = ProgramPlayer(args.command)
            key = SessionStore().key(host, port, name, create=claim)
            run = _play_program(program, host, port, name=name, key=key, **options)
        else:
            try:
                strategy = make_strategy(args.strategy, args.seed)
            except ValueError as exc:
                parser.error(str(exc))
            name = args.name or args.strategy
            key = SessionStore().key(host, port, name, create=claim)
            run = play_bot(host, port, strategy, name=name, key=key, **options)
        result = asyncio.run(_until_sigterm(run))
    except (ClientError, ProgramError, wire.LocalProtocolError, ValueError) as exc:
        print(f"nimmt-bot: {exc}", file=sys.stderr)
        return 1
    except _Terminated:
        print("nimmt-bot: stopped by SIGTERM", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
    ratings = result.ratings + [None] * (len(result.places) - len(result.ratings))
    for number, (place, totals, rating) in enumerate(
            zip(result.places, result.totals, ratings), 1):
        rated = "" if rating is None else f", rating {rating:.2f}"
        print(f"game {number}: place {place}, totals {totals}{rated}")
    if any(r is not None for r in ratings):
        print(f"the leaderboard: nimmt-client {host}:{port}, then R in the lobby (on the "
              "server's machine: nimmt-replay ladder)")
    if result.stopped:
        print(f"nimmt-bot: stopped: {result.stopped}", file=sys.stderr)
    if program is not None and (program.faults or program.dropped):
        print(f"nimmt-bot: {program.summary()}", file=sys.stderr)
        if program.asked and not program.answered:
            print("nimmt-bot: the program never answered: every decision was the fallback's",
                  file=sys.stderr)
            return 1
    if ladder is not None and result.queue_waits:
        waits = sorted(result.queue_waits)
        print(f"queued {len(waits)} time(s): median wait {waits[len(waits) // 2]:.1f} s")
    return 0 if result.games >= games and not (ladder and result.stopped) else 1


if __name__ == "__main__":
    sys.exit(main())
