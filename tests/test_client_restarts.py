"""The client's ways back into a game, end to end against a real ``nimmt-server`` (a
child process on 127.0.0.1): two names playing from one home folder each get their
own seat back when their client is started again, a seat that cannot be taken back
is said with the server's reason, and a server stopped with SIGTERM during a game is
waited for (the client does not end) and the seat is back when it is started again.

Plain test functions calling ``asyncio.run`` (the client library is asyncio).
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import Application
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from real_server import ADDRESS, running_server

from nimmt import protocol as P
from nimmt.client import ClientConnection, TableModel
from nimmt.client.cli import open_session, parse_args
from nimmt.client.keep import TableKeeper
from nimmt.client.sessions import SessionStore
from nimmt.client.tui.app import run_tui
from nimmt.client.tui.controller import Controller

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM to a child")


async def pump(conn: ClientConnection, model: TableModel, done: Callable[[], bool],
               what: str, seconds: float = 15.0) -> None:
    """Apply the server's messages to ``model`` until ``done()``."""
    try:
        async with asyncio.timeout(seconds):
            while not done():
                model.apply(await conn.receive())
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what}; log: "
                             f"{[line.text for line in model.log][-5:]}") from None


async def start(argv: list[str]) -> tuple[ClientConnection, TableModel, Any]:
    """``nimmt-client ARGV``'s start: the saved session of its name, if any."""
    conn, plan, _, _ = await open_session(parse_args(argv))
    model = TableModel()
    for err in conn.handshake_errors:
        model.apply(err)
    assert conn.welcome is not None
    model.apply(conn.welcome)
    return conn, model, plan


async def ann_hosts(where: str) -> tuple[ClientConnection, TableModel, str]:
    """Ann's client started, at the seat 0 of the two-seat table it created: its
    connection, its model and the table's id."""
    ann, model, _ = await start([where, "--name", "Ann"])
    await ann.send(P.CreateTable(options=P.TableOptions(seats=2), name="Ann's table"))
    await pump(ann, model, lambda: model.seat == 0, "Ann's table")
    assert model.table is not None
    return ann, model, model.table.table_id


def test_two_names_from_one_home_folder_each_come_back_to_their_seat(home: Path) -> None:
    async def main() -> None:
        with running_server("--step-delay", "0") as port:
            where = f"127.0.0.1:{port}"
            ann, ann_model, table_id = await ann_hosts(where)
            bob, bob_model, _ = await start([where, "--name", "Bob"])
            await bob.send(P.Join(table_id=table_id))
            await pump(bob, bob_model, lambda: bob_model.seat == 1, "Bob's seat")
            await pump(ann, ann_model, lambda: ann_model.table is not None and all(
                ann_model.table.seats), "Bob at Ann's table")
            await ann.send(P.Start())
            for conn, model in ((ann, ann_model), (bob, bob_model)):
                await pump(conn, model, lambda m=model: m.phase == "commit" and
                           len(m.hand) == 10, "the first turn")
            ann_hand = list(ann_model.hand)

            await ann.close()  # Ann's client stops; Bob's goes on
            again, again_model, plan = await start([where, "--name", "Ann"])
            assert plan.resumed and again.welcome is not None and again.welcome.resumed
            await pump(again, again_model, lambda: again_model.phase == "commit",
                       "Ann's game again")
            assert again_model.table is not None and again_model.table.table_id == table_id
            assert again_model.seat == 0 and again_model.hand == ann_hand
            assert again_model.my_name == "Ann"

            assert not bob.closed and bob_model.seat == 1  # Bob was not disturbed
            await bob.send(P.Commit(round=1, turn=1, card=bob_model.hand[0]))
            await pump(bob, bob_model, lambda: bob_model.my_commit is not None,
                       "Bob's card accepted")
            store = SessionStore(home / ".local" / "state" / "nimmt")
            assert store.load("127.0.0.1", port, "Bob") == bob.token
            assert store.load("127.0.0.1", port, "Ann") == again.token != bob.token
            await again.close()
            await bob.close()

    asyncio.run(asyncio.wait_for(main(), 45))


