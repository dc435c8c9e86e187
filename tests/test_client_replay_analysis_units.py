"""The analysis panel beside a replay (client/replay_analysis.py,
client/tui/replay_analysis.py): it fits every width, ``a`` hides and shows it, a seat
the replay's table does not list is named by its number (issue 43: behaviour the
before run of the mutation tests left unpinned)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from prompt_toolkit.utils import get_cwidth
from test_client_replay_analysis import _bob_analysed, _messages, _text

from nimmt.client.replay import ReplayPlayer
from nimmt.client.replay_analysis import AnalysedDecision, AnalysisChoice, ReplayAnalysis
from nimmt.client.tui.replay_analysis import _decision, _summary, panel_lines, toggle_panel

LEGEND = " expected bullheads to the round's end, ±95% (▶ played, ✓ best):"


def test_the_choices_fit_the_panel_s_width_and_each_line_holds_as_many_choices_as_fit() -> None:
    _, a = _bob_analysed()
    steps = sorted(a.at_step)
    for width in range(43, 101):  # (from the short legend's width on)
        for step in steps:  # the legend and the choices (the summary is one line: not yet)
            lines = _text(panel_lines(a, step, width))[2:]
            assert all(get_cwidth(line) <= width for line in lines), (width, step, lines)
    # 10 choices of a card: a cell is 16 columns, 3 between cells, 1 at the start
    grid = _text(panel_lines(a, 1, 74))[3:]
    assert [line.count("±") for line in grid] == [4, 4, 2]  # 1 + 4*16 + 3*3 = 74
    assert get_cwidth(grid[0]) == 74
    grid = _text(panel_lines(a, 1, 73))[3:]
    assert [line.count("±") for line in grid] == [3, 3, 3, 1]


def test_every_line_of_the_panel_fits_however_narrow_the_panel_is() -> None:
    """Beside the board (150 columns and more) the panel is the log's column, from 40
    columns on: the decision's summary and the legend take a shorter wording, never
    a wider line."""
    _, a = _bob_analysed()
    for width in range(40, 101):
        for step in sorted(a.at_step):
            lines = _text(panel_lines(a, step, width))[1:]  # (the title is a rule)
            assert all(get_cwidth(line) <= width for line in lines), (width, step, lines)
    assert _text(panel_lines(a, 1, 40))[1] == " played 34 · loss 1.95: INACCURACY"


def test_the_legend_is_shortened_only_when_it_does_not_fit() -> None:
    _, a = _bob_analysed()
    long = get_cwidth(LEGEND)
    assert _text(panel_lines(a, 1, long + 1))[2] == LEGEND
    assert _text(panel_lines(a, 1, long))[2] == " expected bullheads, ± (▶ played, ✓ best):"


def test_a_hides_the_panel_and_shows_it_again_and_says_so() -> None:
    _, a = _bob_analysed()
    said: list[tuple[str, str]] = []
    c = SimpleNamespace(replay=SimpleNamespace(analysis=a), status=lambda t, k: said.append((t, k)))
    toggle_panel(c)
    assert not a.shown and said[-1] == ("The analysis panel: hidden (a shows it).", "info")
    toggle_panel(c)
    assert a.shown and said[-1] == ("The analysis panel: shown (a hides it).", "info")
    c = SimpleNamespace(replay=SimpleNamespace(analysis=None),
                        status=lambda t, k: said.append((t, k)))
    toggle_panel(c)
    assert said[-1] == ("No analysis in this replay: run nimmt-client --replay GAME --analyse.",
                        "info")


def test_a_seat_the_replay_s_table_does_not_list_is_named_by_its_number() -> None:
    player = ReplayPlayer(_messages())
    a = ReplayAnalysis(player.messages[1:2], player.steps, 2)  # (no table in the first)
    assert a.name == "seat 3"
    assert _text(panel_lines(a, 0, 80))[1] == \
        " analysing seat 3 (seat 3)'s decisions… (the replay goes on meanwhile)"


def test_the_progress_of_a_game_of_one_round_says_round_1_of_1() -> None:
    player = ReplayPlayer(_messages())
    second = next(i for i, m in enumerate(player.messages)
                  if m.TYPE == "round_started" and m.round == 2)
    a = ReplayAnalysis(player.messages[:second], player.steps, 1)  # (a game stopped there)
    assert len(a.order) == 11
    assert a.progress("\ranalysing [##....] 4/11 decisions")
    assert a.progress_text() == "analysing Bob (seat 2): round 1 of 1, 4 of 11 decisions…"


def _decided(chosen: str, best: str, labels: tuple[str, ...], mark: str | None = None
             ) -> AnalysedDecision:
    choices = tuple(AnalysisChoice(label, 2.0 + i, 0.25, float(i), None)
                    for i, label in enumerate(labels))
    made = next(c for c in choices if c.label == chosen)
    return AnalysedDecision(round=1, turn=3, kind="card", chosen=chosen, best=best,
                            loss=made.loss, loss_ci95=0.25, mark=mark, choices=choices)


def _said(frags: Any) -> list[str]:
    return "".join(text for _, text in frags).split("\n")


def test_a_card_that_sorts_after_the_best_is_not_called_the_best() -> None:
    d = _decided("7", "44", ("44", "7"))  # "7" > "44" as text, not as a card
    assert _summary(d, 80) == [("", " played 7 · best 44 · loss 1.00 ±0.25")]
    assert _said(_summary(_decided("44", "44", ("44", "7")), 80)) == [" played 44, the best · loss 0"]


def test_a_summary_keeps_its_longest_wording_up_to_a_column_short_of_the_width() -> None:
    d = _decided("7", "44", ("44", "7"))
    full = " played 7 · best 44 · loss 1.00 ±0.25"
    assert _said(_summary(d, get_cwidth(full) + 1)) == [full]
    assert _said(_summary(d, get_cwidth(full))) == [" played 7 · best 44 · loss 1.00"]


def test_two_choices_are_shown_with_the_legend_when_the_room_holds_them() -> None:
    d = _decided("7", "44", ("44", "7"))
    assert _said(_decision(d, 80, room=4)) == [
        " played 7 · best 44 · loss 1.00 ±0.25", LEGEND,
        " ✓44  2.00 ±0.25   ▶ 7  3.00 ±0.25"]
    # one line short: the grid keeps its lines, the legend goes
    assert _said(_decision(d, 80, room=3)) == [
        " played 7 · best 44 · loss 1.00 ±0.25", " ✓44  2.00 ±0.25   ▶ 7  3.00 ±0.25"]
