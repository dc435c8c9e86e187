"""Small protections, sans-IO: a token bucket for the request rate of one connection,
and the admission of new connections (``Admission``).

>>> bucket = TokenBucket(rate=2.0, burst=3, now=0.0)
>>> [bucket.take(0.0) for _ in range(5)]
[True, True, True, False, False]
>>> bucket.take(1.0)  # 2 tokens came back, 2 were owed
False
>>> bucket.take(2.0)
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

__all__ = ["TokenBucket", "AddressMeters", "Admission", "Admitted", "ResumeMeter",
           "LogLimiter", "left_out", "FORGIVE", "FEW", "HEAVY", "SILENT_AFTER",
           "flooding_text", "resuming_text"]


#: seconds after its last cool-down ends before a session's strikes are forgotten
FORGIVE = 300.0
#: an address holding fewer connections than this may use the reserved ones
FEW = 4
#: when the server is full, an address holding this many or more makes room for a
#: newcomer from an address that holds fewer than ``FEW``
HEAVY = 2 * FEW
#: a connection that has not said hello may be closed to make room for another only
#: after this many seconds: a client that says hello at once is never closed for room
SILENT_AFTER = 1.0
#: addresses remembered for flooding before those whose wait is over are pruned
MAX_STRUCK = 4096


def flooding_text(seconds: int) -> str:
    """What a connection refused while its address cools down after a flood is told."""
    return (f"a connection from your address was closed for flooding the server: "
            f"try again in {seconds} s")


def resuming_text(seconds: int, flooded: bool) -> str:
    """What a ``hello`` refused for resuming its session too soon is told."""
    why = ("a connection of this session was closed for flooding the server" if flooded
           else "this session has resumed too often")
    return f"{why}: resume it again in {seconds} s"


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up.

    ``take(now)`` spends one token and says whether the request may go on. A
    refused request still costs a token, so the bucket goes into debt while a
    client keeps sending too fast; ``abusive`` says that the debt has reached a
    whole ``burst``: the client is sending at well over the rate, for a while.
    """

    __slots__ = ("rate", "burst", "tokens", "stamp")

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = now

    def take(self, now: float) -> bool:
        elapsed = now - self.stamp
        if elapsed > 0:
            self.tokens = min(float(self.burst), self.tokens + elapsed * self.rate)
            self.stamp = now
        self.tokens -= 1.0
        return self.tokens >= 0.0

    def wait(self, now: float) -> float:
        """Spend one token if there is a whole one (0.0), else spend nothing and say
        how many seconds until there is: for a request that is refused, not dropped."""
        if self.take(now):
            return 0.0
        self.tokens += 1.0  # give back what take spent
        return (1.0 - self.tokens) / self.rate

    def give_back(self) -> None:
        """Return the token ``wait`` spent, for a request refused on other grounds."""
        self.tokens = min(float(self.burst), self.tokens + 1.0)

    def full(self, now: float) -> bool:
        """Whether the bucket has refilled to its burst (then it can be forgotten)."""
        return self.tokens + (now - self.stamp) * self.rate >= self.burst

    @property
    def abusive(self) -> bool:
        return self.tokens <= -self.burst


#: address meters kept before the full (idle) ones are forgotten
MAX_METERS = 1024


class AddressMeters:
    """A ``TokenBucket`` per client address, for what all of one address's
    sessions share (chat: 256 sessions from one address must not say 256 lines
    a second). Meters that have refilled are forgotten once there are many, so
    memory follows the addresses active now, not every address ever seen.

    >>> meters = AddressMeters(rate=1.0, burst=2)
    >>> [meters.wait("10.0.0.7", 0.0) for _ in range(3)]
    [0.0, 0.0, 1.0]
    >>> meters.wait("10.0.0.8", 0.0), meters.wait("10.0.0.7", 1.0)
    (0.0, 0.0)
    """

    __slots__ = ("rate", "burst", "_meters")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self._meters: dict[str, TokenBucket] = {}

    def wait(self, address: str, now: float) -> float:
        """``TokenBucket.wait`` on ``address``'s meter."""
        meter = self._meters.get(address)
        if meter is None:
            if len(self._meters) >= MAX_METERS:
                self._meters = {a: m for a, m in self._meters.items() if not m.full(now)}
            meter = self._meters[address] = TokenBucket(self.rate, self.burst, now)
        return meter.wait(now)


