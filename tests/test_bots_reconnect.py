"""A bot whose server went away tries to reach it again on the documented schedule
(docs/BOTS.md, "Connections that drop, servers that restart"): it waits 0.25 s, then
0.5, 1 and 2 s (2 s from then on) between attempts, whatever refused the last one,
for ``reconnect_for`` seconds and no longer (issue 43: before, a refusal the client
library raised at once was asked again at once, hundreds of thousands of times a
second).

The first tests run ``BotSession`` on a scripted connection and a fake clock; the last
one runs a bot against a real server that refuses its resume."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from nimmt import protocol as wire
from nimmt.bots import session as bot_session
from nimmt.bots.players import as_player
from nimmt.bots.session import RECONNECT_WAITS, BotSession
from nimmt.client.net import ConnectionLost, HandshakeFailed, connect
from real_server import running_server

LIMITS = wire.Limits(max_frame_size=65536, hello_timeout=10.0, ping_interval=30.0,
                     pong_timeout=30.0, reconnect_grace=60.0, rate_limit=50)
SHUTDOWN = wire.Goodbye(reason="server_shutdown", message="the server is shutting down")


def welcome(resumed: bool = True) -> wire.Welcome:
    return wire.Welcome(protocol=2, server="nimmt-server test", name="Rob", token="t" * 32,
                        resumed=resumed, limits=LIMITS)


class FakeClock:
    """The reconnect loop's clock: a sleep moves it on, nothing else does."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class ScriptedConnection:
    """Says goodbye (the server stops), then answers each reconnect attempt with the
    next of ``answers`` (an exception raised, or a welcome returned); after a welcome
    it says goodbye for good (``quit``)."""

    address = "127.0.0.1:9"

    def __init__(self, clock: FakeClock, answers: list[BaseException | wire.Welcome],
                 batches: list[list[wire.Message]] | None = None) -> None:
        self.clock = clock
        self.answers = answers
        self.attempts: list[tuple[float, float | None]] = []  # (when, within)
        self.welcome = welcome(resumed=False)
        self.handshake_errors: list[wire.Error] = []
        self.closed = False
        self.sent: list[wire.Message] = []
        # what each call of events() yields, in turn
        self.batches = batches or [[SHUTDOWN], [wire.Goodbye(reason="quit", message="bye")]]

    async def send(self, message: wire.Message) -> int:
        self.sent.append(message)
        return len(self.sent)

    async def events(self) -> AsyncIterator[wire.Message]:
        self.closed = False
        for message in self.batches.pop(0):
            yield message
        self.closed = True

    async def reconnect(self, *, within: float | None = None) -> wire.Welcome:
        self.attempts.append((self.clock.now, within))
        if not self.answers:
            raise AssertionError("an attempt after the script ended")
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        self.welcome = answer
        return answer

    async def close(self) -> None:
        self.closed = True


def run_bot(monkeypatch: pytest.MonkeyPatch, answers: list[BaseException | wire.Welcome],
            reconnect_for: float, batches: list[list[wire.Message]] | None = None,
            errors: list[wire.Error] | None = None, join: str | None = "t1",
            ) -> tuple[BotSession, ScriptedConnection, FakeClock]:
    clock = FakeClock()
    monkeypatch.setattr(bot_session, "_clock", clock.clock)
    monkeypatch.setattr(bot_session, "_sleep", clock.sleep)
    conn = ScriptedConnection(clock, answers, batches)
    conn.handshake_errors = errors or []
    bot = BotSession(conn, as_player(lambda view: view.legal[0]), name="Rob",  # type: ignore[arg-type]
                     join=join, create=None, add_bots=0, games=1, table_wait=0,
                     reconnect_for=reconnect_for)
    asyncio.run(asyncio.wait_for(bot.run(), 10))
    return bot, conn, clock


REFUSED = HandshakeFailed("the server at 127.0.0.1:9 refused us: shutting down")


def lost() -> ConnectionLost:
    return ConnectionLost("lost the connection to 127.0.0.1:9 and could not get it back "
                          "(connection refused)", resumable=False)


