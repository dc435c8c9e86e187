"""``nimmt-bot --exec``: programs in any language play through JSON lines, against the
real server; a program that misbehaves is stopped, the autopilot decides for it that
once, and it is started again for the next question."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from nimmt import protocol as wire
from nimmt.bots.bridge import ProgramPlayer, question, read_answer
from nimmt.bots.players import Ask
from nimmt.bots.runner import main, play_bot
from nimmt.engine import ChooseRow, Commit, Game, Options
from real_server import running_server

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "examples" / "bot.js"

#: A test program: the first time it is started it misbehaves on its first question
#: (the way given as argv[2]); after a restart it answers the first legal choice. It
#: appends "start" and each answered "ask" to the file argv[1].
PROGRAM = textwrap.dedent("""
    import json, sys, time
    log, fault = sys.argv[1], sys.argv[2]
    with open(log, "a") as f:
        f.write("start\\n")
    first_run = open(log).read().count("start") == 1
    for line in sys.stdin:
        q = json.loads(line)
        if first_run:
            if fault == "dies":
                sys.exit(3)
            if fault == "garbage":
                print("thinking about", q["legal"], flush=True)
            if fault == "late":
                time.sleep(60)
            if fault == "nonsense":
                print(json.dumps({"card": 0}), flush=True)
            if fault == "always_garbage":
                print("<html>", flush=True)
            if fault != "answers_once":
                continue
        key = "row" if q["ask"] in ("row", "tie") else "card"
        choice = q["legal"][0]
        print(json.dumps({key: choice["row"] if isinstance(choice, dict) else choice}), flush=True)
        with open(log, "a") as f:
            f.write("ask\\n")
        if first_run:
            sys.exit(0)  # answers_once: gone before the next question
