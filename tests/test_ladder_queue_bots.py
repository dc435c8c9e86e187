"""Issue 27 item 3 from the bots' side: ``nimmt-bot --ladder`` queues, plays, and
queues again after each game until stopped; ladder bots of the SDK's code meet
each other at the tables the server forms."""

from __future__ import annotations

import asyncio
import logging
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nimmt import protocol as wire
from nimmt.bots import HeuristicStrategy
from nimmt.bots.runner import main as bot_main
from nimmt.bots.runner import play_bot
from nimmt.bots.session import LadderAsk
from real_server import running_server

QUICK = ["--rounds", "1", "--step-delay", "0", "--bot-level", "easy"]


def test_nimmt_bot_ladder_queues_again_after_each_game_until_stopped(tmp_path: Path) -> None:
    with running_server() as port:
        env = {**os.environ, "NIMMT_STATE_DIR": str(tmp_path)}
        bot = subprocess.Popen(
            [sys.executable, "-m", "nimmt.bots.runner", f"127.0.0.1:{port}", "--ladder",
             "--name", "Lad", "--seats", "2", "--fill-after", "0", *QUICK],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        try:
            assert bot.stderr is not None
            lines: list[str] = []
            deadline = time.monotonic() + 60
            while not any("game 2 over" in line for line in lines):
                assert time.monotonic() < deadline, lines
                line = bot.stderr.readline()
                assert line, f"nimmt-bot ended: {lines}"
                lines.append(line)
            bot.send_signal(signal.SIGTERM)
            assert bot.wait(timeout=20) == 143
        finally:
            if bot.poll() is None:
                bot.kill()
                bot.wait()
        games = [line for line in lines if " over at table " in line]
        assert [g.split(" over at table ")[0][-6:] for g in games] == ["game 1", "game 2"]
        tables = [g.split(" over at table ")[1].split(":")[0] for g in games]
        assert tables[0] != tables[1]  # a new table from the queue for each game
        assert "claimed" not in bot.stderr.read()  # its name was claimed for it, no refusal


def test_nimmt_bot_ladder_plays_its_games_and_says_how_long_it_queued(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("NIMMT_STATE_DIR", str(tmp_path))
    with running_server() as port:
        address = f"127.0.0.1:{port}"
        args = [address, "--ladder", "--name", "Lad", "--seats", "3", "--fill-after", "0",
                "--games", "2", *QUICK]
        with caplog.at_level(logging.WARNING, logger="nimmt.bots"):
            assert bot_main(args) == 0
        out = capsys.readouterr().out.splitlines()
        games = [line for line in out if line.startswith("game ")]
        assert [g.split(":")[0] for g in games] == ["game 1", "game 2"]
        assert all(re.fullmatch(r"game \d: place [123], totals \[.*\], rating -?\d+\.\d\d", g)
                   for g in games), games
        assert f"the leaderboard: nimmt-client {address}, then R in the lobby" in "\n".join(out)
        assert any(line.startswith("queued 2 time(s)") for line in out)
        # each game's end is said as it comes, with the rating it left, the last one too
        over = [r.getMessage() for r in caplog.records if " over at table " in r.getMessage()]
        assert [o.split(" over at table ")[0] for o in over] == ["Lad: game 1", "Lad: game 2"]
        assert over[0].endswith("; queueing again") and "rating" in over[0]
        assert re.search(r"place \d of 3, rating -?\d+\.\d\d$", over[1]), over
        # --ladder leaves the table to the server
        with pytest.raises(SystemExit):
            bot_main([address, "--ladder", "--create"])
        assert "--ladder" in capsys.readouterr().err


def test_two_ladder_bots_meet_at_each_table_the_queue_forms() -> None:
    options = wire.TableOptions(rounds=1, point_limit=None, step_delay=0.0)
    ask = LadderAsk(seats=2, options=options, fill_after=None)

    async def both() -> list:
        return await asyncio.gather(*(
            play_bot("127.0.0.1", port, HeuristicStrategy(), name=name, games=2,
                     key=f"{name}-key-" + "x" * 30, ladder=ask) for name in ("Uno", "Dos")))

    with running_server() as port:
        uno, dos = asyncio.run(asyncio.wait_for(both(), timeout=60))
    assert uno.games == dos.games == 2 and uno.errors == dos.errors == []
    assert uno.tables == dos.tables and len(set(uno.tables)) == 2  # no bots: each other
    assert len(uno.queue_waits) == len(dos.queue_waits) == 2


def test_a_name_queued_from_another_connection_queues_again_once_it_may(monkeypatch) -> None:
    monkeypatch.setattr("nimmt.bots.session._QUEUE_AGAIN", 0.05)
    options = wire.TableOptions(rounds=1, point_limit=None, step_delay=0.0)
    ask = LadderAsk(seats=2, options=options, fill_after=None)
    twin_key = "twin-key-" + "x" * 30

    async def three() -> list:
        def bot(name: str, key: str, games: int):  # noqa: ANN202
            return play_bot("127.0.0.1", port, HeuristicStrategy(), name=name, games=games,
                            key=key, ladder=ask)
        async def later() -> object:  # once both Twins have asked
            await asyncio.sleep(1.0)
            return await bot("Other", "other-key-" + "x" * 30, 2)
        return await asyncio.gather(bot("Twin", twin_key, 1), bot("Twin", twin_key, 1), later())

    with running_server() as port:
        first, second, other = asyncio.run(asyncio.wait_for(three(), timeout=60))
    # one Twin waited while the other was queued, then queued again and played
    assert first.games == second.games == 1 and other.games == 2
    refusals = [e for e in first.errors + second.errors if "waits in the queue" in e]
    assert refusals and first.stopped is None and second.stopped is None
