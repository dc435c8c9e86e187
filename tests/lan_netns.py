"""A LAN of two machines for the discovery tests (issue 46): two network namespaces,
"server" and "client", joined by a veth pair (10.246.0.1 and 10.246.0.2/24).

Multicast DNS needs an interface with multicast on, and a server never announces on
loopback: so the tests use a real (virtual) link between two namespaces of their own.
That needs root and ``ip`` (iproute2); where either is missing the tests are skipped,
saying why. No traffic leaves the namespaces: they have no route anywhere else.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

SERVER_ADDRESS = "10.246.0.1"
CLIENT_ADDRESS = "10.246.0.2"
_count = itertools.count()


def unavailable() -> str | None:
    """Why two namespaces cannot be made here (None: they can)."""
    if sys.platform != "linux":
        return "network namespaces are Linux's"
    if os.geteuid() != 0:
        return "making network namespaces (ip netns add) needs root"
    if shutil.which("ip") is None:
        return "the ip command (iproute2) is not installed"
    return None


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=10)


@dataclass(frozen=True)
class Lan:
    server_ns: str
    client_ns: str

    def command(self, side: str, argv: Sequence[str]) -> list[str]:
        """``argv`` run inside the ``side`` ("server" or "client") namespace."""
        ns = self.server_ns if side == "server" else self.client_ns
        return ["ip", "netns", "exec", ns, *argv]

    def popen(self, side: str, argv: Sequence[str], **kwargs: object) -> subprocess.Popen[str]:
        return subprocess.Popen(self.command(side, argv), text=True, **kwargs)  # type: ignore[call-overload]

    def run(self, side: str, argv: Sequence[str], timeout: float = 30) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.command(side, argv), capture_output=True, text=True,
                              timeout=timeout)


@contextmanager
def two_machines() -> Iterator[Lan]:
    """Make the two namespaces and their link; remove them afterwards (the caller stops
    its processes in them first)."""
    tag = f"{os.getpid() % 100000}x{next(_count)}"
    lan = Lan(f"nimmt-srv-{tag}", f"nimmt-cli-{tag}")
    made: list[str] = []
    try:
        for ns in (lan.server_ns, lan.client_ns):
            _ip("netns", "add", ns)
            made.append(ns)
        veth_s, veth_c = f"nms{tag}", f"nmc{tag}"
        _ip("link", "add", veth_s, "type", "veth", "peer", "name", veth_c)
        _ip("link", "set", veth_s, "netns", lan.server_ns)
        _ip("link", "set", veth_c, "netns", lan.client_ns)
        for ns, dev, address in ((lan.server_ns, veth_s, SERVER_ADDRESS),
                                 (lan.client_ns, veth_c, CLIENT_ADDRESS)):
            _ip("-n", ns, "addr", "add", f"{address}/24", "dev", dev)
            _ip("-n", ns, "link", "set", dev, "up")
            _ip("-n", ns, "link", "set", "lo", "up")
        yield lan
    finally:
        for ns in made:  # the veth pair goes with them
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=10)


def python(*args: str) -> list[str]:
    return [sys.executable, *args]
