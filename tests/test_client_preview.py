"""The line under your hand while you choose (issue 45): where the card under the
cursor goes if played alone, what it takes, and how many cards could get there first."""

from __future__ import annotations

from prompt_toolkit.data_structures import Size
from test_client_tui import LEFT, RIGHT, Harness, start_game, text_of, ui_test
from test_client_watch import controller

from nimmt import protocol as P
from nimmt.client.model import TableModel
from nimmt.client.preview import preview_text
from nimmt.client.tui import render
from nimmt.client.tui.layout import Screen
from test_client_support import table

# rows: 4 cards (1 bullhead each but 15: 2) | 1 card | 5 cards (12 bullheads) | 1 card
ROWS = [[12, 14, 15, 21], [37], [43, 44, 45, 46, 50], [58]]


def test_the_fifth_card_of_a_row_is_placed_and_the_sixth_takes_the_row() -> None:
    assert preview_text(26, ROWS, frozenset({22, 23, 30})) == \
        "→ row 1, 5th card · 2 unseen cards between 21 and 26"
    assert preview_text(51, ROWS, frozenset({51, 52})) == \
        "→ row 3: 6th card, takes 12 · no unseen card between 50 and 51"
    assert preview_text(57, ROWS, frozenset({50, 53, 57, 58})) == \
        "→ row 3: 6th card, takes 12 · 1 unseen card between 50 and 57"
    assert preview_text(40, ROWS, frozenset(range(1, 105))) == \
        "→ row 2, 2nd card · 2 unseen cards between 37 and 40"


def test_a_card_lower_than_every_row_fits_none_and_names_the_cheapest_row() -> None:
    assert preview_text(5, ROWS, frozenset({1, 2, 5, 9})) == \
        "→ no row fits: you take a row (the cheapest: row 2, 1 bullhead) · " \
        "2 unseen cards are lower"
    assert preview_text(11, [[12, 22], [20], [30, 55], [40]], frozenset()) == \
        "→ no row fits: you take a row (the cheapest: row 2, 3 bullheads) · " \
        "no unseen card is lower"


def test_professional_rows_place_before_a_row_and_ties_are_the_players() -> None:
    rows = [[20, 25], [40], [60], [80]]
    assert preview_text(18, rows, frozenset({19}), professional=True) == \
        "→ row 1, 3rd card · 1 unseen card between 18 and 20"
    assert preview_text(18, rows, frozenset({19})) == \
        "→ no row fits: you take a row (the cheapest: row 2, 3 bullheads) · " \
        "no unseen card is lower"
    assert preview_text(30, [[20, 25], [35], [60], [80]], frozenset(), professional=True) == \
        "→ row 1 or row 2 (you choose), 3rd card · no unseen card between 25 and 30"


def test_unseen_leaves_out_the_hand_and_the_cards_played_this_round() -> None:
    m = TableModel()
    for msg in (P.Seated(table=table(["Ann", "Bob"]), seat=0), P.RoundStarted(round=1),
                P.HandDealt(cards=(5, 30, 60, 70, 80, 90, 95, 100, 101, 102)),
                P.RowsDealt(rows=((10,), (20,), (40,), (50,))),
                P.TurnStarted(round=1, turn=1, deadline=1e9, remaining=30.0),
                P.Revealed(plays=((0, 5), (1, 22)))):
        m.apply(msg)
    came = m.could_come()
    # 21..29 less 22 (revealed this turn): 23..29 and 21, not 30 (ours)
    assert sorted(c for c in came if 20 < c < 31) == [21, 23, 24, 25, 26, 27, 28, 29]
    assert {5, 10, 20, 22, 30} & came == set()
    m.apply(P.RoundStarted(round=2))  # a new round: nothing seen yet
    assert 22 in m.could_come()


def test_the_tactic_deck_and_draft_narrow_what_could_come() -> None:
    m = TableModel()
    for msg in (P.Seated(table=table(["Ann", "Bob", "Cat"], tactic_deck=True), seat=0),
                P.RoundStarted(round=1)):
        m.apply(msg)
    assert max(m.could_come()) == 34
    m = TableModel()
    for msg in (P.Seated(table=table(["Ann", "Bob"], draft=True), seat=0),
                P.RoundStarted(round=1)):
        m.apply(msg)
    m.draft_picks = [(0, 7), (1, 8), (0, 9), (1, 3)]
    assert m.could_come() == frozenset({3, 8})


def _preview(h: Harness) -> str:
    lines = text_of(render.hand_line(h.c, 100)).split("\n")
    return lines[1].strip() if len(lines) > 1 else ""


def test_moving_the_cursor_changes_the_line_and_p_turns_it_off() -> None:
    async def script(h: Harness) -> None:
        await start_game(h)  # hand 5 14 33 55 70 81 90 97 101 104; rows 12 | 37 | 43 | 58
        assert _preview(h) == ("→ no row fits: you take a row (the cheapest: row 1, 1 bullhead) "
                               "· 4 unseen cards are lower")
        await h.keys(RIGHT)
        assert _preview(h) == "→ row 1, 2nd card · 1 unseen card between 12 and 14"
        await h.keys(RIGHT + RIGHT)
        assert _preview(h) == "→ row 3, 2nd card · 11 unseen cards between 43 and 55"
        await h.keys("p")
        assert _preview(h) == ""
        assert "The preview under your hand is off." in text_of(render.status_line(h.c))
        await h.keys("p" + LEFT)
        assert _preview(h) == "→ row 1, 2nd card · 19 unseen cards between 12 and 33"
    ui_test(script)


def test_a_rated_table_shows_no_preview_and_p_does_not_turn_it_on() -> None:
    async def script(h: Harness) -> None:
        await start_game(h, rated=True)
        assert _preview(h) == ""
        await h.keys("p")
        assert _preview(h) == ""
        assert "A rated table shows no preview" in text_of(render.status_line(h.c))
    ui_test(script)


def test_the_preview_shows_only_where_it_leaves_the_event_log_six_lines() -> None:
    m = TableModel()
    for msg in (P.Seated(table=table(["Ann", "Bob", "Cat", "Dan"]), seat=0),
                P.RoundStarted(round=1),
                P.HandDealt(cards=(5, 14, 33, 55, 70, 81, 90, 97, 101, 104)),
                P.RowsDealt(rows=((12,), (37,), (43,), (58,))),
                P.TurnStarted(round=1, turn=1, deadline=1e9, remaining=30.0)):
        m.apply(msg)
    screen = Screen(controller(m))
    for rows, shown in ((20, False), (24, True), (40, True)):
        screen.size = lambda rows=rows: Size(rows=rows, columns=60)  # type: ignore[misc]
        hand = text_of(screen._hand_text())
        assert ("→ no row fits" in hand) is shown, rows
        assert screen.spare_lines() >= (7 if shown else 2), rows
