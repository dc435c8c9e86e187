"""``nimmt-replay``: RULES.md's worked example through a record file, the JSON-lines
output, records that stop part-way, and records the rules contradict."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from nimmt.server.records.replay import main

DATA = Path(__file__).parent / "data"
WORKED_PATH = DATA / "worked_example.json"
WORKED = json.loads(WORKED_PATH.read_text())

# RULES.md: the rows after each turn of the worked example.
ROWS_AFTER = [
    "  rows: 12 14 15 | 37 | 43 44 | 58 61",
    "  rows: 30 36 | 37 | 43 44 | 58 61",
    "  rows: 30 36 | 3 9 | 43 44 | 58 61 68 93",
]


def replay_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def write(tmp_path: Path, data: Any, name: str = "record.json") -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def worked() -> dict[str, Any]:
    return copy.deepcopy(WORKED)


def check_worked_example_text(out: str) -> None:
    lines = out.splitlines()
    assert lines[0] == "Start (a hand-made position): round 1, turn 1"
    assert lines[1] == "  rows: 12 | 37 | 43 | 58"
    turns = [i for i, line in enumerate(lines) if line.startswith("Turn ")]
    assert [lines[i] for i in turns] == [
        "Turn 1: Ann 14, Bob 15, Cid 44, Dee 61",
        "Turn 2: Ann 26, Bob 30, Cid 21, Dee 36",
        "Turn 3: Ann 3, Bob 68, Cid 9, Dee 93",
    ]
    # The rows printed at the end of each turn are RULES.md's.
    rows_lines = [line for line in lines if line.startswith("  rows: ")][1:]
    assert rows_lines == ROWS_AFTER
    for turn_start, rows in zip(turns, ROWS_AFTER, strict=True):
        assert lines.index(rows, turn_start) > turn_start
    # Turn 2: the 30 is row 0's sixth card; its player (Bob) takes 6 bullheads.
    assert (
        "  Bob's 30 would be the sixth card of row 0 (after 26): Bob takes 12 14 15 21 26 (6 bullheads); 30 starts row 0"
        in lines
    )
    # Turn 3: the 3 fits no row; its player (Ann) takes row 1 ("row 2" on the sheet): 1 bullhead.
    assert "  Ann chooses row 1 and takes 37 (1 bullhead); 3 starts row 1" in lines
    assert "Round 1 bullheads: Ann 1, Bob 6, Cid 0, Dee 0" in lines
    assert lines[-1].startswith("Game over: Cid and Dee win.")


def test_worked_example(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = replay_cli(capsys, str(WORKED_PATH))
    assert (status, err) == (0, "")
    check_worked_example_text(out)


def test_worked_example_as_a_module() -> None:
    env = {**os.environ, "PYTHONWARNINGS": "error"}
    proc = subprocess.run(
        [sys.executable, "-m", "nimmt.server.records.replay", str(WORKED_PATH)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    check_worked_example_text(proc.stdout)


def test_worked_example_json_lines(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = replay_cli(capsys, "--json", str(WORKED_PATH))
    assert (status, err) == (0, "")
    events = [json.loads(line) for line in out.splitlines()]
    assert events[0] == {
        "event": "position_set",
        "round": 1,
        "turn": 1,
        "rows": [[12], [37], [43], [58]],
        "hands": [[3, 14, 26], [15, 30, 68], [9, 21, 44], [36, 61, 93]],
        "totals": [0, 0, 0, 0],
        "penalties": [0, 0, 0, 0],
    }
    assert {"event": "card_placed", "seat": 0, "card": 14, "row": 0, "end": "right"} in events
    taken = [e for e in events if e["event"] == "row_taken"]
    assert taken == [
        {"event": "row_taken", "seat": 1, "row": 0, "cards": [12, 14, 15, 21, 26], "bullheads": 6},
        {"event": "row_taken", "seat": 0, "row": 1, "cards": [37], "bullheads": 1},
    ]
    assert {"event": "row_choice_needed", "seat": 0, "card": 3} in events
    assert events[-2] == {
        "event": "round_scored",
        "round": 1,
        "penalties": [1, 6, 0, 0],
        "totals": [1, 6, 0, 0],
    }
    assert events[-1] == {
        "event": "game_over",
        "result": {"totals": [1, 6, 0, 0], "places": [3, 4, 1, 1], "winners": [2, 3]},
    }


def test_the_34_example_from_003(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A 34, with rows ending in 32, 41 and 30, goes after the 32."""
    record = {
        "format": "nimmt-record",
        "version": 1,
        "options": {"players": 2, "rounds": 1},
        "start": {"rows": [[15, 17, 32], [41], [30], [90]], "hands": [[34], [100]]},
        "rounds": [
            {
                "turns": [
                    {"commits": [34, 100], "rows_after": [[15, 17, 32, 34], [41], [30], [90, 100]]}
                ]
            }
        ],
    }
    status, out, err = replay_cli(capsys, write(tmp_path, record))
    assert (status, err) == (0, "")
    assert "  seat 0's 34 goes after 32 in row 0" in out.splitlines()


