"""What a player coming back is told that they did not see, end to end against a real
``nimmt-server`` (a child process on 127.0.0.1): the score sheet of a finished game
after the server was restarted (``seated.round_penalties``), and the turns the
autopilot played for them while their client was gone, told once to the client run
that resumes the session (``seated.autoplayed``).

Plain test functions calling ``asyncio.run`` (the client library is asyncio).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from real_server import running_server
from test_client_restarts import ServerProcess, pump, start

from nimmt import protocol as P
from nimmt.client import ClientConnection, TableModel
from nimmt.client.sessions import SessionStore
from nimmt.client.tui.controller import Controller
from nimmt.client.tui.sheets import score_lines

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM to a child")


def sheet_rows(model: TableModel, conn: ClientConnection) -> list[str]:
    """The score sheet's lines as the screen draws them (t), 80 columns."""
    text = "".join(part for _, part in score_lines(Controller(model, conn), 80))
    return text.split("\n")


def test_a_finished_games_score_sheet_comes_back_after_a_server_restart(
        home: Path) -> None:
    """Ann plays a two-round game against a bot to its end (the autopilot plays her
    cards: her time runs out at once); the server is stopped and started again; her
    client, started again, resumes the session: its sheet has each round's
    bullheads as she saw them live, and so has a spectator's who comes to the table."""
    server = ServerProcess(home / "nimmt.db", "--step-delay", "0")

    async def main() -> None:
        port = await asyncio.to_thread(server.start)
        assert port is not None
        where = f"127.0.0.1:{port}"
        ann, live, _ = await start([where, "--name", "Ann"])
        options = P.TableOptions(seats=2, rounds=2, point_limit=None, turn_time=0.1,
                                 choice_time=0.1, step_delay=0)
        await ann.send(P.CreateTable(options=options, name="two rounds"))
        await pump(ann, live, lambda: live.seat == 0, "Ann's table")
        await ann.send(P.AddBot(strategy="easy"))
        await pump(ann, live, lambda: live.table is not None and all(live.table.seats),
                   "the bot seated")
        await ann.send(P.Start())
        await pump(ann, live, lambda: live.result is not None, "the game's end", 30)
        assert live.table is not None
        table_id = live.table.table_id
        seen = [(r.round, r.penalties, r.totals) for r in live.scores]
        assert [r for r, _, _ in seen] == [1, 2] and seen[-1][2] == live.result.totals
        live_sheet = sheet_rows(live, ann)
        await ann.close()

        await asyncio.to_thread(server.stop)
        again_port = await asyncio.to_thread(server.start, port)
        if again_port is None:  # the port was taken meanwhile: the session moves along
            again_port = await asyncio.to_thread(server.start)
            assert again_port is not None
            store = SessionStore(home / ".local" / "state" / "nimmt")
            token = store.load("127.0.0.1", port, "Ann")
            assert token is not None
            store.save("127.0.0.1", again_port, "Ann", token)
        where = f"127.0.0.1:{again_port}"

        back, model, plan = await start([where, "--name", "Ann"])
        assert plan.resumed
        await pump(back, model, lambda: model.table is not None and model.phase == "over",
                   "Ann's finished game")
        assert model.table is not None and model.table.table_id == table_id
        assert [(r.round, r.penalties, r.totals) for r in model.scores] == seen
        assert sheet_rows(model, back) == live_sheet
        await back.close()

        dee = ClientConnection("127.0.0.1", again_port, "Dee", kind="spectator")
        await dee.open()
        watcher = TableModel()
        assert dee.welcome is not None
        watcher.apply(dee.welcome)
        await dee.send(P.Watch(table_id=table_id))
        await pump(dee, watcher, lambda: watcher.watching, "Dee watching")
        assert [(r.round, r.penalties, r.totals) for r in watcher.scores] == seen
        await dee.close()

    try:
        asyncio.run(asyncio.wait_for(main(), 50))
    finally:
        logs = server.close()
    assert "Traceback" not in logs, logs


