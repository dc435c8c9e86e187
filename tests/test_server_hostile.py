"""Hostile peers: garbage, oversized frames, bad frames in a row, slow readers, half-open
connections, floods, too many connections. Each is dropped, and a game at another
table goes on undisturbed."""

from __future__ import annotations

import random
import struct

import msgpack
import pytest
import trio

from nimmt import protocol as P
from nimmt.server import start_server
from server_helpers import (
    Player,
    ScriptClient,
    make_config,
    play_all,
    seat_players,
    serve_memory,
)


class Background:
    """A game at another table (two players, one round) played while a test misbehaves."""

    def __init__(self) -> None:
        self.results: list[P.GameOver] = []
        self.clients: list[ScriptClient] = []
        self.done = trio.Event()
        self.table_id = ""

    async def run(self, server, nursery, task_status=trio.TASK_STATUS_IGNORED) -> None:
        a = await ScriptClient.memory(server, nursery, "Bg-a", "human")
        b = await ScriptClient.memory(server, nursery, "Bg-b", "human")
        self.clients = [a, b]
        self.table_id = await seat_players(a, [b], P.TableOptions(seats=2, rounds=2,
                                                                  step_delay=0.5))
        await a.send(P.Start())
        task_status.started()
        self.results = await play_all([Player(a, seed=1), Player(b, seed=2)])
        self.done.set()

    async def wait(self) -> None:
        with trio.fail_after(3600):
            await self.done.wait()

    def check(self) -> None:
        """Finished, with nobody warned or refused: nothing disturbed it."""
        assert self.done.is_set() and len(self.results) == 2
        for client in self.clients:
            assert not client.of_type("error") and not client.of_type("deadline_warning")
            assert len(client.of_type("round_scored")) == 2


async def with_background(server, nursery) -> Background:
    """Start the background game and return once it has started."""
    background = Background()
    await nursery.start(background.run, server, nursery)
    return background


def frame(obj) -> bytes:
    body = msgpack.packb(obj)
    return struct.pack(">I", len(body)) + body


async def test_garbage_bytes_get_errors_then_the_connection_is_closed(autojump_clock):
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        background = await with_background(server, nursery)
        client = await ScriptClient.tcp(port, "Mal")
        # frames with bad content: refused one by one, the connection goes on
        await client.send_raw(struct.pack(">I", 3) + b"\xc1\xc1\xc1")  # not msgpack
        assert (await client.expect("error")).code == "bad_msgpack"
        await client.send_raw(frame([1, 2, 3]))
        assert (await client.expect("error")).code == "not_a_map"
        await client.send_raw(frame({"type": "launch_missiles"}))
        assert (await client.expect("error")).code == "unknown_type"
        await client.send_raw(frame({"type": "chat", "text": "hi", "admin": True}))
        error = await client.expect("error")
        assert (error.code, error.field) == ("extra_field", "admin")
        assert isinstance(await client.request(P.ListTables()), P.TableList)
        # then random bytes: sooner or later a length over the limit ends it
        rng = random.Random(7)
        await client.send_raw(bytes(rng.randrange(256) for _ in range(4096)))
        goodbye = await client.wait_closed()
        assert goodbye is not None and goodbye.reason == "protocol_error"
        await background.wait()
        background.check()
        nursery.cancel_scope.cancel()


async def test_an_oversized_frame_is_refused_from_its_length_alone(autojump_clock):
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        background = await with_background(server, nursery)
        client = await ScriptClient.tcp(port, "Big")
        await client.send_raw(struct.pack(">I", 50_000_000))  # and no body at all
        error = await client.expect("error")
        assert error.code == "frame_too_large"
        goodbye = await client.wait_closed()
        assert goodbye.reason == "protocol_error"
        await background.wait()
        background.check()
        nursery.cancel_scope.cancel()


async def test_a_run_of_invalid_frames_closes_the_connection(autojump_clock):
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config())
        client = await ScriptClient.memory(server, nursery, "Mal")
        await client.send_raw(frame({"type": "chat"}) * 20)  # missing text, 20 times
        goodbye = await client.wait_closed()
        assert goodbye.reason == "protocol_error"
        errors = client.of_type("error")
        assert len(errors) == 20 and {e.code for e in errors} == {"missing_field"}
        nursery.cancel_scope.cancel()


async def test_a_client_too_slow_to_read_is_dropped_and_may_come_back(autojump_clock):
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config(send_queue=64))
        background = await with_background(server, nursery)
        # a spectator that stops reading: lockstep streams only move when it reads
        slow = await ScriptClient.memory(server, nursery, "Slow", "spectator", lockstep=True)
        await slow.request(P.Watch(table_id=background.table_id))
        await background.wait()  # about 190 messages, nobody read them
        background.check()
        goodbye = await slow.wait_closed()
        assert goodbye is None  # dropped without a goodbye (it could not be sent)
        assert len(slow.log) <= 2 + 64 + 1  # what fitted in the queue (64 here)
        # it comes back with its token, and the server has its seat... of spectator
        again = await ScriptClient.memory(server, nursery, "Slow", "spectator",
                                          token=slow.token)
        assert again.welcome.resumed
        watching = await again.expect("watching")
        assert watching.table.status == "over"
        nursery.cancel_scope.cancel()


