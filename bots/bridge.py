"""A bot in any language: a program that reads one JSON object a line and answers one.

``nimmt-bot HOST --exec "node bot.js"`` runs the program and, for every decision
the server asks of the seat, writes one line to the program's standard input (a
question with an ``id``: what the seat sees and what is asked, see
``nimmt.bots.lines.question``) and reads one line from its standard output (the
answer: ``{"card": 42}`` or ``{"row": 2}``, which may echo the ``id``, see
``nimmt.bots.lines.read_answer``). ``nimmt-arena`` asks programs the same way.
docs/BOTS.md describes the lines for bot authors.

A program that answers late (the deadline less a small margin), answers nonsense
(JSON that is not a legal choice), writes garbage (a line that is not a JSON
object) or dies is stopped, and the bridge decides that question at once with
its fallback strategy (the ``heuristic``, as the server's autopilot), so the
table never waits for a program that has already failed. The bridge says what
happened on its stderr and starts the program again, after a wait that doubles
with each failure in a row (0.25 s up to 8 s); a question asked during that wait
is decided by the fallback and counts as a failure too. After ``max_failures``
failures in a row it gives up (``PlayerGaveUp``).

A line that answers no open question (a second answer to one question, or an
answer echoing another question's ``id``) is reported and dropped: it is never
taken as the answer to the next question.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import os
import shlex
import signal
import time
from typing import Any, Final

from nimmt.engine import Decision, View

from .basic import HeuristicStrategy
from .lines import ASK_KINDS, GarbageLine, answer_decision, clip, parse_line, question, read_answer
from .players import Ask

__all__ = ["ProgramPlayer", "ProgramError", "PlayerGaveUp", "question", "read_answer", "ASK_KINDS",
           "MARGIN", "BACKOFF", "MAX_FAILURES"]

log = logging.getLogger("nimmt.bots")

#: Seconds kept back from a deadline for the answer to reach the server: an answer
#: that comes later than the deadline less this is late.
MARGIN: Final = 0.2
#: Waits before restarting the program after 1, 2, 3... failures in a row (the last repeats).
BACKOFF: Final = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
#: Failures in a row after which the bridge gives up.
MAX_FAILURES: Final = 10
#: The wait before a restart (a test gives a fake one).
_sleep = asyncio.sleep
_LINE_LIMIT: Final = 1 << 20  # bytes of one answer line
_EOF: Final = "eof"  # the program's stdout ended
_TOO_LONG: Final = "too long"  # a line over _LINE_LIMIT


class ProgramError(Exception):
    """The program cannot be run at all (not found, not executable); ``str()`` says which."""


class PlayerGaveUp(ProgramError):
    """The program failed ``max_failures`` times in a row: the bridge stops."""


class _Failed(Exception):
    """The program failed this question; ``str()`` says how."""


class _Running:
    """One run of the program, with a task reading its stdout a line at a time, so
    that lines written when no question was open are seen as such."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.items: collections.deque[bytes | str] = collections.deque()
        self._new = asyncio.Event()
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        while True:
            try:
                raw = await self.proc.stdout.readline()
            except (ValueError, asyncio.LimitOverrunError):
                self._put(_TOO_LONG)
                return
            if not raw.endswith(b"\n"):
                self._put(_EOF)
                return
            self._put(raw)

    def _put(self, item: bytes | str) -> None:
        self.items.append(item)
        self._new.set()

    def spare(self) -> list[bytes]:
        """The lines written since the last answer was read (none of them asked for)."""
        out = []
        while self.items and isinstance(self.items[0], bytes):
            out.append(self.items.popleft())
        return out  # type: ignore[return-value]

    async def next(self, timeout: float | None) -> bytes | str:
        """The next line (or ``_EOF``/``_TOO_LONG``); ``TimeoutError`` after ``timeout``."""
        async with asyncio.timeout(timeout):
            while not self.items:
                self._new.clear()
                await self._new.wait()
        return self.items.popleft()


