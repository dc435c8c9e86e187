"""What a player sees happen: the resolution step by step on the board, the end of a
round and of the game, the autopilot, the clock while offline, names, stale lines,
refusals, the log's scroll, the help, and the size of the terminal.

Model and controller tests (no terminal); the pty tests play the real thing.
"""

from __future__ import annotations

import asyncio
from typing import Any

from prompt_toolkit.data_structures import Size
from test_client_model import feed, play_turn, seated_game, texts
from test_client_support import Clock, table, welcome
from test_client_tui import Harness, start_game, text_of, ui_test

from nimmt import protocol as P
from nimmt.client import LinkLost, LinkRestored, TableModel
from nimmt.client.tui import render, sheets
from nimmt.client.tui.controller import Controller
from nimmt.client.tui.layout import Screen
from nimmt.client.words import code_words


class Recorder:
    def __init__(self) -> None:
        self.sent: list[P.Message] = []

    async def send(self, msg: P.Message) -> int | None:
        self.sent.append(msg)
        return len(self.sent)


def controller(m: TableModel, clock: Clock | None = None) -> Controller:
    return Controller(m, Recorder(), clock=clock or Clock())


def rows_text(c: Controller, width: int = 80) -> str:
    return text_of(render.rows_panel(c, width))


# ------------------------------------------------------------------ the resolution
def test_each_step_marks_the_card_placed_and_a_row_taken_until_the_next_step() -> None:
    m = seated_game()
    c = controller(m)
    m.rows = [[12, 13, 14, 15, 16], [37], [43], [58]]  # as after some turns
    play_turn(m, [(0, 3), (1, 17), (2, 40), (3, 60)])
    shown = rows_text(c)
    assert "Plays: 3 you · 17¹ Bob" not in shown  # the cards carry their bullheads
    assert "Plays: 3¹ you · 17¹ Bob · 40³ Cat · 60³ Dan" in shown  # in play order
    feed(m, P.RowChoiceNeeded(seat=0, card=3, deadline=1e9, remaining=20.0))
    feed(m, P.RowTaken(seat=0, row=1, cards=(37,), bullheads=1),
         P.Placed(seat=0, card=3, row=1, end="right"))
    shown = rows_text(c)
    # the low card is not drawn in the row it takes; who takes it, with what and for
    # how much, in words
    assert "2 │  37¹    ·" in shown and "◀ You take it with [3]: +1" in shown
    assert "[3¹ you]" in shown  # the card being placed, face up, in the plays
    feed(m, P.RowTaken(seat=1, row=0, cards=(12, 13, 14, 15, 16), bullheads=7),
         P.Placed(seat=1, card=17, row=0, end="right"))
    shown = rows_text(c)
    # a sixth card: the five cards and the new one, for this step; row 2 is just 3 now
    assert "1 │  12¹   13¹   14¹   15²   16¹  [17¹]│  7 ◀ Bob takes it: +7" in shown
    assert "2 │   3¹    ·" in shown
    assert "3¹ you ✓" in shown and "[17¹ Bob]" in shown
    feed(m, P.Placed(seat=2, card=40, row=1, end="right"))
    shown = rows_text(c)
    assert "1 │  17¹    ·" in shown and "takes it" not in shown  # emptied at the next step
    assert "2 │   3¹  [40³]" in shown
    players = text_of(render.players_panel(c, 40))
    assert "[40³]" in players and " 60³" in players  # revealed cards beside the names
    assert m.rows[0] == [17]  # the model's rows are the truth at every moment (bots read them)


