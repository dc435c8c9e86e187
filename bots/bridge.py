"""A bot in any language: a program that reads one JSON object a line and answers one.

``nimmt-bot HOST --exec "node bot.js"`` runs the program and, for every decision
the server asks of the seat, writes one line to the program's standard input (a
question: what the seat sees and what is asked, see :func:`question`) and reads
one line from its standard output (the answer: ``{"card": 42}`` or ``{"row": 2}``,
see :func:`read_answer`). docs/BOTS.md describes the lines for bot authors.

A program that answers late (the deadline less a small margin), answers nonsense
(JSON that is not a legal choice), writes garbage (a line that is not a JSON
object) or dies is treated like a player whose time ran out: the bridge sends
nothing and the server's autopilot decides. The bridge says what happened on its
stderr, stops the program and starts it again for the next question, after a
wait that doubles with each failure in a row (0.25 s up to 8 s). After
``max_failures`` failures in a row it gives up (``PlayerGaveUp``): nimmt-bot
stops and the server's autopilot plays the seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shlex
import signal
import time
from typing import Any, Final

from nimmt.engine import ChooseRow, ChooseTie, Commit, Decision, DraftPick, Phase, View, row_bullheads

from .players import Ask

__all__ = ["ProgramPlayer", "ProgramError", "PlayerGaveUp", "question", "read_answer", "ASK_KINDS"]

log = logging.getLogger("nimmt.bots")

#: The ``ask`` of a question for each phase that asks something.
ASK_KINDS: Final = {Phase.COMMIT: "commit", Phase.ROW_CHOICE: "row", Phase.TIE_CHOICE: "tie",
                    Phase.DRAFT: "draft"}
#: Seconds kept back from a deadline for the answer to reach the server.
MARGIN: Final = 0.2
#: Waits before restarting the program after 1, 2, 3... failures in a row (the last repeats).
BACKOFF: Final = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
#: Failures in a row after which the bridge gives up.
MAX_FAILURES: Final = 10
_LINE_LIMIT: Final = 1 << 20  # bytes of one answer line


class ProgramError(Exception):
    """The program cannot be run at all (not found, not executable); ``str()`` says which."""


class PlayerGaveUp(ProgramError):
    """The program failed ``max_failures`` times in a row: the bridge stops."""


def _legal_json(decision: Decision) -> Any:
    if isinstance(decision, ChooseRow):
        return decision.row
    if isinstance(decision, ChooseTie):
        return {"row": decision.place.row, "end": decision.place.end.value}
    assert isinstance(decision, Commit | DraftPick)
    return decision.card


def question(ask: Ask) -> dict[str, Any]:
    """The JSON object (one line) that asks the program for ``ask``'s decision."""
    view = ask.view
    seconds = ask.seconds_left()
    opts = view.options
    out: dict[str, Any] = {
        "ask": ASK_KINDS[view.phase],
        "legal": [_legal_json(d) for d in view.legal],
        "seconds_left": None if seconds is None else round(seconds, 3),
        "seat": view.seat,
        "names": list(ask.names),
        "round": view.round,
        "turn": view.turn,
        "hand": list(view.hand),
        "rows": [list(r) for r in view.rows],
        "row_bullheads": [row_bullheads(r) for r in view.rows],
        "totals": list(view.totals),
        "penalties": list(view.penalties),
        "committed": sorted(view.committed),
        "revealed": [list(p) for p in view.revealed],
        "unresolved": [list(p) for p in view.unresolved],
        "seen": list(view.seen),
        "draft_pool": list(view.draft_pool),
        "draft_picks": [list(p) for p in view.draft_picks],
        "options": {"players": opts.players, "tactic_deck": opts.tactic_deck, "draft": opts.draft,
                    "professional": opts.professional, "point_limit": opts.point_limit,
                    "rounds": opts.rounds, "deck": [opts.deck[0], opts.deck[-1]]},
    }
    pending = view.pending
    if view.phase in (Phase.ROW_CHOICE, Phase.TIE_CHOICE):
        out["card"] = getattr(pending, "card", None)
    return out


