"""Where the server can be reached: this machine's LAN addresses and the join hint."""

from __future__ import annotations

import socket
import struct

__all__ = ["lan_addresses", "join_hint", "every_interface"]

#: the ioctl that reads an interface's address. Never mutated (tools/mutate.py leaves
#: out a line marked so): 0x8915 - 1 is SIOCSIFFLAGS, which, run as root with the
#: zeroed request below, took every interface of the machine down
SIOCGIFADDR = 0x8915  # pragma: no mutate


def _interface_addresses() -> list[str]:
    """IPv4 addresses of the network interfaces (Linux: SIOCGIFADDR; nothing is sent)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not a Unix
        return []
    found = []
    try:
        names = [name for _, name in socket.if_nameindex()]
    except OSError:  # pragma: no cover
        return []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for name in names:
            try:
                packed = fcntl.ioctl(sock.fileno(), SIOCGIFADDR,
                                     struct.pack("256s", name.encode()[:15]))
            except OSError:
                continue  # no IPv4 address (or not Linux)
            found.append(socket.inet_ntoa(packed[20:24]))
    return found


def lan_addresses() -> list[str]:
    """This machine's non-loopback IPv4 addresses, found without sending anything."""
    candidates = _interface_addresses()
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        infos = []
    candidates += [info[4][0] for info in infos if isinstance(info[4][0], str)]
    found: list[str] = []
    for address in candidates:
        if not address.startswith("127.") and address != "0.0.0.0" and address not in found:
            found.append(address)
    return found


def every_interface(host: str) -> bool:
    """Whether the server's ``host`` setting listens on every interface.

    >>> [every_interface(h) for h in ("", "*", " 0.0.0.0", "::", "127.0.0.1")]
    [True, True, True, True, False]
    """
    return host.strip() in ("", "*", "0.0.0.0", "::")


def join_hint(host: str, port: int) -> str:
    """The line printed at start: where the server listens and how others join."""
    if every_interface(host):
        targets = lan_addresses() or [socket.gethostname()]
    else:
        targets = [host]
    joins = " or ".join(f"nimmt-client {t}:{port}" for t in targets)
    return f"nimmt-server listening on {host}:{port} — players join with: {joins}"
