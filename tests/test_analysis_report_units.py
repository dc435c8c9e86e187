"""``nimmt-replay analyse``'s text, line by line, from analyses made by hand (the
numbers chosen so that each wording shows): the hindsight line's singular and its
"guess nobody could make", a decision's choices with what each really cost, the
only choice of a round's last card, and a Draft round's picks listed first."""

from __future__ import annotations

from nimmt.bots.analysis import (Choice, DecisionAnalysis, GameAnalysis, PickNotAnalysed,
                                 RoundAnalysis, SeatAnalysis)
from nimmt.bots.analysis_report import analysis_lines
from nimmt.engine import ChooseRow, Commit


def card(c: int, expected: float, loss: float, hindsight: int | None) -> Choice:
    return Choice(Commit(0, c), expected, 0.5, loss, 0.25, hindsight)


def report(*rounds: RoundAnalysis) -> list[str]:
    return analysis_lines(GameAnalysis(100, 7, (SeatAnalysis(0, "Ann", rounds),)))[1:]


def test_the_hindsight_names_a_better_card_nobody_could_have_guessed() -> None:
    turn3 = DecisionAnalysis(0, 1, 3, "card", (card(12, 2.0, 0.0, 5), card(86, 5.5, 3.5, 6),
                                               card(40, 6.0, 4.0, 2), card(7, 7.0, 5.0, None)),
                             Commit(0, 86), 100)
    last = DecisionAnalysis(0, 1, 10, "card", (card(99, 1.0, 0.0, 1),), Commit(0, 99), 100)
    assert report(RoundAnalysis(0, 1, (turn3, last), 1)) == [
        "",
        "Ann (seat 0), round 1",
        "  turn  3  played 86          expected  5.50 ±0.50   best 12 (2.00)   loss 3.50 ±0.25"
        "   MISTAKE",
        "           choices: 12 2.0±0.5 [5]  86 5.5±0.5 [6]  40 6.0±0.5 [2]  7 7.0±0.5",
        "  turn 10  played 99          expected  1.00 ±0.50   (the only choice) [1]",
        "  expected loss this round: 3.5 bullheads. Your 86 on turn 3 cost 3.5 bullheads on "
        "average; 12 was the best card.",
        "  hindsight (the others' real cards, public now): you took 1 bullhead this round; "
        "your 86 on turn 3 really cost 6, 12 would have cost 5 (40: 2, a guess nobody could "
        "make).",
    ]


def test_rows_read_as_rows_and_a_choice_without_hindsight_shows_none() -> None:
    row = DecisionAnalysis(0, 2, 4, "row", (
        Choice(ChooseRow(0, 1), 3.0, 0.4, 0.0, 0.1, 3),
        Choice(ChooseRow(0, 0), 4.0, 0.4, 1.0, 0.1, None)), ChooseRow(0, 0), 100)
    lines = report(RoundAnalysis(0, 2, (row,), 7))
    assert lines[2:4] == [
        "  turn  4  took row 0       expected  4.00 ±0.40   best row 1 (3.00)   loss 1.00 "
        "±0.10   INACCURACY",
        "           choices: row 1 3.0±0.4 [3]  row 0 4.0±0.4",
    ]
    # (what the row taken really cost is not known: only the bullheads of the round)
    assert lines[-1] == ("  hindsight (the others' real cards, public now): you took 7 "
                         "bullheads this round.")


def test_a_draft_round_lists_its_picks_first_and_says_they_are_not_counted() -> None:
    picks = (PickNotAnalysed(0, 1, 1, 55, 104, ()), PickNotAnalysed(0, 1, 2, 7, 103, (55,)))
    lines = report(RoundAnalysis(0, 1, (), None, picks))
    assert lines[2:4] == ["  pick  1  picked 55   from 104 cards   not analysed",
                          "  pick  2  picked 7    from 103 cards   not analysed"]
    assert lines[4].startswith("  picks not analysed: a pick changes every later pick")
    assert lines[5].startswith("  expected loss this round (the picks not counted): ")


def test_half_a_bullhead_is_plural_and_an_equally_cheap_card_is_no_guess() -> None:
    """"0.5 bullheads" (only 1.0 is singular); a card that really cost as little as the
    best one is not named as a better guess."""
    turn = DecisionAnalysis(0, 1, 2, "card", (card(12, 2.0, 0.0, 5), card(86, 2.5, 0.5, 6),
                                              card(40, 3.0, 1.0, 5)), Commit(0, 86), 100)
    lines = report(RoundAnalysis(0, 1, (turn,), 9))
    assert lines[-2].startswith("  expected loss this round: 0.5 bullheads. Your 86 on turn 2 "
                                "cost 0.5 bullheads on average")
    assert lines[-1] == ("  hindsight (the others' real cards, public now): you took 9 "
                         "bullheads this round; your 86 on turn 2 really cost 6, 12 would have "
                         "cost 5.")


def test_the_json_keeps_two_decimals() -> None:
    from nimmt.bots.analysis_report import analysis_json
    turn = DecisionAnalysis(0, 1, 2, "card", (
        Choice(Commit(0, 12), 2.004, 0.5, 0.0, 0.25, 5),
        Choice(Commit(0, 86), 3.456, 0.5, 1.456, 0.25, 6)), Commit(0, 86), 100)
    data = analysis_json(GameAnalysis(100, 7, (SeatAnalysis(0, "Ann", (
        RoundAnalysis(0, 1, (turn,), 9),)),)))
    (round_,) = data["seats"][0]["rounds"]
    assert (round_["expected_loss"], round_["worst"]["loss"]) == (1.46, 1.46)
