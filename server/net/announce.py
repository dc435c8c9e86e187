"""The server announces itself on the LAN: DNS-SD over multicast DNS (docs/SERVER.md).

A client that looks (``nimmt-client`` without an address) finds a service of type
``_nimmt._tcp.local.``: the server's name, the address and port it listens on, and
a TXT record with the protocol versions it speaks and a summary (tables waiting for
players, players online). The summary is kept current, but sent again at most once
every ``UPDATE_INTERVAL`` seconds (``UpdatePacer``): a busy lobby must not flood the
network with multicast.

The decisions (which addresses, what the TXT says, when to send again) are plain
functions; ``Announcer`` only runs the ``zeroconf`` library, whose thread-based API
blocks, from ``trio.to_thread`` so that the trio loop never waits on the network.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import trio

__all__ = [
    "SERVICE_TYPE",
    "UPDATE_INTERVAL",
    "Summary",
    "UpdatePacer",
    "Announcer",
    "announce_addresses",
    "default_server_name",
    "txt_properties",
]

log = logging.getLogger("nimmt.server")

#: The DNS-SD service type of a nimmt server (clients browse for it).
SERVICE_TYPE = "_nimmt._tcp.local."
#: At most one update of the summary in this many seconds.
UPDATE_INTERVAL = 5.0
#: How often the summary is looked at (cheap: two counts).
LOOK_INTERVAL = 1.0
#: The longest server name (a DNS label holds 63 bytes: a name must also fit that).
MAX_NAME = 40

_WILDCARDS = ("", "*", "0.0.0.0", "::")


@dataclass(frozen=True, slots=True)
class Summary:
    """What the announcement says about the server's lobby."""

    tables_waiting: int  # open tables that have not started (seats to take)
    players: int  # connections that said hello


def announce_addresses(host: str, resolved: Sequence[str], lan: Sequence[str]) -> list[str]:
    """The IPv4 addresses to announce on, for a server listening on ``host``.

    ``resolved``: ``host``'s own IPv4 addresses (a literal: itself); ``lan``: the
    machine's non-loopback IPv4 addresses. A wildcard host (every interface) is
    announced on the LAN addresses; a host on loopback only, never: nobody else
    could connect to it.

    >>> announce_addresses("0.0.0.0", [], ["192.168.1.20", "10.0.0.5"])
    ['192.168.1.20', '10.0.0.5']
    >>> announce_addresses("127.0.0.1", ["127.0.0.1"], ["192.168.1.20"])
    []
    >>> announce_addresses("192.168.1.20", ["192.168.1.20"], ["192.168.1.20"])
    ['192.168.1.20']
    """
    candidates = list(lan) if host.strip() in _WILDCARDS else list(resolved)
    found: list[str] = []
    for text in candidates:
        try:
            address = ipaddress.IPv4Address(text)
        except ValueError:
            continue
        if address.is_loopback or address.is_unspecified or address.is_multicast:
            continue
        if text not in found:
            found.append(text)
    return found


def clean_name(text: str) -> str:
    """``text`` without control or format characters, trimmed, at most ``MAX_NAME``
    characters and 63 bytes of UTF-8 (one DNS label), without dots."""
    kept = "".join(ch for ch in text if unicodedata.category(ch)[0] != "C" and ch != ".")
    name = " ".join(kept.split())[:MAX_NAME]
    while len(name.encode()) > 63:
        name = name[:-1]
    return name.strip()


def default_server_name() -> str:
    """The host name (its first label), or "nimmt" if it has none fit to show."""
    return clean_name(socket.gethostname().partition(".")[0]) or "nimmt"


def txt_properties(versions: Sequence[int], summary: Summary) -> dict[str, str]:
    """The TXT record: ``v`` the protocol versions (``1,2``), ``tables`` the tables
    waiting for players, ``players`` the players online.

    >>> txt_properties((1, 2), Summary(tables_waiting=3, players=7))
    {'v': '1,2', 'tables': '3', 'players': '7'}
    """
    return {"v": ",".join(str(v) for v in versions), "tables": str(summary.tables_waiting),
            "players": str(summary.players)}


class UpdatePacer:
    """When to send the summary again: only when it changed, and at most once every
    ``interval`` seconds (a change within it waits for its end; the latest summary is
    the one sent). Time is the caller's (any monotonic clock)."""

    def __init__(self, first: Summary, now: float, interval: float = UPDATE_INTERVAL) -> None:
        self.interval = interval
        self.sent = first
        self.sent_at = now

    def due(self, summary: Summary, now: float) -> bool:
        """True: send ``summary`` now (and it is taken as sent)."""
        if summary == self.sent or now < self.sent_at + self.interval:
            return False
        self.sent = summary
        self.sent_at = now
        return True


class Announcer:
    """Runs the announcement of one server: ``run`` registers it and keeps its summary
    current until cancelled; then the announcement is withdrawn (goodbye packets)."""

    def __init__(self, name: str, port: int, addresses: Sequence[str],
                 versions: Sequence[int], summary: Callable[[], Summary]) -> None:
        self.name = name
        self.port = port
        self.addresses = list(addresses)
        self.versions = tuple(versions)
        self.summary = summary
        self.announced_as: str | None = None  # the name registered (zeroconf may add " (2)")
        self._scope: trio.CancelScope | None = None
        self._done = trio.Event()

    def _info(self, summary: Summary, name: str) -> Any:
        from zeroconf import ServiceInfo

        return ServiceInfo(
            SERVICE_TYPE, f"{name}.{SERVICE_TYPE}", port=self.port,
            addresses=[socket.inet_aton(a) for a in self.addresses],
            properties=txt_properties(self.versions, summary),
            server=f"{default_server_name().replace(' ', '-')}.local.",
        )

    async def run(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        try:
            self._scope = trio.CancelScope()
            task_status.started()
            with self._scope:
                await self._run()
        finally:
            self._done.set()

    async def _run(self) -> None:
        from zeroconf import IPVersion, Zeroconf

        try:
            zc = await trio.to_thread.run_sync(
                lambda: Zeroconf(interfaces=self.addresses, ip_version=IPVersion.V4Only))
        except Exception as e:  # noqa: BLE001 - no multicast here: the server serves on
            log.warning("cannot announce on the LAN (%s): players must type the address", e)
            return
        try:
            now = trio.current_time()
            pacer = UpdatePacer(self.summary(), now)
            info = self._info(pacer.sent, self.name)
            await trio.to_thread.run_sync(
                lambda: zc.register_service(info, allow_name_change=True))
            self.announced_as = info.name[: -len(SERVICE_TYPE) - 1]
            log.info("announced on the LAN as %r (%s) on %s", self.announced_as, SERVICE_TYPE,
                     ", ".join(self.addresses))
            while True:
                await trio.sleep(LOOK_INTERVAL)
                summary = self.summary()
                if pacer.due(summary, trio.current_time()):
                    info = self._info(summary, self.announced_as)
                    await trio.to_thread.run_sync(zc.update_service, info)
        except Exception as e:  # noqa: BLE001 - the announcement is a convenience
            log.warning("the LAN announcement failed (%s): players must type the address", e)
        finally:
            with trio.CancelScope(shield=True):
                # closing unregisters: clients are told the server is gone
                await trio.to_thread.run_sync(zc.close)

    async def withdraw(self) -> None:
        """Withdraw the announcement and return when it is done."""
        if self._scope is not None:
            self._scope.cancel()
            await self._done.wait()
