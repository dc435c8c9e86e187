"""The client's model against a fresh sample of mutants (issue 43, seed 25): which card
of a turn's reveal is the one being placed, a table of a lower id is another table, a
time bank never below nothing, no ranking made up for a game still being played."""

from __future__ import annotations

import dataclasses

from test_client_model import NAMES, feed, play_turn, seated_game, texts
from test_client_support import Clock, table, welcome

from nimmt import protocol as P
from nimmt.client import TableModel
from nimmt.client.model_game import autopilot_words


def test_the_card_being_placed_is_now_those_before_placed_those_after_waiting() -> None:
    m = seated_game()
    play_turn(m, [(0, 14), (1, 15), (2, 44), (3, 61)])
    assert m.plays == [(0, 14, "waiting"), (1, 15, "waiting"), (2, 44, "waiting"),
                       (3, 61, "waiting")]
    feed(m, P.Placed(seat=0, card=14, row=0, end="right"))
    assert m.plays == [(0, 14, "now"), (1, 15, "waiting"), (2, 44, "waiting"),
                       (3, 61, "waiting")]
    feed(m, P.Placed(seat=1, card=15, row=0, end="right"))
    assert m.plays == [(0, 14, "placed"), (1, 15, "now"), (2, 44, "waiting"),
                       (3, 61, "waiting")]
    feed(m, P.Placed(seat=2, card=44, row=2, end="right"),
         P.Placed(seat=3, card=61, row=3, end="right"))
    assert m.plays == [(0, 14, "placed"), (1, 15, "placed"), (2, 44, "placed"),
                       (3, 61, "now")]


def test_seated_at_a_table_of_a_lower_id_starts_afresh_too() -> None:
    for here, there in (("t2", "t1"), ("t1", "t2")):
        m = seated_game(table_id=here)
        feed(m, P.Seated(table=table(["Ann", "Eve"], table_id=there), seat=0))
        assert (m.phase, m.hand, m.rows, m.round) == ("waiting", [], [], 0), (here, there)


def test_your_bank_is_empty_not_below_when_your_later_deadline_passed_as_you_played() -> None:
    clock = Clock()
    m = seated_game(clock, time_bank=40.0)  # the turn's 30 s run from 1000
    clock.now += 30.0  # the turn's time is up: your bank's 40 s run
    feed(m, P.DeadlineWarning(kind="commit", round=1, turn=1, pick=0, deadline=1e9 + 40,
                              remaining=40.0))
    assert m.extra_time
    clock.now += 40.5  # the autopilot's card, half a second late by our clock
    feed(m, P.CommitAccepted(round=1, turn=1, card=3))
    assert m.banks[0] == 0.0


def test_no_ranking_is_made_up_for_a_game_still_being_played() -> None:
    playing = table(NAMES, status="playing")
    playing = dataclasses.replace(playing, seats=tuple(
        dataclasses.replace(s, total=t) for s, t in zip(playing.seats, (12, 5, 30, 0))))
    seated = feed(TableModel(), welcome(), P.Seated(table=playing, seat=0))
    watching = feed(TableModel(), welcome(), P.Watching(table=playing))
    assert (seated.totals, seated.result, watching.result) == ([12, 5, 30, 0], None, None)
    over = dataclasses.replace(playing, status="over")
    back = feed(TableModel(), welcome(), P.Seated(table=over, seat=0))
    assert back.result is not None
    assert (back.result.totals, back.result.places, back.result.winners) == (
        (12, 5, 30, 0), (3, 2, 4, 1), (3,))


def test_a_seat_named_otherwise_than_in_the_chat_is_told_by_its_number_from_1() -> None:
    m = seated_game()
    feed(m, P.ChatMessage(name="Ann", seat=0, text="mine"),
         P.ChatMessage(name="Robert", seat=1, text="hi"),
         P.ChatMessage(name="Dan", seat=3, text="yo"),
         P.ChatMessage(name="Zed", seat=3, text="me too"))
    assert texts(m)[-4:] == ["<Ann> mine", "<Robert, seat 2> hi", "<Dan> yo",
                             "<Zed, seat 4> me too"]


def test_seated_under_another_name_than_your_own_says_which() -> None:
    m = feed(TableModel(), welcome(), P.Seated(table=table(["Bob", "Ann 2"]), seat=1))
    said = "Someone at this table is already called Ann: you are “Ann 2” here."
    assert texts(m)[-1] == said and [n.text for n in m.notices] == [said]
    same = feed(TableModel(), welcome(), P.Seated(table=table(["Bob", "Ann"]), seat=1))
    assert texts(same)[-1] == "You sit at table t1, seat 2." and not same.notices


def test_the_autopilot_s_tied_places_name_rows_from_1() -> None:
    made = [P.Autoplayed(kind="tie", round=1, turn=t, card=c, row=r, end=e)
            for t, c, r, e in ((4, 33, 1, "left"), (5, 40, 3, "right"), (6, 50, 0, "right"))]
    assert autopilot_words(made, 1) == ("While you were away the autopilot put 33 before row 2, "
                                        "40 after row 4 and 50 after row 1 for you")