def autopilot_lines(model: TableModel) -> list[str]:
    return [line.text for line in model.log if "autopilot" in line.text
            and "away" in line.text and "is away" not in line.text]


def test_the_autopilots_turns_are_told_to_the_next_client_run_once(home: Path) -> None:
    """Ann's client is gone (its connection dropped): the autopilot plays her card of
    turn 1 at once, then her card of turn 2 (not revealed: Bob has not played). A new
    client run resumes her session: its log says the card of turn 1, once (turn 2's
    card is her commit, shown as such and still hers to change); the run after it is
    told nothing more."""
    async def main() -> None:
        with running_server("--step-delay", "0") as port:
            where = f"127.0.0.1:{port}"
            ann, ann_model, _ = await start([where, "--name", "Ann"])
            options = P.TableOptions(seats=2, autoplay_when_away="immediately",
                                     step_delay=0, turn_time=60, choice_time=60)
            await ann.send(P.CreateTable(options=options, name="away"))
            await pump(ann, ann_model, lambda: ann_model.seat == 0, "Ann's table")
            assert ann_model.table is not None
            table_id = ann_model.table.table_id
            bob, bob_model, _ = await start([where, "--name", "Bob"])
            await bob.send(P.Join(table_id=table_id))
            await pump(bob, bob_model, lambda: bob_model.seat == 1, "Bob's seat")
            await pump(ann, ann_model, lambda: ann_model.table is not None and all(
                ann_model.table.seats), "Bob at Ann's table")
            await ann.send(P.Start())
            await pump(ann, ann_model, lambda: ann_model.phase == "commit"
                       and len(ann_model.hand) == 10, "Ann's first turn")
            await ann.close()  # Ann's client is gone

            seen: list[Any] = []

            def watch(msg: Any) -> None:
                seen.append(msg)
                bob_model.apply(msg)

            async def bob_until(done: Any, what: str) -> None:
                try:
                    async with asyncio.timeout(15):
                        while not done():
                            msg = await bob.receive()
                            watch(msg)
                            if isinstance(msg, P.RowChoiceRequest):  # Bob's lowest card
                                await bob.send(P.ChooseRow(round=msg.round, turn=msg.turn,
                                                           row=0))
                except TimeoutError:
                    raise AssertionError(f"timed out waiting for {what}") from None

            await bob_until(lambda: bob_model.phase == "commit" and bob_model.turn == 1,
                            "turn 1")
            await bob.send(P.Commit(round=1, turn=1, card=bob_model.hand[-1]))
            await bob_until(lambda: bob_model.turn == 2 and 0 in bob_model.committed,
                            "the autopilot's card of turn 2")
            played = next(c for m in seen if isinstance(m, P.Revealed)
                          for s, c in m.plays if s == 0)
            row_choice = [m for m in seen if isinstance(m, P.RowChoiceNeeded) and m.seat == 0]
            taken = [m.row for m in seen if isinstance(m, P.RowTaken) and m.seat == 0]
            expected = f"While you were away the autopilot played {played}"
            if row_choice:  # her card fitted no row: the autopilot chose the row too
                expected += f" and took row {taken[0] + 1}"
            expected += " for you."

            again, model, plan = await start([where, "--name", "Ann"])
            assert plan.resumed
            await pump(again, model, lambda: model.phase == "commit" and not model.resyncing,
                       "Ann's game again")
            assert model.turn == 2 and model.my_commit is not None
            assert autopilot_lines(model) == [expected]
            await again.close()

            third, third_model, plan = await start([where, "--name", "Ann"])
            assert plan.resumed
            await pump(third, third_model,
                       lambda: third_model.phase == "commit" and not third_model.resyncing,
                       "Ann's game a third time")
            assert autopilot_lines(third_model) == []
            await third.close()
            await bob.close()

    asyncio.run(asyncio.wait_for(main(), 45))
