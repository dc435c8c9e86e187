"""Issue 42, attack 3, against a real server: one address floods the think pool with
bot-filled ladder tables; another address's bots are not made to wait for the
flood's backlog. Orders and counts of the pool's own steps are asserted (a decision
asked, taken by a worker, done), never durations.

A real server on 127.0.0.1 (port 0) with 2 think workers. Five claimed names from
127.0.0.2 each queue for a ladder table of 10 seats filled at once with 9 ``hard``
bots (a searching bot, ~0.1 s a decision) and play it, committing at once: 45
decisions a turn, the workers never idle. Then Vic, from 127.0.0.3, queues for a
ladder table of 2 filled with one ``hard`` bot and plays it. Vic's bot's first
decision waits for at most the flood's one on each worker (then it goes first, before
the flood's backlog); from its first answer on, the flood never has both workers:
one is kept free for Vic, so each of its later decisions is taken as soon as it is
asked. (With the turns alone, ``NIMMT_THINK_KEEP_FREE=0``, the flood takes both
workers between Vic's decisions: the last assertion fails.)"""

from __future__ import annotations

from typing import Any

import trio

from nimmt import protocol as P
from nimmt.server import start_server
from server_helpers import Player, make_config, play_until_over
from test_ladder_attacks import claimed

FLOOD = "127.0.0.2"
VICTIM = "127.0.0.3"
FLOOD_TABLES = 5
MEASURED = 5  # Vic's bot's decisions looked at


async def test_a_flood_of_bot_filled_ladder_tables_does_not_hold_the_workers_from_another_address(
        ) -> None:
    config = make_config(bot_workers=2, step_delay=0.0, tables_per_address=FLOOD_TABLES + 1,
                         claim_burst=FLOOD_TABLES + 1)
    # (step, group, the flood's decisions waiting): step is asked, taken or done
    events: list[tuple[str, Any, int]] = []
    backlog = trio.Event()
    victim_done = trio.Event()
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, config)
        queue = server.thinker._queue
        push, pop, finished = queue.push, queue.pop, queue.finished

        def flooded() -> None:
            flooding = sum((e[0] == "taken") - (e[0] == "done") for e in events if e[1] == FLOOD)
            if queue.waiting_in(FLOOD) >= 20 and flooding == 2:
                backlog.set()  # both workers think for the flood, and more waits

        def pushing(owner: Any, item: Any, group: Any = None, now: float = 0.0) -> Any:
            refused = push(owner, item, group, now)
            if refused is not item:
                events.append(("asked", item.group, queue.waiting_in(FLOOD)))
            flooded()
            return refused

        def popping(now: float = 0.0) -> Any:
            item = pop(now)
            if item is not None:
                events.append(("taken", item.group, queue.waiting_in(FLOOD)))
            flooded()
            return item

        def finishing(item: Any, now: float = 0.0) -> None:
            finished(item, now)
            events.append(("done", item.group, queue.waiting_in(FLOOD)))
            if sum(e[:2] == ("done", VICTIM) for e in events) >= MEASURED:
                victim_done.set()

        queue.push, queue.pop, queue.finished = pushing, popping, finishing
        await server.thinker.warm_up()  # (a worker's start-up is not a flood's decision)

        async def flood(n: int) -> None:
            client = await claimed(port, f"Flood{n}", address=FLOOD)
            queued = await client.request(P.Queue(  # (a turn time of its own: a table of its own)
                seats=10, fill_after=0.0, bot_level="hard",
                options=P.TableOptions(seats=10, rounds=1, turn_time=60.0 + n)))
            assert isinstance(queued, P.Queued), queued
            await play_until_over(Player(client, seed=n))

        for n in range(FLOOD_TABLES):
            nursery.start_soon(flood, n)
        with trio.fail_after(20):
            await backlog.wait()
        vic = await claimed(port, "Vic", address=VICTIM)
        queued = await vic.request(P.Queue(seats=2, fill_after=0.0, bot_level="hard",
                                           options=P.TableOptions(seats=2, rounds=1)))
        assert isinstance(queued, P.Queued), queued
        nursery.start_soon(play_until_over, Player(vic, seed=1))
        with trio.fail_after(20):
            await victim_done.wait()
        nursery.cancel_scope.cancel()

    assert {e[1] for e in events} == {FLOOD, VICTIM}  # each table counts for its player's address
    mine = [i for i, e in enumerate(events) if e[1] == VICTIM]
    asked = [i for i in mine if events[i][0] == "asked"]
    taken = [i for i in mine if events[i][0] == "taken"]
    done = [i for i in mine if events[i][0] == "done"]
    assert len(done) >= MEASURED and len(asked) >= MEASURED
    # one bot: one decision at a time, taken in the order asked
    assert all(a < t < d for a, t, d in zip(asked, taken, done))
    assert all(d < a for d, a in zip(done, asked[1:]))

    # the first: the flood had a backlog, and at most one decision a worker ended
    # before Vic's was taken (the next free worker took it, not the backlog's; both
    # workers may end theirs in one pass of the pool's loop, before the task that hands
    # out the next decision runs: a clean CI run saw 2)
    assert events[asked[0]][2] >= 20
    between = events[asked[0]:taken[0]]
    assert sum(e[:2] == ("done", FLOOD) for e in between) <= 2, between
    assert not any(e[:2] == ("taken", FLOOD) for e in between), between

    # from Vic's first answer to its last measured: the flood, still with decisions
    # waiting, never has both workers, and each of Vic's is taken by the next worker
    running = sum(+1 if e[0] == "taken" else -1 for e in events[:done[0]]
                  if e[1] == FLOOD and e[0] != "asked")
    most, withheld = running, 0
    for step, group, waiting in events[done[0]:done[MEASURED - 1]]:
        if group == FLOOD and step != "asked":
            running += 1 if step == "taken" else -1
            most = max(most, running)
        if group == VICTIM and step == "done" and waiting > 0:
            withheld += 1  # Vic holds none, the flood has decisions waiting: one is kept
    assert most <= 1, events[done[0]:done[MEASURED - 1]]
    assert withheld >= 2, events[done[0]:done[MEASURED - 1]]
    for a, t in zip(asked[1:MEASURED], taken[1:MEASURED]):
        assert not any(e[:2] == ("taken", FLOOD) for e in events[a:t]), events[a:t]
