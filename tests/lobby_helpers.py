"""A connection as the lobby sees it, and a lobby on a mock clock, for tests that drive
the lobby without sockets (tests/test_welcome_units.py, tests/test_lobby_units.py,
tests/test_session_spec.py)."""

from __future__ import annotations

from typing import Any

import trio
import trio.testing

from nimmt import protocol as P
from nimmt.server.config import ServerConfig
from nimmt.server.lobby.lobby import Lobby


class Link:
    """What a connection was sent, whether it was closed, and how often it was
    charged against its request rate."""

    def __init__(self, cid: int, address: str | None = "10.0.0.1") -> None:
        self.cid = cid
        self.session: Any = None
        self.address = address
        self.sent: list[Any] = []
        self.closed: tuple[str, str] | None = None
        self.charged = 0

    def send(self, msg: Any) -> bool:
        self.sent.append(msg)
        return True

    def close(self, reason: str, text: str = "") -> None:
        self.closed = (reason, text)

    def charge(self) -> None:
        self.charged += 1

    def count(self) -> bool:
        return True

    def errors(self) -> list[P.Error]:
        return [m for m in self.sent if isinstance(m, P.Error)]

    def types(self) -> list[str]:
        return [m.TYPE for m in self.sent]


def run(test: Any, **settings: Any) -> None:
    """``await test(lobby)`` on a lobby of a server configured with ``settings``, on a
    clock that jumps over every wait."""
    config = ServerConfig(**settings)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            lobby = Lobby(config, nursery)
            await test(lobby)
            nursery.cancel_scope.cancel()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
