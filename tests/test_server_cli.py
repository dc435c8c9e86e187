"""nimmt-server as a person runs it: defaults, the config file, flags, the address it
prints, --bots, SIGINT/SIGTERM; and the protocol's minimal bot against the real thing."""

from __future__ import annotations

import doctest
import signal
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

import msgpack
import pytest

import nimmt.server.config
import nimmt.server.sessions.limits
from nimmt.server import DEFAULT_PORT, ConfigError, ServerConfig, load_config_text
from nimmt.server.cli import config_from_args, join_hint, lan_addresses, main, parse_args
from test_protocol_bot import run_minimal_bot


@pytest.mark.parametrize("module", [nimmt.server.config, nimmt.server.sessions.limits])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted and not result.failed


def test_defaults_listen_everywhere_on_6066():
    config = ServerConfig()
    assert (config.host, config.port, DEFAULT_PORT, config.log_level) == (
        "0.0.0.0", 6066, 6066, "info")
    table = config.table
    assert (table.turn_time, table.choice_time, table.draft_time) == (30.0, 20.0, 15.0)
    assert (table.step_delay, table.grace_time, table.abandon_after) == (0.8, 30.0, 600.0)
    assert config_from_args(parse_args([])) == config


def test_config_file_then_flags(tmp_path: Path):
    path = tmp_path / "party.toml"
    path.write_text('port = 7000\nlog_level = "debug"\nbots = 3\n'
                    "[table]\nseats = 5\nturn_time = 45\nprofessional = true\n")
    config = config_from_args(parse_args(["--config", str(path), "--port", "7100",
                                          "--turn-time", "20", "--no-professional"]))
    assert (config.port, config.log_level, config.bots) == (7100, "debug", 3)
    assert (config.table.seats, config.table.turn_time, config.table.professional) == (
        5, 20.0, False)


@pytest.mark.parametrize("text, words", [
    ("colour = 'red'\n", "unknown setting 'colour'"),
    ("[table]\nturn_time = 'long'\n", "table.turn_time must be a number"),
    ("port = 70000\n", "port must be 0 to 65535"),
    ("[table]\nseats = 11\n", "players must be 2 to 10"),
    ("[table]\nfallback = 'genius'\n",
     r"table.fallback: no strategy 'genius': choose a level \(easy, normal, hard\) or a "
     r"strategy \(heuristic, mcs, random, search\), with or without parameters"),
    ("[table]\nfallback = 'search:budget=5'\n",
     "table.fallback: search has no parameter 'budget': it takes ms, samples"),
    ("[table]\nfallback = 'search:ms=fast'\n", "table.fallback: search:ms must be a number"),
    ("[table]\nfallback = 'search:ms=0'\n", "table.fallback: search: ms must be a number of "
     "milliseconds, 0 < ms <= 60000"),
    ("bot_level = 'search:ms=-5'\n", "bot_level: search: ms must be a number of milliseconds"),
    ("bots = 10\n", "bots must be 1 to 9"),
    ("port = \n", "not valid TOML"),
])
def test_bad_settings_are_named(text: str, words: str):
    with pytest.raises(ConfigError, match=words):
        load_config_text(text)


@pytest.mark.parametrize("fallback", ["heuristic", "random", "search", "mcs", "easy", "normal",
                                      "hard", "search:ms=20", "mcs:samples=50",
                                      "search:ms=20,samples=10"])
def test_the_fallback_is_a_level_or_a_strategy_with_or_without_parameters(fallback: str):
    config = config_from_args(parse_args(["--fallback", fallback]))
    assert config.table.fallback == fallback
    # the wire carries names only: a table's options show the strategy's name
    assert config.table.to_wire().fallback == fallback.partition(":")[0]


def test_a_bad_config_file_is_reported_not_raised(tmp_path: Path, capsys):
    path = tmp_path / "bad.toml"
    path.write_text("[table]\nturn_time = -1\n")
    assert main(["--config", str(path)]) == 2
    assert "table.turn_time must be 0.1 to 3600 seconds" in capsys.readouterr().err
    assert main(["--config", str(tmp_path / "missing.toml")]) == 2
    capsys.readouterr()
    assert main(["--fallback", "search:budget=5"]) == 2
    assert capsys.readouterr().err == ("nimmt-server: table.fallback: search has no parameter "
                                       "'budget': it takes ms, samples, noise, mix, depth, "
                                       "halving, careful, later, ahead, first, seed\n")


def test_the_address_to_give_friends():
    assert all(not a.startswith("127.") for a in lan_addresses())
    hint = join_hint("0.0.0.0", 6066)
    assert hint.startswith("nimmt-server listening on 0.0.0.0:6066 — players join with: ")
    assert "nimmt-client " in hint and ":6066" in hint.split("join with:")[1]
    assert join_hint("127.0.0.1", 7000).endswith("nimmt-client 127.0.0.1:7000")


