"""What the client shows of bullheads (client/model_game.py, client/tui/board.py): a
seat that takes two rows in one round has both rows' bullheads as its round's
penalty, and the final ranking of a table of more than five players is laid out in
two columns read downwards, every player once, the first column the longer."""

from __future__ import annotations

from test_client_model import feed, seated_game
from test_client_support import Clock, seat, welcome
from test_client_tui import text_of
from test_client_watch import controller

from nimmt import protocol as P
from nimmt.client import TableModel
from nimmt.client.tui.board import rows_panel


def test_two_rows_taken_in_one_round_add_up_in_the_seat_s_penalty() -> None:
    m = seated_game()
    feed(m, P.RowTaken(seat=1, row=1, cards=(37,), bullheads=1))
    feed(m, P.RowTaken(seat=1, row=2, cards=(43, 45, 55), bullheads=10))
    feed(m, P.RowTaken(seat=2, row=3, cards=(58,), bullheads=1))
    assert m.penalties[:3] == [0, 11, 1]
    assert [s.penalties for s in m.seats][:3] == [0, 11, 1]


def test_a_seven_player_ranking_fills_two_columns_downwards_four_then_three() -> None:
    names = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus"]
    totals = (31, 12, 67, 5, 40, 20, 50)
    seats = tuple(seat(n, total=t) for n, t in zip(names, totals, strict=True))
    over = P.TableInfo(table_id="t1", name="", options=P.TableOptions(seats=7), seats=seats,
                       host=0, status="over", spectators=0)
    m = feed(TableModel(Clock()), welcome(), P.Seated(table=over, seat=0))
    board = text_of(rows_panel(controller(m), 80))
    lines = [line.split() for line in board.splitlines()[1:]]
    assert lines == [
        ["1.", "Dan", "5", "won", "5.", "Eve", "40"],
        ["2.", "Bob", "12", "6.", "Gus", "50"],
        ["3.", "Fay", "20", "7.", "Cat", "67"],
        ["4.", "you", "31"],
    ]
