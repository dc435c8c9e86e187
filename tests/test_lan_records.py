"""Issue 46, without the network: what a server announces, when it sends again, where
it never announces; what the client keeps of an announcement (untrusted input), what
it lists, and how it chooses. The network itself: tests/test_lan_netns.py."""

from __future__ import annotations

import asyncio
import doctest
import io
import time
from typing import Any

import pytest
import trio

from nimmt import protocol as P
import nimmt.client.discovery
import nimmt.server.net.announce
from nimmt.bots import runner as bot_runner
from nimmt.client.choose_server import ask_address, pick_server, print_found
from nimmt.client.cli import parse_args as client_args
from nimmt.client.discovery import (
    MAX_PER_ADDRESS,
    MAX_SHOWN,
    FoundServer,
    found_line,
    listing,
    parse_record,
    shown,
)
from nimmt.server import ConfigError, ServerConfig, load_config_text
from nimmt.server.app import Server, _announcer, start_server
from nimmt.server.cli import config_from_args
from nimmt.server.cli import parse_args as server_args
from nimmt.server.net.announce import (
    Summary,
    UpdatePacer,
    announce_addresses,
    clean_name,
    default_server_name,
    txt_properties,
)

NAME = "Ann's party._nimmt._tcp.local."
GOOD = {b"v": b"1,2", b"tables": b"2", b"players": b"5"}


@pytest.mark.parametrize("module", [nimmt.client.discovery, nimmt.server.net.announce])
def test_doctests(module: Any) -> None:
    result = doctest.testmod(module)
    assert result.attempted and not result.failed


# ---------------------------------------------------------------- the server's side


def test_announced_only_where_another_machine_can_connect() -> None:
    lan = ["192.168.1.20", "10.0.0.5"]
    assert announce_addresses("0.0.0.0", [], lan) == lan
    assert announce_addresses("::", [], lan) == lan
    assert announce_addresses("", [], lan) == lan
    assert announce_addresses("0.0.0.0", [], []) == []  # no LAN at all: nothing
    for loopback in ("127.0.0.1", "127.0.0.2", "localhost", "::1"):
        resolved = ["127.0.0.1"] if loopback == "localhost" else [loopback]
        assert announce_addresses(loopback, resolved, lan) == [], loopback
    assert announce_addresses("10.0.0.5", ["10.0.0.5"], lan) == ["10.0.0.5"]
    assert announce_addresses("myhost", ["10.0.0.5", "127.0.1.1", "10.0.0.5"], lan) == [
        "10.0.0.5"]


async def test_the_test_servers_on_127_0_0_1_never_announce(monkeypatch: Any) -> None:
    """tests/server_helpers.py and tests/real_server.py start servers on 127.0.0.1 with
    the default config (announce on): by construction, nothing is announced."""
    monkeypatch.setattr("nimmt.server.app.lan_addresses", lambda: ["192.168.1.20"])
    server = Server(ServerConfig(port=0))
    assert server.config.announce is True
    assert await _announcer(ServerConfig(host="127.0.0.1"), 7000, server) is None
    assert await _announcer(ServerConfig(host="localhost"), 7000, server) is None
    assert await _announcer(ServerConfig(host="0.0.0.0", announce=False), 7000, server) is None
    announcer = await _announcer(ServerConfig(host="0.0.0.0", name="Ann"), 7000, server)
    assert announcer is not None
    assert (announcer.name, announcer.port, announcer.addresses, announcer.versions) == (
        "Ann", 7000, ["192.168.1.20"], P.SUPPORTED_VERSIONS)
    # start_server (the in-process servers of the tests) runs no announcer at all
    made: list[Any] = []
    monkeypatch.setattr("zeroconf.Zeroconf.__init__", lambda *a, **k: made.append(a))
    async with trio.open_nursery() as nursery:
        started, _ = await start_server(nursery, ServerConfig(port=0))
        await started.shutdown()
    assert made == []


async def test_the_summary_counts_tables_waiting_and_players_who_said_hello() -> None:
    from server_helpers import ScriptClient

    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, ServerConfig(port=0, db=":memory:"))
        assert server.summary() == Summary(tables_waiting=0, players=0)
        ann = await ScriptClient.tcp(port, "Ann")
        assert server.summary() == Summary(tables_waiting=0, players=1)
        await ann.request(P.CreateTable(options=P.TableOptions(seats=2)))
        assert server.summary() == Summary(tables_waiting=1, players=1)
        await ann.request(P.AddBot(strategy="heuristic"))
        await ann.send(P.Start())
        await ann.expect("round_started")
        assert server.summary() == Summary(tables_waiting=0, players=1)
        await ann.aclose()
        await server.shutdown()


