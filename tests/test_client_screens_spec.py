"""The client's screens as a player reads them (client/tui: board.py, sheets.py,
render.py, layout.py), line by line, at 80x24 and on a wide terminal (160x40): the
rows, the players, the round's result, the score sheet (rounds, totals, the latest
rounds when they do not all fit, a round in which a seat took two rows), the final
ranking of 2 to 10 players (ties, two columns read downwards), the help and the title.

Expected lines are written from docs/CLIENT.md and what the rules say a player should
see (issue 43: planted bugs in these screens escaped the client's tests). Rendered
from the model, no terminal; trailing blanks (invisible) are not compared."""

from __future__ import annotations

from typing import Any

import pytest
from test_client_evening import sheet_at
from test_client_model import feed, seated_game
from test_client_support import Clock, table, welcome
from test_client_tui import text_of

from nimmt import protocol as P
from nimmt.client import TableModel
from nimmt.client.tui import board, render, sheets

NAMES: list[str | None] = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo"]
SMALL = (24, 80)
WIDE = (40, 160)


def lines(frags: object) -> list[str]:
    return [line.rstrip() for line in text_of(frags).split("\n")]


def scored(names: list[str | None], rounds: list[tuple[int, ...]], seat: int = 0,
           **options: Any) -> TableModel:
    """A table whose rounds ``rounds`` (each seat's bullheads) are scored."""
    m = TableModel(Clock())
    feed(m, welcome(), P.Seated(table=table(names, status="playing", **options), seat=seat))
    totals = [0] * len(names)
    for k, penalties in enumerate(rounds, 1):
        totals = [t + p for t, p in zip(totals, penalties, strict=True)]
        feed(m, P.RoundStarted(round=k),
             P.RoundScored(round=k, penalties=penalties, totals=tuple(totals)))
    return m


def over(names: list[str | None], totals: tuple[int, ...], seat: int = 0,
         **options: Any) -> TableModel:
    """A game of one round over; places as the server gives them (ties share one)."""
    m = scored(names, [totals], seat, **options)
    places = tuple(1 + sum(t < x for t in totals) for x in totals)
    feed(m, P.GameOver(totals=totals, places=places,
                       winners=tuple(s for s, p in enumerate(places) if p == 1)))
    return m


# ---------------------------------------------------------------- the board
def test_the_rows_at_80x24_show_each_card_its_empty_slots_and_the_row_s_cost() -> None:
    c, s = sheet_at(seated_game(), *SMALL)
    assert s.rows_width() == 80
    assert lines(board.rows_panel(c, s.rows_width())) == [
        "  1 │  12¹    ·     ·     ·     ·     ·  │  1",
        "  2 │  37¹    ·     ·     ·     ·     ·  │  1",
        "  3 │  43¹    ·     ·     ·     ·     ·  │  1",
        "  4 │  58¹    ·     ·     ·     ·     ·  │  1",
        "  Cards chosen: 0 of 4",
    ]


def test_a_seat_taking_two_rows_in_a_round_shows_both_rows_bullheads_added() -> None:
    m = seated_game()
    c, s = sheet_at(m, *SMALL)
    feed(m, P.RowTaken(seat=1, row=1, cards=(37,), bullheads=1),
         P.RowTaken(seat=1, row=2, cards=(43, 45, 55), bullheads=10),
         P.RowTaken(seat=3, row=3, cards=(58,), bullheads=1))
    # 80 columns: the players in two columns read downwards, under the rows
    assert lines(board.players_panel(c, s.players_width())) == [
        "  Players        card  tot rnd  Players        card  tot rnd",
        "▶ Ann       ★          0   · …  Cat                  0   · …",
        "  Bob                  0 +11 …  Dan                  0  +1 …",
    ]
    feed(m, P.RoundScored(round=1, penalties=(0, 11, 0, 1), totals=(0, 11, 0, 1)))
    assert lines(board.rows_panel(c, s.rows_width()))[-2:] == [
        "  Round 1 over (fewer is better): you +0 → 0 · Cat +0 → 0 · Dan +1 → 1",
        "  Bob +11 → 11",
    ]
    assert lines(sheets.score_lines(c, s.overlay_width() - 2)) == [
        "          R1 total",
        " ▶  you    0     0",
        "    Bob   11    11",
        "    Cat    0     0",
        "    Dan    1     1",
    ]


