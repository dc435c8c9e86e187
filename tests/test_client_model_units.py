"""The client's model (client/model.py, model_game.py, model_state.py): what the
autopilot did in words, what a spectator may do, a goodbye's words, a deadline
warning of a row choice, a score sheet kept by an earlier run, a round's analysis
of this game or an earlier one, the cards that could still come (issue 43:
behaviour the before run of the mutation tests left unpinned)."""

from __future__ import annotations

import pytest
from test_client_analysis_view import ROUND
from test_client_model import NAMES, feed, seated_game, texts
from test_client_support import Clock, table, welcome

from nimmt import protocol as P
from nimmt.client import LinkLost, LinkRestored, TableModel
from nimmt.client.model_game import autopilot_words
from nimmt.client.records import GameResult, RoundResult

A = P.Autoplayed


@pytest.mark.parametrize(("made", "now", "words"), [
    ([A(kind="commit", round=2, turn=1, card=46), A(kind="commit", round=2, turn=2, card=52),
      A(kind="row", round=2, turn=2, card=52, row=1)], 2,
     "played 46 and 52 and took row 2"),
    ([A(kind="commit", round=3, turn=t, card=c) for t, c in ((1, 46), (2, 52), (3, 7))], 3,
     "played 46, 52 and 7"),
    ([A(kind="commit", round=1, turn=10, card=5), A(kind="commit", round=2, turn=1, card=9),
      A(kind="row", round=2, turn=1, card=9, row=3)], 2,
     "played 5 in round 1 and played 9 and took row 4 in round 2"),
    ([A(kind="tie", round=1, turn=4, card=33, row=0, end="left"),
      A(kind="tie", round=1, turn=5, card=40, row=2, end="right")], 1,
     "put 33 before row 1 and 40 after row 3"),
    ([A(kind="draft", round=1, turn=0, card=12), A(kind="draft", round=1, turn=0, card=3)], 1,
     "picked 12 and 3"),
    ([A(kind="commit", round=1, turn=9, card=5)], 2, "played 5 in round 1"),
    ([A(kind="commit", round=1, turn=9, card=5)], None, "played 5 in round 1"),
    ([A(kind="commit", round=1, turn=1, card=5), A(kind="row", round=1, turn=1, card=5, row=0),
      A(kind="commit", round=1, turn=2, card=9)], 1, "played 5, took row 1 and played 9"),
])
def test_what_the_autopilot_did_in_words(made: list[P.Autoplayed], now: int | None,
                                         words: str) -> None:
    assert autopilot_words(made, now) == f"While you were away the autopilot {words} for you"


def test_seated_between_games_says_what_the_autopilot_did() -> None:
    for status in ("waiting", "over"):
        m = feed(TableModel(), welcome(), P.Seated(
            table=table(NAMES, status=status), seat=0,
            autoplayed=(A(kind="commit", round=10, turn=10, card=104),)))
        assert texts(m)[-2:] == ["You sit at table t1, seat 1.",
                                 "While you were away the autopilot played 104 in round 10 "
                                 "for you."], status


def test_a_spectator_may_join_a_free_seat_unless_the_game_is_being_played() -> None:
    for status, may in (("waiting", True), ("over", True), ("playing", False)):
        m = feed(TableModel(), welcome(),
                 P.Watching(table=table(["Ann", None, "Cat"], status=status)))
        assert ("join" in m.legal_actions()) is may, status


def test_a_goodbye_gives_its_message_or_its_reason_in_words() -> None:
    m = feed(TableModel(), welcome(), P.Goodbye(reason="server_shutdown", message=""))
    assert texts(m)[-1] == "The server closed the connection: server shutdown."
    m = feed(TableModel(), welcome(), P.Goodbye(reason="kicked", message="be nice"))
    assert texts(m)[-1] == "The server closed the connection: be nice."