# ------------------------------------------------------------------ a real process

class Server:
    """``python -m nimmt.server`` on 127.0.0.1 and a free port."""

    def __init__(self, *args: str) -> None:
        db = () if "--db" in args else ("--db", ":memory:")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "nimmt.server", "--host", "127.0.0.1", "--port", "0",
             *db, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.banner = self.proc.stdout.readline().strip()
        assert "listening on 127.0.0.1:" in self.banner, self.proc.stderr.read()
        self.port = int(self.banner.split("127.0.0.1:")[1].split()[0])

    def stop(self, sig: int = signal.SIGTERM) -> tuple[int, str]:
        self.proc.send_signal(sig)
        try:
            _, err = self.proc.communicate(timeout=10)
        finally:
            self.proc.kill()
        return self.proc.returncode, err


class RawClient:
    """A client with nothing but a socket and msgpack."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buf = b""

    def send(self, **msg) -> None:
        body = msgpack.packb(msg)
        self.sock.sendall(struct.pack(">I", len(body)) + body)

    def recv(self) -> dict:
        while len(self.buf) < 4 or len(self.buf) < 4 + struct.unpack(">I", self.buf[:4])[0]:
            data = self.sock.recv(65536)
            if not data:
                raise EOFError
            self.buf += data
        n = struct.unpack(">I", self.buf[:4])[0]
        body, self.buf = self.buf[4:4 + n], self.buf[4 + n:]
        return msgpack.unpackb(body)

    def expect(self, tag: str) -> dict:
        while (msg := self.recv())["type"] != tag:
            pass
        return msg


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signals_shut_down_gracefully(sig: int):
    server = Server("--bots", "2")
    try:
        assert server.banner.endswith(f"nimmt-client 127.0.0.1:{server.port}")
        client = RawClient(server.port)
        client.send(type="hello", protocol=1, name="Ann", kind="human")
        assert client.expect("welcome")["resumed"] is False
        client.send(type="list_tables", id=1)
        (table,) = client.expect("table_list")["tables"]
        assert table["status"] == "waiting" and table["seats"][0] is None
        assert [s["strategy"] for s in table["seats"][1:]] == ["hard", "hard"]  # the default level
        time.sleep(0.2)
        code, log = server.stop(sig)
        goodbye = client.expect("goodbye")
        assert goodbye["reason"] == "server_shutdown"
        assert "kept" not in goodbye  # a version 3 field: version 1 is served as documented
        assert code == 0
        assert "conn=1 peer=127.0.0.1:" in log and "session 1: Ann (human) says hello" in log
        assert f"table={table['table_id']} closed: server shutdown" in log
    finally:
        server.proc.kill()


def test_the_protocol_documents_minimal_bot_plays_against_the_server():
    server = Server("--step-delay", "0", "--bots", "2")
    try:
        own = run_minimal_bot("127.0.0.1", str(server.port), "--bots", "3", timeout=60)
        assert own.returncode == 0, own.stderr
        assert "winners" in own.stdout and not own.stderr
        lister = RawClient(server.port)
        lister.send(type="hello", protocol=1, name="Lister", kind="spectator")
        lister.send(type="list_tables", id=1)
        waiting = [t["table_id"] for t in lister.expect("table_list")["tables"]
                   if t["status"] == "waiting"]
        lister.sock.close()
        joined = run_minimal_bot("127.0.0.1", str(server.port), "--join", waiting[0],
                                 timeout=60)
        assert joined.returncode == 0, joined.stderr
        assert "winners" in joined.stdout and not joined.stderr
    finally:
        code, _ = server.stop()
        assert code == 0


def test_the_server_process_runs_with_a_collector_tuned_for_a_busy_loop(monkeypatch):
    """Python's default garbage collector paused a loaded server for up to 200 ms at a
    time (benchmarks/README.md): the server's process looks at what it made at start-up
    no more, and collects the young objects less often."""
    import gc

    import trio

    from nimmt.server.app import YOUNG_COLLECTION_THRESHOLD

    seen: list[tuple[tuple[int, int, int], int]] = []
    monkeypatch.setattr(trio, "run", lambda *args: seen.append((gc.get_threshold(),
                                                                gc.get_freeze_count())))
    before = gc.get_threshold()
    try:
        assert main(["--port", "0", "--db", ":memory:"]) == 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
    [(threshold, frozen)] = seen
    assert threshold[0] == YOUNG_COLLECTION_THRESHOLD > before[0]
    assert frozen > 0
