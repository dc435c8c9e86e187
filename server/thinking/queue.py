"""The think pool's queue: which bot decision a free worker takes next. Plain code.

Fair between clients, then between tables: each table (an ``owner``) has its own
line, and each line belongs to a ``group``: the client address that caused the
table (its creator's; a ladder table's queued player's), the server's own group
for the tables of built-in bots it opens itself, or the table alone when nobody
knows (a table restored from the database: its group is its id). The groups
take turns (round robin), and within a group its tables take turns: a free
worker takes the first decision of the next table of the group whose turn it
is, and that table, and that group, go to the back. So a table's bot waits for
at most one decision of each other *address* waiting, however many tables (or
bots) one address keeps searching: an address with 64 bot-filled tables has one
turn in each round, as one with one table has.

A group that had nothing waiting comes first (as a new flow does in FQ-CoDel):
groups that come in take their first turn before the groups that keep decisions
waiting all the time, in the order they came; after its turn a group still
waiting goes to the back of the round. A client asking for one decision at a
time (one table, a bot or two) is taken by the next free worker, not after one
decision of each flooding address; a client keeping the queue full never has
nothing waiting, so it cannot use this to go first.

Bounded: at most ``per_owner`` decisions wait in one line and ``total`` in all.
A decision past either bound is refused at once (its table decides it with its
cheap fallback, on time, instead of waiting for a worker it would not get in
time); when the whole queue is full, room is made by the *group* with the most
decisions waiting (the longest, counted per address, not per table: one address
spreading its decisions over many short lines still gives them up first): the
newest decision of that group's longest line is refused to make room for one of
a group with fewer waiting, so that a client with few decisions waiting is never
the one refused because of another's many. (Between equally long groups, or
lines, the one that came first gives up its newest.)

>>> q = ThinkQueue[str](per_owner=3, total=10)
>>> for job in ("a1", "a2", "a3"):
...     _ = q.push("A", job)
>>> q.push("A", "a4")  # A's line is full: refused
'a4'
>>> q.push("B", "b1") is None
True
>>> [q.pop() for _ in range(5)]
['a1', 'b1', 'a2', 'a3', None]

Two tables of one address take turns as one client with a third's table:

>>> q = ThinkQueue[str](per_owner=3, total=10)
>>> for owner, job in (("A", "a1"), ("A", "a2"), ("B", "b1"), ("B", "b2")):
...     _ = q.push(owner, job, group="10.0.0.1")
>>> _ = q.push("C", "c1", group="10.0.0.2"); _ = q.push("C", "c2", group="10.0.0.2")
>>> [q.pop() for _ in range(7)]
['a1', 'c1', 'b1', 'c2', 'a2', 'b2', None]

An address that had nothing waiting goes before one that keeps its line full:

>>> for job in ("a1", "a2", "a3"):
...     _ = q.push("A", job, group="10.0.0.1")
>>> q.pop()
'a1'
>>> _ = q.push("C", "c1", group="10.0.0.2")
>>> [q.pop() for _ in range(4)]
['c1', 'a2', 'a3', None]

**Workers kept free** (``workers``: the pool's size; None: the queue does not
count the workers, as above). Turns alone cannot help a bot that asks while every
worker is busy: a decision is not interrupted (a searching bot's is ~0.1 s), so
it waits for one to end, however fair the turns (issue 42, attack 3: +54% on a
victim's bot with the turns alone). So the queue counts the items each group has
running (``pop`` to ``finished``) and, with ``workers`` given:

* the groups holding the fewest workers go first (the turns decide between
  them): a client with nothing running goes before one whose bots are thinking;
* a worker is kept free for each group that is *about* but has nothing waiting
  or running (it asked, or was answered, within the last ``active_for``
  seconds: a bot-only table asks again milliseconds after its answer), at most
  ``workers - 1`` (so a worker always takes something when all are free).

So one address alone gets every worker; while another is about, the flood holds
at most ``workers - 1`` and the other's next decision is taken at once, with no
decision to wait for; several flooding addresses share what is not kept. The
cost: a worker idles while a client that is about asks nothing (at most
``active_for`` seconds after its last decision), and a client's very first
decision, or one after a pause, may still wait for a running one. With one
worker nothing can be kept (that would stop the flood altogether): a bot that
asks while the worker is busy waits for that decision, then goes first.
``wake_at`` says when a kept worker is released (the pool's idle worker waits
until then, or the next push).

>>> q = ThinkQueue[str](per_owner=5, total=20, workers=2, active_for=1.0)
>>> for job in ("f1", "f2", "f3"):
...     _ = q.push("F", job, group="flood", now=0.0)
>>> _ = q.push("V", "v1", group="victim", now=0.0)
>>> q.pop(now=0.0), q.pop(now=0.0)  # one worker each
('f1', 'v1')
>>> q.finished("v1", now=0.5)
>>> q.pop(now=0.5) is None  # the flood holds one: the other is kept for the victim
True
>>> q.wake_at()
1.5
>>> q.pop(now=1.5)  # the victim asked nothing for 1 s: the flood may take both
'f2'
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable
from typing import Generic, TypeVar

__all__ = ["ThinkQueue", "ACTIVE_FOR"]

T = TypeVar("T")

#: seconds a group that asked for a decision, or was answered, counts as about: a
#: worker is kept free for it meanwhile (a bot-only table asks again within
#: milliseconds of its answer; a person's table within a turn, a few seconds)
ACTIVE_FOR = 5.0


class ThinkQueue(Generic[T]):
    """Items waiting per owner, owners grouped, taken in turns; see the module's
    docstring."""

    def __init__(self, per_owner: int, total: int, workers: int | None = None,
                 active_for: float = ACTIVE_FOR) -> None:
        if per_owner < 1 or total < 1:
            raise ValueError("a think queue holds at least one decision per table and in all")
        if workers is not None and workers < 1:
            raise ValueError("a think queue keeps workers free of at least one worker")
        self.per_owner = per_owner
        self.total = total
        self.workers = workers
        self.active_for = active_for
        self._running: dict[T, Hashable] = {}  # the items popped and not finished: their group
        self._holding: dict[Hashable, int] = {}  # per group, its items running (> 0)
        self._seen: dict[Hashable, float] = {}  # per group, when it last asked or was answered
        self._lines: dict[Hashable, deque[T]] = {}
        self._group_of: dict[Hashable, Hashable] = {}  # the group of each owner with a line
        # each group with a line: its owners with a line, whose turn first
        self._groups: dict[Hashable, deque[Hashable]] = {}
        self._sizes: dict[Hashable, int] = {}  # items waiting per group
        # the groups with a line, whose turn first: those come in since their last
        # turn (they had nothing waiting), then those that had a turn and still wait
        self._new: deque[Hashable] = deque()
        self._turns: deque[Hashable] = deque()
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def waiting(self, owner: Hashable) -> int:
        """How many of ``owner``'s items wait."""
        line = self._lines.get(owner)
        return len(line) if line is not None else 0

    def waiting_in(self, group: Hashable) -> int:
        """How many items of ``group``'s owners wait."""
        return self._sizes.get(group, 0)

    def holding(self, group: Hashable) -> int:
        """How many items of ``group`` are running (popped, not ``finished``)."""
        return self._holding.get(group, 0)

    def push(self, owner: Hashable, item: T, group: Hashable = None,
             now: float = 0.0) -> T | None:
        """Queue ``item`` at the back of ``owner``'s line, ``owner`` being one of
        ``group``'s (None: a group of its own; an owner whose line waits keeps the
        group it had), at time ``now``; return the item refused to keep the bounds
        (``item`` itself, or the newest of a longer group's longest line), or None."""
        if self.waiting(owner) >= self.per_owner:
            return item
        group = self._group_of.get(owner, owner if group is None else group)
        if self.workers is not None:
            self._seen[group] = now
        refused: T | None = None
        if self._size >= self.total:
            mine = self.waiting_in(group)
            longest = max(self._sizes, key=self._sizes.__getitem__)
            if self._sizes[longest] <= mine + 1:
                return item  # no group is longer than this one would be: it waits its turn
            victim = max((o for o in self._lines if self._group_of[o] == longest),
                         key=lambda o: len(self._lines[o]))
            refused = self._lines[victim].pop()
            self._taken(victim)
        self._line(owner, group).append(item)
        self._sizes[group] += 1
        self._size += 1
        return refused

    def push_front(self, owner: Hashable, item: T, group: Hashable = None) -> None:
        """Give ``item`` back at the front of ``owner``'s line (it was taken, and its
        worker could not run it): never refused."""
        group = self._group_of.get(owner, owner if group is None else group)
        self._line(owner, group).appendleft(item)
        self._sizes[group] += 1
        self._size += 1

    def pop(self, now: float = 0.0) -> T | None:
        """The next item for a free worker at time ``now`` (None: nothing waits, or
        only groups that may not take a worker now): the first of the next line of
        the group whose turn it is, among those that may take a worker. It runs
        until ``finished``."""
        found = self._next_group(now)
        if found is None:
            return None
        (group,) = found  # (a group may be None: a table's own, owner None)
        owners = self._groups[group]
        owner = owners.popleft()
        line = self._lines[owner]
        item = line.popleft()
        self._size -= 1
        self._sizes[group] -= 1
        if line:
            owners.append(owner)
        else:
            del self._lines[owner], self._group_of[owner]
        if owners:
            self._turns.append(group)
        else:
            del self._groups[group], self._sizes[group]
        if self.workers is not None:
            self._running[item] = group
            self._holding[group] = self._holding.get(group, 0) + 1
        return item

    def finished(self, item: T, now: float = 0.0) -> None:
        """``item`` (popped) is done at time ``now``, or was never run: its worker is
        free. (Again for the same item: nothing.)"""
        group = self._running.pop(item, None)
        if group is None:
            return
        self._seen[group] = now  # (only with workers: else nothing runs)
        if self._holding[group] == 1:
            del self._holding[group]
        else:
            self._holding[group] -= 1

    def wake_at(self) -> float | None:
        """When a worker kept free for a group stops being kept, unless it asks
        again (None: none is kept): ``pop`` may then give an item it refused now."""
        times = [seen + self.active_for for group, seen in self._seen.items()
                 if group not in self._holding and not self._sizes.get(group)]
        return min(times, default=None)

    def _next_group(self, now: float) -> tuple[Hashable] | None:
        """The group a free worker takes an item of now, out of the turns, or None
        (nothing waits, or the free workers are kept)."""
        for other, seen in list(self._seen.items()):
            if now >= seen + self.active_for and not self._sizes.get(other):
                del self._seen[other]  # gone quiet: no worker is kept for it any more
        waiting = [*self._new, *self._turns]
        if not waiting:
            return None
        group = waiting[0]
        if self.workers is not None:
            group = min(waiting, key=self.holding)  # the first of those holding fewest
            idle = sum(1 for other in self._seen
                       if other not in self._holding and not self._sizes.get(other))
            free = max(1, self.workers - len(self._running))  # (this worker's, at least)
            if free - 1 < min(self.workers - 1, idle):
                return None
        (self._new if group in self._new else self._turns).remove(group)
        return (group,)

    def remove(self, owner: Hashable, item: T) -> bool:
        """Take ``item`` out of ``owner``'s line (nobody wants it any more)."""
        line = self._lines.get(owner)
        if line is None:
            return False
        try:
            line.remove(item)
        except ValueError:
            return False
        self._taken(owner)
        return True

    def _line(self, owner: Hashable, group: Hashable) -> deque[T]:
        line = self._lines.get(owner)
        if line is None:
            line = self._lines[owner] = deque()
            self._group_of[owner] = group
            owners = self._groups.get(group)
            if owners is None:
                owners = self._groups[group] = deque()
                self._sizes[group] = 0
                self._new.append(group)
            owners.append(owner)
        return line

    def _taken(self, owner: Hashable) -> None:
        """One item of ``owner``'s line is gone (not by ``pop``): count it, and take
        the line, and its group, out of the turns once empty."""
        group = self._group_of[owner]
        self._size -= 1
        self._sizes[group] -= 1
        if self._lines[owner]:
            return
        del self._lines[owner], self._group_of[owner]
        owners = self._groups[group]
        owners.remove(owner)
        if not owners:
            del self._groups[group], self._sizes[group]
            (self._new if group in self._new else self._turns).remove(group)
