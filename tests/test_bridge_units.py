"""``nimmt-bot --exec``'s bridge with a stand-in program on virtual time: what it
makes of a program that dies as it is asked (its stdin already closed), and the one
second it gives a program that closed its stdout to say its exit code (docs/BOTS.md,
"When your program fails"). The real-program cases are in
tests/test_bots_bridge_faults.py; these need a program timed to the instant."""

from __future__ import annotations

import asyncio
import logging

import pytest
from virtual_loop import run_virtual

from nimmt.bots import bridge
from nimmt.bots.bridge import PlayerGaveUp, ProgramPlayer
from nimmt.bots.players import Ask
from nimmt.engine import Game, Options

VIEW = Game(Options(players=3), seed=2).view(1)
NAMES = ("Ann", "Prog", "Bob")
NO_SUCH_GROUP = 1 << 30  # above any pid_max: killpg of it finds nothing (ESRCH)


class _Stdin:
    def __init__(self, broken: type[BaseException] | None, when: str) -> None:
        self.broken, self.when = broken, when
        self.written: list[bytes] = []

    def write(self, data: bytes) -> None:
        if self.broken is not None and self.when == "write":
            raise self.broken()
        self.written.append(data)

    async def drain(self) -> None:
        if self.broken is not None and self.when == "drain":
            raise self.broken()

    def close(self) -> None:
        pass


class _Stdout:
    """Ends (EOF) ``closes_after`` seconds after the program starts."""

    def __init__(self, closes_after: float) -> None:
        self.closes_after = closes_after

    async def readline(self) -> bytes:
        await asyncio.sleep(self.closes_after)
        return b""


class StandIn:
    """A program's process: it closes its stdout at once (or after ``closes_after``),
    and exits ``exits_after`` seconds after that with ``code`` (None: only when killed,
    that is at the bridge's second wait for it)."""

    pid = NO_SUCH_GROUP

    def __init__(self, *, code: int | None, exits_after: float = 0.0,
                 broken: type[BaseException] | None = None, when: str = "write") -> None:
        self.returncode: int | None = None
        self.code, self.exits_after = code, exits_after
        self.stdin = _Stdin(broken, when)
        self.stdout = _Stdout(0.0)
        self.waits = 0
        self._exits_at: float | None = None

    async def wait(self) -> int:
        self.waits += 1
        if self.code is None and self.waits == 1:
            await asyncio.Event().wait()  # never exits by itself
        if self.code is not None:
            now = asyncio.get_running_loop().time()
            if self._exits_at is None:
                self._exits_at = now + self.exits_after
            await asyncio.sleep(self._exits_at - now)
        self.returncode = self.code if self.code is not None else -9
        return self.returncode


def ask_once(proc: StandIn, monkeypatch: pytest.MonkeyPatch) -> tuple[str, float, bool]:
    """One question to a bridge whose program is ``proc`` and which gives up at the
    first failure: the fault it says, the virtual seconds it took, and whether the
    fallback decided."""
    monkeypatch.setattr(bridge, "_sleep", None)  # no restart may be tried

    async def go() -> tuple[str, float, bool]:
        player = ProgramPlayer("./bot", max_failures=1)
        player._program = bridge._Running(proc)  # type: ignore[arg-type]
        loop = asyncio.get_running_loop()
        start = loop.time()
        with pytest.raises(PlayerGaveUp) as gave_up:
            await player.decide(Ask(VIEW, None, NAMES))
        took = loop.time() - start
        assert str(gave_up.value) == (f"the program ./bot failed 1 times in a row (last: "
                                      f"{player.faults[-1]}); giving up")
        return player.faults[-1], took, player.asked == 1 and player.answered == 0

    result, _ = run_virtual(go(), start=500.0)
    return result  # type: ignore[no-any-return]


@pytest.mark.parametrize("broken", [BrokenPipeError, ConnectionResetError])
@pytest.mark.parametrize("when", ["write", "drain"])
def test_a_program_dead_before_its_question_is_written_is_said_to_have_died(
        monkeypatch: pytest.MonkeyPatch, broken: type[BaseException], when: str) -> None:
    # it exited between the bridge's check that it runs and the write of the question:
    # the broken pipe is no crash of the bridge; its exit code says what happened
    proc = StandIn(code=3, exits_after=0.25, broken=broken, when=when)
    fault, took, counted = ask_once(proc, monkeypatch)
    assert fault == "died (exit code 3)"
    assert took == 0.25 and counted