def test_the_queue_of_plays_wraps_and_is_never_cut_off() -> None:
    names = [f"Player{i}" for i in range(10)]
    m = TableModel(Clock())
    feed(m, welcome(), P.Seated(table=table(names), seat=0), P.RoundStarted(round=1),
         P.HandDealt(cards=(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)),
         P.RowsDealt(rows=((20,), (30,), (40,), (50,))),
         P.TurnStarted(round=1, turn=1, deadline=1e9, remaining=30.0))
    plays = [(i, 60 + i) for i in range(10)]
    play_turn(m, plays)
    shown = rows_text(controller(m), 60)
    for i in range(10):
        assert f"{60 + i}¹ " in shown or f"{60 + i}" in shown
    assert "Player9" in shown
    assert all(len(line) <= 60 for line in shown.splitlines())


def test_the_round_result_stays_until_the_next_round_and_the_game_ends_with_a_ranking(
) -> None:
    m = seated_game()
    c = controller(m)
    feed(m, P.RoundScored(round=1, penalties=(5, 0, 12, 1), totals=(5, 0, 12, 1)))
    shown = rows_text(c)
    assert "Round 1 over (fewer is better): Bob +0 → 0 · Dan +1 → 1 · you +5 → 5" in shown
    feed(m, P.RoundStarted(round=2), P.HandDealt(cards=(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)),
         P.RowsDealt(rows=((20,), (30,), (40,), (50,))))
    assert "Round 1 over" in rows_text(c)  # until the next round's first decision
    feed(m, P.TurnStarted(round=2, turn=1, deadline=1e9, remaining=30.0))
    assert "Round 1 over" in rows_text(c)  # your first decision of round 2 is not made yet
    feed(m, P.CommitAccepted(round=2, turn=1, card=1, re=7))
    assert "Round 1 over" not in rows_text(c) and "Cards chosen: 1 of 4" in rows_text(c)
    feed(m, P.RoundScored(round=2, penalties=(70, 0, 0, 0), totals=(75, 0, 12, 1)),
         P.GameOver(totals=(75, 0, 12, 1), places=(4, 1, 3, 2), winners=(1,)))
    shown = rows_text(c)
    assert "final ranking" in shown
    order = [name for name in ("Bob", "Dan", "Cat", "you") if name in shown]
    assert order == ["Bob", "Dan", "Cat", "you"]
    assert shown.index("Bob") < shown.index("Dan") < shown.index("Cat") < shown.index("you")
    title = text_of(render.title_bar(c))
    assert "game over" in title and "round 2" not in title


# ------------------------------------------------------------------ the autopilot, the clock
def test_a_timeout_is_announced_and_not_taken_for_your_choice() -> None:
    m = seated_game()
    c = controller(m)
    c.on_message(P.CommitAccepted(round=1, turn=1, card=14))  # no request of ours
    assert "Time ran out: the autopilot played 14 for you." in texts(m)
    assert "autopilot played 14" in text_of(render.status_line(c))

    m2 = seated_game()
    c2 = controller(m2)

    async def commit() -> None:
        c2.enter()
        await asyncio.sleep(0)
    asyncio.run(commit())
    c2.on_message(P.CommitAccepted(round=1, turn=1, card=3))  # the answer to ours
    assert not any("autopilot" in t for t in texts(m2))
    assert "Committed 3." in text_of(render.status_line(c2))


def test_an_autopilot_row_choice_is_announced() -> None:
    m = seated_game()
    play_turn(m, [(0, 3), (1, 40), (2, 50), (3, 60)])
    feed(m, P.RowChoiceNeeded(seat=0, card=3, deadline=1e9, remaining=20.0),
         P.RowChoiceRequest(round=1, turn=1, card=3, rows=(0, 1, 2, 3), deadline=1e9,
                            remaining=20.0),
         P.RowTaken(seat=0, row=0, cards=(12,), bullheads=1))
    assert "Time ran out: the autopilot took row 1 for you." in texts(m)


def test_the_clock_shows_paused_while_the_link_is_down() -> None:
    clock = Clock()
    m = seated_game(clock)
    c = controller(m, clock)
    assert "0:30" in text_of(render.prompt_line(c, clock.now))
    feed(m, LinkLost("gone"))
    clock.now += 50
    prompt = text_of(render.prompt_line(c, clock.now))
    assert "paused" in prompt and "0:00" not in prompt
    assert "Connection lost: reconnecting" in prompt