def test_a_seat_that_cannot_be_taken_back_is_said_with_the_servers_reason(home: Path) -> None:
    async def main() -> None:
        with running_server("--step-delay", "0") as port:
            where = f"127.0.0.1:{port}"
            ann, model, table_id = await ann_hosts(where)
            state = home / ".local" / "state" / "nimmt"
            TableKeeper(state, "127.0.0.1", port, "Ann").save(model)  # as the client does
            await ann.close()
            SessionStore(state).save("127.0.0.1", port, "Ann", "tok_forgotten_0123456789")

            conn, plan, keeper, _ = await open_session(parse_args([where, "--name", "Ann"]))
            again = TableModel()
            keeper.restore(again)
            for err in conn.handshake_errors:
                again.apply(err)
            assert conn.welcome is not None
            again.apply(conn.welcome)
            Controller(again, conn, plan=plan).start()
            assert again.log[-1].text == (
                f"Your seat at table {table_id} “Ann's table” could not be kept: the server "
                "did not take the saved session back: unknown or expired session token: "
                "here is a new session (bad_token).")
            await conn.close()

    asyncio.run(asyncio.wait_for(main(), 30))


class ServerProcess:
    """``nimmt-server`` on one database, started and stopped (SIGTERM) by the test."""

    def __init__(self, db: Path, *args: str) -> None:
        self.db, self.args = db, args
        self.proc: subprocess.Popen[str] | None = None
        self.log = tempfile.TemporaryFile("w+", encoding="utf-8")
        self.logs = ""

    def start(self, port: int = 0) -> int | None:
        """The port it listens on; None if it could not listen there."""
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "nimmt.server", "--host", "127.0.0.1", "--port", str(port),
             "--log-level", "warning", "--db", str(self.db), *self.args],
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        assert self.proc.stdout is not None
        match = ADDRESS.search(self.proc.stdout.readline())
        if match is None:
            self.proc.wait(timeout=10)
            return None
        return int(match.group(1))

    def stop(self) -> None:
        """SIGTERM, as Ctrl-C or a service manager stops it."""
        if self.proc is None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def close(self) -> str:
        self.stop()
        self.log.seek(0)
        self.logs = self.log.read()
        self.log.close()
        return self.logs


async def until(pred: Callable[[], bool], what: str, seconds: float = 20.0) -> None:
    for _ in range(int(seconds / 0.02)):
        if pred():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


class ControllerBox:
    """The TUI's controller, once ``run_tui`` hands it over (``ready=box.keep``)."""

    def __init__(self) -> None:
        self.controller: Controller | None = None

    def keep(self, controller: Controller, app: Application[Any]) -> None:
        self.controller = controller


async def play_at_the_bots_table(box: ControllerBox) -> TableModel:
    """From the lobby, join the table of three bots the server opened: the game starts;
    its model once the hand is dealt."""
    await until(lambda: box.controller is not None and bool(box.controller.model.tables),
                "the lobby")
    assert box.controller is not None
    m = box.controller.model
    box.controller.send(P.Join(table_id=m.tables[0].table_id))  # the bots' table starts
    await until(lambda: m.phase == "commit" and len(m.hand) == 10, "a game")
    return m


