"""One client must not hurt the others (issue 8): each attack is made against a real
server on 127.0.0.1, while two players from another address (127.0.0.2) play a game
at their own table, which must go on undisturbed.

Loopback has a whole /8: a client socket bound to 127.0.0.2 (or .3, ...) reaches the
server on 127.0.0.1 from another address, so the per-address limits can be tested.
"""

from __future__ import annotations

import logging
import struct

import msgpack
import pytest
import trio
import trio.testing

from nimmt import protocol as P
from nimmt.server import start_server
from server_helpers import Closed, Player, ScriptClient, make_config, play_all, seat_players

ATTACKER = "127.0.0.1"
PLAYERS = "127.0.0.2"


async def connect(port: int, name: str, address: str = ATTACKER, kind: str = "human", *,
                  hello: bool = True) -> ScriptClient:
    """A client whose socket comes from ``address`` (any 127.x.y.z)."""
    stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=address)
    client = ScriptClient(stream, name, kind)
    if hello:
        await client.hello()
    return client


class Background:
    """Two players from 127.0.0.2 play a 2-round game at their own table."""

    def __init__(self) -> None:
        self.results: list[P.GameOver] = []
        self.clients: list[ScriptClient] = []
        self.table_id = ""
        self.done = trio.Event()

    async def run(self, port: int, task_status=trio.TASK_STATUS_IGNORED) -> None:
        a = await connect(port, "Bg-a", PLAYERS)
        b = await connect(port, "Bg-b", PLAYERS)
        self.clients = [a, b]
        self.table_id = await seat_players(
            a, [b], P.TableOptions(seats=2, rounds=2, step_delay=0.5))
        await a.send(P.Start())
        task_status.started()
        self.results = await play_all([Player(a, seed=1), Player(b, seed=2)])
        self.done.set()

    async def check(self) -> None:
        """Finished, with nobody warned, refused or dropped: nothing disturbed it."""
        with trio.fail_after(3600):
            await self.done.wait()
        assert len(self.results) == 2
        for client in self.clients:
            assert not client.of_type("error") and not client.of_type("deadline_warning")
            assert len(client.of_type("round_scored")) == 2
            assert not client.closed


async def background(nursery: trio.Nursery, port: int) -> Background:
    game = Background()
    await nursery.start(game.run, port)
    return game


def frame(obj) -> bytes:
    body = msgpack.packb(obj)
    return struct.pack(">I", len(body)) + body


# ---------------------------------------------------------------- item 2: a busy lobby


async def test_a_busy_lobby_drops_nobody_and_its_table_list_stays_true(mock_clock):
    """300 clients in the lobby each create a table at once: more than ``send_queue``
    (256) tables change within one feed second. Nobody is dropped, and a client that
    stayed in the lobby ends up knowing every table as it is.

    The clock stands still until ``tick`` moves it (when everything waits), so all 300
    tables are created within one feed second, as on a busy server."""
    config = make_config(max_per_address=1000, tables_per_address=1000)
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, config)
        ticking = trio.CancelScope()

        async def tick() -> None:
            with ticking:
                while True:
                    await trio.testing.wait_all_tasks_blocked(cushion=0.002)
                    mock_clock.jump(0.25)

        watcher = await connect(port, "Watcher", PLAYERS, "spectator")
        creators = [await connect(port, f"c{i}") for i in range(300)]
        await watcher.request(P.ListTables())
        for creator in creators:  # all at once: nobody reads a reply before the last
            await creator.send(P.CreateTable(options=P.TableOptions(seats=3)))
        for creator in creators:
            assert isinstance(await creator.expect("seated"), P.Seated)
        assert trio.current_time() < 1.0
        nursery.start_soon(tick)
        game = await background(nursery, port)
        # the watcher reads its feed (the feed spreads the 300 changes out)
        known: dict[str, P.TableInfo] = {}
        expected = {game.table_id} | {c.table_id for c in creators}
        while set(known) != expected:
            msg = await watcher.recv()
            if isinstance(msg, P.TableUpdated):
                known[msg.table.table_id] = msg.table
            elif isinstance(msg, P.TableClosed):
                known.pop(msg.table_id, None)
        # what it knows is what the server lists now
        listing = await watcher.request(P.ListTables())
        assert len(listing.tables) == P.MAX_TABLES_LISTED
        for info in listing.tables:
            if info.table_id != game.table_id:
                assert known[info.table_id] == info
        await game.check()
        assert not watcher.closed and all(not c.closed for c in creators)
        ticking.cancel()
        nursery.cancel_scope.cancel()


