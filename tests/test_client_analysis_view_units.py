"""The analysis of your rounds (client/round_analysis.py, client/tui/analysis_view.py):
a failing command's reason is its last words, and the view kept on a round of a game
that is over shows the new game's latest round (issue 43: behaviour the before run
of the mutation tests left unpinned)."""

from __future__ import annotations

import asyncio
import sys

import pytest
from test_client_analysis_view import ROUND

from nimmt.client.round_analysis import ANALYSE_ENV, AnalysedRound, AnalysisFailed, \
    analyse_round, analysis_off, turning_point_line
from nimmt.client.tui.analysis_view import AnalysisView, analysis_lines, analysis_title

TRACEBACK = ("import sys; sys.stderr.write('Traceback (most recent call last):\\n"
             "  File x, line 1\\nValueError: round 1 has no seat 3\\n'); sys.exit(1)")


def test_a_failing_command_s_reason_is_its_last_line_of_errors() -> None:
    with pytest.raises(AnalysisFailed) as failed:
        asyncio.run(analyse_round({"rounds": []}, 0, command=[sys.executable, "-c", TRACEBACK]))
    assert str(failed.value) == "ValueError: round 1 has no seat 3"
    silent = [sys.executable, "-c", "raise SystemExit(3)"]
    with pytest.raises(AnalysisFailed, match="^no reason given$"):
        asyncio.run(analyse_round({"rounds": []}, 0, command=silent))


def test_a_round_kept_from_the_last_game_gives_way_to_this_game_s_latest() -> None:
    view = AnalysisView(round=7)  # A was on round 7 of the game before
    this_game = {1: AnalysedRound(1, ROUND), 2: AnalysedRound(2)}
    assert view.shown(this_game) is this_game[2]
    assert analysis_title(this_game, view) == "Analysis · round 2 of 1–2"
    assert analysis_lines(view.shown(this_game), 80)[0].startswith(" Round 2 is being analysed")
    view.move(-1, this_game)  # ←: the round before the one shown
    assert analysis_title(this_game, view) == "Analysis · round 1 of 1–2"


def _printing(obj: object) -> list[str]:
    return [sys.executable, "-c", f"import json; print(json.dumps({obj!r}))"]


def test_an_answer_without_the_round_s_worst_or_its_decisions_list_is_a_failure() -> None:
    for rnd in ({"decisions": []}, {"worst": None, "decisions": {}}, {"worst": None}):
        with pytest.raises(AnalysisFailed, match="^the analysis is not one of a seat's round"):
            asyncio.run(analyse_round({"rounds": []}, 0,
                                      command=_printing({"seats": [{"rounds": [rnd]}]})))
    fine = {"seats": [{"rounds": [{"worst": None, "decisions": []}]}]}
    assert asyncio.run(analyse_round({"rounds": []}, 0, command=_printing(fine))) == fine


def test_a_command_put_in_the_environment_does_not_turn_the_analysis_off() -> None:
    assert not analysis_off({ANALYSE_ENV: "python3 -m slow_analyse"})
    assert not analysis_off({ANALYSE_ENV: "/usr/bin/nimmt-analyse"})
    assert analysis_off({ANALYSE_ENV: " off "})


def test_a_turning_point_under_one_bullhead_says_bullheads() -> None:
    worst = {"turn": 3, "kind": "card", "chosen": "55", "best": "12", "loss": 0.5}
    line = turning_point_line(4, {"seats": [{"rounds": [{"worst": worst}]}]})
    assert line == ("Round 4's turning point: your 55 on turn 3 cost 0.5 bullheads on "
                    "average; 12 was the best card.")
    worst["loss"] = 1.04
    assert "cost 1.0 bullhead on average" in turning_point_line(
        4, {"seats": [{"rounds": [{"worst": worst}]}]})
