"""The think pool's queue: which bot decision a free worker takes next. Plain code.

Fair between tables: each table (an ``owner``) has its own line, and the lines
take turns (round robin): a free worker takes the first decision of the line
whose turn it is, and that line goes to the back. A table's bot waits for at
most one decision of each other table waiting, however many bots (or tables)
one client keeps searching, instead of for every decision asked before it.

Bounded: at most ``per_owner`` decisions wait in one line and ``total`` in all.
A decision past either bound is refused at once (its table decides it with its
cheap fallback, on time, instead of waiting for a worker it would not get in
time); when the whole queue is full, the newest decision of the longest line
makes room for one of a shorter line, so that a table with few decisions
waiting is never the one refused because of another's many.

>>> q = ThinkQueue[str](per_owner=3, total=10)
>>> for job in ("a1", "a2", "a3"):
...     _ = q.push("A", job)
>>> q.push("A", "a4")  # A's line is full: refused
'a4'
>>> q.push("B", "b1") is None
True
>>> [q.pop() for _ in range(5)]
['a1', 'b1', 'a2', 'a3', None]
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable
from typing import Generic, TypeVar

__all__ = ["ThinkQueue"]

T = TypeVar("T")


class ThinkQueue(Generic[T]):
    """Items waiting per owner, taken in turns; see the module's docstring."""

    def __init__(self, per_owner: int, total: int) -> None:
        if per_owner < 1 or total < 1:
            raise ValueError("a think queue holds at least one decision per table and in all")
        self.per_owner = per_owner
        self.total = total
        self._lines: dict[Hashable, deque[T]] = {}
        self._turns: deque[Hashable] = deque()  # the owners with a line, whose turn first
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def waiting(self, owner: Hashable) -> int:
        """How many of ``owner``'s items wait."""
        line = self._lines.get(owner)
        return len(line) if line is not None else 0

    def push(self, owner: Hashable, item: T) -> T | None:
        """Queue ``item`` at the back of ``owner``'s line; return the item refused to
        keep the bounds (``item`` itself, or the newest of a longer line), or None."""
        mine = self.waiting(owner)
        if mine >= self.per_owner:
            return item
        refused: T | None = None
        if self._size >= self.total:
            longest = max(self._lines, key=lambda o: len(self._lines[o]))
            if len(self._lines[longest]) <= mine + 1:
                return item  # no line is longer than this one would be: it waits its turn
            refused = self._lines[longest].pop()
            self._size -= 1
            self._forget_if_empty(longest)
        self._line(owner).append(item)
        self._size += 1
        return refused

    def push_front(self, owner: Hashable, item: T) -> None:
        """Give ``item`` back at the front of ``owner``'s line (it was taken, and its
        worker could not run it): never refused."""
        self._line(owner).appendleft(item)
        self._size += 1

    def pop(self) -> T | None:
        """The next item (None: nothing waits): the first of the line whose turn it is."""
        if not self._turns:
            return None
        owner = self._turns.popleft()
        line = self._lines[owner]
        item = line.popleft()
        self._size -= 1
        if line:
            self._turns.append(owner)
        else:
            del self._lines[owner]
        return item

    def remove(self, owner: Hashable, item: T) -> bool:
        """Take ``item`` out of ``owner``'s line (nobody wants it any more)."""
        line = self._lines.get(owner)
        if line is None:
            return False
        try:
            line.remove(item)
        except ValueError:
            return False
        self._size -= 1
        self._forget_if_empty(owner)
        return True

    def _line(self, owner: Hashable) -> deque[T]:
        line = self._lines.get(owner)
        if line is None:
            line = self._lines[owner] = deque()
            self._turns.append(owner)
        return line

    def _forget_if_empty(self, owner: Hashable) -> None:
        if not self._lines[owner]:
            del self._lines[owner]
            self._turns.remove(owner)
