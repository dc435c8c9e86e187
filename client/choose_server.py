"""``nimmt-client`` without an address: look on the LAN, then choose a server.

One server found: it is the one (the line printed says which, and where). Several:
the player chooses with the arrow keys. None: localhost is tried, as before there
was looking, and if nothing answers there the player is asked for ``HOST:PORT``.
Whatever happens, the address is printed before the client connects to it.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import TextIO

from .discovery import FoundServer, find_servers, listing
from .net import DEFAULT_PORT, format_address, parse_address

__all__ = ["Picked", "pick_server", "ask_address", "print_found"]

#: (host, port, is a guess): a guess (localhost, or an address typed after a guess
#: failed) may be replaced by one the player types if it cannot be reached
Picked = tuple[str, int, bool]

Look = Callable[[], Awaitable[list[FoundServer]]]
Choose = Callable[[Sequence[FoundServer]], Awaitable[FoundServer]]


async def _choose_with_arrows(found: Sequence[FoundServer]) -> FoundServer:
    from prompt_toolkit.shortcuts.choice_input import ChoiceInput

    chooser: ChoiceInput[FoundServer] = ChoiceInput(
        message=f"{len(found)} nimmt servers on the LAN (↑/↓ to choose, Enter to connect, "
        "Ctrl-C to quit):",
        options=[(server, server.describe()) for server in found])
    return await chooser.prompt_async()


def print_found(found: Sequence[FoundServer], out: TextIO) -> None:
    """``--find``'s output: one line per server (``discovery.listing``)."""
    for line in listing(found):
        print(line, file=out)


async def pick_server(interactive: bool, *, look: Look = find_servers,
                      choose: Choose = _choose_with_arrows,
                      out: TextIO | None = None) -> Picked | None:
    """The server to connect to, found on the LAN; None: several were found and there
    is no terminal to choose one in (the list is printed)."""
    out = out or sys.stderr
    print("nimmt-client: looking for nimmt servers on the LAN…", file=out, flush=True)
    found = await look()
    if not found:
        where = format_address("localhost", DEFAULT_PORT)
        print(f"nimmt-client: no nimmt server found on the LAN; trying {where}", file=out,
              flush=True)
        return "localhost", DEFAULT_PORT, True
    if len(found) == 1:
        server = found[0]
        print(f"nimmt-client: found one server, {server.describe()}: connecting to "
              f"{server.address}", file=out, flush=True)
        return server.host, server.port, False
    if not interactive:
        for server in found:
            print(f"  {server.describe()}", file=out)
        print(f"nimmt-client: {len(found)} servers found: give one as HOST:PORT", file=out)
        return None
    server = await choose(found)
    print(f"nimmt-client: connecting to {server.name} at {server.address}", file=out,
          flush=True)
    return server.host, server.port, False


async def ask_address(ask: Callable[[str], Awaitable[str]] | None = None,
                      out: TextIO | None = None) -> tuple[str, int] | None:
    """Ask for ``HOST[:PORT]`` until one can be read; None: the player gave nothing."""
    out = out or sys.stderr
    if ask is None:
        from prompt_toolkit import PromptSession

        session: PromptSession[str] = PromptSession()
        ask = session.prompt_async
    while True:
        text = (await ask("Server address (HOST[:PORT], Enter alone to quit): ")).strip()
        if not text:
            return None
        try:
            host, port = parse_address(text)
        except ValueError as exc:
            print(f"nimmt-client: {exc}", file=out)
            continue
        print(f"nimmt-client: connecting to {format_address(host, port)}", file=out, flush=True)
        return host, port
