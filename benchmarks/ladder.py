"""Ladder benchmark (issue 27): N ladder bots play rated games from the queue for a
while against one real nimmt-server, and people-like clients play ordinary tables
beside them.

    python benchmarks/ladder.py                       # 200 bots, 10 minutes, and a baseline
    python benchmarks/ladder.py --bots 200 --duration 300 --warmup 20

Each ladder bot is the code of ``nimmt-bot --ladder --strategy heuristic --bot-level
easy``: a ``nimmt.bots.session.BotSession`` with a ``LadderAsk`` (4 seats, the
options nimmt-bot queues with: step delay 0 (the server paces ladder tables at its
``ladder_step_delay``), 66 points; fill with easy bots after
30 s), on its own connection (``nimmt.client.net``), with its own claimed name
and key. It queues, plays, leaves, queues again. They run as many sessions in
``--processes`` worker processes (one asyncio loop each), not as one process per
bot: 200 Python interpreters would measure the interpreters' start more than the
server. The heuristic answers at once: the bots play as fast as the server lets
them (a saturation load); ``--think 0.5:1.5`` makes each decision wait that long
first, as a person or a slow program would (a held load).

Beside them, ``--people`` ordinary (casual, version 1) tables of 4 clients that
take 0.5-1.5 s to decide (``benchmarks/load.py``'s worker): their reveal latency
(from a turn's last commit to its ``revealed`` at all four seats) is compared
with a first run of the same tables on a fresh server without the ladder bots
(``--no-baseline`` skips it).

Reported after ``--warmup`` seconds, over ``--duration`` seconds:

- ladder games per minute (distinct tables whose game ended in the window);
- queue wait p50/p99: from a bot's ``queue`` to its ``seated``, at the bot;
- the people's reveal latency p50/p99, with and without the ladder bots;
- the server's CPU (cores) and resident memory.

Everything stays on 127.0.0.1; the server writes a fresh database file (ratings
included), as a real server does (``--db off``: none).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from load import (  # noqa: E402 - the load benchmark's server helpers and people
    LOAD_CONFIG,
    free_port,
    parse_think,
    percentile,
    proc_cpu_seconds,
    proc_memory_mib,
    wait_for_port,
)

SEATS = 4


# ----------------------------------------------------------------------------- ladder bots


async def ladder_worker(args: argparse.Namespace) -> dict[str, object]:
    """``args.bots`` ladder bots in this process until the end of the window."""
    from nimmt import protocol as wire
    from nimmt.bots import HeuristicStrategy
    from nimmt.bots.players import as_player
    from nimmt.bots.session import FILL_AFTER, BotSession, LadderAsk
    from nimmt.client.net import connect

    import random

    class Thinking:
        """The heuristic after ``args.think`` seconds (a held load)."""

        def __init__(self) -> None:
            self.inner = as_player(HeuristicStrategy())

        async def decide(self, ask: object) -> object:
            low, high = args.think
            await asyncio.sleep(random.uniform(low, high))
            return await self.inner.decide(ask)  # type: ignore[arg-type]

        async def aclose(self) -> None:
            await self.inner.aclose()

    logging.getLogger("nimmt").setLevel(logging.ERROR)  # one line a game each, otherwise
    # what nimmt-bot --ladder queues for by default (--seats 4, --step-delay 0)
    ask = LadderAsk(SEATS, wire.TableOptions(seats=SEATS, step_delay=0.0), FILL_AFTER, "easy")
    run = secrets.token_hex(3)
    sessions: list[BotSession] = []
    tasks: list[asyncio.Task[object]] = []
    start = time.monotonic()
    for i in range(args.bots):
        name = f"lad{args.first}-{i}-{run}"
        conn = await connect("127.0.0.1", args.port, name, "bot",
                             key=secrets.token_urlsafe(32))
        player = Thinking() if args.think[1] > 0 else as_player(HeuristicStrategy())
        session = BotSession(conn, player, name=name, join=None,  # type: ignore[arg-type]
                             create=None, add_bots=0, games=0, bot_level="easy", ladder=ask)
        sessions.append(session)
        tasks.append(asyncio.create_task(session.run()))
        await asyncio.sleep(0.01)  # not every connection in the same instant
    await asyncio.sleep(max(0.0, start + args.warmup - time.monotonic()))
    games_before = [len(s.result.tables) for s in sessions]
    waits_before = [len(s.result.queue_waits) for s in sessions]
    await asyncio.sleep(args.duration)
    tables = [t for s, n in zip(sessions, games_before) for t in s.result.tables[n:]]
    waits = [w for s, n in zip(sessions, waits_before) for w in s.result.queue_waits[n:]]
    stopped = [s.result.stopped for s in sessions if s.result.stopped]
    errors = sum(len(s.result.errors) for s in sessions)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for session in sessions:
        await session.conn.close()
    return {"tables": tables, "waits": waits, "stopped": stopped, "errors": errors,
            "games": sum(len(s.result.tables) for s in sessions)}


# ----------------------------------------------------------------------------- one run


def one_run(args: argparse.Namespace, bots: int) -> dict[str, object]:
    """A fresh server, the people's tables and ``bots`` ladder bots; the figures."""
    port = free_port()
    folder = tempfile.mkdtemp(prefix="nimmt-ladder-")
    config_path = os.path.join(folder, "ladder.toml")
    with open(config_path, "w", encoding="utf-8") as f:
        f.write(LOAD_CONFIG)  # every client comes from 127.0.0.1: lift the per-address shares
    db = ":memory:" if args.db == "off" else os.path.join(folder, "ladder.db")
    server = subprocess.Popen(
        [sys.executable, "-m", "nimmt.server", "--host", "127.0.0.1", "--port", str(port),
         "--log-level", "warning", "--config", config_path, "--db", db],
        stdout=subprocess.DEVNULL)
    workers: list[subprocess.Popen[str]] = []
    people = None
    try:
        wait_for_port(port)
        load = os.path.join(os.path.dirname(os.path.abspath(__file__)), "load.py")
        people = subprocess.Popen(
            [sys.executable, load, "--worker", "--port", str(port), "--tables",
             str(args.people), "--think", "0.5:1.5", "--duration", str(args.duration),
             "--warmup", str(args.warmup), "--first-table", "0", "--seed", "7"],
            stdout=subprocess.PIPE, text=True)
        shares = [bots // args.processes + (i < bots % args.processes)
                  for i in range(args.processes)] if bots else []
        for i, share in enumerate(shares):
            workers.append(subprocess.Popen(
                [sys.executable, __file__, "--worker", "--port", str(port), "--bots", str(share),
                 "--first", str(i), "--duration", str(args.duration), "--warmup",
                 str(args.warmup), "--think", f"{args.think[0]}:{args.think[1]}"],
                stdout=subprocess.PIPE, text=True))
        time.sleep(args.warmup)
        cpu_start, wall_start = proc_cpu_seconds(server.pid), time.monotonic()
        time.sleep(args.duration)
        cpu, wall = proc_cpu_seconds(server.pid) - cpu_start, time.monotonic() - wall_start
        rss, hwm = proc_memory_mib(server.pid)
        results = []
        for worker in [people, *workers]:
            out, _ = worker.communicate(timeout=args.warmup + args.duration + 300)
            if worker.returncode != 0:
                raise SystemExit(f"a worker failed (exit {worker.returncode})")
            results.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for worker in [people, *workers]:
            if worker is not None and worker.poll() is None:
                worker.kill()
        server.send_signal(2)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
    people_result, ladder = results[0], results[1:]
    return {
        "latencies": people_result["latencies"], "people_turns": people_result["turns"],
        "people_errors": people_result["errors"],
        "tables": {t for r in ladder for t in r["tables"]},
        "waits": [w for r in ladder for w in r["waits"]],
        "stopped": [s for r in ladder for s in r["stopped"]],
        "errors": sum(r["errors"] for r in ladder),
        "cpu": cpu / wall, "rss": rss, "hwm": hwm,
    }