def test_a_program_that_closed_its_stdout_gets_one_second_to_say_its_exit_code(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # exits 0.875 s after closing its stdout: in time, its code is said
    fault, took, _ = ask_once(StandIn(code=4, exits_after=0.875), monkeypatch)
    assert (fault, took) == ("died (exit code 4)", 0.875)
    # still running 1 s after: no code, and the fallback decides at 1 s, not later
    fault, took, _ = ask_once(StandIn(code=None), monkeypatch)
    assert (fault, took) == ("closed its stdout", 1.0)


def test_closing_gives_a_program_exactly_one_second_before_it_is_killed(
        caplog: pytest.LogCaptureFixture) -> None:
    async def go(proc: StandIn) -> float:
        player = ProgramPlayer("./bot")
        player._program = bridge._Running(proc)  # type: ignore[arg-type]
        loop = asyncio.get_running_loop()
        start = loop.time()
        await player.aclose()
        assert player._program is None
        return loop.time() - start

    caplog.set_level(logging.WARNING)
    polite = StandIn(code=0, exits_after=0.5)
    assert run_virtual(go(polite))[0] == 0.5 and polite.waits == 2
    stubborn = StandIn(code=None)  # exits only once killed
    assert run_virtual(go(stubborn))[0] == 1.0 and stubborn.waits == 2


class _SlowStdin(_Stdin):
    """A pipe the program reads from only at ``reads_at``: a write drains then."""

    def __init__(self, reads_at: float) -> None:
        super().__init__(None, "")
        self.reads_at = reads_at

    async def drain(self) -> None:
        await asyncio.sleep(self.reads_at - asyncio.get_running_loop().time())


class Talker:
    """A program that writes ``lines`` at their virtual times (seconds from its start),
    then nothing; it exits only when killed (the bridge's ``killpg``)."""

    pid = NO_SUCH_GROUP

    def __init__(self, lines: list[tuple[float, bytes]], reads_at: float = 0.0) -> None:
        self.returncode: int | None = None
        self.stdin = _SlowStdin(reads_at)
        self.stdout = self
        self.lines = lines
        self.killed: asyncio.Event | None = None

    async def readline(self) -> bytes:
        if self.lines:
            at, line = self.lines.pop(0)
            await asyncio.sleep(at - asyncio.get_running_loop().time())
            return line
        await asyncio.Event().wait()
        return b""

    def kill(self) -> None:
        self.returncode = -9
        if self.killed is not None:
            self.killed.set()

    async def wait(self) -> int:
        if self.returncode is None:
            self.killed = asyncio.Event()
            await self.killed.wait()
        assert self.returncode is not None
        return self.returncode


def ask_talker(lines: list[tuple[float, bytes]], deadline: float,
               monkeypatch: pytest.MonkeyPatch, reads_at: float = 0.0) -> ProgramPlayer:
    """One question, at virtual time 0, due at ``deadline``, to a bridge whose clock is
    the loop's and whose program is a ``Talker``."""
    proc = Talker(lines, reads_at)
    monkeypatch.setattr(bridge, "_sleep", None)  # no restart may be tried
    monkeypatch.setattr(bridge, "time", type("T", (), {
        "monotonic": staticmethod(lambda: asyncio.get_running_loop().time())}))
    monkeypatch.setattr(bridge, "os", type("O", (), {
        "killpg": staticmethod(lambda pid, sig: proc.kill())}))
    player = ProgramPlayer("./bot", margin=0.25, max_failures=1)

    async def go() -> None:
        player._program = bridge._Running(proc)  # type: ignore[arg-type]
        try:
            await player.decide(Ask(VIEW, deadline, NAMES))
        except PlayerGaveUp:
            pass
        await player.aclose()

    run_virtual(go())
    return player


def test_a_question_due_now_is_decided_without_the_program(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # due (the deadline less the margin) is now: not the program's fault, not asked
    player = ask_talker([(0.0, b'{"card": 5}\n')], deadline=0.25, monkeypatch=monkeypatch)
    assert (player.asked, player.answered, player.faults) == (1, 0, [])
    # due a moment later: asked, and its answer taken
    player = ask_talker([(0.0, b'{"card": 5}\n')], deadline=0.5, monkeypatch=monkeypatch)
    assert (player.asked, player.answered, player.faults) == (1, 1, [])


def test_a_program_that_reads_its_question_only_when_due_is_late_with_0_s_left(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the write of the question blocks (the program does not read its stdin) until due
    player = ask_talker([(1.0, b'{"card": 5}\n')], deadline=0.75, reads_at=0.5,
                        monkeypatch=monkeypatch)
    assert player.faults == ["answered late (no answer within 0.00 s, the time left less "
                             "0.25 s for the answer to travel)"]
    # read after it was due: still 0 s left, never less
    player = ask_talker([(1.0, b'{"card": 5}\n')], deadline=0.75, reads_at=0.625,
                        monkeypatch=monkeypatch)
    assert player.faults[0].startswith("answered late (no answer within 0.00 s,")
    # read a moment before: the time left is said
    player = ask_talker([(1.0, b'{"card": 5}\n')], deadline=0.75, reads_at=0.375,
                        monkeypatch=monkeypatch)
    assert player.faults == ["answered late (no answer within 0.12 s, the time left less "
                             "0.25 s for the answer to travel)"]