def test_the_summary_is_sent_again_only_when_changed_and_at_most_every_5_seconds() -> None:
    a, b, c = Summary(0, 1), Summary(1, 1), Summary(1, 2)
    pacer = UpdatePacer(a, now=100.0)
    assert pacer.interval == 5.0
    assert not pacer.due(a, 200.0)  # unchanged: never
    pacer = UpdatePacer(a, now=100.0)
    assert not pacer.due(b, 101.0)  # changed, but too soon after the first
    assert not pacer.due(b, 104.99)
    assert pacer.due(c, 105.0)  # the latest summary, at the end of the interval
    assert pacer.sent == c
    assert not pacer.due(b, 109.0)  # the next one again waits 5 seconds
    assert pacer.due(b, 110.0)
    assert not pacer.due(b, 200.0)
    # a flood of changes: one update in each 5 seconds, never more
    pacer = UpdatePacer(a, now=0.0)
    sent = [t / 10 for t in range(1, 600) if pacer.due(Summary(t % 3, t), t / 10)]
    assert sent == [5.0, 10.0, 15.0, 20.0, 25.0, 30.0, 35.0, 40.0, 45.0, 50.0, 55.0]


def test_the_txt_record_and_the_name() -> None:
    assert txt_properties((1, 2), Summary(3, 17)) == {"v": "1,2", "tables": "3", "players": "17"}
    assert clean_name("  Ann's\x1b[31m\x07 party.lan ") == "Ann's[31m partylan"
    assert clean_name("\x01\x02") == ""
    assert len(clean_name("é" * 60).encode()) <= 63
    assert default_server_name() and "." not in default_server_name()


def test_the_options_default_to_announcing_under_the_host_name() -> None:
    config = config_from_args(server_args([]))
    assert (config.announce, config.name) == (True, "")
    config = config_from_args(server_args(["--no-announce", "--name", "Ann's party"]))
    assert (config.announce, config.name) == (False, "Ann's party")
    config = load_config_text('name = "Bob"\nannounce = false\n')
    assert (config.announce, config.name) == (False, "Bob")
    assert config_from_args(server_args(["--announce"])).announce is True
    for bad in ("a.b", "x" * 41, "tab\there", " Ann", "é" * 32):
        with pytest.raises(ConfigError, match="name must be 1 to 40 printable"):
            ServerConfig(name=bad).validate()


# ---------------------------------------------------------------- the client's side


def test_a_good_record_is_kept_with_its_counts() -> None:
    found = parse_record(NAME, 6066, ["192.168.1.20"], GOOD)
    assert found == FoundServer("Ann's party", "192.168.1.20", 6066, 2, 5, (1, 2))
    assert found.describe() == "Ann's party  192.168.1.20:6066  2 tables waiting, 5 players"
    # IPv6 addresses first, then IPv4: the first IPv4 one an other machine can have
    found = parse_record(NAME, 6066, ["fe80::1", "127.0.0.1", "10.0.0.7"], GOOD)
    assert found is not None and found.host == "10.0.0.7"


