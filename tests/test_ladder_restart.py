"""Issue 27's queue lives in memory: after a server restart the ladder bots
(``nimmt-bot --ladder``, the SDK's ``play(..., ladder=True)``; both are
``bots.session.BotSession``) reconnect and queue again, and keep playing."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from nimmt.bots.sdk import play_async
from nimmt.engine import Phase
from real_server import ADDRESS


def lowest(view):  # noqa: ANN001, ANN201 - the SDK's decide(view)
    if view.phase is Phase.ROW_CHOICE or view.phase is Phase.TIE_CHOICE:
        return view.legal[0]
    return min(view.hand)


def start_server(db: Path, port: int = 0) -> tuple[subprocess.Popen, int]:
    server = subprocess.Popen(
        [sys.executable, "-m", "nimmt.server", "--host", "127.0.0.1", "--port", str(port),
         "--log-level", "warning", "--db", str(db), "--step-delay", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert server.stdout is not None
    match = ADDRESS.search(server.stdout.readline())
    assert match, "the server did not say where it listens"
    return server, int(match.group(1))


@pytest.mark.parametrize("stop", ["kill", "terminate"])
def test_a_ladder_bot_waiting_in_the_queue_queues_again_after_a_server_restart(
        stop: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("NIMMT_STATE_DIR", str(tmp_path / "state"))
    db = tmp_path / "nimmt.db"
    servers = [start_server(db)]
    port = servers[0][1]

    def ladder_bot(name: str):  # noqa: ANN202
        return play_async(lowest, f"127.0.0.1:{port}", name=name, ladder=True, seats=2,
                          rounds=1, fill_after=None, games=1)

    async def scenario() -> tuple:
        uno = asyncio.create_task(ladder_bot("Uno"))
        while "Uno: queued for 2 seats" not in caplog.text:  # Uno waits for a partner
            assert not uno.done(), uno.result()
            await asyncio.sleep(0.05)
        first = servers[0][0]  # killed or shut down: the queue (in memory) goes with it
        getattr(first, stop)()
        await asyncio.to_thread(first.wait)
        servers.append(await asyncio.to_thread(start_server, db, port))
        while caplog.text.count("Uno: queued for 2 seats") < 2:  # Uno queued again
            assert not uno.done(), uno.result()
            await asyncio.sleep(0.05)
        dos = await ladder_bot("Dos")  # the partner Uno waits for on the new server
        return await uno, dos

    try:
        with caplog.at_level(logging.INFO, logger="nimmt.bots"):
            uno, dos = asyncio.run(asyncio.wait_for(scenario(), timeout=60))
    finally:
        for server, _ in servers:
            server.kill()
            server.wait()
    assert uno.games == dos.games == 1 and uno.stopped is None
    assert uno.tables == dos.tables  # they met at the table the new server formed
    assert len(uno.queue_waits) == 1  # one wait, counted from its queue on the new server


def test_a_ladder_bot_mid_game_when_the_server_restarts_finishes_it_and_queues_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NIMMT_STATE_DIR", str(tmp_path / "state"))
    db = tmp_path / "nimmt.db"
    servers = [start_server(db)]
    port = servers[0][1]

    def decide(view):  # noqa: ANN001, ANN202 - its first decision: the server dies, comes back
        if len(servers) == 1:
            servers[0][0].kill()
            servers[0][0].wait()
            servers.append(start_server(db, port))
        return lowest(view)

    try:
        result = asyncio.run(asyncio.wait_for(
            play_async(decide, f"127.0.0.1:{port}", name="Phoenix", ladder=True, seats=2,
                       rounds=1, fill_after=0.0, bot_level="easy", games=2), timeout=60))
    finally:
        for server, _ in servers:
            server.kill()
            server.wait()
    assert len(servers) == 2 and result.stopped is None, result
    assert result.errors == [] and result.rejoins == 0  # its seat came back with the table
    # the restored table's game, then a table the new server's queue formed
    assert result.games == 2 and len(set(result.tables)) == 2
    assert len(result.queue_waits) == 2
