"""Find nimmt servers on the LAN: browse multicast DNS for ``_nimmt._tcp.local.``.

Servers announce themselves (docs/SERVER.md, "Found on the LAN"); ``find_servers``
listens for about ``LOOK_FOR`` seconds and returns what it found, checked.

An announcement is untrusted input from the network: anyone on the LAN may send
one, malformed, oversized or lying. ``parse_record`` keeps a record only if every
field is sane (a port of 1 to 65535, an IPv4 address another machine can have, a
name with something printable in it, a protocol version we speak) and trims what it
keeps; ``shown`` caps how many are listed, and how many one address may fill, so
that a flood from one sender can neither hang the client nor push a real server
off the list. The browsing itself runs in a thread (the ``zeroconf`` library's own
threads and blocking calls), never on the caller's event loop.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import threading
import time
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nimmt.protocol import SUPPORTED_VERSIONS

from .net import format_address

__all__ = [
    "SERVICE_TYPE",
    "LOOK_FOR",
    "FoundServer",
    "parse_record",
    "shown",
    "listing",
    "found_line",
    "look",
    "find_servers",
]

log = logging.getLogger("nimmt.client")

SERVICE_TYPE = "_nimmt._tcp.local."
#: Seconds ``nimmt-client`` listens for announcements.
LOOK_FOR = 2.0
#: Service names looked at in one search: beyond, a flood is ignored.
MAX_NAMES = 20_000
#: Servers listed at most, and at most this many announced with one address.
MAX_SHOWN = 32
MAX_PER_ADDRESS = 4
#: Longest name shown, and the largest TXT record read (a real one is ~30 bytes).
MAX_NAME = 40
MAX_TXT = 512
#: Seconds spent at most asking for records that were not announced in full.
RESOLVE_BUDGET = 1.0
MAX_RESOLVED = 8
#: The largest count believed in a summary (a larger one is a lie: not shown).
MAX_COUNT = 100_000


@dataclass(frozen=True, slots=True)
class FoundServer:
    """A server found on the LAN, as its announcement says (checked)."""

    name: str
    host: str  # an IPv4 address
    port: int
    tables_waiting: int | None  # None: the announcement did not say (or said nonsense)
    players: int | None
    versions: tuple[int, ...]

    @property
    def address(self) -> str:
        return format_address(self.host, self.port)

    def describe(self) -> str:
        """``Ann's party  192.168.1.20:6066  1 table waiting, 3 players``."""
        parts = []
        if self.tables_waiting is not None:
            s = "" if self.tables_waiting == 1 else "s"
            parts.append(f"{self.tables_waiting} table{s} waiting")
        if self.players is not None:
            s = "" if self.players == 1 else "s"
            parts.append(f"{self.players} player{s}")
        return f"{self.name}  {self.address}" + (f"  {', '.join(parts)}" if parts else "")


def _clean(text: str) -> str:
    kept = "".join(ch for ch in text if unicodedata.category(ch)[0] != "C")
    return " ".join(kept.split())[:MAX_NAME].strip()


def _count(value: bytes | None) -> int | None:
    if value is None or not 1 <= len(value) <= 6 or not value.isdigit():
        return None
    number = int(value)
    return number if number <= MAX_COUNT else None


def _versions(value: bytes | None) -> tuple[int, ...]:
    if value is None or len(value) > 64:
        return ()
    found = []
    for part in value.split(b","):
        part = part.strip()
        if part.isdigit() and len(part) <= 4:
            found.append(int(part))
    return tuple(v for v in sorted(set(found)) if v in SUPPORTED_VERSIONS)


def _usable_address(text: str) -> bool:
    try:
        address = ipaddress.IPv4Address(text)
    except ValueError:
        return False
    # another machine cannot be at these: a record saying so lies
    return not (address.is_loopback or address.is_unspecified or address.is_multicast
                or address == ipaddress.IPv4Address("255.255.255.255"))


def parse_record(instance: str, port: Any, addresses: Sequence[str],
                 properties: Mapping[Any, Any], txt_size: int = 0) -> FoundServer | None:
    """The server a resolved announcement describes, or None if it is not fit to show.

    ``instance``: the service's full name (``Name._nimmt._tcp.local.``); ``port`` and
    ``addresses`` from its SRV and A records; ``properties`` its TXT record's keys and
    values (bytes), ``txt_size`` that record's size in bytes.

    >>> parse_record("Ann._nimmt._tcp.local.", 6066, ["192.168.1.20"],
    ...              {b"v": b"1,2", b"tables": b"1", b"players": b"3"}).describe()
    'Ann  192.168.1.20:6066  1 table waiting, 3 players'
    >>> parse_record("Ann._nimmt._tcp.local.", 0, ["192.168.1.20"], {b"v": b"2"}) is None
    True
    """
    if not instance.lower().endswith("." + SERVICE_TYPE):
        return None
    name = _clean(instance[: -len(SERVICE_TYPE) - 1])
    if not name:
        return None
    if type(port) is not int or not 1 <= port <= 65535:
        return None
    host = next((a for a in addresses[:16] if isinstance(a, str) and _usable_address(a)), None)
    if host is None:
        return None
    if txt_size > MAX_TXT or len(properties) > 16:
        return None
    props = {k: v for k, v in properties.items()
             if isinstance(k, bytes) and (v is None or isinstance(v, bytes))}
    versions = _versions(props.get(b"v"))
    if not versions:  # not a nimmt server we can talk to
        return None
    return FoundServer(name=name, host=host, port=port,
                       tables_waiting=_count(props.get(b"tables")),
                       players=_count(props.get(b"players")), versions=versions)


