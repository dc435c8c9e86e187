"""The coach's analysis beside a replay (``nimmt-client --replay GAME --analyse``, issue
45): each decision of the seat at the step that shows it, the panel's lines, the
analysis run in the background with its progress, and the whole in a terminal.

The fixed game (tests/data/replay_analysis_game.json: 3 players, 2 rounds; Bob,
seat 2, takes a row of his choice 5 times) and its analysis for Bob
(tests/data/replay_analysis_seat1.json) come from real runs:
``nimmt-replay analyse tests/data/replay_analysis_game.json --seat 1 --samples 20
--json``.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from pty_helpers import PtyProcess, client_argv

from nimmt import protocol as P
from nimmt.bots.analysis import DEFAULT_SAMPLES, analyse
from nimmt.bots.analysis_report import analysis_json
from nimmt.client.cli import main, parse_args
from nimmt.client.replay import ReplayPlayer
from nimmt.client.replay_analyser import analyse_argv, run_analysis
from nimmt.client.replay_analysis import (
    ReplayAnalysis,
    client_label,
    decision_steps,
    first_human_seat,
)
from nimmt.client.tui.replay_analysis import panel_lines
from nimmt.engine.records import record_from_json
from nimmt.server.records.replay import spectator_messages

DATA = Path(__file__).parent / "data"
GAME = DATA / "replay_analysis_game.json"
BOB = 1  # (seat 2 to a player; nimmt-replay counts from 0)


def _messages(kinds: list[str] | None = None) -> list[P.Message]:
    return spectator_messages(record_from_json(GAME.read_text()), table_name="game",
                              kinds=kinds)


def _bob_analysed(default: bool = False) -> tuple[ReplayPlayer, ReplayAnalysis]:
    player = ReplayPlayer(_messages())
    analysis = ReplayAnalysis(player.messages, player.steps, BOB, default=default)
    analysis.finish(json.loads((DATA / "replay_analysis_seat1.json").read_text()))
    assert analysis.state == "done", analysis.error
    return player, analysis


def _text(frags: Any) -> list[str]:
    return "".join(t for _, t, *_ in frags).split("\n")


# ------------------------------------------------------------------ the steps
def test_each_decision_is_at_the_step_that_reveals_the_card_or_asks_for_the_row() -> None:
    player, a = _bob_analysed()
    assert len(player.steps) == 90
    assert sorted((k[0], k[1], k[2], s) for k, s in a.step_of.items()) == [
        (1, 1, "card", 1), (1, 2, "card", 5), (1, 3, "card", 9), (1, 4, "card", 13),
        (1, 5, "card", 17), (1, 6, "card", 21), (1, 7, "card", 25), (1, 8, "card", 29),
        (1, 8, "row", 30), (1, 9, "card", 34), (1, 10, "card", 38),
        (2, 1, "card", 44), (2, 2, "card", 48), (2, 3, "card", 52), (2, 3, "row", 53),
        (2, 4, "card", 57), (2, 5, "card", 61), (2, 6, "card", 65), (2, 6, "row", 66),
        (2, 7, "card", 70), (2, 7, "row", 71), (2, 8, "card", 75), (2, 9, "card", 79),
        (2, 9, "row", 80), (2, 10, "card", 84)]
    # every decision of the analysis has its step, and that step shows it
    assert len(a.at_step) == 25
    for step, d in a.at_step.items():
        end = player.steps[step]
        last = player.messages[end - 1]
        if d.kind == "card":
            assert last.TYPE == "revealed" and (BOB, int(d.chosen)) in last.plays
        else:
            assert last.TYPE == "row_choice_needed" and last.seat == BOB
            taken = next(m for m in player.messages[end:] if m.TYPE == "row_taken")
            assert (taken.seat, f"row {taken.row + 1}") == (BOB, d.chosen)
        player.go(step)
        assert (player.model.round, player.model.turn) == (d.round, d.turn)  # as the title says


def test_between_decisions_the_last_one_shows_and_before_the_first_none() -> None:
    _, a = _bob_analysed()
    assert a.at(0) == (None, False)  # the rows dealt: nothing decided yet
    first, here = a.at(1)
    assert (first.key, first.chosen, here) == ((1, 1, "card"), "34", True)
    assert a.at(2) == (first, False) and a.at(4) == (first, False)
    assert a.at(5)[0].key == (1, 2, "card") and a.at(5)[1]
    assert a.at(30)[0].key == (1, 8, "row") and a.at(30)[1]
    assert a.at(31) == (a.at(30)[0], False)
    assert a.at(43)[0].key == (1, 10, "card")  # round 2's rows: round 1's last decision
    assert a.at(89) == (a.at(84)[0], False)


def test_only_the_seat_s_own_decisions_count() -> None:
    messages = _messages()
    player = ReplayPlayer(messages)
    cat = decision_steps(messages, player.steps, 2)  # Cat never took a row of her choice
    assert sorted(cat) == [(r, t, "card") for r in (1, 2) for t in range(1, 11)]
    assert cat[(1, 8, "card")] == 29 and cat[(2, 4, "card")] == 57  # Bob's turns' steps too


def test_rows_are_numbered_as_the_board_numbers_them() -> None:
    assert [client_label(x) for x in ("row 0", "row 3", "row 1 left", "row 2 right", "86")] \
        == ["row 1", "row 4", "row 2 left", "row 3 right", "86"]
    data = json.loads((DATA / "replay_analysis_seat1.json").read_text())
    raw = data["seats"][0]["rounds"][0]["decisions"][8]
    assert (raw["kind"], raw["chosen"], raw["best"]) == ("row", "row 0", "row 1")
    _, a = _bob_analysed()
    d = a.at_step[30]
    assert (d.chosen, d.best) == ("row 1", "row 2")
    assert [c.label for c in d.choices] == ["row 2", "row 4", "row 1", "row 3"]


def test_the_first_human_seat_is_analysed_when_none_is_asked_for() -> None:
    assert first_human_seat(_messages()) == 0  # a record file: every seat a person
    assert first_human_seat(_messages(["bot", "human", "human"])) == 1
    assert first_human_seat(_messages(["bot", "bot", "bot"])) == 0


def test_an_analysis_that_does_not_fit_the_replay_fails_and_says_where() -> None:
    player = ReplayPlayer(_messages())
    data = json.loads((DATA / "replay_analysis_seat1.json").read_text())
    data["seats"][0]["rounds"][1]["decisions"][3]["turn"] = 4  # round 2's row of turn 3
    a = ReplayAnalysis(player.messages, player.steps, BOB)
    a.finish(data)
    assert (a.state, a.error) == ("failed", "its round 2, turn 4 (row) is at no step of the "
                                            "replay")
    a = ReplayAnalysis(player.messages, player.steps, 0)
    a.finish(json.loads((DATA / "replay_analysis_seat1.json").read_text()))
    assert (a.state, a.error) == ("failed", "the analysis has no seat 0")
    a = ReplayAnalysis(player.messages, player.steps, BOB)
    a.finish({"format": "nimmt-record", "version": 1})
    assert a.error == "not a nimmt-analysis version 1 object (format 'nimmt-record', version 1)"


def test_the_progress_says_the_round_and_the_decisions_done() -> None:
    player = ReplayPlayer(_messages())
    a = ReplayAnalysis(player.messages, player.steps, BOB)
    assert a.progress_text() == "analysing Bob (seat 2)'s decisions…"
    assert not a.progress("nothing to read here")
    assert a.progress("\ranalysing [#.....] 3/25 decisions\ranalysing [###...] 10/25 decisions")
    assert a.progress_text() == "analysing Bob (seat 2): round 1 of 2, 10 of 25 decisions…"
    assert a.progress("\ranalysing [####..] 11/25 decisions")  # round 1 held 11 of them
    assert a.progress_text() == "analysing Bob (seat 2): round 2 of 2, 11 of 25 decisions…"
    assert not a.progress("\ranalysing [####..] 11/25 decisions")  # nothing new
    a.progress("\ranalysing [######] 25/25 decisions\n")
    assert a.progress_text() == "analysing Bob (seat 2): round 2 of 2, 25 of 25 decisions…"
    a.progress("\ranalysing [#] 3/31 decisions")  # not the count the replay shows
    assert a.progress_text() == "analysing Bob (seat 2): 3 of 31 decisions…"


# ------------------------------------------------------------------ the panel
def test_the_panel_at_80_columns_at_a_card_a_row_and_between() -> None:
    _, a = _bob_analysed()
    assert _text(panel_lines(a, 1, 80)) == [
        "─ Analysis of Bob (seat 2) · round 1, turn 1: the card ─────────────────────────",
        " played 34 · best 99 · loss 1.95 ±0.91: INACCURACY",
        " expected bullheads to the round's end, ±95% (▶ played, ✓ best):",
        " ✓ 99 12.81 ±0.73     98 13.89 ±0.97     71 14.52 ±1.05   ▶ 34 14.76 ±0.73",
        "   92 15.07 ±1.64    102 15.11 ±1.65      2 15.17 ±1.50     90 15.18 ±1.25",
        "   25 15.78 ±2.21     30 21.60 ±4.11"]
    assert _text(panel_lines(a, 30, 80)) == [
        "─ Analysis of Bob (seat 2) · round 1, turn 8: the row to take ──────────────────",
        " took row 1 · best row 2 · loss 3.67 ±0.24: MISTAKE",
        " expected bullheads to the round's end, ±95% (▶ played, ✓ best):",
        " ✓row 2 15.90 ±0.53    row 4 16.53 ±0.55   ▶row 1 19.57 ±0.63",
        "  row 3 20.60 ±0.78"]
    assert ("class:cost.hot", "MISTAKE") in panel_lines(a, 30, 80)
    between = panel_lines(a, 31, 80)
    assert _text(between)[0] == \
        "─ Analysis of Bob (seat 2) · no decision at this step (last: round 1, turn 8) ──"
    assert _text(between)[1:] == _text(panel_lines(a, 30, 80))[1:]
    assert ("class:dim", " took row 1 · best row 2 · loss 3.67 ±0.24") in between
    assert _text(panel_lines(a, 38, 80)) == [
        "─ Analysis of Bob (seat 2) · round 1, turn 10: the card ────────────────────────",
        " played 102, the only choice: 12.35 ±1.27 bullheads expected to the round's end"]
    assert _text(panel_lines(a, 53, 80)) == [
        "─ Analysis of Bob (seat 2) · round 2, turn 3: the row to take ──────────────────",
        " took row 2, the best · loss 0",
        " expected bullheads to the round's end, ±95% (▶ played, ✓ best):",
        " ▶row 2 10.37 ±0.91    row 1 11.67 ±1.04    row 3 14.00 ±2.51",
        "  row 4 14.70 ±2.87"]
    assert _text(panel_lines(a, 0, 80)) == [
        "─ Analysis of Bob (seat 2) · no decision at this step ──────────────────────────",
        " Bob has not decided anything yet."]
    # short of lines, the legend goes before a choice does
    assert _text(panel_lines(a, 1, 80, room=5)) == _text(panel_lines(a, 1, 80))[:2] + \
        _text(panel_lines(a, 1, 80))[3:]
    assert all(len(line) <= 80 for step in range(90) for line in _text(panel_lines(a, step, 80)))


def test_the_panel_says_whom_it_analyses_how_far_it_is_and_why_it_failed() -> None:
    player = ReplayPlayer(_messages())
    a = ReplayAnalysis(player.messages, player.steps, 0, default=True)
    assert _text(panel_lines(a, 7, 80)) == [
        "─ Analysis of Ann (seat 1, the first human seat) ───────────────────────────────",
        " analysing Ann (seat 1)'s decisions… (the replay goes on meanwhile)"]
    a.progress("\ranalysing [#] 4/20 decisions")
    assert _text(panel_lines(a, 7, 80)) == [
        "─ Analysis of Ann (seat 1, the first human seat) ───────────────────────────────",
        " analysing Ann (seat 1): round 1 of 2, 4 of 20 decisions…"]
    a.advice = "To see the whole error, run: nimmt-replay analyse game.json --seat 0"
    a.fail("nimmt-replay: game.json: round 1, turn 3: seat 0 plays 55, not in its hand")
    assert _text(panel_lines(a, 7, 80)) == [
        "─ Analysis of Ann (seat 1, the first human seat) ───────────────────────────────",
        " The analysis failed: nimmt-replay: game.json: round 1, turn 3: seat 0 plays 55,",
        " not in its hand",
        " The replay goes on without it. To see the whole error, run: nimmt-replay",
        " analyse game.json --seat 0"]


# ------------------------------------------------------------------ the command
def test_the_analysis_runs_the_record_command_for_the_seat() -> None:
    assert analyse_argv("g.json", None, 1, "py") == [
        "py", "-m", "nimmt.server.records", "analyse", "g.json", "--seat", "1", "--json",
        "--jobs", "1"]
    assert analyse_argv("7", "", 0, "py")[4:7] == ["7", "--db", ""]  # the default database
    assert parse_args(["--replay", "g.json", "--analyse", "--seat", "2"]).analyse


def _fake_analyse(script: str) -> list[str]:
    return [sys.executable, "-c", script]


def test_the_command_draws_its_progress_on_a_terminal_we_read_as_it_comes() -> None:
    player = ReplayPlayer(_messages())
    a = ReplayAnalysis(player.messages, player.steps, BOB)
    seen: list[tuple[str, int]] = []
    answer = (DATA / "replay_analysis_seat1.json").read_text()
    script = ("import sys, time\n"
              "assert sys.stderr.isatty()  # nimmt-replay analyse draws its bar only there\n"
              "for done in (5, 12):\n"
              "    sys.stderr.write(f'\\ranalysing [##] {done}/25 decisions'); sys.stderr.flush()\n"
              "    time.sleep(0.3)\n"
              f"sys.stderr.write('\\n'); sys.stdout.write({answer!r})\n")
    asyncio.run(asyncio.wait_for(run_analysis(a, _fake_analyse(script),
                                              lambda: seen.append((a.state, a.done))), 30))
    assert seen[:2] == [("running", 5), ("running", 12)]
    assert seen[-1] == ("done", 12) and a.at_step[30].chosen == "row 1"


def test_a_failing_command_s_last_words_are_the_reason() -> None:
    player = ReplayPlayer(_messages())
    a = ReplayAnalysis(player.messages, player.steps, BOB)
    script = ("import sys\nsys.stderr.write('\\ranalysing [#] 1/25 decisions')\n"
              "sys.stderr.write('\\nnimmt-replay: g.json: --seat 5: the seats are 0 to 2\\n')\n"
              "sys.exit(2)\n")
    asyncio.run(asyncio.wait_for(run_analysis(a, _fake_analyse(script), lambda: None), 30))
    assert (a.state, a.error) == ("failed", "nimmt-replay: g.json: --seat 5: the seats are 0 to 2")
    a = ReplayAnalysis(player.messages, player.steps, BOB)
    asyncio.run(asyncio.wait_for(run_analysis(a, _fake_analyse("print('{')"), lambda: None),
                                 30))
    assert a.state == "failed" and a.error.startswith("its output is not JSON (")


def test_a_seat_the_game_does_not_have_says_which_it_has(capsys) -> None:
    assert main(["--replay", str(GAME), "--seat", "4", "--analyse"]) == 1
    assert capsys.readouterr().err == (
        f"nimmt-client: cannot replay {GAME}: --seat 4: the game has seats 1 to 3; give one "
        "of them (or no --seat: the replay as a spectator saw it)\n")
    with pytest.raises(SystemExit):
        parse_args(["--analyse"])
    assert "--analyse goes with --replay" in capsys.readouterr().err


# ------------------------------------------------------------------ in a terminal
def test_replay_analyse_shows_the_numbers_at_a_decision_and_keys_work_meanwhile() -> None:
    client = PtyProcess(client_argv("--replay", str(GAME), "--analyse", "--seat", "2"), 80, 24)
    try:
        first = client.wait_for(lambda t: "step 1/90" in t and "analysing" in t,
                                "the replay and the analysis running", 30)
        assert "─ Analysis of Bob (seat 2) " in first
        client.type("\x1b[C")  # a key while it analyses: the replay moves at once
        client.wait_for(lambda t: "step 2/90" in t, "step 2")
        # what nimmt-replay analyse finds, computed here too (the same seed and deals)
        data = analysis_json(analyse(record_from_json(GAME.read_text()), [BOB],
                                     samples=DEFAULT_SAMPLES))
        d = data["seats"][0]["rounds"][0]["decisions"][0]
        screen = client.wait_for(lambda t: "round 1, turn 1: the card" in t,
                                 "the first decision's analysis", 50)
        assert f" played {d['chosen']} · best {d['best']} · loss {d['loss']:.2f} " \
               f"±{d['loss_ci95']:.2f}" in screen
        for c in d["choices"]:
            assert re.search(rf"[✓▶ ] *{c['choice']} +{c['expected']:.2f} ±{c['ci95']:.2f}",
                             screen), c
        client.type("a")  # hidden: the log has the lines back
        client.wait_for(lambda t: "round 1, turn 1: the card" not in t and "show analysis" in t,
                        "the panel hidden")
        client.type("q")
        assert client.proc.wait(timeout=10) == 0
    finally:
        client.close()
