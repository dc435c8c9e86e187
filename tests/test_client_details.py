"""The smaller things a player notices at a table (issue 44): a spectator's view of
the start, a finished game found again after a server restart, the autopilot's turns
while away, every player's clock, what a rated game did to the ratings, a reconnect
said once, words that fit the width, the queue form, replays and a big screen's log.

Model and controller tests (no terminal), like tests/test_client_watch.py.
"""

from __future__ import annotations

import asyncio
import dataclasses

from prompt_toolkit.data_structures import Size
from storage_helpers import play_game
from prompt_toolkit.utils import get_cwidth
from test_client_model import feed, play_turn, seated_game, texts
from test_client_support import Clock, seat, table, welcome
from test_client_tui import DOWN, RIGHT, Harness, text_of, ui_test
from test_client_watch import controller

from nimmt import protocol as P
from nimmt.client import LinkLost, LinkRestored, TableModel
from nimmt.client.replay import ReplayPlayer
from nimmt.client.tui import board, render, sheets
from nimmt.client.tui.board import rows_panel as board_panel
from nimmt.client.tui.controller import Controller
from nimmt.client.tui.layout import PLAYERS_ASIDE_WIDTH, Screen
from nimmt.client.tui.state import FORM_FIELDS
from nimmt.engine import Options, record_from_game
from nimmt.server.records.replay import spectator_messages

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


# ------------------------------------------------------------------ the autopilot while away
def test_the_turns_the_autopilot_played_while_you_were_away_are_in_your_log() -> None:
    m = feed(TableModel(Clock()), welcome(), P.Seated(table=table(NAMES), seat=0),
             P.RoundStarted(round=1), P.HandDealt(cards=(5, 14, 33, 46, 70, 81, 90, 97)),
             P.RowsDealt(rows=((12,), (37,), (43,), (58,))),
             P.TurnStarted(round=1, turn=3, deadline=1e9, remaining=30.0),
             P.CommitAccepted(round=1, turn=3, card=14, re=7),
             LinkLost("timeout"), LinkRestored(welcome(resumed=True)))
    seats = tuple(seat(n, total=t) for n, t in zip(NAMES, (6, 0, 0, 1), strict=True))
    back = P.TableInfo(table_id="t1", name="", options=P.TableOptions(seats=4), seats=seats,
                       host=0, status="playing", spectators=0)
    snap = P.Snapshot(table=back, seat=0, round=1, turn=6, phase="commit",
                      hand=(5, 33, 81, 97), commit=None, rows=((12,), (37,), (43,), (58,)),
                      deadline=1e9, remaining=20.0, committed=(), revealed=(),
                      draft_pool=(), draft_picks=(), pending=None)
    feed(m, P.Seated(table=back, seat=0), snap)
    assert texts(m)[-2:] == [
        "Reconnected: you are at table t1, seat 1; the game is at round 1, turn 6.",
        "While you were away the autopilot played 46, 70 and 90 for you (you took 6 "
        "bullheads)."]


def test_a_later_round_found_on_return_is_said_and_a_spectator_is_told_nothing() -> None:
    m = feed(TableModel(Clock()), welcome(), P.Seated(table=table(NAMES), seat=0),
             P.RoundStarted(round=2), P.HandDealt(cards=(5, 14)),
             LinkLost("timeout"), LinkRestored(welcome(resumed=True)))
    snap = P.Snapshot(table=table(NAMES, status="playing"), seat=0, round=3, turn=1,
                      phase="commit", hand=(8, 9, 10), commit=None,
                      rows=((12,), (37,), (43,), (58,)), deadline=1e9, remaining=20.0,
                      committed=(), revealed=(), draft_pool=(), draft_picks=(), pending=None)
    feed(m, P.Seated(table=snap.table, seat=0), snap)
    assert texts(m)[-1] == ("While you were away the autopilot played your turns from "
                            "round 2 to round 3.")
    watcher = feed(TableModel(Clock()), welcome("Eve"), P.Watching(table=table(NAMES)),
                   P.RoundStarted(round=1), LinkLost("timeout"),
                   LinkRestored(welcome("Eve", resumed=True)))
    feed(watcher, P.Watching(table=snap.table), dataclasses.replace(snap, seat=None, hand=()))
    assert not [t for t in texts(watcher) if "autopilot" in t]