# ---------------------------------------------------------------- item 4: shares of caps


async def test_connections_per_address_are_capped(autojump_clock):
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(max_per_address=5))
        game = await background(nursery, port)
        held = [await connect(port, f"m{i}") for i in range(5)]
        extra = await connect(port, "extra", hello=False)
        goodbye = await extra.wait_closed()
        assert goodbye is not None and goodbye.reason == "server_full"
        (error,) = extra.of_type("error")
        assert error.code == "server_full" and "your address" in error.message
        # another address is not affected, and one freed place can be taken again
        assert (await connect(port, "Other", "127.0.0.3")).welcome is not None
        await held[0].send(P.Goodbye(reason="quit"))
        await held[0].wait_closed()
        await trio.sleep(1)
        assert (await connect(port, "again")).welcome is not None
        await game.check()
        nursery.cancel_scope.cancel()


async def test_a_few_addresses_at_their_cap_cannot_fill_the_server(autojump_clock):
    """Three addresses take every connection they may (16 each); the server keeps its
    last 8 of 40 for addresses that hold fewer than 4, so newcomers from other
    addresses still get in, and the game elsewhere goes on."""
    config = make_config(max_connections=40, max_per_address=16, reserved_share=0.2)
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, config)
        game = await background(nursery, port)  # 2 connections from 127.0.0.2
        held: dict[str, int] = {}
        refusals: set[str] = set()
        hogs = []  # kept open (a dropped client object would close its socket)
        for address in ("127.0.0.1", "127.0.1.1", "127.0.1.2"):
            for i in range(16):
                client = await connect(port, f"hog{i}", address, hello=False)
                hogs.append(client)
                await client.send(P.Hello(protocol=P.PROTOCOL_VERSION, name="hog",
                                          kind="human"))
                try:
                    await client.expect("welcome")
                    held[address] = held.get(address, 0) + 1
                except Closed:
                    assert client.goodbye is not None and client.goodbye.reason == "server_full"
                    refusals.add(client.of_type("error")[0].message)
        assert held == {"127.0.0.1": 16, "127.0.1.1": 14, "127.0.1.2": 4}
        assert refusals == {"the server keeps its last 8 connections for addresses that hold "
                            "fewer than 4, and yours holds 14",
                            "the server keeps its last 8 connections for addresses that hold "
                            "fewer than 4, and yours holds 4"}
        for n in range(3):  # 36 connections: the newcomers take the rest
            newcomer = await connect(port, f"New{n}", f"127.0.2.{n + 1}")
            assert newcomer.welcome is not None
        await game.check()
        nursery.cancel_scope.cancel()


async def test_the_default_lets_a_lan_party_behind_one_address_play(autojump_clock):
    """40 people behind one NAT, 10 tables of 4: the defaults let them all in."""
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        people = [await connect(port, f"p{i}", "127.0.0.4") for i in range(40)]
        for i in range(0, 40, 4):
            await seat_players(people[i], people[i + 1:i + 4], P.TableOptions(seats=4))
        assert all(p.seat is not None for p in people)
        nursery.cancel_scope.cancel()


async def test_silent_connections_cannot_keep_a_player_out(autojump_clock):
    """Connections that never say hello, reconnecting as soon as they are dropped, from
    one address and from several: a player who says hello gets in every time."""
    config = make_config(max_connections=16, max_unwelcomed=8, max_unwelcomed_per_address=4)
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, config)
        game = await background(nursery, port)
        dropped = []

        async def silent(address: str) -> None:
            while True:
                try:
                    ghost = await connect(port, "ghost", address, hello=False)
                except OSError:
                    await trio.sleep(0.01)
                    continue
                dropped.append(await ghost.wait_closed())
                await ghost.aclose()
                await trio.sleep(0.05)  # soon (a pause lets the fake clock move)

        attackers = ["127.0.0.1"] * 8 + [f"127.0.1.{i}" for i in range(1, 4) for _ in range(4)]
        async with trio.open_nursery() as attack:
            for address in attackers:
                attack.start_soon(silent, address)
            await trio.sleep(0.5)
            welcomed = 0
            for i in range(10):
                player = await connect(port, f"late{i}", "127.0.0.5", hello=False)
                await player.send(P.Hello(protocol=P.PROTOCOL_VERSION, name="Late",
                                          kind="human"))
                try:
                    welcomed += isinstance(await player.expect("welcome"), P.Welcome)
                except Closed:
                    pass
                await player.aclose()
                await trio.sleep(0.3)
            attack.cancel_scope.cancel()
        assert welcomed == 10
        # the silent ones were pushed out to make room, with a goodbye saying why
        assert {g.reason for g in dropped if g is not None} <= {"server_full", "timeout"}
        assert any(g is not None and g.reason == "server_full" for g in dropped)
        assert len(server.admission) <= 3 + len(attackers)
        await game.check()
        nursery.cancel_scope.cancel()


