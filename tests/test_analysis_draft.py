"""The coach's analysis of a Draft round (issue 45): the picks are decisions too, but
the search cannot price one soundly (docs/ANALYSIS.md, "Draft picks"), so each pick
is listed as not analysed, with the reason, in the JSON and the text; the cards and
rows of the round after the draft are analysed as in any round."""

from __future__ import annotations

import json

import pytest

from nimmt.bots import HeuristicStrategy, RandomStrategy
from nimmt.bots.analysis import PICK_NOT_ANALYSED, analyse
from nimmt.engine import Game, Options, record_from_game
from nimmt.engine.records import Record
from nimmt.server.records.replay import main as replay_main


def _draft_round() -> Record:
    """Two players, Tactic deck (cards 1 to 24), Draft: seat 0 picks first."""
    game = Game(Options(players=2, rounds=1, draft=True, tactic_deck=True), seed=4)
    bots = [HeuristicStrategy(), RandomStrategy(3)]
    while not game.is_over:
        for seat in sorted(game.pending.seats):
            game.apply(bots[seat].decide(game.view(seat)))
    return record_from_game(game, ["Ann", "Bob"])


def test_each_pick_is_listed_as_not_analysed_and_the_cards_after_it_are() -> None:
    record = _draft_round()
    picks = record.rounds[0].picks
    assert picks is not None and len(picks) == 20
    bob = [card for seat, card in picks if seat == 1]
    [round_] = analyse(record, seats=[1], samples=10).seats[0].rounds
    listed = round_.not_analysed
    assert [(p.seat, p.round, p.pick, p.chosen) for p in listed] == [
        (1, 1, k, card) for k, card in enumerate(bob, 1)]
    # Bob picks second: 23 cards lie there for his first pick, two fewer each time after
    assert [p.choices for p in listed] == [23, 21, 19, 17, 15, 13, 11, 9, 7, 5]
    assert [p.kept for p in listed] == [tuple(sorted(bob[:k])) for k in range(10)]
    assert {p.reason for p in listed} == {PICK_NOT_ANALYSED}
    # the round after the draft: ten cards played, each analysed; no pick among them
    kinds = [d.kind for d in round_.decisions]
    assert kinds.count("card") == 10 and set(kinds) <= {"card", "row"}
    assert round_.expected_loss == sum(d.loss for d in round_.decisions)


def test_the_picks_in_the_json_and_the_text(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    record = _draft_round()
    path = tmp_path / "draft.json"
    path.write_text(record.to_json())
    assert replay_main(["analyse", str(path), "--seat", "0", "--json", "--samples", "10"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    [round_] = json.loads(out)["seats"][0]["rounds"]
    ann = [card for seat, card in record.rounds[0].picks if seat == 0]
    assert round_["not_analysed"][:2] == [
        {"kind": "pick", "pick": 1, "chosen": str(ann[0]), "choices": 24, "kept": [],
         "reason": PICK_NOT_ANALYSED},
        {"kind": "pick", "pick": 2, "chosen": str(ann[1]), "choices": 22, "kept": [ann[0]],
         "reason": PICK_NOT_ANALYSED}]
    assert [p["pick"] for p in round_["not_analysed"]] == list(range(1, 11))
    assert all(d["kind"] != "pick" for d in round_["decisions"])

    assert replay_main(["analyse", str(path), "--seat", "0", "--samples", "10"]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = lines.index("Ann (seat 0), round 1")
    assert lines[at + 1] == f"  pick  1  picked {ann[0]:<4} from  24 cards   not analysed"
    assert lines[at + 10] == f"  pick 10  picked {ann[9]:<4} from   6 cards   not analysed"
    assert lines[at + 11] == f"  picks not analysed: {PICK_NOT_ANALYSED} (docs/ANALYSIS.md)"
    assert lines[at + 12].startswith("  turn  1  played ")
    assert any(line.startswith("  expected loss this round (the picks not counted): ")
               for line in lines)