def test_the_documented_schedule_between_attempts():
    assert RECONNECT_WAITS == (0.25, 0.5, 1.0, 2.0)  # as docs/BOTS.md says


def test_every_attempt_waits_first_and_the_waits_grow_to_two_seconds(monkeypatch):
    failures: list[BaseException | wire.Welcome] = [lost(), REFUSED, lost(), REFUSED, lost(),
                                                    lost()]
    bot, conn, clock = run_bot(monkeypatch, [*failures, welcome()], reconnect_for=300)
    start = 1000.0
    assert clock.sleeps == [0.25, 0.5, 1.0, 2.0, 2.0, 2.0, 2.0]
    assert [when - start for when, _ in conn.attempts] == [0.25, 0.75, 1.75, 3.75, 5.75,
                                                           7.75, 9.75]
    # each attempt is one try: the waits between them are the bot's own
    assert [within for _, within in conn.attempts] == [0] * 7
    assert bot.result.reconnects == 1
    assert bot.result.stopped == "the server closed the connection: bye"


def test_a_refusal_raised_at_once_is_not_asked_again_at_once(monkeypatch):
    # the client library raises some refusals without any wait of its own (a final
    # goodbye, a ConnectionLost it does not retry): the bot's schedule still holds
    bot, conn, clock = run_bot(monkeypatch, [REFUSED] * 40, reconnect_for=60)
    assert len(conn.attempts) == 32  # 0.25, 0.75, 1.75, 3.75, then every 2 s to 59.75 s
    gaps = [b - a for (a, _), (b, _) in zip(conn.attempts, conn.attempts[1:], strict=False)]
    assert gaps[:3] == [0.5, 1.0, 2.0] and set(gaps[3:]) == {2.0}
    assert bot.result.stopped == ("the server closed the connection: the server is shutting "
                                  "down, and it could not be reached again within 60 s")
    assert bot.result.reconnects == 0


def test_no_attempt_comes_after_reconnect_for(monkeypatch):
    # reconnect_for 4: attempts at 0.25, 0.75, 1.75; the next would be at 3.75 < 4,
    # the one after at 5.75: not made, and the bot says why it stopped
    bot, conn, clock = run_bot(monkeypatch, [lost()] * 10, reconnect_for=4)
    assert [when - 1000.0 for when, _ in conn.attempts] == [0.25, 0.75, 1.75, 3.75]
    assert clock.now - 1000.0 == 3.75  # stopped at once, not after one more wait
    assert bot.result.stopped is not None
    assert bot.result.stopped.endswith("could not be reached again within 4 s")
    # the wait to the first attempt counts too: a window shorter than it makes none
    bot, conn, clock = run_bot(monkeypatch, [lost()], reconnect_for=0.25)
    assert conn.attempts == [] and clock.sleeps == []
    assert bot.result.stopped.endswith("within 0.25 s")  # type: ignore[union-attr]


@pytest.mark.parametrize("reconnect_for", [0, -1])
def test_a_bot_told_not_to_wait_makes_no_attempt(monkeypatch, reconnect_for):
    bot, conn, clock = run_bot(monkeypatch, [], reconnect_for=reconnect_for)
    assert conn.attempts == [] and clock.sleeps == []
    assert bot.result.stopped == ("the server closed the connection: the server is shutting "
                                  "down (not waiting for it: reconnect_for is 0)")


def test_a_session_closed_while_reconnecting_stops_without_more_attempts(monkeypatch):
    closed = ConnectionLost("the connection was closed", resumable=False)
    bot, conn, clock = run_bot(monkeypatch, [lost(), closed, lost()], reconnect_for=300)
    assert len(conn.attempts) == 2 and clock.sleeps == [0.25, 0.5]
    assert bot.result.reconnects == 0 and bot.result.stopped is None
    assert len(conn.batches) == 1  # it read nothing more: the session is over


