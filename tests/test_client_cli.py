"""nimmt-client's command line, and --solo against the real server in a subprocess."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from nimmt import protocol as P
from nimmt.client import ClientConnection
from nimmt.client.cli import main, parse_address, parse_args
from nimmt.client.solo import SoloServer, free_port
from nimmt.client.tui.app import run_tui
from nimmt.client.tui.controller import Controller, StartPlan


@pytest.fixture(autouse=True)
def _state_dir(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Saved sessions go to a temporary directory, never the real home."""
    monkeypatch.setenv("NIMMT_STATE_DIR", str(tmp_path / "state"))


@pytest.mark.parametrize(("text", "expected"), [
    ("192.168.1.20", ("192.168.1.20", 6066)),
    ("192.168.1.20:7000", ("192.168.1.20", 7000)),
    ("box.lan", ("box.lan", 6066)),
    (":7000", ("localhost", 7000)),
    ("[::1]:7000", ("::1", 7000)),
    ("[fe80::1]", ("fe80::1", 6066)),
])
def test_addresses(text: str, expected: tuple[str, int]) -> None:
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["host:0", "host:70000", "host:x", "[::1", "[::1]7000"])
def test_bad_addresses_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_address(text)


def test_defaults_and_option_errors(capsys: pytest.CaptureFixture[str]) -> None:
    args = parse_args([])
    assert (args.host, args.port) == ("localhost", 6066)
    assert 1 <= len(args.name) <= 32 and args.solo is None
    assert parse_args(["--solo"]).solo == 3
    assert parse_args(["--solo", "5", "--name", "Zoé"]).solo == 5
    with pytest.raises(SystemExit) as info:
        parse_args(["--solo", "12"])
    assert info.value.code == 2
    with pytest.raises(SystemExit):
        parse_args(["--join", "t1", "--watch", "t2"])
    with pytest.raises(SystemExit):
        parse_args(["host:99999"])
    assert "not a port number" in capsys.readouterr().err


