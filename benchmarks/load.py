"""Load benchmark: many tables of bot clients against one nimmt-server over loopback.

    # held load: 1,000 bots (250 tables of 4) that take 0.5-1.5 s to decide
    python benchmarks/load.py --tables 250 --think 0.5:1.5 --duration 60
    # saturation: bots that answer at once
    python benchmarks/load.py --tables 50 --think 0 --duration 30 [--profile]
    # searching built-in bots at some tables, people (bot clients) at the others
    python benchmarks/load.py --tables 100 --search-tables 4 --duration 60

The script starts `python -m nimmt.server` on 127.0.0.1 (a free port), then
`--processes` worker processes, each playing its share of the tables over
real sockets (the four bots of a table live in one worker). Tables use step
delay 0 and start a new game as soon as one ends. After `--warmup` seconds it
measures for `--duration` seconds and reports:

- turns per second (turns whose reveal reached every seat, all tables);
- reveal latency: for each turn, from the moment its last commit was sent to
  the moment its `revealed` message had arrived at all four seats (p50/p99);
- the server's CPU (user+system seconds per wall second, 1.0 = one core; and per turn played) and
  memory (peak and final resident set size);
- the machine: the share of its CPU time the host stole (a virtual machine's CPU
  wanted to run while the host ran someone else's) and the cores other programs
  used. Figures from runs with much steal do not compare with quiet ones.

`--json PATH` also writes the figures as JSON (`benchmarks/db_ab.py` runs many
alternated pairs of `--db off` and `--db on` that way). `--reveals-out PATH` writes each
measured reveal's end and latency (`benchmarks/tail_match.py` reads it).

`--flooders N` adds N attackers (issue 8, item 1): each sits at a table of its own
with one built-in bot, and once the game is on writes the 36-byte `commit` frame of
the issue `--flood-frames` times (200,000: 7.2 MB) in one go; when the server
closes it (`rate_limited`) it resumes its session at once and floods again, until
the end; a connection the server refuses (its address is cooling down after a
flood) is tried again at once. The flooders connect from 127.0.0.2, the bot
tables from 127.0.0.1. `--flood-cooldown S` sets the server's `flood_cooldown`
and `flood_address_cooldown` (default 1 s; 0: none, as before they existed).
Compare the bot tables' latency with and without them. With
`--flood-new-address` (the resume flood of issue 22)
each connection of a flooder comes from an address of its own (127.3.x.y, never
used twice), so that no limit on an address can hold it back: only the limits on
its session can (`resume_rate`, and the session's cool-down after a flood).

`--search-tables N` adds N tables where one client plays against three of the
server's built-in bots of `--search-level` (default hard: `search`, 100 ms a
decision), which think in the server's worker processes; that client commits at
once, so those bots think without a pause. The figures above are the people's
tables only; the bots' tables report their turns per second apart.

`--profile` runs the server under cProfile and prints where its time went.
`--db off` runs the server with `--db :memory:` (nothing stored); by default it
writes to a fresh database file in a temporary directory, as a real server does.
Everything stays on 127.0.0.1 and stops by itself.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import statistics
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

import trio

from nimmt.server.config import ServerConfig
from nimmt.protocol import (
    CONNECTION_CLOSED,
    NEED_DATA,
    ChooseRow,
    ChooseTie,
    Commit,
    Connection,
    CreateTable,
    DraftPick,
    GameOver,
    Hello,
    HandDealt,
    Join,
    Ping,
    Pong,
    Revealed,
    Role,
    RowChoiceRequest,
    AddBot,
    Seated,
    Start,
    TableOptions,
    TieChoiceRequest,
    DraftPickRequest,
    TurnStarted,
    Welcome,
    Error,
)

SEATS = 4
PROFILE_PARTS = [  # (where, name): how --profile sorts the server's own time into parts
    ("method 'send' of '_socket", "socket syscalls (send/recv/epoll)"),
    ("method 'recv", "socket syscalls (send/recv/epoll)"),
    ("method 'poll' of 'select.epoll", "socket syscalls (send/recv/epoll)"),
    ("/trio/", "trio scheduling, channels, streams"),
    ("/outcome/", "trio scheduling, channels, streams"),
    ("/msgpack/", "msgpack pack/unpack"),
    ("/protocol/", "nimmt.protocol (framing, validation)"),
    ("/engine/", "nimmt.engine (rules, views)"),
    ("/bots/", "nimmt.bots (built-in strategies)"),
    ("/server/", "nimmt.server (tables, clients, lobby)"),
    ("logging", "logging"),
]


# ----------------------------------------------------------------------------- worker


@dataclass
class TurnTiming:
    last_commit: float = 0.0
    reveals: list[float] = field(default_factory=list)


@dataclass
class Stats:
    measure_from: float
    measure_to: float
    turns: int = 0
    latencies: list[float] = field(default_factory=list)
    ends: list[float] = field(default_factory=list)  # (time.perf_counter of each reveal)
    errors: dict[str, int] = field(default_factory=dict)
    games: int = 0


class Bot:
    """One bot connection: a random legal card after a think time."""

    def __init__(self, stream: trio.SocketStream, name: str, think: tuple[float, float],
                 rng: random.Random) -> None:
        self.stream = stream
        self.conn = Connection(Role.CLIENT)
        self.name = name
        self.think = think
        self.rng = rng
        self.hand: set[int] = set()
        self.turn_key: tuple[int, int] = (0, 0)  # (round, turn) of the latest turn_started
        self.send_lock = trio.Lock()

    async def send(self, message: object) -> None:
        data = self.conn.send(message)  # type: ignore[arg-type]
        async with self.send_lock:
            await self.stream.send_all(data)

    async def receive(self) -> object:
        while True:
            message = self.conn.next_message()
            if message is NEED_DATA:
                data = await self.stream.receive_some(65536)
                self.conn.receive_data(data)
                continue
            if message is CONNECTION_CLOSED:
                raise EOFError("server closed the connection")
            return message

    async def expect(self, kind: type) -> object:
        while True:
            message = await self.receive()
            if isinstance(message, kind):
                return message
            if isinstance(message, Ping):
                await self.send(Pong(nonce=message.nonce))
            elif isinstance(message, Error):
                raise RuntimeError(f"{self.name}: server error {message.code}: {message.message}")

    async def thinking(self) -> None:
        low, high = self.think
        if high > 0:
            await trio.sleep(self.rng.uniform(low, high))


async def play_table(index: int, port: int, think: tuple[float, float], stats: Stats,
                     stop_at: float, seed: int) -> None:
    rng = random.Random(seed)
    bots: list[Bot] = []
    for seat in range(SEATS):
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        bot = Bot(stream, f"t{index}s{seat}", think, random.Random(rng.random()))
        await bot.send(Hello(protocol=1, name=bot.name, kind="bot"))
        await bot.expect(Welcome)
        bots.append(bot)
    host = bots[0]
    options = TableOptions(seats=SEATS, step_delay=0.0, turn_time=30.0, choice_time=30.0,
                           draft_time=30.0)
    await host.send(CreateTable(options=options, name=f"load {index}"))
    seated = await host.expect(Seated)
    table_id = seated.table.table_id  # type: ignore[attr-defined]
    for bot in bots[1:]:
        await bot.send(Join(table_id=table_id))
        await bot.expect(Seated)
    timings: dict[tuple[int, int, int], TurnTiming] = {}

    def reveal_arrived(key: tuple[int, int, int], now: float) -> None:
        timing = timings.setdefault(key, TurnTiming())
        timing.reveals.append(now)
        if len(timing.reveals) == SEATS:
            del timings[key]
            done = max(timing.reveals)
            if stats.measure_from <= done <= stats.measure_to:
                stats.turns += 1
                stats.latencies.append(done - timing.last_commit)
                stats.ends.append(done)

    async def run_bot(bot: Bot, nursery: trio.Nursery) -> None:
        game = 0
        while True:
            message = await bot.receive()
            if isinstance(message, HandDealt):
                bot.hand = set(message.cards)
            elif isinstance(message, TurnStarted):
                bot.turn_key = (message.round, message.turn)
                nursery.start_soon(commit_later, bot, game, message.round, message.turn)
            elif isinstance(message, Revealed):
                for _seat, card in message.plays:
                    bot.hand.discard(card)
                reveal_arrived((game, *bot.turn_key), time.perf_counter())
            elif isinstance(message, RowChoiceRequest):
                await bot.send(ChooseRow(round=message.round, turn=message.turn, row=message.rows[0]))
            elif isinstance(message, TieChoiceRequest):
                await bot.send(ChooseTie(round=message.round, turn=message.turn,
                                         place=message.places[0]))
            elif isinstance(message, DraftPickRequest):
                await bot.send(DraftPick(round=message.round, pick=message.pick, card=message.pool[0]))
            elif isinstance(message, GameOver):
                game += 1
                if bot is host:
                    stats.games += 1
                    if time.perf_counter() < stop_at:
                        await bot.send(Start())
            elif isinstance(message, Ping):
                await bot.send(Pong(nonce=message.nonce))
            elif isinstance(message, Error):
                stats.errors[message.code] = stats.errors.get(message.code, 0) + 1

    async def commit_later(bot: Bot, game: int, round_: int, turn: int) -> None:
        await bot.thinking()
        card = bot.rng.choice(sorted(bot.hand))
        now = time.perf_counter()
        timing = timings.setdefault((game, round_, turn), TurnTiming())
        timing.last_commit = max(timing.last_commit, now)
        await bot.send(Commit(round=round_, turn=turn, card=card))

    with trio.move_on_at(trio.current_time() + (stop_at - time.perf_counter()) + 5):
        async with trio.open_nursery() as nursery:
            for bot in bots:
                nursery.start_soon(run_bot, bot, nursery)
            await host.send(Start())
            await trio.sleep(max(0.0, stop_at - time.perf_counter()))  # a slow start
            nursery.cancel_scope.cancel()
    for bot in bots:
        await bot.stream.aclose()


async def play_search_table(index: int, port: int, level: str, stats: Stats, stop_at: float,
                            seed: int) -> None:
    """One client and three built-in bots of ``level``: the client commits at once."""
    rng = random.Random(seed)
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    bot = Bot(stream, f"s{index}", (0.0, 0.0), rng)
    await bot.send(Hello(protocol=1, name=bot.name, kind="bot"))
    await bot.expect(Welcome)
    options = TableOptions(seats=SEATS, step_delay=0.0, turn_time=30.0, choice_time=30.0,
                           draft_time=30.0)
    await bot.send(CreateTable(options=options, name=f"search {index}"))
    await bot.expect(Seated)
    for _ in range(SEATS - 1):
        await bot.send(AddBot(strategy=level))
    await bot.send(Start())
    with trio.move_on_at(trio.current_time() + (stop_at - time.perf_counter())):
        while True:
            message = await bot.receive()
            if isinstance(message, HandDealt):
                bot.hand = set(message.cards)
            elif isinstance(message, TurnStarted):
                await bot.send(Commit(round=message.round, turn=message.turn,
                                      card=rng.choice(sorted(bot.hand))))
            elif isinstance(message, Revealed):
                for _seat, card in message.plays:
                    bot.hand.discard(card)
                if stats.measure_from <= time.perf_counter() <= stats.measure_to:
                    stats.turns += 1
            elif isinstance(message, RowChoiceRequest):
                await bot.send(ChooseRow(round=message.round, turn=message.turn,
                                         row=message.rows[0]))
            elif isinstance(message, TieChoiceRequest):
                await bot.send(ChooseTie(round=message.round, turn=message.turn,
                                         place=message.places[0]))
            elif isinstance(message, GameOver):
                stats.games += 1
                await bot.send(Start())
            elif isinstance(message, Ping):
                await bot.send(Pong(nonce=message.nonce))
            elif isinstance(message, Error) and message.code != "already_started":
                stats.errors[message.code] = stats.errors.get(message.code, 0) + 1
    await stream.aclose()


async def worker_main(args: argparse.Namespace) -> dict[str, object]:
    low, high = args.think
    begin = time.perf_counter()
    stats = Stats(measure_from=begin + args.warmup, measure_to=begin + args.warmup + args.duration)
    stop_at = stats.measure_to
    search = Stats(measure_from=stats.measure_from, measure_to=stats.measure_to)
    async with trio.open_nursery() as nursery:
        for i in range(args.search_tables):
            nursery.start_soon(play_search_table, args.first_table + i, args.port,
                               args.search_level, search, stop_at, args.seed * 100_000 + 50_000 + i)
        for i in range(args.tables):
            nursery.start_soon(play_table, args.first_table + i, args.port, (low, high), stats,
                               stop_at, args.seed * 100_000 + i)
            await trio.sleep(0.01)  # do not open every connection in the same instant
    return {"turns": stats.turns, "latencies": stats.latencies, "ends": stats.ends,
            "errors": stats.errors,
            "games": stats.games, "search_turns": search.turns, "search_errors": search.errors}


# ----------------------------------------------------------------------------- flooders

#: the flooders' address (the bot tables connect from 127.0.0.1)
FLOOD_ADDRESS = "127.0.0.2"

#: issue 8, item 1: ``commit`` round 1, turn 9, card 50, as one 36-byte frame
ISSUE_COMMIT = bytes.fromhex(
    "00000020 84a474797065a6636f6d6d6974a5726f756e6401a47475726e09a46361726432")


def fresh_address(index: int, cycle: int) -> str:
    """Flooder ``index``'s address for its ``cycle``-th connection: 127.3.x.y, one
    /16 per run split between up to 16 flooders (4,096 addresses each)."""
    n = (index % 16) * 4096 + cycle % 4096
    return f"127.3.{n // 254}.{n % 254 + 1}"


async def flood_seat(index: int, port: int, frames: int, stop_at: float,
                     counts: dict[str, int], new_address: bool = False) -> None:
    """One attacker: sit at a playing table, flood it, resume, flood again (from a
    fresh address each time with ``new_address``)."""
    burst = ISSUE_COMMIT * frames
    token: str | None = None
    cycle = 0
    while time.perf_counter() < stop_at:
        cycle += 1
        address = fresh_address(index, cycle) if new_address else FLOOD_ADDRESS
        stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=address)
        bot = Bot(stream, f"flood{index}", (0.0, 0.0), random.Random(index))
        try:
            await bot.send(Hello(protocol=1, name=bot.name, kind="human", token=token))
            try:
                welcome = await bot.expect(Welcome)
            except (RuntimeError, EOFError):
                counts["refused"] += 1  # refused before its welcome (cooling down)
                continue
            token = welcome.token  # type: ignore[attr-defined]
            counts["resumed"] += welcome.resumed  # type: ignore[attr-defined]
            if not welcome.resumed:  # type: ignore[attr-defined]
                await bot.send(CreateTable(options=TableOptions(seats=2, step_delay=0.0)))
                await bot.expect(Seated)
                await bot.send(AddBot(strategy="easy"))
                await bot.send(Start())
                await bot.expect(TurnStarted)
            try:
                await stream.send_all(burst)
                counts["bursts"] += 1
            except trio.BrokenResourceError:
                counts["cut"] += 1  # closed by the server before it was all written
            with trio.move_on_after(5):
                while await stream.receive_some(65536):
                    pass
        except (trio.BrokenResourceError, EOFError, RuntimeError):
            counts["cut"] += 1
        finally:
            await stream.aclose()
        counts["connections"] += 1


async def flooder_main(args: argparse.Namespace) -> dict[str, object]:
    stop_at = time.perf_counter() + args.warmup + args.duration
    counts = {"bursts": 0, "cut": 0, "connections": 0, "refused": 0, "resumed": 0}
    async with trio.open_nursery() as nursery:
        for i in range(args.flooders):
            nursery.start_soon(flood_seat, i, args.port, args.flood_frames, stop_at, counts,
                               args.flood_new_address)
    return counts


# ----------------------------------------------------------------------------- parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proc_cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_ticks() -> tuple[int, int, int]:
    """The whole machine's CPU time so far, in clock ticks: (all, busy, stolen). Steal is
    time a virtual CPU wanted to run while the host ran something else."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    user, nice, system, idle, iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    busy = user + nice + system + irq + softirq
    return busy + idle + iowait + steal, busy, steal


