"""``nimmt-bot --exec``: how the bridge restarts a program that fails (docs/BOTS.md,
"When your program fails"): it waits 0.25 s after the first failure in a row, then
0.5, 1, 2, 4 and 8 s (8 s from then on); a good answer resets the count; after 10
failures in a row it gives up (issue 43).

The program is a one-line shell loop that answers each question with the contents
of a file the test writes (a legal answer, or garbage), so each test runs in well
under a second; the restart waits are recorded by a fake sleep, not waited."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import pytest

from nimmt.bots import bridge
from nimmt.bots.bridge import BACKOFF, MAX_FAILURES, PlayerGaveUp, ProgramPlayer
from nimmt.bots.players import Ask
from nimmt.engine import Commit, Game, Options

VIEW = Game(Options(players=3), seed=2).view(1)  # seat 1's hand: 5, 21, ...
GOOD = '{"card": 21}\n'
GARBAGE = "thinking...\n"


class Program:
    """The shell program and the file it answers from."""

    def __init__(self, tmp_path: Path) -> None:
        self.answer = tmp_path / "answer.txt"
        self.answer.write_text(GOOD)
        self.command = f"sh -c 'while read -r line; do cat {self.answer}; done'"

    def answers(self, text: str) -> None:
        self.answer.write_text(text)


@pytest.fixture
def program(tmp_path: Path) -> Program:
    return Program(tmp_path)


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The restart waits asked for, in order (none is waited)."""
    asked: list[float] = []

    async def sleep(seconds: float) -> None:
        asked.append(seconds)
        await asyncio.sleep(0)

    monkeypatch.setattr(bridge, "_sleep", sleep)
    return asked


async def ask(player: ProgramPlayer, program: Program, answer: str):  # noqa: ANN201
    program.answers(answer)
    return await player.decide(Ask(VIEW, None, ("Ann", "Prog", "Bob")))


def play(program: Program, answers: list[str], **options) -> tuple[ProgramPlayer, list]:  # noqa: ANN003
    """Ask one question per answer; the decisions (or the PlayerGaveUp that ended it)."""
    player = ProgramPlayer(program.command, **options)

    async def run() -> list:
        await player.start()
        out: list = []
        try:
            for answer in answers:
                out.append(await ask(player, program, answer))
        except PlayerGaveUp as exc:
            out.append(exc)
        finally:
            await player.aclose()
        return out

    return player, asyncio.run(asyncio.wait_for(run(), 30))


def test_the_documented_schedule_and_limit():
    assert BACKOFF == (0.25, 0.5, 1.0, 2.0, 4.0, 8.0) and MAX_FAILURES == 10


def test_restarts_wait_longer_after_each_failure_in_a_row_and_the_tenth_gives_up(
        program: Program, waits: list[float], caplog) -> None:
    with caplog.at_level(logging.WARNING, logger="nimmt.bots"):
        player, out = play(program, [GARBAGE] * 12)
    # the fallback decided each failed question at once: a legal commit of seat 1's
    assert all(isinstance(d, Commit) and d.seat == 1 and d.card in VIEW.hand for d in out[:9])
    # ten questions asked: the tenth failure gave up, the rest were never asked
    assert len(out) == 10 and isinstance(out[-1], PlayerGaveUp)
    assert player.asked == 10 and player.answered == 0 and player.failures == 10
    # one restart after each failure but the last, 0.25 s doubling to 8 s
    assert waits == [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0, 8.0]
    assert player.starts == 10
    assert str(out[-1]).startswith(f"the program {program.command} failed 10 times in a row "
                                   "(last: wrote garbage (not JSON: 'thinking...'")
    assert str(out[-1]).endswith("; giving up")
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 10
    assert "Restarting it in 0.25 s (failure 1 in a row, the bridge gives up at 10)" in said[0]
    assert "Restarting it in 8 s (failure 9 in a row, the bridge gives up at 10)" in said[8]
    assert "That is failure 10 in a row: giving up." in said[9]
    assert "Restarting" not in said[9]


