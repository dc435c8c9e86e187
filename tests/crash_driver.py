"""SIGKILL a real nimmt-server at random moments of many games, start it again on the
same database, and check that nothing was lost (tests/test_server_persist.py runs a
few kills; benchmarks/crash.py runs tens).

Each round: start ``nimmt-server --db PATH``; a driver (one session) opens
``tables`` tables of four seats, fills three with built-in bots, starts the game and
leaves, so that the autopilot plays the fourth seat at once and every game runs by
itself at full speed; after a random moment the server is killed with SIGKILL. A
table counts as started once the driver got its ``left`` reply: by then its
``game_started`` fact is on disk. A last server is then left to finish every game.

What must hold (``check``): every started table's game is kept exactly once, with
its result, and every kept record replays (``nimmt.engine.replay``) to the result
stored with it.
"""

from __future__ import annotations

import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from nimmt import protocol as P
from nimmt.engine import replay
from nimmt.server.storage import Store

ADDRESS = re.compile(r"listening on 127\.0\.0\.1:(\d+)")

CONFIG = """\
tables_per_session = 1000
tables_per_address = 1000
rate_limit = 10000
"""

def options(rounds: int) -> P.TableOptions:
    """Games of ``rounds`` rounds (no point limit), played at full speed."""
    return P.TableOptions(seats=4, step_delay=0.0, autoplay_when_away="immediately",
                          point_limit=None, rounds=rounds)


@dataclass
class CrashRun:
    kills: int = 0
    started: set[str] = field(default_factory=set)  # table ids whose game started
    seconds_to_finish: float = 0.0  # the last server: until every game was kept
    restarts: list[float] = field(default_factory=list)  # seconds from spawn to listening
    cut: list[int] = field(default_factory=list)  # games in progress at each kill


class Driver:
    """A blocking client with nothing but a socket and the sans-IO protocol."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.conn = P.Connection(P.CLIENT)
        self.ids = 0
        self.request(P.Hello(protocol=P.PROTOCOL_VERSION, name="driver", kind="human"))

    def send(self, msg: P.Message) -> None:
        self.sock.sendall(self.conn.send(msg))

    def recv(self) -> P.Message:
        while True:
            msg = self.conn.next_message()
            if isinstance(msg, P.Message):
                return msg
            data = self.sock.recv(65536)
            if not data:
                raise EOFError("the server closed the connection")
            self.conn.receive_data(data)

    def request(self, msg: P.Message) -> P.Message:
        self.ids += 1
        if hasattr(msg, "id"):
            msg = replace(msg, id=self.ids)
        self.send(msg)
        while True:
            reply = self.recv()
            if getattr(reply, "re", None) == self.ids or isinstance(reply, P.Welcome):
                return reply

    def open_game(self, rounds: int) -> str:
        seated = self.request(P.CreateTable(options=options(rounds)))
        assert isinstance(seated, P.Seated), seated
        for _ in range(3):
            self.request(P.AddBot(strategy="easy"))
        self.send(P.Start())
        left = self.request(P.Leave())
        assert isinstance(left, P.Left), left
        return seated.table.table_id

    def close(self) -> None:
        self.sock.close()


def start_server(db: Path, config: Path) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "nimmt.server", "--host", "127.0.0.1", "--port", "0",
         "--log-level", "error", "--db", str(db), "--config", str(config)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    found = ADDRESS.search(line)
    if not found:
        proc.kill()
        raise AssertionError(f"the server did not start: {line!r} {proc.communicate()[1]}")
    return proc, int(found.group(1))


def games_in_progress(db: Path) -> int:
    """Open tables whose last game has started and is not over."""
    with Store.open(db, read_only=True) as store:
        return sum(1 for t in store.open_tables()
                   if any(f.kind == "game_started" for f in t.facts)
                   and not any(f.kind == "game_over" for f in t.facts))


def kept_tables(db: Path) -> list[str]:
    with Store.open(db, read_only=True) as store:
        return [g.table_id for g in store.games()]


def run(db: Path, *, kills: int, tables: int, max_delay: float, rounds: int = 10,
        seed: int = 0, finish_timeout: float = 60.0) -> CrashRun:
    """Kill the server ``kills`` times, each after up to ``max_delay`` seconds of
    ``tables`` new games (and the earlier ones restored); then let one finish all."""
    rng = random.Random(seed)
    config = db.with_suffix(".toml")
    config.write_text(CONFIG)
    result = CrashRun()
    for _ in range(kills):
        t0 = time.monotonic()
        proc, port = start_server(db, config)
        result.restarts.append(time.monotonic() - t0)
        try:
            driver = Driver(port)
            for _ in range(tables):
                result.started.add(driver.open_game(rounds))
            time.sleep(rng.uniform(0.0, max_delay))
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        driver.close()
        result.kills += 1
        result.cut.append(games_in_progress(db))
    t0 = time.monotonic()
    proc, port = start_server(db, config)
    try:
        deadline = t0 + finish_timeout
        while not result.started <= set(kept_tables(db)):
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline, "the games did not finish"
            time.sleep(0.05)
        result.seconds_to_finish = time.monotonic() - t0
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            _, err = proc.communicate(timeout=10)
        finally:
            proc.kill()
    assert "not restored" not in err and "internal error" not in err, err
    return result


def check(db: Path, started: set[str]) -> int:
    """Every started game kept once, and each record replays to its stored result;
    returns the number of games checked."""
    with Store.open(db, read_only=True) as store:
        games = store.games()
        ids = [g.table_id for g in games]
        assert sorted(ids) == sorted(set(ids)), "a game was kept twice"
        assert started <= set(ids)
        for summary in games:
            stored = store.game(summary.id)
            game = replay(stored.record).run().game  # raises on a contradiction
            assert game is not None and game.is_over, summary
            totals = tuple(p.bullheads for p in summary.players)
            assert game.totals == totals, (summary, game.totals)
            winners = {p.seat for p in summary.players if p.won}
            assert winners == {s for s, t in enumerate(totals) if t == min(totals)}
        return len(games)
