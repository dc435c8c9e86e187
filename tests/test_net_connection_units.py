"""One client connection against a stand-in lobby, over memory streams and a mock
clock (issue 43): the hello and frame deadlines to the second, the heartbeat's
pings and its verdict on a dead peer, the request rate (the first message over the
burst is refused, a flood is closed), a run of invalid frames, a slow reader, a
bug in the lobby, and what the server's log says when a connection ends. The same
protections against a real server: tests/test_server_hostile.py,
tests/test_server_timeouts.py."""

from __future__ import annotations

import logging
import struct
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import msgpack
import pytest
import trio
import trio.testing

from nimmt import protocol as P
from nimmt.server.config import ServerConfig
from nimmt.server.net.connection import BAD_FRAMES_MAX, ClientConnection, peer_address, peer_name
from nimmt.server.sessions.limits import LogLimiter
from nimmt.server.sessions.session import Session

E = P.ErrorCode
LIMITS = P.Limits(max_frame_size=65536, hello_timeout=5.0, ping_interval=10.0, pong_timeout=4.0,
                  reconnect_grace=60.0, rate_limit=2)


class FakeAdmission:
    def __init__(self) -> None:
        self.welcomed_at: list[float] = []
        self.floods: list[tuple[str | None, float]] = []

    def welcomed(self, conn: Any) -> None:
        self.welcomed_at.append(trio.current_time())

    def flooded(self, address: str | None, now: float) -> float:
        self.floods.append((address, now))
        return 0.0


class FakeLobby:
    """Welcomes every hello (but one named "mute"), answers no request, and raises on
    the chat line "boom" (a bug)."""

    def __init__(self) -> None:
        self.requests: list[tuple[float, P.Message]] = []
        self.disconnected_at: list[float] = []
        self.session: Session | None = None

    def hello(self, client: Any, msg: P.Hello) -> None:
        if msg.name == "mute":
            return
        session = self.session = Session(4, "t" * 32, msg.name, msg.kind)
        session.client = client
        client.session = session
        client.send(P.Welcome(protocol=msg.protocol, server="nimmt-server test", name=msg.name,
                              token=session.token, resumed=False, limits=LIMITS, claimed=False,
                              re=msg.id))

    def request(self, client: Any, msg: P.Message) -> None:
        self.requests.append((trio.current_time(), msg))
        if isinstance(msg, P.Chat) and msg.text == "boom":
            raise RuntimeError("a bug")

    def disconnected(self, client: Any) -> None:
        self.disconnected_at.append(trio.current_time())


class FakeServer:
    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.admission = FakeAdmission()
        self.log_limit = LogLimiter()
        self.lobby = FakeLobby()
        self.forgotten: list[int] = []
        self.clock: trio.testing.MockClock | None = None

    def forget(self, client: ClientConnection) -> None:
        self.forgotten.append(client.cid)


class Peer:
    """The client's end: sends messages or raw bytes, reads what the server sends."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.conn = P.Connection(P.CLIENT)
        self.times: list[float] = []

    async def send(self, msg: P.Message) -> None:
        await self.stream.send_all(self.conn.send(msg))

    async def raw(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def hello(self, name: str = "Ann") -> P.Message | None:
        await self.send(P.Hello(protocol=P.PROTOCOL_VERSION, name=name, kind="human", id=1))
        return await self.recv()

    async def recv(self) -> P.Message | None:
        """The next message, or None when the server closed the connection."""
        while True:
            msg = self.conn.next_message()
            if msg is P.NEED_DATA:
                try:
                    data = await self.stream.receive_some(65536)
                except trio.BrokenResourceError:
                    data = b""
                self.conn.receive_data(data)
                continue
            if msg is P.CONNECTION_CLOSED:
                self.times.append(trio.current_time())
                return None
            self.times.append(trio.current_time())
            # (the server numbers its messages: ``seq`` is left out of the comparisons)
            return replace(msg, seq=None)  # type: ignore[type-var]

    async def rest(self) -> list[P.Message]:
        """Everything until the server closes the connection."""
        out = []
        while (msg := await self.recv()) is not None:
            out.append(msg)
        return out


def frame(body: dict[str, Any]) -> bytes:
    data = msgpack.packb(body)
    return struct.pack(">I", len(data)) + data


BAD_FRAME = b"\x00\x00\x00\x01\xc1"  # a byte that is no msgpack


def run(test: Any, pair: Any = trio.testing.memory_stream_pair, **settings: Any) -> FakeServer:
    """Run ``test(peer, conn, server)`` against a connection (cid 7) on a mock clock;
    the connection's task is cancelled when the test returns."""
    config = ServerConfig(**{"hello_timeout": 5.0, "ping_interval": 1000.0, "pong_timeout": 4.0,
                             "frame_timeout": 2.0, "rate_limit": 1000, **settings})
    server = FakeServer(config)

    async def main() -> None:
        ours, theirs = pair()
        async with trio.open_nursery() as nursery:
            conn = ClientConnection(server, theirs, 7)  # type: ignore[arg-type]
            nursery.start_soon(conn.run)
            with trio.fail_after(10_000):
                await test(Peer(ours), conn, server)
            nursery.cancel_scope.cancel()

    clock = server.clock = trio.testing.MockClock(autojump_threshold=0)
    trio.run(main, clock=clock)
    return server