def test_the_solo_clock_and_replay_options_say_what_goes_with_what(
        capsys: pytest.CaptureFixture[str]) -> None:
    args = parse_args(["--solo"])
    assert args.turn_time is None and args.time_bank == 0.0  # untimed, no bank
    args = parse_args(["--solo", "--turn-time", "45", "--time-bank", "60"])
    assert (args.turn_time, args.time_bank) == (45.0, 60.0)
    assert parse_args(["--replay", "7", "--db", "x.db"]).db == "x.db"
    assert parse_args(["--db", "x.db"]).db == "x.db"  # the lobby's history (H) lists it
    for wrong, said in ((["--turn-time", "30"], "are for --solo"),
                        (["--solo", "--turn-time", "0"], "seconds from 1 to 3600"),
                        (["--replay", "a.json", "--solo"], "not allowed with")):
        with pytest.raises(SystemExit) as info:
            parse_args(wrong)
        assert info.value.code == 2 and said in capsys.readouterr().err
    assert parse_args(["--replay", "7"]).db == ""  # the server's default database
    assert main(["--replay", "/nonexistent/game.json"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("nimmt-client: cannot replay /nonexistent/game.json: ")
    assert err.count("\n") == 1


def test_no_server_is_one_clear_line_and_exit_code_1(capsys: pytest.CaptureFixture[str]) -> None:
    port = free_port()
    assert main([f"127.0.0.1:{port}", "--name", "Ann"]) == 1
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == (f"nimmt-client: no nimmt server at 127.0.0.1:{port} — is nimmt-server "
                       "running there? start one with: nimmt-server\n")


def test_python_m_nimmt_client_runs_the_cli() -> None:
    port = free_port()
    proc = subprocess.run([sys.executable, "-m", "nimmt.client", f"127.0.0.1:{port}"],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 1
    assert "no nimmt server at" in proc.stderr and "Traceback" not in proc.stderr


def test_solo_server_starts_deals_to_us_and_stops() -> None:
    async def main_() -> None:
        solo = SoloServer(1, level="easy", extra_args=["--step-delay", "0", "--log-level",
                                                       "warning"])
        command = solo.command
        at = command.index("--bot-level")
        assert command[at:at + 2] == ["--bot-level", "easy"]  # what --solo --level passes
        at = command.index("--turn-time")  # untimed unless --turn-time says otherwise
        assert command[at:at + 6] == ["--turn-time", "3600", "--choice-time", "3600",
                                      "--draft-time", "3600"]
        assert "--time-bank" not in command
        timed = SoloServer(1, turn_time=45.0, time_bank=60.0).command
        assert timed[timed.index("--turn-time") + 1] == "45"
        assert timed[timed.index("--time-bank") + 1] == "60"
        await solo.start()
        try:
            conn = await solo.connect("Ann")
            got = await play_first_turn(conn)
            assert got["seated"].seat in (0, 1)
            assert [s.strategy for s in got["seated"].table.seats if s and s.kind == "bot"] \
                == ["easy"]
            assert got["accepted"].card == min(got["hand"].cards)
            await conn.close()
        finally:
            await solo.stop()
        assert solo.process is not None and solo.process.poll() is not None
        with pytest.raises(ConnectionRefusedError):
            await asyncio.open_connection("127.0.0.1", solo.port)
    asyncio.run(asyncio.wait_for(main_(), 30))


async def play_first_turn(conn: ClientConnection) -> dict[str, Any]:
    """List the tables, join the bot table (it starts by itself), commit the lowest card."""
    got: dict[str, Any] = {}
    await conn.send(P.ListTables())
    async for msg in conn:
        if isinstance(msg, P.TableList):
            free = [t for t in msg.tables if None in t.seats]
            await conn.send(P.Join(table_id=free[0].table_id))
        elif isinstance(msg, P.Seated):
            got["seated"] = msg
        elif isinstance(msg, P.HandDealt):
            got["hand"] = msg
        elif isinstance(msg, P.TurnStarted):
            await conn.send(P.Commit(round=msg.round, turn=msg.turn, card=min(got["hand"].cards)))
        elif isinstance(msg, P.CommitAccepted):
            got["accepted"] = msg
            return got
    raise AssertionError("the connection ended early")


def test_solo_end_to_end_keys_play_a_turn_on_the_real_server() -> None:
    async def main_() -> None:
        solo = SoloServer(2, level="easy", extra_args=["--step-delay", "0", "--log-level", "warning"])
        await solo.start()
        try:
            conn = await solo.connect("Ann")
            with create_pipe_input() as inp:
                box: dict[str, Controller] = {}
                task = asyncio.ensure_future(run_tui(
                    conn, plan=StartPlan(solo=True), input=inp, output=DummyOutput(),
                    ready=lambda c, app: box.setdefault("c", c)))
                try:
                    await until(lambda: "c" in box and box["c"].model.phase == "commit")
                    m = box["c"].model
                    lowest = m.hand[0]
                    inp.send_text("\r")  # the cursor starts on the lowest card
                    await until(lambda: any(line.text.startswith("Turn 1:") for line in m.log))
                    assert lowest not in m.hand and len(m.hand) == 9
                    assert any(f"Your {lowest} " in line.text for line in m.log)
                finally:
                    inp.send_text("\x03\x03")  # Ctrl-C asks in a game: twice
                    outcome = await asyncio.wait_for(task, 5)
            assert not outcome.error and conn.closed
        finally:
            await solo.stop()
    asyncio.run(asyncio.wait_for(main_(), 30))


async def until(pred: Any, seconds: float = 10.0) -> None:
    for _ in range(int(seconds / 0.01)):
        if pred():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("timed out")


class CuttableProxy:
    """A TCP relay to ``target`` whose connections the test can cut (a network drop)."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.writers: list[asyncio.StreamWriter] = []
        self.tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _handle(self, r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        ur, uw = await asyncio.open_connection("127.0.0.1", self.target)
        self.writers += [w, uw]
        pumps = [asyncio.ensure_future(self._pump(r, uw)), asyncio.ensure_future(self._pump(ur, w))]
        self.tasks.update(pumps)
        await asyncio.gather(*pumps, return_exceptions=True)

    async def _pump(self, r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        try:
            while data := await r.read(65536):
                w.write(data)
                await w.drain()
        finally:
            w.close()

    def cut(self) -> None:
        for w in self.writers:
            w.close()
        self.writers.clear()

    async def stop(self) -> None:
        self.cut()
        self.server.close()
        await self.server.wait_closed()
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


def test_a_network_drop_mid_game_is_resumed_on_the_real_server() -> None:
    """Commit, lose the network, come back: the real server's snapshot rebuilds the model
    and play goes on (a row choice pending across the drop is answered after it)."""
    from nimmt.client import COMMIT, LinkRestored, SendFailed, TableModel

    async def main_() -> None:
        solo = SoloServer(1, extra_args=["--step-delay", "0", "--log-level", "warning",
                                               "--bot-level", "easy"])
        await solo.start()
        proxy = CuttableProxy(solo.port)
        try:
            await (await solo.connect("probe")).close()  # the server is up
            conn = ClientConnection("127.0.0.1", await proxy.start(), "Ann")
            await conn.open()
            model = TableModel()
            model.apply(conn.welcome)  # type: ignore[arg-type]
            await conn.send(P.ListTables())
            seen: list[str] = []
            answered: set[tuple[str, int, int]] = set()
            first_card = 0
            async for msg in conn.events():
                model.apply(msg)
                seen.append(type(msg).__name__)
                if isinstance(msg, LinkRestored):
                    answered.clear()  # what we sent as the link died may be lost
                    assert model.decision is None  # until the snapshot puts us back
                if isinstance(msg, P.TableList) and model.table is None:
                    free = [t for t in msg.tables if None in t.seats]
                    await conn.send(P.Join(table_id=free[0].table_id))
                d = model.decision
                if d is not None and (d.kind, d.round, d.turn) not in answered:
                    answered.add((d.kind, d.round, d.turn))
                    first_card = first_card or d.cards[0] if d.kind == COMMIT else first_card
                    choice = d.cards[0] if d.kind == COMMIT else min(d.rows, key=model.row_cost)
                    try:
                        await conn.send(d.answer(choice))
                    except SendFailed:
                        pass  # the link is down: the next messages say what happened
                if isinstance(msg, P.CommitAccepted) and "LinkLost" not in seen:
                    proxy.cut()  # the network goes away after our first commit
                if isinstance(msg, P.CommitAccepted) and "Snapshot" in seen:
                    break  # playing on after the drop
            after = seen[seen.index("LinkLost"):]
            assert after[:4] == ["LinkLost", "LinkRestored", "Seated", "Snapshot"]
            assert model.online and model.seat == 0 and model.round == 1
            assert first_card not in model.hand  # it was played, seen through the snapshot
            assert len(model.rows) == 4 and model.turn >= 2
            await conn.close()
        finally:
            await proxy.stop()
            await solo.stop()
    asyncio.run(asyncio.wait_for(main_(), 30))


def test_the_history_of_a_database_that_is_not_there_says_so(tmp_path) -> None:
    from nimmt.client.history import HistoryError, load_history

    with pytest.raises(HistoryError) as info:
        load_history(str(tmp_path / "none.db"))
    assert f"there is no database at {tmp_path / 'none.db'}" in str(info.value)


def test_a_replay_by_game_id_alone_reads_the_server_s_default_database(
        tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert main(["--replay", "7"]) == 1  # as nimmt-replay spectator 7 would: none there yet
    err = capsys.readouterr().err
    assert err.startswith(f"nimmt-client: cannot replay 7: nimmt-replay: there is no database "
                          f"at {tmp_path / 'nimmt' / 'nimmt.db'} (the server's default "
                          "database"), err


def test_a_replay_from_a_seat_is_asked_for_with_seat_n_counted_from_1(
        capsys: pytest.CaptureFixture[str]) -> None:
    from nimmt.client.replay import replay_command

    assert parse_args(["--replay", "g.json", "--seat", "2"]).seat == 2
    assert replay_command("g.json", None, "python", seat=1)[-2:] == ["--seat", "1"]
    for wrong in (["--seat", "2"], ["--replay", "g.json", "--seat", "0"]):
        with pytest.raises(SystemExit) as info:
            parse_args(wrong)
        assert info.value.code == 2 and "--seat N goes with --replay" in capsys.readouterr().err


def test_load_replay_from_a_seat_runs_the_spectator_command_seated_with_its_hands(
        tmp_path) -> None:
    from storage_helpers import play_game

    from nimmt.client.replay import load_replay
    from nimmt.engine import Options, record_from_game

    game, _ = play_game(Options(players=2, rounds=1), 3)
    path = tmp_path / "game.json"
    record = record_from_game(game, seats=["Ann", "Bob"])
    path.write_text(record.to_json())
    messages = load_replay(str(path), seat=1)
    assert isinstance(messages[0], P.Seated) and messages[0].seat == 1
    hands = [sorted(m.cards) for m in messages if isinstance(m, P.HandDealt)]
    assert hands == [sorted(record.rounds[0].hands[1])]  # type: ignore[index]
    assert not any(isinstance(m, P.HandDealt) for m in load_replay(str(path)))