# ------------------------------------------------------------------ every player's clock
def test_others_on_extra_time_run_the_clock_down_and_your_bank_is_shown_before_you_use_it(
) -> None:
    clock = Clock()
    m = seated_game(clock, time_bank=40.0)  # the turn's 30 s run from 1000
    c = controller(m, clock)
    assert "⏱ 0:30 bank 0:40" in text_of(render.prompt_line(c, clock.now))
    clock.now += 10.0
    feed(m, P.CommitAccepted(round=1, turn=1, card=5, re=3), P.SeatCommitted(seat=0),
         P.SeatCommitted(seat=2))
    clock.now += 25.0  # 5 s past the deadline: Bob commits from his bank
    feed(m, P.SeatCommitted(seat=1))
    clock.now += 15.0  # Dan has used 20 s of his 40
    prompt = text_of(render.prompt_line(c, clock.now))
    assert "⏱ extra 0:20" in prompt and "0:00" not in prompt
    dan = text_of(board.players_panel(c, 36)).splitlines()[4]
    assert dan.split()[0] == "Dan" and dan.endswith(" 20s")
    clock.now += 5.0  # Dan's commit comes with the reveal (the autopilot's, or his)
    play_turn(m, [(0, 5), (1, 60), (2, 61), (3, 62)])
    assert m.banks == [40.0, 35.0, 40.0, 15.0]
    feed(m, P.RoundScored(round=1, penalties=(0, 0, 0, 0), totals=(0, 0, 0, 0)),
         P.TurnStarted(round=1, turn=2, deadline=1e9, remaining=30.0))
    clock.now += 40.0  # 10 s past: you have 30 s left, Bob 25 s, Dan 5 s
    assert [m.extra_left(s) for s in range(4)] == [30.0, 25.0, 30.0, 5.0]
    feed(m, P.SeatCommitted(seat=2))  # (Cat, just now: from her bank)
    assert [m.extra_left(s) for s in range(4)] == [30.0, 25.0, None, 5.0]
    assert m.banks[2] == 30.0
    assert "⏱ extra 0:30" in text_of(render.prompt_line(c, clock.now))
    players = text_of(board.players_panel(c, 36)).splitlines()
    assert players[2].endswith(" 25s") and players[4].endswith(" 5s")
    # your own extra time: the server counts it; the clock shows it, the bank is not repeated
    feed(m, P.DeadlineWarning(kind="commit", round=1, turn=2, pick=0, deadline=1e9 + 40,
                              remaining=30.0))
    prompt = text_of(render.prompt_line(c, clock.now))
    assert "⏱ extra 0:30" in prompt and "bank" not in prompt
    clock.now += 12.0
    feed(m, P.CommitAccepted(round=1, turn=2, card=14, re=4))
    assert m.banks[0] == 18.0


# ------------------------------------------------------------------ ratings
def test_a_rated_game_s_end_says_what_it_did_to_each_rating_and_only_rated_tables_show_them(
) -> None:
    def at(options: dict[str, object], ratings: tuple[float | None, ...],
           status: str = "playing") -> P.TableInfo:
        info = table(["Ann", "Dee"], status=status, **options)
        return dataclasses.replace(info, seats=tuple(
            dataclasses.replace(s, claimed=True, rating=r, games=0 if r is None else 3)
            for s, r in zip(info.seats, ratings, strict=True) if s is not None))

    m = feed(TableModel(Clock()), welcome(), P.Seated(table=at({"rated": True}, (14.27, None)),
                                                      seat=0))
    c = controller(m)
    assert text_of(board.players_panel(c, 36)).splitlines()[1].startswith("▶ Ann  14.3 ★")
    feed(m, P.RoundStarted(round=1),
         P.GameOver(totals=(20, 3), places=(2, 1), winners=(1,)),
         P.TableUpdated(table=at({"rated": True}, (14.02, 0.41), "over")))
    assert texts(m)[-1] == "Ratings after this game: Ann 14.3 → 14.0, Dee 0.0 → 0.4."
    casual = feed(TableModel(Clock()), welcome(), P.Seated(table=at({}, (14.27, 0.41)), seat=0))
    players = text_of(board.players_panel(controller(casual), 36)).splitlines()
    assert players[1].split() == ["▶", "Ann", "★", "0", "·"]  # no rating at a casual table
    feed(casual, P.RoundStarted(round=1), P.GameOver(totals=(20, 3), places=(2, 1), winners=(1,)),
         P.TableUpdated(table=at({}, (14.27, 0.41), "over")))
    assert not [t for t in texts(casual) if "Ratings" in t]


