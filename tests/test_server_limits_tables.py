"""Issue 8, the table-side items (1, 3, 6), tested from the network only: a real server
on 127.0.0.1, the attack, and two players at another table who must not notice.
"""

from __future__ import annotations

import trio

from nimmt import protocol as P
from nimmt.server import start_server
from server_helpers import Player, make_config, play_until_over, seat_players
from test_server_limits import background, connect

async def test_a_player_resuming_after_a_commit_flood_plays_on(autojump_clock):
    """Item 1: a seated player floods its table with 20,000 commit frames (the frame
    of the issue), is closed ``rate_limited``, and comes back with its token as soon
    as its address may connect again (1 s: at once it is refused ``rate_limited``):
    it is not closed again for what its old connection queued, and plays to the end."""
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        game = await background(nursery, port)
        ann = await connect(port, "Ann")
        await seat_players(ann, [], P.TableOptions(seats=2, step_delay=0, rounds=1), bots=1)
        await ann.send(P.Start())
        hand = (await ann.expect("hand_dealt")).cards
        await ann.expect("turn_started")
        commit = P.encode_frame(P.Commit(round=1, turn=1, card=hand[0]))
        try:
            await ann.send_raw(commit * 20_000)
        except trio.BrokenResourceError:
            pass  # the server closed the connection before reading it all
        goodbye = await ann.wait_closed()
        assert goodbye is not None and goodbye.reason == "rate_limited"
        refused = await connect(port, "Ann", hello=False)
        assert (await refused.wait_closed()).reason == "rate_limited"
        await trio.sleep(1.0)
        again = await connect(port, "Ann", hello=False)
        welcome = await again.hello(ann.token)
        assert welcome.resumed
        over = await play_until_over(Player(again, seed=3))
        assert isinstance(over, P.GameOver) and not again.closed
        assert not [e for e in again.of_type("error") if e.code == "rate_limited"]
        await game.check()
        nursery.cancel_scope.cancel()


async def test_spectators_who_disconnect_are_not_counted_for_ever(autojump_clock):
    """Item 3: spectators watch a playing table and disconnect; once their sessions
    can no longer be resumed, the table counts none of them."""
    config = make_config(reconnect_grace=10.0)
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, config)
        game = await background(nursery, port)
        for i in range(20):
            eve = await connect(port, f"Eve{i}", "127.0.0.3", "spectator")
            assert isinstance(await eve.request(P.Watch(table_id=game.table_id)), P.Watching)
            await eve.aclose()
        await trio.sleep(config.reconnect_grace + 1)
        lister = await connect(port, "Lister", "127.0.0.3", "spectator")
        listing = await lister.request(P.ListTables())
        (info,) = [t for t in listing.tables if t.table_id == game.table_id]
        assert info.spectators == 0
        await game.check()
        nursery.cancel_scope.cancel()


async def test_names_the_server_makes_stay_within_the_limits(autojump_clock):
    """Item 6: a host named with 32 characters seats 9 bots of the same name at a
    10-seat table: every name the server makes is valid, and the table plays on."""
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        game = await background(nursery, port)
        name = "N" * 32
        host = await connect(port, name)
        await seat_players(host, [], P.TableOptions(seats=10, step_delay=0, rounds=1))
        for _ in range(9):
            reply = await host.request(P.AddBot(name=name))
            assert isinstance(reply, P.TableUpdated), reply  # the client checked every name
        names = [s.name for s in reply.table.seats if s is not None]
        assert len(names) == 10 and len(set(names)) == 10
        await host.send(P.Start())
        assert isinstance(await play_until_over(Player(host, seed=4)), P.GameOver)
        assert not [m for m in host.of_type("left") if m.reason == "table_closed"]
        await game.check()
        nursery.cancel_scope.cancel()


#: the frame of issue 8, item 1: ``commit`` round 1, turn 9, card 50 (36 bytes)
ISSUE_COMMIT = bytes.fromhex(
    "00000020 84a474797065a6636f6d6d6974a5726f756e6401a47475726e09a46361726432")


