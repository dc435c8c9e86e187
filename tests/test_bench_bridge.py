"""A bridge that never lies and never stalls a table (issue 24, item 3), each point
performed against a real server on 127.0.0.1: a server stopped and restarted with its
database, a program that never starts, a doubled answer, a garbage answer decided at
once, a table nobody starts, a reset during the reconnecting hello; and the answer
margin pinned with a real program."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import trio

from nimmt import protocol as wire
from nimmt.bots.bridge import MARGIN, ProgramPlayer, question
from nimmt.bots.players import Ask
from nimmt.bots.runner import main, play_bot
from nimmt.client import net
from nimmt.client.net import SendFailed, connect
from nimmt.engine import Commit, Game, Options
from bot_proxy import DropProxy
from real_server import running_server
from test_bots_network import _start_server

FAST = wire.TableOptions(seats=4, rounds=1, point_limit=None, step_delay=0.0, turn_time=30.0,
                         choice_time=30.0)

#: Answers each question as told by argv[1]: "double" writes every answer twice in one
#: write; "double_id" writes it twice, echoing the question's id; "stale_id" first
#: writes an answer echoing another question's id; "garbage" writes
#: "garbage:PATH" writes garbage on its first question ever (PATH marks it done); "sleep:S" answers after S seconds.
PROGRAM = textwrap.dedent("""
    import json, sys, time
    mode = sys.argv[1]
    first = True
    for line in sys.stdin:
        q = json.loads(line)
        key = "row" if q["ask"] in ("row", "tie") else "card"
        choice = q["legal"][0]
        answer = {key: choice["row"] if isinstance(choice, dict) else choice}
        if mode.startswith("garbage:") and first:  # once only: the file says it was done
            first = False
            try:
                open(mode[8:], "x").close()
                print("<html>", flush=True)
                continue
            except FileExistsError:
                pass
        if mode.startswith("sleep:"):
            time.sleep(float(mode[6:]))
        if mode == "stale_id":
            print(json.dumps({**answer, "id": q["id"] - 1}), flush=True)
        if mode == "double":  # two lines in one write: both there before the next question
            sys.stdout.write(json.dumps(answer) + "\\n" + json.dumps(answer) + "\\n")
            sys.stdout.flush()
            continue
        echo = mode in ("stale_id", "double_id")
        print(json.dumps({**answer, "id": q["id"]} if echo else answer), flush=True)
        if mode == "double_id":  # the spare line says which question it answers
            print(json.dumps({**answer, "id": q["id"]}), flush=True)
