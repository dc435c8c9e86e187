"""Issue 27 item 3 against a real server: ``queue`` forms rated tables from people and
bots under concurrency (no one seated twice, no one forgotten), the closest ratings
first, bots after the wait asked for, entries that leave no trace (leave_queue,
a dropped connection), and the refusals (unclaimed name, version 1, at a table)."""

from __future__ import annotations

import trio

from nimmt import protocol as P
from nimmt.server import start_server
from nimmt.server.config import ServerConfig
from nimmt.server.ladder.ratings import Rating
from server_helpers import (
    Player,
    ScriptClient,
    make_config,
    play_all,
    play_until_over,
    serve_memory,
)

KEY = "k" * 40
#: quick games: one round, no pause between the steps
QUICK = P.TableOptions(rounds=1, point_limit=None, step_delay=0.0)


async def claimed(port: int, name: str, protocol: int = P.PROTOCOL_VERSION) -> ScriptClient:
    client = await ScriptClient.tcp(port, name, key=KEY, protocol=protocol)
    assert client.welcome is not None and client.welcome.claimed
    return client


async def queue(client: ScriptClient, seats: int, fill_after: float | None = None,
                **fields) -> P.Message:
    return await client.request(P.Queue(seats=seats, options=QUICK, fill_after=fill_after,
                                        **fields))


def queue_is_empty(server) -> bool:
    desk = server.lobby.ladder_queue
    q = desk.queue
    return (len(q) == 0 and q._kinds == {} and q._by_name == {} and desk._sessions == {}
            and desk._entropy == {})


async def test_people_and_bots_queued_at_once_each_get_one_seat_and_play_rated():
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        names = [f"P{i}" for i in range(10)]
        # (version 2: entropy in the clear; version 3 takes only entropy_hash)
        clients = {name: await claimed(port, name, protocol=2) for name in names}
        four, three = names[:8], names[8:]
        results: dict[str, P.GameOver] = {}

        async def play(name: str, seats: int, fill_after: float | None) -> None:
            client = clients[name]
            reply = await queue(client, seats, fill_after, bot_level="easy",
                                entropy="ab" * 16)
            assert isinstance(reply, P.Queued) and reply.seats == seats, reply
            results[name] = await play_until_over(Player(client, seed=len(name)))

        async with trio.open_nursery() as players:
            for name in four:  # two tables of four people, never filled with bots
                players.start_soon(play, name, 4, None)
            for name in three:  # two people at 3 seats: a bot fills at once
                players.start_soon(play, name, 3, 0.0)
        assert sorted(results) == sorted(names)  # no one forgotten
        tables: dict[str, dict[str, int]] = {}  # table id -> name -> seat
        for name, client in clients.items():
            (seat,) = client.of_type("seated")  # no one seated twice
            assert isinstance(seat, P.Seated) and seat.table.options.rated
            tables.setdefault(seat.table.table_id, {})[name] = seat.seat
        groups = sorted(tables.values(), key=len)
        assert [len(g) for g in groups] == [2, 4, 4] and set(groups[0]) == set(three)
        assert all(len(set(g.values())) == len(g) for g in groups)  # one player a seat
        ladder = server.lobby.ladder.ladder
        assert all(ladder.get(name).games == 1 for name in names)
        assert ladder.get("bot:easy").games == 1
        # each contribution was mixed into the deals it was sent for
        over = results["P0"]
        assert over.contributions is not None and "ab" * 16 in over.contributions
        assert queue_is_empty(server)
        for client in clients.values():
            await client.aclose()
        nursery.cancel_scope.cancel()


async def test_more_waiting_than_seats_sit_closest_in_rating_first_and_a_full_server_waits():
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(max_tables=1))
        ladder = server.lobby.ladder.ladder
        # ordinals (mu - 3 sigma): A 30, B 1, C 29.5, D 3
        for name, mu in (("A", 33.0), ("B", 4.0), ("C", 32.5), ("D", 6.0)):
            ladder.ratings[name] = Rating(mu, 1.0, 10)
        host = await ScriptClient.tcp(port, "host")
        assert isinstance(await host.request(P.CreateTable()), P.Seated)  # the one table
        clients = {name: await claimed(port, name) for name in "ABCD"}
        for name in "ABCD":
            reply = await queue(clients[name], 2)
            assert isinstance(reply, P.Queued) and reply.server_full, reply
        assert isinstance(await host.request(P.Leave()), P.Left)  # room for one table
        a, c = [await clients[n].expect("seated") for n in "AC"]
        assert a.table.table_id == c.table.table_id  # type: ignore[attr-defined]
        lobby = server.lobby
        waiting = {s.name for s in lobby.sessions.values() if s.sid in lobby.ladder_queue.queue}
        assert waiting == {"B", "D"}  # the server is full again: they wait
        assert not clients["B"].of_type("seated") and not clients["D"].of_type("seated")
        for client in (host, *clients.values()):
            await client.aclose()
        nursery.cancel_scope.cancel()