def test_the_round_s_result_under_the_rows_lists_the_totals_best_first() -> None:
    m = scored(NAMES[:4], [(3, 0, 7, 1)])
    feed(m, P.RoundStarted(round=2), P.RowsDealt(rows=((12,), (37,), (43,), (58,))),
         P.RoundScored(round=2, penalties=(0, 9, 1, 1), totals=(3, 9, 8, 2)))
    c, s = sheet_at(m, *SMALL)
    assert lines(board.rows_panel(c, s.rows_width()))[4:] == [
        "  Round 2 over (fewer is better): Dan +1 → 2 · you +0 → 3 · Cat +1 → 8",
        "  Bob +9 → 9",
    ]
    c, s = sheet_at(m, *WIDE)
    assert lines(board.rows_panel(c, s.rows_width()))[4:] == [
        "  Round 2 over (fewer is better): Dan +1 → 2 · you +0 → 3",
        "  Cat +1 → 8 · Bob +9 → 9",
    ]


def test_the_players_aside_on_a_wide_terminal_one_a_line_with_the_long_headers() -> None:
    m = seated_game()
    c, s = sheet_at(m, *WIDE)
    assert s.players_width() == 37
    feed(m, P.RowTaken(seat=2, row=0, cards=(12,), bullheads=1),
         P.RowTaken(seat=2, row=3, cards=(58,), bullheads=1))
    assert lines(board.players_panel(c, s.players_width())) == [
        "  Players       card total round",
        "▶ Ann       ★            0     · …",
        "  Bob                    0     · …",
        "  Cat                    0    +2 …",
        "  Dan                    0     · …",
    ]


# ---------------------------------------------------------------- the score sheet
def test_the_score_sheet_at_80x24_every_round_and_the_totals_in_seat_order() -> None:
    m = scored(NAMES[:4], [(3, 0, 7, 1), (11, 2, 0, 5), (0, 9, 1, 1)])
    c, s = sheet_at(m, *SMALL)
    assert lines(sheets.score_lines(c, s.overlay_width() - 2)) == [
        "          R1  R2  R3 total",
        " ▶  you    3  11   0    14",
        "    Bob    0   2   9    11",
        "    Cat    7   0   1     8",
        "    Dan    1   5   1     7",
    ]


TWELVE: list[tuple[int, ...]] = [(r % 3, 2 * r % 5, r % 4) for r in range(1, 13)]


def test_a_sheet_too_narrow_for_every_round_shows_the_latest_after_an_ellipsis() -> None:
    m = scored(NAMES[:3], TWELVE, seat=1)
    c, s = sheet_at(m, *SMALL)
    assert lines(sheets.score_lines(c, s.overlay_width() - 2)) == [  # 64: 11 rounds
        "…         R2  R3  R4  R5  R6  R7  R8  R9 R10 R11 R12 total",
        "    Ann    2   0   1   2   0   1   2   0   1   2   0    12",
        " ▶  you    4   1   3   0   2   4   1   3   0   2   4    26",
        "    Cat    2   3   0   1   2   3   0   1   2   3   0    18",
    ]
    assert lines(sheets.score_lines(c, 40)) == [
        "…         R8  R9 R10 R11 R12 total",
        "    Ann    2   0   1   2   0    12",
        " ▶  you    1   3   0   2   4    26",
        "    Cat    0   1   2   3   0    18",
    ]
    assert lines(sheets.score_lines(c, 15)) == [  # the narrowest: the latest round
        "…        R12 total",
        "    Ann    0    12",
        " ▶  you    4    26",
        "    Cat    0    18",
    ]


