"""Where the server says it can be reached (issue 43): the LAN addresses found (never
loopback, never the wildcard, each once, in the order found) and the line printed at
start that tells players what to type."""

from __future__ import annotations

import doctest
import shutil
import socket
import subprocess
from typing import Any

import pytest

import nimmt.server.net.addresses as addresses
from nimmt.server.net.addresses import every_interface, join_hint, lan_addresses


def _infos(*found: str) -> list[Any]:
    return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, 0)) for a in found]


def test_the_interfaces_are_read_from_the_kernel_with_loopback_among_them():
    # every Linux machine (and network namespace) of the tests has lo up at 127.0.0.1
    found = addresses._interface_addresses()
    assert "127.0.0.1" in found
    assert all(socket.inet_aton(a) for a in found)


@pytest.mark.skipif(shutil.which("ip") is None, reason="needs iproute2's ip")
def test_every_interface_with_an_ipv4_address_is_found_also_after_one_without():
    # the kernel's own list (iproute2): each interface's first IPv4 address
    lines = subprocess.run(["ip", "-o", "-4", "addr", "show"], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    expected: dict[str, str] = {}
    for line in lines:
        fields = line.split()
        expected.setdefault(fields[1], fields[3].split("/")[0])
    assert sorted(addresses._interface_addresses()) == sorted(expected.values())


def test_the_lan_addresses_leave_out_loopback_and_the_wildcard_and_keep_the_first_order(
        monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(addresses, "_interface_addresses",
                        lambda: ["127.0.0.1", "192.168.1.20", "0.0.0.0", "10.0.0.5"])
    monkeypatch.setattr(addresses.socket, "getaddrinfo",
                        lambda *a, **k: _infos("127.0.1.1", "10.0.0.5", "172.16.0.9",
                                               "192.168.1.20", "127.5.5.5"))
    assert lan_addresses() == ["192.168.1.20", "10.0.0.5", "172.16.0.9"]


def test_a_host_name_that_does_not_resolve_leaves_the_interfaces(monkeypatch: pytest.MonkeyPatch):
    def fails(*args: Any, **kwargs: Any) -> Any:
        raise socket.gaierror("no such host")

    monkeypatch.setattr(addresses, "_interface_addresses", lambda: ["10.1.2.3"])
    monkeypatch.setattr(addresses.socket, "getaddrinfo", fails)
    assert lan_addresses() == ["10.1.2.3"]


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "", "*"])
def test_a_server_on_every_interface_names_each_lan_address(monkeypatch: pytest.MonkeyPatch,
                                                            host: str):
    monkeypatch.setattr(addresses, "lan_addresses", lambda: ["192.168.1.20", "10.0.0.5"])
    assert join_hint(host, 6066) == (
        f"nimmt-server listening on {host}:6066 — players join with: "
        "nimmt-client 192.168.1.20:6066 or nimmt-client 10.0.0.5:6066")


def test_a_server_on_every_interface_of_a_machine_without_lan_names_the_host(
        monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(addresses, "lan_addresses", lambda: [])
    monkeypatch.setattr(addresses.socket, "gethostname", lambda: "kitchen")
    assert join_hint("0.0.0.0", 7000) == (
        "nimmt-server listening on 0.0.0.0:7000 — players join with: nimmt-client kitchen:7000")


def test_a_server_on_one_address_names_that_address_only(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(addresses, "lan_addresses", lambda: ["192.168.1.20"])
    assert join_hint("10.0.0.5", 7000) == (
        "nimmt-server listening on 10.0.0.5:7000 — players join with: nimmt-client 10.0.0.5:7000")
    assert join_hint("127.0.0.1", 7000).endswith("join with: nimmt-client 127.0.0.1:7000")


def test_every_interface_is_each_spelling_of_the_wildcard_and_nothing_else() -> None:
    assert [every_interface(h) for h in ("", " ", "*", "0.0.0.0", " ::", "::")] == [True] * 6
    assert [every_interface(h) for h in ("127.0.0.1", "10.0.0.5", "::1", "**", "localhost")] \
        == [False] * 5
    assert doctest.testmod(addresses).failed == 0