async def test_a_frame_trickled_after_hello_times_out(autojump_clock):
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        game = await background(nursery, port)
        slow = await connect(port, "Slow")
        data = slow.conn.send(P.Ping(nonce=1))
        began = trio.current_time()

        async def trickle() -> None:
            for byte in data[:-1]:  # never the last one
                await slow.send_raw(bytes([byte]))
                await trio.sleep(1)

        nursery.start_soon(trickle)
        goodbye = await slow.wait_closed()
        assert goodbye.reason == "timeout" and "frame" in goodbye.message
        assert trio.current_time() - began <= 30.0 + 1.0
        # complete frames spread out are fine: an idle client that answers pings stays
        calm = await connect(port, "Calm")
        for i in range(5):
            await trio.sleep(25)
            assert isinstance(await calm.request(P.Ping(nonce=i)), P.Pong)
        await game.check()
        nursery.cancel_scope.cancel()


async def test_tables_per_client_and_per_address(autojump_clock):
    """Create a table, disconnect (the table stays open), reconnect, again...: one
    address cannot take every table; nor can one session."""
    config = make_config(tables_per_session=2, tables_per_address=3, max_tables=10)
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, config)
        game = await background(nursery, port)
        # one session creates tables and leaves each to someone who joined it
        eve = await connect(port, "Eve")
        for i in range(2):
            seated = await eve.request(P.CreateTable())
            friend = await connect(port, f"Friend{i}", "127.0.0.3")
            await friend.request(P.Join(table_id=seated.table.table_id))
            await eve.request(P.Leave())
        refused = await eve.request(P.CreateTable())
        assert refused.code == "not_allowed" and "you created 2 tables" in refused.message
        # new sessions from the same address, each leaving its table open
        outcomes = []
        for i in range(5):
            client = await connect(port, f"hit{i}")
            outcomes.append((await client.request(P.CreateTable())).TYPE)
            await client.aclose()
        assert outcomes == ["seated", "error", "error", "error", "error"]  # 2 + 1 = 3
        # another address still can, and plays
        ann = await connect(port, "Ann", "127.0.0.3")
        await seat_players(ann, [], P.TableOptions(seats=2, step_delay=0), bots=1)
        await ann.send(P.Start())
        assert isinstance(await ann.expect("game_over"), P.GameOver)
        await game.check()
        nursery.cancel_scope.cancel()


# ---------------------------------------------------------------- item 5: a blank key


@pytest.mark.parametrize("key", [b"\xa0", b"\xa1 "])
async def test_an_extra_blank_key_gets_an_error_and_the_connection_goes_on(
        autojump_clock, caplog, key):
    """The bytes of issue 8 (a ping with an extra key "" or " ")."""
    caplog.set_level(logging.INFO, logger="nimmt.server")
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        game = await background(nursery, port)
        client = await connect(port, "Odd")
        body = bytes.fromhex("83a474797065a470696e67a56e6f6e636501") + key + b"\x01"
        await client.send_raw(struct.pack(">I", len(body)) + body)
        error = await client.expect("error")
        assert error.code == "extra_field" and error.field == repr(key[1:].decode())
        assert isinstance(await client.request(P.Ping(nonce=2)), P.Pong)  # still served
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        await game.check()
        nursery.cancel_scope.cancel()


# ---------------------------------------------------------------- item 7: table ids


async def test_table_ids_do_not_repeat_after_a_restart(autojump_clock):
    ids = []
    for _ in range(2):
        async with trio.open_nursery() as nursery:
            server, port = await start_server(nursery, make_config())
            ann = await connect(port, "Ann")
            if ids:  # the id of the earlier run names nothing here
                refused = await ann.request(P.Join(table_id=ids[0]))
                assert refused.code == "no_such_table"
            seated = await ann.request(P.CreateTable())
            ids.append(seated.table.table_id)
            await server.shutdown()
            nursery.cancel_scope.cancel()
    assert ids[0] != ids[1]
    for table_id in ids:
        assert len(table_id) <= 8 and table_id.isalnum() and table_id.endswith("1")