def closed_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "closed:" in r.getMessage()]


# ------------------------------------------------------------------ deadlines
def test_no_hello_within_the_hello_timeout_gets_a_goodbye_at_that_second():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        assert await peer.rest() == [P.Goodbye(reason="timeout", message="no hello within 5 s")]
        assert peer.times == [5.0, 5.0]
        assert server.lobby.disconnected_at == [5.0] and server.forgotten == [7]
        assert server.admission.welcomed_at == []

    run(test)


def test_no_hello_is_what_the_goodbye_says_also_when_the_server_wakes_late():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await trio.sleep(4.5)
        assert server.clock is not None
        server.clock.jump(1.0)  # the server was busy past the hello deadline
        assert await peer.recv() == P.Goodbye(reason="timeout", message="no hello within 5 s")
        assert peer.times == [5.5]

    run(test)


def test_a_hello_just_in_time_is_welcomed_and_the_hello_deadline_is_over():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await trio.sleep(4.9)
        assert isinstance(await peer.hello(), P.Welcome)
        assert server.admission.welcomed_at == [4.9] and conn.welcomed
        await trio.sleep(100.0)
        assert not conn.closing and server.lobby.disconnected_at == []

    run(test)


def test_a_hello_the_lobby_does_not_answer_leaves_the_hello_deadline_running():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.send(P.Hello(protocol=P.PROTOCOL_VERSION, name="mute", kind="human"))
        assert await peer.recv() == P.Goodbye(reason="timeout", message="no hello within 5 s")
        assert peer.times == [5.0] and server.admission.welcomed_at == []

    run(test)


def test_a_frame_begun_must_end_within_the_frame_timeout():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        await trio.sleep(10.0)
        await peer.raw(P.encode_frame(P.ListTables(id=2))[:3])
        assert await peer.rest() == [P.Goodbye(
            reason="timeout", message="a frame begun 2 s ago is not complete")]
        assert peer.times == [0.0, 12.0, 12.0]

    run(test)


def test_frames_that_each_end_in_time_are_never_cut_off_even_as_data_keeps_coming():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        one = P.encode_frame(P.ListTables(id=2))
        two = P.encode_frame(P.ListTables(id=3))
        await peer.raw(one[:4])
        await trio.sleep(1.5)
        await peer.raw(one[4:] + two[:4])  # the first ends, the second begins: at 1.5 s
        await trio.sleep(1.5)  # 3 s after the first began, 1.5 s after the second
        await peer.raw(two[4:])
        await trio.sleep(0.1)
        assert [(t, m.id) for t, m in server.lobby.requests] == [(1.5, 2), (3.0, 3)]
        await trio.sleep(100.0)  # nothing begun: no deadline
        assert not conn.closing

    run(test)