# ------------------------------------------------------------------ coming back, in one line
def test_coming_back_is_said_in_one_line_and_a_later_join_is_not_a_return() -> None:
    playing = table(NAMES, status="playing")
    snap = P.Snapshot(table=playing, seat=0, round=2, turn=4, phase="commit", hand=(5, 9),
                      commit=None, rows=((12,), (37,), (43,), (58,)), deadline=1e9,
                      remaining=20.0, committed=(), revealed=(), draft_pool=(),
                      draft_picks=(), pending=None)
    m = feed(TableModel(Clock()), welcome(resumed=True), P.Seated(table=playing, seat=0), snap)
    assert texts(m) == ["Welcome back: you are at table t1, seat 1; the game is at round 2, "
                        "turn 4."]
    waiting = feed(TableModel(Clock()), welcome(), P.Seated(table=table(NAMES), seat=2),
                   LinkLost("timeout"), LinkRestored(welcome(resumed=True)),
                   P.Seated(table=table(NAMES), seat=2))
    assert texts(waiting)[-1] == "Reconnected: you are at table t1, seat 3."
    lobby = feed(TableModel(Clock()), welcome(resumed=True), P.TableList(tables=()),
                 P.Seated(table=table(NAMES), seat=1))
    assert texts(lobby)[0] == "You sit at table t1, seat 2."


# ------------------------------------------------------------------ words that fit
def test_at_80_columns_the_players_have_headers_and_beside_the_rows_away_is_whole() -> None:
    m = seated_game()
    c = controller(m)
    lines = text_of(board.players_panel(c, 80)).splitlines()
    assert lines[0] == "  Players        card  tot rnd  Players        card  tot rnd"
    assert lines[1].split() == ["▶", "Ann", "★", "0", "·", "…", "Cat", "0", "·", "…"]
    away = dataclasses.replace(m.table, seats=tuple(  # type: ignore[arg-type]
        dataclasses.replace(s, connected=i != 1) for i, s in enumerate(m.table.seats)  # type: ignore[union-attr]
        if s is not None))
    feed(m, P.TableUpdated(table=away))
    aside = text_of(board.players_panel(c, PLAYERS_ASIDE_WIDTH)).splitlines()
    assert aside[2].startswith("  Bob") and aside[2].endswith("· away")
    assert max(get_cwidth(line) for line in aside) <= PLAYERS_ASIDE_WIDTH


def test_the_empty_score_sheet_s_sentence_is_wrapped_whole_at_80_columns() -> None:
    c = controller(seated_game())
    screen = Screen(c)
    screen.size = lambda: Size(rows=24, columns=80)
    width = screen.overlay_width() - 2
    lines = text_of(sheets.score_lines(c, width)).splitlines()
    assert [line.strip() for line in lines] == [
        "No round has been scored yet: the sheet fills in at the end of",
        "each round."]
    assert max(get_cwidth(line) for line in lines) < screen.sheet_width()  # (its window)


def test_a_countdown_table_says_so_in_the_title() -> None:
    c = controller(seated_game(countdown=True, point_limit=50))
    assert " · 50 pts left · round 1 · turn 1/10" in text_of(render.title_bar(c, 100))
    assert " · 50 left · r1 · turn 1/10" in text_of(render.title_bar(c, 40))


def test_a_narrow_score_sheet_shows_the_latest_rounds() -> None:
    m = seated_game()
    for r in range(1, 13):
        feed(m, P.RoundScored(round=r, penalties=(r, 0, 1, 2), totals=(r, 0, r, 2 * r)))
    sheet = text_of(sheets.score_lines(controller(m), 40)).splitlines()
    assert sheet[0].split() == ["…", "R8", "R9", "R10", "R11", "R12", "total"]
    assert sheet[1].split() == ["▶", "you", "8", "9", "10", "11", "12", "12"]
    wide = text_of(sheets.score_lines(controller(m), 80)).splitlines()
    assert wide[0].split()[0] == "R1" and wide[0].split()[-2:] == ["R12", "total"]


