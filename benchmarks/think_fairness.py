"""The think pool's fairness: one table's searching bot while one client floods the pool.

    python benchmarks/think_fairness.py --flood-tables 8 --turns 10
    python benchmarks/think_fairness.py --flood-tables 0 --turns 10    # the same, no flood
    python benchmarks/think_fairness.py --flood-tables 32 --turns 20 --addresses  # issue 42


Starts a real ``python -m nimmt.server`` on 127.0.0.1 (``--db :memory:``,
``--bot-workers`` workers). One client (one address, one session per table: a
session sits at one table) opens ``--flood-tables`` tables of 9 built-in ``hard``
bots (``search``, 100 ms a decision) and commits at once at every turn, so that
its bots keep the workers busy without a pause: 9 decisions a table a turn. Then
Bob plays one ``hard`` bot at a table of two, committing at once; for each of
``--turns`` turns it measures, as Bob sees it, the time from ``turn_started`` to
the bot's ``seat_committed``: how long the bot waited for a worker, and thought.
It prints the median and the largest, in seconds, and Bob's game's length when
it ends within the turns measured.

``--addresses``: the attacker of issue 42 (attack 3): the flood's sessions all
connect from 127.0.0.2 and Bob from 127.0.0.3, so that the server sees one client
address with many bot-filled tables and another with one (without it, everyone
connects from 127.0.0.1: one address, as the tables-only fairness was measured).

``--policy turns``: the server keeps no worker free for another address (its
environment has ``NIMMT_THINK_KEEP_FREE=0``: the turns alone, before issue 42's
last change); ``keep`` (the default) is the server as shipped.
``--alternate N``: N rounds of three runs each, the same code, one after another:
no flood, the flood with ``turns``, the flood with ``keep``; one JSON line a run,
then the medians of each kind and their ratio to the no-flood median:

    python benchmarks/think_fairness.py --flood-tables 32 --turns 30 --addresses --alternate 3

Needs the test dependencies (``pip install -e '.[test]'``): it uses the tests'
scripted client.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

import trio

from nimmt import protocol as P
from nimmt.server.thinking.pool import KEEP_FREE_ENV

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from real_server import running_server  # noqa: E402
from server_helpers import Player, ScriptClient, play_until_over  # noqa: E402

FLOOD = P.TableOptions(seats=10, step_delay=0.0, turn_time=30.0)
BOB = P.TableOptions(seats=2, step_delay=0.0, turn_time=30.0)


async def connect(port: int, name: str, address: str | None) -> ScriptClient:
    """A client; its socket from ``address`` (any 127.x.y.z; None: the system's choice)."""
    if address is None:
        return await ScriptClient.tcp(port, name)
    stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=address)
    client = ScriptClient(stream, name)
    await client.hello()
    return client


async def flood_table(port: int, n: int, ready: trio.Event | None,
                      address: str | None) -> None:
    """A table of 9 ``hard`` bots and a player who commits at once, game after game."""
    client = await connect(port, f"Flood{n}", address)
    seated = await client.request(P.CreateTable(options=FLOOD))
    assert isinstance(seated, P.Seated), seated
    for _ in range(9):
        added = await client.request(P.AddBot(strategy="hard"))
        assert isinstance(added, P.TableUpdated), added
    while True:
        await client.send(P.Start())
        if ready is not None:
            ready.set()
            ready = None
        await play_until_over(Player(client, seed=n))


async def measure(port: int, turns: int, address: str | None,
                  games: list[float]) -> list[float]:
    bob = await connect(port, "Bob", address)
    assert isinstance(await bob.request(P.CreateTable(options=BOB)), P.Seated)
    assert isinstance(await bob.request(P.AddBot(strategy="hard")), P.TableUpdated)
    await bob.send(P.Start())
    game_started = trio.current_time()
    player = Player(bob, seed=1)
    waits: list[float] = []
    started = None
    while len(waits) < turns:
        msg = await bob.recv()
        if isinstance(msg, P.TurnStarted):
            started = trio.current_time()
        elif isinstance(msg, P.SeatCommitted) and msg.seat == 1 and started is not None:
            waits.append(trio.current_time() - started)
            started = None
        elif isinstance(msg, P.GameOver):
            games.append(trio.current_time() - game_started)
            game_started = trio.current_time()
            await bob.send(P.Start())
        reply = player.on(msg)
        if reply is not None:
            await bob.send(reply)
    return waits


async def run(args: argparse.Namespace, games: list[float]) -> list[float]:
    flood, victim = ("127.0.0.2", "127.0.0.3") if args.addresses else (None, None)
    with running_server("--bot-workers", str(args.workers), "--log-level", "error") as port:
        async with trio.open_nursery() as nursery:
            for n in range(args.flood_tables):
                ready = trio.Event()
                nursery.start_soon(flood_table, port, n, ready, flood)
                await ready.wait()
            await trio.sleep(args.settle)  # the flood's queue fills
            waits = await measure(port, args.turns, victim, games)
            nursery.cancel_scope.cancel()
    return waits


def one_run(args: argparse.Namespace, flood_tables: int, policy: str) -> dict[str, object]:
    """One server, one measure; its figures."""
    os.environ[KEEP_FREE_ENV] = "1" if policy == "keep" else "0"  # the server inherits it
    args.flood_tables = flood_tables
    games: list[float] = []
    waits = trio.run(run, args, games)
    return {
        "flood_tables": flood_tables, "policy": policy, "workers": args.workers,
        "turns": len(waits), "addresses": args.addresses,
        "game_s": round(games[0], 2) if games else None,
        "bot_answer_median_s": round(statistics.median(waits), 3),
        "bot_answer_max_s": round(max(waits), 3),
        "all_s": [round(w, 3) for w in waits],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flood-tables", type=int, default=8)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--settle", type=float, default=2.0,
                        help="seconds between the flood's start and the measure")
    parser.add_argument("--addresses", action="store_true",
                        help="the flood from 127.0.0.2, Bob from 127.0.0.3 (issue 42)")
    parser.add_argument("--policy", choices=("keep", "turns"), default="keep",
                        help="keep: a worker kept free for another address (as shipped); "
                             "turns: the turns alone (NIMMT_THINK_KEEP_FREE=0)")
    parser.add_argument("--alternate", type=int, default=0, metavar="N",
                        help="N rounds of: no flood, flood with turns, flood with keep")
    args = parser.parse_args()
    if not args.alternate:
        print(json.dumps(one_run(args, args.flood_tables, args.policy)))
        return 0
    flood = args.flood_tables
    medians: dict[str, list[float]] = {"no flood": [], "turns": [], "keep": []}
    for _ in range(args.alternate):
        for kind, tables, policy in (("no flood", 0, "keep"), ("turns", flood, "turns"),
                                     ("keep", flood, "keep")):
            figures = one_run(args, tables, policy)
            print(json.dumps(figures), flush=True)
            medians[kind].append(float(figures["bot_answer_median_s"]))  # type: ignore[arg-type]
    base = statistics.median(medians["no flood"])
    print(json.dumps({kind: {"medians_s": values, "median_s": statistics.median(values),
                             "ratio_to_no_flood": round(statistics.median(values) / base, 2)}
                      for kind, values in medians.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