@dataclass(frozen=True, slots=True)
class Admitted:
    """What ``Admission.admit`` decided: ``refused`` (why, or None: let it in) and
    the connections to close first to make room for it (``evict``, oldest first)."""

    refused: str | None = None
    evict: tuple[Hashable, ...] = field(default=())


class Admission:
    """Who may connect: caps on all connections, on those of one address, and on those
    that have not said ``hello`` yet ("unwelcomed"), overall and per address.

    Connections that never say hello cannot keep a player out: when an address's
    unwelcomed are at their cap, its oldest one is closed to make room for the
    newcomer, who then has the hello timeout to say hello, if it has been silent
    for ``SILENT_AFTER`` seconds; a younger one is not closed (the newcomer is let
    in over the address's cap): a client that says hello at once is not affected,
    however many connect from its address at the same moment. When all the
    unwelcomed are at their overall cap, the oldest one of the address holding
    the most of them is closed if that address is over its own cap, else the
    oldest of all: one address can push out only its own. An address of None
    (not a network connection: tests, in-process) counts against the overall
    caps only.

    >>> gate = Admission(connections=10, per_address=3, unwelcomed=4, unwelcomed_per_address=2)
    >>> [gate.admit(n, "10.0.0.9", now=0.0).refused for n in ("a", "b")]
    [None, None]
    >>> gate.admit("c", "10.0.0.9", now=0.5)  # a third at once: nobody is silent yet
    Admitted(refused=None, evict=())
    >>> gate.gone("c")
    >>> gate.admit("c", "10.0.0.9", now=2.0)  # "a" has been silent for 2 s: it makes room
    Admitted(refused=None, evict=('a',))
    >>> gate.welcomed("b"); gate.welcomed("c")
    >>> gate.admit("d", "10.0.0.9", now=2.0).refused is None
    True
    >>> gate.admit("x", "10.0.0.9", now=2.0).refused
    'too many connections from your address (3)'
    >>> gate.admit("e", "10.0.0.7", now=2.0)
    Admitted(refused=None, evict=())

    The last ``reserved`` connections are kept for addresses that hold fewer than
    ``FEW``, so a few addresses at their cap cannot fill the server; and when the
    server is full, a newcomer from such an address makes room by closing one
    connection of the address that holds the most (``HEAVY`` or more): one that has
    not said hello, else one that ``spare`` says may go (for the server: one at no
    table, the longest quiet first), so many addresses holding a few connections
    each cannot fill the server either:

    >>> gate = Admission(connections=12, per_address=8, unwelcomed=12,
    ...                  unwelcomed_per_address=12, reserved=4)
    >>> [gate.admit(("a", n), "10.0.0.1").refused for n in range(8)].count(None)
    8
    >>> [gate.admit(("b", n), "10.0.0.2").refused for n in range(8)].count(None)
    4
    >>> gate.admit("newcomer", "10.0.0.3").refused  # a's connections are all new
    'the server has as many connections as it allows'
    >>> gate.admit("newcomer", "10.0.0.3", now=2.0)  # now silent for 2 s: one makes room
    Admitted(refused=None, evict=(('a', 0),))

    An address whose connection was closed for flooding waits ``cooldown`` seconds
    before it may connect again (the same wait each time: the flooder's session
    is what waits longer and longer, see ``ResumeMeter``), so that a player
    behind the same address is kept out a moment at most:

    >>> gate.flooded("10.0.0.7", now=100.0), gate.flooded("10.0.0.7", now=101.0)
    (1.0, 1.0)
    >>> gate.cooling("10.0.0.7", now=101.5), gate.cooling("10.0.0.7", now=102.0)
    (0.5, 0.0)
    """

    def __init__(self, connections: int, per_address: int, unwelcomed: int,
                 unwelcomed_per_address: int, cooldown: float = 1.0, reserved: int = 0,
                 spare: Callable[[Hashable], float | None] | None = None) -> None:
        self.connections = connections
        self.reserved = reserved
        self.per_address = per_address
        self.unwelcomed = unwelcomed
        self.unwelcomed_per_address = unwelcomed_per_address
        self.cooldown = cooldown
        #: a welcomed connection: seconds it has been quiet if it may be closed to
        #: make room for a newcomer, None if not (None: no welcomed one may)
        self.spare = spare
        self._cooling: dict[str, float] = {}  # address: refused until
        self._address: dict[Hashable, str | None] = {}  # every connection: its address
        self._count: dict[str, int] = {}  # connections of each address
        self._of: dict[str, dict[Hashable, None]] = {}  # each address's connections, oldest first
        self._waiting: dict[Hashable, float] = {}  # unwelcomed: when admitted, oldest first
        self._waiting_of: dict[str | None, dict[Hashable, float]] = {}  # ... of each address

    def __len__(self) -> int:
        return len(self._address)

    def admit(self, conn: Hashable, address: str | None, now: float = 0.0) -> Admitted:
        """A new connection ``conn`` from ``address`` at ``now``: is it let in, who
        makes room? When it is, it counts as unwelcomed until ``welcomed`` (or
        ``gone``). (An address cooling down after a flood is refused before:
        ``cooling``.)"""
        held = self._count.get(address, 0) if address is not None else 0
        if address is not None and held >= self.per_address:
            return Admitted(f"too many connections from your address ({self.per_address})")
        evict: list[Hashable] = []
        if len(self._address) >= self.connections:
            room = self._room_for_newcomer(now) if held < FEW else None
            if room is None:
                return Admitted("the server has as many connections as it allows")
            evict.append(room)
            self.gone(room)
        elif held >= FEW and len(self._address) >= self.connections - self.reserved:
            return Admitted(f"the server keeps its last {self.reserved} connections for "
                            f"addresses that hold fewer than {FEW}, and yours holds {held}")
        mine = self._waiting_of.get(address, {})
        while address is not None and len(mine) >= self.unwelcomed_per_address:
            old = self._silent(mine, now)
            if old is None:
                break
            evict.append(old)
            self.gone(old)
        if len(self._waiting) >= self.unwelcomed:
            old = self._crowding()
            evict.append(old)
            self.gone(old)
        self._address[conn] = address
        if address is not None:
            self._count[address] = self._count.get(address, 0) + 1
            self._of.setdefault(address, {})[conn] = None
        self._waiting[conn] = now
        self._waiting_of.setdefault(address, {})[conn] = now
        return Admitted(None, tuple(evict))

    @staticmethod
    def _silent(waiting: dict[Hashable, float], now: float) -> Hashable | None:
        """The oldest of ``waiting`` if it has been silent for ``SILENT_AFTER``."""
        for conn, since in waiting.items():
            return conn if now - since >= SILENT_AFTER else None
        return None

    def _crowding(self) -> Hashable:
        """The unwelcomed connection to close when they are at their overall cap: the
        oldest of the address holding the most of them if that is over its own cap
        (young ones, let in at once), so that one address pushes out only its own;
        else the oldest of all."""
        waiting = self._waiting_of
        most = max(waiting, key=lambda a: len(waiting[a]) if a is not None else -1)
        if most is not None and len(waiting[most]) > self.unwelcomed_per_address:
            return next(iter(waiting[most]))
        return next(iter(self._waiting))

    def _room_for_newcomer(self, now: float) -> Hashable | None:
        """A connection that may be closed for a newcomer, of the address that holds
        the most (if ``HEAVY`` or more; the next one if it has none): its oldest
        silent one, else its longest quiet one that ``spare`` allows; None if none."""
        count = self._count
        heavy = (address for address, held in count.items() if held >= HEAVY)
        for address in sorted(heavy, key=count.__getitem__, reverse=True):
            silent = self._silent(self._waiting_of.get(address, {}), now)
            if silent is not None:
                return silent
            if self.spare is None:
                continue
            best, quiet = None, -math.inf
            waiting = self._waiting
            for conn in self._of[address]:
                if conn in waiting:
                    continue
                idle = self.spare(conn)
                if idle is not None and idle > quiet:
                    best, quiet = conn, idle
            if best is not None:
                return best
        return None

    def flooded(self, address: str | None, now: float) -> float:
        """A connection from ``address`` was closed for flooding at ``now``: new
        connections from there are refused for ``cooldown`` seconds. Returns the
        wait (0 for an address of None)."""
        if address is None or self.cooldown <= 0:
            return 0.0
        self._cooling[address] = now + self.cooldown
        if len(self._cooling) > MAX_STRUCK:  # forget the waits that are over
            self._cooling = {a: t for a, t in self._cooling.items() if t > now}
        return self.cooldown

    def cooling(self, address: str | None, now: float) -> float:
        """Seconds until ``address`` may connect again after flooding (0: now)."""
        if address is None or address not in self._cooling:
            return 0.0
        return max(0.0, self._cooling[address] - now)

    def welcomed(self, conn: Hashable) -> None:
        """``conn`` said hello: it no longer counts as unwelcomed."""
        self._unwait(conn)

    def gone(self, conn: Hashable) -> None:
        """``conn`` is closed (nothing happens if it was never admitted, or is gone)."""
        self._unwait(conn)
        if conn not in self._address:
            return
        address = self._address.pop(conn)
        if address is not None:
            left = self._count[address] - 1
            mine = self._of[address]
            del mine[conn]
            if left:
                self._count[address] = left
            else:
                del self._count[address], self._of[address]

    def _unwait(self, conn: Hashable) -> None:
        if conn in self._waiting:
            del self._waiting[conn]
            address = self._address[conn]
            mine = self._waiting_of[address]
            del mine[conn]
            if not mine:
                del self._waiting_of[address]