async def test_a_commit_flood_does_not_crowd_out_the_other_player(autojump_clock):
    """Item 1: at a two-player table, Ann writes the issue's commit frame 20,000 times
    (720 kB). Only a few of them are queued at the table: she is closed
    ``rate_limited`` after a bounded number of replies, while Bob, at the same
    table, has no request refused and plays to the end (her seat on autopilot)."""
    assert len(ISSUE_COMMIT) == 36
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(grace_time=1.0))
        game = await background(nursery, port)
        ann = await connect(port, "Ann")
        bob = await connect(port, "Bob", "127.0.0.4")
        await seat_players(ann, [bob], P.TableOptions(seats=2, step_delay=0, rounds=1))
        await ann.send(P.Start())
        await ann.expect("turn_started")
        try:
            await ann.send_raw(ISSUE_COMMIT * 20_000)
        except trio.BrokenResourceError:
            pass  # the server closed the connection before reading it all
        goodbye = await ann.wait_closed()
        assert goodbye is not None and goodbye.reason == "rate_limited"
        # a bounded amount of work: far fewer replies than frames
        assert len(ann.log) < 200
        over = await play_until_over(Player(bob, seed=5))
        assert isinstance(over, P.GameOver) and not bob.closed
        assert not bob.of_type("error")
        await game.check()
        nursery.cancel_scope.cancel()


async def test_spectators_come_and_go_and_are_capped(autojump_clock):
    """Item 3: waves of spectators watch a table that is playing and drop their
    connections; past ``max_spectators`` a watch is refused ``table_full``; once the
    dropped ones are removed (``reconnect_grace`` later) a new wave gets in. The
    players never notice, and the table is never closed."""
    config = make_config(reconnect_grace=1.0, max_spectators=10, turn_time=3600.0)
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, config)
        game = await background(nursery, port)
        # a table that plays on while the waves come: Pat takes her time
        pat = await connect(port, "Pat", "127.0.0.4")
        table_id = await seat_players(pat, [], P.TableOptions(seats=3, rounds=1), bots=2)
        await pat.send(P.Start())
        await pat.expect("turn_started")
        for wave in range(6):
            watchers = []
            for i in range(config.max_spectators):
                eve = await connect(port, f"Eve{wave}-{i}", "127.0.0.3", "spectator")
                reply = await eve.request(P.Watch(table_id=table_id))
                assert isinstance(reply, P.Watching), reply
                assert reply.table.status == "playing"
                watchers.append(eve)
            late = await connect(port, f"Late{wave}", "127.0.0.3", "spectator")
            refused = await late.request(P.Watch(table_id=table_id))
            assert isinstance(refused, P.Error) and refused.code == "table_full"
            assert "10 spectators" in refused.message
            await late.aclose()
            for eve in watchers:
                await eve.aclose()
            await trio.sleep(config.reconnect_grace + 0.5)
        lister = await connect(port, "Lister", "127.0.0.3", "spectator")
        listing = await lister.request(P.ListTables())
        (info,) = [t for t in listing.tables if t.table_id == table_id]
        assert info.spectators == 0 and info.status == "playing"
        over = await play_until_over(Player(pat, seed=6))
        assert isinstance(over, P.GameOver)
        assert not pat.of_type("error") and not pat.closed
        await game.check()
        nursery.cancel_scope.cancel()


async def test_a_spectator_who_comes_back_in_time_still_watches(autojump_clock):
    """Item 3: removal waits for ``reconnect_grace``: a spectator whose connection
    dropped and who comes back with its token before then is watching again."""
    config = make_config(reconnect_grace=10.0)
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, config)
        game = await background(nursery, port)
        eve = await connect(port, "Eve", "127.0.0.3", "spectator")
        assert isinstance(await eve.request(P.Watch(table_id=game.table_id)), P.Watching)
        await eve.aclose()
        await trio.sleep(config.reconnect_grace / 2)
        again = await connect(port, "Eve", "127.0.0.3", "spectator", hello=False)
        assert (await again.hello(eve.token)).resumed
        watching = await again.expect("watching")
        assert watching.table.table_id == game.table_id
        await trio.sleep(config.reconnect_grace * 2)  # connected: not removed
        listing = await again.request(P.ListTables(), unchecked=True)
        (info,) = [t for t in listing.tables if t.table_id == game.table_id]
        assert info.spectators == 1
        await game.check()
        nursery.cancel_scope.cancel()


async def test_a_spectator_who_comes_back_too_late_gets_a_fresh_session(autojump_clock):
    """Item 3: once removed, a spectator's token has expired: ``bad_token``."""
    config = make_config(reconnect_grace=10.0)
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, config)
        game = await background(nursery, port)
        eve = await connect(port, "Eve", "127.0.0.3", "spectator")
        assert isinstance(await eve.request(P.Watch(table_id=game.table_id)), P.Watching)
        await eve.aclose()
        await trio.sleep(config.reconnect_grace + 1)
        again = await connect(port, "Eve", "127.0.0.3", "spectator", hello=False)
        welcome = await again.hello(eve.token)
        assert not welcome.resumed
        assert [e for e in again.of_type("error") if e.code == "bad_token"]
        await game.check()
        nursery.cancel_scope.cancel()