async def test_a_burst_of_clients_from_one_address_all_get_in(autojump_clock):
    """100 bots on one machine connect and say hello all at once (an arena, a LAN
    party's bots): with the default limits none is pushed out."""
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        welcomed = []

        async def bot(i: int) -> None:
            client = await connect(port, f"Bot{i}", "127.0.0.6", "bot")
            welcomed.append(client.welcome)

        async with trio.open_nursery() as burst:
            for i in range(100):
                burst.start_soon(bot, i)
        assert len(welcomed) == 100
        nursery.cancel_scope.cancel()


async def flood_until_closed(port: int, name: str) -> P.Goodbye | None:
    """Connect from the attacker's address and send pings far over the rate."""
    flood = await connect(port, name)
    await flood.send_raw(b"".join(flood.conn.send(P.Ping(nonce=i)) for i in range(500)))
    return await flood.wait_closed()


async def refused_for_flooding(port: int, name: str) -> str:
    """Connect from the attacker's address: the refusal's message (fails if let in)."""
    again = await connect(port, name, hello=False)
    goodbye = await again.wait_closed()
    assert goodbye is not None and goodbye.reason == "rate_limited"
    (error,) = again.of_type("error")
    assert error.code == "rate_limited"
    return error.message


async def test_a_flooder_that_reconnects_at_once_waits(autojump_clock):
    """Closing a flooder must not just invite it back: its address may not connect
    for 1 s (``flood_address_cooldown``), each time (others may share the address:
    the flooder's session is what waits longer, tests/test_limits_resume.py), while
    the players elsewhere play on and new players from other addresses get in."""
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        game = await background(nursery, port)
        for cooldown in (1, 1, 1):
            goodbye = await flood_until_closed(port, f"Flood{cooldown}")
            assert goodbye is not None and goodbye.reason == "rate_limited"
            t0 = trio.current_time()
            message = await refused_for_flooding(port, "Again")
            assert f"try again in {cooldown} s" in message
            assert (await connect(port, f"New{cooldown}", "127.0.0.3")).welcome is not None
            await trio.sleep(cooldown - 0.1 - (trio.current_time() - t0))
            await refused_for_flooding(port, "Early")  # still cooling down
            await trio.sleep(0.2)
            assert (await connect(port, f"Back{cooldown}")).welcome is not None
        await game.check()
        nursery.cancel_scope.cancel()


async def test_a_chatter_cannot_flood_the_lobby(autojump_clock):
    """A lobby chat line goes to everyone in the lobby: a client sending 30 at once
    gets 5 through (``chat_burst``), then one a second (``chat_rate``); the others
    are refused with ``rate_limited`` and reach nobody. The chatter keeps its
    connection, and a game elsewhere goes on undisturbed."""
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        game = await background(nursery, port)
        listener = await connect(port, "Lou", "127.0.0.3")
        chatter = await connect(port, "Chatty")
        await chatter.send_raw(b"".join(chatter.conn.send(P.Chat(id=i, text=f"spam {i}"))
                                        for i in range(1, 31)))
        await chatter.send(P.Ping(nonce=7))
        await chatter.expect(lambda m: isinstance(m, P.Pong) and m.nonce == 7)
        refused = [m for m in chatter.of_type("error") if m.code == "rate_limited"]
        assert [m.re for m in refused] == list(range(6, 31))
        assert refused[0].request == "chat" and "you chat too fast" in refused[0].message
        assert "try again in 1 s" in refused[0].message
        await listener.send(P.Ping(nonce=8))
        await listener.expect(lambda m: isinstance(m, P.Pong) and m.nonce == 8)
        heard = [m.text for m in listener.of_type("chat_message") if m.name == "Chatty"]
        assert heard == [f"spam {i}" for i in range(1, 6)]
        await trio.sleep(1.0)
        await chatter.send(P.Chat(id=31, text="one more"))
        assert (await listener.expect("chat_message")).text == "one more"
        assert not chatter.closed and chatter.goodbye is None
        await game.check()
        nursery.cancel_scope.cancel()


