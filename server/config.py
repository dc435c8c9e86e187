"""Server and table settings: defaults, the TOML config file, validation.

Every setting has a default; a TOML file (``nimmt-server --config FILE``) may
set any of them, and command-line flags override the file.

>>> config = ServerConfig()
>>> config.port, config.host, config.table.turn_time
(6066, '0.0.0.0', 30.0)
>>> load_config_text('port = 7000\\n[table]\\nturn_time = 45\\n').table.turn_time
45.0
"""

from __future__ import annotations

import dataclasses
import logging
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from nimmt import protocol as P
from nimmt.bots import DEFAULT_LEVEL, StrategyError, UnknownStrategy, make_strategy
from nimmt.engine import InvalidOptions, Options

__all__ = [
    "DEFAULT_PORT",
    "ConfigError",
    "UnusableStrategy",
    "check_strategy",
    "TableSettings",
    "CoachAtRated",
    "ServerConfig",
    "load_config",
    "load_config_text",
]

#: THE default port: 6066, like 6 nimmt.
DEFAULT_PORT = 6066

LOG_LEVELS = ("debug", "info", "warning", "error")


class ConfigError(ValueError):
    """A setting with a wrong name, type or value (the message says which)."""


class UnusableStrategy(ConfigError):
    """A setting naming a strategy that cannot be made: ``setting`` says which
    (``"table.fallback"``), ``reason`` why (``StrategyError``'s message)."""

    def __init__(self, setting: str, reason: str, hint: str = "") -> None:
        super().__init__(f"{setting}: {reason}{hint}")
        self.setting = setting
        self.reason = reason


class CoachAtRated(ConfigError):
    """A rated table asked for with the coach on (``options.coach``): refused, never
    turned off behind the host's back, so that they know their players get no coach."""

    def __init__(self) -> None:
        super().__init__(
            "a rated table has no coach: its players' ratings must not depend on a helper "
            "only some of them see. Leave coach out (or false) for a rated table, or create "
            "a table that is not rated to play with the coach")


# the fields a client sees and sets (the protocol's TableOptions) besides the end condition
_WIRE_NAMES = (
    "seats", "tactic_deck", "draft", "professional", "countdown", "turn_time", "choice_time",
    "draft_time", "step_delay", "autoplay_when_away", "grace_time", "fallback", "time_bank",
    "rated", "coach",
)


