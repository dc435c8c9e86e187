"""The whole analysis of your rounds (issue 45): the model keeps every round's
analysis JSON; the score sheet gives each round's turning point ("analysing…" while
it runs, nothing when it failed or was not made, the log saying why); A opens a
round's every decision with every choice, ←/→ or the round's number move between
rounds, q or Esc close it. The lines are the view's (no screen needed); the keys
run through the real key bindings against a fake server."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
from typing import Any

import pytest
from test_client_round_analysis import _round_seen_by_seat_0
from test_client_support import Clock
from test_client_tui import LEFT, RIGHT, Harness, text_of, ui_test

from nimmt import protocol as P
from nimmt.client.model import TableModel
from nimmt.client.round_analysis import (
    ANALYSE_ENV,
    AnalysedRound,
    AnalysisFailed,
    analyse_round,
    analysis_off,
)
from nimmt.client.tui import render, sheets
from nimmt.client.tui.analysis_view import AnalysisView, analysis_foot, analysis_lines, \
    analysis_title, sheet_turning_points
from nimmt.engine import Options


def _choice(label: str, expected: float, ci: float, loss: float) -> dict[str, Any]:
    return {"choice": label, "expected": expected, "ci95": ci, "loss": loss,
            "loss_ci95": 0.2, "hindsight": None}


def _decision(turn: int, kind: str, chosen: str, choices: list[dict[str, Any]],
              mark: str | None = None) -> dict[str, Any]:
    made = next(c for c in choices if c["choice"] == chosen)
    return {"round": 1, "turn": turn, "kind": kind, "samples": 300, "chosen": chosen,
            "best": choices[0]["choice"], "loss": made["loss"], "loss_ci95": 0.25,
            "mark": mark, "choices": choices}


def _analysis(decisions: list[dict[str, Any]], worst: dict[str, Any] | None,
              bullheads: int | None = 7) -> dict[str, Any]:
    return {"format": "nimmt-analysis", "version": 1, "samples": 300, "seed": 0,
            "thresholds": {"inaccuracy": 1.0, "mistake": 2.5, "blunder": 5.0},
            "seats": [{"seat": 0, "name": "Ann", "rounds": [{
                "round": 1, "expected_loss": 3.43, "bullheads": bullheads, "worst": worst,
                "decisions": decisions}]}]}


ROUND = _analysis([
    _decision(1, "card", "86", [_choice("86", 2.31, 0.2, 0.0), _choice("7", 2.9, 0.22, 0.61)]),
    _decision(2, "card", "5", [_choice("94", 1.2, 0.1, 0.0), _choice("104", 3.0, 0.3, 1.8),
                               _choice("5", 4.5, 0.21, 3.3)], "mistake"),
    _decision(2, "row", "row 2", [_choice("row 4", 0.5, 0.0, 0.0),
                                  _choice("row 2", 0.63, 0.05, 0.13)]),
    _decision(10, "card", "104", [_choice("104", 0.0, 0.0, 0.0)]),
], {"turn": 2, "kind": "card", "chosen": "5", "best": "94", "loss": 3.3})


def test_a_rounds_view_is_each_decision_with_every_choice_yours_and_the_best_marked() -> None:
    assert analysis_lines(AnalysedRound(3, ROUND), 60) == [
        " Round 3: you took 7 bullheads; your choices gave away 3.43",
        " on average against the best ones.",
        " Turning point: your 5 on turn 2 cost 3.3 bullheads on",
        " average; 94 was the best card.",
        " ▶ you played, ✓ the best; expected bullheads to the end of",
        " the round ± 95% interval; loss: how many more than the best",
        " (docs/ANALYSIS.md). Marks: inaccuracy from 1, mistake from",
        " 2.5, blunder from 5.",
        "",
        " Turn 1: you played 86 · the best card",
        "  ▶✓  86   2.31 ±0.20",
        "       7   2.90 ±0.22  loss  0.61",
        "",
        " Turn 2: you played 5 · loss 3.30 ±0.25 · MISTAKE",
        "   ✓  94   1.20 ±0.10",
        "     104   3.00 ±0.30  loss  1.80",
        "  ▶    5   4.50 ±0.21  loss  3.30",
        "",
        " Turn 2: you took row 2 · loss 0.13 ±0.25",
        "   ✓ row 4   0.50 ±0.00",
        "  ▶  row 2   0.63 ±0.05  loss  0.13",
        "",
        " Turn 10: you played 104 · the only card",
        "  ▶✓ 104   0.00 ±0.00",
    ]
    calm = _analysis([], None, bullheads=1)
    assert analysis_lines(AnalysedRound(1, calm), 60)[:3] == [
        " Round 1: you took 1 bullhead; your choices gave away 3.43",
        " on average against the best ones.",
        " None of your decisions cost anything on average.",
    ]
    # every line fits the width it was given
    assert all(len(line) <= 30 for line in analysis_lines(AnalysedRound(3, ROUND), 30))


def test_a_round_being_analysed_failed_or_not_analysed_says_so() -> None:
    assert analysis_lines(AnalysedRound(2), 50) == [
        " Round 2 is being analysed: this page fills in",
        " when it is ready (a few seconds; the game goes on",
        " meanwhile).",
    ]
    failed = AnalysedRound(2, why="Round 2's analysis failed: no engine")
    assert analysis_lines(failed, 50) == [" Round 2's analysis failed: no engine"]
    assert analysis_lines(None, 50) == [
        " No round of yours has been analysed yet: each",
        " round is, once it is over (a few seconds later).",
    ]


def test_the_score_sheet_gives_each_rounds_turning_point_newest_first() -> None:
    analysed = {1: AnalysedRound(1, ROUND),
                2: AnalysedRound(2, why="Round 2's analysis failed: boom"),
                3: AnalysedRound(3, _analysis([], None)),
                4: AnalysedRound(4)}
    assert sheet_turning_points(analysed, [1, 2, 3, 4, 5], 60) == [
        " Turning points (A: the whole round):",
        " R4  analysing…",
        " R3  none of your decisions cost anything",
        " R1  your 5 on turn 2 cost 3.3; 94 was best (mistake)",
    ]
    assert sheet_turning_points(analysed, [3, 4], 60)[1:] == [
        " R4  analysing…", " R3  none of your decisions cost anything"]
    assert sheet_turning_points(analysed, [2], 60) == []  # failed: the log says why
    assert sheet_turning_points({}, [1], 60) == []
    assert sheet_turning_points(analysed, [1], 30) == [
        " Turning points (A: the whole",
        " round):",
        " R1  your 5 on turn 2 cost",
        "     3.3; 94 was best",
        "     (mistake)",
    ]


def test_rounds_are_chosen_by_arrows_and_by_number() -> None:
    analysed = {n: AnalysedRound(n) for n in (1, 2, 3, 12)}
    view = AnalysisView()
    assert view.shown(analysed) == AnalysedRound(12)  # the latest
    assert analysis_title(analysed, view) == "Analysis · round 12 of 1–12"
    view.scroll = 5
    view.move(-1, analysed)
    assert view.round == 3 and view.scroll == 0
    view.move(-5, analysed)
    assert view.round == 1
    view.move(+1, analysed)
    assert view.round == 2
    assert view.digit("1", analysed) and view.round == 1
    assert view.digit("2", analysed) and view.round == 12  # 1 then 2: round 12
    assert view.digit("3", analysed) and view.round == 3  # (no round 123: round 3)
    assert not view.digit("7", analysed) and view.round == 3 and view.typed == "7"
    assert analysis_title({}, AnalysisView()) == "Analysis"
    assert analysis_title({4: AnalysedRound(4)}, AnalysisView()) == "Analysis · round 4"
    assert analysis_foot(analysed, view, 10, 10) == " ←/→ round · Esc closes"
    assert analysis_foot({4: AnalysedRound(4)}, view, 30, 18) == \
        " Esc or A closes · ↑/↓ PgUp/PgDn: 1–18 of 30"


def test_an_analysis_that_comes_back_after_a_new_game_began_is_only_logged() -> None:
    m = TableModel(Clock())
    for msg in _round_seen_by_seat_0(Options(players=3, rounds=1), 1)[1]:
        m.apply(msg)
    game = m.analysis_started(1)
    assert m.analysed == {1: AnalysedRound(1)}
    m.apply(P.RoundStarted(round=1))  # the next game at the table
    assert m.analysed == {}
    m.analysis_done(game, 1, ROUND)
    assert m.analysed == {}
    assert m.log[-1].text == ("Round 1's turning point: your 5 on turn 2 cost 3.3 bullheads "
                              "on average; 94 was the best card.")
    now = m.analysis_started(1)
    m.analysis_failed(now, 1, "boom")
    assert m.analysed == {1: AnalysedRound(1, why="Round 1's analysis failed: boom")}


def _two_rounds() -> list[P.Message]:
    return _round_seen_by_seat_0(Options(players=3, rounds=2), 1)[1]


def test_A_opens_the_latest_rounds_analysis_arrows_and_numbers_change_it_q_closes() -> None:
    answers: dict[int, asyncio.Future[dict[str, Any]]] = {}

    async def analyser(record: dict[str, Any], seat: int) -> dict[str, Any]:
        future = asyncio.get_running_loop().create_future()
        answers[len(answers) + 1] = future
        return await future

    async def script(h: Harness) -> None:
        h.c.round_analyser = analyser
        await h.keys("A")
        assert h.c.ui.analysis is None  # no table yet: nothing opens
        messages = _two_rounds()
        first_end = next(i for i, m in enumerate(messages) if isinstance(m, P.RoundScored))
        await h.feed(*messages[: first_end + 1])
        assert h.model.analysed == {1: AnalysedRound(1)}
        sheet = text_of(sheets.score_lines(h.c, 60))
        assert sheet.endswith("Turning points (A: the whole round):\n R1  analysing…")
        answers[1].set_result(ROUND)
        await h.until(lambda: h.model.analysed[1].analysis is not None, "round 1 analysed")
        assert "A  analysis" in text_of(render.keys_line(h.c, 120))
        await h.feed(*messages[first_end + 1:])
        assert sorted(h.model.analysed) == [1, 2] and h.model.analysed[2].running
        await h.keys("A")
        view = h.c.ui.analysis
        assert view is not None and view.shown(h.model.analysed).round == 2
        assert not h.c.ui.sheet_open  # (it was open for the game's end: A covers it)
        await h.keys(LEFT)
        assert view.round == 1
        await h.keys(RIGHT + RIGHT)
        assert view.round == 2  # (the last round: it stays)
        await h.keys("1")
        assert view.round == 1 and not h.sent(P.ChooseRow)
        await h.keys("5")
        assert view.round == 1 and h.c.ui.status is not None \
            and h.c.ui.status.text == "Round 5 has no analysis."
        assert text_of(render.keys_line(h.c, 80)) == \
            " ←/→  round  ↑/↓  scroll  Esc  close  ?  help "
        await h.keys("q")  # closes the analysis, nothing more
        assert h.c.ui.analysis is None and h.c.ui.armed is None
        await h.keys("A")
        await h.keys("\x1b")
        await h.until(lambda: h.c.ui.analysis is None, "Esc closed it")
        answers[2].set_result(_analysis([], None))
        await h.until(lambda: not h.model.analysed[2].running, "round 2 analysed")
        assert "R2  none of your decisions cost anything" in text_of(sheets.score_lines(h.c, 60))
    ui_test(script)


def test_a_failed_analysis_or_a_draft_round_shows_nothing_on_the_sheet_and_the_log_says_why(
) -> None:
    async def failing(record: dict[str, Any], seat: int) -> dict[str, Any]:
        raise AnalysisFailed("no engine here")

    async def script(h: Harness) -> None:
        h.c.round_analyser = failing
        await h.feed(*_round_seen_by_seat_0(Options(players=3, rounds=1), 1)[1])
        await h.until(lambda: not h.model.analysed[1].running, "the failure")
        assert h.model.log[-1].text == "Round 1's analysis failed: no engine here"
        assert "Turning points" not in text_of(sheets.score_lines(h.c, 60))
    ui_test(script)

    async def draft(h: Harness) -> None:
        await h.feed(*_round_seen_by_seat_0(Options(players=2, rounds=1, draft=True), 1)[1])
        assert h.model.analysed == {1: AnalysedRound(1, why=(
            "Round 1 is not analysed: a Draft round is not (a pick has up to 104 choices)."))}
        assert any(line.text == h.model.analysed[1].why for line in h.model.log)
        assert "Turning points" not in text_of(sheets.score_lines(h.c, 60))
    ui_test(draft)


def test_the_analyse_command_can_be_replaced_or_turned_off_by_the_environment() -> None:
    echo = ("import json, sys; print(json.dumps({'seats': [{'rounds': [{'worst': None, "
            "'decisions': [], 'args': sys.argv[2:]}]}]}))")
    env = {ANALYSE_ENV: f"{shlex.quote(sys.executable)} -c {shlex.quote(echo)} extra"}
    got = asyncio.run(analyse_round({"rounds": []}, 2, environ=env))
    assert got["seats"][0]["rounds"][0]["args"][1:] == ["--seat", "2", "--json"]
    assert got["seats"][0]["rounds"][0]["args"][0].endswith(".json")  # the record's file
    env = {ANALYSE_ENV: f"{shlex.quote(sys.executable)} -c 'print(1)'"}
    with pytest.raises(AnalysisFailed, match="not one of a seat's round"):
        asyncio.run(analyse_round({"rounds": []}, 0, environ=env))
    env = {ANALYSE_ENV: f"{shlex.quote(sys.executable)} -c 'raise SystemExit(\"no luck\")'"}
    with pytest.raises(AnalysisFailed, match="^no luck$"):
        asyncio.run(analyse_round({"rounds": []}, 0, environ=env))
    assert analysis_off({ANALYSE_ENV: "off"}) and not analysis_off({})
    assert json.loads(json.dumps(ROUND)) == ROUND  # (the fixture is JSON, as the command's)
