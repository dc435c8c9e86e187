"""The ladder queue's decisions, sans-IO: who waits for which game, and which tables
to form now.

Players ask for a rated game of some ``kind`` (the seats and the table's settings:
those who ask for the same kind play together). ``LadderQueue.form(now, room)``
says which tables to open, at most ``room`` of them:

1. a kind with at least N waiting (N: its seats) forms a table of N players at
   once; with more than N waiting, the N closest in rating first (the window of
   N consecutive ratings whose spread is smallest; ties: the one holding the
   longest waiting player), and again while N are left;
2. an entry whose ``fill_after`` has passed forms a table with itself, the others
   of its kind who accept bots (the closest in rating, up to N - 1), and built-in
   bots of its ``bot_level`` in the seats left. An entry with ``fill_after`` None
   never fills, and is never taken into a table filled for someone else.

Those who wait are told again (``queued``) when their place, the number waiting for
their kind, or whether the server is full changed: ``stale(server_full)`` says
whether someone must be told, ``refresh(server_full)`` who (one ``Standing`` per
entry whose last told place, count or ``server_full`` differs, however many
changes there were since).

Nothing here reads a clock or does I/O: the lobby passes ``now`` and sleeps until
``next_fill()``. A formed entry, a left one and a replaced one are gone from every
index at once (``remove``): nothing of them is left behind.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterator
from dataclasses import dataclass

__all__ = ["Entry", "Formed", "LadderQueue", "Standing"]


@dataclass(frozen=True, slots=True)
class Entry:
    """One player waiting: ``who`` (the session's id) for a game of ``kind``."""

    who: int
    name_key: str  # one entry per name: a name is one rating
    kind: Hashable
    seats: int
    rating: float  # the conservative ordinal when the player queued
    since: float  # when the player queued (the server's clock)
    fill_after: float | None  # seconds; None: never with bots
    bot_level: str

    @property
    def fill_at(self) -> float:
        """When this entry's table is filled with bots (inf: never)."""
        return math.inf if self.fill_after is None else self.since + self.fill_after


@dataclass(frozen=True, slots=True)
class Formed:
    """A table to open: ``players`` (in the order they queued) and ``bots`` built-in
    bots of ``bot_level``; ``filled_for``: whose wait ran out (None: N players)."""

    kind: Hashable
    seats: int
    players: tuple[Entry, ...]
    bots: int
    bot_level: str
    filled_for: int | None = None


@dataclass(frozen=True, slots=True)
class Standing:
    """What to tell ``entry`` (``queued``): its ``position`` among the ``waiting``
    for its kind, and whether the server is full."""

    entry: Entry
    position: int
    waiting: int
    server_full: bool


class LadderQueue:
    """Every entry waiting, by kind (in the order they came) and by session."""

    def __init__(self) -> None:
        self._kinds: dict[Hashable, dict[int, Entry]] = {}
        self._by_who: dict[int, Entry] = {}
        self._by_name: dict[str, Entry] = {}
        # what each entry was last told: (position, waiting, server_full)
        self._told: dict[int, tuple[int, int, bool]] = {}
        self._changed: set[Hashable] = set()  # kinds whose line changed since refresh()
        self._full: bool | None = None  # server_full at the last refresh()

    # ------------------------------------------------------------------ queries
    def __len__(self) -> int:
        return len(self._by_who)

    def __contains__(self, who: object) -> bool:
        return who in self._by_who

    def __iter__(self) -> Iterator[Entry]:
        return iter(list(self._by_who.values()))

    def get(self, who: int) -> Entry | None:
        return self._by_who.get(who)

    def by_name(self, name_key: str) -> Entry | None:
        return self._by_name.get(name_key)

    def waiting(self, kind: Hashable) -> int:
        return len(self._kinds.get(kind, ()))

    def position(self, who: int) -> tuple[int, int]:
        """``who``'s place among those waiting for its kind (1: the longest waiting),
        and how many wait for it. Raises ``KeyError`` if ``who`` does not wait."""
        entry = self._by_who[who]
        entries = self._kinds[entry.kind]
        return list(entries).index(who) + 1, len(entries)

    def next_fill(self) -> float:
        """When the next entry's wait runs out (inf: none will)."""
        return min((e.fill_at for e in self._by_who.values()), default=math.inf)

    # ------------------------------------------------------------------ changes
    def add(self, entry: Entry) -> Entry | None:
        """Queue ``entry``; a session's earlier entry is replaced (returned). The
        caller checked that no other session waits under the same name."""
        old = self.remove(entry.who)
        self._kinds.setdefault(entry.kind, {})[entry.who] = entry
        self._by_who[entry.who] = entry
        self._by_name[entry.name_key] = entry
        self._changed.add(entry.kind)
        return old

    def remove(self, who: int) -> Entry | None:
        """Take ``who`` out of the queue (None: it was not waiting)."""
        entry = self._by_who.pop(who, None)
        if entry is None:
            return None
        del self._by_name[entry.name_key]
        self._told.pop(who, None)
        entries = self._kinds[entry.kind]
        del entries[who]
        if entries:
            self._changed.add(entry.kind)
        else:
            del self._kinds[entry.kind]
            self._changed.discard(entry.kind)
        return entry

    # ------------------------------------------------------------------ telling
    def told(self, who: int, server_full: bool) -> None:
        """``who`` was just told its place (the answer to its ``queue``)."""
        self._told[who] = (*self.position(who), server_full)

    def stale(self, server_full: bool) -> bool:
        """Whether someone waiting may have to be told again (``refresh``)."""
        return bool(self._changed) or (server_full != self._full and bool(self._by_who))

    def refresh(self, server_full: bool) -> list[Standing]:
        """Those whose place, count of waiting or ``server_full`` is not what they were
        last told (each once, as they are now), in the order they queued by kind;
        from now on they count as told.

        >>> q = LadderQueue()
        >>> for who in (1, 2, 3):
        ...     _ = q.add(Entry(who, str(who), "k", 4, 0.0, float(who), None, "easy"))
        ...     q.told(who, False)
        >>> [(s.entry.who, s.position, s.waiting) for s in q.refresh(False)]
        [(1, 1, 3), (2, 2, 3)]
        >>> q.refresh(False)
        []
        >>> _ = q.remove(1)
        >>> [(s.entry.who, s.position, s.waiting) for s in q.refresh(False)]
        [(2, 1, 2), (3, 2, 2)]
        >>> [(s.entry.who, s.server_full) for s in q.refresh(True)]
        [(2, True), (3, True)]
        """
        kinds = list(self._kinds) if server_full != self._full else list(self._changed)
        self._changed.clear()
        self._full = server_full
        out: list[Standing] = []
        for kind in kinds:
            entries = self._kinds.get(kind)
            if not entries:
                continue
            waiting = len(entries)
            for position, (who, entry) in enumerate(entries.items(), 1):
                now = (position, waiting, server_full)
                if self._told.get(who) != now:
                    self._told[who] = now
                    out.append(Standing(entry, position, waiting, server_full))
        return out

    # ------------------------------------------------------------------ forming tables
    def form(self, now: float, room: int) -> list[Formed]:
        """The tables to open now, at most ``room`` (their entries leave the queue).
        Full tables of players first, then the tables filled for entries whose wait
        ran out (the longest waiting first)."""
        formed: list[Formed] = []
        for kind in list(self._kinds):
            while len(formed) < room:
                entries = self._kinds.get(kind)
                if not entries:
                    break
                seats = next(iter(entries.values())).seats
                if len(entries) < seats:
                    break
                players = closest(list(entries.values()), seats)
                formed.append(self._take(Formed(kind, seats, players, 0, "")))
        due = sorted((e for e in self._by_who.values() if e.fill_at <= now),
                     key=lambda e: (e.fill_at, e.since))
        for entry in due:
            if len(formed) >= room:
                break
            if entry.who not in self._by_who:  # taken into a table filled for another
                continue
            others = [e for e in self._kinds[entry.kind].values()
                      if e.who != entry.who and e.fill_after is not None]
            others.sort(key=lambda e: (abs(e.rating - entry.rating), e.since))
            players = tuple(sorted([entry, *others[:entry.seats - 1]], key=lambda e: e.since))
            formed.append(self._take(Formed(entry.kind, entry.seats, players,
                                            entry.seats - len(players), entry.bot_level,
                                            filled_for=entry.who)))
        return formed

    def _take(self, formed: Formed) -> Formed:
        for entry in formed.players:
            self.remove(entry.who)
        return formed


def closest(entries: list[Entry], n: int) -> tuple[Entry, ...]:
    """The ``n`` of ``entries`` closest in rating (in the order they queued): the
    window of ``n`` consecutive ratings with the smallest spread; of equal spreads,
    the one holding the longest waiting entry.

    >>> def e(who, rating):
    ...     return Entry(who, str(who), "k", 2, rating, float(who), None, "easy")
    >>> [x.who for x in closest([e(1, 30.0), e(2, 1.0), e(3, 2.5), e(4, 29.0)], 2)]
    [1, 4]
    >>> [x.who for x in closest([e(1, 10.0), e(2, 5.0), e(3, 15.0)], 2)]
    [1, 2]
    """
    if len(entries) <= n:
        return tuple(sorted(entries, key=lambda e: e.since))
    by_rating = sorted(entries, key=lambda e: (e.rating, e.since))
    best: tuple[float, float, int] | None = None
    for i in range(len(by_rating) - n + 1):
        window = by_rating[i:i + n]
        key = (window[-1].rating - window[0].rating, min(e.since for e in window), i)
        if best is None or key < best:
            best = key
    assert best is not None
    start = best[2]
    return tuple(sorted(by_rating[start:start + n], key=lambda e: e.since))