# ------------------------------------------------------------------ the queue's form
def test_q_s_form_says_rated_yes_unchangeably_and_its_hint_goes_once_queued() -> None:
    rated_at = next(i for i, f in enumerate(FORM_FIELDS) if f.key == "rated")

    async def script(h: Harness) -> None:
        await h.feed(P.TableList(tables=()))
        await h.keys("Q")
        assert "Q queues" in text_of(render.status_line(h.c))
        await h.keys(DOWN * rated_at + RIGHT)  # ←/→ on Rated change nothing here
        form = text_of(render.form_panel(h.c, 78)).splitlines()
        assert form[rated_at].split() == ["▶", "Rated", "yes"]
        assert "◀" not in form[rated_at]
        assert "A game the queue forms is always rated" in " ".join(form[rated_at + 1:])
        await h.keys("Q")
        assert len(h.sent(P.Queue)) == 1 and h.c.ui.form is None
        await h.feed(P.Queued(seats=4, position=1, waiting=1, fill_in=30.0, re=2))
        assert "In the queue: rated game of 4" in text_of(render.lobby_panel(h.c, 78))
        assert render.status_line(h.c) == []  # the form's hint is over
        await h.keys("n")  # the new-table form is the other one: Rated may be changed
        await h.keys("Q")  # (leave the queue first: n did nothing while queued)
        await h.feed(P.QueueLeft(reason="left", re=3))
        await h.keys("n" + DOWN * rated_at + RIGHT)
        assert text_of(render.form_panel(h.c, 78)).splitlines()[rated_at].split() == [
            "▶", "Rated", "◀", "yes", "▶"]
    ui_test(script)


# ------------------------------------------------------------------ replays
def test_a_replay_claims_no_clock_and_its_first_step_is_the_first_turn() -> None:
    game, _ = play_game(Options(players=3, rounds=1), 5)
    record = record_from_game(game, seats=["Ann", "Bob", "Cat"])
    player = ReplayPlayer(spectator_messages(record, "t7", "Friday"))
    c = controller(player.model)
    c.replay = player
    first = text_of(render.title_bar(c, 120))
    assert first == " nimmt  replay of “Friday” · 66 pts · 1 round · round 1 · turn 1/10"
    assert player.model.rows and player.model.turn == 1  # the rows and the turn: one step
    player.step(+1)  # the cards revealed: the title stays
    c.model = player.model
    assert text_of(render.title_bar(c, 120)) == first


# ------------------------------------------------------------------ a big terminal's room
def test_a_big_terminal_shows_the_score_sheet_under_the_table_beside_the_log() -> None:
    m = seated_game()
    c = controller(m)
    screen = Screen(c)
    screen.size = lambda: Size(rows=60, columns=200)
    assert screen.sheet_below() == []  # no round scored yet
    for r in (1, 2):
        feed(m, P.RoundScored(round=r, penalties=(r, 2 * r, 0, 1), totals=(r, 3 * r, 0, r)))
    below = text_of(screen.sheet_below()).splitlines()
    assert below[1].startswith("─ Score sheet: bullheads per round ──")
    assert [line.split() for line in below[2:]] == [
        ["R1", "R2", "total"], ["▶", "you", "1", "2", "2"], ["Bob", "2", "4", "6"],
        ["Cat", "0", "0", "0"], ["Dan", "1", "1", "2"]]
    screen.size = lambda: Size(rows=60, columns=140)  # the log is below the table: no room
    assert screen.sheet_below() == []


def test_a_replay_from_a_seat_shows_that_player_s_hand_and_bots_keep_their_mark() -> None:
    game, _ = play_game(Options(players=3, rounds=1), 5)
    record = record_from_game(game, seats=["Ann", "Bob", "Cat"])
    dealt = sorted(record.rounds[0].hands[1])  # type: ignore[index]
    player = ReplayPlayer(spectator_messages(record, "t7", "Friday", seat=1,
                                             kinds=["human", "bot", "bot"]))
    m = player.model
    assert m.seat == 1 and m.hand == dealt and m.turn == 1
    c = controller(m)
    c.replay = player
    assert "replay of “Friday” · as Bob · 66 pts" in text_of(render.title_bar(c, 120))
    seats = text_of(board.players_panel(c, 37)).splitlines()[1:]
    assert [("⚙" in line) for line in seats] == [False, True, True]
    player.step(+1)  # the cards revealed: Bob's is no longer in his hand
    played = dict(player.model.revealed)[1]
    assert player.model.hand == [card for card in dealt if card != played]
    watching = ReplayPlayer(spectator_messages(record)).model
    assert watching.seat is None and watching.hand == []  # as a spectator: no hand


