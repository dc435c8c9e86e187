"""Play a strategy over the network: ``nimmt-bot HOST[:PORT]``.

    nimmt-bot 192.168.1.20                 # join the first table with a free seat
    nimmt-bot localhost --join t3          # join table t3
    nimmt-bot localhost --create --seats 4 --add-bots 3 --games 2
    nimmt-bot localhost --strategy random --name Rando

The bot sees only what the server sends to its seat (``SeatTracker`` turns it
into a ``View``), decides with the strategy, and answers every request. It
resumes its seat if the connection drops.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from nimmt import protocol as wire
from nimmt.client.link import LinkRestored
from nimmt.client.net import DEFAULT_PORT, ClientConnection, ClientError, connect, parse_address

from .strategies import STRATEGIES, Strategy, make_strategy
from .tracker import SeatTracker

__all__ = ["BotResult", "play_bot", "main"]

log = logging.getLogger("nimmt.bots")


@dataclass
class BotResult:
    """What a bot's session came to: the games it finished and its places."""

    table_id: str | None = None
    seat: int | None = None
    games: int = 0
    places: list[int] | None = None
    totals: list[list[int]] | None = None
    errors: list[str] | None = None


async def _find_or_create(conn: ClientConnection, options: wire.TableOptions) -> None:
    """Join the newest waiting table with a free seat, or create one."""
    await conn.send(wire.ListTables())
    while True:
        message = await conn.receive()
        if isinstance(message, wire.TableList):
            break
    for table in message.tables:
        if table.status == "waiting" and any(seat is None for seat in table.seats):
            await conn.send(wire.Join(table_id=table.table_id))
            return
    await conn.send(wire.CreateTable(options=options, name=f"{conn.name}'s table"))


async def play_bot(
    host: str,
    port: int,
    strategy: Strategy,
    *,
    name: str = "bot",
    join: str | None = None,
    create: wire.TableOptions | None = None,
    add_bots: int = 0,
    games: int = 1,
) -> BotResult:
    """Connect, take a seat, and play ``games`` games with ``strategy``.

    ``join``: a table id; ``create``: the options of a table to create (the bot
    is its host, fills ``add_bots`` seats with built-in bots and starts when the
    table is full); neither: join a waiting table or create one.
    """
    result = BotResult(places=[], totals=[], errors=[])
    tracker = SeatTracker()
    conn = await connect(host, port, name, "bot")
    tracker.apply(conn.welcome)
    answered: tuple[object, ...] | None = None
    hosting = False
    try:
        if join is not None:
            await conn.send(wire.Join(table_id=join))
        elif create is not None:
            await conn.send(wire.CreateTable(options=create, name=f"{name}'s table"))
        else:
            await _find_or_create(conn, wire.TableOptions())
        async for message in conn.events():
            tracker.apply(message)
            if isinstance(message, LinkRestored):
                answered = None  # an answer sent as the link died may be lost: decide again
            elif isinstance(message, wire.Seated):
                result.table_id, result.seat = message.table.table_id, message.seat
                if message.table.host == message.seat and message.table.status == "waiting":
                    hosting = True
                    for _ in range(add_bots):
                        await conn.send(wire.AddBot())
                    add_bots = 0
            elif isinstance(message, wire.TableUpdated) and hosting:
                table = message.table
                if table.status == "waiting" and all(seat is not None for seat in table.seats):
                    await conn.send(wire.Start())
            elif isinstance(message, wire.Error):
                log.warning("%s: server error %s: %s", name, message.code, message.message)
                result.errors.append(f"{message.code}: {message.message}")
                if message.code in ("no_such_table", "table_full", "already_started"):
                    break
            elif isinstance(message, wire.GameOver):
                result.games += 1
                result.places.append(message.places[tracker.seat or 0])
                result.totals.append(list(message.totals))
                if result.games >= games:
                    break
                if hosting:
                    await conn.send(wire.Start())
            elif isinstance(message, wire.Goodbye):
                break
            request = tracker.request
            if request is None:
                continue
            key = (request.kind, request.round, request.turn, request.pick)
            if key == answered or request.committed is not None:
                continue  # answered already (a commit stands until replaced)
            answered = key
            decision = strategy.decide(tracker.view())
            await conn.send(tracker.answer(decision))
    finally:
        await conn.close()
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="nimmt-bot", description="Play a built-in strategy on a nimmt server.")
    parser.add_argument("address", nargs="?", default="localhost",
                        help=f"HOST[:PORT] of the server (default localhost:{DEFAULT_PORT})")
    parser.add_argument("--strategy", default="heuristic", choices=sorted(STRATEGIES))
    parser.add_argument("--name", default=None, help="the bot's name (default: the strategy's)")
    parser.add_argument("--join", metavar="TABLE", help="join this table id")
    parser.add_argument("--create", action="store_true", help="create a table and host it")
    parser.add_argument("--seats", type=int, default=4, help="seats of a created table (default 4)")
    parser.add_argument("--rounds", type=int, default=None,
                        help="a created table ends after this many rounds (default: at 66 points)")
    parser.add_argument("--step-delay", type=float, default=0.0,
                        help="seconds between resolution steps at a created table (default 0)")
    parser.add_argument("--add-bots", type=int, default=0, metavar="N",
                        help="fill N seats of a created table with the server's built-in bots")
    parser.add_argument("--games", type=int, default=1, help="games to play before leaving (default 1)")
    parser.add_argument("--seed", type=int, default=None, help="seed of a random strategy")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    host, port = parse_address(args.address)
    create = None
    if args.create:
        create = wire.TableOptions(seats=args.seats, rounds=args.rounds, step_delay=args.step_delay,
                                   point_limit=None if args.rounds else 66)
    try:
        result = asyncio.run(play_bot(
            host, port, make_strategy(args.strategy, args.seed), name=args.name or args.strategy,
            join=args.join, create=create, add_bots=args.add_bots, games=args.games,
        ))
    except (ClientError, wire.LocalProtocolError) as exc:
        print(f"nimmt-bot: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    for number, (place, totals) in enumerate(zip(result.places or [], result.totals or []), 1):
        print(f"game {number}: place {place}, totals {totals}")
    return 0 if result.games else 1


if __name__ == "__main__":
    sys.exit(main())
