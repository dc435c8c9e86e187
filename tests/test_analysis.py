"""The coach's analysis (issue 45): every choice's expected bullheads from the
seat's view, the loss of the choice made, marks, hindsight, reproducibility,
and ``nimmt-replay analyse`` (its JSON and its text)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from nimmt.bots import HeuristicStrategy, RandomStrategy
from nimmt.bots.analysis import THRESHOLDS, analyse, mark
from nimmt.bots.analysis_report import analysis_json
from nimmt.engine import BULLHEADS, ChooseRow, Commit, Game, Options, Replay, record_from_game
from nimmt.engine.records import Record
from nimmt.server.records.replay import main as replay_main

WORKED = Path(__file__).resolve().parent / "data" / "worked_example.json"


def _by_hand() -> Record:
    """Two players at turn 9 of 10; rows 55 (7 bullheads) | 11 (5) | 22 (5) | 97 (1).
    Seat 0 holds 1 and 98 and plays 98 first; seat 1 holds 5 and 60.

    The 1 is below every row: it must take a row, the cheapest. Played now it
    takes 97 (1 bullhead), and the 98 fits safely next turn (no row reaches five
    cards in two turns): 1 bullhead, whatever the other holds. The 98 fits safely
    now (after 97: no card lies between), but then the 1 takes next turn the
    cheapest row as the other's card x left it (the search imagines an unknown
    opponent playing a random card of its hand: x is any of the 98 unseen cards):
    x of 2 to 10 takes the row 97 98 itself, leaving its own card (1 bullhead, but
    5: 2 and 10: 3); x of 99 to 104 lies on 97 98 (cheapest then 3 with 101 to 103,
    5 with 99, 100, 104); any other of the 83 cards leaves 97 98 (2) the cheapest.
    (7 + 2 + 3 + 5 + 5 + 3 + 3 + 3 + 5 + 83 * 2) / 98 = 202 / 98 = 2.0612 bullheads.
    So 1 is best (1.0), and 98 loses 202 / 98 - 1 = 1.0612 bullheads."""
    game = Game.from_position(Options(players=2, rounds=1), [[55], [11], [22], [97]],
                              [[1, 98], [5, 60]])
    for decision in (Commit(0, 98), Commit(1, 5), ChooseRow(1, 3),  # 5 takes 97
                     Commit(0, 1), Commit(1, 60), ChooseRow(0, 3)):  # 1 takes 5 (2 bullheads)
        game.apply(decision)
    assert game.is_over
    return record_from_game(game, ["Me", "Opp"])


def test_a_card_that_must_take_a_row_against_one_that_fits_as_computed_by_hand() -> None:
    seat = analyse(_by_hand(), seats=[0], samples=300, seed=1).seats[0]
    first = seat.rounds[0].decisions[0]
    assert (first.turn, first.kind, [c.label for c in first.options]) == (9, "card", ["1", "98"])
    best, made = first.options
    assert (best.expected, best.ci95, best.loss) == (1.0, 0.0, 0.0)  # the same on every deal
    assert made is first.made and made.label == "98"
    assert 0 < made.loss_ci95 <= 0.25
    assert abs(made.loss - (202 / 98 - 1)) <= made.loss_ci95
    assert abs(made.expected - 202 / 98) <= made.ci95
    assert first.mark == "inaccuracy"  # 1.06: just over the first threshold


def test_hindsight_is_what_the_engine_gave_and_the_swap_with_the_real_cards() -> None:
    seat = analyse(_by_hand(), seats=[0], samples=20).seats[0]
    played, last_card, row = seat.rounds[0].decisions
    # the 98 played really cost 2 (the 1 then took 5's row); the 1 first would have
    # taken 97 (1) against the 5 and the 60 the other really held
    assert {c.label: c.hindsight for c in played.options} == {"1": 1, "98": 2}
    assert (last_card.kind, [(c.label, c.hindsight) for c in last_card.options]) == (
        "card", [("1", 2)])
    # the last row choice: the rows' bullheads exactly, known for sure
    assert [(c.label, c.expected, c.hindsight) for c in row.options] == [
        ("row 3", 2.0, 2), ("row 1", 5.0, 5), ("row 2", 5.0, 5), ("row 0", 8.0, 8)]
    assert seat.rounds[0].bullheads == 2


def _played(seed: int, rounds: int = 2) -> Record:
    game = Game(Options(players=4, rounds=rounds), seed=seed)
    bots = [HeuristicStrategy(), RandomStrategy(seed), HeuristicStrategy(), RandomStrategy(9)]
    while not game.is_over:
        for s in sorted(game.pending.seats):
            game.apply(bots[s].decide(game.view(s)))
    return record_from_game(game, ["A", "B", "C", "D"])


def test_the_hindsight_of_every_choice_made_is_the_engines_result() -> None:
    record = _played(4)
    # what each seat really took from each of its decisions to its round's end,
    # from the engine's replay of the record
    run = Replay(record)
    expected: list[tuple[int, int, int, int]] = []  # seat, round, turn, bullheads to come
    before = {}
    pending = []
    for step in run:
        game = run.game
        assert game is not None
        if isinstance(step.action, (Commit, ChooseRow)):
            view = before[step.seat]
            pending.append((step.seat, view.round, view.turn, view.penalties[step.seat]))
        for event in step.events:
            if type(event).__name__ == "RoundScored":
                for s, r, t, p in pending:
                    expected.append((s, r, t, event.penalties[s] - p))
                pending = []
        before = {s: game.view(s) for s in range(4)}
    analysis = analyse(record, samples=2)
    got = [(d.seat, d.round, d.turn, d.made.hindsight) for s in analysis.seats
           for r in s.rounds for d in r.decisions]
    assert sorted(got) == sorted(expected) and len(got) >= 80
    for s in analysis.seats:
        for r in s.rounds:
            assert r.bullheads == r.decisions[0].made.hindsight  # the first turn: the whole round


@pytest.mark.parametrize(("loss", "expected"), [
    (0.0, None), (0.999, None), (1.0, "inaccuracy"), (2.499, "inaccuracy"), (2.5, "mistake"),
    (4.999, "mistake"), (5.0, "blunder"), (30.0, "blunder")])
def test_marks_begin_at_their_thresholds(loss: float, expected: str | None) -> None:
    assert THRESHOLDS == (("inaccuracy", 1.0), ("mistake", 2.5), ("blunder", 5.0))
    assert mark(loss) == expected


def test_the_same_samples_and_seed_give_the_same_analysis() -> None:
    record = _played(6, rounds=1)
    one = json.dumps(analysis_json(analyse(record, samples=10, seed=5)))
    assert json.dumps(analysis_json(analyse(record, samples=10, seed=5))) == one
    assert json.dumps(analysis_json(analyse(record, samples=10, seed=6))) != one
    # a seat's analysis does not depend on which other seats are analysed
    alone = analysis_json(analyse(record, seats=[2], samples=10, seed=5))["seats"]
    assert alone == [s for s in json.loads(one)["seats"] if s["seat"] == 2]


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = replay_main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_the_commands_json_on_the_worked_example(capsys) -> None:
    status, out, err = _run(capsys, "analyse", str(WORKED), "--json", "--samples", "40")
    assert (status, err) == (0, "")
    report = json.loads(out)
    assert {k: report[k] for k in ("format", "version", "samples", "seed", "thresholds")} == {
        "format": "nimmt-analysis", "version": 1, "samples": 40, "seed": 0,
        "thresholds": {"inaccuracy": 1.0, "mistake": 2.5, "blunder": 5.0}}
    assert [(s["seat"], s["name"]) for s in report["seats"]] == [
        (0, "Ann"), (1, "Bob"), (2, "Cid"), (3, "Dee")]
    ann = report["seats"][0]["rounds"][0]
    assert set(ann) == {"round", "expected_loss", "bullheads", "worst", "decisions",
                        "not_analysed"}
    assert ann["not_analysed"] == []  # no Draft: no picks
    assert (ann["round"], ann["bullheads"]) == (1, 1)
    assert [(d["turn"], d["kind"], d["chosen"]) for d in ann["decisions"]] == [
        (1, "card", "14"), (2, "card", "26"), (3, "card", "3"), (3, "row", "row 1")]
    row = ann["decisions"][3]
    assert set(row) == {"round", "turn", "kind", "samples", "chosen", "best", "loss",
                        "loss_ci95", "mark", "choices"}
    assert (row["best"], row["loss"], row["mark"]) == ("row 1", 0.0, None)
    assert row["choices"] == [  # the 3 is the last card placed: each row costs its bullheads
        {"choice": "row 1", "expected": 1.0, "ci95": 0.0, "loss": 0.0, "loss_ci95": 0.0,
         "hindsight": 1},
        {"choice": "row 3", "expected": 2.0, "ci95": 0.0, "loss": 1.0, "loss_ci95": 0.0,
         "hindsight": 2},
        {"choice": "row 0", "expected": 4.0, "ci95": 0.0, "loss": 3.0, "loss_ci95": 0.0,
         "hindsight": 4},
        {"choice": "row 2", "expected": 6.0, "ci95": 0.0, "loss": 5.0, "loss_ci95": 0.0,
         "hindsight": 6}]
    bob = report["seats"][1]["rounds"][0]
    first = bob["decisions"][0]
    # Bob's 15 led to his 30 being the sixth card: 6 bullheads really; 68 first, none
    assert {c["choice"]: c["hindsight"] for c in first["choices"]} == {"15": 6, "30": 1, "68": 0}
    assert bob["bullheads"] == 6
    _, again, _ = _run(capsys, "analyse", str(WORKED), "--json", "--samples", "40")
    assert again == out


def test_the_commands_text_on_the_worked_example(capsys) -> None:
    status, out, err = _run(capsys, "analyse", str(WORKED), "--seat", "1", "--samples", "40")
    assert (status, err) == (0, "")  # standard error is no terminal here: no progress bar
    lines = out.splitlines()
    assert lines[0].startswith("Analysis: 40 deals a choice at first (seed 0); ")
    assert lines[1:3] == ["", "Bob (seat 1), round 1"]
    assert lines[3].startswith("  turn  1  played 15          expected ")
    assert lines[4].startswith("           choices: ")
    assert "  turn  3  played 68          expected  " in out and "(the only choice) [0]" in out
    assert "Ann" not in out
    assert lines[-1].startswith("  hindsight (the others' real cards, public now): you took "
                                "6 bullheads this round")


def test_a_seat_that_is_not_at_the_table(capsys) -> None:
    assert _run(capsys, "analyse", str(WORKED), "--seat", "4") == (
        2, "", f"nimmt-replay: {WORKED}: --seat 4: the seats are 0 to 3\n")


def test_seats_in_two_processes_give_the_same_analysis(capsys) -> None:
    one = _run(capsys, "analyse", str(WORKED), "--json", "--samples", "30", "--jobs", "1")
    two = _run(capsys, "analyse", str(WORKED), "--json", "--samples", "30", "--jobs", "2")
    assert one == two and one[0] == 0


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("argv", "total"), [(["--seat", "0"], 4), (["--jobs", "2"], 13)])
def test_a_progress_bar_on_a_terminal_ends_full(monkeypatch, capsys, argv, total) -> None:
    err = _Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    assert replay_main(["analyse", str(WORKED), "--samples", "10", *argv]) == 0
    capsys.readouterr()
    assert err.getvalue().startswith("\ranalysing [")
    assert err.getvalue().endswith(f"\ranalysing [{'#' * 30}] {total}/{total} decisions\n")


def _really(view, sequences: list[list[int]], seat: int) -> int:
    """``seat``'s bullheads from ``view``'s commit to the round's end when every
    seat plays ``sequences`` in order, rows taken as the cheapest (the lowest
    number of equals), played by the engine itself."""
    hands = [sorted(q) for q in sequences]
    game = Game.from_position(view.options, view.rows, hands, totals=view.totals,
                              penalties=view.penalties, round=view.round, turn=view.turn)
    for t in range(len(hands[0])):
        for s, q in enumerate(sequences):
            game.apply(Commit(s, q[t]))
        while type(game.pending).__name__ == "AwaitingRowChoice":
            heads = [sum(BULLHEADS[c] for c in row) for row in game.rows]
            game.apply(ChooseRow(game.pending.seat, heads.index(min(heads))))
    return game.view(seat).totals[seat] - view.totals[seat] - view.penalties[seat]


def test_the_hindsight_of_other_cards_swaps_them_with_the_card_played() -> None:
    """Each card not played, against the others' real cards: this seat's later
    cards as played, the card tried and the card played changing places."""
    record = _played(8, rounds=1)
    commits = {t + 1: turn.commits for t, turn in enumerate(record.rounds[0].turns)}
    views = {}
    run = Replay(record)
    before = None
    for step in run:
        if isinstance(step.action, Commit) and step.seat == 1:
            views[step.turn] = before
        assert run.game is not None
        before = run.game.view(1)
    analysis = analyse(record, seats=[1], samples=2).seats[0].rounds[0]
    checked = 0
    for d in analysis.decisions:
        if d.kind != "card" or len(d.options) < 2:
            continue
        view = views[d.turn]
        real = [[commits[t][s] for t in range(d.turn, 11)] for s in range(4)]
        for c in d.options:
            if c is d.made:  # the engine's result, with the rows the players really chose
                continue
            mine = list(real[1])
            i = mine.index(int(c.label))
            mine[0], mine[i] = mine[i], mine[0]
            assert c.hindsight == _really(view, [*real[:1], mine, *real[2:]], 1), (d.turn, c)
            checked += 1
    assert checked >= 30
