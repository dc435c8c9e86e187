"""The LAN announcement without the network (issue 43): the addresses announced on,
the name shown, and what ``Announcer`` registers, updates and withdraws, against a
stand-in for the zeroconf library's network object (its ``ServiceInfo`` is the real
one). The rest: tests/test_lan_records.py, tests/test_lan_netns.py."""

from __future__ import annotations

import logging
from typing import Any

import pytest
import trio
import trio.testing

import nimmt.server.net.announce as announce
from nimmt.server.net.announce import (
    SERVICE_TYPE,
    Announcer,
    Summary,
    announce_addresses,
    clean_name,
    default_server_name,
)

LAN = ["192.168.1.20", "10.0.0.5"]


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "", "*", " 0.0.0.0 "])
def test_a_server_on_every_interface_is_announced_on_the_lan_addresses(host: str):
    assert announce_addresses(host, ["203.0.113.9"], LAN) == LAN


def test_only_addresses_another_machine_can_reach_are_announced_each_once():
    resolved = ["127.0.1.1", "0.0.0.0", "224.0.0.251", "fe80::1", "not an address",
                "10.0.0.5", "10.0.0.5", "192.168.1.20"]
    assert announce_addresses("myhost", resolved, []) == ["10.0.0.5", "192.168.1.20"]
    assert announce_addresses("0.0.0.0", [], ["239.1.2.3", "192.168.1.20"]) == ["192.168.1.20"]


def test_the_name_shown_is_trimmed_to_40_characters_and_one_dns_label():
    assert clean_name("a" * 50) == "a" * 40
    assert clean_name("Ann\u200b's   party\tnight  out") == "Ann's partynight out"  # \t: a control
    assert clean_name("x" * 39 + " yz") == "x" * 39  # the space before the cut goes too
    # 40 characters of two bytes are 80 bytes: cut to the 31 that fit in 63
    assert clean_name("é" * 40) == "é" * 31
    assert clean_name("€" * 30) == "€" * 21  # three bytes each: 63 exactly


