"""``nimmt-server``'s command line as an operator meets it, without a server process:
every flag lands on its setting, a flag left out keeps the config file's value, and
each way of failing to start says why on stderr with its exit code."""

from __future__ import annotations

import gc
import socket
from pathlib import Path

import pytest
import trio

from nimmt.server import ServerConfig
from nimmt.server import cli
from nimmt.server.cli import config_from_args, main, parse_args
from nimmt.server.storage import DatabaseLocked

#: every flag of the command line with a value none of the defaults has
FLAGS = [
    "--host", "192.0.2.5", "--port", "7011", "--log-level", "debug", "--name", "Ann's party",
    "--no-announce", "--bots", "3", "--bot-level", "easy", "--bot-workers", "2",
    "--max-connections", "300", "--db", "/srv/nimmt/party.db", "--durability", "full",
    "--seats", "6", "--point-limit", "50", "--rounds", "3", "--turn-time", "12.5",
    "--choice-time", "7.5", "--draft-time", "9", "--step-delay", "0.25",
    "--autoplay-when-away", "immediately", "--grace-time", "12", "--fallback", "normal",
    "--time-bank", "4", "--warn-before", "3", "--reveal-time", "6", "--abandon-after", "120",
    "--keep-finished", "90", "--tactic-deck", "--draft", "--countdown", "--professional",
]


def test_every_flag_sets_its_own_setting():
    config = config_from_args(parse_args(FLAGS))
    assert (config.host, config.port, config.log_level, config.name, config.announce) == (
        "192.0.2.5", 7011, "debug", "Ann's party", False)
    assert (config.bots, config.bot_level, config.bot_workers, config.max_connections) == (
        3, "easy", 2, 300)
    assert (config.db, config.durability) == ("/srv/nimmt/party.db", "full")
    t = config.table
    assert (t.seats, t.point_limit, t.rounds) == (6, 50, 3)
    assert (t.turn_time, t.choice_time, t.draft_time, t.step_delay) == (12.5, 7.5, 9.0, 0.25)
    assert (t.autoplay_when_away, t.grace_time, t.fallback, t.time_bank) == (
        "immediately", 12.0, "normal", 4.0)
    assert (t.warn_before, t.reveal_time, t.abandon_after, t.keep_finished) == (
        3.0, 6.0, 120.0, 90.0)
    assert (t.tactic_deck, t.draft, t.countdown, t.professional) == (True, True, True, True)


def test_without_flags_the_defaults_hold_and_nothing_is_turned_on():
    args = parse_args([])
    assert all(value is None for value in vars(args).values())
    config = config_from_args(args)
    assert config == ServerConfig()
    assert (config.announce, config.bots, config.db, config.durability) == (
        True, 0, "", "normal")
    t = config.table
    assert (t.tactic_deck, t.draft, t.countdown, t.professional) == (False,) * 4


def test_a_flag_left_out_keeps_the_config_file_value(tmp_path: Path):
    path = tmp_path / "party.toml"
    path.write_text(
        'host = "192.0.2.9"\nport = 7200\nname = "Kitchen"\nannounce = false\nbots = 2\n'
        'bot_level = "normal"\nbot_workers = 1\nmax_connections = 100\ndb = "x.db"\n'
        'durability = "full"\n'
        "[table]\nseats = 3\npoint_limit = 40\nrounds = 2\nturn_time = 11\nchoice_time = 8\n"
        "draft_time = 6\nstep_delay = 0.5\nautoplay_when_away = 'immediately'\n"
        "grace_time = 9\nfallback = 'easy'\ntime_bank = 5\nwarn_before = 2\nreveal_time = 4\n"
        "abandon_after = 100\nkeep_finished = 50\ntactic_deck = true\ndraft = true\n"
        "countdown = true\nprofessional = true\n")
    from nimmt.server import load_config

    assert config_from_args(parse_args(["--config", str(path)])) == load_config(path)
    config = config_from_args(parse_args(["--config", str(path), "--no-draft", "--seats", "4"]))
    assert (config.port, config.announce, config.table.draft, config.table.seats) == (
        7200, False, False, 4)
    assert (config.table.tactic_deck, config.table.point_limit) == (True, 40)


