"""Survivors of a fresh mutation sample of server/net/ (issue 43, seed 25), each
pinned as the behaviour someone would notice. Nothing here touches the machine's
interfaces: the kernel's side of an ioctl is a stand-in."""

from __future__ import annotations

import socket
import struct

import pytest
import trio
from test_net_connection_units import BAD_FRAME, FakeServer, Peer, run

import nimmt.server.net.addresses as addresses
from nimmt import protocol as P
from nimmt.server.net.connection import PLAIN_ENTROPY_REFUSED, ClientConnection


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


# ------------------------------------------------------------------ one connection
# (the stand-in lobby, memory streams and mock clock of tests/test_net_connection_units.py)
ENTROPY = "ab" * 16


def test_a_client_that_says_hello_after_the_first_ping_interval_is_still_pinged_later():
    # the heartbeat skips a connection that has not said hello yet, and must not stop there
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await trio.sleep(15.0)
        assert isinstance(await peer.hello(), P.Welcome)
        assert await peer.recv() == P.Ping(nonce=1)
        assert peer.times[-1] == 25.0  # 10 s after the welcome, the last thing either sent
        assert await peer.rest() == [P.Goodbye(reason="timeout",
                                               message="no answer to a ping within 4 s")]
        assert peer.times[-1] == 29.0

    run(test, ping_interval=10.0, hello_timeout=30.0, pong_timeout=4.0)


def test_nineteen_invalid_frames_before_the_hello_leave_the_connection_open_the_20th_closes():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.raw(BAD_FRAME * 19)
        for _ in range(19):
            error = await peer.recv()
            assert isinstance(error, P.Error) and error.code == "bad_msgpack"
        await trio.sleep(1.0)
        assert not conn.closing
        await peer.raw(BAD_FRAME)
        rest = await peer.rest()
        assert [m.TYPE for m in rest] == ["error", "goodbye"]
        assert rest[-1] == P.Goodbye(reason="protocol_error", message="20 invalid frames in a row")

    run(test)


def test_chat_counts_against_the_request_rate_like_any_request():
    # every request but a game decision and the hello spends a token, whatever its type
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        for i in range(3):
            await peer.send(P.Chat(text=f"hi {i}", id=10 + i))
        await peer.send(P.ListTables(id=13))
        await peer.send(P.Chat(text="one too many", id=14))
        assert await peer.recv() == P.Error(
            code=P.ErrorCode.RATE_LIMITED,
            message="more than 2 messages a second: messages are dropped")
        assert [m.id for _, m in server.lobby.requests] == [10, 11, 12, 13]

    run(test, rate_limit=2)


def test_a_version_4_join_with_entropy_in_the_clear_is_refused_before_the_lobby():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        await peer.send(P.Join(table_id="t1", entropy=ENTROPY, id=2))
        await peer.send(P.Join(table_id="t1", entropy_hash="0" * 64, id=3))
        assert await peer.recv() == P.Error(code=P.ErrorCode.OUT_OF_RANGE, field="entropy",
                                            request="join", re=2, message=PLAIN_ENTROPY_REFUSED)
        await trio.sleep(0.1)
        assert [m.id for _, m in server.lobby.requests] == [3]

    run(test)


def test_version_3_join_with_entropy_in_the_clear_goes_to_the_lobby_as_released():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.send(P.Hello(protocol=3, name="Old", kind="human", id=1))
        assert isinstance(await peer.recv(), P.Welcome)
        await peer.send(P.Join(table_id="t1", entropy=ENTROPY, id=2))
        await trio.sleep(0.1)
        assert [(m.id, m.entropy) for _, m in server.lobby.requests] == [(2, ENTROPY)]

    run(test)
