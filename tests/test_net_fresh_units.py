"""Survivors of a fresh mutation sample of server/net/ (issue 43, seed 25), each
pinned as the behaviour someone would notice. Nothing here touches the machine's
interfaces: the kernel's side of an ioctl is a stand-in."""

from __future__ import annotations

import socket
import struct
from typing import Any

import pytest

import nimmt.server.net.addresses as addresses


class FakeKernel:
    """SIOCGIFADDR as Linux answers it: the request's first 16 bytes are the interface
    name, NUL-terminated (IFNAMSIZ); an unknown name is an OSError (ENODEV)."""

    def __init__(self, interfaces: dict[str, str]) -> None:
        self.interfaces = interfaces
        self.asked: list[bytes] = []

    def ioctl(self, fd: int, request: int, arg: bytes) -> bytes:
        assert request == addresses.SIOCGIFADDR
        assert len(arg) == 256
        self.asked.append(arg[:16])
        name = arg[:16].split(b"\0", 1)[0].decode()
        if arg[15] != 0 or name not in self.interfaces:
            raise OSError(19, "No such device")
        addr = socket.inet_aton(self.interfaces[name])
        return arg[:16] + struct.pack("=H", socket.AF_INET) + b"\0\0" + addr + bytes(232)


@pytest.fixture
def kernel(monkeypatch: pytest.MonkeyPatch) -> FakeKernel:
    import fcntl

    fake = FakeKernel({"lo": "127.0.0.1", "enx00e04c680a1b": "192.168.7.42",
                       "wlp0s20f3": "10.0.0.5"})
    names = list(fake.interfaces) + ["docker0"]  # docker0: no IPv4 address here
    monkeypatch.setattr(addresses.socket, "if_nameindex",
                        lambda: [(i + 1, n) for i, n in enumerate(names)])
    monkeypatch.setattr(fcntl, "ioctl", fake.ioctl)
    return fake


def test_an_interface_name_of_the_longest_length_15_bytes_is_asked_whole(kernel: FakeKernel):
    # USB Ethernet adapters are named "enx" and their MAC: 15 bytes, the most Linux allows
    assert len("enx00e04c680a1b") == 15
    assert addresses._interface_addresses() == ["127.0.0.1", "192.168.7.42", "10.0.0.5"]
    assert kernel.asked[1] == b"enx00e04c680a1b\0"
    assert kernel.asked == [b"lo" + bytes(14), b"enx00e04c680a1b\0",
                            b"wlp0s20f3" + bytes(7), b"docker0" + bytes(9)]


def test_the_lan_addresses_include_one_on_an_interface_of_a_15_byte_name(
        kernel: FakeKernel, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(addresses.socket, "getaddrinfo", lambda *a, **k: [])
    assert addresses.lan_addresses() == ["192.168.7.42", "10.0.0.5"]