def proc_memory_mib(pid: int) -> tuple[float, float]:
    rss = hwm = 0.0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) / 1024
            elif line.startswith("VmHWM:"):
                hwm = int(line.split()[1]) / 1024
    return rss, hwm


def wait_for_port(port: int, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"the server did not listen on 127.0.0.1:{port} within {timeout} s")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


LOAD_CONFIG = """\
max_per_address = 2000
max_unwelcomed = 2000
max_unwelcomed_per_address = 2000
tables_per_address = 500
"""


def parent_main(args: argparse.Namespace) -> None:
    port = free_port()
    profile_path = os.path.join(tempfile.mkdtemp(), "server.prof")
    server_cmd = [sys.executable]
    if args.profile:
        server_cmd += ["-m", "cProfile", "-o", profile_path]
        server_cmd += ["-m", "nimmt.server"]
    else:
        server_cmd += ["-m", "nimmt.server"]
    # every bot comes from 127.0.0.1: lift the per-address shares (docs/SERVER.md)
    config_path = os.path.join(os.path.dirname(profile_path), "load.toml")
    with open(config_path, "w", encoding="utf-8") as f:
        f.write(LOAD_CONFIG + f"flood_cooldown = {args.flood_cooldown}\n"
                f"flood_cooldown_max = {max(30.0, args.flood_cooldown)}\n")
        if "flood_address_cooldown" in ServerConfig.__dataclass_fields__:  # not before issue 22
            f.write(f"flood_address_cooldown = {min(60.0, args.flood_cooldown)}\n")
    # storage: a fresh database file (the server's default is a file too), or none
    db = ":memory:" if args.db == "off" else os.path.join(os.path.dirname(profile_path),
                                                          "load.db")
    server_cmd += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
                   "--config", config_path, "--db", db]
    server = subprocess.Popen(server_cmd, stdout=subprocess.DEVNULL)
    workers: list[subprocess.Popen[str]] = []
    try:
        wait_for_port(port)
        per_worker = [args.tables // args.processes + (1 if i < args.tables % args.processes else 0)
                      for i in range(args.processes)]
        per_worker_search = [args.search_tables // args.processes
                             + (1 if i < args.search_tables % args.processes else 0)
                             for i in range(args.processes)]
        first = 0
        for i, count in enumerate(per_worker):
            cmd = [sys.executable, __file__, "--worker", "--port", str(port), "--tables", str(count),
                   "--search-tables", str(per_worker_search[i]), "--search-level",
                   args.search_level,
                   "--first-table", str(first), "--think", f"{args.think[0]}:{args.think[1]}",
                   "--duration", str(args.duration), "--warmup", str(args.warmup), "--seed", str(i)]
            workers.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True))
            first += count
        flooder = None
        if args.flooders:
            cmd = [sys.executable, __file__, "--flooder", "--port", str(port),
                   "--flooders", str(args.flooders), "--flood-frames", str(args.flood_frames),
                   "--duration", str(args.duration), "--warmup", str(args.warmup)]
            if args.flood_new_address:
                cmd.append("--flood-new-address")
            flooder = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
            workers.append(flooder)
        time.sleep(args.warmup)
        ours = [server.pid, *(worker.pid for worker in workers)]  # the server first
        ticks_start, ours_start = machine_ticks(), [proc_cpu_seconds(pid) for pid in ours]
        wall_start = time.monotonic()
        time.sleep(args.duration)
        wall = time.monotonic() - wall_start
        ticks_end, ours_end = machine_ticks(), [proc_cpu_seconds(pid) for pid in ours]
        cpu_used = ours_end[0] - ours_start[0]
        tick = os.sysconf("SC_CLK_TCK")
        all_ticks = max(1, ticks_end[0] - ticks_start[0])
        steal = (ticks_end[2] - ticks_start[2]) / all_ticks
        # CPU the machine spent on anything but this benchmark (other programs, the kernel's
        # own threads), in cores
        others = max(0.0, (ticks_end[1] - ticks_start[1]) / tick
                     - sum(end - start for start, end in zip(ours_start, ours_end))) / wall
        rss, hwm = proc_memory_mib(server.pid)
        results = []
        flooded: dict[str, int] = {}
        for worker in workers:
            out, _ = worker.communicate(timeout=args.duration + 120)
            if worker.returncode != 0:
                raise SystemExit(f"a worker failed (exit {worker.returncode})")
            if worker is flooder:
                flooded = json.loads(out.strip().splitlines()[-1])
            else:
                results.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
        server.send_signal(2)  # SIGINT: a graceful shutdown (and cProfile writes its file)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
    latencies = [x for r in results for x in r["latencies"]]
    if args.reveals_out:
        with open(args.reveals_out, "w", encoding="utf-8") as f:
            f.writelines(f"{end} {latency}\n" for r in results
                         for end, latency in zip(r["ends"], r["latencies"]))
    turns = sum(r["turns"] for r in results)
    errors: dict[str, int] = {}
    for r in results:
        for code, count in r["errors"].items():
            errors[code] = errors.get(code, 0) + count
    print(f"tables {args.tables} ({args.tables * SEATS} bot connections), think {args.think[0]}-"
          f"{args.think[1]} s, {args.processes} worker processes, measured {args.duration} s, "
          f"database {'off' if db == ':memory:' else 'on (' + db + ')'}")
    if args.search_tables:
        search_turns = sum(r["search_turns"] for r in results)
        search_errors: dict[str, int] = {}
        for r in results:
            for code, count in r["search_errors"].items():
                search_errors[code] = search_errors.get(code, 0) + count
        print(f"search tables      {args.search_tables} (1 client + {SEATS - 1} "
              f"{args.search_level} bots each): {search_turns / args.duration:.2f} turns/s"
              + (f", errors {search_errors}" if search_errors else ""))
        print("the figures below are the people's tables only")
    print(f"turns/s            {turns / args.duration:,.1f}   ({turns} turns, "
          f"{sum(r['games'] for r in results)} games finished)")
    if latencies:
        print(f"reveal latency     p50 {statistics.median(latencies) * 1000:.1f} ms   "
              f"p99 {percentile(latencies, 0.99) * 1000:.1f} ms   max {max(latencies) * 1000:.1f} ms")
    if args.flooders:
        print(f"flooders           {args.flooders}: {flooded['connections']} connections, "
              f"{flooded['bursts']} bursts of {args.flood_frames} frames written whole, "
              f"{flooded['cut']} cut short by the server, {flooded['refused']} refused "
              f"before their welcome (flood_cooldown {args.flood_cooldown:g} s)")
        print(f"                   {flooded.get('resumed', 0)} sessions resumed, "
              f"{flooded['connections'] / (args.warmup + args.duration):.1f} connections/s"
              + (", each from a fresh address" if args.flood_new_address else ""))
    print(f"server CPU         {cpu_used / wall:.2f} cores"
          + (f", {cpu_used / turns * 1000:.3f} ms a turn" if turns else ""))
    print(f"server memory      {rss:.0f} MiB now, {hwm:.0f} MiB peak")
    print(f"machine            {steal:.1%} of its CPU time stolen by the host, "
          f"{others:.2f} cores used by other programs (os.cpu_count() {os.cpu_count()})")
    if errors:
        print(f"errors             {errors}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"db": args.db, "tables": args.tables, "think": list(args.think),
                       "duration": args.duration, "turns": turns,
                       "turns_per_s": turns / args.duration,
                       "p50_ms": statistics.median(latencies) * 1000 if latencies else None,
                       "p99_ms": percentile(latencies, 0.99) * 1000 if latencies else None,
                       "cores": cpu_used / wall,
                       "cpu_ms_per_turn": cpu_used / turns * 1000 if turns else None,
                       "steal": steal, "other_cores": others, "errors": errors}, f)
    if args.profile and os.path.exists(profile_path):
        import pstats

        stats = pstats.Stats(profile_path)
        print("\nserver profile: own time by part (of all the server's CPU time, setup included)")
        parts: dict[str, float] = {}
        for (filename, _line, function), (_cc, _nc, tottime, _ct, _callers) in stats.stats.items():
            part = "other"
            for key, name in PROFILE_PARTS:
                if key in filename or key in function:
                    part = name
                    break
            parts[part] = parts.get(part, 0.0) + tottime
        total = sum(parts.values())
        for part, seconds in sorted(parts.items(), key=lambda kv: -kv[1]):
            print(f"  {part:<40} {seconds / total:6.1%}")
        print("\ntop functions by own time:")
        stats.sort_stats("tottime").print_stats(15)
        if args.profile_out:
            shutil.copyfile(profile_path, args.profile_out)
            print(f"profile kept in {args.profile_out}")


