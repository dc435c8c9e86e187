"""The server process as an operator runs it, in this process: what it prints at start
(the address to give, the bots' table, the LAN name), what a SIGTERM or SIGINT does
(a goodbye to every client, games kept only with a database, the database closed so
that a restart can open it), the database it opens, the open files limit, and the
LAN announcement's choice of addresses. Servers listen on 127.0.0.1, port 0."""

from __future__ import annotations

import gc
import io
import logging
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from nimmt import protocol as P
from nimmt.server import ServerConfig, app
from nimmt.server.net.announce import default_server_name
from nimmt.server.storage import Store
from nimmt.server.storage import store as store_module
from server_helpers import ScriptClient, make_config, seat_players

HOST = "127.0.0.1"


class Started:
    """``app.Server`` replaced by a subclass that tells the test its port and itself
    once it serves; ``listen_hosts``: the host each listener was asked for."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.ready = trio.Event()
        self.server: app.Server | None = None
        self.port = 0
        self.listen_hosts: list[str | None] = []
        self.file_limits: list[int] = []
        #: standard output's bytes if a test watches them, and what they were at the stop
        self.pipe: io.BytesIO | None = None
        self.piped = ""
        started = self

        class Recording(app.Server):
            async def serve(self, listeners: Any = None, *,
                            task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
                started.server = self
                started.port = listeners[0].socket.getsockname()[1]
                started.ready.set()
                await super().serve(listeners, task_status=task_status)

            async def shutdown(self, *args: Any, **kwargs: Any) -> None:
                if started.pipe is not None:
                    started.piped = started.pipe.getvalue().decode()
                await super().shutdown(*args, **kwargs)

        real_listen = trio.open_tcp_listeners

        async def listen(port: int, *, host: str | None = None, **kw: Any) -> Any:
            self.listen_hosts.append(host)
            return await real_listen(port, host=HOST, **kw)  # never every interface here

        monkeypatch.setattr(app, "Server", Recording)
        monkeypatch.setattr(trio, "open_tcp_listeners", listen)
        monkeypatch.setattr(app, "raise_file_limit", self.file_limits.append)


async def run_and_stop(config: ServerConfig, started: Started,
                       sig: int = signal.SIGTERM) -> P.Goodbye | None:
    """``run_server(config)`` until a client said hello, then ``sig``; the client's goodbye."""
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(app.run_server, config)
            await started.ready.wait()
            client = await ScriptClient.tcp(started.port, "Ann")
            signal.raise_signal(sig)
            goodbye = await client.wait_closed()
            await client.aclose()
    return goodbye


@pytest.mark.parametrize("bots, line", [
    (1, "A table with 1 bot is waiting for you."),
    (2, "A table with 2 bots is waiting for you."),
])
async def test_the_start_prints_where_to_join_and_the_bots_table(monkeypatch, capsys, bots, line):
    started = Started(monkeypatch)
    config = ServerConfig(host=HOST, port=0, db=":memory:", bots=bots, bot_level="easy",
                          announce=False, max_connections=500)
    goodbye = await run_and_stop(config, started)
    out, err = capsys.readouterr()
    port = started.port
    assert out.splitlines() == [
        f"nimmt-server listening on {HOST}:{port} — players join with: nimmt-client {HOST}:{port}",
        line]
    assert err == "\nSIGTERM: telling everyone goodbye...\n"
    # without a database the games end with the server, and the client is told so
    assert goodbye is not None
    assert (goodbye.reason, goodbye.message, goodbye.kept) == (
        "server_shutdown", "the server is shutting down", False)
    assert started.file_limits == [564]  # a file per connection and 64 for the server's own
    assert started.listen_hosts == [HOST]


async def test_no_bots_no_bots_line_and_sigint_is_named(monkeypatch, capsys):
    started = Started(monkeypatch)
    config = ServerConfig(host=HOST, port=0, db=":memory:", announce=False)
    await run_and_stop(config, started, signal.SIGINT)
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"nimmt-server listening on {HOST}:{started.port} — players join with: "
        f"nimmt-client {HOST}:{started.port}"]
    assert err == "\nSIGINT: telling everyone goodbye...\n"
    assert started.file_limits == [2064]


async def test_with_a_database_the_games_are_kept_and_the_file_closed(monkeypatch, tmp_path: Path,
                                                                       caplog):
    caplog.set_level(logging.INFO, "nimmt.server")
    started = Started(monkeypatch)
    db = tmp_path / "party.db"
    config = ServerConfig(host=HOST, port=0, db=str(db), announce=False)
    goodbye = await run_and_stop(config, started)
    assert goodbye is not None and (goodbye.reason, goodbye.kept) == ("server_shutdown", True)
    assert f"database: {db}" in caplog.messages
    assert caplog.messages[-1] == "stopped"
    Store.open(db).close()  # the lock is free: a restart can open it


