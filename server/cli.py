"""``nimmt-server``: the command line.

    nimmt-server                      # all interfaces, port 6066
    nimmt-server --bots 3             # a table of 3 bots waits for you
    nimmt-server --bots 3 --bot-level easy
    nimmt-server --config party.toml --port 7000
    nimmt-server --name "Ann's party"     # the name clients list (default: the host name)
    nimmt-server --no-announce            # not found on the LAN: players type the address

Flags override the config file, which overrides the defaults (docs/SERVER.md).
"""

from __future__ import annotations

import argparse
import logging
import sys
from dataclasses import replace
from typing import Any
from collections.abc import Sequence

import trio

from .net.addresses import join_hint, lan_addresses
from .config import DEFAULT_PORT, LOG_LEVELS, ConfigError, ServerConfig, load_config

__all__ = ["main", "parse_args", "config_from_args", "lan_addresses", "join_hint"]

log = logging.getLogger("nimmt.server")

# flag name -> (ServerConfig or TableSettings field, type, help)
_TABLE_FLAGS: tuple[tuple[str, type, str], ...] = (
    ("seats", int, "seats at a new table, 2-10 (default 4)"),
    ("point_limit", int, "the game ends after the round a total reaches this (default 66; 0: none)"),
    ("rounds", int, "the game ends after this many rounds (default 0: no fixed number)"),
    ("turn_time", float, "seconds to commit a card (default 30)"),
    ("choice_time", float, "seconds to choose a row or a tied place (default 20)"),
    ("draft_time", float, "seconds for a draft pick (default 15)"),
    ("step_delay", float, "seconds between resolution steps while a person watches (default 0.8)"),
    ("autoplay_when_away", str, '"grace" (default) or "immediately": when a disconnected '
     "player's decisions are made for them"),
    ("grace_time", float, "with grace: seconds away before a player is played for at once "
     "(default 30)"),
    ("fallback", str, "strategy deciding for a player whose time ran out: a level (easy, "
     "normal, hard) or a strategy, parameters allowed, e.g. search:ms=20 (default heuristic)"),
    ("time_bank", float, "seconds of extra time each seat has in a game, drawn on when a "
     "decision's time is up, before the autopilot decides (default 0: none)"),
    ("warn_before", float, "seconds before a deadline when players are warned (default 5)"),
    ("reveal_time", float, "seconds a seat that sent a hash of its entropy has to reveal it "
     "once the game's seats are fixed; later, it contributes nothing (default 10)"),
    ("abandon_after", float, "a table with nobody connected is closed after this (default 600)"),
    ("keep_finished", float, "a finished table nobody is at is closed after this (default 300)"),
)
_TABLE_SWITCHES: tuple[tuple[str, str], ...] = (
    ("tactic_deck", "play with the Tactic deck (cards 1 to 10 x seats + 4)"),
    ("draft", "Draft variant: players pick their hands"),
    ("countdown", "clients show scores counting down from the point limit"),
    ("professional", "Professional rows: cards may go before a row's first card"),
)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="nimmt-server",
        description="Serve 6 nimmt! tables on your LAN. Every option also has a config file key "
        "(see docs/SERVER.md); flags override the file.",
    )
    p.add_argument("--config", metavar="FILE", help="TOML config file")
    p.add_argument("--host", help="address to listen on (default 0.0.0.0: every interface)")
    p.add_argument("--port", type=int, help=f"TCP port (default {DEFAULT_PORT}, like 6 nimmt)")
    p.add_argument("--log-level", choices=LOG_LEVELS, help="log detail (default info)")
    p.add_argument("--name", help="the name players see when their client finds this server "
                   "on the LAN (default: the host name)")
    p.add_argument("--announce", action=argparse.BooleanOptionalAction, default=None,
                   help="announce the server on the LAN by multicast DNS, so that "
                   "nimmt-client finds it without an address (default: on; never when "
                   "listening on loopback only); --no-announce: stay silent")
    p.add_argument("--bots", type=int, metavar="N",
                   help="open a table with N built-in bots waiting for one human (1-9)")
    p.add_argument("--bot-level", metavar="LEVEL",
                   help="the --bots table's bots: easy, normal or hard (default hard), or a "
                   "strategy such as search:ms=50")
    p.add_argument("--bot-workers", type=int, metavar="N",
                   help="processes that run searching bots (default 0: one per core)")
    p.add_argument("--max-connections", type=int, metavar="N", help="default 2000")
    p.add_argument("--db", metavar="PATH", help="the database of tables and finished games "
                   "(default: ~/.local/share/nimmt/nimmt.db; :memory: keeps nothing)")
    p.add_argument("--durability", choices=("normal", "full"),
                   help="normal (default): a killed server loses nothing it confirmed, a power "
                   "cut may lose its last moments; full: every write synced to the disk first")
    g = p.add_argument_group("default table options")
    for name, typ, text in _TABLE_FLAGS:
        g.add_argument("--" + name.replace("_", "-"), dest=name, type=typ, help=text)
    for name, text in _TABLE_SWITCHES:
        g.add_argument("--" + name.replace("_", "-"), dest=name, action=argparse.BooleanOptionalAction,
                       default=None, help=text)
    return p


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    return _parser().parse_args(argv)


def config_from_args(args: argparse.Namespace) -> ServerConfig:
    """Defaults, then the config file, then the flags; validated."""
    config = load_config(args.config) if args.config else ServerConfig()
    top: dict[str, Any] = {}
    for name in ("host", "port", "log_level", "name", "announce", "bots", "bot_level", "bot_workers",
                 "max_connections", "db", "durability"):
        value = getattr(args, name)
        if value is not None:
            top[name] = value
    table: dict[str, Any] = {}
    for name, _, _ in _TABLE_FLAGS:
        if getattr(args, name) is not None:
            table[name] = getattr(args, name)
    for name, _ in _TABLE_SWITCHES:
        if getattr(args, name) is not None:
            table[name] = getattr(args, name)
    config = replace(config, **top, table=replace(config.table, **table))
    return config.validate()


def setup_logging(level: int) -> None:
    logging.basicConfig(
        level=level,
        format="%(asctime)s %(levelname)s %(message)s",
        stream=sys.stderr,
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        config = config_from_args(args)
    except ConfigError as e:
        print(f"nimmt-server: {e}", file=sys.stderr)
        return 2
    setup_logging(config.log_level_number)
    from .app import run_server, tune_garbage_collector

    from .storage import StorageError

    tune_garbage_collector()
    try:
        trio.run(run_server, config)
    except StorageError as e:  # locked, corrupt, too new, not ours: the file is untouched
        print(f"nimmt-server: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"nimmt-server: cannot listen on {config.host}:{config.port}: {e.strerror or e}",
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # a second Ctrl-C during shutdown
        return 130
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
