"""Who decides for a network seat: a built-in strategy, your Python function, or a program.

The network runner (``nimmt.bots.runner``) asks a :class:`Player` for each decision
the server requests of its seat, with an :class:`Ask`: the seat's engine ``View``,
the local time the answer is due and the names at the table. A player answers one
of ``ask.view.legal``, or ``None`` to give no answer (the server's autopilot then
decides when the deadline passes).

* :class:`StrategyPlayer` wraps anything with ``decide(view) -> Decision``
  (the built-in strategies, a ``Strategy`` subclass);
* :class:`FunctionPlayer` wraps a plain function ``decide(view)`` that may also
  return a bare card, row or ``Place`` (see :func:`to_decision`);
* ``nimmt.bots.bridge.ProgramPlayer`` asks a program over JSON lines.

Python deciders run in a worker thread, one decision at a time, so the connection
keeps answering the server's pings while they think.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from nimmt.engine import ChooseRow, ChooseTie, Commit, Decision, DraftPick, End, Phase, Place, View

__all__ = ["Ask", "Player", "StrategyPlayer", "FunctionPlayer", "to_decision", "as_player"]


@dataclass(frozen=True, slots=True)
class Ask:
    """One decision the server asks of the seat."""

    view: View  # what the seat knows; ``view.legal`` lists the allowed answers
    deadline: float | None  # local ``time.monotonic()`` the answer is due (None: no clock)
    names: tuple[str | None, ...] = ()  # the names at the seats (None: empty seat)

    def seconds_left(self, now: float | None = None) -> float | None:
        """Seconds until the deadline (never below 0), or None without a deadline."""
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - (time.monotonic() if now is None else now))


class Player(Protocol):
    async def decide(self, ask: Ask) -> Decision | None:
        """One of ``ask.view.legal``, or None: no answer (the autopilot decides)."""
        ...

    async def aclose(self) -> None:
        """Release what the player holds (a program, threads). Called once, at the end."""
        ...


def to_decision(view: View, choice: Any) -> Decision:
    """Read what a ``decide`` function returned as one of ``view.legal``.

    Accepted: a ``Decision`` (``Commit``, ``ChooseRow``...); an ``int`` (the card
    to commit or pick, or the row 0..3 to take); a ``Place`` (tied places). Raises
    ``ValueError`` saying what was wrong if it is not one of the legal choices.
    """
    seat = view.seat if view.seat is not None else 0
    decision: Any = choice
    if isinstance(choice, Place):
        decision = ChooseTie(seat, Place(choice.row, End(choice.end)))
    elif isinstance(choice, int) and not isinstance(choice, bool):
        if view.phase is Phase.ROW_CHOICE:
            decision = ChooseRow(seat, choice)
        elif view.phase is Phase.TIE_CHOICE:
            matches = [d for d in view.legal if isinstance(d, ChooseTie) and d.place.row == choice]
            decision = matches[0] if matches else ChooseTie(seat, Place(choice))
        elif view.phase is Phase.DRAFT:
            decision = DraftPick(seat, choice)
        else:
            decision = Commit(seat, choice)
    elif isinstance(choice, Commit):
        decision = Commit(choice.seat, choice.card)  # round/turn tags are not compared
    if decision not in view.legal:
        raise ValueError(f"{choice!r} is not a legal choice now; legal: {list(view.legal)!r}")
    return decision


class StrategyPlayer:
    """A player that asks ``strategy.decide(view)`` (in a worker thread)."""

    def __init__(self, strategy: Any) -> None:
        self.strategy = strategy
        self._lock = asyncio.Lock()  # a strategy object decides one view at a time

    def __repr__(self) -> str:
        return f"StrategyPlayer({self.strategy!r})"

    async def decide(self, ask: Ask) -> Decision | None:
        async with self._lock:
            choice = await asyncio.to_thread(self.strategy.decide, ask.view)
        return to_decision(ask.view, choice)

    async def aclose(self) -> None:
        return None


class FunctionPlayer(StrategyPlayer):
    """A player that calls ``decide(view)`` (in a worker thread)."""

    def __init__(self, decide: Callable[[View], Any]) -> None:
        super().__init__(_FunctionStrategy(decide))

    def __repr__(self) -> str:
        return f"FunctionPlayer({self.strategy.decide!r})"


@dataclass(frozen=True, slots=True)
class _FunctionStrategy:
    decide: Callable[[View], Any]


def as_player(decider: Any) -> Player:
    """A ``Player`` for a player, a strategy (``.decide(view)``) or a function."""
    if hasattr(decider, "aclose") and asyncio.iscoroutinefunction(getattr(decider, "decide", None)):
        return decider  # type: ignore[no-any-return]
    if callable(getattr(decider, "decide", None)):
        return StrategyPlayer(decider)
    if callable(decider):
        return FunctionPlayer(decider)
    raise TypeError(f"{decider!r} cannot decide: pass a function decide(view), an object "
                    "with a decide(view) method, or a Player")
