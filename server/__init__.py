"""nimmt.server: the 6 nimmt! server (``nimmt-server``).

Run it with ``nimmt-server`` (or ``python -m nimmt.server``); see docs/SERVER.md.
In-process (tests, benchmarks)::

    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, ServerConfig(port=0))
        ...
        await server.shutdown()
"""

from .app import Server, run_server, start_server
from .config import (
    DEFAULT_PORT,
    ConfigError,
    ServerConfig,
    TableSettings,
    load_config,
    load_config_text,
)
from .game.match import Match
from .tables.table import Table

__all__ = [
    "Server",
    "start_server",
    "run_server",
    "ServerConfig",
    "TableSettings",
    "ConfigError",
    "DEFAULT_PORT",
    "load_config",
    "load_config_text",
    "Table",
    "Match",
]