def test_seated_at_another_table_starts_afresh() -> None:
    m = seated_game()
    assert m.hand and m.rows
    feed(m, P.Seated(table=table(["Ann", "Eve"], table_id="t2"), seat=0))
    assert (m.phase, m.hand, m.scores, m.round) == ("waiting", [], [], 0)


def test_a_countdown_shows_what_is_left_of_the_table_s_own_limit() -> None:
    m = feed(TableModel(), welcome(), P.Seated(
        table=table(["Ann", "Bob"], countdown=True, point_limit=40), seat=0))
    feed(m, P.RoundStarted(round=1),
         P.RoundScored(round=1, penalties=(7, 0), totals=(7, 0)))
    assert [m.display_total(0), m.display_total(1)] == [33, 40]


def test_an_empty_seat_and_a_seat_past_the_table() -> None:
    m = feed(TableModel(), welcome(), P.Seated(table=table(["Ann", None, "Cat"]), seat=0))
    assert m.display_total(1) == 0 and m.name_of(1) == "seat 2"
    assert m.name_of(3) == "seat 4"


def test_the_row_choice_s_deadline_warning_moves_its_deadline_not_the_turn_s() -> None:
    clock = Clock()
    m = seated_game(clock)
    turn = m.turn_deadline
    feed(m, P.RowChoiceRequest(round=1, turn=1, card=3, rows=(0, 1, 2, 3), deadline=1e9,
                                  remaining=20.0))
    asked = m.pending.deadline  # type: ignore[union-attr]
    feed(m, P.DeadlineWarning(kind="row", round=1, turn=1, pick=0, deadline=1e9,
                              remaining=5.0))
    assert m.turn_deadline == turn
    assert m.pending.deadline == clock() + 5.0 != asked  # type: ignore[union-attr]


def test_a_score_sheet_kept_by_an_earlier_run_comes_back_at_its_table_only() -> None:
    scores = [RoundResult(1, (3, 5), (3, 5)), RoundResult(2, (4, 0), (7, 5))]
    result = GameResult((7, 5), (2, 1), (1,))

    def over(table_id: str) -> P.TableInfo:
        t = table(["Ann", "Bob"], status="over", table_id=table_id)
        return t.__class__(**{**{f: getattr(t, f) for f in t.__dataclass_fields__},
                              "seats": tuple(s.__class__(**{**{f: getattr(s, f) for f in
                                                               s.__dataclass_fields__},
                                                            "total": tot})
                                             for s, tot in zip(t.seats, (7, 5)))})
    m = TableModel()
    m.recall("t1", scores, result)
    feed(m, welcome(), P.Seated(table=over("t1"), seat=0))
    assert (m.scores, m.result) == (scores, result)
    m = TableModel()
    m.recall("t1", scores, result)
    feed(m, welcome(), P.Seated(table=over("t2"), seat=0))
    assert m.scores == []  # (the ranking is the table's own: its totals)


def test_a_round_s_analysis_is_kept_for_this_game_only_and_the_screen_redrawn() -> None:
    m = seated_game()
    version = m.version
    serial = m.analysis_started(1)
    assert m.version > version and m.analysed[1].running
    m.analysis_done(serial, 1, ROUND)
    assert m.analysed[1].analysis == ROUND
    assert texts(m)[-1].startswith("Round 1's turning point: your 5 on turn 2 cost 3.3")
    m.analysis_done(serial - 1, 2, ROUND)  # a round of an earlier game: only logged
    assert 2 not in m.analysed and texts(m)[-1].startswith("Round 2's turning point")


def test_every_card_of_the_deck_not_seen_could_come() -> None:
    m = seated_game()
    came = m.could_come()
    assert min(came) == 1 and max(came) == 103  # (104 is in our hand)
    assert len(came) == 104 - 10 - 4  # less our hand and the rows
    m = seated_game(tactic_deck=True)  # 4 players: 44 cards
    assert max(m.could_come()) == 44 and min(m.could_come()) == 1


