"""A newcomer's first solo game ends with a turning-point line that is right
(issue 45, "Done means"): the line the client shows after round 1, checked
against an analysis with ten times the deals.

The game is a solo game as ``nimmt-client --solo`` opens it (4 seats, you and 3
bots, base rules, to 66 points), made reproducible: the bots are ``search`` with
a sample count instead of the clock (the "hard" level is ``search:ms=100``) and
the newcomer plays as the ``easy`` bot does (the heuristic). The round goes
through the client's own path: the record it rebuilds from what seat 0 saw
(``TableModel.to_analyse``), the record command's arguments it runs
(``analyse_command``: default samples and seed) and its line
(``turning_point_line``); the command runs in process here, not as a subprocess.
About 6 s of CPU time (the long analysis is most of it); 19 s of wall time measured
while other work kept the 2 cores busy (load 7).
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

from nimmt.bots import make_strategy
from nimmt.bots.analysis import DEFAULT_SAMPLES
from nimmt.client.model import TableModel
from nimmt.client.round_analysis import analyse_command, turning_point_line
from nimmt.engine import Game, Options, RoundScored, record_from_game
from nimmt.server.records.replay import main as replay_main
from nimmt.server.records.replay import spectator_messages

SEED = 4


def _first_round_as_the_client_saw_it() -> dict[str, Any]:
    game = Game(Options(players=4), seed=SEED)
    seats = [make_strategy("heuristic", seed=SEED)] + [
        make_strategy("search:samples=50", seed=SEED * 10 + s) for s in (1, 2, 3)]
    scored = False
    while not scored:
        seat = min(game.pending.seats)
        scored = any(isinstance(e, RoundScored)
                     for e in game.apply(seats[seat].decide(game.view(seat))))
    record = record_from_game(game, ["You", "Bot 1", "Bot 2", "Bot 3"])
    model = TableModel()
    for message in spectator_messages(record, seat=0):
        model.apply(message)
    [(number, rebuilt)] = model.to_analyse
    assert number == 1
    return rebuilt


def _analyse(argv: list[str]) -> dict[str, Any]:
    out = io.StringIO()
    with redirect_stdout(out):
        assert replay_main(argv) == 0
    return json.loads(out.getvalue())


def _round(analysis: dict[str, Any]) -> dict[str, Any]:
    [seat] = analysis["seats"]
    [round_] = seat["rounds"]
    return round_


def test_the_first_solo_rounds_turning_point_holds_against_ten_times_the_deals(
        tmp_path: Path) -> None:
    path = tmp_path / "round.json"
    path.write_text(json.dumps(_first_round_as_the_client_saw_it()))
    command = analyse_command(str(path), 0)
    assert command[1:3] == ["-m", "nimmt.server.records"]
    short = _analyse(command[3:])  # what the client runs, in process
    assert short["samples"] == DEFAULT_SAMPLES
    line = turning_point_line(1, short)
    assert line == ("Round 1's turning point: your 14 on turn 6 cost 2.4 bullheads on "
                    "average; 51 was the best card.")

    long = _analyse([*command[3:], "--samples", str(10 * DEFAULT_SAMPLES)])
    assert long["samples"] == 10 * DEFAULT_SAMPLES
    said, checked = _round(short)["worst"], _round(long)["worst"]
    # the same decision named, and the same best card beside it
    assert {k: checked[k] for k in ("turn", "kind", "chosen", "best")} == {
        k: said[k] for k in ("turn", "kind", "chosen", "best")}

    def decision(analysis: dict[str, Any]) -> dict[str, Any]:
        return next(d for d in _round(analysis)["decisions"]
                    if (d["turn"], d["kind"]) == (said["turn"], said["kind"]))

    shown, precise = decision(short), decision(long)
    # the loss shown is right within its interval: the longer analysis's lies inside it
    assert abs(precise["loss"] - shown["loss"]) <= shown["loss_ci95"] <= 0.25
    # (the short one refined this loss on more deals than it began with; the long one
    # began with ten times as many for every choice)
    assert shown["samples"] < precise["samples"] and precise["samples"] >= 10 * DEFAULT_SAMPLES
    # and it is the round's costliest decision by a clear margin in both analyses
    for analysis in (short, long):
        losses = sorted((d["loss"] for d in _round(analysis)["decisions"]), reverse=True)
        assert losses[0] == decision(analysis)["loss"]
        assert losses[0] - losses[1] > 0.5