async def test_a_star_host_listens_on_every_interface(monkeypatch, capsys):
    started = Started(monkeypatch)
    await run_and_stop(ServerConfig(host="*", port=0, db=":memory:", announce=False), started)
    assert started.listen_hosts == [None]
    capsys.readouterr()


class FakeAnnouncer:
    """Stands for the multicast DNS announcer: records what it was made with, when it
    ran and when it was withdrawn (and whether the server was stopping by then)."""

    made: list[FakeAnnouncer] = []
    started: Started | None = None

    def __init__(self, name: str, port: int, addresses: list[str], versions: Any,
                 summary: Any) -> None:
        self.name, self.port, self.addresses = name, port, list(addresses)
        self.versions, self.summary = tuple(versions), summary
        self.events: list[str] = []
        self.scope = trio.CancelScope()
        FakeAnnouncer.made.append(self)

    async def run(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        self.events.append("run")
        with self.scope:
            task_status.started()
            await trio.sleep_forever()

    async def withdraw(self) -> None:
        assert self.started is not None and self.started.server is not None
        self.events.append(f"withdraw, stopping={self.started.server.stopping}")
        self.scope.cancel()


async def test_the_announcement_is_named_printed_and_withdrawn_before_the_goodbyes(
        monkeypatch, capsys):
    started = Started(monkeypatch)
    monkeypatch.setattr(FakeAnnouncer, "made", [])
    monkeypatch.setattr(FakeAnnouncer, "started", started)
    monkeypatch.setattr(app, "Announcer", FakeAnnouncer)
    monkeypatch.setattr(app, "lan_addresses", lambda: ["192.0.2.7", "127.0.0.1"])
    config = ServerConfig(host="*", port=0, db=":memory:", name="Ann's party")
    goodbye = await run_and_stop(config, started)
    [announcer] = FakeAnnouncer.made
    assert (announcer.name, announcer.port, announcer.addresses, announcer.versions) == (
        "Ann's party", started.port, ["192.0.2.7"], tuple(P.SUPPORTED_VERSIONS))
    # withdrawn first: nobody finds a server that is going
    assert announcer.events == ["run", "withdraw, stopping=False"]
    assert goodbye is not None and goodbye.reason == "server_shutdown"
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == ('Announcing on the LAN as "Ann\'s party": players on this network '
                       "find it with nimmt-client alone.")
    assert len(out) == 2 and out[0].startswith(
        f"nimmt-server listening on *:{started.port} — players join with: ")


@pytest.mark.parametrize("bots, announce", [(0, False), (3, False), (3, True)])
async def test_each_start_line_reaches_a_pipe_while_the_server_runs(monkeypatch, bots, announce):
    """Standard output to a pipe (``nimmt-server | tee``, a service's log) is buffered
    by blocks: every line of the start is flushed as it is printed, not at the exit."""
    started = Started(monkeypatch)
    started.pipe = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(started.pipe, encoding="utf-8"))
    monkeypatch.setattr(FakeAnnouncer, "made", [])
    monkeypatch.setattr(FakeAnnouncer, "started", started)
    monkeypatch.setattr(app, "Announcer", FakeAnnouncer)
    monkeypatch.setattr(app, "lan_addresses", lambda: ["192.0.2.7"])
    await run_and_stop(ServerConfig(host="*", port=0, db=":memory:", name="Kitchen", bots=bots,
                                    bot_level="easy", announce=announce), started)
    lines = started.piped.splitlines()
    assert lines[0].startswith(f"nimmt-server listening on *:{started.port} — ")
    assert lines[1:] == [
        "A table with 3 bots is waiting for you.",
        "Announcing on the LAN as 'Kitchen': players on this network find it with "
        "nimmt-client alone."][:(bots > 0) + announce]


# ------------------------------------------------------------------ the announcement's addresses

def announcer_config(host: str, **kw: Any) -> ServerConfig:
    return ServerConfig(host=host, port=0, **kw)


async def announced(monkeypatch, config: ServerConfig, lan: list[str]) -> Any:
    monkeypatch.setattr(app, "lan_addresses", lambda: list(lan))
    return await app._announcer(config, 6100, app.Server(config))


