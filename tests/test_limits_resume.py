"""Resume floods and flooders on a shared address (issue 22, "Limits that still let
one client hurt others"), against a real server on 127.0.0.1, while two players
from 127.0.0.2 play a game at their own table that must go on undisturbed.

Loopback has a whole /8: a socket bound to 127.x.y.z reaches the server from that
address, so an attacker can come back "from a new address" each time.
"""

from __future__ import annotations

import trio

from nimmt import protocol as P
from nimmt.server import start_server
from server_helpers import Closed, ScriptClient, make_config, seat_players
from test_server_limits import background, connect


async def hello_from(port: int, address: str, name: str, token: str | None) -> ScriptClient:
    """Connect from ``address`` and say hello (with ``token``): the client, welcomed
    or (``closed``) refused."""
    stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=address)
    client = ScriptClient(stream, name)
    await client.send(P.Hello(protocol=P.PROTOCOL_VERSION, name=name, kind="human",
                              token=token))
    try:
        welcome = await client.expect("welcome")
    except Closed:
        return client
    assert isinstance(welcome, P.Welcome)
    client.welcome, client.token = welcome, welcome.token
    return client


async def flood(client: ScriptClient) -> P.Goodbye | None:
    """Pings far over the rate until the server closes the connection."""
    await client.send_raw(b"".join(client.conn.send(P.Ping(nonce=i)) for i in range(200)))
    return await client.wait_closed()


async def seated_attacker(port: int, address: str) -> ScriptClient:
    """A player at a table of its own with one built-in bot, the game on."""
    attacker = await connect(port, "Att", address)
    await seat_players(attacker, [], P.TableOptions(seats=2, step_delay=0.0), bots=1)
    await attacker.send(P.Start())
    await attacker.expect("turn_started")
    return attacker


async def test_a_session_flooding_and_resuming_from_new_addresses_waits_longer_each_time(
        autojump_clock):
    """The attack of issue 22: a seated session floods, is closed, and resumes at once
    from a new address, over and over (on d27b87c every resume got in: 176 cycles a
    second from ten sessions took other tables' reveal p99 from 15.5 to 836 ms). Now
    the session, not the address, waits: 1 s, 2 s, 4 s ... after each flood, so in
    10 s it gets back in 3 times, not 100; the others play on."""
    async with trio.open_nursery() as nursery:
        _, port = await start_server(nursery, make_config())
        game = await background(nursery, port)
        attacker = await seated_attacker(port, "127.0.1.1")
        token = attacker.token
        assert (await flood(attacker)).reason == "rate_limited"  # type: ignore[union-attr]
        started = trio.current_time()
        resumed, refusals = 0, []
        for cycle in range(100):
            client = await hello_from(port, f"127.0.2.{cycle + 1}", "Att", token)
            if client.welcome is not None:
                assert client.welcome.resumed
                resumed += 1
                assert (await flood(client)).reason == "rate_limited"  # type: ignore[union-attr]
            else:
                (error,) = client.of_type("error")
                assert (error.code, error.field, client.goodbye.reason) == (
                    "rate_limited", "token", "rate_limited")
                refusals.append(error.message)
            await client.aclose()
            await trio.sleep(0.1)
        elapsed = trio.current_time() - started
        assert 9.9 < elapsed < 12.0
        assert resumed == 3  # at about 1 s, 3 s and 7 s
        assert len(refusals) == 97
        assert all("closed for flooding" in m and "resume it again in" in m for m in refusals)
        await game.check()
        nursery.cancel_scope.cancel()


async def test_resumes_are_metered_per_session_whatever_the_address(autojump_clock):
    """A session that does not flood but resumes as fast as it can, each time from a
    new address: ``resume_burst`` (10) resumes at once, then ``resume_rate`` (one
    every 5 s); the others are refused with rate_limited, and the others' game goes
    on. An honest player who resumes now and then is never refused."""
    async with trio.open_nursery() as nursery:
        _, port = await start_server(nursery, make_config())
        game = await background(nursery, port)
        attacker = await seated_attacker(port, "127.0.1.1")
        token = attacker.token
        welcomed = 0
        for cycle in range(30):
            client = await hello_from(port, f"127.0.3.{cycle + 1}", "Att", token)
            welcomed += client.welcome is not None
            if client.welcome is None:
                (error,) = client.of_type("error")
                assert error.code == "rate_limited"
                assert "resumed too often: resume it again in 5 s" in error.message
        assert welcomed == 10
        await trio.sleep(5.0)
        again = await hello_from(port, "127.0.3.200", "Att", token)
        assert again.welcome is not None and again.welcome.resumed

        # an honest player who drops and comes back every 10 s is never refused
        honest = await connect(port, "Hon", "127.0.0.9")
        for i in range(12):
            await honest.aclose()
            await trio.sleep(10.0)
            honest = await hello_from(port, "127.0.0.9", "Hon", honest.token)
            assert honest.welcome is not None and honest.welcome.resumed, i
        await game.check()
        nursery.cancel_scope.cancel()


async def test_flooders_on_a_shared_address_keep_its_players_out_for_a_second_only(
        autojump_clock):
    """Flooders behind an honest player's address (one NAT): on d27b87c each flood
    doubled the address's wait, up to 30 s, so after a few floods the player could
    not connect or resume for half a minute. Now the address waits
    ``flood_address_cooldown`` (1 s) after each flood, never longer: the player's
    new connection, and its resume, get in a second after the last flood."""
    async with trio.open_nursery() as nursery:
        _, port = await start_server(nursery, make_config())
        game = await background(nursery, port)
        shared = "127.0.0.7"
        honest = await connect(port, "Hon", shared)
        token = honest.token
        await honest.aclose()  # its link drops: it will resume
        for i in range(8):  # eight floods, each from a fresh session on the address
            flooder = await connect(port, f"Flood{i}", shared)
            assert (await flood(flooder)).reason == "rate_limited"  # type: ignore[union-attr]
            refused = await hello_from(port, shared, "Early", None)
            assert refused.welcome is None
            assert "try again in 1 s" in refused.of_type("error")[0].message
            await trio.sleep(1.0)
        back = await hello_from(port, shared, "Hon", token)
        assert back.welcome is not None and back.welcome.resumed
        newcomer = await hello_from(port, shared, "New", None)
        assert newcomer.welcome is not None
        await game.check()
        nursery.cancel_scope.cancel()