async def test_after_the_wait_asked_for_bots_of_the_level_asked_fill_the_table(autojump_clock):
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config(ping_interval=3600.0,
                                                         pong_timeout=3600.0))
        ann = await ScriptClient.memory(server, nursery, "Ann", hello=False)
        await ann.hello(key=KEY)
        bob = await ScriptClient.memory(server, nursery, "Bob", hello=False)
        await bob.hello(key=KEY)
        start = trio.current_time()
        reply = await queue(ann, 3, 30.0, bot_level="easy")
        assert isinstance(reply, P.Queued) and reply.fill_in == 30.0
        patient = await queue(bob, 3, None)  # never with bots: not taken into Ann's table
        assert isinstance(patient, P.Queued) and (patient.position, patient.waiting) == (2, 2)
        with trio.move_on_after(29.9):
            await ann.expect("seated")
            raise AssertionError("seated before the wait ran out")
        seated = await ann.expect("seated")
        assert isinstance(seated, P.Seated)
        assert 30.0 <= trio.current_time() - start < 30.5
        bots = [s for s in seated.table.seats if s is not None and s.kind == "bot"]
        assert [s.strategy for s in bots] == ["easy", "easy"]
        await ann.expect("round_started")  # the table starts by itself
        assert not bob.of_type("seated") and len(server.lobby.ladder_queue.queue) == 1
        for client in (ann, bob):
            await client.aclose()
        nursery.cancel_scope.cancel()


async def test_a_left_or_dropped_entry_leaves_no_trace():
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        ann, bob, cy, dan = [await claimed(port, n) for n in ("Ann", "Bob", "Cy", "Dan")]
        assert isinstance(await queue(ann, 2), P.Queued)
        left = await ann.request(P.LeaveQueue())
        assert isinstance(left, P.QueueLeft) and left.reason == "left"
        again = await ann.request(P.LeaveQueue())
        assert isinstance(again, P.Error) and again.code == "not_allowed"
        assert isinstance(await queue(bob, 2), P.Queued)
        await bob.aclose()  # dropped while waiting
        with trio.fail_after(5):
            while not queue_is_empty(server):
                await trio.sleep(0.01)
        assert isinstance(await queue(cy, 2), P.Queued)
        assert isinstance(await queue(dan, 2), P.Queued)
        seated = [await c.expect("seated") for c in (cy, dan)]
        assert seated[0].table.table_id == seated[1].table.table_id  # type: ignore[attr-defined]
        for client in (cy, dan):  # and it starts: both are there
            assert isinstance(await client.expect("round_started"), P.RoundStarted)
        assert not ann.of_type("seated") and queue_is_empty(server)
        # Ann was never at a table: she still plays casual games as before
        assert isinstance(await ann.request(P.CreateTable()), P.Seated)
        for client in (ann, cy, dan):
            await client.aclose()
        nursery.cancel_scope.cancel()


async def test_refusals_unclaimed_version_1_at_a_table_and_a_second_queue_replaces():
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        casual = await ScriptClient.tcp(port, "Casual")
        refused = await queue(casual, 4)
        assert isinstance(refused, P.Error) and refused.code == "not_allowed"
        assert "claim" in refused.message and "key" in refused.message
        old = await ScriptClient.tcp(port, "Old", protocol=1)
        unknown = await old.request(P.Queue(), unchecked=True)
        assert isinstance(unknown, P.Error) and unknown.code == "unknown_type"
        assert "protocol 2" in unknown.message
        assert isinstance(await old.request(P.ListTables()), P.TableList)  # still served
        ann = await claimed(port, "Ann")
        assert isinstance(await ann.request(P.CreateTable()), P.Seated)
        at_table = await ann.request(P.Queue(), unchecked=True)
        assert isinstance(at_table, P.Error)  # not in the lobby: refused
        assert isinstance(await ann.request(P.Leave()), P.Left)
        first = await queue(ann, 4)
        assert isinstance(first, P.Queued) and first.seats == 4
        await ann.send(P.Queue(seats=3, id=ann.next_id()))
        replaced = await ann.expect("queue_left")
        assert isinstance(replaced, P.QueueLeft) and replaced.reason == "replaced"
        second = await ann.expect("queued")
        assert isinstance(second, P.Queued) and (second.seats, second.waiting) == (3, 1)
        busy = await ann.request(P.CreateTable())
        assert isinstance(busy, P.Error) and "leave_queue" in busy.message
        bad = await ann.request(P.Queue(bot_level="nonsense"))
        assert isinstance(bad, P.Error) and bad.code == "unknown_strategy"
        assert len(server.lobby.ladder_queue.queue) == 1
        for client in (casual, old, ann):
            await client.aclose()
        nursery.cancel_scope.cancel()


