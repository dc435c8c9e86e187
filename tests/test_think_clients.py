"""The think pool is fair between clients, not only tables (issue 42, attack 3): one
address with many tables of searching bots has one turn of the workers in each
round, as another address with one table has; orders are asserted, never durations.

Real server, one worker. Three sessions from 127.0.0.2 each start a table of 9
``hard`` bots (27 decisions queued); then Bob, from 127.0.0.3, starts a table with
one ``hard`` bot. Bob's bot is answered after 1 of the flood's decisions (the one the
worker is thinking: Bob's address had nothing waiting, so it goes first), where the
tables taking turns alone let 4 go first (the one thought, and one of each flooding
table)."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from nimmt import protocol as P
from nimmt.server.app import start_server
from server_helpers import ScriptClient, make_config

FLOOD = "127.0.0.2"
VICTIM = "127.0.0.3"


async def connect(port: int, name: str, address: str) -> ScriptClient:
    stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=address)
    client = ScriptClient(stream, name)
    await client.hello()
    return client


async def test_one_address_with_many_bot_tables_has_one_turn_of_the_workers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    config = make_config(bot_workers=1, step_delay=0.0)
    events: list[tuple[str, Any, int]] = []  # (asked/answered, group, players)
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, config)
        real = server.thinker.think

        async def think(spec: str, seed: Any, view: Any, timeout: float, *args: Any,
                        **kwargs: Any) -> Any:
            events.append(("asked", kwargs.get("group"), view.players))
            try:
                return await real(spec, seed, view, timeout, *args, **kwargs)
            finally:
                events.append(("answered", kwargs.get("group"), view.players))

        monkeypatch.setattr(server.thinker, "think", think)
        flooders = []
        for n in range(3):
            flooder = await connect(port, f"F{n}", FLOOD)
            seated = await flooder.request(P.CreateTable(options=P.TableOptions(
                seats=10, step_delay=0.0, turn_time=60.0)))
            assert isinstance(seated, P.Seated), seated
            for _ in range(9):
                assert isinstance(await flooder.request(P.AddBot(strategy="hard")),
                                  P.TableUpdated)
            await flooder.send(P.Start())
            flooders.append(flooder)
        with trio.fail_after(30):
            while sum(e[0] == "asked" for e in events) < 27:
                await trio.sleep(0.01)
        assert {e[1] for e in events} == {FLOOD}  # the tables count for their creator's address
        bob = await connect(port, "Bob", VICTIM)
        created = await bob.request(P.CreateTable(options=P.TableOptions(seats=2,
                                                                       step_delay=0)))
        assert isinstance(created, P.Seated), created
        assert isinstance(await bob.request(P.AddBot(strategy="hard")), P.TableUpdated)
        await bob.send(P.Start())
        with trio.fail_after(30):
            committed = await bob.expect("seat_committed")
        assert committed.seat == 1
        asked = events.index(("asked", VICTIM, 2))
        answered = events.index(("answered", VICTIM, 2))
        before = [e for e in events[asked:answered] if e[0] == "answered"]
        assert before and all(e[1] == FLOOD for e in before), events
        assert len(before) == 1, (len(before), events)
        hand = bob.of_type("hand_dealt")[-1].cards
        assert isinstance(await bob.request(P.Commit(round=1, turn=1, card=min(hand))),
                          P.CommitAccepted)
        await bob.expect("revealed")
        await server.shutdown()
        nursery.cancel_scope.cancel()