def test_an_invalid_frame_ends_a_frame_for_the_frame_deadline_too():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        good = P.encode_frame(P.ListTables(id=3))
        await peer.raw(BAD_FRAME[:4])
        await trio.sleep(1.5)
        await peer.raw(BAD_FRAME[4:] + good[:4])  # the bad one ends, a good one begins
        await trio.sleep(1.5)
        await peer.raw(good[4:])
        assert isinstance(await peer.recv(), P.Error)  # the bad frame's
        await trio.sleep(0.1)
        assert [(t, m.id) for t, m in server.lobby.requests] == [(3.0, 3)]
        assert not conn.closing

    run(test)


# ------------------------------------------------------------------ the heartbeat
def test_a_quiet_client_is_pinged_and_one_that_stops_answering_is_dropped():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        ping = await peer.recv()
        assert ping == P.Ping(nonce=1) and peer.times[-1] == 10.0
        await trio.sleep(1.0)
        await peer.send(P.Pong(nonce=1))
        ping = await peer.recv()
        assert ping == P.Ping(nonce=2) and peer.times[-1] == 20.0
        # no answer: dropped pong_timeout after the ping
        assert await peer.rest() == [P.Goodbye(reason="timeout",
                                               message="no answer to a ping within 4 s")]
        assert peer.times[-2:] == [24.0, 24.0]

    run(test, ping_interval=10.0)


def test_a_client_that_answers_every_ping_stays():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        for nonce in range(1, 6):
            ping = await peer.recv()
            assert ping == P.Ping(nonce=nonce)
            await peer.send(P.Pong(nonce=nonce))
        assert peer.times[1:] == [10.0, 20.0, 30.0, 40.0, 50.0]
        assert not conn.closing

    run(test, ping_interval=10.0)


def test_a_pong_timeout_longer_than_the_ping_interval_is_waited_out_in_full():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        assert await peer.recv() == P.Ping(nonce=1)
        # still quiet: pinged again every 10 s, and dropped 25 s after the first ping
        assert await peer.rest() == [P.Ping(nonce=2), P.Ping(nonce=3), P.Goodbye(
            reason="timeout", message="no answer to a ping within 25 s")]
        assert peer.times[1:] == [10.0, 20.0, 30.0, 35.0, 35.0]

    run(test, ping_interval=10.0, pong_timeout=25.0)


def test_a_dead_peer_is_dropped_also_when_the_server_wakes_late():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        assert await peer.recv() == P.Ping(nonce=1)
        await trio.sleep(3.5)  # 13.5: the pong is due at 14
        assert server.clock is not None
        server.clock.jump(1.0)  # the server was busy: the pinger wakes at 14.5
        assert await peer.recv() == P.Goodbye(reason="timeout",
                                              message="no answer to a ping within 4 s")
        assert peer.times[-1] == 14.5

    run(test, ping_interval=10.0)


def test_the_last_request_is_the_last_message_other_than_a_ping_or_a_pong():
    # (what the server reads to pick the idlest connection to close for a newcomer)
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        assert conn.last_request == 0.0
        await trio.sleep(2.0)
        await peer.send(P.ListTables(id=2))  # (a type that sorts before "ping")
        await trio.sleep(0.5)
        assert conn.last_request == 2.0
        await trio.sleep(0.5)
        await peer.send(P.Queue(seats=2, id=3))  # (and one after "pong")
        await trio.sleep(2.0)
        await peer.send(P.Ping(nonce=1))
        assert await peer.recv() == P.Pong(nonce=1)
        await trio.sleep(1.0)
        await peer.send(P.Pong(nonce=1))
        await trio.sleep(1.0)
        assert conn.last_request == 3.0 and conn.last_received == 6.0

    run(test)


def test_a_connection_that_has_not_said_hello_is_not_pinged():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        assert await peer.rest() == [P.Goodbye(reason="timeout", message="no hello within 30 s")]

    run(test, ping_interval=10.0, hello_timeout=30.0)


def test_a_ping_is_answered_with_its_nonce():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        await peer.send(P.Ping(nonce=77, id=5))
        assert await peer.recv() == P.Pong(nonce=77, re=5)
        assert server.lobby.requests == []

    run(test)


