"""After each round, its turning point for you in the log (issue 45): the client
rebuilds the round as a record from what it saw and runs ``nimmt-replay analyse``
on it in the background."""

from __future__ import annotations

import asyncio
import json
import subprocess
from typing import Any

from storage_helpers import play_game
from test_client_tui import Harness, ui_test

from nimmt import protocol as P
from nimmt.client.model import TableModel
from nimmt.client.round_analysis import analyse_command, analyse_round, turning_point_line
from nimmt.engine import Options, record_from_game
from nimmt.server.records.replay import spectator_messages


def _round_seen_by_seat_0(options: Options, seed: int) -> tuple[dict[str, Any], list[P.Message]]:
    game, _ = play_game(options, seed)
    record = record_from_game(game, seats=["Ann", "Bob", "Cat", "Dan", "Eve"][: options.players])
    return json.loads(record.to_json()), spectator_messages(record, seat=0)


def _turns(rnd: dict[str, Any]) -> list[tuple[list[int], list[Any]]]:
    return [(t["commits"], t.get("choices", [])) for t in rnd["turns"]]


def test_the_round_a_player_saw_is_the_round_played_choices_included() -> None:
    choices = 0
    for options in (Options(players=3, rounds=1), Options(players=4, rounds=1, professional=True),
                    Options(players=5, rounds=1, tactic_deck=True)):
        for seed in (1, 2, 3):
            played, messages = _round_seen_by_seat_0(options, seed)
            m = TableModel()
            for msg in messages:
                m.apply(msg)
            [(number, rebuilt)] = m.to_analyse
            first = played["rounds"][0]
            assert number == 1
            assert rebuilt["rounds"][0]["hands"] == first["hands"]
            assert rebuilt["rounds"][0]["rows"] == first["rows"]
            assert _turns(rebuilt["rounds"][0]) == _turns(first)
            assert rebuilt["options"]["professional"] == options.professional
            choices += sum(len(c) for _, c in _turns(first))
    assert choices >= 3  # the rounds above do take rows of their players' choice


def test_a_draft_round_or_a_spectators_is_not_analysed() -> None:
    _, messages = _round_seen_by_seat_0(Options(players=2, rounds=1, draft=True), 1)
    m = TableModel()
    for msg in messages:
        m.apply(msg)
    assert m.to_analyse == []
    game, _ = play_game(Options(players=3, rounds=1), 1)
    m = TableModel()
    for msg in spectator_messages(record_from_game(game)):
        m.apply(msg)
    assert m.to_analyse == []


def test_the_record_command_finds_the_same_turning_point_as_on_the_whole_game(tmp_path) -> None:
    played, messages = _round_seen_by_seat_0(Options(players=4, rounds=1), 2)
    m = TableModel()
    for msg in messages:
        m.apply(msg)
    [(_, rebuilt)] = m.to_analyse
    line = turning_point_line(1, asyncio.run(analyse_round(rebuilt, 0)))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(played))
    whole = subprocess.run(analyse_command(str(path), 0), capture_output=True, text=True,
                           check=True)
    assert line == turning_point_line(1, json.loads(whole.stdout))
    assert line.startswith("Round 1's turning point: your ") and "on average;" in line


def test_turning_point_words() -> None:
    def analysis(worst: Any) -> dict[str, Any]:
        return {"seats": [{"rounds": [{"worst": worst}]}]}
    assert turning_point_line(3, analysis({"turn": 8, "kind": "card", "chosen": "86",
                                           "best": "94", "loss": 4.21})) == \
        "Round 3's turning point: your 86 on turn 8 cost 4.2 bullheads on average; " \
        "94 was the best card."
    assert turning_point_line(1, analysis({"turn": 2, "kind": "row", "chosen": "row 2",
                                           "best": "row 4", "loss": 1.0})) == \
        "Round 1's turning point: your row 2 on turn 2 cost 1.0 bullhead on average; " \
        "row 4 was the best row to take."
    assert turning_point_line(2, analysis(None)) == \
        "Round 2: none of your decisions cost anything on average."


def test_a_slow_analysis_never_holds_up_a_key_and_its_line_comes_when_ready() -> None:
    _, messages = _round_seen_by_seat_0(Options(players=3, rounds=1), 1)
    release = asyncio.Event()
    asked: list[tuple[int, int]] = []

    async def slow(record: dict[str, Any], seat: int) -> dict[str, Any]:
        asked.append((len(record["rounds"]), seat))
        await release.wait()
        return {"seats": [{"rounds": [{"worst": {"turn": 4, "kind": "card", "chosen": "33",
                                                 "best": "slow analysis", "loss": 0.61},
                                       "decisions": []}]}]}

    async def script(h: Harness) -> None:
        h.c.round_analyser = slow
        await h.feed(*messages)
        assert asked == [(1, 0)]
        was = h.c.ui.sheet_open
        await h.keys("t")  # handled while the analysis runs
        assert h.c.ui.sheet_open != was
        assert not any("slow analysis" in line.text for line in h.model.log)
        release.set()
        await h.until(lambda: any("slow analysis" in line.text for line in h.model.log),
                      "the turning point")
    ui_test(script)


def test_a_round_come_back_to_part_way_is_not_analysed() -> None:
    # (the cards taken before a reconnection are in no snapshot: the round is not whole)
    _, messages = _round_seen_by_seat_0(Options(players=3, rounds=1), 1)
    m = TableModel()
    at = next(i for i, msg in enumerate(messages)
              if isinstance(msg, P.TurnStarted) and msg.turn == 5)
    for msg in messages[: at + 1]:
        m.apply(msg)
    assert m.table is not None and m.seat == 0
    m.apply(P.Snapshot(table=m.table, seat=0, round=1, turn=5, phase="commit",
                       hand=tuple(m.hand), commit=None,
                       rows=tuple(tuple(r) for r in m.rows), deadline=None, remaining=None,
                       committed=(), revealed=(), draft_pool=(), draft_picks=(),
                       pending=None))
    for msg in messages[at + 1:]:
        m.apply(msg)
    assert m.phase in ("scored", "over") and m.to_analyse == []
