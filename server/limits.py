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
from collections.abc import Hashable
from dataclasses import dataclass, field

__all__ = ["TokenBucket", "AddressMeters", "Admission", "Admitted", "FORGIVE", "FEW", "flooding_text"]


#: seconds after its last cool-down ends before an address's strikes are forgotten
FORGIVE = 300.0
#: an address holding fewer connections than this may use the reserved ones
FEW = 4
#: addresses remembered for flooding before the forgiven ones are pruned
MAX_STRUCK = 4096


def flooding_text(seconds: int) -> str:
    """What a connection refused while its address cools down after a flood is told."""
    return (f"a connection from your address was closed for flooding the server: "
            f"try again in {seconds} s")


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

    Connections that never say hello cannot keep a player out: when the unwelcomed
    are at their cap, the oldest of them (from the same address when that address is
    at its own cap) is closed to make room for the newcomer, who then has the hello
    timeout to say hello. One address can hold at most ``unwelcomed_per_address``
    of them, so it can push out only its own. An address of None (not a network
    connection: tests, in-process) counts against the global caps only.

    >>> gate = Admission(connections=10, per_address=3, unwelcomed=4, unwelcomed_per_address=2)
    >>> [gate.admit(n, "10.0.0.9").refused for n in ("a", "b")]
    [None, None]
    >>> gate.admit("c", "10.0.0.9")  # a third silent one: the oldest makes room
    Admitted(refused=None, evict=('a',))
    >>> gate.gone("a"); gate.welcomed("b"); gate.welcomed("c")
    >>> gate.admit("d", "10.0.0.9").refused is None
    True
    >>> gate.admit("x", "10.0.0.9").refused
    'too many connections from your address (3)'
    >>> gate.admit("e", "10.0.0.7")
    Admitted(refused=None, evict=())

    The last ``reserved`` connections are kept for addresses that hold fewer than
    ``FEW``, so a few addresses at their cap cannot fill the server:

    >>> gate = Admission(connections=12, per_address=6, unwelcomed=12,
    ...                  unwelcomed_per_address=12, reserved=4)
    >>> [gate.admit(("a", n), "10.0.0.1").refused for n in range(6)].count(None)
    6
    >>> [gate.admit(("b", n), "10.0.0.2").refused for n in range(6)].count(None)
    4
    >>> gate.admit("newcomer", "10.0.0.3").refused is None
    True

    An address whose connection was closed for flooding waits before it may
    connect again: 1 s, then 2 s, 4 s, ... (``cooldown``, up to ``cooldown_max``):

    >>> gate.flooded("10.0.0.7", now=100.0), gate.flooded("10.0.0.7", now=101.0)
    (1.0, 2.0)
    >>> gate.cooling("10.0.0.7", now=102.5), gate.cooling("10.0.0.7", now=103.0)
    (0.5, 0.0)
    """

    def __init__(self, connections: int, per_address: int, unwelcomed: int,
                 unwelcomed_per_address: int, cooldown: float = 1.0,
                 cooldown_max: float = 30.0, reserved: int = 0) -> None:
        self.connections = connections
        self.reserved = reserved
        self.per_address = per_address
        self.unwelcomed = unwelcomed
        self.unwelcomed_per_address = unwelcomed_per_address
        self.cooldown = cooldown
        self.cooldown_max = cooldown_max
        self._strikes: dict[str, tuple[int, float]] = {}  # address: (strikes, refused until)
        self._address: dict[Hashable, str | None] = {}  # every connection: its address
        self._count: dict[str, int] = {}  # connections of each address
        self._waiting: dict[Hashable, None] = {}  # unwelcomed, oldest first
        self._waiting_count: dict[str | None, int] = {}  # unwelcomed of each address

    def __len__(self) -> int:
        return len(self._address)

    def admit(self, conn: Hashable, address: str | None) -> Admitted:
        """A new connection ``conn`` from ``address``: is it let in, who makes room?
        When it is, it counts as unwelcomed until ``welcomed`` (or ``gone``). (An
        address cooling down after a flood is refused before: ``cooling``.)"""
        if len(self._address) >= self.connections:
            return Admitted("the server has as many connections as it allows")
        held = self._count.get(address, 0) if address is not None else 0
        if address is not None and held >= self.per_address:
            return Admitted(f"too many connections from your address ({self.per_address})")
        if held >= FEW and len(self._address) >= self.connections - self.reserved:
            return Admitted(f"the server keeps its last {self.reserved} connections for "
                            f"addresses that hold fewer than {FEW}, and yours holds {held}")
        evict: list[Hashable] = []
        if address is not None and self._waiting_count.get(address, 0) >= self.unwelcomed_per_address:
            evict.append(next(c for c in self._waiting if self._address[c] == address))
        elif len(self._waiting) >= self.unwelcomed:
            evict.append(next(iter(self._waiting)))
        for old in evict:
            self._unwait(old)
        self._address[conn] = address
        if address is not None:
            self._count[address] = self._count.get(address, 0) + 1
        self._waiting[conn] = None
        self._waiting_count[address] = self._waiting_count.get(address, 0) + 1
        return Admitted(None, tuple(evict))

    def flooded(self, address: str | None, now: float) -> float:
        """A connection from ``address`` was closed for flooding at ``now``: new
        connections from there are refused for ``cooldown`` seconds, twice as long
        for each further strike, up to ``cooldown_max``; an address that has not
        flooded for ``FORGIVE`` seconds past its last cool-down starts afresh.
        Returns the cool-down (0 for an address of None)."""
        if address is None or self.cooldown <= 0:
            return 0.0
        strikes, until = self._strikes.get(address, (0, -math.inf))
        if now >= until + FORGIVE:
            strikes = 0
        wait = min(self.cooldown_max, self.cooldown * 2.0 ** strikes)
        self._strikes[address] = (strikes + 1, now + wait)
        if len(self._strikes) > MAX_STRUCK:  # forget the forgiven
            self._strikes = {a: v for a, v in self._strikes.items() if now < v[1] + FORGIVE}
        return wait

    def cooling(self, address: str | None, now: float) -> float:
        """Seconds until ``address`` may connect again after flooding (0: now)."""
        if address is None or address not in self._strikes:
            return 0.0
        return max(0.0, self._strikes[address][1] - now)

    def welcomed(self, conn: Hashable) -> None:
        """``conn`` said hello: it no longer counts as unwelcomed."""
        self._unwait(conn)

    def gone(self, conn: Hashable) -> None:
        """``conn`` is closed (nothing happens if it was never admitted)."""
        self._unwait(conn)
        if conn not in self._address:
            return
        address = self._address.pop(conn)
        if address is not None:
            left = self._count[address] - 1
            if left:
                self._count[address] = left
            else:
                del self._count[address]

    def _unwait(self, conn: Hashable) -> None:
        if conn in self._waiting:
            del self._waiting[conn]
            address = self._address[conn]
            left = self._waiting_count[address] - 1
            if left:
                self._waiting_count[address] = left
            else:
                del self._waiting_count[address]