async def test_many_connections_from_one_address_share_one_chat_meter(autojump_clock):
    """Four sessions from one address, each within its own meter (5 lines at once),
    together say 20 lines: the address's meter (``chat_address_burst``, 10) lets 10
    through and refuses the rest with ``rate_limited``; a listener hears just those
    10, someone from another address still chats, and a game elsewhere goes on."""
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        game = await background(nursery, port)
        listener = await connect(port, "Lou", "127.0.0.3")
        chatters = [await connect(port, f"Chatty{i}", "127.0.0.5") for i in range(4)]
        for i, chatter in enumerate(chatters):
            await chatter.send_raw(b"".join(
                chatter.conn.send(P.Chat(id=n, text=f"spam {i}.{n}")) for n in range(1, 6)))
            await chatter.send(P.Ping(nonce=i))
            await chatter.expect(lambda m, i=i: isinstance(m, P.Pong) and m.nonce == i)
        refused = [m for c in chatters for m in c.of_type("error") if m.code == "rate_limited"]
        assert len(refused) == 10
        assert all("your address chats too fast" in m.message for m in refused)
        await listener.send(P.Ping(nonce=9))
        await listener.expect(lambda m: isinstance(m, P.Pong) and m.nonce == 9)
        heard = [m.text for m in listener.of_type("chat_message") if m.name.startswith("Chatty")]
        assert heard == [f"spam {i}.{n}" for i in (0, 1) for n in range(1, 6)]
        other = await connect(port, "Olga", "127.0.0.4")
        await other.send(P.Chat(id=1, text="hello, anyone?"))
        assert (await listener.expect("chat_message")).text == "hello, anyone?"
        assert not other.of_type("error")
        await trio.sleep(1.0)  # three lines a second for the whole address
        await chatters[3].send(P.Chat(id=6, text="back"))
        assert (await listener.expect("chat_message")).text == "back"
        assert all(not c.closed and c.goodbye is None for c in chatters)
        await game.check()
        nursery.cancel_scope.cancel()


# ---------------------------------------------------------------- settings, sans-IO parts


def test_the_limit_settings_are_validated_and_documented():
    import doctest
    from pathlib import Path

    from nimmt.server import ConfigError, load_config_text
    from nimmt.server.lobby import lobby
    from nimmt.server.sessions import limits

    config = load_config_text("max_per_address = 8\nframe_timeout = 5\n")
    assert (config.max_per_address, config.frame_timeout) == (8, 5.0)
    for bad in ("max_per_address = 0", "max_unwelcomed = 0", "tables_per_session = 0",
                "frame_timeout = 0", "flood_cooldown = -1", "flood_cooldown_max = 0.5",
                "chat_rate = 0", "chat_burst = 0", "chat_address_rate = 0",
                "chat_address_burst = 0", "reserved_share = 0.6"):
        with pytest.raises(ConfigError):
            load_config_text(bad)
    server_doc = Path(__file__).parent.parent.joinpath("docs", "SERVER.md").read_text()
    for name in ("max_per_address", "max_unwelcomed", "max_unwelcomed_per_address",
                 "tables_per_session", "tables_per_address", "frame_timeout",
                 "flood_cooldown", "flood_cooldown_max", "chat_rate", "chat_burst",
                 "chat_address_rate", "chat_address_burst", "reserved_share"):
        assert f"| `{name}` |" in server_doc
    for module in (limits, lobby):
        assert doctest.testmod(module).failed == 0


def test_admission_forgets_everyone_who_is_gone():
    from nimmt.server.sessions.limits import Admission

    gate = Admission(connections=100, per_address=50, unwelcomed=12, unwelcomed_per_address=3)
    evicted = []
    for i in range(60):
        admitted = gate.admit(i, f"10.0.0.{i % 4}", now=float(i))
        assert admitted.refused is None
        for old in admitted.evict:  # always the oldest silent one of the same address
            assert old % 4 == i % 4 and old not in evicted
            evicted.append(old)
            gate.gone(old)
    assert len(gate) == 60 - len(evicted) == 12  # 3 waiting per address
    for i in range(60):
        gate.gone(i)
    assert len(gate) == 0
    for i in range(50):  # all welcomed: only the per-address cap is left
        assert gate.admit(("again", i), "10.0.0.1").refused is None
        gate.welcomed(("again", i))
    assert "your address" in gate.admit("one more", "10.0.0.1").refused
    assert gate.admit("elsewhere", "10.0.0.2").refused is None
