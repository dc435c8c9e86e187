"""What a table's task has said but not yet delivered: its output held for the disk.

Sans-IO: ``HeldOutput`` decides, the table's task (``table.Table``) awaits the write
and sends. Nobody hears of a decision before its fact is on disk, and the writes of
the inputs a table takes in a row go to disk together
(docs/SERVER.md, "The path of one commit"):

* while more inputs wait, effects that only write facts and send messages are held
  (``may_hold``); they are ready as soon as no input waits (deadline -inf);
* a decision's acknowledgement alone (``commit_accepted`` and ``seat_committed``) is
  held even when no input waits, for at most ``ACK_WAIT`` after the first thing held:
  its write then usually goes in a transaction other tables make meanwhile (the
  store says when it was tried, ``PendingWrite.on_tried``);
* what tells of a turn's outcome is never held for that: it makes everything held
  ready at once.

Once ready, the task waits for the last write handed in (``take``) and delivers the
held effects in the order they came.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

from nimmt import protocol as P

from ..game.io import Effects

__all__ = ["ACK_WAIT", "HeldOutput", "Write", "only_facts_and_messages",
           "only_acknowledgements"]

#: seconds the acknowledgement of a decision (``commit_accepted`` and ``seat_committed``
#: alone) may be held for the transaction of other writes: a turn's first commits then
#: seldom cost one of their own; what tells of a turn's outcome is never held for it
#: (docs/SERVER.md, "The path of one commit"; benchmarks/README.md, "Acknowledgements wait")
ACK_WAIT = 0.01


class Write(Protocol):
    """What is used of a write handed to the store (``storage.PendingWrite``)."""

    tried: bool  # written, or failed (then the store keeps it queued)
    on_tried: Callable[[], None] | None


W = TypeVar("W", bound=Write)


class HeldOutput(Generic[W]):
    """A table's effects held until the last of their writes (``W``) is on disk."""

    __slots__ = ("ack_wait", "_wake", "_effects", "_write", "_due")

    def __init__(self, wake: Callable[[], None] | None = None,
                 ack_wait: float | None = None) -> None:
        """``wake``: called when a write held for an acknowledgement is tried (the
        table's task, waiting for its next input, looks again); ``ack_wait``:
        ``ACK_WAIT`` unless said."""
        self.ack_wait = ACK_WAIT if ack_wait is None else ack_wait
        self._wake = wake
        self._effects: deque[Effects] = deque()
        # the last write handed in for the held effects: once it is tried, so are
        # the ones before it (the store writes in order)
        self._write: W | None = None
        # when the held effects are delivered at the latest, if no input comes first
        self._due = -math.inf

    def __len__(self) -> int:
        return len(self._effects)

    def __bool__(self) -> bool:
        return bool(self._effects)

    def may_hold(self, effects: Effects, *, inputs_waiting: bool) -> bool:
        """Whether ``effects`` are held rather than carried out now: only facts and
        messages, and more inputs wait, or something is held already, or they only
        acknowledge a decision."""
        if not only_facts_and_messages(effects):
            return False
        return inputs_waiting or bool(self._effects) or only_acknowledgements(effects)

    def hold(self, effects: Effects, write: W | None, now: float) -> None:
        """Hold ``effects`` (``may_hold`` said so), whose facts are in ``write`` (None:
        they have none)."""
        if write is not None:
            self._write = write
        if not only_acknowledgements(effects):
            self._due = -math.inf
        elif not self._effects:
            self._due = now + self.ack_wait
        if write is not None and self._due > -math.inf and self._wake is not None:
            write.on_tried = self._wake  # (written by others: no need to wait)
        self._effects.append(effects)

    @property
    def deadline(self) -> float:
        """When the held effects are ready at the latest (-inf: once no input waits;
        inf: nothing is held)."""
        return self._due if self._effects else math.inf

    def ready(self, now: float) -> bool:
        """Whether the task, with no input waiting, delivers now: something is held and
        its write has been tried (or there is none), or its deadline has come."""
        if not self._effects:
            return False
        write = self._write
        return write is None or write.tried or self._due <= now

    def take(self) -> tuple[W | None, list[Effects]]:
        """Everything held, in order, and the write to wait for before delivering it;
        nothing is held any more."""
        write, self._write = self._write, None
        effects = list(self._effects)
        self._effects.clear()
        return write, effects


def only_facts_and_messages(effects: Effects) -> bool:
    """Whether ``effects`` may wait for the disk while the table goes on: no one sits
    down, leaves or is refused, no game starts or ends, no bot is asked, the table
    stays open, and no fact is a seat (those carry a session's token)."""
    if (effects.entered or effects.released or effects.refused or effects.thinks
            or effects.started or effects.finished is not None or effects.closed is not None):
        return False
    for fact in effects.facts:  # (asked for most effects while inputs wait: no generator)
        if fact.kind == "seat":
            return False
    return True


_ACKNOWLEDGEMENTS = (P.CommitAccepted, P.SeatCommitted)


def only_acknowledgements(effects: Effects) -> bool:
    """Whether ``effects`` (only facts and messages) tell of nothing but a decision
    taken: its ``commit_accepted`` and ``seat_committed`` (a turn's outcome, a step, a
    choice asked for: no)."""
    for _, msg in effects.sends:
        if not isinstance(msg, _ACKNOWLEDGEMENTS):
            return False
    return bool(effects.sends)