async def test_every_interface_is_announced_on_the_lan_addresses(monkeypatch):
    for host in ("0.0.0.0", "::", "*", " * "):
        announcer = await announced(monkeypatch, announcer_config(host),
                                    ["192.168.1.20", "10.0.0.5"])
        assert announcer is not None, host
        assert (announcer.name, announcer.port, announcer.addresses) == (
            default_server_name(), 6100, ["192.168.1.20", "10.0.0.5"])
        assert announcer.versions == tuple(P.SUPPORTED_VERSIONS)


async def test_an_address_of_this_machine_is_announced_on_itself_only(monkeypatch):
    announcer = await announced(monkeypatch, announcer_config("192.0.2.7", name="Kitchen"),
                                ["192.0.2.7", "10.0.0.5"])
    assert announcer is not None
    assert (announcer.name, announcer.addresses) == ("Kitchen", ["192.0.2.7"])


async def test_no_announcement_turned_off_on_loopback_or_for_a_host_that_does_not_resolve(
        monkeypatch, caplog):
    caplog.set_level(logging.INFO, "nimmt.server")
    lan = ["192.168.1.20"]
    assert await announced(monkeypatch, announcer_config("0.0.0.0", announce=False), lan) is None
    assert await announced(monkeypatch, announcer_config("127.0.0.1"), lan) is None
    assert await announced(monkeypatch, announcer_config("no-such-host.invalid"), lan) is None
    assert caplog.messages == [
        "not announced on the LAN (announce = false)",
        "not announced on the LAN: 127.0.0.1 is not reachable from another machine",
        "not announced on the LAN: no-such-host.invalid is not reachable from another machine",
    ]


# ------------------------------------------------------------------ the database

async def test_memory_means_no_database():
    assert await app.open_database(":memory:") is None


async def test_a_database_file_is_opened_with_its_durability_and_named_in_the_log(
        tmp_path: Path, caplog, capsys):
    caplog.set_level(logging.INFO, "nimmt.server")
    path = tmp_path / "n.db"
    store = await app.open_database(str(path), "full")
    try:
        assert store is not None and store.store.path == path
        assert store.store.durability == "full"
        assert store.failing is None
    finally:
        await store.aclose()
    assert caplog.messages == [f"database: {path}"]
    assert capsys.readouterr().err == ""


async def test_a_database_it_cannot_write_is_said_on_stderr(tmp_path: Path, monkeypatch, caplog,
                                                           capsys):
    """(Root may write any file: the refusal is made by hand, as SQLite's CANTOPEN.)"""
    import sqlite3

    path = tmp_path / "n.db"
    Store.open(path).close()

    def refused(*args: Any, **kwargs: Any) -> None:
        e = sqlite3.OperationalError("attempt to write a readonly database")
        e.sqlite_errorcode = 14
        raise e

    monkeypatch.setattr(store_module, "prepare", refused)
    store = await app.open_database(str(path))
    try:
        assert store is not None and store.failing is not None
    finally:
        await store.aclose()
    assert capsys.readouterr().err == (
        f"WARNING: the database {path} cannot be written: games are kept in memory only "
        "until it can\n")
    [record] = caplog.records
    assert record.levelno == logging.ERROR
    assert record.getMessage().startswith(f"the database {path} cannot be written (")


# ------------------------------------------------------------------ the process's own limits

class FakeResource:
    RLIMIT_NOFILE = 7

    def __init__(self, soft: int, hard: int, fails: bool = False, infinity: int = -1) -> None:
        self.RLIM_INFINITY = infinity  # Linux's; macOS's is 2**63 - 1
        self.limits = (infinity if soft == -1 else soft, infinity if hard == -1 else hard)
        self.fails = fails
        self.set: list[tuple[int, int]] = []

    def getrlimit(self, which: int) -> tuple[int, int]:
        assert which == self.RLIMIT_NOFILE
        return self.limits

    def setrlimit(self, which: int, limits: tuple[int, int]) -> None:
        assert which == self.RLIMIT_NOFILE
        if self.fails:
            raise ValueError("not allowed")
        self.set.append(limits)


