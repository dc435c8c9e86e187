"""The client's model: where a card put before a row goes is said with the row's first
card, and a round the server scores again (a seat taken back mid-round brings the
sheet it kept, then the round's own round_scored) is on the score sheet once.
Planted-bug survivors (issue 43, second sample: 28 and 29)."""

from __future__ import annotations

from test_client_model import feed, seated_game, texts
from test_client_support import table, welcome

from nimmt import protocol as P
from nimmt.client import TableModel
from nimmt.client.records import RoundResult


def test_a_card_put_before_a_row_is_said_to_go_before_its_first_card() -> None:
    m = seated_game(professional=True)
    feed(m, P.Placed(seat=1, card=40, row=1, end="right"),
         P.Placed(seat=2, card=30, row=1, end="left"),
         P.Placed(seat=1, card=41, row=1, end="right"))
    assert texts(m)[-3:] == ["Bob's 40 goes after 37 in row 2.",
                             "Cat's 30 goes before 37 in row 2.",
                             "Bob's 41 goes after 40 in row 2."]
    assert m.rows[1] == [30, 37, 40, 41]


def test_a_round_scored_after_the_kept_sheet_came_is_on_the_sheet_once() -> None:
    m = feed(TableModel(), welcome(), P.Seated(table=table(["Ann", "Bob"], status="playing"),
                                               seat=0, round_penalties=((3, 0), (1, 2))))
    feed(m, P.RoundScored(round=2, penalties=(1, 2), totals=(4, 2)))
    assert m.scores == [RoundResult(1, (3, 0), (3, 0)), RoundResult(2, (1, 2), (4, 2))]
    feed(m, P.RoundStarted(round=3), P.RoundScored(round=3, penalties=(0, 5), totals=(4, 7)))
    assert [r.round for r in m.scores] == [1, 2, 3]