def test_the_sheet_of_a_finished_countdown_game_best_first_with_points_left() -> None:
    m = over(NAMES[:7], (9, 4, 4, 20, 9, 4, 30), seat=2, countdown=True)
    c, s = sheet_at(m, *WIDE)
    assert lines(sheets.score_lines(c, s.overlay_width() - 2)) == [
        "          R1  left",
        " 1. Bob    4    62",
        " 1. you    4    62",
        " 1. Fay    4    62",
        " 4. Ann    9    57",
        " 4. Eve    9    57",
        " 6. Dan   20    46",
        " 7. Gus   30    36",
    ]


# ---------------------------------------------------------------- the final ranking
HEAD = "  Game over — final ranking (bullheads):"
#: totals (7 × seat) mod 13: 0 7 1 8 2 9 3 10 4 11, every total different
RANKINGS = {
    2: ["   1. you               0 won",
        "   2. Bob               7"],
    3: ["   1. you               0 won",
        "   2. Cat               1",
        "   3. Bob               7"],
    4: ["   1. you               0 won",
        "   2. Cat               1",
        "   3. Bob               7",
        "   4. Dan               8"],
    5: ["   1. you               0 won",
        "   2. Cat               1",
        "   3. Eve               2",
        "   4. Bob               7",
        "   5. Dan               8"],
    6: ["   1. you               0 won    4. Bob               7",
        "   2. Cat               1        5. Dan               8",
        "   3. Eve               2        6. Fay               9"],
    7: ["   1. you               0 won    5. Bob               7",
        "   2. Cat               1        6. Dan               8",
        "   3. Eve               2        7. Fay               9",
        "   4. Gus               3"],
    8: ["   1. you               0 won    5. Bob               7",
        "   2. Cat               1        6. Dan               8",
        "   3. Eve               2        7. Fay               9",
        "   4. Gus               3        8. Hal              10"],
    9: ["   1. you               0 won    6. Bob               7",
        "   2. Cat               1        7. Dan               8",
        "   3. Eve               2        8. Fay               9",
        "   4. Gus               3        9. Hal              10",
        "   5. Ivy               4"],
    10: ["   1. you               0 won    6. Bob               7",
         "   2. Cat               1        7. Dan               8",
         "   3. Eve               2        8. Fay               9",
         "   4. Gus               3        9. Hal              10",
         "   5. Ivy               4       10. Jo               11"],
}


@pytest.mark.parametrize("players", range(2, 11))
def test_the_final_ranking_at_80x24_one_column_up_to_five_two_columns_downwards(
        players: int) -> None:
    m = over(NAMES[:players], tuple(7 * s % 13 for s in range(players)))
    c, s = sheet_at(m, *SMALL)
    assert lines(board.rows_panel(c, s.rows_width())) == [HEAD, *RANKINGS[players], ""]


def test_the_ten_player_ranking_keeps_two_columns_on_the_smallest_terminal() -> None:
    m = over(NAMES, tuple(7 * s % 13 for s in range(10)))
    c, s = sheet_at(m, 20, 60)
    assert s.rows_width() == 60
    assert lines(board.rows_panel(c, s.rows_width())) == [HEAD, *RANKINGS[10], ""]


def test_a_tied_countdown_ranking_on_a_wide_terminal_shares_places_and_wins() -> None:
    m = over(NAMES[:7], (9, 4, 4, 20, 9, 4, 30), seat=2, countdown=True)
    c, s = sheet_at(m, *WIDE)
    assert s.rows_width() == 67
    assert lines(board.rows_panel(c, s.rows_width())) == [
        "  Game over — final ranking (points left):",
        "   1. Bob              62 won    4. Eve              57",
        "   1. you              62 won    6. Dan              46",
        "   1. Fay              62 won    7. Gus              36",
        "   4. Ann              57",
        "",
    ]