def test_a_good_answer_resets_the_count_of_failures_in_a_row(
        program: Program, waits: list[float]) -> None:
    answers = [GARBAGE] * 9 + [GOOD] + [GARBAGE] * 9 + [GOOD]
    player, out = play(program, answers)
    assert not any(isinstance(d, PlayerGaveUp) for d in out)  # 18 failures, none 10 in a row
    assert out[9] == Commit(1, 21) and out[19] == Commit(1, 21)  # the program's own answers
    assert player.failures == 0 and player.answered == 2 and len(player.faults) == 18
    schedule = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0, 8.0]
    assert waits == schedule + schedule  # after the good answer the waits start again


def test_failures_apart_never_add_up_to_giving_up(program: Program, waits: list[float]) -> None:
    player, out = play(program, [GARBAGE, GOOD] * 15)
    assert len(out) == 30 and not any(isinstance(d, PlayerGaveUp) for d in out)
    assert out[1::2] == [Commit(1, 21)] * 15
    assert waits == [0.25] * 15  # each failure is the first in a row
    assert player.answered == 15 and len(player.faults) == 15 and player.failures == 0


def test_a_smaller_limit_gives_up_at_exactly_that_many(program: Program, waits) -> None:  # noqa: ANN001
    player, out = play(program, [GARBAGE, GARBAGE, "[21]\n", GOOD], max_failures=3,
                       backoff=(1.0, 3.0))
    assert len(out) == 3 and isinstance(out[-1], PlayerGaveUp)
    assert waits == [1.0, 3.0] and "failed 3 times in a row" in str(out[-1])
    assert "(last: wrote garbage (not a JSON object: '[21]')); giving up" in str(out[-1])
    player, out = play(program, [GARBAGE] * 2 + [GOOD], max_failures=3, backoff=(1.0, 3.0))
    assert out[-1] == Commit(1, 21) and player.failures == 0  # two in a row: not given up


def test_a_question_during_the_wait_is_decided_at_once_and_counts_as_a_failure(
        program: Program, caplog) -> None:
    """A real wait this time: the program is restarted 5 s after its failure, and a
    question due in 0.3 s does not wait for it."""
    player = ProgramPlayer(program.command, backoff=(5.0,), margin=0.1)

    async def run():  # noqa: ANN202
        await player.start()
        try:
            first = await ask(player, program, GARBAGE)
            program.answers(GOOD)
            started = time.monotonic()
            second = await player.decide(Ask(VIEW, time.monotonic() + 0.3, ("Ann", "Prog", "Bob")))
            return first, second, time.monotonic() - started
        finally:
            await player.aclose()

    with caplog.at_level(logging.WARNING, logger="nimmt.bots"):
        first, second, took = asyncio.run(asyncio.wait_for(run(), 30))
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 2 and "Restarting it in 5 s (failure 1 in a row" in said[0]
    # the restart already on its way is not put off by a second one
    assert said[1].endswith("It is being restarted (failure 2 in a row, the bridge gives up "
                            "at 10).")
    assert isinstance(first, Commit) and isinstance(second, Commit) and second.seat == 1
    assert took < 1.0  # decided by the deadline less the margin, not after the 5 s wait
    assert player.failures == 2 and player.starts == 1 and player.answered == 0
    assert player.faults[1].startswith("was not running when asked")


def test_a_program_given_up_is_not_started_again(program: Program, waits: list[float]) -> None:
    player = ProgramPlayer(program.command, max_failures=2, backoff=(0.5,))

    async def run() -> list:
        await player.start()
        out: list = []
        try:
            for answer in (GARBAGE, GARBAGE, GOOD, GOOD):
                try:
                    out.append(await ask(player, program, answer))
                except PlayerGaveUp as exc:
                    out.append(exc)
        finally:
            await player.aclose()
        return out

    out = asyncio.run(asyncio.wait_for(run(), 30))
    # asked again after giving up, it says so again: the fallback decided, the program
    # was not started (it would have answered 21)
    assert [type(d).__name__ for d in out] == ["Commit", "PlayerGaveUp", "PlayerGaveUp",
                                               "PlayerGaveUp"]
    assert player.starts == 2 and waits == [0.5] and player.answered == 0
