"""Chaos soak: the server's own chaos test (tests/test_server_chaos.py), run long.

    python benchmarks/chaos.py                      # 40 seeds x 12 clients x 400 requests
    python benchmarks/chaos.py --seeds 3 --requests 100   # a quick look

For each seed, a fresh in-process server (memory streams, trio's fake clock so that
timers, deadlines and pacing pass at CPU speed) gets a game of two scripted
players at one table, and ``--clients`` chaos clients (humans, bots and spectators
in turn) that each send ``--requests`` well-formed requests of every kind in random
order with random values (table ids mostly of the tables open at that moment), and
read what comes back. The chaos clients create, join, watch, start and leave
tables, add bots, commit, choose and chat.

It counts what the test asserts: requests sent, tables opened, the error codes
received, ``internal_error`` replies, log records at ERROR and tables closed by a
bug ("internal error" in the log), and whether the scripted game finished
undisturbed. Then every client of the seed goes away (its connection closed) and
the fake clock runs on past every grace and ``abandon_after``: every table must
have closed by then, and no table may hold a *ghost member* (one it counts as
connected although no connection carries its session). It exits 1 if any bug
showed, a table stayed open or a ghost was left. Needs the test dependencies
(``pip install -e '.[test]'``): it reuses the tests' scripted client.
"""

from __future__ import annotations

import argparse
import collections
import json
import logging
import random
import sys
import time
from pathlib import Path

import trio
import trio.testing

from nimmt import protocol as P

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from server_helpers import ScriptClient, make_config, serve_memory  # noqa: E402
from test_server_chaos import chaos, leftovers, open_tables, quiet_time  # noqa: E402
from test_server_hostile import with_background  # noqa: E402

KINDS = ("human", "bot", "spectator")


class Counter(logging.Handler):
    """Counts the server's log records that show a bug."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.errors = 0
        self.internal = 0
        self.closed = 0
        self.games = 0

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if text.startswith("table=") and " game " in text and " starts: " in text:
            self.games += 1
        if record.levelno >= logging.ERROR:
            self.errors += 1
        if "internal error" in text:
            self.internal += 1
        if (" closed: " in text and text.startswith("table=")
                and "server shutdown" not in text and "stopped" not in text):
            self.closed += 1  # before the end of its seed: finished, left, abandoned, bug


async def one_seed(seed: int, clients: int, requests: int, play: float) -> dict:
    rng = random.Random(seed)
    sent: list[int] = []

    async def run(client: ScriptClient, crng: random.Random, table_ids) -> None:
        sent.append(await chaos(client, crng, requests, table_ids, play))

    codes: collections.Counter[str] = collections.Counter()
    async with trio.open_nursery() as nursery:
        config = make_config(turn_time=2.0, choice_time=2.0, draft_time=2.0)
        server = await serve_memory(nursery, config)
        background = await with_background(server, nursery)
        crowd_clients = [await ScriptClient.memory(server, nursery, f"Chaos{i}",
                                                   KINDS[i % len(KINDS)])
                         for i in range(clients)]
        async with trio.open_nursery() as crowd:
            for client in crowd_clients:
                crowd.start_soon(run, client, random.Random(rng.random()), open_tables(server))
        await background.wait()
        background.check()
        for client in crowd_clients:
            codes.update(e.code for e in client.of_type("error"))
        fresh = await ScriptClient.memory(server, nursery, "Fresh")
        assert isinstance(await fresh.request(P.ListTables()), P.TableList)
        tables = server.lobby._table_ids
        # everyone goes away; the fake clock runs on until every table should be closed
        for client in [*crowd_clients, *background.clients, fresh]:
            await client.aclose()
        await trio.sleep(quiet_time(config))
        still_open, ghosts = leftovers(server)
        nursery.cancel_scope.cancel()
    return {"tables": tables, "codes": codes, "sent": sum(sent), "still_open": still_open,
            "ghosts": ghosts}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=40)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--clients", type=int, default=12)
    parser.add_argument("--requests", type=int, default=400,
                        help="random requests per client (answers to the game come on top)")
    parser.add_argument("--play", type=float, default=0.5,
                        help="chance that a client answers a message as a player would")
    args = parser.parse_args()

    counter = Counter()
    log = logging.getLogger("nimmt.server")
    log.setLevel(logging.INFO)
    log.addHandler(counter)
    log.propagate = False

    codes: collections.Counter[str] = collections.Counter()
    tables = sent = still_open = ghosts = 0
    started = time.perf_counter()
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        clock = trio.testing.MockClock(autojump_threshold=0)
        result = trio.run(one_seed, seed, args.clients, args.requests, args.play, clock=clock)
        tables += result["tables"]
        sent += result["sent"]
        still_open += result["still_open"]
        ghosts += result["ghosts"]
        codes.update(result["codes"])
        print(f"seed {seed}: {result['sent']} requests, {result['tables']} tables, "
              f"{counter.games} games started so far, {sum(result['codes'].values())} "
              f"errors, internal_error {result['codes'].get('internal_error', 0)}, "
              f"ERROR logs so far {counter.errors}, once everyone left: "
              f"{result['still_open']} tables open, {result['ghosts']} ghost members",
              flush=True)
    wall = time.perf_counter() - started
    report = {
        "seeds": args.seeds,
        "clients_per_seed": args.clients,
        "requests_sent": sent,
        "tables_opened": tables,
        "games_started": counter.games,
        "tables_closed_while_running": counter.closed,
        "error_replies": sum(codes.values()),
        "internal_error_replies": codes.get("internal_error", 0),
        "error_log_records": counter.errors,
        "tables_closed_by_a_bug": counter.internal,
        "background_games_finished": args.seeds,
        "tables_open_once_everyone_left": still_open,
        "ghost_members": ghosts,
        "wall_seconds": round(wall, 1),
        "error_codes": dict(codes.most_common()),
    }
    print(json.dumps(report, indent=2))
    bugs = (report["internal_error_replies"] + report["error_log_records"] + counter.internal
            + still_open + ghosts)
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())