""")


def _command(tmp_path: Path, mode: str) -> str:
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    return f"{sys.executable} {script} {mode}"


def _play(port: int, player, **options):
    async def run():
        if isinstance(player, ProgramPlayer):
            await player.start()
        try:
            return await asyncio.wait_for(play_bot("127.0.0.1", port, player, name="Prog",
                                                   **options), 40)
        finally:
            if isinstance(player, ProgramPlayer):
                await player.aclose()
    return asyncio.run(run())


# --- a server stopped with SIGTERM and started again on its database ------------------------


def test_a_bot_waits_for_a_server_that_shut_down_and_resumes_its_seat(tmp_path, caplog) -> None:
    db = str(tmp_path / "nimmt.db")
    servers = [_start_server(0, "--db", db)]
    port = servers[0][1]

    def decide(view):  # the first decision: the server is stopped (SIGTERM), then restarted
        if len(servers) == 1:
            servers[0][0].terminate()
            servers[0][0].wait(timeout=20)
            servers.append(_start_server(port, "--db", db))
        return view.legal[0]

    try:
        with caplog.at_level(logging.WARNING, logger="nimmt.bots"):
            result = _play(port, decide, create=FAST, add_bots=3, bot_level="easy",
                           reconnect_for=30.0)
    finally:
        for server, _ in servers:
            server.kill()
            server.wait()
    assert len(servers) == 2 and servers[0][0].returncode == 0  # stopped cleanly, not killed
    assert "the server is shutting down" in caplog.text
    assert "trying to reconnect for up to 30 s" in caplog.text  # the limit, said
    # The same session, the same seat, the same game, played to its end.
    assert result.stopped is None and result.games == 1
    assert result.reconnects == 1 and result.rejoins == 0
    assert not any(e.startswith("bad_token") for e in result.errors)


def test_a_bot_told_not_to_wait_stops_when_the_server_shuts_down(tmp_path) -> None:
    server, port = _start_server(0)

    def decide(view):
        server.terminate()
        server.wait(timeout=20)
        return view.legal[0]

    try:
        result = _play(port, decide, create=FAST, add_bots=3, bot_level="easy", reconnect_for=0)
    finally:
        server.kill()
        server.wait()
    assert result.games == 0 and result.stopped is not None
    assert "the server is shutting down" in result.stopped and "not waiting" in result.stopped


# --- a program that never answers ---------------------------------------------------------


def test_a_program_that_never_starts_fails_the_bot_with_a_summary(tmp_path, capsys,
                                                                  caplog) -> None:
    missing = tmp_path / "no_such_file.py"
    with running_server() as port, caplog.at_level(logging.WARNING, logger="nimmt.bots"):
        code = main([f"127.0.0.1:{port}", "--exec", f"{sys.executable} {missing}", "--create",
                     "--add-bots", "3", "--bot-level", "easy", "--rounds", "3",
                     "--turn-time", "1", "--step-delay", "0"])
    out, err = capsys.readouterr()
    assert code == 1 and "game 1" not in out  # no result that the program never played
    assert "failed 10 times in a row" in err and "giving up" in err
    # (how many questions were asked depends on timing: a failure may come between
    # questions, or just before a deadline too near to ask, as a loaded machine times it)
    assert re.search(r"answered 0 of \d+ questions; 10 failures:", err), err
    assert "never answered" in err
    assert " x died" in err
    # Questions asked while it was being restarted counted as failures too.
    assert " x was not running when asked" in err
    # The last failure's line says it gives up, and says nothing of a restart.
    last = [r.message for r in caplog.records if "failure 10 in a row" in r.message]
    assert len(last) == 1 and "giving up" in last[0] and "Restarting" not in last[0]


# --- a line that answers no open question ---------------------------------------------------


@pytest.mark.parametrize("mode", ["double", "double_id", "stale_id"])
def test_a_spare_answer_is_dropped_not_taken_for_the_next_question(tmp_path, caplog, mode) -> None:
    player = ProgramPlayer(_command(tmp_path, mode))
    with running_server() as port, caplog.at_level(logging.WARNING, logger="nimmt.bots"):
        result = _play(port, player, create=FAST, add_bots=3, bot_level="easy")
    assert result.games == 1 and result.errors == []
    # Every question got the program's own answer to it: no fault, nothing refused.
    assert player.faults == [] and player.answered == player.asked >= 10
    assert len(player.dropped) >= 9  # a spare line for (nearly) every answer
    assert "answers no open question" in caplog.text
    if mode == "stale_id":  # written after the question: told apart by its id
        assert "its id is" in caplog.text


# --- a garbage answer is decided at once -----------------------------------------------------


def test_a_garbage_answer_is_decided_at_once_not_at_the_deadline(tmp_path, caplog) -> None:
    player = ProgramPlayer(_command(tmp_path, f"garbage:{tmp_path / 'done'}"))
    start = time.monotonic()
    with running_server() as port, caplog.at_level(logging.WARNING, logger="nimmt.bots"):
        result = _play(port, player, create=FAST, add_bots=3, bot_level="easy")
    took = time.monotonic() - start
    assert result.games == 1 and result.errors == []
    assert len(player.faults) == 1 and player.faults[0].startswith("wrote garbage")
    assert "decided at once with its fallback" in caplog.text
    # Every deadline was 30 s: a seat that waited for one would still be playing.
    assert took < 20, took


# --- a table nobody starts -------------------------------------------------------------------


def test_a_bot_at_a_table_nobody_starts_says_so_then_finds_a_game(caplog) -> None:
    async def run(port: int):
        host = await connect("127.0.0.1", port, "Idle", "human")
        await host.send(wire.CreateTable(options=FAST, name="never starts"))
        async for message in host.events():
            if isinstance(message, wire.Seated):
                break  # the table is there

        async def listen():  # the host answers pings and does nothing else
            async for _ in host.events():
                pass
        listening = asyncio.create_task(listen())
        try:
            return await asyncio.wait_for(
                play_bot("127.0.0.1", port, _lowest, name="Finder",
                         new_table=FAST, bot_level="easy", table_wait=1.0), 30)
        finally:
            listening.cancel()
            await host.close()

    with running_server() as port, caplog.at_level(logging.WARNING, logger="nimmt.bots"):
        result = asyncio.run(run(port))
    assert "waiting for 2 more players or its host (Idle) to start it" in caplog.text
    assert "nobody started table" in caplog.text
    assert result.games == 1 and result.stopped is None  # at a table of its own


def test_a_host_whose_table_does_not_fill_adds_bots_and_starts(caplog) -> None:
    three = dataclasses.replace(FAST, seats=3)
    with running_server() as port, caplog.at_level(logging.WARNING, logger="nimmt.bots"):
        result = _play(port, _lowest, create=three, add_bots=1, bot_level="easy", table_wait=1.0)
    assert "waiting for 1 more player or the table to fill" in caplog.text
    assert "did not fill in 1 s: adding 1 built-in bot(s) (easy) and starting" in caplog.text
    assert result.games == 1


def test_more_added_bots_than_free_seats_is_one_clear_error(capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["127.0.0.1:1", "--create", "--add-bots", "9"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--add-bots 9: a 4-seat table has 3 seat(s) besides the bot's" in err
    assert err.count("error:") == 1 and "Traceback" not in err


def test_the_created_tables_options_come_from_the_command_line() -> None:
    from nimmt.bots.runner import _parser, _table_options

    parser = _parser()
    args = parser.parse_args(["--create", "--choice-time", "3", "--point-limit", "30",
                              "--bot-level", "normal"])
    table = _table_options(parser, args)
    assert table.choice_time == 3.0 and table.point_limit == 30 and table.rounds is None
    with pytest.raises(SystemExit):
        _table_options(parser, parser.parse_args(["--bot-level", "genius"]))


# --- the signal that stops nimmt-bot --------------------------------------------------------


def test_sigterm_stops_nimmt_bot_and_its_program(tmp_path) -> None:
    script = tmp_path / "tell.py"
    script.write_text(textwrap.dedent("""
        import json, os, sys
        for line in sys.stdin:
            q = json.loads(line)
            print(f"asked pid={os.getpid()}", file=sys.stderr, flush=True)
            c = q["legal"][0]
            key = "row" if q["ask"] in ("row", "tie") else "card"
            print(json.dumps({key: c["row"] if isinstance(c, dict) else c}), flush=True)
    """))
    with running_server() as port:
        bot = subprocess.Popen(
            [sys.executable, "-m", "nimmt.bots.runner", f"127.0.0.1:{port}", "--exec",
             f"{sys.executable} {script}", "--create", "--add-bots", "3", "--bot-level", "easy",
             "--step-delay", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            asked = bot.stderr.readline()  # the program's own stderr passes through
            program = int(re.search(r"asked pid=(\d+)", asked)[1])
            bot.send_signal(signal.SIGTERM)
            _, err = bot.communicate(timeout=20)
        finally:
            bot.kill()
            bot.wait()
    assert bot.returncode == 143 and "nimmt-bot: stopped by SIGTERM" in err
    assert "Traceback" not in err
    with pytest.raises(ProcessLookupError):
        os.kill(program, 0)  # the program was stopped too


# --- a reset during the reconnecting hello ------------------------------------------------


class ResettingProxy(DropProxy):
    """Cuts the first connection at its first commit, then resets (RST) the next
    ``resets`` connections as soon as they are accepted."""

    def __init__(self, server_port: int, resets: int) -> None:
        super().__init__(server_port)
        self.resets = resets

    async def _handle(self, bot: trio.SocketStream) -> None:
        if 1 <= self._connections <= self.resets:
            self._connections += 1
            bot.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            bot.socket.close()
            return
        await super()._handle(bot)


def test_connections_reset_while_reconnecting_keep_the_bot_in_its_reconnect_loop() -> None:
    with running_server() as server_port, ResettingProxy(server_port, resets=4) as proxy:
        result = _play(proxy.port, _lowest, create=FAST, add_bots=3, bot_level="easy")
    assert proxy.dropped is not None and proxy._connections >= 6  # 1 cut, 4 reset, 1 good
    assert result.games == 1 and result.stopped is None


def test_a_reset_while_writing_the_hello_is_retried(monkeypatch) -> None:
    """The exact failure seen: the hello's write fails ("Connection lost", errno 104)."""
    calls = []
    real = net.ClientConnection._handshake

    async def flaky(self):
        calls.append(1)
        if len(calls) <= 2:
            raise SendFailed("the connection is down ([Errno 104] Connection reset by peer)")
        return await real(self)

    async def run(port: int):
        conn = await connect("127.0.0.1", port, "Ann", "bot")
        monkeypatch.setattr(net.ClientConnection, "_handshake", flaky)
        welcome = await conn.reconnect(within=10)
        await conn.close()
        return welcome

    with running_server() as port:
        welcome = asyncio.run(run(port))
    assert welcome.resumed and len(calls) == 3


