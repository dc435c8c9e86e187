"""nimmt.client.net against a tiny scripted server (asyncio, 127.0.0.1, port 0).

The client library is asyncio; pytest-trio runs ``async def`` tests under trio in
this repository, so every test here is a plain function calling ``asyncio.run``.
"""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Awaitable, Callable
from typing import Any

import msgpack
import pytest
from test_client_support import LIMITS, TOKEN, table

from nimmt import protocol as P
from nimmt.client import (
    ClientConnection,
    ConnectFailed,
    ConnectionLost,
    HandshakeFailed,
    LinkLost,
    LinkRestored,
    SendFailed,
    connect,
)
from nimmt.client.solo import free_port

Handler = Callable[["Peer"], Awaitable[None]]


class Peer:
    """The server's end of one connection, driven by a test script."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.conn = P.Connection(P.SERVER)
        self.received: list[P.Message] = []

    async def recv(self) -> P.Message:
        while True:
            msg = self.conn.next_message()
            if msg is P.NEED_DATA:
                self.conn.receive_data(await self.reader.read(65536))
                continue
            if msg is P.CONNECTION_CLOSED:
                raise EOFError
            assert isinstance(msg, P.Message)
            self.received.append(msg)
            return msg

    async def send(self, *msgs: P.Message) -> None:
        for m in msgs:
            self.writer.write(self.conn.send(m))
        await self.writer.drain()

    async def raw(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def welcome(self, *, name: str | None = None, resumed: bool = False,
                      token: str = TOKEN) -> P.Hello:
        hello = await self.recv()
        assert isinstance(hello, P.Hello)
        await self.send(P.Welcome(protocol=1, server="fake 1", name=name or hello.name,
                                  token=token, resumed=resumed, limits=LIMITS))
        return hello

    def drop(self) -> None:
        """Vanish without a goodbye (a network drop)."""
        self.writer.close()


class FakeServer:
    """Runs ``handlers[i]`` for the i-th connection it accepts."""

    def __init__(self, *handlers: Handler) -> None:
        self.handlers = list(handlers)
        self.peers: list[Peer] = []
        self.errors: list[BaseException] = []
        self.done = asyncio.Event()
        self.port = 0

    async def __aenter__(self) -> FakeServer:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = Peer(reader, writer)
        index = len(self.peers)
        self.peers.append(peer)
        try:
            await self.handlers[index](peer)
        except EOFError:
            pass
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.errors.append(exc)
        finally:
            writer.close()
            if len(self.peers) == len(self.handlers):
                self.done.set()

    async def __aexit__(self, *exc: Any) -> None:
        self.server.close()
        await self.server.wait_closed()
        assert not self.errors, self.errors


def run(coro: Awaitable[None]) -> None:
    async def guarded() -> None:
        await asyncio.wait_for(coro, 5.0)
    asyncio.run(guarded())


async def until_goodbye(peer: Peer) -> P.Goodbye:
    while True:
        msg = await peer.recv()
        if isinstance(msg, P.Goodbye):
            return msg


def test_handshake_request_ids_and_goodbye() -> None:
    async def server(peer: Peer) -> None:
        await peer.welcome(name="Ann (2)")  # the server may rename us
        req = await peer.recv()
        assert isinstance(req, P.ListTables)
        await peer.send(P.TableList(tables=(table(["Bob", None]),), re=req.id))
        await until_goodbye(peer)

    async def main() -> None:
        async with FakeServer(server) as fake:
            conn = await connect("127.0.0.1", fake.port, "Ann", "bot")
            assert conn.welcome is not None and conn.welcome.name == "Ann (2)"
            assert conn.token == TOKEN and conn.limits == LIMITS
            rid = await conn.send(P.ListTables())
            reply = await conn.receive()
            assert isinstance(reply, P.TableList) and reply.re == rid is not None
            rid2 = await conn.send(P.Chat(text="hi"))
            assert rid2 == rid + 1
            await conn.close()
            await asyncio.wait_for(fake.done.wait(), 2)
            hello, _, chat, bye = fake.peers[0].received
            assert isinstance(hello, P.Hello) and hello.name == "Ann" and hello.kind == "bot"
            assert hello.token is None and hello.software
            assert isinstance(chat, P.Chat) and chat.id == rid2
            assert isinstance(bye, P.Goodbye) and bye.reason == "quit"
            assert conn.closed
    run(main())


def test_pings_are_answered_and_not_handed_out() -> None:
    async def server(peer: Peer) -> None:
        await peer.welcome()
        await peer.send(P.Ping(nonce=77))
        pong = await peer.recv()
        assert isinstance(pong, P.Pong) and pong.nonce == 77
        await peer.send(P.ChatMessage(name="Bob", seat=None, text="pong seen"))
        await until_goodbye(peer)

    async def main() -> None:
        async with FakeServer(server) as fake:
            async with await connect("127.0.0.1", fake.port, "Ann") as conn:
                msg = await conn.receive()
                assert isinstance(msg, P.ChatMessage) and msg.text == "pong seen"
            await asyncio.wait_for(fake.done.wait(), 2)
    run(main())


def test_a_gap_in_seq_drops_the_connection() -> None:
    async def server(peer: Peer) -> None:
        await peer.welcome()
        peer.conn.send(P.ChatMessage(name="Bob", seat=None, text="lost"))  # seq 2 never sent
        await peer.send(P.ChatMessage(name="Bob", seat=None, text="seq 3"))
        with pytest.raises(EOFError):
            await peer.recv()

    async def main() -> None:
        async with FakeServer(server) as fake:
            conn = await connect("127.0.0.1", fake.port, "Ann")
            with pytest.raises(ConnectionLost, match="bad_sequence"):
                await conn.receive()
            await conn.close()
    run(main())


def test_an_invalid_frame_is_dropped_and_reading_goes_on() -> None:
    async def server(peer: Peer) -> None:
        await peer.welcome()
        body = msgpack.packb({"type": "no_such_type", "seq": 2})
        await peer.raw(struct.pack(">I", len(body)) + body)
        await peer.send(P.ChatMessage(name="Bob", seat=None, text="still here"))
        await until_goodbye(peer)

    async def main() -> None:
        async with FakeServer(server) as fake:
            async with await connect("127.0.0.1", fake.port, "Ann") as conn:
                msg = await conn.receive()
                assert isinstance(msg, P.ChatMessage) and msg.text == "still here"
                assert len(conn.warnings) == 1 and "unknown_type" in conn.warnings[0]
    run(main())


def test_reconnects_with_the_token_and_gets_the_table_back() -> None:
    t = table(["Ann", "Bob"], status="playing")
    snap = P.Snapshot(table=t, seat=0, round=1, turn=2, phase="commit", hand=(5, 9),
                      commit=None, rows=((1,), (2,), (3,), (4,)), deadline=1e9,
                      remaining=10.0, committed=(), revealed=(), draft_pool=(),
                      draft_picks=(), pending=None)

    async def first(peer: Peer) -> None:
        await peer.welcome()
        peer.drop()

    async def second(peer: Peer) -> None:
        hello = await peer.welcome(resumed=True)
        assert hello.token == TOKEN and hello.kind == "human"
        await peer.send(P.Seated(table=t, seat=0), snap)
        await peer.send(P.Goodbye(reason="server_shutdown", message="bye"))

    async def main() -> None:
        async with FakeServer(first, second) as fake:
            conn = await connect("127.0.0.1", fake.port, "Ann")
            got = [m async for m in conn.events()]
            kinds = [type(m).__name__ for m in got]
            assert kinds == ["LinkLost", "LinkRestored", "Seated", "Snapshot", "Goodbye"]
            assert isinstance(got[0], LinkLost) and "closed" in got[0].reason
            assert isinstance(got[1], LinkRestored) and got[1].welcome.resumed
            assert got[3].to_wire() == snap.to_wire(3)  # seq 3 on the new connection
            assert conn.closed and conn.goodbye is not None
            with pytest.raises(ConnectionLost):
                await conn.receive()
    run(main())


def test_a_reconnection_refused_for_a_while_is_tried_again() -> None:
    """The server refuses new connections from an address that flooded it for a
    few seconds (``rate_limited`` before the welcome): a player behind the same
    address (one NAT, one machine) whose link dropped meanwhile keeps trying."""

    async def first(peer: Peer) -> None:
        await peer.welcome()
        peer.drop()

    async def cooling_down(peer: Peer) -> None:
        text = "a connection from your address was closed for flooding the server: try again in 1 s"
        await peer.send(P.Error(code="rate_limited", message=text),
                        P.Goodbye(reason="rate_limited", message=text))

    async def third(peer: Peer) -> None:
        await peer.welcome(resumed=True)
        await peer.send(P.Goodbye(reason="server_shutdown", message="bye"))

    async def main() -> None:
        async with FakeServer(first, cooling_down, third) as fake:
            conn = await connect("127.0.0.1", fake.port, "Ann")
            got = [m async for m in conn.events()]
            assert [type(m).__name__ for m in got] == ["LinkLost", "LinkRestored", "Goodbye"]
            assert got[1].welcome.resumed
            assert len(fake.peers) == 3
    run(main())


def test_a_server_stopping_is_waited_for_while_through_shutdown_says_so() -> None:
    """The server's goodbye ``server_shutdown`` while ``through_shutdown()`` is true
    (at a table): a LinkLost saying the server stopped, then resuming; a server still
    stopping when we come back (its goodbye before the welcome) is tried again. The
    same goodbye when it answers false is handed out, and ends the events."""
    asked: list[bool] = []
    answers = iter([True, False])

    def through_shutdown() -> bool:
        asked.append(next(answers))
        return asked[-1]

    async def first(peer: Peer) -> None:
        await peer.welcome()
        await peer.send(P.Goodbye(reason="server_shutdown", message="the server is stopping"))

    async def still_stopping(peer: Peer) -> None:
        await peer.recv()
        await peer.send(P.Goodbye(reason="server_shutdown", message="the server is stopping"))

    async def back(peer: Peer) -> None:
        hello = await peer.welcome(resumed=True)
        assert hello.token == TOKEN
        await peer.send(P.Goodbye(reason="server_shutdown", message="bye"))

    async def main() -> None:
        async with FakeServer(first, still_stopping, back) as fake:
            conn = await connect("127.0.0.1", fake.port, "Ann")
            got = [m async for m in conn.events(through_shutdown=through_shutdown)]
            assert [type(m).__name__ for m in got] == ["LinkLost", "LinkRestored", "Goodbye"]
            lost = got[0]
            assert isinstance(lost, LinkLost) and lost.stopped
            assert lost.reason == "the server is stopping"
            assert lost.address == f"127.0.0.1:{fake.port}"
            assert isinstance(got[1], LinkRestored) and got[1].welcome.resumed
            assert asked == [True, False] and len(fake.peers) == 3
    run(main())


def test_an_expired_token_starts_a_fresh_session() -> None:
    async def first(peer: Peer) -> None:
        await peer.welcome()
        peer.drop()

    async def second(peer: Peer) -> None:
        hello = await peer.recv()
        assert isinstance(hello, P.Hello) and hello.token == TOKEN
        await peer.send(P.Error(code="bad_token", message="unknown or expired session token",
                                request="hello", field="token"),
                        P.Welcome(protocol=1, server="fake 1", name="Ann",
                                  token="tok_fresh_0123456789", resumed=False, limits=LIMITS))
        await peer.send(P.Goodbye(reason="server_shutdown"))

    async def main() -> None:
        async with FakeServer(first, second) as fake:
            conn = await connect("127.0.0.1", fake.port, "Ann")
            got = [m async for m in conn.events()]
            assert [type(m).__name__ for m in got] == [
                "LinkLost", "Error", "LinkRestored", "Goodbye"]
            assert isinstance(got[2], LinkRestored) and not got[2].welcome.resumed
            assert conn.token == "tok_fresh_0123456789"
    run(main())


def test_without_reconnect_a_drop_raises() -> None:
    async def server(peer: Peer) -> None:
        await peer.welcome()
        peer.drop()

    async def main() -> None:
        async with FakeServer(server) as fake:
            conn = await connect("127.0.0.1", fake.port, "Ann")
            with pytest.raises(ConnectionLost, match="closed the connection"):
                async for _ in conn.events(reconnect=False):
                    pass
            with pytest.raises(SendFailed):
                await conn.send(P.ListTables())
            await conn.close()
    run(main())


def test_no_server_says_what_to_do() -> None:
    port = free_port()

    async def main() -> None:
        with pytest.raises(ConnectFailed) as info:
            await connect("127.0.0.1", port, "Ann")
        assert str(info.value) == (f"no nimmt server at 127.0.0.1:{port} — is nimmt-server "
                                   "running there? start one with: nimmt-server")
    run(main())


def test_a_version_refusal_is_explained() -> None:
    async def server(peer: Peer) -> None:
        await peer.recv()
        await peer.send(P.Error(code="unsupported_version", message="no", supported=(5, 6)),
                        P.Goodbye(reason="unsupported_version"))

    async def main() -> None:
        async with FakeServer(server) as fake:
            with pytest.raises(HandshakeFailed, match="speaks protocol 5, 6, this client "
                                                      "speaks 4"):
                await connect("127.0.0.1", fake.port, "Ann")
    run(main())


def test_something_that_is_not_a_nimmt_server() -> None:
    async def server(peer: Peer) -> None:
        await peer.raw(b"HTTP/1.1 400 Bad Request\r\n\r\n")

    async def main() -> None:
        async with FakeServer(server) as fake:
            with pytest.raises(HandshakeFailed, match="does not speak the nimmt protocol") as e:
                await connect("127.0.0.1", fake.port, "Ann")
            assert "_" not in str(e.value).split("protocol", 1)[1]  # words, not error codes
    run(main())


def test_a_silent_server_times_out_the_handshake() -> None:
    async def server(peer: Peer) -> None:
        await peer.recv()
        await peer.recv()  # until the client hangs up

    async def main() -> None:
        async with FakeServer(server) as fake:
            conn = ClientConnection("127.0.0.1", fake.port, "Ann", handshake_timeout=0.05)
            with pytest.raises(HandshakeFailed, match="did not answer like a nimmt server "
                               "within 0.05 s"):
                await conn.open()
    run(main())
    from nimmt.client.cli import HANDSHAKE_TIMEOUT
    assert HANDSHAKE_TIMEOUT <= 5  # nimmt-client fails fast on a port that never answers


def test_a_message_the_state_forbids_is_not_sent() -> None:
    async def server(peer: Peer) -> None:
        await peer.welcome()
        await until_goodbye(peer)

    async def main() -> None:
        async with FakeServer(server) as fake:
            async with await connect("127.0.0.1", fake.port, "Ann") as conn:
                with pytest.raises(SendFailed, match="cannot send 'commit' now"):
                    await conn.send(P.Commit(round=1, turn=1, card=5))
            await asyncio.wait_for(fake.done.wait(), 2)
            assert [m.TYPE for m in fake.peers[0].received] == ["hello", "goodbye"]
    run(main())
