"""The server's settings as an operator meets them (issue 43): every default, the
config file's exact error messages, each range at both of its ends (the end itself
taken, one step beyond refused), the types a setting takes, and the conversions to
and from the protocol's table options. No trio, no server: tests/test_server_cli.py
runs nimmt-server with a file and flags."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from nimmt import protocol as P
from nimmt.server.config import (
    DEFAULT_PORT, CoachAtRated, ConfigError, ServerConfig, TableSettings, UnusableStrategy,
    config_from_mapping, load_config, load_config_text,
)

SERVER_DEFAULTS = {
    "host": "0.0.0.0", "port": 6066, "log_level": "info", "name": "", "announce": True,
    "bots": 0, "bot_level": "hard", "bot_workers": 0, "max_connections": 2000,
    "max_tables": 500, "max_per_address": 256, "reserved_share": 0.1, "max_unwelcomed": 128,
    "max_unwelcomed_per_address": 16, "flood_cooldown": 1.0, "flood_cooldown_max": 30.0,
    "flood_address_cooldown": 1.0, "resume_rate": 0.2, "resume_burst": 10,
    "tables_per_session": 2, "tables_per_address": 64, "claim_burst": 20,
    "claim_interval": 60.0, "ladder_step_delay": 0.25, "max_spectators": 100,
    "max_frame_size": 65536, "frame_timeout": 30.0, "hello_timeout": 5.0,
    "ping_interval": 15.0, "pong_timeout": 30.0, "reconnect_grace": 120.0, "send_queue": 256,
    "rate_limit": 20, "chat_max": 300, "chat_rate": 1.0, "chat_burst": 5,
    "chat_address_rate": 3.0, "chat_address_burst": 10, "shutdown_flush": 2.0, "db": "",
    "durability": "normal",
}
TABLE_DEFAULTS = {
    "seats": 4, "tactic_deck": False, "draft": False, "professional": False,
    "point_limit": 66, "rounds": 0, "countdown": False, "turn_time": 30.0,
    "choice_time": 20.0, "draft_time": 15.0, "step_delay": 0.8, "unwatched_step_delay": 0.0,
    "autoplay_when_away": "grace", "grace_time": 30.0, "fallback": "heuristic",
    "time_bank": 0.0, "rated": False, "coach": True, "warn_before": 5.0, "reveal_time": 10.0,
    "abandon_after": 600.0, "keep_finished": 300.0,
}


def refused(text: str) -> str:
    with pytest.raises(ConfigError) as e:
        load_config_text(text)
    return str(e.value)


def test_every_default_and_an_empty_file_changes_none() -> None:
    config = ServerConfig()
    shown = dataclasses.asdict(config)
    table = shown.pop("table")
    assert shown == SERVER_DEFAULTS and table == TABLE_DEFAULTS
    assert DEFAULT_PORT == 6066
    assert load_config_text("") == config == config.validate()
    assert config.log_level_number == 20
    assert TableSettings().coached


def test_a_file_sets_its_settings_over_a_base_and_keeps_the_base_s_others() -> None:
    base = load_config_text('port = 7000\nname = "Den"\n[table]\nseats = 6\n')
    config = load_config_text('log_level = "DEBUG"\n[table]\nturn_time = 45\n', base)
    assert (config.port, config.name, config.log_level, config.log_level_number) == (
        7000, "Den", "debug", 10)
    assert (config.table.seats, config.table.turn_time) == (6, 45.0)
    assert type(config.table.turn_time) is float  # a whole number where a number goes
    assert config_from_mapping({"table": {"rated": True}}, base).table.seats == 6
    assert config_from_mapping({}) == ServerConfig()


def test_a_config_file_on_disk_and_one_that_cannot_be_read(tmp_path: Path) -> None:
    path = tmp_path / "server.toml"
    path.write_text("port = 7100\n[table]\ndraft = true\n", encoding="utf-8")
    config = load_config(path)
    assert (config.port, config.table.draft) == (7100, True)
    assert load_config(str(path), ServerConfig(host="127.0.0.1")).host == "127.0.0.1"
    with pytest.raises(ConfigError) as e:
        load_config(tmp_path / "missing.toml")
    assert str(e.value) == (f"cannot read config file {tmp_path / 'missing.toml'}: "
                            "No such file or directory")


@pytest.mark.parametrize("text, message", [
    ("= =", "not valid TOML: Invalid statement (at line 1, column 1)"),
    ("x = 1", "unknown setting 'x'"),
    ("[table]\ny = 2", "unknown setting table.'y'"),
    ("table = 3", "table must be a TOML table: [table]"),
    ('port = "x"', "port must be a whole number, not 'x'"),
    ("port = 1.5", "port must be a whole number, not 1.5"),
    ("port = true", "port must be a whole number, not True"),
    ("announce = 1", "announce must be true or false, not 1"),
    ("[table]\nrated = 1", "table.rated must be true or false, not 1"),
    ('[table]\nturn_time = "a"', "table.turn_time must be a number, not 'a'"),
    ("[table]\nturn_time = true", "table.turn_time must be a number, not True"),
    ("name = 3", "name must be a string, not 3"),
    ('host = ""', "host must not be empty"),
    ('log_level = "loud"', "log_level must be one of ['debug', 'info', 'warning', 'error'], "
                           "not 'loud'"),
    ('durability = "some"', "durability must be \"normal\" or \"full\", not 'some'"),
    ('db = "a\\u0000b"', "db must be a file path (or :memory:), without NUL characters"),
    ('[table]\nautoplay_when_away = "never"',
     "table.autoplay_when_away must be \"grace\" or \"immediately\", not 'never'"),
    ("[table]\nseats = 11", "players must be 2 to 10, not 11"),
    ("[table]\nseats = 1", "players must be 2 to 10, not 1"),
    ("[table]\npoint_limit = 0", "set a point_limit or a number of rounds, or the game never ends"),
    ('bot_level = "nope"', "bot_level: no strategy 'nope': choose a level (easy, normal, hard) "
                           "or a strategy (heuristic, mcs, random, search), with or without "
                           "parameters (such as search:ms=20)"),
    ('[table]\nfallback = "search:ms=-1"',
     "table.fallback: search: ms must be a number of milliseconds, 0 < ms <= 60000, not -1.0"),
])
def test_what_a_bad_file_is_told(text: str, message: str) -> None:
    assert refused(text) == message


def test_a_strategy_that_cannot_be_made_says_which_setting_and_why() -> None:
    with pytest.raises(UnusableStrategy) as e:
        load_config_text('[table]\nfallback = "nope"')
    assert (e.value.setting, e.value.reason) == (
        "table.fallback", "no strategy 'nope': choose a level (easy, normal, hard) or a "
        "strategy (heuristic, mcs, random, search)")
    with pytest.raises(UnusableStrategy) as e:
        load_config_text('bot_level = "search:ms=0"')
    assert e.value.setting == "bot_level" and str(e.value) == "bot_level: " + e.value.reason
    assert load_config_text('bot_level = "search:ms=20"').bot_level == "search:ms=20"


# (setting, lowest taken, highest taken, one step below, one step above, message)
RANGES = [
    ("port", 0, 65535, -1, 65536, "port must be 0 to 65535, not {!r}"),
    ("bot_workers", 0, 256, -1, 257, "bot_workers must be 0 (one per core) to 256, not {!r}"),
    ("ladder_step_delay", 0.0, 10.0, -0.01, 10.01,
     "ladder_step_delay must be 0 to 10 seconds, not {!r}"),
    ("reserved_share", 0.0, 0.5, -0.01, 0.51,
     "reserved_share must be 0 (none) to 0.5 (half of max_connections)"),
    ("max_spectators", 1, 10_000, 0, 10_001, "max_spectators must be 1 to 10000"),
    ("max_frame_size", 1024, 16 * 1024 * 1024, 1023, 16 * 1024 * 1024 + 1,
     "max_frame_size must be 1024 to 16777216 bytes"),
    ("hello_timeout", 0.1, 3600.0, 0.09, 3600.01, "hello_timeout must be 0.1 to 3600 seconds"),
    ("ping_interval", 0.1, 3600.0, 0.09, 3600.01, "ping_interval must be 0.1 to 3600 seconds"),
    ("pong_timeout", 0.1, 3600.0, 0.09, 3600.01, "pong_timeout must be 0.1 to 3600 seconds"),
    ("frame_timeout", 0.1, 3600.0, 0.09, 3600.01, "frame_timeout must be 0.1 to 3600 seconds"),
    ("flood_address_cooldown", 0.0, 60.0, -0.01, 60.01,
     "flood_address_cooldown must be 0 (no wait) to 60 seconds"),
    ("claim_burst", 1, 100_000, 0, 100_001, "claim_burst must be 1 to 100000 names"),
    ("claim_interval", 0.001, 86400.0, 0.0009, 86400.01,
     "claim_interval must be 0.001 to 86400 seconds"),
    ("resume_rate", 0.001, 1000.0, 0.0009, 1000.01,
     "resume_rate must be 0.001 to 1000 resumes a second"),
    ("resume_burst", 1, 1000, 0, 1001, "resume_burst must be 1 to 1000 resumes"),
    ("reconnect_grace", 0.0, 86400.0, -0.01, 86400.01,
     "reconnect_grace must be 0 to 86400 seconds"),
    ("chat_rate", 0.01, 1000.0, 0.009, 1000.01, "chat_rate must be 0.01 to 1000 lines a second"),
    ("chat_burst", 1, 1000, 0, 1001, "chat_burst must be 1 to 1000 lines"),
    ("chat_address_rate", 0.01, 1000.0, 0.009, 1000.01,
     "chat_address_rate must be 0.01 to 1000 lines a second"),
    ("chat_address_burst", 1, 1000, 0, 1001, "chat_address_burst must be 1 to 1000 lines"),
    ("rate_limit", 1, 100_000, 0, 100_001, "rate_limit must be 1 to 100000 messages a second"),
    ("shutdown_flush", 0.0, 60.0, -0.01, 60.01, "shutdown_flush must be 0 to 60 seconds"),
    ("bots", 1, 9, None, 10, "bots must be 1 to 9 (one seat stays for you), not {!r}"),
]


@pytest.mark.parametrize("name, low, high, below, above, message", RANGES,
                         ids=[r[0] for r in RANGES])
def test_each_range_takes_both_ends_and_refuses_a_step_beyond(name, low, high, below, above,
                                                              message) -> None:
    for value in (low, high):
        assert getattr(config_from_mapping({name: value}), name) == value
    for value in (below, above):
        if value is not None:
            assert refused(f"{name} = {value!r}") == message.format(value)


def test_bots_below_zero_and_zero_bots() -> None:
    assert refused("bots = -1") == "bots must be 1 to 9 (one seat stays for you), not -1"
    assert load_config_text("bots = 0").bots == 0


@pytest.mark.parametrize("name", ["max_connections", "max_tables", "send_queue", "chat_max",
                                  "max_per_address", "max_unwelcomed",
                                  "max_unwelcomed_per_address", "tables_per_session",
                                  "tables_per_address"])
def test_each_count_is_at_least_one(name: str) -> None:
    assert getattr(load_config_text(f"{name} = 1"), name) == 1
    assert getattr(load_config_text(f"{name} = 1000000"), name) == 1_000_000
    assert refused(f"{name} = 0") == f"{name} must be at least 1"


def test_the_flood_cool_downs() -> None:
    assert refused("flood_cooldown = -0.01") == (
        "flood_cooldown must be 0 (no cool-down) to 3600 seconds")
    assert refused("flood_cooldown = 3600.01\nflood_cooldown_max = 3600") == (
        "flood_cooldown must be 0 (no cool-down) to 3600 seconds")
    assert load_config_text("flood_cooldown = 0").flood_cooldown == 0.0
    same = load_config_text("flood_cooldown = 3600\nflood_cooldown_max = 3600")
    assert (same.flood_cooldown, same.flood_cooldown_max) == (3600.0, 3600.0)
    assert load_config_text("flood_cooldown = 5\nflood_cooldown_max = 5").flood_cooldown_max == 5
    message = "flood_cooldown_max must be flood_cooldown to 3600 seconds"
    assert refused("flood_cooldown = 5\nflood_cooldown_max = 4.99") == message
    assert refused("flood_cooldown_max = 3600.01") == message


@pytest.mark.parametrize("name, ok, message", [
    ("Den", True, ""), ("A" * 40, True, ""), ("é" * 31 + "a", True, ""),
    ("A" * 41, False, ""), ("é" * 32, False, ""), ("a.b", False, ""), (" Den", False, ""),
    ("Den ", False, ""), ("De\tn", False, ""),
])
def test_the_name_the_lan_lists(name: str, ok: bool, message: str) -> None:
    if ok:
        assert config_from_mapping({"name": name}).name == name
    else:
        assert refused(f"name = {name!r}".replace("'", '"')) == (
            "name must be 1 to 40 printable characters (63 bytes of UTF-8), without dots or "
            f"spaces at either end, not {name!r}")


# ------------------------------------------------------------------ the [table] section
TABLE_RANGES = [
    ("turn_time", 0.1, 3600.0, 0.09, 3600.01), ("choice_time", 0.1, 3600.0, 0.09, 3600.01),
    ("draft_time", 0.1, 3600.0, 0.09, 3600.01), ("step_delay", 0.0, 10.0, -0.01, 10.01),
    ("unwatched_step_delay", 0.0, 10.0, -0.01, 10.01), ("grace_time", 0.0, 3600.0, -0.01, 3600.01),
    ("warn_before", 0.0, 3600.0, -0.01, 3600.01), ("abandon_after", 1.0, 86400.0, 0.99, 86400.01),
    ("keep_finished", 0.0, 86400.0, -0.01, 86400.01), ("time_bank", 0.0, 3600.0, -0.01, 3600.01),
    ("reveal_time", 0.1, 3600.0, 0.09, 3600.01),
]


@pytest.mark.parametrize("name, low, high, below, above", TABLE_RANGES,
                         ids=[r[0] for r in TABLE_RANGES])
def test_each_table_timer_takes_both_ends_and_refuses_a_step_beyond(name, low, high, below,
                                                                    above) -> None:
    for value in (low, high):
        assert getattr(load_config_text(f"[table]\n{name} = {value!r}").table, name) == value
    for value in (below, above):
        assert refused(f"[table]\n{name} = {value!r}") == (
            f"table.{name} must be {low:g} to {high:g} seconds, not {value!r}")


def test_the_end_of_a_game_point_limit_and_rounds() -> None:
    assert load_config_text("[table]\npoint_limit = 1000").table.point_limit == 1000
    assert refused("[table]\npoint_limit = 1001") == (
        "table.point_limit must be 0 to 1000, not 1001")
    # below 0 the engine refuses first, in its own words
    assert refused("[table]\npoint_limit = -1") == "point_limit must be 1 to 10000 or None, not -1"
    by_rounds = load_config_text("[table]\npoint_limit = 0\nrounds = 100").table
    assert (by_rounds.point_limit, by_rounds.rounds) == (0, 100)
    assert refused("[table]\nrounds = 101") == "table.rounds must be 0 to 100, not 101"
    assert refused("[table]\nrounds = -1") == "rounds must be 1 to 1000 or None, not -1"
    options = by_rounds.game_options()
    assert (options.players, options.point_limit, options.rounds) == (4, None, 100)
    table = load_config_text("[table]\nseats = 10\ntactic_deck = true\nprofessional = true\n"
                             "draft = true\nrounds = 3").table
    options = table.game_options()
    assert (options.players, options.tactic_deck, options.draft, options.professional,
            options.point_limit, options.rounds) == (10, True, True, True, 66, 3)
    assert load_config_text("[table]\nseats = 2").table.seats == 2
    assert load_config_text('[table]\nautoplay_when_away = "immediately"').table \
        .autoplay_when_away == "immediately"


def test_the_table_options_a_client_sees() -> None:
    table = load_config_text('[table]\nfallback = "search:ms=20"\nrated = true\n'
                             "time_bank = 60\npoint_limit = 0\nrounds = 5").table
    wire = table.to_wire()
    assert (wire.fallback, wire.point_limit, wire.rounds, wire.coach, wire.rated,
            wire.time_bank) == ("search", None, 5, False, True, 60.0)
    assert table.coach and not table.coached
    plain = TableSettings().to_wire()
    assert (plain.point_limit, plain.rounds, plain.coach, plain.seats, plain.turn_time) == (
        66, None, True, 4, 30.0)
    assert plain == P.TableOptions(point_limit=66, rounds=None, seats=4, coach=True,
                                   fallback="heuristic")


def test_a_client_s_options_over_the_server_s() -> None:
    base = load_config_text("[table]\nseats = 6\nturn_time = 50\ntime_bank = 20").table
    same = TableSettings.from_wire(P.TableOptions(), base)
    assert same == base
    mine = TableSettings.from_wire(P.TableOptions(seats=3, professional=True, rounds=4,
                                                  point_limit=None), base)
    assert (mine.seats, mine.professional, mine.turn_time, mine.time_bank, mine.point_limit,
            mine.rounds) == (3, True, 50.0, 20.0, 0, 4)
    rated = TableSettings.from_wire(P.TableOptions(rated=True, coach=None), base)
    assert (rated.rated, rated.coach, rated.coached) == (True, False, False)
    with pytest.raises(CoachAtRated) as e:
        TableSettings.from_wire(P.TableOptions(rated=True, coach=True), base)
    assert str(e.value).startswith("a rated table has no coach: its players' ratings must not "
                                   "depend on a helper only some of them see. Leave coach out")
    with pytest.raises(UnusableStrategy) as e2:
        TableSettings.from_wire(P.TableOptions(fallback="nope"), base)
    assert e2.value.setting == "table.fallback"
