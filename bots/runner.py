"""Play over the network: ``nimmt-bot HOST[:PORT]``.

    nimmt-bot 192.168.1.20                 # join the first table with a free seat
    nimmt-bot localhost --join t3          # join table t3
    nimmt-bot localhost --create --seats 4 --add-bots 3 --games 2
    nimmt-bot localhost --strategy random --name Rando
    nimmt-bot localhost --exec "node my_bot.js"   # a program decides (docs/BOTS.md)

The bot sees only what the server sends to its seat (``SeatTracker`` turns it
into a ``View``) and asks its player (a strategy, a Python function, a program)
for every decision the server requests. Deciding runs beside the connection, so
pings are answered while the player thinks.

Reconnection: when the link drops, the client library resumes the session; the
bot then sends again the answer it had for the decision still open (the first
one may have been lost with the link). If the server no longer knows the session
(``bad_token``, e.g. after a restart), the bot takes a seat again as it did at the
start (join, create, or find); if that fails it stops and says why.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from nimmt import protocol as wire
from nimmt.client.sessions import SessionStore
from nimmt.client.link import LinkLost, LinkRestored
from nimmt.client.net import (
    DEFAULT_PORT,
    ClientConnection,
    ClientError,
    SendFailed,
    connect,
    parse_address,
)
from nimmt.engine import Decision

from .bridge import PlayerGaveUp, ProgramError, ProgramPlayer
from .players import Ask, Player, as_player
from .strategies import STRATEGIES, make_strategy
from .tracker import SeatTracker

__all__ = ["BotResult", "play_bot", "main"]

log = logging.getLogger("nimmt.bots")

#: Error codes that answer a join or create: the bot cannot take the seat it wanted.
_SEAT_REFUSED = frozenset({"no_such_table", "table_full", "already_started", "server_full"})

_Key = tuple[str, int, int, int]


@dataclass
class BotResult:
    """What a bot's session came to: the games it finished and its places."""

    table_id: str | None = None
    seat: int | None = None
    games: int = 0
    places: list[int] = field(default_factory=list)
    totals: list[list[int]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # "code: message" of every server error
    rejoins: int = 0  # times the session was lost and a seat taken again
    stopped: str | None = None  # why the bot stopped before its games were played


class _Bot:
    """One network bot's session: taking a seat, and answering what the seat is asked."""

    def __init__(self, conn: ClientConnection, player: Player, *, name: str, join: str | None,
                 create: wire.TableOptions | None, add_bots: int, games: int) -> None:
        self.conn = conn
        self.player = player
        self.name = name
        self.join = join
        self.create = create
        self.add_bots = add_bots
        self.games = games
        self.tracker = SeatTracker()
        self.result = BotResult()
        self.hosting = False
        self.bots_to_add = 0
        self.sent: _Key | None = None  # answered on the current link
        self.answers: dict[_Key, Decision | None] = {}  # the player's answer to the open request
        self.thinking: dict[_Key, asyncio.Task[None]] = {}

    # -- taking a seat --------------------------------------------------------------
    async def take_seat(self) -> None:
        """Join, create, or find a table, as the bot was told at the start."""
        self.hosting = False
        self.bots_to_add = self.add_bots
        if self.join is not None:
            await self.conn.send(wire.Join(table_id=self.join))
        elif self.create is not None:
            await self.conn.send(wire.CreateTable(options=self.create, name=f"{self.name}'s table"))
        else:
            await self.conn.send(wire.ListTables())  # the table_list answer decides

    async def _on_table_list(self, message: wire.TableList) -> None:
        for table in message.tables:
            if table.status == "waiting" and any(seat is None for seat in table.seats):
                await self.conn.send(wire.Join(table_id=table.table_id))
                return
        await self.conn.send(wire.CreateTable(options=wire.TableOptions(),
                                              name=f"{self.name}'s table"))

    # -- the session ----------------------------------------------------------------
    async def run(self) -> BotResult:
        self.tracker.apply(self.conn.welcome)  # type: ignore[arg-type]
        await self.take_seat()
        try:
            async for message in self.conn.events():
                self.tracker.apply(message)
                if await self._handle(message):
                    break
                await self._answer_if_asked()
        finally:
            for task in self.thinking.values():
                task.cancel()
        return self.result

    async def _handle(self, message: Any) -> bool:
        """React to one message; True when the bot is done."""
        result = self.result
        if isinstance(message, LinkLost):
            log.warning("%s: %s; reconnecting", self.name, message.reason)
        elif isinstance(message, LinkRestored):
            self.sent = None  # an answer sent as the link died may be lost: send it again
            if not message.welcome.resumed:
                result.rejoins += 1
                what = f"joining table {self.join}" if self.join else \
                    "creating a table" if self.create else "looking for a table"
                log.warning("%s: the server no longer knows our session (it restarted, or we "
                            "were away too long); %s again", self.name, what)
                self.answers.clear()
                await self.take_seat()
        elif isinstance(message, wire.TableList) and self.tracker.model.table is None \
                and self.join is None and self.create is None:
            await self._on_table_list(message)
        elif isinstance(message, wire.Seated):
            result.table_id, result.seat = message.table.table_id, message.seat
            if message.table.host == message.seat and message.table.status == "waiting":
                self.hosting = True
                for _ in range(self.bots_to_add):
                    await self.conn.send(wire.AddBot())
                self.bots_to_add = 0
                await self._start_if_full(message.table)
        elif isinstance(message, wire.TableUpdated) and self.hosting:
            await self._start_if_full(message.table)
        elif isinstance(message, wire.Error):
            log.warning("%s: server error %s: %s", self.name, message.code, message.message)
            result.errors.append(f"{message.code}: {message.message}")
            if message.code in _SEAT_REFUSED and self.tracker.model.table is None:
                where = f"table {self.join}" if self.join else "a table"
                result.stopped = f"could not take a seat at {where}: {message.message or message.code}"
                return True
        elif isinstance(message, wire.Left) and message.reason != "left":
            if message.reason == "kicked":
                result.stopped = f"removed from table {message.table_id} by its host"
                return True
            log.warning("%s: table %s was closed; taking a seat again", self.name, message.table_id)
            result.rejoins += 1
            await self.take_seat()
        elif isinstance(message, wire.GameOver):
            result.games += 1
            result.places.append(message.places[self.tracker.seat or 0])
            result.totals.append(list(message.totals))
            if result.games >= self.games:
                return True
            if self.hosting:
                await self.conn.send(wire.Start())
        elif isinstance(message, wire.Goodbye):
            result.stopped = f"the server closed the connection: {message.message or message.reason}"
            return True
        return False

    async def _start_if_full(self, table: wire.TableInfo) -> None:
        if table.status == "waiting" and all(seat is not None for seat in table.seats):
            await self.conn.send(wire.Start())

    # -- deciding ---------------------------------------------------------------------
    def _open_key(self) -> _Key | None:
        """The open request this seat must still answer, or None."""
        request = self.tracker.request
        if request is None or request.committed is not None:
            return None  # nothing asked, or a commit that stands (it is replaced only by us)
        return (request.kind, request.round, request.turn, request.pick)

    async def _answer_if_asked(self) -> None:
        key = self._open_key()
        if key is None or key == self.sent:
            return
        if key in self.answers:
            await self._send(key)
        elif key not in self.thinking:
            request = self.tracker.request
            assert request is not None
            table = self.tracker.model.table
            names = tuple(s.name if s else None for s in table.seats) if table else ()
            ask = Ask(self.tracker.view(), request.deadline, names)
            self.thinking[key] = asyncio.create_task(self._think(key, ask))

    async def _think(self, key: _Key, ask: Ask) -> None:
        try:
            decision = await self.player.decide(ask)
        except PlayerGaveUp as exc:
            self.thinking.pop(key, None)
            self.result.stopped = f"{exc}; the server's autopilot plays the seat"
            await self.conn.close()  # ends the session: events() stops
            return
        except Exception as exc:  # noqa: BLE001 - a player's bug must not end the session
            log.warning("%s: the player failed to decide (%s: %s); the server's autopilot "
                        "will decide", self.name, type(exc).__name__, exc)
            decision = None
        finally:
            self.thinking.pop(key, None)
        self.answers = {key: decision}  # only the latest request's answer is worth keeping
        if self._open_key() == key and key != self.sent:
            await self._send(key)

    async def _send(self, key: _Key) -> None:
        decision = self.answers[key]
        if decision is None:
            return  # no answer: the deadline passes and the autopilot decides
        try:
            message = self.tracker.answer(decision)
        except ValueError as exc:
            log.warning("%s: %s", self.name, exc)
            self.answers.pop(key)
            return
        self.sent = key
        try:
            await self.conn.send(message)
        except SendFailed:
            self.sent = None  # no link now: sent again after the snapshot


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
    key: str | None = None,
) -> BotResult:
    """Connect, take a seat, and play ``games`` games.

    ``strategy``: a strategy (``decide(view) -> Decision``), a function
    ``decide(view)`` (see ``nimmt.bots.players.to_decision``) or a ``Player``.
    ``join``: a table id; ``create``: the options of a table to create (the bot
    is its host, fills ``add_bots`` seats with built-in bots and starts when the
    table is full); neither: join a waiting table or create one. ``key``: the
    name's secret key (``nimmt.client.sessions.SessionStore.key``).
    """
    conn = await connect(host, port, name, "bot", key=key)
    bot = _Bot(conn, as_player(strategy), name=name, join=join, create=create,
               add_bots=add_bots, games=games)
    try:
        return await bot.run()
    finally:
        await conn.close()