@pytest.mark.parametrize("soft, hard, wanted, raised", [
    (1024, 4096, 2064, [(2064, 4096)]),   # raised to what is wanted
    (1024, 4096, 5000, [(4096, 4096)]),   # no further than the hard limit
    (1024, -1, 5000, [(5000, -1)]),       # an unlimited hard limit: what is wanted
    (2064, 4096, 2064, []),               # already enough
    (2063, 4096, 2064, [(2064, 4096)]),   # one short
    (4096, 4096, 2064, []),               # never lowered
    (-1, -1, 2064, []),                   # unlimited already
])
@pytest.mark.parametrize("infinity", [-1, 2**63 - 1])
def test_the_open_files_limit_is_raised_to_what_is_wanted(monkeypatch, caplog, soft, hard,
                                                          wanted, raised, infinity):
    """(-1 in the table stands for unlimited: ``RLIM_INFINITY``, -1 on Linux.)"""
    caplog.set_level(logging.INFO, "nimmt.server")
    fake = FakeResource(soft, hard, infinity=infinity)
    monkeypatch.setitem(sys.modules, "resource", fake)
    app.raise_file_limit(wanted)
    assert fake.set == [(a, infinity if b == -1 else b) for a, b in raised]
    assert caplog.messages == (
        [f"open files limit raised from {soft} to {raised[0][0]}"] if raised else [])


def test_a_limit_that_cannot_be_raised_is_a_warning(monkeypatch, caplog):
    fake = FakeResource(1024, 4096, fails=True)
    monkeypatch.setitem(sys.modules, "resource", fake)
    app.raise_file_limit(2064)
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (logging.WARNING, "could not raise the open files limit from 1024")]


def test_the_collector_keeps_its_older_generations_and_freezes_the_start(monkeypatch):
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 11, 13)
        app.tune_garbage_collector()
        assert gc.get_threshold() == (50_000, 11, 13)
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


# ------------------------------------------------------------------ the Server object

def test_the_lobby_exists_only_while_serving():
    server = app.Server(ServerConfig(port=0))
    with pytest.raises(RuntimeError, match="^the server is not serving$"):
        _ = server.lobby
    assert (server.summary().tables_waiting, server.summary().players) == (0, 0)


async def serving(nursery: trio.Nursery, config: ServerConfig) -> app.Server:
    server = app.Server(config)
    await nursery.start(server.serve)
    return server


async def test_a_shutdown_says_goodbye_to_every_client_then_serve_returns(autojump_clock,
                                                                         caplog):
    caplog.set_level(logging.INFO, "nimmt.server")
    async with trio.open_nursery() as nursery:
        server = await serving(nursery, make_config(bots=2))
        ann = await ScriptClient.memory(server, nursery, "Ann")
        assert isinstance(await ann.request(P.CreateTable()), P.Seated)
        bob = await ScriptClient.memory(server, nursery, "Bob", hello=False)
        carl = await ScriptClient.memory(server, nursery, "Carl")
        await seat_players(carl, [], P.TableOptions(seats=2), bots=1)
        await carl.send(P.Start())
        await carl.expect("round_started")  # a table in play is not waiting
        # the LAN announcement's figures: the bots' table and Ann's wait; Ann and Carl
        # said hello
        assert (server.summary().tables_waiting, server.summary().players) == (2, 2)
        before = trio.current_time()
        await server.shutdown()
        # every client read its goodbye at once: the stop waits no longer
        assert trio.current_time() == before
        for client in (ann, bob, carl):
            goodbye = await client.wait_closed()
            assert goodbye is not None
            assert (goodbye.reason, goodbye.message, goodbye.kept) == (
                "server_shutdown", "the server is shutting down", False)
        assert not server.clients
        # a connection coming in now is closed at once, without a byte
        late, theirs = trio.testing.memory_stream_pair()
        await server.handle_stream(theirs)
        assert await late.receive_some() == b""
        await server.shutdown()  # a second stop does nothing more
    assert caplog.messages.count("shutting down: 3 connections, 3 tables") == 1


@pytest.mark.parametrize("reason", ["kicked", "update"])  # before and after "server_shutdown"
async def test_another_reason_to_close_keeps_nothing_said(autojump_clock, reason):
    async with trio.open_nursery() as nursery:
        server = await serving(nursery, make_config())
        ann = await ScriptClient.memory(server, nursery, "Ann")
        before = trio.current_time()
        await server.shutdown(reason, "maintenance")
        assert trio.current_time() == before  # Ann read her goodbye at once: no wait
        goodbye = await ann.wait_closed()
        assert goodbye is not None
        assert (goodbye.reason, goodbye.message, goodbye.kept) == (reason, "maintenance", None)


async def test_a_flooders_address_is_refused_with_the_seconds_to_wait(autojump_clock,
                                                                      monkeypatch):
    monkeypatch.setattr(app, "peer_address", lambda stream: "192.0.2.44")
    async with trio.open_nursery() as nursery:
        server = await serving(nursery, make_config(flood_address_cooldown=30.0))
        server.admission.flooded("192.0.2.44", trio.current_time() - 0.5)  # 29.5 s to go
        ours, theirs = trio.testing.memory_stream_pair()
        refused = ScriptClient(ours, "Eve")
        await server.handle_stream(theirs)
        await refused.wait_closed()
        error, goodbye = refused.log
        text = ("a connection from your address was closed for flooding the server: "
                "try again in 30 s")
        assert (error.code, error.message) == ("rate_limited", text)
        assert (goodbye.reason, goodbye.message) == ("rate_limited", text)
        assert not server.clients and server._cids == 0  # never counted as a connection
        await server.shutdown()