@pytest.mark.parametrize("instance, port, addresses, props, size", [
    (NAME, 0, ["10.0.0.7"], GOOD, 20),  # a port of 0
    (NAME, 65536, ["10.0.0.7"], GOOD, 20),
    (NAME, None, ["10.0.0.7"], GOOD, 20),
    (NAME, "6066", ["10.0.0.7"], GOOD, 20),
    ("\x01\x02\x1b\x7f._nimmt._tcp.local.", 6066, ["10.0.0.7"], GOOD, 20),  # control characters
    ("   ._nimmt._tcp.local.", 6066, ["10.0.0.7"], GOOD, 20),
    ("Ann._http._tcp.local.", 6066, ["10.0.0.7"], GOOD, 20),  # not our service
    (NAME, 6066, [], GOOD, 20),  # no address
    (NAME, 6066, ["127.0.0.1"], GOOD, 20),  # lies: nobody else is at these
    (NAME, 6066, ["0.0.0.0"], GOOD, 20),
    (NAME, 6066, ["224.0.0.251"], GOOD, 20),
    (NAME, 6066, ["255.255.255.255"], GOOD, 20),
    (NAME, 6066, ["not an address"], GOOD, 20),
    (NAME, 6066, ["10.0.0.7"], GOOD, 513),  # oversized TXT
    (NAME, 6066, ["10.0.0.7"], {**GOOD, **{bytes([65 + i]): b"" for i in range(15)}}, 20),
    (NAME, 6066, ["10.0.0.7"], {b"tables": b"1"}, 20),  # no versions
    (NAME, 6066, ["10.0.0.7"], {b"v": b"99"}, 20),  # a version we do not speak
    (NAME, 6066, ["10.0.0.7"], {b"v": b"x" * 65}, 20),
    (NAME, 6066, ["10.0.0.7"], {b"v": None}, 20),
])
def test_a_malformed_or_lying_record_is_ignored(instance: str, port: Any, addresses: list[str],
                                                props: dict[Any, Any], size: int) -> None:
    assert parse_record(instance, port, addresses, props, size) is None


def test_what_is_kept_of_a_record_is_trimmed() -> None:
    long = "\x1b[2J" + "A" * 100 + "\x07"
    found = parse_record(f"{long}._nimmt._tcp.local.", 7000, ["10.0.0.7"],
                         {b"v": b" 2 , 7,x", b"tables": b"-1", b"players": b"9999999"})
    assert found is not None
    assert found.name == "[2J" + "A" * 37 and len(found.name) == 40
    assert found.versions == (2,)
    assert (found.tables_waiting, found.players) == (None, None)  # nonsense: not said
    assert found.describe() == f"{found.name}  10.0.0.7:7000"
    assert listing([found]) == [f"10.0.0.7:7000\t{found.name}\t-\t-"]


def test_two_servers_of_one_name_are_both_listed_with_their_addresses() -> None:
    a = parse_record(NAME, 6066, ["10.0.0.9"], GOOD)
    b = parse_record(NAME, 6066, ["10.0.0.10"], GOOD)
    c = parse_record(NAME, 7000, ["10.0.0.9"], GOOD)
    assert a and b and c
    assert [s.address for s in shown([b, c, a, a])] == [
        "10.0.0.9:6066", "10.0.0.9:7000", "10.0.0.10:6066"]
    assert listing(shown([b, a])) == ["10.0.0.9:6066\tAnn's party\t2\t5",
                                      "10.0.0.10:6066\tAnn's party\t2\t5"]


def test_ten_thousand_services_are_capped_quickly_and_the_real_server_stays() -> None:
    real = parse_record("Zed's party._nimmt._tcp.local.", 6066, ["192.168.1.20"], GOOD)
    assert real is not None
    began = time.monotonic()
    records: list[FoundServer | None] = []
    for i in range(10_000):
        instance = f"Aaa fake {i:05}._nimmt._tcp.local."
        port = 0 if i % 3 == 0 else 1000 + i  # 0 lies; the others look good
        records.append(parse_record(instance, port, ["192.168.1.66"], GOOD))
    fakes = [r for r in records if r is not None]
    assert len(fakes) == 6666
    listed = shown([*fakes, real])
    assert time.monotonic() - began < 5
    assert real in listed  # the flood, all from one address, fills only its share
    assert len(listed) == 1 + MAX_PER_ADDRESS
    # many addresses: at most MAX_SHOWN in all
    many = [FoundServer(f"F{i}", f"10.1.{i // 250}.{i % 250 + 1}", 6066, 0, 0, (2,))
            for i in range(1000)]
    assert len(shown(many)) == MAX_SHOWN == 32


def test_the_lobby_line() -> None:
    servers = [FoundServer(n, f"10.0.0.{i + 1}", 6066, 0, 1, (2,)) for i, n in enumerate("ABCDE")]
    assert found_line([]) == "No nimmt server found on the LAN (is multicast blocked?)"
    assert found_line(servers[:1]) == ("On the LAN: A  10.0.0.1:6066  0 tables waiting, "
                                       "1 player. To play there: quit, nimmt-client ADDRESS")
    assert found_line(servers) == (
        "On the LAN: A  10.0.0.1:6066  0 tables waiting, 1 player · "
        "B  10.0.0.2:6066  0 tables waiting, 1 player · "
        "C  10.0.0.3:6066  0 tables waiting, 1 player; 2 more: nimmt-client --find. "
        "To play there: quit, nimmt-client ADDRESS")