# ------------------------------------------------------------------ the rate
def test_the_first_message_over_the_burst_is_refused_once_and_the_rate_refills():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        await trio.sleep(1.0)
        for i in range(7):  # a burst of 4, then 3 over it (not yet a flood)
            await peer.send(P.ListTables(id=10 + i))
        assert await peer.recv() == P.Error(
            code=E.RATE_LIMITED, message="more than 2 messages a second: messages are dropped")
        assert [m.id for _, m in server.lobby.requests] == [10, 11, 12, 13]
        await trio.sleep(3.5)  # back to 0 + 3.5 * 2 = 7, at most the burst: 4
        for i in range(5):
            await peer.send(P.ListTables(id=20 + i))
        # the four let through, and the fifth refused with a new error (told again)
        assert await peer.recv() == P.Error(
            code=E.RATE_LIMITED, message="more than 2 messages a second: messages are dropped")
        assert [m.id for _, m in server.lobby.requests][4:] == [20, 21, 22, 23]
        assert not conn.closing and server.admission.floods == []

    run(test, rate_limit=2)


def test_the_burst_is_twice_the_rate():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        for i in range(11):
            await peer.send(P.ListTables(id=10 + i))
        assert isinstance(await peer.recv(), P.Error)
        assert [m.id for _, m in server.lobby.requests] == list(range(10, 20))

    run(test, rate_limit=5)


def test_a_flood_of_a_whole_burst_over_the_rate_is_closed_and_its_session_may_not_resume(
        caplog: pytest.LogCaptureFixture):
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        await trio.sleep(1.0)
        for i in range(8):
            await peer.send(P.ListTables(id=10 + i))
        assert await peer.rest() == [
            P.Error(code=E.RATE_LIMITED, message="more than 2 messages a second: messages "
                    "are dropped"),
            P.Goodbye(reason="rate_limited", message="far too many messages")]
        assert len(server.lobby.requests) == 4
        assert server.admission.floods == [(None, 1.0)]
        session = server.lobby.session
        assert session is not None and session.resume_meter is not None
        assert session.resume_meter.wait(1.5) > 0  # its cool-down runs

    with caplog.at_level(logging.INFO, logger="nimmt.server"):
        run(test, rate_limit=2)
    assert any("conn=7 from memory closed for flooding; its session may resume in 1 s"
               in r.getMessage() for r in caplog.records)
    assert closed_lines(caplog) == [
        "conn=7 closed: rate_limited (far too many messages) session=4 (sent 3, received 9)"]


def test_a_flood_before_hello_is_closed_and_logged_with_no_session_to_hold_back(
        caplog: pytest.LogCaptureFixture):
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        # messages before hello are refused (unexpected) and still count against the rate
        await peer.raw(frame({"type": "list_tables"}) * 8)
        rest = await peer.rest()
        assert rest[-1] == P.Goodbye(reason="rate_limited", message="far too many messages")
        assert server.admission.floods == [(None, 0.0)]

    with caplog.at_level(logging.INFO, logger="nimmt.server"):
        run(test, rate_limit=2)
    assert [r.getMessage() for r in caplog.records if "flooding" in r.getMessage()] == [
        "conn=7 from memory closed for flooding; its session may resume in 0 s, its address "
        "connect in 0 s"]


def test_the_hello_is_not_counted_against_the_rate_but_pongs_are():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()  # would take one of the 2 tokens
        await peer.send(P.ListTables(id=2))
        await peer.send(P.ListTables(id=3))
        await trio.sleep(0.1)
        assert [m.id for _, m in server.lobby.requests] == [2, 3]
        await trio.sleep(2.0)  # full again: 2 tokens
        await peer.send(P.Pong(nonce=1))
        await peer.send(P.ListTables(id=4))
        await peer.send(P.ListTables(id=5))
        assert await peer.recv() == P.Error(
            code=E.RATE_LIMITED, message="more than 1 messages a second: messages are dropped")
        assert [m.id for _, m in server.lobby.requests] == [2, 3, 4]

    run(test, rate_limit=1)