def test_the_tie_choice_says_what_each_place_costs() -> None:
    m = seated_game(professional=True)
    c = controller(m)
    m.rows = [[10, 11, 12, 13, 22], [37], [43], [58]]  # as after some turns
    play_turn(m, [(0, 30), (1, 40), (2, 50), (3, 60)])
    places = (P.Place(row=0, end="right"), P.Place(row=1, end="left"))
    feed(m, P.TieChoiceNeeded(seat=0, card=30, places=places, deadline=1e9, remaining=9.0),
         P.TieChoiceRequest(round=1, turn=1, card=30, places=places, deadline=1e9,
                            remaining=9.0))
    prompt = text_of(render.prompt_line(c, 0))
    assert "after 22 in row 1 (takes 15 bullheads)" in prompt  # 3+5+1+1+5
    assert "before 37 in row 2 (free)" in prompt
    assert "1 │  10³   11⁵   12¹   13¹   22⁵  [30³]│ 15 ◀ here you take it: +15" in rows_text(c)


# ------------------------------------------------------------------ names
def test_a_rename_at_the_table_is_told_and_the_title_uses_it() -> None:
    m = TableModel(Clock())
    c = controller(m)
    feed(m, welcome(name="Dan"))
    c.on_message(P.Seated(table=table(["Dan", "Dan (2)"]), seat=1))
    assert "you are “Dan (2)” here" in texts(m)[-1]
    assert "Dan (2)" in text_of(render.title_bar(c))
    assert "Dan (2)" in text_of(render.status_line(c))


def test_a_namesake_in_the_lobby_is_told_apart_from_you() -> None:
    m = TableModel(Clock())
    c = controller(m)
    feed(m, welcome(name="Ann"))

    async def say() -> None:
        c.send_chat("hello")
        await asyncio.sleep(0)
    asyncio.run(say())
    feed(m, P.ChatMessage(name="Ann", seat=None, text="hello"),
         P.ChatMessage(name="Ann", seat=None, text="hi, I am Ann too"))
    assert texts(m)[-2:] == ["<Ann> hello", "<Ann (not you)> hi, I am Ann too"]


def test_bots_added_from_the_client_are_numbered_from_one() -> None:
    m = TableModel(Clock())
    c = controller(m)
    feed(m, welcome(), P.Seated(table=table(["Ann", None, "Bot 1", None], bots=(2,)), seat=0))

    async def add() -> None:
        c.add_bot()
        await asyncio.sleep(0)
    asyncio.run(add())
    assert c.conn.sent[-1] == P.AddBot(name="Bot 2")  # type: ignore[attr-defined]


def test_the_bot_level_key_cycles_the_levels_of_the_bots_added() -> None:
    m = TableModel(Clock())
    c = controller(m)
    feed(m, welcome(), P.Seated(table=table(["Ann", None, None, None]), seat=0))
    sent: list[str] = []

    async def add() -> None:
        for _ in range(4):
            c.add_bot()
            await asyncio.sleep(0)
            sent.append(c.conn.sent[-1].strategy)  # type: ignore[attr-defined]
            c.cycle_bot_level()
    asyncio.run(add())
    assert sent == ["hard", "easy", "normal", "hard"]  # the default first, then b, b, b
    assert c.ui.status is not None and c.ui.status.text.startswith("Bots you add now are easy")


# ------------------------------------------------------------------ stale lines, refusals
def test_a_leave_question_goes_away_once_you_left() -> None:
    def script_factory() -> Any:
        async def script(h: Harness) -> None:
            await start_game(h)
            await h.keys("L")
            assert "Press L again" in text_of(render.status_line(h.c))
            await h.keys("L")
            await h.feed(P.Left(table_id="t1", reason="left"))
            assert "Press L again" not in text_of(render.status_line(h.c))
        return script
    ui_test(script_factory())


