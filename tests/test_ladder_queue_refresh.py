"""Issue 27's queue, told again: a player waiting in the ladder queue is sent a fresh
``queued`` when their place, the number waiting for their game or ``server_full``
changes (someone queues, leaves, drops, a table forms without them, the server
fills up or gets room), and a crowd coming and going costs each waiting player a
message a second at most."""

from __future__ import annotations

import asyncio

import trio

from nimmt import protocol as P
from nimmt.client.model import TableModel
from nimmt.client.net import connect
from nimmt.client.tui.state import CreateForm
from nimmt.server import start_server
from nimmt.server.lobby.seating import QUEUED_EVERY
from real_server import running_server
from server_helpers import ScriptClient, make_config, serve_memory
from test_ladder_queue_server import KEY, QUICK, claimed

async def queue(client: ScriptClient, seats: int) -> P.Message:
    return await client.request(P.Queue(seats=seats, options=QUICK, fill_after=None))


async def told(client: ScriptClient, position: int, waiting: int,
               server_full: bool = False) -> P.Queued:
    """The next refreshed ``queued``; it must say this."""
    msg = await client.expect(lambda m: isinstance(m, P.Queued) and m.re is None)
    assert isinstance(msg, P.Queued)
    assert (msg.position, msg.waiting, msg.server_full) == (position, waiting, server_full), msg
    return msg


def refreshed(client: ScriptClient) -> list[P.Queued]:
    return [m for m in client.of_type("queued") if isinstance(m, P.Queued) and m.re is None]


async def test_those_waiting_hear_their_place_as_others_queue_leave_and_drop():
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        ann, bob, cy, dan = [await claimed(port, n) for n in ("Ann", "Bob", "Cy", "Dan")]
        first = await queue(ann, 4)
        assert isinstance(first, P.Queued) and (first.position, first.waiting) == (1, 1)
        assert isinstance(await queue(bob, 4), P.Queued)
        await told(ann, 1, 2)
        assert isinstance(await queue(cy, 4), P.Queued)
        await told(ann, 1, 3)
        await told(bob, 2, 3)
        assert isinstance(await ann.request(P.LeaveQueue()), P.QueueLeft)
        await told(bob, 1, 2)
        await told(cy, 2, 2)
        await bob.aclose()  # dropped while waiting
        await told(cy, 1, 1)
        # a player waiting for another game hears nothing of this line
        assert isinstance(await queue(dan, 2), P.Queued)
        assert isinstance(await ann.request(P.ListTables()), P.TableList)
        assert refreshed(ann) == [refreshed(ann)[0], refreshed(ann)[1]]  # none after leaving
        assert refreshed(dan) == []
        for client in (ann, cy, dan):
            await client.aclose()
        nursery.cancel_scope.cancel()


async def test_a_table_formed_without_them_and_a_full_server_are_told():
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(max_tables=1))
        ann, bob, cy = [await claimed(port, n) for n in ("Ann", "Bob", "Cy")]
        reply = await queue(ann, 2)
        assert isinstance(reply, P.Queued) and not reply.server_full
        host = await ScriptClient.tcp(port, "host")
        assert isinstance(await host.request(P.CreateTable()), P.Seated)  # the one table
        await told(ann, 1, 1, server_full=True)  # she waits for a table to close
        assert isinstance(await queue(bob, 2), P.Queued)
        assert isinstance(await queue(cy, 2), P.Queued)
        await told(ann, 1, 3, server_full=True)
        assert isinstance(await host.request(P.Leave()), P.Left)  # room for one table
        for client in (ann, bob):
            assert isinstance(await client.expect("seated"), P.Seated)
        # Cy moved up, and the ladder table filled the server again
        await told(cy, 1, 1, server_full=True)
        assert not cy.of_type("seated")
        for client in (host, ann, bob, cy):
            await client.aclose()
        nursery.cancel_scope.cancel()


async def test_a_crowd_queueing_one_by_one_costs_each_a_message_a_second_at_most(autojump_clock):
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config(max_tables=1, ping_interval=3600.0,
                                                         pong_timeout=3600.0))
        host = await ScriptClient.memory(server, nursery, "host")
        assert isinstance(await host.request(P.CreateTable()), P.Seated)  # the server is full
        crowd: list[ScriptClient] = []
        for i in range(80):
            client = await ScriptClient.memory(server, nursery, f"P{i}", hello=False)
            await client.hello(key=KEY)
            crowd.append(client)
        start = trio.current_time()
        for client in crowd:  # one after the other, 20 a second
            await client.send(P.Queue(seats=2, options=QUICK, fill_after=None,
                                      id=client.next_id()))
            await trio.sleep(0.05)
        for i, client in enumerate(crowd):  # each ends knowing where it stands
            reply = await client.expect(lambda m: isinstance(m, P.Queued) and m.re is not None)
            assert isinstance(reply, P.Queued) and reply.position == i + 1
            if i < len(crowd) - 1:  # told the final count (after fewer on the way)
                await client.expect(lambda m: isinstance(m, P.Queued) and m.re is None
                                    and m.waiting == len(crowd))
        elapsed = trio.current_time() - start
        counts = [len(refreshed(c)) for c in crowd]
        # one per waiting player per refresh, a refresh a second at most: not 80 each
        assert max(counts) <= 1 + elapsed / QUEUED_EVERY, (counts, elapsed)
        assert sum(counts) <= 3 * len(crowd)  # told at every arrival: 3160
        last = refreshed(crowd[0])[-1]
        assert (last.position, last.waiting, last.server_full) == (1, len(crowd), True)
        for client in (host, *crowd):
            await client.aclose()
        nursery.cancel_scope.cancel()


def test_the_terminal_clients_queue_line_follows_a_real_server() -> None:
    """The form's queue request, through the client's connection, and the lobby's
    line (the model's ``queued``) from what a real server sends as another player
    queues and leaves."""

    async def scenario(port: int) -> list[str]:
        ann = await connect("127.0.0.1", port, "Ann", key="a" * 40)
        bob = await connect("127.0.0.1", port, "Bob", key="b" * 40)
        model = TableModel()
        model.apply(ann.welcome)
        events = ann.events()
        seen: list[str] = []

        def state() -> str:
            q = model.queued
            return "not queued" if q is None else f"{q.position} of {q.waiting}"

        async def until(wanted: str) -> None:
            while state() != wanted:
                model.apply(await asyncio.wait_for(anext(events), 10))
                if not seen or seen[-1] != state():
                    seen.append(state())

        form = CreateForm()
        form.values["fill_after"] = None
        await ann.send(form.queue_request())
        await until("1 of 1")
        await bob.send(P.Queue(seats=4, options=form.options(), fill_after=None))
        await until("1 of 2")  # told as Bob queued
        await bob.send(P.LeaveQueue())
        await until("1 of 1")  # and as he left
        await ann.send(P.LeaveQueue())
        await until("not queued")
        await ann.close()
        await bob.close()
        return seen

    with running_server() as port:
        seen = asyncio.run(asyncio.wait_for(scenario(port), 30))
    assert seen == ["1 of 1", "1 of 2", "1 of 1", "not queued"]