def test_tie_choice_text(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record = {
        "format": "nimmt-record",
        "version": 1,
        "options": {"players": 2, "professional": True, "rounds": 1},
        "seats": ["Ann", "Bob"],
        "start": {"rows": [[20], [30, 31], [40], [50]], "hands": [[25], [10]]},
        "rounds": [
            {
                "turns": [
                    {
                        "commits": [25, 10],
                        "choices": [{"seat": 0, "place": {"row": 1, "end": "left"}}],
                    }
                ]
            }
        ],
    }
    status, out, err = replay_cli(capsys, write(tmp_path, record))
    assert (status, err) == (0, ""), err
    lines = out.splitlines()
    assert "  Bob's 10 goes before 20 in row 0" in lines
    # Row 0 is now 10 20: 25 is 5 after its 20 and 5 before row 1's 30.
    assert (
        "  Ann's 25 fits after 20 in row 0 and before 30 in row 1 equally well: Ann chooses"
        in lines
    )
    assert "  Ann chooses the left end of row 1: 25 goes before 30 in row 1" in lines
    assert "  rows: 10 20 | 25 30 31 | 40 | 50" in lines


# ----------------------------------------------------------------- stopping part-way


def test_a_record_that_stops_part_way(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = worked()
    data["rounds"][0]["turns"][2] = {"commits": [3, None, 9, None]}
    del data["rounds"][0]["penalties"], data["rounds"][0]["totals"], data["result"]
    path = write(tmp_path, data)
    status, out, err = replay_cli(capsys, path)
    assert (status, err) == (0, "")
    assert out.splitlines()[-2:] == [
        ROWS_AFTER[1],
        "The record stops at round 1, turn 3: waiting for Bob, Dee to commit (Ann, Cid committed).",
    ]
    status, out, err = replay_cli(capsys, "--json", path)
    assert json.loads(out.splitlines()[-1]) == {
        "event": "record_stopped",
        "round": 1,
        "turn": 3,
        "waiting": "commits",
        "seats": [1, 3],
    }


def test_a_record_that_stops_at_a_row_choice(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = worked()
    del data["rounds"][0]["turns"][2]["choices"], data["rounds"][0]["turns"][2]["rows_after"]
    del data["rounds"][0]["penalties"], data["rounds"][0]["totals"], data["result"]
    status, out, err = replay_cli(capsys, write(tmp_path, data))
    assert (status, err) == (0, "")
    assert out.splitlines()[-1] == (
        "The record stops at round 1, turn 3: waiting for a choice: Ann's 3 fits no row "
        "(it is lower than the last card of every row), so Ann chooses a row to take."
    )


# ----------------------------------------------------------------- contradictions


def rejected(capsys: pytest.CaptureFixture[str], tmp_path: Path, data: Any) -> tuple[str, str, str]:
    path = write(tmp_path, data)
    status, out, err = replay_cli(capsys, path)
    assert status == 1, (out, err)
    assert err.startswith(f"nimmt-replay: {path}: ") and err.endswith("\n") and err.count("\n") == 1
    return path, out, err[len(f"nimmt-replay: {path}: ") :].rstrip("\n")


def test_a_card_not_in_the_hand(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = worked()
    data["rounds"][0]["turns"][1]["commits"][1] = 31
    _, out, message = rejected(capsys, tmp_path, data)
    assert (
        message
        == "round 1, turn 2, seat 1: Bob commits 31, which is not in their hand (they hold 30 68)"
    )
    assert ROWS_AFTER[0] in out.splitlines()  # the steps before the contradiction were shown


def test_the_wrong_chooser(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = worked()
    data["rounds"][0]["turns"][2]["choices"][0]["seat"] = 3
    _, _, message = rejected(capsys, tmp_path, data)
    assert message == (
        "round 1, turn 3, seat 3: the record has Dee make a row choice, but Ann's 3 fits no row "
        "(it is lower than the last card of every row), so Ann chooses a row to take"
    )


def test_a_row_choice_where_none_was_needed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = worked()
    data["rounds"][0]["turns"][1]["choices"] = [{"seat": 1, "row": 0}]
    _, _, message = rejected(capsys, tmp_path, data)
    assert message.startswith(
        "round 1, turn 2, seat 1: the record gives Bob a row choice, but no choice was needed"
    )


def test_a_claimed_result_that_does_not_follow(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = worked()
    data["rounds"][0]["penalties"] = [1, 5, 0, 0]
    _, _, message = rejected(capsys, tmp_path, data)
    assert message == (
        "round 1, seat 1: the record claims Bob took 5 bullheads this round, but by the rules Bob took 6 bullheads"
    )
    data = worked()
    data["rounds"][0]["turns"][2]["rows_after"][1] = [37, 3]
    _, _, message = rejected(capsys, tmp_path, data)
    assert message.startswith(
        "round 1, turn 3: the record claims the rows after this turn are 30 36 | 37 3 |"
    )
    data = worked()
    data["result"]["totals"] = [0, 6, 0, 1]
    _, _, message = rejected(capsys, tmp_path, data)
    assert message == "seat 0: the result claims Ann's total is 0, but by the rules it is 1"


def test_malformed_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _, out, message = rejected(capsys, tmp_path, '{"format": "nimmt-record",\n "version": 1,,}')
    assert out == ""
    assert (
        message
        == "not valid JSON: Expecting property name enclosed in double quotes at line 2, column 15"
    )


def test_an_unknown_field(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = worked()
    data["rounds"][0]["turns"][1]["row_after"] = data["rounds"][0]["turns"][1].pop("rows_after")
    _, _, message = rejected(capsys, tmp_path, data)
    assert message.startswith("round 1, turn 2: rounds[0].turns[1]: unknown field 'row_after'")


def test_standard_input(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "nimmt.server.records.replay", "--json", "-"],
        input=WORKED_PATH.read_text(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0 and proc.stderr == ""
    assert json.loads(proc.stdout.splitlines()[-1])["event"] == "game_over"


# ----------------------------------------------------------------- usage


def test_usage_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, out, err = replay_cli(capsys)
    assert status == 2 and "usage: nimmt-replay" in err
    status, out, err = replay_cli(capsys, "--bogus", str(WORKED_PATH))
    assert status == 2 and "unrecognized arguments: --bogus" in err
    missing = str(tmp_path / "missing.json")
    status, out, err = replay_cli(capsys, missing)
    assert (status, out) == (2, "")
    assert err == f"nimmt-replay: {missing}: cannot read: No such file or directory\n"
    status, out, err = replay_cli(capsys, str(tmp_path))
    assert status == 2 and err.startswith(f"nimmt-replay: {tmp_path}: cannot read:")
    status, out, err = replay_cli(capsys, "--help")
    assert status == 0 and "--json" in out


def test_not_utf8(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "record.json"
    path.write_bytes(b"\xff\xfe{}")
    status, out, err = replay_cli(capsys, str(path))
    assert status == 1 and "not UTF-8 text" in err


# ----------------------------------------------------------------- docs/RECORD.md


def test_record_md_shows_the_worked_example_as_it_is(capsys: pytest.CaptureFixture[str]) -> None:
    """The complete example in docs/RECORD.md is the test file, and its output is the real output."""
    doc = (Path(__file__).parent.parent / "docs" / "RECORD.md").read_text()
    example = doc.split("## A complete example", 1)[1]
    blocks = example.split("```")
    json_block = next(b for b in blocks if b.startswith("json\n"))[len("json\n") :]
    text_block = next(b for b in blocks if b.startswith("text\n"))[len("text\n") :]
    assert json.loads(json_block) == WORKED
    status, out, _ = replay_cli(capsys, str(WORKED_PATH))
    assert status == 0 and out == text_block


def test_record_md_error_example(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    doc = (Path(__file__).parent.parent / "docs" / "RECORD.md").read_text()
    data = worked()
    data["rounds"][0]["turns"][2]["choices"] = [{"seat": 1, "row": 1}]
    _, _, message = rejected(capsys, tmp_path, data)
    assert f"nimmt-replay: tests/data/worked_example.json: {message}" in doc