def test_a_message_over_a_rate_spent_by_wasted_decisions_is_told_so():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        conn.charge()
        conn.charge()  # the burst of 2 is spent by refused decisions
        await peer.send(P.ListTables(id=2))
        assert await peer.recv() == P.Error(
            code=E.RATE_LIMITED, message="more than 1 messages a second: messages are dropped")
        assert server.lobby.requests == []

    run(test, rate_limit=1)


def test_charged_decisions_close_a_flooder_and_count_says_whether_the_rate_allows():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        assert [conn.count() for _ in range(3)] == [True, True, False]
        assert await peer.recv() == P.Error(
            code=E.RATE_LIMITED, message="more than 1 messages a second: messages are dropped")
        conn.charge()  # -2: the debt is a whole burst
        assert await peer.recv() == P.Goodbye(reason="rate_limited",
                                              message="far too many messages")
        assert conn.count() is False
        conn.charge()  # closing: nothing more
        assert server.admission.floods == [(None, 0.0)]

    run(test, rate_limit=1)


# ------------------------------------------------------------------ bad input
def test_a_run_of_invalid_frames_is_closed_at_the_twentieth_and_a_good_one_resets_it():
    assert BAD_FRAMES_MAX == 20

    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        await peer.raw(BAD_FRAME * 19)
        for _ in range(19):
            error = await peer.recv()
            assert isinstance(error, P.Error) and error.code == "bad_msgpack"
        await peer.send(P.ListTables(id=2))
        await peer.raw(BAD_FRAME * 19)
        await trio.sleep(1.0)
        assert not conn.closing
        await peer.raw(BAD_FRAME)
        rest = await peer.rest()
        assert [m.TYPE for m in rest] == ["error"] * 20 + ["goodbye"]
        assert rest[-1] == P.Goodbye(reason="protocol_error", message="20 invalid frames in a row")

    run(test)


def test_unexpected_messages_are_refused_but_never_close_the_connection():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        hello = frame({"type": "hello", "protocol": P.PROTOCOL_VERSION, "name": "Ann",
                       "kind": "human"})
        await peer.raw(hello * 25)
        for _ in range(25):
            error = await peer.recv()
            assert isinstance(error, P.Error) and error.code == "unexpected_message"
        await trio.sleep(1.0)
        assert not conn.closing

    run(test)


def test_a_hello_in_an_unknown_version_gets_an_error_and_a_goodbye():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.raw(frame({"type": "hello", "protocol": 99, "name": "Ann", "kind": "human"}))
        rest = await peer.rest()
        assert [(m.TYPE, getattr(m, "code", getattr(m, "reason", None))) for m in rest] == [
            ("error", "unsupported_version"), ("goodbye", "unsupported_version")]
        versions = ", ".join(str(v) for v in P.SUPPORTED_VERSIONS)
        assert rest[1].message == f"protocol 99 is not supported; supported: {versions}"

    run(test)


def test_a_frame_too_large_is_fatal():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        await peer.raw(b"\xff\xff\xff\xff")
        rest = await peer.rest()
        assert [m.TYPE for m in rest] == ["error", "goodbye"]
        assert rest[1].reason == "protocol_error"

    run(test)


def test_a_bug_in_the_lobby_fails_that_request_only():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        await peer.send(P.Chat(text="boom", id=3))
        assert await peer.recv() == P.Error(code=E.INTERNAL_ERROR, message="a bug in the server",
                                            request="chat", re=3)
        await peer.send(P.ListTables(id=4))
        await trio.sleep(0.1)
        assert [m.id for _, m in server.lobby.requests] == [3, 4]

    run(test)


# ------------------------------------------------------------------ the end
def test_a_goodbye_from_the_client_ends_it_and_the_log_says_where_the_session_sat(
        caplog: pytest.LogCaptureFixture):
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        session = server.lobby.session
        assert session is not None
        session.table = SimpleNamespace(id="T9")  # type: ignore[assignment]
        session.seat = 2
        await peer.send(P.ListTables(id=2))
        await peer.send(P.Goodbye(reason="leaving"))
        assert await peer.rest() == []
        assert server.lobby.disconnected_at == [0.0] and server.forgotten == [7]

    with caplog.at_level(logging.INFO, logger="nimmt.server"):
        run(test)
    assert closed_lines(caplog) == [
        "conn=7 closed: goodbye: leaving session=4 table=T9 seat=2 (sent 1, received 3)"]