""")

FAST = wire.TableOptions(seats=4, rounds=1, point_limit=None, step_delay=0.0, turn_time=1.0)


@pytest.fixture(scope="module")
def server_port() -> Iterator[int]:
    with running_server() as port:
        yield port


def _program(tmp_path: Path, fault: str) -> tuple[str, Path]:
    script = tmp_path / "bot.py"
    script.write_text(PROGRAM)
    log = tmp_path / "log.txt"
    return f"{sys.executable} {script} {log} {fault}", log


def _play(port: int, player: ProgramPlayer, options: wire.TableOptions = FAST):
    async def run():
        await player.start()
        try:
            return await asyncio.wait_for(
                play_bot("127.0.0.1", port, player, name="Prog", create=options, add_bots=3), 30)
        finally:
            await player.aclose()
    return asyncio.run(run())


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("variant", [[], ["--draft", "--professional", "--tactic-deck"]])
def test_the_example_javascript_bot_plays_whole_games(server_port: int, variant: list[str]) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "nimmt.bots.runner", f"127.0.0.1:{server_port}", "--exec",
         f"node {EXAMPLE}", "--create", "--add-bots", "3", "--rounds", "2", "--games", "2",
         "--turn-time", "20", *variant],
        capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("game ") == 2 and "place" in run.stdout
    # The program made every decision: no fault, and no wait for a 20 s deadline.
    assert "autopilot" not in run.stderr and "Traceback" not in run.stderr


@pytest.mark.parametrize("fault, said", [
    ("dies", "died (exit code 3)"),
    ("garbage", "wrote garbage (not JSON: 'thinking about"),
    ("late", "answered late"),
    ("nonsense", "answered nonsense (card 0 is not legal now"),
    ("answers_once", "code 0)"),  # seen as it exits, or when the next question finds it gone
])
def test_a_program_that_fails_is_played_for_once_and_restarted(
        server_port: int, tmp_path: Path, caplog, fault: str, said: str) -> None:
    command, log = _program(tmp_path, fault)
    player = ProgramPlayer(command)
    with caplog.at_level(logging.WARNING, logger="nimmt.bots"):
        result = _play(server_port, player)
    # The seat was kept and the game played to its end; nothing the bridge sent was refused.
    assert result.games == 1 and result.seat == 0 and result.errors == []
    assert player.starts == 2 and len(player.faults) == 1 and said in player.faults[0]
    assert said in caplog.text and "the bridge decided at once with its fallback" in caplog.text
    # The restarted program answered every later question (9 turns at least).
    assert log.read_text().count("ask") >= 9


def test_a_program_that_keeps_failing_is_given_up_and_the_bot_says_so(
        server_port: int, tmp_path: Path) -> None:
    command, _ = _program(tmp_path, "always_garbage")
    script = tmp_path / "bot.py"  # every run misbehaves as a first run does
    script.write_text(PROGRAM.replace('open(log).read().count("start") == 1', "True"))
    player = ProgramPlayer(command, backoff=(0.0,), max_failures=3)
    result = _play(server_port, player, dataclasses.replace(FAST, turn_time=0.5))
    assert player.starts == 3 and result.games == 0
    assert result.stopped is not None and "failed 3 times in a row" in result.stopped
    assert "wrote garbage" in result.stopped and "autopilot plays the seat" in result.stopped


def test_a_program_that_cannot_be_run_is_reported_before_connecting(capsys) -> None:
    assert main(["127.0.0.1:1", "--exec", "no-such-program-for-nimmt --fast"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("nimmt-bot: cannot run 'no-such-program-for-nimmt --fast'")
    assert "Traceback" not in err


# --- the lines, without a server ----------------------------------------------------------


def test_a_question_holds_what_the_seat_sees_and_the_legal_answers() -> None:
    view = Game(Options(players=3), seed=2).view(1)
    q = question(Ask(view, None, ("Ann", "Bob", None)))
    assert json.loads(json.dumps(q)) == q  # plain JSON
    assert q["ask"] == "commit" and q["legal"] == list(view.hand) == q["hand"]
    assert q["rows"] == [[49], [55], [68], [100]] and q["row_bullheads"] == [1, 7, 1, 3]
    assert q["seat"] == 1 and q["names"] == ["Ann", "Bob", None] and q["seconds_left"] is None
    assert q["options"]["players"] == 3 and q["options"]["deck"] == [1, 104]
    assert q["totals"] == [0, 0, 0] and q["seen"] == [49, 55, 68, 100] and q["round"] == 1


def test_answers_are_read_strictly_with_a_message_that_says_what_was_wrong() -> None:
    view = Game(Options(players=3), seed=2).view(1)
    assert read_answer(view, '{"card": 21}\n') == Commit(1, 21)
    with pytest.raises(ValueError, match=r"card 22 is not legal now: legal are \[5, 21"):
        read_answer(view, '{"card": 22}')
    with pytest.raises(ValueError, match=r'a commit is answered with \{"card": NUMBER\}'):
        read_answer(view, '{"row": 1}')
    with pytest.raises(ValueError, match="not a JSON object: '21'"):
        read_answer(view, "21")
    with pytest.raises(ValueError, match="not JSON: 'card 21'"):
        read_answer(view, "card 21")
    assert read_answer(view, '{"card": 5, "why": "lowest"}') == Commit(1, 5)  # extra keys: ignored


def test_a_row_choice_is_answered_with_a_row() -> None:
    from nimmt.engine import Deal

    game = Game(Options(players=2))
    game.deal(Deal(rows=(11, 12, 13, 14), hands=(tuple(range(1, 11)), tuple(range(15, 25)))))
    game.apply(Commit(0, 1))
    game.apply(Commit(1, 15))
    view = game.view(0)
    q = question(Ask(view, None))
    assert q["ask"] == "row" and q["card"] == 1 and q["legal"] == [0, 1, 2, 3]
    assert read_answer(view, '{"row": 2}') == ChooseRow(0, 2)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_example_javascript_bot_answers_every_kind_of_question() -> None:
    base = {"seconds_left": 10.0, "seat": 0, "names": ["js", "a", "b"], "round": 1, "turn": 1,
            "rows": [[10], [35], [45], [90, 91, 92, 93, 94]], "row_bullheads": [3, 2, 2, 7],
            "totals": [0, 0, 0], "penalties": [0, 0, 0], "committed": [], "revealed": [],
            "unresolved": [], "seen": [], "draft_pool": [], "draft_picks": [],
            "options": {"players": 3, "tactic_deck": False, "draft": False,
                        "professional": True, "point_limit": 66, "rounds": None, "deck": [1, 104]}}
    questions = [
        {**base, "ask": "commit", "hand": [5, 50, 95], "legal": [5, 50, 95]},
        {**base, "ask": "row", "hand": [50, 95], "legal": [0, 1, 2, 3], "card": 5},
        {**base, "ask": "tie", "hand": [50, 95], "card": 40,
         "legal": [{"row": 1, "end": "right"}, {"row": 2, "end": "left"}]},
        {**base, "ask": "draft", "hand": [], "legal": [55, 56, 60]},
    ]
    run = subprocess.run(["node", str(EXAMPLE)], input="".join(json.dumps(q) + "\n" for q in questions),
                         capture_output=True, text=True, timeout=20)
    assert run.returncode == 0, run.stderr  # it exits when its stdin closes
    answers = [json.loads(line) for line in run.stdout.splitlines()]
    # 50 goes on 45 (a second card); 5 fits no row; 95 is the sixth card of row 3.
    assert answers == [{"card": 50}, {"row": 1}, {"row": 1, "end": "right"}, {"card": 56}]