def test_a_row_choice_status_does_not_outlive_the_game() -> None:
    m = seated_game()
    c = controller(m)
    c.status("You take row 3.", "ok")
    c.on_message(P.GameOver(totals=(5, 0, 0, 70), places=(2, 1, 1, 4), winners=(1, 2)))
    assert "row 3" not in text_of(render.status_line(c))


def test_a_refusal_is_said_once_and_whole() -> None:
    m = seated_game()
    c = controller(m)
    message = "every seat must be taken: add bots to fill the empty ones"
    c.on_message(P.Error(code="not_enough_players", message=message, request="start"))
    status = text_of(render.status_line(c)).strip()
    assert status == f"{message}. Press a to add a bot."
    assert status.count("seat") == 1
    c.on_message(P.Error(code="frame_too_large", request="chat", message=""))
    assert "(frame_too_large)" not in text_of(render.status_line(c))
    assert code_words("frame_too_large") in text_of(render.status_line(c))


def test_after_a_server_restart_the_client_says_the_server_forgot() -> None:
    clock = Clock()
    m = seated_game(clock)
    feed(m, LinkLost("the server closed the connection"))
    clock.now += 3
    feed(m, P.Error(code="bad_token", request="hello", message="unknown"),
         LinkRestored(welcome(resumed=False, token="tok_new_0123456789")))
    said = " ".join(texts(m))
    assert "no longer knows your session" in said and "expired" not in said
    m2 = seated_game(clock)
    feed(m2, LinkLost("gone"))
    clock.now += 500  # longer than the server's reconnect_grace (120 s)
    feed(m2, LinkRestored(welcome(resumed=False, token="tok_new_0123456789")))
    assert "longer than the server keeps a seat" in texts(m2)[-1]


def test_a_spectator_the_server_forgot_watches_its_table_again() -> None:
    """A restarted server brings its tables back, but not its spectators' sessions:
    the client asks to watch the same table again, and says so."""
    m = TableModel(Clock())
    feed(m, welcome(), P.Watching(table=table(["Bob", "Cat"], table_id="t7", status="playing")))
    c = controller(m)

    async def run() -> None:
        c.on_message(LinkLost("the server closed the connection"))
        c.on_message(P.Error(code="bad_token", request="hello", message="unknown"))
        c.on_message(LinkRestored(welcome(resumed=False, token="tok_new_0123456789")))
        await asyncio.sleep(0)
    asyncio.run(run())
    assert P.Watch(table_id="t7") in c.conn.sent  # type: ignore[attr-defined]
    said = " ".join(texts(m))
    assert "asking to watch table t7 again" in said and "seat is gone" not in said
    # a player the server forgot is not sent anywhere: its seat is gone
    m2 = seated_game()
    c2 = controller(m2)

    async def run2() -> None:
        c2.on_message(LinkLost("gone"))
        c2.on_message(LinkRestored(welcome(resumed=False, token="tok_new_0123456789")))
        await asyncio.sleep(0)
    asyncio.run(run2())
    sent = c2.conn.sent  # type: ignore[attr-defined]
    assert not any(isinstance(x, P.Watch | P.Join) for x in sent)


def test_chat_typed_while_offline_is_sent_on_reconnect() -> None:
    m = seated_game()
    c = controller(m)

    async def run() -> None:
        c.on_message(LinkLost("gone"))
        c.send_chat("brb")
        await asyncio.sleep(0)
        assert not any(isinstance(x, P.Chat) for x in c.conn.sent)  # type: ignore[attr-defined]
        assert "sent when the connection is back" in text_of(render.status_line(c))
        c.on_message(LinkRestored(welcome(resumed=True)))
        await asyncio.sleep(0)
    asyncio.run(run())
    assert P.Chat(text="brb") in c.conn.sent  # type: ignore[attr-defined]