def test_a_client_that_hangs_up_is_forgotten(caplog: pytest.LogCaptureFixture):
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        server.lobby.session.table = SimpleNamespace(id="T9")  # type: ignore[union-attr]
        await peer.stream.aclose()
        await trio.sleep(1.0)
        assert server.lobby.disconnected_at == [0.0] and server.forgotten == [7]

    with caplog.at_level(logging.INFO, logger="nimmt.server"):
        run(test)
    assert closed_lines(caplog) == [
        "conn=7 closed: closed by peer session=4 table=T9 (sent 1, received 1)"]


def test_close_sends_a_goodbye_last_and_nothing_after_it():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        assert conn.send(P.Ping(nonce=1)) is True
        conn.close("shutdown", "the server stops", kept=True)
        assert conn.send(P.Ping(nonce=2)) is False
        conn.close("other")  # once closing, a second close changes nothing
        assert await peer.rest() == [
            P.Ping(nonce=1), P.Goodbye(reason="shutdown", message="the server stops", kept=True)]

    run(test)


def test_a_goodbye_says_at_most_500_characters():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        conn.close("shutdown", "x" * 499 + "yz")
        assert await peer.rest() == [P.Goodbye(reason="shutdown", message="x" * 499 + "y")]

    run(test)


def test_a_client_that_does_not_read_its_goodbye_is_cut_off_after_the_flush_time():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        await trio.sleep(3.0)
        conn.close("shutdown")  # the peer does not read: the write waits
        await trio.sleep(10.0)
        assert server.lobby.disconnected_at == [4.5]

    run(test, pair=trio.testing.lockstep_stream_pair, shutdown_flush=1.5)


def test_a_reader_too_slow_for_the_queue_is_dropped_without_a_goodbye(
        caplog: pytest.LogCaptureFixture):
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        assert [conn.send(P.Ping(nonce=n)) for n in range(1, 10)] == [True] * 8 + [False]
        rest = await peer.rest()
        assert P.Goodbye not in {type(m) for m in rest}
        assert conn.send(P.Ping(nonce=99)) is False

    with caplog.at_level(logging.INFO, logger="nimmt.server"):
        run(test, send_queue=8)
    assert closed_lines(caplog) == [
        "conn=7 closed: slow_reader (8 messages waiting) session=4 (sent 9, received 1)"]


def test_many_messages_queued_at_once_all_arrive_in_order():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        await peer.hello()
        assert all(conn.send(P.Ping(nonce=n)) for n in range(1, 201))
        got = [await peer.recv() for _ in range(200)]
        assert got == [P.Ping(nonce=n) for n in range(1, 201)]

    run(test, send_queue=256)


def test_a_message_not_allowed_in_the_state_is_not_sent():
    async def test(peer: Peer, conn: ClientConnection, server: FakeServer) -> None:
        # before the welcome, the server may send no ping
        assert conn.send(P.Ping(nonce=1)) is False
        assert isinstance(await peer.hello(), P.Welcome)

    run(test)


def test_the_peer_is_named_by_its_address_and_port():
    async def main() -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        port = listeners[0].socket.getsockname()[1]
        async with trio.open_nursery() as nursery:
            got = []

            async def accept() -> None:
                stream = await listeners[0].accept()
                got.append(stream)

            nursery.start_soon(accept)
            client = await trio.open_tcp_stream("127.0.0.1", port)
        (server_side,) = got
        client_port = client.socket.getsockname()[1]
        assert peer_address(server_side) == "127.0.0.1"
        assert peer_name(server_side) == f"127.0.0.1:{client_port}"
        await client.aclose()
        await server_side.aclose()
        await listeners[0].aclose()
        # a closed socket has no peer any more
        assert peer_address(server_side) == "?" and peer_name(server_side) == "?"
        memory, _ = trio.testing.memory_stream_pair()
        assert peer_address(memory) is None and peer_name(memory) == "memory"

    trio.run(main)