def test_back_after_the_seat_s_grace_says_how_long_you_were_away() -> None:
    clock = Clock()
    m = seated_game(clock)
    feed(m, LinkLost("gone"))
    clock.now += 500.0  # the server keeps a seat 120 s (test_client_support.LIMITS)
    feed(m, LinkRestored(welcome(resumed=False, token="tok_new_0123456789")))
    assert texts(m)[-1] == ("You were away 500 s, longer than the server keeps a seat "
                            "(120 s): you are back in the lobby.")


def test_your_own_chat_echo_is_yours_and_a_namesake_s_later_is_not() -> None:
    m = seated_game()
    m.said("hi")
    feed(m, P.ChatMessage(name="Ann", seat=0, text="hi"))
    assert texts(m)[-1] == "<Ann> hi"
    feed(m, P.Left(table_id="t1", reason="left"),
         P.ChatMessage(name="Ann", seat=None, text="hi"))  # in the lobby: another Ann
    assert texts(m)[-1] == "<Ann (not you)> hi"


def test_a_card_that_starts_an_empty_row_names_that_row() -> None:
    m = seated_game()
    feed(m, P.RowTaken(seat=1, row=1, cards=(37,), bullheads=1),
         P.Placed(seat=1, card=40, row=1, end="right"))
    assert texts(m)[-2:] == ["Bob takes row 2: 37 (1 bullhead).", "Bob's 40 starts row 2."]


def test_the_score_sheet_the_server_kept_comes_with_seated() -> None:
    m = feed(TableModel(), welcome(), P.Seated(table=table(["Ann", "Bob"], status="playing"),
                                               seat=0, round_penalties=((3, 0), (1, 2))))
    assert m.scores == [RoundResult(1, (3, 0), (3, 0)), RoundResult(2, (1, 2), (4, 2))]


def test_a_countdown_of_a_game_of_rounds_without_a_limit_counts_down_from_66() -> None:
    m = feed(TableModel(), welcome(), P.Seated(
        table=table(["Ann", "Bob"], countdown=True, point_limit=None, rounds=3), seat=0))
    feed(m, P.RoundStarted(round=1), P.RoundScored(round=1, penalties=(7, 0), totals=(7, 0)))
    assert [m.display_total(0), m.display_total(1)] == [59, 66]


def test_back_in_the_commit_phase_this_turn_s_autoplayed_card_is_not_told() -> None:
    m = seated_game()
    feed(m, LinkLost("gone"), LinkRestored(welcome(resumed=True)))
    playing = table(NAMES, status="playing")
    feed(m, P.Seated(table=playing, seat=0, autoplayed=(
        A(kind="commit", round=1, turn=1, card=3), A(kind="commit", round=1, turn=2, card=14))),
         P.Snapshot(table=playing, seat=0, round=1, turn=2, phase="commit",
                    hand=(14, 21, 50, 60, 70, 80, 90, 100, 104), commit=14,
                    rows=((3, 12), (37,), (43,), (58,)), deadline=1e9, remaining=9.0,
                    committed=(0,), revealed=(), draft_pool=(), draft_picks=(), pending=None))
    # the 14 of turn 2 is still ours to replace: only turn 1's 3 is the autopilot's
    assert texts(m)[-1] == "While you were away the autopilot played 3 for you."


def test_a_player_s_round_goes_to_the_analysis_or_says_why_not_a_spectator_s_does_not() -> None:
    m = feed(TableModel(), welcome(), P.Seated(table=table(["Ann", "Bob"], status="playing"),
                                               seat=0),
             P.RoundScored(round=1, penalties=(3, 0), totals=(3, 0)))
    assert (m.to_analyse, m.not_to_analyse) == (
        [], [(1, "this client did not see the whole of it")])
    m = feed(TableModel(), welcome(), P.Watching(table=table(["Ann", "Bob"], status="playing")),
             P.RoundScored(round=1, penalties=(3, 0), totals=(3, 0)))
    assert (m.to_analyse, m.not_to_analyse) == ([], [])


