"""The terminal UI driven by keys (prompt_toolkit pipe input, DummyOutput) against a
fake connection: what is sent when a player presses keys, and what the screen says.

Plain test functions calling ``asyncio.run`` (pytest-trio would run ``async def``
tests under trio).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_client_support import Clock, table, welcome

from nimmt import protocol as P
from nimmt.client import ConnectionLost
from nimmt.client.link import LinkRestored
from nimmt.client.tui import render
from nimmt.client.tui.app import Outcome, run_tui
from nimmt.client.tui.controller import Controller, StartPlan

RIGHT, LEFT, UP, DOWN, ENTER = "\x1b[C", "\x1b[D", "\x1b[A", "\x1b[B", "\r"
NAMES = ["Ann", "Bob", "Cat", "Dan"]
HAND = (5, 14, 33, 55, 70, 81, 90, 97, 101, 104)


class FakeConn:
    """Stands in for ClientConnection: records what is sent, plays what the test queues."""

    def __init__(self) -> None:
        self.welcome: P.Welcome | None = welcome()
        self.handshake_errors: list[P.Error] = []
        self.sent: list[P.Message] = []
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.closed = False
        self.through_shutdown: Callable[[], bool] | None = None

    async def send(self, msg: P.Message) -> int | None:
        self.sent.append(msg)
        return len(self.sent)

    async def events(self, *, through_shutdown: Callable[[], bool] | None = None
                     ) -> AsyncIterator[Any]:
        """(``through_shutdown`` is recorded: the library's use of it is tested in
        tests/test_client_restarts.py, against a real server.)"""
        self.through_shutdown = through_shutdown
        while True:
            item = await self.queue.get()
            if isinstance(item, BaseException):
                raise item
            yield item
            if isinstance(item, P.Goodbye):
                return

    async def close(self, reason: str = "quit", message: str = "") -> None:
        self.closed = True


class Harness:
    def __init__(self, conn: FakeConn, inp: Any) -> None:
        self.conn, self.inp = conn, inp
        self.c: Controller
        self.app: Application[Any]
        self.task: asyncio.Task[Outcome]

    @property
    def model(self) -> Any:
        return self.c.model

    async def until(self, pred: Callable[[], bool], what: str = "condition") -> None:
        for _ in range(400):
            if pred():
                return
            await asyncio.sleep(0.005)
        raise AssertionError(f"timed out waiting for {what}")

    async def feed(self, *msgs: Any) -> None:
        target = self.model.version + len(msgs)
        for m in msgs:
            self.conn.queue.put_nowait(m)
        await self.until(lambda: self.model.version >= target, "messages applied")

    async def keys(self, text: str) -> None:
        """Type ``text`` and wait until every key of it was handled."""
        was = self.c.ui.help_open
        self.inp.send_text(text + "?")  # ? toggles the help: a marker that all keys ran
        await self.until(lambda: self.c.ui.help_open != was, "keys handled")
        self.inp.send_text("?")
        await self.until(lambda: self.c.ui.help_open == was, "keys handled")
        await self.c.drain()

    def sent(self, kind: type[P.Message]) -> list[Any]:
        return [m for m in self.conn.sent if isinstance(m, kind)]

    def last(self) -> P.Message:
        return self.conn.sent[-1]


def ui_test(script: Callable[[Harness], Awaitable[None]], *, plan: StartPlan | None = None,
            clock: Clock | None = None) -> tuple[Harness, Outcome]:
    async def main() -> tuple[Harness, Outcome]:
        with create_pipe_input() as inp:
            h = Harness(FakeConn(), inp)
            started = asyncio.Event()

            def ready(c: Controller, app: Application[Any]) -> None:
                h.c, h.app = c, app
                started.set()

            h.task = asyncio.ensure_future(run_tui(
                h.conn, plan=plan, input=inp, output=DummyOutput(), ready=ready,
                clock=clock or Clock()))
            await asyncio.wait_for(started.wait(), 5)
            await h.until(lambda: bool(h.conn.sent), "the first request")
            try:
                await asyncio.wait_for(script(h), 10)
            finally:
                if not h.task.done():
                    inp.send_text("\x03\x03")  # Ctrl-C twice: quit (even in a game)
            outcome = await asyncio.wait_for(h.task, 5)
            assert h.conn.closed
            return h, outcome
    return asyncio.run(main())


async def start_game(h: Harness, **options: Any) -> None:
    await h.feed(P.Seated(table=table(NAMES, **options), seat=0), P.RoundStarted(round=1),
                 P.HandDealt(cards=HAND), P.RowsDealt(rows=((12,), (37,), (43,), (58,))),
                 P.TurnStarted(round=1, turn=1, deadline=1e9, remaining=30.0))


def text_of(frags: Any) -> str:
    return "".join(t for _, t in frags)


def test_arrows_and_enter_commit_the_card_under_the_cursor_and_replace_it() -> None:
    async def script(h: Harness) -> None:
        await start_game(h)
        await h.keys(RIGHT + RIGHT + ENTER)
        commit = h.sent(P.Commit)[-1]
        assert (commit.round, commit.turn, commit.card) == (1, 1, 33)
        await h.feed(P.CommitAccepted(round=1, turn=1, card=33))
        assert "Committed 33." in text_of(render.status_line(h.c))
        prompt = text_of(render.prompt_line(h.c, 0))
        assert "Committed 33 · Enter on another card replaces it" in prompt
        assert "waiting for Bob, Cat, Dan" in prompt
        await h.keys("h" + ENTER)  # vi-style left, then commit again: replaces
        assert h.sent(P.Commit)[-1].card == 14
        await h.keys(LEFT * 5 + ENTER)  # the cursor stops at the first card
        assert h.sent(P.Commit)[-1].card == 5
        assert len(h.sent(P.Commit)) == 3
    ui_test(script)


def test_a_digit_takes_that_row_when_asked_and_not_otherwise() -> None:
    async def script(h: Harness) -> None:
        await start_game(h)
        await h.keys("3")  # nothing asked: nothing sent, a hint instead
        assert not h.sent(P.ChooseRow)
        assert "1–4 work when your card fits no row" in text_of(render.status_line(h.c))
        await h.feed(P.Revealed(plays=((0, 5), (1, 40), (2, 50), (3, 60))),
                     P.RowChoiceNeeded(seat=0, card=5, deadline=1e9, remaining=20.0),
                     P.RowChoiceRequest(round=1, turn=1, card=5, rows=(0, 1, 2, 3),
                                        deadline=1e9, remaining=20.0))
        assert "Your 5 fits no row: press 1–4" in text_of(render.prompt_line(h.c, 0))
        await h.keys("2")
        row = h.sent(P.ChooseRow)[-1]
        assert (row.round, row.turn, row.row) == (1, 1, 1)  # people's row 2 = wire row 1
    ui_test(script)


def test_row_choice_by_arrows_starts_on_the_cheapest_row() -> None:
    async def script(h: Harness) -> None:
        await h.feed(P.Seated(table=table(NAMES), seat=0), P.RoundStarted(round=1),
                     P.HandDealt(cards=HAND), P.RowsDealt(rows=((10,), (55,), (44,), (7,))),
                     P.TurnStarted(round=1, turn=1, deadline=1e9, remaining=30.0),
                     P.Revealed(plays=((0, 5), (1, 60), (2, 61), (3, 62))),
                     P.RowChoiceRequest(round=1, turn=1, card=5, rows=(0, 1, 2, 3),
                                        deadline=1e9, remaining=20.0))
        assert h.c.ui.row_cursor == 3  # 7: one bullhead
        await h.keys(UP + ENTER)
        assert h.sent(P.ChooseRow)[-1].row == 2
    ui_test(script)


def test_tie_places_are_chosen_with_arrows() -> None:
    places = (P.Place(row=0, end="right"), P.Place(row=1, end="left"))

    async def script(h: Harness) -> None:
        await start_game(h, professional=True)
        await h.feed(P.Revealed(plays=((0, 14), (1, 40), (2, 50), (3, 60))),
                     P.TieChoiceNeeded(seat=0, card=14, places=places, deadline=1e9,
                                       remaining=20.0),
                     P.TieChoiceRequest(round=1, turn=1, card=14, places=places,
                                        deadline=1e9, remaining=20.0))
        assert "after 12 in row 1 (free) or before 37 in row 2 (free)" in text_of(render.prompt_line(h.c, 0))
        await h.keys(RIGHT + ENTER)
        tie = h.sent(P.ChooseTie)[-1]
        assert (tie.round, tie.turn, tie.place) == (1, 1, places[1])
    ui_test(script)


def test_draft_pick_with_arrows() -> None:
    pool = tuple(range(1, 45))

    async def script(h: Harness) -> None:
        await h.feed(P.Seated(table=table(NAMES, draft=True), seat=0), P.RoundStarted(round=1),
                     P.DraftOpened(round=1, pool=pool, first_picker=0),
                     P.DraftPickNeeded(seat=0, round=1, pick=1, deadline=1e9, remaining=15.0),
                     P.DraftPickRequest(round=1, pick=1, pool=pool, deadline=1e9,
                                        remaining=15.0))
        assert "Draft pool: 44 cards" in text_of(render.rows_panel(h.c))
        await h.keys(RIGHT + RIGHT + DOWN + ENTER)  # +2, then a line down
        per_line = h.c.ui.pool_columns  # as many as the screen's width shows (80: 13)
        first_line = text_of(render.rows_panel(h.c, 80)).splitlines()[1]
        assert per_line == 13 and first_line.split()[-1] == "13¹"
        pick = h.sent(P.DraftPick)[-1]
        assert (pick.round, pick.pick, pick.card) == (1, 1, 3 + per_line)
    ui_test(script)


def test_lobby_columns_stay_aligned_when_table_ids_grow() -> None:
    tables = (table(["Eve", None], table_id="kqzd7", name="Eve's table"),
              table(["Bob", None], table_id="kqzd1234", name="Bob's table"))

    async def script(h: Harness) -> None:
        await h.feed(P.TableList(tables=tables))
        lines = text_of(render.lobby_panel(h.c)).splitlines()
        head, rows = lines[0], [line for line in lines[1:] if "kqzd" in line]
        assert len(rows) == 2
        # every name starts in the column under "Name", however long the ids are
        assert {row.index("Eve's" if "kqzd7" in row else "Bob's") for row in rows} == {
            head.index("Name")}
    ui_test(script)


def test_lobby_keys_join_watch_and_create_a_table_that_bots_fill_at_the_start() -> None:
    tables = (table(["Eve", None], table_id="t2"), table(["Bob", None, None], table_id="t1"))

    async def script(h: Harness) -> None:
        assert isinstance(h.conn.sent[0], P.ListTables)
        await h.feed(P.TableList(tables=tables))
        lobby = text_of(render.lobby_panel(h.c))
        assert "t2" in lobby and "t1" in lobby and "1/3" in lobby
        await h.keys(DOWN + ENTER)
        assert h.sent(P.Join)[-1].table_id == "t1"
        await h.keys("w")
        assert h.sent(P.Watch)[-1].table_id == "t1"
        await h.keys("n")
        form = text_of(render.form_panel(h.c, 78))
        assert "Fill with bots at start" in form and "Bots' level" in form
        # seats 4 → 5; the bots' level hard → normal
        await h.keys(RIGHT + DOWN + DOWN + LEFT + ENTER)
        create = h.sent(P.CreateTable)[-1]
        assert create.options.seats == 5 and create.name == "Ann's table"
        assert create.options.time_bank == 60.0
        assert h.c.ui.form is None
        await h.feed(P.Seated(table=table(["Ann", None, None, None, None]), seat=0))
        await h.c.drain()
        assert not h.sent(P.AddBot)  # the seats stay free for friends
        await h.feed(P.TableUpdated(table=table(["Ann", "Bob", None, None, None])))
        await h.keys("s")  # the empty seats get bots of the form's level, then the start
        assert [m.TYPE for m in h.conn.sent[-4:]] == ["add_bot"] * 3 + ["start"]
        assert {m.strategy for m in h.sent(P.AddBot)} == {"normal"}
    ui_test(script)


def test_the_new_table_form_creates_a_rated_table_and_says_what_to_do_if_refused() -> None:
    async def script(h: Harness) -> None:
        await h.feed(P.TableList(tables=()))
        await h.keys("n")
        form = text_of(render.form_panel(h.c, 78))
        assert "Rated" in form
        await h.keys(ENTER)  # the default: a casual table
        assert not h.sent(P.CreateTable)[-1].options.rated
        await h.keys("n" + DOWN * 3)
        assert "ratings" in text_of(render.form_panel(h.c, 78))  # what Rated means
        await h.keys(RIGHT + ENTER)
        assert h.sent(P.CreateTable)[-1].options.rated
        # a name that is not claimed: the server refuses, the client says how to claim it
        await h.feed(P.Error(code="not_allowed", request="create_table", field="options.rated",
                             message="this table is rated: only players who claimed their "
                             "name may sit"))
        status = text_of(render.status_line(h.c))
        assert "claimed their name" in status and "--claim" in status
    ui_test(script)


def test_the_lobby_queues_for_a_rated_game_shows_each_fresh_place_and_leaves() -> None:
    clock = Clock()

    async def script(h: Harness) -> None:
        await h.feed(P.TableList(tables=(table(["Eve", None], table_id="t2"),)))
        await h.keys("Q")  # the form opens to choose the seats and rules
        assert h.c.ui.form is not None and "Q queues" in text_of(render.status_line(h.c))
        await h.keys(RIGHT + "Q")  # 5 seats, queued
        (ask,) = h.sent(P.Queue)
        assert ask.seats == 5 and ask.fill_after == 30.0 and h.c.ui.form is None
        await h.feed(P.Queued(seats=5, position=1, waiting=1, fill_in=30.0, re=7))
        clock.now += 10.0
        lobby = text_of(render.lobby_panel(h.c, 78))
        assert "In the queue: rated game of 5 · 1st of 1 waiting · bots in 20 s" in lobby
        # others queue and one leaves: the server's fresh queued show at once
        await h.feed(P.Queued(seats=5, position=2, waiting=3, fill_in=20.0))
        lobby = text_of(render.lobby_panel(h.c, 78))
        assert "2nd of 3 waiting" in lobby and "1st of 1" not in lobby
        assert sum("You wait in the queue" in line.text for line in h.model.log) == 1
        assert "leave the queue" in text_of(render.keys_line(h.c, 78))
        await h.keys("n" + ENTER)  # no table while queued: the client says how to leave
        assert not h.sent(P.CreateTable) and not h.sent(P.Join) and h.c.ui.form is None
        assert "press Q to leave it" in text_of(render.status_line(h.c))
        # the link comes back: the entry went with the old connection, queued again
        await h.feed(LinkRestored(welcome(resumed=True)))
        await h.until(lambda: len(h.sent(P.Queue)) == 2, "the queue sent again")
        assert h.sent(P.Queue)[-1].seats == 5
        await h.feed(P.Queued(seats=5, position=3, waiting=3, fill_in=30.0, re=9))
        await h.keys("Q")  # leaves the queue
        assert isinstance(h.conn.sent[-1], P.LeaveQueue)
        await h.feed(P.QueueLeft(reason="left", re=10))
        assert "In the queue" not in text_of(render.lobby_panel(h.c, 78))
        assert "Q  queue" in text_of(render.keys_line(h.c, 200))
        # a name that is not claimed: refused, and the client says how to claim it
        await h.keys("Q" + "Q")
        await h.feed(P.Error(code="not_allowed", request="queue", re=11,
                             message="the ladder queue is for rated games: only players "
                             "who claimed their name may queue"))
        assert "--claim" in text_of(render.status_line(h.c))
        await h.feed(LinkRestored(welcome(resumed=True)))
        await h.keys("")  # (everything sent by now)
        assert len(h.sent(P.Queue)) == 3  # not queued: nothing queued again
    ui_test(script, clock=clock)


def test_host_keys_add_remove_bots_start_and_leave() -> None:
    async def script(h: Harness) -> None:
        await h.feed(P.Seated(table=table(["Ann", "Bot-1", None], bots=(1,)), seat=0))
        await h.keys("a")
        await h.keys("x")
        await h.keys("s")  # a seat is empty: asked first
        assert "press s again" in text_of(render.status_line(h.c))
        await h.keys("s")
        assert [m.TYPE for m in h.conn.sent[1:]] == ["add_bot", "remove_bot", "add_bot",
                                                     "start"]
        assert h.sent(P.RemoveBot)[-1].seat == 1
        await h.keys("L")  # no game running: leaves at once
        assert isinstance(h.last(), P.Leave)
    ui_test(script)


def test_leaving_or_quitting_a_game_needs_a_second_press() -> None:
    async def script(h: Harness) -> None:
        await start_game(h)
        await h.keys("L")
        assert not h.sent(P.Leave)
        assert "Press L again" in text_of(render.status_line(h.c))
        await h.keys("L")
        assert h.sent(P.Leave)
        await h.keys("q")
        assert not h.task.done()
        h.inp.send_text("q")
        await h.until(h.task.done, "the app to quit")

    h, outcome = ui_test(script)
    assert outcome.error is False and outcome.message == ""


def test_chat_line_takes_the_keys_while_open() -> None:
    async def script(h: Harness) -> None:
        await start_game(h)
        h.inp.send_text("c")
        await h.until(lambda: h.c.ui.chat_open, "chat open")
        h.inp.send_text("good luck q1" + ENTER)  # q and 1 are text here, not keys
        await h.until(lambda: not h.c.ui.chat_open, "chat sent")
        await h.c.drain()
        assert h.sent(P.Chat)[-1].text == "good luck q1"
        assert not h.sent(P.ChooseRow) and not h.task.done()
        await h.feed(P.ChatMessage(name="Ann", seat=0, text="good luck q1"))
        assert "<Ann> good luck q1" in text_of(render.log_lines(h.c))
    ui_test(script)


def test_server_errors_show_in_the_status_line_with_what_to_do() -> None:
    async def script(h: Harness) -> None:
        await start_game(h)
        await h.feed(P.Error(code="illegal_card", message="card 3 is not in your hand",
                             request="commit", field="card"))
        frags = render.status_line(h.c)
        assert text_of(frags).strip() == "card 3 is not in your hand. Pick a card from your hand."
        assert frags[0][0] == "class:status.error"
    ui_test(script)


def test_the_screen_shows_rows_bullheads_seats_and_the_clock() -> None:
    clock = Clock()

    async def script(h: Harness) -> None:
        await start_game(h, countdown=True)
        await h.feed(P.SeatCommitted(seat=2), P.RowTaken(seat=1, row=3, cards=(58,),
                                                        bullheads=1),
                     P.Placed(seat=1, card=55, row=3, end="right"))
        rows = text_of(render.rows_panel(h.c))
        assert " 1 │  12¹" in rows
        # a card lower than every row is not drawn in the row it takes: the note names it
        assert " 4 │  58¹    ·" in rows and "◀ Bob takes it with [55]: +1" in rows
        assert "Cards chosen: 1 of 4" in rows
        players = text_of(render.players_panel(h.c))
        assert "left" in players.splitlines()[0]  # countdown: points left, not totals
        assert "66" in players and "+1" in players and "✓" in players
        clock.now += 21
        prompt = text_of(render.prompt_line(h.c, clock.now))
        assert "Your move" in prompt and "0:09" in prompt
        hand = render.hand_line(h.c)
        cursor = [t for s, t in hand if "card.cursor" in s]
        assert "".join(cursor) == "[5²]"  # 5 carries 2 bullheads; brackets: no colour needed
        assert "[5²]" in text_of(hand)
    ui_test(script, clock=clock)


def test_a_deadline_warning_turns_the_clock_hot_and_is_logged() -> None:
    clock = Clock()

    async def script(h: Harness) -> None:
        await start_game(h)
        clock.now += 20
        assert render.prompt_line(h.c, clock.now)[0] == ("class:clock", " ⏱ 0:10 ")
        # a server warning 10 s before (warn_before = 10): hot before the last 5 s
        await h.feed(P.DeadlineWarning(kind="commit", round=1, turn=1, pick=0, deadline=1e9,
                                       remaining=10.0))
        assert render.prompt_line(h.c, clock.now)[0] == ("class:clock.hot", " ⏱ 0:10 ")
        log = render.log_lines(h.c)
        assert log[-1] == ("class:log.warn", " 10 seconds left to play a card — the autopilot "
                           "plays one for you after that.")
        await h.keys("\r")  # Enter commits the card under the cursor
        await h.feed(P.CommitAccepted(round=1, turn=1, card=HAND[0]))
        assert render.prompt_line(h.c, clock.now)[0][0] == "class:clock"
    ui_test(script, clock=clock)


def test_waiting_for_someone_else_is_shown() -> None:
    async def script(h: Harness) -> None:
        await start_game(h)
        await h.feed(P.Revealed(plays=((1, 2), (0, 14), (2, 50), (3, 60))),
                     P.RowChoiceNeeded(seat=1, card=2, deadline=1e9, remaining=20.0))
        assert "Waiting for Bob to choose a row for 2" in text_of(render.prompt_line(h.c, 0))
        assert "⌛" in text_of(render.players_panel(h.c))
    ui_test(script)


def test_solo_plan_joins_the_bot_table() -> None:
    busy = table(["X", "Y"], table_id="t1", status="playing")
    bots = table([None, "Bot-1", "Bot-2"], table_id="t2", host=None, bots=(1, 2))

    async def script(h: Harness) -> None:
        await h.feed(P.TableList(tables=(busy, bots)))
        await h.c.drain()
        assert h.sent(P.Join)[-1].table_id == "t2"
    ui_test(script, plan=StartPlan(solo=True))


def test_join_plan_sits_down_at_once() -> None:
    async def script(h: Harness) -> None:
        await h.c.drain()
        assert h.sent(P.Join)[-1].table_id == "t9"
    ui_test(script, plan=StartPlan(join="t9"))


def test_the_server_saying_goodbye_ends_the_app() -> None:
    async def script(h: Harness) -> None:
        await start_game(h)
        h.conn.queue.put_nowait(P.Goodbye(reason="server_shutdown",
                                          message="the server is shutting down"))
        await h.until(h.task.done, "the app to end")

    _, outcome = ui_test(script)
    assert outcome.message == "the server closed the connection: the server is shutting down"
    assert outcome.error is False


def test_a_server_stopping_is_waited_for_at_a_table_and_ends_the_lobby_saying_how_to_come_back(
        ) -> None:
    async def script(h: Harness) -> None:
        h.conn.address = "10.0.0.2:6066"
        assert h.conn.through_shutdown is not None
        assert h.conn.through_shutdown() is False  # the lobby: nothing is kept
        await start_game(h)
        assert h.conn.through_shutdown() is True  # a game: the server keeps it
        await h.feed(P.Left(table_id=h.model.table.table_id, reason="left"))
        assert h.conn.through_shutdown() is False
        h.conn.queue.put_nowait(P.Goodbye(reason="server_shutdown",
                                          message="the server is shutting down"))
        await h.until(h.task.done, "the app to end")

    _, outcome = ui_test(script)
    assert outcome.message == ("the server at 10.0.0.2:6066 stopped. Start it again and run "
                               "nimmt-client 10.0.0.2:6066 to come back.")
    assert outcome.error is False


def test_a_solo_game_does_not_wait_for_its_server() -> None:
    async def script(h: Harness) -> None:
        await start_game(h)
        assert h.conn.through_shutdown is not None and h.conn.through_shutdown() is False

    ui_test(script, plan=StartPlan(solo=True))


def test_a_lost_connection_ends_the_app_with_the_reason() -> None:
    async def script(h: Harness) -> None:
        h.conn.queue.put_nowait(ConnectionLost("lost the connection to 10.0.0.2:6066"))
        await h.until(h.task.done, "the app to end")

    _, outcome = ui_test(script)
    assert outcome.error and outcome.message == "lost the connection to 10.0.0.2:6066"


def test_a_drop_shows_reconnecting_and_the_snapshot_restores_the_game() -> None:
    from nimmt.client import LinkLost, LinkRestored

    async def script(h: Harness) -> None:
        await start_game(h)
        await h.feed(LinkLost("the server closed the connection"))
        assert "○ reconnecting…" in text_of(render.title_bar(h.c))
        assert "reconnecting" in text_of(render.prompt_line(h.c, 0.0))
        said = [line.text for line in h.model.log]
        assert sum("Connection lost" in t for t in said) == 1  # once, not twice
        assert "Connection lost" not in text_of(render.status_line(h.c))
        await h.keys(ENTER)  # nothing may be sent while the link is down
        assert not h.sent(P.Commit)
        playing = table(NAMES, status="playing")
        await h.feed(LinkRestored(welcome(resumed=True)), P.Seated(table=playing, seat=0),
                     P.Snapshot(table=playing, seat=0, round=1, turn=3, phase="commit",
                                hand=(14, 33, 90), commit=None,
                                rows=((12, 20), (37,), (43,), (58,)), deadline=1e9,
                                remaining=20.0, committed=(1, 2), revealed=(),
                                draft_pool=(), draft_picks=(), pending=None))
        assert "● " in text_of(render.title_bar(h.c))
        # one line says it all (not "Reconnected.", "You sit…", "Table t1: the game is…")
        back = [line.text for line in h.model.log][said.index(said[-1]) + 1:]
        assert back[0] == ("Reconnected: you are at table t1, seat 1; the game is at round 1, "
                           "turn 3.")
        assert back[1:] == ["While you were away the autopilot played 5, 55, 70, 81, 97, 101 "
                            "and 104 for you."]  # (this test's hand is another)
        assert "Reconnected" not in text_of(render.status_line(h.c))
        await h.keys(RIGHT + ENTER)
        commit = h.sent(P.Commit)[-1]
        assert (commit.round, commit.turn, commit.card) == (1, 3, 33)
    ui_test(script)


def test_solo_starts_the_table_if_the_server_does_not() -> None:
    from nimmt.client.tui import controller

    async def script(h: Harness) -> None:
        controller.SOLO_START_AFTER = 0.01
        full = table(["Ann", "Bot-1", "Bot-2"], bots=(1, 2))
        await h.feed(P.TableList(tables=(table([None, "Bot-1", "Bot-2"], bots=(1, 2),
                                                host=None),)),
                     P.Seated(table=full, seat=0))
        await h.until(lambda: bool(h.sent(P.Start)), "start sent")

    old = controller.SOLO_START_AFTER
    try:
        ui_test(script, plan=StartPlan(solo=True))
    finally:
        controller.SOLO_START_AFTER = old


def test_solo_does_not_start_a_table_that_started_by_itself() -> None:
    from nimmt.client.tui import controller

    async def script(h: Harness) -> None:
        controller.SOLO_START_AFTER = 0.01
        full = table(["Ann", "Bot-1", "Bot-2"], bots=(1, 2))
        await h.feed(P.Seated(table=full, seat=0), P.RoundStarted(round=1))
        await asyncio.sleep(0.05)
        assert not h.sent(P.Start)

    old = controller.SOLO_START_AFTER
    try:
        ui_test(script, plan=StartPlan(solo=True))
    finally:
        controller.SOLO_START_AFTER = old


def test_the_help_pauses_the_clock_of_a_solo_game_and_only_there() -> None:
    async def script(h: Harness) -> None:
        await start_game(h, bots=(1, 2, 3))
        await h.keys("")  # the help opens and closes
        assert [m.TYPE for m in h.conn.sent if m.TYPE in ("pause", "resume")] == [
            "pause", "resume"]
        await h.keys("t")  # the score sheet, left open: paused until it is closed
        assert h.last().TYPE == "pause"
        await h.keys("t")
        assert h.last().TYPE == "resume"
    ui_test(script)

    async def shared(h: Harness) -> None:
        await start_game(h, bots=(2, 3))  # Bob is a person: his time is not ours to stop
        await h.keys("t")
        assert not h.sent(P.Pause)
    ui_test(shared)
