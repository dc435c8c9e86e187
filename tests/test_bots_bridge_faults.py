"""``nimmt-bot --exec`` without a server: what the bridge makes of each way a program
can fail (docs/BOTS.md, "When your program fails"), the lines that answer no open
question, the summary it prints, and how it stops a program. Each program is a short
shell script, so the file runs in seconds (issue 43: tests/test_bots_bridge.py plays
whole games on a real server)."""

from __future__ import annotations

import asyncio
import re
import shlex
import time
from pathlib import Path

import pytest

from nimmt.bots import bridge
from nimmt.bots.bridge import ProgramError, ProgramPlayer
from nimmt.bots.players import Ask
from nimmt.engine import Commit, Game, Options

VIEW = Game(Options(players=3), seed=2).view(1)  # seat 1's hand: 5, 21, ...
NAMES = ("Ann", "Prog", "Bob")


def sh(script: str) -> str:
    return "sh -c " + shlex.quote(script)


@pytest.fixture(autouse=True)
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Restart waits are recorded, not waited."""
    asked: list[float] = []

    async def sleep(seconds: float) -> None:
        asked.append(seconds)
        await asyncio.sleep(0)

    monkeypatch.setattr(bridge, "_sleep", sleep)
    return asked


def run(player: ProgramPlayer, deadlines: list[float | None], start: bool = True) -> list:
    """Ask one question per deadline (seconds from now; None: none); the decisions."""
    async def go() -> list:
        if start:
            await player.start()
        out = []
        try:
            for seconds in deadlines:
                due = None if seconds is None else time.monotonic() + seconds
                out.append(await player.decide(Ask(VIEW, due, NAMES)))
        finally:
            await player.aclose()
        return out

    return asyncio.run(asyncio.wait_for(go(), 30))


def fallback_decision() -> Commit:
    decision = bridge.HeuristicStrategy().decide(VIEW)
    assert isinstance(decision, Commit)
    return decision


# --- what counts as a failure, and what the bridge says ----------------------------------


@pytest.mark.parametrize("script, said", [
    ('read -r l; exit 3', "died (exit code 3)"),
    ('read -r l; echo \'{"card": 0}\'; cat >/dev/null',
     "answered nonsense (card 0 is not legal now: legal are [5, 21"),
    ("read -r l; echo '[21]'; cat >/dev/null", "wrote garbage (not a JSON object: '[21]')"),
    ("read -r l; echo 'card 21'; cat >/dev/null", "wrote garbage (not JSON: 'card 21')"),
    ("read -r l; head -c 1048577 /dev/zero | tr '\\0' x; echo; cat >/dev/null",
     "wrote garbage (a line longer than 1048576 bytes)"),
    ("read -r l; exec 1>&-; sleep 5", "closed its stdout"),
])
def test_each_failure_is_decided_by_the_fallback_and_said(script: str, said: str,
                                                          caplog) -> None:  # noqa: ANN001
    player = ProgramPlayer(sh(script))
    with caplog.at_level("WARNING", logger="nimmt.bots"):
        out = run(player, [None])
    assert out == [fallback_decision()]
    assert len(player.faults) == 1 and player.faults[0].startswith(said)
    if not said.endswith("[5, 21"):
        assert player.faults == [said]
    assert player.failures == 1 and player.answered == 0 and player.asked == 1
    assert [r.getMessage() for r in caplog.records] == [
        f"the program {player.command} {player.faults[0]}; the bridge decided at once with "
        "its fallback (HeuristicStrategy). Restarting it in 0.25 s (failure 1 in a row, the "
        "bridge gives up at 10)."]


def test_an_answer_later_than_the_deadline_less_the_margin_is_late() -> None:
    player = ProgramPlayer(sh("read -r l; sleep 0.6; echo '{\"card\": 21}'; sleep 5"), margin=0.2)
    started = time.monotonic()
    out = run(player, [0.5])
    took = time.monotonic() - started
    assert out == [fallback_decision()]
    assert re.match(r"answered late \(no answer within 0\.[23]\d s", player.faults[0])
    assert player.faults[0].endswith(" s, the time left less 0.2 s for the answer to travel)")
    assert took < 1.5  # decided at the deadline less the margin, not when the program woke


def test_a_question_with_no_time_left_is_decided_without_the_program() -> None:
    player = ProgramPlayer(sh("while read -r l; do echo '{\"card\": 21}'; done"))
    out = run(player, [0.1, 0.9])  # 0.1 s is inside the 0.2 s margin: no time to ask
    assert out == [fallback_decision(), Commit(1, 21)]
    assert player.faults == [] and player.failures == 0 and player.starts == 1
    assert player.asked == 2 and player.answered == 1


def test_a_program_not_started_is_started_at_once_for_the_first_question(waits) -> None:  # noqa: ANN001
    player = ProgramPlayer(sh("while read -r l; do echo '{\"card\": 5}'; done"))
    assert run(player, [None, None], start=False) == [Commit(1, 5), Commit(1, 5)]
    assert waits == [0.0] and player.starts == 1 and player.answered == 2


def test_a_program_that_exits_between_questions_is_restarted_for_the_next(waits) -> None:  # noqa: ANN001
    player = ProgramPlayer(sh("read -r l; echo '{\"card\": 21}'; echo 'bye now'; exit 0"))

    async def go() -> list:
        await player.start()
        try:
            first = await player.decide(Ask(VIEW, None, NAMES))
            await asyncio.sleep(0.3)  # it has exited by the next question
            return [first, await player.decide(Ask(VIEW, None, NAMES))]
        finally:
            await player.aclose()

    out = asyncio.run(asyncio.wait_for(go(), 30))
    # the second question found it gone: a failure, then the restarted program answered
    assert out == [Commit(1, 21), Commit(1, 21)]
    assert player.faults == ["exited (code 0) between questions"]
    assert player.starts == 2 and waits == [0.25] and player.answered == 2
    assert player.failures == 0  # its answer reset the count
    assert player.dropped == ["bye now\n"]  # its last words answered nothing


def test_a_program_that_cannot_be_started_again_is_a_failure_tried_after_the_next_wait(
        tmp_path: Path, waits) -> None:  # noqa: ANN001
    script = tmp_path / "bot.sh"
    script.write_text("#!/bin/sh\nread -r l; exit 4\n")
    script.chmod(0o755)
    player = ProgramPlayer(str(script))

    async def go() -> list:
        await player.start()
        try:
            first = await player.decide(Ask(VIEW, None, NAMES))  # dies: restarted after 0.25 s
            script.unlink()
            return [first, await player.decide(Ask(VIEW, None, NAMES)),
                    await player.decide(Ask(VIEW, None, NAMES))]
        finally:
            await player.aclose()

    out = asyncio.run(asyncio.wait_for(go(), 30))
    assert out == [fallback_decision()] * 3
    assert player.faults == [
        "died (exit code 4)",
        f"could not be started again (cannot run '{script}': No such file or directory)",
        f"could not be started again (cannot run '{script}': No such file or directory)"]
    assert waits == [0.25, 0.5] and player.failures == 3 and player.starts == 1  # (1 s: closed)


# --- lines that answer no open question ------------------------------------------------------


def test_an_answer_for_another_question_is_dropped_and_the_right_one_taken() -> None:
    script = ("read -r l; echo '{\"card\": 5, \"id\": 99}'; echo '{\"card\": 21, \"id\": 1}'; "
              "cat >/dev/null")
    player = ProgramPlayer(sh(script))
    assert run(player, [None]) == [Commit(1, 21)]
    assert player.dropped == ['{"card": 5, "id": 99}\n']
    assert player.faults == [] and player.answered == 1


def test_an_answer_echoing_an_earlier_questions_id_is_dropped() -> None:
    script = ("read -r l; echo '{\"card\": 21}'; read -r l; echo '{\"card\": 5, \"id\": 1}'; "
              "echo '{\"card\": 21, \"id\": 2}'; cat >/dev/null")
    player = ProgramPlayer(sh(script))
    assert run(player, [None, None]) == [Commit(1, 21), Commit(1, 21)]
    assert player.dropped == ['{"card": 5, "id": 1}\n'] and player.faults == []


def test_a_second_answer_to_one_question_is_not_taken_for_the_next() -> None:
    # it answers 21 twice to the first question, then 5 to each later one
    script = ("read -r l; echo '{\"card\": 21}'; echo '{\"card\": 21}'; "
              "while read -r l; do echo '{\"card\": 5}'; done")
    player = ProgramPlayer(sh(script))

    async def go() -> list:
        await player.start()
        try:
            first = await player.decide(Ask(VIEW, None, NAMES))
            await asyncio.sleep(0.3)  # the spare line arrives
            second = await player.decide(Ask(VIEW, None, NAMES))
            return [first, second]
        finally:
            await player.aclose()

    assert asyncio.run(asyncio.wait_for(go(), 30)) == [Commit(1, 21), Commit(1, 5)]
    assert player.dropped == ['{"card": 21}\n']
    assert player.faults == []


# --- the summary, and stopping ----------------------------------------------------------------


def test_the_summary_says_how_many_answered_and_how_each_failed(tmp_path: Path) -> None:
    answer = tmp_path / "answer"
    player = ProgramPlayer(sh(f"while read -r l; do cat {answer}; done"))

    async def go() -> None:
        await player.start()
        try:
            for text in ("x\n", '{"card": 21}\n', "y\n", "z\n"):
                answer.write_text(text)
                await player.decide(Ask(VIEW, None, NAMES))
        finally:
            await player.aclose()

    asyncio.run(asyncio.wait_for(go(), 30))
    assert player.summary() == (
        f"the program {player.command} answered 1 of 4 questions; 3 failures: "
        "3 x wrote garbage (last: wrote garbage (not JSON: 'z'))")
    one = ProgramPlayer("true")
    one.asked, one.faults = 2, ["died (exit code 1)"]
    one.dropped = ["a", "b"]
    assert one.summary() == ("the program true answered 0 of 2 questions; 1 failure: "
                             "1 x died (last: died (exit code 1)); 2 line(s) that answered "
                             "no open question dropped")
    clean = ProgramPlayer("true")
    clean.asked = clean.answered = 3
    assert clean.summary() == "the program true answered 3 of 3 questions"
    mixed = ProgramPlayer("true")
    mixed.faults = ["answered late (x)", "died (exit code 2)", "answered late (y)"]
    assert mixed.summary().endswith("3 failures: 2 x answered late, 1 x died "
                                    "(last: answered late (y))")


def test_a_program_that_cannot_be_run_says_so() -> None:
    with pytest.raises(ProgramError) as refused:
        asyncio.run(ProgramPlayer("no-such-program-for-nimmt --fast").start())
    assert str(refused.value) == ("cannot run 'no-such-program-for-nimmt --fast': "
                                  "No such file or directory")
    with pytest.raises(ProgramError, match=r'^--exec needs a command, e.g. --exec "node bot.js"$'):
        ProgramPlayer("  ")


def test_closing_gives_the_program_a_second_to_exit_then_kills_it(tmp_path: Path) -> None:
    done = tmp_path / "done"
    polite = ProgramPlayer(sh(f"while read -r l; do :; done; sleep 0.3; echo bye > {done}"))
    stubborn = ProgramPlayer(sh("trap '' TERM HUP; while :; do sleep 0.05; done"))

    async def go() -> tuple[float, float]:
        await polite.start()
        await stubborn.start()
        procs = [p._program.proc for p in (polite, stubborn)]  # type: ignore[union-attr]
        started = time.monotonic()
        await polite.aclose()
        first = time.monotonic() - started
        started = time.monotonic()
        await stubborn.aclose()
        assert procs[0].returncode == 0 and procs[1].returncode == -9
        return first, time.monotonic() - started

    polite_took, stubborn_took = asyncio.run(asyncio.wait_for(go(), 30))
    assert done.read_text() == "bye\n"  # it had the time to finish after its stdin closed
    assert polite_took < 0.9
    assert 0.9 <= stubborn_took < 1.8  # a second, then killed


def test_closing_during_a_restart_wait_starts_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bridge, "_sleep", asyncio.sleep)  # a real wait, cancelled
    player = ProgramPlayer(sh("read -r l; exit 1"), backoff=(30.0,))

    async def go() -> float:
        await player.start()
        await player.decide(Ask(VIEW, None, NAMES))
        started = time.monotonic()
        await player.aclose()
        return time.monotonic() - started

    took = asyncio.run(asyncio.wait_for(go(), 30))
    assert took < 1.0 and player.starts == 1 and player.faults == ["died (exit code 1)"]