async def test_a_half_open_connection_is_dropped_by_the_heartbeat(autojump_clock):
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        background = await with_background(server, nursery)
        ghost = await ScriptClient.tcp(port, "Ghost")
        ghost.auto_pong = False
        table = await ghost.request(P.Watch(table_id=background.table_id))
        assert isinstance(table, P.Watching)
        silent_from = trio.current_time()
        goodbye = await ghost.wait_closed()  # reads, never answers
        assert goodbye.reason == "timeout"
        assert trio.current_time() - silent_from <= 15.0 + 30.0 + 1e-6
        await background.wait()
        background.check()
        nursery.cancel_scope.cancel()


async def test_a_flood_is_rate_limited_then_dropped(autojump_clock):
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        background = await with_background(server, nursery)
        flood = await ScriptClient.tcp(port, "Flo")
        await flood.send_raw(b"".join(flood.conn.send(P.Ping(nonce=i)) for i in range(1000)))
        goodbye = await flood.wait_closed()
        assert goodbye.reason == "rate_limited"
        pongs = flood.of_type("pong")
        # the burst (twice the rate of 20/s, less the hello) was answered, no more
        assert 38 <= len(pongs) <= 41
        assert [e.code for e in flood.of_type("error")] == ["rate_limited"]
        # a client at the limit is fine (from the flooder's address too, once the
        # second it must wait after a flood is over: test_server_limits)
        await trio.sleep(1.0)
        calm = await ScriptClient.tcp(port, "Calm")
        for i in range(60):
            assert isinstance(await calm.request(P.Ping(nonce=i)), P.Pong)
            await trio.sleep(0.05)
        await background.wait()
        background.check()
        nursery.cancel_scope.cancel()


async def test_a_commit_flood_is_charged_too(autojump_clock):
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config())
        ann = await ScriptClient.memory(server, nursery, "Ann")
        await seat_players(ann, [], P.TableOptions(seats=2, step_delay=0), bots=1)
        await ann.send(P.Start())
        hand = (await ann.expect("hand_dealt")).cards
        await ann.expect("turn_started")
        commits = [P.Commit(round=1, turn=1, card=hand[i % 2]) for i in range(500)]
        await ann.send_raw(b"".join(ann.conn.send(c) for c in commits))
        goodbye = await ann.wait_closed()
        assert goodbye.reason == "rate_limited"
        assert len(ann.of_type("commit_accepted")) <= 100
        nursery.cancel_scope.cancel()


async def test_too_many_connections_are_refused(autojump_clock):
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(max_connections=3))
        clients = [await ScriptClient.tcp(port, f"c{i}") for i in range(3)]
        extra = await ScriptClient.tcp(port, "extra", hello=False)
        goodbye = await extra.wait_closed()
        assert goodbye.reason == "server_full"
        assert [e.code for e in extra.of_type("error")] == ["server_full"]
        await clients[0].send(P.Goodbye(reason="quit"))
        await clients[0].wait_closed()
        await trio.sleep(1)
        late = await ScriptClient.tcp(port, "late")  # a place is free again
        assert late.welcome is not None
        nursery.cancel_scope.cancel()


async def test_unsupported_version(autojump_clock):
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config())
        client = await ScriptClient.memory(server, nursery, "Future", hello=False)
        await client.send_raw(frame({"type": "hello", "protocol": 5, "name": "Future",
                                     "kind": "bot", "hologram": True}))
        error = await client.expect("error")
        assert error.code == "unsupported_version" and error.supported == (1, 2, 3, 4)
        goodbye = await client.wait_closed()
        assert goodbye.reason == "unsupported_version"
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize("kind", ["human", "spectator"])
async def test_shutdown_says_goodbye_to_everyone(autojump_clock, kind):
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        players = [await ScriptClient.tcp(port, n) for n in ("Ann", "Bob")]
        table_id = await seat_players(players[0], players[1:], P.TableOptions(seats=2))
        await players[0].send(P.Start())
        other = await ScriptClient.tcp(port, "Obs", kind)
        await other.request(P.Watch(table_id=table_id))
        await trio.sleep(3)
        await server.shutdown()
        for client in (*players, other):
            goodbye = await client.wait_closed()
            assert goodbye is not None and goodbye.reason == "server_shutdown"
            assert goodbye.kept is False  # no database: the games end with the server
        # nothing listens any more
        with pytest.raises(OSError):
            await trio.open_tcp_stream("127.0.0.1", port)
        assert not server.clients and not server.lobby.tables
        nursery.cancel_scope.cancel()


async def test_a_bug_at_one_table_closes_that_table_only(autojump_clock, monkeypatch):
    from nimmt.server.game import translate

    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config())
        background = await with_background(server, nursery)
        ann = await ScriptClient.memory(server, nursery, "Ann")
        bob = await ScriptClient.memory(server, nursery, "Bob")
        broken_id = await seat_players(ann, [bob], P.TableOptions(seats=2))
        await ann.send(P.Start())
        await ann.expect("turn_started")

        def broken(*args, **kwargs):
            raise RuntimeError("a bug")

        monkeypatch.setattr(translate, "snapshot", broken)
        eve = await ScriptClient.memory(server, nursery, "Eve", "spectator")
        await eve.send(P.Watch(table_id=broken_id))  # the snapshot of that table fails
        assert (await ann.expect("left")).reason == "table_closed"
        assert (await eve.expect("error")).code == "internal_error"
        monkeypatch.undo()
        await background.wait()
        background.check()  # the other table never noticed
        listing = await eve.request(P.ListTables())
        assert [t.table_id for t in listing.tables] == [background.table_id]
        nursery.cancel_scope.cancel()