def test_a_good_attempt_ends_the_waits_and_the_bot_takes_its_seat_again(monkeypatch):
    # the server came back without our session (bad_token): a new one, the seat taken again
    bot, conn, clock = run_bot(monkeypatch, [lost(), welcome(resumed=False)], reconnect_for=300)
    assert clock.sleeps == [0.25, 0.5] and len(conn.attempts) == 2
    assert bot.result.reconnects == 1 and bot.result.rejoins == 1
    joins = [m for m in conn.sent if isinstance(m, wire.Join)]
    assert [j.table_id for j in joins] == ["t1", "t1"]  # at the start, and again


def test_a_session_the_server_forgot_says_why_and_takes_its_seat_again(monkeypatch):
    forgot = wire.Error(code="bad_token", request="hello", field="token",
                        message="unknown or expired session token: here is a new session")
    bot, conn, clock = run_bot(monkeypatch, [welcome(resumed=False)], reconnect_for=300,
                               errors=[forgot])
    assert bot.result.errors == ["bad_token: unknown or expired session token: here is a "
                                 "new session"]
    assert bot.result.rejoins == 1 and bot.result.reconnects == 1


def test_a_link_the_library_could_not_resume_is_tried_again_on_the_schedule(monkeypatch):
    gave_up = ConnectionLost("lost the connection to 127.0.0.1:9 and could not get it back "
                             "(refused)", resumable=False)

    class Raising(ScriptedConnection):
        async def events(self) -> AsyncIterator[wire.Message]:
            if self.batches[0] == ["raise"]:
                self.batches.pop(0)
                raise gave_up
            async for message in super().events():
                yield message

    clock = FakeClock()
    monkeypatch.setattr(bot_session, "_clock", clock.clock)
    monkeypatch.setattr(bot_session, "_sleep", clock.sleep)
    conn = Raising(clock, [lost(), welcome()], [["raise"], [wire.Goodbye(reason="quit")]])  # type: ignore[list-item]
    bot = BotSession(conn, as_player(lambda view: view.legal[0]), name="Rob",  # type: ignore[arg-type]
                     join="t1", create=None, add_bots=0, games=1, reconnect_for=300)
    asyncio.run(asyncio.wait_for(bot.run(), 10))
    assert clock.sleeps == [0.25, 0.5] and bot.result.reconnects == 1
    assert bot.result.stopped == "the server closed the connection: quit"


def _table(table_id: str, status: str, seated: int, seats: int = 3) -> wire.TableInfo:
    sitter = wire.SeatInfo(name="Ann", kind="human", connected=True, total=0, penalties=0)
    return wire.TableInfo(table_id=table_id, name="", options=wire.TableOptions(seats=seats),
                          seats=(sitter,) * seated + (None,) * (seats - seated), host=0,
                          status=status, spectators=0)


def test_a_bot_told_no_table_joins_the_first_waiting_one_with_a_free_seat(monkeypatch):
    decoded = "".join(["wait", "ing"])  # as read from the wire: equal, not the same object
    tables = wire.TableList(tables=(_table("t1", "playing", 2), _table("t2", "waiting", 3),
                                    _table("t3", decoded, 1), _table("t4", "waiting", 2)))
    bot, conn, _ = run_bot(monkeypatch, [], reconnect_for=0, join=None,
                           batches=[[tables, wire.Goodbye(reason="quit")]])
    assert [type(m).__name__ for m in conn.sent] == ["ListTables", "Join"]
    assert conn.sent[1].table_id == "t3"  # type: ignore[attr-defined]
    # none waiting with a free seat: it creates its own
    full = wire.TableList(tables=(_table("t1", "playing", 2), _table("t2", "waiting", 3)))
    bot, conn, _ = run_bot(monkeypatch, [], reconnect_for=0, join=None,
                           batches=[[full, wire.Goodbye(reason="quit")]])
    assert [type(m).__name__ for m in conn.sent] == ["ListTables", "CreateTable"]
    assert conn.sent[1].name == "Rob's table"  # type: ignore[attr-defined]


# --- against a real server that refuses the resume ------------------------------------------