# ---------------------------------------------------------------- choosing


def _servers(*names: str) -> list[FoundServer]:
    return [FoundServer(n, f"10.0.0.{i + 2}", 6066 + i, i, 2 * i, (2,))
            for i, n in enumerate(names)]


async def _pick(found: list[FoundServer], interactive: bool,
                chosen: int = 0) -> tuple[Any, str, list[Any]]:
    out = io.StringIO()
    offered: list[Any] = []

    async def look() -> list[FoundServer]:
        return found

    async def choose(servers: Any) -> FoundServer:
        offered.append(list(servers))
        return servers[chosen]

    picked = await pick_server(interactive, look=look, choose=choose, out=out)
    return picked, out.getvalue(), offered


@pytest.mark.trio
async def test_one_server_found_is_joined_at_once_and_its_address_said() -> None:
    picked, said, offered = await _pick(_servers("Ann"), interactive=True)
    assert picked == ("10.0.0.2", 6066, False) and offered == []
    assert said == ("nimmt-client: looking for nimmt servers on the LAN…\n"
                    "nimmt-client: found one server, Ann  10.0.0.2:6066  0 tables waiting, "
                    "0 players: connecting to 10.0.0.2:6066\n")


@pytest.mark.trio
async def test_several_are_offered_to_choose_from_then_the_choice_is_said() -> None:
    found = _servers("Ann", "Bob")
    picked, said, offered = await _pick(found, interactive=True, chosen=1)
    assert offered == [found]
    assert picked == ("10.0.0.3", 6067, False)
    assert said.endswith("nimmt-client: connecting to Bob at 10.0.0.3:6067\n")
    picked, said, offered = await _pick(found, interactive=False)
    assert picked is None and offered == []
    assert said.splitlines()[1:] == [
        "  Ann  10.0.0.2:6066  0 tables waiting, 0 players",
        "  Bob  10.0.0.3:6067  1 table waiting, 2 players",
        "nimmt-client: 2 servers found: give one as HOST:PORT"]


@pytest.mark.trio
async def test_none_found_tries_localhost_then_asks() -> None:
    picked, said, _ = await _pick([], interactive=True)
    assert picked == ("localhost", 6066, True)
    assert said.splitlines()[1] == ("nimmt-client: no nimmt server found on the LAN; "
                                    "trying localhost:6066")
    answers = iter(["nonsense:x", "10.0.0.9:7000"])
    prompts: list[str] = []

    async def ask(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers)

    out = io.StringIO()
    assert await ask_address(ask, out) == ("10.0.0.9", 7000)
    assert len(prompts) == 2 and out.getvalue() == (
        "nimmt-client: 'x' is not a port number (1-65535)\n"
        "nimmt-client: connecting to 10.0.0.9:7000\n")

    async def nothing(prompt: str) -> str:
        return "  "

    assert await ask_address(nothing, io.StringIO()) is None


def test_the_client_looks_only_without_an_address(capsys: Any) -> None:
    args = client_args([])
    assert args.discover and not args.find and (args.host, args.port) == ("localhost", 6066)
    assert not client_args(["10.0.0.2"]).discover
    assert not client_args(["--solo"]).discover
    assert client_args(["--find"]).find
    for wrong in (["--find", "10.0.0.2"], ["--find", "--solo"]):
        with pytest.raises(SystemExit) as info:
            client_args(wrong)
        assert info.value.code == 2
    assert "--find lists the servers on the LAN" in capsys.readouterr().err


def test_the_bot_finds_the_only_server_or_lists_them(monkeypatch: Any, capsys: Any) -> None:
    found: list[FoundServer] = []

    async def fake_find() -> list[FoundServer]:
        return found

    monkeypatch.setattr("nimmt.client.discovery.find_servers", fake_find)
    played: list[Any] = []

    async def fake_play(host: str, port: int, strategy: Any, **options: Any) -> Any:
        played.append((host, port))
        return bot_runner.BotResult()

    monkeypatch.setattr(bot_runner, "play_bot", fake_play)
    monkeypatch.setattr(bot_runner.SessionStore, "key", lambda *a, **k: None)
    assert bot_runner.main(["--find"]) == 1
    assert capsys.readouterr().err == "nimmt-bot: no nimmt server found on the LAN\n"
    found[:] = _servers("Ann", "Bob")
    assert bot_runner.main(["--find"]) == 1
    assert capsys.readouterr().err.endswith("nimmt-bot: 2 servers found: give one as HOST:PORT\n")
    assert played == []
    found[:] = _servers("Ann")
    bot_runner.main(["--find"])
    assert played == [("10.0.0.2", 6066)]
    assert capsys.readouterr().err.startswith(
        "nimmt-bot: found Ann  10.0.0.2:6066  0 tables waiting, 0 players: joining 10.0.0.2:6066\n")
    with pytest.raises(SystemExit):
        bot_runner.main(["--find", "10.0.0.2"])