def test_a_server_stopped_with_sigterm_mid_game_is_waited_for_and_the_seat_comes_back(
        tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "nimmt.db", "--bots", "3", "--bot-level", "easy",
                           "--step-delay", "0")
    box = ControllerBox()

    async def main() -> None:
        port = await asyncio.to_thread(server.start)
        assert port is not None
        conn = ClientConnection("127.0.0.1", port, "Ann")
        await conn.open()
        with create_pipe_input() as inp:
            task = asyncio.ensure_future(run_tui(conn, input=inp, output=DummyOutput(),
                                                 ready=box.keep))
            try:
                m = await play_at_the_bots_table(box)
                assert m.table is not None
                table_id, seat, hand = m.table.table_id, m.seat, list(m.hand)

                await asyncio.to_thread(server.stop)
                await until(lambda: not m.online, "the server's goodbye")
                assert m.server_stopped and not task.done() and m.goodbye is None
                assert m.log[-1].text == (
                    f"The server stopped; your game is kept. Once it is started again you are "
                    f"back at your seat: wait here, or quit with q and run nimmt-client "
                    f"127.0.0.1:{port} then.")
                await asyncio.sleep(0.5)  # a few attempts at a server that is not there
                assert not task.done() and not m.online

                again = await asyncio.to_thread(server.start, port)
                if again is None:  # the port was taken meanwhile: point the client there
                    again = await asyncio.to_thread(server.start)
                    assert again is not None
                    conn.port = again
                await until(lambda: m.online and m.phase == "commit" and not m.resyncing,
                            "the seat again")
                assert m.table is not None and m.table.table_id == table_id
                assert m.seat == seat and m.hand == hand and not m.server_stopped
                assert any(line.text.startswith(f"Reconnected: you are at table {table_id}")
                           for line in m.log)
            finally:
                if not task.done():
                    inp.send_text("\x03\x03")  # Ctrl-C twice: quit (even in a game)
                outcome = await asyncio.wait_for(task, 10)
            assert not outcome.error

    try:
        asyncio.run(asyncio.wait_for(main(), 50))
    finally:
        logs = server.close()
    assert "Traceback" not in logs, logs


def test_a_server_stopped_while_in_the_lobby_ends_the_client_saying_how_to_come_back(
        tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "nimmt.db")

    async def main() -> None:
        port = await asyncio.to_thread(server.start)
        assert port is not None
        conn = ClientConnection("127.0.0.1", port, "Ann")
        await conn.open()
        with create_pipe_input() as inp:
            task = asyncio.ensure_future(run_tui(conn, input=inp, output=DummyOutput()))
            await asyncio.sleep(0.2)
            await asyncio.to_thread(server.stop)
            outcome = await asyncio.wait_for(task, 10)
        assert not outcome.error
        assert outcome.message == (f"the server at 127.0.0.1:{port} stopped. Start it again "
                                   f"and run nimmt-client 127.0.0.1:{port} to come back.")

    try:
        asyncio.run(asyncio.wait_for(main(), 30))
    finally:
        logs = server.close()
    assert "Traceback" not in logs, logs


def test_a_server_without_a_database_stopped_mid_game_ends_the_game_at_once(
        tmp_path: Path) -> None:
    """``--db :memory:`` keeps nothing: its shutdown goodbye says so (``kept`` false),
    and the client ends saying the game is over instead of waiting for a restart."""
    server = ServerProcess(Path(":memory:"), "--bots", "3", "--bot-level", "easy",
                           "--step-delay", "0")
    box = ControllerBox()

    async def main() -> None:
        port = await asyncio.to_thread(server.start)
        assert port is not None
        conn = ClientConnection("127.0.0.1", port, "Ann")
        await conn.open()
        with create_pipe_input() as inp:
            task = asyncio.ensure_future(run_tui(conn, input=inp, output=DummyOutput(),
                                                 ready=box.keep))
            m = await play_at_the_bots_table(box)
            await asyncio.to_thread(server.stop)
            outcome = await asyncio.wait_for(task, 10)  # not waiting for a restart
        assert m.goodbye is not None and m.goodbye.kept is False and not m.server_stopped
        assert m.log[-1].text == ("The server stopped and keeps no games (it ran without a "
                                  "database): your game is over.")
        assert not outcome.error
        assert outcome.message == ("the server stopped and keeps no games (it ran without a "
                                   "database): your game is over.")

    try:
        asyncio.run(asyncio.wait_for(main(), 40))
    finally:
        logs = server.close()
    assert "Traceback" not in logs, logs