def test_announce_is_a_switch_both_ways(tmp_path: Path):
    path = tmp_path / "quiet.toml"
    path.write_text("announce = false\n")
    assert config_from_args(parse_args(["--config", str(path), "--announce"])).announce is True
    assert config_from_args(parse_args(["--no-announce"])).announce is False


def test_a_bad_flag_value_is_named_and_exits_2(capsys):
    assert main(["--bots", "12"]) == 2
    assert capsys.readouterr().err == (
        "nimmt-server: bots must be 1 to 9 (one seat stays for you), not 12\n")
    with pytest.raises(SystemExit) as stop:
        parse_args(["--durability", "often"])
    assert stop.value.code == 2
    assert "argument --durability: invalid choice: 'often'" in capsys.readouterr().err


@pytest.fixture
def no_run(monkeypatch):
    """``trio.run`` replaced by what a test makes it do; the collector put back after."""
    before = gc.get_threshold()
    calls: list[ServerConfig] = []

    def install(effect=None):
        def fake_run(fn, config):
            calls.append(config)
            if effect is not None:
                raise effect
        monkeypatch.setattr(trio, "run", fake_run)
        return calls

    yield install
    gc.unfreeze()
    gc.set_threshold(*before)


def test_a_clean_stop_exits_0_and_runs_the_server_with_the_config(no_run, capsys):
    calls = no_run()
    assert main(["--port", "7300", "--db", ":memory:", "--bots", "2"]) == 0
    [config] = calls
    assert (config.port, config.db, config.bots) == (7300, ":memory:", 2)
    assert capsys.readouterr().err == ""


def test_a_database_in_use_exits_1_with_its_reason(no_run, capsys, tmp_path: Path):
    no_run(DatabaseLocked(tmp_path / "n.db", "n.db is in use by another nimmt-server"))
    assert main(["--db", str(tmp_path / "n.db")]) == 1
    assert capsys.readouterr().err == "nimmt-server: n.db is in use by another nimmt-server\n"


def test_a_port_it_cannot_listen_on_exits_1_naming_the_address(no_run, capsys):
    no_run(OSError(98, "Address already in use"))
    assert main(["--host", "127.0.0.1", "--port", "7400"]) == 1
    assert capsys.readouterr().err == (
        "nimmt-server: cannot listen on 127.0.0.1:7400: Address already in use\n")
    no_run(OSError("no strerror here"))
    assert main(["--port", "7401"]) == 1
    assert capsys.readouterr().err == (
        "nimmt-server: cannot listen on 0.0.0.0:7401: no strerror here\n")


def test_a_second_ctrl_c_during_the_goodbyes_exits_130(no_run, capsys):
    no_run(KeyboardInterrupt())
    assert main(["--db", ":memory:"]) == 130
    assert capsys.readouterr().err == ""


def test_a_port_in_use_for_real(capsys):
    """The real ``trio.run``: another program holds the port on 127.0.0.1."""
    before = gc.get_threshold()
    holder = socket.socket()
    try:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        assert main(["--host", "127.0.0.1", "--port", str(port), "--db", ":memory:"]) == 1
    finally:
        holder.close()
        gc.unfreeze()
        gc.set_threshold(*before)
    err = capsys.readouterr().err
    assert err.startswith(f"nimmt-server: cannot listen on 127.0.0.1:{port}: ")
    assert err.endswith("in use\n")


def test_the_log_level_reaches_the_logging_setup(no_run, monkeypatch):
    no_run()
    levels: list[int] = []
    monkeypatch.setattr(cli, "setup_logging", levels.append)
    assert main(["--log-level", "warning", "--db", ":memory:"]) == 0
    assert main(["--db", ":memory:"]) == 0
    assert levels == [30, 20]


def test_the_module_runs_as_a_program():
    """``python -m nimmt.server.cli`` is ``nimmt-server`` (its exit code is main's)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "nimmt.server.cli", "--bots", "12"],
                          capture_output=True, text=True, timeout=50)
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", "nimmt-server: bots must be 1 to 9 (one seat stays for you), not 12\n")
