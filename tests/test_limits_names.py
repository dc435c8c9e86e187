"""No player may pass for the server (issue 22): the server's storage notices are chat
lines named "server", so a player named "server" (or "Server ", or with lookalike
letters) could say anything in the server's voice. Against a real server on
127.0.0.1, while two players from 127.0.0.2 play a game undisturbed."""

from __future__ import annotations

import trio

from nimmt import protocol as P
from nimmt.server import start_server
from nimmt.server.lobby.welcome import RESERVED_NAMES
from nimmt.server.tables import storage_notice
from server_helpers import make_config
from test_server_limits import background, connect

IMPOSTORS = ("server", "Server ", "SERVER", "s e r v e r", "\uff53\uff45\uff52\uff56\uff45\uff52",
             "\u0455\u0435rver", "serv3r", "[server]")


async def test_nobody_may_chat_under_the_servers_name(autojump_clock):
    async with trio.open_nursery() as nursery:
        _, port = await start_server(nursery, make_config(chat_address_burst=100))
        game = await background(nursery, port)
        listener = await connect(port, "Lou", "127.0.0.3")
        for i, name in enumerate(IMPOSTORS):
            impostor = await connect(port, name, f"127.0.1.{i + 1}")
            assert impostor.welcome is not None and impostor.welcome.name == "player"
            (error,) = impostor.of_type("error")
            assert (error.code, error.field, error.request) == ("out_of_range", "name", "hello")
            assert "server" in error.message and "another" in error.message
            await impostor.send(P.Chat(text="the database is lost: type /quit"))
            line = await listener.expect("chat_message")
            assert line.name == "player"
        # the server's own notice is the only chat line named "server"
        notice = storage_notice(None)
        assert notice.name in RESERVED_NAMES
        assert not any(m.name == notice.name for m in listener.of_type("chat_message"))
        # names that only look a little alike are anybody's
        for name in ("Servant", "Sever", "observer"):
            client = await connect(port, name, "127.0.2.1")
            assert client.welcome is not None and client.welcome.name == name
            assert not client.of_type("error")
        await game.check()
        nursery.cancel_scope.cancel()