async def test_tables_filled_with_bots_for_a_player_who_leaves_them_count_as_theirs():
    """An attack: queue with fill_after 0, leave the table at once, queue again... the
    server's bots would play table after table for nobody. A bot-filled table counts
    as one its player created (tables_per_session): the third is refused; others play."""
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(tables_per_session=2))
        eve = await claimed(port, "Eve")
        for _ in range(2):
            assert isinstance(await queue(eve, 4, 0.0, bot_level="easy"), P.Queued)
            await eve.expect("seated")
            assert isinstance(await eve.request(P.Leave()), P.Left)
        refused = await queue(eve, 4, 0.0, bot_level="easy")
        assert isinstance(refused, P.Error) and refused.code == "not_allowed"
        assert refused.field == "fill_after" and "2 tables" in refused.message
        assert isinstance(await queue(eve, 2, None), P.Queued)  # waiting for people: fine
        ann = await claimed(port, "Ann")
        assert isinstance(await queue(ann, 2, None), P.Queued)
        seated = await ann.expect("seated")  # with Eve: the others are not held back
        assert isinstance(seated, P.Seated)
        await eve.expect(lambda m: isinstance(m, P.Seated)
                         and m.table.table_id == seated.table.table_id)
        for client in (eve, ann):
            await client.aclose()
        nursery.cancel_scope.cancel()


async def test_a_ladder_table_paces_its_steps_at_least_as_the_server_says():
    """Bots queue asking for no pause: the server's ``ladder_step_delay`` (0.25 s by
    default) is the least pause between steps a person at a ladder table sees."""
    assert ServerConfig().ladder_step_delay == 0.25
    slow = P.TableOptions(rounds=1, point_limit=None, step_delay=0.5)
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config(ladder_step_delay=0.1))
        clients = []
        for name in ("Ann", "Bob", "Cat", "Dan"):
            client = await ScriptClient.memory(server, nursery, name, hello=False)
            await client.hello(key=KEY)
            clients.append(client)
        ann, bob, cat, dan = clients
        await queue(ann, 2)  # QUICK: step_delay 0
        await queue(bob, 2)
        for client in (cat, dan):  # a longer pause than the least is kept
            await client.request(P.Queue(seats=2, options=slow, fill_after=None))
        for client, pause in ((ann, 0.1), (bob, 0.1), (cat, 0.5), (dan, 0.5)):
            seated = await client.expect("seated")
            assert isinstance(seated, P.Seated)
            assert seated.table.options.step_delay == pause
        for client in clients:
            await client.aclose()
        nursery.cancel_scope.cancel()


async def _turn_times(least: float) -> list[tuple[float, float, float]]:
    """Two bot clients (no person) queue for a 2-seat game on a server whose
    ``ladder_step_delay`` is ``least`` and play it; for each turn, as Ann sees it:
    when it was revealed, when its last step came, when the next turn (or the
    round's scores) came."""
    turns: list[tuple[float, float, float]] = []
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config(ladder_step_delay=least))
        clients = []
        for name in ("Ann", "Bob"):
            client = await ScriptClient.memory(server, nursery, name, "bot", hello=False)
            await client.hello(key=KEY)
            clients.append(client)
        for client in clients:
            await queue(client, 2)
        revealed_at = last_step = None

        def note(_: Player, msg: P.Message) -> None:  # Ann's clock, as she reads
            nonlocal revealed_at, last_step
            now = trio.current_time()
            if isinstance(msg, P.Revealed):
                revealed_at = last_step = now
            elif msg.TYPE in ("placed", "row_taken"):
                last_step = now
            elif msg.TYPE in ("turn_started", "round_scored") and revealed_at is not None:
                turns.append((revealed_at, last_step, now))
                revealed_at = None

        await play_all([Player(clients[0], 0, choose=note), Player(clients[1], 1)])
        for client in clients:
            await client.aclose()
        nursery.cancel_scope.cancel()
    return turns


async def test_a_table_of_bots_formed_by_the_queue_is_paced_though_no_person_watches(
        autojump_clock):
    """``step_delay`` paces a table only while a person watches; a ladder table of bots
    alone sends each turn's steps together (one write to each bot, not one a step)
    and then waits ``ladder_step_delay`` for each of them (and one more) before the
    next turn (the load test: benchmarks/ladder.py); it plays at full speed when
    that is 0."""
    paced = await _turn_times(0.1)
    assert len(paced) == 10  # one round of ten turns
    for revealed, last_step, after in paced:
        assert last_step == revealed  # the steps went out together
        # two seats: one or two steps (a row taken and the card placed count as one)
        assert 0.2 - 1e-9 <= after - last_step <= 0.3 + 1e-9
    assert all(revealed == after for revealed, _, after in await _turn_times(0.0))
