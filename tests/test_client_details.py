"""The smaller things a player notices at a table (issue 44): a spectator's view of
the start, a finished game found again after a server restart, the autopilot's turns
while away, every player's clock, what a rated game did to the ratings, a reconnect
said once, words that fit the width, the queue form, replays and a big screen's log.

Model and controller tests (no terminal), like tests/test_client_watch.py.
"""

from __future__ import annotations

import asyncio

from test_client_model import feed
from test_client_support import Clock, seat, table, welcome
from test_client_tui import text_of
from test_client_watch import controller

from nimmt import protocol as P
from nimmt.client import TableModel
from nimmt.client.tui import render, sheets
from nimmt.client.tui.board import rows_panel as board_panel
from nimmt.client.tui.controller import Controller

NAMES = ["Ann", "Bob", "Cat", "Dan"]


def enter(c: Controller) -> None:
    """Press Enter (what it sends is sent, in a loop of its own)."""
    async def press() -> None:
        c.enter()
        await c.drain()
    asyncio.run(press())


# ------------------------------------------------------------------ spectators
def test_a_spectator_who_came_before_the_start_sees_the_game_run_and_enter_asks_no_seat(
) -> None:
    m = feed(TableModel(Clock()), welcome("Eve"), P.Watching(table=table(NAMES)))
    c = controller(m)
    assert "Enter: take a free seat" in text_of(render.prompt_line(c, 0))
    feed(m, P.RoundStarted(round=1), P.RowsDealt(rows=((12,), (37,), (43,), (58,))),
         P.TurnStarted(round=1, turn=1, deadline=1e9, remaining=30.0))
    assert m.table is not None and m.table.status == "playing"
    prompt = text_of(render.prompt_line(c, 0))
    assert "You are watching this game." in prompt
    assert "take a free seat" not in prompt and "has not started" not in prompt
    enter(c)
    assert not [s for s in c.conn.sent if isinstance(s, P.Join)]  # type: ignore[attr-defined]
    assert "You are watching: nothing to play." in text_of(render.status_line(c))


# ------------------------------------------------------------------ a finished game found again
def test_a_finished_game_found_after_a_server_restart_shows_its_ranking_and_totals() -> None:
    seats = tuple(seat(n, total=t) for n, t in zip(NAMES, (31, 12, 67, 12), strict=True))
    over = P.TableInfo(table_id="t1", name="", options=P.TableOptions(seats=4), seats=seats,
                       host=0, status="over", spectators=0)
    m = feed(TableModel(Clock()), welcome(), P.Seated(table=over, seat=0))
    c = controller(m)
    board = text_of(board_panel(c, 80))
    assert "The rows are dealt" not in board
    assert "Game over — final ranking (bullheads):" in board
    lines = [line.split() for line in board.splitlines()[1:]]
    assert lines == [["1.", "Bob", "12", "won"], ["1.", "Dan", "12", "won"],
                     ["3.", "you", "31"], ["4.", "Cat", "67"]]
    sheet = text_of(sheets.score_lines(c, 78)).splitlines()
    assert sheet[0].split() == ["total"]
    assert [line.split() for line in sheet[1:5]] == [
        ["1.", "Bob", "12"], ["1.", "Dan", "12"], ["3.", "you", "31"], ["4.", "Cat", "67"]]
    assert sheet[5] == " Only the totals: the rounds were scored before this client came back."