def shown(found: Iterable[FoundServer]) -> list[FoundServer]:
    """The servers to list: one per address and port, at most ``MAX_PER_ADDRESS`` per
    address and ``MAX_SHOWN`` in all, in order of name, then address. Two servers of
    the same name are both listed: their addresses tell them apart.

    >>> a = FoundServer("Ann", "10.0.0.2", 6066, 0, 0, (2,))
    >>> b = FoundServer("Ann", "10.0.0.3", 6066, 0, 0, (2,))
    >>> [s.address for s in shown([b, a, a])]
    ['10.0.0.2:6066', '10.0.0.3:6066']
    """
    ordered = sorted(found, key=lambda s: (s.name.casefold(), s.name,
                                           ipaddress.IPv4Address(s.host), s.port))
    seen: set[tuple[str, int]] = set()
    per_address: dict[str, int] = {}
    kept: list[FoundServer] = []
    for server in ordered:
        if (server.host, server.port) in seen or per_address.get(server.host, 0) >= MAX_PER_ADDRESS:
            continue
        seen.add((server.host, server.port))
        per_address[server.host] = per_address.get(server.host, 0) + 1
        kept.append(server)
        if len(kept) >= MAX_SHOWN:
            break
    return kept


def listing(found: Sequence[FoundServer]) -> list[str]:
    """``nimmt-client --find``'s lines, for scripts: address, name, tables waiting and
    players, separated by tabs (a count not announced: ``-``)."""
    def count(n: int | None) -> str:
        return "-" if n is None else str(n)

    return [f"{s.address}\t{s.name}\t{count(s.tables_waiting)}\t{count(s.players)}"
            for s in found]


def found_line(found: Sequence[FoundServer], most: int = 3) -> str:
    """The lobby's one line about what a look found (``F``).

    >>> found_line([FoundServer("Ann", "10.0.0.2", 6066, 1, 3, (2,))])
    'On the LAN: Ann  10.0.0.2:6066  1 table waiting, 3 players. To play there: quit, nimmt-client ADDRESS'
    """
    if not found:
        return "No nimmt server found on the LAN (is multicast blocked?)"
    more = f"; {len(found) - most} more: nimmt-client --find" if len(found) > most else ""
    return ("On the LAN: " + " · ".join(s.describe() for s in found[:most]) + more
            + ". To play there: quit, nimmt-client ADDRESS")


def _resolve(zc: Any, names: Sequence[str], deadline: float) -> list[FoundServer]:
    """Check each name's records as the cache holds them (an announcement brings them
    all); ask for a few that came incomplete, within the deadline."""
    from zeroconf import ServiceInfo

    found: list[FoundServer] = []
    asked = 0
    for name in names:
        try:
            info = ServiceInfo(SERVICE_TYPE, name)
            complete = info.load_from_cache(zc)
            if not complete and asked < MAX_RESOLVED:
                left = deadline - time.monotonic()
                if left > 0.05:
                    asked += 1
                    complete = info.request(zc, int(left * 1000))
            if not complete:
                continue
            text = info.text or b""
            server = parse_record(name, info.port, info.parsed_addresses(), info.properties,
                                  len(text))
        except Exception:  # noqa: BLE001 - a record zeroconf itself cannot read
            log.debug("unreadable announcement %r", name[:100], exc_info=True)
            continue
        if server is not None:
            found.append(server)
    return found


def look(seconds: float = LOOK_FOR, *, interfaces: Any = None) -> list[FoundServer]:
    """Listen for announcements for ``seconds`` (blocking: run it in a thread) and
    return the servers to list (``shown``). Raises ``OSError`` if this machine cannot
    do multicast at all."""
    from zeroconf import InterfaceChoice, IPVersion, ServiceBrowser, ServiceStateChange, Zeroconf

    names: dict[str, None] = {}  # in the order they came
    lock = threading.Lock()

    def seen(zeroconf: Any, service_type: str, name: str,
             state_change: ServiceStateChange) -> None:
        with lock:
            if state_change is ServiceStateChange.Removed:
                names.pop(name, None)
            elif len(names) < MAX_NAMES and isinstance(name, str) and len(name) <= 300:
                names[name] = None

    zc = Zeroconf(interfaces=interfaces or InterfaceChoice.All, ip_version=IPVersion.V4Only)
    try:
        browser = ServiceBrowser(zc, SERVICE_TYPE, handlers=[seen])
        try:
            time.sleep(seconds)
        finally:
            browser.cancel()
        with lock:
            found_names = list(names)
        return shown(_resolve(zc, found_names, time.monotonic() + RESOLVE_BUDGET))
    finally:
        zc.close()


async def find_servers(seconds: float = LOOK_FOR) -> list[FoundServer]:
    """``look`` from asyncio code; a machine without multicast finds nothing."""
    try:
        return await asyncio.to_thread(look, seconds)
    except OSError as exc:
        log.info("cannot look for servers on the LAN: %s", exc)
        return []