def test_a_kept_ranking_of_other_totals_is_not_brought_back() -> None:
    m = TableModel()
    m.recall("t1", [RoundResult(1, (1, 2), (1, 2))], GameResult((1, 2), (1, 2), (0,)))
    over = table(["Ann", "Bob"], status="over")
    over = over.__class__(**{**{f: getattr(over, f) for f in over.__dataclass_fields__},
                             "seats": tuple(s.__class__(**{**{f: getattr(s, f) for f in
                                                              s.__dataclass_fields__},
                                                           "total": t})
                                            for s, t in zip(over.seats, (7, 5)))})
    feed(m, welcome(), P.Seated(table=over, seat=0))
    assert m.result is not None and m.result.totals == (7, 5) and m.scores == []


def test_with_draft_only_the_cards_the_others_picked_could_come() -> None:
    m = feed(TableModel(), welcome(), P.Seated(table=table(["Ann", "Bob"], draft=True), seat=0),
             P.RoundStarted(round=1))
    m.draft_picks = [(0, 7), (1, 8), (0, 9), (1, 3)]
    assert m.could_come() == frozenset({3, 8})


def _back_in_round_2(m: TableModel, our_total: int) -> None:
    """A drop in round 2 (3 bullheads before it), back at turn 2 in the commit phase."""
    feed(m, P.RoundScored(round=1, penalties=(3, 0, 0, 0), totals=(3, 0, 0, 0)),
         P.RoundStarted(round=2), LinkLost("gone"), LinkRestored(welcome(resumed=True)))
    playing = table(NAMES, status="playing")
    playing = playing.__class__(**{**{f: getattr(playing, f) for f in
                                      playing.__dataclass_fields__},
                                   "seats": tuple(s.__class__(**{**{f: getattr(s, f) for f in
                                                                    s.__dataclass_fields__},
                                                                 "total": t})
                                                  for s, t in zip(playing.seats,
                                                                  (our_total, 0, 1, 0)))})
    feed(m, P.Seated(table=playing, seat=0, autoplayed=(A(kind="commit", round=2, turn=1,
                                                           card=3),)),
         P.Snapshot(table=playing, seat=0, round=2, turn=2, phase="commit", hand=(14,),
                    commit=None, rows=((3, 12), (37,), (43,), (58,)), deadline=1e9,
                    remaining=9.0, committed=(), revealed=(), draft_pool=(), draft_picks=(),
                    pending=None))


def test_back_after_a_drop_says_the_bullheads_taken_meanwhile() -> None:
    m = seated_game()
    _back_in_round_2(m, 8)
    assert texts(m)[-1] == ("While you were away the autopilot played 3 for you "
                            "(you took 5 bullheads).")


def test_a_drop_while_the_snapshot_s_turn_runs_leaves_the_clock_unknown() -> None:
    m = seated_game()
    _back_in_round_2(m, 8)
    assert not m.clock_unknown
    feed(m, LinkLost("again"))
    assert m.clock_unknown


def test_the_log_keeps_the_latest_500_lines() -> None:
    m = TableModel()
    for k in range(600):
        m.note(f"line {k}")
    assert len(m.log) == 500
    assert (m.log[0].text, m.log[-1].text) == ("line 100", "line 599")


def test_a_kept_score_sheet_comes_back_to_a_game_still_being_played() -> None:
    scores = [RoundResult(1, (3, 5), (3, 5)), RoundResult(2, (4, 0), (7, 5))]
    m = TableModel()
    m.recall("t1", scores, None)
    playing = table(["Ann", "Bob"], status="playing")
    playing = playing.__class__(**{**{f: getattr(playing, f) for f in
                                      playing.__dataclass_fields__},
                                   "seats": tuple(s.__class__(**{**{f: getattr(s, f) for f in
                                                                    s.__dataclass_fields__},
                                                                 "total": t})
                                                  for s, t in zip(playing.seats, (7, 5)))})
    feed(m, welcome(), P.Seated(table=playing, seat=0))
    assert m.scores == scores