def report(label: str, run: dict[str, object], duration: float) -> None:
    latencies: list[float] = run["latencies"]  # type: ignore[assignment]
    print(f"{label}:")
    if latencies:
        print(f"  people's reveal latency  p50 {statistics.median(latencies) * 1000:.1f} ms   "
              f"p99 {percentile(latencies, 0.99) * 1000:.1f} ms   ({len(latencies)} turns)")
    tables: set[str] = run["tables"]  # type: ignore[assignment]
    waits: list[float] = run["waits"]  # type: ignore[assignment]
    if tables or waits:
        print(f"  ladder games per minute  {len(tables) / (duration / 60):.1f}   "
              f"({len(tables)} games)")
    if waits:
        print(f"  queue wait               p50 {statistics.median(waits):.2f} s   "
              f"p99 {percentile(waits, 0.99):.2f} s   ({len(waits)} waits)")
    stopped: list[str] = run["stopped"]  # type: ignore[assignment]
    if stopped or run["errors"] or run["people_errors"]:
        print(f"  bots stopped {len(stopped)} {stopped[:3]}, ladder errors {run['errors']}, "
              f"people's errors {run['people_errors']}")
    print(f"  server CPU               {run['cpu']:.2f} cores   memory {run['rss']:.0f} MiB "
          f"now, {run['hwm']:.0f} MiB peak")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=200, help="ladder bots (default 200)")
    parser.add_argument("--people", type=int, default=4,
                        help="ordinary tables of 4 people-like clients (default 4)")
    parser.add_argument("--duration", type=float, default=600.0,
                        help="seconds measured, per run (default 600)")
    parser.add_argument("--warmup", type=float, default=20.0, help="seconds before measuring")
    parser.add_argument("--processes", type=int, default=4,
                        help="worker processes the ladder bots run in (default 4)")
    parser.add_argument("--think", type=parse_think, default=(0.0, 0.0), metavar="MIN:MAX",
                        help="seconds each ladder bot waits before a decision (default 0: "
                             "at once, as nimmt-bot)")
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip the first run (the people without the ladder bots)")
    parser.add_argument("--db", choices=("on", "off"), default="on",
                        help="on: a fresh database file (default); off: --db :memory:")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(asyncio.run(ladder_worker(args))))
        return
    print(f"{args.bots} ladder bots in {args.processes} processes (think {args.think[0]:g}-"
          f"{args.think[1]:g} s), {args.people} people's tables, {args.duration:g} s measured "
          f"after {args.warmup:g} s, database {args.db}")
    if not args.no_baseline:
        report("without the ladder bots", one_run(args, 0), args.duration)
    report(f"with {args.bots} ladder bots", one_run(args, args.bots), args.duration)


if __name__ == "__main__":
    main()