async def test_a_refusal_nobody_reads_is_given_up_after_a_second(autojump_clock, monkeypatch):
    monkeypatch.setattr(app, "peer_address", lambda stream: "192.0.2.44")
    async with trio.open_nursery() as nursery:
        server = await serving(nursery, make_config(flood_address_cooldown=30.0))
        server.admission.flooded("192.0.2.44", trio.current_time())
        ours, theirs = trio.testing.lockstep_stream_pair()
        start = trio.current_time()
        await server.handle_stream(theirs)  # the refusal is never read
        assert trio.current_time() - start == 1.0
        with pytest.raises(trio.BrokenResourceError):
            await ours.send_all(b"x")
        await server.shutdown()


async def test_a_full_server_closes_the_quietest_connection_of_the_heaviest_address(
        autojump_clock, monkeypatch, caplog):
    """Memory streams given addresses by hand: 9 connections of 192.0.2.1 (the first at
    a table since it came, the fifth silent since it said hello, the others asking for
    the table list a second apart) and one of 192.0.2.2 fill the server; a newcomer from
    192.0.2.3 gets in and the fifth is closed, told why (and the log says so); the
    seated one, quieter still, is never touched."""
    from nimmt.server.net import connection

    caplog.set_level(logging.INFO, "nimmt.server")

    def address(stream: Any) -> str | None:
        return getattr(stream, "addr", None)

    monkeypatch.setattr(connection, "peer_address", address)
    monkeypatch.setattr(app, "peer_address", address)

    async def connect(name: str, addr: str) -> ScriptClient:
        ours, theirs = trio.testing.memory_stream_pair()
        theirs.addr = addr  # type: ignore[attr-defined]
        nursery.start_soon(server.handle_stream, theirs)
        client = ScriptClient(ours, name)
        await client.hello()
        return client

    async with trio.open_nursery() as nursery:
        server = await serving(nursery, make_config(max_connections=10, reserved_share=0.0,
                                                    max_per_address=100))
        seated = await connect("A0", "192.0.2.1")  # the quietest, but at a table
        assert isinstance(await seated.request(P.CreateTable()), P.Seated)
        await trio.sleep(1.0)
        heavy = [seated] + [await connect(f"A{i}", "192.0.2.1") for i in range(1, 9)]
        for i in (1, 2, 3, 5, 6, 7, 8):
            await trio.sleep(1.0)
            await heavy[i].request(P.ListTables())
        light = await connect("B", "192.0.2.2")
        assert len(server.clients) == 10
        await trio.sleep(1.0)
        newcomer = await connect("C", "192.0.2.3")
        goodbye = await heavy[4].wait_closed()
        assert goodbye is not None and (goodbye.reason, goodbye.message) == (
            "server_full", "the server is full and your address holds many connections: "
            "this one, at no table, made room for a newcomer")
        assert "conn=5 closed to make room for conn=11 from memory" in caplog.messages
        for client in heavy[:4] + heavy[5:] + [light, newcomer]:
            assert isinstance(await client.request(P.Ping(nonce=1)), P.Pong)
            assert client.goodbye is None
        await server.shutdown()


async def test_a_shutdown_before_serving_logs_no_table(caplog):
    caplog.set_level(logging.INFO, "nimmt.server")
    server = app.Server(ServerConfig(port=0))
    await server.shutdown()
    assert caplog.messages == ["shutting down: 0 connections, 0 tables"]


async def test_a_relative_database_path_is_a_file_too(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    store = await app.open_database("party.db")
    assert store is not None
    await store.aclose()
    assert (tmp_path / "party.db").exists()


async def test_a_server_cancelled_from_outside_still_closes_its_database(tmp_path: Path,
                                                                         monkeypatch, capsys):
    """A second Ctrl-C (or the caller's deadline) cancels ``run_server``: the database
    is closed anyway, so that the next server can open it."""
    started = Started(monkeypatch)
    db = tmp_path / "party.db"
    config = ServerConfig(host=HOST, port=0, db=str(db), announce=False)
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(app.run_server, config)
            await started.ready.wait()
            nursery.cancel_scope.cancel()
    Store.open(db).close()  # the lock is free
    capsys.readouterr()