# --- the answer margin, and the history in a question ----------------------------------------


def test_an_answer_inside_the_margin_is_late_and_the_fallback_decides(tmp_path) -> None:
    assert MARGIN == 0.2  # the documented margin (docs/BOTS.md)
    view = Game(Options(players=3), seed=2).view(1)

    async def ask(sleep: float) -> tuple[object, ProgramPlayer]:
        player = ProgramPlayer(_command(tmp_path, f"sleep:{sleep}"))
        await player.start()
        try:
            decision = await player.decide(Ask(view, time.monotonic() + 3.0))
        finally:
            await player.aclose()
        return decision, player

    # 2.9 s of 3: before the deadline, but inside its last 0.2 s: late.
    decision, player = asyncio.run(ask(2.9))
    assert player.answered == 0 and player.faults[0].startswith("answered late")
    assert decision == player.fallback.decide(view) != Commit(1, view.hand[0])
    # 0.5 s: in time; the program's own answer (its lowest card).
    decision, player = asyncio.run(ask(0.5))
    assert player.faults == [] and decision == Commit(1, view.hand[0])


def test_a_question_says_who_played_which_card_this_round() -> None:
    view = view_mid_round()
    q = question(Ask(view, None), 7)
    assert q["id"] == 7 and view.plays
    assert q["plays"] == [list(p) for p in view.plays]


def _lowest(view):
    return view.legal[0]


def view_mid_round():
    """Seat 0's view at its third commit of a round: two turns were played."""
    from nimmt.bots import HeuristicStrategy

    game, bot = Game(Options(players=3), seed=5), HeuristicStrategy()
    while not (game.view(0).turn == 3 and game.view(0).legal):
        seat = sorted(game.pending.seats)[0]
        game.apply(bot.decide(game.view(seat)))
    return game.view(0)