class ProgramPlayer:
    """Asks a program, over JSON lines, for every decision (see the module doc).

    ``fallback`` decides when the program cannot (default: the heuristic strategy);
    ``env``: the program's environment (default: ours).
    Counts kept for a summary: ``asked``, ``answered`` (by the program, legal and in
    time), ``faults`` (every failure, oldest first), ``dropped`` (lines that answered
    no open question), ``failures`` (failures in a row now).
    """

    def __init__(self, command: str, *, margin: float = MARGIN,
                 backoff: tuple[float, ...] = BACKOFF, max_failures: int = MAX_FAILURES,
                 fallback: Any = None, env: dict[str, str] | None = None) -> None:
        self.command = command
        self.env = env
        self.argv = shlex.split(command)
        if not self.argv:
            raise ProgramError("--exec needs a command, e.g. --exec \"node bot.js\"")
        self.margin = margin
        self.backoff = backoff
        self.max_failures = max_failures
        self.fallback = fallback if fallback is not None else HeuristicStrategy()
        self.starts = 0  # programs started so far
        self.asked = 0
        self.answered = 0
        self.failures = 0
        self.faults: list[str] = []
        self.dropped: list[str] = []
        self._program: _Running | None = None
        self._restarting: asyncio.Task[None] | None = None  # a restart after a failure
        self._lock = asyncio.Lock()
        self._next_id = 0

    def __repr__(self) -> str:
        return f"ProgramPlayer({self.command!r})"

    # -- the program's life ---------------------------------------------------------
    async def start(self) -> None:
        """Start the program (raises ``ProgramError`` if it cannot be run)."""
        try:
            proc = await asyncio.create_subprocess_exec(
                *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                limit=_LINE_LIMIT, start_new_session=True, env=self.env)
        except OSError as exc:
            raise ProgramError(f"cannot run {self.command!r}: "
                               f"{exc.strerror or exc}") from None
        self._program = _Running(proc)
        self.starts += 1

    async def _stop(self) -> None:
        program, self._program = self._program, None
        if program is None:
            return
        proc = program.proc
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            await proc.wait()
        program.reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await program.reader

    async def aclose(self) -> None:
        """Close the program's stdin (its cue to exit), give it 1 s, then kill it (SIGKILL)."""
        if self._restarting is not None:
            self._restarting.cancel()
            with contextlib.suppress(asyncio.CancelledError, ProgramError):
                await self._restarting
        async with self._lock:
            program = self._program
            if program is not None and program.proc.returncode is None \
                    and program.proc.stdin is not None:
                program.proc.stdin.close()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(program.proc.wait(), 1.0)
            await self._stop()

    def _fail(self, what: str, *, restart: bool = True) -> None:
        self.failures += 1
        self.faults.append(what)
        fallback = type(self.fallback).__name__
        if self.failures >= self.max_failures:
            log.warning("the program %s %s; the bridge decided at once with its fallback (%s). "
                        "That is failure %d in a row: giving up.", self.command, what, fallback,
                        self.failures)
            return
        wait = self.backoff[min(self.failures, len(self.backoff)) - 1]
        if restart:
            self._restarting = asyncio.create_task(self._restart_after(wait))
            then = f"Restarting it in {wait:g} s"
        else:
            then = "It is being restarted"
        log.warning("the program %s %s; the bridge decided at once with its fallback (%s). "
                    "%s (failure %d in a row, the bridge gives up at %d).", self.command, what,
                    fallback, then, self.failures, self.max_failures)

    async def _restart_after(self, wait: float) -> None:
        # Started at once after the wait, not at the next question: the program
        # gets ready meanwhile, and its start-up time is not taken from an answer.
        await _sleep(wait)
        await self.start()

    def summary(self) -> str:
        """One line: how many questions the program answered, and how it failed."""
        kinds = collections.Counter(fault.split(" (", 1)[0] for fault in self.faults)
        text = f"the program {self.command} answered {self.answered} of {self.asked} questions"
        if kinds:
            text += (f"; {len(self.faults)} failure{'s' * (len(self.faults) != 1)}: "
                     + ", ".join(f"{n} x {kind}" for kind, n in kinds.most_common())
                     + f" (last: {self.faults[-1]})")
        if self.dropped:
            text += f"; {len(self.dropped)} line(s) that answered no open question dropped"
        return text

    # -- deciding ---------------------------------------------------------------------
    async def decide(self, ask: Ask) -> Decision | None:
        async with self._lock:
            decision = await self._ask(ask)
        if self.failures >= self.max_failures:
            await self._stop()
            raise PlayerGaveUp(f"the program {self.command} failed {self.failures} times in a "
                               f"row (last: {self.faults[-1]}); giving up")
        return decision

    def _decide_without(self, view: View) -> Decision:
        return self.fallback.decide(view)  # type: ignore[no-any-return]

    async def _ask(self, ask: Ask) -> Decision:
        self.asked += 1
        self._next_id += 1
        qid = self._next_id
        due = None if ask.deadline is None else ask.deadline - self.margin
        if due is not None and time.monotonic() >= due:
            log.info("no time left to ask the program (the last answer took it): "
                     "the bridge's fallback decides")
            return self._decide_without(ask.view)  # not the program's fault: not stopped
        program = await self._ready(due)
        if program is None:
            return self._decide_without(ask.view)
        try:
            decision = await self._exchange(program, ask, qid, due)
        except _Failed as exc:
            await self._stop()
            self._fail(str(exc))
            return self._decide_without(ask.view)
        self.failures = 0
        self.answered += 1
        return decision

    async def _ready(self, due: float | None) -> _Running | None:
        """The running program, started again if it must be; None (a failure counted)
        if it is not running in time for this question."""
        if self._program is not None and self._program.proc.returncode is not None:
            code = self._program.proc.returncode
            for raw in self._program.spare():
                self._drop(raw, "written after its last answer, before it exited")
            await self._stop()
            self._fail(f"exited (code {code}) between questions")
        if self._program is None:
            if self.failures >= self.max_failures:
                return None
            if self._restarting is None:
                self._restarting = asyncio.create_task(self._restart_after(0.0))
            left = None if due is None else due - time.monotonic()
            try:
                await asyncio.wait_for(asyncio.shield(self._restarting), left)
            except TimeoutError:
                self._fail("was not running when asked (it is restarted after a failure, "
                           "and the wait outlasted this question)", restart=False)
                return None
            except ProgramError as exc:
                self._restarting = None
                self._fail(f"could not be started again ({exc})")
                return None
            finally:
                if self._restarting is not None and self._restarting.done():
                    self._restarting = None
        return self._program

    def _drop(self, raw: bytes | str, why: str) -> None:
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        self.dropped.append(text)
        log.warning("the program %s wrote a line that answers no open question (%s): %s; "
                    "dropped", self.command, why, clip(text))

    async def _exchange(self, program: _Running, ask: Ask, qid: int, due: float | None) -> Decision:
        for raw in program.spare():
            self._drop(raw, f"written after its last answer, before question {qid}")
        proc = program.proc
        assert proc.stdin is not None
        line = json_line(question(ask, qid))
        timeout: float | None = None
        try:
            proc.stdin.write(line.encode())
            await proc.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            pass  # it died: its stdout's end says so below
        while True:
            timeout = None if due is None else max(0.0, due - time.monotonic())
            try:
                item = await program.next(timeout)
            except TimeoutError:
                raise _Failed(f"answered late (no answer within {timeout or 0:.2f} s, the time "
                              f"left less {self.margin:g} s for the answer to travel)") from None
            if item == _EOF:
                code = None
                with contextlib.suppress(TimeoutError):
                    code = await asyncio.wait_for(proc.wait(), 1.0)
                raise _Failed(f"died (exit code {code})" if code is not None
                              else "closed its stdout")
            if item == _TOO_LONG:
                raise _Failed(f"wrote garbage (a line longer than {_LINE_LIMIT} bytes)")
            assert isinstance(item, bytes)
            text = item.decode("utf-8", "replace")
            try:
                data = parse_line(text)
            except GarbageLine as exc:
                raise _Failed(f"wrote garbage ({exc})") from None
            echoed = data.get("id", qid)
            if echoed != qid:
                self._drop(text, f"its id is {echoed!r}, the open question's is {qid}")
                continue
            try:
                return answer_decision(ask.view, data, text)
            except ValueError as exc:
                raise _Failed(f"answered nonsense ({exc})") from None


def json_line(data: dict[str, Any]) -> str:
    """``data`` as one line of compact JSON."""
    return json.dumps(data, separators=(",", ":")) + "\n"