class ResumeMeter:
    """How often one session may resume (``hello`` with its token): a token bucket of
    ``rate`` a second, ``burst`` at once; and after one of its connections was closed
    for flooding, a cool-down (``cooldown`` seconds, doubled for each further flood
    up to ``cooldown_max``, forgiven ``FORGIVE`` seconds after the last one ended)
    during which it may not resume at all. It belongs to the session, so coming
    back from another address changes nothing, and nobody else waits for it.

    >>> meter = ResumeMeter(rate=0.5, burst=2, now=0.0)
    >>> [meter.wait(0.0) for _ in range(3)]
    [0.0, 0.0, 2.0]
    >>> meter.flooded(1.0, cooldown=1.0, cooldown_max=30.0), meter.wait(1.5)
    (1.0, 0.5)
    >>> meter.flooded(3.0, cooldown=1.0, cooldown_max=30.0), meter.wait(4.0)
    (2.0, 1.0)
    >>> meter.wait(5.0)
    0.0
    """

    __slots__ = ("bucket", "strikes", "until")

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.bucket = TokenBucket(rate, burst, now)
        self.strikes = 0
        self.until = -math.inf  # no resume before this (after a flood)

    def wait(self, now: float) -> float:
        """Seconds until the session may resume (0.0: now, and a resume is counted)."""
        if now < self.until:
            return self.until - now
        return self.bucket.wait(now)

    def flooded(self, now: float, cooldown: float, cooldown_max: float) -> float:
        """One of the session's connections was closed for flooding at ``now``: the
        wait before it may resume (0 if ``cooldown`` is 0)."""
        if cooldown <= 0:
            return 0.0
        if now >= self.until + FORGIVE:
            self.strikes = 0
        wait = min(cooldown_max, cooldown * 2.0 ** self.strikes)
        self.strikes += 1
        self.until = now + wait
        return wait