def parse_think(text: str) -> tuple[float, float]:
    low, _, high = text.partition(":")
    return float(low), float(high or low)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=250)
    parser.add_argument("--think", type=parse_think, default=(0.5, 1.5),
                        help="seconds a bot takes to decide, MIN:MAX (0 = at once)")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds measured")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds before measuring")
    parser.add_argument("--processes", type=int, default=2, help="worker processes for the bots")
    parser.add_argument("--search-tables", type=int, default=0,
                        help="tables of one client and three built-in bots of --search-level")
    parser.add_argument("--search-level", default="hard",
                        help="the built-in bots' level at the search tables (default hard)")
    parser.add_argument("--profile", action="store_true", help="profile the server (cProfile)")
    parser.add_argument("--profile-out", metavar="PATH",
                        help="with --profile: keep the profile there (for "
                        "benchmarks/profile_compare.py)")
    parser.add_argument("--flooders", type=int, default=0,
                        help="attackers flooding their own tables with commits (issue 8)")
    parser.add_argument("--flood-frames", type=int, default=200_000,
                        help="commit frames in one flood burst")
    parser.add_argument("--flood-cooldown", type=float, default=1.0,
                        help="the server's flood_cooldown and flood_address_cooldown in "
                        "seconds (0: none)")
    parser.add_argument("--flood-new-address", action="store_true",
                        help="each flooder connection from a fresh address (a resume flood)")
    parser.add_argument("--db", choices=("on", "off"), default="on",
                        help="on: the server writes to a fresh database file (the default); "
                        "off: --db :memory:")
    parser.add_argument("--json", metavar="PATH",
                        help="also write the figures to PATH as JSON (benchmarks/db_ab.py reads it)")
    parser.add_argument("--reveals-out", metavar="PATH",
                        help="also write each measured reveal to PATH, a line each: when it "
                        "had reached every seat (time.perf_counter) and its latency, in "
                        "seconds (benchmarks/tail_match.py reads it)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--flooder", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--first-table", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(trio.run(worker_main, args)))
    elif args.flooder:
        print(json.dumps(trio.run(flooder_main, args)))
    else:
        parent_main(args)


if __name__ == "__main__":
    main()