def read_answer(view: View, line: str) -> Decision:
    """The decision an answer line stands for. Raises ``ValueError`` saying what is wrong:
    ``GarbageLine`` for a line that is not a JSON object, plain ``ValueError`` otherwise."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError:
        raise GarbageLine(f"not JSON: {_clip(line)}") from None
    if not isinstance(data, dict):
        raise GarbageLine(f"not a JSON object: {_clip(line)}")
    phase, seat = view.phase, view.seat if view.seat is not None else 0
    key = "row" if phase in (Phase.ROW_CHOICE, Phase.TIE_CHOICE) else "card"
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f'a {ASK_KINDS[phase]} is answered with {{"{key}": NUMBER}}, '
                         f"not {_clip(line)}")
    decision: Decision
    if phase is Phase.TIE_CHOICE:
        places = [d for d in view.legal if isinstance(d, ChooseTie) and d.place.row == value
                  and data.get("end", d.place.end.value) == d.place.end.value]
        if not places:
            raise ValueError(f"row {value} is not one of the tied places {_legal(view)}")
        return places[0]
    if phase is Phase.ROW_CHOICE:
        decision = ChooseRow(seat, value)
    elif phase is Phase.DRAFT:
        decision = DraftPick(seat, value)
    else:
        decision = Commit(seat, value)
    if decision not in view.legal:
        raise ValueError(f"{key} {value} is not legal now: legal are {_legal(view)}")
    return decision


class GarbageLine(ValueError):
    """An answer line that is not a JSON object."""


def _legal(view: View) -> str:
    return json.dumps([_legal_json(d) for d in view.legal])


def _clip(line: str, size: int = 80) -> str:
    line = line.rstrip("\n")
    return repr(line if len(line) <= size else line[:size] + "...")


class ProgramPlayer:
    """Asks a program, over JSON lines, for every decision (see the module doc)."""

    def __init__(self, command: str, *, margin: float = MARGIN,
                 backoff: tuple[float, ...] = BACKOFF, max_failures: int = MAX_FAILURES) -> None:
        self.command = command
        self.argv = shlex.split(command)
        if not self.argv:
            raise ProgramError("--exec needs a command, e.g. --exec \"node bot.js\"")
        self.margin = margin
        self.backoff = backoff
        self.max_failures = max_failures
        self.starts = 0  # programs started so far
        self.failures = 0  # failures in a row
        self.faults: list[str] = []  # one line for each failure, oldest first
        self._proc: asyncio.subprocess.Process | None = None
        self._restarting: asyncio.Task[None] | None = None  # a restart after a failure
        self._lock = asyncio.Lock()

    def __repr__(self) -> str:
        return f"ProgramPlayer({self.command!r})"

    # -- the program's life ---------------------------------------------------------
    async def start(self) -> None:
        """Start the program (raises ``ProgramError`` if it cannot be run)."""
        try:
            self._proc = await asyncio.create_subprocess_exec(
                *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                limit=_LINE_LIMIT, start_new_session=True)
        except OSError as exc:
            raise ProgramError(f"cannot run {self.command!r}: "
                               f"{exc.strerror or exc}") from None
        self.starts += 1

    async def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            await proc.wait()

    async def aclose(self) -> None:
        """Close the program's stdin (its cue to exit), give it a moment, then stop it."""
        if self._restarting is not None:
            self._restarting.cancel()
            with contextlib.suppress(asyncio.CancelledError, ProgramError):
                await self._restarting
        async with self._lock:
            proc = self._proc
            if proc is not None and proc.returncode is None and proc.stdin is not None:
                proc.stdin.close()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(proc.wait(), 1.0)
            await self._stop()

    def _fail(self, what: str) -> None:
        self.failures += 1
        self.faults.append(what)
        wait = self.backoff[min(self.failures, len(self.backoff)) - 1]
        if self.failures < self.max_failures:
            self._restarting = asyncio.create_task(self._restart_after(wait))
        log.warning("the program %s %s; the server's autopilot decides this time. "
                    "Restarting it in %g s (failure %d in a row, the bridge gives up at %d).",
                    self.command, what, wait, self.failures, self.max_failures)

    async def _restart_after(self, wait: float) -> None:
        # Started at once after the wait, not at the next question: the program
        # gets ready meanwhile, and its start-up time is not taken from an answer.
        await asyncio.sleep(wait)
        await self.start()

    # -- deciding ---------------------------------------------------------------------
    async def decide(self, ask: Ask) -> Decision | None:
        async with self._lock:
            decision = await self._ask(ask)
        if self.failures >= self.max_failures:
            await self._stop()
            raise PlayerGaveUp(f"the program {self.command} failed {self.failures} times in a "
                               f"row (last: {self.faults[-1]}); giving up")
        return decision

    async def _ask(self, ask: Ask) -> Decision | None:
        due = None if ask.deadline is None else ask.deadline - self.margin
        if due is not None and time.monotonic() >= due:
            log.info("no time left to ask the program (the last answer took it): "
                     "the server's autopilot decides")
            return None  # not the program's fault: it is not stopped
        if self._proc is not None and self._proc.returncode is not None:
            code = self._proc.returncode
            await self._stop()
            self._fail(f"exited (code {code}) between questions")
        if self._proc is None:
            if self.failures >= self.max_failures:
                return None
            if self._restarting is None:
                self._restarting = asyncio.create_task(self._restart_after(0.0))
            left = None if due is None else due - time.monotonic()
            try:
                await asyncio.wait_for(asyncio.shield(self._restarting), left)
            except TimeoutError:
                return None  # not restarted before this deadline: the autopilot decides
            except ProgramError as exc:
                self._restarting = None
                self._fail(f"could not be started again ({exc})")
                return None
            finally:
                if self._restarting is not None and self._restarting.done():
                    self._restarting = None
        proc = self._proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        line = json.dumps(question(ask), separators=(",", ":")) + "\n"
        timeout: float | None = None
        try:
            proc.stdin.write(line.encode())
            await proc.stdin.drain()
            timeout = None if due is None else max(0.0, due - time.monotonic())
            raw = await asyncio.wait_for(proc.stdout.readline(), timeout)
        except TimeoutError:
            await self._stop()
            self._fail(f"answered late (no answer within {timeout or 0:.2f} s, the time left "
                       f"less {self.margin:g} s for the answer to travel)")
            return None
        except (BrokenPipeError, ConnectionResetError):
            raw = b""
        except (ValueError, asyncio.LimitOverrunError):
            await self._stop()
            self._fail(f"wrote garbage (a line longer than {_LINE_LIMIT} bytes)")
            return None
        if not raw.endswith(b"\n"):  # end of its output: it died (or closed stdout)
            code = None
            with contextlib.suppress(TimeoutError):
                code = await asyncio.wait_for(proc.wait(), 1.0)
            await self._stop()
            self._fail(f"died (exit code {code})" if code is not None else "closed its stdout")
            return None
        try:
            decision = read_answer(ask.view, raw.decode("utf-8", "replace"))
        except GarbageLine as exc:
            await self._stop()
            self._fail(f"wrote garbage ({exc})")
            return None
        except ValueError as exc:
            await self._stop()
            self._fail(f"answered nonsense ({exc})")
            return None
        self.failures = 0
        return decision