class LogLimiter:
    """At most ``burst`` log lines of one kind at once and ``rate`` a second: a flood
    of refused connections must not fill the disk with one line each. What was
    left out is counted and said on the next line that is written.

    >>> limiter = LogLimiter(rate=1.0, burst=2)
    >>> [limiter.allow("refused", 0.0) for _ in range(5)]
    [0, 0, None, None, None]
    >>> limiter.allow("refused", 1.0), limiter.allow("other", 1.0)
    (3, 0)
    """

    __slots__ = ("rate", "burst", "_buckets", "_left_out")

    def __init__(self, rate: float = 1.0, burst: int = 5) -> None:
        self.rate = rate
        self.burst = burst
        self._buckets: dict[str, TokenBucket] = {}
        self._left_out: dict[str, int] = {}

    def allow(self, kind: str, now: float) -> int | None:
        """None: leave this line out (it is counted); else write it, and say that
        this many lines of ``kind`` were left out before it."""
        bucket = self._buckets.get(kind)
        if bucket is None:
            bucket = self._buckets[kind] = TokenBucket(self.rate, self.burst, now)
        if bucket.wait(now):
            self._left_out[kind] = self._left_out.get(kind, 0) + 1
            return None
        return self._left_out.pop(kind, 0)


def left_out(count: int) -> str:
    """The tail of a log line after ``count`` lines like it were left out."""
    return f" ({count} more like it not logged)" if count else ""