class CountingProxy:
    """Forwards TCP connections to the server; keeps when each was opened; ``cut()``
    closes every connection open now (the bot's link drops)."""

    def __init__(self, server_port: int) -> None:
        self.server_port = server_port
        self.opened: list[float] = []
        self._pipes: list[asyncio.StreamWriter] = []

    async def __aenter__(self) -> CountingProxy:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.cut()
        self._server.close()
        await self._server.wait_closed()

    def cut(self) -> None:
        for writer in self._pipes:
            writer.close()
        self._pipes.clear()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.opened.append(time.monotonic())
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.server_port)
        self._pipes += [writer, up_writer]

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))


async def until(condition, what: str, seconds: float = 10.0) -> None:  # noqa: ANN001
    async with asyncio.timeout(seconds):
        while not condition():
            await asyncio.sleep(0.01)
    assert condition(), what


@pytest.mark.timeout(60)
def test_a_bot_refused_its_resume_by_a_real_server_tries_on_schedule_and_others_play_on(
        tmp_path: Path) -> None:
    config = tmp_path / "server.toml"
    # one resume at once, then none for 1000 s; the library itself retries for 0.5 s
    config.write_text("resume_burst = 1\nresume_rate = 0.001\nreconnect_grace = 0.5\n")
    reconnect_for = 3.0

    async def scene(port: int) -> tuple[list[float], float, BotSession]:
        async with CountingProxy(port) as proxy:
            conn = await connect("127.0.0.1", proxy.port, "Rob", "bot")
            bot = BotSession(conn, as_player(lambda view: view.legal[0]), name="Rob", join=None,
                             create=wire.TableOptions(seats=2), add_bots=0, games=1,
                             table_wait=0, reconnect_for=reconnect_for)
            playing = asyncio.create_task(bot.run())
            ann = await connect("127.0.0.1", port, "Ann", "human")
            try:
                await until(lambda: bot.result.table_id is not None, "the bot sat down")
                proxy.cut()  # the first drop: resumed (the one resume allowed)
                await until(lambda: len(proxy.opened) == 2 and conn.welcome is not None
                            and not conn.closed, "the bot resumed")
                await until(lambda: bot.tracker.model.table is not None, "the seat came back")
                cut_at = time.monotonic()
                proxy.cut()  # the second: every resume refused (rate_limited)
                # meanwhile another player is served as ever
                await ann.send(wire.ListTables())
                async with asyncio.timeout(2):
                    async for message in ann.events():
                        assert not isinstance(message, wire.Error | wire.Goodbye), message
                        if isinstance(message, wire.TableList):
                            break
                assert [t.seats[0].name for t in message.tables if t.seats[0]] == ["Rob"]
                await ann.send(wire.CreateTable(options=wire.TableOptions(seats=3)))
                async with asyncio.timeout(2):
                    async for message in ann.events():
                        assert not isinstance(message, wire.Error | wire.Goodbye), message
                        if isinstance(message, wire.Seated):
                            break
                await asyncio.wait_for(playing, 20)
            finally:
                playing.cancel()
                await ann.close()
                await conn.close()
            return proxy.opened, cut_at, bot

    with running_server("--config", str(config)) as port:
        opened, cut_at, bot = asyncio.run(scene(port))
    after = [when - cut_at for when in opened[2:]]
    # the library's own tries for its 0.5 s (at once, 0.25 s later, and 0.5 s after that
    # if the first two were quick), then the bot's: 0.25, 0.5 and 1 s apart, the next
    # (2 s later) past its 3 s. Never two attempts at once (before: a gap of 0 where
    # the library gave up and the bot began, and one more attempt past the 3 s).
    assert 5 <= len(after) <= 6, after
    gaps = [b - a for a, b in zip(after, after[1:], strict=False)]
    assert min(gaps) >= 0.23, (gaps, after)
    assert sorted(gaps)[-1] >= 0.98, (gaps, after)  # the bot's wait of 1 s came
    assert bot.result.stopped is not None
    assert bot.result.stopped.endswith(f"could not be reached again within {reconnect_for:g} s")
    assert "resumed too often" in bot.result.stopped and bot.result.reconnects == 0