def test_the_arrow_keys_choose_among_the_servers_found() -> None:
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from nimmt.client.choose_server import _choose_with_arrows

    async def main() -> FoundServer:
        with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
            inp.send_text("\x1b[B\x1b[B\x1b[A\r")  # down, down, up, Enter: the second
            return await asyncio.wait_for(_choose_with_arrows(_servers("Ann", "Bob", "Cy")), 5)

    assert asyncio.run(main()).name == "Bob"


def test_f_in_the_lobby_looks_again_and_says_what_is_there(monkeypatch: Any) -> None:
    from test_client_tui import ui_test

    looks: list[int] = []

    async def fake_find() -> list[FoundServer]:
        looks.append(1)
        return _servers("Ann", "Bob")

    monkeypatch.setattr("nimmt.client.discovery.find_servers", fake_find)

    async def script(h: Any) -> None:
        await h.keys("F")
        await h.until(lambda: looks == [1], "a look")
        await h.c.drain()
        status = h.c.current_status()
        assert status is not None and status.text == found_line(_servers("Ann", "Bob"))

    ui_test(script)


async def test_the_announcer_registers_updates_at_most_every_5_s_and_withdraws(
        monkeypatch: Any, autojump_clock: Any) -> None:
    """The announcer's wiring, with the multicast library replaced by a recorder."""
    calls: list[tuple[float, str, dict[bytes, bytes | None]]] = []

    now = trio.current_time

    async def in_this_thread(fn: Any, *args: Any) -> Any:  # the fake's calls take no time
        return fn(*args)

    monkeypatch.setattr(trio.to_thread, "run_sync", in_this_thread)
    class FakeZeroconf:
        def __init__(self, interfaces: Any, ip_version: Any) -> None:
            calls.append((now(), f"open {interfaces}", {}))

        def register_service(self, info: Any, allow_name_change: bool = False) -> None:
            calls.append((now(), f"register {info.name} {info.port}",
                          dict(info.properties)))

        def update_service(self, info: Any) -> None:
            calls.append((now(), "update", dict(info.properties)))

        def close(self) -> None:
            calls.append((now(), "close", {}))

    monkeypatch.setattr("zeroconf.Zeroconf", FakeZeroconf)
    summary = Summary(0, 0)
    announcer = nimmt.server.net.announce.Announcer(
        "Ann", 7000, ["10.0.0.2"], (1, 2), lambda: summary)
    async with trio.open_nursery() as nursery:
        await nursery.start(announcer.run)
        await trio.sleep(0.5)
        summary = Summary(1, 1)  # a change at once: it waits for the 5 s to pass
        await trio.sleep(2.0)
        summary = Summary(1, 2)
        await trio.sleep(10.0)
        summary = Summary(0, 2)
        await trio.sleep(20.0)
        await announcer.withdraw()
    assert [(round(t), what, props.get(b"players"), props.get(b"tables"))
            for t, what, props in calls] == [
        (0, "open ['10.0.0.2']", None, None),
        (0, "register Ann._nimmt._tcp.local. 7000", b"0", b"0"),
        (5, "update", b"2", b"1"),  # the latest, not each change
        (13, "update", b"2", b"0"),
        (32, "close", None, None)]  # at 32.5: at once
    assert announcer.announced_as == "Ann"


def test_find_prints_one_tab_separated_line_a_server() -> None:
    out = io.StringIO()
    print_found(_servers("Ann", "Bob"), out)
    assert out.getvalue() == "10.0.0.2:6066\tAnn\t0\t0\n10.0.0.3:6067\tBob\t1\t2\n"
    out = io.StringIO()
    print_found([], out)
    assert out.getvalue() == ""
