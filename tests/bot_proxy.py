"""A trio proxy on 127.0.0.1 that cuts a bot's link the moment it has written a commit."""

from __future__ import annotations

import struct
import threading

import msgpack
import trio

__all__ = ["DropProxy"]


class DropProxy:
    """A trio proxy on 127.0.0.1 (in its own thread) between a bot and the server.

    It forwards every connection to the server, frame by frame, and cuts the
    first connection the moment the bot has written its first ``commit``: that
    frame is never forwarded, so the server never reads it. It records every frame
    each way as ``(connection number, message map)``.
    """

    def __init__(self, server_port: int) -> None:
        self.server_port = server_port
        self.port = 0
        self.up: list[tuple[int, dict]] = []  # bot -> server, forwarded
        self.down: list[tuple[int, dict]] = []  # server -> bot
        self.dropped: dict | None = None  # the commit that never reached the server
        self._connections = 0
        self._ready = threading.Event()
        self._thread = threading.Thread(target=trio.run, args=(self._main,), daemon=True)

    def __enter__(self) -> DropProxy:
        self._thread.start()
        assert self._ready.wait(10), "the proxy did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        trio.from_thread.run_sync(self._scope.cancel, trio_token=self._token)
        self._thread.join(10)

    async def _main(self) -> None:
        self._token = trio.lowlevel.current_trio_token()
        async with trio.open_nursery() as nursery:
            self._scope = nursery.cancel_scope
            listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
            self.port = listeners[0].socket.getsockname()[1]
            self._ready.set()
            await trio.serve_listeners(self._handle, listeners)

    async def _handle(self, bot: trio.SocketStream) -> None:
        number = self._connections
        self._connections += 1
        server = await trio.open_tcp_stream("127.0.0.1", self.server_port)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._pump, bot, server, number, True, nursery.cancel_scope)
            nursery.start_soon(self._pump, server, bot, number, False, nursery.cancel_scope)
        await trio.aclose_forcefully(bot)
        await trio.aclose_forcefully(server)

    async def _pump(self, source: trio.SocketStream, sink: trio.SocketStream, number: int,
                    upstream: bool, scope: trio.CancelScope) -> None:
        buffer = bytearray()
        try:
            while data := await source.receive_some(65536):
                buffer += data
                while len(buffer) >= 4 and len(buffer) >= 4 + struct.unpack(">I", buffer[:4])[0]:
                    size = 4 + struct.unpack(">I", buffer[:4])[0]
                    frame, buffer = bytes(buffer[:size]), buffer[size:]
                    message = msgpack.unpackb(frame[4:])
                    if upstream and message.get("type") == "commit" and self.dropped is None:
                        self.dropped = message  # the bot wrote it; the server never reads it
                        scope.cancel()
                        return
                    (self.up if upstream else self.down).append((number, message))
                    await sink.send_all(frame)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        scope.cancel()