@dataclass(frozen=True, slots=True)
class TableSettings:
    """One table's options and timers (the ``[table]`` section of the config).

    The names are those of the protocol's ``TableOptions`` (docs/PROTOCOL.md),
    plus four that only the server sets: ``warn_before``, ``reveal_time``,
    ``abandon_after`` and ``keep_finished``. The one server-side shape of a table's options: it
    converts at each boundary, ``from_wire``/``to_wire`` (the protocol) and
    ``game_options`` (the engine). Times are in seconds. ``point_limit = 0`` and
    ``rounds = 0`` mean "not set" (TOML has no null).
    """

    # --- the game (RULES.md) -----------------------------------------------------------
    seats: int = 4
    tactic_deck: bool = False
    draft: bool = False
    professional: bool = False
    point_limit: int = 66
    rounds: int = 0
    countdown: bool = False  # clients show scores counting down from the limit
    # --- timers ---------------------------------------------------------------------------
    turn_time: float = 30.0  # to commit a card
    choice_time: float = 20.0  # to choose a row (a card that fits no row) or a tied place
    draft_time: float = 15.0  # to pick a card in Draft
    step_delay: float = 0.8  # between resolution steps, while a person watches
    # between resolution steps while no person watches (0: full speed); the server sets
    # it, never a client: the ladder's tables get ``ladder_step_delay``
    unwatched_step_delay: float = 0.0
    autoplay_when_away: str = "grace"  # "grace" or "immediately"
    grace_time: float = 30.0  # "grace": a player away this long is played for at once
    # the strategy that decides a card or pick at a deadline: a level, or a strategy
    # spec with or without parameters ("search:ms=20"; over the wire names only)
    fallback: str = "heuristic"
    # each seat's reserve for a game (Board Game Arena's "extra time"): a decision not
    # made by its deadline draws on it before the autopilot decides (match_bank)
    time_bank: float = 0.0
    # finished games update the ratings of its claimed players (server/ladder/ratings.py)
    rated: bool = False
    # the coach (clients show where the card being chosen would go): at a table that is
    # not rated, unless its host turns it off; a rated table never has it (``coached``)
    coach: bool = True
    warn_before: float = 5.0  # players who have not decided are warned this long before
    # seats that sent a hash of their entropy have this long to reveal it once the game's
    # seats are fixed (docs/PROTOCOL.md, "Verifiable deals"); later: withheld
    reveal_time: float = 10.0
    abandon_after: float = 600.0  # nobody connected this long: the table is closed
    keep_finished: float = 300.0  # a finished table nobody is at is closed after this

    @classmethod
    def from_wire(cls, options: P.TableOptions, base: TableSettings) -> TableSettings:
        """A new table's settings from a client's ``create_table.options``: a field
        left at the protocol's default takes ``base``'s (the server's) instead.
        Raises ``ConfigError``."""
        default = P.TableOptions()
        changes: dict[str, Any] = {}
        for name in _WIRE_NAMES:
            value = getattr(options, name)
            if value != getattr(default, name):
                changes[name] = value
        if (options.point_limit, options.rounds) != (default.point_limit, default.rounds):
            changes["point_limit"] = options.point_limit or 0
            changes["rounds"] = options.rounds or 0
        settings = replace(base, **changes).validate()
        if settings.rated:
            if options.coach:
                raise CoachAtRated()
            settings = replace(settings, coach=False)
        return settings

    @property
    def coached(self) -> bool:
        """Whether the table has the coach (a rated one never has: ``from_wire``)."""
        return self.coach and not self.rated

    def to_wire(self) -> P.TableOptions:
        """The options as the protocol shows them (``table.options``)."""
        shown = {name: getattr(self, name) for name in _WIRE_NAMES}
        shown["coach"] = self.coached
        # the wire allows no ":": a fallback with parameters is shown by its strategy's name
        shown["fallback"] = self.fallback.partition(":")[0].strip()
        return P.TableOptions(
            point_limit=self.point_limit or None, rounds=self.rounds or None, **shown,
        )

    def game_options(self) -> Options:
        """The engine ``Options`` these settings describe (raises ``ConfigError``)."""
        try:
            return Options(
                players=self.seats,
                tactic_deck=self.tactic_deck,
                draft=self.draft,
                professional=self.professional,
                point_limit=self.point_limit or None,
                rounds=self.rounds or None,
            )
        except InvalidOptions as e:
            raise ConfigError(str(e)) from None

    def validate(self) -> TableSettings:
        self.game_options()
        if not 0 <= self.point_limit <= 1000:
            raise ConfigError(f"table.point_limit must be 0 to 1000, not {self.point_limit!r}")
        if not 0 <= self.rounds <= 100:
            raise ConfigError(f"table.rounds must be 0 to 100, not {self.rounds!r}")
        ranges = {
            "turn_time": (0.1, P.MAX_DECISION_TIME), "choice_time": (0.1, P.MAX_DECISION_TIME),
            "draft_time": (0.1, P.MAX_DECISION_TIME), "step_delay": (0.0, 10.0),
            "unwatched_step_delay": (0.0, 10.0), "grace_time": (0.0, 3600.0),
            "warn_before": (0.0, 3600.0), "abandon_after": (1.0, 86400.0),
            "keep_finished": (0.0, 86400.0), "time_bank": (0.0, 3600.0),
            "reveal_time": (0.1, 3600.0),
        }
        for name, (low, high) in ranges.items():
            value = getattr(self, name)
            if not low <= value <= high:
                raise ConfigError(f"table.{name} must be {low:g} to {high:g} seconds, not {value!r}")
        if self.autoplay_when_away not in ("grace", "immediately"):
            raise ConfigError(
                f'table.autoplay_when_away must be "grace" or "immediately", '
                f"not {self.autoplay_when_away!r}"
            )
        check_strategy("table.fallback", self.fallback)
        return self


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Everything ``nimmt-server`` can be told (top level of the config file)."""

    host: str = "0.0.0.0"
    port: int = DEFAULT_PORT
    log_level: str = "info"
    # --- the LAN announcement (docs/SERVER.md, "Found on the LAN") -------------------------
    name: str = ""  # the name clients list; "": the host name
    announce: bool = True  # announce by multicast DNS (never when listening on loopback only)
    bots: int = 0  # >0: keep a table with this many bots open, waiting for one human
    bot_level: str = DEFAULT_LEVEL  # the --bots table's bots: a level or a strategy spec
    bot_workers: int = 0  # processes that run searching bots; 0: one per core
    max_connections: int = 2000
    max_tables: int = 500
    # --- one client's share (docs/SERVER.md, "Limits") ------------------------------------
    max_per_address: int = 256  # connections from one IP address (a LAN party behind a NAT)
    reserved_share: float = 0.1  # of max_connections, kept for addresses holding fewer than 4
    max_unwelcomed: int = 128  # connections that have not said hello yet, from everywhere
    max_unwelcomed_per_address: int = 16  # ... from one address
    flood_cooldown: float = 1.0  # closed for flooding: its session may not resume this long (0: not)
    flood_cooldown_max: float = 30.0  # ... doubled for each further flood, up to this
    flood_address_cooldown: float = 1.0  # ... and its address may not connect this long (0: not)
    resume_rate: float = 0.2  # resumes a second one session may make, on average
    resume_burst: int = 10  # ... and at once (a hello with its token beyond: rate_limited)
    tables_per_session: int = 2  # open tables one session created
    tables_per_address: int = 64  # open tables created from one address
    claim_burst: int = 20  # names one address may claim at once (hello.key) ...
    claim_interval: float = 60.0  # ... then one every this many seconds
    ladder_step_delay: float = 0.25  # the pause a step adds to a ladder table's turn (docs/SERVER.md)
    max_spectators: int = 100  # spectators at one table; one more watch: error table_full
    max_frame_size: int = 65536  # bytes of one frame's body; a larger frame: dropped
    frame_timeout: float = 30.0  # a frame begun must be complete within this
    hello_timeout: float = 5.0  # a new connection must say hello within this
    ping_interval: float = 15.0  # the server pings every connection this often
    pong_timeout: float = 30.0  # nothing received for ping_interval + this: dropped
    reconnect_grace: float = 120.0  # a session at no table can be resumed this long
    send_queue: int = 256  # messages waiting for a slow client before it is dropped
    rate_limit: int = 20  # messages a second a client may send (bursts of twice that)
    chat_max: int = 300  # characters in a chat line
    chat_rate: float = 1.0  # chat lines a second one session may say, on average
    chat_burst: int = 5  # ... and at once; a line over it: error rate_limited, not sent
    chat_address_rate: float = 3.0  # chat lines a second all sessions of one address may say
    chat_address_burst: int = 10  # ... and at once
    shutdown_flush: float = 2.0  # at shutdown, time given to clients to receive goodbye
    db: str = ""  # the database (docs/SERVER.md, "Storage"); "": the default file; ":memory:": none
    durability: str = "normal"  # "full": every database write synced to the disk (docs/SERVER.md)
    table: TableSettings = field(default_factory=TableSettings)

    def validate(self) -> ServerConfig:
        if not self.host:
            raise ConfigError("host must not be empty")
        if not 0 <= self.port <= 65535:
            raise ConfigError(f"port must be 0 to 65535, not {self.port!r}")
        if self.name and not (self.name.isprintable() and "." not in self.name
                              and len(self.name) <= 40 and len(self.name.encode()) <= 63
                              and self.name.strip() == self.name):
            raise ConfigError("name must be 1 to 40 printable characters (63 bytes of UTF-8), "
                              f"without dots or spaces at either end, not {self.name!r}")
        if self.log_level not in LOG_LEVELS:
            raise ConfigError(f"log_level must be one of {list(LOG_LEVELS)}, not {self.log_level!r}")
        if self.bots and not 1 <= self.bots <= 9:
            raise ConfigError(f"bots must be 1 to 9 (one seat stays for you), not {self.bots!r}")
        check_strategy("bot_level", self.bot_level)
        if not 0 <= self.bot_workers <= 256:
            raise ConfigError(f"bot_workers must be 0 (one per core) to 256, not {self.bot_workers!r}")
        if not 0.0 <= self.ladder_step_delay <= 10.0:
            raise ConfigError("ladder_step_delay must be 0 to 10 seconds, not "
                              f"{self.ladder_step_delay!r}")
        for name in ("max_connections", "max_tables", "send_queue", "chat_max",
                     "max_per_address", "max_unwelcomed", "max_unwelcomed_per_address",
                     "tables_per_session", "tables_per_address"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be at least 1")
        if not 0.0 <= self.reserved_share <= 0.5:
            raise ConfigError("reserved_share must be 0 (none) to 0.5 (half of max_connections)")
        if not 1 <= self.max_spectators <= 10_000:
            raise ConfigError("max_spectators must be 1 to 10000")
        if not 1024 <= self.max_frame_size <= 16 * 1024 * 1024:
            raise ConfigError("max_frame_size must be 1024 to 16777216 bytes")
        for name in ("hello_timeout", "ping_interval", "pong_timeout", "frame_timeout"):
            if not 0.1 <= getattr(self, name) <= 3600.0:
                raise ConfigError(f"{name} must be 0.1 to 3600 seconds")
        if not 0.0 <= self.flood_cooldown <= 3600.0:
            raise ConfigError("flood_cooldown must be 0 (no cool-down) to 3600 seconds")
        if not self.flood_cooldown <= self.flood_cooldown_max <= 3600.0:
            raise ConfigError("flood_cooldown_max must be flood_cooldown to 3600 seconds")
        if not 0.0 <= self.flood_address_cooldown <= 60.0:
            raise ConfigError("flood_address_cooldown must be 0 (no wait) to 60 seconds")
        if not 1 <= self.claim_burst <= 100_000:
            raise ConfigError("claim_burst must be 1 to 100000 names")
        if not 0.001 <= self.claim_interval <= 86400.0:
            raise ConfigError("claim_interval must be 0.001 to 86400 seconds")
        if not 0.001 <= self.resume_rate <= 1000.0:
            raise ConfigError("resume_rate must be 0.001 to 1000 resumes a second")
        if not 1 <= self.resume_burst <= 1000:
            raise ConfigError("resume_burst must be 1 to 1000 resumes")
        if not 0.0 <= self.reconnect_grace <= 86400.0:
            raise ConfigError("reconnect_grace must be 0 to 86400 seconds")
        if not 0.01 <= self.chat_rate <= 1000.0:
            raise ConfigError("chat_rate must be 0.01 to 1000 lines a second")
        if not 1 <= self.chat_burst <= 1000:
            raise ConfigError("chat_burst must be 1 to 1000 lines")
        if not 0.01 <= self.chat_address_rate <= 1000.0:
            raise ConfigError("chat_address_rate must be 0.01 to 1000 lines a second")
        if not 1 <= self.chat_address_burst <= 1000:
            raise ConfigError("chat_address_burst must be 1 to 1000 lines")
        if not 1 <= self.rate_limit <= 100_000:
            raise ConfigError("rate_limit must be 1 to 100000 messages a second")
        if not 0.0 <= self.shutdown_flush <= 60.0:
            raise ConfigError("shutdown_flush must be 0 to 60 seconds")
        if "\0" in self.db:
            raise ConfigError("db must be a file path (or :memory:), without NUL characters")
        if self.durability not in ("normal", "full"):
            raise ConfigError(f'durability must be "normal" or "full", not {self.durability!r}')
        self.table.validate()
        return self

    @property
    def log_level_number(self) -> int:
        return getattr(logging, self.log_level.upper())


def check_strategy(where: str, spec: str) -> None:
    """Raise ``UnusableStrategy`` unless ``spec`` makes a strategy: a level, a strategy's
    name, or a name with parameters (``"search:ms=20"``), every value in range."""
    try:
        make_strategy(spec)
    except UnknownStrategy as e:  # its message lists the levels and strategies
        raise UnusableStrategy(where, str(e), ", with or without parameters (such as "
                               "search:ms=20)") from None
    except StrategyError as e:  # a parameter: the message says which and what it takes
        raise UnusableStrategy(where, str(e)) from None


def _coerce(owner: str, f: dataclasses.Field[Any], value: Any) -> Any:
    kind = f.type if isinstance(f.type, str) else f.type.__name__
    where = f"{owner}{f.name}"
    if kind == "bool":
        if type(value) is not bool:
            raise ConfigError(f"{where} must be true or false, not {value!r}")
        return value
    if kind == "int":
        if type(value) is not int:
            raise ConfigError(f"{where} must be a whole number, not {value!r}")
        return value
    if kind == "float":
        if type(value) not in (int, float):
            raise ConfigError(f"{where} must be a number, not {value!r}")
        return float(value)
    if kind == "str":
        if type(value) is not str:
            raise ConfigError(f"{where} must be a string, not {value!r}")
        return value.lower() if f.name == "log_level" else value
    raise ConfigError(f"{where} cannot be set here")  # pragma: no cover


def _apply(cls: type, base: Any, data: dict[str, Any], owner: str) -> Any:
    known = {f.name: f for f in fields(cls)}
    changes: dict[str, Any] = {}
    for key, value in data.items():
        f = known.get(key)
        if f is None or f.name == "table":
            raise ConfigError(f"unknown setting {owner}{key!r}")
        changes[key] = _coerce(owner, f, value)
    return replace(base, **changes)


def config_from_mapping(data: dict[str, Any], base: ServerConfig | None = None) -> ServerConfig:
    """Settings from a parsed TOML document (top-level keys and a ``[table]`` table)."""
    base = base or ServerConfig()
    data = dict(data)
    table = data.pop("table", {})
    if not isinstance(table, dict):
        raise ConfigError("table must be a TOML table: [table]")
    config = _apply(ServerConfig, base, data, "")
    config = replace(config, table=_apply(TableSettings, base.table, table, "table."))
    return config.validate()


def load_config_text(text: str, base: ServerConfig | None = None) -> ServerConfig:
    """Parse TOML ``text`` into a validated ``ServerConfig``."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"not valid TOML: {e}") from None
    return config_from_mapping(data, base)


def load_config(path: str | Path, base: ServerConfig | None = None) -> ServerConfig:
    """Read and validate the TOML config file at ``path``."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"cannot read config file {path}: {e.strerror or e}") from None
    return load_config_text(text, base)