def test_the_sheet_under_the_table_does_not_stop_a_solo_game_s_clock() -> None:
    m = feed(TableModel(Clock()), welcome(),
             P.Seated(table=table(NAMES, bots=(1, 2, 3)), seat=0), P.RoundStarted(round=1),
             P.TurnStarted(round=1, turn=1, deadline=1e9, remaining=30.0))
    sent: dict[str, list[str]] = {}
    for columns in (200, 80):
        c = controller(m)
        screen = Screen(c)
        screen.size = lambda: Size(rows=60, columns=columns)  # noqa: B023

        async def round_ends(c: Controller) -> None:
            c.on_message(P.RoundScored(round=1, penalties=(1, 0, 0, 0), totals=(1, 0, 0, 0)))
            await c.drain()
        asyncio.run(round_ends(c))
        assert c.ui.sheet_open
        sent[f"{columns}"] = [x.TYPE for x in c.conn.sent]  # type: ignore[attr-defined]
        m.scores = []  # (the next size sees the round end afresh)
    assert sent == {"200": [], "80": ["pause"]}  # over the table (80): stopped while read


def test_the_other_players_banks_are_shown_from_the_start_and_as_they_are_used() -> None:
    clock = Clock()
    m = seated_game(clock, time_bank=40.0)  # the turn's 30 s run from 1000
    c = controller(m, clock)
    players = text_of(board.players_panel(c, 37)).splitlines()
    assert players[-1] == "  bank Bob 0:40 · Cat 0:40 · Dan 0:40"  # not yours: the prompt's
    assert text_of(board.players_panel(c, 30)).splitlines()[-1] == "  bank Bob 0:40 · Cat 0:40"
    feed(m, P.CommitAccepted(round=1, turn=1, card=5, re=3), P.SeatCommitted(seat=0),
         P.SeatCommitted(seat=2))
    clock.now += 35.0  # 5 s past the deadline: Bob commits from his bank
    feed(m, P.SeatCommitted(seat=1))
    clock.now += 15.0  # Dan is on his bank: 20 s left
    assert text_of(board.players_panel(c, 37)).splitlines()[-1] == (
        "  bank Bob 0:35 · Cat 0:40 · Dan 0:20")
    untimed = controller(seated_game(Clock()), Clock())
    assert "bank" not in text_of(board.players_panel(untimed, 37))
    with_a_bot = controller(seated_game(Clock(), time_bank=40.0, bots=(2,)), Clock())
    assert text_of(board.players_panel(with_a_bot, 37)).splitlines()[-1] == (
        "  bank Bob 0:40 · Dan 0:40")  # a built-in bot has none


def test_the_row_under_the_cursor_says_what_enter_does_in_the_room_there_is() -> None:
    """With the players beside the rows (100 columns on) the rows get 63 to 88; a
    hint that reads whole at every width, never a bare "◀ Enter" once 14 fit."""
    m = seated_game()
    play_turn(m, [(0, 3), (1, 60), (2, 61), (3, 62)])
    feed(m, P.RowChoiceNeeded(seat=0, card=3, deadline=1e9, remaining=20.0),
         P.RowChoiceRequest(round=1, turn=1, card=3, rows=(0, 1, 2, 3), deadline=1e9,
                            remaining=20.0))
    c = controller(m)

    def hint(width: int) -> str:
        (line,) = [ln for ln in text_of(board_panel(c, width)).splitlines() if "◀" in ln]
        assert get_cwidth(line) <= width - 2
        return line[line.index("◀"):]

    # 63: at 100 columns; 64-69: 101-106; 70: 107
    assert [hint(w) for w in (60, 61, 63, 64, 69, 70)] == [
        "◀ Enter", "◀ Enter: take", "◀ Enter: take", "◀ Enter takes it", "◀ Enter takes it",
        "◀ Enter takes this row"]
