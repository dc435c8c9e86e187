"""The analysis of your rounds (client/round_analysis.py, client/tui/analysis_view.py):
a failing command's reason is its last words, and the view kept on a round of a game
that is over shows the new game's latest round (issue 43: behaviour the before run
of the mutation tests left unpinned)."""

from __future__ import annotations

import asyncio
import sys

import pytest
from test_client_analysis_view import ROUND

from nimmt.client.round_analysis import AnalysedRound, AnalysisFailed, analyse_round
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