def test_a_long_name_is_cut_to_fourteen_in_the_ranking_its_columns_kept() -> None:
    names: list[str | None] = ["Ann", "Bartholomew-Longname", "Cat", "Dan", "Eve", "Fay"]
    m = over(names, (5, 1, 2, 3, 4, 66))
    c, s = sheet_at(m, *SMALL)
    assert lines(board.rows_panel(c, s.rows_width())) == [
        HEAD,
        "   1. Bartholomew-Lo    1 won    4. Eve               4",
        "   2. Cat               2        5. you               5",
        "   3. Dan               3        6. Fay              66",
        "",
    ]


# ---------------------------------------------------------------- the help
def test_the_help_at_80x24_begins_with_this_table_s_rules_and_scrolls() -> None:
    m = seated_game(countdown=True, point_limit=50, professional=True, rounds=3)
    c, s = sheet_at(m, *SMALL)
    shown = text_of(s._help_body()).split("\n")
    assert len(shown) == 18  # 24 lines less the frame, title and foot
    assert shown[:12] == [
        " This table: Professional rows.",
        " ✓ Professional rows: a card may also go before a row's first",
        "   card when it is lower than it (and the row is its closest);",
        "   when both places fit, you choose where it goes.",
        " ✓ Countdown: scores are shown as points left (the point limit",
        "   minus the bullheads taken).",
        " The game ends after the round in which someone reaches 50",
        " bullheads or after 3 rounds.",
        " Time: 30 s to choose a card, 20 s to choose a row or a place;",
        " then the autopilot decides for you.",
        " ✓ Coach: while you choose, the line under your hand says where",
        "   the card under the cursor would go, what it would take and",
    ]
    total = len(s._help_lines())
    assert text_of(s._help_foot()) == f" ? or Esc closes · ↑/↓ PgUp/PgDn: lines 1–18 of {total}"
    assert max(len(line) for line in s._help_lines()) <= s.overlay_width() - 3


def test_the_help_of_a_standard_untimed_table_says_so() -> None:
    m = seated_game(coach=False, turn_time=3600.0, choice_time=3600.0, draft_time=3600.0)
    c, s = sheet_at(m, *WIDE)
    assert s._help_lines()[:5] == [
        " This table: the standard game (no variant).",
        " The game ends after the round in which someone reaches 66",
        " bullheads.",
        " Untimed: take the time you need (no clock).",
        " No coach: the host has not turned it on at this table.",
    ]


# ---------------------------------------------------------------- the title
def test_the_title_names_you_the_table_its_rules_the_round_and_the_turn() -> None:
    c, _ = sheet_at(seated_game(), *SMALL)
    assert text_of(render.title_bar(c, 80)) == \
        " nimmt  ● Ann · table t1 · coach · 66 pts · round 1 · turn 1/10"


def test_a_countdown_title_says_points_left_and_shortens_when_narrow() -> None:
    m = seated_game(countdown=True, point_limit=50, professional=True, rounds=3)
    c, _ = sheet_at(m, *WIDE)
    assert text_of(render.title_bar(c, 160)) == (
        " nimmt  ● Ann · table t1 · coach · pro · 50 pts left · 3 rounds · round 1 · turn 1/10")
    assert text_of(render.title_bar(c, 80)) == \
        " nimmt  ● Ann · t1 · coach · pro · 50 left · 3r · r1 · turn 1/10"
    assert text_of(render.title_bar(c, 50)) == \
        " nimmt  ● Ann · t1 · pro · 50 left · 3r · r1 · turn 1/10"


def test_the_title_of_a_finished_game_says_game_over() -> None:
    m = over(NAMES[:7], (9, 4, 4, 20, 9, 4, 30), seat=2, countdown=True)
    c, _ = sheet_at(m, *WIDE)
    assert text_of(render.title_bar(c, 160)) == \
        " nimmt  ● Cat · table t1 · coach · 66 pts left · game over"
