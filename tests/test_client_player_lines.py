"""The players' lines beside the rows (100 columns and up) keep their last word whole,
as a real terminal draws them: a name of wide characters takes two cells a character,
and some terminals draw the bot's ⚙ two cells wide (here the test's screen does so,
as such a terminal): the name gives way, never " away" (issue 44: "awa" was seen).
"""

from __future__ import annotations

import asyncio
import sys

import pty_helpers
import pytest
from pty_helpers import PtyProcess, client_argv
from real_server import running_server

from nimmt import protocol as P
from nimmt.client import ClientConnection

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a pty")

WIDE_NAME = "ロボ太郎さん"  # 6 characters, 12 cells


def _drawn_wide(ch: str, width=pty_helpers._width) -> int:
    """A terminal whose font draws ⚙ as an emoji: two cells."""
    return 2 if ch == "⚙" else width(ch)


async def two_bots_gone(port: int) -> None:
    """Two bot clients (⚙) sit at a table and their connections drop: their seats wait
    for them, shown away."""
    robo = ClientConnection("127.0.0.1", port, "Robo", kind="bot")
    await robo.open()
    await robo.send(P.CreateTable(options=P.TableOptions(seats=3), name="bots away"))
    while not isinstance(await robo.receive(), P.Seated):
        pass
    wide = ClientConnection("127.0.0.1", port, WIDE_NAME, kind="bot")
    await wide.open()
    await wide.send(P.ListTables())
    listed = await wide.receive()
    while not isinstance(listed, P.TableList):
        listed = await wide.receive()
    await wide.send(P.Join(table_id=listed.tables[0].table_id))
    while not isinstance(await wide.receive(), P.Seated):
        pass
    await robo.close()
    await wide.close()


def player_line(screen: str, name: str) -> str | None:
    return next((line for line in screen.splitlines() if name in line), None)


def test_an_away_bots_line_keeps_away_whole_at_100_to_125_columns(
        tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pty_helpers, "_width", _drawn_wide)
    with running_server() as port:
        asyncio.run(asyncio.wait_for(two_bots_gone(port), 20))
        client = PtyProcess(client_argv(f"127.0.0.1:{port}", "--name", "Ann",
                                        "--state-dir", str(tmp_path)), 100, 30)
        try:
            client.wait_for(lambda t: "bots away" in t, "the lobby")
            client.type("\r")  # join the table
            client.wait_for(lambda t: (player_line(t, "Robo") or "").endswith("away"),
                            "the table")
            for columns in range(100, 126):
                client.resize(columns, 30)
                # (the screen keeps no character in the second cell of a wide one)
                client.wait_for(lambda t: (player_line(t, "Robo") or "").endswith(
                    "★⚙           0     · away") and (player_line(t, "ロボ") or "").endswith(
                    "ロボ太郎  ⚙           0     · away"),
                    f"both bots' lines whole at {columns} columns", 5)
            client.type("q")
        finally:
            client.close()