def test_the_default_name_is_the_host_names_first_label(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(announce.socket, "gethostname", lambda: "kitchen.lan.example")
    assert default_server_name() == "kitchen"
    monkeypatch.setattr(announce.socket, "gethostname", lambda: "\x01.lan")
    assert default_server_name() == "nimmt"


class FakeZeroconf:
    """The network side of zeroconf: what was registered, updated, closed."""

    made: list[FakeZeroconf] = []
    fail_on: str = ""

    def __init__(self, interfaces: Any, ip_version: Any) -> None:
        if self.fail_on == "start":
            raise OSError("no multicast here")
        self.interfaces = interfaces
        self.calls: list[tuple[str, Any]] = []
        FakeZeroconf.made.append(self)

    def register_service(self, info: Any, allow_name_change: bool = False) -> None:
        assert allow_name_change
        # another server has the name: zeroconf renames this one
        info.name = info.name.replace(".", " (2).", 1)
        self.calls.append(("register", (trio.current_time(), info)))

    def update_service(self, info: Any) -> None:
        if self.fail_on == "update":
            raise OSError("network down")
        self.calls.append(("update", (trio.current_time(), info)))

    def close(self) -> None:
        self.calls.append(("close", trio.current_time()))


@pytest.fixture
def fake_network(monkeypatch: pytest.MonkeyPatch) -> type[FakeZeroconf]:
    import zeroconf

    async def in_this_thread(fn: Any, *args: Any, **kwargs: Any) -> Any:
        # as trio.to_thread.run_sync: a cancelled caller's call does not start
        await trio.lowlevel.checkpoint_if_cancelled()
        return fn(*args)

    FakeZeroconf.made = []
    FakeZeroconf.fail_on = ""
    monkeypatch.setattr(zeroconf, "Zeroconf", FakeZeroconf)
    monkeypatch.setattr(announce.trio.to_thread, "run_sync", in_this_thread)
    monkeypatch.setattr(announce.socket, "gethostname", lambda: "kitchen pc.lan")
    return FakeZeroconf


def _props(info: Any) -> dict[bytes, bytes]:
    return dict(info.properties)


def test_the_announcer_registers_then_sends_changes_at_most_every_5_seconds_then_withdraws(
        fake_network: type[FakeZeroconf]):
    now = {"summary": (1, 2)}

    async def main() -> None:
        # a new Summary at each look, as the server's (equal to the last one sent, or not)
        announcer = Announcer("Ann", 7000, LAN, (1, 2), lambda: Summary(*now["summary"]))
        async with trio.open_nursery() as nursery:
            await nursery.start(announcer.run)
            await trio.sleep(0.5)
            [zc] = fake_network.made
            assert zc.interfaces == LAN
            [(kind, (at, info))] = zc.calls
            assert (kind, at) == ("register", 0.0)
            assert (info.type, info.port, info.parsed_addresses()) == (SERVICE_TYPE, 7000, LAN)
            assert info.server == "kitchen-pc.local."  # the host name, a space made "-"
            assert _props(info) == {b"v": b"1,2", b"tables": b"1", b"players": b"2"}
            assert announcer.announced_as == "Ann (2)"  # the name zeroconf gave it
            now["summary"] = (0, 3)
            await trio.sleep(4.3)  # 4.8 s: not yet 5 s since the registration
            assert [c[0] for c in zc.calls] == ["register"]
            await trio.sleep(0.5)  # 5.3 s: sent at the look at 5 s
            kind, (at, info) = zc.calls[-1]
            assert (kind, at) == ("update", 5.0)
            assert info.name == f"Ann (2).{SERVICE_TYPE}" and info.port == 7000
            assert _props(info) == {b"v": b"1,2", b"tables": b"0", b"players": b"3"}
            await trio.sleep(20.0)  # unchanged: nothing more sent
            assert [c[0] for c in zc.calls] == ["register", "update"]
            now["summary"] = (2, 3)
            await trio.sleep(1.0)
            assert [c[0] for c in zc.calls] == ["register", "update", "update"]
            await announcer.withdraw()  # the clients are told it is gone
            assert [c[0] for c in zc.calls] == ["register", "update", "update", "close"]
            nursery.cancel_scope.cancel()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def test_without_multicast_the_server_says_so_and_withdrawing_returns(
        fake_network: type[FakeZeroconf], caplog: pytest.LogCaptureFixture):
    fake_network.fail_on = "start"

    async def main() -> None:
        announcer = Announcer("Ann", 7000, LAN, (1, 2), lambda: Summary(0, 0))
        async with trio.open_nursery() as nursery:
            await nursery.start(announcer.run)
            await trio.sleep(1.0)
            with trio.fail_after(1):
                await announcer.withdraw()
        assert announcer.announced_as is None

    with caplog.at_level(logging.WARNING, logger="nimmt.server"):
        trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert fake_network.made == []
    assert ["cannot announce on the LAN (no multicast here): players must type the address"
            ] == [r.getMessage() for r in caplog.records]


def test_a_failed_update_ends_the_announcement_and_still_withdraws_it(
        fake_network: type[FakeZeroconf], caplog: pytest.LogCaptureFixture):
    fake_network.fail_on = "update"
    now = {"summary": Summary(0, 0)}

    async def main() -> None:
        announcer = Announcer("Ann", 7000, LAN, (1, 2), lambda: now["summary"])
        async with trio.open_nursery() as nursery:
            await nursery.start(announcer.run)
            now["summary"] = Summary(1, 1)
            await trio.sleep(6.0)
            [zc] = fake_network.made
            assert [c[0] for c in zc.calls] == ["register", "close"]
            with trio.fail_after(1):
                await announcer.withdraw()

    with caplog.at_level(logging.WARNING, logger="nimmt.server"):
        trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert [r.getMessage() for r in caplog.records] == [
        "the LAN announcement failed (network down): players must type the address"]


def test_withdrawing_an_announcer_that_never_ran_returns_at_once():
    async def main() -> None:
        with trio.fail_after(1):
            await Announcer("Ann", 7000, LAN, (1,), lambda: Summary(0, 0)).withdraw()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