# ------------------------------------------------------------------ log, help, size
def test_the_log_title_says_when_it_is_scrolled_back() -> None:
    m = seated_game()
    c = controller(m)
    assert "older" not in text_of(render.log_title(c))
    c.scroll_log(+3)
    assert "↑ 3 older lines" in text_of(render.log_title(c))


def test_the_help_wraps_at_word_boundaries_to_the_smallest_screen() -> None:
    c = controller(seated_game())
    screen = Screen(c)
    screen.size = lambda: Size(rows=20, columns=60)
    lines = sheets.help_lines(c, screen.overlay_width() - 3)
    assert all(len(line) <= 55 for line in lines)
    words = " ".join(lines).split()
    assert "Professional" in words and "Tactic" in words  # every variant is explained
    assert screen.help_body_height() + 3 <= 20 - 2  # the title and key lines stay


def test_below_the_minimum_size_the_keys_that_decide_do_nothing() -> None:
    m = seated_game()
    c = controller(m)
    screen = Screen(c)
    c.fits = screen.fits
    screen.size = lambda: Size(rows=20, columns=59)

    async def press() -> None:
        c.enter()
        c.choose_row(1)
        await asyncio.sleep(0)
    asyncio.run(press())
    assert c.conn.sent == []  # type: ignore[attr-defined]
    assert "too small" in text_of(render.status_line(c))
    screen.size = lambda: Size(rows=20, columns=60)
    asyncio.run(press())
    assert isinstance(c.conn.sent[0], P.Commit)  # type: ignore[attr-defined]


def test_ten_players_fit_at_60x20_and_a_table_lacking_room_says_so() -> None:
    names = ["Ann"] + [f"Bot-{i}" for i in range(1, 10)]
    m = TableModel(Clock())
    feed(m, welcome(), P.Seated(table=table(names, bots=tuple(range(1, 10))), seat=0),
         P.RoundStarted(round=1), P.HandDealt(cards=(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)),
         P.RowsDealt(rows=((20,), (30,), (40,), (50,))),
         P.TurnStarted(round=1, turn=1, deadline=1e9, remaining=30.0))
    play_turn(m, [(i, 60 + i) for i in range(10)])
    c = controller(m)
    screen = Screen(c)
    screen.size = lambda: Size(rows=20, columns=60)
    assert screen.fits() and screen.spare_lines() >= 0
    screen.size = lambda: Size(rows=19, columns=60)
    assert not screen.fits()
    screen.size = lambda: Size(rows=60, columns=200)
    assert screen.fits() and screen.log_width() >= 80  # a large terminal: a wide log beside


def test_a_full_draft_pool_scrolls_with_the_cursor_when_the_screen_is_small() -> None:
    names = ["Ann"] + [f"Bot-{i}" for i in range(1, 10)]
    pool = tuple(range(1, 105))
    m = TableModel(Clock())
    feed(m, welcome(), P.Seated(table=table(names, bots=tuple(range(1, 10)), draft=True),
                                seat=0),
         P.RoundStarted(round=1), P.DraftOpened(round=1, pool=pool, first_picker=0),
         P.DraftPickNeeded(seat=0, round=1, pick=1, deadline=1e9, remaining=15.0),
         P.DraftPickRequest(round=1, pick=1, pool=pool, deadline=1e9, remaining=15.0))
    c = controller(m)
    screen = Screen(c)
    c.fits = screen.fits
    screen.size = lambda: Size(rows=20, columns=60)
    assert screen.fits()  # 104 cards and ten players at 60x20
    text = text_of(screen._rows_text())
    assert "↑/↓ scroll" in text and "[1¹]" in text
    for _ in range(11):
        c.vertical(+1)
    text = text_of(screen._rows_text())
    assert "[100³]" in text and "104" in text  # the cursor's line is on screen
