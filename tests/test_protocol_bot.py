"""docs/examples/minimal_bot.py against a scripted fake server built on nimmt.protocol.

SERVER HOOK — when the real server exists, run the bot against it with
:func:`run_minimal_bot` (it starts the bot as a subprocess, exactly as a user
would, and returns the completed process)::

    from test_protocol_bot import run_minimal_bot
    proc = run_minimal_bot("127.0.0.1", port, "--bots", "3")
    assert proc.returncode == 0 and "game_over" in proc.stdout

The fake server below checks every frame the bot sends with a
``Connection(SERVER)``, so a malformed or out-of-state message fails the test.
"""

from __future__ import annotations

import dataclasses
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import nimmt.protocol as P
from nimmt.protocol import NEED_DATA, SERVER, Connection
from nimmt.protocol.examples import LIMITS, TABLE, TOKEN

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "docs" / "examples" / "minimal_bot.py"
DEADLINE = 1_900_000_000.0


def run_minimal_bot(host: str, port: int, *args: str,
                    timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    """Run docs/examples/minimal_bot.py HOST PORT ARGS... and wait for it to finish."""
    return subprocess.run([sys.executable, str(BOT), host, str(port), *args],
                          capture_output=True, text=True, timeout=timeout, check=False)


class FakeServer:
    """One scripted connection: ``expect`` reads and checks, ``say`` sends."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.conn = Connection(SERVER)
        self.received: list[P.Message] = []

    def expect(self, cls: type[P.Message], **fields: object) -> P.Message:
        while (msg := self.conn.next_message()) is NEED_DATA:
            data = self.sock.recv(65536)
            self.conn.receive_data(data)
        assert isinstance(msg, cls), msg
        for k, v in fields.items():
            assert getattr(msg, k) == v, (msg, k, v)
        self.received.append(msg)
        return msg

    def say(self, *msgs: P.Message) -> None:
        for m in msgs:
            self.sock.sendall(self.conn.send(m))


def start_server(script: Callable[[FakeServer], None]) -> tuple[int, threading.Thread,
                                                                 list[BaseException]]:
    lsock = socket.create_server(("127.0.0.1", 0))
    port = lsock.getsockname()[1]
    errors: list[BaseException] = []

    def run() -> None:
        try:
            lsock.settimeout(30)
            sock, _ = lsock.accept()
            sock.settimeout(30)
            with sock:
                script(FakeServer(sock))
        except BaseException as e:  # reported by the test
            errors.append(e)
        finally:
            lsock.close()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return port, t, errors


def table(seats: int) -> P.TableInfo:
    opts = P.TableOptions(seats=seats, step_delay=0.0)
    return dataclasses.replace(TABLE, options=opts, seats=TABLE.seats[:seats])


def scripted_game(srv: FakeServer, *, join: str | None, bots: int) -> None:
    hello = srv.expect(P.Hello, protocol=1, kind="bot", token=None)
    srv.say(P.Welcome(protocol=1, server="fake", name=hello.name, token=TOKEN, resumed=False,
                      limits=LIMITS))
    n = bots + 1
    if join:
        srv.expect(P.Join, table_id=join, seat=None)
        srv.say(P.Seated(table=table(4), seat=2))
        me, n = 2, 4
    else:
        ct = srv.expect(P.CreateTable)
        assert ct.options.seats == n and ct.options.step_delay == 0.0
        srv.say(P.Seated(table=table(n), seat=0))
        me = 0
        for _ in range(bots):
            srv.expect(P.AddBot, strategy="hard", seat=None)
            srv.say(P.TableUpdated(table=table(n)))
        srv.expect(P.Start)
    other = (me + 1) % n
    srv.say(P.RoundStarted(round=1),
            P.HandDealt(cards=(5, 20, 33, 47, 55, 61, 72, 88, 90, 104)),
            P.RowsDealt(rows=((10,), (22,), (51,), (70,))),
            P.Ping(nonce=42))
    srv.expect(P.Pong, nonce=42)
    # turn 1: the bot's 5 fits nowhere: it must take the cheapest row (row 2: 51 = 1 bullhead)
    srv.say(P.TurnStarted(round=1, turn=1, deadline=DEADLINE, remaining=30.0),
            P.SeatCommitted(seat=other))
    srv.expect(P.Commit, round=1, turn=1, card=5)
    srv.say(P.CommitAccepted(round=1, turn=1, card=5), P.SeatCommitted(seat=me),
            P.Revealed(plays=((me, 5), (other, 31))),
            P.RowChoiceNeeded(seat=me, card=5, deadline=DEADLINE, remaining=20.0),
            P.RowChoiceRequest(round=1, turn=1, card=5, rows=(0, 1, 2, 3), deadline=DEADLINE,
                               remaining=20.0))
    srv.expect(P.ChooseRow, round=1, turn=1, row=2)
    srv.say(P.RowTaken(seat=me, row=2, cards=(51,), bullheads=1),
            P.Placed(seat=me, card=5, row=2, end="right"),
            P.Placed(seat=other, card=31, row=0, end="right"),
            # turn 2: next lowest card; a tie between two places
            P.TurnStarted(round=1, turn=2, deadline=DEADLINE, remaining=30.0))
    srv.expect(P.Commit, round=1, turn=2, card=20)
    places = (P.Place(row=1, end="left"), P.Place(row=3, end="left"))
    srv.say(P.Revealed(plays=((me, 20),)),
            P.TieChoiceRequest(round=1, turn=2, card=20, places=places, deadline=DEADLINE,
                               remaining=20.0))
    srv.expect(P.ChooseTie, round=1, turn=2, place=places[0])
    srv.say(P.Placed(seat=me, card=20, row=1, end="left"),
            P.DraftPickRequest(round=1, pick=3, pool=(9, 4, 77), deadline=DEADLINE,
                               remaining=15.0))
    srv.expect(P.DraftPick, round=1, pick=3, card=4)
    srv.say(P.TurnStarted(round=1, turn=3, deadline=DEADLINE, remaining=30.0))
    srv.expect(P.Commit, round=1, turn=3, card=33)  # 5 and 20 were played
    totals = (1,) + (0,) * (n - 1)
    srv.say(P.RoundScored(round=1, penalties=totals, totals=totals),
            P.GameOver(totals=totals, places=(2,) + (1,) * (n - 1),
                       winners=tuple(range(1, n))))
    srv.expect(P.Goodbye, reason="quit")
    assert srv.conn.state is P.ConnState.CLOSED


def run_against_fake(*args: str, join: str | None, bots: int) -> subprocess.CompletedProcess[str]:
    port, thread, errors = start_server(lambda s: scripted_game(s, join=join, bots=bots))
    proc = run_minimal_bot("127.0.0.1", port, *args, timeout=60)
    thread.join(30)
    if errors:
        raise errors[0]
    assert not thread.is_alive()
    assert proc.returncode == 0, proc.stderr
    assert "game_over" in proc.stdout
    return proc


def test_minimal_bot_creates_a_table_and_plays() -> None:
    run_against_fake(join=None, bots=3)


def test_minimal_bot_with_one_bot() -> None:
    run_against_fake("--bots", "1", join=None, bots=1)


def test_minimal_bot_joins_a_table() -> None:
    run_against_fake("--join", "t7", join="t7", bots=3)


def test_minimal_bot_imports_nothing_of_ours() -> None:
    src = BOT.read_text()
    imports = {line.split()[1].split(".")[0] for line in src.splitlines()
               if line.startswith(("import ", "from "))}
    assert imports <= {"socket", "struct", "sys", "msgpack"}, imports
    assert len(src.splitlines()) <= 90