async def _play_program(command: str, host: str, port: int, **options: Any) -> BotResult:
    player = ProgramPlayer(command)
    await player.start()
    try:
        return await play_bot(host, port, player, **options)
    finally:
        await player.aclose()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="nimmt-bot", description="Play a built-in strategy, or "
                                     "your own program (--exec), on a nimmt server.")
    parser.add_argument("address", nargs="?", default="localhost",
                        help=f"HOST[:PORT] of the server (default localhost:{DEFAULT_PORT})")
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
    parser.add_argument("--seats", type=int, default=4, help="seats of a created table (default 4)")
    parser.add_argument("--rounds", type=int, default=None,
                        help="a created table ends after this many rounds (default: at 66 points)")
    parser.add_argument("--step-delay", type=float, default=0.0,
                        help="seconds between resolution steps at a created table (default 0)")
    parser.add_argument("--turn-time", type=float, default=None,
                        help="seconds to commit a card at a created table (default 30)")
    for variant, text in (("tactic-deck", "the Tactic deck (cards 1 to 10 x seats + 4)"),
                          ("draft", "Draft: players pick their hands from an open pool"),
                          ("professional", "Professional rows: cards may go before a row")):
        parser.add_argument(f"--{variant}", action="store_true",
                            help=f"a created table plays with {text}")
    parser.add_argument("--add-bots", type=int, default=0, metavar="N",
                        help="fill N seats of a created table with the server's built-in bots")
    parser.add_argument("--games", type=int, default=1, help="games to play before leaving (default 1)")
    parser.add_argument("--seed", type=int, default=None, help="seed of a random strategy")
    parser.add_argument("--claim", action="store_true",
                        help="claim the bot's name with a key kept in the state folder "
                        "(a name claimed before is always sent its key)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="nimmt-bot: %(message)s")
    try:
        host, port = parse_address(args.address)
    except ValueError as exc:
        parser.error(str(exc))
    create = None
    if args.create:
        extra = {} if args.turn_time is None else {"turn_time": args.turn_time}
        try:
            create = wire.TableOptions(seats=args.seats, rounds=args.rounds,
                                       step_delay=args.step_delay, draft=args.draft,
                                       tactic_deck=args.tactic_deck,
                                       professional=args.professional,
                                       point_limit=None if args.rounds else 66, **extra)
        except wire.LocalProtocolError as exc:
            parser.error(f"bad table options: {exc}")
    options: dict[str, Any] = {"join": args.join, "create": create, "add_bots": args.add_bots,
                               "games": args.games}
    try:
        if args.command is not None:
            words = shlex.split(args.command)
            name = args.name or (words[-1].rsplit("/", 1)[-1] if words else "program")[:32]
            run = _play_program(args.command, host, port, name=name, **options)
        else:
            try:
                strategy = make_strategy(args.strategy, args.seed)
            except ValueError as exc:
                parser.error(str(exc))
            name = args.name or args.strategy
            key = SessionStore().key(host, port, name, create=args.claim)
            run = play_bot(host, port, strategy, name=name, key=key, **options)
        result = asyncio.run(run)
    except (ClientError, ProgramError, wire.LocalProtocolError, ValueError) as exc:
        print(f"nimmt-bot: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    for number, (place, totals) in enumerate(zip(result.places, result.totals), 1):
        print(f"game {number}: place {place}, totals {totals}")
    if result.stopped:
        print(f"nimmt-bot: stopped: {result.stopped}", file=sys.stderr)
    return 0 if result.games >= args.games else 1


if __name__ == "__main__":
    sys.exit(main())
