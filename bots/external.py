"""Arena seats beyond the built-in strategies: a program, or your Python function.

``nimmt-arena --seats SPEC,...`` takes, beside the built-in strategies:

* ``exec:COMMAND``: a program speaking the JSON lines of ``nimmt-bot --exec``
  (docs/BOTS.md), asked through the same bridge (``nimmt.bots.bridge``): one
  process per seat, kept from game to game in each worker process, stopped and
  restarted as the bridge does, its failures decided at once by the bridge's
  fallback (the ``heuristic``);
* ``py:MODULE:FUNCTION`` or ``py:path/to/file.py:FUNCTION``: a Python
  ``decide(view)`` (or a class with a ``decide`` method, made with no
  arguments), answering as the SDK accepts (``nimmt.bots.players.to_decision``).

Every seat counts its failures (``failures``, ``last_fault``): the arena reports
them beside the figures, so a bot that failed is never measured as if it played.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from nimmt.engine import Decision, View

from .basic import HeuristicStrategy
from .bridge import PlayerGaveUp, ProgramError, ProgramPlayer
from .players import Ask, to_decision
from .strategies import make_strategy

__all__ = ["EXEC", "PY", "PROGRAM_TIME", "Seat", "ProgramSeat", "FunctionSeat", "StrategySeat",
           "is_external", "make_seat", "check_seat", "load_function", "kept_program",
           "close_kept"]

EXEC: Final = "exec:"
PY: Final = "py:"
#: Seconds a program has for each decision in the arena (``--program-time``).
PROGRAM_TIME: Final = 10.0


def is_external(spec: str) -> bool:
    """Whether ``spec`` names a program or a Python function rather than a strategy."""
    return spec.startswith((EXEC, PY))


class Seat:
    """Decides for one seat of one game; counts its failures."""

    failures: int = 0
    last_fault: str | None = None

    def decide(self, view: View) -> Decision:
        raise NotImplementedError

    def close(self) -> None:
        """Release what the seat holds (a program)."""


class StrategySeat(Seat):
    """A built-in strategy (it does not fail)."""

    def __init__(self, strategy: Any) -> None:
        self.strategy = strategy

    def decide(self, view: View) -> Decision:
        return self.strategy.decide(view)  # type: ignore[no-any-return]


class FunctionSeat(Seat):
    """A Python ``decide(view)``: an exception or an illegal answer is a failure, and
    the fallback (the heuristic) decides instead."""

    def __init__(self, decide: Callable[[View], Any]) -> None:
        self._decide = decide
        self.fallback = HeuristicStrategy()

    def decide(self, view: View) -> Decision:
        try:
            return to_decision(view, self._decide(view))
        except Exception as exc:  # noqa: BLE001 - the author's bug is reported, not raised
            self.failures += 1
            self.last_fault = f"{type(exc).__name__}: {exc}"
            return self.fallback.decide(view)


class ProgramSeat(Seat):
    """A program asked through the bridge, each decision with ``program_time``
    seconds. A failed program is restarted at once (no table waits in the arena,
    so the bridge's backoff is left out); after ``MAX_FAILURES`` failures in a row
    the bridge gives up and the fallback decides the rest of the game.

    One seat may play several games (:func:`kept_program`): ``failures`` and
    ``last_fault`` count from the last :meth:`new_game`.
    """

    def __init__(self, command: str, program_time: float = PROGRAM_TIME) -> None:
        self.program_time = program_time
        self._loop = asyncio.new_event_loop()
        self.player = ProgramPlayer(command, backoff=(0.0,))
        self.gave_up = False
        self.given_up = 0  # decisions made by the fallback after the bridge gave up
        self._faults_before = 0  # faults of earlier games
        try:
            self._loop.run_until_complete(self.player.start())
        except ProgramError:
            self._loop.close()
            raise

    def new_game(self) -> None:
        self._faults_before = len(self.player.faults)

    @property
    def failures(self) -> int:  # type: ignore[override]
        return len(self.player.faults) - self._faults_before + self.given_up

    @property
    def last_fault(self) -> str | None:  # type: ignore[override]
        if len(self.player.faults) == self._faults_before:
            return None
        last = self.player.faults[-1]
        return f"{last}; the bridge gave up on it" if self.gave_up else last

    def decide(self, view: View) -> Decision:
        if self.gave_up:
            self.given_up += 1
            return self.player.fallback.decide(view)  # type: ignore[no-any-return]
        ask = Ask(view, time.monotonic() + self.program_time)
        try:
            decision = self._loop.run_until_complete(self.player.decide(ask))
        except PlayerGaveUp:  # this decision's failure is the bridge's last fault
            self.gave_up = True
            return self.player.fallback.decide(view)  # type: ignore[no-any-return]
        assert decision is not None
        return decision

    def close(self) -> None:
        if self._loop.is_closed():
            return
        try:
            self._loop.run_until_complete(self.player.aclose())
        finally:
            self._loop.close()


class _Kept(Seat):
    """A kept program lent to one game: closing it gives it back."""

    def __init__(self, program: ProgramSeat) -> None:
        self.program = program
        program.new_game()

    @property
    def failures(self) -> int:  # type: ignore[override]
        return self.program.failures

    @property
    def last_fault(self) -> str | None:  # type: ignore[override]
        return self.program.last_fault

    def decide(self, view: View) -> Decision:
        return self.program.decide(view)


_KEPT: dict[tuple[str, int], ProgramSeat] = {}  # (command, copy): this process's programs


def kept_program(command: str, seat: int, program_time: float = PROGRAM_TIME) -> Seat:
    """Copy number ``seat`` of the program, kept from one game to the next in this
    process (a start per game would cost more than the game: node took 0.25 to 0.6 s
    to start here, measured on a shared machine).
    A program the bridge gave up on is replaced. :func:`close_kept` stops them all."""
    program = _KEPT.get((command, seat))
    if program is None or program.gave_up or program.program_time != program_time:
        if program is not None:
            program.close()
        program = _KEPT[(command, seat)] = ProgramSeat(command, program_time)
    return _Kept(program)


def close_kept() -> None:
    """Stop every kept program of this process."""
    while _KEPT:
        _, program = _KEPT.popitem()
        program.close()


_LOADED: dict[str, Callable[[View], Any]] = {}  # each target is loaded once a process


def load_function(target: str) -> Callable[[View], Any]:
    """``MODULE:FUNCTION`` or ``path/to/file.py:FUNCTION`` → the function (a class
    with a ``decide`` method is made with no arguments and its ``decide`` returned).
    Raises ``ValueError`` saying what is wrong."""
    if target not in _LOADED:
        _LOADED[target] = _load(target)
    return _LOADED[target]


def _load(target: str) -> Callable[[View], Any]:
    where, sep, name = target.rpartition(":")
    if not sep or not where or not name:
        raise ValueError(f"py:{target}: give py:MODULE:FUNCTION or py:path/to/file.py:FUNCTION, "
                         "e.g. py:mybot:decide")
    try:
        if where.endswith(".py"):
            path = Path(where)
            if not path.is_file():
                raise ValueError(f"py:{target}: there is no file {where}")
            spec = importlib.util.spec_from_file_location(f"nimmt_arena_{path.stem}", path)
        else:
            if os.getcwd() not in sys.path:
                sys.path.append(os.getcwd())  # a module beside the author, as `python -m` finds it
            spec = importlib.util.find_spec(where)
            if spec is None:
                raise ModuleNotFoundError(f"no module named {where!r}")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except ValueError:
        raise
    except Exception as exc:  # noqa: BLE001 - the author's module may raise anything
        raise ValueError(f"py:{target}: cannot import {where}: {type(exc).__name__}: {exc}") from None
    found = getattr(module, name, None)
    if found is None:
        raise ValueError(f"py:{target}: {where} has no {name!r}")
    if isinstance(found, type):
        found = found()
    decide = getattr(found, "decide", found)
    if not callable(decide):
        raise ValueError(f"py:{target}: {name!r} is not a function decide(view)")
    return decide  # type: ignore[no-any-return]


def make_seat(spec: str, seed: int | None = None, program_time: float = PROGRAM_TIME,
              seat: int | None = None) -> Seat:
    """The seat for ``spec``: a program, a Python function, or a built-in strategy.
    With ``seat`` (which copy of this program at the table: 0, 1...), the program is
    kept for the next game (:func:`kept_program`); without, it is a process of its
    own, to be closed."""
    if spec.startswith(EXEC):
        command = spec[len(EXEC):]
        if seat is not None:
            return kept_program(command, seat, program_time)
        return ProgramSeat(command, program_time)
    if spec.startswith(PY):
        return FunctionSeat(load_function(spec[len(PY):]))
    return StrategySeat(make_strategy(spec, seed=seed))


def check_seat(spec: str) -> None:
    """Raise ``ValueError`` (a message for the user) if ``spec`` cannot be seated:
    a program that cannot be run, a function that cannot be found."""
    if spec.startswith(EXEC):
        if not spec[len(EXEC):].strip():
            raise ValueError('exec: needs a command, e.g. "exec:node docs/examples/bot.js"')
        try:
            make_seat(spec).close()
        except ProgramError as exc:
            raise ValueError(str(exc)) from None
    elif spec.startswith(PY):
        load_function(spec[len(PY):])
    else:
        make_strategy(spec)
